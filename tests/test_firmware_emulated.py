"""`controller firmware test --emulate` and `monitor --emulate`: the real
firmware under the real `micropython`, on a real pseudo-terminal, spoken to
with real pyserial. Every scenario gives, step by step, what the simulator
gives: those of one machine alone as a user plays them, the machine's shipped
scenarios in one command (one board session each), and the others, of both
machines, in a command that changes machine from script to script. Each
scenario is played once."""

import io
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, missing_tool
from controller.cli import main
from controller.sim.script import run_script

SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*.txt")) + \
    sorted((ROOT / "tests" / "scenarios").glob("*.sim"))

pytestmark = pytest.mark.skipif(missing_tool("micropython") is not None, reason=str(missing_tool("micropython")))


def simulated(path, name=None):
    """What `controller --simulate --script PATH` prints, its last line naming the script `name` (by default
    its path: a shipped scenario played without a SCRIPT is named by its file's name)."""
    lines = []
    failures = run_script(path.read_text(), report=lines.append)
    return lines + ["%s: %s" % (name or path, "every expectation holds" if not failures else "failed")]


def of_one_machine(machine, other):
    """The scenarios of `machine` alone: a scenario that also plays the other machine (simulator-language.sim
    plays both) is of neither, as a board on a port runs one machine."""
    return [path for path in SCENARIOS if machine in path.read_text() and other not in path.read_text()]


def firmware_test(*argv):
    """`controller firmware test ARGV...` in this process: its status and output. Its exit
    status for Ctrl-C (130) is raised again, so Ctrl-C stops pytest's run, not the command alone."""
    out = io.StringIO()
    status = main(["firmware", "test", *argv], out=out)
    if status == 130:
        raise KeyboardInterrupt()
    return status, out.getvalue()


def test_ctrl_c_during_a_board_s_scripts_stops_the_test_run(monkeypatch):
    def pressed(args, out):
        raise KeyboardInterrupt()
    monkeypatch.setattr("controller.firmware.command.run_test", pressed)
    with pytest.raises(KeyboardInterrupt):
        firmware_test("--emulate", "unix", str(SCENARIOS[0]))


def plays_as_in_the_simulator(scenarios, capsys):
    status, out = firmware_test("--emulate", "unix", *[str(path) for path in scenarios])
    assert capsys.readouterr().err == ""
    expected = []
    for path in scenarios:
        expected += simulated(path)
    expected.append("%d scripts: %d held, 0 failed" % (len(scenarios), len(scenarios)))
    assert out.splitlines() == expected
    assert status == 0


def test_the_scenarios_of_both_machines_play_on_the_emulated_board_as_in_the_simulator(capsys):
    """The scenarios of one machine alone play in the test below; here the others (simulator-language.sim
    plays both), in one command with a scenario of each machine around them, so that the board changes
    machine between scripts too."""
    drnim, nimatron = of_one_machine("drnim", "nimatron"), of_one_machine("nimatron", "drnim")
    others = [path for path in SCENARIOS if path not in drnim + nimatron]
    plays_as_in_the_simulator([drnim[0], nimatron[0]] + others + [drnim[1]], capsys)


@pytest.mark.parametrize("machine, other, least", [("drnim", "nimatron", 30), ("nimatron", "drnim", 8)])
def test_without_a_script_the_shipped_scenarios_of_the_machine_play_as_in_the_simulator(machine, other, least,
                                                                                        capsys):
    """What a user who installed the wheel runs: the scenarios it ships, named by file, each giving step by
    step what the simulator gives (the solenoid's spikes too)."""
    own = of_one_machine(machine, other)
    assert len(own) >= least
    if machine == "drnim":
        assert [path for path in own if "spike=" in path.read_text()]
    status, out = firmware_test("--emulate", "unix", "--machine", machine)
    assert capsys.readouterr().err == ""
    expected = [line for path in sorted(own, key=lambda path: path.name) for line in simulated(path, path.name)]
    assert out.splitlines() == expected + ["%d scripts: %d held, 0 failed" % (len(own), len(own))]
    assert status == 0


def test_a_board_on_a_port_needs_its_machine_named_for_the_shipped_scenarios(capsys):
    assert firmware_test("--port", "/dev/ttyACM9")[0] == 2
    assert capsys.readouterr().err == ("controller: --machine: name the machine the board on /dev/ttyACM9 runs, "
                                       "to play its shipped scenarios\n")


def test_a_port_that_is_not_there_is_one_line_not_a_failed_script(tmp_path, capsys, monkeypatch):
    """A board not plugged in (or the wrong port named) is not a script that failed."""
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])     # no Pico plugged in here
    gone = tmp_path / "ttyACM7"
    status, out = firmware_test("--port", str(gone), str(ROOT / "tests" / "scenarios" / "R5-equalizer-on-machine-first-drops-1.txt"))
    assert (status, out) == (1, "")
    assert capsys.readouterr().err == "controller firmware: there is no %s, and no /dev/ttyACM* port at all: plug " \
        "the Pico in (a USB cable that only charges shows none)\n" % gone


def test_a_failed_expectation_fails_the_run_with_what_the_board_showed(tmp_path, capsys):
    script = tmp_path / "wrong.txt"
    script.write_text("machine drnim\nswitch turn machine\npress trigger\nexpect rail 15\n")
    status, out = firmware_test("--emulate", "unix", str(script))
    assert status == 1
    assert "line 4: expect rail 15: FAILED, got 14" in out
    assert out.endswith("%s: 1 expectation failed\n1 script: 0 held, 1 failed\n" % script)


def test_an_unreadable_script_is_one_line_naming_it_and_its_line(tmp_path, capsys):
    script = tmp_path / "bad.txt"
    script.write_text("machine drnim\nfly away\n")
    assert firmware_test("--emulate", "unix", str(script))[0] == 2
    assert capsys.readouterr().err == ("controller firmware test: %s: line 2: cannot read 'fly away': 'fly' is not a "
                                       "command (the commands: game, machine, press, set, switch, marble, power, "
                                       "wait, world, settle, expect)\n" % script)


def test_jams_by_rate_and_seed_reach_the_emulated_marbles(tmp_path):
    script = tmp_path / "jams.txt"
    script.write_text("machine drnim\nswitch turn machine\npress trigger\nwait 10s\nexpect fault none\n")
    status, out = firmware_test("--emulate", "unix", "--jam-rate", "1", "--seed", "3", str(script))
    assert status == 1
    assert "expect fault none: FAILED, got jam" in out


def test_a_board_on_its_own_clock_plays_scripts_in_real_time(tmp_path):
    """The path a real board takes: its hello went before the port was opened, so
    its state tells what it runs; waits are real, and marbles fall in real time.
    A second run finds the board running: its second script crashed it with a
    traceback (the board had no hello line to say its machine)."""
    from controller.firmware.emulator import Emulator
    script = tmp_path / "real.txt"
    script.write_text("machine drnim\nswitch turn machine\npress trigger\nexpect rail 14\nexpect turn player\n"
                      "press trigger\nexpect rail 13\nexpect releases 2\n")
    again = tmp_path / "again.txt"
    again.write_text("machine drnim\nexpect rail 15\n")
    board = Emulator("drnim", clock="real")
    try:
        board.start()
        first = firmware_test("--port", board.port, str(script))
        status, out = firmware_test("--port", board.port, str(again), str(script))
    finally:
        board.stop()
    assert first[1].endswith("every expectation holds\n1 script: 1 held, 0 failed\n") and first[0] == 0
    assert "line 3: press trigger  (rail 14, turn player, equalizer off, winner none, fault none)" in out
    assert out.endswith("%s: every expectation holds\n2 scripts: 2 held, 0 failed\n" % script)
    assert status == 0


def test_a_shipped_scenario_is_played_by_its_name_from_any_folder(tmp_path, capsys, monkeypatch):
    """`firmware test --emulate unix R5-equalizer-on-machine-first-drops-1.txt` outside the checkout said 'cannot
    read', where `--simulate --script` takes the name (the Pico builder's walkthrough): a builder who installed the
    controller has no tests/scenarios to give a path in. A name that only begins one is told the whole names."""
    monkeypatch.chdir(tmp_path)
    name = "R5-equalizer-on-machine-first-drops-1.txt"
    status, out = firmware_test("--emulate", "unix", name)
    assert (status, out.splitlines()[-1]) == (0, "1 script: 1 held, 0 failed"), out
    assert firmware_test("--emulate", "unix", "R5") == (2, "")
    assert capsys.readouterr().err.startswith("controller: SCRIPT: cannot read R5: no such file here; the shipped "
                                              "scenarios (in ")


# --- a board wired to other pins: --pinmap ------------------------------------------------------

def test_the_emulated_board_is_built_from_the_pin_map_given_and_plays_its_machines_scenarios(tmp_path, capsys):
    """A hobbyist who changed pins in a copy of the pin map ran `firmware test --emulate` on a board built
    from the shipped map, and believed their build tested. With --pinmap the board is built from the copy
    (its machine the board's), and the scenarios, which press and drop by role, play as in the simulator."""
    from controller.firmware.board_test import Connector
    from test_firmware_build import moved_pins
    pinmap = moved_pins(tmp_path, "nimatron")
    own = sorted(of_one_machine("nimatron", "drnim"), key=lambda path: path.name)
    status, out = firmware_test("--emulate", "unix", "--pinmap", str(pinmap))
    assert capsys.readouterr().err == ""
    expected = [line for path in own for line in simulated(path, path.name)]
    assert out.splitlines() == ["The emulated board is built from the pin map %s." % pinmap] + expected + [
        "%d scripts: %d held, 0 failed" % (len(own), len(own))]
    assert status == 0
    connect = Connector(emulate="unix", pinmap=str(pinmap))
    try:
        connect("nimatron")
        config = (Path(connect.emulator.folder.name) / "board_config.py").read_text()
    finally:
        connect.close()
    assert "('row1', 8, " in config and "('buzzer', 'buzzer', (15,), " in config and "(20, 18, 17, 16)" in config


def test_a_dr_nim_with_its_sensor_and_release_moved_drops_its_marbles_as_in_the_simulator(tmp_path, capsys):
    """The marble world watches the release and drives the sensor on the pins their roles have in the map."""
    from test_firmware_build import moved_pins
    pinmap = moved_pins(tmp_path, "drnim")
    scenarios = [ROOT / "tests" / "scenarios" / name for name in ("R5-equalizer-on-machine-first-drops-1.txt",
                                                                  "policy-extra-marble-counted.txt")]
    status, out = firmware_test("--emulate", "unix", "--pinmap", str(pinmap), *map(str, scenarios))
    assert capsys.readouterr().err == ""
    expected = [line for path in scenarios for line in simulated(path)]
    assert out.splitlines() == ["The emulated board is built from the pin map %s." % pinmap] + expected + [
        "2 scripts: 2 held, 0 failed"]
    assert status == 0


def test_a_pin_map_that_cannot_wire_the_board_is_one_line_before_any_board_starts(tmp_path, capsys, monkeypatch):
    from test_firmware_build import moved_pins
    pinmap = moved_pins(tmp_path, "nimatron")
    script = ROOT / "tests" / "scenarios" / "R5-equalizer-on-machine-first-drops-1.txt"
    started = []
    monkeypatch.setattr("controller.firmware.emulator.Emulator.start", lambda self: started.append(self))
    assert firmware_test("--emulate", "unix", "--pinmap", str(pinmap), str(script)) == (2, "")
    assert capsys.readouterr().err == "controller: SCRIPT: %s plays drnim, and --pinmap %s, which the emulated board " \
        "is built from, is the Nimatron's pin map: give the Nimatron's scripts, or leave --pinmap out\n" \
        % (script, pinmap)
    assert firmware_test("--emulate", "unix", "--machine", "drnim", "--pinmap", str(pinmap)) == (1, "")
    assert capsys.readouterr().err == 'controller firmware: --machine drnim: the pin map %s is the Nimatron\'s ' \
        '(machine = "nimatron"), not Dr. Nim\'s: leave --machine out, or give --machine nimatron\n' % pinmap
    text = pinmap.read_text()
    pinmap.write_text(text.replace("\nrow3 = 4\n", "\nrwo3 = 4\n"))
    line = text[:text.index("\nrow3 = 4\n") + 1].count("\n") + 1
    assert firmware_test("--emulate", "unix", "--pinmap", str(pinmap)) == (1, "")
    assert capsys.readouterr().err.startswith("controller firmware: pin map: %s:%d: pico.rwo3: not a role of this map"
                                              % (pinmap, line))
    assert started == []


def test_a_pin_map_for_a_board_on_a_port_is_refused(tmp_path, capsys, monkeypatch):
    """A board on a port runs the build deployed to it: --pinmap there would claim what it cannot do."""
    from test_firmware_build import moved_pins
    pinmap = moved_pins(tmp_path, "nimatron")
    monkeypatch.setattr("controller.firmware.command.port_there", lambda port: True)
    assert firmware_test("--port", "/dev/ttyACM9", "--machine", "nimatron", "--pinmap", str(pinmap)) == (2, "")
    assert capsys.readouterr().err == "controller: --pinmap: it wires an emulated board (--emulate); the board on " \
        "/dev/ttyACM9 runs the build deployed to it\n"


def test_the_monitor_watches_a_board_built_from_the_pin_map_given(tmp_path):
    from service_rig import write_config
    from test_firmware_build import moved_pins
    from test_firmware_monitor import Running
    pinmap = moved_pins(tmp_path, "nimatron")
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--emulate", "unix", "--pinmap", str(pinmap), "--config", str(config))
    try:
        monitor.until("board: nimatron, protocol 1, development mode; a new game")
    finally:
        assert monitor.stop() == 0
    assert b"Traceback" not in monitor.text["err"]
    broken = tmp_path / "broken.toml"
    broken.write_text(pinmap.read_text().replace("\nrow3 = 4\n", "\nrow3 = 25\n"))
    done = subprocess.run([sys.executable, "-m", "controller", "firmware", "monitor", "--emulate", "unix", "--pinmap",
                           str(broken), "--config", str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == "", done
    assert done.stderr.startswith("controller firmware: pin map: %s:" % broken) and done.stderr.count("\n") == 1
    assert "pico.row3: 25 is not a GP pin of the Pico" in done.stderr


def on_a_board_of_its_own_clock(machine, *argv):
    """`controller firmware test --port PORT ARGV...` on an emulated board of `machine` that keeps its own
    time, as a real board does: its status, its output and the port."""
    from controller.firmware.emulator import Emulator
    board = Emulator(machine, clock="real")
    try:
        board.start()
        return firmware_test("--port", board.port, *argv) + (board.port,)
    finally:
        board.stop()


def test_the_shipped_scenarios_on_a_real_board_leave_out_those_that_set_the_marbles_world(tmp_path, monkeypatch):
    """README's `firmware test --port ... --machine drnim` played every Dr. Nim scenario on the board, and
    the nine with a `world` line (lost and double releases) each failed: a real board's marbles fall as
    they fall. They are left out, named in one line, and the run passes on what a real board can play."""
    plain = tmp_path / "plain.txt"
    plain.write_text("machine drnim\nexpect rail 15\n")
    doubled = tmp_path / "doubled.txt"
    doubled.write_text("machine drnim\nworld fall=300 double=1\nswitch turn machine\npress trigger\n")
    other = tmp_path / "other.txt"
    other.write_text("machine nimatron\nexpect row 1 1\n")
    monkeypatch.setattr("controller.shipped.scenarios", lambda: [doubled, other, plain])
    status, out, _ = on_a_board_of_its_own_clock("drnim", "--machine", "drnim")
    assert out.splitlines()[0] == "1 left out, which set the marbles' world (a real board's fall as they fall; " \
        "--emulate plays them): doubled.txt"
    assert out.endswith("plain.txt: every expectation holds\n1 script: 1 held, 0 failed\n")
    assert status == 0


def test_a_board_running_the_other_machine_stops_the_test_run_in_one_line(capsys):
    """`--machine nimatron` on a board that runs Dr. Nim said so for each of the twelve scripts, 25 lines and
    '12 failed': one line now, before any script plays on."""
    status, out, port = on_a_board_of_its_own_clock("drnim", "--machine", "nimatron")
    assert status == 1
    assert capsys.readouterr().err == "controller firmware test: the board on %s runs drnim, and the script needs " \
        "nimatron: deploy a build for it\n" % port
    assert "held" not in out
