"""`controller firmware monitor`: what a board does, live, and its games in the statistics.

Each line the board sends is shown as one line of text: its events and
commands with the board's time, its status when it changes, faults and the
end of each game. A resting machine's own animation is not (its ticks that
step the attract lamps, and those lamps: some 600 lines a minute on a
Nimatron, which would push a Pi's faults out of its journal within days):
the live game's rule (controller/telemetry/live.py's `animation`) on a
replica of the board's machine, restored from the board's state and driven by
its event lines, with or without [telemetry]. Until it has one, every line is
shown. A game's end and each fault go into the same SQLite statistics the Pi
service keeps (controller/service/stats.py), so `controller stats` counts the
board's games with the Pi's; with [telemetry] on, its status, games and
faults also go to the MQTT broker, as a Pi exhibit's do
(controller/telemetry/publisher.py), and the same replica makes its live game
for a screen beside it. When the port comes back after a pulled cable or a
reset, or the replica cannot follow (the board restarted or moved its clock),
the monitor asks the board for its state again, so what it shows is never
stale. A board that holds after resets answers that request with the reason
its fault line has just given: the refusal is shown only when the monitor
missed that line, and as the answer to its own request, not one typed.

What the person at the monitor types goes to the board, one protocol line
each (or a request's kind alone: `state`), checked first by the core's own
reader, which says at which column a line goes wrong where a board's built-in
`json` cannot; the board's answer says which line it took, or why it refused it.
"""

import queue
import threading
import time

from controller.core.protocol import HOST_CLOCK, HOST_KINDS, checked, decode
from controller.core.registry import NAMES, machine_class
from controller.core.scenario import ScriptError, script_settings
from controller.firmware.link import describe_hello
from controller.telemetry.live import LiveGame, animation
from controller.telemetry.payloads import SIDES, TEXT_KEPT

# A state request not answered within this many seconds (its reply lost to noise on the line) may be sent again.
ASK_AGAIN_S = 30
# How a board started, as its hello says; the fault line that comes next says why a board holds.
RESUMED = {"new": "a new game", "saved": "the saved game resumed",
           "check": "held in check until staff press New game (a marble was on its way, or the save was damaged)",
           "held": "held after resets in a row, every output safe, until staff hold New game down "
                   "for 3 s or a new_game line comes"}


def clock(message):
    at = message.get("at")
    return "%10.3f s" % (at / 1000) if isinstance(at, int) else " " * 12


def words(value):
    return " ".join(str(part) for part in value) if isinstance(value, list) else str(value)


def describe_status(status):
    """A status table (the machine's status()) in one line."""
    if not isinstance(status, dict):
        return words(status)
    parts = ["%s" % status.get("mode")]
    if "rail" in status:
        parts.append("%s of %s marbles on the rail" % (status.get("rail"), status.get("loaded")))
    if "rows" in status:
        # held in a fault, the Nimatron's rows are dark (controller status says the same)
        parts.append("rows dark" if status.get("fault") else "rows %s" % words(status["rows"]))
    if status.get("mode") == "over":
        parts.append("won by %s" % status.get("winner"))
    else:
        parts.append("%s's turn" % status.get("turn"))
    if status.get("fault"):
        parts.append("fault %s" % status["fault"])
    if status.get("attract"):
        parts.append("attract")
    return ", ".join(parts)


def describe(message, language=None):
    """One line of text for one line from the board; what the machine says in `language` (a
    controller.language.Language, by default English)."""
    kind = message["kind"]
    if kind == "hello":
        return "board: %s; %s" % (describe_hello(message), RESUMED.get(message.get("resumed"), "started"))
    if kind == "event":
        return "%s  %s" % (clock(message), words(message.get("event")))
    if kind == "command":
        command = message.get("command")
        if isinstance(command, list) and len(command) == 3 and command[0] == "message" \
                and isinstance(command[1], str) and isinstance(command[2], dict):
            return "%s    -> message: %s" % (clock(message), (language or english()).message(command[1], command[2]))
        return "%s    -> %s" % (clock(message), words(command))
    if kind == "status":
        return "%s  status: %s" % (clock(message), describe_status(message.get("status")))
    if kind == "state":
        return "%s  state: %s" % (clock({"at": message.get("now")}), describe_status(message.get("status")))
    if kind == "fault":
        return "%s  FAULT %s: %s" % (clock(message), message.get("fault"), message.get("text", ""))
    if kind == "game_over":
        return "%s  game over: won by %s" % (clock(message), message.get("winner"))
    if kind == "ok":            # the monitor's own requests are for state alone: this answers a typed line
        asked = message.get("asked")
        return "board took the %s line" % asked if isinstance(asked, str) else "board took a line"
    if kind == "advanced":
        now = message.get("now")
        said = "board took the advance line"
        if isinstance(now, int):
            said += ": its clock at %.3f s" % (now / 1000)
        return said + (", still busy" if message.get("busy") is True else "")
    if kind == "error":
        if message.get("id") == "monitor":      # nobody typed it: the monitor's own request, sent as it starts
            return "board did not answer the monitor's state request: %s" % message.get("error")
        return "board refused a line: %s" % message.get("error")
    return "%s  %s" % (clock(message), kind)


def board_machine(message):
    """The machine a hello line or a state reply names, or None. A board that
    started before the monitor said hello to nobody, and its state is the
    first the monitor hears of its machine."""
    if message["kind"] == "hello":
        machine = message.get("machine")
    elif message["kind"] == "state" and isinstance(message.get("game"), dict):
        machine = message["game"].get("machine")
    else:
        return None
    return machine if isinstance(machine, str) else None


def unsent(kind, record):
    """Where the live game goes without [telemetry]: nowhere (the replica still says which lines to show)."""


def english():
    from controller.language import language
    return language("en")


class Monitor:
    """Shows what a board on `link` says (`write(line)`), what its machine says in `language` (the
    configuration's first), and records its games in `stats` and sends them to `telemetry` (a
    publisher, or None). `machine` is whose faults they are until the board names its own."""

    def __init__(self, link, write, stats=None, telemetry=None, language=None, typed=None, machine=None,
                 clock=time.monotonic):
        self.link = link
        self.typed = typed
        self.language = language
        self.write = write
        self.stats = stats
        self.telemetry = telemetry
        self.clock = clock
        self.opens = 0
        self.machine = machine
        self.live = LiveGame(telemetry.live if telemetry is not None else unsent)
        self.animating = False  # the last event line was a resting machine's own: it and its commands not shown
        self.asked = None        # when the board was asked for its state, until it answers
        self.unreadable = False  # its state cannot be followed: asked again only once it starts again
        self.holding = False     # its hello said it holds: its fault line said why, as each refusal would again
        self.board_status = None  # the board's last status (its game, its fault), for `controller status`

    def step(self, timeout=0.2):
        """Wait up to `timeout` s for a line from the board and show it."""
        if self.link.opens != self.opens and self.link.serial is not None:
            self.opens = self.link.opens
            self.asked = None       # a board on a port opened again never answers a request sent before
            self.unreadable = False
            self.holding = False    # its hello may have gone to nobody: the refusal is then what says it holds
            self.ask()
        if self.typed is not None:
            for line in self.typed.pending():
                self.send_typed(line)
        message = self.link.receive(timeout)
        if message is None:
            return
        self.record(message)        # first: a line on the screen is one counted, even if Ctrl-C comes next
        if self.animating and message["kind"] in ("event", "command"):
            return
        if self.holding and message["kind"] == "error" and message.get("id") == "monitor":
            return
        self.write(describe(message, self.language))

    def record(self, message):
        kind = message["kind"]
        machine = board_machine(message)
        if machine is not None:
            self.machine = machine
            if self.telemetry is not None:
                self.telemetry.machine = machine
        if self.telemetry is not None:
            self.publish(message)
        if kind in ("status", "state") and isinstance(message.get("status"), dict):
            self.board_status = message["status"]
        if kind != "command":
            self.animating = False
        self.follow(message)
        if self.stats is None:
            return
        # what the statistics take: a line of another shape (another firmware's, noise that reads as a
        # line) would be refused by them, with every record written beside it
        if kind == "game_over" and message.get("winner") in SIDES:
            machine = message.get("machine")
            self.stats.game(machine if isinstance(machine, str) else self.machine, message["winner"])
        elif kind == "fault" and isinstance(message.get("fault"), str):
            self.stats.fault(self.machine, message["fault"][:TEXT_KEPT])

    def publish(self, message):
        """What the fleet sees of the board: its status, its games (won by one side) and its faults."""
        kind = message["kind"]
        if kind in ("status", "state") and isinstance(message.get("status"), dict):
            self.telemetry.status(message["status"])
        elif kind == "game_over" and message.get("winner") in SIDES:
            turns = message.get("turns")
            self.telemetry.game(message["winner"], len(turns) if isinstance(turns, list) else 0, None, {})
        elif kind == "fault" and isinstance(message.get("fault"), str):
            self.telemetry.fault(message["fault"])

    def follow(self, message):
        """The replica, which says which lines are a resting machine's own, and makes the live game:
        restored from the board's state, its events replayed; a board that restarted, or an event
        the replica cannot follow, and the board is asked again."""
        kind = message["kind"]
        if kind == "state":
            self.asked = None
            problem = self.live.board_state(message.get("game"), message.get("now"))
            self.unreadable = problem is not None
            if problem and self.telemetry is not None:
                self.write("live: " + problem)
        elif kind == "hello":
            self.live.replica = None
            self.unreadable = False
            self.holding = message.get("resumed") == "held"
            self.ask()
        elif kind == "error" and message.get("id") == "monitor":
            self.asked = None       # refused (a board that holds after resets): asked again once it starts again
        elif kind == "event":
            event = message.get("event")
            was_resting = self.live.replica is not None and self.live.replica.resting
            if self.live.board_event(event, message.get("at")):
                self.animating = animation(event, was_resting)
            else:
                self.ask()

    def send_typed(self, line):
        """A typed line to the board, once it reads as a request a board takes; else one line on
        what is wrong with it, and nothing sent."""
        text = line.strip()
        if not text:
            return
        words = text.split()
        try:
            if words[0] == "new_game" and len(words) > 1:
                message = {"kind": "new_game", "settings": self.typed_settings(words[1:])}
            else:
                message = {"kind": text} if text in HOST_KINDS else checked(decode(text), clock=HOST_CLOCK)
        except ValueError as error:     # the protocol's, a setting's (BadValue, ConfigError), ScriptError
            self.link.report("typed line not sent: %s" % error)
            return
        self.link.send(message)

    def typed_settings(self, words):
        """`new_game rule=last-wins marbles=12` typed as a script's game line writes settings (the JSON line
        was the only way, and this one was refused at column 1); ScriptError naming what does not fit."""
        if self.machine not in NAMES:
            raise ScriptError("new_game: the board has not said which machine it plays yet: type the JSON line, "
                              "{\"kind\": \"new_game\", \"settings\": {...}}")
        settings = script_settings(machine_class(self.machine), words)
        machine_class(self.machine)(settings)          # a setting the machine refuses, named before it is sent
        return settings

    def ask(self):
        """Ask the board for its state, once until it answers or ASK_AGAIN_S pass; not again after a
        state that cannot be followed, until the board starts again or the port opens again."""
        if self.unreadable or self.link is None or self.link.serial is None:
            return
        if self.asked is None or self.clock() - self.asked >= ASK_AGAIN_S:
            self.asked = self.clock()
            self.link.send({"kind": "state", "id": "monitor"})


class TypedLines:
    """The lines typed at the monitor (its standard input), read on a thread of their own, since
    reading them blocks, and handed to the monitor's loop, which alone talks to the board. Under
    a service manager the input is empty and the thread ends at once."""

    def __init__(self, stream):
        self.lines = queue.Queue()
        threading.Thread(target=self.read, args=(stream,), daemon=True, name="typed lines").start()

    def read(self, stream):
        try:
            for line in stream:
                self.lines.put(line)
        except (OSError, ValueError):       # an input that cannot be read (closed, or not text) sends nothing
            pass

    def pending(self):
        """The lines typed since the last call."""
        while True:
            try:
                yield self.lines.get_nowait()
            except queue.Empty:
                return
