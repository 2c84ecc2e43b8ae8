"""Scenario scripts: one language, one interpreter, for every world that plays
a machine: the core alone (here, the same under CPython and MicroPython), the
bench simulator (pins, debouncing, the service) and a board.

One command a line; ``#`` starts a comment:

    machine drnim marbles=15 equalizer=on        the machine and its settings
    game nimatron rows=1,3,5,7                   (game is machine; rows=... is one opening)
    press trigger | press new-game | press row 2 a button, held 100 ms (the Nimatron's
                                                 also: press handover)
    set turn machine | switch equalizer off      a switch moved by hand
    marble                                       a marble dropped past the gate by hand
    power                                        the controller restarts
    wait 2s | wait 500ms | wait 5min | wait 1h   let time pass (at most a day)
    world fall=300 lost=2,3 double=4 spike=1     marbles: fall time (ms), releases (counted
                                                 from here) whose marble never arrives,
                                                 releases that let two marbles through,
                                                 releases that spike the sensor line (a
                                                 pulse of microseconds as the solenoid fires)
    settle off | settle on                       stop (or go on) letting the machine come
                                                 to rest after each step
    expect rail 14                               Dr. Nim: marbles still on the rail
    expect rows 1,3,5,6                          Nimatron: lamps lit in each row
    expect turns machine:1 player:3              the turns so far (Nimatron: machine:4:1)
    expect controls equalizer=left turn=right
    expect fault none | winner player | mode over | attract yes | turn player | equalizer off
    expect releases 3                            releases since the last world line
    expect commands release; equalizer left      commands since the last such check,
                                                 in this order (others may come between); a
                                                 message is named by its id and its values,
                                                 `message one_row row=3`, whatever the language

After every step the runner lets time pass until the machine and the marbles
are at rest (nothing falling, no machine move under way), so `press trigger`
in Dr. Nim's turn runs its whole chain; `settle off` leaves time to `wait`.

The interpreter reads the words and checks them against what the machine
declares (its settings, its buttons and switches); a world carries them out.
A world has `start(cls, settings)`, `press(role)`, `switch(input, active)`,
`drop_marble()`, `power()`, `wait(ms)`, `settle()`, `set_world(fall_ms,
lost, double, spike)`, `view()` (what a person can check, in plain words),
`summary()`, `machine` and `commands` (every command since the start, as
text: `command_text`).
"""

from .debounce import MIN_PULSE_MS, Debouncer
from .exhibit import RELEASE, RESTING_TIMERS, SWITCH, ConfigError
from .marbles import Marbles
from .registry import NAMES, machine_class
from .values import BadValue, duration_ms, is_whole, whole, wholes

PRESS_MS = 100
GAP_MS = 100
SETTLE_LIMIT_MS = 600000
FALL_MS = 300


def command_text(command):
    """A command as a script names it: its parts with spaces between; a message
    as `message ID` and its values as key=value, in the order of their keys."""
    if command[0] == "message":
        values = command[2]
        return " ".join(["message", command[1]] + ["%s=%s" % (key, values[key]) for key in sorted(values)])
    return " ".join(str(part) for part in command)


class ScriptError(ValueError):
    """A scenario line that cannot be read; the message names the line."""


def parse(text):
    """The script as a list of (line number, words); a UTF-8 byte-order mark
    (which some Windows editors write first) is not part of the first word, and
    a line may end as on Windows (CR LF) or on an old Mac (CR alone)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    steps = []
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")):
        words = line.split("#")[0].split()
        if words:
            steps.append((number + 1, words))
    return steps


# The words a switch's setting is written with, in a script and in the web page's address (web/page.js).
SWITCH_WORDS = {"true": True, "on": True, "yes": True, "false": False, "off": False, "no": False}


def setting_value(setting, key, text):
    """A setting's value as a script writes it, typed by the setting's default."""
    default = setting.default
    if isinstance(default, bool):
        if text in SWITCH_WORDS:
            return SWITCH_WORDS[text]
        raise BadValue("%s is %r: it must be true or false (on or off)" % (key, text))
    if isinstance(default, int):
        return whole(text, key, setting.low, setting.high)
    if isinstance(default, list):
        return [wholes(part, key) for part in text.split("/")]
    return text


def script_settings(cls, words):
    """The settings of a machine line's `key=value` words, for machine class `cls`."""
    settings = {}
    for word in words:
        key, _, text = word.partition("=")
        if not text:
            raise BadValue("%r is not a setting such as marbles=15" % word)
        key = key.replace("-", "_")
        if key not in cls.SETTINGS and key + "_ms" in cls.SETTINGS:
            key += "_ms"
        if key == "rows" and "," in text:
            # rows=1,3,5,7: the lamps of one opening, played first
            settings["openings"] = [wholes(text, key)]
            settings["opening"] = "first"
        elif key in cls.SETTINGS:
            settings[key] = setting_value(cls.SETTINGS[key], key, text)
        else:
            settings[key] = text
    return settings


def control_name(role):
    """A button's role as a script writes it: `new-game`, `row 2`."""
    name = role.replace("_", "-")
    return "row " + name[3:] if name.startswith("row") else name


def switch_names(cls):
    """A machine's switches and their positions, as a script sets them."""
    names = ["%s %s" % (spec.events[0][1], "|".join(spec.positions))
             for spec in cls.INPUTS if spec.kind == SWITCH]
    return "%s's switches are %s" % (cls.TITLE, ", ".join(names)) if names else "%s has no switches" % cls.TITLE


def switch_position(cls, name, position):
    """The switch input called `name` and whether `position` is its active side, or None."""
    for spec in cls.INPUTS:
        if spec.kind == SWITCH and spec.events[0][1] == name and position in spec.positions:
            return spec, spec.positions[position]
    return None


class CoreWorld:
    """The core machine alone, with the marble model: time passes only in the script.
    A spike on the sensor line goes through the shells' pulse filter."""

    def __init__(self, reload=None):
        self.reload = reload
        self.machine = None
        self.marbles = Marbles(0, FALL_MS)
        self.sensor = Debouncer(0, False, MIN_PULSE_MS)
        self.now = 0
        self.trace = []
        self.commands = []

    def start(self, cls, settings):
        machine = cls(settings)
        self.commands = []
        self.now += 1000
        self.machine = machine
        marbles = machine.config["marbles"] if machine.has_output(RELEASE) else 0
        self.marbles = Marbles(marbles, FALL_MS)
        self.send(("power",))

    def send(self, event):
        commands = self.machine.handle(event, self.now)
        if self.reload:
            self.machine = self.reload(self.machine)
        self.trace.append([self.now, list(event), [list(c) for c in commands]])
        for command in commands:
            self.commands.append(command_text(command))
            if command[0] == "release" and self.marbles.released(self.now):
                self.spike()

    def spike(self):
        """A pulse of microseconds on the sensor line: a marble only if the filter lets it through."""
        for level in (True, False):
            if self.sensor.edge(level, self.now):
                self.send(("marble",))

    def advance(self, until, settle=False):
        """Let time pass to `until` (or, settling, until everything is at rest)."""
        while True:
            timers = self.machine.state["timers"]
            busy = [due for name, due in timers.items() if name not in RESTING_TIMERS]
            falling = self.marbles.falling
            if settle and not falling and not busy:
                return
            times = falling + busy
            if not times or min(times) > until:
                # only resting timers (idle, attract) until the end: one late tick there does
                # what each of theirs would, so a day's wait takes no longer than a second's
                if not settle:
                    self.now = max(self.now, until)
                    self.send(("tick",))
                return
            self.now = max(self.now, min(times))
            if falling and falling[0] <= self.now:
                self.marbles.arrive()
                self.send(("marble",))
            else:
                self.send(("tick",))

    def press(self, role):
        self.send(("press", role))
        self.advance(self.now + PRESS_MS)
        self.send(("release", role))
        self.advance(self.now + GAP_MS)

    def switch(self, spec, active):
        self.send(spec.events[0] if active else spec.events[1])

    def drop_marble(self):
        self.marbles.drop_by_hand()
        self.send(("marble",))

    def power(self):
        self.send(("power",))

    def wait(self, ms):
        self.advance(self.now + ms)

    def settle(self):
        self.advance(self.now + SETTLE_LIMIT_MS, settle=True)

    def set_world(self, fall_ms=None, lost=None, double=None, spike=None):
        self.marbles.set_world(fall_ms, lost, double, spike)

    def view(self):
        """What a person can check: the machine in plain words."""
        m = self.machine
        view = {"turns": [":".join(str(part) for part in turn) for turn in m.turns],
                "fault": m.fault or "none", "winner": m.winner or "none", "mode": m.mode,
                "attract": "yes" if m.attract else "no", "turn": m.turn,
                "releases": str(self.marbles.releases_since)}
        if m.has_output(RELEASE):
            view["rail"] = str(m.rail)
            view["controls"] = m.controls()
            view["equalizer"] = "on" if m.equalizer_armed else "off"
        else:
            view["rows"] = ",".join(str(n) for n in m.rows)
        return view

    def summary(self):
        return summary_of(self.view())


def read_controls(view, side):
    """Dr. Nim's five controls into `view`, as a person reads them off the
    front panel: `side(role)` is an indicator's side (left, right or None),
    read by each world from what drives it (pins, a board's output commands)."""
    view["controls"] = dict((role, side(role)) for role in CONTROLS)
    view["equalizer"] = "on" if side("equalizer") == "right" else "off"
    view["turn"] = "player" if side("turn") == "right" else "machine"
    return view


CONTROLS = ("turn", "equalizer", "flip_flop_1", "flip_flop_2", "flip_flop_3")


def summary_of(view):
    """One line of what a view shows, for a script's report."""
    if "rail" in view:
        return "rail %s, turn %s, equalizer %s, winner %s, fault %s" % (
            view["rail"], view["turn"], view["equalizer"], view["winner"], view["fault"])
    return "rows %s, turn %s, winner %s" % (view["rows"], view["turn"], view["winner"])


class Script:
    """A script being played in a world; `report(line)` receives each step and its result."""

    def __init__(self, world, report=None):
        self.world = world
        self.report = report or (lambda text: None)
        self.failures = []
        self.settling = True
        self.seen = 0
        self.started = False

    @property
    def trace(self):
        return self.world.trace

    def play(self, text):
        steps = parse(text)
        if not steps:
            raise ScriptError("line 1: the script has nothing to play: it must start with a 'game' or 'machine' line")
        for number, words in steps:
            self.step(number, words)
        return self

    def step(self, number, words):
        verb = words[0]
        handler = VERBS.get(verb)
        if handler is None:
            raise ScriptError("line %d: cannot read %r: %r is not a command (the commands: %s)"
                              % (number, " ".join(words), verb, ", ".join(VERB_NAMES)))
        if verb not in ("machine", "game") and not self.started:
            raise ScriptError("line %d: the script must start with a 'game' or 'machine' line" % number)
        try:
            acted = handler(self, number, words)
        except (BadValue, ConfigError) as error:
            raise ScriptError("line %d: %s" % (number, error))
        if acted:
            if self.settling:
                self.world.settle()
            self.report("line %d: %s  (%s)" % (number, " ".join(words), self.world.summary()))

    def cannot(self, number, words):
        raise ScriptError("line %d: cannot read %r: write it as %s" % (number, " ".join(words), how(words)))

    # --- the verbs: each returns True when it acted in the world -------------------
    def start(self, number, words):
        if len(words) < 2 or words[1] not in NAMES:
            raise ScriptError("line %d: the %s is %s" % (number, words[0], " or ".join(NAMES)))
        cls = machine_class(words[1])
        self.world.start(cls, script_settings(cls, words[2:]))
        self.started = True
        self.seen = 0
        self.report("line %d: %s" % (number, " ".join(words)))
        return False

    def press(self, number, words):
        role = "".join(words[1:]).replace("-", "_")
        buttons = self.world.machine.buttons()
        if len(words) not in (2, 3) or role not in buttons:
            raise ScriptError("line %d: this machine has no control %r: %s's controls are %s" % (
                number, " ".join(words[1:]), self.world.machine.TITLE,
                ", ".join(control_name(button) for button in buttons)))
        self.world.press(role)
        return True

    def switch(self, number, words):
        cls = type(self.world.machine)
        found = len(words) == 3 and switch_position(cls, words[1], words[2])
        if not found:
            raise ScriptError("line %d: cannot set %s: %s" % (number, " ".join(words[1:]) or "nothing", switch_names(cls)))
        self.world.switch(found[0], found[1])
        return True

    def marble(self, number, words):
        if len(words) != 1:
            self.cannot(number, words)
        self.has_marbles(number, words)
        self.world.drop_marble()
        return True

    def has_marbles(self, number, words):
        """`marble` and `world` act on marbles: refused, in one line, for a machine without them."""
        machine = self.world.machine
        if not machine.has_output(RELEASE):
            raise ScriptError("line %d: %s: %s has no marbles" % (number, words[0], machine.TITLE))

    def power(self, number, words):
        if len(words) != 1:
            self.cannot(number, words)
        self.world.power()
        return True

    def wait(self, number, words):
        if len(words) != 2 or is_whole(words[1]):  # 'wait 2' without its unit: meant 2 s, or 2 ms?
            self.cannot(number, words)
        self.world.wait(duration_ms(words[1], "wait"))
        return True

    def set_world(self, number, words):
        self.has_marbles(number, words)
        given = {}
        for word in words[1:]:
            key, _, value = word.partition("=")
            if key == "fall":
                given["fall_ms"] = whole(value, "fall", 1, SETTLE_LIMIT_MS)
            elif key in ("lost", "double", "spike"):
                given[key] = wholes(value, key, 1)
            else:
                raise ScriptError("line %d: unknown world setting %r" % (number, key))
        self.world.set_world(**given)
        return True

    def settle(self, number, words):
        if len(words) != 2 or words[1] not in ("on", "off"):
            self.cannot(number, words)
        self.settling = words[1] == "on"
        return True

    def expect(self, number, words):
        if len(words) < 3:
            self.cannot(number, words)
        what, wanted = words[1], words[2:]
        view = self.world.view()
        shown = sorted(list(view) + ["commands"])
        if what not in shown:
            raise ScriptError("line %d: cannot check %r: %s shows %s" % (
                number, what, self.world.machine.TITLE, ", ".join(shown)))
        problem = unseeable(type(self.world.machine), what, wanted)
        if problem:
            raise ScriptError("line %d: expect %s: %s" % (number, what, problem))
        commands = self.world.commands[self.seen:]
        if what == "commands":
            self.seen = len(self.world.commands)
        got = mismatch(view, commands, what, wanted)
        if got is None:
            self.report("line %d: expect %s %s: ok" % (number, what, " ".join(wanted)))
        else:
            self.failures.append("line %d: expected %s %s, got %s" % (number, what, " ".join(wanted), got))
            self.report("line %d: expect %s %s: FAILED, got %s" % (number, what, " ".join(wanted), got))
        return False


# Every verb of the language, both dialects (the simulator's `game` and `set`,
# the core's `machine` and `switch`): one table.
VERBS = {
    "machine": Script.start, "game": Script.start,
    "press": Script.press,
    "set": Script.switch, "switch": Script.switch,
    "marble": Script.marble,
    "power": Script.power,
    "wait": Script.wait,
    "world": Script.set_world,
    "settle": Script.settle,
    "expect": Script.expect,
}
VERB_NAMES = ("game", "machine", "press", "set", "switch", "marble", "power", "wait", "world", "settle", "expect")

# How each verb that takes a fixed form is written, and an example of each `expect`.
HOW = {"marble": "marble, alone on its line", "power": "power, alone on its line",
       "wait": "wait 2s (or 500ms, 5min, 1h)", "settle": "settle on or settle off"}
EXPECT_EXAMPLES = {"rail": "14", "rows": "1,3,5,7", "turns": "player:1 machine:3", "controls": "equalizer=left",
                   "fault": "none", "winner": "player", "mode": "over", "attract": "yes", "turn": "player",
                   "equalizer": "off", "releases": "3", "commands": "release; equalizer left"}


def how(words):
    """How the line `words` (a verb of HOW, or expect) is written."""
    if words[0] != "expect":
        return HOW[words[0]]
    what = words[1].partition("=")[0] if len(words) > 1 else ""
    if what in EXPECT_EXAMPLES:
        return "expect %s %s" % (what, EXPECT_EXAMPLES[what])
    return "expect WHAT VALUE, such as expect rail 14 (what: %s)" % ", ".join(sorted(EXPECT_EXAMPLES))

# What an `expect` may name, with the words it can ever see (None: a number; a list of numbers for rows).
SEEN = {"winner": ("none", "player", "machine"), "mode": ("play", "over"), "attract": ("yes", "no"),
        "turn": ("player", "machine"), "equalizer": ("on", "off"), "rail": None, "releases": None, "rows": None}
SIDES = ("left", "right")


def unseeable(cls, what, words):
    """Why `expect WHAT WORDS` could never hold, whatever the machine did (a script that
    cannot be read, not a failed expectation), or None."""
    if what == "fault":
        from .saves import state_rules
        faults = [fault or "none" for fault in state_rules(cls).STATE["fault"][1]]
        if len(words) != 1 or words[0] not in faults:
            return "%r is not a fault of %s: %s" % (" ".join(words), cls.TITLE, ", ".join(faults))
    elif what == "controls":
        for word in words:
            key, _, side = word.partition("=")
            if key not in CONTROLS or side not in SIDES:
                return "%r is not a control and its side, such as equalizer=left (controls: %s)" % (
                    word, ", ".join(CONTROLS))
    elif what == "turns":
        for word in words:
            parts = word.split(":")
            if len(parts) < 2 or parts[0] not in ("player", "machine") or not all(is_whole(p) for p in parts[1:]):
                return "%r is not a turn such as player:2 or machine:4:1" % word
    elif what in SEEN:
        choices = SEEN[what]
        if len(words) != 1:
            return "give one value, not %d" % len(words)
        if choices is None:
            for part in words[0].split(",") if what == "rows" else [words[0]]:
                if not is_whole(part):
                    return "%r is not %s" % (words[0], "a list of numbers such as 1,3,5,7" if what == "rows"
                                             else "a whole number")
        elif words[0] not in choices:
            return "%r is never seen: %s or %s" % (words[0], ", ".join(choices[:-1]), choices[-1])
    return None


def mismatch(view, commands, what, words):
    """What was seen instead, when `expect WHAT WORDS` does not hold; None when it does.

    `view` is the machine in plain words (a world's `view()`), `commands` the
    commands given since the last `expect commands`, as text. KeyError:
    nothing called `what`.
    """
    if what == "commands":
        position = 0
        for command in [" ".join(c.split()) for c in " ".join(words).split(";")]:
            while position < len(commands) and commands[position] != command:
                position += 1
            if position == len(commands):
                return "; ".join(commands)
            position += 1
        return None
    if what == "controls":
        for word in words:
            key, _, value = word.partition("=")
            if view["controls"].get(key) != value:
                return "%s=%s" % (key, view["controls"].get(key))
        return None
    if what == "turns":
        return None if view["turns"] == words else " ".join(view["turns"]) or "no turns yet"
    if what in view and len(words) == 1:
        return None if view[what] == words[0] else view[what]
    raise KeyError(what)


def run(text, reload=None):
    """Play a script on the core alone; returns the Script, with its trace and failures.

    `reload(machine)`, if given, replaces the machine after every event (the
    tests save and restore it there, to show a restored machine resumes exactly).
    """
    return Script(CoreWorld(reload)).play(text)
