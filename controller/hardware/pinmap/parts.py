"""The parts a pin map calls for, counted: the LEDs by colour, the resistors
by value, the capacitors by value, the lamp chain's chips. The parts lists (`hardware/<machine>/bom.csv`)
must agree with these counts (a test checks), so a builder who changes the
pin map knows what to buy.

Resistors come from the pin map (each LED's, the lamps', the buzzer's base
resistor) and from the wiring every map shares: a 1 kΩ in series with every
input wired to the panel (buttons and switches), a 10 kΩ pull-up on every
input with no internal pull (the marble sensor), a solenoid's 100 Ω gate
resistor and 10 kΩ gate pull-down, and the lamp chain's 10 kΩ pull-up on the
74HC595s' OE line when a pin drives it (the lamps stay dark until the
service has cleared the chain). Capacitors: 100 nF from every input's wire to
GND (the sensor's filter; a panel input's wire side, where a static spark
meets it before its 1 kΩ), one at each 74HC595, and the spectators' display's
regulator's two 1 µF.
"""

from controller.core.exhibit import SENSOR
from controller.core.registry import machine_class

PANEL_SERIES_OHMS = 1000
EXTERNAL_PULL_OHMS = 10000
GATE_OHMS = 100
GATE_PULL_DOWN_OHMS = 10000
OE_PULL_UP_OHMS = 10000


def _add(counts, key, number=1):
    counts[key] = counts.get(key, 0) + number


FILTER_CAPACITOR = "100 nF"
REGULATOR_CAPACITOR = "1 µF"


def parts(pinmap):
    """{"leds": {colour or "2.9 V": count}, "resistors": {ohms: count}, "capacitors": {value: count},
    "chips": {name: count}}."""
    leds, resistors, capacitors, chips = {}, {}, {}, {}
    declared = dict((spec.role, spec) for spec in machine_class(pinmap.machine).inputs(pinmap.layout))
    for spec in pinmap.inputs.values():
        _add(capacitors, FILTER_CAPACITOR)
        if declared[spec.role].kind != SENSOR:
            _add(resistors, PANEL_SERIES_OHMS)
        if spec.pull == "none":
            _add(resistors, EXTERNAL_PULL_OHMS)
    for spec in pinmap.outputs.values():
        o = spec.options
        if spec.kind in ("led", "led_pair"):
            _add(leds, o["colour"] or "%g V" % o["vf"], len(spec.pins))
            _add(resistors, o["resistor"], len(spec.pins))
        elif spec.kind == "buzzer":
            _add(resistors, o["base_resistor"])
        elif spec.kind == "solenoid":
            _add(resistors, GATE_OHMS)
            _add(resistors, GATE_PULL_DOWN_OHMS)
        elif spec.kind == "shift_register":
            lamps = 2 * pinmap.rows * pinmap.lamps_per_row
            _add(leds, o["lamp_colour"] or "%g V" % o["lamp_vf"], lamps)
            _add(resistors, o["lamp_resistor"], lamps)
            _add(chips, "74HC595", o["registers"])
            _add(capacitors, FILTER_CAPACITOR, o["registers"])
            _add(capacitors, REGULATOR_CAPACITOR, 2)
            _add(chips, "ULN2803A", o["registers"])
            if "enable" in spec.pins:
                _add(resistors, OE_PULL_UP_OHMS)
    return {"leds": leds, "resistors": resistors, "capacitors": capacitors, "chips": chips}
