"""The service under stress: a stop always stops, an edge storm or a slow
save cannot hold the release open, the idle machine writes nothing, the
whole configuration is checked against itself and the pin map, read-only
commands change nothing, and every number typed is parsed safely."""

import io
import os
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT, in_process
from service_rig import Rig, write_config
from stop_rig import campaign as stop_campaign
from controller.cli import main
from controller.core.debounce import BUTTON_MIN_PULSE_MS


def command(*argv, stdin=""):
    """`controller ARGV...` run in this process: its exit status, stdout and stderr (conftest.in_process)."""
    return in_process(argv, stdin)


def process(*argv, stdin=""):
    """`python -m controller ARGV...` as a process of its own: what a service manager starts."""
    return subprocess.run([sys.executable, "-m", "controller", *argv], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


# --- 1. a stop always stops ----------------------------------------------------------------

def test_sigterm_at_random_moments_during_edge_bursts_always_stops_with_the_outputs_off(tmp_path):
    """40 stops, in two processes of 20 at once (tests/stop_rig.py). The long run,
    thousands of stops: bench/stop_campaign.py."""
    rounds, processes = 20, 2
    stops, failed = stop_campaign(rounds, processes, 2026, tmp_path)
    assert failed == [], failed[0][-3000:]
    assert len(stops) == rounds * processes
    assert all(off for _, off in stops), "every output off after every stop"
    # within the unit's TimeoutStopSec, or systemd kills it mid-stop (how fast a stop is: bench/stop_campaign.py)
    unit = (ROOT / "systemd" / "drnim-controller.service").read_text()
    limit = int(re.search(r"^TimeoutStopSec=(\d+)s$", unit, re.M).group(1))
    slowest = max(seconds for seconds, _ in stops)
    assert slowest < limit, "a stop took %.2f s, longer than the unit's TimeoutStopSec=%ds" % (slowest, limit)


# --- 2. deadlines before edges ----------------------------------------------------------------

def test_a_storm_of_edges_cannot_hold_the_release_open(tmp_path):
    """A floating sensor line posts 40,000 edges; reading each costs the loop
    20 us (the fake clock moves 1 ms every 50 edges handled). The release,
    opened for 60 ms, must still shut on time."""
    rig = Rig(tmp_path)
    service = rig.service
    handled = []
    edge = service.edge

    def costly_edge(item):
        handled.append(item)
        if len(handled) % 50 == 0:
            rig.clock.now += 1
        edge(item)
    service.edge = costly_edge
    shut = []
    shut_release = service.board.shut_release
    service.board.shut_release = lambda: (shut.append(rig.clock.now), shut_release())
    rig.pin("trigger").drive_low()
    service.pump()                                            # the release opens: 60 ms
    opened = rig.clock.now
    for _ in range(20000):                                    # what the callback thread queued meanwhile
        service.queue.put(("marble_sensor", True, opened))
        service.queue.put(("marble_sensor", False, opened))
    service.pump()
    assert len(handled) > 40000 and shut, "the storm was read and the release shut"
    assert shut[0] - opened <= 62, "open %d ms for a 60 ms pulse" % (shut[0] - opened)
    assert service.faults.get("noisy:marble_sensor")
    assert sum("fault: noisy:marble_sensor" in line for line in rig.log) == 1
    assert rig.machine.rail >= 13, "a storm is not a stream of marbles"


def test_a_late_loop_does_not_shorten_the_release_pulse(tmp_path):
    """The loop reads the trigger's edge 20 ms after it happened (a storm, a
    slow save): the release must still stay open its whole 60 ms from the
    moment it opens, or the solenoid may not let the marble go."""
    rig = Rig(tmp_path)
    rig.pin("trigger").drive_low()                            # stamped at 0 ms
    rig.clock.now = 20
    rig.service.pump()                                        # read 20 ms late: the release opens
    assert rig.pin("release").state
    rig.clock.now = 75
    rig.service.pump()
    assert rig.pin("release").state, "the pulse was cut short by the loop's lateness"
    rig.clock.now = 80
    rig.service.pump()
    assert not rig.pin("release").state


def test_a_slow_save_never_holds_the_release_open(tmp_path):
    """A second press while the release is open changes the game (it is
    queued), and a save on an SD card can take tens of ms (the fsync): the
    release must shut on time all the same, and the press be saved once it has."""
    rig = Rig(tmp_path)
    service = rig.service
    save = service.store.save

    def slow_save(data):
        save(data)
        rig.clock.now += 45

    shut = []
    shut_release = service.board.shut_release
    service.board.shut_release = lambda: (shut.append(rig.clock.now), shut_release())
    service.store.save = slow_save
    trigger = rig.pin("trigger")
    trigger.drive_low()
    rig.clock.now += BUTTON_MIN_PULSE_MS                      # a press counts once it has held
    service.pump()                                            # saved, then the release opens for 60 ms
    opened = rig.clock.now
    rig.clock.now = opened + 25
    trigger.drive_high()
    service.pump()
    rig.clock.now = opened + 50
    trigger.drive_low()                                       # a second press while it is open
    service.pump()
    rig.clock.now += BUTTON_MIN_PULSE_MS
    service.pump()
    while not shut:
        rig.clock.now = max(rig.clock.now, service.next_deadline())
        service.pump()
    assert shut[0] - opened <= 62, "open %d ms for a 60 ms pulse" % (shut[0] - opened)
    assert service.store.read()[0]["state"]["queued"] == 1, "the press was saved once the release shut"


def test_a_stop_while_the_release_is_open_saves_the_press_that_waited(tmp_path):
    rig = Rig(tmp_path)
    trigger = rig.pin("trigger")
    trigger.drive_low()
    rig.clock.now += BUTTON_MIN_PULSE_MS
    rig.service.pump()                                        # the release opens for 60 ms
    rig.clock.now += 25
    trigger.drive_high()
    rig.service.pump()
    rig.clock.now += 25
    trigger.drive_low()                                       # queued; its save waits for the release
    rig.service.pump()                                        # (the let-go before it is taken first)
    rig.clock.now += BUTTON_MIN_PULSE_MS
    rig.service.pump()
    assert rig.service.store.read()[0]["state"]["queued"] == 0
    rig.service.stop()
    assert not rig.pin("release").state
    assert rig.service.store.read()[0]["state"]["queued"] == 1


def test_a_noisy_input_is_ignored_until_it_calms_down(tmp_path):
    rig = Rig(tmp_path)
    for _ in range(200):                                      # the trigger line oscillates
        rig.service.post("trigger", True)
        rig.service.post("trigger", False)
    rig.service.pump()
    assert "noisy:trigger" in rig.service.faults
    rig.wait(300)                                             # its spikes, none held 1 ms, are no press
    rail = rig.machine.rail
    assert rail == 15
    for _ in range(100):
        rig.service.post("trigger", True)
        rig.service.post("trigger", False)
    rig.wait(500)
    assert rig.machine.rail == rail, "ignored while noisy"
    rig.wait(3000)                                            # a whole calm second
    assert "noisy:trigger" not in rig.service.faults
    assert any("trigger is calm again" in line for line in rig.log)
    rig.press("trigger")
    rig.settle()
    assert rig.machine.rail == rail - 1, "read as before once calm"
    rig.service.stats.flush()


def test_an_input_that_keeps_flapping_is_one_fault_not_one_a_burst(tmp_path):
    """A worn contact or a loose wire that storms every few seconds for hours: the journal, the
    statistics and the broker heard each burst as a fault and each pause as calm again, 200 lines
    in 5 minutes. Storming again soon after it calmed, it is now read again only after a whole
    calm minute; a single storm still calms in a second."""
    rig = Rig(tmp_path)
    for _ in range(100):                                      # 5 minutes: a burst of 150 edges every 3 s
        for _ in range(75):
            rig.service.post("trigger", True)
            rig.service.post("trigger", False)
        rig.wait(3000)
    said = [line for line in rig.log if "trigger" in line]
    assert len(said) == 3, said                               # the storm, calm, the storm again
    assert said[2].startswith("fault: noisy:trigger: ") and "a whole calm minute" in said[2]
    assert "noisy:trigger" in rig.service.faults
    rig.wait(30 * 1000)
    assert "noisy:trigger" in rig.service.faults, "half a calm minute is not enough"
    rig.wait(91 * 1000)                                       # a calm window of a minute, whole
    assert "noisy:trigger" not in rig.service.faults and rig.log[-1] == "trigger is calm again: read as before"
    rail = rig.machine.rail
    rig.press("trigger")
    rig.settle()
    assert rig.machine.rail == rail - 1
    rig.wait(601 * 1000)                                      # calm for ten minutes: the next storm is a new one
    for _ in range(75):
        rig.service.post("trigger", True)
        rig.service.post("trigger", False)
    rig.wait(3000)
    assert rig.log[-1] == "trigger is calm again: read as before"
    rig.service.stats.flush()


def test_a_wire_that_crackles_every_minute_or_so_is_one_fault_and_plays_no_press(tmp_path):
    """Bursts 70 s apart each came after a whole calm minute: each was a new fault (617 in 12 hours, two
    journal lines and two broker messages a burst), and the first edges of most played a press. Storming
    again within ten minutes of calming doubles the calm it needs, up to an hour."""
    rig = Rig(tmp_path)
    rail = rig.machine.rail
    for _ in range(60):                                       # 70 minutes: a burst of 150 edges every 70 s
        for _ in range(75):
            rig.service.post("trigger", True)
            rig.service.post("trigger", False)
        rig.wait(70 * 1000)
    faults = [line for line in rig.log if line.startswith("fault: noisy:trigger")]
    assert len(faults) == 3, faults                           # the storm, then twice again: 1 and 2 calm minutes
    assert faults[-1].endswith("again within 10 minutes of calming: read again after 2 calm minutes")
    assert "noisy:trigger" in rig.service.faults and rig.machine.rail == rail
    rig.wait(2 * 121 * 1000)                                  # a calm window of two minutes, whole
    assert "noisy:trigger" not in rig.service.faults and rig.log[-1] == "trigger is calm again: read as before"
    rig.service.stats.flush()


# --- 3. writes only when something worth keeping changed ------------------------------------

def test_no_write_while_idle_or_in_attract_and_a_handful_per_marble(tmp_path):
    for machine in ("drnim", "nimatron"):
        (tmp_path / machine).mkdir()
        rig = Rig(tmp_path / machine, machine=machine)
        writes = rig.service.writes
        rig.wait(3600 * 1000)                                 # an idle hour: idle, then the attract lamps
        assert rig.machine.attract
        assert rig.service.writes == writes, "%s wrote %d times in an idle hour" % (
            machine, rig.service.writes - writes)
    (tmp_path / "marble").mkdir()
    rig = Rig(tmp_path / "marble", equalizer=False)
    writes = rig.service.writes
    rig.take(1)
    assert 1 <= rig.service.writes - writes <= 3, "a marble: the release and the marble"


# --- 4. one check of the whole configuration -----------------------------------------------------

def nimatron_map(tmp_path, rows=4, lamps=7):
    text = (ROOT / "hardware" / "nimatron" / "pinmap.toml").read_text()
    text = text.replace("lamps_per_row = 7", "lamps_per_row = %d" % lamps)
    path = tmp_path / "pinmap.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("settings,words", [
    ({"attract_step_ms": 0}, "nimatron.attract_step_ms: must be a whole number from 50 to 86400000, not 0"),
    ({"rows": 5}, "nimatron.rows: 5, but the pin map"),
    ({"lamps": 9}, "nimatron.lamps: 9, but the pin map"),
    ({"idle_ms": 10**10}, "nimatron.idle_ms: must be a whole number from 1 to 86400000"),
])
def test_nimatron_settings_the_wiring_cannot_carry_are_refused(tmp_path, settings, words):
    config = write_config(tmp_path, "nimatron", **settings)
    for run, argv in ((command, ["config", "check", str(config)]),
                      (process, ["run", "--config", str(config), "--pin-factory", "mock"])):
        result = run(*argv)
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and words in result.stderr, result.stderr


def test_a_map_with_fewer_lamps_than_the_game_is_refused(tmp_path):
    config = write_config(tmp_path, "nimatron")
    config.write_text(config.read_text().replace("[service]", '[service]\npinmap = "%s"' % nimatron_map(tmp_path,
                                                                                                        lamps=3)))
    result = command("config", "check", str(config))
    assert result.returncode == 2 and "nimatron.lamps: 7, but the pin map" in result.stderr


def test_three_rows_on_a_four_row_console_plays_and_ignores_the_fourth_button(tmp_path):
    rig = Rig(tmp_path, machine="nimatron", rows=3, openings=[[1, 2, 3]], opening="first")
    rig.press("row4")                                        # wired, but not in this game: nothing happens
    assert rig.machine.rows == [1, 2, 3]
    rig.press("row3")
    assert rig.machine.rows == [1, 2, 2]


@pytest.mark.parametrize("service,words", [
    ({"heartbeat_s": 10**10}, "service.heartbeat_s: must be a whole number from 1 to 86400"),
    ({"release_pulse_ms": 0}, "service.release_pulse_ms: must be a whole number from 1"),
    ({"state_dir": "FILE"}, "service.state_dir: %s is a file, not a folder"),
    ({"state_dir": "a\\u0000b"}, "service.state_dir: the path holds a NUL character"),
])
def test_service_settings_and_paths_are_checked(tmp_path, service, words):
    (tmp_path / "FILE").write_text("not a folder")
    config = write_config(tmp_path)
    lines = config.read_text().splitlines()
    for key, value in service.items():
        lines = [line for line in lines if not line.startswith(key)]
        value = value.replace("FILE", str(tmp_path / "FILE")) if isinstance(value, str) else value
        lines.insert(1, '%s = "%s"' % (key, value) if isinstance(value, str) else "%s = %d" % (key, value))
    config.write_text("\n".join(lines) + "\n")
    result = command("config", "check", str(config))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert words.replace("%s", str(tmp_path / "FILE")) in result.stderr


def test_config_check_on_something_that_is_not_a_readable_file(tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    for path, words in ((tmp_path, "not a regular file"), (fifo, "not a regular file"),
                        (tmp_path / ("x" * 300), "File name too long"), (tmp_path / "none.toml", "no such file")):
        result = command("config", "check", str(path))
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and words in result.stderr, result.stderr


# The property: whatever passes `config check` starts and plays on mock pins.
VALUES = st.one_of(st.integers(-5, 10**9), st.sampled_from([0, 1, 50, 300, 86400000, 86400001]), st.booleans(),
                   st.sampled_from(["random", "first", "player", "machine", "either", "strategy", "last-wins",
                                    "perfect", "fallible:0.2", "nimx", "sinclair", "RRL", "LLX", "auto"]))
DRNIM_KEYS = ["marbles", "capacity", "rule", "flip_flops", "equalizer", "equalizer_model", "first", "decide",
              "opponent", "lenient", "seed", "pace_ms", "release_timeout_ms", "release_retries", "idle_ms",
              "attract_after_game_ms", "attract_step_ms"]
NIMATRON_KEYS = ["rows", "lamps", "rule", "opening", "first", "opponent", "seed", "think_ms", "pace_ms", "idle_ms",
                 "attract_after_game_ms", "attract_step_ms"]


@st.composite
def configurations(draw):
    machine = draw(st.sampled_from(["drnim", "nimatron"]))
    keys = DRNIM_KEYS if machine == "drnim" else NIMATRON_KEYS
    chosen = draw(st.dictionaries(st.sampled_from(keys), VALUES, max_size=5))
    if machine == "nimatron" and draw(st.booleans()):
        chosen["openings"] = draw(st.lists(st.lists(st.integers(0, 8), min_size=1, max_size=5), min_size=1,
                                           max_size=2))
    return machine, chosen


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=configurations())
def test_whatever_config_check_accepts_starts_and_plays(tmp_path_factory, case):
    machine, chosen = case
    tmp_path = tmp_path_factory.mktemp("config")
    path = write_config(tmp_path, machine, **chosen)
    if main(["config", "check", str(path)], out=io.StringIO()) != 0:
        return
    rig = Rig(tmp_path, machine=machine, **chosen)
    for role in sorted(rig.pinmap.inputs):
        if role != "marble_sensor":
            rig.press(role)
        rig.wait(5000)
    assert rig.machine.mode in ("play", "over")
    rig.service.stop()


# --- 5. read-only commands change nothing --------------------------------------------------------

def test_status_on_a_damaged_save_says_so_and_renames_nothing(tmp_path):
    write_config(tmp_path)
    (tmp_path / "state").mkdir()
    saved = tmp_path / "state" / "game.json"
    saved.write_text('{"machine": "drnim", "config": {}, "state": null}')
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("No heartbeat in ") and lines[1].startswith("The saved game %s is damaged (" % saved)
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["game.json"]
    assert saved.read_text() == '{"machine": "drnim", "config": {}, "state": null}'


# --- 6. every number typed is parsed once, safely -----------------------------------------------

@pytest.mark.parametrize("argv,words", [
    (["solve", "nim", "3", "²"], "HEAPS: heap 2 is '²': it must be a whole number"),
    (["solve", "nim", "3", "9" * 5000], "HEAPS: heap 2 has 5000 digits: a heap has at most 100"),
    (["play", "drnim", "--seed", "²"], "argument --seed: must be a whole number"),
    (["--simulate", "--jam-rate", "nan", "--autoplay", "1"], "argument --jam-rate: must be a number from 0 to 1"),
    (["--simulate", "--glitch-rate", "inf", "--autoplay", "1"], "argument --glitch-rate: must be a number"),
    (["--simulate", "--speed", "nan"], "argument --speed: must be a number from 0.1 to 100, not 'nan'"),
    (["--simulate", "--script", ""], "--script: give the path of a script file"),
    (["--simulate", "--autoplay", "²"], "argument --autoplay: must be a whole number, 1 or more"),
])
def test_bad_numbers_and_paths_get_one_line(argv, words):
    result = command(*argv)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert len(result.stderr) < 300


def test_typed_moves_and_the_sinclair_prompt_refuse_strange_digits():
    result = command("play", "sinclair", "--seed", "1", stdin="²\n" + "9" * 5000 + "\n7\n²\n1\n1\n1\n1\n")
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert result.stdout.count("How many matchsticks?") == 3
    assert "'²' is not a move" in result.stdout


def test_a_script_that_is_not_utf8_is_named_with_its_line(tmp_path):
    script = tmp_path / "bad.sim"
    script.write_bytes(b"game drnim\n\xff\xfe\n")
    result = command("--simulate", "--script", str(script))
    assert result.returncode == 2 and result.stderr.strip() == "controller: --script: %s:2: not UTF-8 text" % script


def test_a_script_saved_as_utf16_is_named_so_with_what_to_do(tmp_path):
    """Windows Notepad's "Unicode" is UTF-16: the writer is told to save as UTF-8, not sent to line 1."""
    script = tmp_path / "notepad.sim"
    script.write_bytes("game drnim\npress trigger\n".encode("utf-16"))
    result = command("--simulate", "--script", str(script))
    assert result.returncode == 2 and result.stderr == "controller: --script: %s: UTF-16 text: save it as UTF-8\n" % script


def test_a_day_long_wait_runs_in_simulated_time():
    from controller.sim.script import run_script
    assert run_script("game drnim\nwait 86400s\nexpect attract yes\npress trigger\nexpect rail 14\n") == []


def test_a_day_long_wait_on_the_core_alone_runs_in_simulated_time():
    """Found by bench/fuzz.py: the core's script world stepped every attract
    lamp of a long wait (216,000 steps for a day)."""
    from controller.core import scenario
    played = scenario.run("game nimatron\nwait 86400s\nexpect attract yes\npress row4\nexpect attract no\n")
    assert played.failures == []
    assert len(played.trace) < 100, "a day's wait stepped lamp by lamp: %d events" % len(played.trace)


@pytest.mark.parametrize("what", ["config", "pin map"])
def test_a_number_of_thousands_of_digits_in_a_toml_file_gets_one_line(tmp_path, what):
    """Found by bench/fuzz.py: tomllib refuses such a number with a bare ValueError."""
    path = tmp_path / "file.toml"
    if what == "config":
        path.write_text("[service]\nheartbeat_s = %s\n" % ("9" * 5000))
        result = command("config", "check", str(path))
        assert result.returncode == 2, result.stderr
        words = "%s: a number too long to read (more than 4300 digits)" % path
        assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    else:
        path.write_text('machine = "drnim"\nx = %s\n' % ("9" * 5000))
        result = subprocess.run([sys.executable, "-m", "controller.hardware.pinmap", str(path)], capture_output=True,
                                text=True, cwd=ROOT, timeout=60)
        assert result.returncode == 1, result.stderr
        assert result.stdout.strip() == "%s:1: TOML syntax: a number too long to read (more than 4300 digits)" % path


def test_a_pin_map_nested_thousands_deep_is_refused_in_one_line(tmp_path):
    path = tmp_path / "pinmap.toml"
    path.write_text('machine = "drnim"\nx = ' + "[" * 3000 + "1" + "]" * 3000 + "\n")
    result = subprocess.run([sys.executable, "-m", "controller.hardware.pinmap", str(path)], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 1 and result.stdout.strip() == "%s:1: TOML syntax: values nested too deeply" % path
