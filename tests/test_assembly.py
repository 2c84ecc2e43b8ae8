"""The assembly proven with Debian's openscad (controller/hardware/assembly.py): every build the
parts folders offer (Dr. Nim with the solenoid and with the servo gate, the Nimatron) has no
collision, every part on its board, every screw of the right length and in the parts list,
every bought part held in its pocket, the marble landing in the funnel and the release
lifting it; and each of those checks fails on a part moved or resized to fail it.

Manifold makes the solids from openscad's CSG (tests/test_csg.py proves them openscad's own);
where openscad renders one, the render is kept for the run in a folder the workers share."""

import io
import math
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path, PurePosixPath, PureWindowsPath
from types import SimpleNamespace

import pytest

from conftest import ROOT
from controller.hardware.assembly import Assembly
from controller.hardware.command import with_release
from controller.hardware.pinmap import load_default, load_pinmap
from controller.hardware.pinmap.build import build_scad, gate_problem
from controller.hardware.printed import Mesh

OPENSCAD = shutil.which("openscad")
needs_openscad = pytest.mark.skipif(OPENSCAD is None, reason="openscad is missing (apt-get install openscad)")
BUILDS = {
    "drnim-solenoid": lambda: with_release(load_default("drnim"), "solenoid"),
    "drnim-servo": lambda: with_release(load_default("drnim"), "servo"),
    "nimatron": lambda: load_default("nimatron"),
}
# The other break-beam pair: its own holder, which must still fit the board.
OTHER_SENSOR = {"drnim-2168": lambda: replace(load_default("drnim"), build=dict(load_default("drnim").build,
                                                                                sensor="2168"))}


@pytest.fixture(scope="session")
def renders(tmp_path_factory):
    return tmp_path_factory.mktemp("assembly")


@pytest.fixture(scope="session")
def checked(renders):
    """Each build's report, made once for the session."""
    made = {}

    def check(build, defines=()):
        key = (build, tuple(defines))
        if key not in made:
            made[key] = Assembly(dict(BUILDS, **OTHER_SENSOR)[build](), OPENSCAD, renders, defines).check()
        return made[key]
    return check


@needs_openscad
@pytest.mark.parametrize("build", BUILDS)
def test_each_build_is_proven_together(build, checked):
    report = checked(build)
    assert report.failures == []
    figures = "\n".join(report.figures)
    # the screws counted are those the figures list, each stack as "N <screw> into the <part>"
    listed = sum(int(count) for count in re.findall(r"(?:^screws: |; )(\d+) [^;]* into the ", figures, re.M))
    assert listed >= (28 if build == "nimatron" else 40)
    assert report.summary() == "assembly: %d parts and %d screws checked: 0 collisions, 0 screw faults, 0 misfits" \
        % (report.parts, listed)
    assert report.parts >= (17 if build == "nimatron" else 25)
    assert "screws: " in figures and "turns of thread" in figures
    # every fit judged as printed: holes hole_allowance smaller than drawn, across their flats
    assert "fits (proven between 0.05 and 0.6 mm a side, holes printing 0.2 mm small; as printed, mm): " in figures
    assert "a status lamp in the %s 0.10" % ("console's top" if build == "nimatron" else "panel") in figures
    if build.startswith("drnim"):
        assert "marble: leaves the lip at 100-250 mm/s" in figures and "lift: " in figures


@needs_openscad
def test_the_5_mm_break_beam_pair_has_a_holder_that_fits_it_and_the_board(checked):
    report = checked("drnim-2168")
    assert report.failures == []
    assert "the break-beam emitter in its pocket 0.30" in "\n".join(report.figures)


@needs_openscad
def test_a_part_moved_into_another_collides(checked):
    """The tray lifted into the beam holder above it."""
    report = checked("drnim-solenoid", ["tray_at=[230, 0, 200]"])
    assert any(line.startswith("collision: beam_holder and tray") or line.startswith("collision: tray and")
               for line in report.collisions), report.collisions


@needs_openscad
def test_a_part_moved_off_the_board_is_a_misfit(checked):
    report = checked("drnim-solenoid", ["tray_at=[245, 0, 120]"])
    assert any(line.startswith("off the board: tray reaches") and "right edge" in line for line in report.misfits), \
        report.misfits


@needs_openscad
def test_a_screw_too_long_for_the_board_and_the_parts_list(checked):
    report = checked("drnim-solenoid", ["panel_screw=[3, 20, 1.35]"])
    assert any("(panel into the backboard): Wood screws 3.0 x 20 through 10 mm goes 10.0 mm into a 9 mm backboard: "
               "its tip comes 1.0 mm out of the back" in line for line in report.screws), report.screws
    assert any("the assembly uses 4 Wood screws 3.0 x 20, bom.csv lists none" in line for line in report.screws)
    assert report.summary().endswith(" screws checked: 0 collisions, %d screw faults, 0 misfits" % len(report.screws))


@needs_openscad
def test_a_screw_too_short_holds_too_few_threads(checked):
    report = checked("drnim-solenoid", ["panel_screw=[3, 13, 1.35]"])
    assert any("leaves 3.0 mm in the backboard: 2.2 turns of thread, at least 3 hold" in line
               for line in report.screws), report.screws


@needs_openscad
def test_a_pocket_too_small_collides_and_one_too_large_rattles(checked):
    tight = checked("drnim-solenoid", ["beam_pocket=[15, 7, 6]"])
    assert any(line.startswith("collision: beam_holder and beam-emitter") for line in tight.collisions), tight.collisions
    loose = checked("drnim-solenoid", ["beam_pocket=[17, 9, 8]"])
    assert any(line.startswith("loose: the break-beam emitter in its pocket") for line in loose.misfits), loose.misfits


@needs_openscad
def test_a_holder_moved_along_the_rail_misses_the_marble(checked):
    report = checked("drnim-solenoid", ["bore_x=300"])
    assert any(line.startswith("marble: at 100 mm/s it lands") and "not whole inside the 44 mm funnel" in line
               for line in report.misfits), report.misfits
    assert any("marble-flight" in line for line in report.collisions), "the flight hits the holder's rim"


@needs_openscad
@pytest.mark.parametrize("define, part, path", [
    ("beam_bore=15", "beam_holder", "marble-drop"),       # the bore under the funnel, narrower than a marble
    ("channel=15", "rail_lower", "marble-rail"),          # the rail's channel, narrower than a marble
])
def test_a_way_narrower_than_the_marble_stops_it(checked, define, part, path):
    """The marble's whole way is a solid nothing may cross: down the rail to the lip, and from
    the funnel's mouth through the bore to the tray, as well as its flight between them."""
    report = checked("drnim-solenoid", [define])
    assert any(line.startswith("collision: %s and %s" % (part, path)) for line in report.collisions), report.collisions


@needs_openscad
@pytest.mark.parametrize("build, define, says", [
    ("drnim-solenoid", "pi_pilot=2.0", "tight: the Pi's M2.5 thread-forming screws in their standoffs: a hole in "
                                       "enclosure_base prints narrower than 2.1 mm across its flats"),
    ("nimatron", "strip_pilot=2.9", "loose: the stripboard's M3 screws in their posts: a hole in console_base prints "
                                    "wider than 2.7 mm"),
])
def test_a_pilot_hole_the_screw_cannot_take(checked, build, define, says):
    """A thread-forming screw splits a pilot hole that prints too narrow and strips one too wide:
    the hole as printed (hole_allowance smaller than drawn, across its flats) is judged."""
    report = checked(build, [define])
    assert any(line.startswith(says) for line in report.misfits), report.misfits


# Where each build guide fits a part or drives the screws that hold it: a phrase of its own.
GUIDE_SAYS = {
    "drnim": {"enclosure_base": "Screw the electronics box to the base", "pi": "M2.5 x 6 self-tapping screws",
              "pi-ribbon": "Plug the T-Cobbler's ribbon", "fuse-holder": "fit the panel\nbarrel socket and the fuse holder",
              "gate_servo_mount": "screw its bracket on first", "gate_servo_arm": "fit the arm on the horn"},
    "nimatron": {"console_base": "Screw the console to the base", "pi": "M2.5 x 6 self-tapping screws",
                 "pi-ribbon": "Plug the T-Cobbler's ribbon", "fuse-holder": "fit the fuse holder",
                 "console-board": "screw the stripboard onto its four posts",
                 "barrel-socket": "fit the barrel\nsocket in"},
}


@needs_openscad
@pytest.mark.parametrize("build", BUILDS)
def test_the_guide_fits_nothing_over_a_screw_before_driving_it(build, checked):
    """The check finds what lies in a screwdriver's way to each screw's head (the T-Cobbler's
    ribbon plug over two of the Pi's screws, the fuse holder over a floor screw, the servo arm
    over its bracket's screw): the build guide drives those screws before it fits that part."""
    machine = build.split("-")[0]
    guide = (ROOT / "hardware" / machine / "README.md").read_text(encoding="utf-8")
    steps = " ".join(guide[guide.index("\n## 1. "):guide.index("\n## Troubleshooting")].split())
    says = dict((part, " ".join(phrase.split())) for part, phrase in GUIDE_SAYS[machine].items())
    report = checked(build)
    assert report.blocked, "the check found no screw covered by a part: the guide's order is not tested"
    for screwed, part in report.blocked:
        assert screwed in says and part in says, "the guide's phrase for %s or %s is not known" % (screwed, part)
        assert says[screwed] in steps and says[part] in steps, (says[screwed], says[part])
        assert steps.index(says[screwed]) < steps.index(says[part]), "%s covers the screws of %s" % (part, screwed)


@needs_openscad
def test_a_slot_too_narrow_for_the_servo_arms_sweep(checked):
    report = checked("drnim-servo", ["gate_slot=5"])
    assert any(line.startswith("collision: rail_lower and peg-sweep-") for line in report.collisions), report.collisions


@needs_openscad
def test_a_short_stroke_does_not_lift_the_marble(checked):
    report = checked("drnim-solenoid", ["solenoid_stroke=5"])
    assert any(line.startswith("lift: the solenoid's plunger rises 4.0 mm above the rail's floor, but the lowest "
                               "marble needs 4.8 mm and 1 to spare") for line in report.misfits), report.misfits


@needs_openscad
def test_a_hood_raised_too_high_lets_a_bouncing_marble_out(checked):
    report = checked("drnim-solenoid", ["tray_roof=60"])
    assert any(line.startswith("tray: the hood's roof is") and "a marble bounces more than a marble's height" in line
               for line in report.misfits), report.misfits


def servo_map(tmp_path, closed, opened):
    pinmap = with_release(load_default("drnim"), "servo")
    spec = pinmap.outputs["release"]
    options = dict(spec.options, closed_angle=closed, open_angle=opened)
    return replace(pinmap, outputs=dict(pinmap.outputs, release=replace(spec, options=options)))


@pytest.mark.parametrize("closed, opened, problem", [
    (0, 60, "from 0° to 60° the 60 mm arm's peg sweeps 34.7 mm along the rail, but its slot leaves it 6.9 mm: it jams"),
    (5, 10, "from 5° to 10° the 60 mm arm lifts the peg 5.2 mm, but it must rise 10.8 mm"),
    (16, 5, "from 16° to 5° the 60 mm arm lifts the peg -11.3 mm"),
])
def test_the_gate_refuses_angles_its_slot_cannot_take(tmp_path, closed, opened, problem):
    key, why = gate_problem(servo_map(tmp_path, closed, opened))
    assert key == "outputs.release.open_angle" and why.startswith(problem), why
    assert gate_problem(servo_map(tmp_path, 5, 16)) is None


@pytest.mark.parametrize("marble_mm", [16, 19, 22])
@pytest.mark.parametrize("closed, opened", [(5, 10), (0, 60), (5, 16)])
def test_the_gates_hint_names_angles_that_work_for_the_marbles(tmp_path, marble_mm, closed, opened):
    """The hint named 5° and 16° whatever the marble: for 19 mm marbles those fail, and a hobbyist who took
    the hint was refused again with the same hint."""
    pinmap = servo_map(tmp_path, closed, opened)
    pinmap = replace(pinmap, build=dict(pinmap.build, marble_mm=marble_mm))
    problem = gate_problem(pinmap)
    if problem is None:
        return
    hinted = re.search(r"e\.g\. closed_angle = (-?\d+) and open_angle = (-?\d+)", problem[1])
    assert hinted, problem
    spec = pinmap.outputs["release"]
    options = dict(spec.options, closed_angle=int(hinted.group(1)), open_angle=int(hinted.group(2)))
    assert gate_problem(replace(pinmap, outputs=dict(pinmap.outputs, release=replace(spec, options=options)))) \
        is None, problem


def test_the_pin_map_check_refuses_the_old_60_degree_gate(tmp_path):
    from controller.hardware.pinmap import main
    text = (ROOT / "hardware" / "drnim" / "pinmap.toml").read_text()
    text = text.replace('kind = "solenoid"                 # or "servo" (a servo gate), see below\n'
                        'pin = 18                          # header pin 12; a servo gate works here too (any pin: lgpio '
                        'times its pulses)\n'
                        'active = "high"                   # high = solenoid energised = one marble goes\n',
                        'kind = "servo"\npin = 18\nclosed_angle = 0\nopen_angle = 60\n', 1)
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    out = io.StringIO()
    assert main([str(path)], out=out) == 1
    line = out.getvalue().strip()
    assert line.startswith("%s:%d: outputs.release.open_angle: from 0° to 60°" % (
        path, text.splitlines().index("open_angle = 60") + 1)) and "\n" not in line


@pytest.mark.parametrize("machine", ("drnim", "nimatron"))
def test_build_scad_is_generated_from_the_pin_map(machine):
    """The parts read the pin map's build through build.scad: a stale one fails here
    (python -m controller.hardware.pinmap --write-docs rewrites it)."""
    pinmap = load_default(machine)
    assert (ROOT / "hardware" / machine / "parts" / "build.scad").read_text() == build_scad(pinmap)


def test_only_the_assembly_reads_what_a_copy_of_the_pin_map_may_change_without_redrawing_the_parts():
    """--write-docs and the check tell a builder whether build.scad draws the parts for a copy of the pin map,
    leaving out the release's kind and angles (PLACEMENT_ONLY), which only place the parts: a printed part
    that read them would be drawn for the shipped release while the copy's was checked."""
    from controller.hardware.pinmap.command import PLACEMENT_ONLY
    readers = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "hardware").rglob("*.scad")
                     if path.name not in ("assembly.scad", "build.scad")
                     and re.search(r"\b(%s)\b" % "|".join(PLACEMENT_ONLY), path.read_text(encoding="utf-8")))
    assert readers == []


def test_a_build_table_with_a_bad_value_is_refused_in_one_line(tmp_path):
    from controller.hardware.pinmap import PinMapError
    text = (ROOT / "hardware" / "drnim" / "pinmap.toml").read_text().replace('sensor = "2167"', 'sensor = "2169"')
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    with pytest.raises(PinMapError) as caught:
        load_pinmap(path)
    assert str(caught.value) == '%s:%d: build.sensor: \'2169\' is not one of "2167", "2168" (Adafruit\'s break-beam ' \
                                'pairs)' % (path, text.splitlines().index('sensor = "2169"                   # the IR '
                                                                          'break-beam pair: Adafruit "2167" (3 mm LEDs) '
                                                                          'or "2168" (5 mm)') + 1)


@needs_openscad
def test_the_command_checks_one_machine_and_says_so_in_its_last_line(renders, monkeypatch, capsys):
    from controller.cli import main
    monkeypatch.setenv("XDG_CACHE_HOME", str(renders.parent / "xdg"))
    monkeypatch.setattr("controller.hardware.command.default_cache", lambda: renders)
    out = io.StringIO()
    assert main(["hardware", "check", "--machine", "nimatron"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("hardware/nimatron/pinmap.toml (the Nimatron):")
    assert lines[-1].startswith("assembly: ") and lines[-1].endswith(" screws checked: 0 collisions, 0 screw faults, 0 misfits")
    assert "manifold3d" not in capsys.readouterr().err, "with Manifold there, nothing to say of it"


def edited_checkout(tmp_path, hole_allowance="0.35"):
    """A checkout's top folder with the repository's hardware/, its hole_allowance set as a builder sets
    it for their printer (step 1 of the guide)."""
    top = tmp_path / "checkout"
    shutil.copytree(ROOT / "hardware", top / "hardware", ignore=shutil.ignore_patterns("*.pdf", "*.png", "*.stl"))
    common = top / "hardware" / "common.scad"
    text, count = re.subn(r"^hole_allowance = [\d.]+;", "hole_allowance = %s;" % hole_allowance,
                          common.read_text(encoding="utf-8"), flags=re.M)
    assert count == 1
    common.write_text(text, encoding="utf-8")
    return top


@needs_openscad
def test_run_from_an_edited_checkout_the_check_says_it_checks_the_installed_parts_and_checks_the_checkouts_on_asking(
        tmp_path, renders, monkeypatch, capsys):
    """Installed with pipx, the check read the installed copy of the parts while the guide's builder had set
    hole_allowance in the checkout's common.scad and rendered the STL files from there: the printed parts
    were never checked. It says so in its first line, and --hardware checks the checkout's parts."""
    from controller import shipped
    from controller.cli import main
    top = edited_checkout(tmp_path)
    monkeypatch.setattr("controller.hardware.command.default_cache", lambda: renders)
    monkeypatch.chdir(top / "hardware" / "drnim" / "parts")        # where the guide renders the parts
    out = io.StringIO()
    assert main(["hardware", "check", "--machine", "drnim", "--release", "solenoid"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == ("controller hardware check: the parts installed with the controller (%s) are checked, not "
                        "the checkout's here, whose common.scad differs: --hardware %s checks the checkout's"
                        % (shipped.hardware(), top / "hardware"))
    assert "holes printing 0.2 mm small" in lines[2]
    out = io.StringIO()
    main(["hardware", "check", "--machine", "drnim", "--release", "solenoid", "--hardware", "../.."], out=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "../../drnim/pinmap.toml (Dr. Nim), solenoid release:"       # its pin map too
    assert "holes printing 0.35 mm small" in lines[1]
    capsys.readouterr()
    assert main(["hardware", "check", "--machine", "drnim", "--hardware", ".."], out=io.StringIO()) != 0
    assert capsys.readouterr().err == "controller: --hardware ..: no common.scad there: give the hardware/ folder of " \
                                      "a checkout\n"


@needs_openscad
def test_the_check_says_where_the_build_scad_the_parts_render_from_is_not_the_pin_maps(tmp_path, monkeypatch):
    """A copy of the pin map with the other break-beam pair is checked with its holder, but the STL files
    are rendered from the checkout's build.scad, which draws the shipped one's: one line says so, and how."""
    from controller.cli import main
    from controller.hardware.assembly import Report
    top = edited_checkout(tmp_path, "0.2")
    text = (top / "hardware" / "drnim" / "pinmap.toml").read_text(encoding="utf-8")
    (top / "my-drnim.toml").write_text(text.replace('sensor = "2167"', 'sensor = "2168"'), encoding="utf-8")
    monkeypatch.setattr("controller.hardware.assembly.Assembly.check", lambda self: Report())
    monkeypatch.chdir(top)
    out = io.StringIO()
    assert main(["hardware", "check", "--pinmap", "my-drnim.toml", "--hardware", "hardware"], out=out) == 0
    assert out.getvalue().splitlines()[0] == (
        'controller hardware check: hardware/drnim/parts/build.scad, which the parts are rendered from, draws them '
        'for beam_model = "2167", the pin map checked (my-drnim.toml) for beam_model = "2168": put the same in '
        'hardware/drnim/pinmap.toml and run %s -m controller.hardware.pinmap --write-docs hardware/drnim/pinmap.toml'
        % sys.executable)
    out = io.StringIO()
    assert main(["hardware", "check", "--machine", "drnim", "--hardware", "hardware"], out=out) == 0
    assert out.getvalue().startswith("hardware/drnim/pinmap.toml (Dr. Nim), solenoid release:\n")


@needs_openscad
def test_without_manifold_the_check_says_why_it_is_slow_and_what_makes_it_fast(monkeypatch, capsys):
    """On a Pi the check without Manifold takes minutes; the technician hears why at once."""
    from controller.cli import main
    from controller.hardware.assembly import Report
    monkeypatch.setitem(sys.modules, "manifold3d", None)        # as if not installed
    monkeypatch.setattr("controller.hardware.assembly.Assembly.check", lambda self: Report())
    assert main(["hardware", "check", "--machine", "nimatron"], out=io.StringIO()) == 0
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "without manifold3d, openscad renders every solid" in said
    assert "pip install manifold3d" in said


@needs_openscad
@pytest.mark.parametrize("b_at, shared", [
    ("[9, 9, 9]", 1.0),         # a 1 mm cube's worth overlaps
    ("[10, 0, 0]", 0.0),        # face to face: they only touch
    ("[30, 0, 0]", 0.0),        # apart (within the bounding boxes' test, the intersection judges)
    ("[2, 2, 2]", 8.0),         # a 2 mm cube wholly inside the other
])
def test_manifold_and_openscad_judge_an_intersection_alike(tmp_path, b_at, shared):
    """The assembly's intersections are Manifold's where it is installed: openscad's own
    intersection() gives the same volume for solids that overlap, touch, lie apart or nest."""
    pytest.importorskip("manifold3d", reason="manifold3d is missing (pip install -e '.[hardware]')")
    assembly = Assembly(load_default("nimatron"), OPENSCAD, tmp_path / "renders")
    texts = {"a": "cube(size = [10, 10, 10], center = false);",
             "b": "multmatrix([[1, 0, 0, %s], [0, 1, 0, %s], [0, 0, 1, %s], [0, 0, 0, 1]]) { cube(size = %s); }"
                  % tuple(b_at.strip("[]").split(", ") + [2 if shared == 8.0 else 10])}
    shapes = assembly.shapes(texts)
    assert not any(isinstance(shape, Path) for shape in shapes.values())      # Manifold made them
    by_manifold = assembly.intersections([("a", "b")], shapes, texts, tmp_path)[("a", "b")]
    stls = dict((name, assembly.render(name, texts[name])) for name in texts)
    by_openscad = assembly.scad_volume(("a", "b"), stls, tmp_path)
    assert by_manifold == pytest.approx(shared, abs=1e-6) and by_openscad == pytest.approx(shared, abs=1e-6)


@needs_openscad
@pytest.mark.parametrize("kept", [
    PureWindowsPath(r"C:\Users\tina\.cache\drnim-controller\assembly\b6f1e0a7.stl"),     # \t: a tab
    PurePosixPath('/home/tina/.cache/drnim-controller/odd "\\name"/b6f1e0a7.stl'),
])
def test_openscad_imports_the_renders_kept_where_the_cache_is(tmp_path, kept):
    """Without Manifold, openscad intersects two renders by importing them from the cache: on Windows
    the cache's path has backslashes, which an OpenSCAD string reads as escapes (\\t a tab), so the
    check imported C:Users<tab>ina.cache... and failed. openscad itself reads the strings written."""
    assembly = Assembly(load_default("nimatron"), OPENSCAD, tmp_path / "renders")
    written = []
    assembly.run = lambda source, target, extra=(): written.append(source.read_text(encoding="utf-8")) or (
        SimpleNamespace(returncode=0, stderr="Current top level object is empty."), [])
    assembly.scad_volume(("a", "b"), {"a": kept, "b": kept.with_name("0a9d3c51.stl")}, tmp_path)
    read = tmp_path / "read.scad"
    read.write_text(written[0].replace("import(", "echo("), encoding="utf-8")
    echoed = subprocess.run([OPENSCAD, "-o", str(tmp_path / "read.echo"), str(read)], capture_output=True, timeout=60)
    assert echoed.returncode == 0, echoed.stderr
    imported = re.findall(r'^ECHO: "(.*)"$', (tmp_path / "read.echo").read_text(encoding="utf-8"), re.M)
    assert [type(kept)(path) for path in imported] == [kept, kept.with_name("0a9d3c51.stl")]


def test_a_mesh_that_is_not_closed_is_left_to_openscad(tmp_path):
    """Manifold refuses a surface with a hole in it: the assembly then asks openscad (None)."""
    pytest.importorskip("manifold3d", reason="manifold3d is missing (pip install -e '.[hardware]')")
    from controller.hardware.assembly import _manifold
    facets = ["facet normal 0 0 0\nouter loop\n%s\nendloop\nendfacet" % "\n".join("vertex %s" % corner for corner in tri)
              for tri in (("0 0 0", "0 1 0", "1 0 0"), ("0 0 0", "1 0 0", "0 0 1"), ("0 0 0", "0 0 1", "0 1 0"))]
    stl = tmp_path / "open.stl"
    stl.write_text("solid open\n%s\nendsolid open\n" % "\n".join(facets))
    assert _manifold(stl) is None
    closed = tmp_path / "closed.stl"
    closed.write_text(stl.read_text().replace("endsolid", "facet normal 0 0 0\nouter loop\nvertex 1 0 0\nvertex 0 1 0\n"
                                                           "vertex 0 0 1\nendloop\nendfacet\nendsolid"))
    assert _manifold(closed).volume() == pytest.approx(1 / 6)


@needs_openscad
def test_checks_that_share_a_folder_render_each_solid_once(tmp_path):
    """Two checks at once (two workers of the suite, two `controller hardware check` runs) on one
    folder of renders: one renders a solid while the other waits for it and reads its STL."""
    renders = []
    checks = [Assembly(load_default("drnim"), OPENSCAD, tmp_path / "renders") for _ in range(2)]
    for check in checks:
        run = check.run
        check.run = lambda source, target, extra=(), run=run: renders.append(target) or run(source, target, extra)
    text = "group() { multmatrix([[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]) { sphere(r = 10, $fn = 96); } }"
    with ThreadPoolExecutor(max_workers=2) as pool:
        stls = list(pool.map(lambda check: check.render("ball", text), checks))
    assert len(renders) == 1 and stls[0] == stls[1]
    assert Mesh.read(stls[0]).volume() == pytest.approx(4 / 3 * math.pi * 1000, rel=0.01)


def test_openscad_installed_off_the_path_on_a_mac_or_windows_is_found_or_said_how_to_get(tmp_path, monkeypatch,
                                                                                        capsys):
    """OpenSCAD's installers for a Mac and Windows put it off the PATH: `hardware check` said it was missing
    and to apt-get it."""
    from controller.cli import main
    from controller.hardware import command
    monkeypatch.setattr(command.shutil, "which", lambda name: None)
    app = tmp_path / "OpenSCAD.app" / "Contents" / "MacOS" / "OpenSCAD"
    app.parent.mkdir(parents=True)
    app.write_text("")
    monkeypatch.setitem(command.OPENSCAD_PLACES, "darwin", (str(tmp_path / "nowhere"), str(app)))
    monkeypatch.setattr(sys, "platform", "darwin")
    assert command.find_openscad() == str(app)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setitem(command.OPENSCAD_PLACES, "win32", (str(tmp_path / "Program Files" / "openscad.exe"),))
    assert main(["hardware", "check"]) == 1
    assert capsys.readouterr().err == "controller: openscad is missing: install it from openscad.org (into Program " \
        "Files), or put it on the PATH\n"
