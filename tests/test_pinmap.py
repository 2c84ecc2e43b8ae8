"""Pin maps: the shipped ones, the loader's one-line errors, the generated
wiring tables, and gpiozero devices built from the specs on MockFactory."""

import ast
import bisect
import csv
import inspect
import itertools
import re

import pytest
from gpiozero import AngularServo, Button, Buzzer, DigitalOutputDevice, LED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from controller import shipped
from controller.core.registry import NAMES as MACHINES
from controller.hardware import pinmap as pm
from controller.hardware.pinmap import (HEADER, HEADER_PINS, PinMapError, default_pinmap_path, generated_section,
                                        header_table, lamp_table, load_pinmap, render_wiring_doc, wiring_rows,
                                        wiring_table)
from controller.hardware.pinmap.bom import read_bom
from controller.sim.engine import rest_inputs

ERROR_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<key>[^:]+): (?P<problem>.+)$")


# --- the shipped pin maps ---------------------------------------------------

@pytest.mark.parametrize("machine", MACHINES)
def test_the_shipped_pin_map_loads_with_every_role(machine):
    path = default_pinmap_path(machine)
    if shipped.in_checkout():
        assert path == ROOT / "hardware" / machine / "pinmap.toml"
    else:   # an unpacked sdist: the package's copy, which a patch to hardware/'s alone would leave behind
        assert path == ROOT / "controller" / "shipped" / "hardware" / machine / "pinmap.toml"
        assert path.read_bytes() == (ROOT / "hardware" / machine / "pinmap.toml").read_bytes()
    pinmap = load_pinmap(path, machine)
    assert pinmap.machine == machine
    assert pinmap.path == path
    assert tuple(pinmap.inputs) == pm.input_roles(machine, pinmap.rows)
    assert tuple(pinmap.outputs) == tuple(pm.output_roles(machine))
    for role, spec in pinmap.inputs.items():
        assert spec.role == role and spec.label and spec.label != role
    for role, spec in pinmap.outputs.items():
        assert spec.role == role and spec.label and spec.kind in pm.output_roles(machine)[role]


@pytest.mark.parametrize("machine", MACHINES)
def test_the_shipped_pin_maps_use_each_pin_once_and_keep_i2c_uart_and_eeprom_free(machine):
    pinmap = load_pinmap(default_pinmap_path(machine))
    listed = [spec.pin for spec in pinmap.inputs.values()]
    listed += [pin for spec in pinmap.outputs.values() for pin in spec.pins.values()]
    assert len(listed) == len(set(listed)) == len(pinmap.pins())
    assert set(listed) <= set(HEADER)
    assert not set(listed) & {0, 1, 2, 3, 14, 15}
    assert sorted(pinmap.free_pins() + listed) == sorted(HEADER)


def test_the_drnim_map_keeps_inputs_on_boot_pull_ups_and_outputs_on_boot_pull_downs():
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    assert len(pinmap.pins()) == 22
    assert all(4 <= spec.pin <= 8 for spec in pinmap.inputs.values())
    assert all(pin >= 9 for spec in pinmap.outputs.values() for pin in spec.pins.values())
    assert pinmap.outputs["release"].pin in (12, 13, 18, 19)        # hardware PWM, for a servo gate
    sensor = pinmap.inputs["marble_sensor"]
    assert (sensor.pull, sensor.active, sensor.debounce_ms, sensor.min_pulse_ms) == ("none", "low", 2, 2), \
        "the sensor has an external 10 kΩ pull-up to 3.3 V and ignores spikes"
    assert pinmap.rows is None and pinmap.lamps_per_row is None


def test_the_nimatron_map_gives_each_display_chips_of_its_own():
    pinmap = load_pinmap(default_pinmap_path("nimatron"))
    assert (pinmap.rows, pinmap.lamps_per_row) == (4, 7)
    lamps = pinmap.outputs["lamps"]
    assert lamps.pins == {"data": 10, "clock": 11, "latch": 8, "enable": 5}
    assert lamps.pins["enable"] <= 8, "OE on a pin the Pi pulls up at power-up: the lamps stay dark while it boots"
    assert lamps.options == {"registers": 8, "lamp_colour": "warm-white", "lamp_vf": 3.0, "lamp_resistor": 100}
    assert lamps.active is None
    order = pm.lamp_outputs(pinmap)
    assert order[0] == ("console", 1, 1) and order[27] == ("console", 4, 7) and order[32] == ("spectators", 1, 1)
    assert order[59] == ("spectators", 4, 7) and len(order) == 56
    assert not {28, 29, 30, 31} & set(order), "U4's last outputs stay free: no chip drives both displays"
    table = lamp_table(pinmap)
    assert "| spectators | 1 | U5 QA |" in table and "| console | 4 | U4 QA |" not in table


def test_pins_lists_every_pin_with_its_key():
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    pins = pinmap.pins()
    assert pins[4] == "inputs.trigger.pin"
    assert pins[18] == "outputs.release.pin"
    assert pins[17] == "outputs.flip_flop_1.left" and pins[27] == "outputs.flip_flop_1.right"


def test_header_maps_bcm_2_to_27_to_physical_pins():
    assert sorted(HEADER) == list(range(2, 28))
    assert len(set(HEADER.values())) == 26 and all(1 <= pin <= 40 for pin in HEADER.values())
    assert (HEADER[2], HEADER[4], HEADER[14], HEADER[17], HEADER[18], HEADER[21], HEADER[26]) == (3, 7, 8, 11, 12, 40, 37)
    assert sorted(pm.HEADER_PINS) == list(range(1, 41))
    assert pm.HEADER_PINS[27] == 0 and pm.HEADER_PINS[28] == 1 and pm.HEADER_PINS[1] == "3.3 V"


def test_default_pinmap_path_refuses_an_unknown_machine():
    with pytest.raises(ValueError, match="unknown machine 'marienbad'"):
        default_pinmap_path("marienbad")


# --- the generated docs ---------------------------------------------------------

@pytest.mark.parametrize("machine", MACHINES)
def test_wiring_md_tables_match_the_pin_map(machine):
    pinmap = load_pinmap(default_pinmap_path(machine))
    doc = (ROOT / "hardware" / machine / "wiring.md").read_text(encoding="utf-8")
    assert generated_section(doc, "wiring") == wiring_table(pinmap), \
        "run: python -m controller.hardware.pinmap --write-docs"
    assert generated_section(doc, "header") == header_table(pinmap)
    if pinmap.rows:
        assert generated_section(doc, "lamps") == lamp_table(pinmap)
    assert render_wiring_doc(doc, pinmap) == doc


@pytest.mark.parametrize("machine", MACHINES)
def test_the_wiring_table_has_a_row_per_pin(machine):
    pinmap = load_pinmap(default_pinmap_path(machine))
    table = wiring_table(pinmap).splitlines()
    assert table[0] == "| role | label | BCM | header pin | direction | kind | notes |"
    rows = [line.split(" | ") for line in table[2:]]
    assert len(rows) == len(pinmap.pins())
    for cells in rows:
        bcm, physical = int(cells[2]), int(cells[3])
        assert HEADER[bcm] == physical
        assert pinmap.pins()[bcm].startswith(("inputs.", "outputs."))
    header = header_table(pinmap)
    for role in pinmap.inputs:
        assert "`%s`" % role in header


def guide_pico_rows(guide):
    """The assembly guide's Pico table as {role: (GP number, board pin)}, read as a technician reads it."""
    rows = {}
    for line in (generated_section(guide, "pico") or "").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0].startswith("`"):
            gp = re.fullmatch(r"GP(\d+)", cells[4])
            rows[cells[0].strip("`")] = (int(gp.group(1)) if gp else cells[4], cells[5])
    return rows


@pytest.mark.parametrize("machine", MACHINES)
def test_the_guides_pico_pins_are_the_pin_maps(machine):
    """A technician wires a Pico from the guide's Pico section: a GP number there that is not the one
    the firmware is built with (the pin map's [pico] section) is a dead button or a dark lamp. The
    guide's table is generated from the map; this names any row that no longer matches it."""
    from controller.hardware.pinmap.docs import pico_table
    from controller.hardware.pinmap.pico import PICO_HEADER, load_pico
    pinmap, pins, _ = load_pico(default_pinmap_path(machine), machine)
    name = "hardware/%s/README.md" % machine
    guide = (ROOT / "hardware" / machine / "README.md").read_text(encoding="utf-8")
    said = guide_pico_rows(guide)
    wrong = []
    for role, names in pins.items():
        for pin_name, gp in names.items():
            row = role if pin_name == "pin" else "%s.%s" % (role, pin_name)
            if row not in said:
                wrong.append("%s: %s: not in the Pico table; the pin map's [pico] says GP%d" % (name, row, gp))
            elif said[row] != (gp, str(PICO_HEADER[gp])):
                wrong.append("%s: %s: the guide says GP%s (board pin %s), the pin map's [pico] says GP%d (board pin "
                             "%d)" % (name, row, *said[row], gp, PICO_HEADER[gp]))
    assert not wrong, "\n".join(wrong)
    assert generated_section(guide, "pico") == pico_table(pinmap), \
        "%s: run .venv/bin/python -m controller.hardware.pinmap --write-docs" % name


@pytest.mark.parametrize("machine", MACHINES)
def test_the_guides_type_no_pico_pin_by_hand(machine):
    """Every Pico pin number of the guide is in its generated table: a GP number typed in its text (or a
    board pin in its Pico section) is one no test holds to the pin map, which the Pico section's first
    version did ("the trigger is GP2, ..., the release's 100 Ω goes to GP7 (pin 10)")."""
    lines = (ROOT / "hardware" / machine / "README.md").read_text(encoding="utf-8").splitlines()
    typed, generated, pico_section = [], False, False
    for number, line in enumerate(lines, start=1):
        if line.startswith("## "):
            pico_section = "Pico" in line
        if re.fullmatch(r"<!-- \w+:(begin|end) -->", line):
            generated = line.endswith(":begin -->")
            continue
        if not generated and (re.search(r"\bGP\d", line) or pico_section and re.search(r"\bpin \d", line)):
            typed.append("hardware/%s/README.md:%d: %s" % (machine, number, line))
    assert not typed, "name the role instead, its Pico pin is in the generated table:\n" + "\n".join(typed)


# How a guide names a pin of the Pi. Its number follows the role it is for, in backticks as the wiring table
# names it (`trigger`, `lamps.data`): "BCM 4", "GPIO 4", "header pin 7", a command's "pinctrl set 4" or
# "raspi-gpio get 4", a pin map's "enable = 5". A pin of the Pi's own follows what it is instead, which the
# number right after it is checked against: GND or 3.3 V for a header pin ("3.3 V (header pin 1 or 17)"),
# hardware PWM for BCM numbers.
PI_NAME = re.compile(r"`(\w+(?:\.\w+)?)`|\b(GND|3\.3 V|hardware PWM)\b")
PI_NUMBER = re.compile(r"\b(BCM|GPIO|header pins?|pinctrl [gs]et|raspi-gpio get|(?:pin|left|right|data|clock|latch"
                       r"|enable) =) (\d+(?:(?:, | or | and )\d+)*)")
PI_OWN = {("header pin", name): {pin for pin, what in HEADER_PINS.items() if what == name} for name in ("GND", "3.3 V")}
PI_OWN["BCM", "hardware PWM"] = {12, 13, 18, 19}        # PWM0 on BCM 12 or 18, PWM1 on 13 or 19


def guide_paragraphs(text):
    """The guide's paragraphs outside its generated sections, each as [(line number, line), ...]."""
    paragraphs, generated = [[]], False
    for number, line in enumerate(text.splitlines(), start=1):
        marker = re.fullmatch(r"<!-- \w+:(begin|end) -->", line)
        generated = marker.group(1) == "begin" if marker else generated
        if marker or generated or not line.strip():
            paragraphs.append([])
        else:
            paragraphs[-1].append((number, line))
    return [paragraph for paragraph in paragraphs if paragraph]


def guide_pi_pin_problems(name, text, pinmap):
    """A line for each Pi pin number of the guide that is not its role's in the pin map (the role named last
    before it in its paragraph), or not what the Pi's own pin before it says, or that follows neither."""
    bcm = {role: pin for role, label, pin, header, *_ in wiring_rows(pinmap)}
    problems = []
    for paragraph in guide_paragraphs(text):
        joined = " ".join(line for number, line in paragraph)
        ends = list(itertools.accumulate(len(line) + 1 for number, line in paragraph))
        role = own = None
        for match in sorted([*PI_NAME.finditer(joined), *PI_NUMBER.finditer(joined)], key=lambda m: m.start()):
            if match.re is PI_NAME:
                if match.group(2):
                    own = match.group(2)
                elif match.group(1) in bcm:
                    role, own = match.group(1), None
                continue
            where = "%s:%d" % (name, paragraph[bisect.bisect_right(ends, match.start())][0])
            said, numbers = match.group(0), [int(number) for number in re.findall(r"\d+", match.group(2))]
            kind = "header pin" if said.startswith("header") else "BCM"
            if (kind, own) in PI_OWN:
                for number in set(numbers) - PI_OWN[kind, own]:
                    problems.append("%s: %s: the guide says %s, and %s %d is not a %s pin" % (
                        where, own, said, kind, number, own))
            elif role is None:
                problems.append("%s: %s: no role named before it in its paragraph; name it in backticks, as the "
                                "wiring table does" % (where, said))
            elif len(numbers) > 1:
                problems.append("%s: %s: the guide says %s; one number a role, each after its own" % (
                    where, role, said))
            elif kind == "header pin" and numbers[0] != HEADER[bcm[role]]:
                problems.append("%s: %s: the guide says %s, the pin map's BCM %d is header pin %d" % (
                    where, role, said, bcm[role], HEADER[bcm[role]]))
            elif kind == "BCM" and numbers[0] != bcm[role]:
                problems.append("%s: %s: the guide says %s, the pin map says BCM %d" % (where, role, said, bcm[role]))
            own = None
    return problems


def guide_lamp_panel_problems(name, text, pinmap):
    """A line for each argument of a LampPanel(...) command in the guide that is not the pin map's."""
    from controller.hardware.devices import LampPanel
    chain = [spec for spec in pinmap.outputs.values() if spec.kind == "shift_register"]
    problems = []
    for match in re.finditer(r"LampPanel\([^)]*\)", text):
        where = "%s:%d" % (name, text.count("\n", 0, match.start()) + 1)
        if not chain:
            problems.append("%s: the pin map has no lamp chain" % where)
            continue
        call = ast.parse(match.group(0), mode="eval").body
        said = inspect.signature(LampPanel.__init__).bind(
            None, *[arg.value for arg in call.args], **{arg.arg: arg.value.value for arg in call.keywords}).arguments
        spec = chain[0]
        for key, value in dict(spec.pins, registers=spec.options["registers"], rows=pinmap.rows,
                               lamps_per_row=pinmap.lamps_per_row).items():
            if said.get(key) != value:
                problems.append("%s: %s.%s: the guide's LampPanel says %s, the pin map says %s" % (
                    where, spec.role, key, said.get(key), value))
    return problems


@pytest.mark.parametrize("machine", MACHINES)
def test_the_guides_pi_pins_are_the_pin_maps(machine):
    """A technician wires and checks a Pi from the guide's steps: a BCM or header pin there, or a pinctrl
    command's pin, that is not the pin map's is a dead button or a check that tests the wrong pin. Each
    number follows the role it is for ("the `trigger` to BCM 4 (header pin 7)"), and this names the guide's
    line, the role and both numbers of any that no longer matches the map, and any number that names no
    role (the guides once typed "BCM 4, 7, 5, 6", "GPIO 18" and "the same for 13, 19 and 26")."""
    pinmap = load_pinmap(default_pinmap_path(machine))
    name = "hardware/%s/README.md" % machine
    text = (ROOT / "hardware" / machine / "README.md").read_text(encoding="utf-8")
    problems = guide_pi_pin_problems(name, text, pinmap) + guide_lamp_panel_problems(name, text, pinmap)
    assert not problems, "\n".join(problems)
    assert PI_NUMBER.search(text), "%s names no Pi pin: is the test reading it?" % name


@pytest.mark.parametrize("machine", MACHINES)
def test_the_wiring_pages_hand_written_pins_are_the_shipped_maps_and_the_page_says_so(machine):
    """wiring.md said that regenerating it follows a moved wire, but the receiver's drawing typed "GPIO 8 (header
    pin 24)", which no --write-docs rewrites. The page says which of it is written for the shipped pins; a pin
    there that follows its role is held to the shipped map, as the guide's are, and a drawing's pin names its
    role (the header's own facts, "GPIO 4 is header pin 7", and ranges of pins name none)."""
    pinmap = load_pinmap(default_pinmap_path(machine))
    name = "hardware/%s/wiring.md" % machine
    text = (ROOT / name).read_text(encoding="utf-8")
    drawn, fenced = set(), False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            fenced = not fenced
        elif fenced:
            drawn.add(number)
    problems = [problem for problem in guide_pi_pin_problems(name, text, pinmap)
                if "no role named before it" not in problem or int(problem.split(":")[1]) in drawn]
    assert not problems, "\n".join(problems)
    assert "written by hand for the shipped map's pins" in " ".join(text.split())


def test_the_documents_beside_the_guides_type_no_pico_pin_of_the_wiring():
    """The documents for both machines name a role, not its GP number: one typed there ("GP16 in the shipped
    map", firmware/README.md's for the lamp chain's OE) is held to no pin map, where the guides' Pico tables
    are generated from them. The board's own pins (its LED's GP25) are not the wiring's and may be named."""
    from controller.hardware.pinmap.pico import PICO_PINS
    documents = [ROOT / "README.md", ROOT / "DEVELOPERS.md", ROOT / "firmware" / "README.md",
                 ROOT / "hardware" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    typed = ["%s:%d: %s" % (document.relative_to(ROOT), number, line)
             for document in documents
             for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), start=1)
             if any(int(gp) in PICO_PINS for gp in re.findall(r"\bGP(\d+)", line))]
    assert not typed, "name the role instead; the guides' Pico tables have its pin:\n" + "\n".join(typed)


@pytest.mark.parametrize("machine", MACHINES)
def test_bom_rows_have_part_quantity_number_note_price_and_choice(machine):
    with open(ROOT / "hardware" / machine / "bom.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["part", "quantity", "example part number", "note", "unit price EUR", "choice"]
    for row in rows[1:]:
        assert len(row) == 6 and row[0] and row[1].isdigit() and int(row[1]) >= 1, row
        assert re.fullmatch(r"\d+\.\d\d", row[4]) and row[5] in ("", "alternative", "optional"), row


def test_main_checks_the_shipped_maps_and_reports_a_bad_one(tmp_path, capsys):
    assert pm.main([]) == 0
    out = capsys.readouterr().out
    assert "drnim/pinmap.toml: ok" in out and "nimatron/pinmap.toml: ok" in out
    bad = tmp_path / "pinmap.toml"
    bad.write_text('machine = "drnim"\n')
    assert pm.main([str(bad)]) == 1
    assert capsys.readouterr().out.startswith("%s:1: inputs: missing (Dr. Nim needs trigger, " % bad)


@pytest.mark.parametrize("edit, key, problem", [
    (("row3 = 4\n", "row3 = 25\n"), "pico.row3", "25 is not a GP pin of the Pico (use 0-22, 26-28)"),
    (("row3 = 4\n", "row3 = 2\n"), "pico.row3", "GP2 is already used by pico.row1"),
    (("row3 = 4\n", "rwo3 = 4\n"), "pico.rwo3", "not a role of this map (roles: row1, row2, row3, row4, "),
])
def test_main_checks_the_pico_section_as_the_firmware_build_does(tmp_path, capsys, edit, key, problem):
    """The shipped map's header tells whoever edits it to run this check: a hobbyist who moved the lamp
    board's pins on a Pico was told 'ok' for a pin on the board's LED, a pin used twice and a misspelt
    role, which only `controller firmware build` refused."""
    from controller.hardware.pinmap.pico import load_pico
    text = default_pinmap_path("nimatron").read_text()
    assert "python -m controller.hardware.pinmap hardware/nimatron/pinmap.toml" in text
    start = text.index("\n[pico]\n")
    written = text[:start] + text[start:].replace(*edit, 1)
    path = tmp_path / "pinmap.toml"
    path.write_text(written)
    with pytest.raises(PinMapError) as built:
        load_pico(path)       # what the build refuses
    assert pm.main([str(path)]) == 1
    out = capsys.readouterr().out
    number = written[:written.index("\n" + edit[1], start) + 1].count("\n") + 1
    assert out.startswith("%s:%d: %s: %s" % (path, number, key, problem)) and out.count("\n") == 1, out
    assert out == str(built.value) + "\n"


def test_main_passes_a_pi_map_without_a_pico_section(tmp_path, capsys):
    text = default_pinmap_path("nimatron").read_text()
    path = tmp_path / "pinmap.toml"
    path.write_text(text[:text.index("\n[pico]\n") + 1])
    assert pm.main([str(path)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("%s: ok, the Nimatron, " % path) and "(a Pi's)\n" in said and "Pico" not in said


def test_the_check_of_a_map_with_a_pico_section_lists_the_gp_pins_it_leaves_free(tmp_path, capsys):
    """A Pico builder read the free pins the check listed, a Pi's BCM numbers, as GP pins: GP14 and GP15, which
    Dr. Nim's equalizer LEDs take on a Pico (the Pico builder's walkthrough). Each board's numbers, named."""
    path = tmp_path / "pinmap.toml"
    path.write_text(default_pinmap_path("drnim").read_text().replace("\ntrigger = 2\n", "\ntrigger = 27\n", 1))
    assert pm.main([str(path)]) == 0
    said = capsys.readouterr().out.splitlines()[0]
    assert said.endswith("free: BCM 2, 3, 14, 15 (a Pi's); a Pico's free: GP 0, 1, 2, 28"), said


def test_a_folder_given_as_the_pin_map_is_said_once(tmp_path, capsys):
    """`firmware build --pinmap my/` said 'my/:1: file: cannot read it (my/:1: file: cannot read it (not a
    regular file))'."""
    with pytest.raises(PinMapError) as caught:
        load_pinmap(tmp_path)
    assert str(caught.value) == "%s:1: file: cannot read it (not a regular file)" % tmp_path
    assert pm.main([str(tmp_path)]) == 1
    assert capsys.readouterr().out == "%s:1: file: cannot read it (not a regular file)\n" % tmp_path


def test_main_write_docs_fills_the_markers(tmp_path, capsys):
    source = default_pinmap_path("nimatron")
    (tmp_path / "pinmap.toml").write_text(source.read_text())
    (tmp_path / "wiring.md").write_text("# x\n<!-- wiring:begin -->\nold\n<!-- wiring:end -->\n"
                                        "<!-- lamps:begin --><!-- lamps:end -->\n")
    assert pm.main(["--write-docs", str(tmp_path / "pinmap.toml")]) == 0
    doc = (tmp_path / "wiring.md").read_text()
    pinmap = load_pinmap(tmp_path / "pinmap.toml")
    assert generated_section(doc, "wiring") == wiring_table(pinmap)
    assert generated_section(doc, "lamps") == lamp_table(pinmap)
    assert "old" not in doc


def test_write_docs_of_a_copy_says_nothing_is_written_and_whether_the_parts_are_drawn_for_it(tmp_path, monkeypatch,
                                                                                            capsys):
    """The guide's builder copies the pin map to my-drnim.toml and runs --write-docs on it: it printed 'ok'
    and wrote nothing, so build.scad, which the guide's loop renders the parts from, kept the shipped build.
    One line now says that nothing was written, and whether the parts are drawn for the copy's build; what
    it says to do draws them for it."""
    import shutil
    from pathlib import Path
    top = tmp_path / "checkout"
    shutil.copytree(ROOT / "hardware", top / "hardware", ignore=shutil.ignore_patterns("*.pdf", "*.png", "*.stl"))
    monkeypatch.chdir(top)
    own = top / "hardware" / "drnim" / "pinmap.toml"
    scad = top / "hardware" / "drnim" / "parts" / "build.scad"
    drawn = scad.read_text()
    said = "my-drnim.toml: nothing written: --write-docs writes the tables, the drawings and parts/build.scad " \
           "beside a machine's own pin map (hardware/drnim/pinmap.toml); hardware/drnim/parts/build.scad, which " \
           "the parts are rendered from, draws them for "
    shutil.copy(own, "my-drnim.toml")
    assert pm.main(["--write-docs", "my-drnim.toml"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [said + "this map's build"]
    copy = Path("my-drnim.toml")
    copy.write_text(copy.read_text().replace('sensor = "2167"', 'sensor = "2168"'))
    assert pm.main(["--write-docs", "my-drnim.toml"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        said + 'beam_model = "2167", this map for beam_model = "2168": put the same in hardware/drnim/pinmap.toml '
               'and run --write-docs hardware/drnim/pinmap.toml']
    assert scad.read_text() == drawn and sorted(path.name for path in top.iterdir()) == ["hardware", "my-drnim.toml"]
    own.write_text(own.read_text().replace('sensor = "2167"', 'sensor = "2168"'))
    assert pm.main(["--write-docs", "hardware/drnim/pinmap.toml"]) == 0
    assert "hardware/drnim/parts/build.scad: written" in capsys.readouterr().out.splitlines()
    assert pm.main(["--write-docs", "my-drnim.toml"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [said + "this map's build"]


# --- errors: one line, path:line: key: problem ----------------------------------

RED = 'colour = "red"\nresistor = 390'


def drnim_text(**tables):
    """A small valid Dr. Nim pin map; `tables` replace whole [sections] (None drops one)."""
    sections = {
        "inputs.trigger": 'label = "Trigger"\npin = 4\npull = "up"\nactive = "low"\ndebounce_ms = 20',
        "inputs.turn_switch": "pin = 5",
        "inputs.equalizer_switch": "pin = 6",
        "inputs.new_game": "pin = 7",
        "inputs.marble_sensor": 'pin = 8\npull = "none"\nactive = "low"\ndebounce_ms = 2',
        "outputs.release": 'kind = "solenoid"\npin = 18\nactive = "high"',
        "outputs.flip_flop_1": 'kind = "led_pair"\nleft = 17\nright = 27\n' + RED,
        "outputs.flip_flop_2": 'kind = "led_pair"\nleft = 22\nright = 23\n' + RED,
        "outputs.flip_flop_3": 'kind = "led_pair"\nleft = 24\nright = 25\n' + RED,
        "outputs.equalizer": 'kind = "led_pair"\nleft = 9\nright = 10\n' + RED,
        "outputs.turn": 'kind = "led_pair"\nleft = 11\nright = 12\n' + RED,
        "outputs.lamp_your_turn": 'kind = "led"\npin = 13\n' + RED,
        "outputs.lamp_drnim_turn": 'kind = "led"\npin = 19\n' + RED,
        "outputs.lamp_you_win": 'kind = "led"\npin = 16\n' + RED,
        "outputs.lamp_drnim_wins": 'kind = "led"\npin = 20\n' + RED,
        "outputs.lamp_fault": 'kind = "led"\npin = 26\n' + RED,
        "outputs.buzzer": 'kind = "buzzer"\npin = 21\nbase_resistor = 1000',
    }
    top = tables.pop("top", 'machine = "drnim"')
    for name, body in tables.items():
        sections[name.replace("__", ".")] = body
    parts = [top, ""]
    for name, body in sections.items():
        if body is not None:
            parts += ["[%s]" % name, body, ""]
    return "\n".join(parts)


def nimatron_text(rows=4, lamps=7, registers=8, extra_inputs=(), top_extra=""):
    parts = ['machine = "nimatron"', "rows = %d" % rows, "lamps_per_row = %d" % lamps, top_extra, ""]
    pins = iter([17, 27, 22, 23, 4, 5, 6, 20, 21, 18])
    for role in ["row%d" % i for i in range(1, rows + 1)] + list(extra_inputs) + ["handover", "new_game"]:
        parts += ["[inputs.%s]" % role, "pin = %d" % next(pins), ""]
    parts += ["[outputs.lamps]", 'kind = "shift_register"', "data = 10", "clock = 11", "latch = 8",
              "registers = %d" % registers, 'lamp_colour = "warm-white"', "lamp_resistor = 100", ""]
    for role, pin in (("lamp_your_turn", 12), ("lamp_machine_turn", 13), ("lamp_nim_champ", 19),
                      ("lamp_machine_wins", 26)):
        parts += ["[outputs.%s]" % role, 'kind = "led"', "pin = %d" % pin, RED, ""]
    parts += ["[outputs.buzzer]", 'kind = "buzzer"', "pin = 16", "base_resistor = 1000", ""]
    return "\n".join(parts)


def line_of(text, needle, after=None):
    """The number of the first line holding `needle` (after the line holding `after`)."""
    start = 0
    lines = text.splitlines()
    if after is not None:
        start = next(i for i, line in enumerate(lines) if after in line) + 1
    return next(i for i in range(start, len(lines)) if needle in lines[i]) + 1


def expect_error(tmp_path, text, line, key, problem, machine=None):
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    with pytest.raises(PinMapError) as caught:
        load_pinmap(path, machine)
    message = str(caught.value)
    assert "\n" not in message
    m = ERROR_LINE.match(message)
    assert m, message
    assert (m["path"], int(m["line"]), m["key"]) == (str(path), line, key), message
    assert problem in m["problem"], message
    assert isinstance(caught.value, ValueError)
    return message


def test_the_small_valid_maps_load(tmp_path):
    for text in (drnim_text(), nimatron_text()):
        path = tmp_path / "pinmap.toml"
        path.write_text(text)
        load_pinmap(path)


def test_a_pin_off_the_header(tmp_path):
    text = drnim_text(inputs__trigger='label = "Trigger"\npull = "up"\npin = 40')
    message = expect_error(tmp_path, text, line_of(text, "pin = 40"), "inputs.trigger.pin",
                           "GPIO 40 is not on the 40-pin header (use BCM 2-27)")
    assert message.endswith(": inputs.trigger.pin: GPIO 40 is not on the 40-pin header (use BCM 2-27)")


@pytest.mark.parametrize("value,problem", [
    ("0", "GPIO 0 is the HAT ID EEPROM's ID_SD line"),
    ("1", "GPIO 1 is the HAT ID EEPROM's ID_SC line"),
    ("-3", "GPIO -3 is not on the 40-pin header"),
    ('"18"', "must be a whole number (a BCM GPIO number), not '18'"),
    ("true", "must be a whole number (a BCM GPIO number), not True"),
    ("18.0", "must be a whole number"),
])
def test_bad_pins(tmp_path, value, problem):
    text = drnim_text(outputs__release='kind = "solenoid"\npin = %s' % value)
    expect_error(tmp_path, text, line_of(text, "pin = " + value), "outputs.release.pin", problem)


def test_a_pin_used_twice_names_the_first_user(tmp_path):
    text = drnim_text(outputs__turn='kind = "led_pair"\nleft = 11\nright = 27\n' + RED)
    expect_error(tmp_path, text, line_of(text, "right = 27", after="[outputs.turn]"), "outputs.turn.right",
                 "GPIO 27 is already used by outputs.flip_flop_1.right")


def test_a_pin_shared_by_an_input_and_an_output(tmp_path):
    text = drnim_text(inputs__marble_sensor="pin = 18")
    expect_error(tmp_path, text, line_of(text, "pin = 18", after="[outputs.release]"), "outputs.release.pin",
                 "GPIO 18 is already used by inputs.marble_sensor.pin")


def test_an_led_pair_on_one_pin(tmp_path):
    text = drnim_text(outputs__equalizer='kind = "led_pair"\nleft = 9\nright = 9\n' + RED)
    expect_error(tmp_path, text, line_of(text, "right = 9"), "outputs.equalizer.right",
                 "GPIO 9 is already used by outputs.equalizer.left")


@pytest.mark.parametrize("table,body,needle,key,what", [
    ("outputs__release", 'kind = "solenoid"\npin = 2', "pin = 2", "outputs.release.pin", "the solenoid"),
    ("outputs__buzzer", 'kind = "buzzer"\npin = 3\nbase_resistor = 1000', "pin = 3", "outputs.buzzer.pin",
     "the buzzer"),
    ("outputs__lamp_fault", 'kind = "led"\npin = 2\n' + RED, "pin = 2", "outputs.lamp_fault.pin", "the LED"),
    ("outputs__turn", 'kind = "led_pair"\nleft = 11\nright = 3\n' + RED, "right = 3", "outputs.turn.right",
     "the LED"),
])
def test_what_is_on_at_high_is_refused_on_the_i2c_pins_and_their_pull_ups(tmp_path, table, body, needle, key, what):
    """A builder whose HAT takes a pin moves its role to a free one: BCM 2 or 3 switch
    a solenoid on (its gate at 2.8 V) whenever the service does not drive them."""
    text = drnim_text(**{table: body})
    message = expect_error(tmp_path, text, line_of(text, needle, after="[%s]" % table.replace("__", ".")), key,
                           "has a 1.8 kΩ pull-up to 3.3 V on the Pi's own board")
    assert what in message and "whenever the pin is not driven" in message


def test_an_led_from_3v3_to_an_i2c_pin_and_a_button_to_gnd_on_the_other_load(tmp_path):
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(outputs__lamp_fault='kind = "led"\npin = 2\nactive = "low"\n' + RED,
                               inputs__trigger='pin = 3\npull = "up"'))
    pinmap = load_pinmap(path)
    assert (pinmap.outputs["lamp_fault"].pin, pinmap.inputs["trigger"].pin) == (2, 3)


@pytest.mark.parametrize("body,key", [
    ('pin = 3\npull = "down"\nactive = "high"', "inputs.trigger.pull"),
    ('pin = 3\npull = "none"\nactive = "high"', "inputs.trigger.active"),
])
def test_a_button_wired_to_3v3_cannot_go_on_an_i2c_pin(tmp_path, body, key):
    text = drnim_text(inputs__trigger=body)
    expect_error(tmp_path, text, line_of(text, key.rsplit(".", 1)[1] + " = "), key,
                 'GPIO 3 has a 1.8 kΩ pull-up to 3.3 V on the Pi\'s own board (for I2C), which holds it high: an '
                 'input there can only be active "low"')


@pytest.mark.parametrize("pin, what", [(14, "TXD, which the port holds high"), (15, "RXD, which the port pulls up")])
def test_a_solenoid_is_refused_on_the_serial_ports_pins(tmp_path, pin, what):
    """hardware/README.md says a serial port switched on holds BCM 14 high: a release moved there passed the
    check, and a builder who had switched the port on (for a console) got a coil held on at every boot."""
    text = drnim_text(outputs__release='kind = "solenoid"\npin = %d\nactive = "high"' % pin)
    message = expect_error(tmp_path, text, line_of(text, "pin = %d" % pin, after="[outputs.release]"),
                           "outputs.release.pin", "GPIO %d is the serial port's %s while it is on" % (pin, what))
    assert "hold the coil on while the Pi boots" in message


def test_other_outputs_on_the_serial_ports_pins_load_and_the_check_warns_in_a_line_naming_each(tmp_path, capsys):
    """The serial port is off unless a builder switched it on: an LED, the buzzer or a servo gate there works,
    and the check says, once for each, what a port switched on does to it; a button there is the docs' advice."""
    from controller.hardware.pinmap.check import serial_port_warnings
    text = drnim_text(outputs__release='kind = "servo"\npin = 14',
                      outputs__lamp_fault='kind = "led"\npin = 15\n' + RED)
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    warnings = serial_port_warnings(load_pinmap(path))
    assert [line.split(": ")[:2] for line in warnings] == [
        ["%s:%d" % (path, line_of(text, "pin = 14", after="[outputs.release]")), "outputs.release.pin"],
        ["%s:%d" % (path, line_of(text, "pin = 15", after="[outputs.lamp_fault]")), "outputs.lamp_fault.pin"]]
    assert "GPIO 14 is the serial port's TXD, which the port holds high while it is on" in warnings[0]
    assert all("keep the port off (raspi-config" in line for line in warnings)
    assert pm.main([str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("%s: ok, Dr. Nim" % path) and out[1:] == ["warning: " + line for line in warnings]
    path.write_text(drnim_text(inputs__trigger='pin = 14\npull = "up"', inputs__new_game='pin = 15\npull = "up"'))
    assert serial_port_warnings(load_pinmap(path)) == []


def test_config_check_and_the_service_warn_of_an_output_on_the_serial_ports_pins(tmp_path):
    """Only the pin map's own check said it: `config check` and the service's journal, where a technician
    looks after moving a wire, were silent about an LED a serial port switched on would light at every boot."""
    import io
    from gpiozero.pins.mock import MockFactory
    from controller.cli import main
    from controller.hardware.pinmap.check import serial_port_warnings
    from controller.service.config import load_config
    from controller.service.daemon import Service
    from controller.service.notify import Notifier
    from controller.sim.engine import rest_inputs
    from controller.sim.pins import BoundedPin
    from service_rig import write_config
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(outputs__lamp_fault='kind = "led"\npin = 15\n' + RED))
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace("[service]", '[service]\npinmap = "%s"' % path, 1))
    warned = ["warning: " + line for line in serial_port_warnings(load_pinmap(path))]
    assert len(warned) == 1 and "outputs.lamp_fault.pin: GPIO 15 is the serial port's RXD" in warned[0]
    out = io.StringIO()
    assert main(["config", "check", str(config)], out=out) == 0
    assert out.getvalue().splitlines()[1:] == warned
    log = []
    factory = MockFactory(pin_class=BoundedPin)
    pinmap = load_pinmap(path)
    rest_inputs(factory, pinmap)
    service = Service(load_config(str(config)), pinmap, pin_factory=factory, notifier=Notifier({}), log=log.append)
    service.start()
    service.stop()
    assert [line for line in log if line.startswith("warning: ")] == warned


def test_config_check_the_service_and_the_simulator_warn_of_rows_and_lamps_wired_and_never_played(tmp_path, capsys):
    """A builder who wired a fifth row and left [nimatron] rows = 4 had a row whose button did nothing and
    whose lamps stayed dark, and the pin map's check, config check and selftest all said good (found by the
    Nimatron builder's review). Fewer lamps played than wired is one warning line in config check, in
    the journal at start and from `--simulate --config` (which said nothing: the settings review); the game
    plays as set (a smaller game on the machine built is a museum's choice)."""
    import io
    from controller.cli import main
    from service_rig import Rig, write_config
    config = write_config(tmp_path, machine="nimatron", lamps=5)
    pinmap = default_pinmap_path("nimatron")
    warned = ["warning: %s: nimatron.lamps: 5, but the pin map %s wires 7 (the lamps in each row): what is wired "
              "beyond 5 is never played; set lamps = 7 to play it" % (config, pinmap)]
    out = io.StringIO()
    assert main(["config", "check", str(config)], out=out) == 0
    assert out.getvalue().splitlines()[1:] == warned
    rig = Rig(tmp_path, machine="nimatron", lamps=5)
    assert [line for line in rig.log if line.startswith("warning: ")] == warned
    capsys.readouterr()
    out = io.StringIO()
    assert main(["--simulate", "--autoplay", "1", "--config", str(config)], out=out) == 0
    assert "games: 1" in out.getvalue().splitlines()
    assert capsys.readouterr().err.splitlines() == ["controller --simulate: " + line for line in warned]


HAT = '18 = "audio HAT: I2S BCLK"\n19 = "audio HAT: I2S LRCLK"\n21 = "audio HAT: I2S DOUT"'


def test_a_role_on_a_pin_the_pin_map_reserves_for_a_hat_is_refused(tmp_path):
    text = drnim_text(reserved=HAT)
    expect_error(tmp_path, text, line_of(text, "pin = 18"), "outputs.release.pin",
                 "GPIO 18 is taken by audio HAT: I2S BCLK (reserved.18, line %d)" % line_of(text, "18 = "))


def test_reserved_pins_are_not_free_and_the_header_table_names_what_takes_them(tmp_path):
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(reserved=HAT, outputs__release='kind = "solenoid"\npin = 26',
                               outputs__lamp_fault='kind = "led"\npin = 14\n' + RED,
                               outputs__lamp_drnim_turn='kind = "led"\npin = 2\nactive = "low"\n' + RED,
                               outputs__buzzer='kind = "buzzer"\npin = 15\nbase_resistor = 1000'))
    pinmap = load_pinmap(path)
    assert pinmap.free_pins() == [3]
    rows = header_table(pinmap).splitlines()
    assert "| `flip_flop_1.left` | GPIO 17 | 11 | 12 | GPIO 18 | audio HAT: I2S BCLK |" in rows
    assert "|  | GND | 39 | 40 | GPIO 21 | audio HAT: I2S DOUT |" in rows


@pytest.mark.parametrize("body,needle,key,problem", [
    ('fan = "fan"', "fan = ", "reserved.fan", "'fan' is not the BCM number of a pin of the 40-pin header (0-27)"),
    ('28 = "fan"', "28 = ", "reserved.28", "'28' is not the BCM number"),
    ("14 = 1", "14 = ", "reserved.14", "must be text in quotes saying what takes the pin (a HAT, a fan), not 1"),
])
def test_bad_reserved_pins(tmp_path, body, needle, key, problem):
    text = drnim_text(reserved=body)
    expect_error(tmp_path, text, line_of(text, needle), key, problem)


def test_a_missing_input_role_points_at_line_1(tmp_path):
    text = drnim_text(inputs__marble_sensor=None)
    expect_error(tmp_path, text, 1, "inputs.marble_sensor",
                 "missing (Dr. Nim needs trigger, turn_switch, equalizer_switch, new_game, marble_sensor)")


def test_a_missing_role_points_at_its_table_when_there_is_one(tmp_path):
    text = ('machine = "drnim"\n\n[inputs]\ntrigger = { pin = 4 }\nturn_switch = { pin = 5 }\n'
            + drnim_text(top="", inputs__trigger=None, inputs__turn_switch=None, inputs__new_game=None))
    expect_error(tmp_path, text, line_of(text, "[inputs]"), "inputs.new_game", "missing (Dr. Nim needs")


def test_every_missing_role_is_named_at_once(tmp_path):
    """Found by a hobbyist writing a map by hand: each run named one missing role, and the next run
    the next."""
    text = drnim_text(inputs__new_game=None, inputs__marble_sensor=None)
    expect_error(tmp_path, text, 1, "inputs.new_game, inputs.marble_sensor", "missing (Dr. Nim needs trigger,")


def test_a_missing_output_role(tmp_path):
    text = drnim_text(outputs__buzzer=None)
    expect_error(tmp_path, text, 1, "outputs.buzzer", "missing (Dr. Nim needs release, flip_flop_1,")


def test_an_unknown_role(tmp_path):
    text = drnim_text(inputs__trigger=None, inputs__trigerr="pin = 4")
    expect_error(tmp_path, text, line_of(text, "[inputs.trigerr]"), "inputs.trigerr",
                 "unknown input (Dr. Nim's inputs are trigger, turn_switch")


def test_a_missing_key_points_at_its_table(tmp_path):
    text = drnim_text(outputs__lamp_fault='kind = "led"')
    expect_error(tmp_path, text, line_of(text, "[outputs.lamp_fault]"), "outputs.lamp_fault.pin",
                 "missing (the BCM number of the GPIO pin)")


@pytest.mark.parametrize("broken,needle", [
    ("pin = = 4", "pin = = 4"),
    ('label = "Trigger', 'label = "Trigger'),
])
def test_bad_toml_syntax_gives_tomllibs_message_and_line(tmp_path, broken, needle):
    text = drnim_text(inputs__trigger=broken)
    message = expect_error(tmp_path, text, line_of(text, needle), "TOML syntax", "(at line %d" % line_of(text, needle))
    assert "column" in message


def test_a_key_written_twice_is_named_with_both_its_lines(tmp_path):
    """tomllib says 'Cannot overwrite a value', which names no key, nor the line written first."""
    text = drnim_text(inputs__trigger="pin = 4\npin = 5")
    first, second = line_of(text, "pin = 4"), line_of(text, "pin = 5")
    expect_error(tmp_path, text, second, "TOML syntax",
                 "inputs.trigger.pin is set twice, at line %d and at line %d: keep one" % (first, second))


def test_an_unknown_kind(tmp_path):
    text = drnim_text(outputs__release='kind = "motor"\npin = 18')
    expect_error(tmp_path, text, line_of(text, 'kind = "motor"'), "outputs.release.kind",
                 "unknown kind 'motor' (known: buzzer, led, led_pair, servo, shift_register, solenoid)")


def test_a_kind_that_is_not_text(tmp_path):
    text = drnim_text(outputs__release='kind = ["solenoid"]\npin = 18')
    expect_error(tmp_path, text, line_of(text, "kind = ["), "outputs.release.kind", "unknown kind ['solenoid']")


def test_a_kind_that_does_not_fit_the_role(tmp_path):
    text = drnim_text(outputs__release='kind = "led"\npin = 18')
    expect_error(tmp_path, text, line_of(text, 'kind = "led"'), "outputs.release.kind",
                 "kind 'led' cannot be the release (use solenoid or servo)")


def test_a_missing_kind(tmp_path):
    text = drnim_text(outputs__turn="left = 11\nright = 12")
    expect_error(tmp_path, text, line_of(text, "[outputs.turn]"), "outputs.turn.kind", "missing (led_pair or servo)")


@pytest.mark.parametrize("table,body,needle,key,problem", [
    ("inputs__trigger", "pni = 4", "pni = 4", "inputs.trigger.pni",
     "unknown key for a button or switch (known: label, pin, pull, active, debounce_ms, min_pulse_ms)"),
    ("inputs__marble_sensor", "pin = 8\nmin_pulse = 2", "min_pulse =", "inputs.marble_sensor.min_pulse",
     "unknown key for a sensor (known: label, pin, pull, active, debounce_ms, min_pulse_ms)"),
    ("outputs__release", 'kind = "servo"\npin = 18\nactive = "high"', 'active = "high"', "outputs.release.active",
     "unknown key for kind 'servo' (known: label, kind, pin, closed_angle, open_angle, seconds_per_60, min_pulse_ms, "
     "max_pulse_ms)"),
    ("outputs__turn", 'kind = "servo"\npin = 12\nclosed_angle = 0', "closed_angle", "outputs.turn.closed_angle",
     "unknown key for kind 'servo' (known: label, kind, pin, left_angle, right_angle,"),
    ("outputs__lamp_fault", 'kind = "led"\npin = 26\ncolor = "red"', "color", "outputs.lamp_fault.color",
     "unknown key for kind 'led' (known: label, kind, pin, active, colour, vf, resistor)"),
    ("outputs__release", 'kind = "solenoid"\npin = 18\nresistor = 100', "resistor", "outputs.release.resistor",
     "unknown key for kind 'solenoid' (known: label, kind, pin, active, coil_ohms, ptc_hold_a, ptc_trip_a, "
     "ptc_ohms, ptc_trip_s, cutoff_c, cradle_material)"),
])
def test_unknown_keys(tmp_path, table, body, needle, key, problem):
    text = drnim_text(**{table: body})
    expect_error(tmp_path, text, line_of(text, needle), key, problem)


def test_an_unknown_top_level_key(tmp_path):
    text = drnim_text(top='machine = "drnim"\nrows = 4')
    expect_error(tmp_path, text, 2, "rows", "unknown key for Dr. Nim (known: machine, inputs, outputs, build, pico, reserved)")


@pytest.mark.parametrize("body,needle,problem", [
    ('pin = 4\npull = "up"\nactive = "high"', 'active = "high"',
     "'high' does not fit pull = 'up': the pin rests high, so it is active low"),
    ('pin = 4\npull = "down"\nactive = "low"', 'active = "low"',
     "'low' does not fit pull = 'down': the pin rests low, so it is active high"),
    ('pin = 4\npull = "none"', "[inputs.trigger]", 'missing (with pull = "none" an external resistor'),
    ('pin = 4\npull = "none"\nactive = "on"', 'active = "on"', "'on' is not one of low, high"),
    ('pin = 4\npull = "upp"', 'pull = "upp"', "'upp' is not one of up, down, none"),
])
def test_pull_and_active_must_agree(tmp_path, body, needle, problem):
    text = drnim_text(inputs__trigger=body)
    key = "inputs.trigger.pull" if "upp" in body else "inputs.trigger.active"
    expect_error(tmp_path, text, line_of(text, needle), key, problem)


@pytest.mark.parametrize("table,value,problem", [
    ("inputs__trigger", "-1", "must be a number of milliseconds from 0 to 1000, not -1"),
    ("inputs__trigger", "5000", "from 0 to 1000, not 5000"),
    ("inputs__trigger", '"20"', "not '20'"),
    ("inputs__trigger", "false", "not False"),
    ("inputs__marble_sensor", "20", "from 0 to 5, not 20 (a falling marble blocks the beam for only 10-20 ms)"),
])
def test_bad_debounce(tmp_path, table, value, problem):
    pin = 8 if table == "inputs__marble_sensor" else 4
    text = drnim_text(**{table: "pin = %d\ndebounce_ms = %s" % (pin, value)})
    key = table.replace("__", ".") + ".debounce_ms"
    expect_error(tmp_path, text, line_of(text, "debounce_ms = " + value, after="[%s]" % key[:-12]), key, problem)


def test_a_fractional_debounce_is_fine(tmp_path):
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(inputs__marble_sensor="pin = 8\ndebounce_ms = 1.5"))
    spec = load_pinmap(path).inputs["marble_sensor"]
    assert spec.debounce_ms == 1.5 and spec.debounce_s == 0.0015


def test_a_shift_register_too_short_for_the_lamps(tmp_path):
    text = nimatron_text(registers=6)
    expect_error(tmp_path, text, line_of(text, "registers = 6"), "outputs.lamps.registers",
                 "6 registers are too few: each display's 28 lamps (4 rows x 7) take 4 of their own (U1-U4 the "
                 "console, then the spectators' display), so use 8 or more")
    text = nimatron_text(registers=7)
    expect_error(tmp_path, text, line_of(text, "registers = 7"), "outputs.lamps.registers",
                 "7 registers are too few"), "56 outputs are enough for 56 lamps, but then U4 drives both displays"


def test_more_rows_need_more_registers_and_their_buttons(tmp_path):
    text = nimatron_text(rows=5, registers=8)
    expect_error(tmp_path, text, line_of(text, "registers = 8"), "outputs.lamps.registers",
                 "8 registers are too few: each display's 35 lamps (5 rows x 7) take 5 of their own")
    path = tmp_path / "ok.toml"
    path.write_text(nimatron_text(rows=5, registers=10))
    assert list(load_pinmap(path).inputs)[:5] == ["row1", "row2", "row3", "row4", "row5"]


def test_a_nimatron_of_another_layout_is_told_what_its_build_takes_where_the_guide_counts_four_rows_of_seven(
        tmp_path, capsys):
    """A builder with five rows was told "ok", and built from a parts list, a console top and lamp boards
    counted for the 1940 machine's four rows of seven (found by the Nimatron builder's review)."""
    path = tmp_path / "pinmap.toml"
    path.write_text(nimatron_text(rows=5, registers=10))
    assert pm.main([str(path)]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[-1] == (
        "warning: %s:2: rows, lamps_per_row: 5 rows of 7 lamps, where the parts list, the console top and the lamp "
        "boards are counted for the 1940 machine's 4 of 7: this build takes 70 lamp LEDs and their resistors, 10 "
        "74HC595s and as many ULN2803s, 7 buttons, and 0.91 A through the ribbon with every lamp lit, which its "
        "PTCs must hold; hardware/nimatron/README.md, \"Another layout\", says what to change" % path)

    assert pm.main(["nimatron"]) == 0
    assert "warning" not in capsys.readouterr().out
    shipped_map = pm.load_pinmap(default_pinmap_path("nimatron"))
    rows, lamps = shipped_map.rows, shipped_map.lamps_per_row
    counted = {row["part"]: row["quantity"] for row in read_bom(ROOT / "hardware/nimatron/bom.csv")}
    assert counted["LED 5 mm warm-white"] == counted["Resistor 100 Ω"] == 2 * rows * lamps, \
        "the parts list counts the lamps of the layout the line names"
    assert counted["Shift register"] == counted["Darlington driver array"] == \
        shipped_map.outputs["lamps"].options["registers"]
    assert counted["Momentary push button 16 mm"] == rows + 2


def test_a_row_button_beyond_the_rows(tmp_path):
    text = nimatron_text(rows=4, extra_inputs=["row5"])
    expect_error(tmp_path, text, line_of(text, "[inputs.row5]"), "inputs.row5",
                 "unknown input (the Nimatron's inputs are row1, row2, row3, row4, handover, new_game)")


@pytest.mark.parametrize("top,line,key,problem", [
    ('machine = "drnimm"', 1, "machine", "'drnimm' is not one of " + ", ".join(MACHINES)),
    ('machine = 1', 1, "machine", "1 is not one of " + ", ".join(MACHINES)),
    ('# no machine', 1, "machine", "missing (machine = %s)" % " or ".join('"%s"' % name for name in MACHINES)),
    ('\n\nmachine = "nimatron"', 1, "rows", "missing (the number of lamp rows, 4 on the original)"),
])
def test_a_wrong_machine(tmp_path, top, line, key, problem):
    expect_error(tmp_path, drnim_text(top=top), line, key, problem)


def test_a_pin_map_for_the_other_machine(tmp_path):
    expect_error(tmp_path, drnim_text(), 1, "machine", "'drnim', but this should be the pin map of the Nimatron",
                 machine="nimatron")


@pytest.mark.parametrize("extra,problem", [
    ("rows = 0", "must be a whole number from 1 to 16, not 0"),
    ("lamps_per_row = 65", "must be a whole number from 1 to 64, not 65"),
])
def test_bad_rows_or_lamps(tmp_path, extra, problem):
    key, value = extra.split(" = ")
    text = nimatron_text().replace("%s = " % key, "%s = %s\n# was " % (key, value), 1)
    text = re.sub(r"# was .*\n", "", text)
    expect_error(tmp_path, text, line_of(text, extra), key, problem)


@pytest.mark.parametrize("body,needle,key,problem", [
    ('kind = "servo"\npin = 18\nopen_angle = 120', "open_angle", "outputs.release.open_angle",
     "must be a number from -90 to 90 degrees, not 120"),
    ('kind = "servo"\npin = 18\nclosed_angle = 30\nopen_angle = 30', "open_angle", "outputs.release.open_angle",
     "30 is the same as closed_angle: the servo would not move"),
    ('kind = "servo"\npin = 18\nmin_pulse_ms = 2.0\nmax_pulse_ms = 1.0', "max_pulse_ms",
     "outputs.release.max_pulse_ms", "1.0 must be more than min_pulse_ms (2.0)"),
    ('kind = "servo"\npin = 18\nmax_pulse_ms = 20', "max_pulse_ms", "outputs.release.max_pulse_ms",
     "must be a number from 0.3 to 3.0 ms, not 20"),
])
def test_bad_servo_settings(tmp_path, body, needle, key, problem):
    text = drnim_text(outputs__release=body)
    expect_error(tmp_path, text, line_of(text, needle), key, problem)


def test_line_numbers_for_inline_tables_and_dotted_keys(tmp_path):
    text = drnim_text(top='machine = "drnim"\ninputs.trigger.pin = 40', inputs__trigger=None)
    expect_error(tmp_path, text, 2, "inputs.trigger.pin", "GPIO 40 is not on the 40-pin header")
    text = ('machine = "drnim"\n[inputs]\n"trigger" = { pin = 4, pull = "down", active = "low" }\n'
            + drnim_text(top="", inputs__trigger=None))
    expect_error(tmp_path, text, 3, "inputs.trigger.active", "'low' does not fit pull = 'down'")


def test_a_multi_line_string_does_not_confuse_the_line_numbers(tmp_path):
    text = drnim_text(inputs__trigger='label = """Trigger\npin = 99\n"""\npin = 40')
    expect_error(tmp_path, text, line_of(text, "pin = 40"), "inputs.trigger.pin", "GPIO 40 is not on")


def test_an_unreadable_file(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(PinMapError, match=r"^%s:1: file: cannot read it" % re.escape(str(path))):
        load_pinmap(path)
    path.write_bytes(b'machine = "drnim"\nlabel = "\xff"\n')
    with pytest.raises(PinMapError, match=r":2: file: not UTF-8 text$"):
        load_pinmap(path)


# --- the specs' gpiozero arguments ---------------------------------------------

def test_input_specs_give_gpiozero_its_pull_up_and_active_state():
    up = pm.InputSpec("trigger", "t", 4, "up", "low", 20)
    down = pm.InputSpec("trigger", "t", 4, "down", "high", 20)
    high = pm.InputSpec("trigger", "t", 4, "none", "high", 20)
    low = pm.InputSpec("trigger", "t", 4, "none", "low", 20)
    assert [(s.pull_up, s.active_state, s.active_high) for s in (up, down, high, low)] == [
        (True, None, False), (False, None, True), (None, True, True), (None, False, False)]
    assert low.gpiozero_kwargs() == {"pull_up": None, "active_state": False}


def servo_variant(text, table):
    """The shipped map with the commented-out servo example of `table` put in place of its own keys."""
    out = []
    inside = False
    for line in text.splitlines():
        if line.startswith("["):
            inside = line.split("#")[0].strip() == "[%s]" % table
        elif inside and re.match(r"^(kind|pin|left|right|active|colour|resistor) = ", line):
            continue
        elif inside and re.match(r"^#   \w+ = ", line):
            line = line[4:]
        out.append(line)
    return "\n".join(out) + "\n"


def test_the_commented_servo_examples_load(tmp_path):
    text = default_pinmap_path("drnim").read_text()
    text = servo_variant(servo_variant(text, "outputs.release"), "outputs.turn")
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    pinmap = load_pinmap(path)
    release, turn = pinmap.outputs["release"], pinmap.outputs["turn"]
    assert (release.kind, release.pins, release.active) == ("servo", {"pin": 18}, None)
    assert release.options == {"closed_angle": 5, "open_angle": 16, "seconds_per_60": 0.1, "min_pulse_ms": 0.5,
                               "max_pulse_ms": 2.4}
    assert release.travel_ms() == 19
    assert (turn.kind, turn.pins) == ("servo", {"pin": 12})
    assert turn.options == {"left_angle": -45, "right_angle": 45, "min_pulse_ms": 1.0, "max_pulse_ms": 2.0}
    assert 11 in pinmap.free_pins()
    assert "closed 5°, open 16°; pulses 0.5-2.4 ms" in wiring_table(pinmap)


def test_two_servos_on_one_pwm_output_of_the_pico_are_refused(tmp_path):
    """GPn and GPn+16 are one PWM output of the RP2040: a gate on GP0 and a turn flipper on GP16 would
    open the gate whenever the flipper moved. The build took them; any other pair plays."""
    from controller.hardware.pinmap.pico import load_pico
    text = servo_variant(servo_variant(default_pinmap_path("drnim").read_text(), "outputs.release"), "outputs.turn")
    text = text.replace("\nturn = { left = 16, right = 17 }\n", "\nturn = 16\n")
    path = tmp_path / "pinmap.toml"
    path.write_text(text.replace("\nrelease = 7\n", "\nrelease = 1\n"))
    assert load_pico(path)[1]["turn"] == {"pin": 16}
    path.write_text(text.replace("\nrelease = 7\n", "\nrelease = 0\n"))
    with pytest.raises(PinMapError) as refused:
        load_pico(path)
    assert str(refused.value) == "%s:%d: pico.turn: GP16 and GP0 (pico.release) are one PWM output of the RP2040: " \
        "the two servos would move together; move one to a pin that is not 16 from the other" \
        % (path, line_of(path.read_text(), "turn = 16"))


def test_a_pico_input_on_the_chips_own_pull_down_is_refused(tmp_path, capsys):
    """On a Pico 2's first chips (RP2350 erratum E9) a pin on its own pull-down floats up after a first
    press and reads pressed for good: New game would start one game, then none. The build took it, as
    the Pi's check still does (a Pi's pins have no such fault)."""
    from controller.hardware.pinmap import load_pinmap
    from controller.hardware.pinmap.pico import load_pico
    text = default_pinmap_path("drnim").read_text().replace(
        '[inputs.new_game]\nlabel = "New game button"\npin = 7                           # header pin 26\n'
        'pull = "up"\nactive = "low"', '[inputs.new_game]\nlabel = "New game button"\npin = 7\npull = "down"\n'
        'active = "high"')
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    assert load_pinmap(path).inputs["new_game"].pull == "down"
    with pytest.raises(PinMapError) as refused:
        load_pico(path)
    assert str(refused.value).startswith("%s:%d: inputs.new_game.pull: a pin held by the chip's own pull-down "
                                         "reads pressed for good after a first press on a Pico 2" % (
                                             path, line_of(text, 'pull = "down"')))
    assert 'external pull-down of 8.2 kΩ or less and pull = "none"' in str(refused.value)
    assert pm.main([str(path)]) == 0, "the map's own check takes it for the Pi, and warns of the Pico"
    assert "warning: %s:%d: inputs.new_game.pull: for the Pico's build (controller firmware build refuses it): " \
        "a pin held by the chip's own pull-down" % (path, line_of(text, 'pull = "down"')) in capsys.readouterr().out


# --- building gpiozero devices on MockFactory ------------------------------------

def build(spec):
    """The plain gpiozero devices a spec asks for: {pin name: device}."""
    if spec.kind == "servo":
        return {"pin": AngularServo(spec.pin, **spec.servo_kwargs())}
    if spec.kind == "led_pair":
        return {name: LED(pin, active_high=spec.active_high) for name, pin in spec.pins.items()}
    if spec.kind == "led":
        return {"pin": LED(spec.pin, active_high=spec.active_high)}
    if spec.kind == "buzzer":
        return {"pin": Buzzer(spec.pin, active_high=spec.active_high)}
    if spec.kind == "solenoid":
        return {"pin": DigitalOutputDevice(spec.pin, active_high=spec.active_high)}
    if spec.kind == "shift_register":
        return {name: DigitalOutputDevice(pin) for name, pin in spec.pins.items()}
    raise AssertionError(spec.kind)


@pytest.mark.parametrize("machine", MACHINES)
def test_every_input_becomes_a_button_that_reads_its_active_level(mock_factory, machine):
    pinmap = load_pinmap(default_pinmap_path(machine))
    rest_inputs(mock_factory, pinmap)      # the sensor's external pull-up
    for spec in pinmap.inputs.values():
        button = Button(spec.pin, pull_up=spec.pull_up, active_state=spec.active_state)
        pin = mock_factory.pin(spec.pin)
        assert not button.is_pressed, spec.role
        (pin.drive_high if spec.active_high else pin.drive_low)()
        assert button.is_pressed, spec.role
        (pin.drive_low if spec.active_high else pin.drive_high)()
        assert not button.is_pressed, spec.role


@pytest.mark.parametrize("pull,active", [("none", "high"), ("none", "low"), ("down", "high")])
def test_inputs_without_the_pull_up_build_buttons_too(tmp_path, mock_factory, pull, active):
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(inputs__trigger='pin = 4\npull = "%s"\nactive = "%s"' % (pull, active)))
    spec = load_pinmap(path).inputs["trigger"]
    pin = mock_factory.pin(4)
    (pin.drive_low if spec.active_high else pin.drive_high)()
    button = Button(spec.pin, pull_up=spec.pull_up, active_state=spec.active_state)
    assert not button.is_pressed
    (pin.drive_high if spec.active_high else pin.drive_low)()
    assert button.is_pressed


@pytest.mark.parametrize("machine", MACHINES)
def test_every_output_becomes_a_gpiozero_device_that_drives_its_pins(mock_factory, machine):
    pinmap = load_pinmap(default_pinmap_path(machine))
    for spec in pinmap.outputs.values():
        for name, device in build(spec).items():
            pin = mock_factory.pin(spec.pins[name])
            off, on = (0, 1) if spec.active_high in (True, None) else (1, 0)
            assert pin.state == off, spec.role
            device.on()
            assert pin.state == on, spec.role
            device.off()
            assert pin.state == off, spec.role
    assert len(mock_factory.pins) == sum(len(spec.pins) for spec in pinmap.outputs.values())


def test_an_active_low_output(tmp_path, mock_factory):
    path = tmp_path / "pinmap.toml"
    path.write_text(drnim_text(outputs__lamp_fault='kind = "led"\npin = 26\nactive = "low"\n' + RED))
    spec = load_pinmap(path).outputs["lamp_fault"]
    led = LED(spec.pin, active_high=spec.active_high)
    assert mock_factory.pin(26).state == 1
    led.on()
    assert mock_factory.pin(26).state == 0


def test_servo_specs_build_angular_servos(tmp_path, mock_factory):
    text = default_pinmap_path("drnim").read_text()
    path = tmp_path / "pinmap.toml"
    path.write_text(servo_variant(servo_variant(text, "outputs.release"), "outputs.turn"))
    pinmap = load_pinmap(path)
    release, turn = pinmap.outputs["release"], pinmap.outputs["turn"]
    gate = build(release)["pin"]
    pin = mock_factory.pin(18)
    for angle, pulse_ms in ((release.options["closed_angle"], 0.5 + 1.9 * 95 / 180),
                            (release.options["open_angle"], 0.5 + 1.9 * 106 / 180), (-90, 0.5), (90, 2.4)):
        gate.angle = angle
        assert gate.pulse_width == pytest.approx(pulse_ms / 1000)
        assert pin.frequency == 50 and pin.state == pytest.approx(pulse_ms / 20)
    flipper = build(turn)["pin"]
    flipper.angle = turn.options["right_angle"]
    assert flipper.pulse_width == pytest.approx(0.00175)
    assert mock_factory.pin(12).state == pytest.approx(1.75 / 20)


# --- any pin moved anywhere: loads, or names the line of the moved pin --------------

DRNIM_SHIPPED = None


def shipped_drnim():
    global DRNIM_SHIPPED
    if DRNIM_SHIPPED is None:
        DRNIM_SHIPPED = default_pinmap_path("drnim").read_text()
    return DRNIM_SHIPPED


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, 21), value=st.integers(-3, 45))
def test_moving_any_pin_anywhere_loads_or_names_that_pin(tmp_path, which, value):
    text = shipped_drnim()
    original = load_pinmap(default_pinmap_path("drnim"))
    bcm, key = list(original.pins().items())[which]
    table, name = key.rsplit(".", 1)
    lines = text.splitlines()
    header = lines.index("[%s]" % table)
    number = next(i for i in range(header, len(lines)) if re.match(r"^%s = %d\b" % (name, bcm), lines[i]))
    lines[number] = "%s = %d" % (name, value)
    path = tmp_path / "moved.toml"
    path.write_text("\n".join(lines) + "\n")
    used = {pin: k for pin, k in original.pins().items() if k != key}
    # every output of the shipped map is on at high, which BCM 2/3's pull-ups would switch on
    pulled_up = value in (2, 3) and key.startswith("outputs.")
    # the solenoid, on the serial port's pins, which a port switched on holds high
    serial = value in (14, 15) and key == "outputs.release.pin"
    if value in HEADER and value not in used and not pulled_up and not serial:
        assert load_pinmap(path).pins()[value] == key
        return
    with pytest.raises(PinMapError) as caught:
        load_pinmap(path)
    m = ERROR_LINE.match(str(caught.value))
    if value in used:
        # the later of the two pins in file order is the one reported
        keys = list(original.pins().values())
        first, second = sorted([key, used[value]], key=keys.index)
        assert m["key"] == second and m["problem"] == "GPIO %d is already used by %s" % (value, first)
        if second == key:
            assert int(m["line"]) == number + 1
    else:
        assert (int(m["line"]), m["key"]) == (number + 1, key)


def test_the_example_error_in_the_hardware_readme_is_what_the_loader_says(tmp_path):
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    example = next(line for line in readme.splitlines() if line.startswith("hardware/drnim/pinmap.toml:"))
    path = tmp_path / "pinmap.toml"
    path.write_text(re.sub(r"(?m)^pin = 4 ", "pin = 40", shipped_drnim(), count=1))
    with pytest.raises(PinMapError) as caught:
        load_pinmap(path)
    assert str(caught.value) == example.replace("hardware/drnim/pinmap.toml", str(path), 1)


def test_the_lamp_chains_enable_pin_is_optional_and_checked_like_any_pin(tmp_path):
    source = (ROOT / "hardware" / "nimatron" / "pinmap.toml").read_text()
    path = tmp_path / "pinmap.toml"
    path.write_text(re.sub(r"\nenable = 5 .*\n", "\n", source))
    assert "enable" not in load_pinmap(path).outputs["lamps"].pins, "without it, OE is wired to GND"
    path.write_text(source.replace("enable = 5 ", "enable = 12"))
    with pytest.raises(PinMapError) as error:
        load_pinmap(path)
    assert re.match(r".*pinmap\.toml:\d+: outputs\.lamp_your_turn\.pin: GPIO 12 is already used by "
                    r"outputs\.lamps\.enable$", str(error.value))
