"""`controller safe-off`: every output of the pin map at its inactive level, on gpiozero's
MockFactory through the real devices; a bad configuration still gets the outputs off.
(The kill test, the unit's ExecStopPost= after SIGKILL, is in test_systemd.py.)"""

import io
import re
import subprocess
import sys

import pytest
from gpiozero import DigitalOutputDevice
from gpiozero.pins.mock import MockFactory, MockPWMPin

import file_pins
from conftest import ROOT
from stop_rig import output_levels
from controller.cli import main
from controller.hardware.devices import LampPanel, ServoRelease
from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.service.safe_off import SERVO_CLOSE_S, switch_off
from controller.sim.engine import Chip74HC595


def left_on(factory, pinmap):
    """Every one-pin and LED-pair output at its active level, as a killed service may leave them."""
    for spec in pinmap.outputs.values():
        if spec.kind in ("led", "led_pair", "buzzer", "solenoid"):
            for number in spec.pins.values():
                pin = factory.pin(number)
                pin.function = "output"
                pin.state = spec.active == "high"


def test_every_drnim_output_left_on_goes_off():
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    factory = MockFactory(pin_class=MockPWMPin)
    left_on(factory, pinmap)
    assert all(output_levels(factory, pinmap).values())
    done, failed = switch_off(pinmap, factory)
    assert failed == []
    assert not any(output_levels(factory, pinmap).values())
    assert [text.split()[0] for text in done] == list(pinmap.outputs)


def test_the_nimatron_chain_is_shifted_full_of_zeros_and_latched():
    pinmap = load_pinmap(default_pinmap_path("nimatron"))
    factory = MockFactory(pin_class=MockPWMPin)
    chip = Chip74HC595(factory, pinmap.outputs["lamps"])
    lamps = pinmap.outputs["lamps"]
    with LampPanel(lamps.pins["data"], lamps.pins["clock"], lamps.pins["latch"], registers=lamps.options["registers"],
                   rows=4, lamps_per_row=7, pin_factory=factory) as panel:
        panel.write([True] * panel.outputs)
    left_on(factory, pinmap)
    assert all(chip.outputs)
    done, failed = switch_off(pinmap, factory)
    assert failed == []
    assert not any(chip.outputs) and len(chip.outputs) == 64, "8 registers"
    assert not any(output_levels(factory, pinmap).values())
    assert "lamps all 64 outputs off (BCM 10, 11, 8, 5)" in done


def servo_pinmap(tmp_path):
    text = default_pinmap_path("drnim").read_text()
    release = re.search(r"\[outputs\.release\]\n(.*?\n)\n", text, re.S).group(0)
    servo = re.sub(r'kind = "solenoid".*\n', 'kind = "servo"\nclosed_angle = -30\nopen_angle = 30\n', release)
    servo = re.sub(r"active = .*\n", "", servo)
    path = tmp_path / "servo.toml"
    path.write_text(text.replace(release, servo))
    return load_pinmap(path)


def test_a_servo_gate_left_open_is_closed_then_detached(tmp_path):
    pinmap = servo_pinmap(tmp_path)
    factory = MockFactory(pin_class=MockPWMPin)
    with ServoRelease(18, closed_angle=-30, open_angle=30, pin_factory=factory) as gate:
        gate.open()
    pin = factory.pin(18)
    held = []
    done, failed = switch_off(pinmap, factory, sleep=lambda seconds: held.append((seconds, pin.state)))
    # -30 degrees on a -90..90 range over 1-2 ms pulses: 1.333 ms of a 20 ms frame.
    assert held == [(SERVO_CLOSE_S, pytest.approx(1.3333 / 20, abs=1e-4))]
    assert pin.state == 0 and pin.frequency is None, "detached after reaching the closed angle"
    assert failed == [] and done[0] == "release closed at -30 degrees, detached (BCM 18)"


def test_an_output_that_cannot_be_driven_does_not_keep_the_others_on():
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    factory = MockFactory(pin_class=MockPWMPin)
    left_on(factory, pinmap)
    holder = DigitalOutputDevice(pinmap.outputs["release"].pin, initial_value=True, pin_factory=factory)
    done, failed = switch_off(pinmap, factory)
    assert len(failed) == 1 and failed[0].startswith("release (BCM 18): ")
    levels = output_levels(factory, pinmap)
    assert levels.pop("release.pin") is True
    assert not any(levels.values())
    holder.close()


def safe_off(tmp_path, capsys, text, *more):
    path = tmp_path / "config.toml"
    path.write_text(text)
    out = io.StringIO()
    status = main(["safe-off", "--config", str(path), *more], out=out)
    return status, out.getvalue(), capsys.readouterr().err


MOCK = '[service]\npin_factory = "mock"\n'


def test_a_good_configuration_one_line_and_exit_0(tmp_path, capsys):
    status, out, err = safe_off(tmp_path, capsys, MOCK + 'machine = "nimatron"\n')
    assert (status, err) == (0, "")
    assert out.startswith("controller safe-off: nimatron outputs at rest (pin map ") and out.count("\n") == 1


def test_the_exhibits_own_pin_map_beside_the_configuration_is_the_default(tmp_path, capsys):
    """As install.sh leaves a Pi: /etc/drnim-controller/config.toml and pinmaps/drnim.toml beside it,
    the exhibit's wiring, which config check, run and safe-off all use; the shipped one only without it."""
    own = tmp_path / "pinmaps" / "drnim.toml"
    own.parent.mkdir()
    own.write_text(default_pinmap_path("drnim").read_text().replace('label = "Trigger', 'label = "Our trigger', 1))
    status, out, err = safe_off(tmp_path, capsys, MOCK)
    assert (status, err) == (0, "") and "(pin map %s)" % own in out
    checked = io.StringIO()
    assert main(["config", "check", str(tmp_path / "config.toml")], out=checked) == 0
    assert "pin map %s," % own in checked.getvalue()
    status, out, err = safe_off(tmp_path, capsys, MOCK + "heartbeat_s = 0\n")
    assert "used the default drnim pin map %s" % own in err
    own.unlink()
    status, out, err = safe_off(tmp_path, capsys, MOCK)
    assert (status, err) == (0, "") and "(pin map %s)" % default_pinmap_path("drnim") in out


def test_a_bad_setting_still_switches_off_with_the_default_pin_map(tmp_path, capsys):
    status, out, err = safe_off(tmp_path, capsys, MOCK + "heartbeat_s = 0\n")
    assert status == 2
    assert err.count("\n") == 1 and "service.heartbeat_s" in err
    assert "used the default drnim pin map %s" % default_pinmap_path("drnim") in err
    assert "drnim outputs at rest" in out


def test_a_broken_pin_map_falls_back_to_the_default_one(tmp_path, capsys):
    (tmp_path / "broken.toml").write_text("machine = \n")
    status, out, err = safe_off(tmp_path, capsys, MOCK + 'pinmap = "%s"\n' % (tmp_path / "broken.toml"))
    assert status == 2
    assert err.startswith("controller safe-off: pin map: %s" % (tmp_path / "broken.toml")) and err.count("\n") == 1
    assert "used the default drnim pin map" in err
    assert "(pin map %s)" % default_pinmap_path("drnim") in out


def test_a_pulse_too_long_is_reported_but_the_configured_pin_map_used(tmp_path, capsys):
    status, out, err = safe_off(tmp_path, capsys, MOCK + "release_pulse_ms = 900\n")
    assert status == 2
    assert "release_pulse_ms: 900" in err and "default" not in err
    assert "release off (BCM 18)" in out


@pytest.mark.parametrize("text", ["[service\n", '[service]\nmachine = "drnom"\n'])
def test_a_configuration_whose_machine_cannot_be_read_drives_every_machines_outputs_off(tmp_path, text):
    """As the unit runs it after a crash, on pins that keep the level a killed service left
    (file_pins.py): the solenoid and the lamps it left on go off, whichever machine is wired."""
    env = file_pins.environment(tmp_path)
    pins = env[file_pins.FOLDER]
    left_on = {18: 1.0, 13: 1.0, 12: 1.0, 26: 1.0}    # the release, Dr. Nim's and the Nimatron's lamps
    for bcm, level in left_on.items():
        file_pins.level_path(pins, "GPIO%d" % bcm).write_text(repr(level))
    (tmp_path / "config.toml").write_text(text)
    result = subprocess.run([sys.executable, "-m", "controller", "safe-off", "--config", str(tmp_path / "config.toml")],
                            env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.rstrip().endswith(
        "the machine cannot be read from it: used every machine's default pin map (drnim, nimatron)")
    assert [line.split(" outputs at rest")[0] for line in result.stdout.splitlines()] == [
        "controller safe-off: drnim", "controller safe-off: nimatron"]
    assert {bcm: file_pins.level(pins, bcm) for bcm in left_on} == {18: 0.0, 13: 0.0, 12: 0.0, 26: 0.0}


def test_an_unknown_gpiozero_pin_factory_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "nonesuch")
    status, out, err = safe_off(tmp_path, capsys, MOCK)
    assert (status, out) == (1, "")
    assert err.startswith("controller safe-off: GPIOZERO_PIN_FACTORY='nonesuch': no gpiozero pin factory has that "
                          "name (installed: ") and err.count("\n") == 1


@pytest.mark.parametrize("pulse, pace, status", [(501, 9000, 2), (500, 9000, 0), (65, 900, 0), (66, 900, 2),
                                                 (130, 1800, 0)])
def test_config_check_caps_a_solenoid_pulse_at_500_ms_and_at_what_its_ptc_holds(tmp_path, capsys, pulse, pace,
                                                                                status):
    """500 ms passed at Dr. Nim's 900 ms pace, where the coil's pulses average 0.83 A (RMS) against the 0.30 A
    its PTC holds: it tripped a few marbles into a game, and the release stayed dead until the 5 V was
    unplugged (the Pico's build refused it; the Pi's check did not)."""
    path = tmp_path / "config.toml"
    path.write_text(MOCK + "release_pulse_ms = %d\n[drnim]\npace_ms = %d\n" % (pulse, pace))
    assert main(["config", "check", str(path)], out=io.StringIO()) == status
    err = capsys.readouterr().err
    if pulse == 501:
        assert err == ("controller: %s:3: service.release_pulse_ms: 501, but the release is a solenoid "
                       "(outputs.release): at most 500 ms, or the coil heats up, in the pin map %s\n"
                       % (path, default_pinmap_path("drnim")))
    elif status:
        assert err.startswith("controller: %s:3: service.release_pulse_ms: 66 ms, but the coil's pulses, one "
                              "a 900 ms pace, then take 0.301 A (RMS), more than the 0.30 A its PTC holds" % path)
        assert err.endswith("use at most 65 ms (or a longer drnim.pace_ms), in the pin map %s\n"
                            % default_pinmap_path("drnim"))
