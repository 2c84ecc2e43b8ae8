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
from controller.core.scenario import (FALL_MS, GAP_MS, PRESS_MS, SETTLE_LIMIT_MS, Script, ScriptError, command_text,
                                      read_controls, summary_of)
from controller.core.protocol import DEVELOPMENT, HOST_CLOCK, PROTOCOL
from controller.firmware.board import Board, BoardError, BoardUnfit
from controller.firmware.link import Link

# The emulated board starts in well under a second; a real one is already running,
# and says hello only if it starts while the port is open.
HELLO_S = 20.0
HELLO_QUIET_S = 1.0
# On a board's own clock, a script waits for the machine to come to rest, polling this often.
SETTLE_POLL_S = 0.1
START_GAP_MS = 1000


class BoardWorld:
    """The world of a script played on a board; `connect(machine)` gives a Board running
    that machine, with its `hands`: what presses its buttons, moves its marbles and lets
    its time pass (ProtocolHands, HostClockHands or controller/firmware/rp2040.py's PicoHands)."""

    def __init__(self, connect, seed=0, jam_rate=0.0, glitch_rate=0.0):
        self.connect = connect
        self.faults = {"seed": seed, "jam_rate": jam_rate, "glitch_rate": glitch_rate}
        self.board = None
        self.machine = None
        self.commands = []
        self.outputs = {}
        self.status = {}
        self.released = 0

    @property
    def hands(self):
        return self.board.hands

    # --- what the board says, as it says it --------------------------------------------
    def seen(self, message):
        if message["kind"] == "status":
            self.status = message["status"]
        if message["kind"] != "command":
            return
        command = message["command"]
        self.commands.append(command_text(command))
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
        return self.hands.releases(state, self.released)

    # --- the script's world --------------------------------------------------------------
    def start(self, cls, settings):
        self.machine = cls(settings)  # a bad setting is the script's error, found before the board is asked
        if self.board is None or self.board.machine != cls.NAME:
            self.board = self.connect(cls.NAME)
            self.board.on_line = self.seen
        self.commands = []
        self.outputs = {}
        self.released = 0
        self.hands.start(self.faults, self.machine)
        self.board.ask("new_game", settings=settings)
        self.hands.new_game(self.machine)

    def press(self, role):
        self.hands.press(role)

    def switch(self, spec, active):
        self.hands.switch(spec, active)

    def drop_marble(self):
        """A marble dropped past the gate by hand."""
        self.hands.drop_marble()

    def power(self):
        """The controller loses its power and starts again, as the simulator's service does from its saved game."""
        self.hands.power()
        # what the board resumed (a game, or a hold in "check"): its lines after the hello, then its state
        self.status = self.board.ask("state")["status"]

    def wait(self, ms):
        self.hands.advance(ms)

    def settle(self):
        self.hands.advance(SETTLE_LIMIT_MS, settle=True)

    def set_world(self, fall_ms=None, lost=None, double=None, spike=None):
        given = {"fall_ms": fall_ms, "lost": lost, "double": double, "spike": spike}
        self.hands.set_world(dict((key, list(value) if key != "fall_ms" else value)
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


class ProtocolHands:
    """A real board on its port, in development mode: a press, a switch or a marble is
    an `inject` line, and time is the board's own, passing in real time."""

    def __init__(self, board):
        self.board = board

    def start(self, faults, machine):
        pass

    def new_game(self, machine):
        pass

    def releases(self, state, counted):
        return counted

    def inject(self, *event):
        self.board.ask("inject", event=list(event))

    def advance(self, ms, settle=False):
        board = self.board
        if not settle:
            board.pass_time(ms / 1000)
            return
        waited = 0
        while self.busy() and waited < ms:
            board.pass_time(SETTLE_POLL_S)
            waited += int(SETTLE_POLL_S * 1000)

    def busy(self):
        return self.board.ask("state").get("busy")

    def press(self, role):
        self.inject("press", role)
        self.advance(PRESS_MS)
        self.inject("release", role)
        self.advance(GAP_MS)

    def switch(self, spec, active):
        position = [word for word, side in spec.positions.items() if side == active][0]
        self.inject("switch", spec.events[0][1], position)
        self.advance(GAP_MS)  # a person's hand leaves the lever, as in the simulator

    def drop_marble(self):
        """A real board is told its sensor saw one."""
        self.inject("marble")

    def power(self):
        """A real board is told its power came back (it cannot be cut from here)."""
        self.inject("power")

    def set_world(self, given):
        raise BoardError("a real board's marbles fall as they fall: a 'world' line needs an emulated board (--emulate)")


class HostClockHands(ProtocolHands):
    """The unix emulated board on the host's clock: time passes in `advance` lines, so a
    script plays there exactly as in the simulator, as fast as the link allows, and
    `world` lines set its emulated marbles (fall time, lost and double releases, jams
    and glitches by rate and seed). A power cut starts it again from its flash."""

    def start(self, faults, machine):
        # a second between games, as the core's scenario runner leaves: the inputs' debouncing
        # must not take a new game's first marble for the last one's bounce
        self.advance(START_GAP_MS)
        # the emulated marbles: the scripts' fall time, the command line's faults
        self.board.ask("world", fall_ms=FALL_MS, seed=faults["seed"], jam_rate=str(faults["jam_rate"]),
                       glitch_rate=str(faults["glitch_rate"]))

    def releases(self, state, counted):
        return state.get("world", {}).get("releases", counted)

    def advance(self, ms, settle=False):
        self.board.ask("advance", ms=ms, settle=settle)

    def press(self, role):
        """Held PRESS_MS, then a pause of GAP_MS: four lines sent at once."""
        self.board.ask_all([("inject", {"event": ["press", role]}), ("advance", {"ms": PRESS_MS}),
                            ("inject", {"event": ["release", role]}), ("advance", {"ms": GAP_MS})])

    def drop_marble(self):
        self.board.ask("world", drop=True)

    def power(self):
        self.board.ask_all([("world", {"power_cut": True})], restarts=True)

    def set_world(self, given):
        self.board.ask("world", **given)


def run_scripts(scripts, connect, report, **faults):
    """Play each (name, text) of `scripts` on the board; a dict name -> failures
    (a list; an unreadable script raises ScriptError naming it and its line;
    a board that fails mid-script is one failure naming the step; one that can
    play none of them raises BoardUnfit)."""
    world = BoardWorld(connect, **faults)
    results = {}
    for name, text in scripts:
        script = Script(world, report)
        try:
            script.play(text)
        except ScriptError as error:
            raise ScriptError("%s: %s" % (name, error))
        except BoardUnfit:
            raise       # the same for every script: the run stops (the caller says why)
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


class PicoHands(ProtocolHands):
    """The official MicroPython on an emulated RP2040 (controller/firmware/rp2040.py),
    running a production build as an exhibit does: a person's hands press its buttons
    and move its switches on their pins, the marble world outside the chip drives its
    sensor, and its time passes only as the script says, each thing at its own time.
    A power cut starts the chip again from its flash."""

    def __init__(self, board, bench):
        ProtocolHands.__init__(self, board)
        self.bench = bench
        self.inputs = dict((line[0], (line[1], line[3])) for line in bench.config.INPUTS)
        self.active = dict((role, False) for role in self.inputs)

    def start(self, faults, machine):
        """Each game of a script starts with the levers at rest, but those the machine remembers
        where its settings say, as on the simulator's fresh replica."""
        switches = machine.switches()
        for role in self.active:
            if self.active[role] != switches.get(role, False):
                self.hand(role, switches.get(role, False))
        self.advance(START_GAP_MS)
        self.world({"fall_ms": FALL_MS, "seed": faults["seed"], "jam_rate": str(faults["jam_rate"]),
                    "glitch_rate": str(faults["glitch_rate"])})

    def new_game(self, machine):
        self.bench.world.new_game(machine)

    def releases(self, state, counted):
        return self.bench.world.view()["releases"]

    def world(self, message):
        """A `world` line's fields, acted on at the board's present time."""
        from controller.core.protocol import ProtocolError
        bench = self.bench
        bench.world_now = bench.pico.now // 1000000
        try:
            bench.world.configure(message)
        except ProtocolError as error:
            raise BoardError(str(error))

    def busy(self):
        return self.bench.world.busy() or ProtocolHands.busy(self)

    def hand(self, role, active):
        number, active_high = self.inputs[role]
        self.active[role] = active
        self.bench.pico.drive((number, active_high if active else not active_high))

    def press(self, role):
        self.hand(role, True)
        self.advance(PRESS_MS)
        self.hand(role, False)
        self.advance(GAP_MS)

    def switch(self, spec, active):
        """A person moves the lever to the side asked for, even when it already sits
        there (Dr. Nim's marbles flip the turn indicator back, not the lever): then it
        goes to the other side and back, as in the simulator."""
        if self.active[spec.role] == active:
            self.hand(spec.role, not active)
            self.advance(GAP_MS)
        self.hand(spec.role, active)
        self.advance(GAP_MS)

    def drop_marble(self):
        """The marble passes the beam whole, as on the unix emulated board and in the
        simulator, and a person looks a moment later, as after a press: a Pico takes
        milliseconds to count it and say so, longer while it is writing its flash."""
        self.world({"drop": True})
        self.advance(self.bench.world_module.BEAM_MS + GAP_MS)

    def power(self):
        self.bench.pico.power_cut()
        self.board.wait_restart(HELLO_S)

    def set_world(self, given):
        self.world(given)


class Connector:
    """`connect(machine)`: a Board running `machine`, with the hands that play it: on
    the port (a board in development mode, already running that machine), or
    emulated, started anew for each machine the scripts ask for (`emulate`: "unix",
    the firmware on the fake `machine` module on the host's clock, or "rp2040", the
    official MicroPython `uf2` on an emulated Pico, the build deployed with mpremote;
    `timer_us`: where its timer starts, 0 as on a Pico; `pinmap`: the pin map an emulated
    board is built from, None for its machine's shipped one)."""

    def __init__(self, port=None, emulate=None, report=None, uf2=None, images=None, write_flash=None, timer_us=0,
                 pinmap=None):
        self.port = port
        self.pinmap = pinmap
        self.emulate = emulate
        self.report = report or (lambda line: None)
        self.uf2 = uf2
        self.images = images
        self.write_flash = write_flash
        self.timer_us = timer_us
        self.link = None
        self.emulator = None

    def __call__(self, machine):
        if self.emulate == "rp2040":
            return self.emulated_pico(machine)
        if self.emulate:
            from controller.firmware.emulator import Emulator
            self.close()
            self.emulator = Emulator(machine, clock=HOST_CLOCK, pinmap=self.pinmap)
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
        self.check(hello, machine)
        board.machine = machine
        if hello.get("mode") not in (DEVELOPMENT, None):
            raise BoardUnfit("the board on %s runs in %s mode, which takes no injected events: deploy a build "
                             "made with --development" % (self.link.port, hello.get("mode")))
        board.hands = HostClockHands(board) if hello.get("clock") == HOST_CLOCK else ProtocolHands(board)
        return board

    def emulated_pico(self, machine):
        from controller.firmware.rp2040 import EmulatedLink, deployed_pico
        self.close()
        self.emulator, bench = deployed_pico(machine, self.uf2, images=self.images, write_flash=self.write_flash,
                                             pinmap=self.pinmap)
        self.link = EmulatedLink(bench, report=self.report)
        self.link.try_open()
        self.emulator.power_cut(timer_us=self.timer_us)     # a clean start from its flash, heard from its hello on
        board = Board(self.link)
        self.check(board.wait_hello(HELLO_S), machine)
        board.machine = machine
        board.hands = PicoHands(board, bench)
        return board

    def check(self, hello, machine):
        if "protocol" in hello and hello["protocol"] is None:
            # a state reply without it: firmware older than a6e4ee9, which named it only in its hello
            raise BoardUnfit("the board on %s runs firmware older than this controller's, which does not say its "
                             "protocol: deploy this controller's build to it" % self.link.port)
        if hello.get("protocol", PROTOCOL) != PROTOCOL:
            raise BoardUnfit("the board on %s speaks protocol %s and this controller protocol %d: deploy this "
                             "controller's build to it" % (self.link.port, hello.get("protocol"), PROTOCOL))
        if hello.get("machine") != machine:
            raise BoardUnfit("the board on %s runs %s, and the script needs %s: deploy a build for it"
                             % (self.link.port, hello.get("machine"), machine))

    def close(self):
        if self.link:
            self.link.close()
            self.link = None
        if self.emulator:
            self.emulator.stop()
            self.emulator = None
