"""The board under test, its clock, and what the technician types.

Everything that happens reaches one queue: the raw input edges, which
gpiozero reports on its own threads (timestamped at once, as the service
does), and the lines the technician types, read by a thread of their own.
So a stage can wait for a press and for "s" (skip) at the same time, and
never busy-polls.

The board is the service's own (controller/hardware/boards.py), built from
the pin map: what passes here is what the game will drive and read.
`SimulatedBench` (simulated.py) is the same bench on mock pins, where the
world answers the questions itself.
"""

import queue
import sys
import threading

from controller.hardware.boards import Board
from controller.selftest.inputs import Inputs
from controller.selftest.report import asking, shown
from controller.service.daemon import monotonic_ms

ANSWERS = {"y": "yes", "yes": "yes", "n": "no", "no": "no", "s": "skip", "skip": "skip"}


class Bench:
    """The real board: the technician looks, listens, presses and answers."""

    simulated = False

    def __init__(self, pinmap, pin_factory, layout=None, out=None, read_line=None, clock=monotonic_ms):
        """`read_line()` gives the next line typed, None at the end of the input."""
        self.out = out or sys.stdout
        self.clock = clock
        self.queue = queue.SimpleQueue()
        self.board = Board(pinmap, self.post, pin_factory, layout)
        self.inputs = Inputs(self.board)
        self.reader = None
        self.ended = False     # the input has ended: every question from now on is answered "stop"
        self.read_line = read_line or (lambda: sys.stdin.readline() or None)

    def post(self, role, level):
        """Called by gpiozero for every edge, on its thread: timestamp and queue it."""
        self.queue.put(("edge", role, level, self.clock()))

    def now(self):
        return self.clock()

    def say(self, text):
        self.out.write(shown(text) + "\n")
        self.out.flush()

    # --- waiting ---------------------------------------------------------------------
    def next_event(self, deadline):
        """The next edge or typed line, or None at the deadline."""
        try:
            return self.queue.get(timeout=max(0, deadline - self.now()) / 1000)
        except queue.Empty:
            return None

    def wait(self, ms, done=None, keys=()):
        """Let up to `ms` pass, debouncing the inputs, until `done()` holds.
        Returns a line typed meanwhile that is one of `keys` (it ends the wait;
        any other is dropped: a release pulse is never cut short), or None."""
        deadline = self.now() + ms
        while not (done and done()):
            due = self.inputs.due()
            event = self.next_event(deadline if due is None else min(due, deadline))
            if event is None:
                self.inputs.recheck(self.now())
                if self.now() >= deadline:
                    return None
            elif event[0] == "key":
                self.ended = self.ended or event[1] == "stop"
                if event[1] in keys:
                    return event[1]
            else:
                self.inputs.recheck(event[3])
                self.inputs.edge(*event[1:])
        return None

    # --- the technician ----------------------------------------------------------------
    def keyboard(self):
        """Start reading typed lines onto the queue (once)."""
        if self.reader is None:
            self.reader = threading.Thread(target=self.read_keys, name="keyboard", daemon=True)
            self.reader.start()

    def read_keys(self):
        """The keyboard thread: each line typed onto the queue; "stop" at the end of the input."""
        while True:
            try:
                line = self.read_line()
            except Exception:    # no terminal to read (a closed or captured stdin): as the end of the input
                line = None
            self.queue.put(("key", "stop" if line is None else line.strip().lower()))
            if line is None:
                return

    def key(self):
        """The next line typed ("stop" at the end of the input)."""
        self.keyboard()
        while not self.ended:
            event = self.queue.get()
            if event[0] == "key":
                self.ended = event[1] == "stop"
                return event[1]
            self.inputs.recheck(event[3])
            self.inputs.edge(*event[1:])
        return "stop"

    def ask(self, question, look=None):
        """A yes/no question about what the technician sees: "yes", "no" or "skip".
        `look` is what a simulated eye would check (simulated.py); here the person does."""
        while True:
            self.out.write(asking(question, "[y/n/s]"))
            self.out.flush()
            answer = self.key()
            if answer == "stop":
                raise Stopped()
            if answer in ANSWERS:
                return ANSWERS[answer]
            self.say("  please answer y (yes), n (no) or s (skip)")

    def go_ahead(self, text):
        """Tell the technician what to do first: True to go on, False to skip."""
        self.out.write(asking(text, "[Enter: go, s: skip]"))
        self.out.flush()
        answer = self.key()
        if answer == "stop":
            raise Stopped()
        return answer not in ("s", "skip")

    def act(self, text, role, changes):
        """Ask for `changes` changes of the input `role` (a press is two)."""
        self.keyboard()
        self.say(text + "  (s + Enter: skip, n + Enter: it does nothing)")

    def close(self):
        self.board.safe()
        self.board.close()


class Stopped(Exception):
    """The technician's input ended (Ctrl-D): the self-test stops where it is."""


def typed_lines(read_line):
    """cli.main's `read_line` (input(), or a test's), as the bench reads it: None at the end."""
    def read():
        try:
            return read_line("")
        except EOFError:
            return None
    return read
