"""The staff sheets (hardware/<machine>/staff-sheet.md), for gallery staff with no computer: what
they tell is what the exhibit does. Each scenario a sheet cites is there (tests/test_scenarios.py and
tests/test_sim.py play every one), and every staff scenario of its machine is cited; the beeps, the
marbles, the minutes and the lamps a sheet names are the machine's; and what no scenario can play
(a button held down, a saved game that cannot be read back, the lamps themselves) plays on the
simulator as the sheet says."""

import ast
import re

import pytest

from conftest import ROOT
from controller.core.registry import NAMES, machine_class
from controller.hardware.boards import BEEPS
from controller.language import language
from controller.language.lamps import lamp_names
from controller.service.config import SERVICE_SETTINGS
from controller.sim.engine import Simulation

SCENARIOS = ROOT / "tests" / "scenarios"


def sheet(machine):
    return (ROOT / "hardware" / machine / "staff-sheet.md").read_text(encoding="utf-8")


def says(machine, *phrases):
    """Each phrase is in the sheet, as it is written there (spaces and line breaks alike)."""
    text = " ".join(sheet(machine).split())
    for phrase in phrases:
        assert phrase in text, "hardware/%s/staff-sheet.md no longer says %r" % (machine, phrase)


@pytest.mark.parametrize("machine", NAMES)
def test_a_sheet_cites_scenarios_that_are_there_and_every_staff_scenario_of_its_machine(machine):
    cited = re.findall(r"\]\(\.\./\.\./tests/scenarios/([^)]+)\)", sheet(machine))
    assert cited and [name for name in cited if not (SCENARIOS / name).exists()] == []
    own = sorted(path.name for path in SCENARIOS.glob("staff-%s-*.txt" % machine))
    assert own and [name for name in own if name not in cited] == []
    for name in own:
        assert (SCENARIOS / name).read_text().startswith("# Staff sheet (hardware/%s/staff-sheet.md)" % machine)
    for doc, link in (("hardware/README.md", "%s/staff-sheet.md" % machine),
                      ("docs/troubleshooting.md", "../hardware/%s/staff-sheet.md" % machine)):
        assert "](%s)" % link in (ROOT / doc).read_text(encoding="utf-8"), "%s links the sheet" % doc


def firmware_beeps():
    """The board's BEEPS, read from firmware/drivers.py (a MicroPython module the host cannot import)."""
    source = (ROOT / "firmware" / "drivers.py").read_text()
    return ast.literal_eval(re.search(r"^BEEPS = (\{.*?\})$", source, re.M | re.S).group(1))


def test_the_beeps_a_sheet_names_are_the_buzzer_s_on_a_pi_and_on_a_pico():
    for beeps in (BEEPS, firmware_beeps()):
        assert [beeps[cue][-1] for cue in ("new_game", "refuse", "extra", "fault")] == [1, 2, 2, 5]
    says("drnim", "one beep", "two short beeps", "five beeps")
    says("nimatron", "one beep", "two short beeps")


def test_the_marbles_minutes_and_seconds_a_sheet_names_are_the_machine_s():
    drnim, nimatron = machine_class("drnim")({}).config, machine_class("nimatron")({}).config
    spares = [line for line in (ROOT / "hardware" / "drnim" / "bom.csv").read_text().splitlines()
              if line.startswith("Marbles")][0]
    assert "%d for the game and 3 spare" % drnim["marbles"] in spares
    tries = {1: "once", 2: "twice", 3: "three times", 4: "four times"}[1 + drnim["release_retries"]]
    says("drnim", "the gate tries %s" % tries, "**3 spare marbles**", "**A game needs %d marbles on the rail.**" % drnim["marbles"],
         "pressed anything for %d minutes" % (drnim["idle_ms"] // 60000))
    says("nimatron", "thinks for about %d seconds" % (nimatron["think_ms"] // 1000),
         "pressed anything for %d minutes" % (nimatron["idle_ms"] // 60000))


@pytest.mark.parametrize("machine", NAMES)
def test_a_sheet_names_every_status_lamp_as_its_label_on_the_machine_says(machine):
    for name in lamp_names(language("en"))[machine].values():
        assert "**%s**" % name in sheet(machine), name


def lit(sim):
    return sorted(name for name, shown in sim.lamps().items() if shown != "off")


def test_dr_nim_s_fault_lamp_stays_lit_while_the_other_lamps_rest_and_is_dark_in_their_pattern():
    says("drnim", "it stays lit, even while the other lamps rest", "the first four lamps light one after another",
         "Several stuck (the gate tries three times)")
    resting = Simulation("drnim", {})
    jammed = Simulation("drnim", {})
    try:
        resting.advance(121000)
        jammed.marbles.set_world(lost=(1, 2, 3))
        jammed.press("trigger")
        jammed.settle()
        jammed.advance(121000)
        assert jammed.machine.attract and resting.machine.attract
        seen_resting, seen_jammed = set(), set()
        for _ in range(20):
            resting.advance(200)
            jammed.advance(200)
            seen_resting.update(lit(resting))
            assert jammed.lamps()["fault"] == "on"
            seen_jammed.update(lit(jammed))
        first_four = {"your_turn", "drnim_turn", "you_win", "drnim_wins"}
        assert seen_resting == first_four and seen_jammed == first_four | {"fault"}
    finally:
        resting.close()
        jammed.close()


@pytest.mark.parametrize("machine, button, acted", [
    ("drnim", "trigger", lambda sim: sim.machine.rail),
    ("nimatron", "row4", lambda sim: sim.rows()),
])
def test_a_button_held_down_acts_once_shows_nothing_and_plays_on_once_let_go(machine, button, acted):
    says(machine, "a stuck button: nothing on the exhibit shows it", "the game goes on by itself, nothing to reset")
    sim = Simulation(machine, {})
    try:
        before = acted(sim)
        pin = sim.factory.pin(sim.pinmap.inputs[button].pin)
        sim.edge(pin, True)
        sim.advance(1000)
        once = acted(sim)
        assert once != before
        lamps = sim.lamps()
        sim.advance(1000 * SERVICE_SETTINGS["stuck_after_s"].default + 30000)
        assert "stuck:" + button in sim.service.faults, "the technician's record has it"
        assert acted(sim) == once and sim.lamps() == lamps and sim.machine.fault is None
        sim.edge(pin, False)
        sim.advance(1000)
        assert sim.service.faults == {}
        sim.press(button)
        sim.settle()
        assert acted(sim) != once
    finally:
        sim.close()


def test_the_nimatron_s_game_that_cannot_be_read_back_darkens_the_rows_and_blinks_your_turn_until_new_game(tmp_path):
    says("nimatron", "the rows dark and **your turn** blinking, alone; every other button refused; it stays so",
         "press NEW GAME", "the rows lit, **your turn** steady")
    first = Simulation("nimatron", {}, state_dir=str(tmp_path))
    first.press("row4")
    first.close()
    (tmp_path / "game.json").write_text('{"machine": "nimatron", "state": {')
    sim = Simulation("nimatron", {}, state_dir=str(tmp_path), keep_commands=True)
    try:
        sim.advance(1000)
        assert sim.rows() == [0, 0, 0, 0] and lit(sim) == ["your_turn"] and sim.lamps()["your_turn"] == "blink"
        for button in ("row1", "row4", "handover"):
            heard = len(sim.commands)
            sim.press(button)
            assert "sound refuse" in sim.commands[heard:]
        sim.advance(3600 * 1000)
        assert sim.rows() == [0, 0, 0, 0] and lit(sim) == ["your_turn"] and sim.lamps()["your_turn"] == "blink"
        heard = len(sim.commands)
        sim.press("new_game")
        sim.advance(1000)
        assert "sound new_game" in sim.commands[heard:]
        assert sum(sim.rows()) > 0 and sim.lamps()["your_turn"] == "on" and sim.machine.fault is None
    finally:
        sim.close()


def test_the_nimatron_s_lamps_in_a_game_at_its_end_and_at_rest():
    says("nimatron", "**the Nimatron's turn** blinking, then lit",
         "**NIM CHAMP** blinking, or **the Nimatron wins** lit, the rows dark",
         "the four small lamps light one after another, the rows as they were")
    sim = Simulation("nimatron", {"openings": [[1, 3, 5, 6]], "opening": "first", "think_ms": 2000, "pace_ms": 600})
    try:
        sim.press("row3")
        sim.press("row3")
        sim.press("handover")
        assert sim.lamps()["machine_turn"] == "blink"
        sim.advance(2400)
        assert sim.lamps()["machine_turn"] == "on" and sim.rows() == [1, 3, 3, 5]
        sim.settle()
        rows = sim.rows()
        sim.advance(121000)
        seen = set()
        for _ in range(20):
            sim.advance(200)
            seen.update(lit(sim))
            assert sim.rows() == rows
        assert seen == {"your_turn", "machine_turn", "nim_champ", "machine_wins"}
    finally:
        sim.close()
    for opening, winner in (([0, 0, 0, 1], "nim_champ"), ([0, 0, 0, 3], "machine_wins")):
        sim = Simulation("nimatron", {"openings": [opening], "opening": "first"})
        try:
            sim.press("row4")
            sim.press("handover")
            sim.settle()
            assert sim.rows() == [0, 0, 0, 0] and lit(sim) == [winner]
            assert sim.lamps()[winner] == ("blink" if winner == "nim_champ" else "on")
        finally:
            sim.close()


def test_a_marble_after_the_game_beeps_five_times_and_changes_no_lamp():
    """A marble through the gate once the game is over sounds the fault's beeps but lights no fault: the
    sheet says so, since staff (or a deaf visitor) who go by the lamps would otherwise look for a fault lamp."""
    says("drnim", "five beeps after the game is over", "but **fault** stays dark and no lamp changes")
    sim = Simulation("drnim", {"marbles": 1}, keep_commands=True)
    try:
        sim.press("trigger")
        sim.settle()
        assert sim.machine.winner == "machine"
        lamps = sim.lamps()
        heard = len(sim.commands)
        sim.beam()                      # a marble brought in and dropped through the gate
        sim.advance(1000)
        assert sim.commands[heard:] == ["sound fault", "message late_marble"] and BEEPS["fault"][-1] == 5
        assert sim.lamps() == lamps and lamps["fault"] == "off"
    finally:
        sim.close()
