"""The assembly check's time, each build made both ways: its solids made by Manifold from
openscad's CSG (csg.py), and every solid rendered by openscad instead; and whether the two
reports agree, failure for failure and figure for figure. Prints figures; asserts nothing.

    .venv/bin/python bench/bench_assembly.py        (or: make bench; needs openscad and manifold3d)
"""

import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.cli import build_parser  # noqa: E402
from controller.hardware import csg  # noqa: E402
from controller.hardware import assembly  # noqa: E402
from controller.hardware.assembly import Assembly  # noqa: E402
from controller.hardware.command import builds  # noqa: E402


def refuse(text):
    raise csg.Unknown("every solid to openscad, for the comparison")


def main():
    openscad = shutil.which("openscad")
    if openscad is None:
        print("assembly: openscad is missing (apt-get install openscad): nothing measured")
        return
    try:
        import manifold3d  # noqa: F401
    except ImportError:
        print("assembly: manifold3d is missing (pip install -e '.[hardware]'): nothing measured")
        return
    made = csg.solid
    # the arguments `controller hardware check` gets, from its own parser: made by hand, they lacked --hardware
    for pinmap, _ in builds(build_parser().parse_args(["hardware", "check"])):
        reports, seconds = [], []
        for way in (made, refuse):
            csg.solid = way
            assembly.MADE.clear()       # each check from nothing, as `controller hardware check` makes it
            assembly.SHARED.clear()
            with tempfile.TemporaryDirectory() as cache:
                start = time.perf_counter()
                report = Assembly(pinmap, openscad, cache).check()
                seconds.append(time.perf_counter() - start)
            reports.append((report.failures, report.figures, report.summary()))
        csg.solid = made
        build = pinmap.machine + (", %s release" % pinmap.outputs["release"].kind if "release" in pinmap.outputs else "")
        print("assembly: %s: %.1f s with Manifold's solids, %.1f s with openscad's renders; %s"
              % (build, seconds[0], seconds[1],
                 "the same report" if reports[0] == reports[1] else "THE REPORTS DIFFER"))


if __name__ == "__main__":
    main()
