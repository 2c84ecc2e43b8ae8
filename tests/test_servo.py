"""The servo gate release at the defaults: open long enough to get there
(its travel from the pin map, plus a settle margin), on gpiozero's mock pins."""

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.core.debounce import BUTTON_MIN_PULSE_MS
from controller.core.exhibit import ConfigError
from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.hardware.pinmap.release import SERVO_SETTLE_MS
from controller.service.config import check_with_pinmap, load_config, release_open_ms
from controller.service.daemon import Service
from controller.service.notify import Notifier
from controller.sim.engine import rest_inputs
from service_rig import FakeClock, write_config
from test_pinmap import servo_variant
from test_service import command


def servo_setup(tmp_path, service_lines=""):
    """The shipped map's servo gate swung 0° to 60°: the service's timing of a long swing (the
    printed gate's own 5° to 16° is the pin map check's and the assembly check's business)."""
    pinmap_path = tmp_path / "pinmap.toml"
    text = servo_variant(default_pinmap_path("drnim").read_text(), "outputs.release")
    assert "closed_angle = 5 " in text and "open_angle = 16 " in text
    pinmap_path.write_text(text.replace("closed_angle = 5 ", "closed_angle = 0 ", 1).replace(
        "open_angle = 16 ", "open_angle = 60 ", 1))
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
    assert spec.travel_ms() == 100, "an SG90 swings 60° in 0.1 s"
    factory = MockFactory(pin_class=MockPWMPin)
    rest_inputs(factory, pinmap)
    clock = FakeClock()
    service = Service(config, pinmap, pin_factory=factory, clock=clock, notifier=Notifier({}), log=lambda text: None)
    service.start()
    gate, trigger = factory.pin(spec.pin), factory.pin(pinmap.inputs["trigger"].pin)
    closed, opened = 0.5 + 1.9 * 90 / 180, 0.5 + 1.9 * 150 / 180      # 0° and 60° with pulses 0.5-2.4 ms
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
    assert release_open_ms(load_config(str(config_path)), pinmap) == 100 + SERVO_SETTLE_MS
    slow = tmp_path / "slow"
    slow.mkdir()
    config_path, pinmap = servo_setup(slow)
    text = pinmap.path.read_text().replace("open_angle = 60", "open_angle = 90").replace(
        "seconds_per_60 = 0.1", "seconds_per_60 = 0.2")
    pinmap.path.write_text(text)
    assert release_open_ms(load_config(str(config_path)), load_pinmap(pinmap.path)) == 300 + SERVO_SETTLE_MS
    solenoid = load_pinmap(default_pinmap_path("drnim"))
    assert release_open_ms(load_config(str(config_path)), solenoid) == 60


def test_config_check_refuses_a_servo_open_time_shorter_than_its_travel(tmp_path):
    config_path, pinmap = servo_setup(tmp_path, "servo_open_ms = 80")
    with pytest.raises(ConfigError) as caught:
        check_with_pinmap(load_config(str(config_path)), pinmap)
    assert "service.servo_open_ms: 80 ms, but the servo gate" in str(caught.value)
    result = command("config", "check", str(config_path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "needs 100 ms to swing from 0° to 60° (0.1 s per 60°)" in result.stderr and str(config_path) in result.stderr
    config_path.write_text(config_path.read_text().replace("servo_open_ms = 80", "servo_open_ms = 150"))
    assert command("config", "check", str(config_path)).returncode == 0


@pytest.mark.parametrize("setting", ["pace_ms", "release_timeout_ms"])
def test_config_check_refuses_a_release_asked_for_while_the_gate_is_still_open(tmp_path, setting):
    """Dr. Nim's next marble (pace_ms) or a retry (release_timeout_ms) must come after the
    release has shut: asked for while it is open, it only keeps it open and no marble falls."""
    config_path, pinmap = servo_setup(tmp_path)          # the gate stays open 100 + SERVO_SETTLE_MS
    config_path.write_text(config_path.read_text() + "%s = 150\n" % setting)
    result = command("config", "check", str(config_path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "drnim.%s: 150, but the release stays open 200 ms" % setting in result.stderr
    config_path.write_text(config_path.read_text().replace("%s = 150" % setting, "%s = 250" % setting))
    assert command("config", "check", str(config_path)).returncode == 0
