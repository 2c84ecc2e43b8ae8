"""`controller firmware deploy --port PORT`: a build copied onto a board with mpremote.

First the board is stopped: a board in production mode runs a watchdog that
no MicroPython can stop, so from the moment mpremote stops the firmware at
the console the board has 5 s before it resets, in the middle of a copy. One
short mpremote run asks the board which MicroPython it runs (one that cannot
run the build is refused in one line, and keeps its firmware), leaves the
maintenance file in the flash and resets the board, which finds it and starts
nothing while it is there (firmware/app.py). When the port is back, a second
run leaves the file again (the firmware may have been changed by hand since),
copies the build's files (those its build.json lists, in their folders) to
the board's flash, removes the maintenance file (and the board's count of
resets in a row: RESETS_FILE) and resets the board, so it boots into the new
firmware. A copy cut short leaves the file: the board then
runs nothing of half a build until a deploy finishes. mpremote does the talking to MicroPython's raw REPL; we only say
what to copy. MicroPython imports a module's .py before its .mpy: a board
that once held the source of a module must have that .py removed (see
firmware/README.md).

A frozen build (`build --frozen`) copies only its boot stub, whose modules
must already be frozen into the board's MicroPython: deploy first asks the
board which machine its frozen board_config is for, and refuses a board
that has none or another's, which would otherwise boot into an ImportError
with no one to read it.
"""

import json
import subprocess
import time
from pathlib import Path

import serial

from controller.core.protocol import MAINTENANCE_FILE
from controller.firmware.build import FREEZE_MANIFEST, MANIFEST
from controller.firmware.link import reason
from controller.firmware.tools import FirmwareError, find_tool, no_port, opening_problem, port_there
from controller.shipped import firmware_readme

# mpremote can take this long on a slow board with a full build; more is a wedged port.
DEPLOY_TIMEOUT_S = 300
# The oldest MicroPython the firmware is made for (firmware/README.md, step 1).
OLDEST = (1, 23)
# Run on the board before a copy: which MicroPython it runs and which .mpy
# version it reads, in one line; when it can run the build (`wanted`), its
# next start is a stop (firmware/app.py). A board that cannot would boot the
# new build into "incompatible .mpy file" with nobody there to read it.
STOP_FIRMWARE = """import sys
i = sys.implementation
mpy = getattr(i, "_mpy", 0) & 255
ok = tuple(i.version[:2]) >= %(oldest)r and %(wanted)s
if ok:
    open(%(stop)r, "w").close()
print("micropython", "%%d.%%d.%%d" %% i.version[:3], "mpy", mpy, "stopped" if ok else "refused")
"""
# The board's count of its resets in a row: firmware/app.py's CrashGuard keeps it in `resets`
# beside the saved game (SAVE_PATH, /game.json), counts every start after a watchdog reset, and
# holds the board safe at its LIMIT. On a Pico machine.reset(), which ends every deploy, is such a
# start too: a deploy's reset is the host's choice, not a crash, so CLEAR_STOP forgets the count
# (the deploy's own reset then counts one, which a minute's play forgets).
RESETS_FILE = "/resets"
# Run before the copy, and after it: the board starts nothing while the file is there.
SET_STOP = "open(%r, 'w').close()" % MAINTENANCE_FILE
CLEAR_STOP = ("import os\nfor name in (%r, %r):\n    try:\n        os.remove(name)\n    except OSError:\n"
              "        pass" % (RESETS_FILE, MAINTENANCE_FILE))
# mpremote's reset comes 100 ms after it returns; a board's USB port is back within a few seconds.
RESET_S = 1.0
PORT_BACK_S = 20


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
        with open(path, encoding="utf-8") as f:
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
    """mpremote's arguments after the port: leave the maintenance file (again: the
    board's firmware may have been replaced by hand since), copy each top-level file
    or folder of the build, take the maintenance file away, then reset the board. A
    copy cut short (a cable pulled, the power gone) leaves the file, and the board
    starts nothing of half a build until a deploy finishes."""
    tops = []
    for name in files:
        top = name.split("/")[0]
        if top not in tops:
            tops.append(top)
    return ["exec", SET_STOP, "+", "fs", "cp", "-r"] + tops + [":", "+", "exec", CLEAR_STOP, "+", "reset"]


def mpremote(port, arguments, folder, doing):
    """mpremote's output for `arguments` on the board on `port`; FirmwareError saying
    in one line what it could not do (`doing`, such as "copy the build to")."""
    command = [find_tool("mpremote"), "connect", port] + arguments
    try:
        result = subprocess.run(command, cwd=folder, capture_output=True, encoding="utf-8", errors="replace",
                                timeout=DEPLOY_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise FirmwareError("mpremote did not finish within %d s on %s: unplug the board, plug it in and try again"
                            % (DEPLOY_TIMEOUT_S, port))
    if result.returncode != 0:
        if not port_there(port):        # mpremote would say "(it may be in use by another program)"
            raise no_port(port)
        # its error is on stderr; what it printed before it (b'' from a silent port) is not the reason
        said = [line.strip() for line in result.stderr.splitlines() if line.strip()] or \
            [line.strip() for line in result.stdout.splitlines() if line.strip()]
        if said and "failed to access" in said[-1]:     # mpremote's words for any port it cannot open
            problem = opening_problem(port)
            if problem:
                raise problem
        if said and said[-1].endswith("could not enter raw repl"):
            raise FirmwareError("nothing on %s answered as a MicroPython board does (mpremote could not enter its "
                                "REPL): is the Pico on this port, with MicroPython on it? (%s, step 1)"
                                % (port, firmware_readme()))
        raise FirmwareError("mpremote could not %s %s: %s"
                            % (doing, port, said[-1] if said else "exit status %d" % result.returncode))
    return result.stdout


def wait_for_port(port):
    """Wait, after a reset, until the port on `port` opens again; FirmwareError after PORT_BACK_S."""
    time.sleep(RESET_S)
    deadline = time.monotonic() + PORT_BACK_S
    while True:
        try:
            serial.Serial(port).close()
            return
        except (serial.SerialException, OSError) as error:
            if time.monotonic() >= deadline:
                raise FirmwareError("the board on %s did not come back within %d s of its reset (%s): unplug it, "
                                    "plug it in and deploy again" % (port, PORT_BACK_S, reason(error)))
        time.sleep(0.2)


def stop_script(mpy_version):
    """STOP_FIRMWARE for a build of .mpy files of `mpy_version`, or of none (None: a frozen build)."""
    wanted = "True" if mpy_version is None else "mpy == %d" % mpy_version
    return STOP_FIRMWARE % {"oldest": OLDEST, "wanted": wanted, "stop": MAINTENANCE_FILE}


def bytecode_version(folder, files):
    """The .mpy version of the build's compiled files (the second byte of each), or None when it has none."""
    for name in files:
        if name.endswith(".mpy"):
            with open(Path(folder) / name, "rb") as f:
                header = f.read(2)
            return header[1] if len(header) == 2 else None
    return None


def stop(port, folder, mpy_version):
    """Stop the board for the copy (see STOP_FIRMWARE), or refuse a board that cannot run the build."""
    said = mpremote(port, ["exec", stop_script(mpy_version), "+", "reset"], folder, "stop the firmware on")
    answer = [line.split() for line in said.splitlines() if line.startswith("micropython ")]
    if not answer or len(answer[-1]) != 5:
        raise FirmwareError("could not tell which MicroPython the board on %s runs: is it a MicroPython board? "
                            "(mpremote said %r)" % (port, said.strip()[-200:]))
    _, version, _, reads, how = answer[-1]
    if how != "stopped":
        needs = "MicroPython %d.%d or newer" % OLDEST
        if mpy_version is not None:
            needs += ", reading .mpy version %d" % mpy_version
        raise FirmwareError("the board on %s runs MicroPython %s, reading .mpy version %s: this build needs %s; "
                            "flash a newer MicroPython first (%s, step 1)"
                            % (port, version, reads, needs, firmware_readme()))


def deploy(port, folder):
    """Copy the build in `folder` to the board on `port`; returns (the machine it
    is for, whether it is a frozen build)."""
    machine, files, frozen = read_manifest(folder)
    if frozen:
        said = mpremote(port, ["exec", FROZEN_CHECK], folder, "ask what is frozen on").split()
        found = said[-1] if said else "none"
        if found != machine:
            raise FirmwareError("the MicroPython on %s has %s frozen in, not this %s build: build MicroPython with "
                                "FROZEN_MANIFEST=%s and flash it first (%s)"
                                % (port, "no firmware" if found == "none" else "the %s firmware" % found, machine,
                                   (Path(folder) / FREEZE_MANIFEST).resolve(), firmware_readme()))
    stop(port, folder, None if frozen else bytecode_version(folder, files))
    wait_for_port(port)
    mpremote(port, mpremote_arguments(files), folder, "copy the build to")
    return machine, frozen
