"""Debouncing and the marble sensor's pulse filter, ours and clock-injected.

gpiozero's `bounce_time` behaves differently on each pin backend and
`MockPin` ignores it, so every edge reaches us raw and is filtered here, in
the controller thread, with times passed in: the same code and the same
result on a Pi, in a test, in the simulator and on the Pico firmware (it is
core code: pure, in the MicroPython subset).

Leading edge: the first change is accepted at once (a press feels
immediate), then the input is locked for `debounce_ms`; at the end of the
lock the real pin level is read again, so a tap shorter than the lock, or a
bounce that ends on the other level, is not lost.

Pulse filter (`min_pulse_ms`): a change counts only once the line has held
it that long. A marble breaks the beam for 10-20 ms and a visitor holds a
button for 50 ms or more; the spike that a solenoid switching 1 A puts on a
long wire lasts microseconds and, without the filter, would be counted as a
marble or a press.
"""

# A marble at the gate breaks the beam for 10-20 ms; a spike lasts microseconds.
MIN_PULSE_MS = 2
# A press or a flip lasts 50 ms or more: 1 ms costs the visitor nothing.
BUTTON_MIN_PULSE_MS = 1


class Debouncer:
    """One input's accepted level, from raw edges."""

    def __init__(self, debounce_ms, level=False, min_pulse_ms=0):
        self.debounce_ms = debounce_ms
        self.min_pulse_ms = min_pulse_ms
        self.level = level
        self.locked_until = None
        self.pending = level
        self.pending_until = None    # a change waiting to show it is no spike

    def edge(self, level, now):
        """A raw edge at `now` (ms); returns the newly accepted level, or None."""
        if self.pending_until is not None:
            if now >= self.pending_until:
                # the change held until this (late) edge: it counts, and the
                # lock's end reads the pin again for this edge
                return self.confirm()
            if level == self.level:
                self.pending_until = None    # back before min_pulse_ms: a spike
            return None
        if self.locked_until is not None and now < self.locked_until:
            return None
        if level == self.level:
            return None
        return self.change(level, now)

    def change(self, level, now):
        """The line moved: accepted at once, or once it has held for min_pulse_ms."""
        if self.min_pulse_ms <= 0:
            return self.accept(level, now)
        self.pending = level
        self.pending_until = now + self.min_pulse_ms
        return None

    def confirm(self):
        """The pending change held for min_pulse_ms (no edge took it back): accepted."""
        return self.accept(self.pending, self.pending_until)

    def accept(self, level, now):
        self.level = level
        self.locked_until = now + self.debounce_ms
        self.pending_until = None
        return level

    def due(self):
        """When the pin must be read again (the end of a lock or of a pulse's wait), or None."""
        return self.pending_until if self.pending_until is not None else self.locked_until

    def recheck(self, level, now):
        """When due: a pending change that no edge took back is accepted; at the
        end of a lock, the pin's real level is accepted if it moved (through
        the pulse filter)."""
        due = self.due()
        if due is None or now < due:
            return None
        if self.pending_until is not None:
            return self.confirm()
        self.locked_until = None
        if level == self.level:
            return None
        return self.change(level, now)

    def reset(self, level):
        """Take `level` as the accepted one, with nothing under way (an input that calmed down)."""
        self.level = level
        self.locked_until = None
        self.pending_until = None
