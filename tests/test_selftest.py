"""`controller selftest`: the bring-up wizard, run on the simulated bench (which
answers from the pins, presses with bouncing contacts and drops marbles), on
mock pins with a technician's typed answers, and refused while the service runs."""

import dataclasses
import io
import json
import os
import subprocess
import sys
import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from conftest import ROOT
from service_rig import write_config
from test_cli import run
from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.selftest import stages
from controller.selftest.bench import Bench
from controller.selftest.guard import busy, service_pid
from controller.selftest.report import Report
from controller.selftest.simulated import SimulatedBench
from controller.selftest.stages import Selftest
from controller.sim.engine import rest_inputs
from controller.service.config import load_config


def saved_report(tmp_path):
    reports = sorted((tmp_path / "state").glob("selftest-*.json"))
    assert len(reports) == 1
    return json.loads(reports[0].read_text())


def results(report):
    return dict(((check["stage"], check["check"]), (check["result"], check["detail"])) for check in report["checks"])


def simulated(tmp_path, machine="drnim", **world):
    """A self-test on the simulated bench with a world of faults; the report."""
    config = load_config(str(write_config(tmp_path, machine)))
    pinmap = load_pinmap(default_pinmap_path(machine))
    out = io.StringIO()
    bench = SimulatedBench(pinmap, {"rows": 4} if machine == "nimatron" else None, out, **world)
    report = Report(machine, pinmap.path, True)
    try:
        Selftest(bench, config, pinmap, report).run()
    finally:
        bench.close()
    return results(report.to_dict()), out.getvalue()


def test_the_simulated_selftest_passes_and_saves_its_report_next_to_the_statistics(tmp_path):
    (tmp_path / "state").mkdir()
    code, out = run("selftest", "--simulate", "--config", str(write_config(tmp_path)))
    assert code == 0, out
    report = saved_report(tmp_path)
    assert os.path.basename(out.split("Report saved as ")[1].strip()).startswith("selftest-simulated-")
    assert report["passed"] and report["simulated"] and report["machine"] == "drnim"
    assert "Report saved as %s" % (tmp_path / "state") in out
    checks = results(report)
    assert {stage for stage, _ in checks} == {"lamps", "indicators", "inputs", "release"}
    assert all(result == "pass" for result, _ in checks.values())
    # the simulated marbles fall for 250 ms from the release to the beam
    assert report["figures"]["release_to_sensor_ms"] == [250, 250, 250]
    # the service's saved game never heard of them: a game resumed with them in the tray jams at its end
    assert "Put the 3 marbles back on the rail (free any stuck in the chute): the service's game counts them as " \
        "still there." in flat(out)
    # each press is echoed as it happens, with the raw edges of its bouncing contact
    assert "trigger: pressed (1)   [1 raw edge]" in out and "trigger: pressed (3)" in out
    result, detail = checks[("inputs", "trigger")]
    assert detail.startswith("3 presses read from 54 raw edges (48 bounces taken out by debounce_ms 20")


def test_a_simulated_run_never_makes_the_services_state_folder(tmp_path):
    """Tried on a laptop, or as root on a Pi before the service is installed: the report is the
    text printed, and no folder of the service's appears (as root it used to)."""
    code, out = run("selftest", "--simulate", "--config", str(write_config(tmp_path)))
    assert code == 0, out
    assert not (tmp_path / "state").exists()
    assert flat(out).endswith("The report is only the text above: it was not saved, as the service's state folder %s "
                              "does not exist (installing the service makes it, and a self-test then saves its "
                              "report there)." % (tmp_path / "state"))
    assert "\nPASSED: " in out


def test_a_jam_fails_the_release_stage_and_the_report_says_so(tmp_path):
    (tmp_path / "state").mkdir()
    code, out = run("selftest", "--simulate", "--jam-rate", "1", "--config", str(write_config(tmp_path)))
    assert code == 1
    report = saved_report(tmp_path)
    assert not report["passed"] and report["figures"]["release_to_sensor_ms"] == [None, None, None]
    result, detail = results(report)[("release", "marbles timed")]
    assert result == "fail" and detail.startswith("marble 1, 2, 3 not seen within 5000 ms of its release: a jam")
    assert "BCM 18 (header pin 12)" in detail
    assert results(report)[("lamps", "lamp_fault")][0] == "pass"
    assert "FAIL  release    marbles timed" in out and "FAILED: 17 passed, 1 failed, 0 skipped" in out


def test_the_printed_report_fits_an_80_column_terminal(tmp_path):
    """Read in an ssh window or on the Pi's own console, 80 columns: a check longer than that was cut by the
    terminal in the middle of its words, under the result column. Each goes on below its own start."""
    code, out = run("selftest", "--simulate", "--jam-rate", "1", "--config", str(write_config(tmp_path)))
    printed = out[out.index("Self-test report: "):out.index("\nFAILED: ")].splitlines()
    assert code == 1 and max(len(line) for line in printed) <= 79, "\n".join(printed)
    failed = printed.index("  FAIL  release    marbles timed: marble 1, 2, 3 not seen within 5000 ms of its")
    assert printed[failed + 1] == " " * 19 + "release: a jam in the chute, a release that does not open"
    assert "  PASS  inputs     trigger: 3 presses read from 54 raw edges (48 bounces taken" in printed


def flat(out):
    """What was printed, its lines joined: a question wraps where an 80-column terminal needs it to."""
    return " ".join(out.split())


@pytest.mark.parametrize("machine", ["drnim", "nimatron"])
def test_every_question_and_instruction_fits_an_80_column_terminal(tmp_path, machine):
    """The questions ran to 136 columns: the terminal cut them mid-word, and the answer typed landed on
    a line of its own. Each now wraps, its answers ([y/n/s]) whole on the last line, where one types."""
    code, out = run("selftest", "--simulate", "--machine", machine, "--config", str(write_config(tmp_path)))
    lines = out[:out.index("Self-test report: ")].splitlines()
    assert code == 0 and all(len(line) <= 79 or " " not in line for line in lines), "\n".join(lines)
    asked = [line for line in lines if "[y/n/s]" in line or "[Enter: go, s: skip]" in line]
    assert len(asked) > 10 and all(line.endswith(("[y/n/s] y", "[y/n/s] n", "[Enter: go, s: skip] ")) for line in asked)


def test_the_nimatron_lamp_chain_is_walked_row_by_row(tmp_path):
    checks, out = simulated(tmp_path, "nimatron")
    assert [checks[("lamp_chain", "row %d" % row)][0] for row in (1, 2, 3, 4)] == ["pass"] * 4
    assert checks[("lamp_chain", "all dark")][0] == "pass"
    assert "Did the lamps of row 3 light one by one, 1 to 7, on both displays? [y/n/s] y" in flat(out)
    checks, _ = simulated(tmp_path, "nimatron", dead={"lamps"})
    result, detail = checks[("lamp_chain", "row 2")]
    assert result == "fail" and "outputs 7-13 (console) and 39-45 (spectators)" in detail


def test_a_dead_lamp_and_a_dead_indicator_are_named_with_their_pins(tmp_path):
    checks, _ = simulated(tmp_path, dead={"lamp_you_win", "flip_flop_2"})
    assert checks[("lamps", "lamp_you_win")] == (
        "fail", "not lit with BCM 16 (header pin 36) driven high: check its polarity, its resistor and its wires")
    assert checks[("indicators", "flip_flop_2")] == (
        "fail", "wrong when told left and right: check BCM 22 (header pin 15), BCM 23 (header pin 16)")
    assert checks[("lamps", "lamp_drnim_wins")][0] == "pass"


def test_a_button_that_reads_twice_and_one_not_wired_fail(tmp_path):
    checks, out = simulated(tmp_path, worn={"trigger"}, unwired={"new_game"})
    result, detail = checks[("inputs", "trigger")]
    assert result == "fail" and "its contact bounces longer than its debounce_ms 20" in detail, detail
    assert checks[("inputs", "new_game")] == (
        "fail", "nothing seen on BCM 7 (header pin 26) in 30 s: check the wire and its ground; its other contact "
        "goes to GND, as inputs.new_game.active = \"low\" says (one wired to 3.3 V needs pull = \"down\", active = "
        "\"high\")")
    assert checks[("inputs", "turn_switch")][0] == "pass"


def test_a_stuck_button_and_a_dead_sensor_are_told_apart_from_a_jam(tmp_path):
    """A trigger stuck down read as one that was never wired ('check the wire and its ground', after
    30 s), and a sensor that never sees a marble only as marbles lost, beside a jam and a dead release:
    the sensor's beam is now broken by hand in the inputs stage, and a stuck input fails at once."""
    checks, out = simulated(tmp_path, held={"trigger"}, unwired={"marble_sensor"})
    assert checks[("inputs", "trigger")] == (
        "fail", "reads pressed before anyone touches it: a button stuck down, or its wire touching ground: check "
        "BCM 4 (header pin 7)")
    assert "Break the beam of IR break-beam receiver at the gate 3 times (a finger through it will do)." in flat(out)
    assert checks[("inputs", "marble_sensor")] == (
        "fail", "nothing seen on BCM 8 (header pin 24) in 30 s: check the wire and its ground")
    result, detail = checks[("release", "marbles timed")]
    assert result == "fail" and "a sensor that misses the marble (BCM 8 (header pin 24)" in detail
    assert checks[("inputs", "new_game")][0] == "pass"
    checks, _ = simulated(tmp_path, held={"marble_sensor"})
    assert checks[("inputs", "marble_sensor")] == (
        "fail", "reads its beam broken before anyone touches it: nothing in the beam? check the emitter's power, "
        "the alignment and the pull-up on BCM 8 (header pin 24); or a receiver whose output is high while the beam "
        "is broken (another sensor than the list's): set inputs.marble_sensor.active = \"high\"")
    checks, _ = simulated(tmp_path)
    assert checks[("inputs", "marble_sensor")] == (
        "pass", "3 breaks of the beam read from 54 raw edges (48 bounces taken out by debounce_ms 2)")


def test_wiring_the_other_way_round_from_the_pin_map_is_named_with_the_key_to_change(tmp_path):
    """A builder's common-anode LEDs, a button wired to 3.3 V and a receiver that is high while
    its beam is broken, each under a pin map left as shipped: the report says which key to change."""
    checks, out = simulated(tmp_path, reversed={"lamp_fault", "flip_flop_1", "trigger", "marble_sensor"})
    assert "Lamp: fault (a marble is stuck). And now, switched off: is it lit? [y/n/s] y" in flat(out)
    assert checks[("lamps", "lamp_fault")] == (
        "fail", "on when switched off, off when on: it is wired the other way round from outputs.lamp_fault.active "
        "= \"high\" (an LED from 3.3 V to the pin, as a common-anode one is, is lit at low): set active = \"low\" in "
        "the pin map")
    result, detail = checks[("indicators", "flip_flop_1")]
    assert result == "fail" and detail.startswith("wrong both ways, and lit when switched off: it is wired the other "
                                                  "way round from outputs.flip_flop_1.active = \"high\"")
    result, detail = checks[("inputs", "trigger")]
    assert result == "fail" and "(one wired to 3.3 V needs pull = \"down\", active = \"high\")" in detail
    for check in (("inputs", "marble_sensor"), ("release", "sensor at rest")):
        result, detail = checks[check]
        assert result == "fail" and detail.endswith("set inputs.marble_sensor.active = \"high\""), detail
    assert checks[("lamps", "lamp_drnim_wins")][0] == checks[("indicators", "flip_flop_2")][0] == "pass"


def test_a_stage_can_be_skipped(tmp_path):
    (tmp_path / "state").mkdir()
    code, out = run("selftest", "--simulate", "--skip", "release", "--skip", "lamps", "--config",
                    str(write_config(tmp_path)))
    assert code == 0
    checks = results(saved_report(tmp_path))
    assert checks[("release", "(the whole stage)")] == ("skip", "--skip")
    assert not any(stage == "lamps" and result != "skip" for (stage, _), (result, _) in checks.items())
    assert "Stage 4 of 5" not in out and "Stage 4 of 4, release" in out and "Skipped (--skip)" in out


def test_a_run_with_every_stage_skipped_tested_nothing_and_a_stage_the_board_lacks_is_refused(tmp_path, capsys):
    """Every stage skipped ended 'PASSED: 0 passed, 0 failed, 4 skipped', exit 0, and --skip lamp_chain on Dr. Nim,
    which has no such stage, was taken without a word (found by the bench tester's walkthrough)."""
    (tmp_path / "state").mkdir()
    config = str(write_config(tmp_path))
    skips = [word for stage in ("lamps", "indicators", "inputs", "release") for word in ("--skip", stage)]
    code, out = run("selftest", "--simulate", *skips, "--config", config)
    assert code == 1 and out.splitlines()[-2] == "NOTHING TESTED: 0 passed, 0 failed, 4 skipped", out
    assert saved_report(tmp_path)["passed"] is False
    code, out = run("selftest", "--simulate", "--skip", "lamp_chain", "--config", config)
    assert code == 2 and out == ""
    assert capsys.readouterr().err == ("controller: --skip: the drnim board has no lamp_chain stage (its stages: "
                                       "lamps, indicators, inputs, release)\n")


def test_on_mock_pins_the_technician_answers_and_a_no_fails_naming_the_pin(tmp_path):
    # lamps: go, then each lamp and the buzzer (after a no: not lit switched off either); skip indicators
    answers = ["", "y", "n", "n", "y", "y", "y", "y", "s"]
    code, out = run("selftest", "--config", str(write_config(tmp_path)), "--skip", "inputs", "--skip", "release",
                    lines=answers)
    assert code == 1
    checks = results(saved_report(tmp_path))
    assert checks[("lamps", "lamp_drnim_turn")] == (
        "fail", "not lit with BCM 19 (header pin 35) driven high: check its polarity, its resistor and its wires")
    assert checks[("lamps", "lamp_your_turn")][0] == "pass"
    assert checks[("indicators", "(the whole stage)")] == ("skip", "not connected")


def test_the_end_of_the_input_stops_the_selftest_with_a_report(tmp_path):
    code, out = run("selftest", "--config", str(write_config(tmp_path)), lines=["", "y"])
    assert code == 1
    checks = results(saved_report(tmp_path))
    assert checks[("(stopped)", "end of input")][0] == "fail"
    assert "Traceback" not in out


def test_it_refuses_while_the_service_runs(tmp_path, capsys):
    config = write_config(tmp_path)
    service = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)], cwd=ROOT,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        status = tmp_path / "run" / "status.json"
        deadline = time.monotonic() + 60
        while not status.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        code, out = run("selftest", "--config", str(config))
        assert code == 1 and out == ""
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and "the service (pid %d) holds the pins" % service.pid in error
        assert "sudo systemctl stop drnim-controller" in error
    finally:
        service.kill()
        service.wait(30)
    # a killed service leaves its heartbeat behind (no systemd here to empty /run): a dead pid no longer counts
    assert status.exists() and service_pid(load_config(str(config))) is None


def test_pins_another_program_holds_become_the_same_line():
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    factory = MockFactory()
    first = Bench(pinmap, factory)
    try:
        with pytest.raises(Exception) as taken:
            Bench(pinmap, factory)
    finally:
        first.close()
    line = busy(taken.value)
    assert line.startswith("another program (the service?) holds the pins: stop it first with "
                           "`sudo systemctl stop drnim-controller`")
    # a fan's gpio-fan overlay (BCM 12, the turn indicator's) holds its line the same way, the service stopped
    assert "a HAT's or a fan's driver holds one of the map's pins" in line and "under [reserved]" in line
    # and which pin: the first the second bench opened, with its role
    role = sorted(pinmap.inputs)[0]
    pin = pinmap.inputs[role].pin
    assert "[the %s, BCM %d: pin GPIO%d is already in use by <" % (role, pin, pin) in line and line.endswith(">]")
    assert "\n" not in line


def test_servo_flippers_and_a_servo_gate_pass_on_the_simulated_bench(tmp_path):
    from test_pinmap import servo_variant
    text = default_pinmap_path("drnim").read_text()
    pinmap_path = tmp_path / "pinmap.toml"
    pinmap_path.write_text(servo_variant(servo_variant(text, "outputs.release"), "outputs.turn"))
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace("[service]", '[service]\npinmap = "%s"' % pinmap_path))
    (tmp_path / "state").mkdir()
    code, out = run("selftest", "--simulate", "--config", str(config))
    assert code == 0, out
    assert "Turn switch indicator (right = your turn). Does it point left (its flipper to the left)? [y/n/s] y" in \
        flat(out)
    report = saved_report(tmp_path)
    assert report["figures"]["release_to_sensor_ms"] == [250, 250, 250]


class Technician(io.StringIO):
    """Reads the self-test's instructions as they are written and, on a thread
    of its own (as a person's fingers are to gpiozero's), does what they say
    on the mock pins: 3 presses with a bouncing contact, or a switch moved
    there and back; 3 clean breaks of the marble sensor's beam (an optical
    sensor's edge does not bounce, and its debounce_ms is 2: a bounce made by
    a thread, on a busy machine, can outlast that and read as a fourth marble)."""

    def __init__(self, pinmap, factory):
        super().__init__()
        self.pinmap = pinmap
        self.factory = factory
        self.hands = []

    def write(self, text):
        for role, spec in self.pinmap.inputs.items():
            if text.startswith(("Press %s" % spec.label, "Move %s" % spec.label, "Break the beam of %s" % spec.label)):
                hand = threading.Thread(target=self.use, args=(self.factory.pin(spec.pin), text[0] in "PB",
                                                               0 if text[0] == "B" else 3,
                                                               max(0.04, 2 * spec.debounce_ms / 1000)))
                self.hands.append(hand)
                hand.start()
        return super().write(text)

    def use(self, pin, button, bounces, hold):
        """Each level after its bounces held `hold` s, twice the input's debounce: long enough to be read."""
        for _ in range(3 if button else 1):
            for level in (pin.drive_low, pin.drive_high):
                for _ in range(bounces):
                    level()
                    (pin.drive_high if level == pin.drive_low else pin.drive_low)()
                level()
                time.sleep(hold)


def test_on_mock_pins_each_press_is_echoed_as_the_technician_makes_it(tmp_path, monkeypatch):
    """The buttons' and the switch's debounce three times the pin map's: a thread's burst of bounces is real
    time, and on a busy machine a stall of more than the trigger's 20 ms in the middle of one read as a fourth
    press (it failed so once on CI, 'read 4 times for 3')."""
    monkeypatch.setattr(stages, "QUIET_MS", 600)
    config = load_config(str(write_config(tmp_path)))
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    for role in ("trigger", "new_game", "turn_switch"):
        pinmap.inputs[role] = dataclasses.replace(pinmap.inputs[role], debounce_ms=3 * pinmap.inputs[role].debounce_ms)
    factory = MockFactory()
    rest_inputs(factory, pinmap)              # the sensor's beam whole, through its own pull-up
    out = Technician(pinmap, factory)
    typed = [""]           # Enter: the inputs are connected; then nothing more is typed

    def read_line():
        if typed:
            return typed.pop()
        threading.Event().wait()
    bench = Bench(pinmap, factory, out=out, read_line=read_line)
    report = Report("drnim", pinmap.path, False)
    try:
        Selftest(bench, config, pinmap, report, skip=("lamps", "indicators", "release")).run()
    finally:
        bench.close()
        for hand in out.hands:
            hand.join()
    checks = results(report.to_dict())
    for role in ("trigger", "new_game"):
        assert checks[("inputs", role)] == ("pass", "3 presses read from 42 raw edges (36 bounces taken out by "
                                            "debounce_ms 60)")
    assert checks[("inputs", "turn_switch")] == ("pass", "there and back read from 14 raw edges (12 bounces taken "
                                                 "out by debounce_ms 150)")
    assert checks[("inputs", "marble_sensor")][0] == "pass", checks[("inputs", "marble_sensor")]
    assert "  trigger: pressed (2)" in out.getvalue() and "  equalizer_switch: not right (armed)" in out.getvalue()


def test_the_input_ending_while_a_button_is_awaited_stops_the_selftest(tmp_path):
    code, out = run("selftest", "--config", str(write_config(tmp_path)), "--skip", "lamps", "--skip", "indicators",
                    lines=[""])
    assert code == 1 and "Press Trigger button (lower right) 3 times." in out
    checks = results(saved_report(tmp_path))
    assert checks[("(stopped)", "end of input")][0] == "fail" and ("inputs", "trigger") not in checks


class EnterFirst(SimulatedBench):
    """A technician who presses Enter on reading each instruction, and only
    then, two seconds later, uses the input."""

    def act(self, text, role, changes):
        self.queue.put(("key", ""))
        self.at(self.time + 2000, lambda: SimulatedBench.act(self, text, role, changes))


def test_an_enter_typed_while_an_input_is_awaited_does_not_end_the_wait(tmp_path):
    config = load_config(str(write_config(tmp_path)))
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    bench = EnterFirst(pinmap, out=io.StringIO())
    report = Report("drnim", pinmap.path, True)
    try:
        Selftest(bench, config, pinmap, report, skip=("lamps", "indicators", "release")).run()
    finally:
        bench.close()
    checks = results(report.to_dict())
    assert [checks[("inputs", role)][0] for role in ("trigger", "new_game", "turn_switch")] == ["pass"] * 3
