"""Simulator scripts: `controller --simulate --script FILE`.

A scenario played on the virtual replica, through the whole stack (pins,
debouncing, the service, the core machine), on the simulated clock, as fast
as the computer allows. One command a line, ``#`` starts a comment:

    game drnim marbles=15 rule=last-loses equalizer=on equalizer-model=any decide=historic
    game nimatron rows=1,3,5,7 rule=last-wins first=player opponent=perfect
    press trigger | press new-game | press handover | press row 2
    set turn machine | set turn player | set equalizer on | set equalizer off
    wait 2s | wait 500ms
    expect rail 13 | rows 1,3,5,6 | turn player | equalizer off | winner none | fault none

`press` works a control as a person would (held about 100 ms, then a short
pause); `set` moves a switch. After each of them the runner lets the machine
and the marbles come to rest, so `set turn machine` then `press trigger`
runs Dr. Nim's whole turn. Dr. Nim starts the way the original does.

The core's scenario dialect (tests/scenarios/*.txt) is read too: `machine`
for `game`, `switch NAME POSITION`, `marble` (a marble dropped by hand),
`power` (the service restarts from its saved game), `world lost=… double=…
fall=…`, `settle off|on`, and `expect turns | controls | commands | releases
| mode | attract`, so every scenario runs both on the core alone and here.
"""

from controller.core.scenario import ScriptError, duration, mismatch, parse, value_of
from controller.sim.engine import Simulation

GAME_KEYS = {"equalizer-model": "equalizer_model", "release-timeout": "release_timeout_ms"}


class ScriptRun:
    """Plays a script; `report(line)` receives each step and its result."""

    def __init__(self, seed=0, jam_rate=0.0, glitch_rate=0.0, bounce=False, report=None):
        self.options = {"seed": seed, "jam_rate": jam_rate, "glitch_rate": glitch_rate, "bounce": bounce}
        self.report = report or (lambda text: None)
        self.sim = None
        self.failures = []
        self.settling = True
        self.seen = 0
        self.releases_at_start = 0

    # --- reading ------------------------------------------------------------------
    def game(self, number, words):
        if len(words) < 2 or words[1] not in ("drnim", "nimatron"):
            raise ScriptError("line %d: the game is drnim or nimatron" % number)
        machine = words[1]
        settings = {}
        for word in words[2:]:
            key, _, text = word.partition("=")
            if not text:
                raise ScriptError("line %d: %r is not a setting such as marbles=15" % (number, word))
            key = GAME_KEYS.get(key, key.replace("-", "_"))
            value = value_of(text)
            if key == "equalizer" and text in ("on", "off"):
                value = text == "on"
            if machine == "nimatron" and key == "rows":
                key, value = "openings", value if isinstance(value, list) else [[value]]
                settings["opening"] = "first"
            settings[key] = value
        if self.sim:
            self.sim.close()
        try:
            self.sim = Simulation(machine, settings, **self.options)
        except ValueError as error:
            raise ScriptError("line %d: %s" % (number, error))
        self.seen = 0
        self.releases_at_start = 0

    def step(self, number, words):
        verb = words[0]
        if verb in ("game", "machine"):
            self.game(number, words)
            self.report("line %d: %s" % (number, " ".join(words)))
            return
        if self.sim is None:
            raise ScriptError("line %d: the script must start with a 'game' line" % number)
        control = None
        if verb == "press" and len(words) in (2, 3):
            control = words[1].replace("-", "_") + (words[2] if len(words) == 3 else "")
            if control not in self.sim.pinmap.inputs:
                raise ScriptError("line %d: this machine has no control %r" % (number, " ".join(words[1:])))
            self.sim.press(control)
        elif verb in ("set", "switch") and len(words) == 3:
            self.switch(number, words[1], words[2])
        elif verb == "wait" and len(words) == 2:
            self.sim.advance(duration(words[1], number))
        elif verb == "marble" and len(words) == 1:
            self.sim.drop_by_hand()
        elif verb == "power" and len(words) == 1:
            self.sim.restart()
        elif verb == "world":
            self.world(number, words[1:])
        elif verb == "settle" and len(words) == 2 and words[1] in ("on", "off"):
            self.settling = words[1] == "on"
        elif verb == "expect" and len(words) >= 3:
            self.expect(number, words[1], words[2:])
            return
        else:
            raise ScriptError("line %d: cannot read %r" % (number, " ".join(words)))
        if self.settling and verb in ("press", "set", "switch", "marble", "power"):
            self.sim.settle()
        self.report("line %d: %s  (%s)" % (number, " ".join(words), self.summary()))

    def switch(self, number, name, position):
        sides = {"turn": {"machine": True, "left": True, "player": False, "right": False},
                 "equalizer": {"on": True, "right": True, "off": False, "left": False}}
        if name not in sides or position not in sides[name] or name + "_switch" not in self.sim.pinmap.inputs:
            raise ScriptError("line %d: cannot set %s %s" % (number, name, position))
        self.sim.set_switch(name + "_switch", sides[name][position])

    def world(self, number, words):
        for word in words:
            key, _, value = word.partition("=")
            if key == "fall":
                self.sim.fall_ms = duration(value + "ms", number)
            elif key in ("lost", "double"):
                self.releases_at_start = self.sim.releases
                setattr(self.sim, key, set(self.sim.releases + int(n) for n in value.split(",")))
            else:
                raise ScriptError("line %d: unknown world setting %r" % (number, key))

    # --- checking -----------------------------------------------------------------
    def view(self):
        sim = self.sim
        state = sim.machine.state
        view = {"turn": state["turn"], "winner": state["winner"] or "none", "fault": state.get("fault") or "none",
                "mode": state["mode"], "attract": "yes" if state["attract"] else "no",
                "releases": str(sim.releases - self.releases_at_start),
                "turns": [":".join(str(p) for p in turn) for turn in state["turns"]]}
        if sim.machine_name == "drnim":
            view["rail"] = str(sim.machine.rail)
            view["equalizer"] = "on" if sim.side("equalizer") == "right" else "off"
            view["controls"] = {"turn": sim.side("turn"), "equalizer": sim.side("equalizer")}
            for i in (1, 2, 3):
                view["controls"]["flip_flop_%d" % i] = sim.side("flip_flop_%d" % i)
            view["turn"] = "player" if sim.side("turn") == "right" else "machine"
        else:
            view["rows"] = ",".join(str(n) for n in sim.rows())
        return view

    def summary(self):
        view = self.view()
        if "rail" in view:
            return "rail %s, turn %s, equalizer %s, winner %s, fault %s" % (
                view["rail"], view["turn"], view["equalizer"], view["winner"], view["fault"])
        return "rows %s, turn %s, winner %s" % (view["rows"], view["turn"], view["winner"])

    def expect(self, number, what, words):
        commands = self.sim.commands[self.seen:]
        if what == "commands":
            self.seen = len(self.sim.commands)
        try:
            got = mismatch(self.view(), commands, what, words)
        except KeyError:
            raise ScriptError("line %d: cannot check %r" % (number, what))
        wanted = " ".join(words)
        if got is None:
            self.report("line %d: expect %s %s: ok" % (number, what, wanted))
        else:
            message = "line %d: expect %s %s: FAILED, got %s" % (number, what, wanted, got)
            self.failures.append(message)
            self.report(message)

    def close(self):
        if self.sim:
            self.sim.close()


def run_script(text, report=None, **options):
    """Play a script through the whole stack; returns the failures (empty: all held)."""
    steps = parse(text)
    runner = ScriptRun(report=report, **options)
    try:
        for number, words in steps:
            runner.step(number, words)
    finally:
        runner.close()
    return runner.failures
