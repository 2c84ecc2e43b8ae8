"""The smallest MicroPython heap in which the firmware plays a complete game.

The board's files are what `controller firmware build` deploys (the firmware,
the core and the generated board_config.py, compiled with mpy-cross), and the
emulated board (firmware/emulator/board.py, also compiled) plays the game of
firmware/emulator/games/<machine>.jsonl over the line protocol. The heap is
found by bisection on `micropython -X heapsize`: a run counts when the game
ends with the machine's verdict and no error line. A second figure is for a
board back from a power cut: it starts from the game it saved three quarters
of the way through and resumes it.

The bisected heap includes the emulator's fake `machine` module and marble
world, and the core modules only the world imports (the marbles' model),
which a real board does not carry: a real board's modules are those its own
main, app.py, loads. The emulator's share (what importing its modules costs,
measured apart) is printed, and the firmware's own figure is the bisected
heap less that share, rounded up. The last line gives the larger firmware's
own figure of the two machines. The board's files are found by short names
relative to the build folder, as a board finds them in its flash: each
module's file name is kept among the interned names.

A second figure, labelled ROMFS, is for boards whose MicroPython (1.25 or
newer) has a ROMFS partition: the same files in a VfsRom image (built with
mpremote's writer, as `mpremote romfs deploy` would write it) run their
bytecode in place. The unix port holds the image in its heap, so that figure
is the bisected heap less the image's size (and less the emulator's share);
on a board the image sits in flash. It is for comparison only.

The table of interned names (every identifier and short text of the loaded
modules, and each module's file name) is printed too: it grows by doubling
(7 KiB at a time on this port, past 620 names), so a module that tips it over
appears to cost that much more. The emulator's modules are measured after the
board's, so when their names tip it over (the Nimatron's do) the new part is
counted in the emulator's share: a real board, without those names, stays
below the doubling.

The `micropython` of the test extra is the unix port, 64-bit: its objects
are larger than a Pico's (32-bit words, 16-byte heap blocks, not 32). Name a
32-bit build to measure at a board's word size, e.g. one made from
MicroPython's source with `make -C ports/unix BUILD=build-32 CFLAGS_EXTRA=-m32
LDFLAGS_EXTRA=-m32 MICROPY_PY_FFI=0 MICROPY_PY_SSL=0 FROZEN_MANIFEST=`.

Usage: python bench/firmware_heap.py [MICROPYTHON]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.firmware.build import build as board_build, compile_file  # noqa: E402
from controller.firmware.tools import FirmwareError, find_tool  # noqa: E402

FIRMWARE = ROOT / "firmware"
EMULATOR = FIRMWARE / "emulator"

PROBE = """
import gc, sys, micropython
gc.collect()
before = gc.mem_alloc()
last = before
for name in sys.argv[1:]:
    __import__(name)
    gc.collect()
    now = gc.mem_alloc()
    print(name, now - last)
    last = now
    micropython.qstr_info()
"""


def tool(name):
    return shutil.which(name, path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])


def compile_tree(build, machine):
    """What `controller firmware build` deploys for `machine` (in development
    mode, as the emulated board runs), in build/deployed, and the emulator
    compiled the same way (short source names embedded) in build/emulator."""
    board_build(machine, build / "deployed", mode="development")
    mpy_cross = find_tool("mpy-cross")      # the one the build used: their .mpy versions agree
    for path in EMULATOR.glob("*.py"):
        compile_file(mpy_cross, path, build / "emulator" / (path.stem + ".mpy"), path.name)
    return ".frozen:emulator:deployed"     # relative to the build: short file names, as a board's


# The emulated board with the compiled files mounted from a ROMFS image (argv[1]).
ROM_BOARD = """
import sys, vfs
with open(sys.argv[1], "rb") as f:
    image = f.read()
vfs.mount(vfs.VfsRom(image), "/rom")
sys.path.insert(0, "/rom")
import board
sys.exit(board.main(sys.argv[2:]))
"""


def romfs_image(build):
    """The compiled firmware, core and board config of `build` in one ROMFS
    image; None when mpremote (its writer) is missing."""
    try:
        from mpremote.romfs import VfsRomWriter
    except ImportError:
        return None
    writer = VfsRomWriter()

    def add(folder):
        for entry in sorted(folder.iterdir()):
            if entry.is_dir():
                writer.opendir(entry.name)
                add(entry)
                writer.closedir()
            elif entry.suffix == ".mpy":
                writer.mkfile(entry.name, entry.read_bytes())

    add(build / "deployed")
    image = build / "image.romfs"
    image.write_bytes(writer.finalise())
    (build / "rom_board.py").write_text(ROM_BOARD)
    return image


def answers(micropython, path, kib, lines, flash, command=("-m", "board"), saved=None):
    """The emulated board's lines (tables) for `lines`, in a heap of `kib` KiB,
    starting from the saved game `saved` (text) or from none; None when it
    stopped with an error or broke a line off (a MemoryError)."""
    if saved is not None:
        flash.write_bytes(saved)
    elif flash.exists():
        flash.unlink()
    try:
        result = subprocess.run([micropython, "-X", "heapsize=%dk" % kib] + list(command) + ["--flash", str(flash)],
                                input=lines, capture_output=True, timeout=120, env={"MICROPYPATH": path},
                                cwd=flash.parent)
    except subprocess.TimeoutExpired:
        return None
    if result.returncode != 0:
        return None
    try:
        said = [json.loads(line) for line in result.stdout.decode().splitlines()]
    except ValueError:
        return None        # a line broken off by a MemoryError: the heap was too small
    return None if any(a.get("kind") == "error" for a in said) else said


def plays(micropython, path, kib, game, flash, command=("-m", "board")):
    """True when the emulated board (started by `command`) finishes the game in a heap of `kib` KiB."""
    said = answers(micropython, path, kib, game, flash, command)
    return said is not None and any(a.get("kind") == "game_over" for a in said)


def bisect(runs, what, low=4, high=1024):
    """The smallest heap in KiB from `low` to `high` for which runs(kib) holds."""
    if not runs(high):
        raise SystemExit("the emulated board does not %s even in %d KiB" % (what, high))
    while low < high:
        middle = (low + high) // 2
        if runs(middle):
            high = middle
        else:
            low = middle + 1
    return low


def smallest(micropython, path, game, flash, command=("-m", "board")):
    return bisect(lambda kib: plays(micropython, path, kib, game, flash, command), "finish its game")


def saved_late(micropython, path, game, flash):
    """The game the board saved when three quarters of its bench game were
    played, at a moment when nothing was under way: what a board finds after a
    power cut, and late, when the saved game is at its biggest."""
    lines = game.splitlines(keepends=True)
    late = max(at for at in range(len(lines) * 3 // 4) if b'"settle":true' in lines[at]) + 1
    answers(micropython, path, 4096, b"".join(lines[:late]), flash)
    return flash.read_bytes()


def resuming(micropython, path, saved, flash):
    """The smallest heap in which the board starts from `saved`, resumes it
    and answers the host's `state`."""
    def runs(kib):
        said = answers(micropython, path, kib, b'{"kind":"state","id":"end"}\n', flash, saved=saved)
        return said is not None and [a.get("resumed") for a in said if a.get("kind") == "hello"] == ["saved"] \
            and any(a.get("id") == "end" for a in said)
    return bisect(runs, "resume its saved game")


def sources():
    """Module name -> source file, for every module the emulated board may load."""
    found = {path.stem: path for path in list(FIRMWARE.glob("*.py")) + list(EMULATOR.glob("*.py"))}
    for path in (ROOT / "controller" / "core").glob("*.py"):
        found["controller.core." + path.stem] = path
    found["board_config"] = None  # generated: it imports nothing
    return found


def machine_modules(machine):
    """The core modules the machine loads with its default settings, in
    CPython (the same on the board: a test checks which modules load)."""
    listing = subprocess.run([sys.executable, "-c", "import sys\nfrom controller.core.registry import machine_class\n"
                              "machine_class(%r)({}).handle(('power',), 0)\nprint(' '.join(sys.modules))" % machine],
                             capture_output=True, text=True, check=True, cwd=ROOT)
    return sorted(name for name in listing.stdout.split() if name.startswith("controller.core."))


def load_order(machine, files, entry="board"):
    """The modules a game loads from `entry` (the emulated board's main, or
    the real board's: app), each after the modules it imports at its top
    (so the cost of each is its own): the board's, the machine's, the rng's."""
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
    return [name for name in order if name != entry]


def emulator_only(machine, files):
    """The modules only the emulated board loads: its fake `machine`, its
    marble world and what the world alone imports. A real board starts from
    app.py, and its `machine` is built in."""
    board = set(load_order(machine, files, "app")) - {"machine"}
    return [name for name in load_order(machine, files) if name not in board]


def module_costs(micropython, path, build, machine):
    """What importing each module the emulated board loads costs, in bytes of
    heap: a real board's modules in their load order, then the emulator's
    own. The emulator's names come last into the table of interned names, so
    when they push it past a doubling the new part is theirs: a real board,
    without them, stays below it. Also the table at the end: (names, bytes,
    the names after each module)."""
    probe = build / "probe.py"
    probe.write_text(PROBE)
    files = sources()
    names = load_order(machine, files, "app")
    names += [name for name in emulator_only(machine, files) if name not in names]
    result = subprocess.run([micropython, "-X", "heapsize=4m", str(probe)] + names, capture_output=True, text=True,
                            env={"MICROPYPATH": path}, cwd=build)
    costs = []
    table = None
    for line in result.stdout.splitlines():
        if line.startswith("qstr pool:"):
            fields = dict(field.split("=") for field in line.split(":", 1)[1].replace(",", " ").split())
            table = (int(fields["n_qstr"]), int(fields["n_total_bytes"]), dict(table[2]) if table else {})
            table[2][costs[-1][0]] = table[0]
        else:
            name, cost = line.split()
            costs.append((name, int(cost)))
    return costs, table


def main():
    micropython = sys.argv[1] if len(sys.argv) > 1 else tool("micropython")
    try:
        find_tool("mpy-cross")
    except FirmwareError:
        micropython = None
    if not micropython:
        print("firmware heap: skipped (micropython and mpy-cross come with the test extra)")
        return 0
    figures = {}
    for machine in ("drnim", "nimatron"):
        with tempfile.TemporaryDirectory() as folder:
            build = Path(folder)
            path = compile_tree(build, machine)
            game = (EMULATOR / "games" / (machine + ".jsonl")).read_bytes()
            kib = smallest(micropython, path, game, build / "game.json")
            resumed = resuming(micropython, path, saved_late(micropython, path, game, build / "game.json"),
                               build / "game.json")
            costs, table = module_costs(micropython, path, build, machine)
            apart = emulator_only(machine, sources())
            emulator = sum(cost for name, cost in costs if name in apart)
            figures[machine] = kib - emulator // 1024
            print("%s: a complete game on the emulated board in %d KiB of heap, of which the emulator's fake "
                  "machine module and marble world (%s) %.1f KiB: the firmware's own %d KiB"
                  % (machine, kib, ", ".join(apart), emulator / 1024, figures[machine]))
            print("  back from a power cut, resuming the game it saved three quarters of the way: %d KiB of heap, "
                  "the firmware's own %d KiB" % (resumed, resumed - emulator // 1024))
            print("  what importing each module costs, KiB: " + ", ".join(
                "%s %.1f" % (name, cost / 1024) for name, cost in costs))
            if table is not None:
                board_names = max(count for name, count in table[2].items() if name not in apart)
                print("  of which the table of interned names (identifiers and short texts): %d names in %.1f KiB, "
                      "%d of them the board's own; the table doubles past 620 names, and the module that takes it "
                      "past pays for the new part" % (table[0], table[1] / 1024, board_names))
            image = romfs_image(build)
            if image is not None:
                rom = smallest(micropython, ".frozen:emulator", game, build / "game.json",
                               (str(build / "rom_board.py"), str(image)))
                size = image.stat().st_size
                print("  ROMFS, for comparison: %d KiB of heap with the %.1f KiB image in it: the firmware's own "
                      "%d KiB with its code run in place from a board's ROMFS"
                      % (rom, size / 1024, rom - size // 1024 - emulator // 1024))
    print("firmware heap: %d KiB" % max(figures.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
