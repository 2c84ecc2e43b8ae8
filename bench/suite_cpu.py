"""Where the test suite's time goes: each test file run alone (`pytest -n 0 FILE`), with
the machine's busy time over it (all cores, from /proc/stat: the browsers' and emulators'
processes too, which `time` misses when they are not its children) and its wall time;
the largest first, then the totals.

`make test` runs the files in parallel on every core, and on the 2-core machine the cores
are busy nearly all the time: the suite's wall time is about its CPU time over the cores,
so these figures say where to make it faster. Run it on an idle machine, with the tools
`.ci/run` sets (CONTROLLER_PICO_UF2 and the others), or the tests that need them are
skipped and cost nothing here. It takes as long as the suite does on one core.

Usage: python bench/suite_cpu.py [FILE...]   (default: every tests/test_*.py)
"""

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def busy_seconds():
    """The machine's busy time since boot, all cores (idle and iowait left out)."""
    with open("/proc/stat") as stat:
        fields = [int(field) for field in stat.readline().split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def main(files):
    rows = []
    for path in files:
        busy, start = busy_seconds(), time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", str(path)],
                              cwd=ROOT, capture_output=True, text=True)
        rows.append((busy_seconds() - busy, time.monotonic() - start, path.name,
                     (done.stdout.strip().splitlines() or ["no output"])[-1]))
    print("%8s %8s  %s" % ("CPU s", "wall s", "file: its last line"))
    for cpu, wall, name, last in sorted(rows, reverse=True):
        print("%8.1f %8.1f  %s: %s" % (cpu, wall, name, last))
    print("suite: %.0f s of CPU, %.0f s of wall time, %d files" % (sum(row[0] for row in rows),
                                                                   sum(row[1] for row in rows), len(rows)))


if __name__ == "__main__":
    main([Path(name).resolve() for name in sys.argv[1:]] or sorted((ROOT / "tests").glob("test_*.py")))
