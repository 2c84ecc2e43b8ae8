"""`--emulate`: the real firmware under the unix `micropython`, on a pseudo-terminal.

firmware/emulator/board.py runs the firmware (its runner, drivers and the
core, from source) on a fake `machine` module in a world of marbles. It
talks on its stdin and stdout, which here are the master end of a
pseudo-terminal pair; the slave end, in raw mode, is a serial port by path
(`port`), opened with pyserial as a Pico's /dev/ttyACM0 would be. The
board's pin config is generated from the machine's pin map (or the one
`--pinmap` names) into a folder of its own, which also holds its flash (the
saved game).
"""

import os
import subprocess
import tempfile
import tty
from pathlib import Path

from controller.core.protocol import DEVELOPMENT
from controller.firmware.tools import FIRMWARE, ROOT, FirmwareError, find_tool

ENTRY = FIRMWARE / "emulator" / "board.py"
# The emulator runs the firmware from source, so the heap holds the compiler's work
# too: the firmware's own need, compiled as on a board, is bench/firmware_heap.py's figure.
HEAP = "1m"


class Emulator:
    def __init__(self, machine, clock, heap=HEAP, pinmap=None):
        """`pinmap`: the pin map whose [pico] section wires the board (None: the machine's shipped one);
        FirmwareError, in the build's words, for one that cannot be used."""
        from controller.firmware.build import CONFIG, pin_config
        config = pin_config(machine, DEVELOPMENT, pinmap)
        micropython = find_tool("micropython")
        self.folder = tempfile.TemporaryDirectory(prefix="drnim-board-")
        folder = Path(self.folder.name)
        (folder / CONFIG).write_text(config, encoding="utf-8")
        master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo, no line editing: bytes pass as over USB
        self.port = os.ttyname(self.slave)
        self.master = master
        self.errors = open(folder / "stderr.txt", "w+b")
        self.command = [micropython, "-X", "heapsize=" + heap, str(ENTRY), "--clock", clock,
                        "--flash", str(folder / "game.json")]
        # .frozen: the modules built into the interpreter (asyncio), found first as on a board
        self.env = dict(os.environ, MICROPYPATH=os.pathsep.join(
            [".frozen", str(folder), str(ENTRY.parent), str(FIRMWARE), str(ROOT)]))
        self.process = None

    def start(self):
        """Power the board on. Open the port first: pyserial empties a port's input
        when it opens it, and the board's hello line would go with it."""
        try:
            self.process = subprocess.Popen(self.command, stdin=self.master, stdout=self.master,
                                            stderr=self.errors, cwd=self.folder.name, env=self.env)
        finally:
            os.close(self.master)

    def check(self):
        """FirmwareError when the emulated board has stopped, with the last line it wrote."""
        status = self.process.poll()
        if status is None:
            return
        self.errors.seek(0)
        said = [line.strip() for line in self.errors.read().decode(errors="replace").splitlines() if line.strip()]
        raise FirmwareError("the emulated board stopped (exit status %d)%s"
                            % (status, ": " + said[-1] if said else ""))

    def stop(self):
        if self.process is None:
            os.close(self.master)
        elif self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        os.close(self.slave)
        self.errors.close()
        self.folder.cleanup()
