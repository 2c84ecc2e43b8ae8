"""A pin of the map that something else holds, named with its role: gpiozero's own errors name
neither the role nor, with lgpio ("GPIO busy"), the pin. Without gpiozero, so that the commands
that only word its line (the self-test's guard) need not load it."""

from contextlib import contextmanager


class PinHeld(RuntimeError):
    """A pin of the map that something else holds: another program (gpiozero's GPIOPinInUse within
    one process, lgpio's "GPIO busy" across processes) or a kernel driver that a HAT's or a fan's
    dtoverlay started. Names the role and its pins, which neither error does."""

    def __init__(self, role, pins, error):
        self.role = role
        self.pins = pins
        self.why = str(error).splitlines()[0] if str(error) else type(error).__name__
        super().__init__("the pin map's %s (%s) is held by another program or a driver [%s]"
                         % (role, self.bcm(), self.why))

    def bcm(self):
        return "BCM " + ", ".join(str(pin) for pin in self.pins)


def held_elsewhere(error):
    """True when `error`, raised opening a device, says that something else has its pin."""
    return isinstance(error, PinHeld) or type(error).__name__ == "GPIOPinInUse" or "busy" in str(error).lower()


@contextmanager
def opening(role, pins):
    """Around the opening of `role`'s device on `pins`: a pin held elsewhere is PinHeld."""
    try:
        yield
    except Exception as error:
        if held_elsewhere(error) and not isinstance(error, PinHeld):
            raise PinHeld(role, pins, error) from error
        raise
