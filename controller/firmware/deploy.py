"""`controller firmware deploy --port PORT`: a build copied onto a board with mpremote.

One mpremote run copies the build's files (those its build.json lists, in
their folders) to the board's flash and resets the board, so it boots into the
new firmware. mpremote does the talking to MicroPython's raw REPL; we only say
what to copy. MicroPython imports a module's .py before its .mpy: a board that
once held the source of a module must have that .py removed (see
firmware/README.md).

A frozen build (`build --frozen`) copies only its boot stub, whose modules
must already be frozen into the board's MicroPython: deploy first asks the
board which machine its frozen board_config is for, and refuses a board
that has none or another's, which would otherwise boot into an ImportError
with no one to read it.
"""

import json
import subprocess
from pathlib import Path

from controller.firmware.build import FREEZE_MANIFEST, MANIFEST
from controller.firmware.tools import FirmwareError, find_tool

# mpremote can take this long on a slow board with a full build; more is a wedged port.
DEPLOY_TIMEOUT_S = 300


# Run on the board by a frozen build's deploy: the machine of its frozen board_config, or "none".
FROZEN_CHECK = """import sys
sys.path[:] = [".frozen"]
try:
    import board_config
    print(board_config.MACHINE)
except ImportError:
    print("none")
"""


def read_manifest(folder):
    """(machine, files, frozen) of the build in `folder`."""
    path = Path(folder) / MANIFEST
    try:
        with open(path) as f:
            manifest = json.load(f)
        files = manifest["files"]
        machine = manifest["machine"]
        frozen = manifest.get("frozen", False)
    except OSError:
        raise FirmwareError("%s is not a firmware build (no %s): run controller firmware build first"
                            % (folder, MANIFEST))
    except (ValueError, KeyError, TypeError):
        raise FirmwareError("%s is damaged: build again" % path)
    missing = [name for name in files if not (Path(folder) / name).is_file()]
    if missing:
        raise FirmwareError("%s: %s is missing: build again" % (folder, missing[0]))
    return machine, files, frozen


def mpremote_arguments(files):
    """mpremote's arguments after the port: copy each top-level file or folder of the build, then reset the board."""
    tops = []
    for name in files:
        top = name.split("/")[0]
        if top not in tops:
            tops.append(top)
    return ["fs", "cp", "-r"] + tops + [":", "+", "reset"]


def mpremote(port, arguments, folder, doing):
    """mpremote's output for `arguments` on the board on `port`; FirmwareError saying
    in one line what it could not do (`doing`, such as "copy the build to")."""
    command = [find_tool("mpremote"), "connect", port] + arguments
    try:
        result = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=DEPLOY_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise FirmwareError("mpremote did not finish within %d s on %s: unplug the board, plug it in and try again"
                            % (DEPLOY_TIMEOUT_S, port))
    if result.returncode != 0:
        said = [line.strip() for line in (result.stderr + result.stdout).splitlines() if line.strip()]
        raise FirmwareError("mpremote could not %s %s: %s"
                            % (doing, port, said[-1] if said else "exit status %d" % result.returncode))
    return result.stdout


def deploy(port, folder):
    """Copy the build in `folder` to the board on `port`; returns (the machine it
    is for, whether it is a frozen build)."""
    machine, files, frozen = read_manifest(folder)
    if frozen:
        said = mpremote(port, ["exec", FROZEN_CHECK], folder, "ask what is frozen on").split()
        found = said[-1] if said else "none"
        if found != machine:
            raise FirmwareError("the MicroPython on %s has %s frozen in, not this %s build: build MicroPython with "
                                "FROZEN_MANIFEST=%s and flash it first (firmware/README.md)"
                                % (port, "no firmware" if found == "none" else "the %s firmware" % found, machine,
                                   (Path(folder) / FREEZE_MANIFEST).resolve()))
    mpremote(port, mpremote_arguments(files), folder, "copy the build to")
    return machine, frozen
