"""The Raspberry Pi service on gpiozero's MockFactory, through the real devices."""

import json
import io
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import ROOT, in_process
from kill_rig import campaign
from service_rig import Rig, write_config
from controller.core.debounce import BUTTON_MIN_PULSE_MS
from controller.core.rules import MISERE, Subtraction
from controller.core import solve
from controller.service.stats import summary
from controller.service.store import StateStore


def recorded(rig):
    """The statistics the service has written, once its writer has caught up."""
    assert rig.service.stats.flush()
    return summary(rig.service.stats.path)


def release_pulses(rig):
    """The release pin's on-times in ms, from the mock pin's state history."""
    states = rig.pin("release").states
    return [state for state in states[1:] if state.state]


def test_a_complete_game_driven_by_the_trigger_pin(tmp_path):
    rig = Rig(tmp_path, equalizer=False)
    variant = Subtraction(MISERE)
    rig.take(2)                                   # the visitor moves first and leaves 13
    while rig.machine.state["mode"] == "play":
        rig.hand_over()
        if rig.machine.state["mode"] != "play":
            break
        move = solve.winning_move(variant, (rig.machine.rail,))
        rig.take(move.total if move else 1)
    assert rig.machine.state["winner"] == "player"
    assert rig.marbles_seen == 15 and rig.machine.state["taken"] == 15
    assert rig.pin("lamp_you_win").state and not rig.pin("lamp_drnim_wins").state
    assert len(release_pulses(rig)) == 15
    assert not rig.pin("release").state
    assert "message: You win! You beat Dr. Nim." in rig.log
    assert recorded(rig)["wins"] == {"player": 1}


def test_the_release_pulse_lasts_release_pulse_ms(tmp_path):
    rig = Rig(tmp_path)
    release = rig.pin("release")
    rig.pin("trigger").drive_low()
    rig.wait(BUTTON_MIN_PULSE_MS)                  # a press counts once it has held that long
    assert release.state
    rig.wait(59)
    assert release.state, "still open 59 ms later"
    rig.wait(1)
    assert not release.state, "shut after release_pulse_ms = 60"
    rig.pin("trigger").drive_high()
    rig.wait(500)
    assert rig.machine.rail == 14


def test_the_indicators_follow_the_marbles(tmp_path):
    rig = Rig(tmp_path, equalizer=True)
    turn_right = rig.factory.pin(rig.pinmap.outputs["turn"].pins["right"])
    assert turn_right.state
    rig.switch("turn_switch", True)
    assert not turn_right.state
    rig.press("trigger")
    rig.settle()
    assert rig.machine.rail == 14 and turn_right.state
    equalizer_left = rig.factory.pin(rig.pinmap.outputs["equalizer"].pins["left"])
    assert equalizer_left.state


def test_a_jam_holds_the_game_and_lights_the_fault_lamp(tmp_path):
    rig = Rig(tmp_path)
    rig.jam = 3
    rig.press("trigger")
    rig.wait(6000)
    assert rig.machine.state["fault"] == "jam" and rig.machine.rail == 15
    assert rig.pin("lamp_fault").state
    assert len(release_pulses(rig)) == 3
    rig.marble()                                   # the technician frees it
    assert rig.machine.state["fault"] is None and rig.machine.rail == 14
    assert not rig.pin("lamp_fault").state
    assert recorded(rig)["jams"] == 1


def test_a_glitch_is_counted_and_recorded(tmp_path):
    rig = Rig(tmp_path)
    rig.marble()
    assert rig.machine.rail == 14
    assert any("without a release" in line for line in rig.log)
    assert recorded(rig)["faults"] == {"extra-marble": 1}


def test_a_bouncing_button_gives_one_press(tmp_path):
    rig = Rig(tmp_path)
    trigger = rig.pin("trigger")
    for _ in range(8):                             # 16 edges within 8 ms
        trigger.drive_low()
        rig.clock.now += 1
        rig.service.pump()
        trigger.drive_high()
        rig.clock.now += 0
        rig.service.pump()
    trigger.drive_low()
    rig.wait(300)
    trigger.drive_high()
    rig.wait(500)
    assert len(release_pulses(rig)) == 1 and rig.machine.rail == 14


def test_a_spike_on_the_trigger_wire_is_not_a_press(tmp_path):
    """The solenoid switching 1 A puts microsecond spikes on a long panel wire: the pin map's
    button pulse filter (min_pulse_ms, 1 ms) lets none of them through as a press."""
    rig = Rig(tmp_path)
    trigger = rig.pin("trigger")
    for _ in range(5):
        trigger.drive_low()
        trigger.drive_high()                       # back within the same millisecond
        rig.wait(300)
    assert release_pulses(rig) == [] and rig.machine.rail == 15
    rig.press("trigger")
    assert len(release_pulses(rig)) == 1 and rig.machine.rail == 14


def test_a_tap_shorter_than_the_debounce_is_not_lost(tmp_path):
    rig = Rig(tmp_path)
    trigger = rig.pin("trigger")
    trigger.drive_low()
    rig.wait(BUTTON_MIN_PULSE_MS)
    trigger.drive_high()                           # released within the lock
    rig.wait(500)
    trigger.drive_low()                            # the next press counts
    rig.wait(100)
    trigger.drive_high()
    rig.wait(500)
    assert rig.machine.rail == 13


def test_a_stuck_button_is_reported_once_and_presses_once(tmp_path):
    rig = Rig(tmp_path)
    rig.pin("trigger").drive_low()
    rig.wait(20000)
    assert rig.machine.rail == 14
    assert sum(line.startswith("fault: stuck:trigger: Trigger button (lower right) held down since ")
               for line in rig.log) == 1
    assert recorded(rig)["faults"] == {"stuck:trigger": 1}


def test_a_button_held_down_from_the_start_is_stuck_and_controller_status_says_so_until_let_go(tmp_path):
    """A trigger stuck down (or a beam blocked) before the service starts never gives an edge: the
    visitor's presses did nothing, and neither the journal nor `controller status` said why."""
    from controller.cli import main
    rig = Rig(tmp_path, switches={"trigger": True})
    rig.wait(6000)
    stuck = [line for line in rig.log if line.startswith("fault: stuck:trigger: ")]
    assert len(stuck) == 1 and re.fullmatch(r"fault: stuck:trigger: Trigger button \(lower right\) held down since "
                                            r"\d\d:\d\d: the button stuck down, or its wire touching ground",
                                            stuck[0]), stuck
    assert recorded(rig)["faults"] == {"stuck:trigger": 1}
    rig.service.heartbeat()
    out = io.StringIO()
    main(["status", "--config", str(tmp_path / "config.toml")], out=out)
    assert "Service fault: %s.\n" % stuck[0][len("fault: "):] in out.getvalue()
    trigger = rig.pin("trigger")
    trigger.held = None
    trigger.drive_high()                       # freed: read as before
    rig.wait(500)
    assert "stuck:trigger" not in rig.service.service_faults() and "trigger let go: read as before" in rig.log
    rig.press("trigger")
    assert rig.machine.rail == 14


def test_stopping_leaves_every_output_off(tmp_path):
    rig = Rig(tmp_path, equalizer=True)
    rig.switch("turn_switch", True)
    rig.press("trigger")
    rig.pin("trigger").drive_low()                 # mid-press, lamps lit, indicators on
    rig.service.pump()
    assert any(pin.state for pin in rig.output_pins().values())
    rig.service.request_stop()
    rig.service.stop()
    lit = [key for key, pin in rig.output_pins().items() if pin.state]
    assert lit == []


def test_the_game_resumes_after_a_restart(tmp_path):
    rig = Rig(tmp_path, equalizer=False)
    rig.take(3)
    rig.hand_over()
    assert rig.machine.rail == 9
    rig.service.stop()
    again = Rig(tmp_path, equalizer=False)
    assert again.machine.rail == 9 and again.machine.state["turns"] == [["player", 3], ["machine", 3]]
    again.take(1)
    assert again.machine.rail == 8


def test_the_nimatron_lamps_are_decoded_from_the_shift_register_pins(tmp_path):
    rig = Rig(tmp_path, machine="nimatron", opening="first")
    lamps, rows = rig.pinmap.lamps_per_row, rig.pinmap.rows
    assert len(rig.chip.outputs) == 64, "8 registers"

    def lit(display):
        # the console's lamps on U1-U4 (outputs 0-27), the spectators' on U5-U8 (outputs 32-59)
        bits = rig.chip.outputs[32 * display:32 * display + rows * lamps]
        return [sum(bits[r * lamps:(r + 1) * lamps]) for r in range(rows)]

    assert lit(0) == [1, 3, 5, 6]
    rig.press("row3")
    assert rig.machine.state["rows"] == [1, 3, 4, 6]
    assert lit(0) == [1, 3, 4, 6] and lit(1) == [1, 3, 4, 6], "the spectators' display mirrors the console"
    assert not any(rig.chip.outputs[28:32] + rig.chip.outputs[60:64]), "each display's chips drive only its lamps"
    rig.press("handover")
    rig.wait(10000)
    assert lit(0) == rig.machine.state["rows"] == lit(1)
    rig.service.stop()
    assert rig.chip.outputs == [False] * len(rig.chip.outputs)


def test_the_spectators_chips_powered_after_the_pi_show_the_game_by_the_next_heartbeat(tmp_path):
    """The spectators' 74HC595s have their own 3.3 V, from the lamps' supply: plugged in after the Pi,
    they wake with random outputs, which stayed lit until a row changed. Each heartbeat writes the chain
    again as it is."""
    rig = Rig(tmp_path, machine="nimatron", opening="first")
    shown = list(rig.chip.outputs)
    rig.chip.shifting = [True] * len(shown)
    rig.chip.latch()        # the lamps' supply comes back: the spectators' chips latch whatever they woke with
    assert rig.chip.outputs != shown
    rig.wait(1000 * rig.service.config.service["heartbeat_s"] + 100)
    assert rig.chip.outputs == shown and rig.machine.state["rows"] == [1, 3, 5, 6]
    rig.service.stop()


def test_the_shift_register_puts_bits_0_to_n_on_outputs_q0_to_qn():
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    from controller.hardware.devices import ShiftRegister
    from controller.hardware.pinmap import OutputSpec
    from controller.sim.engine import Chip74HC595
    factory = MockFactory(pin_class=MockPWMPin)
    spec = OutputSpec("lamps", "lamps", "shift_register", {"data": 10, "clock": 11, "latch": 8}, None,
                      {"registers": 2})
    chip = Chip74HC595(factory, spec)
    register = ShiftRegister(10, 11, 8, registers=2, pin_factory=factory)
    pattern = [True, False, True, True] + [False] * 11 + [True]
    register.write(pattern)
    assert chip.outputs == pattern
    register.clear()
    assert chip.outputs == [False] * 16
    register.close()


def command(*argv, env=None):
    """`python -m controller ARGV...` as a process of its own: `controller run`, as a service manager starts it."""
    return subprocess.run([sys.executable, "-m", "controller", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, env=env)


def checked(*argv):
    """`controller config check ...` or `status ...`, which read files and say what they found, run in this
    process: its exit status, stdout and stderr (conftest.in_process)."""
    return in_process(argv)


def test_config_check_accepts_the_shipped_configuration():
    result = checked("config", "check", str(ROOT / "systemd" / "config.toml"))
    assert result.returncode == 0 and "good: drnim" in result.stdout


def test_config_check_takes_the_configuration_as_every_other_command_does(tmp_path):
    """`controller status --config F`, `run --config F`: a technician types `config check --config F` too."""
    shipped = str(ROOT / "systemd" / "config.toml")
    result = checked("config", "check", "--config", shipped)
    assert result.returncode == 0 and result.stdout.startswith(shipped + ": good: drnim"), result.stderr
    other = tmp_path / "other.toml"
    other.write_text("")
    both = checked("config", "check", "--config", shipped, str(other))
    assert both.returncode == 2 and both.stderr == "controller: --config: %s, and PATH %s: name one configuration " \
        "to check\n" % (shipped, other), both.stderr


def test_config_check_names_the_option_only_when_it_was_typed(tmp_path):
    """`config check bad.toml` said 'controller: --config: bad.toml: ...', an option the user never typed."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[drnim]\nmarbles = 99\n")
    said = "%s:2: drnim.marbles: must be 1 to 15 (capacity, the marbles the rail holds), not 99\n" % bad
    assert checked("config", "check", str(bad)).stderr == "controller: " + said
    assert checked("config", "check", "--config", str(bad)).stderr == "controller: --config: " + said


def test_a_refused_setting_is_named_with_the_line_that_sets_it(tmp_path):
    """A museum's configuration sets pace_ms, first and rule under each machine, and a refusal named the file and
    the key alone: the technician looked for which of them (the settings review). It names the line too, as a
    pin map's refusal does; a default that does not fit what the file sets, the line of its table."""
    config = tmp_path / "config.toml"
    config.write_text('[service]\nmachine = "nimatron"\n\n[drnim]\npace_ms = 900\n\n[nimatron]\nrows = 4\npace_ms = 10\n')
    assert checked("config", "check", str(config)).stderr == (
        "controller: %s:9: nimatron.pace_ms: must be a whole number from 50 to 86400000, not 10\n" % config)
    config.write_text('[service]\nmachine = "drnim"\n\n[drnim]\ncapacity = 10\n')
    assert checked("config", "check", str(config)).stderr == (
        "controller: %s:4: drnim.marbles: must be 1 to 10 (capacity, the marbles the rail holds), not 15\n" % config)


@pytest.mark.parametrize("text,words", [
    ("[drnim]\nmarbles = 99\n", "drnim.marbles: must be 1 to 15"),
    ("[service]\nmachine = \"chess\"\n", "service.machine: 'chess' is not one of drnim, nimatron"),
    ("[drnim\n", "Expected ']'"),
    ("[lights]\n", "[lights]: unknown section"),
    ("[nimatron]\nopenings = [[9, 9, 9, 9]]\n", "nimatron.openings: opening 1"),
    ("[drnim]\nopponent = \"hal\"\n", "drnim.opponent: unknown opponent 'hal'"),
    # tomllib's 'Cannot overwrite a value' and 'Cannot declare ('telemetry',) twice' named neither (found by the
    # museum technician's upgrade walkthrough: enabled = true added under the shipped enabled = false, a guide's
    # [telemetry] pasted into a file that has one)
    ("[telemetry]\nenabled = false\nenabled = true\n", "telemetry.enabled is set twice, at line 2 and at line 3: "
     "keep one"),
    ("[telemetry]\nhost = \"a\"\n[exhibit]\n[telemetry]\nenabled = true\n", "[telemetry] is written twice, at line "
     "1 and at line 4: put the settings of both under the first"),
    # the last line without its newline ('at end of document'), a value over several lines (told where it ends)
    ("[telemetry]\nenabled = false\nenabled = true", "telemetry.enabled is set twice, at line 2 and at line 3: keep one"),
    ("[drnim]\nopponent = \"perfect\"\nopponent = \"\"\"\nperfect\"\"\"\n", "drnim.opponent is set twice, at line 2 and at "
     "line 3: keep one"),
    ("[service]\npinmap = \"/nowhere/pinmap.toml\"\n", "pin map:"),
    # a setting where TOML puts it, not where the technician meant: the section it belongs to is named
    ("language = \"de\"\n[service]\n", "language: a setting above the first [section]: it belongs under [exhibit]"),
    ("[telemetry]\nquiet_hours = \"17:00-10:00\"\n",
     "telemetry.quiet_hours: not a setting of [telemetry]: it belongs under [exhibit]"),
    ("[exhibit]\nidle_ms = 60000\n", "exhibit.idle_ms: not a setting of [exhibit]: it belongs under [drnim] or [nimatron]"),
    # the service starts in its own folder: a path from the folder the check ran in means another file there
    ("[service]\nstate_dir = \"state\"\n", "service.state_dir: state is not a full path (one that begins with /)"),
    ("[service]\npinmap = \"pinmaps/drnim.toml\"\n", "service.pinmap: pinmaps/drnim.toml is not a full path"),
    ("[telemetry]\npassword_file = \"secret\"\n", "telemetry.password_file: secret is not a full path"),
    # a Windows path as Explorer shows it, in double quotes: its backslashes begin escapes
    ("[service]\npinmap = \"C:\\Users\\me\\drnim.toml\"\n", "Invalid hex value (at line 2, column 15): in double "
     "quotes a backslash begins an escape; write a Windows path with forward slashes, or in single quotes: "
     "\"C:/Users/me/drnim.toml\""),
    ("[service]\nstate_dir = \"C:\\temp\"\n", "service.state_dir: the path holds a tab (\\t in double quotes): write a "
     "Windows path with forward slashes, or in single quotes"),
])
def test_a_bad_config_gets_one_line_naming_the_key(tmp_path, text, words):
    path = tmp_path / "config.toml"
    path.write_text(text)
    for run, argv in ((checked, ["config", "check", str(path)]),
                      (command, ["run", "--config", str(path), "--pin-factory", "mock"])):
        result = run(*argv)
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and words in result.stderr and str(path) in result.stderr \
            or words in result.stderr and result.stderr.count("\n") == 1
        assert "Traceback" not in result.stderr


def test_a_backslash_in_a_value_that_is_no_path_gets_no_path_advice_and_is_not_said_back(tmp_path):
    """The Windows-path advice writes the value back with forward slashes: for a name or a password
    it would be wrong, and would put the value on the terminal and in the journal."""
    path = tmp_path / "config.toml"
    path.write_text('[telemetry]\nusername = "mu\\seum"\n')
    result = checked("config", "check", str(path))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "Unescaped" in result.stderr and "slashes" not in result.stderr and "seum" not in result.stderr


def test_a_configuration_saved_by_windows_notepad_is_read(tmp_path):
    """Notepad begins a UTF-8 file with a byte-order mark: the check said "Invalid statement (at line 1,
    column 1)" of a comment the technician saw nothing wrong with."""
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (ROOT / "systemd" / "config.toml").read_bytes().replace(b"\n", b"\r\n"))
    result = checked("config", "check", str(path))
    assert result.returncode == 0 and "good: drnim" in result.stdout, result.stderr
    path.write_bytes(path.read_bytes()[3:].decode().encode("utf-16"))
    result = checked("config", "check", str(path))
    assert result.returncode == 2 and result.stderr.strip().endswith("not UTF-8 text (save it as UTF-8)"), result.stderr


def test_a_bad_pin_map_gets_one_line(tmp_path):
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text((ROOT / "hardware" / "drnim" / "pinmap.toml").read_text().replace("pin = 4 ", "pin = 40", 1))
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace("[service]", '[service]\npinmap = "%s"' % pinmap))
    result = command("run", "--config", str(config), "--pin-factory", "mock")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert str(pinmap) in result.stderr and ".pin: GPIO 40 is not on the 40-pin header" in result.stderr


def test_run_without_gpio_points_to_the_simulator(tmp_path):
    if any(name.startswith("gpiochip") for name in os.listdir("/dev")):
        pytest.skip("this machine has a GPIO chip")
    result = command("run", "--config", str(write_config(tmp_path).with_name("config.toml")), "--pin-factory",
                     "lgpio")
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "no GPIO" in result.stderr and "controller --simulate" in result.stderr


@pytest.mark.parametrize("argv, hint", [
    (["selftest"], "; without hardware, use 'controller selftest --simulate'"),
    (["calibrate"], "; without hardware, use 'controller calibrate --simulate'"),
    (["safe-off"], ""),
])
def test_a_bench_command_without_gpio_names_its_own_simulation(tmp_path, monkeypatch, argv, hint):
    """selftest and calibrate on a computer without GPIO pointed to 'controller --simulate', the game's
    simulator, where a technician wanted their own --simulate; safe-off has nothing to switch off there."""
    from controller.service import daemon
    monkeypatch.setattr(daemon, "_listdir", lambda folder: [])
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace('pin_factory = "mock"', 'pin_factory = "lgpio"'))
    result = in_process([*argv, "--config", str(config)])
    assert result.returncode == 1
    assert result.stderr.endswith("this machine has no GPIO (no /dev/gpiochip*)%s\n" % hint)
    assert result.stderr.count("\n") == 1


class NotifySocket:
    """A stand-in for systemd's notification socket."""

    def __init__(self, tmp_path):
        self.path = str(tmp_path / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(30)

    def receive(self):
        return self.sock.recv(4096).decode()

    def close(self):
        self.sock.close()


def start_service(tmp_path, notify, watchdog_usec=None, extra=()):
    config = write_config(tmp_path)
    env = dict(os.environ, NOTIFY_SOCKET=notify.path, PYTHONPATH=str(ROOT))
    if watchdog_usec:
        env["WATCHDOG_USEC"] = str(watchdog_usec)
    return subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config), *extra],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_ready_watchdog_and_stopping_reach_systemd(tmp_path):
    notify = NotifySocket(tmp_path)
    process = start_service(tmp_path, notify, watchdog_usec=1000000)
    try:
        assert notify.receive().startswith("READY=1")
        assert notify.receive() == "WATCHDOG=1"
        assert notify.receive() == "WATCHDOG=1"
        status = json.loads((tmp_path / "run" / "status.json").read_text())
        process.send_signal(signal.SIGTERM)
        messages = []
        while "STOPPING=1" not in messages:
            messages.append(notify.receive())
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
        notify.close()
    assert process.returncode == 0
    assert "stopped: every output is off" in stderr and "Traceback" not in stderr
    assert status["machine"] == "drnim" and status["pid"] == process.pid
    assert not (tmp_path / "run" / "status.json").exists(), "a clean stop leaves no heartbeat behind"


def hand_run(config, heartbeat):
    """`controller run` started by hand, once its first heartbeat is written (or 30 s have passed)."""
    process = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not heartbeat.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return process


def test_a_second_service_on_the_same_state_folder_is_refused_in_one_line(tmp_path):
    """Started by hand beside systemd's, a second service printed 'ready' and wrote over the first's
    saved game and statistics. It is refused now, naming the one that holds the folder; once that
    one ends, however it ends, a service starts there again."""
    config = write_config(tmp_path)
    first = hand_run(config, tmp_path / "run" / "status.json")
    try:
        second = command("run", "--config", str(config))
        assert second.returncode == 1 and second.stderr.count("\n") == 1, second.stderr
        assert second.stderr.startswith("controller: another controller service (pid %d) keeps its game in %s: "
                                        "stop it first" % (first.pid, tmp_path / "state")), second.stderr
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=30)
    finally:
        first.kill()
    again = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        started = ""
        while not started.startswith("ready: ") and again.poll() is None:
            started = again.stderr.readline()
        again.send_signal(signal.SIGINT)
        again.communicate(timeout=30)
    finally:
        again.kill()
    assert started.startswith("ready: drnim") and again.returncode == 0, started


def test_a_state_folder_that_cannot_be_made_is_one_line_naming_the_setting(tmp_path):
    """Run by hand with a state_dir this user cannot make or write: a traceback before."""
    config = write_config(tmp_path)
    (tmp_path / "a-file").write_text("")
    config.write_text(config.read_text().replace(str(tmp_path / "state"), str(tmp_path / "a-file" / "state")))
    result = command("run", "--config", str(config))
    assert result.returncode == 1 and result.stderr == (
        "controller: service.state_dir: cannot keep the game in %s (Not a directory): give a folder this user "
        "may write, or run as the service's user\n" % (tmp_path / "a-file" / "state")), result.stderr


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL])
def test_status_after_a_hand_run_service_stopped_says_it_is_not_running(tmp_path, stop):
    """A `controller run` stopped by Ctrl-C, or killed, is not reported as running from its last heartbeat."""
    config = write_config(tmp_path)
    heartbeat = tmp_path / "run" / "status.json"
    process = hand_run(config, heartbeat)
    try:
        assert "Last heartbeat: " in checked("status", "--config", str(config)).stdout
        process.send_signal(stop)
        process.communicate(timeout=30)
    finally:
        process.kill()
    said = checked("status", "--config", str(config)).stdout
    assert "Last heartbeat" not in said
    assert "No heartbeat in %s: the service is not running" % heartbeat in said


def test_a_hand_run_service_whose_terminal_closes_stops_with_every_output_off(tmp_path):
    """Found in a months audit: `controller run` started by hand over ssh died of the SIGHUP that a closed
    session sends, at once, its outputs left as they were (a release pulse under way held the solenoid open:
    outside systemd no safe-off follows); under systemd, `kill -HUP` did the same. SIGHUP stops it as
    Ctrl-C does."""
    config = write_config(tmp_path)
    process = hand_run(config, tmp_path / "run" / "status.json")
    try:
        process.send_signal(signal.SIGHUP)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 0 and stderr.splitlines()[-1] == "stopped: every output is off", stderr


@pytest.mark.parametrize("jump_s", [-3600, 3600])
def test_status_heartbeat_age_holds_when_the_clock_jumps(tmp_path, monkeypatch, jump_s):
    """A Pi has no clock of its own: its time jumps when the network time arrives, or is mended. A running
    service's last heartbeat is still said as seconds ago, never as minus an hour or an hour stale."""
    from controller.cli import main
    rig = Rig(tmp_path, marbles=2, equalizer=False)
    rig.take(1)
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + jump_s)
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    ago = float(out.getvalue().split("Last heartbeat: ")[1].split(" s ago")[0])
    assert 0 <= ago < 600, out.getvalue()
    rig.service.stop()


def test_status_of_a_service_gone_before_the_clock_moved_back_says_when_it_beat(tmp_path):
    """A Pi's clock set back after the service wrote its last heartbeat (it ran ahead before network time came):
    the heartbeat is said by its time, not as '-3600 s ago'."""
    config = write_config(tmp_path)
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / "run").mkdir(exist_ok=True)
    beat = time.time() + 3600
    (tmp_path / "run" / "status.json").write_text(json.dumps({"pid": int(ended.stdout), "heartbeat": beat}))
    said = checked("status", "--config", str(config)).stdout
    assert "(the last, at %s by the clock of then, came from pid %s, which has ended)" % (
        time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(beat)), ended.stdout.strip()) in said, said


def test_the_rpigpio_backend_builds_the_board_with_fake_rpi(tmp_path):
    """fake-rpi stands in for RPi.GPIO (its inputs read random values and its
    callbacks never fire): it proves the rpigpio backend path builds the board."""
    pytest.importorskip("fake_rpi", reason="fake-rpi is missing (pip install fake-rpi; make test installs it)")
    script = (
        "import sys, fake_rpi\n"
        "sys.modules['RPi'] = fake_rpi.RPi\n"
        "sys.modules['RPi.GPIO'] = fake_rpi.RPi.GPIO\n"
        "# fake-rpi's gpio_function always answers OUT; remember what setup() chose instead\n"
        "gpio, functions, setup = fake_rpi.RPi.GPIO, {}, fake_rpi.RPi.GPIO.setup\n"
        "def remembering_setup(channel, function, *args, **kwargs):\n"
        "    functions[channel] = function\n"
        "    return setup(channel, function, *args, **kwargs)\n"
        "gpio.setup = remembering_setup\n"
        "gpio.gpio_function = lambda channel: functions.get(channel, gpio.IN)\n"
        "import gpiozero.pins.local\n"
        "gpiozero.pins.local.LocalPiFactory._get_revision = lambda self: 0xc03111  # a Pi 4, as on the exhibit\n"
        "from controller.cli import main\n"
        "from controller.service import daemon\n"
        "from controller.hardware.boards import Board\n"
        "def build(config, pinmap, factory):\n"
        "    board = Board(pinmap, lambda role, level: None, factory)\n"
        "    board.apply(('turn', 'left'))\n"
        "    board.apply(('release',))\n"
        "    board.safe()\n"
        "    print('BUILT', type(factory).__name__, len(board.devices))\n"
        "    board.close()\n"
        "    return 0\n"
        "daemon.run = build\n"
        "sys.exit(main(sys.argv[1:]))\n")
    config = write_config(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", script, "run", "--config", str(config), "--pin-factory",
                             "rpigpio"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    built = [line.split() for line in result.stdout.splitlines() if line.startswith("BUILT")]
    # the button panel, the release, 5 indicators, 5 lamps, the buzzer
    assert built == [["BUILT", "RPiGPIOFactory", "13"]]


def test_the_game_survives_sigkill_at_random_moments(tmp_path):
    """Kill the real service loop with SIGKILL at random points of random play,
    many times; every restart resumes with exactly the marbles that passed the
    gate, or, when a release was under way at the kill, holds the game in
    "check the marbles" instead of playing on with a count it cannot know.
    (bench/kill_campaign.py runs the same a thousand times.) Two campaigns of 8 kills at
    once, each with its own service and state: a round mostly waits for its moment.
    Where a kill lands depends on the machine's speed: on a busy one more land while a
    release is under way, so the campaigns go on, two more at a time, until three
    resumes were exact, enough to show the count is kept and not only held."""
    from concurrent.futures import ThreadPoolExecutor
    counts = {"exact": 0, "held": 0, "miscount": 0, "marbles": 0}
    seeds = iter(range(2026, 2036))
    with ThreadPoolExecutor(2) as pool:
        while counts["exact"] < 3 and counts["miscount"] == 0:
            pair = [next(seeds, None), next(seeds, None)]
            if None in pair:
                break
            for one in pool.map(lambda seed: campaign(tmp_path / str(seed), 8, seed), pair):
                for key in counts:
                    counts[key] += one[key]
    assert counts["miscount"] == 0, counts
    assert counts["exact"] >= 3, "many kills land between marbles"
    assert counts["marbles"] >= 5, "the visitor should have played"


def test_status_and_stats_commands(tmp_path, monkeypatch):
    import io
    from controller.cli import main
    monkeypatch.setattr("controller.service.clock.synchronised", lambda: True)     # a Pi on network time
    rig = Rig(tmp_path, marbles=2, equalizer=False)
    rig.take(1)
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    text = out.getvalue()
    assert "Game: drnim, play, 1 of 2 marbles on the rail, player's turn." in text
    assert "Fault: none." in text and "Last heartbeat:" in text
    rig.hand_over()                                # Dr. Nim must take the last marble
    rig.service.stats.flush()                      # its own thread writes the game: a busy machine's is late
    out = io.StringIO()
    assert main(["stats", "--config", str(tmp_path / "config.toml")], out=out) == 0
    assert "Wins: visitor 1" in out.getvalue() and "Jams: 0" in out.getvalue()
    rig.service.stop()
    assert not (tmp_path / "run" / "status.json").exists()
    out = io.StringIO()
    main(["status", "--config", str(tmp_path / "config.toml")], out=out)
    # an attendant read 'Game: ... Fault: none.' first, and only then that the service was not running
    assert out.getvalue() == (
        "No heartbeat in %s: the service is not running, so the exhibit does not play. Start it: sudo systemctl "
        "start drnim-controller; why it stopped: journalctl -u drnim-controller -b.\n"
        "Last saved game: drnim, over, 0 of 2 marbles on the rail, won by player.\n" % (tmp_path / "run" / "status.json"))


def test_controller_status_says_what_a_fault_means_and_new_game_clears_it(tmp_path):
    """A technician's `controller status` said only 'Fault: jam.' or 'Fault: check.': nothing on the
    Pi said what either meant or what clears it (docs/troubleshooting.md)."""
    import io
    from controller.cli import main

    def status():
        out = io.StringIO()
        main(["status", "--config", str(tmp_path / "config.toml")], out=out)
        return out.getvalue()
    rig = Rig(tmp_path)
    rig.jam = 10
    rig.press("trigger")
    rig.wait(20000)
    assert "\nFault: jam: a released marble never reached the gate sensor: free it (it counts as it passes and " \
           "play goes on), or put every marble back on the rail and press New game.\n" in status()
    rig.press("new_game")
    assert rig.machine.fault is None and "\nFault: none.\n" in status()
    rig.pin("trigger").drive_low()
    rig.wait(50)                                   # the power goes with a marble on its way
    assert rig.machine.state["in_flight"]
    rig.service.stop()
    again = Rig(tmp_path)
    assert "\nFault: check: the game in progress cannot be trusted (a restart with a marble on its way, or a " \
           "damaged save): put every marble back on the rail and press New game.\n" in status()
    again.press("new_game")
    assert again.machine.fault is None and again.machine.rail == 15


def test_the_equalizer_switch_decides_and_the_service_reads_it_at_start(tmp_path):
    """docs/choices.md: New game arms the equalizer exactly when its switch is at armed, and the
    service tells the machine where the switch stands at start-up, whatever the settings guessed."""
    at_spent = {"equalizer_switch": False}
    rig = Rig(tmp_path, switches=at_spent)              # the settings say armed; the switch stands at spent
    assert not rig.machine.equalizer_armed and rig.machine.controls()["equalizer"] == "left"
    rig.press("new_game")
    assert not rig.machine.equalizer_armed, "New game follows the switch"
    rig.switch("equalizer_switch", True)                # before the first marble: the game under way follows
    assert rig.machine.equalizer_armed
    rig.take(1)
    assert not rig.machine.equalizer_armed              # spent by the first marble (EQ-any); the switch stays
    rig.press("new_game")
    assert rig.machine.equalizer_armed
    rig.take(1)
    rig.service.stop()
    # the switch moved to spent while the controller was off: the restarted service says so to the machine,
    # which keeps the game under way as it was and arms nothing at the next New game
    rig = Rig(tmp_path, switches=at_spent)
    assert rig.machine.taken == 1 and any("resuming the saved drnim game" in line for line in rig.log)
    assert "message: The equalizer is set before the first marble: the switch counts from the next game." in rig.log
    rig.press("new_game")
    assert not rig.machine.equalizer_armed


def test_links_planted_at_the_temporary_names_are_never_written_through(tmp_path):
    """game.json.new and status.json.new planted as symbolic links to another file: the service, run as
    a user runs it, removes the links and writes its own files; the other file keeps its bytes and mode."""
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    (tmp_path / "run").mkdir()
    victims = {}
    for folder, name in (("state", "game.json.new"), ("run", "status.json.new")):
        victim = tmp_path / ("victim-" + name)
        victim.write_text("someone else's file\n")
        victim.chmod(0o644)
        (tmp_path / folder / name).symlink_to(victim)
        victims[victim] = (tmp_path / folder / name.replace(".new", ""))
    process = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not all(written.exists() for written in victims.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(written.is_file() and not written.is_symlink() for written in victims.values())
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0 and "Traceback" not in stderr
    for victim in victims:
        assert victim.read_text() == "someone else's file\n" and victim.stat().st_mode & 0o777 == 0o644
    assert StateStore(str(tmp_path / "state")).read()[0]["machine"] == "drnim"


@pytest.mark.parametrize("loosen, named", [("config.toml", "the configuration is writable by every user"),
                                           ("", "its folder %s is writable by every user")])
def test_a_configuration_anyone_may_change_is_refused_in_one_line(tmp_path, loosen, named):
    folder = tmp_path / "etc"
    folder.mkdir()
    config = write_config(tmp_path)
    config = config.rename(folder / "config.toml")
    (folder / loosen).chmod(0o666 if loosen else 0o777)
    result = checked("config", "check", str(config))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("controller: %s: %s" % (config, named.replace("%s", str(folder))))
    assert "chmod o-w" in result.stderr


def test_a_newline_in_the_brokers_host_is_refused_before_install_sh_writes_it(tmp_path):
    config = write_config(tmp_path)
    config.write_text(config.read_text() + '[telemetry]\nenabled = true\nhost = "broker\\nLD_PRELOAD=/tmp/evil.so"\n')
    result = checked("config", "check", str(config))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "telemetry.host: 'broker\\nLD_PRELOAD=/tmp/evil.so': must be the broker's host name or address" \
        in result.stderr


def test_a_lever_s_lamp_changes_before_the_save_and_the_release_opens_after_its_save(tmp_path):
    """An SD card's write can take tens of ms: the turn switch's lamp is lit before the
    game is written, and only the release waits for its write (a restart then finds
    the release under way in the saved game)."""
    rig = Rig(tmp_path)
    lamp, release = rig.pin("lamp_drnim_turn"), rig.pin("release")
    save = rig.service.store.save
    seen = []

    def watched(data):
        seen.append((lamp.state, release.state, data["state"]["in_flight"]))
        save(data)

    rig.service.store.save = watched
    rig.switch("turn_switch", True)
    assert seen and seen[-1][:2] == (1, 0), seen
    rig.press("trigger")
    assert (1, 0, True) in seen, seen        # Dr. Nim's first marble saved on its way, the release still shut


@pytest.mark.parametrize("verb", ["status", "stats"])
def test_status_and_stats_by_a_user_the_service_shuts_out_say_whose_folder_it_is(tmp_path, monkeypatch, capsys, verb):
    """The service keeps its folders to its own user (StateDirectoryMode=0750): a technician's
    `controller status` called the saved game damaged (Permission denied) and `stats` said there
    were none yet. (The suite runs as root, who may read anything: the refusal is made as a
    technician's would be.)"""
    from controller.cli import main
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "game.json").write_text("{}")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if str(path) == str(tmp_path / "state")
                        else real_access(path, mode))
    assert main([verb, "--config", str(config)], out=io.StringIO()) == 1
    said = capsys.readouterr().err
    assert said == "controller: %s: this user may not read the service's folder %s: run it as the service's user " \
                   "(sudo -u drnim /opt/drnim-controller/venv/bin/controller %s)\n" % (verb, tmp_path / "state", verb)


def test_an_input_that_chatters_while_the_board_is_built_does_not_stop_the_service(tmp_path):
    """An edge that came between the first input's callback and the service's counts of edges (a
    loose wire, a bouncing contact at power-up) raised an AttributeError in gpiozero's callback: on
    these mock pins, which call back at once, the service could not start at all."""
    from gpiozero.pins.mock import MockFactory
    from controller.hardware.pinmap import default_pinmap_path, load_pinmap
    from controller.service.config import load_config
    from controller.service.daemon import Service
    from controller.service.notify import Notifier
    from controller.sim.engine import rest_inputs
    from controller.sim.pins import BoundedPin

    config = load_config(str(write_config(tmp_path)))
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    factory = MockFactory(pin_class=BoundedPin)

    class Release(BoundedPin):
        """Made an output after the buttons are built: New game chatters just then."""
        def _set_function(self, value):
            super()._set_function(value)
            if value == "output":
                loose = factory.pin(pinmap.inputs["new_game"].pin)
                loose.drive_low()
                loose.drive_high()

    factory.pin(pinmap.outputs["release"].pins["pin"], pin_class=Release)
    rest_inputs(factory, pinmap)
    log = []
    service = Service(config, pinmap, pin_factory=factory, clock=lambda: 0, notifier=Notifier({}), log=log.append)
    service.start()
    service.pump()
    assert service.machine.mode == "play" and log[-1].startswith("ready: drnim")
    service.board.close()


@pytest.mark.parametrize("restarts", ["0", "3"])
def test_status_says_how_often_systemd_restarted_the_service(tmp_path, monkeypatch, restarts):
    """A crash or a watchdog kill a day (a slow card stalling a write past WatchdogSec) restarts the service
    on its saved game: a new pid, a fresh heartbeat, `status` all well, and nothing to show it for months.
    systemd counts them (NRestarts, which any user may read)."""
    from controller.cli import main
    systemctl = tmp_path / "bin" / "systemctl"
    systemctl.parent.mkdir()
    (tmp_path / "pi").mkdir()
    systemctl.write_text('#!/bin/sh\n[ "$*" = "show --property=NRestarts --value drnim-controller" ] && echo %s\n'
                         % restarts)
    systemctl.chmod(0o755)
    monkeypatch.setenv("PATH", "%s%s%s" % (systemctl.parent, os.pathsep, os.environ["PATH"]))
    rig = Rig(tmp_path / "pi", equalizer=False)
    rig.take(1)
    rig.service.heartbeat()
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "pi" / "config.toml")], out=out) == 0
    rig.service.stop()
    said = [line for line in out.getvalue().splitlines() if line.startswith("Restarted")]
    assert said == ([] if restarts == "0" else [
        "Restarted by systemd 3 times since it was started (a crash, or its watchdog): why: journalctl -u "
        "drnim-controller -b."])
