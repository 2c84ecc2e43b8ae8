"""Debouncing, ours and clock-injected.

gpiozero's `bounce_time` behaves differently on each pin backend and
`MockPin` ignores it, so every edge reaches us raw and is filtered here, in
the controller thread, with times passed in: the same code and the same
result on a Pi, in a test, in the simulator and on the Pico firmware (it is
core code: pure, in the MicroPython subset).

Leading edge: the first change is accepted at once (a press feels
immediate), then the input is locked for `debounce_ms`; at the end of the
lock the real pin level is read again, so a tap shorter than the lock, or a
bounce that ends on the other level, is not lost.
"""


class Debouncer:
    """One input's accepted level, from raw edges."""

    def __init__(self, debounce_ms, level=False):
        self.debounce_ms = debounce_ms
        self.level = level
        self.locked_until = None

    def edge(self, level, now):
        """A raw edge at `now` (ms); returns the newly accepted level, or None."""
        if self.locked_until is not None and now < self.locked_until:
            return None
        if level == self.level:
            return None
        return self.accept(level, now)

    def accept(self, level, now):
        self.level = level
        self.locked_until = now + self.debounce_ms
        return level

    def due(self):
        """When the lock ends and the pin must be read again, or None."""
        return self.locked_until

    def recheck(self, level, now):
        """At the end of the lock: the pin's real level, accepted if it moved."""
        if self.locked_until is None or now < self.locked_until:
            return None
        self.locked_until = None
        if level == self.level:
            return None
        return self.accept(level, now)
