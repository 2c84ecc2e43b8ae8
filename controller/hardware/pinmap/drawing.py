"""The drawn wiring of a replica, generated from its pin map with schemdraw.

One schematic per machine and controller: `hardware/<machine>/wiring-pi.svg`
for the Raspberry Pi's 40-pin header, `wiring-pico.svg` for a Pico running
the firmware (from the map's `[pico]` section). The header is drawn on the
left with every pin used, by its GPIO (or GP) number inside and its
physical pin number outside; each pin's circuit runs to the right of it,
with the part values of the pin map (each LED's resistor) and of the wiring
every map shares (parts.py); the supplies and the common ground are drawn
below. `python -m controller.hardware.pinmap --write-docs` rewrites the
drawings with the tables, and a test fails when a committed drawing no
longer matches its pin map, so the output is deterministic: no dates, no
random ids, fixed coordinates.

schemdraw is imported when a drawing is made, so the Pi service never needs it.
"""

from pathlib import Path

from controller.core.exhibit import SENSOR
from controller.core.registry import machine_class
from controller.hardware.pinmap.electrical import resistor_text
from controller.hardware.pinmap.model import HEADER, display_registers
from controller.hardware.pinmap.parts import (EXTERNAL_PULL_OHMS, FILTER_CAPACITOR, GATE_OHMS, GATE_PULL_DOWN_OHMS,
                                              OE_PULL_UP_OHMS, PANEL_SERIES_OHMS)
from controller.hardware.pinmap.pico import PICO_GROUNDS, PICO_HEADER, PICO_SUPPLY

SLOT = 1.5            # the distance between two pins of the drawn header, in drawing units
TEXT_X = 21.5         # where the column of descriptions starts, right of the circuits
MOSFET = "IRF3708PbF"  # fully on at a 3.3 V gate: under 29 mΩ at 2.8 V (IRLZ44N: specified at 4-5 V)
FILES = {"pi": "wiring-pi.svg", "pico": "wiring-pico.svg"}


class Controller:
    """What a drawing needs to know of the board: its title, how a pin is
    named, its physical number, and where its 3.3 V and GND are."""

    def __init__(self, title, prefix, physical, supply, ground, grounds, note):
        self.title = title
        self.grounds = grounds
        self.prefix = prefix
        self.physical = physical
        self.supply = supply
        self.ground = ground
        self.note = note


CONTROLLERS = {
    "pi": Controller("Raspberry Pi, 40-pin header (BCM numbers inside, header pins outside)", "GPIO %d", HEADER,
                     ("3.3 V", "1"), ("GND", "6"), "6, 9, 14, 20, 25, 30, 34 or 39",
                     "The Pi has its own USB supply; never feed the coils, servos or lamps from its 5 V pins."),
    "pico": Controller("Raspberry Pi Pico (GP numbers inside, board pins outside)", "GP%d", PICO_HEADER,
                       (PICO_SUPPLY[0], str(PICO_SUPPLY[1])), ("GND", str(PICO_GROUNDS[0])),
                       "%s or %d" % (", ".join(map(str, sorted(PICO_GROUNDS)[:-1])), max(PICO_GROUNDS)),
                       "The Pico runs from its USB lead; never feed the coils, servos or lamps from VBUS or VSYS."),
}


class Stage:
    """One output's or input's circuit: the header pins it uses (name, number),
    the empty slots it needs above its first pin and below its last, and the
    function that draws it from the pins' ends."""

    def __init__(self, spec, pins, draw, above=0, below=0, text=None):
        self.spec = spec
        self.pins = pins
        self.draw = draw
        self.above = above
        self.below = below
        self.text = "%s: %s" % (spec.role, spec.label) if text is None else text


class Sheet:
    """A schemdraw Drawing with the few moves the stages need, all at absolute points."""

    def __init__(self):
        import schemdraw
        import schemdraw.elements as elm
        schemdraw.use("svg")
        self.elm = elm
        self.d = schemdraw.Drawing(show=False)
        self.d.config(unit=2, fontsize=11, font="sans-serif", lw=1.5)

    def add(self, element):
        self.d.add(element)
        return element

    def line(self, a, b, dashed=False):
        line = self.elm.Line().at(a).to(b)
        return self.add(line.linestyle("--") if dashed else line)

    def part(self, name, a, direction, length=2.0, label=None, loc="top", reverse=False, **kwargs):
        """A two-terminal part from point `a` in `direction` (right, left, up, down)."""
        element = getattr(self.elm, name)(**kwargs).at(a)
        element = getattr(element, direction)().length(length)
        if reverse:
            element = element.reverse()
        if label:
            element = element.label(label, loc=loc, fontsize=10)
        return self.add(element)

    def dot(self, a):
        self.add(self.elm.Dot(radius=0.08).at(a))

    def ground(self, a, drop=0.0):
        """A ground symbol at `a`, hung `drop` below it on a short wire."""
        if drop:
            self.line(a, (a[0], a[1] - drop))
        self.add(self.elm.Ground(lead=False).at((a[0], a[1] - drop)))

    def supply(self, a, text):
        self.add(self.elm.Vdd(lead=False).at(a).label(text, fontsize=10))

    def text(self, a, text, size=10, halign="left", valign="center"):
        self.add(self.elm.Label().at(a).label(text, halign=halign, valign=valign, fontsize=size))

    def chip(self, pins, size, a, anchor, inside=None):
        """A block with its pins (each a dict of schemdraw's IcPin), its pin
        `anchor` at point `a`, and `inside` written in its middle."""
        chip = self.elm.Ic(pins=[self.elm.IcPin(**pin) for pin in pins], size=size, pinspacing=SLOT, plblsize=9,
                           lsize=10)
        chip = chip.right().at(a).anchor(anchor)
        return self.add(chip.label(inside, loc="center", fontsize=10) if inside else chip)

    def box(self, a, pins, title, size):
        """A small part (a servo, a receiver, a buzzer) with its pins, its title on its right."""
        chip = self.chip(pins, size, a, pins[0]["anchorname"])
        if title:
            self.text((chip.get_bbox(transform=True, includetext=False).xmax + 0.3, a[1]), title, size=9)
        return chip

    def svg(self, right):
        """The drawing as SVG text, at least as wide as `right`: schemdraw
        underestimates the width of a long line of text at the right edge."""
        top = self.d.get_bbox().ymax
        self.add(self.elm.Line().at((right, top)).to((right, top - 0.01)).color("white"))
        svg = self.d.get_imagedata("svg").decode("utf-8")
        head, rest = svg.split("\n", 1) if svg.startswith("<?xml") else ("", svg)
        return (head + "\n" if head else "") + "<!-- SPDX-License-Identifier: CERN-OHL-P-2.0 -->\n" + rest


def _right(p, dx):
    return (p[0] + dx, p[1])


def _up(p, dy):
    return (p[0], p[1] + dy)


# --- the stages ---------------------------------------------------------------

def _panel_input(sheet, ends, spec, switch):
    """GPIO -- 1 kΩ at the Pi -- the wire, with 100 nF to GND on its side of the resistor (a
    static spark's current goes to ground) -- button (or toggle) -- the level it is active at
    (GND for active low); the Pi's internal pull holds the pin, or with pull "none" an
    external 10 kΩ drawn at the Pi."""
    p = ends[0]
    sheet.part("Resistor", _right(p, 0.5), "right", label=resistor_text(PANEL_SERIES_OHMS))
    sheet.line(p, _right(p, 0.5))
    wire = _right(p, 2.5)
    sheet.dot(wire)
    capacitor = sheet.part("Capacitor", wire, "down", 1.0, label=FILTER_CAPACITOR, loc="bottom")
    sheet.ground(capacitor.absanchors["end"])
    part = sheet.part("Switch" if switch else "Button", _right(p, 2.5), "right", 2.5)
    end = _right(part.absanchors["end"], 0.5)
    sheet.line(part.absanchors["end"], end)
    if spec.active == "high":
        sheet.supply(end, "3.3 V")
    else:
        sheet.ground(end, 0.3)
    if spec.pull == "none":
        sheet.dot(_right(p, 0.25))
        _external_pull(sheet, _right(p, 0.25), spec)


def _external_pull(sheet, node, spec):
    """The 10 kΩ that holds an input with no internal pull at its inactive level."""
    pull_up = spec.active == "low"
    way = "up" if pull_up else "down"
    resistor = sheet.part("Resistor", node, way, 1.5, label="%s pull-%s" % (resistor_text(EXTERNAL_PULL_OHMS), way),
                          loc="bottom")
    if pull_up:
        sheet.supply(resistor.absanchors["end"], "3.3 V")
    else:
        sheet.ground(resistor.absanchors["end"])


def _sensor(sheet, ends, spec):
    """GPIO with its 10 kΩ pull (when it has no internal one) and 100 nF to GND
    at the Pi, the receiver powered from 3.3 V, the emitter from 5 V."""
    p = ends[0]
    node, cap = _right(p, 1.5), _right(p, 3.0)
    sheet.line(p, _right(p, 5.0))
    sheet.dot(cap)
    if spec.pull == "none":
        sheet.dot(node)
        _external_pull(sheet, node, spec)
    capacitor = sheet.part("Capacitor", cap, "down", 1.5, label="100 nF", loc="bottom")
    sheet.ground(capacitor.absanchors["end"])
    receiver = sheet.box(_right(p, 5.0), [
        {"name": "OUT", "pin": "white", "side": "left", "anchorname": "out"},
        {"name": "VCC", "pin": "red", "side": "top", "anchorname": "vcc"},
        {"name": "GND", "pin": "black", "side": "bottom", "anchorname": "gnd"}], "IR receiver", (1.8, 1.4))
    sheet.supply(receiver.absanchors["vcc"], "3.3 V")
    sheet.ground(receiver.absanchors["gnd"])
    emitter = (p[0] + 10.5, p[1] + 1.0)
    sheet.supply(emitter, "+5 V")
    led = sheet.part("LED", emitter, "down", 2.0, label="IR emitter (red, black)", loc="bottom")
    sheet.ground(led.absanchors["end"])


def _led(sheet, p, spec, side=None):
    """GPIO -- resistor -- LED -- GND (active high), or 3.3 V -- resistor -- LED -- GPIO (active low)."""
    o = spec.options
    what = "%s LED" % (o["colour"] or "%g V" % o["vf"])
    if side:
        what = "%s, %s" % (side, what)
    sheet.line(p, _right(p, 0.5))
    if spec.active_high:
        sheet.part("Resistor", _right(p, 0.5), "right", label=resistor_text(o["resistor"]))
        led = sheet.part("LED", _right(p, 2.5), "right", 2.0)
        end = _right(led.absanchors["end"], 0.5)
        sheet.line(led.absanchors["end"], end)
        sheet.ground(end, 0.3)
    else:
        led = sheet.part("LED", _right(p, 0.5), "right", 2.0, reverse=True)
        resistor = sheet.part("Resistor", led.absanchors["end"], "right", label=resistor_text(o["resistor"]))
        end = resistor.absanchors["end"]
        sheet.supply(end, "3.3 V")
    sheet.text(_right(end, 0.8), what, size=9)


def _solenoid(sheet, p, options, dashed=False):
    """GPIO -- 100 Ω -- gate of the MOSFET, 10 kΩ gate to GND; the coil from +5 V, through the
    thermal switch and the PTC that limit its on-time whatever the MOSFET does, to the drain,
    with its flyback diode across it (band to the coil's + end); source to GND."""
    gate = _right(p, 3.0)
    sheet.line(p, _right(p, 0.5), dashed)
    sheet.part("Resistor", _right(p, 0.5), "right", 2.0, label=resistor_text(GATE_OHMS))
    sheet.line(_right(p, 2.5), _right(gate, 1.0))
    sheet.dot(gate)
    pull_down = sheet.part("Resistor", gate, "down", 1.5, label=resistor_text(GATE_PULL_DOWN_OHMS), loc="bottom")
    sheet.ground(pull_down.absanchors["end"])
    fet = sheet.add(sheet.elm.NFet().right().reverse().at(_right(gate, 1.0)).anchor("gate").label(MOSFET, loc="right",
                                                                                          fontsize=10))
    drain, source = fet.absanchors["drain"], fet.absanchors["source"]
    sheet.ground(source)
    top = _up(drain, 0.5)
    sheet.line(drain, top)
    sheet.dot(top)
    coil = sheet.part("Inductor2", top, "up", 2.0, label="solenoid", loc="bottom")
    ptc = sheet.part("Thermistor", coil.absanchors["end"], "up", 1.5, loc="bottom",
                     label="PTC %.2f A (trips %.2f A)" % (options["ptc_hold_a"], options["ptc_trip_a"]))
    cutoff = sheet.part("Switch", ptc.absanchors["end"], "up", 1.5, loc="bottom",
                        label="thermal switch %g °C, on the coil" % options["cutoff_c"])
    sheet.supply(cutoff.absanchors["end"], "+5 V")
    diode_x = top[0] + 2.0
    sheet.line(top, (diode_x, top[1]))
    sheet.part("Diode", (diode_x, top[1]), "up", 2.0, label="1N4007", loc="bottom")
    sheet.line(coil.absanchors["end"], (diode_x, top[1] + 2.0))
    sheet.dot(coil.absanchors["end"])


def _servo(sheet, p, title, dashed=False, capacitor=True):
    """GPIO -- the servo's signal wire (orange); red to +5 V, brown to GND, 470 µF across the supply."""
    start = _right(p, 4.5)
    sheet.line(p, start, dashed)
    servo = sheet.box(start, [
        {"name": "SIG", "pin": "orange", "side": "left", "anchorname": "signal"},
        {"name": "V+", "pin": "red", "side": "top", "anchorname": "vcc"},
        {"name": "GND", "pin": "brown", "side": "bottom", "anchorname": "gnd"}], title, (2.6, 1.4))
    sheet.supply(servo.absanchors["vcc"], "+5 V")
    sheet.ground(servo.absanchors["gnd"])
    if capacitor:
        at = _right(p, 13.0)
        sheet.supply(_up(at, 1.0), "+5 V")
        cap = sheet.part("Capacitor", _up(at, 1.0), "down", 2.0, label="470 µF", loc="bottom", polar=True)
        sheet.ground(cap.absanchors["end"])


def _release(sheet, ends, spec):
    """The release as built (solid) and the other way (dashed): the MOSFET stage or the servo gate."""
    p, other = ends[0], ends[2]
    if spec.kind == "solenoid":
        _solenoid(sheet, p, spec.options)
        _servo(sheet, other, "or: SG90 servo gate", dashed=True)
    else:
        from controller.hardware.pinmap.check import KINDS
        _servo(sheet, p, "SG90 servo gate")
        _solenoid(sheet, other, dict((option.name, option.default) for option in KINDS["solenoid"].options),
                  dashed=True)
    sheet.line(_right(p, 0.25), _right(other, 0.25), dashed=True)
    sheet.dot(_right(p, 0.25))


def _buzzer(sheet, ends, spec):
    """GPIO -- base resistor -- NPN base; emitter to GND; the buzzer from +5 V to the
    collector with a 1N4148 across it (band to +5 V)."""
    p = ends[0]
    sheet.line(p, _right(p, 0.5))
    sheet.part("Resistor", _right(p, 0.5), "right", 2.0, label=resistor_text(spec.options["base_resistor"]))
    sheet.line(_right(p, 2.5), _right(p, 3.5))
    npn = sheet.add(sheet.elm.BjtNpn().right().at(_right(p, 3.5)).anchor("base").label("2N2222 / BC337", loc="right",
                                                                                  fontsize=10))
    sheet.ground(npn.absanchors["emitter"])
    top = _up(npn.absanchors["collector"], 0.5)
    sheet.line(npn.absanchors["collector"], top)
    sheet.dot(top)
    buzzer = sheet.box(top, [
        {"name": "-", "side": "bottom", "anchorname": "minus"},
        {"name": "+", "side": "top", "anchorname": "plus"}], "", (1.0, 1.0))
    sheet.text((top[0] - 0.7, top[1] + 1.0), "active buzzer", size=9, halign="right")
    sheet.supply(buzzer.absanchors["plus"], "+5 V")
    diode_x = top[0] + 1.6
    sheet.line(top, (diode_x, top[1]))
    plus = buzzer.absanchors["plus"]
    sheet.part("Diode", (diode_x, top[1]), "up", plus[1] - top[1], label="1N4148", loc="bottom")
    sheet.line(plus, (diode_x, plus[1]))
    sheet.dot(plus)


CHAIN_LEFT = (("enable", "OE", "13"), ("data", "SER", "14"), ("clock", "SRCLK", "11"), ("latch", "RCLK", "12"))
QH = "ABCDEFGH"
QH_PINS = ("15", "1", "2", "3", "4", "5", "6", "7")


def _lamp_chain(sheet, ends, spec, names, pinmap):
    """The first 74HC595 and its ULN2803 with their eight lamps; the others are the same."""
    o = spec.options
    x = ends[0][0] + 4.0
    rows = [end[1] for end in ends]
    top = max(rows) + (SLOT if "enable" not in names else 0)
    left = dict((name, end) for name, end in zip(names, ends))
    chip_pins = []
    for slot, (name, chip_name, number) in enumerate(CHAIN_LEFT):
        chip_pins.append({"name": chip_name, "pin": number, "side": "left", "slot": "%d/9" % (9 - slot),
                          "anchorname": chip_name, "invert": name == "enable"})
    chip_pins.append({"name": "SRCLR", "pin": "10", "side": "left", "slot": "5/9", "anchorname": "SRCLR",
                      "invert": True})
    for i, number in enumerate(QH_PINS):
        chip_pins.append({"name": "Q" + QH[i], "pin": number, "side": "right", "slot": "%d/9" % (9 - i),
                          "anchorname": "Q" + QH[i]})
    chip_pins.append({"name": "QH'", "pin": "9", "side": "right", "slot": "1/9", "anchorname": "QH'"})
    chip_pins.append({"name": "VCC", "pin": "16", "side": "top", "anchorname": "VCC"})
    chip_pins.append({"name": "GND", "pin": "8", "side": "bottom", "anchorname": "GND"})
    chip = sheet.chip(chip_pins, (3.8, 9 * SLOT), (x, top), "OE", "U1\n74HC595")
    for name, chip_name, number in CHAIN_LEFT:
        if name in left:
            sheet.line(left[name], chip.absanchors[chip_name])
    if "enable" in left:
        node = _right(left["enable"], 1.5)
        sheet.dot(node)
        pull_up = sheet.part("Resistor", node, "up", 1.5, label=resistor_text(OE_PULL_UP_OHMS), loc="bottom")
        sheet.supply(pull_up.absanchors["end"], "3.3 V")
    else:
        oe = chip.absanchors["OE"]
        sheet.line(oe, _right(oe, -1.0))
        sheet.ground(_right(oe, -1.0))
        sheet.text(_right(oe, -1.3), "OE to GND", size=9, halign="right")
    srclr = chip.absanchors["SRCLR"]
    sheet.line(srclr, _right(srclr, -1.0))
    sheet.supply(_right(srclr, -1.0), "3.3 V")
    vcc = chip.absanchors["VCC"]
    sheet.line(vcc, _up(vcc, 0.9))
    sheet.supply(_up(vcc, 0.9), "3.3 V")
    cap = sheet.part("Capacitor", _up(vcc, 0.4), "left", 1.4, label="100 nF", loc="top")
    sheet.dot(_up(vcc, 0.4))
    sheet.ground(cap.absanchors["end"])
    sheet.ground(chip.absanchors["GND"])
    driver_pins = []
    for i in range(8):
        driver_pins.append({"name": "IN%d" % (i + 1), "pin": str(i + 1), "side": "left",
                            "slot": "%d/9" % (9 - i), "anchorname": "IN%d" % (i + 1)})
        driver_pins.append({"name": "OUT%d" % (i + 1), "pin": str(18 - i), "side": "right",
                            "slot": "%d/9" % (9 - i), "anchorname": "OUT%d" % (i + 1)})
    driver_pins.append({"name": "COM", "pin": "10", "side": "top", "anchorname": "COM"})
    driver_pins.append({"name": "GND", "pin": "9", "side": "bottom", "anchorname": "GND"})
    qa = chip.absanchors["QA"]
    driver = sheet.chip(driver_pins, (3.6, 9 * SLOT), _right(qa, 1.5), "IN1", "ULN2803A")
    for i in range(8):
        sheet.line(chip.absanchors["Q" + QH[i]], driver.absanchors["IN%d" % (i + 1)])
        out = driver.absanchors["OUT%d" % (i + 1)]
        led = sheet.part("LED", out, "right", 1.6, reverse=True)
        resistor = sheet.part("Resistor", led.absanchors["end"], "right", 1.6,
                              label=resistor_text(o["lamp_resistor"]) if i == 0 else None)
        sheet.line(resistor.absanchors["end"], _right(resistor.absanchors["end"], 0.4))
    rail_x = out[0] + 3.6
    first = driver.absanchors["OUT1"]
    sheet.line((rail_x, out[1]), (rail_x, first[1] + 1.0))
    sheet.supply((rail_x, first[1] + 1.0), "+5 V")
    sheet.supply(driver.absanchors["COM"], "+5 V")
    sheet.ground(driver.absanchors["GND"])
    sheet.text((rail_x + 0.6, first[1] - 2 * SLOT), "each lamp: a %s LED and %s from +5 V" % (
        o["lamp_colour"] or "%g V" % o["lamp_vf"], resistor_text(o["lamp_resistor"])), size=9)
    sheet.text((rail_x + 0.6, ends[0][1]), "%s: %s" % (spec.role, spec.label), size=10)
    qh = chip.absanchors["QH'"]
    sheet.line(qh, _right(qh, 0.8))
    sheet.text(_right(qh, 0.9), "to SER (14) of U2", size=9)
    registers = o["registers"]
    console = display_registers(pinmap.rows, pinmap.lamps_per_row)
    return ["U1 drawn; U2-U%d the same: QH' (9) to SER (14) of the next chip, SRCLK and RCLK%s of every chip "
            "on the same wires%s." % (registers, " and OE" if "enable" in left else "",
                                      "" if "enable" in left else ", OE (13) of every chip to GND"),
            "U%d-U%d on the spectators' display: the ribbon carries QH' of U%d, SRCLK, RCLK%s, +5 V and GND; "
            "an MCP1700-3302E there makes their 3.3 V (wiring.md)." % (
                console + 1, registers, console, ", OE" if "enable" in left else "")]


# --- the sheet -----------------------------------------------------------------

def stages(pinmap, pins_of):
    """The stages of a pin map, inputs first, each with its header pins.
    `pins_of(role)` gives a role's {pin name: number} on the drawn board."""
    cls = machine_class(pinmap.machine)
    declared = dict((spec.role, spec) for spec in cls.inputs(pinmap.layout))
    out = []
    for spec in pinmap.inputs.values():
        pin = pins_of(spec.role)["pin"]
        kind = declared[spec.role].kind
        if kind == SENSOR:
            out.append(Stage(spec, [pin], lambda sheet, ends, spec=spec: _sensor(sheet, ends, spec), 1, 1))
        else:
            switch = kind == "switch"
            out.append(Stage(spec, [pin], lambda sheet, ends, spec=spec, switch=switch:
                             _panel_input(sheet, ends, spec, switch), 0, 1))
    notes = []
    for spec in pinmap.outputs.values():
        pins = pins_of(spec.role)
        if spec.kind == "led":
            out.append(Stage(spec, [pins["pin"]], lambda sheet, ends, spec=spec: _led(sheet, ends[0], spec)))
        elif spec.kind == "led_pair":
            out.append(Stage(spec, [pins["left"], pins["right"]], lambda sheet, ends, spec=spec: (
                _led(sheet, ends[0], spec, "left"), _led(sheet, ends[1], spec, "right"))))
        elif spec.kind == "buzzer":
            out.append(Stage(spec, [pins["pin"]], lambda sheet, ends, spec=spec: _buzzer(sheet, ends, spec), 2, 1))
        elif spec.role == "release":
            out.append(Stage(spec, [pins["pin"], None, None], lambda sheet, ends, spec=spec: _release(
                sheet, ends, spec), 5, 1))
        elif spec.kind == "servo":
            out.append(Stage(spec, [pins["pin"]], lambda sheet, ends, spec=spec: _servo(
                sheet, ends[0], "SG90 servo flipper", capacitor=False), 1, 1))
        elif spec.kind == "shift_register":
            names = [name for name, _, _ in CHAIN_LEFT if name in pins]
            out.append(Stage(spec, [pins[name] for name in names], lambda sheet, ends, spec=spec, names=names:
                             notes.extend(_lamp_chain(sheet, ends, spec, names, pinmap)),
                             2, 9 - len(names) + 1, text=""))
    return out, notes


def draw(pinmap, board="pi", pico_pins=None):
    """The SVG text of the schematic of `pinmap` on `board` ("pi" or "pico":
    then `pico_pins` from load_pico)."""
    controller = CONTROLLERS[board]
    if board == "pi":
        def pins_of(role):
            if role in pinmap.inputs:
                return {"pin": pinmap.inputs[role].pin}
            return pinmap.outputs[role].pins
    else:
        def pins_of(role):
            return pico_pins[role]
    sheet = Sheet()
    found, notes = stages(pinmap, pins_of)
    places = []
    slot = 0
    for stage in found:
        slot += stage.above
        places.append([slot + i for i in range(len(stage.pins))])
        slot += len(stage.pins) + stage.below
    total = slot + 1
    header_pins = []
    for stage, place in zip(found, places):
        for pin, at in zip(stage.pins, place):
            if pin is not None:
                header_pins.append({"name": controller.prefix % pin, "pin": str(controller.physical[pin]),
                                    "side": "right", "slot": "%d/%d" % (total - at, total), "anchorname": "p%d" % pin})
    header_pins.append({"name": controller.supply[0], "pin": controller.supply[1], "side": "left",
                        "slot": "%d/%d" % (total, total), "anchorname": "supply"})
    header_pins.append({"name": controller.ground[0], "pin": controller.ground[1], "side": "left",
                        "slot": "1/%d" % total, "anchorname": "ground"})
    header = sheet.chip(header_pins, (4.4, total * SLOT), (0, 0), "supply")
    box = header.get_bbox(transform=True, includetext=False)
    sheet.text((box.xmin, box.ymax + 0.6), controller.title, size=11)
    supply = header.absanchors["supply"]
    x = header.absanchors["p%d" % found[0].pins[0]][0] + 0.3
    for stage, place in zip(found, places):
        ends = []
        for pin, at in zip(stage.pins, place):
            end = (x, supply[1] - SLOT * at)
            if pin is not None:
                sheet.line(header.absanchors["p%d" % pin], end)
            ends.append(end)
        stage.draw(sheet, ends, stage.spec)
        if stage.text:
            sheet.text((TEXT_X, ends[0][1]), stage.text, size=10)
    sheet.line(supply, _right(supply, -1.0))
    sheet.supply(_right(supply, -1.0), controller.supply[0].split("(")[0])
    ground = header.absanchors["ground"]
    corner = _right(ground, -1.0)
    bottom = _up(corner, -5.0)
    sheet.line(ground, corner)
    sheet.line(corner, bottom)
    # the 5 V supply, its fuse and the common ground
    source = sheet.part("SourceV", (bottom[0] + 3.0, bottom[1]), "up", 2.5,
                        label="5 V plug-in supply\n(closed, certified)", loc="bottom")
    sheet.line(bottom, (bottom[0] + 3.0, bottom[1]))
    sheet.dot(bottom)
    sheet.ground(_up(bottom, 0))
    fuse = sheet.part("Fuse", source.absanchors["end"], "right", 2.5, label="T2A fuse")
    sheet.line(fuse.absanchors["end"], _right(fuse.absanchors["end"], 1.0))
    sheet.supply(_right(fuse.absanchors["end"], 1.0), "+5 V")
    lines = [
        "Every +5 V is the plug-in supply's, after the fuse; every 3.3 V is the %s pin." % controller.supply[0],
        "Every ground symbol is one common ground: the supply's minus joined to a GND pin (%s)."
        % controller.grounds,
        controller.note,
        "Buttons and switches: the 1 kΩ sits at the board end of the wire, the 100 nF on the wire's side of it;",
        "the internal pull (or the 10 kΩ drawn) holds the pin; a toggle's bushing is grounded by a lug.",
    ] + notes + ["Dashed: the other way to build the release."] * any(None in s.pins for s in found)
    for i, text in enumerate(lines):
        sheet.text((bottom[0] + 13.0, bottom[1] + 2.4 - 0.6 * i), text, size=9)
    return sheet.svg(TEXT_X + 12.0)


def drawings(path):
    """{file name: SVG text} for the pin map at `path`: the Pi's, and the Pico's
    when the map has a [pico] section."""
    from controller.hardware.pinmap.check import load_pinmap
    from controller.hardware.pinmap.pico import load_pico
    import tomllib
    pinmap = load_pinmap(path)
    out = {FILES["pi"]: draw(pinmap, "pi")}
    if "pico" in tomllib.loads(Path(path).read_text(encoding="utf-8")):
        _, pins, _ = load_pico(path, refuse_pull_downs=False)
        out[FILES["pico"]] = draw(pinmap, "pico", pins)
    return out
