"""Benchmarks of the game core. Prints figures; asserts nothing.

    .venv/bin/python bench/bench_core.py          (or: make bench)
"""

import random
import statistics
import sys
import time
from itertools import combinations_with_replacement
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from controller.core import search, solve  # noqa: E402
from controller.core.players import Perfect  # noqa: E402
from controller.core.rules import Moore, Nim, Rosebushes  # noqa: E402
from mpy_heap import smallest_heap  # noqa: E402


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


def rosebushes_closed_form_near_2_63():
    rng = random.Random(5)
    for rule in ("normal", "misere"):
        variant = Rosebushes(rule, k=3)
        times = []
        for _ in range(200):
            heaps = tuple(2**63 - rng.randrange(1000) for _ in range(4))
            start = time.perf_counter()
            solve.mover_wins(variant, heaps)
            list(solve.winning_moves(variant, heaps))
            times.append(time.perf_counter() - start)
        print("Rosebushes k=3, 4 heaps near 2**63, %s play, closed form, who wins and every winning move: "
              "median %.1f us, max %.1f us (200 positions)" % (rule, 1e6 * statistics.median(times), 1e6 * max(times)))


def moore_winning_move_count():
    rng = random.Random(9)
    for count, k in ((4, 2), (30, 3), (100, 2), (60, 3)):
        heaps = tuple(rng.randrange(2**63) for _ in range(count))
        start = time.perf_counter()
        moves = solve.winning_move_count(Moore(k=k), heaps)
        seconds = time.perf_counter() - start
        print("winning_move_count, Moore's Nim_%d, %d heaps below 2**63: %d winning moves (%d digits) in %.3f s"
              % (k, count, moves, len(str(moves)), seconds))


def rosebushes_search_six_heaps_of_30():
    variant = Rosebushes("normal", k=3)
    solve.forget(variant)
    start = time.perf_counter()
    wins = solve.mover_wins(variant, (30,) * 6)
    print("Rosebushes k=3, (30, 30, 30, 30, 30, 30), exact search: mover %s, %d positions, %.1f s"
          % ("wins" if wins else "loses", len(search._memo(variant)), time.perf_counter() - start))
    solve.forget(variant)


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
    # Each method over all the positions in a loop of its own: taking turns, one would time
    # the other's leavings in the processor's caches (HiGHS's are large) as much as itself.
    closed = timed(lambda position: solve.winning_move(variant, position), positions)
    programme = timed(lambda position: ip_winning_move(position, 1), positions)
    c, p = statistics.median(closed), statistics.median(programme)
    print("winning move on 1,000 random 5-heap Nim positions (heaps 0..63), through the public API: closed form "
          "(solve.winning_move) median %.2f us, integer programme (HiGHS) median %.2f ms, ratio %.0fx"
          % (1e6 * c, 1e3 * p, p / c))


def timed(function, positions):
    """Each call's time, one position after the other."""
    times = []
    for position in positions:
        start = time.perf_counter()
        function(position)
        times.append(time.perf_counter() - start)
    return times


def smallest_micropython_heap():
    figures = smallest_heap(ROOT / "tests" / "mpy" / "drnim_game.py")
    if figures is None:
        print("MicroPython heap: skipped (install the test extra)")
        return
    for label, kib in figures.items():
        print("smallest MicroPython heap for a complete drnim game against perfect, %s: %d KiB" % (label, kib))


if __name__ == "__main__":
    perfect_move_in_big_nim()
    rosebushes_full_solve()
    rosebushes_closed_form_near_2_63()
    moore_winning_move_count()
    rosebushes_search_six_heaps_of_30()
    integer_programme_against_closed_form()
    smallest_micropython_heap()
