"""The tables of each machine's `wiring.md` (and the priced parts list and the
Pico's pins of its `README.md`, and the boards' sizes of its `parts/README.md`),
generated from its pin map (and its bom.csv).

Each generated section of a page lies between `<!-- NAME:begin -->`
and `<!-- NAME:end -->`; `render_wiring_doc` refills them, and a test fails
when a committed table no longer matches its pin map.
"""

from controller.core.exhibit import SENSOR
from controller.core.registry import machine_class
from controller.hardware.pinmap import electrical
from controller.hardware.pinmap.bom import cost_text, parts_table, plywood, plywood_text
from controller.hardware.pinmap.labels import label_table
from controller.hardware.pinmap.model import HEADER, HEADER_PINS, SPECIAL, display_registers
from controller.hardware.pinmap.pico import PICO_GROUNDS, PICO_HEADER, PICO_SUPPLY, load_pico

# The 74HC595 pin each shift-register line goes to.
SHIFT_REGISTER_PINS = {
    "data": "SER (pin 14) of the first 74HC595",
    "clock": "SRCLK (pin 11) of every 74HC595",
    "latch": "RCLK (pin 12) of every 74HC595",
    "enable": "OE (pin 13) of every 74HC595, with a 10 kΩ pull-up to 3.3 V: the lamps stay dark until the "
              "service has cleared the chain",
}


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _input_notes(spec, declared):
    when = declared.means
    if declared.kind == SENSOR:
        pull = {"up": "internal pull-up", "down": "internal pull-down",
                "none": "external 10 kΩ pull-%s to %s and 100 nF to GND, at the Pi"
                        % (("up", "3.3 V") if spec.active == "low" else ("down", "GND"))}[spec.pull]
        return "%s; reads %s when %s; debounce %s ms; pulses under %d ms ignored" % (
            pull, spec.active, when, _number(spec.debounce_ms), spec.min_pulse_ms)
    pull = {"up": "internal pull-up", "down": "internal pull-down",
            "none": "no internal pull (external resistor)"}[spec.pull]
    return "1 kΩ in series, 100 nF to GND on the wire's side; %s; reads %s when %s; debounce %s ms; pulses " \
           "under %d ms ignored" % (pull, spec.active, when, _number(spec.debounce_ms), spec.min_pulse_ms)


def _number(value):
    return ("%g" % value) if isinstance(value, float) else str(value)


def _output_notes(spec, name):
    level = "high" if spec.active_high else "low"
    if spec.kind == "solenoid":
        o = spec.options
        return "MOSFET gate, through 100 Ω, with 10 kΩ gate to GND; energised when %s; the coil (%.2f A alone, " \
               "%.2f A with the PTC's %g Ω) through a %.2f A PTC (trips at %.2f A: within %.0f s of a coil held on) " \
               "and a %g °C thermal switch, for a cradle printed in %s" % (
                   level, electrical.coil_amps(o), electrical.held_amps(o), o["ptc_ohms"], o["ptc_hold_a"],
                   o["ptc_trip_a"], electrical.trip_seconds(o), o["cutoff_c"], o["cradle_material"])
    if spec.kind == "servo":
        o = spec.options
        angles = ("closed %s°, open %s°" % (_number(o["closed_angle"]), _number(o["open_angle"]))
                  if "closed_angle" in o else
                  "left %s°, right %s°" % (_number(o["left_angle"]), _number(o["right_angle"])))
        return "servo signal wire; %s; pulses %s-%s ms; servo powered from the 5 V supply" % (
            angles, _number(o["min_pulse_ms"]), _number(o["max_pulse_ms"]))
    if spec.kind in ("led", "led_pair"):
        resistor = electrical.resistor_text(spec.options["resistor"])
        led = "%s LED" % (spec.options["colour"] or "%g V" % spec.options["vf"])
        path = ("pin → %s → %s → GND" if spec.active_high else "3.3 V → %s → %s → pin") % (resistor, led)
        return "%s%s; %.1f mA; lit when %s" % ("%s LED: " % name if spec.kind == "led_pair" else "", path,
                                               electrical.pin_ma(spec), level)
    if spec.kind == "buzzer":
        return "NPN transistor base, through %s (%.1f mA); sounds when %s" % (
            electrical.resistor_text(spec.options["base_resistor"]), electrical.pin_ma(spec), level)
    if spec.kind == "shift_register":
        note = SHIFT_REGISTER_PINS[name]
        if name == "data":
            note += "; %d registers chained, QH' to the next SER" % spec.options["registers"]
        return note
    return ""


def wiring_rows(pinmap):
    """(role, label, BCM, header pin, direction, kind, notes) for every pin, in file order."""
    rows = []
    declared = dict((spec.role, spec) for spec in machine_class(pinmap.machine).inputs(pinmap.layout))
    for spec in pinmap.inputs.values():
        role = declared[spec.role]
        rows.append((spec.role, spec.label, spec.pin, HEADER[spec.pin], "input", role.kind, _input_notes(spec, role)))
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
        use = used.get(what) or _cell(pinmap.reserved.get(what, "")) or SPECIAL.get(what, "free")
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


def current_table(pinmap):
    """What the outputs draw from the header at most, and the lamps' current, as Markdown."""
    out = ["| output | draws from the header |", "| --- | ---: |"]
    for spec in pinmap.outputs.values():
        ma = electrical.pin_ma(spec)
        if ma:
            out.append("| `%s` | %.1f mA |" % (spec.role, ma))
    out.append("| **all together** (every LED lit, an LED pair counting one; at most %d mA) | **%.1f mA** |"
               % (electrical.HEADER_MAX_MA, electrical.header_ma(pinmap.outputs)))
    spec = pinmap.lamp_chain
    if spec is not None:
        lamps = 2 * pinmap.rows * pinmap.lamps_per_row
        ma = electrical.lamp_ma(spec.options)
        out += ["", "Each lamp: a %s through %s from 5 V, less the ULN2803's %.1f V: %.1f mA, from the 5 V "
                    "supply, not the header; %d lamps draw %.2f A at most."
                % (electrical.describe_led(spec.options, electrical.LAMP_PREFIX),
                   electrical.resistor_text(spec.options["lamp_resistor"]), electrical.ULN2803_DROP_VOLTS, ma,
                   lamps, lamps * ma / 1000)]
    return "\n".join(out) + "\n"


def _pins_text(pins):
    """Pins that do the same (a board's grounds): the first, the others in brackets."""
    return "%d (or %s)" % (pins[0], ", ".join(map(str, pins[1:]))) if len(pins) > 1 else "%d" % pins[0]


def _header_pins(name):
    """The header's pins that are `name` ("GND", "3.3 V"), as _pins_text gives them."""
    return _pins_text([pin for pin, what in HEADER_PINS.items() if what == name])


def pico_table(pinmap):
    """The Markdown table of the assembly guide's Pico section: each pin of the Pi's wiring
    (role, label, BCM, header pin) beside the Pico's in its place (GP number, board pin),
    from the map's `[pico]` section, and where the 3.3 V and GND come from on each board."""
    _, pico, _ = load_pico(pinmap.path, pinmap.machine)
    out = ["| role | label | on the Pi | header pin | on the Pico | board pin |",
           "| --- | --- | --- | ---: | --- | ---: |",
           "| | the GND rail | GND | %s | GND | %s |" % (_header_pins("GND"), _pins_text(PICO_GROUNDS)),
           "| | 3.3 V from the board | 3.3 V | %s | %s | %d |" % (_header_pins("3.3 V"), *PICO_SUPPLY)]
    for role, label, bcm, header, direction, kind, notes in wiring_rows(pinmap):
        owner, _, name = role.partition(".")
        if kind == "shift_register":
            label += ": to " + SHIFT_REGISTER_PINS[name].split(",")[0]
        gp = pico[owner].get(name or "pin")
        # only a shift register's OE may be left out of [pico]; the board then needs it grounded
        pico_cells = "GP%d | %d" % (gp, PICO_HEADER[gp]) if gp is not None else "none: OE to GND | "
        out.append("| `%s` | %s | GPIO %d | %d | %s |" % (role, _cell(label), bcm, header, pico_cells))
    return "\n".join(out) + "\n"


QH_NAMES = "ABCDEFGH"


def lamp_outputs(pinmap):
    """The Nimatron's lamps by shift-register output: {output: (display, row, lamp)}.

    The console's lamps row by row from output 0 (the first 74HC595's QA),
    then the same again for the spectators' display from the first output of
    the next whole chip: each display has chips of its own."""
    stride = 8 * display_registers(pinmap.rows, pinmap.lamps_per_row)
    order = {}
    for number, display in enumerate(("console", "spectators")):
        output = number * stride
        for row in range(1, pinmap.rows + 1):
            for lamp in range(1, pinmap.lamps_per_row + 1):
                order[output] = (display, row, lamp)
                output += 1
    return order


def lamp_table(pinmap):
    """Which 74HC595 output (U1 is the chip wired to the Pi) lights which lamp, as a Markdown grid."""
    if not pinmap.rows:
        return ""
    grid = {}
    for output, (display, row, lamp) in lamp_outputs(pinmap).items():
        grid[display, row, lamp] = "U%d Q%s" % (output // 8 + 1, QH_NAMES[output % 8])
    lamps = range(1, pinmap.lamps_per_row + 1)
    out = ["| display | row | " + " | ".join("lamp %d" % lamp for lamp in lamps) + " |",
           "| --- | ---: | " + " | ".join("---" for lamp in lamps) + " |"]
    for display in ("console", "spectators"):
        for row in range(1, pinmap.rows + 1):
            out.append("| %s | %d | %s |" % (display, row, " | ".join(grid[display, row, lamp] for lamp in lamps)))
    return "\n".join(out) + "\n"


def led_text(pinmap):
    """Where the pin map's LEDs go, counted from it (the assembly guide's step for them)."""
    pairs = [spec for spec in pinmap.outputs.values() if spec.kind == "led_pair"]
    lamps = [spec for spec in pinmap.outputs.values() if spec.kind == "led"]
    chain = pinmap.lamp_chain
    parts = []
    if pairs:
        parts.append("the %d indicator LEDs, a pair in each of the %d LED bezels on the backboard (%s), pushed in "
                     "from behind through the board" % (2 * len(pairs), len(pairs),
                                                         ", ".join("`%s`" % spec.role for spec in pairs)))
    if chain:
        per_display = pinmap.rows * pinmap.lamps_per_row
        parts.append("the %d lamp LEDs, %d on each lamp board" % (2 * per_display, per_display))
    if lamps:
        parts.append("the %d status lamps in the %s" % (len(lamps), "console's top" if chain else "panel"))
    return "Fit %s.\n" % "; and ".join(parts)


def lamp_check_text(pinmap):
    """The assembly guide's check of the console's lamp board, with the pin map's lamp chain: its pins and its
    registers, rows and lamps (a builder with a row more lit the spectators' lamps with the shipped ones)."""
    spec = pinmap.lamp_chain
    if spec is None:
        return ""
    pins = spec.pins
    enable = ", enable=%d" % pins["enable"] if "enable" in pins else ""
    lamps, rows = pinmap.lamps_per_row, pinmap.rows
    return "```sh\n/opt/drnim-controller/venv/bin/python -c \"from controller.hardware.devices import LampPanel; " \
        "p = LampPanel(%d, %d, %d%s, registers=%d, rows=%d, lamps_per_row=%d); p.show_row(1, %d); " \
        "input('row 1 lit? ')\"\n```\n\n" % (pins["data"], pins["clock"], pins["latch"], enable,
                                             spec.options["registers"], rows, lamps, lamps) + \
        "lights the %d lamps of row 1 and nothing else; try rows 2-%d (`show_row(2, %d)` ...).\n" % (lamps, rows, lamps)


def boards_text(pinmap):
    """The boards' paragraph of the parts' README: the plywood the pin map's [build] sizes (bom.plywood)."""
    sizes = plywood(pinmap)
    if "Backboard" in sizes:
        board, base = plywood_text(sizes["Backboard"]), plywood_text(sizes["Base"])
        wood = "the same plywood" if base[0] == board[0] else "%s mm birch plywood" % base[0]
        return "Everything mounts on a **backboard** of %s mm birch plywood, %s x %s mm (the pin map's `board_mm`), " \
               "standing on a **base** of %s, %s x %s mm, held upright by two 40 x 40 mm steel angle brackets " \
               "behind it, 12 mm in from each edge (four 3.0 x 10 screws each). The electronics box and the 5 V " \
               "supply stand on the base behind the board.\n" % (*board, wood, *base[1:])
    if "Upright" in sizes:
        return "The **upright** is %s mm birch plywood, %s x %s mm (the pin map's `upright_mm`).\n" \
            % plywood_text(sizes["Upright"])
    return ""


SECTIONS = {"wiring": wiring_table, "header": header_table, "lamps": lamp_table, "current": current_table,
            "parts": parts_table, "cost": cost_text, "leds": led_text, "labels": label_table, "pico": pico_table,
            "boards": boards_text, "lampcheck": lamp_check_text}


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
