"""The replicas' devices, composed from gpiozero's in gpiozero's own style:
each takes `pin_factory=`, has domain names, `close()`, context-manager use
and a `repr` that shows its pins and state.

gpiozero has no 74HC595 driver, so `ShiftRegister` drives one on three
`DigitalOutputDevice`s; `LampPanel` lights the Nimatron's rows on it.
"""

from gpiozero import AngularServo, CompositeDevice, DigitalInputDevice, DigitalOutputDevice, LED

from controller.hardware.pinmap.model import display_registers
from controller.hardware.pins_held import opening

LEFT = "left"
RIGHT = "right"


def output(spec, name="pin", pin_factory=None):
    """A plain on/off output for a spec's pin."""
    return DigitalOutputDevice(spec.pins[name], active_high=spec.active != "low", pin_factory=pin_factory)


class LedPairIndicator(CompositeDevice):
    """A two-sided control shown by two LEDs: one lit on the side it points to."""

    def __init__(self, left, right, *, active_high=True, pin_factory=None):
        super().__init__(left=LED(left, active_high=active_high, pin_factory=pin_factory),
                         right=LED(right, active_high=active_high, pin_factory=pin_factory),
                         _order=("left", "right"), pin_factory=pin_factory)

    def show(self, side):
        (self.left.on if side == LEFT else self.left.off)()
        (self.right.on if side == RIGHT else self.right.off)()

    def off(self):
        self.left.off()
        self.right.off()

    @property
    def side(self):
        return LEFT if self.left.is_lit else RIGHT if self.right.is_lit else None

    def __repr__(self):
        try:
            return "<LedPairIndicator left=%s right=%s side=%s>" % (self.left.pin, self.right.pin, self.side)
        except Exception:
            return super().__repr__()


class ServoIndicator(AngularServo):
    """A two-sided control shown by a servo-driven flipper, as on the original."""

    def __init__(self, pin, *, left_angle=-45, right_angle=45, min_pulse_ms=1.0, max_pulse_ms=2.0,
                 pin_factory=None):
        super().__init__(pin, initial_angle=None, min_angle=-90, max_angle=90,
                         min_pulse_width=min_pulse_ms / 1000, max_pulse_width=max_pulse_ms / 1000,
                         pin_factory=pin_factory)
        self.angles = {LEFT: left_angle, RIGHT: right_angle}

    def show(self, side):
        self.angle = self.angles[side]

    def off(self):
        self.detach()

    def __repr__(self):
        try:
            return "<ServoIndicator pin=%s angle=%s>" % (self.pin, self.angle)
        except Exception:
            return super().__repr__()


def indicator(spec, pin_factory=None):
    """The indicator a pin map asks for: an LED pair or a servo."""
    if spec.kind == "servo":
        return ServoIndicator(spec.pins["pin"], left_angle=spec.options.get("left_angle", -45),
                              right_angle=spec.options.get("right_angle", 45),
                              min_pulse_ms=spec.options.get("min_pulse_ms", 1.0),
                              max_pulse_ms=spec.options.get("max_pulse_ms", 2.0), pin_factory=pin_factory)
    return LedPairIndicator(spec.pins["left"], spec.pins["right"], active_high=spec.active != "low",
                            pin_factory=pin_factory)


class SolenoidRelease(DigitalOutputDevice):
    """The marble release as a push solenoid: energised, it lets one marble go."""

    def open(self):
        self.on()

    def shut(self):
        self.off()


class ServoRelease(AngularServo):
    """The marble release as a servo gate: open, then closed again."""

    def __init__(self, pin, *, closed_angle=0, open_angle=60, min_pulse_ms=1.0, max_pulse_ms=2.0,
                 pin_factory=None):
        super().__init__(pin, initial_angle=closed_angle, min_angle=-90, max_angle=90,
                         min_pulse_width=min_pulse_ms / 1000, max_pulse_width=max_pulse_ms / 1000,
                         pin_factory=pin_factory)
        self.closed_angle = closed_angle
        self.open_angle = open_angle

    def open(self):
        self.angle = self.open_angle

    def shut(self):
        self.angle = self.closed_angle

    def off(self):
        self.detach()


def release(spec, pin_factory=None):
    if spec.kind == "servo":
        return ServoRelease(spec.pins["pin"], closed_angle=spec.options.get("closed_angle", 0),
                            open_angle=spec.options.get("open_angle", 60),
                            min_pulse_ms=spec.options.get("min_pulse_ms", 1.0),
                            max_pulse_ms=spec.options.get("max_pulse_ms", 2.0), pin_factory=pin_factory)
    return SolenoidRelease(spec.pins["pin"], active_high=spec.active != "low", pin_factory=pin_factory)


def button(spec, pin_factory=None):
    """An input of the pin map (a push button, a toggle switch, a sensor). A
    DigitalInputDevice, not a Button: we need no hold thread (it slows closing
    by a tenth of a second per button) and do our own debouncing."""
    return DigitalInputDevice(spec.pin, pull_up=spec.pull_up, active_state=spec.active_state,
                              pin_factory=pin_factory)


class ButtonPanel(CompositeDevice):
    """The visitor's buttons and switches, by role. `when_changed(role, active)`
    is called on every raw edge of any of them (debouncing is the service's)."""

    def __init__(self, specs, *, pin_factory=None):
        roles = tuple(sorted(specs))
        buttons = {}
        try:
            for role in roles:
                with opening(role, [specs[role].pin]):
                    buttons[role] = button(specs[role], pin_factory)
        except Exception:
            for device in buttons.values():
                device.close()
            raise
        super().__init__(_order=roles, pin_factory=pin_factory, **buttons)
        self.when_changed = None
        for role in roles:
            device = getattr(self, role)
            device.when_activated = self._edge(role, True)
            device.when_deactivated = self._edge(role, False)

    def _edge(self, role, active):
        def callback():
            if self.when_changed is not None:
                self.when_changed(role, active)
        return callback

    def is_active_role(self, role):
        return bool(getattr(self, role).is_active)


class ShiftRegister(CompositeDevice):
    """A chain of 74HC595 shift registers on three pins (four with OE).

    `write(bits)` shifts the bits out, last output first, and latches them, so
    output 0 (the first register's Q0) shows bits[0].

    A 74HC595 wakes with random outputs. With `enable`, the pin wired to the
    chips' OE (active low, a 10 kΩ pull-up holding it high while nothing
    drives it), the chain is cleared first and only then are its outputs
    switched on, so no lamp flashes at power-up.
    """

    def __init__(self, data, clock, latch, *, enable=None, registers=1, pin_factory=None):
        devices = dict(data=DigitalOutputDevice(data, pin_factory=pin_factory),
                       clock=DigitalOutputDevice(clock, pin_factory=pin_factory),
                       latch=DigitalOutputDevice(latch, pin_factory=pin_factory))
        if enable is not None:
            devices["enable"] = DigitalOutputDevice(enable, active_high=False, initial_value=False,
                                                    pin_factory=pin_factory)
        super().__init__(_order=tuple(devices), pin_factory=pin_factory, **devices)
        self.outputs = 8 * registers
        self.bits = [False] * self.outputs
        if enable is not None:
            self.clear()
            self.enable.on()

    def write(self, bits):
        bits = (list(bits) + [False] * self.outputs)[:self.outputs]
        for bit in reversed(bits):
            self.data.value = bool(bit)
            self.clock.on()
            self.clock.off()
        self.data.off()
        self.latch.on()
        self.latch.off()
        self.bits = bits

    def clear(self):
        self.write([])

    def __repr__(self):
        try:
            return "<ShiftRegister data=%s clock=%s latch=%s outputs=%d lit=%d>" % (
                self.data.pin, self.clock.pin, self.latch.pin, self.outputs, sum(self.bits))
        except Exception:
            return super().__repr__()


class LampPanel(ShiftRegister):
    """The Nimatron's rows of lamps on a shift-register chain: the console's
    lamps row by row from output 0, then the same again for the spectators'
    display (N1) from the first output of the next whole chip, so that each
    display has chips of its own."""

    def __init__(self, data, clock, latch, *, enable=None, registers, rows, lamps_per_row, pin_factory=None):
        super().__init__(data, clock, latch, enable=enable, registers=registers, pin_factory=pin_factory)
        self.rows = rows
        self.lamps_per_row = lamps_per_row
        self.display_outputs = 8 * display_registers(rows, lamps_per_row)
        self.lit = [0] * rows

    def show_row(self, row, lit):
        """Light the first `lit` lamps of a row (counted from 1) on both displays."""
        self.lit[row - 1] = lit
        console = []
        for count in self.lit:
            console += [i < count for i in range(self.lamps_per_row)]
        console += [False] * (self.display_outputs - len(console))
        self.write(console + console)

    def off(self):
        self.lit = [0] * self.rows
        self.clear()
