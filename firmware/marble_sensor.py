"""Dr. Nim's marble sensor, loaded only on a board that has one (a Nimatron
has none): counted by a hard Pin.irq handler that only bumps a counter and
sets the loop's flag, so no falling marble is missed however busy the loop
is, and nothing is allocated in the interrupt."""

from machine import disable_irq, enable_irq

from drivers import EDGES, input_pin, watch


class MarbleSensor:
    """The gate's beam: the interrupt sees both edges and counts a marble
    when the beam comes back after being broken at least `min_pulse_ms`
    (a marble breaks it for 10-20 ms; the spike the solenoid puts on the line
    lasts microseconds: no marble), and no sooner than `debounce_ms` after the
    last one; it sets `flag`, and the loop takes the count.

    The interrupt keeps its times as `ticks_ms`, which wrap: `ticks_diff` is
    right only for times less than 2**29 ms (6.2 days) apart. So `take`, which
    the loop calls at least every few seconds, forgets the last marble once it
    is older than `debounce_ms`, and a break once it has lasted `min_pulse_ms`:
    a sensor idle for a week would otherwise take its next marble for a
    bounce of the last one, and every one after it.

    The interrupt is hard: it runs at the edge itself. A soft one runs when
    the loop next looks, and reads the beam as it is by then; a marble that
    went by in the meantime was never there. On a port without hard pin
    interrupts (the ESP32's) the soft one is all there is.

    A flash write holds every interrupt for tens of ms (an RP2040 cannot
    run from flash while it writes it), and the second marble of a double
    drop falls past the beam just as the first one's count is saved. The
    pin keeps both edges, and the handler runs once after the write with
    both in its flags and the beam clear: the runner sets `flash_writing`
    around each save so the handler knows a whole marble went by. Both edges
    at once with no write under way are a spike."""

    def __init__(self, spec, wake, ticks_ms, ticks_diff):
        role, number, pull, self.active_high, self.debounce_ms, self.min_pulse_ms = spec
        self.wake = wake
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        self.count = 0
        self.taken = 0
        self.last = None
        self.broken_at = None
        self.long_enough = False    # the beam has been broken min_pulse_ms: a marble when it clears
        self.flash_writing = False
        self.pin = input_pin(number, pull)
        self.irq, self.hard = watch(self.pin, self.seen)

    def seen(self, pin):
        now = self.ticks_ms()
        if pin.value() == self.active_high:
            if self.last is None or self.ticks_diff(now, self.last) >= self.debounce_ms:
                self.broken_at = now
        elif self.broken_at is not None:
            if self.long_enough or self.ticks_diff(now, self.broken_at) >= self.min_pulse_ms:
                self.counted(now)
            self.broken_at = None
            self.long_enough = False
        elif self.flash_writing and self.hard and self.irq.flags() == EDGES:
            self.counted(now)

    def counted(self, now):
        self.last = now
        self.count += 1
        self.wake()

    def take(self):
        """Marbles seen since the last take; the interrupt's old times forgotten."""
        seen = self.count - self.taken
        self.taken += seen
        now = self.ticks_ms()
        held = disable_irq()
        if self.last is not None and self.ticks_diff(now, self.last) >= self.debounce_ms:
            self.last = None
        if self.broken_at is not None and self.ticks_diff(now, self.broken_at) >= self.min_pulse_ms:
            self.long_enough = True
        enable_irq(held)
        return seen
