"""The page's machine: the core's own machine, run by MicroPython in the
browser, with the marbles of `core/marbles.py` around it.

The JavaScript shell (page.js) never restates what a machine is: it asks
here for the declarations (roles, settings with their ranges and choices,
lamps, openings, the opponents a machine accepts) and hands every event
here with the browser's clock; each answer is one JSON text holding the commands to draw and a plain view of the machine.
Every event given to the machine is kept with its time and its commands
(`trace`), so a test can replay them through the core on CPython.

Runs unchanged under MicroPython (the browser's, the tests' `micropython`)
and CPython.
"""

import json

from controller.core.exhibit import BUTTON, RELEASE, RESTING_TIMERS, SWITCH, ConfigError
from controller.core.marbles import Marbles
from controller.core.players import PLAYER_NAMES
from controller.core.protocol import load
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
        m = self.machine
        view = {"machine": m.NAME, "mode": m.mode, "turn": m.turn, "winner": m.winner, "fault": m.fault,
                "attract": m.attract, "turns": m.turns, "working": [list(line) for line in m.explain()],
                "next": self.next_time(), "verdict": m.verdict() if m.mode == "over" else None,
                "switches": m.switches()}
        if self.marbles is not None:
            view.update({"rail": m.rail, "loaded": m.loaded, "taken": m.taken, "turn_taken": m.turn_taken,
                         "running": m.running, "in_flight": m.in_flight,
                         "falling": list(self.marbles.falling), "fall_ms": self.marbles.fall_ms,
                         "tray": self.marbles.tray, "first": m.config["first"]})
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
