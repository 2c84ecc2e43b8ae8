"""The servo gate release at the defaults: open long enough to get there
(its travel from the pin map, plus a settle margin), on gpiozero's mock pins."""

import io
import signal
import subprocess
import sys
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.core.debounce import BUTTON_MIN_PULSE_MS
from controller.core.exhibit import ConfigError
from conftest import ROOT
from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.hardware.pinmap import main as pinmap_check
from controller.hardware.pinmap.release import SERVO_SETTLE_MS
from controller.service.config import check_with_pinmap, load_config, release_open_ms
from controller.service.daemon import Service
from controller.service.notify import Notifier
from controller.sim.engine import rest_inputs
from service_rig import FakeClock, write_config
from test_pinmap import servo_variant
from test_service import checked, command


def servo_setup(tmp_path, service_lines=""):
    """The shipped map's servo gate, swung as the printed gate takes it, 5° to 16° at an SG90's 0.1 s
    per 60° (config check refuses angles that jam it: jam())."""
    pinmap_path = tmp_path / "pinmap.toml"
    text = servo_variant(default_pinmap_path("drnim").read_text(), "outputs.release")
    assert "closed_angle = 5 " in text and "open_angle = 16 " in text and "seconds_per_60 = 0.1 " in text
    pinmap_path.write_text(text)
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace(
        "[service]", '[service]\npinmap = "%s"\n%s' % (pinmap_path, service_lines)))
    return config, load_pinmap(pinmap_path)


def pulse_ms(pin):
    """The servo pulse on a mock PWM pin, in ms (50 Hz: a 20 ms frame)."""
    return pin.state * 20


def test_a_servo_gate_at_the_defaults_is_still_open_when_its_travel_has_passed(tmp_path):
    config_path, pinmap = servo_setup(tmp_path)
    config = load_config(str(config_path))
    spec = pinmap.outputs["release"]
    assert spec.travel_ms() == 19, "an SG90 swings 11° in 18.3 ms (0.1 s per 60°), counted up to whole ms"
    factory = MockFactory(pin_class=MockPWMPin)
    rest_inputs(factory, pinmap)
    clock = FakeClock()
    service = Service(config, pinmap, pin_factory=factory, clock=clock, notifier=Notifier({}), log=lambda text: None)
    service.start()
    gate, trigger = factory.pin(spec.pin), factory.pin(pinmap.inputs["trigger"].pin)
    closed, opened = 0.5 + 1.9 * 95 / 180, 0.5 + 1.9 * 106 / 180     # 5° and 16° with pulses 0.5-2.4 ms
    assert pulse_ms(gate) == pytest.approx(closed)
    trigger.drive_low()
    clock.now += BUTTON_MIN_PULSE_MS                               # a press counts once it has held
    service.pump()
    assert pulse_ms(gate) == pytest.approx(opened)
    clock.now += spec.travel_ms()
    service.pump()
    assert pulse_ms(gate) == pytest.approx(opened), "still open when the servo has only just got there"
    clock.now += SERVO_SETTLE_MS
    service.pump()
    assert pulse_ms(gate) == pytest.approx(closed), "closed again after its travel and the settle margin"
    service.stop()


def test_the_open_time_comes_from_the_travel_not_the_solenoids_pulse(tmp_path):
    config_path, pinmap = servo_setup(tmp_path, "release_pulse_ms = 60")
    assert release_open_ms(load_config(str(config_path)), pinmap) == 19 + SERVO_SETTLE_MS
    slow = tmp_path / "slow"
    slow.mkdir()
    config_path, pinmap = servo_setup(slow)
    # a wider swing (-5° to 16°, which the printed gate takes too) on a servo half as fast: 21° at 0.2 s per 60°
    text = pinmap.path.read_text().replace("closed_angle = 5 ", "closed_angle = -5 ").replace(
        "seconds_per_60 = 0.1", "seconds_per_60 = 0.2")
    pinmap.path.write_text(text)
    assert release_open_ms(load_config(str(config_path)), load_pinmap(pinmap.path)) == 70 + SERVO_SETTLE_MS
    solenoid = load_pinmap(default_pinmap_path("drnim"))
    assert release_open_ms(load_config(str(config_path)), solenoid) == 60


def test_config_check_refuses_a_servo_open_time_shorter_than_its_travel(tmp_path):
    config_path, pinmap = servo_setup(tmp_path, "servo_open_ms = 15")
    with pytest.raises(ConfigError) as caught:
        check_with_pinmap(load_config(str(config_path)), pinmap)
    assert "service.servo_open_ms: 15 ms, but the servo gate" in str(caught.value)
    result = command("config", "check", str(config_path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "needs 19 ms to swing from 5° to 16° (0.1 s per 60°)" in result.stderr and str(config_path) in result.stderr
    config_path.write_text(config_path.read_text().replace("servo_open_ms = 15", "servo_open_ms = 150"))
    assert command("config", "check", str(config_path)).returncode == 0


@pytest.mark.parametrize("setting", ["pace_ms", "release_timeout_ms"])
def test_config_check_refuses_a_release_asked_for_while_the_gate_is_still_open(tmp_path, setting):
    """Dr. Nim's next marble (pace_ms) or a retry (release_timeout_ms) must come after the
    release has shut: asked for while it is open, it only keeps it open and no marble falls."""
    config_path, pinmap = servo_setup(tmp_path)          # the gate stays open 19 + SERVO_SETTLE_MS
    config_path.write_text(config_path.read_text() + "%s = 100\n" % setting)
    result = command("config", "check", str(config_path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "drnim.%s: 100, but the release stays open 119 ms" % setting in result.stderr
    config_path.write_text(config_path.read_text().replace("%s = 100" % setting, "%s = 150" % setting))
    assert command("config", "check", str(config_path)).returncode == 0


# What the pin map check says of a gate swung 0° to 60° (build.gate_problem), after its file and line.
JAMS = ("outputs.release.open_angle: from 0° to 60° the 60 mm arm's peg sweeps 34.7 mm along the rail, but its slot "
        "leaves it 6.9 mm: it jams (a shorter sweep nearer level, e.g. closed_angle = 0 and open_angle = 16)")


def jam(pinmap):
    """servo_setup's gate swung 0° to 60°, as the pin map's example once had it: its peg sweeps far more of
    the rail than the printed gate's slot leaves it. The line of its open_angle."""
    text = pinmap.path.read_text().replace("closed_angle = 5 ", "closed_angle = 0 ", 1).replace(
        "open_angle = 16 ", "open_angle = 60 ", 1)
    pinmap.path.write_text(text)
    return next(number for number, line in enumerate(text.splitlines(), 1) if line.startswith("open_angle = 60 "))


def test_config_check_refuses_a_gate_that_jams_in_the_pin_map_checks_own_line(tmp_path):
    """Closed at 0° and open at 60°, the printed gate jams: config check said the configuration was good
    and the marbles stuck on the exhibit. It refuses the pin map now, as any fault of it, in the line the
    pin map check gives: the file, the line and the key."""
    config_path, pinmap = servo_setup(tmp_path)
    line = jam(pinmap)
    result = checked("config", "check", str(config_path))
    assert result.returncode == 2 and result.stdout == "", result.stdout
    assert result.stderr == "controller: pin map: %s:%d: %s\n" % (pinmap.path, line, JAMS), result.stderr
    out = io.StringIO()
    assert pinmap_check([str(pinmap.path)], out=out) == 1
    assert result.stderr == "controller: pin map: " + out.getvalue()


def test_the_service_starts_with_a_gate_that_jams_and_says_so_in_the_journal_and_its_status(tmp_path):
    """An exhibit that has run with such a gate (built before the check, or with a gate of its own) must
    not go dark on an upgrade: `controller run` starts and plays, and says once, in the journal, what the
    pin map check says of its gate; `controller status` says it too, and --check is a WARNING (an attendant
    who never reads the journal was told nothing of why the marbles stick)."""
    config_path, pinmap = servo_setup(tmp_path)
    line = jam(pinmap)
    process = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config_path)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = []
        while not (said and said[-1].startswith("ready: ")) and process.poll() is None:
            said.append(process.stderr.readline())
        said.append(process.stderr.readline())
        status = checked("status", "--config", str(config_path))
        while "Last heartbeat" not in status.stdout and process.poll() is None:     # the first comes at once
            time.sleep(0.1)
            status = checked("status", "--config", str(config_path))
        check = checked("status", "--check", "--config", str(config_path))
        process.send_signal(signal.SIGINT)
        _, rest = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0 and "Traceback" not in "".join(said) + rest, "".join(said) + rest
    assert said[-2] == "ready: drnim on %s\n" % pinmap.path, said
    gate = "%s:%d: %s (the service runs with it; controller config check refuses it until it is mended)" % (
        pinmap.path, line, JAMS)
    assert said[-1] == "fault: gate: %s\n" % gate
    assert ("".join(said) + rest).count("fault: gate:") == 1
    assert "Service fault: gate: %s.\n" % gate in status.stdout, status.stdout
    assert check.returncode == 1 and check.stdout.startswith("WARNING - gate: %s" % pinmap.path), check.stdout
