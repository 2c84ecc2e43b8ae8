"""The parts lists agree with the pin maps: LEDs per colour, resistors per
value, the lamp chain's chips; and they hold what the wiring notes ask for."""

import csv
import re

import pytest

from conftest import ROOT
from controller.core.registry import NAMES as MACHINES
from controller.hardware.pinmap import load_default, load_pinmap
from controller.hardware.pinmap.parts import parts



def bom(machine, path=None):
    with open(path or ROOT / "hardware" / machine / "bom.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def counted(rows):
    """What a parts list holds, in the terms of `parts()`."""
    leds, resistors, capacitors, chips = {}, {}, {}, {}
    for row in rows:
        quantity = int(row["quantity"])
        led = re.match(r"^LED 5 mm (\S+)$", row["part"])
        resistor = re.match(r"^Resistor ([\d.]+) (k?)Ω$", row["part"])
        capacitor = re.match(r"^Capacitor (\d+ [nµ]F) ", row["part"])
        if capacitor and not row["choice"]:
            capacitors[capacitor.group(1)] = capacitors.get(capacitor.group(1), 0) + quantity
        if led:
            leds[led.group(1)] = leds.get(led.group(1), 0) + quantity
        elif resistor:
            ohms = float(resistor.group(1)) * (1000 if resistor.group(2) else 1)
            resistors[int(ohms)] = resistors.get(int(ohms), 0) + quantity
        for chip in ("74HC595", "ULN2803A"):
            if chip in row["example part number"]:
                chips[chip] = chips.get(chip, 0) + quantity
    return {"leds": leds, "resistors": resistors, "capacitors": capacitors, "chips": chips}


@pytest.mark.parametrize("machine", MACHINES)
def test_the_parts_list_agrees_with_the_pin_map(machine):
    assert counted(bom(machine)) == parts(load_default(machine))


def test_a_pin_map_change_shows_up_as_a_disagreement(tmp_path):
    path = tmp_path / "pinmap.toml"
    path.write_text((ROOT / "hardware" / "drnim" / "pinmap.toml").read_text().replace(
        'colour = "orange"\nresistor = 390', 'colour = "blue"\nresistor = 68'))
    wanted = parts(load_pinmap(path))
    assert wanted["leds"]["blue"] == 1 and wanted["resistors"][68] == 1
    assert counted(bom("drnim")) != wanted


def test_the_nimatron_list_has_a_chip_pair_per_register():
    assert parts(load_default("nimatron"))["chips"] == {"74HC595": 8, "ULN2803A": 8}


@pytest.mark.parametrize("machine", MACHINES)
def test_the_parts_list_has_a_closed_supply_a_fuse_the_buzzer_diode_and_both_pi_supplies(machine):
    rows = bom(machine)
    text = " ".join(" ".join(row.values()) for row in rows)
    parts_named = [row["part"] for row in rows]
    assert "RS-15" not in text and "screw terminal" not in text, "no mains wiring anywhere"
    assert "GST25A05-P1J" in text and "Panel barrel socket" in parts_named
    assert "Fuse 2 A slow-blow 5 x 20 mm" in parts_named and "Fuse holder 5 x 20 mm" in parts_named
    assert "Diode 1N4148" in parts_named
    assert {"Pi power supply (USB-C)", "Pi power supply (micro-USB)"} <= set(parts_named)
    micro = next(row for row in rows if row["part"] == "Pi power supply (micro-USB)")
    assert "Pi 3 B+" in micro["note"]
    pi = next(row for row in rows if row["part"] == "Raspberry Pi with a 40-pin header")
    assert "not a Zero 2 W" in pi["note"], "the printed boxes hold a full-size board only"


@pytest.mark.parametrize("machine", MACHINES)
def test_the_5_v_supply_has_its_mains_lead_in_the_parts_list(machine):
    """The GST25A05-P1J is a desktop supply with an IEC C14 inlet, sold without a lead: the parts lists
    left the lead out while the wiring said 'its mains lead plugs into the wall', so the one piece of the
    build a museum's PAT test takes (the supply with its lead) was whatever came to hand, or a lead wired
    by hand. The lead is a moulded one, counted in the build."""
    rows = bom(machine)
    assert any("GST25A05-P1J" in row["example part number"] for row in rows)
    lead = next((row for row in rows if row["part"] == "Mains lead for the 5 V supply (IEC C13)"), None)
    assert lead, "hardware/%s/bom.csv: no lead for the GST25A05-P1J (an IEC C14 inlet, sold without one)" % machine
    assert lead["choice"] == "" and "moulded" in lead["example part number"] and "C14" in lead["note"]


@pytest.mark.parametrize("machine", MACHINES)
def test_the_power_switch_the_staff_sheet_names_is_in_the_parts_list_and_the_guide(machine):
    """The staff sheet switches the exhibit off at 'the switched power strip both of the exhibit's plugs are
    in', and the museum switches it off there in an emergency; but only the Pico's section of the guide had
    such a strip: a Pi's build had no parts list row and no step that put its two plugs on one switch."""
    sheet = (ROOT / "hardware" / machine / "staff-sheet.md").read_text(encoding="utf-8")
    assert "switched power strip" in sheet.replace("\n", " ")
    strip = next((row for row in bom(machine) if row["part"] == "Switched power strip"), None)
    assert strip and strip["choice"] == "", "hardware/%s/bom.csv: no switched power strip" % machine
    guide = (ROOT / "hardware" / machine / "README.md").read_text(encoding="utf-8")
    bring_up = re.search(r"^## \d+\. Bring it up and play.*?(?=^## )", guide, re.M | re.S).group(0)
    assert "switched power strip" in bring_up.replace("\n", " ")


@pytest.mark.parametrize("machine", MACHINES)
def test_the_picos_charger_is_a_certified_one(machine):
    """A Pico exhibit plugs a USB charger into the gallery's mains, unattended for months, and the parts
    list asked for 'any 5 V 1 A mains USB phone charger': the unbranded one a drawer gives up, which a
    museum's inspection would refuse. It names a certified charger from a known maker, as the guide does."""
    charger = next(row for row in bom(machine) if row["part"].startswith("USB charger and micro-USB data cable"))
    assert "certified" in charger["example part number"] and "any " not in charger["example part number"]
    guide = (ROOT / "hardware" / machine / "README.md").read_text(encoding="utf-8").replace("\n", " ")
    assert "The charger plugs into the mains" in guide and "certified one from a known maker" in guide


# --- prices: the assembly guide's parts table and its total --------------------

from decimal import Decimal  # noqa: E402

from controller.hardware.pinmap import generated_section  # noqa: E402
from controller.hardware.pinmap.bom import BomError, parts_table, read_bom, total  # noqa: E402


@pytest.mark.parametrize("machine", MACHINES)
def test_the_assembly_guide_lists_the_parts_list_with_its_prices(machine):
    guide = (ROOT / "hardware" / machine / "README.md").read_text(encoding="utf-8")
    assert generated_section(guide, "parts") == parts_table(load_default(machine)), \
        "run: python -m controller.hardware.pinmap --write-docs"
    for row in bom(machine):
        assert Decimal(row["unit price EUR"]) > 0, row["part"]


def test_the_total_counts_one_build_not_its_alternatives():
    rows = read_bom(ROOT / "hardware" / "drnim" / "bom.csv")
    built = [row for row in rows if not row["choice"]]
    assert {"Micro servo (release gate instead of the solenoid)", "Pi power supply (micro-USB)"} <= set(
        row["part"] for row in rows if row["choice"] == "alternative")
    assert total(rows) == sum(row["quantity"] * row["unit price EUR"] for row in built)
    marbles = next(row for row in rows if row["part"].startswith("Marbles"))
    assert marbles["quantity"] * marbles["unit price EUR"] == Decimal("3.60"), "15 marbles and 3 spare at 0.20 €"
    assert parts_table(load_default("drnim")).splitlines()[-1].endswith("**%s €** |" % total(rows))


@pytest.mark.parametrize("machine", MACHINES)
def test_a_pico_build_costs_the_pis_build_with_the_pico_in_place_of_the_pis_parts(machine):
    """The guide's Pico section builds the machine with the parts list's two Pico lines in place of the
    Pi, its supplies, its card, the T-Cobbler and the Pi's four screws: the guide's Pico cost is that
    build's, not the Pi's."""
    from controller.hardware.pinmap.bom import pico_total
    rows = read_bom(ROOT / "hardware" / machine / "bom.csv")
    left_out = {"Raspberry Pi with a 40-pin header", "Pi power supply (USB-C)", "microSD card 16 GB or more",
                "GPIO breakout and 40-way ribbon cable", "Self-tapping screws M2.5 x 6"}
    pico = {"Raspberry Pi Pico (instead of the Pi)", "USB charger and micro-USB data cable (for the Pico)"}
    assert left_out | pico <= set(row["part"] for row in rows)
    built = [row for row in rows if (not row["choice"] and row["part"] not in left_out) or row["part"] in pico]
    assert pico_total(rows) == sum(row["quantity"] * row["unit price EUR"] for row in built)
    assert pico_total(rows) < total(rows)


def test_a_parts_list_without_a_row_the_pico_cost_leaves_out_is_refused_in_one_line(tmp_path):
    import io
    from controller.hardware.pinmap import main
    for name in ("pinmap.toml", "wiring.md", "README.md"):
        (tmp_path / name).write_text((ROOT / "hardware" / "drnim" / name).read_text(encoding="utf-8"), encoding="utf-8")
    lines = (ROOT / "hardware" / "drnim" / "bom.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "bom.csv").write_text("".join(line for line in lines if not line.startswith("GPIO breakout")),
                                      encoding="utf-8")
    out = io.StringIO()
    assert main(["--write-docs", str(tmp_path / "pinmap.toml")], out=out) == 1
    assert "%s: no row 'GPIO breakout and 40-way ribbon cable', which the guide's cost line counts\n" % (
        tmp_path / "bom.csv") in out.getvalue()


def test_a_price_that_is_not_a_number_is_refused_in_one_line(tmp_path):
    path = tmp_path / "bom.csv"
    text = (ROOT / "hardware" / "drnim" / "bom.csv").read_text(encoding="utf-8")
    path.write_text(text.replace(",8.00,\n", ",about 8,\n", 1), encoding="utf-8")
    with pytest.raises(BomError) as error:
        read_bom(path)
    message = str(error.value)
    assert "\n" not in message and "bom.csv:5: microSD card 16 GB or more:" in message and "'about 8'" in message


def test_write_docs_names_a_bad_price_and_fails(tmp_path):
    import io
    from controller.hardware.pinmap import main
    for name in ("pinmap.toml", "wiring.md", "README.md"):
        (tmp_path / name).write_text((ROOT / "hardware" / "drnim" / name).read_text(encoding="utf-8"), encoding="utf-8")
    text = (ROOT / "hardware" / "drnim" / "bom.csv").read_text(encoding="utf-8")
    (tmp_path / "bom.csv").write_text(text.replace(",8.00,\n", ",,\n", 1), encoding="utf-8")
    out = io.StringIO()
    assert main(["--write-docs", str(tmp_path / "pinmap.toml")], out=out) == 1
    assert "bom.csv:5: microSD card 16 GB or more: quantity 1 or unit price EUR '' is not a number" in out.getvalue()


def test_a_parts_list_without_a_column_is_refused_in_one_line(tmp_path):
    path = tmp_path / "bom.csv"
    lines = (ROOT / "hardware" / "drnim" / "bom.csv").read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(line.rsplit(",", 1)[0] for line in lines) + "\n", encoding="utf-8")
    with pytest.raises(BomError) as error:
        read_bom(path)
    assert str(error.value) == "%s: no column choice (the columns: part, quantity, example part number, note, " \
                               "unit price EUR, choice)" % path


@pytest.mark.parametrize("machine", MACHINES)
def test_the_guides_cost_and_led_count_come_from_the_parts_list_and_the_pin_map(machine):
    """The guide's "about N €" is the parts list's total and its LED step counts the pin map's
    LEDs: a price or an LED changed without --write-docs fails here."""
    from controller.hardware.pinmap.bom import cost_text, pico_total
    from controller.hardware.pinmap.docs import led_text
    pinmap = load_default(machine)
    guide = (ROOT / "hardware" / machine / "README.md").read_text(encoding="utf-8")
    assert generated_section(guide, "cost") == cost_text(pinmap)
    assert generated_section(guide, "leds") == led_text(pinmap)
    rows = read_bom(ROOT / "hardware" / machine / "bom.csv")
    assert "about %d € with a new Raspberry Pi 4" % total(rows).to_integral_value() in cost_text(pinmap)
    assert "about %d € with a Pico" % pico_total(rows).to_integral_value() in cost_text(pinmap)
    leds = sum(parts(pinmap)["leds"].values())
    counted_in_text = sum(int(n) for n in re.findall(r"the (\d+) (?:indicator LEDs|lamp LEDs|status lamps)",
                                                      led_text(pinmap)))
    assert counted_in_text == leds


def test_the_nimatrons_ribbon_fuses_carry_the_lamps_they_feed():
    """The +5 V from the console's stripboard feeds both lamp boards (every lamp lit: 0.73 A) and
    the +5 V from the console's lamp board the spectators' alone: a PTC held below what it
    carries trips in the middle of a game and the lamps go dark."""
    wiring = (ROOT / "hardware" / "nimatron" / "wiring.md").read_text()
    lamp_ma = float(re.search(r"= ([\d.]+) mA; a red one", wiring).group(1))
    lamps = next(int(row["quantity"]) for row in bom("nimatron") if row["part"] == "LED 5 mm warm-white")
    holds = dict((row["part"], float(re.search(r"([\d.]+) A hold", row["example part number"]).group(1)))
                 for row in bom("nimatron") if "(PTC)" in row["part"])
    assert holds["Resettable fuse for the ribbon to the console's lamp board (PTC)"] >= lamps * lamp_ma / 1000
    assert holds["Resettable fuse for the ribbon to the spectators' lamp board (PTC)"] >= lamps / 2 * lamp_ma / 1000


def test_the_coil_stages_dummy_load_takes_being_held_on():
    """Step 7 of the assembly guide holds the dummy load on (`pinctrl set 18 op dh` lights it until `op dl`):
    5 V across the list's 22 Ω is 1.14 W, and the list named a 1 W resistor, run past its rating and too hot
    to touch where the builder's hand is. Its rating holds the whole 5 V across it."""
    from controller.hardware.pinmap.electrical import COIL_VOLTS
    dummy = next(row for row in bom("drnim") if row["part"] == "Dummy load for the coil stage")
    ohms, watts = re.search(r"(\d+) Ω (\d+) W resistor", dummy["example part number"]).groups()
    assert int(watts) >= COIL_VOLTS ** 2 / int(ohms), dummy["example part number"]


@pytest.mark.parametrize("machine", MACHINES)
def test_the_plywood_in_the_parts_list_and_the_parts_readme_is_the_pin_maps(machine):
    """The backboard's and the base's sizes in the parts list and the parts' README come from the pin map's
    board_mm (the Nimatron's upright from upright_mm): typed by hand, they stayed 320 x 340 and 320 x 305 mm
    after a builder changed board_mm and ran --write-docs, and the parts were cut for the shipped board."""
    from controller.hardware.pinmap.bom import sized_bom
    from controller.hardware.pinmap.docs import boards_text
    pinmap = load_default(machine)
    text = (ROOT / "hardware" / machine / "bom.csv").read_text(encoding="utf-8")
    assert sized_bom(text, pinmap) == text, "run: python -m controller.hardware.pinmap --write-docs"
    readme = (ROOT / "hardware" / machine / "parts" / "README.md").read_text(encoding="utf-8")
    assert generated_section(readme, "boards") == boards_text(pinmap) != ""


def test_the_base_is_as_deep_and_as_thick_as_the_assembly_draws_it():
    from controller.hardware.pinmap.bom import DRNIM_BASE_MM
    assembly = (ROOT / "hardware" / "drnim" / "parts" / "assembly.scad").read_text(encoding="utf-8")
    assert re.search(r"^base = \[board\[0\], %d, %d\];" % DRNIM_BASE_MM, assembly, re.M)


def test_write_docs_gives_the_parts_list_and_the_parts_readme_the_pin_maps_board(tmp_path):
    import io
    import shutil
    from controller.hardware.pinmap import main
    folder = tmp_path / "drnim"
    shutil.copytree(ROOT / "hardware" / "drnim", folder, ignore=shutil.ignore_patterns("*.pdf", "*.png", "*.stl"))
    pinmap = folder / "pinmap.toml"
    pinmap.write_text(pinmap.read_text(encoding="utf-8").replace("board_mm = [320, 340, 9]", "board_mm = [360, 400, 12]",
                                                                 1), encoding="utf-8")
    out = io.StringIO()
    assert main(["--write-docs", str(pinmap)], out=out) == 0
    assert "%s: the plywood's sizes rewritten" % (folder / "bom.csv") in out.getvalue().splitlines()
    rows = dict((row["part"], row["example part number"]) for row in bom("drnim", folder / "bom.csv"))
    assert (rows["Backboard"], rows["Base"]) == ("12 mm birch plywood 360 x 400 mm", "9 mm birch plywood 360 x 305 mm")
    guide = (folder / "README.md").read_text(encoding="utf-8")
    assert "| Backboard | 1 | 12 mm birch plywood 360 x 400 mm |" in guide
    assert "| Base | 1 | 9 mm birch plywood 360 x 305 mm |" in guide
    readme = generated_section((folder / "parts" / "README.md").read_text(encoding="utf-8"), "boards")
    assert "a **backboard** of 12 mm birch plywood, 360 x 400 mm" in readme
    assert "a **base** of 9 mm birch plywood, 360 x 305 mm" in readme
    text = (folder / "bom.csv").read_text(encoding="utf-8")
    (folder / "bom.csv").write_text(text.replace("12 mm birch plywood 360 x 400 mm", "birch plywood"), encoding="utf-8")
    out = io.StringIO()
    assert main(["--write-docs", str(pinmap)], out=out) == 1
    number = text[:text.index("\nBackboard,") + 1].count("\n") + 1
    assert '%s:%d: Backboard: no "9 mm birch plywood 320 x 340 mm" in it to give the pin map\'s sizes (12 mm, 360 x ' \
           '400 mm)' % (folder / "bom.csv", number) in out.getvalue().splitlines()
