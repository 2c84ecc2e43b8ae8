"""The smallest MicroPython heap in which the firmware plays a complete game,
at a Pico's word size: its whole loop (firmware/app.py with its asyncio
tasks, the runner, the drivers, the core), and a board back from a power cut.

The board's files are what `controller firmware build` deploys (compiled with
mpy-cross, found by their short names as a board finds them in its flash).
They run on the emulated board (firmware/emulator/board.py, compiled too) on
its own clock, as `controller firmware monitor --emulate unix` runs it: the
firmware's own asyncio main, on a pseudo-terminal. The host plays the game of
firmware/emulator/games/<machine>.jsonl over the line protocol in real time
(the machine's pauses shortened, the marbles' fall too). A run counts when
the game ends with the machine's verdict and no error or crash line; the heap
is found by bisection on `micropython -X heapsize`, one run at a time, and
confirmed: the figure is the smallest heap in which STEADY runs in a row pass.

A run that fails must say why: the board's own crash or error line, or its
last words on stderr. One that ran out of memory (MemoryError) is a heap too
small; any other failure (a timeout on a busy machine, a firmware fault) is
tried once more, and stops the bench with its reason if it comes again, so
that no figure rests on a run that failed for another cause.

Back from a power cut: the game is played half-way in a big heap, the board
killed (kill -9: its flash holds the last save), and a fresh board started
from that save, in the heap tried, plays the rest.

The bisected heap includes the emulator's fake `machine` module, its main and
its marble world, which a real board does not carry (its `machine` is built
in): what importing them costs, measured apart, is taken off, and the
firmware's own figure printed. The last line is the largest of the four
(each machine, fresh and resumed): `firmware heap: N KiB`.

MicroPython's word size matters: the test extra's `micropython` is 64-bit,
a Pico 32-bit (16-byte heap blocks, not 32). Name a 32-bit build, such as
MICROPYTHON32 (in CI, the one .ci/run names), to measure
what a Pico's heap holds.

Beside it, on the emulated Pico (the official MicroPython in rp2040js, as
`controller firmware test --emulate pico` runs it, a production build
deployed by mpremote): each machine's game with a power cut in it, the heap
`gc.mem_free()` leaves after it, and the smallest heap the game needs,
found by bisection on a ballast `bytearray` taken before the firmware
starts; and what the firmware's modules take once loaded, with its machine
made, before a game, and how much of it is the names they add to the
board's table (which a frozen firmware keeps in flash). `--no-pico` leaves
them out (they take several minutes more).

`--romfs` adds, for comparison, each machine's figures with the same
modules in a ROMFS image that their bytecode runs from in place, as on a
board whose MicroPython (1.25 or newer) has a ROMFS partition; the official
Pico firmware has none. The image is read into the unix port's heap, so its
size is taken off as well as the emulator's share.

Usage: python bench/firmware_heap.py [--no-pico] [--romfs] [MICROPYTHON]
       (MICROPYTHON: default $MICROPYTHON32, else the test extra's)
"""

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import time
import tty
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.core.registry import NAMES  # noqa: E402
from controller.firmware.board import Board, BoardError  # noqa: E402
from controller.firmware.build import build as board_build, compile_file  # noqa: E402
from controller.firmware.link import Link  # noqa: E402
from controller.firmware.tools import FirmwareError, find_tool  # noqa: E402

FIRMWARE = ROOT / "firmware"
EMULATOR = FIRMWARE / "emulator"
# The games' pauses, shortened: the heap does not depend on them, a bisection's wall time does.
# (A release's timeout stays as it is: on a busy machine a shorter one would call a marble lost;
# and a pace no shorter than the board takes from a host: its coil's PTC sets the shortest, fast().)
FAST = {"drnim": {"pace_ms": 60}, "nimatron": {"pace_ms": 60, "think_ms": 100}}
FALL_MS = 40
# A pause of the game longer than this (the time between two turns) is shortened to it.
PAUSE_S = 0.25
SETTLE_POLL_S = 0.02
GAME_S = 120
HELLO_S = 20
# The bisection's bounds, KiB.
LOW_KIB = 16
HIGH_KIB = 512
# The runs in a row that must pass in the heap a bisection found (see bisect).
STEADY = 3
# What the board says when it ran out of memory; "heap is locked" is an interrupt that
# allocated, a fault of the firmware's, not a heap too small.
OUT_OF_MEMORY = "MemoryError"
LOCKED = "heap is locked"


def fast(machine):
    """FAST's settings for `machine`, its pace no shorter than the shipped pin map's board takes."""
    from controller.firmware.build import pinmap_path
    from controller.hardware.pinmap.pico import load_pico, shortest_pace
    pinmap, _, options = load_pico(pinmap_path(machine), machine)
    settings = dict(FAST[machine])
    settings["pace_ms"] = max(settings["pace_ms"], shortest_pace(pinmap.outputs.get("release"),
                                                                 options["release_pulse_ms"]))
    return settings


PROBE = """
import gc, sys
gc.collect()
last = gc.mem_alloc()
for name in sys.argv[1:]:
    __import__(name)
    gc.collect()
    now = gc.mem_alloc()
    print(name, now - last)
    last = now
"""
# The emulator's own objects, made as the emulated board makes them: the fake `machine`'s pins
# (a board's Pin objects are in its firmware's ROM, not in its heap) and the marble world.
EMULATOR_OBJECTS = """
import machine
import board_config as config
from world import World
kept = []
for line in config.INPUTS + ((config.SENSOR,) if config.SENSOR else ()):
    kept.append(machine.Pin(line[1], machine.Pin.IN, None).irq(print, 12, hard=True))
for line in config.OUTPUTS:
    for number in line[2]:
        kept.append(machine.Pin(number, machine.Pin.OUT, value=0))
kept.append(World(config, lambda: 0, machine.WorldPins()))
gc.collect()
print("emulator-objects", gc.mem_alloc() - last)
"""


def compile_emulator(build):
    """The emulator compiled as a build's modules are (short source names) in build/emulator."""
    mpy_cross = find_tool("mpy-cross")      # the one the build used: their .mpy versions agree
    for path in EMULATOR.glob("*.py"):
        compile_file(mpy_cross, path, build / "emulator" / (path.stem + ".mpy"), path.name)


def compile_tree(build, machine):
    """What `controller firmware build` deploys for `machine` (in development
    mode: the host injects the visitor's presses) in build/deployed, and the
    emulator in build/emulator."""
    board_build(machine, build / "deployed", mode="development")
    compile_emulator(build)
    return ".frozen:emulator:deployed"     # relative to the build: short file names, as a board's


class PrintingLink(Link):
    """The link, keeping the last line the board printed outside the protocol (the link
    reports the first of a run of them)."""

    printed = None

    def decode(self, line):
        message = super().decode(line)
        if message is None and line.strip():
            self.printed = line.strip().decode("ascii", "replace")
        return message


class Setup:
    """How an emulated board starts: `micropython`, in the folder `build`, its
    modules found on `path` (MICROPYPATH, relative to the build), its main
    started by `command` (the emulated board's, or one that mounts a ROMFS
    image first). bench/frozen_heap.py starts a MicroPython with the board's
    modules frozen in, and names only .frozen and the emulator."""

    def __init__(self, micropython, build, path=".frozen:emulator:deployed", command=("-m", "board")):
        self.micropython = micropython
        self.build = build
        self.path = path
        self.command = list(command)


class Run:
    """One emulated board (started as `setup` says) in `kib` KiB of heap, on its own clock, its flash the
    file `flash`."""

    def __init__(self, setup, kib, flash):
        master, slave = os.openpty()
        tty.setraw(slave)
        self.slave = slave
        self.said = []          # what the link reported (lines that are not the protocol, a port gone)
        self.last_words = []    # the board's crash and error lines
        self.link = PrintingLink(os.ttyname(slave), report=self.said.append)
        self.link.try_open()        # before the board starts: pyserial empties a port it opens, hello and all
        self.stderr = open(flash.parent / "stderr", "w+")
        self.process = subprocess.Popen(
            [setup.micropython, "-X", "heapsize=%dk" % kib] + setup.command
            + ["--clock", "real", "--flash", str(flash)],
            stdin=master, stdout=master, stderr=self.stderr, cwd=setup.build, env={"MICROPYPATH": setup.path})
        os.close(master)
        self.board = Board(self.link, on_line=self.seen)
        self.over = False
        self.ended = None       # the number of the game's line after which the board said the game was over

    def seen(self, message):
        """Every line the board sends that answers no request: a crash or an error ends the game."""
        if message["kind"] == "game_over":
            self.over = True
        if message["kind"] == "fault" and message["fault"] in ("crash", "resets") or message["kind"] == "error":
            self.last_words.append(message.get("text") or message.get("error"))
            raise BoardError("the board said: %s" % self.last_words[-1])

    def start(self):
        """The board's hello line; BoardError when it crashed or stopped first."""
        deadline = time.monotonic() + HELLO_S
        while self.link.hello is None:
            if self.last_words or self.process.poll() is not None or time.monotonic() > deadline:
                raise BoardError("no hello line from the board")
            self.board.pass_time(0.1)
        return self.link.hello

    def play(self, lines, machine, whole=True):
        """The host's side of the game's lines (`whole`: to the game's end); raises BoardError
        (or OSError, termios.error once the board's process has ended) when the board does not
        play them."""
        for number, line in enumerate(lines):
            message = json.loads(line)
            kind = message.pop("kind")
            if kind == "advance" and message.get("settle"):
                deadline = time.monotonic() + GAME_S
                while self.board.ask("state")["busy"]:
                    if time.monotonic() > deadline:
                        raise BoardError("the machine was still busy after %d s" % GAME_S)
                    self.board.pass_time(SETTLE_POLL_S)
            elif kind == "advance":
                self.board.pass_time(min(PAUSE_S, message["ms"] / 1000))
            elif kind == "new_game":
                message["settings"] = dict(message.get("settings", {}), **fast(machine))
                self.board.ask(kind, **message)
                self.board.ask("world", fall_ms=FALL_MS)
            else:
                self.board.ask(kind, **message)
            if self.over and self.ended is None:
                self.ended = number
        self.board.pass_time(0.2)
        if whole and not self.over:
            raise BoardError("the game's lines were played, and the board never said the game was over")

    def why(self, error):
        """Why the run failed, in one line: the board's own last words where it said any
        (its crash line, a traceback's last line on stderr, or on its port: MicroPython
        prints a traceback from before the firmware's own handler there, such as an import
        that ran out of memory)."""
        try:
            self.board.pass_time(0.3)       # a crash line on its way
        except Exception:       # noqa: BLE001  (the port of a board that is gone: its words are in hand)
            pass
        self.stderr.seek(0)
        traceback = [line.strip() for line in self.stderr.read().splitlines() if line.strip()]
        printed = [self.link.printed] if self.link.printed else []
        words = self.last_words + traceback[-1:] or printed or self.said[-1:]
        if self.process.poll() is not None and not words:
            words = ["the board's process ended (exit status %d)" % self.process.returncode]
        return "; ".join(words + ["" if words else str(error)]).strip("; ")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.link.close()
        os.close(self.slave)
        self.stderr.close()


def attempt(setup, kib, machine, lines, saved=None):
    """None when a board in `kib` KiB finishes the game's `lines` (from the save `saved`,
    or afresh), else why not, in one line."""
    folder = Path(tempfile.mkdtemp(prefix="flash-", dir=setup.build))
    flash = folder / "game.json"
    if saved is not None:
        flash.write_bytes(saved)
    run = Run(setup, kib, flash)
    try:
        try:
            hello = run.start()
            if saved is not None and hello.get("resumed") != "saved":
                return "the board did not resume its saved game (resumed: %s)" % hello.get("resumed")
            run.play(lines, machine)
        except (BoardError, FirmwareError, OSError, termios.error) as error:
            return run.why(error)
        return None
    finally:
        run.stop()
        shutil.rmtree(folder)


def plays(setup, kib, machine, lines, saved=None):
    """True when a board in `kib` KiB plays the game to its end, False when it runs out
    of memory; a run that fails for any other reason is tried once more, then stops the
    bench, saying why."""
    why = None
    for _ in range(2):
        why = attempt(setup, kib, machine, lines, saved)
        if why is None:
            return True
        if OUT_OF_MEMORY in why and LOCKED not in why:
            return False
    raise SystemExit("firmware_heap: %s %s in %d KiB failed twice, not for lack of memory: %s"
                     % (machine, "resumed" if saved is not None else "fresh", kib, why))


def saved_late(setup, machine, lines):
    """The save a board leaves when its power goes half-way through the game
    (the first line after it that waits for the machine to settle: nothing is
    under way), and the game's lines after it. The game is played whole first,
    to find where it ends (a game file may go on with presses after it)."""

    def played(part, whole=True):
        folder = Path(tempfile.mkdtemp(prefix="flash-", dir=setup.build))
        run = Run(setup, 4096, folder / "game.json")
        try:
            run.start()
            run.play(part, machine, whole)
        except (BoardError, FirmwareError, OSError, termios.error) as error:
            raise SystemExit("firmware_heap: the emulated board does not play its %s game in 4 MiB of heap: %s"
                             % (machine, run.why(error)))
        finally:
            run.stop()
        saved = (folder / "game.json").read_bytes()
        shutil.rmtree(folder)
        return run.ended, saved

    ended, _ = played(lines)
    late = max(at for at in range(ended // 2) if b'"settle":true' in lines[at]) + 1
    _, saved = played(lines[:late], whole=False)
    return saved, lines[late:]


def bisect(runs, what, low=LOW_KIB, high=HIGH_KIB):
    """The smallest heap in KiB from `low` to `high` in which the game always plays:
    bisected, then confirmed. Near that heap a run passes or runs out of memory by
    where in the game the host's `state` polls land (their replies need a few hundred
    bytes in one piece): a Nimatron's game passed 3 runs of 3 in 105 KiB, 2 in 101
    and 103, none in 99. A bisection alone stops anywhere in that band; so from where
    it stops, the heap goes up a KiB at a time until STEADY runs in a row pass."""
    if not runs(high):
        raise SystemExit("firmware_heap: the emulated board does not %s even in %d KiB" % (what, high))
    while low < high:
        middle = (low + high) // 2
        if runs(middle):
            high = middle
        else:
            low = middle + 1
    while not all(runs(low) for _ in range(STEADY)):
        low += 1
    return low


def sources():
    """Module name -> source file, for every module the emulated board may load."""
    found = {path.stem: path for path in list(FIRMWARE.glob("*.py")) + list(EMULATOR.glob("*.py"))}
    for path in (ROOT / "controller" / "core").glob("*.py"):
        found["controller.core." + path.stem] = path
    found["board_config"] = None  # generated: it imports nothing
    return found


def machine_modules(machine):
    """The core modules the machine loads with its default settings, in CPython (the
    same on the board: a test checks which modules load)."""
    listing = subprocess.run([sys.executable, "-c", "import sys\nfrom controller.core.registry import machine_class\n"
                              "machine_class(%r)({}).handle(('power',), 0)\nprint(' '.join(sys.modules))" % machine],
                             capture_output=True, text=True, check=True, cwd=ROOT)
    return sorted(name for name in listing.stdout.split() if name.startswith("controller.core."))


def load_order(machine, files, entry):
    """The modules a game loads from `entry` (the emulated board's main, or the real
    board's: app), each after the modules it imports at its top (so the cost of
    each is its own)."""
    import ast
    seen, order = set(), []

    def visit(name):
        if name in seen or name not in files:
            return
        seen.add(name)
        if files[name] is not None:
            for node in ast.parse(files[name].read_text()).body:
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        visit(alias.name)
                elif isinstance(node, ast.ImportFrom):
                    package = "controller.core." if node.level else ""
                    if node.module:
                        visit(package + node.module)
                    for alias in node.names:
                        visit(package + (node.module + "." if node.module and not node.level else "") + alias.name)
        order.append(name)

    for name in [entry] + machine_modules(machine):
        visit(name)
    return order


def module_costs(setup, machine):
    """What importing each module costs, in bytes of heap: a real board's (from app.py)
    in their load order, then the emulator's own (its main, fake machine and world)
    and its objects ("emulator-objects"); and the names of the emulator's."""
    probe = setup.build / "probe.py"
    probe.write_text(PROBE + EMULATOR_OBJECTS)
    files = sources()
    # asyncio (frozen into MicroPython, as on a board: its objects are in the heap, its code is not) first:
    # the board's app imports it, and so does the fake `machine`, which would otherwise be charged for it
    board = ["asyncio"] + [name for name in load_order(machine, files, "app") if name != "machine"]
    emulator = ["machine"] + [name for name in load_order(machine, files, "board") if name not in board + ["machine"]]
    # the fake `machine` next, as a board's is there before anything: what imports it pays nothing for it
    order = ["asyncio", "machine"] + board[1:] + emulator[1:]
    result = subprocess.run([setup.micropython, "-X", "heapsize=4m", str(probe)] + order, capture_output=True,
                            text=True, env={"MICROPYPATH": setup.path}, cwd=setup.build)
    costs = [(name, int(cost)) for name, cost in (line.split() for line in result.stdout.splitlines())]
    return costs, emulator + ["emulator-objects"]


def game_lines(machine):
    """The host's lines of the bench's game for `machine`."""
    return (EMULATOR / "games" / (machine + ".jsonl")).read_bytes().splitlines()


def figures(setup, machine):
    """(fresh KiB, resumed KiB, the emulator's share in bytes, the import costs, the emulator's
    modules) for `machine` on boards started as `setup` says."""
    lines = game_lines(machine)
    costs, emulator = module_costs(setup, machine)
    share = sum(cost for name, cost in costs if name in emulator)
    saved, rest = saved_late(setup, machine, lines)
    fresh = bisect(lambda kib: plays(setup, kib, machine, lines), "finish its %s game" % machine)
    resumed = bisect(lambda kib: plays(setup, kib, machine, rest, saved),
                     "finish its %s game back from a power cut" % machine)
    return fresh, resumed, share, costs, emulator


# --- a board with a ROMFS partition --------------------------------------------------------------
# The emulated board with the deployed files in a ROMFS image (its path, argv[1]), mounted as a
# MicroPython with a ROMFS partition (1.25 or newer, where a board has one) mounts its own: the
# modules' bytecode runs in place. The image is read into the heap first, in one allocation of
# its size while the heap is in one piece (on a board it sits in flash).
ROM_BOARD = """import os, sys, vfs
path = sys.argv.pop(1)
image = bytearray(os.stat(path)[6])
with open(path, "rb") as f:
    f.readinto(image)
vfs.mount(vfs.VfsRom(image), "/rom")
sys.path.insert(0, "/rom")
import board
sys.exit(board.main(sys.argv[1:]))
"""


def romfs_setup(setup):
    """A setup like `setup` whose board finds its deployed modules in a ROMFS image (written
    by mpremote's own writer, as `mpremote romfs deploy` writes one), and the image's size."""
    from mpremote.romfs import VfsRomWriter
    writer = VfsRomWriter()

    def add(folder):
        for entry in sorted(folder.iterdir()):
            if entry.is_dir():
                writer.opendir(entry.name)
                add(entry)
                writer.closedir()
            elif entry.suffix == ".mpy":
                writer.mkfile(entry.name, entry.read_bytes())

    add(setup.build / "deployed")
    image = setup.build / "deployed.romfs"
    image.write_bytes(writer.finalise())
    (setup.build / "rom_board.py").write_text(ROM_BOARD)
    return Setup(setup.micropython, setup.build, ".frozen:emulator", ("rom_board.py", image.name)), image.stat().st_size


def romfs_figures(setup, machine, share):
    """(fresh, resumed) KiB: the firmware's own heap with its modules in a ROMFS image, less
    the image and the emulator's share."""
    rom, size = romfs_setup(setup)
    lines = game_lines(machine)
    saved, rest = saved_late(rom, machine, lines)
    fresh = bisect(lambda kib: plays(rom, kib, machine, lines), "finish its %s game from ROMFS" % machine)
    resumed = bisect(lambda kib: plays(rom, kib, machine, rest, saved),
                     "finish its %s game from ROMFS back from a power cut" % machine)
    return fresh - (size + share) // 1024, resumed - (size + share) // 1024


# --- the emulated Pico ------------------------------------------------------------------------
# A whole game of each machine, with a power cut half-way through it (the game saved, the chip
# started again from its flash, the game resumed), as a script plays it on a board: found with
# the simulator, which the script's last line checks.
PICO_GAMES = {
    "drnim": """machine drnim equalizer=false
press trigger
switch turn machine
press trigger
press trigger
switch turn machine
press trigger
power
expect fault none
press trigger
switch turn machine
press trigger
press trigger
switch turn machine
press trigger
press trigger
expect winner machine
""",
    "nimatron": """machine nimatron openings=1,3,5,7
press row1
press handover
wait 5s
press row2
press handover
wait 5s
press row2
press handover
wait 5s
power
expect fault none
press row3
press handover
wait 5s
press row3
press handover
wait 5s
press row3
press handover
wait 5s
press row3
press handover
wait 5s
expect winner machine
""",
}
# The bench's main.py in place of the build's (never a board's): a ballast of as many bytes as
# the host's first line says, allocated while the heap is in one piece, then the firmware,
# started as the shipped main.py starts it.
BALLAST_MAIN = """# bench/firmware_heap.py's main.py: a ballast, then the firmware.
import sys

ballast = bytearray(int(sys.stdin.readline()))
import app

app.run()
"""
# How far above the live heap after a game the smallest heap is looked for, KiB.
PICO_MARGIN_KIB = 48


class WatchedBoard(Board):
    """A board whose crash lines are kept in `last_words`, whoever listens to its lines."""

    @property
    def on_line(self):
        return self.listener

    @on_line.setter
    def on_line(self, listener):
        def heard(message):
            if message.get("kind") == "fault" and message.get("fault") in ("crash", "resets"):
                self.last_words.append(message.get("text"))
            listener(message)
        self.last_words = getattr(self, "last_words", [])
        self.listener = heard


def pico_image(machine, folder):
    """The flash of an emulated Pico with `machine`'s build (production mode, as an exhibit
    runs it) deployed as a user deploys it (mpremote over its port), the bench's main.py in
    place of the build's: a file in `folder`."""
    from controller.core.protocol import PRODUCTION
    from controller.firmware.deploy import deploy
    from controller.firmware.rp2040 import EmulatedPico
    made = folder / machine
    board_build(machine, made, PRODUCTION)
    (made / "main.py").write_text(BALLAST_MAIN)
    image = folder / (machine + ".bin")
    pico = EmulatedPico()
    try:
        pico.start()
        pico.run_free()
        try:
            deploy(pico.port, made)
        finally:
            pico.pause()
        pico.save_flash(image)
    finally:
        pico.stop()
    return image


# What the firmware's modules take loaded, before any game: as app.run() loads them, and the machine
# the runner makes (mpremote's exec at the board's prompt, its main.py stopped at its first line).
LOADED = """import gc, micropython, sys
sys.path[:] = ['.frozen', '']
micropython.qstr_info()
gc.collect()
before = gc.mem_alloc()
import app
import board_config as config
from controller.core.registry import machine_class
machine = machine_class(config.MACHINE)({})
machine.handle(('power',), 0)
gc.collect()
print('loaded', gc.mem_alloc() - before)
micropython.qstr_info()
"""


def pico_loaded(image):
    """(bytes, names, bytes of names): the heap the firmware's modules and its machine take on the
    emulated Pico from `image` before a game, and the names they add to its table
    (micropython.qstr_info() before and after, less what mpremote and this script made it
    hold), which a frozen firmware keeps in flash instead."""
    import re
    from controller.firmware.deploy import mpremote
    from controller.firmware.rp2040 import EmulatedPico
    pico = EmulatedPico()
    try:
        pico.start(flash=image)
        pico.run_free()
        said = mpremote(pico.port, ["exec", LOADED], image.parent, "measure the loaded firmware on")
    finally:
        pico.stop()
    loaded = re.search(r"loaded (\d+)", said)
    names = [(int(count), int(size)) for count, size in
             re.findall(r"n_qstr=(\d+), n_str_data_bytes=\d+, n_total_bytes=(\d+)", said)]
    if not (loaded and len(names) == 2):
        raise SystemExit("firmware_heap: the emulated Pico did not say what its firmware takes: %s" % said.strip())
    return int(loaded.group(1)), names[1][0] - names[0][0], names[1][1] - names[0][1]


def pico_game(machine, image, ballast):
    """(None, the board's heap after the game: free and used bytes) when the emulated Pico
    from `image` plays its game with `ballast` bytes taken before the firmware starts, else
    (why not, in one line, None)."""
    from controller.firmware.board_test import PicoHands, run_scripts
    from controller.firmware.rp2040 import Bench, EmulatedLink, EmulatedPico, board_config_values
    from controller.core.protocol import PRODUCTION

    class BallastHands(PicoHands):
        def power(self):
            """The chip starts again from its flash, and its main.py asks for its ballast again."""
            self.bench.pico.power_cut()
            link.serial.write(b"%d\n" % ballast)
            self.board.wait_restart(HELLO_S)

    said = []
    pico = EmulatedPico()
    try:
        pico.start(flash=image)
        bench = Bench(pico, board_config_values(machine, PRODUCTION))
        link = EmulatedLink(bench, report=said.append)
        link.try_open()
        link.serial.write(b"%d\n" % ballast)
        board = WatchedBoard(link)
        try:
            board.wait_hello(HELLO_S)
            board.hands = BallastHands(board, bench)
            failures = run_scripts([(machine, PICO_GAMES[machine])], lambda name: board, said.append)[machine]
            heap = None if failures else board.ask("state", heap=True)["heap"]
        except (BoardError, FirmwareError) as error:
            failures = [str(error)]
        if not failures:
            return None, heap
        return "; ".join(board.last_words + failures[-1:]), None
    finally:
        pico.stop()


def pico_plays(machine, image, ballast):
    """True when the emulated Pico plays its game with `ballast` bytes taken, False when it
    runs out of memory; any other failure is tried once more, then stops the bench."""
    why = None
    for _ in range(2):
        why, heap = pico_game(machine, image, ballast)
        if why is None:
            return True
        if OUT_OF_MEMORY in why and LOCKED not in why:
            return False
    raise SystemExit("firmware_heap: the emulated Pico's %s game with a ballast of %d bytes failed twice, not for "
                     "lack of memory: %s" % (machine, ballast, why))


def pico_heap(machine, folder):
    """(the free heap after a game, the heap in use then, the smallest heap the game needs), bytes,
    on the emulated Pico: the game played with no ballast, then the largest ballast with which it
    still plays, found by bisection in KiB."""
    image = pico_image(machine, folder)
    why, heap = pico_game(machine, image, 0)
    if why is not None:
        raise SystemExit("firmware_heap: the emulated Pico does not play its %s game: %s" % (machine, why))
    total = heap["free"] + heap["used"]
    # the largest ballast, KiB: at most what the game leaves free, at least that less a margin
    high = heap["free"] // 1024
    low = max(0, high - PICO_MARGIN_KIB)
    if not pico_plays(machine, image, low * 1024):
        raise SystemExit("firmware_heap: the emulated Pico's %s game needs more than %d KiB above its live heap"
                         % (machine, PICO_MARGIN_KIB))
    while low < high:
        middle = (low + high + 1) // 2
        if pico_plays(machine, image, middle * 1024):
            low = middle
        else:
            high = middle - 1
    return heap["free"], heap["used"], total - low * 1024


def pico_figures():
    """The emulated Pico's lines of the bench's output, or one saying why it was skipped."""
    from controller.firmware.rp2040 import tools
    try:
        tools()
    except FirmwareError as error:
        return ["emulated Pico: skipped (%s)" % error]
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for machine in NAMES:
            free, used, smallest = pico_heap(machine, Path(folder))
            lines.append("emulated Pico (the official MicroPython, %s): after a game with a power cut in it, "
                         "gc.mem_free() %d bytes (%d in use); the smallest heap the game needs, found by a "
                         "ballast: %d KiB" % (machine, free, used, -(-smallest // 1024)))
            print(lines[-1], flush=True)
            loaded, names, name_bytes = pico_loaded(Path(folder) / (machine + ".bin"))
            lines.append("emulated Pico (%s): the firmware's modules loaded and its machine made, before a game: "
                         "%.1f KiB of heap, %.1f KiB of it the %d names they add" % (
                             machine, loaded / 1024, name_bytes / 1024, names))
            print(lines[-1], flush=True)
    return lines


def chosen_micropython(named):
    """The micropython to measure: `named` (a path or a command), else $MICROPYTHON32, else
    the test extra's; None without one, or without mpy-cross to compile the build."""
    micropython = named or os.environ.get("MICROPYTHON32") or \
        shutil.which("micropython", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    try:
        find_tool("mpy-cross")
    except FirmwareError:
        return None
    if micropython and os.sep in micropython:
        return os.path.abspath(micropython)     # the runs start in their build's folder
    return micropython


def main():
    named = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    micropython = chosen_micropython(named[0] if named else None)
    if not micropython:
        print("firmware heap: skipped (micropython and mpy-cross come with the test extra)")
        return 0
    width = subprocess.run([micropython, "-c", "import sys; print(64 if sys.maxsize > 2 ** 31 else 32)"],
                           capture_output=True, text=True).stdout.strip()
    print("the firmware's heap on %s (%s-bit)" % (micropython, width), flush=True)
    largest = []
    for machine in NAMES:
        with tempfile.TemporaryDirectory() as folder:
            setup = Setup(micropython, Path(folder), compile_tree(Path(folder), machine))
            fresh, resumed, share, costs, emulator = figures(setup, machine)
            own = (fresh - share // 1024, resumed - share // 1024)
            largest += own
            print("%s: a complete game in %d KiB of heap, back from a power cut %d KiB; less the emulator's %s "
                  "(%.1f KiB): the firmware's own %d and %d KiB" % (machine, fresh, resumed, ", ".join(emulator),
                                                                    share / 1024, own[0], own[1]))
            print("  what importing each module costs, KiB: " + ", ".join(
                "%s %.1f" % (name, cost / 1024) for name, cost in costs if name not in emulator), flush=True)
            if "--romfs" in sys.argv and importlib.util.find_spec("mpremote") is None:
                print("  ROMFS: skipped (its image is written by mpremote, which comes with the firmware extra)")
            elif "--romfs" in sys.argv:
                print("  the same modules in a ROMFS image, run in place: the firmware's own %d and %d KiB"
                      % romfs_figures(setup, machine, share), flush=True)
    if "--no-pico" not in sys.argv:
        for line in pico_figures():
            if line.startswith("emulated Pico: skipped"):
                print(line)
    print("firmware heap: %d KiB" % max(largest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
