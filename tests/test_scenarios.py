"""Every numbered behaviour of docs/machines.md (R1-R21 for Dr. Nim, N1-N8
for the Nimatron) has a scenario in tests/scenarios/; each passes, and CPython
and MicroPython produce identical commands for all of them."""

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, run_micropython
from controller.core.scenario import ScriptError, run

SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*.txt"))
SPECIFICATION = ROOT / "docs" / "machines.md"
RUNNER = ROOT / "tests" / "mpy" / "scenarios.py"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_holds(path):
    played = run(path.read_text())
    assert played.failures == []
    assert played.trace, "a scenario that sends nothing proves nothing"


def test_every_behaviour_has_a_scenario():
    """Each R and N the specification numbers, read from docs/machines.md itself."""
    labels = re.findall(r"^- ([RN]\d+)\. ", SPECIFICATION.read_text(), re.MULTILINE)
    assert labels[:21] == ["R%d" % i for i in range(1, 22)] and labels[21:] == ["N%d" % i for i in range(1, 9)]
    names = [p.stem for p in SCENARIOS]
    for label in labels:
        assert any(re.match(label + "-", name) for name in names), label
    assert {"R8-player-takes-3-eq-any", "R8-player-takes-3-eq-drnim"} <= set(names)


def test_each_scenario_names_its_behaviour_in_its_first_line():
    for path in SCENARIOS:
        label = path.stem.split("-")[0]
        if label[0] in "RN":
            assert path.read_text().startswith("# %s" % label), path.name


def test_scenarios_give_identical_commands_and_working_under_micropython(micropython):
    files = [str(p) for p in SCENARIOS]
    cpython = subprocess.run([sys.executable, str(RUNNER)] + files, cwd=ROOT, capture_output=True, text=True,
                             env={"PYTHONPATH": str(ROOT)}, timeout=300)
    assert cpython.returncode == 0, cpython.stderr
    micro = run_micropython(micropython, str(RUNNER), *files)
    assert micro.returncode == 0, micro.stderr
    expected, got = json.loads(cpython.stdout), json.loads(micro.stdout)
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert got[name]["failures"] == [], name
        assert got[name]["trace"] == expected[name]["trace"], name
        assert got[name]["working"] == expected[name]["working"], name
    assert any(entry["working"] for entry in expected.values()), "the working was recorded"


@pytest.mark.parametrize("text,words", [
    ("press trigger", "line 1: the script must start with a 'game' or 'machine' line"),
    ("machine drnim\nwait soon", "line 2: 'soon' is not a duration"),
    ("machine drnim\n\n# a comment\nfly away", "line 4: cannot read 'fly away'"),
    ("machine drnim marbles=99", "line 1: marbles: must be 1 to 15"),
    ("machine toaster", "line 1: the machine is drnim or nimatron"),
    ("machine drnim\nexpect colour red", "line 2: cannot check 'colour'"),
    # every number is read once, safely: no traceback, whatever is typed
    ("machine drnim marbles=1/x", "line 1: marbles is '1/x': it must be a whole number"),
    ("machine drnim marbles=²", "line 1: marbles is '²': it must be a whole number"),
    ("machine drnim seed=" + "9" * 5000, "line 1: seed is '99999"),
    ("machine nimatron rows=1,,2", "line 1: rows: item 2 is '': it must be a whole number"),
    ("machine drnim\nworld lost=x", "line 2: lost: item 1 is 'x': it must be a whole number"),
    ("machine drnim\nworld fall=0", "line 2: fall is 0: it must be from 1 to 600000"),
    ("machine drnim\nworld lost=0", "line 2: lost: item 1 is 0: it must be 1 or more"),
    ("machine drnim\nwait ²s", "line 2: '²s' is not a duration"),
    ("machine drnim\nwait 90000s", "line 2: wait '90000s' is out of range"),
    ("machine drnim equalizer=maybe", "line 1: equalizer is 'maybe': it must be true or false"),
    ("machine drnim\npress row 2", "line 2: this machine has no control 'row 2'"),
    ("machine drnim\nswitch turn sideways", "line 2: cannot set turn sideways"),
    ("machine drnim\nexpect rail", "line 2: cannot read 'expect rail'"),
    # found by bench/fuzz.py: an UnknownEvent traceback
    ("machine nimatron\nmarble", "line 2: marble: the Nimatron has no marbles"),
])
def test_malformed_scripts_name_the_line(text, words):
    with pytest.raises(ScriptError, match=words):
        run(text)


def test_a_failed_expectation_says_what_was_wanted_and_got():
    played = run("machine drnim\npress trigger\nexpect rail 13\nexpect controls turn=left")
    assert played.failures == ["line 3: expected rail 13, got 14", "line 4: expected controls turn=left, got turn=right"]


@pytest.mark.parametrize("text,message", [
    ("machine drnim\npress triger",
     "line 2: this machine has no control 'triger': Dr. Nim's controls are trigger, new-game"),
    ("machine nimatron\npress trigger", "line 2: this machine has no control 'trigger': the Nimatron's controls "
                                        "are row 1, row 2, row 3, row 4, handover, new-game"),
    ("machine drnim\nswitch turn computer", "line 2: cannot set turn computer: Dr. Nim's switches are "
                                            "turn machine|player|left|right, equalizer right|left|on|off"),
    ("machine nimatron\nswitch equalizer on", "line 2: cannot set equalizer on: the Nimatron has no switches"),
    ("machine drnim\nwait", "line 2: cannot read 'wait': write it as wait 2s (or 500ms, 5min, 1h)"),
    ("machine drnim\nwait 2 s", "line 2: cannot read 'wait 2 s': write it as wait 2s (or 500ms, 5min, 1h)"),
    ("machine drnim\nwait 2", "line 2: cannot read 'wait 2': write it as wait 2s (or 500ms, 5min, 1h)"),
    ("machine drnim\nsettle", "line 2: cannot read 'settle': write it as settle on or settle off"),
    ("machine drnim\nmarble 2", "line 2: cannot read 'marble 2': write it as marble, alone on its line"),
    ("machine drnim\nexpect rail=14", "line 2: cannot read 'expect rail=14': write it as expect rail 14"),
    ("machine drnim\nexpect turns", "line 2: cannot read 'expect turns': write it as expect turns player:1 machine:3"),
    ("machine nimatron\nexpect rail 3", "line 2: cannot check 'rail': the Nimatron shows attract, commands, fault, "
                                        "mode, releases, rows, turn, turns, winner"),
    ("", "line 1: the script has nothing to play: it must start with a 'game' or 'machine' line"),
    ("# only a comment\n\n", "line 1: the script has nothing to play: it must start with a 'game' or 'machine' line"),
])
def test_an_unreadable_line_says_what_would_be_right(text, message):
    """What a newcomer writes wrong is answered in one line with the right form: the machine's
    controls or switches, the verb's shape, what the machine shows; an empty script is no pass. A wait
    without its unit ('wait 2', meant as seconds) was taken as 2 ms, and the next expect failed for no
    reason the script showed."""
    with pytest.raises(ScriptError) as error:
        run(text)
    assert str(error.value) == message


def test_a_failed_expectation_of_turns_before_any_says_so():
    assert run("machine drnim\nexpect turns machine:1").failures == ["line 2: expected turns machine:1, got no turns yet"]


def readme_script_part():
    readme = (ROOT / "README.md").read_text()
    return readme.split("A script is one command a line", 1)[1].split("\n### ", 1)[0]


def test_the_readme_names_every_command_and_check_the_parser_accepts():
    from controller.core.scenario import EXPECT_EXAMPLES, SEEN, VERBS
    part = readme_script_part()
    for verb in VERBS:
        assert re.search(r"(^|`)%s\b" % verb, part, re.MULTILINE), verb
    checks = set(SEEN) | {"fault", "controls", "turns", "commands"}
    assert set(EXPECT_EXAMPLES) == checks
    for what in checks:
        assert "expect %s " % what in part, what


def test_every_script_in_the_readme_holds():
    blocks = readme_script_part().split("```\n")[1::2]
    assert blocks
    for block in blocks:
        assert run(block).failures == [], block


def test_a_line_may_end_as_on_windows_or_an_old_mac():
    """A file saved with CR alone between lines was one long first line: 'press' is not a setting."""
    for end in ("\r\n", "\r"):
        played = run(end.join(["machine drnim", "\tpress trigger", "expect rail 14", ""]))
        assert played.failures == [] and len(played.trace) > 1
