"""`controller hardware check`: the printed and the bought parts proven together (assembly.py).

    controller hardware check [--machine NAME] [--pinmap PATH] [--release solenoid|servo]

Each build gets a line naming it, one line per failure, its figures (the fits, the screws,
the marble's flight, the release's lift) and its last line `assembly: P parts and S screws
checked: C collisions, F screw faults, M misfits`. By default every build the parts folders
offer is checked: Dr. Nim with its solenoid and with its servo gate (the servo's angles from
the pin map, or its defaults), and the Nimatron. The exit status is 0 when no build has a
collision, a screw fault or a misfit. With Manifold (the hardware extra) a build takes about
half a second; without it openscad renders every solid, kept in
~/.cache/drnim-controller/assembly for the next run.

The assembly and the pin maps are loaded when the check runs, not by the command line that
names it: every `controller` command starts without them.
"""

import importlib
import shutil
import sys
from dataclasses import replace

from controller.cache import cache_folder
from controller.core.exhibit import RELEASE
from controller.core.registry import NAMES, machine_class

RELEASES = ("solenoid", "servo")


def add_parser(commands):
    """The `hardware` subcommand and its `check`, on cli.py's parser."""
    hardware = commands.add_parser("hardware", help="the replica's printed and bought parts, checked together")
    actions = hardware.add_subparsers(dest="hardware_command", metavar="check", parser_class=type(hardware))
    actions.required = True
    check = actions.add_parser("check", help="prove the assembly with openscad: no collisions, every part on "
                               "its board, every screw's length, every fit, the marble's flight, the release's lift")
    check.set_defaults(action=run_check)
    check.add_argument("--machine", choices=NAMES, help="one machine (default: both)")
    check.add_argument("--pinmap", metavar="PATH", help="the build of this pin map (default: the shipped one)")
    check.add_argument("--release", choices=RELEASES, help="Dr. Nim's release only (default: both)")


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


def builds(args):
    """(the pin map to check, what to call it) for each build asked for."""
    from controller.hardware.pinmap.check import load_pinmap
    from controller.hardware.pinmap.model import default_pinmap_path
    if args.pinmap:
        pinmap = load_pinmap(args.pinmap, args.machine)
        maps = [pinmap]
    else:
        maps = [load_pinmap(default_pinmap_path(name), name) for name in ([args.machine] if args.machine else NAMES)]
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


def has_manifold():
    try:
        importlib.import_module("manifold3d")
    except ImportError:
        return False
    return True


def run_check(args, out):
    from controller.hardware.assembly import Assembly, AssemblyError, Report
    from controller.hardware.pinmap.check import PinMapError
    openscad = shutil.which("openscad")
    if openscad is None:
        raise RuntimeError("openscad is missing: apt-get install openscad (Debian's)")
    try:
        made = builds(args)
    except (PinMapError, ValueError) as error:
        raise RuntimeError(str(error))
    if not has_manifold():
        sys.stderr.write("controller hardware check: without manifold3d, openscad renders every solid, a few tens "
                         "of seconds a build (kept for the next check): pip install manifold3d (the hardware "
                         "extra) checks a build in about half a second\n")
    total = Report()
    for pinmap, title in made:
        try:
            report = Assembly(pinmap, openscad, default_cache()).check()
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
