"""The `[pico]` section of a pin map: the same machine on a Raspberry Pi Pico
or Pico 2 running the firmware (firmware/), and the config module the build
generates from it for the board.

The section gives, for every role of the map, its GP number, or a table of
them for a role with several pins (an LED pair's left and right, a shift
register's data, clock and latch). Everything else (labels, pulls, active
levels, debounce times, kinds, servo angles, the Nimatron's rows) is the
map's own: one file, one truth. It is checked here, after `load_pinmap` has
checked the rest, with the same one-line errors: `path:line: key: problem`.
"""

import tomllib
from pathlib import Path

from controller.core.exhibit import SENSOR, SOUND
from controller.core.registry import machine_class
from controller.hardware.pinmap import electrical
from controller.hardware.pinmap.check import KINDS, SOUND_CUES, PinMapError, check_gate, load_pinmap, map_lines
from controller.hardware.pinmap.model import default_pinmap_path
from controller.hardware.pinmap.positions import key_lines, line_of
from controller.hardware.pinmap.release import open_ms, timing_problem

# The GP pins a Pico and a Pico 2 bring out for general use (GP23-25 and 29
# run the board's power supply, LED and VSYS sense, or the Pico W's radio).
PICO_PINS = tuple(range(0, 23)) + (26, 27, 28)
PWM_OUTPUTS = 16         # the RP2040's: GPn drives slice (n >> 1) & 7, channel n & 1, as GPn+16 does
# GP number -> the board's pin number (1-40, counted down the left edge from
# the USB end and back up the right), for the drawn wiring and the guides' Pico table.
PICO_HEADER = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16, 13: 17,
               14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31, 27: 32, 28: 34}
# The board's pins the wiring takes besides its GP pins: its 3.3 V output and its grounds, the one
# the guides use first (pin 33 is AGND, the ADC's own ground, and is left out).
PICO_SUPPLY = ("3V3(OUT)", 36)
PICO_GROUNDS = (38, 3, 8, 13, 18, 23, 28)
# default, lowest, highest: as the Pi service's settings of the same names (release.py has the rules)
RELEASE_TIMES = {"release_pulse_ms": (60, 1, 1000), "servo_open_ms": (0, 0, 5000)}
POLL_MS = 10
WATCHDOG_MS = 5000                    # below the RP2040's longest, 8388 ms
SERVO_FRAME_MS = 20


# Why a Pico's input must not hold on the chip's own pull-down.
PULL_DOWN = ('a pin held by the chip\'s own pull-down reads pressed for good after a first press on a Pico 2 (the '
             'RP2350\'s erratum E9, its first chips): wire it to GND with pull = "up" and active = "low", as the '
             'shipped map does, or give it an external pull-down of 8.2 kΩ or less and pull = "none"')


def pull_downs(pinmap):
    """The keys of the inputs on the chip's own pull-down, which `firmware build` refuses (PULL_DOWN)."""
    return ["inputs.%s.pull" % role for role, spec in pinmap.inputs.items() if spec.pull == "down"]


def load_pico(path, machine=None, refuse_pull_downs=True):
    """(the checked PinMap, its [pico] pins: role -> {pin name: GP number},
    the section's options); PinMapError naming the line and key. An input on the
    chip's own pull-down is refused (a build's), or left to `pico_warnings` (the
    map's own check and its drawings, which a Pi's build of the map reads too)."""
    pinmap = load_pinmap(path, machine)
    text = Path(path).read_text(encoding="utf-8")
    lines = key_lines(text)
    section = tomllib.loads(text).get("pico")

    def fail(key, problem, at=None):
        raise PinMapError("%s:%d: %s: %s" % (path, line_of(lines, at or key), key, problem))

    if not isinstance(section, dict):
        fail("pico", "missing: a [pico] table with the GP number of every role, for the Pico firmware")
    options = {}
    for key, (default, low, high) in RELEASE_TIMES.items():
        value = options[key] = section.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            fail("pico." + key, "must be a whole number of ms from %d to %d, not %r" % (low, high, value))
    release = pinmap.outputs.get("release")
    problem = timing_problem(release, options["release_pulse_ms"], options["servo_open_ms"])
    if problem:
        fail("pico." + problem[0], problem[1])
    # the board plays at Dr. Nim's default pace: its coil's pulses must not trip the PTC that guards it
    problem = release is not None and release.kind == "solenoid" and electrical.pulse_problem(
        release, options["release_pulse_ms"])
    if problem:
        fail("pico.release_pulse_ms", problem)
    options["open_ms"] = open_ms(release, options["release_pulse_ms"], options["servo_open_ms"])
    options["sound"] = section.get("sound", "all")
    if options["sound"] not in SOUND_CUES:
        fail("pico.sound", 'must be "all", "faults" or "none" (the beeps the buzzer plays), not %r'
             % (options["sound"],))
    names = {}
    for role in pinmap.inputs:
        names[role] = ("pin",)
    optional = {}
    for role, spec in pinmap.outputs.items():
        names[role] = KINDS[spec.kind].pins
        optional[role] = KINDS[spec.kind].optional_pins
    for key in section:
        if key not in names and key not in RELEASE_TIMES and key != "sound":
            fail("pico." + key, "not a role of this map (roles: %s)" % ", ".join(names))
    missing = [role for role in names if role not in section]
    if missing:                 # all at once: a map written by hand often lacks several
        fail(", ".join("pico." + role for role in missing), "missing (%s)" % "; ".join(
            "%s: its GP number%s" % (role, "" if names[role] == ("pin",) else ", { %s }" % ", ".join(
                "%s = N" % name for name in names[role])) for role in missing), "pico." + missing[0])
    pins = {}
    used = {}
    for role, wanted in names.items():
        key = "pico." + role
        given = section[role]
        if wanted == ("pin",):
            given = {"pin": given}
        elif not isinstance(given, dict) or not set(wanted) <= set(given) <= set(wanted + optional.get(role, ())):
            fail(key, "must be a table of %s, not %r" % (", ".join(wanted + tuple(
                name + " (optional)" for name in optional.get(role, ()))), given))
        pins[role] = {}
        for name in wanted + tuple(name for name in optional.get(role, ()) if name in given):
            number = given[name]
            where = key if name == "pin" else "%s.%s" % (key, name)
            if isinstance(number, bool) or not isinstance(number, int) or number not in PICO_PINS:
                fail(where, "%r is not a GP pin of the Pico (use 0-22, 26-28)" % (number,))
            if number in used:
                fail(where, "GP%d is already used by %s" % (number, used[number]))
            used[number] = where
            pins[role][name] = number
    for key in pull_downs(pinmap) if refuse_pull_downs else ():
        fail(key, PULL_DOWN, key)
    servos = {}
    for role, spec in pinmap.outputs.items():
        problem = drive_problem(spec)
        if problem:
            fail("pico." + role, problem)
        if spec.kind == "servo":
            number = pins[role]["pin"]
            other = servos.get(number % PWM_OUTPUTS)
            if other is not None:
                fail("pico." + role, "GP%d and GP%d (pico.%s) are one PWM output of the RP2040: the two servos "
                     "would move together; move one to a pin that is not 16 from the other" % (
                         number, pins[other]["pin"], other))
            servos[number % PWM_OUTPUTS] = role
    return pinmap, pins, options


def check_pico(pinmap):
    """The GP pins of the [pico] section of a loaded map, when it has one, checked as `controller firmware
    build` checks it (load_pico): PinMapError naming the line and key. A map without one is for a Pi alone,
    and passes: None."""
    try:
        section = tomllib.loads(Path(pinmap.path).read_text(encoding="utf-8")).get("pico")
    except (OSError, ValueError):       # read by load_pinmap a moment ago; load_pico says what became of it
        section = True
    if section is None:
        return None
    return sorted(number for pins in load_pico(pinmap.path, pinmap.machine, refuse_pull_downs=False)[1].values()
                  for number in pins.values())


def pico_warnings(pinmap):
    """A line, `path:line: key: problem`, for each input of a map with a [pico] section that its Pico's
    build refuses and a Pi's takes: one on the chip's own pull-down (PULL_DOWN)."""
    if "pico" not in tomllib.loads(Path(pinmap.path).read_text(encoding="utf-8")):
        return []
    return ["%s:%d: %s: for the Pico's build (controller firmware build refuses it): %s" % (
        pinmap.path, line_of(map_lines(pinmap), key), key, PULL_DOWN) for key in pull_downs(pinmap)]


def drive_problem(spec):
    """Why an output draws more than a Pico's pin gives at its default drive strength, or None."""
    ma = electrical.pin_ma(spec)
    if ma <= electrical.PICO_PIN_MAX_MA:
        return None
    o = spec.options
    if spec.kind in electrical.LED_KINDS:
        what = "%s through %s" % (electrical.describe_led(o), electrical.resistor_text(o["resistor"]))
        least = electrical.resistor_text(electrical._ceil((electrical.PIN_VOLTS - o["vf"]) * 1000
                                                          / electrical.PICO_PIN_MAX_MA))
    else:
        what = "%s to the transistor's base" % electrical.resistor_text(o["base_resistor"])
        least = electrical.resistor_text(electrical._ceil((electrical.PIN_VOLTS - electrical.BASE_VOLTS) * 1000
                                                          / electrical.PICO_PIN_MAX_MA))
    return ("%s (%s) draws %.1f mA, more than a Pico pin's %d mA at its default drive strength (the Pi's "
            "%d mA does not hold here): use at least %s" % (what, spec.key, ma, electrical.PICO_PIN_MAX_MA,
                                                         electrical.PIN_MAX_MA, least))


def _duty(spec, angle):
    """A servo angle as the PWM duty_u16 at 50 Hz, worked out here so the board needs no floats."""
    low, high = spec.options["min_pulse_ms"], spec.options["max_pulse_ms"]
    pulse = low + (angle + 90) / 180 * (high - low)
    return round(pulse / SERVO_FRAME_MS * 65535)


def board_config(path, machine=None, mode="production"):
    """The text of `board_config.py` for the board, from the pin map at `path`; a servo gate whose angles
    jam the printed gate is refused as the pin map check refuses it (check.check_gate), before a board runs it."""
    pinmap, pins, options = load_pico(path, machine)
    check_gate(pinmap)
    cls = machine_class(pinmap.machine)
    sensor = None
    inputs = []
    for spec in cls.inputs(pinmap.layout):
        found = pinmap.inputs[spec.role]
        line = (spec.role, pins[spec.role]["pin"], None if found.pull == "none" else found.pull,
                found.active == "high", int(round(found.debounce_ms)), found.min_pulse_ms)
        if spec.kind == SENSOR:
            sensor = line
        else:
            inputs.append(line)
    outputs = []
    for spec in cls.OUTPUTS:
        found = pinmap.outputs[spec.role]
        extra = None
        if found.kind == "servo":
            angles = [name for name in found.options if name.endswith("_angle")]
            extra = tuple(_duty(found, found.options[name]) for name in angles)
        elif spec.kind == SOUND:
            extra = SOUND_CUES[options["sound"]]
        elif found.kind == "shift_register":
            lamps = pinmap.rows * pinmap.lamps_per_row
            outputs_there = 8 * found.options["registers"]
            # the spectators' display starts on a register of its own when the chain has room for it
            spectators = -(-lamps // 8) * 8
            extra = (found.options["registers"], pinmap.rows, pinmap.lamps_per_row,
                     spectators if spectators + lamps <= outputs_there else lamps)
        described = KINDS[found.kind]
        outputs.append((spec.role, found.kind, tuple(pins[spec.role][name] for name in described.pins
                                                     + described.optional_pins if name in pins[spec.role]),
                        found.active_high, extra))
    lines = [
        '"""The board\'s pins and settings, generated from %s by `controller firmware build`:'
        % _shown(pinmap.path),
        'edit the pin map\'s [pico] section, not this file."""',
        "",
        "MACHINE = %r" % pinmap.machine,
        "MODE = %r" % mode,
        "LAYOUT = %r" % dict(pinmap.layout),
        "SETTINGS = {}",
        "POLL_MS = %d" % POLL_MS,
        "WATCHDOG_MS = %d" % WATCHDOG_MS,
        "RELEASE_PULSE_MS = %d  # how long the release stays open per marble" % options["open_ms"],
        "SHORTEST_PACE_MS = %d  # a host's shorter pace_ms would trip the PTC that guards the release's coil"
        % shortest_pace(pinmap.outputs.get("release"), options["release_pulse_ms"]),
        "# role, GP pin, pull, active high, debounce ms, shortest pulse ms (shorter ones are spikes)",
        "INPUTS = (",
    ] + ["    %r," % (line,) for line in inputs] + [
        ")",
        "SENSOR = %r" % (sensor,),
        "# role, kind, GP pins (the lamp chain's data, clock, latch and, when wired, OE), active high, servo",
        "# duties (u16), the lamp chain's registers, rows, lamps, spectators' first output, or the buzzer's cues",
        "OUTPUTS = (",
    ] + ["    %r," % (line,) for line in outputs] + [")", ""]
    return "\n".join(lines)


def shortest_pace(release, pulse_ms):
    """The shortest pace_ms a board takes from a host: a solenoid's PTC would trip at a shorter one (0: no coil)."""
    if release is None or release.kind != "solenoid":
        return 0
    return electrical.shortest_pace_ms(release.options, pulse_ms)


def _shown(path):
    path = Path(path)
    return "/".join(path.parts[-3:]) if len(path.parts) >= 3 else str(path)


def write_board_config(folder, machine, path=None, mode="production"):
    """Write `board_config.py` into `folder` from `machine`'s pin map (or the
    one at `path`); returns the file's path."""
    target = Path(folder) / "board_config.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(board_config(path or default_pinmap_path(machine), machine, mode), encoding="utf-8")
    return target
