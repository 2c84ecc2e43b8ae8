"""`controller firmware deploy --port PORT`: a build copied onto a board with mpremote.

One mpremote run copies the build's files (those its build.json lists, in
their folders) to the board's flash and resets the board, so it boots into the
new firmware. mpremote does the talking to MicroPython's raw REPL; we only say
what to copy. MicroPython imports a module's .py before its .mpy: a board that
once held the source of a module must have that .py removed (see
firmware/README.md).
"""

import json
import subprocess
from pathlib import Path

from controller.firmware.build import MANIFEST
from controller.firmware.tools import FirmwareError, find_tool

# mpremote can take this long on a slow board with a full build; more is a wedged port.
DEPLOY_TIMEOUT_S = 300


def read_manifest(folder):
    path = Path(folder) / MANIFEST
    try:
        with open(path) as f:
            manifest = json.load(f)
        files = manifest["files"]
        machine = manifest["machine"]
    except OSError:
        raise FirmwareError("%s is not a firmware build (no %s): run controller firmware build first"
                            % (folder, MANIFEST))
    except (ValueError, KeyError, TypeError):
        raise FirmwareError("%s is damaged: build again" % path)
    missing = [name for name in files if not (Path(folder) / name).is_file()]
    if missing:
        raise FirmwareError("%s: %s is missing: build again" % (folder, missing[0]))
    return machine, files


def mpremote_arguments(port, files):
    """mpremote's arguments: copy each top-level file or folder of the build to the board, then reset it."""
    tops = []
    for name in files:
        top = name.split("/")[0]
        if top not in tops:
            tops.append(top)
    return ["connect", port, "fs", "cp", "-r"] + tops + [":", "+", "reset"]


def deploy(port, folder):
    """Copy the build in `folder` to the board on `port`; returns the machine it is for."""
    machine, files = read_manifest(folder)
    command = [find_tool("mpremote")] + mpremote_arguments(port, files)
    try:
        result = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=DEPLOY_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise FirmwareError("mpremote did not finish within %d s on %s: unplug the board, plug it in and try again"
                            % (DEPLOY_TIMEOUT_S, port))
    if result.returncode != 0:
        said = [line.strip() for line in (result.stderr + result.stdout).splitlines() if line.strip()]
        raise FirmwareError("mpremote could not copy the build to %s: %s"
                            % (port, said[-1] if said else "exit status %d" % result.returncode))
    return machine
