"""`controller firmware monitor --port`: a board's lines shown live and its games
counted by `controller stats`, with real pyserial over a real pseudo-terminal
and the command run as a user runs it; a pulled cable and a reset cost one
line each and the monitor goes on."""

import io
import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from serial_rig import Port
from service_rig import write_config
from controller.cli import main
from controller.firmware.monitor import Monitor
from controller.service.config import load_config
from test_firmware import emulate, configs  # noqa: F401  (configs: the fixture)

HELLO = '{"clock":"real","kind":"hello","machine":"drnim","mode":"production","protocol":1,"resumed":"saved"}\n'
GAME = [
    '{"at":1000,"event":["press","trigger"],"kind":"event"}',
    '{"at":1000,"command":["release"],"kind":"command"}',
    '{"at":1300,"event":["marble"],"kind":"event"}',
    '{"at":1300,"kind":"status","status":{"attract":false,"fault":null,"loaded":2,"mode":"over","rail":0,'
    '"turn":"player","winner":"machine"}}',
    '{"at":1300,"kind":"game_over","machine":"drnim","turns":[["player",1],["machine",1]],"winner":"machine"}',
    '{"at":9000,"fault":"jam","kind":"fault","text":"a marble is stuck"}',
]


class Running:
    """`controller firmware monitor` as a process, its output read line by line as it comes."""

    def __init__(self, *args, stdin=None, start=("-m", "controller"), env=None):
        self.process = subprocess.Popen([sys.executable, *start, "firmware", "monitor", *args],
                                        cwd=ROOT, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=dict(env or os.environ, PYTHONUNBUFFERED="1"))
        self.text = {"out": b"", "err": b""}

    def until(self, words, stream="out", timeout=20):
        """Read until `words` is in the stream's output; its text so far."""
        pipe = self.process.stdout if stream == "out" else self.process.stderr
        deadline = time.monotonic() + timeout
        while words.encode() not in self.text[stream]:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "no %r in %r" % (words, self.text)
            if select.select([pipe], [], [], remaining)[0]:
                self.text[stream] += os.read(pipe.fileno(), 65536)
        return self.text[stream].decode()

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=20)
        self.text["out"] += out
        self.text["err"] += err
        return self.process.returncode


@pytest.fixture
def port(tmp_path):
    port = Port(tmp_path / "ttyACM0")
    yield port
    port.close()


def test_a_board_is_watched_and_its_games_counted(tmp_path, port):
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--port", port.path, "--config", str(config))
    try:
        monitor.until("Ctrl-C stops")
        assert port.lines() == ['{"id":"monitor","kind":"state"}'], "it asks for the state when it opens the port"
        port.write(HELLO + "".join(line + "\n" for line in GAME))
        shown = monitor.until("FAULT jam")
        assert "board: drnim, protocol 1, production mode; the saved game resumed" in shown
        assert "     1.000 s  press trigger\n" in shown
        assert "     1.000 s    -> release\n" in shown
        assert "     1.300 s  status: over, 0 of 2 marbles on the rail, won by machine\n" in shown
        assert "     1.300 s  game over: won by machine\n" in shown
        assert "     9.000 s  FAULT jam: a marble is stuck\n" in shown

        port.unplug()
        said = monitor.until("waiting for it to come back", "err")
        assert said.count("\n") == 1 and "Traceback" not in said
        port.plug()
        monitor.until("is back", "err")
        assert port.lines(timeout=10) == ['{"id":"monitor","kind":"state"}'], "asked again: nothing stale is shown"
        port.write(HELLO)
        monitor.until("started again (a reset)", "err")
    finally:
        assert monitor.stop() == 0
    assert monitor.text["out"].decode().endswith("Stopped watching.\n")
    assert b"Traceback" not in monitor.text["err"]
    out = io.StringIO()
    assert main(["stats", "--config", str(config)], out=out) == 0
    assert "Wins: machine 1" in out.getvalue()
    assert "Faults: jam 1" in out.getvalue()


# The controller as a laptop's user starts it: not root, on a computer whose /var/lib has no
# drnim-controller (the suite may run as root, on a computer that has one).
AS_A_LAPTOPS_USER = ("-c", "import os, sys\nos.geteuid = lambda: 1000\nimport controller.service.config as config\n"
                     "config.SYSTEM_STATE = os.path.join(os.environ['XDG_STATE_HOME'], 'var-lib-drnim-controller')\n"
                     "import controller.arguments as arguments\n"       # a Pi's own /etc configuration is none here
                     "arguments.DEFAULT_CONFIG = os.path.join(os.environ['XDG_STATE_HOME'], 'no-config.toml')\n"
                     "from controller.cli import main\nsys.exit(main(sys.argv[1:]))")


def test_on_a_laptop_without_a_configuration_the_boards_games_are_counted_in_the_users_own_folder(tmp_path, port):
    """The default state folder, /var/lib/drnim-controller, is the Pi service's: a laptop's user
    may not write there, so the monitor counted nothing ("its games are not counted") until they
    wrote a configuration naming a folder of their own. Without one it is theirs now
    ($XDG_STATE_HOME/drnim-controller, ~/.local/state/... by default), made by the monitor, and
    `controller stats` reads it."""
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state-home"), HOME=str(tmp_path))
    monitor = Running("--port", port.path, start=AS_A_LAPTOPS_USER, env=env)
    try:
        shown = monitor.until("Ctrl-C stops")
        assert "not counted" not in shown, monitor.text
        assert port.lines() == ['{"id":"monitor","kind":"state"}'], "its port open (what came before is dropped)"
        port.write(HELLO + "".join(line + "\n" for line in GAME))
        monitor.until("FAULT jam")
    finally:
        assert monitor.stop() == 0
    assert b"statistics" not in monitor.text["err"], monitor.text["err"]
    assert (tmp_path / "state-home" / "drnim-controller" / "stats.sqlite").is_file(), monitor.text
    counted = subprocess.run([sys.executable, *AS_A_LAPTOPS_USER, "stats"], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=60)
    assert "Wins: machine 1" in counted.stdout, counted.stderr


def test_a_board_that_started_before_the_monitor_has_its_faults_counted_too(tmp_path, port):
    """The usual case on a museum's Pi: the board said hello to nobody. The
    state it sends when asked names its machine, and its faults count under it."""
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--port", port.path, "--config", str(config))
    try:
        monitor.until("Ctrl-C stops")
        assert port.lines() == ['{"id":"monitor","kind":"state"}']
        port.write('{"busy":false,"game":{"config":{},"format":2,"machine":"nimatron","state":{}},"id":"monitor",'
                   '"kind":"state","now":5000,"status":{"mode":"play","fault":null}}\n'
                   '{"at":9000,"fault":"extra-marble","kind":"fault","text":"a marble without a release"}\n')
        monitor.until("FAULT extra-marble")
    finally:
        assert monitor.stop() == 0
    assert b"Traceback" not in monitor.text["err"] and b"cannot" not in monitor.text["err"], monitor.text["err"]
    out = io.StringIO()
    assert main(["stats", "--config", str(config)], out=out) == 0
    assert "Faults: extra-marble 1" in out.getvalue(), out.getvalue()


def test_a_port_that_never_comes_is_waited_for_in_one_line(tmp_path):
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--port", str(tmp_path / "nothing"), "--config", str(config))
    try:
        said = monitor.until("waiting for it", "err")
        time.sleep(0.5)
    finally:
        assert monitor.stop() == 0
    assert monitor.text["err"].decode() == said
    assert said == "controller firmware: the board on %s is not there (No such file or directory): waiting for it\n" \
        % (tmp_path / "nothing")


def test_the_emulated_board_is_watched_on_its_own_clock(tmp_path, micropython):
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--emulate", "unix", "--config", str(config))
    try:
        shown = monitor.until("state: play, 15 of 15 marbles on the rail")
    finally:
        assert monitor.stop() == 0
    assert "board: drnim, protocol 1, development mode; a new game" in shown
    assert b"Traceback" not in monitor.text["err"]


def type_line(monitor, text):
    monitor.process.stdin.write(text.encode() + b"\n")
    monitor.process.stdin.flush()


def test_a_line_typed_at_the_monitor_goes_to_the_board_once_it_reads_as_a_request(tmp_path, port):
    """A hobbyist trying a board types protocol lines: a kind alone is a request, a line the board
    would refuse is refused here in one line that says at which column, and nothing is sent."""
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--port", port.path, "--config", str(config), stdin=subprocess.PIPE)
    try:
        monitor.until("Ctrl-C stops")
        assert port.lines() == ['{"id":"monitor","kind":"state"}']
        type_line(monitor, '{"kind":"new_game","settings":{"marbles":11},}')
        said = monitor.until("not sent", "err")
        assert said.count("\n") == 1 and "column 46: expected a key" in said, said
        type_line(monitor, "  ")
        type_line(monitor, '{"kind":"new_gme"}')
        monitor.until("unknown kind", "err")
        type_line(monitor, "state")
        type_line(monitor, '{"id":7,"kind":"new_game","settings":{"marbles":11}}')
        assert port.lines(count=2) == ['{"kind":"state"}', '{"id":7,"kind":"new_game","settings":{"marbles":11}}']
        port.write('{"asked":"new_game","id":7,"kind":"ok"}\n')
        monitor.until("board took the new_game line")
    finally:
        assert monitor.stop() == 0
    assert monitor.text["err"].decode().count("\n") == 2, "one line for each line not sent, none for a blank one"


def test_a_press_typed_at_the_monitor_plays_on_the_emulated_board(tmp_path, micropython):
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--emulate", "unix", "--config", str(config), stdin=subprocess.PIPE)
    try:
        monitor.until("state: play, 15 of 15 marbles on the rail")
        type_line(monitor, '{"kind":"inject","event":["press","trigger"]}')
        shown = monitor.until("-> release")
    finally:
        assert monitor.stop() == 0
    assert "press trigger" in shown and b"Traceback" not in monitor.text["err"]


def test_settings_typed_at_the_monitor_as_a_script_writes_them_start_a_new_game(tmp_path, micropython):
    """A Pico builder typed `new_game rule=last-wins` as the scripts and the page write settings, and was told
    'column 1: expected a value' (the Pico builder's walkthrough): the JSON line was the only way. A setting
    the machine refuses is named, and nothing sent."""
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--emulate", "unix", "--config", str(config), stdin=subprocess.PIPE)
    try:
        monitor.until("state: play, 15 of 15 marbles on the rail")
        type_line(monitor, "new_game marbels=12")
        said = monitor.until("not sent", "err")
        assert "typed line not sent: marbels: unknown setting" in said, said
        type_line(monitor, "new_game rule=last-wins marbles=12")
        monitor.until("board took the new_game line")
        monitor.until("12 of 12 marbles on the rail")
    finally:
        assert monitor.stop() == 0
    assert b"Traceback" not in monitor.text["err"]


def test_a_service_manager_stops_the_monitor_as_ctrl_c_does(tmp_path, micropython):
    """systemd stops a service with SIGTERM: the monitor says so, closes its
    statistics and stops the board it started, as on Ctrl-C."""
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--emulate", "unix", "--config", str(config))
    try:
        monitor.until("state: play")
        board = subprocess.run(["pgrep", "-P", str(monitor.process.pid)], capture_output=True, text=True).stdout.split()
    finally:
        monitor.process.send_signal(signal.SIGTERM)
        out, err = monitor.process.communicate(timeout=20)
    assert monitor.process.returncode == 0, err.decode()
    assert out.decode().endswith("Stopped watching.\n")
    assert len(board) == 1 and not os.path.exists("/proc/%s" % board[0]), "the emulated board stopped too"


def test_the_monitor_does_not_claim_games_go_into_statistics_it_cannot_open(tmp_path, port):
    """A laptop's user runs the monitor with a configuration whose state folder is not there
    (the default one, /var/lib/drnim-controller): it says so once, and that the games are not counted."""
    config = write_config(tmp_path)     # no state folder made
    monitor = Running("--port", port.path, "--config", str(config))
    try:
        shown = monitor.until("Ctrl-C stops")
    finally:
        assert monitor.stop() == 0
    exhibit = load_config(str(config)).telemetry["client_id"]      # the computer's name: none is configured
    assert "Watching the board on %s, the exhibit %s; its games are not counted. Ctrl-C stops." % (
        port.path, exhibit) in shown
    said = monitor.text["err"].decode()
    assert "cannot open the statistics in %s" % (tmp_path / "state" / "stats.sqlite") in said
    # what to do, for a laptop's monitor run with sudo too (the Pico builder's walkthrough)
    assert "the folder %s is not there: make it, or give --config a configuration whose state_dir is a folder of " \
        "yours" % (tmp_path / "state") in said


def test_an_emulated_pico_without_its_firmware_is_the_one_line_said(tmp_path):
    config = write_config(tmp_path)     # statistics that cannot be opened say nothing before it
    env = dict(os.environ)
    env.pop("CONTROLLER_PICO_UF2", None)
    result = subprocess.run([sys.executable, "-m", "controller", "firmware", "monitor", "--emulate", "rp2040",
                             "--config", str(config)], cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode != 0 and result.stderr.count("\n") == 1, result.stderr
    assert "statistics" not in result.stderr and "UF2" in result.stderr, result.stderr


def test_a_boards_text_reaches_the_terminal_without_its_escape_sequences(tmp_path, port):
    """A fault text that would set the window's title and clear the screen is shown as its escapes."""
    config = write_config(tmp_path)
    (tmp_path / "state").mkdir()
    monitor = Running("--port", port.path, "--config", str(config))
    try:
        monitor.until("Ctrl-C stops")
        assert port.lines() == ['{"id":"monitor","kind":"state"}'], "the monitor has the port open"
        port.write(HELLO + '{"at":5,"fault":"crash","kind":"fault","text":"\\u001b]0;pwned\\u0007\\u001b[2J"}\n')
        shown = monitor.until("pwned")
        assert "\x1b" not in shown and "\x07" not in shown
        assert "\\x1b]0;pwned\\x07\\x1b[2J" in shown
    finally:
        monitor.stop()


ASKED = ['{"id":"monitor","kind":"state"}']
TRIGGER = '{"at":%d,"event":["press","trigger"],"kind":"event"}\n'


class Watching:
    """The monitor in this process on a real Link to the pty rig, with a catcher for its
    telemetry, statistics in `tmp_path` and a clock the test moves."""

    def __init__(self, tmp_path, port):
        from controller.firmware.link import Link
        from controller.firmware.monitor import Monitor
        from controller.service.stats import Statistics
        from test_fleet import GameCatcher
        self.said, self.shown, self.now = [], [], 0.0
        self.link = Link(port.path, report=self.said.append, retry_s=0.05)
        self.stats = Statistics(str(tmp_path / "stats.sqlite"), log=self.said.append)
        self.monitor = Monitor(self.link, self.shown.append, self.stats, GameCatcher(), machine="nimatron",
                               clock=lambda: self.now)
        self.port = port

    def until(self, words):
        """Step the monitor until a line it shows has `words` in it."""
        for _ in range(100):
            if any(words in line for line in self.shown):
                return
            self.monitor.step(0.1)
        raise AssertionError("no %r in %r" % (words, self.shown))

    def close(self):
        self.link.close()
        self.stats.close()


@pytest.fixture
def watching(tmp_path, port):
    watching = Watching(tmp_path, port)
    yield watching
    watching.close()


def board_state(now, game=None):
    from controller.core.registry import machine_class
    return '{"game":%s,"id":"monitor","kind":"state","now":%d,"status":{"mode":"play"}}\n' % (
        json.dumps(game or machine_class("drnim")({}).to_save()), now)


def opened(watching):
    while watching.link.opens == 0:
        watching.monitor.step(0.1)
    watching.monitor.step(0.1)
    assert watching.port.lines() == ASKED


def test_a_state_reply_lost_to_noise_is_asked_for_again(watching, port):
    """Noise on the USB ate the reply: the live game would stay dead until the board restarts
    (weeks, in a museum). A later event the replica cannot follow asks again, once a while has passed."""
    opened(watching)
    port.write('{"game":{"mach\xff\n' + TRIGGER % 10)
    watching.until("press trigger")
    assert port.lines(timeout=0.2) == [], "the request is still out: not sent twice"
    watching.now += 60
    port.write(TRIGGER % 20000)
    watching.until("    20.000 s  press trigger")
    assert port.lines() == ASKED


def test_a_board_that_starts_again_after_refusing_the_request_is_asked_again(watching, port):
    """A board held after resets answers the request with an error; freed (new_game), it says
    hello again, and its new game is followed."""
    opened(watching)
    port.write('{"error":"the board holds after 3 resets in a row","id":"monitor","kind":"error"}\n'
               + HELLO.replace('"saved"', '"new"'))
    watching.until("a new game")
    assert port.lines() == ASKED


HELD = ("the board reset 3 times in a row, each soon after it started: it holds every output safe; hold New game "
        "down for 3 s, or send new_game, to set the saved game aside and start afresh")


def test_a_board_that_starts_holding_says_why_once(watching, port):
    """A held board answers every line but new_game with the reason its fault line has just given: the
    state request the monitor sent when it opened the port came back as 'board refused a line: ...', a line
    nobody typed, the reason shown a third time."""
    opened(watching)
    port.write(HELLO.replace('"saved"', '"held"')
               + '{"at":0,"fault":"resets","kind":"fault","text":"%s"}\n' % HELD
               + '{"error":"%s","id":"monitor","kind":"error"}\n' % HELD)
    watching.until("FAULT resets")
    for _ in range(5):
        watching.monitor.step(0.1)
    assert watching.shown == ["board: drnim, protocol 1, production mode; held after resets in a row, every output "
                              "safe, until staff hold New game down for 3 s or a new_game line comes",
                              "     0.000 s  FAULT resets: " + HELD]


def test_a_board_that_held_before_the_monitor_opened_its_port_says_why_as_its_answer(watching, port):
    """A Pi's monitor started after the board began to hold (its hello went to nobody): the refusal of the
    monitor's own request is the one line that says why, and it is said as the answer to that request."""
    opened(watching)
    port.write('{"error":"%s","id":"monitor","kind":"error"}\n' % HELD)
    watching.until("3 times")
    assert watching.shown == ["board did not answer the monitor's state request: " + HELD]


def test_a_state_that_cannot_be_followed_is_not_asked_for_at_every_event(watching, port):
    """A board of another controller's game format: one line, and its events are shown without a
    state request and its reply after each."""
    opened(watching)
    port.write(board_state(5, {"format": 99, "machine": "drnim", "config": {}, "state": {}}))
    watching.until("nothing live is published")
    port.write("".join(TRIGGER % at for at in (10000, 20000, 30000)))
    watching.until("    30.000 s  press trigger")
    assert port.lines(timeout=0.2) == []
    assert sum("live:" in line for line in watching.shown) == 1


def test_a_boards_clock_moved_back_is_followed_after_one_state_request(watching, port):
    """Every 3.1 days the board moves its clock back 2**28 ms: the replica, ahead of it, asks once."""
    opened(watching)
    port.write(board_state(600000000) + TRIGGER % 600000010)
    watching.until("600000.010 s  press trigger")
    port.write(TRIGGER % (600000020 - 2 ** 28))
    watching.until("331564.564 s  press trigger")
    assert port.lines() == ASKED
    port.write(board_state(600000030 - 2 ** 28) + TRIGGER % (600000040 - 2 ** 28))
    watching.until("331564.584 s  press trigger")
    assert port.lines(timeout=0.2) == []
    assert watching.monitor.live.replica is not None


def test_a_fault_before_the_board_names_its_machine_is_counted(watching, port, tmp_path):
    """A board that ran while nobody read it reports the lines it dropped as soon as the monitor
    opens the port, before its state reply: that fault is counted, not lost to the statistics."""
    from controller.service.stats import summary
    opened(watching)
    port.write('{"at":5,"fault":"link","kind":"fault","text":"12 lines dropped: the host read nothing for a while"}\n')
    watching.until("FAULT link")
    assert watching.stats.flush()
    assert watching.stats.problem is None and watching.said == []
    assert summary(str(tmp_path / "stats.sqlite"))["faults"] == {"link": 1}


def test_a_boards_fault_or_game_of_the_wrong_shape_costs_no_other_record(watching, port, tmp_path):
    """A board's fault without a kind, or a game won by a table, from a firmware of another version or noise
    that still reads as a line, reached the statistics, which refused it, and the games and faults written
    with it were lost, and the statistics said they could not be written. Only the well-formed are kept, the
    kind cut to 64 characters (as the fleet keeps it)."""
    from controller.service.stats import summary
    opened(watching)
    port.write('{"at":5,"kind":"fault","text":"no kind"}\n{"at":6,"fault":{"a":1},"kind":"fault"}\n'
               '{"kind":"game_over","machine":["x"],"winner":{"b":2}}\n{"at":7,"fault":"%s","kind":"fault"}\n'
               '{"kind":"game_over","machine":"nimatron","winner":"player"}\n' % ("j" * 300))
    watching.until("player")
    assert watching.stats.flush()
    assert watching.stats.problem is None and watching.said == []
    kept = summary(str(tmp_path / "stats.sqlite"))
    assert kept["faults"] == {"j" * 64: 1} and kept["games"] == 1, kept


class Board:
    """The lines an emulated board sent, handed to the monitor one at a time as a port would."""

    serial, opens = True, 0

    def __init__(self, lines):
        self.lines = list(lines)
        self.asked = []

    def send(self, message):
        self.asked.append(message)

    def receive(self, timeout):
        return self.lines.pop(0) if self.lines else None


@pytest.mark.parametrize("machine, press", [("drnim", "trigger"), ("nimatron", "row1")])
def test_a_resting_boards_attract_lamps_are_not_shown_but_a_press_after_them_is(
        micropython, configs, tmp_path, machine, press):  # noqa: F811
    """A Pi runs the monitor for months under systemd, its lines in the journal: a machine at rest
    stepped its attract lamps there, a tick and two lamps every 300-400 ms (601 lines a minute on a
    Nimatron), and pushed real faults out of the journal. The real firmware idles two minutes into
    attract, rests a minute there, and a visitor presses."""
    board = emulate(micropython, configs[machine, "development"],
                    [b'{"kind":"state"}', b'{"kind":"advance","ms":120000}', b'{"kind":"advance","ms":60000}',
                     ('{"kind":"inject","event":["press","%s"]}' % press).encode()], tmp_path / "flash.json")
    shown = []
    monitor = Monitor(Board(board), shown.append)        # no [telemetry]: a museum's Pi may have none
    for _ in board:
        monitor.step()
    idle, attract = [index for index, line in enumerate(shown) if line.startswith("board took the advance line")]
    assert shown[idle - 1].endswith("attract"), "the status line that says it went into attract is shown"
    assert shown[idle + 1:attract] == [], "a minute of attract shows nothing"
    assert len(shown[:idle]) < 20, "its start: hello, power and its outputs, the state"
    after = shown[attract + 1:]
    assert after[0] == "   180.000 s  press %s" % press
    assert after[1].startswith("   180.000 s    -> ") and "status: play" in after[-2], after


@pytest.mark.parametrize("resumed, said", [
    ("check", "held in check until staff press New game (a marble was on its way, or the save was damaged)"),
    # a board held after resets starts afresh from its own New game button too: a fair with no laptop at hand
    ("held", "held after resets in a row, every output safe, until staff hold New game down for 3 s or a new_game "
             "line comes"),
])
def test_a_board_that_starts_holding_is_not_said_to_have_started(resumed, said):
    """A board holding after resets in a row was shown as 'started', and one whose saved game was damaged as
    'held in check: a marble was on its way' (found by a repair technician's walkthrough)."""
    from controller.firmware.monitor import describe
    hello = json.loads(HELLO.replace('"resumed":"saved"', '"resumed":"%s"' % resumed))
    assert describe(hello) == "board: drnim, protocol 1, production mode; " + said


def test_the_boards_answer_to_a_typed_line_says_which_line_it_took():
    """A technician typed new_game at the monitor and read a bare 'ok' after a blank time column,
    which did not say what it answered; the board's answer to a typed advance was as bare."""
    shown = []
    monitor = Monitor(Board([{"kind": "ok", "asked": "new_game", "id": 7}, {"kind": "ok", "asked": "inject"},
                             {"kind": "advanced", "now": 312, "busy": False},
                             {"kind": "advanced", "now": 600, "busy": True}]), shown.append)
    for _ in range(4):
        monitor.step()
    assert shown == ["board took the new_game line", "board took the inject line",
                     "board took the advance line: its clock at 0.312 s",
                     "board took the advance line: its clock at 0.600 s, still busy"]


def test_a_nimatron_board_held_in_check_is_shown_with_its_rows_dark():
    """A board held in check shows every row dark and "your turn" blinking for New game: the monitor showed
    'rows 2 4 6 7', the fresh game a damaged save left behind (as controller status did; found by the review of
    that fix)."""
    from controller.firmware.monitor import describe_status
    status = {"mode": "play", "rows": [2, 4, 6, 7], "turn": "player", "fault": "check", "winner": None}
    assert describe_status(status).startswith("play, rows dark, player's turn, fault check")
    assert describe_status(dict(status, fault=None)).startswith("play, rows 2 4 6 7, player's turn")
