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

import io

import pytest
import serial

from conftest import ROOT
from controller.cli import main
from controller.core.protocol import PRODUCTION
from controller.firmware import deploy
from controller.firmware.build import build
from controller.firmware.board import BoardRefused
from controller.firmware.board_test import Connector, run_scripts
from controller.firmware.rp2040 import EmulatedPico, tools
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


class Pico:
    """A deployed board of `machine` on the emulated Pico, with the hands and
    the world of the scripts (controller/firmware/board_test.py)."""

    def __init__(self, images, machine="drnim"):
        self.said = []
        self.connect = Connector(emulate="rp2040", report=self.said.append, images=images)
        self.board = self.connect(machine)
        self.pico = self.connect.emulator
        self.bench = self.board.hands.bench

    def script(self, text):
        """Play a script (it starts with its `machine` line) on this board: its failures."""
        results = run_scripts([("script", text)], lambda machine: self.board, self.said.append)
        return results["script"]

    def close(self):
        self.connect.close()


@pytest.fixture
def drnim(images):
    board = Pico(images, "drnim")
    yield board
    board.close()


@pytest.fixture
def nimatron(images):
    board = Pico(images, "nimatron")
    yield board
    board.close()


def changes(board, pin, since=0):
    """(level, ms) of each change of `pin` the bench saw since `since` ms."""
    return [(level, at / 1e6) for number, level, at in board.bench.history if number == pin and at >= since * 1e6]


TICKS_PERIOD_MS = 1 << 30      # a Pico's time.ticks_ms() wraps after 2**30 ms, 12.4 days
LED = 25
MACHINE = "drnim"


def test_marbles_count_on_both_sides_of_the_ticks_wrap_and_the_led_blinks_slowly(drnim):
    drnim.pico.watch([LED])
    drnim.pico.power_cut(timer_us=(TICKS_PERIOD_MS - 60000) * 1000)
    drnim.board.wait_restart(20)
    assert drnim.script("machine drnim\npress trigger\nexpect rail 14\nwait 90s\npress trigger\nexpect rail 13\n"
                        "expect releases 2\nexpect fault none\n") == []
    assert blinking(drnim, 0) == 1000


def blinking(board, since):
    """The LED's half period in ms since `since` (rounded to 10 ms), once it has blinked a dozen times."""
    blinks = [(level, at) for level, at in changes(board, LED, since) if level in (0, 1)][2:]
    assert len(blinks) > 12 and [level for level, at in blinks] == [blinks[0][0], 1 - blinks[0][0]] * (len(blinks) // 2) \
        + [blinks[0][0]] * (len(blinks) % 2)
    gaps = sorted(b - a for (_, a), (_, b) in zip(blinks, blinks[1:]))
    return round(gaps[len(gaps) // 2], -1)


def test_the_release_shuts_on_time_while_the_host_reads_nothing(drnim):
    release = [line[2][0] for line in drnim.bench.config.OUTPUTS if line[0] == "release"][0]
    assert drnim.script("machine drnim\n") == []
    drnim.pico.host_reading(False)
    start = drnim.pico.now / 1e6
    for _ in range(3):
        drnim.board.hands.press("trigger")
    drnim.board.hands.advance(2000)
    drnim.pico.host_reading(True)
    pulses = changes(drnim, release, start)
    assert [level for level, at in pulses] == [1, 0] * 3
    widths = [round(shut - opened) for (_, opened), (_, shut) in zip(pulses[::2], pulses[1::2])]
    assert widths == [drnim.bench.config.RELEASE_PULSE_MS] * 3, widths
    lines = []
    drnim.board.on_line = lines.append
    assert drnim.board.ask("state")["status"]["rail"] == 12      # the board played on
    drnim.board.pass_time(0.5)
    dropped = [line for line in lines if line["kind"] == "fault" and line["fault"] == "link"]
    assert len(dropped) == 1 and dropped[0]["text"].endswith("lines dropped: the host read nothing for a while")


def test_a_new_game_the_wiring_cannot_play_is_refused_and_nothing_of_it_saved(nimatron):
    """A Nimatron wired for 4 rows asked for 5: one error line, and the flash still
    holds a game the board can play, so the next power-up plays (no crash loop)."""
    with pytest.raises(BoardRefused, match=r"rows: 5, but the wiring has 4 \(the number of lamp rows\)"):
        nimatron.board.ask("new_game", settings={"rows": 5})
    with pytest.raises(BoardRefused, match=r"lamps: 9, but the wiring has 7"):
        nimatron.board.ask("new_game", settings={"lamps": 9})
    nimatron.pico.power_cut()
    nimatron.board.wait_restart(20)
    assert nimatron.board.hello["resumed"] in ("new", "saved")
    assert nimatron.script("machine nimatron openings=1,3,5,7\npress row4\nexpect rows 1,3,5,6\n") == []


def test_a_board_that_keeps_resetting_holds_safe_until_the_host_says_new_game(drnim):
    """Three resets in a row soon after the start (here a firmware stopped at its
    console, which its watchdog resets): the fourth start holds, the LED blinking
    fast, and every line but new_game gets the reason back."""
    lines = []
    drnim.board.on_line = lines.append
    drnim.pico.watch([LED])
    for _ in range(3):
        drnim.board.link.serial.write(b"\x03")        # Ctrl-C: the firmware stops; the watchdog does the rest
        drnim.board.wait_restart(20)
    assert drnim.board.hello["resumed"] == "held"
    drnim.board.pass_time(2)
    assert [line["fault"] for line in lines if line["kind"] == "fault"][-1] == "resets"
    assert blinking(drnim, drnim.pico.now / 1e6 - 2000) == 100
    with pytest.raises(BoardRefused, match="reset 3 times in a row, each soon after it started"):
        drnim.board.ask("state")
    drnim.board.ask_all([("new_game", {})], restarts=True)
    assert drnim.board.hello["resumed"] == "new"
    assert drnim.script("machine drnim\npress trigger\nexpect rail 14\nexpect fault none\n") == []


def heard(port):
    """What the board wrote on `port` (a pseudo-terminal passes it on within a moment)."""
    said = b""
    while True:
        more = port.read(65536)
        if not more:
            return said.decode()
        said += more


def fresh_pico():
    """An emulated Pico with MicroPython only, running freely for mpremote; its link unopened."""
    pico = EmulatedPico()
    pico.start()
    pico.run_free()
    return pico


def test_a_deploy_cut_short_leaves_the_board_stopped_until_a_deploy_finishes(tmp_path, monkeypatch):
    """A board that plays is updated, and the copy stops half-way (the cable pulled): at
    every power-up after it the board runs nothing of its half-new build, its LED lit
    steady, and says why; the next deploy that finishes makes it play again."""
    build(MACHINE, tmp_path / "build", PRODUCTION)
    whole = deploy.mpremote_arguments

    def half_of_it(files):
        copy = whole(files)
        tops = copy[copy.index("-r") + 1:copy.index(":")]
        return copy[:copy.index("-r") + 1] + tops[:len(tops) // 2] + [":"]

    def power_up():
        pico.pause()
        with serial.Serial(pico.port, timeout=0.5) as port:
            pico.power_cut()
            pico.run(pico.now + 3000 * 1000000)
            return heard(port)
    pico = fresh_pico()
    try:
        deploy.deploy(pico.port, tmp_path / "build")
        assert '"kind":"hello"' in power_up()
        pico.run_free()
        monkeypatch.setattr(deploy, "mpremote_arguments", half_of_it)
        deploy.deploy(pico.port, tmp_path / "build")
        pico.watch([LED])
        for _ in range(2):
            said = power_up()
            assert "stopped for maintenance while /maintenance is in the flash" in said and '"hello"' not in said
            assert [level for number, level, at in pico.pin_changes if number == LED][-1] == 1
        monkeypatch.setattr(deploy, "mpremote_arguments", whole)
        pico.run_free()
        deploy.deploy(pico.port, tmp_path / "build")
        assert '"kind":"hello"' in power_up()
    finally:
        pico.stop()


def test_deploy_copies_the_build_made_last_and_says_which(tmp_path, monkeypatch):
    """After `build --machine nimatron`, a plain `deploy --port` puts the Nimatron on the
    board, not an older Dr. Nim build beside it."""
    monkeypatch.chdir(tmp_path)
    assert main(["firmware", "build", "--machine", "drnim"], out=io.StringIO()) == 0
    assert main(["firmware", "build", "--machine", "nimatron"], out=io.StringIO()) == 0
    pico = fresh_pico()
    try:
        out = io.StringIO()
        assert main(["firmware", "deploy", "--port", pico.port], out=out) == 0
        assert out.getvalue().startswith("Copied the nimatron firmware from build/firmware/nimatron to the board")
        pico.pause()
        with serial.Serial(pico.port, timeout=0.5) as port:
            pico.power_cut()
            pico.run(pico.now + 3000 * 1000000)
            assert '"machine":"nimatron"' in heard(port)
    finally:
        pico.stop()
