"""The firmware on the official MicroPython for the Pico, run instruction by
instruction on an emulated RP2040 (controller/firmware/rp2040.py): the build
deployed with mpremote over the board's port, its buttons and its marble
sensor on its pins, its time its own. A few scenarios of each machine play
here as in the simulator (every one of them is `make firmware-test`), and
the faults a real port has and our fake `machine` module hid each have a test.

The emulated Pico needs the UF2 (CONTROLLER_PICO_UF2), the RP2040's boot ROM
(CONTROLLER_RP2040_BOOTROM), Node.js and rp2040js (npm ci in
controller/firmware/pico, which make does): without them these tests are
skipped, saying which is missing."""

import pytest

from conftest import ROOT
from controller.firmware.board_test import Connector, run_scripts
from controller.firmware.rp2040 import tools
from controller.firmware.tools import FirmwareError
from controller.sim.script import run_script


def missing():
    try:
        tools()
    except FirmwareError as error:
        return str(error)
    return None


pytestmark = pytest.mark.skipif(missing() is not None, reason="the emulated Pico: %s" % missing())
SCENARIOS = ROOT / "tests" / "scenarios"
# One short game of each machine, and a power cut in the middle of a game of each.
SAMPLE = ["R5-equalizer-on-machine-first-drops-1.txt", "N8-nim-champ.txt", "policy-power-cut-mid-game-drnim.txt",
          "policy-power-cut-mid-game-nimatron.txt"]


@pytest.fixture(scope="session")
def images(tmp_path_factory):
    """Each build's flash, once deployed: later boards of the session start from it."""
    return tmp_path_factory.mktemp("pico-flash")


def simulated(path):
    """What `controller --simulate --script PATH` prints."""
    lines = []
    failures = run_script(path.read_text(), report=lines.append)
    return lines + ["%s: %s" % (path, "every expectation holds" if not failures else "failed")]


@pytest.mark.parametrize("name", SAMPLE)
def test_a_scenario_plays_on_the_official_micropython_as_in_the_simulator(name, images):
    path = SCENARIOS / name
    said = []
    connect = Connector(emulate="rp2040", report=said.append, images=images)
    try:
        results = run_scripts([(str(path), path.read_text())], connect, said.append)
    finally:
        connect.close()
    assert said == simulated(path)
    assert results == {str(path): []}
