"""Scenario scripts: a configuration, timed events and what must come of them.

Pure, like the rest of the core, so one scenario runs the same under CPython,
under MicroPython and on a board. One command a line; ``#`` starts a comment:

    machine drnim marbles=15 equalizer=true     the machine and its settings
    world fall=300 lost=2,3 double=4             marbles: fall time (ms), releases
                                                 whose marble never arrives, releases
                                                 that let two marbles through
    press trigger                                a button, held 100 ms
    switch turn machine                          a switch moved by hand
    marble                                       a marble dropped past the gate by hand
    power                                        the controller restarts (outputs are set anew)
    wait 2s | wait 500ms                         let time pass
    settle off | settle on                       stop (or go on) letting the machine come
                                                 to rest after each step
    expect rail 14                               Dr. Nim: marbles still on the rail
    expect rows 1,3,5,6                          Nimatron: lamps lit in each row
    expect turns machine:1 player:3              the turns so far (Nimatron: machine:4:1)
    expect controls equalizer=left turn=right
    expect fault none | winner player | mode over | attract yes | turn player
    expect releases 3                            releases commanded so far
    expect commands release; equalizer left      commands since the last such check,
                                                 in this order (others may come between)

After every step the runner lets time pass until the machine and the marbles
are at rest (nothing falling, no machine move under way), so `press trigger`
in Dr. Nim's turn runs its whole chain; `settle off` leaves time to `wait`.
"""

from .drnim import DrNim
from .nimatron import Nimatron

MACHINES = {"drnim": DrNim, "nimatron": Nimatron}
PRESS_MS = 100
GAP_MS = 100
# Timers that run while the machine is at rest.
RESTING = ("idle", "over", "attract")
SETTLE_LIMIT_MS = 600000


class ScriptError(ValueError):
    """A scenario line that cannot be read; the message names the line."""


def value_of(text):
    if text == "true":
        return True
    if text == "false":
        return False
    if text.isdigit():
        return int(text)
    if "/" in text or ("," in text and text.replace(",", "").isdigit()):
        return [[int(n) for n in part.split(",")] for part in text.split("/")]
    return text


def duration(text, number):
    if text.endswith("ms") and text[:-2].isdigit():
        return int(text[:-2])
    if text.endswith("s") and text[:-1].isdigit():
        return 1000 * int(text[:-1])
    raise ScriptError("line %d: %r is not a duration such as 500ms or 2s" % (number, text))


def parse(text):
    """The script as a list of (line number, words)."""
    steps = []
    for number, line in enumerate(text.split("\n")):
        words = line.split("#")[0].split()
        if words:
            steps.append((number + 1, words))
    return steps


class Run:
    """One scenario being played: the machine, a model of the marbles, the clock."""

    def __init__(self, reload=None):
        self.reload = reload
        self.machine = None
        self.now = 0
        self.fall_ms = 300
        self.lost = []
        self.double = []
        self.releases = 0
        self.falling = []
        self.trace = []
        self.since_check = []
        self.failures = []
        self.settle = True

    # --- the world ----------------------------------------------------------
    def send(self, event):
        commands = self.machine.handle(event, self.now)
        if self.reload:
            self.machine = self.reload(self.machine)
        self.trace.append([self.now, list(event), [list(c) for c in commands]])
        for command in commands:
            self.since_check.append(list(command))
            if command[0] == "release":
                self.releases += 1
                if self.releases not in self.lost:
                    self.falling.append(self.now + self.fall_ms)
                    if self.releases in self.double:
                        self.falling.append(self.now + self.fall_ms + 60)
                self.falling.sort()

    def advance(self, until, settle=False):
        """Let time pass to `until` (or, settling, until everything is at rest)."""
        while True:
            busy = [due for name, due in self.machine.state["timers"].items() if name not in RESTING]
            resting = [due for name, due in self.machine.state["timers"].items() if name in RESTING]
            times = self.falling + busy + ([] if settle else resting)
            if settle and not self.falling and not busy:
                return
            if not times or min(times) > until:
                if not settle:
                    self.now = until
                    self.send(("tick",))
                return
            self.now = max(self.now, min(times))
            if self.falling and self.falling[0] <= self.now:
                self.falling.pop(0)
                self.send(("marble",))
            else:
                self.send(("tick",))

    # --- the script ---------------------------------------------------------
    def step(self, number, words):
        verb = words[0]
        if verb == "machine":
            self.start(number, words)
            return
        if self.machine is None:
            raise ScriptError("line %d: the script must start with a 'machine' line" % number)
        if verb == "world":
            for word in words[1:]:
                key, _, value = word.partition("=")
                if key == "fall":
                    self.fall_ms = duration(value + "ms", number)
                elif key in ("lost", "double"):
                    setattr(self, key, [int(n) for n in value.split(",")])
                else:
                    raise ScriptError("line %d: unknown world setting %r" % (number, key))
        elif verb == "press" and len(words) == 2:
            self.send(("press", words[1]))
            self.advance(self.now + PRESS_MS)
            self.send(("release", words[1]))
            self.advance(self.now + GAP_MS)
        elif verb == "switch" and len(words) == 3:
            self.send(("switch", words[1], words[2]))
        elif verb in ("marble", "power") and len(words) == 1:
            self.send((verb,))
        elif verb == "wait" and len(words) == 2:
            self.advance(self.now + duration(words[1], number))
        elif verb == "settle" and len(words) == 2 and words[1] in ("on", "off"):
            self.settle = words[1] == "on"
        elif verb == "expect" and len(words) >= 3:
            self.expect(number, words[1], words[2:])
            return
        else:
            raise ScriptError("line %d: cannot read %r" % (number, " ".join(words)))
        if self.settle:
            self.advance(self.now + SETTLE_LIMIT_MS, settle=True)

    def start(self, number, words):
        if words[1:2] == [] or words[1] not in MACHINES:
            raise ScriptError("line %d: the machine is drnim or nimatron" % number)
        config = {}
        for word in words[2:]:
            key, _, value = word.partition("=")
            config[key] = value_of(value)
        self.fall_ms = 300
        self.lost = []
        self.double = []
        self.releases = 0
        self.falling = []
        self.now += 1000
        try:
            self.machine = MACHINES[words[1]](config)
        except ValueError as error:
            raise ScriptError("line %d: %s" % (number, error))
        self.machine.state["clock"] = self.now
        self.send(("power",))

    def view(self):
        """What a person can check: the machine's state in plain words."""
        m = self.machine
        s = m.state
        view = {"turns": [":".join(str(part) for part in turn) for turn in s["turns"]],
                "fault": s.get("fault") or "none", "winner": s["winner"] or "none", "mode": s["mode"],
                "attract": "yes" if s["attract"] else "no", "turn": s["turn"], "releases": str(self.releases)}
        if m.NAME == "drnim":
            view["rail"] = str(m.rail)
            view["controls"] = m.controls()
        else:
            view["rows"] = ",".join(str(n) for n in s["rows"])
        return view

    def expect(self, number, what, words):
        commands = [" ".join(str(p) for p in c) for c in self.since_check]
        if what == "commands":
            self.since_check = []
        try:
            got = mismatch(self.view(), commands, what, words)
        except KeyError:
            raise ScriptError("line %d: cannot check %r" % (number, what))
        if got is not None:
            self.fail(number, what, " ".join(words), got)

    def fail(self, number, what, wanted, got):
        self.failures.append("line %d: expected %s %s, got %s" % (number, what, wanted, got))


def mismatch(view, commands, what, words):
    """What was seen instead, when `expect WHAT WORDS` does not hold; None when it does.

    `view` is the machine in plain words (`Run.view`), `commands` the commands
    given since the last `expect commands`, as text. KeyError: nothing called `what`.
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
        return None if view["turns"] == words else " ".join(view["turns"])
    if what in view and len(words) == 1:
        return None if view[what] == words[0] else view[what]
    raise KeyError(what)


def run(text, reload=None):
    """Play a script; return the Run with its trace and failures.

    `reload(machine)`, if given, replaces the machine after every event (the
    tests save and restore it there, to show a restored machine resumes exactly).
    """
    scenario = Run(reload)
    for number, words in parse(text):
        scenario.step(number, words)
    return scenario
