"""`controller firmware build`: the board's files, compiled, in one folder.

The core (controller/core/) and the firmware (firmware/) are compiled with
mpy-cross into .mpy files: a board then loads bytecode instead of compiling
the source in its own small heap. `main.py` is copied as source (the board
runs only a `main.py` at boot; it is a stub that imports the compiled
modules). The pin config for the board is generated from the `[pico]` section
of the machine's pin map. The folder keeps the core's package layout
(controller/core/drnim.mpy), so the same imports work on the board.

`build.json` in the folder lists the files, the machine and the pin map the
pins came from (its absolute path): `deploy` copies exactly those files and
names that pin map, and a folder without it is never emptied by a build.

A frozen build (`--frozen`) is for boards with little heap: the same modules
as source in `frozen/`, with a MicroPython manifest that freezes them into a
MicroPython firmware built for the board (their bytecode, names and texts
then stay in flash, and take about half the heap). Only the boot stub is
copied to the board's flash; it puts the frozen modules before any older
copy the flash still holds.
"""

import hashlib
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from controller import shipped
from controller.core.protocol import PRODUCTION
from controller.cache import cache_folder, keep
from controller.firmware.tools import FIRMWARE, FirmwareError, find_tool

MANIFEST = "build.json"
# The board's pins and settings, generated from the pin map's [pico] section.
CONFIG = "board_config.py"
# Copied as source, not compiled: the board runs these by name at boot.
AS_SOURCE = ("main.py", "boot.py")
# Folders of firmware/ that stay on the host: the emulator and the board's tests.
HOST_ONLY = ("tests", "emulator")
# Each mpy-cross's `--version`, asked once (None: it says none, and its output is not kept).
VERSIONS = {}
# A frozen build: the modules to freeze, and the MicroPython manifest that freezes them.
FROZEN = "frozen"
FREEZE_MANIFEST = "manifest.py"
FREEZE_TEXT = """# %(title)s's firmware (%(mode)s mode) for `make FROZEN_MANIFEST=...` in a MicroPython
# port, such as a Pico's (written by controller firmware build --frozen; firmware/README.md):
#     make -C ports/rp2 BOARD=RPI_PICO submodules
#     make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=%(path)s
include("$(PORT_DIR)/boards/manifest.py")   # the port's own frozen modules, asyncio among them
freeze("%(frozen)s")                            # the firmware, the core and board_config, beside this file
"""
# The boot stub of a frozen build: the frozen modules first, before any
# compiled copy an earlier build left in the flash.
FROZEN_MAIN = """# The Pico runs main.py at power-up; the firmware is frozen into MicroPython itself.
import sys

sys.path.insert(0, ".frozen")
import app

app.run()
"""


def board_sources():
    """(source path, path on the board) for every file the board needs: the
    firmware's first (the files most often edited, so their mistakes show soonest), then the core."""
    sources = []
    if FIRMWARE.is_dir():
        for path in sorted(FIRMWARE.rglob("*.py")):
            relative = path.relative_to(FIRMWARE)
            if relative.parts[0] not in HOST_ONLY:
                sources.append((path, relative.as_posix()))
    sources.append((shipped.package_folder() / "__init__.py", "controller/__init__.py"))
    for path in sorted(shipped.package_folder("controller.core").glob("*.py")):
        sources.append((path, "controller/core/" + path.name))
    return sources


def compile_error(stderr, fallback):
    """mpy-cross's traceback as one line: 'file:line: message'."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    where = fallback
    for line in lines:
        found = re.match(r'File "([^"]+)", line (\d+)', line)
        if found:
            where = "%s:%s" % found.groups()
    return "%s: %s" % (where, lines[-1] if lines else "mpy-cross failed")


def module_name(name):
    """The module a file on the board holds, from its path there: controller/core/drnim.py
    is controller.core.drnim, a package's __init__.py the package."""
    dotted = name[:-3].replace("/", ".") if name.endswith(".py") else name
    return dotted[:-len(".__init__")] if dotted.endswith(".__init__") else dotted


def compile_file(mpy_cross, source, target, name):
    """Compile `source` to `target`, the board's file `name`. The source name a
    traceback shows is the module's name: a board interns it anyway when it
    imports the module, where a file name would be one more name in its table
    for every module. The bytecode carries no line numbers (mpy-cross's
    `-X no-source-lines`, what its -O3 drops): loaded from a file, each
    function's table of them is heap too, 8 % of the bytecode, 1.3 KiB of a
    board's at 32 bits; a traceback then reads File "controller.core.drnim",
    line 1 (a board's crash line names the error, never a line)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    options = ["-X", "no-source-lines", "-s", module_name(name)]
    kept = compiled_before(mpy_cross, options, Path(source).read_bytes())
    if kept is not None and kept.is_file():
        shutil.copyfile(kept, target)
        return
    result = subprocess.run([mpy_cross] + options + ["-o", str(target), str(source)], capture_output=True,
                            encoding="utf-8", errors="replace")
    if result.returncode != 0:
        raise FirmwareError("cannot compile " + compile_error(result.stderr + result.stdout, name))
    if kept is not None:
        try:
            keep(kept, target.read_bytes())
        except OSError:
            pass        # a cache that cannot be written only costs the next build its time


def compiled_before(mpy_cross, options, text):
    """Where a compiled copy of `text` is kept (compiled by this mpy-cross with these
    options), for the next build of the same source: each module takes mpy-cross a
    process of its own, and a build of unchanged sources takes no time. None when
    the mpy-cross cannot say its version (nothing is kept then)."""
    if mpy_cross not in VERSIONS:
        try:
            said = subprocess.run([mpy_cross, "--version"], capture_output=True, encoding="utf-8", errors="replace",
                                  timeout=30)
            VERSIONS[mpy_cross] = said.stdout.strip() if said.returncode == 0 and said.stdout.strip() else None
        except (OSError, subprocess.TimeoutExpired):
            VERSIONS[mpy_cross] = None
    if VERSIONS[mpy_cross] is None:
        return None
    key = hashlib.sha256("\0".join([VERSIONS[mpy_cross]] + options).encode() + b"\0" + text).hexdigest()
    return cache_folder("mpy", key[:32] + ".mpy")


def prepare_folder(out):
    """An empty folder at `out`: a previous build there is removed, anything else refused."""
    if out.exists():
        if not out.is_dir():
            raise FirmwareError("--out: %s is a file, not a folder" % out)
        if any(out.iterdir()):
            if not (out / MANIFEST).is_file():
                raise FirmwareError("--out: %s holds files that are not a firmware build; "
                                    "choose an empty or new folder" % out)
            shutil.rmtree(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FirmwareError("--out: cannot make %s: %s" % (out, error.strerror or error))


def pinmap_path(machine, pinmap=None):
    """The pin map a build of `machine` takes its pins from: `pinmap`, or the one the machine ships with."""
    from controller.hardware.pinmap import default_pinmap_path
    return Path(pinmap) if pinmap else default_pinmap_path(machine)


def pinmap_machine(pinmap, machine=None):
    """The machine the pin map at `pinmap` is for, after checking it; FirmwareError, in one line, for a map
    that cannot be used, or one of another machine than `machine` (when given: --machine)."""
    from controller.core.registry import machine_class
    from controller.hardware.pinmap import PinMapError, load_pinmap
    try:
        found = load_pinmap(pinmap)
    except PinMapError as error:
        raise FirmwareError("pin map: %s" % error)
    if machine is not None and found.machine != machine:
        raise FirmwareError('--machine %s: the pin map %s is %s\'s (machine = "%s"), not %s\'s: leave --machine '
                            'out, or give --machine %s' % (machine, pinmap, machine_class(found.machine).TITLE,
                                                            found.machine, machine_class(machine).TITLE,
                                                            found.machine))
    return found.machine


def shown_pinmap(path):
    """A pin map's path as the build and deploy lines show it: from the current folder when it is under it,
    and said to be the shipped one when it is (a build from the shipped pins is not one from a user's copy)."""
    from controller.core.registry import NAMES
    from controller.hardware.pinmap.model import default_pinmap_path, shown
    shipped_map = any(Path(path).resolve() == default_pinmap_path(name).resolve() for name in NAMES)
    return ("the shipped pin map %s" if shipped_map else "the pin map %s") % shown(path)


def built_from(folder):
    """The pin map the build in `folder` took its pins from, as build.json records it; None for a build made
    before it did, or a folder without a readable build.json (deploy says what is wrong with it)."""
    try:
        with open(Path(folder) / MANIFEST, encoding="utf-8") as f:
            found = json.load(f).get("pinmap")
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, str) else None


def pin_config(machine, mode, pinmap=None):
    """The text of the board's config module for `machine` in `mode`, from the [pico]
    section of the pin map at `pinmap` (None: the one the machine ships with)."""
    from controller.hardware.pinmap import PinMapError
    from controller.hardware.pinmap.pico import board_config
    try:
        return board_config(pinmap_path(machine, pinmap), machine, mode)
    except PinMapError as error:
        raise FirmwareError("pin map: %s" % error)


def build(machine, out, mode=PRODUCTION, frozen=False, pinmap=None):
    """Compile everything into `out` (a Path) for a board in `mode`, its pins from the
    pin map at `pinmap` (None: the shipped one); returns the files written, as paths on
    the board. `frozen`: write a frozen build instead."""
    if frozen:
        return build_frozen(machine, out, mode, pinmap)
    mpy_cross = find_tool("mpy-cross")
    config_text = pin_config(machine, mode, pinmap)
    prepare_folder(out)
    files = []
    for source, name in board_sources():
        if name in AS_SOURCE:
            shutil.copyfile(source, out / name)
            files.append(name)
            continue
        target = name[:-3] + ".mpy"
        compile_file(mpy_cross, source, out / target, name)
        files.append(target)
    with tempfile.TemporaryDirectory() as generated:
        source = Path(generated) / CONFIG
        source.write_text(config_text, encoding="utf-8")
        compile_file(mpy_cross, source, out / (CONFIG[:-3] + ".mpy"), CONFIG)
    files.append(CONFIG[:-3] + ".mpy")
    return write_manifest(out, {"machine": machine, "mode": mode, "pinmap": recorded(machine, pinmap),
                                "files": files})


def recorded(machine, pinmap):
    """The pin map's path as build.json keeps it: absolute, so that deploy names it from any folder."""
    return str(pinmap_path(machine, pinmap).resolve())


def build_frozen(machine, out, mode, pinmap=None):
    """The board's modules as source in out/frozen/, the manifest that freezes
    them and the boot stub, the only file copied to the board."""
    from controller.core.registry import machine_class
    config_text = pin_config(machine, mode, pinmap)
    prepare_folder(out)
    for source, name in board_sources():
        if name not in AS_SOURCE:
            target = out / FROZEN / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    (out / FROZEN / CONFIG).write_text(config_text, encoding="utf-8")
    title = machine_class(machine).TITLE           # "the Nimatron": "The Nimatron's firmware"
    (out / FREEZE_MANIFEST).write_text(FREEZE_TEXT % {"title": title[0].upper() + title[1:], "mode": mode,
                                                      "path": (out / FREEZE_MANIFEST).resolve(), "frozen": FROZEN},
                                         encoding="utf-8")
    (out / "main.py").write_text(FROZEN_MAIN, encoding="utf-8")
    return write_manifest(out, {"machine": machine, "mode": mode, "pinmap": recorded(machine, pinmap), "frozen": True,
                                "files": ["main.py"]})


def write_manifest(out, manifest):
    """build.json, what deploy reads; returns the files it lists."""
    with open(out / MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    return manifest["files"]
