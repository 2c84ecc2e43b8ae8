"""Dr. Nim's marble release: a solenoid pulsed, or a servo gate opened, for one marble."""

from drivers import Level, Output


class Release(Output):
    """The marble release: a solenoid pulsed for `pulse_ms`, or a servo gate opened for as long."""

    def __init__(self, kind, pins, active_high, options, pulse_ms):
        self.pulse_ms = pulse_ms
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

    def due(self, now):
        if self.due_at is not None and now >= self.due_at:
            self.off()

    def off(self):
        self.due_at = None
        if self.servo:
            self.servo.move("closed")
        else:
            self.level.set(False)
