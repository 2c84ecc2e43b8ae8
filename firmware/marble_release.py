"""Dr. Nim's marble release: a solenoid pulsed, or a servo gate opened, for one marble."""

from machine import Timer

from drivers import Level, Output, start_timer


class Release(Output):
    """The marble release: a solenoid pulsed for `pulse_ms`, or a servo gate opened for as long.

    A one-shot timer shuts it, in the timer's interrupt: a line written to a host
    that has stopped reading, a flash write or a long turn of the loop cannot
    hold it open long enough to let a second marble through. The loop's `due`
    shuts it too, where a port's timer cannot interrupt (the emulated board on
    the host's clock)."""

    def __init__(self, kind, pins, active_high, options, pulse_ms, wake):
        self.pulse_ms = pulse_ms
        self.wake = wake
        self.timer = Timer(-1)
        self.shut = self.timed_out      # bound once: the interrupt allocates nothing
        if kind == "servo":
            from servo import Servo
            self.servo = Servo(pins[0], {"closed": options[0], "open": options[1]})
            self.servo.move("closed")
        else:
            self.servo = None
            self.level = Level(pins[0], active_high)

    def carry_out(self, now):
        self.due_at = now + self.pulse_ms
        if self.servo:
            self.servo.move("open")
        else:
            self.level.set(True)
        start_timer(self.timer, self.pulse_ms, self.shut)

    def timed_out(self, timer):
        if self.due_at is not None:
            self.off()
            self.wake()     # a save that waited for the release to shut can be made now

    def due(self, now):
        at = self.due_at    # read once: the timer's interrupt may shut the release between two reads
        if at is not None and now >= at:
            self.off()

    def off(self):
        self.due_at = None
        if self.servo:
            self.servo.move("closed")
        else:
            self.level.set(False)
