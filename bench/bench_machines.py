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

from controller.core.players import find_player  # noqa: E402
from controller.core.presets import Nimatron as NimatronPreset  # noqa: E402
from controller.core.registry import NAMES  # noqa: E402
from controller.core.rng import Random  # noqa: E402
from controller.core.rules import Game, Nim  # noqa: E402
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


def nimatron_win_rates(games=2000):
    """How often a fallible:0.1 Nimatron wins from its default openings, the
    visitor moving first, against visitors of different skill."""
    variant = Nim()
    for visitor_name in ("perfect", "fallible:0.2", "fallible:0.5", "fallible:1"):
        rng = Random(11)
        machine_wins = 0
        for _ in range(games):
            seats = (find_player(visitor_name, rng), find_player("fallible:0.1", rng))
            game = Game(variant, rng.choice(NimatronPreset.openings))
            while not game.is_over():
                game.push(seats[game.turn].choose(variant, game.position))
            machine_wins += game.outcome().winner == 1
        print("Nimatron fallible:0.1 against a %s visitor (moving first, default openings): machine wins %.1f %%"
              % (visitor_name, 100.0 * machine_wins / games))


if __name__ == "__main__":
    nimatron_win_rates()
    events_per_second("Dr. Nim", drnim_game)
    events_per_second("Nimatron", nimatron_game)
    for name in NAMES:
        figures = smallest_heap(ROOT / "tests" / "mpy" / "machine_game.py", [name])
        if figures is None:
            print("MicroPython heap: skipped (install the test extra)")
            break
        for label, kib in figures.items():
            print("smallest MicroPython heap for a complete %s game through the machine, %s: %d KiB"
                  % (name, label, kib))
