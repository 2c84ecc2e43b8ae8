"""One Raspberry Pi between two exhibits: its own machine (the service) and a Pico on its USB
(drnim-monitor@.service), or two Picos, all with the one /etc/drnim-controller/config.toml.
Each board named in [boards] is an exhibit of its own: its own name on the museum's broker, its own
telemetry queue and statistics; a board not named is the configuration's own exhibit, as before
[boards], and a second one is refused (controller/service/boards.py)."""

import io
import json
import os
import re
import shutil
import sqlite3
import time

import pytest

from broker_rig import Broker
from controller.cli import main
from controller.service.config import load_config
from controller.service.stats import Statistics, summary
from controller.telemetry.publisher import Telemetry
from serial_rig import Port
from service_rig import write_config
from test_firmware_monitor import GAME, HELLO, Running
from test_fleet import follow, waiting
from test_systemd import MONITOR, make_root, run, systemd_analyze, systemd_tool

# Two Picos as udev names them, whichever USB socket each is in.
FIRST = "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"
SECOND = "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f36-if00"


# The names the museum gives them in [boards].
NAMES = {FIRST: "hall2-nimatron", SECOND: "hall2-drnim"}


def boards(tmp_path):
    return "[boards]\n" + "".join('"%s" = "%s"\n' % (tmp_path / port, name) for port, name in NAMES.items())


def museum_config(tmp_path, more=""):
    """The Pi's configuration: its own Dr. Nim, reported as "hall2"."""
    config = write_config(tmp_path)
    config.write_text(config.read_text() + '[telemetry]\nclient_id = "hall2"\n' + more)
    (tmp_path / "state").mkdir()
    return config


def plays_one_game(monitor, port):
    monitor.until("Ctrl-C stops")
    assert port.lines() == ['{"id":"monitor","kind":"state"}'], "the monitor has the port open"
    port.write(HELLO + "".join(line + "\n" for line in GAME))
    monitor.until("FAULT jam")


def watched_one_game(port, config):
    """One game of the board on `port` watched by a monitor with `config`, the port closed after; what the
    monitor printed."""
    monitor = Running("--port", port.path, "--config", str(config))
    try:
        plays_one_game(monitor, port)
    finally:
        assert monitor.stop() == 0
        port.close()
    return monitor.text["out"].decode()


def test_two_picos_and_the_pi_are_three_exhibits_on_the_broker(tmp_path):
    """With one configuration, the two monitors and the Pi's service connected as one client_id:
    the broker threw each off as the next connected, every second, and all three read and sent one
    telemetry queue."""
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker")
    try:
        follower, fleet, _ = follow(broker, "nim-museum", tmp_path)
        config = museum_config(tmp_path, 'enabled = true\nhost = "127.0.0.1"\nport = %d\n' % broker.port
                               + boards(tmp_path))
        pi = Telemetry(load_config(str(config)).telemetry, "drnim", str(tmp_path / "state"), lambda line: None)
        ports = [Port(tmp_path / FIRST), Port(tmp_path / SECOND)]
        monitors = [Running("--port", port.path, "--config", str(config)) for port in ports]
        try:
            for monitor, port in zip(monitors, ports):
                plays_one_game(monitor, port)
            pi.status({"mode": "play", "fault": None})
            pi.game("player", 3, 40, {})
            names = ("hall2", "hall2-drnim", "hall2-nimatron")
            waiting(follower, lambda: all(fleet.exhibits.get(name, {}).get("today", {}).get("games") == 1
                                          for name in names), 15, "a game of each exhibit")
            assert sorted(fleet.exhibits) == list(names)
            assert all(fleet.exhibits[name]["online"] for name in names)
        finally:
            for monitor, port in zip(monitors, ports):
                assert monitor.stop() == 0
                port.close()
            pi.close()
        for monitor in monitors:
            assert "dropped the connection" not in monitor.text["err"].decode(), monitor.text["err"]
        db = sqlite3.connect(str(tmp_path / "follower.sqlite"))
        # each board's jam came after its game: the follower takes it in as it comes
        waiting(follower, lambda: len(db.execute("select exhibit from faults").fetchall()) == 2, 15,
                "a fault of each board")
        assert sorted(db.execute("select exhibit, winner from games").fetchall()) == [
            ("hall2", "player"), ("hall2-drnim", "machine"), ("hall2-nimatron", "machine")]
        assert sorted(db.execute("select exhibit from faults").fetchall()) == [("hall2-drnim",), ("hall2-nimatron",)]
        follower.stop()
    finally:
        broker.stop()


def test_each_boards_games_are_counted_apart_from_the_pis_own(tmp_path):
    """The two boards' games went into the Pi's own statistics, where `controller stats` counted a
    Nimatron's games as Dr. Nim's exhibit's, and two boards' as one."""
    config = museum_config(tmp_path, boards(tmp_path))
    ports = [Port(tmp_path / FIRST), Port(tmp_path / SECOND)]
    monitors = [Running("--port", port.path, "--config", str(config)) for port in ports]
    try:
        plays_one_game(monitors[0], ports[0])
        plays_one_game(monitors[1], ports[1])
        ports[1].write('{"at":20000,"kind":"game_over","machine":"drnim","turns":[],"winner":"player"}\n')
        monitors[1].until("game over: won by player")     # a second game on the second board
    finally:
        for monitor, port in zip(monitors, ports):
            assert monitor.stop() == 0
            port.close()
    first, second = (tmp_path / "state" / "boards" / name / "stats.sqlite"
                     for name in ("hall2-nimatron", "hall2-drnim"))
    assert not (tmp_path / "state" / "stats.sqlite").exists(), "the Pi's own statistics hold none of them"
    assert (summary(str(first))["games"], summary(str(second))["games"]) == (1, 2)
    assert "Watching the board on %s, the exhibit hall2-nimatron; its games go into %s." % (
        ports[0].path, first) in monitors[0].text["out"].decode()
    out = io.StringIO()
    assert main(["stats", "--config", str(config), "--file", str(second)], out=out) == 0
    assert "Statistics: %s\n" % second in out.getvalue() and "Games: 2 " in out.getvalue()


def kept_games(path, *machines):
    """A statistics file with a game of each of `machines`, as a monitor keeps it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stats = Statistics(str(path))
    for machine in machines:
        stats.game(machine, "machine", 40)
    stats.close()


def csv_games(out):
    """{(exhibit, machine): games} of `controller stats --csv`'s rows."""
    games = {}
    for row in out.getvalue().splitlines()[1:]:
        cells = row.split(",")
        games[(cells[2], cells[3])] = games.get((cells[2], cells[3]), 0) + int(cells[4])
    return games


def test_stats_reads_a_boards_exhibit_by_its_name_and_labels_its_rows_with_it(tmp_path, capsys):
    """A board's statistics were read with --file and the path under the state folder, and their CSV rows
    were labelled with the Pi's own exhibit and machine ("hall2", "drnim", and a day's row of the Pi's
    machine with no games beside them), so that a museum's sheet counted the Nimatron's games as the Pi's
    Dr. Nim's. --exhibit names a board as [boards] does; a board's file read with --file is its exhibit."""
    config = museum_config(tmp_path, boards(tmp_path))
    board_file = tmp_path / "state" / "boards" / "hall2-nimatron" / "stats.sqlite"
    kept_games(board_file, "nimatron", "nimatron")
    kept_games(tmp_path / "state" / "stats.sqlite", "drnim")

    out = io.StringIO()
    assert main(["stats", "--config", str(config), "--exhibit", "hall2-nimatron"], out=out) == 0
    assert out.getvalue().startswith("Statistics: %s, the exhibit hall2-nimatron\n" % board_file)
    assert "Games: 2 " in out.getvalue()
    for chosen in (["--exhibit", "hall2-nimatron"], ["--file", str(board_file)]):
        out = io.StringIO()
        assert main(["stats", "--config", str(config), "--csv", "--period", "1d"] + chosen, out=out) == 0
        assert csv_games(out) == {("hall2-nimatron", "nimatron"): 2}, out.getvalue()
    out = io.StringIO()
    assert main(["stats", "--config", str(config), "--csv", "--period", "1d"], out=out) == 0
    assert csv_games(out) == {("hall2", "drnim"): 1}, out.getvalue()

    assert main(["stats", "--config", str(config), "--exhibit", "hall3"], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--exhibit: hall3: %s has no such exhibit: its own is hall2, and [boards] " \
        "names hall2-drnim, hall2-nimatron" % config in err, err


def status_of(config, *more):
    out = io.StringIO()
    code = main(["status", "--config", str(config)] + list(more), out=out)
    return code, out.getvalue()


def test_a_boards_monitor_is_checked_with_controller_status_as_the_pis_service_is(tmp_path):
    """A Pi that watches a Pico said 'No heartbeat: the service is not running' to `controller status`
    and CRITICAL to the museum's monitoring however the board played, and nothing of a board [boards]
    names. Each board's monitor now writes a heartbeat: the board, its game and its fault."""
    config = museum_config(tmp_path, '[boards]\n"%s" = "hall2-nimatron"\n' % (tmp_path / FIRST))
    config.write_text(config.read_text().replace("stuck_after_s = 5", "stuck_after_s = 5\nheartbeat_s = 1"))
    ports = [Port(tmp_path / FIRST), Port(tmp_path / SECOND)]
    monitors = [Running("--port", port.path, "--config", str(config)) for port in ports]
    try:
        for monitor, port in zip(monitors, ports):
            plays_one_game(monitor, port)
        ports[1].write('{"at":9000,"kind":"status","status":{"attract":false,"fault":"jam","loaded":2,"mode":"play",'
                       '"rail":1,"turn":"machine","winner":null}}\n')
        # each monitor writes what its board said at its next heartbeat, a second away
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not ("Fault: jam" in status_of(config)[1] and "Game: drnim, over" in
                                                  status_of(config, "--exhibit", "hall2-nimatron")[1]):
            time.sleep(0.1)

        code, said = status_of(config)          # the configuration's own exhibit: the board not named
        lines = said.splitlines()
        assert code == 0 and lines[0].startswith("Board: on %s, there for " % ports[1].path), said
        assert lines[1:3] == ["Game: drnim, play, 1 of 2 marbles on the rail, machine's turn.",
                              "Fault: jam: a released marble never reached the gate sensor: free it (it counts as it "
                              "passes and play goes on), or put every marble back on the rail and press New game."]
        assert re.fullmatch(r"Last heartbeat: \d+ s ago \(pid %d, the board's monitor\)\." % monitors[1].process.pid,
                            lines[3]), said
        code, said = status_of(config, "--check")
        assert code == 2 and said.startswith("CRITICAL - jam: a released marble"), said

        code, said = status_of(config, "--exhibit", "hall2-nimatron", "--check")
        assert code == 0 and said.startswith("OK - drnim, over, 0 of 2 marbles on the rail, won by machine; "
                                             "heartbeat "), said
    finally:
        for monitor, port in zip(monitors, ports):
            assert monitor.stop() == 0
            port.close()
    code, said = status_of(config, "--exhibit", "hall2-nimatron")
    assert said == "No heartbeat in %s: the board's monitor is not running.\n" % (
        tmp_path / "run" / "boards" / "hall2-nimatron" / "status.json")
    code, said = status_of(config)          # neither the board's monitor nor the service runs
    assert said.startswith("No heartbeat in %s: the service is not running, so the exhibit does not play. " % (
        tmp_path / "run" / "status.json"))


def test_a_board_not_on_its_port_is_critical_once_a_heartbeat_would_be_stale(tmp_path):
    """A pulled cable, a board without power: the monitor runs and waits, and the exhibit is dark."""
    config = museum_config(tmp_path, '[boards]\n"/dev/ttyACM1" = "hall2-nimatron"\n')
    folder = tmp_path / "run" / "boards" / "hall2-nimatron"
    folder.mkdir(parents=True)
    beat = {"pid": os.getpid(), "heartbeat": time.time(), "monotonic": time.monotonic(), "machine": "nimatron",
            "exhibit": "hall2-nimatron", "service_faults": {},
            "board": {"port": "/dev/ttyACM1", "there": False, "gone": "No such file or directory", "for_s": 20}}
    (folder / "status.json").write_text(json.dumps(beat))
    code, said = status_of(config, "--exhibit", "hall2-nimatron", "--check")
    assert code == 0 and re.fullmatch(r"OK - the board's monitor runs; heartbeat \d+ s ago \| heartbeat_age=[0-9.]+s;;25;0\n",
                                      said), said
    beat["board"]["for_s"] = 26
    (folder / "status.json").write_text(json.dumps(beat))
    code, said = status_of(config, "--exhibit", "hall2-nimatron", "--check")
    assert code == 2 and said.startswith("CRITICAL - the board on /dev/ttyACM1 is not there (No such file or "
                                         "directory) for 26 s: its cable, its power | "), said
    assert status_of(config, "--exhibit", "hall2-nimatron")[1].startswith(
        "Board: on /dev/ttyACM1, not there for 26 s (No such file or directory): the monitor waits for it")


def test_a_boards_status_of_another_shape_is_said_in_one_line_not_a_traceback(tmp_path):
    """The board's status is what came on its serial line: another firmware's may lack what a game has."""
    config = museum_config(tmp_path, '[boards]\n"/dev/ttyACM1" = "hall2-nimatron"\n')
    folder = tmp_path / "run" / "boards" / "hall2-nimatron"
    folder.mkdir(parents=True)
    (folder / "status.json").write_text(json.dumps({
        "pid": os.getpid(), "heartbeat": time.time(), "monotonic": time.monotonic(), "machine": "drnim",
        "board": {"port": "/dev/ttyACM1", "there": True, "gone": None, "for_s": 3}, "mode": "play", "fault": None}))
    code, said = status_of(config, "--exhibit", "hall2-nimatron")
    assert code == 0 and said.splitlines()[1] == "Game: the board's last status cannot be read (KeyError: 'turn'): " \
        "another firmware's?", said
    code, said = status_of(config, "--exhibit", "hall2-nimatron", "--check")
    assert code == 3 and said.startswith("UNKNOWN - "), said


def test_a_board_named_in_the_configuration_is_that_exhibit(tmp_path):
    port = Port(tmp_path / FIRST)
    config = museum_config(tmp_path, '[boards]\n"%s" = "hall2-nimatron"\n' % port.path)
    said = watched_one_game(port, config)
    assert "the exhibit hall2-nimatron;" in said
    assert summary(str(tmp_path / "state" / "boards" / "hall2-nimatron" / "stats.sqlite"))["games"] == 1


def test_a_board_not_named_is_the_configurations_exhibit_as_before_an_update(tmp_path):
    """A Pi that watches one board in place of its own machine (the one exhibit install.sh sets up) keeps
    its statistics and its name on the broker after an update that brought [boards]."""
    port = Port(tmp_path / FIRST)
    config = museum_config(tmp_path)
    said = watched_one_game(port, config)
    assert "the exhibit hall2; its games go into %s." % (tmp_path / "state" / "stats.sqlite") in said
    assert summary(str(tmp_path / "state" / "stats.sqlite"))["games"] == 1
    assert not (tmp_path / "state" / "boards").exists()


def test_a_second_board_not_named_is_refused_in_one_line_and_the_first_plays_on(tmp_path):
    """Two boards as one exhibit would throw each other off the broker and send each other's games."""
    config = museum_config(tmp_path)
    ports = [Port(tmp_path / FIRST), Port(tmp_path / SECOND)]
    first = Running("--port", ports[0].path, "--config", str(config))
    try:
        first.until("Ctrl-C stops")
        second = Running("--port", ports[1].path, "--config", str(config))
        assert second.process.wait(timeout=20) == 2
        second.stop()
        err = second.text["err"].decode()
        assert err.count("\n") == 1, err
        assert ("the monitor of the board on %s (pid %d) runs the exhibit hall2, whose files are in %s: name the "
                "board on %s in [boards], as \"%s\" = \"hall2-2\", for an exhibit of its own"
                % (ports[0].path, first.process.pid, tmp_path / "state", ports[1].path, ports[1].path)) in err, err
        assert ports[1].lines() == [], "the second never opened its board's port"
        plays_one_game(first, ports[0])
    finally:
        assert first.stop() == 0
        for port in ports:
            port.close()
    assert summary(str(tmp_path / "state" / "stats.sqlite"))["games"] == 1


def test_a_second_monitor_of_a_named_board_is_told_to_follow_or_stop_the_first(tmp_path):
    """A manager who started a monitor by hand on a board that drnim-monitor@ already watched was told to
    name the board in [boards], where it was named already; the way out is the first monitor."""
    port = Port(tmp_path / FIRST)
    config = museum_config(tmp_path, '[boards]\n"%s" = "hall2-nimatron"\n' % port.path)
    first = Running("--port", port.path, "--config", str(config))
    try:
        first.until("Ctrl-C stops")
        second = Running("--port", port.path, "--config", str(config))
        assert second.process.wait(timeout=20) == 2
        second.stop()
        err = second.text["err"].decode()
        unit = "drnim-monitor@$(systemd-escape --path %s).service" % port.path
        assert err.count("\n") == 1, err
        assert ("the monitor of the board on %s (pid %d) already watches this board, the exhibit hall2-nimatron, and "
                "a board has one monitor: follow that one (journalctl -u %s -f), or stop it first (sudo systemctl "
                "stop %s)" % (port.path, first.process.pid, unit, unit)) in err, err
    finally:
        assert first.stop() == 0
        port.close()


def test_the_pis_service_refused_by_a_boards_monitor_is_told_what_to_stop_or_name(tmp_path, capfd):
    """The Pi's own machine started beside a board watched as the configuration's own exhibit: it was
    told to stop 'another controller service' with systemctl stop drnim-controller, itself; now it names
    the monitor, its board, and the two ways out."""
    port = Port(tmp_path / FIRST)
    config = museum_config(tmp_path)
    monitor = Running("--port", port.path, "--config", str(config))
    try:
        monitor.until("Ctrl-C stops")
        assert main(["run", "--config", str(config)], out=io.StringIO()) == 1
        err = capfd.readouterr().err
        assert err.count("\n") == 1, err
        assert ("the monitor of the board on %s (pid %d) runs this exhibit, whose files are in %s: name that board "
                "in [boards] of %s for an exhibit of its own beside this machine, or stop the monitor (sudo systemctl "
                "disable --now drnim-monitor@$(systemd-escape --path %s).service)"
                % (port.path, monitor.process.pid, tmp_path / "state", config, port.path)) in err, err
    finally:
        assert monitor.stop() == 0
        port.close()


def test_a_board_given_the_pis_own_name_keeps_the_pis_statistics(tmp_path):
    """A Pi that watches one board in place of its own machine, as before boards had folders: its
    statistics and its name on the broker stay what they were, with one line in [boards]."""
    port = Port(tmp_path / FIRST)
    config = museum_config(tmp_path, '[boards]\n"%s" = "hall2"\n' % port.path)
    watched_one_game(port, config)
    out = io.StringIO()
    assert main(["stats", "--config", str(config)], out=out) == 0
    assert "Wins: machine 1" in out.getvalue()


@pytest.mark.parametrize("boards,said", [
    ('"/dev/ttyACM0" = "../hall2"', 'boards."/dev/ttyACM0": \'../hall2\': the board\'s exhibit name: 1 to 64 '
                                     'letters, digits, - _ and ., beginning with a letter or digit'),
    ('"/dev/ttyACM0" = "nimatron"\n"/dev/ttyACM1" = "nimatron"',
     'boards."/dev/ttyACM1": \'nimatron\' is already the name of the board on /dev/ttyACM0: each board needs its own'),
])
def test_a_bad_board_name_is_one_line_naming_its_key(tmp_path, capsys, boards, said):
    config = museum_config(tmp_path, "[boards]\n%s\n" % boards)
    assert main(["firmware", "monitor", "--port", "/dev/ttyACM0", "--config", str(config)], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "%s: %s" % (config, said) in err, err


# --- the units: one instance per board, named by its stable /dev/serial/by-id link ---------------
def test_two_boards_by_id_are_two_instances_that_each_watch_their_own_port(tmp_path):
    """systemd itself expands the instance's %I: an ExecStartPre=/%I added to each instance (it names no
    program) makes verify say which path it would run, which is the port ExecStart gives --port."""
    analyze = systemd_analyze()
    root, unit = make_root(tmp_path)
    shutil.copyfile(MONITOR, unit.parent / MONITOR.name)
    instances = {}
    for name in (FIRST, SECOND):
        port = "/dev/serial/by-id/" + name
        escaped = run(systemd_tool("systemd-escape"), "--path", port).stdout.strip()
        instance = "drnim-monitor@%s.service" % escaped
        probe = unit.parent / (instance + ".d") / "probe.conf"
        probe.parent.mkdir()
        probe.write_text("[Service]\nExecStartPre=/%I\n")
        instances[instance] = port
    result = run(analyze, "verify", f"--root={root}", "--man=no", "--generators=no", *instances)
    said = sorted(line for line in (result.stdout + result.stderr).splitlines() if line)
    assert said == sorted("%s: Command %s is not executable: No such file or directory" % item
                          for item in instances.items())

