"""Dr. Nim's two-sided controls (the flip-flops, the equalizer, the turn
switch), shown by an LED pair or moved by a servo flipper."""

from drivers import Level, Output


class Indicator(Output):
    """A two-sided control (flip-flop, equalizer, turn): an LED pair or a servo flipper."""

    def __init__(self, kind, pins, active_high, options):
        if kind == "servo":
            from servo import Servo
            self.servo = Servo(pins[0], {"left": options[0], "right": options[1]})
            self.leds = None
        else:
            self.servo = None
            self.leds = (Level(pins[0], active_high), Level(pins[1], active_high))

    def carry_out(self, now, side):
        if self.servo:
            self.servo.move(side)
        else:
            self.leds[0].set(side == "left")
            self.leds[1].set(side == "right")

    def off(self):
        if self.servo:
            self.servo.rest()
        else:
            self.leds[0].set(False)
            self.leds[1].set(False)
