"""Every printed part under hardware/<machine>/parts/ renders with Debian's openscad into one
closed solid that fits the bounding box its header states and the printer's bed; its
parameters can be changed from the command line; and the parts' README lists it.

The parts render in parallel, once per session (about 20 s of CPU in all)."""

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import ROOT
from controller.core.registry import NAMES as MACHINES
from controller.hardware.printed import BED, Mesh, Part, PartError, parts, render

OPENSCAD = shutil.which("openscad")
needs_openscad = pytest.mark.skipif(OPENSCAD is None, reason="openscad is missing (apt-get install openscad)")
ALL_PARTS = [part for machine in MACHINES for part in parts(machine)]


@pytest.fixture(scope="session")
def rendered(tmp_path_factory):
    """Each part's mesh, or the PartError its render raised."""
    folder = tmp_path_factory.mktemp("parts")

    def one(part):
        try:
            return render(OPENSCAD, part.path, folder / f"{part.machine}_{part.name}.stl")
        except PartError as error:
            return error

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(ALL_PARTS, pool.map(one, ALL_PARTS)))


def test_both_machines_have_their_parts():
    names = {(part.machine, part.name) for part in ALL_PARTS}
    for expected in [("drnim", "rail_upper"), ("drnim", "rail_lower"), ("drnim", "gate_solenoid"),
                     ("drnim", "gate_servo_mount"), ("drnim", "gate_servo_arm"), ("drnim", "beam_holder"),
                     ("drnim", "led_bezel"), ("drnim", "tray"), ("drnim", "panel"),
                     ("drnim", "enclosure_base"), ("drnim", "enclosure_lid"),
                     ("nimatron", "lamp_panel"), ("nimatron", "console_base"), ("nimatron", "console_top")]:
        assert expected in names


@needs_openscad
@pytest.mark.parametrize("part", ALL_PARTS, ids=repr)
def test_each_part_renders_as_one_closed_solid_inside_its_stated_box(part, rendered):
    mesh = rendered[part]
    assert not isinstance(mesh, PartError), str(mesh)
    assert mesh.edge_faults() == 0, f"{part}: the surface is not closed"
    assert mesh.bodies() == 1, f"{part}: {mesh.bodies()} separate bodies"
    assert mesh.volume() > 0
    assert mesh.steep_overhangs() == 0, f"{part}: faces that would need supports in the stated orientation"
    assert mesh.cantilevers() == 0, f"{part}: a flat overhang held on one side only would need supports"
    extent = mesh.extent()
    for side, stated in zip(extent, part.box):
        # the header is the part's real size to the millimetre, not just an upper limit
        assert stated - 1 <= side <= stated, f"{part}: {extent} against the header's {part.box}"


@pytest.mark.parametrize("part", ALL_PARTS, ids=repr)
def test_each_header_fits_the_bed_says_no_supports_and_what_it_mates_with(part):
    assert all(side <= limit for side, limit in zip(part.box, BED)), f"{part}: {part.box} is larger than the bed {BED}"
    assert part.orientation.endswith("no supports")
    assert part.count >= 1
    assert part.mates_with, f"{part}: the header does not say what the part mates with"


@pytest.mark.parametrize("machine", MACHINES)
def test_the_parts_readme_lists_every_part_with_its_count_and_size(machine):
    readme = (ROOT / "hardware" / machine / "parts" / "README.md").read_text(encoding="utf-8")
    for part in parts(machine):
        row = next((line for line in readme.splitlines() if line.startswith(f"| [`{part.name}.scad`]")), None)
        assert row is not None, f"{machine}/parts/README.md has no row for {part.name}.scad"
        assert f"| {part.count} |" in row, f"{part.name}: the README's count differs from the header's {part.count}"
        size = " x ".join(f"{side:.1f}" for side in part.box)
        assert f"| {size} |" in row, f"{part.name}: the README's size differs from the header's {size}"


# The bought parts the printed parts are drawn to fit, by the names the parts lists give them.
FITTED = {"drnim": ["R13-507", "MTS-102", "JF-0530B", "SG90", "Adafruit 2167"], "nimatron": ["R13-507"]}


@pytest.mark.parametrize("machine", MACHINES)
def test_the_parts_fit_what_the_parts_list_names(machine):
    bom = (ROOT / "hardware" / machine / "bom.csv").read_text(encoding="utf-8")
    mates = " ".join(part.mates_with for part in parts(machine))
    for name in FITTED[machine]:
        assert name in bom and name in mates, name
    common = (ROOT / "hardware" / "common.scad").read_text(encoding="utf-8")
    button = float(re.search(r"^button_hole = ([\d.]+);", common, re.M).group(1))
    assert "Momentary push button 16 mm" in bom and 16 < button <= 16.5
    if machine == "drnim":
        build = (ROOT / "hardware" / machine / "parts" / "build.scad").read_text(encoding="utf-8")
        marble = re.search(r"^marble = (\d+);", build, re.M).group(1)
        assert f"Marbles 5/8 inch ({marble} mm),18," in bom, "15 for the game and 3 spare"


@needs_openscad
def test_a_bigger_marble_widens_and_lengthens_the_rail(tmp_path):
    default = next(part for part in ALL_PARTS if part.name == "rail_lower")
    mesh = render(OPENSCAD, default.path, tmp_path / "rail.stl", defines=["marble=19"])
    assert mesh.edge_faults() == 0 and mesh.bodies() == 1
    length, width, height = mesh.extent()
    assert width == pytest.approx(default.box[1] + 3, abs=0.1)
    assert length == pytest.approx(default.box[0] + 16 * 3 / 2, abs=0.1)
    assert height == pytest.approx(default.box[2] + 3, abs=0.1)


@needs_openscad
@pytest.mark.parametrize("name, define, named", [
    ("gate_servo_mount", 'servo_model="HS-311"', "HS-311"),
    ("rail_upper", "marble=30", "marble = 30 makes each rail half 248.4 mm long: more than a 220 mm bed"),
])
def test_a_parameter_the_parts_cannot_take_is_refused_in_one_line(name, define, named, tmp_path):
    part = next(part for part in ALL_PARTS if part.name == name)
    with pytest.raises(PartError) as refused:
        render(OPENSCAD, part.path, tmp_path / "part.stl", defines=[define])
    message = str(refused.value)
    assert f"{name}.scad" in message and named in message and "\n" not in message


@needs_openscad
def test_the_checks_catch_two_bodies_an_open_surface_an_overhang_and_a_shelf(tmp_path):
    source = tmp_path / "two.scad"
    source.write_text("cube(10); translate([20, 0, 0]) cube(10);\n")
    assert render(OPENSCAD, source, tmp_path / "two.stl").bodies() == 2
    cube = render(OPENSCAD, tmp_path / "two.scad", tmp_path / "cube.stl")
    open_surface = Mesh(cube.triangles[:-1])
    assert open_surface.edge_faults() > 0
    (tmp_path / "hanging.scad").write_text("cube(10); translate([5, 5, 9]) cylinder(d1 = 2, d2 = 20, h = 5);\n")
    assert render(OPENSCAD, tmp_path / "hanging.scad", tmp_path / "hanging.stl").steep_overhangs() > 0
    assert cube.steep_overhangs() == 0
    (tmp_path / "shelf.scad").write_text("cube(10); translate([0, 0, 10]) cube([30, 10, 2]);\n")
    assert render(OPENSCAD, tmp_path / "shelf.scad", tmp_path / "shelf.stl").cantilevers() > 0
    (tmp_path / "bridge.scad").write_text("cube(10); translate([20, 0, 0]) cube(10); translate([0, 0, 10]) cube([30, 10, 2]);\n")
    assert render(OPENSCAD, tmp_path / "bridge.scad", tmp_path / "bridge.stl").cantilevers() == 0


@needs_openscad
@pytest.mark.parametrize("machine", MACHINES)
def test_each_assembly_places_parts_that_exist(machine, tmp_path):
    """assembly.scad draws the README's picture; a renamed part or module breaks it."""
    assembly = ROOT / "hardware" / machine / "parts" / "assembly.scad"
    result = subprocess.run([OPENSCAD, "-o", str(tmp_path / "assembly.csg"), str(assembly)],
                            capture_output=True, text=True, timeout=120)
    problems = [line for line in result.stderr.splitlines() if line.startswith(("ERROR", "WARNING"))]
    assert result.returncode == 0 and not problems, problems
    assert (ROOT / "hardware" / machine / "parts" / "assembly.png").stat().st_size > 10_000


def test_a_part_without_a_bounding_box_line_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "drnim" / "parts"
    folder.mkdir(parents=True)
    source = folder / "knob.scad"
    source.write_text("// print: flat; no supports\n// count: 1\ncube(5);\n")
    with pytest.raises(PartError, match=r"knob\.scad: the header has no '// bounding box:' line$"):
        Part(source)
