"""Reading and checking a pin map: `load_pinmap(path)`.

Any problem is a `PinMapError` whose message is one line naming the file,
the line, the key and the problem:

    hardware/drnim/pinmap.toml:12: inputs.trigger.pin: GPIO 40 is not on the 40-pin header (use BCM 2-27)

Pins are BCM (GPIO) numbers, 2 to 27. BCM 0 and 1 are the HAT ID EEPROM's
lines and are refused. BCM 2/3 (I2C) and 14/15 (the serial port) are
allowed, but the shipped maps keep them free; BCM 2/3 only for what is off
while they are high (their pull-ups on the Pi's board); BCM 14/15 for no
solenoid (a serial port switched on holds them high), and any other output
there is named by `serial_port_warnings`. `[reserved]` names the pins a HAT
or a fan takes, which no role may use.

Each kind of output is described in `KINDS`: its pin names, whether it has
an active level, and its options with their ranges and defaults.
"""

import os
import re
import stat
import tomllib
from pathlib import Path

from controller.core.debounce import BUTTON_MIN_PULSE_MS, MIN_PULSE_MS
from controller.core.exhibit import INDICATOR, RELEASE, SENSOR
from controller.core.registry import NAMES, machine_class
from controller.hardware.pinmap import build, electrical
from controller.hardware.pinmap.model import (HARDWARE_FOR, HEADER, InputSpec, OutputSpec, PinMap, default_pinmap_path,
                                              SERVO_ANGLE_RANGE, display_registers)
from controller.hardware.pinmap.positions import key_lines, line_of, written_twice

PULLS = ("up", "down", "none")
LEVELS = ("low", "high")

DEBOUNCE_MAX_MS = 1000
# A 5/8" marble falling past a 3 mm beam blocks it for only 10-20 ms.
MARBLE_DEBOUNCE_MAX_MS = 5
DEFAULT_DEBOUNCE_MS = 20
# A marble breaks the beam for 10-20 ms, a spike from the solenoid for microseconds.
MIN_PULSE_MAX_MS = 8
INPUT_KEYS = ("label", "pin", "pull", "active", "debounce_ms", "min_pulse_ms")

SERVO_PULSE_RANGE = (0.3, 3.0)    # ms; a hobby servo's frame is 20 ms
SERVO_SPEED_RANGE = (0.02, 2.0)   # s per 60 degrees, from the servo's datasheet (an SG90: 0.1)
REGISTERS_RANGE = (1, 256)
# The I2C pins, pulled up on every Pi's board by 1.8 kΩ to 3.3 V.
BOARD_PULL_UPS = (2, 3)
# What an output on at high would do on one of them: a pull-down's 10 kΩ leaves a MOSFET's gate 2.8 V.
SWITCHED_ON_BY_PULL_UP = {"solenoid": "solenoid (its MOSFET's gate at 2.8 V)", "buzzer": "buzzer",
                          "led": "LED", "led_pair": "LED"}
# The serial port's pins, and what a serial port switched on (raspi-config, or enable_uart=1) does to each
# while the Pi boots and whenever the service does not drive it. Raspberry Pi OS leaves it off, but a
# builder who wanted a console on it may have switched it on: a solenoid there is refused, whatever
# else is there is named in a warning (serial_port_warnings).
SERIAL_PORT = {14: "TXD, which the port holds high", 15: "RXD, which the port pulls up"}
SERIAL_PORT_OFF = "raspi-config, Interface Options, Serial Port: no login shell, no serial hardware"


class PinMapError(ValueError):
    """A pin map that cannot be used; the message is one line: path:line: key: problem."""


class Option:
    """A setting of an output beyond its pins: a number from `low` to `high`
    `unit`, with a default (None: it must be given, and `what` says what it is)."""

    def __init__(self, name, default, low, high, unit="", what="", whole=False):
        self.name = name
        self.default = default
        self.low = low
        self.high = high
        self.unit = unit
        self.what = what
        self.whole = whole


class Choice:
    """A setting of an output that is one of a few words (`choices`, in the order said), with a default;
    `what` says what it is."""

    def __init__(self, name, default, choices, what):
        self.name = name
        self.default = default
        self.choices = choices
        self.what = what


class Kind:
    """A kind of output device: the names of its pins, whether it has an
    active level, its options (`angles` for a servo, by the role's kind) and
    what it draws (`draws`: "led", "lamp" or "base", see DRAWS)."""

    def __init__(self, pins, active=False, options=(), angles=None, draws=None, optional_pins=()):
        self.pins = pins
        self.optional_pins = optional_pins
        self.active = active
        self.options = options
        self.angles = angles or {}
        self.draws = draws

    def keys(self, role_kind):
        """Every key a table of this kind may hold."""
        return ("label", "kind") + self.pins + self.optional_pins + (("active",) if self.active else ()) \
            + tuple(option.name for option in self.all_options(role_kind)) + DRAWS.get(self.draws, ())

    def all_options(self, role_kind):
        return self.angles.get(role_kind, ()) + self.options


def _angle(name, default):
    return Option(name, default, SERVO_ANGLE_RANGE[0], SERVO_ANGLE_RANGE[1], "degrees")


# The keys that say what a kind draws: an LED's colour (or forward voltage)
# and resistor, the Nimatron's lamps' the same, a buzzer's transistor base resistor.
DRAWS = {
    "led": ("colour", "vf", "resistor"),
    "lamp": ("lamp_colour", "lamp_vf", "lamp_resistor"),
    "base": ("base_resistor",),
}

# What a buzzer plays at each level of its sound setting ([exhibit] sound on a Pi, [pico] sound on a Pico):
# every cue (None), only the core's fault cue (a jam, a late marble, a restart with a marble on its way), none.
SOUND_CUES = {"all": None, "faults": ("fault",), "none": ()}

KINDS = {
    "buzzer": Kind(("pin",), active=True, draws="base"),
    "led": Kind(("pin",), active=True, draws="led"),
    "led_pair": Kind(("left", "right"), active=True, draws="led"),
    "servo": Kind(("pin",), options=(
        Option("min_pulse_ms", 1.0, SERVO_PULSE_RANGE[0], SERVO_PULSE_RANGE[1], "ms"),
        Option("max_pulse_ms", 2.0, SERVO_PULSE_RANGE[0], SERVO_PULSE_RANGE[1], "ms"),
    ), angles={
        RELEASE: (_angle("closed_angle", build.GATE_ANGLES["closed_angle"]),
                  _angle("open_angle", build.GATE_ANGLES["open_angle"]),
                  Option("seconds_per_60", 0.1, SERVO_SPEED_RANGE[0], SERVO_SPEED_RANGE[1], "s")),
        INDICATOR: (_angle("left_angle", -45), _angle("right_angle", 45)),
    }),
    # `enable`, optional, drives the chips' OE (active low) against a 10 kΩ
    # pull-up: the lamps stay dark until the service has cleared the chain.
    "shift_register": Kind(("data", "clock", "latch"), options=(
        Option("registers", None, REGISTERS_RANGE[0], REGISTERS_RANGE[1],
               what="how many 74HC595s are chained, 8 outputs each", whole=True),
    ), draws="lamp", optional_pins=("enable",)),
    # the coil and what limits its on-time in hardware (electrical.py checks them)
    "solenoid": Kind(("pin",), active=True, options=(
        Option("coil_ohms", 4.5, 1, 100, "Ω"),
        Option("ptc_hold_a", 0.3, 0.05, 5, "A"),
        Option("ptc_trip_a", 0.6, 0.1, 10, "A"),
        Option("ptc_ohms", 1.36, 0, 20, "Ω"),        # its largest resistance new (MF-R030: 0.76-1.36 Ω)
        Option("ptc_trip_s", 3.0, 0.01, 100, "s"),   # its longest time to trip at 5 times its hold current
        Option("cutoff_c", 50, 30, 150, "°C"),
        Choice("cradle_material", "PLA", tuple(electrical.CRADLE_LIMITS_C),
               "what the solenoid's cradle, gate_solenoid, is printed in"),
    )),
}


class _Checker:
    def __init__(self, path, text):
        self.path = path
        self.lines = key_lines(text)

    def fail(self, key, problem, line=None):
        if line is None:
            line = line_of(self.lines, key)
        message = "%s:%d: %s: %s" % (self.path, line, key, problem)
        raise PinMapError(" ".join(message.splitlines()))

    def table(self, value, key, what):
        if not isinstance(value, dict):
            self.fail(key, "must be a table (%s), not %r" % (what, value))
        return value

    def unknown_keys(self, table, key, known, what):
        for name in table:
            if name not in known:
                self.fail("%s.%s" % (key, name), "unknown key %s (known: %s)" % (what, ", ".join(known)))

    def whole(self, table, name, key, low, high, what):
        """A required whole number `table[name]`, `key` being its full key."""
        value = table.get(name)
        if value is None:
            self.fail(key, "missing (%s)" % what)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(key, "must be a whole number from %d to %d, not %r" % (low, high, value))
        return value

    def option(self, table, key, option):
        """An output's option: a number in its range or one of its choices, or its default."""
        if isinstance(option, Choice):
            value = table.get(option.name, option.default)
            if value not in option.choices:
                self.fail("%s.%s" % (key, option.name), "%r is not one of %s (%s)"
                          % (value, ", ".join(option.choices), option.what))
            return value
        if option.whole:
            return self.whole(table, option.name, "%s.%s" % (key, option.name), option.low, option.high,
                              option.what)
        if option.name not in table:
            return option.default
        value = table[option.name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not option.low <= value <= option.high:
            self.fail("%s.%s" % (key, option.name), "must be a number from %s to %s %s, not %r"
                      % (option.low, option.high, option.unit, value))
        return value

    def label(self, table, key, role):
        value = table.get("label", role)
        if not isinstance(value, str):
            self.fail(key + ".label", "must be text in quotes, not %r" % (value,))
        return value.strip() or role

    def pin(self, table, key, name):
        full = "%s.%s" % (key, name)
        if name not in table:
            self.fail(full, "missing (the BCM number of the GPIO pin)")
        value = table[name]
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(full, "must be a whole number (a BCM GPIO number), not %r" % (value,))
        if value in (0, 1):
            self.fail(full, "GPIO %d is the HAT ID EEPROM's %s line; keep it free (use BCM 2-27)"
                      % (value, ("ID_SD", "ID_SC")[value]))
        if value not in HEADER:
            self.fail(full, "GPIO %d is not on the 40-pin header (use BCM 2-27)" % value)
        return value

    def level(self, table, key, name, choices, default):
        value = table.get(name, default)
        if value not in choices:
            self.fail("%s.%s" % (key, name), "%r is not one of %s" % (value, ", ".join(choices)))
        return value

    # --- the whole file ---------------------------------------------------
    def check(self, data, expect):
        name = data.get("machine")
        if name is None:
            self.fail("machine", "missing (machine = %s)" % " or ".join('"%s"' % n for n in NAMES))
        if name not in NAMES:
            self.fail("machine", "%r is not one of %s" % (name, ", ".join(NAMES)))
        cls = machine_class(name)
        if expect is not None and name != expect:
            self.fail("machine", "%r, but this should be the pin map of %s (machine = %r)"
                      % (name, machine_class(expect).TITLE, expect))
        known = ("machine", "inputs", "outputs", "build", "pico", "reserved") + tuple(entry[0] for entry in cls.LAYOUT)
        for key in data:
            if key not in known:
                self.fail(key, "unknown key for %s (known: %s)" % (cls.TITLE, ", ".join(known)))
        layout = {}
        for key, setting, what in cls.LAYOUT:
            limits = cls.SETTINGS[setting]
            layout[key] = self.whole(data, key, key, limits.low, limits.high,
                                     "%s, %d on the original" % (what, limits.default))
        inputs = self.inputs(self.table(data.get("inputs", {}), "inputs", "[inputs.<role>] sections"), cls, layout)
        outputs = self.outputs(self.table(data.get("outputs", {}), "outputs", "[outputs.<role>] sections"), cls)
        reserved = self.reserved(data.get("reserved", {}))
        self.duplicates(inputs, outputs, reserved)
        self.board_pull_ups(inputs, outputs)
        self.serial_port(outputs)
        for spec in outputs.values():
            if spec.kind == "shift_register":
                self.lamp_chain(spec, layout)
        electrical.check(outputs, self.fail)
        return name, inputs, outputs, layout, build.read(data.get("build"), name, self.fail), reserved

    def reserved(self, table):
        """[reserved]: the pins something else on the header takes (a HAT, a fan), BCM number = what takes it."""
        table = self.table(table, "reserved", 'BCM number = "what takes the pin", one a line')
        pins = {}
        for name, what in table.items():
            key = "reserved." + name
            if not name.isdigit() or int(name) not in HEADER and int(name) not in (0, 1):
                self.fail(key, "%r is not the BCM number of a pin of the 40-pin header (0-27)" % name)
            if not isinstance(what, str) or not what.strip():
                self.fail(key, "must be text in quotes saying what takes the pin (a HAT, a fan), not %r" % (what,))
            pins[int(name)] = what.strip()
        return pins

    def lamp_chain(self, spec, layout):
        """The chain must have chips enough for both displays, each on chips of its own."""
        rows, lamps_per_row = layout["rows"], layout["lamps_per_row"]
        per_display = display_registers(rows, lamps_per_row)
        if spec.options["registers"] < 2 * per_display:
            self.fail(spec.key + ".registers",
                      "%d registers are too few: each display's %d lamps (%d rows x %d) take %d of their own "
                      "(U1-U%d the console, then the spectators' display), so use %d or more"
                      % (spec.options["registers"], rows * lamps_per_row, rows, lamps_per_row, per_display,
                         per_display, 2 * per_display))

    def roles(self, table, key, roles, cls, what):
        name = cls.TITLE
        for role in table:
            if role not in roles:
                self.fail("%s.%s" % (key, role), "unknown %s (%s's %ss are %s)"
                          % (what, name, what, ", ".join(roles)))
        missing = ["%s.%s" % (key, role) for role in roles if role not in table]
        if missing:             # all at once: a map written by hand often lacks several
            self.fail(key if len(missing) == len(roles) else ", ".join(missing),
                      "missing (%s needs %s)" % (name[0].upper() + name[1:], ", ".join(roles)),
                      line_of(self.lines, missing[0]))

    def inputs(self, table, cls, layout):
        kinds = dict((spec.role, spec.kind) for spec in cls.inputs(layout))
        roles = tuple(kinds)
        self.roles(table, "inputs", roles, cls, "input")
        specs = {}
        for role, entry in table.items():
            key = "inputs." + role
            entry = self.table(entry, key, "[%s] with pin, pull, active" % key)
            sensor = kinds[role] == SENSOR
            self.unknown_keys(entry, key, INPUT_KEYS, "for a %s" % ("sensor" if sensor else "button or switch"))
            label = self.label(entry, key, role)
            pin = self.pin(entry, key, "pin")
            pull = self.level(entry, key, "pull", PULLS, "up")
            implied = {"up": "low", "down": "high", "none": None}[pull]
            if "active" not in entry and implied is None:
                self.fail(key + ".active", "missing (with pull = \"none\" an external resistor sets the level at "
                                           "rest, so say active = \"low\" or \"high\")")
            active = self.level(entry, key, "active", LEVELS, implied)
            if implied is not None and active != implied:
                rest = {"low": "high", "high": "low"}[implied]
                other = {"low": "down", "high": "up"}[implied]
                self.fail(key + ".active", "%r does not fit pull = %r: the pin rests %s, so it is active %s (or "
                                           "use pull = \"none\" with an external pull-%s resistor)"
                          % (active, pull, rest, implied, other))
            limit = MARBLE_DEBOUNCE_MAX_MS if role == "marble_sensor" else DEBOUNCE_MAX_MS
            debounce = entry.get("debounce_ms", min(DEFAULT_DEBOUNCE_MS, limit))
            if isinstance(debounce, bool) or not isinstance(debounce, (int, float)) or not 0 <= debounce <= limit:
                why = " (a falling marble blocks the beam for only 10-20 ms)" if role == "marble_sensor" else ""
                self.fail(key + ".debounce_ms", "must be a number of milliseconds from 0 to %d, not %r%s"
                          % (limit, debounce, why))
            min_pulse = self.min_pulse(entry, key, MIN_PULSE_MS if sensor else BUTTON_MIN_PULSE_MS)
            specs[role] = InputSpec(role, label, pin, pull, active, debounce, min_pulse)
        return specs

    def min_pulse(self, entry, key, default):
        value = entry.get("min_pulse_ms", default)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MIN_PULSE_MAX_MS:
            self.fail(key + ".min_pulse_ms", "must be a whole number of milliseconds from 0 to %d, not %r (a "
                                             "marble breaks the beam for 10-20 ms, a spike for microseconds)"
                      % (MIN_PULSE_MAX_MS, value))
        return value

    def outputs(self, table, cls):
        declared = dict((spec.role, spec.kind) for spec in cls.OUTPUTS)
        self.roles(table, "outputs", tuple(declared), cls, "output")
        self.output_table = table
        specs = {}
        for role, entry in table.items():
            key = "outputs." + role
            fits = HARDWARE_FOR[declared[role]]
            entry = self.table(entry, key, "[%s] with kind and pins" % key)
            kind = entry.get("kind")
            if kind is None:
                self.fail(key + ".kind", "missing (%s)" % " or ".join(fits))
            if not isinstance(kind, str) or kind not in KINDS:
                self.fail(key + ".kind", "unknown kind %r (known: %s)" % (kind, ", ".join(KINDS)))
            if kind not in fits:
                self.fail(key + ".kind", "kind %r cannot be the %s (use %s)" % (kind, role, " or ".join(fits)))
            described = KINDS[kind]
            options = described.all_options(declared[role])
            self.unknown_keys(entry, key, described.keys(declared[role]), "for kind %r" % kind)
            label = self.label(entry, key, role)
            pins = {name: self.pin(entry, key, name) for name in described.pins + described.optional_pins
                    if name in entry or name not in described.optional_pins}
            active = self.level(entry, key, "active", LEVELS, "high") if described.active else None
            if kind == "solenoid" and active != "high":
                self.fail(key + ".active", "%r: the solenoid's MOSFET is on while its gate is high (the 10 kΩ "
                                           "gate resistor holds it low, off), so with \"low\" the coil would be "
                                           "energised whenever the game is idle; use active = \"high\"" % active)
            values = dict((option.name, self.option(entry, key, option)) for option in options)
            values.update(self.draws(entry, key, described.draws))
            self.option_pairs(key, values)
            specs[role] = OutputSpec(role, label, kind, pins, active, values)
        return specs

    def draws(self, entry, key, draws):
        """What an output draws: an LED's colour, forward voltage and resistor; a buzzer's base resistor."""
        names = DRAWS.get(draws, ())
        if draws in ("led", "lamp"):
            colour_key, vf_key, resistor_key = names
            colour, vf = entry.get(colour_key), entry.get(vf_key)
            if colour is None and vf is None:
                self.fail("%s.%s" % (key, colour_key), "missing (the LED's colour: %s; or %s = its forward "
                                                       "voltage)%s%s" % (", ".join(electrical.COLOURS), vf_key,
                          "" if resistor_key in entry else ", as is its %s (in ohms)" % resistor_key,
                          self.also_lacking(key, (colour_key, vf_key))))
            if colour is not None and colour not in electrical.COLOURS:
                self.fail("%s.%s" % (key, colour_key), "%r is not one of %s (or give %s, the forward voltage)"
                          % (colour, ", ".join(electrical.COLOURS), vf_key))
            if vf is None:
                vf = electrical.COLOURS[colour]
            low, high = electrical.VF_RANGE
            if isinstance(vf, bool) or not isinstance(vf, (int, float)) or not low <= vf <= high:
                self.fail("%s.%s" % (key, vf_key), "must be a number of volts from %s to %s, not %r" % (low, high, vf))
            return {colour_key: colour, vf_key: vf, resistor_key: self.ohms(entry, key, resistor_key, "the LED's "
                                                                            "series resistor")}
        if draws == "base":
            return {names[0]: self.ohms(entry, key, names[0], "the resistor from the pin to the transistor's base")}
        return {}

    def ohms(self, entry, key, name, what):
        low, high = electrical.RESISTOR_RANGE
        value = entry.get(name)
        if value is None:
            self.fail("%s.%s" % (key, name), "missing (%s, in ohms)%s" % (what, self.also_lacking(key, (name,))))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            self.fail("%s.%s" % (key, name), "must be a number of ohms from %d to %d, not %r" % (low, high, value))
        return value

    def also_lacking(self, key, names):
        """The other outputs that lack every one of `names` too, said with the first: a map from before a key
        was asked for lacks it in every LED, and its builder mended one a run (21 runs of install.sh for an
        early Dr. Nim's colours and resistors)."""
        others = []
        for role, entry in self.output_table.items():
            kind = entry.get("kind") if isinstance(entry, dict) else None
            draws = DRAWS.get(KINDS[kind].draws, ()) if isinstance(kind, str) and kind in KINDS else ()
            if "outputs." + role != key and names[0] in draws and not any(name in entry for name in names):
                others.append("outputs." + role)
        if not others:
            return ""
        shown = ", ".join(others) if len(others) <= 4 else "%s and %d more" % (", ".join(others[:3]), len(others) - 3)
        return "; so do %s" % shown

    def option_pairs(self, key, values):
        """Options that must differ: a servo's two angles, its two pulse widths."""
        angles = [name for name in values if name.endswith("_angle")]
        if angles and values[angles[0]] == values[angles[1]]:
            self.fail("%s.%s" % (key, angles[1]), "%r is the same as %s: the servo would not move"
                      % (values[angles[1]], angles[0]))
        if "min_pulse_ms" in values and values["min_pulse_ms"] >= values["max_pulse_ms"]:
            self.fail(key + ".max_pulse_ms", "%r must be more than min_pulse_ms (%r)"
                      % (values["max_pulse_ms"], values["min_pulse_ms"]))

    def duplicates(self, inputs, outputs, reserved):
        seen = {}
        for specs, prefix in ((inputs, "inputs"), (outputs, "outputs")):
            for spec in specs.values():
                pins = {"pin": spec.pin} if prefix == "inputs" else spec.pins
                for name, pin in pins.items():
                    key = "%s.%s.%s" % (prefix, spec.role, name)
                    if pin in reserved:
                        self.fail(key, "GPIO %d is taken by %s (reserved.%d, line %d): two things driving one pin "
                                       "can damage the Pi; use a free pin"
                                  % (pin, reserved[pin], pin, line_of(self.lines, "reserved.%d" % pin)))
                    if pin in seen:
                        self.fail(key, "GPIO %d is already used by %s" % (pin, seen[pin]))
                    seen[pin] = key

    def board_pull_ups(self, inputs, outputs):
        """BCM 2 and 3 hold their I2C pull-ups, 1.8 kΩ to 3.3 V on the Pi's own board, which no
        internal pull or 10 kΩ outweighs: what is on at high is on there whenever the pin is not driven."""
        for spec in inputs.values():
            if spec.pin in BOARD_PULL_UPS and spec.active == "high":
                self.fail(spec.key + (".pull" if spec.pull == "down" else ".active"),
                          "GPIO %d has a 1.8 kΩ pull-up to 3.3 V on the Pi's own board (for I2C), which holds it "
                          "high: an input there can only be active \"low\" (a button or switch to GND, pull = "
                          "\"up\"); put this one on another pin" % spec.pin)
        for key, spec, pin in output_pins(outputs, BOARD_PULL_UPS):
            if spec.active == "high" and spec.kind in SWITCHED_ON_BY_PULL_UP:
                self.fail(key, "GPIO %d has a 1.8 kΩ pull-up to 3.3 V on the Pi's own board (for I2C): it would switch "
                          "the %s on whenever the pin is not driven (while the Pi boots, once the service stops)"
                          "; use another pin%s" % (pin, SWITCHED_ON_BY_PULL_UP[spec.kind],
                                                   " (or wire the LED from 3.3 V to the pin, active = \"low\")"
                                                   if spec.kind in ("led", "led_pair") else ""))

    def serial_port(self, outputs):
        """BCM 14 and 15 are the serial port's: switched on, it holds 14 high and pulls 15 up while the Pi
        boots and whenever the service stops, which would hold a solenoid's coil on until its PTC trips."""
        for key, spec, pin in output_pins(outputs, SERIAL_PORT):
            if spec.kind == "solenoid":
                self.fail(key, "GPIO %d is the serial port's %s while it is on (Raspberry Pi OS leaves it off; "
                          "raspi-config switches it on): that would hold the coil on while the Pi boots and "
                          "whenever the service stops; use another pin (BCM 14 and 15 suit a button, or an "
                          "LED with the port kept off)" % (pin, SERIAL_PORT[pin]))


def output_pins(outputs, among):
    """(key, spec, pin) for each pin of the outputs that is one of `among`."""
    for spec in outputs.values():
        for name, pin in spec.pins.items():
            if pin in among:
                yield "%s.%s" % (spec.key, name), spec, pin


def serial_port_warnings(pinmap):
    """A line, `path:line: key: problem`, for each output pin on BCM 14 or 15 (a solenoid there is refused):
    it works while the serial port is off, as Raspberry Pi OS leaves it, but a port switched on drives the
    pin too while the Pi boots and whenever the service stops."""
    found = [(key, pin) for pin, key in pinmap.pins().items() if pin in SERIAL_PORT and key.startswith("outputs.")]
    if not found:
        return []
    lines = map_lines(pinmap)
    return ["%s:%d: %s: GPIO %d is the serial port's %s while it is on, and then drives this output while the "
            "Pi boots and whenever the service stops: keep the port off (%s)" % (
                pinmap.path, line_of(lines, key), key, pin, SERIAL_PORT[pin], SERIAL_PORT_OFF) for key, pin in found]


def ribbon_warnings(pinmap):
    """A line, `path:line: key: problem`, when the Nimatron's lamps, every one lit, draw more than the
    ribbon's PTC holds in a warm console: they then go dark in play whenever many are lit, until it cools
    (a warning, not a refusal: the PTC protects the wire, and a build of the 75 Ω lamps shipped before
    plays on while its resistors wait to be changed). Only for the layout the parts list counts: another
    layout's PTCs are the builder's to size (bom.layout_warning)."""
    spec = pinmap.lamp_chain
    if spec is None or (pinmap.rows, pinmap.lamps_per_row) != electrical.COUNTED_FOR:
        return []
    problem = electrical.ribbon_problem(spec.options, 2 * pinmap.rows * pinmap.lamps_per_row)
    if not problem:
        return []
    return ["%s:%d: %s.lamp_resistor: %s" % (pinmap.path, line_of(map_lines(pinmap), spec.key + ".lamp_resistor"),
                                             spec.key, problem)]


def load_pinmap(path, machine=None):
    """Read and check a pin map. `machine`, when given, is the machine it must be for.

    Raises PinMapError with a one-line message: `path:line: key: problem`.
    """
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
        # a folder or a device is said once, here, not raised inside the try that wraps its reasons
        raw = Path(path).read_bytes() if regular else None
    except OSError as error:
        raise PinMapError("%s:1: file: cannot read it (%s)" % (path, error.strerror or error))
    except ValueError as error:       # a path with a NUL in it
        raise PinMapError("%s:1: file: cannot read it (%s)" % (path, error))
    if not regular:
        raise PinMapError("%s:1: file: cannot read it (not a regular file)" % path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise PinMapError("%s:%d: file: not UTF-8 text" % (path, line))
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise PinMapError("%s:1: TOML syntax: values nested too deeply" % path)
    except tomllib.TOMLDecodeError as error:
        message = " ".join(str(error).split())
        m = re.search(r"at line (\d+)", message)
        line = int(m.group(1)) if m else max(1, len(text.splitlines()))
        raise PinMapError("%s:%d: TOML syntax: %s" % (path, line, written_twice(text, message, line) or message))
    except ValueError:
        # tomllib lets int() refuse a number of more than 4300 digits with a bare ValueError
        raise PinMapError("%s:1: TOML syntax: a number too long to read (more than 4300 digits)" % path)
    checker = _Checker(path, text)
    machine, inputs, outputs, layout, made, reserved = checker.check(data, machine)
    return PinMap(machine, Path(path), inputs, outputs, layout, made, reserved)


def check_gate(pinmap):
    """Refuse a release whose servo gate's angles jam the printed gate (build.gate_problem): PinMapError with
    the one-line `path:line: key: why` of any other fault of the map. A check of its own, not load_pinmap's:
    `python -m controller.hardware.pinmap`, `controller config check` (selftest and calibrate too: arguments.py)
    and `controller firmware build` call it and refuse; the service (daemon.py) and `safe-off` take the map as
    it is, and the service warns."""
    problem = build.gate_problem(pinmap)
    if problem is None:
        return
    raise PinMapError("%s:%d: %s: %s" % (pinmap.path, line_of(map_lines(pinmap), problem[0]), *problem))


def map_lines(pinmap):
    """The line of each key in the file of a loaded pin map, for a `path:line: key:` said after loading it
    ({} when it is gone since load_pinmap read it: the key is still named)."""
    try:
        return key_lines(Path(pinmap.path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def load_default(machine):
    """The shipped pin map of `machine`."""
    return load_pinmap(default_pinmap_path(machine), machine)
