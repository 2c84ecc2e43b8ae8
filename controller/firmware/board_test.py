"""`controller firmware test`: scenario scripts played on a board through the protocol.

The scripts are the simulator's (controller/core/scenario.py reads them, both
dialects); here is only the world they act on: a board in development mode.
A press, a switch or a marble is an `inject` line, time passes with `advance`
lines (the emulated board runs on the host's clock, so a script plays there
exactly as in the simulator and as fast as the link allows), and `world`
lines set the emulated marbles (fall time, lost and double releases, jams and
glitches by rate and seed). A script's `power` cuts the emulated board's power:
it starts again from its flash, as the simulator's service does from its saved
game.

What an `expect` checks is read as a person would read the board: the
indicators' sides and the lamps from the output commands the board gave
(the same commands that drive its pins), and the game (rail, turns, winner,
fault) from the board's own state, asked after every step.
"""

from controller.core.exhibit import RELEASE
from controller.core.scenario import (FALL_MS, GAP_MS, PRESS_MS, SETTLE_LIMIT_MS, Script, ScriptError, read_controls,
                                      summary_of)
from controller.core.protocol import DEVELOPMENT, HOST_CLOCK
from controller.firmware.board import Board, BoardError
from controller.firmware.link import Link

# The emulated board starts in well under a second; a real one is already running,
# and says hello only if it starts while the port is open.
HELLO_S = 20.0
HELLO_QUIET_S = 1.0
# On a board's own clock, a script waits for the machine to come to rest, polling this often.
SETTLE_POLL_S = 0.1
START_GAP_MS = 1000


class BoardWorld:
    """The world of a script played on a board; `connect(machine)` gives a Board running that machine."""

    def __init__(self, connect, seed=0, jam_rate=0.0, glitch_rate=0.0):
        self.connect = connect
        self.faults = {"seed": seed, "jam_rate": jam_rate, "glitch_rate": glitch_rate}
        self.board = None
        self.machine = None
        self.commands = []
        self.outputs = {}
        self.status = {}
        self.released = 0

    # --- what the board says, as it says it --------------------------------------------
    def seen(self, message):
        if message["kind"] == "status":
            self.status = message["status"]
        if message["kind"] != "command":
            return
        command = message["command"]
        self.commands.append(" ".join(str(part) for part in command))
        if command[0] == "release":
            self.released += 1
        elif command[0] in ("flip_flop", "row"):
            self.outputs["%s_%s" % (command[0], command[1])] = command[2]
        elif command[0] in ("equalizer", "turn"):
            self.outputs[command[0]] = command[1]

    def refresh(self):
        """The machine as the board holds it now; the releases since the last world line."""
        state = self.board.ask("state")
        self.machine = type(self.machine).from_dict(state["game"])
        return state.get("world", {}).get("releases", self.released)

    def advance(self, ms, settle=False):
        """Time passes: on the host's clock, an advance line; on the board's own, in real time."""
        board = self.board
        if board.clock == HOST_CLOCK:
            board.ask("advance", ms=ms, settle=settle)
            return
        if not settle:
            board.pass_time(ms / 1000)
            return
        waited = 0
        while board.ask("state").get("busy") and waited < ms:
            board.pass_time(SETTLE_POLL_S)
            waited += int(SETTLE_POLL_S * 1000)

    def inject(self, *event):
        self.board.ask("inject", event=list(event))

    # --- the script's world --------------------------------------------------------------
    def start(self, cls, settings):
        self.machine = cls(settings)  # a bad setting is the script's error, found before the board is asked
        if self.board is None or self.board.hello.get("machine") != cls.NAME:
            self.board = self.connect(cls.NAME)
            self.board.on_line = self.seen
        self.commands = []
        self.outputs = {}
        self.released = 0
        if self.board.clock == HOST_CLOCK:
            # a second between games, as the core's scenario runner leaves: the inputs' debouncing
            # must not take a new game's first marble for the last one's bounce
            self.advance(START_GAP_MS)
            # the emulated marbles: the scripts' fall time, the command line's faults
            self.board.ask("world", fall_ms=FALL_MS, seed=self.faults["seed"], jam_rate=str(self.faults["jam_rate"]),
                           glitch_rate=str(self.faults["glitch_rate"]))
        self.board.ask("new_game", settings=settings)

    def press(self, role):
        """Held PRESS_MS, then a pause of GAP_MS: on the host's clock, four lines sent at once."""
        if self.board.clock != HOST_CLOCK:
            self.inject("press", role)
            self.advance(PRESS_MS)
            self.inject("release", role)
            self.advance(GAP_MS)
            return
        self.board.ask_all([("inject", {"event": ["press", role]}), ("advance", {"ms": PRESS_MS}),
                            ("inject", {"event": ["release", role]}), ("advance", {"ms": GAP_MS})])

    def switch(self, spec, active):
        position = [word for word, side in spec.positions.items() if side == active][0]
        self.inject("switch", spec.events[0][1], position)
        self.advance(GAP_MS)  # a person's hand leaves the lever, as in the simulator

    def drop_marble(self):
        """A marble dropped past the gate by hand: the emulated world drops one; a real board is told its sensor saw one."""
        if self.board.clock == HOST_CLOCK:
            self.board.ask("world", drop=True)
        else:
            self.inject("marble")

    def power(self):
        """The controller restarts: the emulated board loses its power and starts again from
        its flash, as the simulator's service does from its saved game; a real board is told."""
        if self.board.clock != HOST_CLOCK:
            self.inject("power")
            return
        self.board.ask_all([("world", {"power_cut": True})], restarts=True)
        # what the board resumed (a game, or a hold in "check"): its lines after the hello, then its state
        self.status = self.board.ask("state")["status"]

    def wait(self, ms):
        self.advance(ms)

    def settle(self):
        self.advance(SETTLE_LIMIT_MS, settle=True)

    def set_world(self, fall_ms=None, lost=None, double=None, spike=None):
        if self.board.clock != HOST_CLOCK:
            raise BoardError("a real board's marbles fall as they fall: a 'world' line needs the emulated board "
                             "(--emulate)")
        given = {"fall_ms": fall_ms, "lost": lost, "double": double, "spike": spike}
        self.board.ask("world", **dict((key, list(value) if key != "fall_ms" else value)
                                       for key, value in given.items() if value is not None))
        if lost is not None or double is not None or spike is not None:
            self.released = 0

    def view(self):
        """What a person can check: the game from the board's state (asked now), the
        indicators and lamps from its outputs."""
        releases = self.refresh()
        machine = self.machine
        return self.shown({"turn": machine.turn, "winner": machine.winner, "fault": machine.fault,
                           "mode": machine.mode, "attract": machine.attract, "rail": machine.rail
                           if machine.has_output(RELEASE) else None},
                          {"turns": [":".join(str(p) for p in turn) for turn in machine.turns],
                           "releases": str(releases)})

    def summary(self):
        """The step's one line, from the status lines the board sent (no question asked)."""
        return summary_of(self.shown(self.status, {}))

    def shown(self, status, view):
        """`view` with what a status table and the outputs show, in a script's words."""
        view.update({"turn": status.get("turn"), "winner": status.get("winner") or "none",
                     "fault": status.get("fault") or "none", "mode": status.get("mode"),
                     "attract": "yes" if status.get("attract") else "no"})
        outputs = self.outputs
        if self.machine.has_output(RELEASE):
            view["rail"] = str(status.get("rail"))
            read_controls(view, outputs.get)
        else:
            view["rows"] = ",".join(str(outputs.get("row_%d" % (i + 1), 0)) for i in range(self.machine.config["rows"]))
        return view


def run_scripts(scripts, connect, report, **faults):
    """Play each (name, text) of `scripts` on the board; a dict name -> failures
    (a list; an unreadable script raises ScriptError naming it and its line;
    a board that fails mid-script is one failure naming the step)."""
    world = BoardWorld(connect, **faults)
    results = {}
    for name, text in scripts:
        script = Script(world, report)
        try:
            script.play(text)
        except ScriptError as error:
            raise ScriptError("%s: %s" % (name, error))
        except BoardError as error:
            script.failures.append("%s (the script stopped there)" % error)
            report("%s: %s" % (name, error))
            world.board = None
        results[name] = script.failures
        report("%s: %s" % (name, outcome(script.failures)))
    return results


def outcome(failures):
    """A script's result in the words of `controller --simulate --script`."""
    if not failures:
        return "every expectation holds"
    return "%d expectation%s failed" % (len(failures), "" if len(failures) == 1 else "s")


class Connector:
    """`connect(machine)`: a Board running `machine`, in development mode: on the
    port (the board must already run that machine), or emulated (started anew
    for each machine the scripts ask for)."""

    def __init__(self, port=None, emulate=False, report=None):
        self.port = port
        self.emulate = emulate
        self.report = report or (lambda line: None)
        self.link = None
        self.emulator = None

    def __call__(self, machine):
        if self.emulate:
            from controller.firmware.emulator import Emulator
            self.close()
            self.emulator = Emulator(machine, clock=HOST_CLOCK)
            self.link = Link(self.emulator.port, report=self.report)
            self.link.try_open()
            self.emulator.start()
        elif self.link is None:
            self.link = Link(self.port, report=self.report)
        board = Board(self.link)
        try:
            hello = board.wait_hello(HELLO_S) if self.emulate else board.identify(HELLO_QUIET_S)
        except BoardError:
            if self.emulator:
                self.emulator.check()  # the emulator's own last words say more
            raise
        board.clock = hello.get("clock")
        if hello.get("machine") != machine:
            raise BoardError("the board on %s runs %s, and the script needs %s: deploy a build for it"
                             % (self.link.port, hello.get("machine"), machine))
        if hello.get("mode") not in (DEVELOPMENT, None):
            raise BoardError("the board on %s runs in %s mode, which takes no injected events: deploy a build "
                             "made with --development" % (self.link.port, hello.get("mode")))
        return board

    def close(self):
        if self.link:
            self.link.close()
            self.link = None
        if self.emulator:
            self.emulator.stop()
            self.emulator = None
