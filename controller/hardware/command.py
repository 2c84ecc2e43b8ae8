"""`controller hardware check`: the printed and the bought parts proven together (assembly.py).

    controller hardware check [--machine NAME] [--pinmap PATH] [--release solenoid|servo] [--hardware DIR]

Each build gets a line naming it, one line per failure, its figures (the fits, the screws,
the marble's flight, the release's lift) and its last line `assembly: P parts and S screws
checked: C collisions, F screw faults, M misfits`. By default every build the parts folders
offer is checked: Dr. Nim with its solenoid and with its servo gate (the servo's angles from
the pin map, or its defaults), and the Nimatron. The exit status is 0 when no build has a
collision, a screw fault or a misfit. With Manifold (the hardware extra) a build takes about
half a second; without it openscad renders every solid, kept in
~/.cache/drnim-controller/assembly for the next run.

The parts checked are those installed with the controller (controller/shipped: in a checkout
run through `make`, the checkout's own), with the pin map of each machine there; `--hardware DIR`
checks the parts of another hardware/ folder, with its pin maps: a checkout's whose .scad files a
builder edited (its hole_allowance) when the controller was installed with pipx. Run from such a
checkout without it, the check says first, in one line, that it checks the installed copy and which
of the checkout's files differ; and in one line where the checkout's build.scad, which the parts are
rendered from, draws them for another build than the pin map checked.

The assembly and the pin maps are loaded when the check runs, not by the command line that
names it: every `controller` command starts without them.
"""

import importlib
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from controller.cache import cache_folder
from controller.core.exhibit import RELEASE
from controller.core.registry import NAMES, machine_class

RELEASES = ("solenoid", "servo")


def add_parser(commands):
    """The `hardware` subcommand and its `check`, on cli.py's parser; its subcommands, for cli.py
    to add `cards` (controller/cards.py, a layer above the hardware's)."""
    hardware = commands.add_parser("hardware", help="the replica's printed and bought parts, checked together, "
                                   "and its visitor cards")
    actions = hardware.add_subparsers(dest="hardware_command", metavar="{check,cards}", parser_class=type(hardware))
    actions.required = True
    check = actions.add_parser("check", help="prove the assembly with openscad: no collisions, every part on "
                               "its board, every screw's length, every fit, the marble's flight, the release's lift")
    check.set_defaults(action=run_check)
    check.add_argument("--machine", choices=NAMES, help="one machine (default: both)")
    check.add_argument("--pinmap", metavar="PATH", help="the build of this pin map (default: the shipped one)")
    check.add_argument("--release", choices=RELEASES, help="Dr. Nim's release only (default: both)")
    check.add_argument("--hardware", metavar="DIR", help="the parts of this hardware/ folder, such as a checkout's "
                       "you edited, and its pin maps (default: the copy installed with the controller)")
    return actions


def default_cache():
    return cache_folder("assembly")


def with_release(pinmap, kind):
    """The pin map with its release as `kind`: its own when it is that kind, else the kind's
    defaults (a servo gate's angles as the pin map's loader fills them in)."""
    from controller.hardware.pinmap.check import KINDS
    spec = pinmap.outputs["release"]
    if spec.kind == kind:
        return pinmap
    options = {}
    if kind == "servo":
        options = dict((option.name, option.default) for option in KINDS["servo"].all_options(RELEASE))
    outputs = dict(pinmap.outputs)
    outputs["release"] = replace(spec, kind=kind, active="high" if kind == "solenoid" else None, options=options)
    return replace(pinmap, outputs=outputs)


def hardware_folder(args):
    """The hardware/ folder whose parts are checked: --hardware's (a checkout's top folder is taken for its
    hardware/), else the one installed with the controller. A RuntimeError names a folder without the parts."""
    from controller import shipped
    if not args.hardware:
        return shipped.hardware()
    folder = Path(args.hardware)
    if not (folder / "common.scad").is_file() and (folder / "hardware" / "common.scad").is_file():
        folder = folder / "hardware"
    for name in ["common.scad", "bought.scad"] + ["%s/parts/assembly.scad" % machine for machine in
                                                   ([args.machine] if args.machine else NAMES)]:
        if not (folder / name).is_file():
            raise RuntimeError("--hardware %s: no %s there: give the hardware/ folder of a checkout"
                               % (args.hardware, name))
    return folder


def builds(args, hardware=None):
    """(the pin map to check, what to call it) for each build asked for: --pinmap's, else each machine's own,
    in the `hardware` folder when --hardware names one."""
    from controller.hardware.pinmap.check import load_pinmap
    from controller.hardware.pinmap.model import default_pinmap_path
    if args.pinmap:
        pinmap = load_pinmap(args.pinmap, args.machine)
        maps = [pinmap]
    else:
        names = [args.machine] if args.machine else NAMES
        own = (lambda name: Path(hardware) / name / "pinmap.toml") if args.hardware else default_pinmap_path
        maps = [load_pinmap(own(name), name) for name in names]
    out = []
    for pinmap in maps:
        title = "%s (%s)" % (pinmap.path, machine_class(pinmap.machine).TITLE)
        if "release" in pinmap.outputs:
            kinds = [args.release] if args.release else (
                [pinmap.outputs["release"].kind] if args.pinmap else list(RELEASES))
            out += [(with_release(pinmap, kind), "%s, %s release" % (title, kind)) for kind in kinds]
        else:
            out.append((pinmap, title))
    return out


def differing(here, installed, machines, pinmaps):
    """The files the check reads that differ between two hardware/ folders, as paths below them: the
    shared .scad files, each machine's parts (not build.scad, which the check writes from the pin map) and
    bom.csv (its screws), and its pinmap.toml when `pinmaps` (no --pinmap)."""
    names = ["common.scad", "bought.scad"]
    for machine in machines:
        parts = set(path.name for folder in (here, installed) for path in (folder / machine / "parts").glob("*.scad"))
        names += ["%s/parts/%s" % (machine, name) for name in sorted(parts - {"build.scad"})]
        names += ["%s/bom.csv" % machine] + (["%s/pinmap.toml" % machine] if pinmaps else [])

    def read(path):
        try:
            return path.read_bytes()
        except OSError:
            return None
    return [name for name in names if read(here / name) != read(installed / name)]


def notes(args, hardware, made):
    """The lines said before the builds: that the check is of the installed parts, not those of the checkout
    the command runs in, where they differ; and each build.scad the parts are rendered from that draws them
    for another build than the pin map checked."""
    from controller import shipped
    from controller.hardware.pinmap.command import checkout_hardware, drawn_otherwise
    from controller.hardware.pinmap.model import shown
    lines = []
    machines = list(dict.fromkeys(pinmap.machine for pinmap, _ in made))
    here = checkout_hardware()
    if not args.hardware and here is not None and here.resolve() != shipped.hardware().resolve():
        changed = differing(here, shipped.hardware(), machines, not args.pinmap)
        if changed:
            listed = ", ".join(changed[:3]) + (" and %d more" % (len(changed) - 3) if len(changed) > 3 else "")
            lines.append("controller hardware check: the parts installed with the controller (%s) are checked, not "
                         "the checkout's here, whose %s differ%s: --hardware %s checks the checkout's" % (
                             shipped.hardware(), listed, "s" if len(changed) == 1 else "", shown(here)))
    rendered = hardware if args.hardware else here
    if rendered is not None:
        for pinmap in dict((pinmap.path, pinmap) for pinmap, _ in made).values():
            scad = Path(rendered) / pinmap.machine / "parts" / "build.scad"
            stale = drawn_otherwise(pinmap, scad)
            if stale:
                own = Path(rendered) / pinmap.machine / "pinmap.toml"
                lines.append("controller hardware check: %s, which the parts are rendered from, draws them for %s, "
                             "the pin map checked (%s) for %s: put the same in %s and run %s -m "
                             "controller.hardware.pinmap --write-docs %s" % (
                                 shown(scad), stale[0], shown(pinmap.path), stale[1], shown(own),
                                 shown(sys.executable), shown(own)))
    return lines


def has_manifold():
    try:
        importlib.import_module("manifold3d")
    except ImportError:
        return False
    return True


# Where OpenSCAD's installers put it, off the PATH (OpenSCAD's manual): the macOS app's, and Windows' installer's.
OPENSCAD_PLACES = {"darwin": ("/Applications/OpenSCAD.app/Contents/MacOS/OpenSCAD",),
                   "win32": (r"C:\Program Files\OpenSCAD\openscad.exe",
                             r"C:\Program Files (x86)\OpenSCAD\openscad.exe")}
OPENSCAD_INSTALL = {"linux": "apt-get install openscad (Debian's)",
                    "darwin": "install it from openscad.org (into Applications), or put it on the PATH",
                    "win32": "install it from openscad.org (into Program Files), or put it on the PATH"}


def find_openscad():
    """OpenSCAD's program: on the PATH, else where its installer puts it on a Mac or Windows; None."""
    found = shutil.which("openscad")
    if found:
        return found
    return next((place for place in OPENSCAD_PLACES.get(sys.platform, ()) if Path(place).is_file()), None)


def run_check(args, out):
    from controller.hardware.assembly import Assembly, AssemblyError, Report
    from controller.hardware.pinmap.check import PinMapError
    openscad = find_openscad()
    if openscad is None:
        raise RuntimeError("openscad is missing: %s" % OPENSCAD_INSTALL.get(sys.platform, OPENSCAD_INSTALL["linux"]))
    hardware = hardware_folder(args)
    try:
        made = builds(args, hardware)
    except (PinMapError, ValueError) as error:
        raise RuntimeError(str(error))
    for line in notes(args, hardware, made):
        out.write(line + "\n")
    if not has_manifold():
        sys.stderr.write("controller hardware check: without manifold3d, openscad renders every solid, a few tens "
                         "of seconds a build (kept for the next check): pip install manifold3d (the hardware "
                         "extra) checks a build in about half a second\n")
    total = Report()
    for pinmap, title in made:
        try:
            report = Assembly(pinmap, openscad, default_cache(), hardware=hardware).check()
        except AssemblyError as error:
            raise RuntimeError(str(error))
        out.write("%s:\n" % title)
        for line in report.failures:
            out.write("  %s\n" % line)
        for line in report.figures:
            out.write("  %s\n" % line)
        out.write("%s\n" % report.summary())
        total.parts += report.parts
        total.collisions += report.collisions
        total.screws += report.screws
        total.misfits += report.misfits
    return 0 if total.ok else 1
