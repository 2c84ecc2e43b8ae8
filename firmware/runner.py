"""The board's controller: the core machine between the drivers and the
serial line, the same for a real board and the emulated one.

It feeds the machine its events (polled inputs, counted marbles, timer
ticks, and in development mode the host's injected ones), saves the game
before it opens the release (so a reset can lose a command, but a release
under way always finds one under way in the saved game: a save made while
the release is open waits behind the one that opened it), and after it
carries out commands without one (a save takes a Pico about 140 ms, which
a visitor would see between moving a lever and its lamp), and reports every
event, command, status change, fault and game's end over the line protocol
(controller/core/protocol.py, firmware/PROTOCOL.md).

At start it resumes the saved game as the Pi service does: no save, or one
for the other machine, is a new game; a save that cannot be resumed is set
aside and the game held in fault "check"; a game resumed with a release under
way holds in "check" too (the machine's own rule, on the ("power",) event).

Time is the caller's: `step(now)` does everything due at `now`. A real board
calls it from its asyncio tasks with its own clock; on the host's clock
(the emulated board's HostClockRunner, firmware/emulator/host_clock.py) time
passes only in `advance` lines. The save before a release takes real time
on a board (tens of ms of flash writing), so the commands are carried out at
the time `time()` gives after it: a release timed from the event instead
would open for what is left of its pulse, too short to let a marble go.
"""

import gc
import json
import sys

import flash
from drivers import BoardLed, Inputs, Outputs

from controller.core import protocol
from controller.core.exhibit import RESTING_TIMERS
from controller.core.keeping import Keeper
from controller.core.protocol import ProtocolError
from controller.core.registry import machine_class

SEPARATORS = (",", ":")


class Lines:
    """Bytes from the serial port cut into lines for `take(line)`; a line
    longer than the protocol's MAX_LINE is dropped as it comes (the buffer
    never grows) and `take(None, length)` is told once, at its end."""

    def __init__(self, take):
        self.take = take
        self.buffer = bytearray(protocol.MAX_LINE + 2)
        self.size = 0

    def byte(self, value):
        if value == 10:
            size, self.size = self.size, 0
            if size > len(self.buffer):
                self.take(None, size)
            else:
                self.take(bytes(self.buffer[:size]), size)
        elif self.size < len(self.buffer):
            self.buffer[self.size] = value
            self.size += 1
        else:
            self.size += 1


def wiring_problem(config, machine):
    """Why a board built with `config` cannot play `machine`'s settings as it is wired, or None: more rows or
    lamps than its pin map has, or a pace whose release pulses would trip the PTC that guards its coil (a
    host's new_game, settings kept before a build that knew it, or a game saved before it)."""
    problem = machine.wiring_problem(config.LAYOUT)
    if not problem and machine.config.get("pace_ms", 0) < config.SHORTEST_PACE_MS:
        problem = "pace_ms: %d, but the coil's PTC trips at a pace under %d ms" % (
            machine.config["pace_ms"], config.SHORTEST_PACE_MS)
    return problem


def forget(names):
    """Drop modules a rare task loaded (a restore's checks of the saved game):
    from sys.modules and from their package, so that their code's heap is free
    again once nothing else holds it, and the task imports them afresh."""
    for name in names:
        del sys.modules[name]
        package, _, leaf = name.rpartition(".")
        if package in sys.modules and hasattr(sys.modules[package], leaf):
            delattr(sys.modules[package], leaf)


class Runner:
    def __init__(self, config, write, wake, ticks_ms, ticks_diff, clock=protocol.REAL_CLOCK, world=None,
                 path="game.json", time=None):
        """`wake()`, called from the pins' and the timers' interrupts: the loop has
        something to do now."""
        self.config = config
        self.time = time or (lambda: self.now)      # the board's clock in ms; the host's is `now`
        self.write = write
        self.clock = clock
        self.world = world
        self.path = path
        gc.collect()
        self.cls = machine_class(config.MACHINE)
        declared = dict((spec.role, spec) for spec in self.cls.OUTPUTS)
        self.outputs = Outputs(config.OUTPUTS, declared, config.RELEASE_PULSE_MS, wake)
        events = dict((spec.role, spec.events) for spec in self.cls.inputs(config.LAYOUT))
        self.inputs = Inputs(config.INPUTS, events, wake, ticks_ms, ticks_diff)
        self.sensor = None
        if config.SENSOR:
            from marble_sensor import MarbleSensor      # Dr. Nim's: a Nimatron's heap never holds its code
            self.sensor = MarbleSensor(config.SENSOR, wake, ticks_ms, ticks_diff)
        self.led = BoardLed()
        self.emit = self.handle     # bound once: polling allocates nothing
        self.deadline = None
        self.now = 0
        self.machine = None
        self.keeper = Keeper()
        self.storage = None
        # the board's settings: the build's, or the last a host's new_game line gave, kept beside the saved game
        # (PATH-settings.json: /game-settings.json), so that a game set aside (a held board started afresh, a
        # damaged save) or a bare new_game plays them, not the defaults. No new name for them: each name a
        # board's code adds is heap, and a few more doubled a Nimatron's table of them (4.5 KiB at once).
        self.settings = config.SETTINGS

    # --- start ------------------------------------------------------------------
    def start(self, now):
        self.now = now
        unkept = None
        kept = self.path[:-5] + "-settings.json"
        text = flash.read(kept)
        if text is not None:
            try:
                settings = json.loads(text)
                problem = wiring_problem(self.config, self.cls(settings)) if isinstance(settings, dict) \
                    else "not a table of settings"
                if problem:
                    raise ValueError(problem)
                self.settings = settings
            except Exception as error:      # whatever the file holds, the board starts, and says so once
                flash.set_aside(kept)
                unkept = "the settings kept in %s are not played (%s): set aside as %s.bad; the build's are, " \
                         "until a host's new_game gives others" % (kept, error, kept)
        text = None
        machine, resumed, problem = self.restore()
        self.send(protocol.hello(self.cls.NAME, self.config.MODE, self.clock, resumed=resumed))
        if unkept:
            self.fault("settings", unkept, now)
        if self.world:
            self.world.started(machine, resumed)
        self.begin(machine, now)
        self.read_switches(now)
        if problem:
            self.fault("damaged-save", problem, now)
        gc.collect()

    def read_switches(self, now):
        """The switches the machine remembers (Dr. Nim's equalizer) may stand elsewhere, moved
        while the board was off: the machine is told where they are, as the Pi service tells it."""
        switches = self.machine.switches()
        for role in switches:
            if role in self.inputs.by_role and self.inputs.level(role) != switches[role]:
                self.handle(self.inputs.event(role), now)

    def restore(self):
        """(machine, how: new, saved or check, the problem with the save or None)."""
        # The machine's own modules (its opponent's among them) are loaded first, into a heap in
        # one piece, as on a fresh board: loaded after the saved game is read, they would find it
        # in pieces, and a Nimatron coming back from a power cut needed over 40 KiB more than a fresh one.
        fresh = self.cls(self.settings)
        text = flash.read(self.path)
        if text is None:
            return fresh, "new", None     # saves.py stays unloaded: a fresh board's heap
        fresh = None        # its memory is free again for the saved game
        loaded = list(sys.modules)
        try:
            return self.resume(text)
        finally:
            forget([name for name in sys.modules if name not in loaded])

    def resume(self, text):
        """The saved game in `text`, checked as restore() says."""
        from controller.core.saves import resume
        data = problem = None
        try:
            data = json.loads(text)
        except ValueError as error:
            problem = "not JSON (%s)" % error
        text = None         # parsed: its memory is free again for the machine it describes
        # A saved game keeps the settings the host gave it with its new_game line.
        machine, how, note = resume(self.cls, self.settings, data, problem, keep_settings=True)
        wiring = wiring_problem(self.config, machine)
        if wiring:
            machine, how, note = resume(self.cls, self.settings, None, wiring)
        if how != "check":
            return machine, how, None
        flash.set_aside(self.path)
        return machine, how, "the saved game cannot be resumed (%s): kept as %s.bad; held until staff press " \
                             "New game" % (note, self.path)

    def begin(self, machine, now):
        """Play `machine` from now: its outputs all sent afresh."""
        self.machine = machine
        self.shown_status = None
        self.last_fault = machine.fault
        self.incidents = machine.incidents()
        self.playing = machine.mode == "play"
        self.handle(("power",), now)

    # --- the loop's work ------------------------------------------------------------
    def step(self, now):
        """Everything due at `now`: the world (emulated), inputs, marbles, outputs, timers."""
        self.now = now
        if self.world:
            self.world.run(now)
        self.inputs.poll(now, self.emit)
        if self.sensor:
            seen = self.sensor.take()
            while seen:
                self.handle(("marble",), now)
                seen -= 1
        self.outputs.due(now)
        self.led.due(now)
        if self.keeper.waiting and not self.outputs.pulsing():
            self.save(now)
        if self.deadline is not None and self.deadline <= now:
            self.handle(("tick",), now)

    def next_due(self, resting=True):
        """When `step` next has something to do (leaving out the machine's
        resting timers unless `resting`), or None."""
        due = None
        if resting:
            due = self.deadline
        else:
            for name, at in self.machine.state["timers"].items():
                if name not in RESTING_TIMERS and (due is None or at < due):
                    due = at
        for at in (self.outputs.next_due(), self.inputs.next_due(), self.led.due_at,
                   self.world and self.world.next_due()):
            if at is not None and at is not False and (due is None or at < due):
                due = at
        return due

    def quiet(self):
        """Nothing under way but the machine's resting timers: no release open,
        no save waiting, no input settling, no marble falling (emulated)."""
        return not (self.busy() or self.keeper.waiting or self.inputs.next_due() is not None)

    def move_clock(self, delta):
        """The board's clock moved by `delta` ms: everything timed moves with it."""
        self.machine.move_clock(delta)
        self.deadline = self.machine.next_deadline()
        self.outputs.shift(delta)
        self.led.shift(delta)
        if self.world:
            self.world.shift(delta)
        self.now += delta

    def busy(self):
        """True while something is under way that a script waits for."""
        for name in self.machine.state["timers"]:
            if name not in RESTING_TIMERS:
                return True
        return self.outputs.pulsing() or bool(self.world and self.world.busy())

    def handle(self, event, now):
        machine = self.machine
        commands = machine.handle(event, now)
        self.deadline = machine.next_deadline()     # kept: timers change only here, and asking allocates
        self.send({"kind": "event", "event": event, "at": now})
        if self.keeper.first(commands):
            self.save(now)
            now = self.time()       # after the write: the release opens now, for its whole pulse
            self.carry_out(commands, now)
        else:
            self.carry_out(commands, now)
            self.save(now)

    def carry_out(self, commands, now):
        for command in commands:
            self.outputs.apply(command, now)
            self.send({"kind": "command", "command": command, "at": now})
        self.report(now)

    def report(self, now):
        """Status changes, new faults and incidents, a game's end: a line each."""
        machine = self.machine
        status = machine.status()
        if status != self.shown_status:
            self.shown_status = status
            self.send({"kind": "status", "status": status, "at": now})
        fault = machine.fault
        if fault and fault != self.last_fault:
            self.fault(fault, "the machine holds in fault %s" % fault, now)
        self.last_fault = fault
        self.led.show("fault" if fault or self.storage else "play", now)
        incidents = machine.incidents()
        for kind in incidents:
            if incidents[kind] > self.incidents.get(kind, 0):
                self.fault(kind, "%s: %d this game" % (kind, incidents[kind]), now)
        self.incidents = incidents
        if self.playing and machine.mode == "over":
            self.send({"kind": "game_over", "machine": machine.NAME, "winner": machine.winner,
                       "turns": machine.turns, "at": now})
        self.playing = machine.mode == "play"

    def fault(self, kind, text, now):
        self.send({"kind": "fault", "fault": kind, "text": text, "at": now})

    def save(self, now):
        """Write the game to flash as controller/core/keeping.py says (a release
        that is open is first let shut); a write that fails leaves the game
        playing unsaved, reported once."""
        data = self.keeper.wanted(self.machine, self.outputs.pulsing())
        if data is None:
            return
        sensor = self.sensor
        if sensor:
            sensor.flash_writing = True     # a marble that goes by while the write holds the interrupts counts
        try:
            flash.save(self.path, data)
        except OSError as error:
            if self.storage is None:
                self.fault("storage", "cannot save the game (%s): playing on unsaved" % error, now)
            self.storage = error
            return
        finally:
            if sensor:
                sensor.flash_writing = False
        self.storage = None
        self.keeper.written(data)

    def send(self, message):
        """One line to the host, made by MicroPython's json (C) and written whole.
        A line is ASCII: one that is not (a host's odd text quoted back in an
        error line) is written by the core's own writer, which escapes it."""
        text = json.dumps(message, separators=SEPARATORS)
        if len(text.encode()) != len(text):
            from controller.core.jsontext import encode
            text = encode(message)
        self.write(text)
        self.write("\n")

    # --- the host's lines -----------------------------------------------------------
    def line(self, raw, length=0):
        """One line from the host (None: one too long, of `length` bytes): its
        reply, or one error line; never raises."""
        ident = None
        try:
            if raw is None:
                raise ProtocolError("line too long: %d bytes, at most %d" % (length, protocol.MAX_LINE))
            message = protocol.decode(raw, parse=json.loads)
            ident = message.get("id")
            protocol.checked(message, self.config.MODE, self.clock)
            getattr(self, "ask_" + message["kind"])(message, ident)
        except ValueError as error:
            self.answer(ident, {"kind": "error", "error": str(error)})
        except Exception as error:
            self.answer(ident, {"kind": "error", "error": "the board could not do it: %s %s"
                                                          % (type(error).__name__, error)})

    def answer(self, ident, message):
        if ident is not None:
            message["id"] = ident
        self.send(message)

    def ask_state(self, message, ident):
        """The game and its status; the heap the board has when asked ("heap": true): a host
        that watches a board for months sees its memory too (what is free once the garbage is
        collected). Only when asked: the collection and the two counts hold a Pico's loop 30 ms,
        and a host polls the state several times a second while a machine is busy."""
        reply = {"kind": "state", "protocol": protocol.PROTOCOL, "mode": self.config.MODE,
                 "game": self.machine.to_save(), "status": self.machine.status(), "busy": self.busy(), "now": self.now}
        if message.get("heap"):
            gc.collect()
            reply["heap"] = {"free": gc.mem_free(), "used": gc.mem_alloc()}
        if self.world:
            reply["world"] = self.world.view()
        self.answer(ident, reply)

    def ask_new_game(self, message, ident):
        # made at clock 0: the power event in begin() moves its timers to now, so a machine
        # that starts by thinking thinks its whole think_ms however long the board has run;
        # without settings, the board's (kept)
        settings = message.get("settings", self.settings)
        machine = self.cls(settings)
        problem = wiring_problem(self.config, machine)
        if problem:
            raise ProtocolError("new_game: %s, and a board is played as it is wired" % problem)
        if settings != self.settings:       # kept for every game after; written only when they change
            self.settings = settings
            try:
                flash.write(self.path[:-5] + "-settings.json", json.dumps(settings, separators=SEPARATORS))
            except OSError as error:
                self.fault("settings", "the settings could not be kept (%s): this game plays them, a game set "
                           "aside the ones before" % error, self.now)
        if self.world:
            self.world.new_game(machine)
        self.begin(machine, self.now)
        self.answer(ident, {"kind": "ok", "asked": "new_game"})

    def ask_inject(self, message, ident):
        self.handle(protocol.machine_event(self.machine, message["event"]), self.now)
        self.answer(ident, {"kind": "ok", "asked": "inject"})
