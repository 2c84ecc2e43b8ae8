"""What the Dr. Nim and Nimatron machines share: the event contract, what a
machine declares about itself, settings, timers, outputs and the attract state.

The contract. A machine takes events, each with the time in integer
milliseconds, and returns commands:

    machine.handle(("press", "trigger"), 12500) -> [("release",), ("lamp", "your_turn", "on")]

Events: ``("press", NAME)`` and ``("release", NAME)`` for buttons,
``("switch", NAME, POSITION)`` for a switch moved by hand, ``("marble",)`` for
a marble seen by the gate sensor, ``("tick",)`` to let time pass, and
``("power",)`` when the outputs must be set from scratch (at start-up, after a
restore). The machine never reads a clock: time passes only through the
stamps, and `next_deadline()` tells a shell when the machine next needs one.

Commands: one-shot actions, ``("release",)`` (one marble), ``("sound", CUE)``,
``("message", ID, VALUES)`` (what the machine says: a message id and a dict of
the numbers in it, which each shell renders in its visitor's language from
its catalog, controller/language/); and output settings, ``("flip_flop", N, SIDE)``,
``("equalizer", SIDE)``, ``("turn", SIDE)``, ``("lamp", NAME, on|off|blink)``,
``("row", N, LIT)``. Output settings are derived from the state and sent only
when they change, so the state is the single truth and a restore resends them.

What a machine declares, for every shell to read (the pin map, the
configuration, the scripts, the simulator, the firmware): `NAME` and
`TITLE`; `INPUTS` and `OUTPUTS`, the roles a pin map wires; `SETTINGS`, each
with its default and range. The whole state is a plain dict (`to_dict`,
`from_dict`) at any moment, and a restored machine resumes exactly. What each
key of it may hold (`STATE`) and the rules its values keep with each other are
in the machine's <name>_state.py, which only a restore loads (saves.py): a
board holds them only while it restores a game.
"""

from .basics import (MACHINE, PLAYER, SAVE_FORMAT, ConfigError, plain_copy,  # noqa: F401  (given out here too)
                     seeded_state)
from .endings import MISERE, NORMAL
from .limits import DAY_MS

ON = "on"
OFF = "off"
BLINK = "blink"

# The rule settings' names, as a visitor reads them, and the game theory's.
RULES = {"last-loses": MISERE, "last-wins": NORMAL}

# Input kinds: a push button, a two-way switch moved by hand, a sensor.
BUTTON = "button"
SWITCH = "switch"
SENSOR = "sensor"
# Output kinds: a two-sided indicator, a status lamp, the marble release, the
# buzzer, rows of lamps.
INDICATOR = "indicator"
LAMP = "lamp"
RELEASE = "release"
SOUND = "sound"
LAMP_ROWS = "lamp_rows"

# Timers that run while the machine is at rest: nothing worth keeping changes with them.
RESTING_TIMERS = ("idle", "over", "attract")


class UnknownEvent(ValueError):
    """An event the machine does not know."""


class Input:
    """An input role of a machine: what a pin map wires, and the events it gives.

    A button gives ``("press", ROLE)`` and ``("release", ROLE)``; a switch
    ``("switch", NAME, ON_SIDE)`` when active and ``("switch", NAME, OFF_SIDE)``
    when not; a sensor ``(EVENT,)`` when active and nothing when not. `means`
    says in words what "active" is, for the wiring notes. A switch's
    `positions` are the words a script may use for its sides: ON and OFF, and
    `also`, two more (such as left and right), all -> True when active.

    A switch with a `setting` is one the machine remembers (Dr. Nim's
    equalizer): the setting of that name says where it is until the machine
    hears otherwise, and `Exhibit.switches()` where the machine believes it
    is. A shell that can read the switch tells the machine at start-up when
    it is elsewhere (it may have been moved while the controller was off),
    and a virtual one starts it where the machine believes it is.
    """

    def __init__(self, role, kind=BUTTON, means="pressed", name=None, on=None, off=None, also=None, setting=None):
        self.role = role
        self.kind = kind
        self.means = means
        self.setting = setting
        self.positions = {}
        if kind == BUTTON:
            self.events = (("press", role), ("release", role))
        elif kind == SWITCH:
            self.events = (("switch", name, on), ("switch", name, off))
            self.positions = {on: True, off: False}
            if also:
                self.positions[also[0]] = True
                self.positions[also[1]] = False
        else:
            self.events = ((name,), None)


class Output:
    """An output role: its kind, and the head of the commands it carries out
    (``("flip_flop", 1)`` for ``("flip_flop", 1, "left")``)."""

    def __init__(self, role, kind, command):
        self.role = role
        self.kind = kind
        self.command = command


class Setting:
    """A setting: its default, and the range or the choices it may take.

    The default's type is the setting's type: true/false, a whole number from
    `low` to `high`, text (one of `choices`, when given), or a list.
    """

    def __init__(self, default, low=0, high=None, choices=None):
        self.default = default
        self.low = low
        self.high = high
        self.choices = choices

    def check(self, key, value):
        """The value, checked; ConfigError naming `key` when it does not fit."""
        default = self.default
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError("%s: must be true or false, not %r" % (key, value))
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int) \
                    or value < self.low or (self.high is not None and value > self.high):
                raise ConfigError("%s: must be a whole number from %d to %s, not %r" % (
                    key, self.low, self.high if self.high is not None else "any", value))
        elif isinstance(default, list):
            if not isinstance(value, (list, tuple)):
                raise ConfigError("%s: must be a list, not %r" % (key, value))
            value = list(value)
        elif not isinstance(value, str):
            raise ConfigError("%s: must be text, not %r" % (key, value))
        elif self.choices and value not in self.choices:
            raise ConfigError("%s: %r is not one of %s" % (key, value, ", ".join(self.choices)))
        return value


def time_setting(default, low=1):
    """A time in milliseconds: at least `low`, at most a day."""
    return Setting(default, low, DAY_MS)


def check_settings(table, given):
    """The defaults of `table` overridden by `given`, each value checked."""
    settings = {}
    for key in table:
        settings[key] = table[key].default
    for key in sorted(given):
        if key not in table:
            raise ConfigError("%s: unknown setting (known: %s)" % (key, ", ".join(sorted(table))))
        settings[key] = table[key].check(key, given[key])
    return settings


def with_settings(base, more):
    """A settings table: `base` with the settings of `more` added or replaced."""
    table = dict(base)
    table.update(more)
    return table


class Exhibit:
    """The shared machinery. A subclass declares `NAME`, `TITLE`, `INPUTS`,
    `OUTPUTS`, `SETTINGS` and `LAMPS` (status lamps in attract order),
    and defines `new_game_state()`, `outputs()`, `on_<event kind>()` handlers,
    `timer_<name>()` handlers and `explain()`. Any input wakes the machine
    from its attract state and acts as usual."""

    NAME = ""
    TITLE = ""
    # What the machine says at the end (message ids, declared by each machine), and the sound of a visitor's win
    WIN_MESSAGE = ""
    LOSE_MESSAGE = ""
    WIN_CUE = "win"
    INPUTS = ()
    OUTPUTS = ()
    LAMPS = ()
    # Keys of a pin map's top level that describe this machine's hardware
    # (the Nimatron's rows): (key, the setting whose range it takes, what it is).
    LAYOUT = ()
    # Settings that time a release after a release (Dr. Nim's pace, its retry):
    # each must outlast the release's open time, or the second is asked for
    # while the gate is still open and no second marble falls.
    RELEASE_GAPS = ()
    SETTINGS = {
        "rule": Setting("last-wins", choices=tuple(sorted(RULES))),
        "opponent": Setting("perfect"),
        "seed": Setting(1, 0, 0xFFFFFFFF),
        "idle_ms": time_setting(120000),
        "attract_after_game_ms": time_setting(30000),
        # A lamp step faster than 20 a second is a blur, and keeps the loop busy.
        "attract_step_ms": time_setting(400, 50),
    }
    def __init__(self, config=None):
        self.config = check_settings(self.SETTINGS, config or {})
        self.opponent = None
        self.check_config()
        self.state = {"attract": False, "attract_step": 0, "timers": {}, "shown": {}, "clock": 0}
        self.new_game_state()

    @classmethod
    def inputs(cls, layout=None):
        """The input roles a pin map wires, in order; `layout` holds the pin
        map's LAYOUT values (the Nimatron's rows)."""
        return cls.INPUTS

    @classmethod
    def has_output(cls, kind):
        for spec in cls.OUTPUTS:
            if spec.kind == kind:
                return True
        return False

    def layout(self):
        """The LAYOUT values these settings ask of a pin map (the Nimatron's rows)."""
        return dict((entry[0], self.config[entry[1]]) for entry in self.LAYOUT)

    def wiring_problem(self, wired):
        """Why these settings cannot be played on a pin map with the LAYOUT values
        `wired` (more rows or lamps than it has), in one line, or None."""
        for key, setting, what in self.LAYOUT:
            if self.config[setting] > wired[key]:
                return "%s: %d, but the wiring has %d (%s)" % (setting, self.config[setting], wired[key], what)
        return None

    def buttons(self):
        """The roles of this machine's buttons, with its settings."""
        return [spec.role for spec in self.inputs(self.layout()) if spec.kind == BUTTON]

    def check_config(self):
        """Checks across settings; a subclass raises ConfigError."""

    @property
    def rule(self):
        """The game theory's rule (MISERE or NORMAL) for the `rule` setting."""
        return RULES[self.config["rule"]]

    # --- views ----------------------------------------------------------------
    @property
    def mode(self):
        return self.state["mode"]

    @property
    def turn(self):
        return self.state["turn"]

    @property
    def winner(self):
        return self.state["winner"]

    @property
    def turns(self):
        """The turns so far: [who, what they took] for each."""
        return self.state["turns"]

    @property
    def attract(self):
        return self.state["attract"]

    @property
    def fault(self):
        return self.state.get("fault")

    @property
    def resting(self):
        """True when nothing is under way: only the resting timers run."""
        for name in self.state["timers"]:
            if name not in RESTING_TIMERS:
                return False
        return True

    def status(self):
        """What `controller status` shows of the game, as plain data."""
        return {"mode": self.mode, "fault": self.fault, "winner": self.winner, "turn": self.turn,
                "attract": self.attract}

    def incidents(self):
        """Counts of things that went wrong in this game without stopping it, by kind."""
        return {}

    def switches(self):
        """The switches this machine remembers (inputs with a `setting`): role -> True when the
        machine believes the switch is at its active side."""
        return {}

    def explain(self):
        """The working: why the machine moves as it does, as (style, id,
        values) lines, each rendered by a shell from its catalog like a
        message; style is head, good, warn, note or plain."""
        return []

    # --- the contract -------------------------------------------------------
    def handle(self, event, now):
        out = []
        kind = event[0]
        handler = getattr(self, "on_" + kind, None)
        if handler is None:
            raise UnknownEvent("unknown event %r" % (event,))
        if kind == "power":
            self.rebase(now)
        self.run_timers(now, out)
        self.state["clock"] = now
        if kind != "tick":
            self.wake()
        handler(event, now, out)
        if kind != "tick":
            self.touched(now)
        self.sync(out)
        return out

    def on_tick(self, event, now, out):
        pass

    def on_power(self, event, now, out):
        pass

    def on_press(self, event, now, out):
        if event[1] == "new_game":
            self.new_game(now, out)
        else:
            self.pressed(event[1], now, out)

    def pressed(self, name, now, out):
        """A button other than New game; a subclass acts on its own."""
        raise UnknownEvent("unknown control in %r" % (("press", name),))

    def new_game(self, now, out):
        self.new_game_state()
        message, values = self.new_game_message()
        self.tell(out, message, "new_game", values)

    def on_release(self, event, now, out):
        """Buttons act when pressed; their release changes nothing."""

    def rebase(self, now):
        """After a restart the shell's clock starts again: move every timer by
        the same amount, so each keeps the time it had left, and resend every output."""
        self.move_clock(now - self.state["clock"])
        self.state["shown"] = {}

    def move_clock(self, shift):
        """The shell's clock moved by `shift` ms (a board keeps its numbers small):
        the machine's clock and every timer move with it."""
        timers = self.state["timers"]
        for name in timers:
            timers[name] += shift
        self.state["clock"] += shift

    def next_deadline(self):
        """When the machine next needs a tick, in ms, or None."""
        timers = self.state["timers"]
        return min(timers.values()) if timers else None

    def to_dict(self):
        """The whole game as plain data: `from_dict` makes the same machine of it."""
        return {"format": SAVE_FORMAT, "machine": self.NAME, "config": dict(self.config),
                "state": plain_copy(self.state)}

    def to_save(self):
        """The game as it is saved, short: the settings that differ from their
        defaults, the state without the outputs last shown (a game resumes by
        sending them all again), the turns as "p1,m3". `from_dict` reads it
        back. A board's save is so under 512 bytes, the most its LittleFS keeps
        inside the directory's own block rather than in a block of its own,
        which costs far fewer erases of the flash."""
        config = {}
        for name in self.config:
            if self.config[name] != self.SETTINGS[name].default:
                config[name] = plain_copy(self.config[name])
        state = {}
        for key in self.state:
            if key != "shown":
                state[key] = plain_copy(self.state[key])
        state["turns"] = ",".join("%s%s" % (who[:1], taken) for who, taken in self.state["turns"])
        return {"format": SAVE_FORMAT, "machine": self.NAME, "config": config, "state": state}

    @classmethod
    def from_dict(cls, data):
        """The machine a saved game describes, every field checked (saves.py,
        loaded only when a game is restored); SaveError naming the first
        thing that is wrong, so nothing impossible resumes."""
        from .saves import restore
        return restore(cls, data)

    def check_state(self, state):
        """Every key of the machine's STATE present with a value it may hold, no
        other key, and the values consistent with each other and with the
        settings (saves.py and the machine's <name>_state.py: only a restore
        loads them)."""
        from .saves import check_state
        check_state(self, state)

    def hold_for_check(self):
        """Hold the game in fault "check" until New game: the game in progress
        cannot be trusted (a restart with a marble on its way, a damaged save)."""
        self.state["fault"] = "check"
        for name in list(self.state["timers"]):
            if name not in RESTING_TIMERS:
                self.cancel_timer(name)

    def restored(self):
        """The opponent's random generator continues where the saved game left it."""
        if self.opponent is not None:
            self.opponent.rng.set_state(self.state["rng"])

    def rng_state(self):
        """The opponent's generator as the state keeps it. A machine with no
        opponent (historic Dr. Nim) keeps the seed's starting state, so a
        board that never uses an opponent never loads the opponents, nor
        the generator."""
        if self.opponent is None:
            return seeded_state(self.config["seed"])
        return self.opponent.rng.get_state()

    def make_opponent(self, position):
        """The `opponent` setting as a core player, checked against the game it
        will play; imported here, when a machine's settings ask for one."""
        from .players import find_player
        from .rng import Random
        try:
            self.opponent = find_player(self.config["opponent"], Random(self.config["seed"]))
        except ValueError as error:
            raise ConfigError("opponent: %s" % error)
        problem = self.opponent.unsupported(self.variant(), position)
        if problem:
            raise ConfigError("opponent: " + problem)

    # --- timers -------------------------------------------------------------
    def set_timer(self, name, due):
        self.state["timers"][name] = due

    def cancel_timer(self, name):
        self.state["timers"].pop(name, None)

    def run_timers(self, now, out):
        """Fire every timer due by `now`, earliest first, each at its own due time,
        so the outcome does not depend on how often ticks come."""
        timers = self.state["timers"]
        self.now = now
        while timers:
            name = None
            for key in timers:
                if name is None or (timers[key], key) < (timers[name], name):
                    name = key
            due = timers[name]
            if due > now:
                return
            del timers[name]
            getattr(self, "timer_" + name)(due, out)

    # --- attract state ------------------------------------------------------
    def touched(self, now):
        """Someone used the machine: restart the idle clock (only during a game)."""
        if self.state["mode"] == "play":
            self.set_timer("idle", now + self.config["idle_ms"])
        else:
            self.cancel_timer("idle")

    def timer_idle(self, due, out):
        self.state["attract"] = True
        self.state["attract_step"] = 0
        self.set_timer("attract", due + self.config["attract_step_ms"])

    def timer_over(self, due, out):
        self.timer_idle(due, out)

    def timer_attract(self, due, out):
        """The next attract lamp; after a long time without a tick, every step
        missed at once (the same lamp as stepping one by one, in no time)."""
        step = self.config["attract_step_ms"]
        steps = 1 + max(0, self.now - due) // step
        self.state["attract_step"] = (self.state["attract_step"] + steps) % len(self.LAMPS)
        self.set_timer("attract", due + steps * step)

    def wake(self):
        if self.state["attract"]:
            self.state["attract"] = False
            self.cancel_timer("attract")

    def attract_lamps(self):
        lit = self.LAMPS[self.state["attract_step"] % len(self.LAMPS)]
        return dict(("lamp/" + name, ON if name == lit else OFF) for name in self.LAMPS)

    def game_over(self, taker, now, out):
        """`taker` took the last object: the rule says who won, and the machine says it."""
        s = self.state
        s["mode"] = "over"
        other = MACHINE if taker == PLAYER else PLAYER
        s["winner"] = other if self.rule == MISERE else taker
        s["turn"] = PLAYER
        self.cancel_timer("idle")
        self.set_timer("over", now + self.config["attract_after_game_ms"])
        self.tell(out, self.verdict(), self.WIN_CUE if s["winner"] == PLAYER else "lose")

    def verdict(self):
        """What the machine said when the game ended (a message id, with no values)."""
        return self.WIN_MESSAGE if self.state["winner"] == PLAYER else self.LOSE_MESSAGE

    # --- outputs ------------------------------------------------------------
    def sync(self, out):
        """Send every output whose wanted setting differs from what is shown."""
        shown = self.state["shown"]
        wanted = self.outputs()
        for key in sorted(wanted):
            value = wanted[key]
            if shown.get(key) != value:
                shown[key] = value
                out.append(_command(key, value))

    def tell(self, out, message, cue=None, values=None):
        """Say `message` (an id) with its `values`, after the sound `cue`."""
        if cue:
            out.append(("sound", cue))
        out.append(("message", message, values or {}))


def _command(key, value):
    parts = key.split("/")
    return tuple(int(p) if p.isdigit() else p for p in parts) + (value,)
