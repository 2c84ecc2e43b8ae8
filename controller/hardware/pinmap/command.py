"""The pin-map command: check pin maps (the shipped ones when none is named),
with their [pico] section as `controller firmware build` checks it (pico.check_pico)
and the servo gate's angles against the printed gate (check.check_gate), and, with
--write-docs, rewrite the generated tables in each map's wiring.md and
README.md (the priced parts list, bom.py; the Pico's pins, docs.py), its
drawn wiring (wiring-pi.svg, wiring-pico.svg: drawing.py), the printed
parts' parts/build.scad and the boards' sizes in parts/README.md, and the
plywood's sizes in its bom.csv (bom.sized_bom).

    python -m controller.hardware.pinmap [--write-docs] [MACHINE | PATH ...]

A copy of a pin map (`my-drnim.toml`, with no wiring.md beside it) gets nothing written: the
parts are rendered from the checkout's hardware/<machine>/parts/build.scad, which only that
machine's own pinmap.toml writes, and one line says whether it draws them for the copy's build.
"""

import argparse
import os
import re
import sys
from pathlib import Path

from controller import shipped
from controller.core.registry import NAMES, machine_class
from controller.hardware.pinmap.bom import BomError, layout_warning, sized_bom
from controller.hardware.pinmap.build import build_scad, build_values
from controller.hardware.pinmap.check import (PinMapError, check_gate, load_pinmap, ribbon_warnings,
                                              serial_port_warnings)
from controller.hardware.pinmap.labels import LabelError
from controller.hardware.pinmap.docs import render_wiring_doc
from controller.hardware.pinmap.model import default_pinmap_path, shown
from controller.hardware.pinmap.pico import PICO_PINS, check_pico, pico_warnings


def main(argv=None, out=None):
    """Check pin maps; with --write-docs, regenerate the tables of their wiring.md."""
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="python -m controller.hardware.pinmap", description=__doc__)
    parser.add_argument("--write-docs", action="store_true", help="rewrite the generated tables of each wiring.md")
    parser.add_argument("targets", nargs="*", metavar="MACHINE|PATH",
                        help="a machine (%s) or a pin map's path; default: every shipped map" % ", ".join(NAMES))
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    status = 0
    for target in args.targets or list(NAMES):
        path = default_pinmap_path(target) if target in NAMES else Path(target)
        if args.write_docs and target in NAMES and not shipped.in_checkout():
            path = checkout_map(target)
            if path is None:
                print("%s: nothing written: --write-docs writes beside a checkout's pin map, and these are the "
                      "installed package's files; run it in your checkout, or give its map's path "
                      "(hardware/%s/pinmap.toml)" % (target, target), file=out)
                status = 1
                continue
        try:
            pinmap = load_pinmap(path)
            pico = check_pico(pinmap)   # a Pico's pins: what `firmware build` refuses is refused here first (but
            # an input on the chip's own pull-down, which a Pi takes: warned of, below)
            check_gate(pinmap)
        except PinMapError as error:
            print(error, file=out)
            status = 1
            continue
        # each board's own numbers: a Pico builder read the Pi's BCM numbers as free GP pins
        print("%s: ok, %s, %d pins used, free: BCM %s (a Pi's)%s" % (
            path, machine_class(pinmap.machine).TITLE, len(pinmap.pins()), ", ".join(map(str, pinmap.free_pins())),
            "" if pico is None else "; a Pico's free: GP %s" % ", ".join(
                str(number) for number in PICO_PINS if number not in pico)), file=out)
        for line in serial_port_warnings(pinmap) + ribbon_warnings(pinmap) + pico_warnings(pinmap) + list(
                filter(None, [layout_warning(pinmap)])):
            print("warning: " + line, file=out)
        if args.write_docs and (Path(path).parent / "wiring.md").exists():
            status = write_bom(pinmap, out) or status
            for name in ("wiring.md", "README.md", "parts/README.md"):
                doc = Path(path).parent / name
                text = doc.read_text(encoding="utf-8") if doc.exists() else ""
                try:
                    new = render_wiring_doc(text, pinmap)
                except (BomError, LabelError, PinMapError) as error:
                    print(error, file=out)
                    status = 1
                    continue
                if new != text:
                    doc.write_text(new, encoding="utf-8")
                    print("%s: tables rewritten" % doc, file=out)
            status = write_drawings(path, out) or status
            write_build(pinmap, out)
        elif args.write_docs:
            print(nothing_written(path, pinmap), file=out)
    return status


# What build.scad sets that no printed part reads, only assembly.scad's placing of the parts (the servo's
# shaft, the solenoid's cradle): a copy of the map with a servo gate renders the same STL files.
PLACEMENT_ONLY = ("release_kind", "gate_closed_angle", "gate_open_angle")


def checkout_hardware(start=None):
    """The hardware/ folder of the checkout the current folder (or `start`) is in: it, or a folder above
    it, holds hardware/common.scad. There a builder edits the parts and renders them; None outside one."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "hardware" / "common.scad").is_file():
            return folder / "hardware"
    return None


def checkout_map(machine):
    """The pin map of `machine` in the checkout the current folder is in (a builder's, with the package
    installed apart, by pipx), or None outside one."""
    hardware = checkout_hardware()
    return hardware / machine / "pinmap.toml" if hardware else None


def drawn_otherwise(pinmap, scad):
    """What the build.scad at `scad` draws the printed parts for that the pin map does not, as
    ("marble = 16 and board = [320, 340, 9]", "marble = 19 and board = [360, 340, 9]"): None when
    it draws them for the map's build, or there is no such file. The release's kind and angles are
    left out (PLACEMENT_ONLY)."""
    try:
        text = Path(scad).read_text(encoding="utf-8")
    except OSError:
        return None
    drawn = dict(re.findall(r"^(\w+) = (.*?);", text, re.M))
    wanted = build_values(pinmap)
    names = [name for name, value in wanted.items() if name not in PLACEMENT_ONLY and drawn.get(name) != value]
    if not names:
        return None
    return tuple(" and ".join("%s = %s" % (name, values.get(name, "nothing")) for name in names)
                 for values in (drawn, wanted))


def rendered_from():
    """The hardware/ folder whose parts a builder renders (the checkout's), or None outside a checkout."""
    return checkout_hardware() or (shipped.hardware() if shipped.in_checkout() else None)


def nothing_written(path, pinmap):
    """The line --write-docs gives a copy of a pin map: nothing written, and whether the parts, rendered
    from the checkout's build.scad, are drawn for its build."""
    folder = rendered_from()
    if folder is None:
        return "%s: nothing written: --write-docs writes the tables, the drawings and parts/build.scad beside a " \
               "machine's own pin map (a checkout's hardware/%s/pinmap.toml), where the parts are rendered " \
               "from" % (path, pinmap.machine)
    own = folder / pinmap.machine / "pinmap.toml"
    scad = folder / pinmap.machine / "parts" / "build.scad"
    line = "%s: nothing written: --write-docs writes the tables, the drawings and parts/build.scad beside a " \
           "machine's own pin map (%s); " % (path, shown(own))
    stale = drawn_otherwise(pinmap, scad)
    if stale is None:
        return line + "%s, which the parts are rendered from, draws them for this map's build" % shown(scad)
    return line + "%s, which the parts are rendered from, draws them for %s, this map for %s: put the same in " \
                  "%s and run --write-docs %s" % (shown(scad), stale[0], stale[1], shown(own), shown(own))


def write_bom(pinmap, out):
    """Give the plywood rows of the bom.csv beside the pin map the sizes of its [build] (bom.sized_bom);
    1 (and one line) when a row has none to give."""
    path = Path(pinmap.path).parent / "bom.csv"
    if not path.exists():
        return 0
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    try:
        new = sized_bom(text, pinmap, path)
    except BomError as error:
        print(error, file=out)
        return 1
    if new != text:
        with open(path, "w", newline="", encoding="utf-8") as f:
            f.write(new)
        print("%s: the plywood's sizes rewritten" % path, file=out)
    return 0


def write_build(pinmap, out):
    """Rewrite parts/build.scad beside the pin map when it differs (a map with a parts folder)."""
    folder = Path(pinmap.path).parent / "parts"
    if not folder.is_dir():
        return
    target = folder / "build.scad"
    text = build_scad(pinmap)
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
        print("%s: written" % target, file=out)


def write_drawings(path, out):
    """Redraw the SVG schematics next to the pin map at `path`; 1 (and one line) when its [pico]
    section is wrong or schemdraw is missing."""
    try:
        from controller.hardware.pinmap.drawing import drawings
        made = drawings(path)
    except PinMapError as error:
        print(error, file=out)
        return 1
    except ImportError as error:
        print("%s: drawings not redrawn: %s is missing (pip install -e '.[test]')" % (path, error.name), file=out)
        return 1
    for name, svg in made.items():
        target = Path(path).parent / name
        if not target.exists() or target.read_text(encoding="utf-8") != svg:
            target.write_text(svg, encoding="utf-8")
            print("%s: drawn" % target, file=out)
    return 0
