"""gpiozero's lgpio pins, as the service needs them on every Pi and on a Pi 5 above all
(lgpio is the only backend there: RPi.GPIO and pigpio cannot reach its RP1 chip).

Two things gpiozero 2.0.1 gets wrong here, which this factory does right:

- Which /dev/gpiochipN is the 40-pin header. On a Pi 1-4 it is gpiochip0. On a Pi 5 it has been
  gpiochip4 (the first kernels), gpiochip0 (from 6.6.45, Raspberry Pi OS linking gpiochip4 to it)
  and, on some later kernels, neither: gpiozero guesses 4 or 0 and finds no chip. The kernel says
  which it is: the chip whose device-tree node is the header's GPIO controller.
- A PWM duty cycle rounded down to a whole percent, in 0.2 ms steps of a servo's 20 ms frame: an
  SG90 (0.5-2.4 ms) moves in steps of 19°, so the printed gate's 5° and 16° came out as -4.7° and
  14.2°, the closed gate pushed past its slot. lgpio itself times a duty cycle to the microsecond
  (lgTxPwm), so it gets the duty as it is.

Both are software: lgpio times every PWM pulse in a thread of its own, on whatever pin, and
never uses the Pi's PWM hardware (not on BCM 18 either).
"""

import os
import re

import lgpio
from gpiozero.exc import PinInvalidState
from gpiozero.pins import lgpio as gpiozero_lgpio

# Where the kernel lists its GPIO chips, by the N of /dev/gpiochipN.
SYS_GPIO = "/sys/bus/gpio/devices"
# The device-tree `compatible` of the controller behind the header: the Pi 5's RP1, the Pi 4's
# BCM2711, the BCM2835 of the Pi 1-3 and Zeros (the Pi 4's node names both of its own).
HEADER_CONTROLLERS = frozenset((b"raspberrypi,rp1-gpio", b"brcm,bcm2711-gpio", b"brcm,bcm2835-gpio"))


def header_chip():
    """The N of the /dev/gpiochipN that drives the 40-pin header, or None where the kernel does
    not say (no device tree: gpiozero's own guess then)."""
    try:
        names = os.listdir(SYS_GPIO)
    except OSError:
        return None
    for name in sorted(names, key=lambda name: (len(name), name)):
        if not re.fullmatch(r"gpiochip\d+", name):
            continue
        try:
            with open(os.path.join(SYS_GPIO, name, "of_node", "compatible"), "rb") as node:
                compatible = set(node.read().split(b"\0"))
        except OSError:
            continue
        if compatible & HEADER_CONTROLLERS:
            return int(name[len("gpiochip"):])
    return None


class LGPIOPin(gpiozero_lgpio.LGPIOPin):
    """gpiozero's lgpio pin, with its PWM duty cycle given to lgpio unrounded."""

    def _set_state(self, value):
        if not self._pwm:
            super()._set_state(value)
            return
        frequency = self._pwm[0]
        try:
            lgpio.tx_pwm(self.factory._handle, self._number, frequency, value * 100)
        except lgpio.error:
            raise PinInvalidState('invalid state "%s" for pin %r' % (value, self))
        self._pwm = (frequency, value * 100)


class LGPIOFactory(gpiozero_lgpio.LGPIOFactory):
    """gpiozero's lgpio factory on the header's own chip (`chip`: another one), with LGPIOPin."""

    def __init__(self, chip=None):
        super().__init__(chip=header_chip() if chip is None else chip)
        self.pin_class = LGPIOPin
