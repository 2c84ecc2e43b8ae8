"""The page's machine: the core's own machine, run by MicroPython in the
browser, with the marbles of `core/marbles.py` around it.

The JavaScript shell (page.js) never restates what a machine is: it asks
here for the declarations (roles, settings with their ranges and choices,
lamps, openings, the opponents a machine accepts) and hands every event
here with the browser's clock; each answer is one JSON text holding the commands to draw and a plain view of the machine.
Every event given to the machine is kept with its time and its commands
(`trace`), so a test can replay them through the core on CPython.

The page can also follow a physical exhibit (`?follow=`): `Follower` restores
the exhibit's machine from the live state it publishes to the museum's
broker and replays its live events through the core (controller/telemetry/live.py
says what the exhibit sends). Anything the broker hands over is checked
here: what does not fit is refused with one line, and the page goes on.

Runs unchanged under MicroPython (the browser's, the tests' `micropython`)
and CPython.
"""

import json

from controller.core.exhibit import BUTTON, RELEASE, RESTING_TIMERS, SWITCH, ConfigError
from controller.core.marbles import Marbles
from controller.core.players import PLAYER_NAMES
from controller.core.protocol import load
from controller.core.quoting import quoted
from controller.core.registry import NAMES, machine_class

# Answers go out through the runtime's own JSON (C in MicroPython): a page
# answers every event, and the core's careful encoder is for the serial line.
# What comes in (settings, events) is read by the core's parser, whose every
# refusal is one line.
encode = json.dumps

# The opponents a visitor may pick: the core's, with fallible's chance written in.
OPPONENTS = tuple(name.replace("fallible:P", "fallible:0.1") for name in PLAYER_NAMES)
# The trace keeps this many events at most (a kiosk runs for months).
TRACE_LIMIT = 5000

world = None
# Each machine's world by its name: a visitor who plays the other machine finds this one's game as they left it.
kept = {}


def machines():
    """Every machine, in registry order, with its declarations (JSON)."""
    return encode([declarations(name) for name in NAMES])


def declarations(name):
    cls = machine_class(name)
    settings = {}
    for key in cls.SETTINGS:
        spec = cls.SETTINGS[key]
        settings[key] = {"default": spec.default, "choices": list(spec.choices) if spec.choices else None}
    defaults = cls()
    return {"name": cls.NAME, "title": cls.TITLE, "lamps": list(cls.LAMPS),
            "inputs": [input_of(spec) for spec in cls.inputs(defaults.layout())],
            "settings": settings, "openings": [list(p) for p in getattr(defaults, "openings", ())],
            "opponents": [name for name in OPPONENTS if accepts(cls, name)]}


def input_of(spec):
    """An input role as the page uses it: a button's press and release, a
    switch's two events and the side (left or right) it shows when active."""
    found = {"role": spec.role, "kind": spec.kind}
    if spec.kind == BUTTON:
        found["press"], found["release"] = list(spec.events[0]), list(spec.events[1])
    elif spec.kind == SWITCH:
        found["on"], found["off"] = list(spec.events[0]), list(spec.events[1])
        found["on_side"] = "left"
        for position in spec.positions:
            if spec.positions[position] and position in ("left", "right"):
                found["on_side"] = position
    return found


def accepts(cls, opponent):
    """True when the machine plays with `opponent` (Dr. Nim, when a strategy decides)."""
    settings = {"opponent": opponent}
    if "decide" in cls.SETTINGS:
        settings["decide"] = "strategy"
    try:
        cls(settings)
    except ConfigError:
        return False
    return True


class World:
    """A machine, the marbles it releases, and what it was given."""

    def __init__(self, name, settings, now, resting=False):
        self.machine = machine_class(name)(settings)
        self.marbles = None
        if self.machine.has_output(RELEASE):
            self.marbles = Marbles(self.machine.config["marbles"])
        self.trace = []
        self.commands = []
        if resting:
            # powered up one idle time ago: at rest in its attract state now
            self.send(("power",), max(0, now - self.machine.config["idle_ms"]))
            self.advance(now)
        else:
            self.send(("power",), now)

    def send(self, event, now):
        commands = self.machine.handle(event, now)
        if len(self.trace) < TRACE_LIMIT:
            self.trace.append([list(event), now, [list(c) for c in commands]])
        for command in commands:
            self.commands.append(list(command))
            if command[0] == "release" and self.marbles is not None:
                self.marbles.released(now)

    def advance(self, now):
        """Marbles that reached the gate by `now`, and timers due, each at its
        own time; the resting timers (idle, attract) by one tick at `now`, which
        catches up every attract step missed (a tab the browser left asleep)."""
        while True:
            arrival = self.marbles.next_arrival() if self.marbles is not None else None
            timers = self.machine.state["timers"]
            busy = [timers[name] for name in timers if name not in RESTING_TIMERS]
            due = [t for t in [arrival] + busy if t is not None and t <= now]
            if not due:
                break
            if arrival is not None and arrival == min(due):
                self.marbles.arrive()
                self.send(("marble",), arrival)
            else:
                self.send(("tick",), min(due))
        deadline = self.machine.next_deadline()
        if deadline is not None and deadline <= now:
            self.send(("tick",), now)

    def next_time(self):
        times = [t for t in (self.machine.next_deadline(),
                             self.marbles.next_arrival() if self.marbles is not None else None) if t is not None]
        return min(times) if times else None

    def answer(self, error=None):
        """The commands since the last answer and the machine's view (and an
        error, when the visitor's event was refused), as JSON."""
        commands, self.commands = self.commands, []
        answer = {"commands": commands, "view": self.view()}
        if error is not None:
            answer["error"] = error
        return encode(answer)

    def view(self):
        marbles = self.marbles
        return view_of(self.machine, self.next_time(),
                       marbles and (list(marbles.falling), marbles.fall_ms, marbles.tray))


def view_of(m, next_time, marbles=None):
    """A plain view of machine `m`: what the page draws. `marbles`, for a machine that releases
    them: (when each falling marble reaches the gate, the fall's length in ms, marbles in the tray)."""
    view = {"machine": m.NAME, "mode": m.mode, "turn": m.turn, "winner": m.winner, "fault": m.fault,
            "attract": m.attract, "turns": m.turns, "working": [list(line) for line in m.explain()],
            "next": next_time, "verdict": m.verdict() if m.mode == "over" else None,
            "switches": m.switches()}
    if marbles is not None:
        view.update({"rail": m.rail, "loaded": m.loaded, "taken": m.taken, "turn_taken": m.turn_taken,
                     "running": m.running, "in_flight": m.in_flight, "falling": marbles[0],
                     "fall_ms": marbles[1], "tray": marbles[2], "first": m.config["first"]})
    else:
        view.update({"rows": list(m.rows), "row": m.row, "turn_taken": m.turn_taken, "moving": m.moving,
                     "lamps": m.config["lamps"]})
    return view


def start(name, settings_json, now, resting=False):
    """A new machine called `name` with the visitor's settings (JSON); the
    answer, or {"error": one line} when a setting does not fit. A `resting`
    machine (the kiosk's, between visitors) shows its attract state at once."""
    global world
    try:
        settings = load(settings_json)
        if not isinstance(settings, dict):
            raise ConfigError("settings must be a table, not %s" % settings_json)
        world = World(name, settings, now, resting)
    except ValueError as error:
        return encode({"error": str(error)})
    kept[name] = world
    return world.answer()


def resume(name, now):
    """The machine called `name` as the visitor left it when they chose the
    other one, its time run on to `now` (its timers and marbles carried out at
    their own times, as for a tab the browser left asleep)."""
    global world
    world = kept[name]
    world.advance(now)
    return world.answer()


def handle(event_json, now):
    """One event from the visitor (JSON list, such as ["press", "trigger"])
    at `now`, after whatever time brought; New game puts the marbles back."""
    world.advance(now)
    try:
        event = tuple(load(event_json))
        if event == ("press", "new_game") and world.marbles is not None:
            world.marbles.reload()
        world.send(event, now)
    except ValueError as error:
        return world.answer(str(error))
    return world.answer()


def advance(now):
    """Let the browser's clock run to `now`."""
    world.advance(now)
    return world.answer()


def trace():
    """The events the machine was given, with their times and commands, and its settings (JSON)."""
    return encode({"machine": world.machine.NAME, "config": world.machine.config, "trace": world.trace})


# --- following an exhibit --------------------------------------------------------------------
LIVE_VERSION = 1
# The largest live message read (a state is about 1 KB).
LIVE_LIMIT = 16384
# Numbers an exhibit sends are whole and well below this (JavaScript counts exactly up to 2**53).
WHOLE_LIMIT = 2 ** 53
follower = None


class LiveError(ValueError):
    """A live message the page cannot use: ignored, with one line in the page's log."""


def whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < WHOLE_LIMIT


class Follower:
    """The exhibit's machine in the page, which only watches: restored from each live state and
    driven by the live events (their own times, the exhibit's clock), never by the visitor. The
    resting timers (the attract lamps), whose ticks the exhibit does not send, run here."""

    def __init__(self, exhibit):
        self.exhibit = exhibit
        self.machine = None
        self.run = None
        self.seq = None         # the last event played; None: out of step, waiting for the next state
        self.released = None    # when the marble in flight left the rail (the exhibit's clock)
        self.commands = []

    def payload(self, raw, fields):
        """The checked payload of a live message (JSON text): LiveError in one line when it is not one."""
        if not isinstance(raw, str) or len(raw) > LIVE_LIMIT:
            raise LiveError("more than %d bytes" % LIVE_LIMIT)
        try:
            payload = json.loads(raw)
        except Exception:
            raise LiveError("not JSON: %s" % quoted(raw))
        if not isinstance(payload, dict):
            raise LiveError("not a JSON object: %s" % quoted(raw))
        if payload.get("v") != LIVE_VERSION:
            raise LiveError("version %s, this page reads version %d" % (quoted(payload.get("v")), LIVE_VERSION))
        if payload.get("exhibit") != self.exhibit:
            raise LiveError("\"exhibit\" is %s, not %s" % (quoted(payload.get("exhibit")), quoted(self.exhibit)))
        for key, kind in fields:
            value = payload.get(key)
            if not (whole(value) if kind == "whole" else isinstance(value, kind)):
                raise LiveError("%s is %s" % (quoted(key), quoted(value) if key in payload else "missing"))
        return payload

    def state(self, raw):
        """A live state: the machine restored from it. Every state is taken, even one that seems
        older than the events played: the exhibit's next state undoes whatever a stranger sent."""
        payload = self.payload(raw, (("run", str), ("seq", "whole"), ("now", "whole"), ("game", dict)))
        game = dict(payload["game"])
        if not isinstance(game.get("state"), dict) or game.get("machine") not in NAMES:
            raise LiveError("\"game\" is not a saved game of %s" % " or ".join(NAMES))
        game["state"] = dict(game["state"])
        game["state"]["shown"] = {}         # so that every output is drawn from the state, as at power-up
        try:
            machine = machine_class(game["machine"]).from_dict(game)
        except Exception as error:
            raise LiveError("\"game\": %s" % str(error).split("\n")[0])
        self.machine, self.run, self.seq = machine, payload["run"], payload["seq"]
        out = []
        machine.sync(out)
        self.commands = [list(command) for command in out]
        self.released = payload["now"] if getattr(machine, "in_flight", False) else None
        return True

    def event(self, raw):
        """A live event replayed through the machine: False when the page already has it, or
        waits for a state; LiveError when the page's machine cannot follow it (then it waits)."""
        payload = self.payload(raw, (("seq", "whole"), ("now", "whole"), ("event", list), ("commands", list)))
        seq = payload["seq"]
        if self.machine is None or self.seq is None or seq <= self.seq:
            return False
        if seq != self.seq + 1:
            missed, self.seq = seq - self.seq - 1, None
            raise LiveError("%d event%s of the exhibit missed: waiting for its next state"
                            % (missed, "" if missed == 1 else "s"))
        self.seq = seq
        event, now = payload["event"], payload["now"]
        try:
            commands = [list(command) for command in self.machine.handle(tuple(event), now)]
        except Exception as error:
            self.seq = None
            raise LiveError("event %d, %s: the page's machine refused it (%s): waiting for the next state"
                            % (seq, quoted(event), str(error).split("\n")[0]))
        self.commands = commands
        if ["release"] in commands:
            self.released = now
        if commands != payload["commands"]:
            self.seq = None
            raise LiveError("event %d, %s: the page's machine gave other commands than the exhibit's: waiting "
                            "for its next state" % (seq, quoted(event)))
        return True

    def advance(self, now):
        """The resting timers (the attract lamps, the idle clock) up to `now`, the exhibit's clock;
        what is under way waits for the exhibit's own ticks."""
        machine = self.machine
        deadline = machine.next_deadline()
        if machine.resting and deadline is not None and deadline <= now:
            self.commands = [list(command) for command in machine.handle(("tick",), now)]

    def answer(self, restored=False, line=None):
        answer = {}
        if self.machine is not None:
            m = self.machine
            marbles = None
            if m.has_output(RELEASE):
                falling = [self.released + FALL_MS] if m.in_flight and self.released is not None else []
                marbles = (falling, FALL_MS, m.taken)
            deadline = m.next_deadline()
            answer = {"commands": self.commands, "now": m.state["clock"], "restored": restored,
                      "run": self.run, "seq": self.seq,
                      "view": view_of(m, deadline if m.resting else None, marbles)}
        self.commands = []
        if line is not None:
            answer["log"] = line
        return encode(answer)


# How long the page draws a released marble falling to the gate (the exhibit's own marble says when it is there).
FALL_MS = Marbles(0).fall_ms


def follow(exhibit):
    """Follow the exhibit called `exhibit`: its machine comes with its first live state."""
    global follower
    follower = Follower(exhibit)
    return encode({})


def follow_message(kind, raw):
    """A live message (`kind` state or event) from the broker: the answer, with a line for the log
    when the page ignored it."""
    try:
        changed = follower.state(raw) if kind == "state" else follower.event(raw)
    except LiveError as error:
        return follower.answer(line="ignored a live %s: %s" % (kind, error))
    return follower.answer(restored=kind == "state" and changed)


def follow_advance(now):
    """Let the exhibit's clock, as the page reckons it, run to `now`."""
    if follower.machine is not None:
        follower.advance(now)
    return follower.answer()
