"""Benchmarks of the Dr. Nim and Nimatron machines. Prints figures; asserts nothing.

    .venv/bin/python bench/bench_machines.py          (or: make bench)
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "mpy"))

from machine_game import drnim_game, nimatron_game  # noqa: E402
from mpy_heap import smallest_heap  # noqa: E402


def events_per_second(name, game, seconds=2.0):
    events = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        player, _, _ = game()
        events += player.events
        games += 1
    elapsed = time.perf_counter() - start
    print("%s on CPython: %d events/s (%d complete games, %d events each, in %.1f s)"
          % (name, events / elapsed, games, events // games, elapsed))


if __name__ == "__main__":
    events_per_second("Dr. Nim", drnim_game)
    events_per_second("Nimatron", nimatron_game)
    for name in ("drnim", "nimatron"):
        figures = smallest_heap(ROOT / "tests" / "mpy" / "machine_game.py", [name])
        if figures is None:
            print("MicroPython heap: skipped (install the test extra)")
            break
        for label, kib in figures.items():
            print("smallest MicroPython heap for a complete %s game through the machine, %s: %d KiB"
                  % (name, label, kib))
