"""The serial link to a board: JSON lines over pyserial, kept up.

A board that speaks another version of the protocol (its hello line and its
state reply say which) is reported in one line: its lines may mean something
else than this controller reads into them.

A Pico's USB serial port disappears when the board is unplugged or resets and
comes back at the same path. The link says so in one line ("the board on
/dev/ttyACM0 is gone ..."), waits for the port to come back, opens it again,
and says that too; a board that starts again (a new hello line after the
first) is reported as a reset. A port that goes again within STEADY_S of
coming back flaps (a loose cable, a board resetting over and over): the link
says so once, then nothing of its comings and goings (or the resets they
bring) until it has stayed back, or away, for STEADY_S, and then how often it
went. Nothing the port or the board does becomes a traceback: a line that is
not the protocol is reported and skipped.

The link locks the port, as mpremote does: two programs reading one port
would each get half of the bytes, so a deploy started while a monitor runs is
refused in one line, and a second monitor waits until the port is free.

`receive(timeout)` returns the next message (a dict), or None when the time
runs out; the caller's loop stays in charge of time.
"""

import errno
import os
import time

import serial

from controller.core import board_lines, protocol
from controller.core.jsontext import encode
from controller.firmware.tools import elsewhere, misnamed, not_allowed
from controller.printable import printable

BAUD = 115200
# How often a port that has gone is tried again.
RETRY_S = 0.25
# One read waits at most this long, so a deadline is kept to within it.
POLL_S = 0.05
# A port that goes again sooner than this after coming back flaps.
STEADY_S = 60
LONGEST_LINE = board_lines.MAX_BOARD_LINE


class Link:
    def __init__(self, port, report=None, clock=time.monotonic, retry_s=RETRY_S):
        self.port = port
        said = report or (lambda text: None)
        # a report may quote what the board sent (its machine, its protocol): its control characters as escapes,
        # so that something on the port can neither act on a terminal nor start a line of its own in the journal
        self.report = lambda text: said(printable(text))
        self.clock = clock
        self.retry_s = retry_s
        self.serial = None
        self.buffer = b""
        self.skipping = False  # inside a line too long to keep, until its end
        self.noisy = False     # the last line was not the protocol
        self.gone = None       # why the port went, while it is away
        self.next_try = 0.0
        self.back_at = None    # when the port last came back after it had gone
        self.changed = 0.0     # when the port last came or went
        self.flaps = 0         # its goings not said, while it flaps
        self.hello = None      # the board's last hello line
        self.protocol = None   # the protocol the board says it speaks, when it is not ours
        self.resets = 0
        self.restarting = False  # a restart the host asked for: not reported as a reset
        self.opens = 0         # how many times the port was opened
        self.sent = 0          # bytes written to the port
        self.closed = False

    # --- the port -----------------------------------------------------------------------
    def try_open(self):
        """Open the port if it is there; True when it is open."""
        self.settled()
        if self.serial is not None:
            return True
        if self.clock() < self.next_try:
            return False
        self.next_try = self.clock() + self.retry_s
        try:
            self.serial = serial.Serial(self.port, BAUD, timeout=POLL_S, write_timeout=2, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as error:
            if self.gone is None:
                self.gone = reason(error)
                refused = not_allowed(self.port, error)
                if getattr(error, "errno", None) == errno.EAGAIN:      # another program holds its lock
                    self.report("the board on %s is in use by another program (mpremote, another monitor): "
                                "waiting for it" % self.port)
                elif refused:
                    self.report("%s; waiting for it" % refused)
                else:
                    found = misnamed(self.port) or elsewhere(self.port)
                    self.report("the board on %s is not there (%s): waiting for it%s"
                                % (self.port, self.gone, " (%s)" % found if found else ""))
            return False
        self.opens += 1
        if self.gone is not None:
            if not self.flaps:
                self.report("the board on %s is back" % self.port)
            self.back_at = self.clock()
        self.changed = self.clock()
        self.gone = None
        self.buffer = b""
        self.skipping = False
        return True

    def lost(self, error):
        self.gone = reason(error)
        if not self.flaps and self.back_at is not None and self.clock() - self.back_at < STEADY_S:
            self.report("the board on %s is gone again (%s) within %d s of coming back: it is not said again "
                        "until it stays back or away %d s" % (self.port, self.gone, STEADY_S, STEADY_S))
            self.flaps = 1
        elif self.flaps:
            self.flaps += 1
        else:
            self.report("the board on %s is gone (%s): waiting for it to come back" % (self.port, self.gone))
        self.changed = self.clock()
        self.drop()

    def settled(self):
        """A port that flapped and has stayed as it is for STEADY_S: said, with how often it went."""
        if self.flaps and self.clock() - self.changed >= STEADY_S:
            now = "is back" if self.serial is not None else "is gone (%s): waiting for it to come back" % self.gone
            self.report("the board on %s %s, after going %d times in a row" % (self.port, now, self.flaps))
            self.flaps = 0

    def drop(self):
        if self.serial is not None:
            try:
                self.serial.close()
            except (serial.SerialException, OSError):
                pass
            self.serial = None
        self.next_try = self.clock() + self.retry_s

    def close(self):
        self.closed = True
        self.drop()

    # --- lines --------------------------------------------------------------------------
    def send(self, message):
        """Send one message; False when the board is not there to receive it (already reported)."""
        if not self.try_open():
            return False
        data = (encode(message) + "\n").encode()
        try:
            self.serial.write(data)
            self.serial.flush()
            self.sent += len(data)
        except (serial.SerialException, OSError) as error:
            self.lost(error)
            return False
        return True

    def receive(self, timeout):
        """The next message from the board, or None when `timeout` seconds pass without one."""
        deadline = self.clock() + timeout
        while True:
            line = self.next_line()
            if line is not None:
                message = self.decode(line)
                if message is not None:
                    return message
                continue
            remaining = deadline - self.clock()
            if remaining <= 0:
                return None
            if not self.try_open():
                time.sleep(min(remaining, self.retry_s))
                continue
            try:
                self.serial.timeout = min(remaining, POLL_S)
                data = self.serial.read(max(1, self.serial.in_waiting))
            except (serial.SerialException, OSError) as error:
                self.lost(error)
                continue
            self.buffer += data

    def next_line(self):
        """One complete line from the buffer, or None; a line over the protocol's limit is skipped."""
        while True:
            end = self.buffer.find(b"\n")
            if end < 0:
                if len(self.buffer) > LONGEST_LINE:
                    self.buffer = b""
                    if not self.skipping:
                        self.report("the board on %s sent a line over %d bytes: skipped" % (self.port, LONGEST_LINE))
                    self.skipping = True
                return None
            line, self.buffer = self.buffer[:end], self.buffer[end + 1:]
            if self.skipping:
                self.skipping = False
                continue
            return line

    def decode(self, line):
        """The message in `line`, or None for a line that is not the protocol (reported)."""
        if not line.strip():
            return None
        try:
            message = board_lines.reply(line)
        except ValueError as error:
            # one line for a run of them (a traceback, boot text): the first says what it is
            if not self.noisy:
                self.report("the board on %s sent a line that is not the protocol (%s): %s"
                            % (self.port, error, shown(line)))
            self.noisy = True
            return None
        self.noisy = False
        spoken = message.get("protocol")
        if message.get("kind") in ("hello", "state") and spoken is not None and spoken != protocol.PROTOCOL:
            if self.protocol != spoken:
                self.report("the board on %s speaks protocol %s and this controller protocol %d: deploy this "
                            "controller's firmware to it, or update the controller" % (self.port, spoken,
                                                                                        protocol.PROTOCOL))
            self.protocol = spoken
        if message.get("kind") == "hello":
            if self.hello is not None:
                self.resets += 1
            if self.hello is not None and not self.restarting and not self.flaps:
                self.report("the board on %s started again (a reset): %s" % (self.port, describe_hello(message)))
            self.hello = message
        return message


def describe_hello(hello):
    return "%s, protocol %s, %s mode" % (hello.get("machine"), hello.get("protocol"), hello.get("mode"))


def shown(line):
    """A line as it came, cut short, for a report."""
    text = line.decode("ascii", "replace").strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")


def reason(error):
    """What went wrong with the port, in a few words: the system's words for the
    error underneath (pyserial's own message repeats the path and the errno)."""
    cause = error
    while cause is not None:
        if isinstance(getattr(cause, "errno", None), int):
            return os.strerror(cause.errno)
        if len(cause.args) == 2 and isinstance(cause.args[0], int):  # termios.error: (errno, text)
            return os.strerror(cause.args[0])
        cause = cause.__cause__ or cause.__context__
    return (str(error) or type(error).__name__).strip().rstrip(".")
