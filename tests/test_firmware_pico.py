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


def test_a_board_wired_to_other_pins_is_built_from_its_pin_map_and_plays_as_in_the_simulator(tmp_path,
                                                                                             images):  # noqa: F811
    """`firmware test --emulate rp2040 --pinmap`: the Pico is built and deployed from the user's copy, whose
    trigger and New game are swapped and whose sensor and release moved; the hands press, and the marble
    world watches and drives, the pins the roles have there (pressing the shipped map's trigger pin would
    start a new game)."""
    from controller.firmware.board_test import Connector, run_scripts
    from pico_rig import written_flash
    from test_firmware_build import moved_pins
    pinmap = moved_pins(tmp_path, "drnim")
    path = SCENARIOS / "R1-one-marble-per-press.txt"
    said = []
    connect = Connector(emulate="rp2040", report=said.append, images=images, write_flash=written_flash,
                        pinmap=str(pinmap))
    try:
        results = run_scripts([(str(path), path.read_text())], connect, said.append)
        config = connect.link.bench.config
    finally:
        connect.close()
    assert [line[:2] for line in config.INPUTS if line[0] in ("trigger", "new_game")] == [("trigger", 5),
                                                                                           ("new_game", 2)]
    assert config.SENSOR[:2] == ("marble_sensor", 27)
    assert said == simulated(path)
    assert results[str(path)] == []
