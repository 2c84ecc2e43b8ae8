"""What `controller status` says: the saved game, the service's last heartbeat (or a board's
monitor's) and any fault, read only, for a person (the lines of `controller status`) or for a
museum's monitoring (`--check`: one line and the exit status of the monitoring plugins'
convention; `--json`: the same as one object).
Nothing here changes a file: the service writes them (controller/service/daemon.py's heartbeat,
store.py's saved game)."""

import json
import os
import time

from controller.arguments import ArgumentError, argument, config_path
from controller.core.registry import NAMES as MACHINES


def shut_out(command, *folders):
    """RuntimeError when a folder of the service's is there but this user may not look in: the
    service keeps it to its own user, and reading on would call the saved game damaged, or say
    there are no statistics yet."""
    for folder in folders:
        if os.path.isdir(folder) and not os.access(folder, os.R_OK | os.X_OK):
            raise RuntimeError("%s: this user may not read the service's folder %s: run it as the service's user "
                               "(sudo -u drnim /opt/drnim-controller/venv/bin/controller %s)" % (command, folder, command))


def fault_help(status):
    """The machine's fault, with what it means and what clears it (docs/troubleshooting.md), for `status`."""
    fault = status["fault"]
    if fault == "jam":
        return "jam: a released marble never reached the gate sensor: free it (it counts as it passes and play " \
               "goes on), or put every marble back on the rail and press New game"
    if fault == "check" and "rail" in status:
        return "check: the game in progress cannot be trusted (a restart with a marble on its way, or a damaged " \
               "save): put every marble back on the rail and press New game"
    if fault == "check":
        return "check: the saved game was damaged and could not be resumed: press New game"
    return fault or "none"


def read_saved_game(config):
    """(the saved game's path, its machine's status with "machine" added, why it cannot be read) of the
    state folder: no status and no problem when there is no saved game."""
    from controller.core.saves import SaveError
    from controller.core.registry import UnknownMachine, machine_class
    from controller.service.store import StateStore
    store = StateStore(config.state_dir())
    saved, problem = store.read()
    game = None
    if saved is not None:
        name = saved.get("machine") if isinstance(saved, dict) else None
        try:
            game = machine_class(name if name in MACHINES else config.machine_name).from_dict(saved).status()
            game["machine"] = name if name in MACHINES else config.machine_name
        except (SaveError, UnknownMachine) as error:
            problem = str(error)
    return store.path, game, problem


def game_said(game):
    """The game in a few words: drnim, play, 1 of 2 marbles on the rail, player's turn."""
    said = "%s, %s" % (game["machine"], game["mode"])
    if "rail" in game:
        said += ", %d of %d marbles on the rail" % (game["rail"], game["loaded"])
    if "rows" in game:
        # held in a fault, the Nimatron's rows are dark, and the rows it keeps are no visitor's game
        said += ", rows dark" if game.get("fault") else ", rows %s" % " ".join(str(n) for n in game["rows"])
    return said + (", %s's turn" % game["turn"] if game["mode"] == "play" else ", won by %s" % game["winner"])


# What a heartbeat that cannot be read raises (a file the service never wrote whole, or not its own).
UNREADABLE = (OSError, ValueError, KeyError, TypeError, AttributeError)


def read_heartbeat(path):
    """(the service's last heartbeat, whether the process that wrote it still runs, how many seconds ago
    it was written); one of UNREADABLE when there is none to read."""
    from controller.selftest.guard import process_alive
    with open(path, encoding="utf-8") as f:
        heartbeat = json.load(f)
    if not isinstance(heartbeat["pid"], int):
        raise ValueError("pid %r is no process number" % (heartbeat["pid"],))
    ago, running = time.time() - heartbeat["heartbeat"], process_alive(heartbeat["pid"])
    # the clock since boot is of no use for a service gone (maybe before a reboot); a running service is on
    # this boot: its clock since boot holds when the wall clock jumps (a Pi has none of its own)
    if running and "monotonic" in heartbeat:
        ago = time.monotonic() - heartbeat["monotonic"]
    return heartbeat, running, ago


def watched(args, config):
    """(the exhibit's state folder, the heartbeat to read, whether a board's monitor wrote it) for the
    exhibit --exhibit names, else the configuration's own: the service's heartbeat, or the monitor's of
    a board run in the Pi's machine's place while the service is not running. A board [boards] names
    keeps no game on the Pi (it is on the board): its state folder is None."""
    from controller.service.boards import board_runtime_folder, exhibit_named
    name = argument("--exhibit", exhibit_named, config, args.exhibit or config.telemetry["client_id"])
    board = os.path.join(board_runtime_folder(config, name), "status.json")
    if name != config.telemetry["client_id"]:
        return None, board, True
    service = os.path.join(config.runtime_dir(), "status.json")
    if not beating(service) and (beating(board) or written_after(board, service)):
        return config.state_dir(), board, True
    return config.state_dir(), service, False


def written_after(path, other):
    """Whether the file `path` is there and was written after `other` (or `other` is not there): of two
    heartbeats of processes that have ended, the one that ran last."""
    try:
        written = os.stat(path).st_mtime
    except OSError:
        return False
    try:
        return written > os.stat(other).st_mtime
    except OSError:
        return True


def beating(path):
    """Whether the process that wrote the heartbeat at `path` runs."""
    try:
        return read_heartbeat(path)[1]
    except UNREADABLE:
        return False


def board_game(heartbeat):
    """The board's game as a board's monitor's heartbeat holds it (its last status), or None."""
    if "mode" not in heartbeat:
        return None
    game = dict((key, heartbeat[key]) for key in heartbeat if key in GAME_KEYS)
    game_said(game)        # a status of another shape (another firmware's) cannot be read: UNREADABLE
    return game


def board_said(board):
    """Where the board is, as a monitor's heartbeat says it."""
    if board["there"]:
        return "Board: on %s, there for %.0f s.\n" % (board["port"], board["for_s"])
    return "Board: on %s, not there for %.0f s (%s): the monitor waits for it (its cable, its power).\n" % (
        board["port"], board["for_s"], board["gone"])


def run_status(args, out):
    """The saved game, the last heartbeat and any fault: read only, nothing is changed. --check and --json
    say the same to a museum's monitoring (monitored). A board's monitor writes a heartbeat of its own
    (firmware/heartbeat.py): its board, and the board's game and fault as the board last said them."""
    from controller.service.config import load_config
    if args.check or args.json:
        return monitored(args, out)
    config = argument("--config", load_config, config_path(args))
    state_folder, path, board = watched(args, config)
    shut_out("status", *[folder for folder in (state_folder, os.path.dirname(path)) if folder])
    if board:
        return board_status(path, out)
    store_path, game, problem = read_saved_game(config)
    try:
        heartbeat, running, ago = read_heartbeat(path)
    except UNREADABLE:
        heartbeat, running, ago = None, False, None
    if not running:
        # first, and with what to do: the game below is only the one saved when it stopped
        out.write(not_running(path, heartbeat, ago))
    if problem:
        out.write("The saved game %s is damaged (%s): the service sets it aside at its next start.\n"
                  % (store_path, problem))
    if running and said_live(heartbeat, game):
        game = dict((key, heartbeat[key]) for key in heartbeat if key in GAME_KEYS)
    if game is None and not problem:
        out.write("No saved game in %s.\n" % config.state_dir())
    elif game is not None and running:
        out.write("Game: %s.\nFault: %s.\n" % (game_said(game), fault_help(game)))
    elif game is not None:
        out.write("Last saved game: %s.\n" % game_said(game))
        if game["fault"]:
            out.write("Fault: %s.\n" % fault_help(game))
    from controller.service.clock import UNSET_CLOCK, synchronised
    if synchronised() is False:
        out.write(UNSET_CLOCK)
    if not running:
        return 0
    try:
        heartbeat_said(heartbeat, ago, out, config.service["heartbeat_s"])
    except UNREADABLE as error:
        out.write("The heartbeat %s cannot be read whole (%s: %s): not the service's own?\n"
                  % (path, type(error).__name__, error))
    restarts = automatic_restarts(SERVICE_UNIT)
    if restarts:
        out.write("Restarted by systemd %d time%s since it was started (a crash, or its watchdog): why: journalctl "
                  "-u %s -b.\n" % (restarts, "" if restarts == 1 else "s", SERVICE_UNIT))
    return 0


SERVICE_UNIT = "drnim-controller"


def automatic_restarts(unit):
    """How often systemd restarted `unit` by itself since it was last started (NRestarts, which any user may
    read); None where systemd cannot say (no systemctl, no systemd running: a laptop, a container). A crash or
    a watchdog kill a day is a new process, a new heartbeat and the saved game resumed: nothing else shows it."""
    import subprocess
    try:
        said = subprocess.run(["systemctl", "show", "--property=NRestarts", "--value", unit], capture_output=True,
                              text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = said.stdout.strip()
    return int(value) if said.returncode == 0 and value.isdigit() else None


def heartbeat_said(heartbeat, ago, out, heartbeat_s):
    """The lines of a running service's heartbeat: its age (and, when it is stale, what that means, as
    --check says it), its code, its own faults, the sound, the Pi's supply and heat, the telemetry."""
    out.write("Last heartbeat: %.0f s ago (pid %d).\n" % (ago, heartbeat["pid"]))
    if ago > stale_after_s(heartbeat_s):
        out.write("  Stale: the service writes one every %d s, and this one is over %d s old, though its process "
                  "runs: it is hung, or cannot write its heartbeat (journalctl -u %s -n 50 says what it last did).\n"
                  % (heartbeat_s, stale_after_s(heartbeat_s), SERVICE_UNIT))
    out.write(version_said(heartbeat, "the service"))
    for kind, text in sorted(heartbeat.get("service_faults", {}).items()):
        out.write("Service fault: %s: %s.\n" % (kind, text))
    if "sound" in heartbeat:        # a buzzer kept quiet on purpose (service/sound.py)
        out.write("Sound: %s.\n" % heartbeat["sound"])
    if "power" in heartbeat:        # a Raspberry Pi's supply and heat (service/power.py)
        from controller.service.power import said
        out.write(said(heartbeat["power"], ago))
    telemetry = heartbeat.get("telemetry")
    if telemetry:
        out.write("Telemetry: %s, %d games and faults waiting to be sent.\n" % (telemetry_said(telemetry),
                                                                                telemetry["queued"]))


def said_live(heartbeat, saved):
    """Whether the game is the one a running service's heartbeat says rather than the saved one: with no
    game saved yet, and while the game cannot be saved (the card full or read-only: the saved game is the
    one of before, however the game went on since)."""
    return "mode" in heartbeat and (saved is None or "storage" in heartbeat.get("service_faults", {}))


# Where systemd keeps the units enabled at boot (install.sh enables the service or a board's monitor there).
ENABLED = "/etc/systemd/system/multi-user.target.wants"


def watching_unit():
    """The board's monitor a Pi runs in place of its own service (enabled, where the service is not), or
    None: the unit to start when neither heartbeat is there, which a clean stop takes away."""
    try:
        names = os.listdir(ENABLED)
    except OSError:
        return None
    monitors = sorted(name for name in names if name.startswith("drnim-monitor@"))
    return monitors[0] if monitors and "drnim-controller.service" not in names else None


def not_running(path, heartbeat, ago):
    """The line of a service that is not running: the exhibit does not play, and what to do."""
    last = ""
    if heartbeat is not None:
        # a wall clock that has moved back since it wrote would say "-3600 s ago": then the time it was
        # written is said
        when = "%.0f s ago" % ago if ago >= 0 else "at %s by the clock of then" % time.strftime(
            "%Y-%m-%d %H:%M:%S", time.localtime(heartbeat["heartbeat"]))
        last = " (the last, %s, came from pid %d, which has ended)" % (when, heartbeat["pid"])
    unit = watching_unit()
    if unit:
        return "No heartbeat in %s: the board's monitor %s is not running%s, so the exhibit does not play. Start " \
               "it: sudo systemctl start '%s'; why it stopped: journalctl -u '%s' -b.\n" % (path, unit, last, unit,
                                                                                          unit)
    return "No heartbeat in %s: the service is not running%s, so the exhibit does not play. Start it: sudo " \
           "systemctl start drnim-controller; why it stopped: journalctl -u drnim-controller -b.\n" % (path, last)


def board_status(path, out):
    """`controller status` of an exhibit a board's monitor runs: from its heartbeat alone."""
    try:
        heartbeat, running, ago = read_heartbeat(path)
    except UNREADABLE:
        out.write("No heartbeat in %s: the board's monitor is not running.\n" % path)
        return 0
    if not running:
        out.write("No heartbeat in %s: the board's monitor is not running (the last, %.0f s ago, came from pid %d, "
                  "which has ended).\n" % (path, ago, heartbeat["pid"]))
        return 0
    out.write(board_said(heartbeat["board"]))
    try:
        game = board_game(heartbeat)
        if game is not None:
            out.write("Game: %s.\nFault: %s.\n" % (game_said(game), fault_help(game)))
    except UNREADABLE as error:
        out.write("Game: the board's last status cannot be read (%s: %s): another firmware's?\n"
                  % (type(error).__name__, error))
    out.write("Last heartbeat: %.0f s ago (pid %d, the board's monitor).\n" % (ago, heartbeat["pid"]))
    out.write(version_said(heartbeat, "the monitor"))
    for kind, text in sorted(heartbeat.get("service_faults", {}).items()):
        out.write("Monitor fault: %s: %s.\n" % (kind, text))
    telemetry = heartbeat.get("telemetry")
    if telemetry:
        out.write("Telemetry: %s, %d games and faults waiting to be sent.\n" % (telemetry_said(telemetry),
                                                                                telemetry["queued"]))
    return 0


def version_said(heartbeat, runner):
    """The line of the code `runner` runs (controller/built.py), and whether the code installed is
    another (an update whose configuration the new code refused restarts nothing); none for a heartbeat
    of a version before it said one."""
    from controller.built import described
    running = heartbeat.get("version")
    if running is None:
        return ""
    if running == described():
        return "Version: controller %s.\n" % running
    return "Version: controller %s, where %s is installed: %s runs it from its next start.\n" % (
        running, described(), runner)


def telemetry_said(telemetry):
    """The connection to the broker, as a heartbeat's "telemetry" tells it."""
    if telemetry.get("problem"):        # connected too while another exhibit throws this one off
        return "the broker %s %s" % (telemetry["broker"], telemetry["problem"])
    if telemetry["connected"]:
        return "connected to %s" % telemetry["broker"]
    return "not connected to %s yet" % telemetry["broker"]


# --- controller status --check and --json: for a museum's monitoring ---------------------------------------
# The states of the monitoring plugins' convention (Nagios, Icinga, Naemon, check_mk), each at its exit status.
OK, WARNING, CRITICAL, UNKNOWN = 0, 1, 2, 3
STATES = ("OK", "WARNING", "CRITICAL", "UNKNOWN")
# The shape of `controller status --json`, one more whenever a key changes meaning or goes (docs/troubleshooting.md).
STATUS_FORMAT = 1
# A heartbeat is stale after three missed ones (as `controller fleet` calls an exhibit silent) and 10 s more,
# the watchdog's time, for a loop held up by a slow SD card: 25 s with the default heartbeat_s of 5.
MISSED_BEATS, STALE_SLACK_S = 3, 10
# What a heartbeat holds of the game (controller/core's status(), and the machine's name).
GAME_KEYS = ("machine", "mode", "fault", "winner", "turn", "attract", "rail", "loaded", "rows")


def stale_after_s(heartbeat_s):
    return MISSED_BEATS * heartbeat_s + STALE_SLACK_S


def monitored(args, out):
    """`status --check`: one line, OK - ..., WARNING - ..., CRITICAL - ... or UNKNOWN - ..., and the exit
    status 0, 1, 2 or 3 (the monitoring plugins' guidelines); `status --json`: the same report as one JSON
    object, with exit status 0 whenever it was written (its "state" says the rest)."""
    from controller.service.config import ConfigError, FileUnreadable, load_config
    try:
        config = load_config(config_path(args))
        state_folder, path, board = watched(args, config)
        shut_out("status", *[folder for folder in (state_folder, os.path.dirname(path)) if folder])
        report = status_report(config, path, board)
    except FileUnreadable as error:
        # not there, or not this user's to read: the monitor cannot tell what the service makes of it
        report = unknown_report("--config: %s" % error)
    except ConfigError as error:
        why = ("the configuration is refused, so the service cannot start (or restart) with it: %s "
               "(controller config check)" % error)
        report = reported([(CRITICAL, "config-refused", why)], summary=why, machine=None, game=None, service=None)
    except (ArgumentError, RuntimeError) as error:
        report = unknown_report(str(error))
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        # a heartbeat of another shape than this command reads (a service not restarted since an update?)
        report = unknown_report("the service's heartbeat holds what this command cannot read (%s: %s)"
                                % (type(error).__name__, error))
    if args.json:
        out.write(json.dumps(report, sort_keys=True) + "\n")
        return 0
    out.write(check_line(report))
    return report["exit_status"]


def unknown_report(why):
    return reported([(UNKNOWN, "unreadable", why)], summary=why, machine=None, game=None, service=None)


def status_report(config, path, board):
    """What a monitor needs of the exhibit: the worst problem decides the state. CRITICAL needs a
    person: no heartbeat, a stale one, the machine's own fault (a jam, a check), or a board not on its
    port; WARNING, a fault of the service's own while the game plays (an input, the storage, the
    statistics, the telemetry, the Pi's supply or heat now). `path`: the heartbeat; `board`: a board's
    monitor's, whose game is on the board."""
    from controller.service.power import HOT_C
    problems = []
    runner = "the board's monitor" if board else "the service"
    game = None
    if not board:
        store_path, game, problem = read_saved_game(config)
        if problem:
            problems.append((WARNING, "damaged-save", "the saved game %s is damaged (%s): the service sets it "
                                                      "aside at its next start" % (store_path, problem)))
    heartbeat_s = config.service["heartbeat_s"]
    service = {"running": False, "pid": None, "heartbeat_age_s": None, "heartbeat_s": heartbeat_s,
               "stale_after_s": stale_after_s(heartbeat_s), "faults": {}}
    heartbeat, seen = None, {}
    try:
        heartbeat, running, ago = read_heartbeat(path)
    except FileNotFoundError:
        unit = None if board else watching_unit()
        problems.append((CRITICAL, "no-heartbeat", "no heartbeat in %s: %s is not running" % (
            path, "the board's monitor %s" % unit if unit else runner)))
    except UNREADABLE as error:
        return unknown_report("the heartbeat %s cannot be read (%s)" % (path, getattr(error, "strerror", None)
                                                                         or error))
    if heartbeat is not None:
        service.update(running=running, pid=heartbeat["pid"], heartbeat_age_s=round(ago, 1) if ago >= 0 else None)
        if not running:
            problems.append((CRITICAL, "no-heartbeat", "no heartbeat: %s is not running (the last came from pid %d, "
                                                       "which has ended)" % (runner, heartbeat["pid"])))
        else:
            seen = heartbeat
            if ago > service["stale_after_s"]:
                problems.append((CRITICAL, "stale-heartbeat", "the last heartbeat is %.0f s old (pid %d runs; one "
                                 "every %d s, stale after %d s): %s is hung, or cannot write %s"
                                 % (ago, heartbeat["pid"], heartbeat_s, service["stale_after_s"], runner, path)))
            if board:
                game = board_game(heartbeat)
                gone = heartbeat["board"]
                if not gone["there"] and gone["for_s"] > service["stale_after_s"]:
                    problems.append((CRITICAL, "board-gone", "the board on %s is not there (%s) for %.0f s: its "
                                     "cable, its power" % (gone["port"], gone["gone"], gone["for_s"])))
            elif said_live(heartbeat, game):
                game = {key: heartbeat[key] for key in heartbeat if key in GAME_KEYS}
    if game is not None and game["fault"]:
        problems.append((CRITICAL, game["fault"], fault_help(game)))
    service["faults"] = dict(seen.get("service_faults", {}))
    for kind, text in sorted(service["faults"].items()):
        problems.append((WARNING, kind, "%s: %s" % (kind, text)))
    power = seen.get("power")
    if power and power["under_voltage"]:
        problems.append((WARNING, "under-voltage", "under-voltage now: the Pi's supply fell below about 4.65 V "
                                                   "(episode %d since the service started)" % power["episodes"]))
    if power and power["hot"]:
        problems.append((WARNING, "too-hot", "the CPU is at %.0f °C, too hot: the firmware slows the Pi down "
                                             "from %d °C" % (power["cpu_c"], HOT_C)))
    telemetry = seen.get("telemetry")
    if telemetry and telemetry.get("problem"):
        problems.append((WARNING, "broker", "telemetry: " + telemetry_said(telemetry)))
    summary = None
    if game is not None and service["running"]:
        summary = "%s; heartbeat %.0f s ago" % (game_said(game), service["heartbeat_age_s"] or 0)
    elif service["running"]:
        summary = "%s runs; heartbeat %.0f s ago" % (runner, service["heartbeat_age_s"] or 0)
    return reported(problems, summary=summary, machine=seen.get("machine") if board else config.machine_name,
                    game=game, service=service, power=power, sound=seen.get("sound"), telemetry=telemetry,
                    board=seen.get("board"), version=seen.get("version"))


def reported(problems, summary, **facts):
    """The report of `status --json` (format 1): the worst problem's state, every problem worst first,
    and the facts they were found in."""
    problems = sorted(problems, key=lambda problem: -problem[0])
    state = problems[0][0] if problems else OK
    if problems:
        summary = "; ".join(text for _, _, text in problems)
    report = {"format": STATUS_FORMAT, "state": STATES[state], "exit_status": state, "summary": summary,
              "problems": [{"state": STATES[level], "kind": kind, "text": text} for level, kind, text in problems],
              "power": None, "sound": None, "telemetry": None, "board": None, "version": None}
    report.update(facts)
    return report


def check_line(report):
    """`status --check`'s line: STATE - summary | performance data (the heartbeat's age against its stale
    limit, the CPU's temperature against where it is too hot), for a monitor's graphs."""
    from controller.service.power import HOT_C
    summary = " ".join(report["summary"].replace("|", "/").split())
    data = []
    service, power = report["service"], report["power"]
    if service and service["running"] and service["heartbeat_age_s"] is not None:
        data.append("heartbeat_age=%.1fs;;%d;0" % (service["heartbeat_age_s"], service["stale_after_s"]))
    if power and power.get("cpu_c") is not None:
        data.append("cpu_celsius=%.1f;%d" % (power["cpu_c"], HOT_C))
    return "%s - %s%s\n" % (report["state"], summary, " | " + " ".join(data) if data else "")
