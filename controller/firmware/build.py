"""`controller firmware build`: the board's files, compiled, in one folder.

The core (controller/core/) and the firmware (firmware/) are compiled with
mpy-cross into .mpy files: a board then loads bytecode instead of compiling
the source in its own small heap. `main.py` is copied as source (the board
runs only a `main.py` at boot; it is a stub that imports the compiled
modules). The pin config for the board is generated from the `[pico]` section
of the machine's pin map. The folder keeps the core's package layout
(controller/core/drnim.mpy), so the same imports work on the board.

`build.json` in the folder lists the files and the machine: `deploy` copies
exactly those, and a folder without it is never emptied by a build.
"""

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from controller.core.protocol import PRODUCTION
from controller.firmware.tools import FIRMWARE, ROOT, FirmwareError, find_tool

MANIFEST = "build.json"
# The board's pins and settings, generated from the pin map's [pico] section.
CONFIG = "board_config.py"
# Copied as source, not compiled: the board runs these by name at boot.
AS_SOURCE = ("main.py", "boot.py")
# Folders of firmware/ that stay on the host: the emulator and the board's tests.
HOST_ONLY = ("tests", "emulator")


def board_sources():
    """(source path, path on the board) for every file the board needs: the
    firmware's first (the files most often edited, so their mistakes show soonest), then the core."""
    sources = []
    if FIRMWARE.is_dir():
        for path in sorted(FIRMWARE.rglob("*.py")):
            relative = path.relative_to(FIRMWARE)
            if relative.parts[0] not in HOST_ONLY:
                sources.append((path, relative.as_posix()))
    sources.append((ROOT / "controller" / "__init__.py", "controller/__init__.py"))
    for path in sorted((ROOT / "controller" / "core").glob("*.py")):
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


def compile_file(mpy_cross, source, target, name):
    target.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([mpy_cross, "-s", name, "-o", str(target), str(source)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise FirmwareError("cannot compile " + compile_error(result.stderr + result.stdout, name))


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
    out.mkdir(parents=True, exist_ok=True)


def pin_config(machine, mode):
    """The text of the board's config module for `machine` in `mode`, from its pin map's [pico] section."""
    from controller.hardware.pinmap import PinMapError, default_pinmap_path
    from controller.hardware.pinmap.pico import board_config
    try:
        return board_config(default_pinmap_path(machine), machine, mode)
    except PinMapError as error:
        raise FirmwareError("pin map: %s" % error)


def build(machine, out, mode=PRODUCTION):
    """Compile everything into `out` (a Path) for a board in `mode`; returns the
    files written, as paths on the board."""
    mpy_cross = find_tool("mpy-cross")
    config_text = pin_config(machine, mode)
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
        source.write_text(config_text)
        compile_file(mpy_cross, source, out / (CONFIG[:-3] + ".mpy"), CONFIG)
    files.append(CONFIG[:-3] + ".mpy")
    with open(out / MANIFEST, "w") as f:
        json.dump({"machine": machine, "mode": mode, "files": files}, f, indent=1)
    return files
