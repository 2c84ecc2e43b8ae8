"""`controller status --check` and `--json`, as a museum's monitoring sees them (Nagios, Icinga, Zabbix, a
cron job): the service on gpiozero's MockFactory (service_rig) writes its heartbeat, and the command runs
in this process. `--check` is one line, OK/WARNING/CRITICAL/UNKNOWN - ..., at the exit status 0/1/2/3;
`--json` the same report as one object, "format": 1, at exit status 0."""

import io
import json
import os
import re
import subprocess
import sys
import time

from service_rig import Rig, write_config
from test_power import PiTree
from controller.cli import main


def checked(tmp_path, *more):
    """(exit status, the line) of `controller status --check`, as a monitor gets them."""
    out = io.StringIO()
    code = main(["status", "--config", str(tmp_path / "config.toml"), "--check"] + list(more), out=out)
    assert out.getvalue().count("\n") == 1, out.getvalue()
    return code, out.getvalue()


def reported(tmp_path):
    """`controller status --json`'s object; its exit status is 0 whatever it says."""
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml"), "--json"], out=out) == 0
    return json.loads(out.getvalue())


def plain(tmp_path):
    """`controller status` without either: its exit status stays 0, whatever the exhibit does."""
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    return out.getvalue()


def test_an_exhibit_that_plays_is_ok_with_its_game_in_a_few_words(tmp_path):
    rig = Rig(tmp_path, equalizer=False)
    rig.take(1)
    code, line = checked(tmp_path)
    assert code == 0 and line.startswith("OK - drnim, play, 14 of 15 marbles on the rail, player's turn; "
                                         "heartbeat 0 s ago | heartbeat_age=0."), line
    assert line.endswith("s;;25;0\n"), line             # the age against the stale limit, for a monitor's graph
    report = reported(tmp_path)
    assert (report["format"], report["state"], report["exit_status"], report["problems"]) == (1, "OK", 0, [])
    assert report["game"] == {"machine": "drnim", "mode": "play", "turn": "player", "winner": None, "fault": None,
                              "attract": False, "rail": 14, "loaded": 15}
    service = report["service"]
    assert service["running"] and service["pid"] == os.getpid() and service["faults"] == {}
    assert (service["heartbeat_s"], service["stale_after_s"]) == (5, 25) and service["heartbeat_age_s"] < 5
    assert (report["power"], report["sound"], report["telemetry"]) == (None, None, None)
    assert plain(tmp_path).startswith("Game: drnim, play, 14 of 15 marbles on the rail, player's turn.\n")
    (tmp_path / "state" / "game.json").write_text("{")  # damaged while it plays: the next save mends it
    rig.service.heartbeat()
    code, line = checked(tmp_path)
    assert code == 1 and line.startswith("WARNING - the saved game %s is damaged (not JSON " % (
        tmp_path / "state" / "game.json")), line
    assert reported(tmp_path)["game"]["rail"] == 14     # the running machine's, from its heartbeat
    rig.service.stop()


def test_a_jam_is_critical_and_says_what_clears_it_while_plain_status_still_exits_0(tmp_path):
    rig = Rig(tmp_path)
    rig.jam = 10
    rig.press("trigger")
    rig.wait(20000)
    rig.service.heartbeat()
    code, line = checked(tmp_path)
    assert code == 2 and line.startswith(
        "CRITICAL - jam: a released marble never reached the gate sensor: free it (it counts as it passes and play "
        "goes on), or put every marble back on the rail and press New game | heartbeat_age="), line
    report = reported(tmp_path)
    assert report["state"] == "CRITICAL" and report["exit_status"] == 2 and report["game"]["fault"] == "jam"
    assert [(problem["state"], problem["kind"]) for problem in report["problems"]] == [("CRITICAL", "jam")]
    assert "\nFault: jam: " in plain(tmp_path)
    rig.press("new_game")
    assert checked(tmp_path)[0] == 0
    rig.service.stop()


def test_a_heartbeat_older_than_three_beats_and_10_s_is_critical(tmp_path, monkeypatch):
    """The service's process runs but its heartbeat stopped (a loop that pings systemd's watchdog but
    cannot write, a stopped process): 20 s is inside the slack, 2 minutes is not. Plain status says so
    too: it gave the age alone, and a technician read '120 s ago' next to a game as a service at work
    (found by the troubleshooting review)."""
    rig = Rig(tmp_path)
    real_monotonic = time.monotonic
    for old_s, state in ((20, 0), (120, 2)):
        with monkeypatch.context() as then:
            then.setattr(time, "monotonic", lambda: real_monotonic() - old_s)
            rig.service.heartbeat()                     # written old_s seconds ago
        code, line = checked(tmp_path)
        assert code == state, line
        assert ("  Stale: the service writes one every 5 s, and this one is over 25 s old, though its process runs: it "
                "is hung, or cannot write its heartbeat (journalctl -u drnim-controller -n 50 says what it last did).\n"
                in plain(tmp_path)) == bool(state)
    assert line.startswith("CRITICAL - the last heartbeat is 120 s old (pid %d runs; one every 5 s, stale after "
                           "25 s): the service is hung, or cannot write %s | heartbeat_age=120."
                           % (os.getpid(), tmp_path / "run" / "status.json")), line
    assert [problem["kind"] for problem in reported(tmp_path)["problems"]] == ["stale-heartbeat"]
    rig.service.stop()


def test_no_heartbeat_is_critical_a_service_stopped_and_one_that_died(tmp_path):
    rig = Rig(tmp_path, equalizer=False)
    rig.take(1)
    rig.service.heartbeat()
    last = json.loads((tmp_path / "run" / "status.json").read_text())
    rig.service.stop()                                  # a clean stop takes its heartbeat away
    code, line = checked(tmp_path)
    assert (code, line) == (2, "CRITICAL - no heartbeat in %s: the service is not running\n"
                            % (tmp_path / "run" / "status.json"))
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    last["pid"] = int(ended.stdout)                     # a crash or a kill leaves its last heartbeat
    (tmp_path / "run" / "status.json").write_text(json.dumps(last))
    code, line = checked(tmp_path)
    assert (code, line) == (2, "CRITICAL - no heartbeat: the service is not running (the last came from pid %d, "
                               "which has ended)\n" % last["pid"])
    report = reported(tmp_path)
    assert report["state"] == "CRITICAL" and not report["service"]["running"]
    assert report["game"]["rail"] == 14                 # the saved game is still told
    never = tmp_path / "never"
    never.mkdir()
    write_config(never)                                 # a service that never ran: no folder at all
    assert checked(never)[0] == 2


def test_a_fault_of_the_service_s_own_is_a_warning_and_the_worst_problem_leads(tmp_path):
    pi = PiTree(tmp_path)
    rig = Rig(tmp_path, switches={"trigger": True}, power_root=pi.root)
    rig.wait(6000)                                      # the trigger held down for 5 s
    rig.service.heartbeat()
    code, line = checked(tmp_path)
    stuck = r"stuck:trigger: Trigger button \(lower right\) held down since \d\d:\d\d: the button stuck down, or its " \
            r"wire touching ground"
    assert code == 1 and re.match(r"WARNING - %s \| heartbeat_age=" % stuck, line), line
    assert line.endswith(" cpu_celsius=52.0;80\n"), line
    pi.sag(True)
    pi.cpu(83)
    rig.wait(1000)
    rig.service.heartbeat()
    code, line = checked(tmp_path)
    assert code == 1 and re.match(
        r"WARNING - %s; under-voltage now: the Pi's supply fell below about 4.65 V \(episode 1 since the service "
        r"started\); the CPU is at 83 °C, too hot: the firmware slows the Pi down from 80 °C \| " % stuck, line), line
    report = reported(tmp_path)
    assert [problem["kind"] for problem in report["problems"]] == ["stuck:trigger", "under-voltage", "too-hot"]
    assert report["power"]["under_voltage"] and report["power"]["cpu_c"] == 83
    rig.jam = 10
    rig.pin("trigger").held = None
    rig.pin("trigger").drive_high()                     # freed, and read as before
    rig.wait(500)
    rig.press("trigger")
    rig.wait(20000)
    rig.service.heartbeat()
    code, line = checked(tmp_path)
    assert code == 2 and line.startswith("CRITICAL - jam: "), line
    assert "; under-voltage now: " in line              # the warnings follow the critical problem
    rig.service.stop()


def test_a_user_the_service_shuts_out_gets_unknown_naming_the_user_to_run_it_as(tmp_path, monkeypatch):
    """The service keeps its folders to the drnim user: a monitor run as nagios or zabbix, without sudo -u
    drnim, cannot tell, and says so instead of calling the exhibit dead. (The suite runs as root, who may
    read anything: the refusal is made as another user's would be.)"""
    rig = Rig(tmp_path)
    rig.service.heartbeat()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if str(path) == str(tmp_path / "state")
                        else real_access(path, mode))
    code, line = checked(tmp_path)
    assert (code, line) == (3, "UNKNOWN - status: this user may not read the service's folder %s: run it as the "
                               "service's user (sudo -u drnim /opt/drnim-controller/venv/bin/controller status)\n"
                            % (tmp_path / "state"))
    report = reported(tmp_path)
    assert (report["format"], report["state"], report["exit_status"]) == (1, "UNKNOWN", 3)
    assert report["game"] is None and report["service"] is None
    monkeypatch.setattr(os, "access", real_access)
    heartbeat = tmp_path / "run" / "status.json"
    real_open = open

    def as_another_user(path, *args, **kwargs):
        if str(path) == str(heartbeat):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr("builtins.open", as_another_user)
    assert checked(tmp_path) == (3, "UNKNOWN - the heartbeat %s cannot be read (Permission denied)\n" % heartbeat)
    monkeypatch.setattr("builtins.open", real_open)
    beat = json.loads(heartbeat.read_text())
    beat["power"] = {"volts": 5.1}                      # a heartbeat of a shape this command does not know
    heartbeat.write_text(json.dumps(beat))
    assert checked(tmp_path) == (3, "UNKNOWN - the service's heartbeat holds what this command cannot read "
                                    "(KeyError: 'under_voltage')\n")
    rig.service.stop()


def test_a_configuration_the_service_refuses_is_critical(tmp_path):
    """A technician's edit the service refuses (here a typo in a setting's value) leaves the exhibit dark at
    its next start: --check said UNKNOWN, which a museum's monitoring shows as 'cannot tell', not as an
    exhibit that will not play."""
    rig = Rig(tmp_path)
    rig.service.heartbeat()
    config = tmp_path / "config.toml"
    config.write_text(config.read_text().replace("[service]", "[service]\nheartbeat_s = \"five\"", 1))
    number = config.read_text().splitlines().index('heartbeat_s = "five"') + 1
    code, line = checked(tmp_path)
    assert code == 2 and line.startswith("CRITICAL - the configuration is refused, so the service cannot start (or "
                                         "restart) with it: %s:%d: service.heartbeat_s: " % (config, number)), line
    assert line.endswith(" (controller config check)\n"), line
    report = reported(tmp_path)
    assert (report["state"], [problem["kind"] for problem in report["problems"]]) == ("CRITICAL", ["config-refused"])
    rig.service.stop()


def test_a_wrong_argument_is_unknown_for_a_monitor_and_a_usage_error_otherwise(tmp_path, capsys):
    code, line = checked(tmp_path, "--warning", "5")
    assert (code, line) == (3, "UNKNOWN - controller status: unrecognized arguments: --warning 5\n")
    code, line = checked(tmp_path / "elsewhere")
    assert (code, line) == (3, "UNKNOWN - --config: %s: no such file\n" % (tmp_path / "elsewhere" / "config.toml"))
    assert main(["status", "--json", "--warning", "5"], out=io.StringIO()) == 2
    assert capsys.readouterr().err == "controller: unrecognized arguments: --warning 5\n"


def test_a_pi_that_watches_a_board_is_told_to_start_the_boards_monitor_not_the_service(tmp_path, monkeypatch):
    """A Pi that watches a board, whose monitor had stopped, was told 'the service is not running ... Start it:
    sudo systemctl start drnim-controller', which starts the Pi's own machine on pins nothing is wired to
    (found by the review of the status change). The monitor's heartbeat, the last written, is read; with
    neither there (a clean stop takes it away), the monitor systemd starts at boot in the service's place is
    the one to start."""
    import controller.status
    write_config(tmp_path)
    wants = tmp_path / "wants"
    wants.mkdir()
    unit = "drnim-monitor@dev-ttyACM0.service"
    (wants / unit).symlink_to("/etc/systemd/system/drnim-monitor@.service")
    monkeypatch.setattr(controller.status, "ENABLED", str(wants))
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    said = out.getvalue()
    assert said.startswith("No heartbeat in %s: the board's monitor %s is not running, so the exhibit does not "
                           "play. Start it: sudo systemctl start '%s'; why it stopped: journalctl -u '%s' -b.\n"
                           % (tmp_path / "run" / "status.json", unit, unit, unit)), said
    code, line = checked(tmp_path)
    assert code == 2 and "the board's monitor %s is not running" % unit in line, line
    (wants / "drnim-controller.service").symlink_to("/etc/systemd/system/drnim-controller.service")
    out = io.StringIO()
    main(["status", "--config", str(tmp_path / "config.toml")], out=out)
    assert "the service is not running, so the exhibit does not play. Start it: sudo systemctl start " \
           "drnim-controller;" in out.getvalue()
    # the monitor's heartbeat, left by a monitor that ended (a crash leaves it): read, as the last written
    from controller.service.boards import board_runtime_folder
    from controller.service.config import load_config
    config = load_config(str(tmp_path / "config.toml"))
    board = os.path.join(board_runtime_folder(config, config.telemetry["client_id"]), "status.json")
    os.makedirs(os.path.dirname(board))
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    with open(board, "w") as f:
        json.dump({"pid": dead.pid, "heartbeat": time.time(), "board": {"port": "/dev/ttyACM0", "there": True,
                                                                         "gone": None, "for_s": 5}}, f)
    out = io.StringIO()
    main(["status", "--config", str(tmp_path / "config.toml")], out=out)
    assert out.getvalue().startswith("No heartbeat in %s: the board's monitor is not running (the last, " % board), \
        out.getvalue()


def test_a_heartbeat_of_another_shape_is_said_in_a_line_not_a_traceback(tmp_path):
    """A heartbeat that is not the service's own (another version's, a file written by hand) with a running
    pid: plain status says it cannot be read whole, after the game, and exits 0."""
    write_config(tmp_path)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "status.json").write_text(json.dumps({"pid": os.getpid(), "heartbeat": time.time(),
                                                              "service_faults": ["storage"]}))
    out = io.StringIO()
    assert main(["status", "--config", str(tmp_path / "config.toml")], out=out) == 0
    assert out.getvalue().endswith("The heartbeat %s cannot be read whole (AttributeError: 'list' object has no "
                                   "attribute 'items'): not the service's own?\n" % (tmp_path / "run" / "status.json")), \
        out.getvalue()


def test_a_nimatron_held_after_a_damaged_save_is_said_with_its_rows_dark(tmp_path):
    """In a check the Nimatron's rows are dark and "your turn" blinks for New game: plain status said 'rows 2 4
    6 7', a game the technician looking at the machine could not see (found by the troubleshooting review)."""
    Rig(tmp_path, machine="nimatron").service.stop()
    (tmp_path / "state" / "game.json").write_text("{")
    rig = Rig(tmp_path, machine="nimatron")
    assert rig.service.machine.fault == "check" and any(rig.service.machine.rows)
    rig.service.heartbeat()
    said = plain(tmp_path)
    assert said.startswith("Game: nimatron, play, rows dark, player's turn.\nFault: check: the saved game was "
                           "damaged and could not be resumed: press New game.\n"), said
    rig.press("new_game")
    rig.wait(100)
    rig.service.heartbeat()
    assert plain(tmp_path).startswith("Game: nimatron, play, rows %s, " % " ".join(
        str(n) for n in rig.service.machine.rows))
    rig.service.stop()
