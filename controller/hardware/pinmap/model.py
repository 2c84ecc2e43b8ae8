"""What a loaded pin map holds, and the facts of the Raspberry Pi's header.

- `InputSpec(role, label, pin, pull, active, debounce_ms, min_pulse_ms)`:
  `pull` is "up", "down" or "none"; `active` is "low" or "high", the level
  when the button is pressed, the switch is at its named side, the beam is
  broken; `min_pulse_ms` (the marble sensor's): shorter pulses are spikes.
- `OutputSpec(role, label, kind, pins, active, options)`: `pins` maps the
  kind's pin names to BCM numbers (see `KINDS`). `active` is "high" or "low"
  (None for servo and shift_register). `options` holds the kind's other
  settings, always filled in (a servo's angles and pulses, a shift
  register's `registers`, an LED's `colour`, `vf` and `resistor`, a
  buzzer's `base_resistor`, the lamps' `lamp_colour`, `lamp_vf`, `lamp_resistor`).
- `PinMap(machine, path, inputs, outputs, layout, build, reserved)`: `layout` holds the
  machine's LAYOUT keys (the Nimatron's `rows` and `lamps_per_row`), `build`
  its `[build]` table (build.py: what the printed parts are drawn for),
  `reserved` BCM number -> what else takes that pin (a HAT, a fan).

The roles a map must wire, and which kinds may serve each, come from the
machine's own declaration (controller/core/registry.py).
"""

from dataclasses import dataclass, field
from pathlib import Path

from controller import shipped
from controller.core.exhibit import INDICATOR, LAMP, LAMP_ROWS, RELEASE, SOUND
from controller.core.registry import NAMES, machine_class

# BCM number -> physical pin of the 40-pin header, for the pins we may use.
HEADER = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 5: 29, 6: 31, 13: 33, 19: 35,
    26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 12: 32, 16: 36, 20: 38, 21: 40,
}
HEADER = dict(sorted(HEADER.items()))

# Every physical pin of the 40-pin header: a BCM number, or what else it is.
HEADER_PINS = {pin: bcm for bcm, pin in HEADER.items()}
HEADER_PINS.update({1: "3.3 V", 2: "5 V", 4: "5 V", 6: "GND", 9: "GND", 14: "GND", 17: "3.3 V", 20: "GND",
                    25: "GND", 27: 0, 28: 1, 30: "GND", 34: "GND", 39: "GND"})
# What a pin is, when a map leaves it free.
SPECIAL = {0: "HAT EEPROM ID_SD: never use", 1: "HAT EEPROM ID_SC: never use", 2: "free (I2C SDA)",
           3: "free (I2C SCL)", 7: "free (SPI CE1)", 8: "free (SPI CE0)", 9: "free (SPI MISO)",
           10: "free (SPI MOSI)", 11: "free (SPI SCLK)", 14: "free (UART TX)", 15: "free (UART RX)"}

# A machine's kind of output -> the kinds of hardware that can be it.
HARDWARE_FOR = {
    INDICATOR: ("led_pair", "servo"),
    LAMP: ("led",),
    RELEASE: ("solenoid", "servo"),
    SOUND: ("buzzer",),
    LAMP_ROWS: ("shift_register",),
}

SERVO_ANGLE_RANGE = (-90, 90)     # gpiozero AngularServo's default range, 0 in the middle

def shown(path):
    """`path` as its reader types it: from the current folder when it lies below it (the build and deploy
    lines, the pin map check's)."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (OSError, ValueError):
        return str(path)


def default_pinmap_path(machine):
    """The pin map `machine` ships with, `hardware/<machine>/pinmap.toml` (found in
    the installed package: controller/shipped). An exhibit's own wiring is the
    service configuration's business (service/config.py: `Config.pinmap_path`)."""
    if machine not in NAMES:
        raise ValueError("unknown machine %r (known: %s)" % (machine, ", ".join(NAMES)))
    return shipped.pinmap(machine)


def display_registers(rows, lamps_per_row):
    """The 74HC595s each of the Nimatron's displays takes: its lamps rounded up
    to whole chips, so that no chip drives lamps of both displays and the ribbon
    to the spectators' display carries only the chain's lines."""
    return -(-rows * lamps_per_row // 8)


def input_roles(machine, rows=None):
    """The input roles a map of `machine` wires, in order (`rows`: the Nimatron's)."""
    return tuple(spec.role for spec in machine_class(machine).inputs({"rows": rows}))


def output_roles(machine):
    """Each output role of `machine` -> the kinds of hardware that can be it, in order."""
    return dict((spec.role, HARDWARE_FOR[spec.kind]) for spec in machine_class(machine).OUTPUTS)


@dataclass(frozen=True)
class InputSpec:
    role: str
    label: str
    pin: int
    pull: str
    active: str
    debounce_ms: float
    min_pulse_ms: int = 0

    @property
    def key(self):
        return "inputs." + self.role

    @property
    def active_high(self):
        return self.active == "high"

    @property
    def pull_up(self):
        """gpiozero's `pull_up`: True, False, or None (no internal pull)."""
        return {"up": True, "down": False, "none": None}[self.pull]

    @property
    def active_state(self):
        """gpiozero's `active_state`: only with no internal pull (gpiozero
        refuses it together with a pull), then True when active high."""
        return None if self.pull != "none" else self.active_high

    @property
    def debounce_s(self):
        return self.debounce_ms / 1000

    def gpiozero_kwargs(self):
        """The keyword arguments for gpiozero's `Button` or `DigitalInputDevice`."""
        return {"pull_up": self.pull_up, "active_state": self.active_state}


@dataclass(frozen=True)
class OutputSpec:
    role: str
    label: str
    kind: str
    pins: dict
    active: str = None
    options: dict = field(default_factory=dict)

    @property
    def key(self):
        return "outputs." + self.role

    @property
    def active_high(self):
        """True or False; None for a kind without an active level (servo, shift_register)."""
        return None if self.active is None else self.active == "high"

    @property
    def pin(self):
        """The pin of a one-pin kind (solenoid, servo, led, buzzer)."""
        if list(self.pins) != ["pin"]:
            raise AttributeError("a %s has pins %s, not one pin" % (self.kind, ", ".join(self.pins)))
        return self.pins["pin"]

    def travel_ms(self):
        """How long a servo release takes to swing from closed to open, in whole ms
        (its angle over its datasheet speed, `seconds_per_60`)."""
        if self.kind != "servo" or "seconds_per_60" not in self.options:
            raise AttributeError("a %s %s has no servo travel" % (self.kind, self.role))
        o = self.options
        return -(-abs(o["open_angle"] - o["closed_angle"]) * o["seconds_per_60"] * 1000 // 60)

    def servo_kwargs(self):
        """The range arguments for gpiozero's `AngularServo` (angles -90 to 90)."""
        if self.kind != "servo":
            raise AttributeError("a %s is not a servo" % self.kind)
        return {"min_angle": SERVO_ANGLE_RANGE[0], "max_angle": SERVO_ANGLE_RANGE[1],
                "min_pulse_width": self.options["min_pulse_ms"] / 1000,
                "max_pulse_width": self.options["max_pulse_ms"] / 1000}


@dataclass(frozen=True)
class PinMap:
    machine: str
    path: Path
    inputs: dict
    outputs: dict
    layout: dict = field(default_factory=dict)
    build: dict = field(default_factory=dict)
    reserved: dict = field(default_factory=dict)

    @property
    def rows(self):
        """The Nimatron's rows of lamps (None for a machine without them)."""
        return self.layout.get("rows")

    @property
    def lamps_per_row(self):
        return self.layout.get("lamps_per_row")

    @property
    def lamp_chain(self):
        """The Nimatron's chain of 74HC595s (its output's spec), or None for a machine without one."""
        return next((spec for spec in self.outputs.values() if spec.kind == "shift_register"), None)

    def pins(self):
        """Every BCM pin used -> its key (`inputs.trigger.pin`, `outputs.turn.left`), in file order."""
        used = {}
        for spec in self.inputs.values():
            used[spec.pin] = spec.key + ".pin"
        for spec in self.outputs.values():
            for name, pin in spec.pins.items():
                used[pin] = "%s.%s" % (spec.key, name)
        return used

    def free_pins(self):
        """The BCM pins 2-27 that this map leaves free (and does not reserve)."""
        used = self.pins()
        return [bcm for bcm in HEADER if bcm not in used and bcm not in self.reserved]
