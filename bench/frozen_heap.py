"""The smallest heap in which the firmware plays a complete game when it is
frozen into MicroPython itself, as `controller firmware build --frozen` lets
a builder do for a board with little heap.

Freezing needs MicroPython's source (its unix port is built here with the
firmware frozen in), which no package registry carries: give a checkout of
github.com/micropython/micropython (no submodules needed), the version of the
test extra's `micropython` or near it. Without one the script says so and
stops.

For each word size (64-bit, and 32-bit, a Pico's, when gcc can build with
-m32) and each machine, the unix port is built with the frozen build's
modules (development mode, for the emulated board) and MicroPython's asyncio
frozen in, from `controller firmware build --frozen`'s folder: the same
modules its manifest.py freezes for a board, under a manifest for the unix
port (which has no boards/manifest.py to include). Then the emulated game of
bench/firmware_heap.py is bisected with only the compiled emulator on the
path, and the emulator's share taken out the same way; so is a board back
from a power cut, resuming its saved game. The builds are kept in
build/micropython/ so a second run only rebuilds what changed.

Usage: python bench/frozen_heap.py MICROPYTHON_SOURCE
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import firmware_heap as bench  # noqa: E402
from controller.core.registry import NAMES  # noqa: E402
from controller.firmware.build import FROZEN, build  # noqa: E402

BUILDS = ROOT / "build" / "micropython"
UNIX_MANIFEST = """freeze(%r)
include("$(MPY_DIR)/extmod/asyncio")
"""
FLAGS = ["MICROPY_PY_FFI=0", "MICROPY_PY_SSL=0", "MICROPY_PY_BTREE=0", "MICROPY_USE_READLINE=0"]


def word_sizes():
    """64, and 32 when this gcc builds and runs 32-bit programs (gcc-multilib)."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "m32.c"
        source.write_text("int main(void) { return sizeof(void *) == 4 ? 0 : 1; }\n")
        made = subprocess.run(["gcc", "-m32", "-o", str(Path(folder) / "m32"), str(source)], capture_output=True)
        runs = made.returncode == 0 and subprocess.run([str(Path(folder) / "m32")]).returncode == 0
    return (64, 32) if runs else (64,)


def make(arguments, log):
    with open(log, "w") as f:
        f.write(" ".join(arguments) + "\n")
        f.flush()
        if subprocess.run(arguments, stdout=f, stderr=subprocess.STDOUT).returncode != 0:
            raise SystemExit("frozen_heap: the build failed; see %s" % log)


def frozen_micropython(source, machine, bits, frozen, stub):
    """The unix port built with `frozen` (a folder of modules) frozen in."""
    folder = BUILDS / ("frozen-%s-%d" % (machine, bits))
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / "manifest.py"
    manifest.write_text(UNIX_MANIFEST % str(frozen))
    # makemanifest compiles a frozen module again only when its source is newer than the last
    # compiled copy; a rebuilt frozen folder can be older, so the compiled copies go first.
    shutil.rmtree(folder / "frozen_mpy", ignore_errors=True)
    arguments = ["make", "-C", str(source / "ports" / "unix"), "BUILD=%s" % folder, "FROZEN_MANIFEST=%s" % manifest,
                 "MPY_LIB_DIR=%s" % stub, "-j%d" % (os.cpu_count() or 1)] + FLAGS
    if bits == 32:
        arguments += ["CFLAGS_EXTRA=-m32", "LDFLAGS_EXTRA=-m32"]
    make(arguments, folder.with_suffix(".log"))
    return folder / "micropython"


def measure(source, machine, bits, stub):
    """The firmware's own heap, KiB, for a fresh game and one back from a power cut, frozen."""
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder)
        build(machine, run / "build", mode="development", frozen=True)
        micropython = str(frozen_micropython(source, machine, bits, run / "build" / FROZEN, stub))
        bench.compile_emulator(run)
        # the board's modules can only come from .frozen
        setup = bench.Setup(micropython, run, ".frozen:emulator")
        fresh, resumed, share, costs, emulator = bench.figures(setup, machine)
        own = (fresh - share // 1024, resumed - share // 1024)
        print("%s, %d-bit, frozen: a complete game in %d KiB of heap, back from a power cut %d KiB; less the "
              "emulator's %s (%.1f KiB): the firmware's own %d and %d KiB"
              % (machine, bits, fresh, resumed, ", ".join(emulator), share / 1024, own[0], own[1]), flush=True)
        return max(own)


def main():
    if len(sys.argv) != 2:
        print("frozen firmware heap: skipped (give a MicroPython source checkout: python bench/frozen_heap.py PATH)")
        return 0
    source = Path(sys.argv[1]).resolve()
    if not (source / "ports" / "unix" / "Makefile").is_file():
        raise SystemExit("frozen_heap: %s is not a MicroPython source checkout (no ports/unix/Makefile)" % source)
    BUILDS.mkdir(parents=True, exist_ok=True)
    make(["make", "-C", str(source / "mpy-cross"), "-j%d" % (os.cpu_count() or 1)], BUILDS / "mpy-cross.log")
    figures = []
    with tempfile.TemporaryDirectory() as stub:   # micropython-lib: the build checks for its README, uses nothing
        (Path(stub) / "README.md").write_text("Nothing from micropython-lib is frozen.\n")
        for bits in word_sizes():
            own = max(measure(source, machine, bits, stub) for machine in NAMES)
            figures.append("%d KiB at %d-bit" % (own, bits))
    print("frozen firmware heap: " + ", ".join(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
