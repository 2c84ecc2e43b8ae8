"""Pin maps: which GPIO pin of the Raspberry Pi does what, read from TOML.

One file per machine, `hardware/<machine>/pinmap.toml`, is the single source
of truth for the service, the wiring tables in `hardware/<machine>/wiring.md`
and the self-test. `load_pinmap(path)` reads and checks it; any problem is a
`PinMapError` whose message is one line naming the file, the line, the key
and the problem:

    hardware/drnim/pinmap.toml:12: inputs.trigger.pin: GPIO 40 is not on the 40-pin header (use BCM 2-27)

Pins are BCM (GPIO) numbers, 2 to 27. BCM 0 and 1 are the HAT ID EEPROM's
lines and are refused. BCM 2/3 (I2C) and 14/15 (the serial port) are allowed,
but the shipped maps keep them free.

What a loaded map holds:

- `InputSpec(role, label, pin, pull, active, debounce_ms)`: `pull` is "up",
  "down" or "none"; `active` is "low" or "high", the level when the button is
  pressed, the switch is at its named side, the beam is broken. `pull_up` and
  `active_state` are the arguments gpiozero's `Button` wants.
- `OutputSpec(role, label, kind, pins, active, options)`: `pins` maps the
  kind's pin names to BCM numbers: {"pin"} for solenoid, servo, led and
  buzzer, {"left", "right"} for led_pair, {"data", "clock", "latch"} for
  shift_register. `active` is "high" or "low" (None for servo and
  shift_register). `options`: a servo's angles (`closed_angle`/`open_angle`
  for the release, `left_angle`/`right_angle` for an indicator) and
  `min_pulse_ms`/`max_pulse_ms`, always filled in; a shift register's
  `registers`.
- `PinMap(machine, path, inputs, outputs, rows, lamps_per_row)`; `rows` and
  `lamps_per_row` are None for Dr. Nim.

`python -m controller.hardware.pinmap [--write-docs] [MACHINE | PATH ...]`
checks pin maps (the shipped ones when none is named) and, with
`--write-docs`, rewrites the generated tables in each map's `wiring.md`.
"""

import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import controller

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

MACHINES = ("drnim", "nimatron")
MACHINE_NAMES = {"drnim": "Dr. Nim", "nimatron": "the Nimatron"}

PULLS = ("up", "down", "none")
LEVELS = ("low", "high")

DEBOUNCE_MAX_MS = 1000
# A 5/8" marble falling past a 3 mm beam blocks it for only 10-20 ms.
MARBLE_DEBOUNCE_MAX_MS = 5

SERVO_ANGLE_RANGE = (-90, 90)     # gpiozero AngularServo's default range, 0 in the middle
SERVO_PULSE_RANGE = (0.3, 3.0)    # ms; a hobby servo's frame is 20 ms
SERVO_PULSES = {"min_pulse_ms": 1.0, "max_pulse_ms": 2.0}
RELEASE_ANGLES = {"closed_angle": 0, "open_angle": 60}
INDICATOR_ANGLES = {"left_angle": -45, "right_angle": 45}

ROWS_RANGE = (1, 16)              # the Nimatron machine's limits (controller/core/nimatron.py)
LAMPS_RANGE = (1, 64)
REGISTERS_RANGE = (1, 256)

# kind -> (its pin names, whether it has an active level)
KINDS = {
    "buzzer": (("pin",), True),
    "led": (("pin",), True),
    "led_pair": (("left", "right"), True),
    "servo": (("pin",), False),
    "shift_register": (("data", "clock", "latch"), False),
    "solenoid": (("pin",), True),
}

INPUT_KEYS = ("label", "pin", "pull", "active", "debounce_ms")
DEFAULT_DEBOUNCE_MS = 20

INDICATOR_KINDS = ("led_pair", "servo")
DRNIM_INPUTS = ("trigger", "turn_switch", "equalizer_switch", "new_game", "marble_sensor")
DRNIM_OUTPUTS = {
    "release": ("solenoid", "servo"),
    "flip_flop_1": INDICATOR_KINDS,
    "flip_flop_2": INDICATOR_KINDS,
    "flip_flop_3": INDICATOR_KINDS,
    "equalizer": INDICATOR_KINDS,
    "turn": INDICATOR_KINDS,
    "lamp_your_turn": ("led",),
    "lamp_drnim_turn": ("led",),
    "lamp_you_win": ("led",),
    "lamp_drnim_wins": ("led",),
    "lamp_fault": ("led",),
    "buzzer": ("buzzer",),
}
NIMATRON_OUTPUTS = {
    "lamps": ("shift_register",),
    "lamp_your_turn": ("led",),
    "lamp_machine_turn": ("led",),
    "lamp_nim_champ": ("led",),
    "lamp_machine_wins": ("led",),
    "buzzer": ("buzzer",),
}

# What "active" means for each input, for the wiring notes.
ACTIVE_MEANS = {
    "turn_switch": "at the Dr. Nim side (left)",
    "equalizer_switch": "right (armed)",
    "marble_sensor": "beam broken",
}

# The 74HC595 pin each shift-register line goes to.
SHIFT_REGISTER_PINS = {
    "data": "SER (pin 14) of the first 74HC595",
    "clock": "SRCLK (pin 11) of every 74HC595",
    "latch": "RCLK (pin 12) of every 74HC595",
}


class PinMapError(ValueError):
    """A pin map that cannot be used; the message is one line: path:line: key: problem."""


@dataclass(frozen=True)
class InputSpec:
    role: str
    label: str
    pin: int
    pull: str
    active: str
    debounce_ms: float

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
    rows: int = None
    lamps_per_row: int = None

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
        """The BCM pins 2-27 that this map leaves free."""
        used = self.pins()
        return [bcm for bcm in HEADER if bcm not in used]


INSTALLED_PINMAPS = Path("/etc/drnim-controller/pinmaps")


def default_pinmap_path(machine):
    """The pin map of `machine` (drnim or nimatron) when the configuration names none:
    the checkout's `hardware/<machine>/pinmap.toml` (running from a checkout, or an
    editable install), else the copy systemd/install.sh puts in
    /etc/drnim-controller/pinmaps/<machine>.toml, where an exhibit's own wiring lives."""
    if machine not in MACHINES:
        raise ValueError("unknown machine %r (known: %s)" % (machine, ", ".join(MACHINES)))
    checkout = Path(controller.__file__).resolve().parent.parent / "hardware" / machine / "pinmap.toml"
    return checkout if checkout.exists() else INSTALLED_PINMAPS / (machine + ".toml")


def input_roles(machine, rows=None):
    if machine == "drnim":
        return DRNIM_INPUTS
    return tuple("row%d" % i for i in range(1, (rows or 0) + 1)) + ("handover", "new_game")


def output_roles(machine):
    return DRNIM_OUTPUTS if machine == "drnim" else NIMATRON_OUTPUTS


# --- where keys are in the text -------------------------------------------

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _read_key(text, i):
    """A TOML key (bare, quoted, dotted) at text[i:]: (parts, index after it), or None."""
    parts = []
    n = len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            return None
        c = text[i]
        if c == '"':
            j = i + 1
            out = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                out.append(text[j])
                j += 1
            if j >= n:
                return None
            parts.append("".join(out))
            i = j + 1
        elif c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                return None
            parts.append(text[i + 1:j])
            i = j + 1
        else:
            m = _BARE.match(text, i)
            if not m:
                return None
            parts.append(m.group())
            i = m.end()
        while i < n and text[i] in " \t":
            i += 1
        if i < n and text[i] == ".":
            i += 1
            continue
        return tuple(parts), i


def key_lines(text):
    """Where each table header and key is: {("inputs", "trigger", "pin"): line, ...}.

    A light scan, not a parser (tomllib gives no positions): headers and
    `key = value` lines, skipping multi-line strings. Keys inside an inline
    table are found through their table's line (see `line_of`).
    """
    lines = {}
    prefix = ()
    open_string = None
    for number, line in enumerate(text.splitlines(), 1):
        if open_string:
            if open_string in line:
                open_string = None
            continue
        stripped = line.lstrip()
        if stripped.startswith("["):
            start = 2 if stripped.startswith("[[") else 1
            found = _read_key(stripped, start)
            if found and found[1] < len(stripped) and stripped[found[1]] == "]":
                prefix = found[0]
                lines.setdefault(prefix, number)
            continue
        found = _read_key(stripped, 0)
        if not found or found[1] >= len(stripped) or stripped[found[1]] != "=":
            continue
        parts = prefix + found[0]
        for k in range(len(prefix) + 1, len(parts) + 1):
            lines.setdefault(parts[:k], number)
        value = stripped[found[1] + 1:].lstrip()
        for quotes in ('"""', "'''"):
            if value.startswith(quotes) and value.count(quotes) == 1:
                open_string = quotes
    return lines


def line_of(lines, key):
    """The line of a dotted key, else of its nearest enclosing table or key, else 1."""
    parts = tuple(key.split("."))
    for k in range(len(parts), 0, -1):
        if parts[:k] in lines:
            return lines[parts[:k]]
    return 1


# --- loading and checking -------------------------------------------------

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

    def number(self, table, key, name, default, low, high, unit):
        if name not in table:
            return default
        value = table[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            self.fail("%s.%s" % (key, name), "must be a number from %s to %s %s, not %r" % (low, high, unit, value))
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
        machine = data.get("machine")
        if machine is None:
            self.fail("machine", "missing (machine = \"drnim\" or \"nimatron\")")
        if machine not in MACHINES:
            self.fail("machine", "%r is not one of %s" % (machine, ", ".join(MACHINES)))
        if expect is not None and machine != expect:
            self.fail("machine", "%r, but this should be the pin map of %s (machine = %r)"
                      % (machine, MACHINE_NAMES[expect], expect))
        known = ("machine", "inputs", "outputs") + (("rows", "lamps_per_row") if machine == "nimatron" else ())
        for name in data:
            if name not in known:
                self.fail(name, "unknown key for %s (known: %s)" % (MACHINE_NAMES[machine], ", ".join(known)))
        rows = lamps_per_row = None
        if machine == "nimatron":
            rows = self.whole(data, "rows", "rows", *ROWS_RANGE, "the number of lamp rows, 4 on the original")
            lamps_per_row = self.whole(data, "lamps_per_row", "lamps_per_row", *LAMPS_RANGE,
                                       "the lamps in each row, 7 on the original")
        inputs = self.inputs(self.table(data.get("inputs", {}), "inputs", "[inputs.<role>] sections"),
                             machine, rows)
        outputs = self.outputs(self.table(data.get("outputs", {}), "outputs", "[outputs.<role>] sections"),
                               machine)
        self.duplicates(inputs, outputs)
        if machine == "nimatron":
            spec = outputs["lamps"]
            need = 2 * rows * lamps_per_row
            have = 8 * spec.options["registers"]
            if have < need:
                self.fail("outputs.lamps.registers",
                          "%d registers give %d outputs, but the lamps need %d (2 x %d rows x %d lamps: the console, "
                          "then the spectators' display); use %d or more"
                          % (spec.options["registers"], have, need, rows, lamps_per_row, -(-need // 8)))
        return machine, inputs, outputs, rows, lamps_per_row

    def roles(self, table, key, roles, machine, what):
        name = MACHINE_NAMES[machine]
        for role in table:
            if role not in roles:
                self.fail("%s.%s" % (key, role), "unknown %s (%s's %ss are %s)"
                          % (what, name, what, ", ".join(roles)))
        for role in roles:
            if role not in table:
                self.fail("%s.%s" % (key, role), "missing (%s needs %s)"
                          % (name[0].upper() + name[1:], ", ".join(roles)))

    def inputs(self, table, machine, rows):
        roles = input_roles(machine, rows)
        self.roles(table, "inputs", roles, machine, "input")
        specs = {}
        for role, entry in table.items():
            key = "inputs." + role
            entry = self.table(entry, key, "[%s] with pin, pull, active" % key)
            self.unknown_keys(entry, key, INPUT_KEYS, "for an input")
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
            specs[role] = InputSpec(role, label, pin, pull, active, debounce)
        return specs

    def outputs(self, table, machine):
        roles = output_roles(machine)
        self.roles(table, "outputs", tuple(roles), machine, "output")
        specs = {}
        for role, entry in table.items():
            key = "outputs." + role
            fits = roles[role]
            entry = self.table(entry, key, "[%s] with kind and pins" % key)
            kind = entry.get("kind")
            if kind is None:
                self.fail(key + ".kind", "missing (%s)" % " or ".join(fits))
            if not isinstance(kind, str) or kind not in KINDS:
                self.fail(key + ".kind", "unknown kind %r (known: %s)" % (kind, ", ".join(KINDS)))
            if kind not in fits:
                self.fail(key + ".kind", "kind %r cannot be the %s (use %s)" % (kind, role, " or ".join(fits)))
            pin_names, has_active = KINDS[kind]
            options = {}
            if kind == "servo":
                options.update(RELEASE_ANGLES if role == "release" else INDICATOR_ANGLES)
                options.update(SERVO_PULSES)
            elif kind == "shift_register":
                options["registers"] = None
            known = ("label", "kind") + pin_names + (("active",) if has_active else ()) + tuple(options)
            self.unknown_keys(entry, key, known, "for kind %r" % kind)
            label = self.label(entry, key, role)
            pins = {name: self.pin(entry, key, name) for name in pin_names}
            active = self.level(entry, key, "active", LEVELS, "high") if has_active else None
            if kind == "servo":
                for name in options:
                    low, high = SERVO_PULSE_RANGE if name.endswith("_ms") else SERVO_ANGLE_RANGE
                    options[name] = self.number(entry, key, name, options[name], low, high,
                                                "ms" if name.endswith("_ms") else "degrees")
                angles = [name for name in options if name.endswith("_angle")]
                if options[angles[0]] == options[angles[1]]:
                    self.fail("%s.%s" % (key, angles[1]), "%r is the same as %s: the servo would not move"
                              % (options[angles[1]], angles[0]))
                if options["min_pulse_ms"] >= options["max_pulse_ms"]:
                    self.fail(key + ".max_pulse_ms", "%r must be more than min_pulse_ms (%r)"
                              % (options["max_pulse_ms"], options["min_pulse_ms"]))
            elif kind == "shift_register":
                options["registers"] = self.whole(entry, "registers", key + ".registers", *REGISTERS_RANGE,
                                                  "how many 74HC595s are chained, 8 outputs each")
            specs[role] = OutputSpec(role, label, kind, pins, active, options)
        return specs

    def duplicates(self, inputs, outputs):
        seen = {}
        for specs, prefix in ((inputs, "inputs"), (outputs, "outputs")):
            for spec in specs.values():
                pins = {"pin": spec.pin} if prefix == "inputs" else spec.pins
                for name, pin in pins.items():
                    key = "%s.%s.%s" % (prefix, spec.role, name)
                    if pin in seen:
                        self.fail(key, "GPIO %d is already used by %s" % (pin, seen[pin]))
                    seen[pin] = key


def load_pinmap(path, machine=None):
    """Read and check a pin map. `machine`, when given, is the machine it must be for.

    Raises PinMapError with a one-line message: `path:line: key: problem`.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise PinMapError("%s:1: file: cannot read it (%s)" % (path, error.strerror or error))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise PinMapError("%s:%d: file: not UTF-8 text" % (path, line))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = " ".join(str(error).split())
        m = re.search(r"at line (\d+)", message)
        line = int(m.group(1)) if m else max(1, len(text.splitlines()))
        raise PinMapError("%s:%d: TOML syntax: %s" % (path, line, message))
    checker = _Checker(path, text)
    machine, inputs, outputs, rows, lamps_per_row = checker.check(data, machine)
    return PinMap(machine, Path(path), inputs, outputs, rows, lamps_per_row)


def load_default(machine):
    """The shipped pin map of `machine`."""
    return load_pinmap(default_pinmap_path(machine), machine)


# --- the wiring tables ----------------------------------------------------

def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _input_notes(spec):
    when = ACTIVE_MEANS.get(spec.role, "pressed")
    pull = {"up": "internal pull-up", "down": "internal pull-down",
            "none": "no internal pull (external resistor)"}[spec.pull]
    return "%s; reads %s when %s; debounce %s ms" % (pull, spec.active, when, _number(spec.debounce_ms))


def _number(value):
    return ("%g" % value) if isinstance(value, float) else str(value)


def _output_notes(spec, name):
    level = "high" if spec.active_high else "low"
    if spec.kind == "solenoid":
        return "MOSFET gate, through 100 Ω, with 10 kΩ gate to GND; energised when %s" % level
    if spec.kind == "servo":
        o = spec.options
        angles = ("closed %s°, open %s°" % (_number(o["closed_angle"]), _number(o["open_angle"]))
                  if "closed_angle" in o else
                  "left %s°, right %s°" % (_number(o["left_angle"]), _number(o["right_angle"])))
        return "servo signal wire; %s; pulses %s-%s ms; servo powered from the 5 V supply" % (
            angles, _number(o["min_pulse_ms"]), _number(o["max_pulse_ms"]))
    if spec.kind in ("led", "led_pair"):
        path = "pin → 330 Ω → LED → GND" if spec.active_high else "3.3 V → 330 Ω → LED → pin"
        return "%s%s; lit when %s" % ("%s LED: " % name if spec.kind == "led_pair" else "", path, level)
    if spec.kind == "buzzer":
        return "NPN transistor base, through 1 kΩ; sounds when %s" % level
    if spec.kind == "shift_register":
        note = SHIFT_REGISTER_PINS[name]
        if name == "data":
            note += "; %d registers chained, QH' to the next SER" % spec.options["registers"]
        return note
    return ""


def wiring_rows(pinmap):
    """(role, label, BCM, header pin, direction, kind, notes) for every pin, in file order."""
    rows = []
    for spec in pinmap.inputs.values():
        kind = "sensor" if spec.role == "marble_sensor" else "switch" if spec.role.endswith("_switch") else "button"
        rows.append((spec.role, spec.label, spec.pin, HEADER[spec.pin], "input", kind, _input_notes(spec)))
    for spec in pinmap.outputs.values():
        for name, pin in spec.pins.items():
            role = spec.role if list(spec.pins) == ["pin"] else "%s.%s" % (spec.role, name)
            rows.append((role, spec.label, pin, HEADER[pin], "output", spec.kind, _output_notes(spec, name)))
    return rows


def wiring_table(pinmap):
    """The Markdown table of every pin: role, label, BCM, header pin, direction, kind, notes."""
    out = ["| role | label | BCM | header pin | direction | kind | notes |",
           "| --- | --- | ---: | ---: | --- | --- | --- |"]
    for role, label, bcm, pin, direction, kind, notes in wiring_rows(pinmap):
        out.append("| `%s` | %s | %d | %d | %s | %s | %s |" % (role, _cell(label), bcm, pin, direction, kind,
                                                              _cell(notes)))
    return "\n".join(out) + "\n"


def header_table(pinmap):
    """The 40-pin header as it sits on the board (odd pins left, even right), with what each pin does."""
    used = {}
    for role, label, bcm, pin, direction, kind, notes in wiring_rows(pinmap):
        used[bcm] = "`%s`" % role

    def describe(physical):
        what = HEADER_PINS[physical]
        if isinstance(what, str):
            return "", what
        use = used.get(what) or SPECIAL.get(what, "free")
        return "GPIO %d" % what, use

    out = ["| used by | BCM | pin | pin | BCM | used by |", "| ---: | ---: | :---: | :---: | --- | --- |"]
    for odd in range(1, 40, 2):
        left_bcm, left_use = describe(odd)
        right_bcm, right_use = describe(odd + 1)
        if not left_bcm:
            left_bcm, left_use = left_use, ""
        if not right_bcm:
            right_bcm, right_use = right_use, ""
        out.append("| %s | %s | %d | %d | %s | %s |" % (left_use, left_bcm, odd, odd + 1, right_bcm, right_use))
    return "\n".join(out) + "\n"


QH_NAMES = "ABCDEFGH"


def lamp_outputs(pinmap):
    """The Nimatron's lamps in shift-register order: (display, row, lamp) for output 0, 1, ...

    The console's lamps row by row, then the same again for the spectators'
    display; output 0 is the first 74HC595's QA."""
    order = []
    for display in ("console", "spectators"):
        for row in range(1, pinmap.rows + 1):
            for lamp in range(1, pinmap.lamps_per_row + 1):
                order.append((display, row, lamp))
    return order


def lamp_table(pinmap):
    """Which 74HC595 output (U1 is the chip wired to the Pi) lights which lamp, as a Markdown grid."""
    if pinmap.machine != "nimatron":
        return ""
    grid = {}
    for output, (display, row, lamp) in enumerate(lamp_outputs(pinmap)):
        grid[display, row, lamp] = "U%d Q%s" % (output // 8 + 1, QH_NAMES[output % 8])
    lamps = range(1, pinmap.lamps_per_row + 1)
    out = ["| display | row | " + " | ".join("lamp %d" % lamp for lamp in lamps) + " |",
           "| --- | ---: | " + " | ".join("---" for lamp in lamps) + " |"]
    for display in ("console", "spectators"):
        for row in range(1, pinmap.rows + 1):
            out.append("| %s | %d | %s |" % (display, row, " | ".join(grid[display, row, lamp] for lamp in lamps)))
    return "\n".join(out) + "\n"


SECTIONS = {"wiring": wiring_table, "header": header_table, "lamps": lamp_table}


def render_wiring_doc(text, pinmap):
    """`text` with each generated section (between `<!-- NAME:begin -->` and
    `<!-- NAME:end -->`) replaced by the table made from `pinmap`."""
    for name, make in SECTIONS.items():
        begin, end = "<!-- %s:begin -->" % name, "<!-- %s:end -->" % name
        if begin not in text or end not in text:
            continue
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = "%s%s\n%s%s%s" % (head, begin, make(pinmap), end, tail)
    return text


def generated_section(text, name):
    """The text between `<!-- NAME:begin -->` and `<!-- NAME:end -->`, or None."""
    begin, end = "<!-- %s:begin -->" % name, "<!-- %s:end -->" % name
    if begin not in text or end not in text:
        return None
    return text.split(begin, 1)[1].split(end, 1)[0].strip("\n") + "\n"


def main(argv=None, out=None):
    """Check pin maps; with --write-docs, regenerate the tables of their wiring.md."""
    out = out or sys.stdout
    args = list(sys.argv[1:] if argv is None else argv)
    write = "--write-docs" in args
    targets = [a for a in args if a != "--write-docs"] or list(MACHINES)
    status = 0
    for target in targets:
        path = default_pinmap_path(target) if target in MACHINES else Path(target)
        try:
            pinmap = load_pinmap(path)
        except PinMapError as error:
            print(error, file=out)
            status = 1
            continue
        print("%s: ok, %s, %d pins used, free: %s" % (path, MACHINE_NAMES[pinmap.machine], len(pinmap.pins()),
                                                       ", ".join(map(str, pinmap.free_pins()))), file=out)
        doc = Path(path).parent / "wiring.md"
        if write and doc.exists():
            text = doc.read_text(encoding="utf-8")
            new = render_wiring_doc(text, pinmap)
            if new != text:
                doc.write_text(new, encoding="utf-8")
                print("%s: tables rewritten" % doc, file=out)
    return status


if __name__ == "__main__":
    sys.exit(main())
