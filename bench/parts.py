"""Print time and filament of each machine's printed parts, from a real slicer.

Renders every part under hardware/<machine>/parts/ with openscad (in the orientation its
header gives: the parts are modelled that way) and slices it with PrusaSlicer's command line
(Debian's `prusa-slicer`) on one stated profile: PrusaSlicer's defaults with a 0.4 mm nozzle,
0.2 mm layers, 15% infill, 3 perimeters, no supports, PLA (1.75 mm, 1.24 g/cm³). Each part
counts as many times as its header's `count`, in each build of the machine. Without prusa-slicer it prints each part's
solid volume only.

    .venv/bin/python bench/parts.py [MACHINE ...]
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.core.registry import NAMES  # noqa: E402
from controller.hardware.printed import parts, render  # noqa: E402

PROFILE = ["--layer-height", "0.2", "--first-layer-height", "0.2", "--fill-density", "15%",
           "--perimeters", "3", "--nozzle-diameter", "0.4", "--filament-diameter", "1.75",
           "--filament-density", "1.24", "--temperature", "210", "--bed-temperature", "60",
           "--bed-shape", "0x0,220x0,220x220,0x220", "--center", "110,110"]
# Dr. Nim is built with one of two gates: each build leaves out the other's parts.
BUILDS = {
    "drnim": {"solenoid gate (the shipped pin map)": {"gate_servo_mount", "gate_servo_arm"},
              "servo gate": {"gate_solenoid"}},
    "nimatron": {"console and two lamp panels": set()},
}
PROFILE_TEXT = "PrusaSlicer defaults, 0.4 mm nozzle, 0.2 mm layers, 15% infill, 3 perimeters, no supports, PLA 1.24 g/cm³"


def slice_time_and_grams(slicer, stl, gcode):
    """PrusaSlicer's estimate for one part: (seconds, grams)."""
    subprocess.run([slicer, "--export-gcode", *PROFILE, "-o", str(gcode), str(stl)],
                   capture_output=True, text=True, timeout=300, check=True)
    text = Path(gcode).read_text(errors="replace")
    grams = float(re.search(r"^; total filament used \[g\] = ([\d.]+)", text, re.M).group(1))
    estimate = re.search(r"^; estimated printing time \(normal mode\) = (.+)$", text, re.M).group(1)
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    seconds = sum(int(n) * units[unit] for n, unit in re.findall(r"(\d+)([dhms])", estimate))
    return seconds, grams


def hours(seconds):
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}"


def main(machines):
    openscad = shutil.which("openscad")
    slicer = shutil.which("prusa-slicer")
    if openscad is None:
        sys.exit("bench/parts.py: openscad is missing (apt-get install openscad)")
    print(f"profile: {PROFILE_TEXT}" if slicer else "prusa-slicer is missing (apt-get install prusa-slicer): volumes only")
    with tempfile.TemporaryDirectory() as folder:
        for machine in machines:
            todo = parts(machine)
            started = time.perf_counter()

            def one(part):
                stl = Path(folder) / f"{machine}_{part.name}.stl"
                mesh = render(openscad, part.path, stl)
                figures = slice_time_and_grams(slicer, stl, stl.with_suffix(".gcode")) if slicer else None
                return part, mesh.volume() / 1000, figures

            with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                results = list(pool.map(one, todo))
            print(f"\n{machine}: {len(todo)} parts rendered and sliced in {time.perf_counter() - started:.1f} s")
            print(f"  {'part':<18} {'count':>5} {'solid cm³':>10} {'time each':>10} {'PLA g each':>11}")
            for part, volume, figures in results:
                seconds, grams = figures or (0, 0.0)
                each = f"{hours(seconds):>10} {grams:>11.1f}" if figures else ""
                print(f"  {part.name:<18} {part.count:>5} {volume:>10.1f} {each}")
            for build, left_out in BUILDS.get(machine, {"every part": set()}).items():
                chosen = [(part, figures) for part, _, figures in results if part.name not in left_out and figures]
                seconds = sum(figures[0] * part.count for part, figures in chosen)
                grams = sum(figures[1] * part.count for part, figures in chosen)
                if chosen:
                    print(f"  {build}: {hours(seconds)} of printing, {grams:.0f} g of PLA"
                          f" ({grams / 1000 * 20:.2f} EUR at 20 EUR/kg)")
            print()


if __name__ == "__main__":
    main(sys.argv[1:] or list(NAMES))
