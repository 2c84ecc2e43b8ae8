"""The firmware on the official MicroPython for the Pico, on an emulated RP2040
(controller/firmware/rp2040.py): what a game costs the board's flash, and the
emulation's pace. Prints figures; asserts nothing.

    .venv/bin/python bench/bench_pico.py [GAMES]      (or: make bench; GAMES each machine, default 12)

Each game is a visitor's whole game, played on the board's pins as a script
plays it (controller firmware test --emulate rp2040): Dr. Nim, the visitor
taking one marble a turn; the Nimatron, one lamp a turn. The flash is the
Pico's W25Q16JV: every 4 KiB sector's erases are counted by the emulator, as
the board's LittleFS asks for them.

A sector wears out after about 100,000 erases. LittleFS spreads its writes:
it moves a directory's block pair elsewhere every 100 erases of it
(MicroPython's block_cycles), so over a board's life every erase the games
make lands, in turn, on any of the file system's free blocks. A few games
stay on one pair, so the bench also writes a thousand saves in a row (new
games, each saved) and shows the pair moving: the sector erased most stays
near 100 erases while the erases spread over more and more sectors. The
years printed are for a museum's 300 games a day, from the erases a game
makes shared over the file system's free blocks: those the build's modules
hold are never erased again, so they take no share (littlefs counts the
blocks in use on the flash as the games leave it).
"""

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.core.registry import NAMES  # noqa: E402
from controller.firmware.board_test import Connector, run_scripts  # noqa: E402
from controller.firmware.rp2040 import tools  # noqa: E402
from controller.firmware.tools import FirmwareError  # noqa: E402

GAMES_A_DAY = 300
CYCLES = 100000
SECTOR = 4096
# MicroPython keeps its file system in the end of the 2 MiB flash: 848 KiB on a Pico W (RPI_PICO_W),
# 1408 KiB on a Pico (RPI_PICO, the emulated one). The years are the Pico W's, the fewer.
FILE_SYSTEM = 848 * 1024
PICO_FILE_SYSTEM = 1408 * 1024
FLASH_BYTES = 2 * 1024 * 1024
GAMES = {
    "drnim": "machine drnim\n" + "press trigger\nswitch turn machine\npress trigger\n" * 8 + "expect mode over\n",
    "nimatron": "machine nimatron openings=1,3,5,7 think_ms=500\n" + "".join(
        "press row%d\npress handover\nwait 1500ms\n" % row for row in (4, 3, 2, 1) * 5) + "expect mode over\n",
}


def used_blocks(image):
    """The blocks the files in an emulated Pico's flash image hold (littlefs, as MicroPython formats it): the
    build's modules, which never change, and the saves. LittleFS spreads its erases over the others."""
    import littlefs
    fs = littlefs.LittleFS(block_size=SECTOR, block_count=PICO_FILE_SYSTEM // SECTOR, prog_size=256, read_size=32,
                           lookahead_size=32, mount=False)
    fs.context.buffer = bytearray(Path(image).read_bytes()[FLASH_BYTES - PICO_FILE_SYSTEM:])
    fs.mount()
    return fs.used_block_count


def play(machine, games, images):
    """(erases per sector, pages programmed, wall s, emulated s, the board's ms from power-up to its
    hello, the file system's blocks in use) over `games` games."""
    connect = Connector(emulate="rp2040", images=images)
    try:
        board = connect(machine)
        pico = connect.emulator
        started_ms = (pico.now - pico.resets[-1][1]) / 1e6     # the connector cut the power, then heard hello
        run_scripts([("warm-up", GAMES[machine])], lambda name: board, lambda line: None)
        before, pages = pico.flash_wear()
        lines = []
        board.on_line = lines.append
        wall, start = time.monotonic(), pico.now
        results = run_scripts([("game %d" % n, GAMES[machine]) for n in range(games)], lambda name: board,
                              lambda line: None)
        failed = [name for name, failures in results.items() if failures]
        if failed:
            raise SystemExit("%s: %s did not end as a whole game: %s" % (machine, failed[0], results[failed[0]]))
        after, pages_after = pico.flash_wear()
        erases = dict((sector, after.get(sector, 0) - before.get(sector, 0)) for sector in after)
        image = Path(images) / ("%s-after.bin" % machine)
        pico.save_flash(str(image))
        return erases, pages_after - pages, time.monotonic() - wall, (pico.now - start) / 1e9, started_ms, \
            used_blocks(image)
    finally:
        connect.close()


def hammer(images, saves=1000):
    """`saves` new games in a row on a Dr. Nim board, each saved: (saves, erases per sector)."""
    connect = Connector(emulate="rp2040", images=images)
    try:
        board = connect("drnim")
        before, _ = connect.emulator.flash_wear()
        for n in range(saves):
            board.ask("new_game", settings={"marbles": 11 + n % 2, "capacity": 12})
        after, _ = connect.emulator.flash_wear()
        return saves, dict((sector, after[sector] - before.get(sector, 0)) for sector in after
                           if after[sector] > before.get(sector, 0))
    finally:
        connect.close()


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    try:
        tools()
    except FirmwareError as error:
        print("pico flash: skipped (%s)" % error)
        return 0
    worst = None
    with tempfile.TemporaryDirectory() as images:
        for machine in NAMES:
            erases, pages, wall, emulated, started_ms, used = play(machine, games, images)
            total = sum(erases.values())
            hottest = max(erases.values())
            blocks = FILE_SYSTEM // SECTOR - used
            leveled = CYCLES / (total / games / blocks) / GAMES_A_DAY / 365
            print("%s: %d games, %.1f sector erases a game over %d sectors (%.1f erases a game on the one erased "
                  "most), %.0f pages of 256 bytes programmed a game"
                  % (machine, games, total / games, len([s for s in erases.values() if s]), hottest / games,
                     pages / games))
            print("  to 100,000 erases at %d games a day: %.0f years with LittleFS spreading them over the %d blocks "
                  "of a Pico W's %d that its files leave free (a Pico has %d: more years)" % (
                      GAMES_A_DAY, leveled, blocks, FILE_SYSTEM // SECTOR, PICO_FILE_SYSTEM // SECTOR))
            print("  emulation: %.1f s of wall time a game, %.1f s of the board's time (%.2f wall s for each of "
                  "the board's)" % (wall / games, emulated / games, wall / emulated))
            print("  power-up to the hello line: %.0f ms of the board's time (MicroPython starting, the firmware's "
                  "modules read from LittleFS, the saved game restored)" % started_ms)
            worst = leveled if worst is None else min(worst, leveled)
        saves, erases = hammer(images)
        print("LittleFS moving its writes: %d saves in a row, %d erases over %d sectors, at most %d on one"
              % (saves, sum(erases.values()), len(erases), max(erases.values())))
    print("pico flash: %.0f years to 100,000 erases at %d games a day" % (worst, GAMES_A_DAY))
    return 0


if __name__ == "__main__":
    sys.exit(main())
