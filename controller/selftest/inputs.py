"""Every input of the board, debounced by the service's own rule.

The self-test shows what a technician's press did: the raw edges gpiozero
reported (a bouncing contact gives many) against the changes the debouncer
accepted (what the game would see). Both counts are kept per input, so a
stage can tell "pressed 3 times, read 3 times" from "read twice".
"""

from controller.core.debounce import Debouncer


class InputWatch:
    """One input: its debouncer, the raw edges seen and the changes accepted."""

    def __init__(self, spec, level):
        self.spec = spec
        self.debouncer = Debouncer(spec.debounce_ms, level, spec.min_pulse_ms)
        self.raw = 0
        self.changes = []      # (level, when the line moved, in ms)

    @property
    def level(self):
        return self.debouncer.level

    @property
    def presses(self):
        """How many times the input was accepted as going active."""
        return sum(1 for level, _ in self.changes if level)

    def clear(self):
        self.raw = 0
        self.changes = []

    def accepted(self, level):
        """Record an accepted change. The debouncer accepts it at the moment it
        locks; with a pulse filter that is `min_pulse_ms` after the line moved."""
        at = self.debouncer.locked_until - self.debouncer.debounce_ms - self.debouncer.min_pulse_ms
        self.changes.append((level, at))
        return level, at


class Inputs:
    """The watches of every input the board has; `listener(role, level, at)`
    hears each accepted change."""

    def __init__(self, board):
        self.board = board
        self.watches = dict((role, InputWatch(board.pinmap.inputs[role], board.level(role)))
                            for role in board.inputs)
        self.listener = None

    def __getitem__(self, role):
        return self.watches[role]

    def clear(self):
        for watch in self.watches.values():
            watch.clear()

    def edge(self, role, level, stamp):
        watch = self.watches[role]
        watch.raw += 1
        self.heard(role, watch.debouncer.edge(level, stamp))

    def due(self):
        """When a debouncer must read its pin again, or None."""
        times = [due for due in (w.debouncer.due() for w in self.watches.values()) if due is not None]
        return min(times) if times else None

    def recheck(self, now):
        for role, watch in self.watches.items():
            due = watch.debouncer.due()
            if due is not None and due <= now:
                self.heard(role, watch.debouncer.recheck(self.board.level(role), now))

    def heard(self, role, accepted):
        if accepted is None:
            return
        level, at = self.watches[role].accepted(accepted)
        if self.listener is not None:
            self.listener(role, level, at)
