"""`controller calibrate` on the simulated bench, whose marbles fall a known
time: the release timeout and the pace derived from it, written into the
configuration with its comments kept and a backup beside it."""

import io
import os
from pathlib import Path

import pytest

from conftest import ROOT
from test_cli import run
from controller.arguments import DEFAULT_CONFIG
from controller.core.drnim import DrNim
from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.selftest.calibrate import calibrate, derive
from controller.selftest.simulated import SimulatedBench
from controller.selftest.tomledit import set_whole_numbers
from controller.service.config import load_config

SHIPPED = (ROOT / "systemd" / "config.toml").read_text()


def changed_lines(old, new):
    return [(a, b) for a, b in zip(old.splitlines(), new.splitlines()) if a != b]


def test_calibrate_writes_the_timeout_and_the_pace_keeping_the_rest_and_a_backup(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text(SHIPPED)
    code, out = run("calibrate", "--simulate", "--marbles", "5", "--config", str(path))
    assert code == 0, capsys.readouterr().err
    # the simulated marbles fall 250 ms: the timeout 250 + 200; the pace keeps the chain's 900 ms rhythm
    assert "drnim.release_timeout_ms: 1500 -> 450 (the slowest marble, 250 ms, plus 200 ms" in out
    assert "drnim.pace_ms: 900, unchanged (the original's chain rhythm, 900 ms, longer than the slowest marble's fall, " \
        in out
    assert "Put the 5 marbles back on the rail (free any stuck in the chute): the service's game counts them as " \
        "still there.\n" in out
    new = path.read_text()
    assert changed_lines(SHIPPED, new) == [
        ("release_timeout_ms = 1500    # a released marble not seen by the gate sensor by then is retried",
         "release_timeout_ms = 450     # a released marble not seen by the gate sensor by then is retried")]
    backups = list(tmp_path.glob("config.toml.bak-*"))
    assert len(backups) == 1 and backups[0].read_text() == SHIPPED and str(backups[0]) in out
    # a file calibrated on the simulated bench is no service's: no word of restarting one
    assert "Wrote %s (the old file is kept as %s).\n" % (path, backups[0]) in out and "systemctl" not in out
    assert run("config", "check", str(path))[0] == 0
    # calibrated again: the same figures, nothing written
    code, out = run("calibrate", "--simulate", "--marbles", "3", "--config", str(path))
    assert code == 0 and "nothing written" in out and len(list(tmp_path.glob("config.toml.bak-*"))) == 1


def test_the_figures_follow_the_marbles_fall_time(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[drnim]\nmarbles = 12\n")
    config = load_config(str(path))
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    out = io.StringIO()
    bench = SimulatedBench(pinmap, out=out, rail=12, fall_ms=1200)
    try:
        times, derived, backup = calibrate(bench, config, pinmap, 4, out)
    finally:
        bench.close()
    assert times == [1200] * 4
    # 1200 + 600 (half of it, more than 200) = 1800; marbles slower than the chain's rhythm set the pace
    assert load_config(str(path)).machine["release_timeout_ms"] == 1800
    assert load_config(str(path)).machine["pace_ms"] == 1200
    assert path.read_text() == "[drnim]\nmarbles = 12\nrelease_timeout_ms = 1800\npace_ms = 1200\n"


def test_both_outlast_a_slow_release_and_round_up():
    # a servo gate open 500 ms, marbles seen at 90-101 ms (before the gate has closed)
    derived = derive([90, 101], 500, DrNim.SETTINGS)
    assert derived["release_timeout_ms"] == (600, "the release's open time, 500 ms, plus 100 ms, rounded up to 50 ms")
    assert derived["pace_ms"][0] == 900
    # a gate open longer than the chain's rhythm: the pace outlasts it too
    assert derive([90], 950, DrNim.SETTINGS)["pace_ms"][0] == 1050
    assert derive([333], 60, DrNim.SETTINGS)["release_timeout_ms"][0] == 550


def test_a_jam_writes_nothing(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text(SHIPPED)
    code, _ = run("calibrate", "--simulate", "--jam-rate", "1", "--config", str(path))
    error = capsys.readouterr().err
    assert code == 1 and error.count("\n") == 1
    assert "marble 1 was not seen within 5000 ms of its release" in error and "nothing written" in error
    assert path.read_text() == SHIPPED and not list(tmp_path.glob("config.toml.bak-*"))


def test_the_nimatron_has_nothing_to_calibrate(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text('[service]\nmachine = "nimatron"\n')
    assert run("calibrate", "--simulate", "--config", str(path))[0] == 2
    assert capsys.readouterr().err == \
        "controller: calibrate: the nimatron has no marble release: nothing to calibrate\n"


def test_without_a_configuration_file_it_asks_for_one(capsys):
    import os
    if os.path.exists(DEFAULT_CONFIG):
        pytest.skip("this machine has %s" % DEFAULT_CONFIG)
    assert run("calibrate", "--simulate")[0] == 2
    assert "--config: calibrate writes into a configuration file" in capsys.readouterr().err


def test_a_file_that_cannot_be_edited_line_by_line_is_left_alone(tmp_path, capsys):
    path = tmp_path / "config.toml"
    text = "drnim.marbles = 12   # a dotted key: [drnim] cannot be added below it\n"
    path.write_text(text)
    code, _ = run("calibrate", "--simulate", "--config", str(path))
    error = capsys.readouterr().err
    assert code == 1 and error.count("\n") == 1 and "set drnim.release_timeout_ms = 450 by hand" in error
    assert path.read_text() == text and not list(tmp_path.glob("config.toml.bak-*"))


def test_a_missing_section_is_added_and_crlf_lines_kept():
    assert set_whole_numbers('[service]\nmachine = "drnim"', "drnim", {"pace_ms": 300, "release_timeout_ms": 450}) \
        == '[service]\nmachine = "drnim"\n\n[drnim]\npace_ms = 300\nrelease_timeout_ms = 450\n'
    assert set_whole_numbers("[drnim]\r\npace_ms=900\r\n[nimatron]\r\n", "drnim", {"pace_ms": 300}) == \
        "[drnim]\r\npace_ms=300\r\n[nimatron]\r\n"


def test_a_servo_gate_open_longer_than_the_fall_sets_both_past_its_open_time(tmp_path):
    from test_pinmap import servo_variant
    pinmap_path = tmp_path / "pinmap.toml"
    pinmap_path.write_text(servo_variant(default_pinmap_path("drnim").read_text(), "outputs.release"))
    path = tmp_path / "config.toml"
    # the gate stays open 400 ms; the marbles reach the sensor 250 ms after it starts to open
    path.write_text('[service]\npinmap = "%s"\nservo_open_ms = 400\n' % pinmap_path)
    code, out = run("calibrate", "--simulate", "--marbles", "3", "--config", str(path))
    assert code == 0, out
    assert "the release stays open 400 ms" in out
    assert "drnim.pace_ms: 900, unchanged (the original's chain rhythm" in out
    assert "drnim.release_timeout_ms: 1500 -> 500 (the release's open time, 400 ms, plus 100 ms" in out
    assert run("config", "check", str(path))[0] == 0


def test_on_the_board_the_end_of_the_input_stops_it_with_nothing_written(tmp_path, capsys):
    from service_rig import write_config
    path = write_config(tmp_path)           # mock pins: the real bench, with no one at the keyboard
    text = path.read_text()
    assert run("calibrate", "--config", str(path))[0] == 1
    assert capsys.readouterr().err == "controller calibrate: stopped at the end of the input: nothing written\n"
    assert path.read_text() == text and not list(tmp_path.glob("config.toml.bak-*"))


def test_the_new_configuration_is_on_the_card_before_it_replaces_the_old_and_the_rename_after(tmp_path, monkeypatch):
    import os
    path = tmp_path / "config.toml"
    path.write_text(SHIPPED)
    done = []
    fsync, replace = os.fsync, os.replace

    def synced(fd):
        done.append(("fsync", os.readlink("/proc/self/fd/%d" % fd)))
        fsync(fd)

    def replaced(source, target):
        done.append(("replace", str(target)))
        replace(source, target)
    monkeypatch.setattr(os, "fsync", synced)
    monkeypatch.setattr(os, "replace", replaced)
    assert run("calibrate", "--simulate", "--config", str(path))[0] == 0
    assert done == [("fsync", str(path) + ".new"), ("replace", str(path)), ("fsync", str(tmp_path))]


def test_a_beam_broken_at_rest_is_refused_naming_the_sensor_pin(tmp_path):
    from controller.selftest.calibrate import CalibrationError
    path = tmp_path / "config.toml"
    path.write_text(SHIPPED)
    config = load_config(str(path))
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    bench = SimulatedBench(pinmap, out=io.StringIO())
    try:
        bench.factory.pin(pinmap.inputs["marble_sensor"].pin).drive_low()
        bench.wait(100)
        with pytest.raises(CalibrationError) as refused:
            calibrate(bench, config, pinmap, 3, io.StringIO())
    finally:
        bench.close()
    assert str(refused.value) == ("the beam reads broken with no marble on BCM 8 (header pin 24): check the sensor "
                                  "first (controller selftest); nothing written")
    assert path.read_text() == SHIPPED


def test_a_second_backup_in_the_same_second_takes_the_next_name(tmp_path):
    from controller.selftest.calibrate import write
    path = tmp_path / "config.toml"
    path.write_text(SHIPPED)
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    first = write(str(path), "drnim", {"pace_ms": 1000}, pinmap, clock=lambda: 0)
    second = write(str(path), "drnim", {"pace_ms": 1100}, pinmap, clock=lambda: 0)
    assert second == first + "-2" and open(first).read() == SHIPPED and "pace_ms = 1000" in open(second).read()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another group takes root, as `sudo controller "
                                              "calibrate` is run")
def test_the_configuration_keeps_its_owner_group_and_mode_for_the_service_to_read(tmp_path):
    """A museum's config is root:drnim 0640 (the service reads it through its group): calibrated
    with sudo, it came back root:root and the service could no longer read it."""
    from controller.selftest.calibrate import write
    path = tmp_path / "config.toml"
    path.write_text(SHIPPED)
    os.chown(path, 0, 65534)
    path.chmod(0o640)
    backup = write(str(path), "drnim", {"pace_ms": 1000}, load_pinmap(default_pinmap_path("drnim")))
    for made in (path, Path(backup)):
        assert (made.stat().st_uid, made.stat().st_gid, made.stat().st_mode & 0o777) == (0, 65534, 0o640), made
    assert "pace_ms = 1000" in path.read_text()


@pytest.mark.parametrize("named", [False, True])
def test_the_simulated_marbles_are_never_written_into_the_exhibits_configuration(tmp_path, monkeypatch, capsys,
                                                                                  named):
    """On the exhibit's Pi `calibrate --simulate`, tried as the README's wizard, took /etc's configuration, the
    default, and wrote the simulated 250 ms marbles' timeout into it: at the service's next start a real marble
    slower than 450 ms was retried, and a second one let go. It is refused, named or not, and the file is left
    as it was (found by the troubleshooting review)."""
    import controller.arguments
    import controller.selftest.command
    exhibits = tmp_path / "etc" / "config.toml"
    exhibits.parent.mkdir()
    exhibits.write_text(SHIPPED)
    for module in (controller.arguments, controller.selftest.command):
        monkeypatch.setattr(module, "DEFAULT_CONFIG", str(exhibits))
    code, _ = run("calibrate", "--simulate", *(["--config", str(exhibits)] if named else []))
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1
    assert ("--simulate: the simulated marbles' figures are never written into the exhibit's configuration %s: "
            "calibrate a copy" % exhibits) in error
    assert exhibits.read_text() == SHIPPED and list(exhibits.parent.iterdir()) == [exhibits]
