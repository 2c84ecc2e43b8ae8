"""The electrical rule check of a pin map: what each output pin draws.

A Raspberry Pi's GPIO pin keeps its output level up to its drive strength,
8 mA as the Pi's firmware sets it and gpiozero leaves it (16 mA is the most
it can be set to, not what it is), and the whole header gives about 50 mA; an LED below about 2 mA is too dim to see in a lit room. So
every LED of a pin map records its colour (or its forward voltage `vf`) and
its series resistor, a buzzer its transistor's base resistor, and the loader
refuses a map whose figures do not add up, with one line naming the pin.

The current through an LED is (supply - forward voltage) / resistor: from a
3.3 V pin for the LEDs on the header; from 5 V less the ULN2803's 0.7 V for
the Nimatron's lamps, which the Darlington array sinks, so they draw nothing
from the header. Every lamp lit, they should stay within what the ribbon's PTC
holds in a warm console (`ribbon_problem`, a warning). An LED pair counts once in the header's total: only one
side is ever lit.

A solenoid's coil must have a hardware limit on its on-time that no program,
hang or shorted MOSFET can defeat (`coil_problem`): a resettable fuse (PTC)
in series that holds the game's pulses but trips within seconds when the coil
stays on, and a thermal switch against the coil that opens before the printed
cradle round it passes what its material bears (`cradle_material`: PLA's 50 °C;
a warm gallery's PETG or ASA takes a hotter switch). A small PTC's own
resistance is about an ohm (a Bourns MF-R030: 0.76-1.36 Ω new, up to 2.10 Ω
an hour after a trip), a good part of a 4.5 Ω coil's at 5 V, so a coil held
on draws less than it would alone: 0.85 A, not 1.11 A, through an MF-R030 at
its 1.36 Ω. How soon that
trips it comes from the time to trip its datasheet guarantees at 5 times its
hold current (3.0 s at 1.5 A), the PTC taken as one mass that heats as the
square of the current and cools as its temperature: it trips when its
temperature would settle above its trip current's, after
tau * ln(x / (x - 1)), x being (current / trip current) squared.
"""
import math

# Forward voltages, volts, at a few milliamperes (typical 5 mm LEDs).
COLOURS = {
    "red": 2.0, "orange": 2.0, "amber": 2.1, "yellow": 2.1, "yellow-green": 2.2,
    "green": 3.0, "blue": 3.0, "white": 3.0, "warm-white": 3.0,
}
VF_RANGE = (1.5, 3.6)
RESISTOR_RANGE = (1, 1000000)

PIN_VOLTS = 3.3
# A Pi's pin at its default drive strength (8 mA, as its firmware sets bank 0): above it the pin's
# level sags below 3.3 V and out of its specification.
PIN_MAX_MA = 8
# An RP2040's (the Pico's) pin at its default drive strength, which the firmware leaves as it is.
PICO_PIN_MAX_MA = 4
HEADER_MAX_MA = 50
LED_MIN_MA = 2
# A small NPN transistor's base-emitter drop, and the base current that switches the active buzzer's
# 30 mA (the parts list's TMB12A05) at the least gain a PN2222A guarantees (35): less leaves it silent.
BASE_VOLTS = 0.7
BUZZER_BASE_MIN_MA = 30 / 35
# The Nimatron's lamps: 5 V, less the ULN2803's drop, through the lamp resistor. Its datasheet's 0.9 V
# is at 100 mA; at a lamp's 15 mA a Darlington drops about 0.7 V, and the lamp draws more than 0.9 V says.
LAMP_SUPPLY_VOLTS = 5.0
ULN2803_DROP_VOLTS = 0.7
LAMP_MAX_MA = 20     # a 5 mm LED's continuous rating
# The Nimatron's rows and lamps in a row that the build pack's counted and placed parts are for (the 1940
# machine's): the parts list's counts, the console top's row buttons (parts/params.scad places four), the lamp
# boards (a 160 x 100 mm stripboard each) and the ribbon's PTCs, sized for their lamps' current. The pin map's
# tables, drawings, lamp check and lamp panels follow the map.
COUNTED_FOR = (4, 7)
# The PTC in the ribbon's +5 V to both displays' lamps (bom.csv), and the part of its hold current it
# keeps at 50 °C, in a closed console (Bourns' derating table for the MF-R series): above it, the lamps
# go dark in play whenever many are lit.
RIBBON_PTC = "MF-R110"
RIBBON_PTC_HOLD_A = 1.1
WARM_HOLD = 0.8

# The release solenoid's coil, on the 5 V supply, and its protection: the game pulses it for
# GAME_PULSE_MS (release_pulse_ms' default) at most once a pace (Dr. Nim's 900 ms: a visitor's
# 15 quicker presses are over in seconds, too soon to warm a PTC); a coil held on must trip its
# PTC within TRIP_WITHIN_S, the PTC's time to trip being given at PTC_RATED_TIMES its hold
# current.
COIL_VOLTS = 5.0
GAME_PULSE_MS = 60
GAME_PACE_MS = 900
TRIP_WITHIN_S = 20
PTC_RATED_TIMES = 5
# What the coil's printed cradle (gate_solenoid) bears in continuous use, by its material, °C: the
# table of hardware/README.md's "Materials for a public gallery" (makers' data sheets, collected by
# filament-db's FDM reference). The coil's thermal switch must open at or below it.
CRADLE_LIMITS_C = {"PLA": 50, "PETG": 60, "ASA": 85}

# The settings of each kind that say what it draws, with a prefix for the Nimatron's lamps.
LED_KINDS = ("led", "led_pair")
LAMP_PREFIX = "lamp_"


def led_ma(vf, ohms, volts=PIN_VOLTS):
    """The current of an LED of forward voltage `vf` through `ohms` from `volts`, in mA."""
    return max(0.0, volts - vf) / ohms * 1000


def lamp_ma(options):
    """The current of one of the Nimatron's lamps, behind a ULN2803 from 5 V, in mA."""
    return led_ma(options["lamp_vf"], options["lamp_resistor"], LAMP_SUPPLY_VOLTS - ULN2803_DROP_VOLTS)


def ribbon_problem(options, lamps):
    """None, or why `lamps` lamps (both displays', every one lit) draw more than the ribbon's PTC holds
    warm, and the lamp resistor that keeps them within it."""
    amps = lamps * lamp_ma(options) / 1000
    warm = RIBBON_PTC_HOLD_A * WARM_HOLD
    if amps <= warm:
        return None
    volts = LAMP_SUPPLY_VOLTS - ULN2803_DROP_VOLTS - options["lamp_vf"]
    return ("the %d lamps lit draw %.2f A through the ribbon's %s, more than the %.2f A it holds at 50 °C (%.1f A "
            "at 23 °C): the lamps would go dark in play in a warm console; use at least %s, or keep it cool"
            % (lamps, amps, RIBBON_PTC, warm, RIBBON_PTC_HOLD_A, resistor_text(_ceil(volts * lamps / warm))))


def pin_ma(spec):
    """What one pin of an output draws from the header, in mA (0: next to nothing)."""
    if spec.kind in LED_KINDS:
        return led_ma(spec.options["vf"], spec.options["resistor"])
    if spec.kind == "buzzer":
        return (PIN_VOLTS - BASE_VOLTS) / spec.options["base_resistor"] * 1000
    return 0.0


def header_ma(outputs):
    """What the outputs draw from the header at most, in mA: every LED lit (an
    LED pair counting one LED) and the buzzer sounding."""
    return sum(pin_ma(spec) for spec in outputs.values())


def describe_led(options, prefix=""):
    """"red LED (2.0 V)" or "LED of 2.9 V" from a spec's options."""
    colour = options[prefix + "colour"]
    vf = options[prefix + "vf"]
    if colour is not None and COLOURS[colour] == vf:
        return "%s LED (%.1f V)" % (colour, vf)
    return "LED of %.2g V" % vf


def resistor_text(ohms):
    """390 -> "390 Ω", 1000 -> "1 kΩ", 4700 -> "4.7 kΩ"."""
    if ohms >= 1000:
        return "%g kΩ" % (ohms / 1000)
    return "%g Ω" % ohms


def coil_amps(options):
    """The solenoid's current from the 5 V supply, in A."""
    return COIL_VOLTS / options["coil_ohms"]


def coil_rms_amps(options, pulse_ms=GAME_PULSE_MS, pace_ms=GAME_PACE_MS):
    """The coil's current averaged (RMS) over the game's pulses, in A: what the PTC must hold (taken
    through the coil alone, the most it can be)."""
    return coil_amps(options) * (pulse_ms / pace_ms) ** 0.5


def held_amps(options):
    """What a coil held on draws from the 5 V supply through the coil and its PTC's own resistance, in A."""
    return COIL_VOLTS / (options["coil_ohms"] + options["ptc_ohms"])


def _ptc_tau(options):
    """The PTC's thermal time constant, s, from its datasheet's time to trip at PTC_RATED_TIMES its hold."""
    rated = (PTC_RATED_TIMES * options["ptc_hold_a"] / options["ptc_trip_a"]) ** 2
    return options["ptc_trip_s"] / math.log(rated / (rated - 1))


def trip_seconds(options, amps=None):
    """How long the PTC takes at most to trip at `amps` (a coil held on: `held_amps`), in s; inf: never."""
    x = ((held_amps(options) if amps is None else amps) / options["ptc_trip_a"]) ** 2
    if x <= 1:
        return math.inf
    return _ptc_tau(options) * math.log(x / (x - 1))


def largest_trip_a(options):
    """The largest trip current that cuts a coil held on within TRIP_WITHIN_S, in A."""
    k = math.exp(TRIP_WITHIN_S / _ptc_tau(options))
    return held_amps(options) / (k / (k - 1)) ** 0.5


def longest_pulse_ms(options, pace_ms=GAME_PACE_MS):
    """The longest pulse, one a `pace_ms`, whose RMS current the coil's PTC holds, in whole ms."""
    return int(pace_ms * (options["ptc_hold_a"] / coil_amps(options)) ** 2 + 1e-6)


def shortest_pace_ms(options, pulse_ms):
    """The shortest pace, a pulse of `pulse_ms` each, whose RMS current the coil's PTC holds, in whole ms."""
    return math.ceil(pulse_ms * (coil_amps(options) / options["ptc_hold_a"]) ** 2 - 1e-6)


def pulse_problem(spec, pulse_ms, pace_ms=GAME_PACE_MS):
    """Why the coil's PTC would trip in play at pulses of `pulse_ms`, one a `pace_ms`, or None."""
    o = spec.options
    rms = coil_rms_amps(o, pulse_ms, pace_ms)
    if rms <= o["ptc_hold_a"]:
        return None
    return ("%d ms, but the coil's pulses, one a %d ms pace, then take %.3f A (RMS), more than the %.2f A its PTC "
            "holds (%s.ptc_hold_a): it would trip within a few marbles, and the release stay dead until the 5 V is "
            "unplugged; use at most %d ms" % (pulse_ms, pace_ms, rms, o["ptc_hold_a"], spec.key,
                                              longest_pulse_ms(o, pace_ms)))


def coil_problem(spec):
    """(the option at fault, why) when a solenoid's protection does not limit its on-time, or None."""
    o = spec.options
    if o["ptc_hold_a"] >= o["ptc_trip_a"]:
        return ("ptc_hold_a", "%.2f A, but a PTC's hold current is below its trip current (%.2f A)"
                % (o["ptc_hold_a"], o["ptc_trip_a"]))
    if o["ptc_hold_a"] * PTC_RATED_TIMES <= o["ptc_trip_a"]:
        return ("ptc_trip_a", "%.2f A, more than %d times the hold current (%.2f A): a PTC trips at about twice its "
                "hold current; check the datasheet's figures" % (o["ptc_trip_a"], PTC_RATED_TIMES, o["ptc_hold_a"]))
    seconds = trip_seconds(o)
    if seconds > TRIP_WITHIN_S:
        held = held_amps(o)
        return ("ptc_trip_a", "a PTC that trips at %.2f A %s a coil held on (a shorted MOSFET, a hang): it draws "
                "%.2f A (%.0f V across the coil's %g Ω and the PTC's own %g Ω), and a PTC that trips within %g s at "
                "%d times its %.2f A hold current takes %s at that; use one that trips at %.2f A or less, so the "
                "coil is cut within %d s" % (
                    o["ptc_trip_a"], "never cuts" if seconds == math.inf else "holds for %.0f s" % seconds, held,
                    COIL_VOLTS, o["coil_ohms"], o["ptc_ohms"], o["ptc_trip_s"], PTC_RATED_TIMES, o["ptc_hold_a"],
                    "for ever" if seconds == math.inf else "up to %.0f s" % seconds, largest_trip_a(o),
                    TRIP_WITHIN_S))
    if o["ptc_hold_a"] < coil_rms_amps(o):
        return ("ptc_hold_a", "a PTC that holds %.2f A trips in play: the coil's %d ms pulses, one a %d ms pace, "
                "take %.2f A (RMS): use one that holds at least that" % (o["ptc_hold_a"], GAME_PULSE_MS,
                                                                         GAME_PACE_MS, coil_rms_amps(o)))
    limit = CRADLE_LIMITS_C[o["cradle_material"]]
    if o["cutoff_c"] > limit:
        hotter = ["%s (%d °C)" % (material, c) for material, c in CRADLE_LIMITS_C.items() if c > limit]
        return ("cutoff_c", "%g °C, but the coil's cradle, printed in %s (cradle_material), bears about %d °C at most "
                "in continuous use: use a thermal switch that opens at %d °C or below%s" % (
                    o["cutoff_c"], o["cradle_material"], limit, limit,
                    ", or print the cradle in %s and set cradle_material" % " or ".join(hotter) if hotter else ""))
    return None


def check(outputs, fail):
    """Refuse, through `fail(key, problem)`, a pin above PIN_MAX_MA, an LED
    below LED_MIN_MA, a lamp above LAMP_MAX_MA or below LED_MIN_MA, and a
    header total above HEADER_MAX_MA."""
    total = 0.0
    for spec in outputs.values():
        options = spec.options
        if spec.kind == "solenoid":
            problem = coil_problem(spec)
            if problem:
                fail("%s.%s" % (spec.key, problem[0]), problem[1])
        if spec.kind in LED_KINDS:
            ma = pin_ma(spec)
            what = "%s through %s from %.1f V" % (describe_led(options), resistor_text(options["resistor"]),
                                                 PIN_VOLTS)
            if ma > PIN_MAX_MA:
                fail(spec.key + ".resistor", "%s draws %.1f mA, more than a GPIO pin's %d mA: use at least %s"
                     % (what, ma, PIN_MAX_MA, resistor_text(_ceil((PIN_VOLTS - options["vf"]) * 1000 / PIN_MAX_MA))))
            if ma < LED_MIN_MA:
                fail(spec.key + ".resistor", "%s gets %.1f mA, too dim (at least %d mA): use at most %s"
                     % (what, ma, LED_MIN_MA, resistor_text(_floor((PIN_VOLTS - options["vf"]) * 1000
                                                                    / LED_MIN_MA))))
        elif spec.kind == "buzzer":
            ma = pin_ma(spec)
            if ma > PIN_MAX_MA:
                fail(spec.key + ".base_resistor", "%s to the transistor's base draws %.1f mA, more than a GPIO "
                     "pin's %d mA: use about 1 kΩ" % (resistor_text(options["base_resistor"]), ma, PIN_MAX_MA))
            if ma < BUZZER_BASE_MIN_MA:
                fail(spec.key + ".base_resistor", "%s to the transistor's base gives it %.2f mA, too little to switch "
                     "the buzzer's 30 mA (a staff member would never hear the jam's beep): use at most %s, such as "
                     "1 kΩ" % (resistor_text(options["base_resistor"]), ma, resistor_text(
                         _floor((PIN_VOLTS - BASE_VOLTS) / BUZZER_BASE_MIN_MA * 1000))))
        elif spec.kind == "shift_register":
            ma = lamp_ma(options)
            what = "a lamp, a %s through %s from 5 V behind a ULN2803 (%.1f V)" % (
                describe_led(options, LAMP_PREFIX), resistor_text(options["lamp_resistor"]), ULN2803_DROP_VOLTS)
            volts = LAMP_SUPPLY_VOLTS - ULN2803_DROP_VOLTS - options["lamp_vf"]
            if ma > LAMP_MAX_MA:
                fail(spec.key + ".lamp_resistor", "%s, draws %.1f mA, more than an LED's %d mA: use at least %s"
                     % (what, ma, LAMP_MAX_MA, resistor_text(_ceil(volts * 1000 / LAMP_MAX_MA))))
            if ma < LED_MIN_MA:
                fail(spec.key + ".lamp_resistor", "%s, gets %.1f mA, too dim (at least %d mA): use at most %s"
                     % (what, ma, LED_MIN_MA, resistor_text(_floor(volts * 1000 / LED_MIN_MA))))
            continue
        else:
            continue
        total += ma
        if total > HEADER_MAX_MA:
            key = spec.key + (".base_resistor" if spec.kind == "buzzer" else ".resistor")
            fail(key, "this output takes the header's total to %.1f mA, more than the Pi's %d mA for all pins "
                      "together (every LED lit, an LED pair counting one): use larger resistors"
                 % (total, HEADER_MAX_MA))


def _ceil(value):
    """The whole number at or above `value`, ignoring a float's last-digit error."""
    return int(-(-(value - 1e-6) // 1))


def _floor(value):
    """The whole number at or below `value` (at least 1), ignoring a float's last-digit error."""
    return max(1, int(value + 1e-6))
