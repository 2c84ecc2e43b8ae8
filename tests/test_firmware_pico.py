"""The firmware on the official MicroPython for the Pico, on an emulated RP2040
(tests/pico_rig.py): the scenarios play there as in the simulator. `make test`
plays a game of each machine with a power cut in its middle; `make
firmware-test` plays every scenario (marked firmware_test)."""

import pytest

from conftest import ROOT
from pico_rig import images, needs_pico, played, simulated  # noqa: F401  (images: a fixture)

pytestmark = needs_pico
SCENARIOS = ROOT / "tests" / "scenarios"
SAMPLE = ["policy-power-cut-mid-game-drnim.txt", "policy-power-cut-mid-game-nimatron.txt"]
EVERY = sorted(path.name for path in SCENARIOS.iterdir() if path.suffix in (".txt", ".sim"))


@pytest.mark.parametrize("name", SAMPLE)
def test_a_scenario_plays_on_the_official_micropython_as_in_the_simulator(name, images):  # noqa: F811
    said, failures = played(SCENARIOS / name, images)
    assert said == simulated(SCENARIOS / name)
    assert failures == []


@pytest.mark.firmware_test
@pytest.mark.parametrize("name", [name for name in EVERY if name not in SAMPLE])
def test_every_scenario_plays_on_the_official_micropython_as_in_the_simulator(name, images):  # noqa: F811
    said, failures = played(SCENARIOS / name, images)
    assert said == simulated(SCENARIOS / name)
    assert failures == []
