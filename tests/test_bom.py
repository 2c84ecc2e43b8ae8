"""The parts lists agree with the pin maps: LEDs per colour, resistors per
value, the lamp chain's chips; and they hold what the wiring notes ask for."""

import csv
import re

import pytest

from conftest import ROOT
from controller.hardware.pinmap import load_default, load_pinmap
from controller.hardware.pinmap.parts import parts

MACHINES = ("drnim", "nimatron")


def bom(machine, path=None):
    with open(path or ROOT / "hardware" / machine / "bom.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def counted(rows):
    """What a parts list holds, in the terms of `parts()`."""
    leds, resistors, chips = {}, {}, {}
    for row in rows:
        quantity = int(row["quantity"])
        led = re.match(r"^LED 5 mm (\S+)$", row["part"])
        resistor = re.match(r"^Resistor ([\d.]+) (k?)Ω$", row["part"])
        if led:
            leds[led.group(1)] = leds.get(led.group(1), 0) + quantity
        elif resistor:
            ohms = float(resistor.group(1)) * (1000 if resistor.group(2) else 1)
            resistors[int(ohms)] = resistors.get(int(ohms), 0) + quantity
        for chip in ("74HC595", "ULN2803A"):
            if chip in row["example part number"]:
                chips[chip] = chips.get(chip, 0) + quantity
    return {"leds": leds, "resistors": resistors, "chips": chips}


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
    assert "Pi 3 B+ or Zero 2 W" in micro["note"]
