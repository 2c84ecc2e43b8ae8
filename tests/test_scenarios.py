"""Every numbered behaviour of ../shared/machines.md (R1-R20 for Dr. Nim, N1-N8
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
RUNNER = ROOT / "tests" / "mpy" / "scenarios.py"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_holds(path):
    played = run(path.read_text())
    assert played.failures == []
    assert played.trace, "a scenario that sends nothing proves nothing"


def test_every_behaviour_has_a_scenario():
    names = [p.stem for p in SCENARIOS]
    for label in ["R%d" % i for i in range(1, 21)] + ["N%d" % i for i in range(1, 9)]:
        assert any(re.match(label + "-", name) for name in names), label
    assert {"R8-player-takes-3-eq-any", "R8-player-takes-3-eq-drnim"} <= set(names)


def test_each_scenario_names_its_behaviour_in_its_first_line():
    for path in SCENARIOS:
        label = path.stem.split("-")[0]
        if label[0] in "RN":
            assert path.read_text().startswith("# %s" % label), path.name


def test_scenarios_give_identical_commands_under_micropython(micropython):
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


@pytest.mark.parametrize("text,words", [
    ("press trigger", "line 1: the script must start with a 'machine' line"),
    ("machine drnim\nwait soon", "line 2: 'soon' is not a duration"),
    ("machine drnim\n\n# a comment\nfly away", "line 4: cannot read 'fly away'"),
    ("machine drnim marbles=99", "line 1: marbles: must be 1 to 15"),
    ("machine toaster", "line 1: the machine is drnim or nimatron"),
    ("machine drnim\nexpect colour red", "line 2: cannot check 'colour'"),
])
def test_malformed_scripts_name_the_line(text, words):
    with pytest.raises(ScriptError, match=words):
        run(text)


def test_a_failed_expectation_says_what_was_wanted_and_got():
    played = run("machine drnim\npress trigger\nexpect rail 13\nexpect controls turn=left")
    assert played.failures == ["line 3: expected rail 13, got 14", "line 4: expected controls turn=left, got turn=right"]
