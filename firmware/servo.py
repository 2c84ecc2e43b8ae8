"""A hobby servo on PWM, for a flipper indicator or a servo release gate:
loaded only on a board wired with one."""

from machine import PWM, Pin

SERVO_HZ = 50


class Servo:
    """A hobby servo on PWM at 50 Hz; `duties` maps a position to its duty_u16."""

    def __init__(self, number, duties):
        self.duties = duties
        self.pwm = PWM(Pin(number), freq=SERVO_HZ, duty_u16=0)

    def move(self, position):
        self.pwm.duty_u16(self.duties[position])

    def rest(self):
        self.pwm.duty_u16(0)
