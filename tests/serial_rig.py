"""A board's end of a real pseudo-terminal, for the host's serial tests.

`Port` is a path (a symlink, as udev makes /dev/serial/by-id/...) that points
at the slave end of a pty pair in raw mode; the test writes the board's lines
into the master end and reads what the host sends. `unplug()` closes the pair
and removes the path, as pulling a Pico's USB cable does; `plug()` makes a new
pair at the same path.
"""

import os
import select
import threading
import time
import tty


class Port:
    def __init__(self, path):
        self.path = str(path)
        self.master = self.slave = None
        self.received = b""
        self.writers = []
        self.plug()

    def plug(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.symlink(os.ttyname(self.slave), self.path)

    def unplug(self):
        for writer in self.writers:
            writer.join(5)
        self.writers = []
        os.unlink(self.path)
        os.close(self.master)
        os.close(self.slave)
        self.master = self.slave = None

    def write(self, text):
        """Write in the background: a pty holds only a few KiB until the host reads them."""
        data = text.encode() if isinstance(text, str) else text
        master = self.master

        def write_all():
            sent = 0
            while sent < len(data):
                sent += os.write(master, data[sent:])
        writer = threading.Thread(target=write_all, daemon=True)
        writer.start()
        self.writers.append(writer)

    def lines(self, timeout=5.0, count=1):
        """The lines the host has sent so far, waiting up to `timeout` for `count` of them (on a
        busy machine a second line the host sends a moment after the first can come later than
        the 50 ms of quiet that end the reading)."""
        deadline = time.monotonic() + timeout
        while self.received.count(b"\n") < count:
            ready, _, _ = select.select([self.master], [], [], max(0, deadline - time.monotonic()))
            if not ready:
                break
            self.received += os.read(self.master, 65536)
        ready, _, _ = select.select([self.master], [], [], 0.05)
        while ready:
            self.received += os.read(self.master, 65536)
            ready, _, _ = select.select([self.master], [], [], 0.05)
        *done, self.received = self.received.split(b"\n")
        return [line.decode() for line in done]

    def close(self):
        if self.master is not None:
            self.unplug()
