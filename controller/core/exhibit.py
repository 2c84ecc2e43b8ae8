"""What the Dr. Nim and Nimatron machines share: the event contract, settings,
timers, outputs and the attract state.

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
``("message", TEXT)``; and output settings, ``("flip_flop", N, SIDE)``,
``("equalizer", SIDE)``, ``("turn", SIDE)``, ``("lamp", NAME, on|off|blink)``,
``("row", N, LIT)``. Output settings are derived from the state and sent only
when they change, so the state is the single truth and a restore resends them.

The whole state is a plain dict (`to_dict`, `from_dict`) at any moment, and a
restored machine resumes exactly.
"""

from .players import find_player
from .rng import Random

ON = "on"
OFF = "off"
BLINK = "blink"


class ConfigError(ValueError):
    """A setting with a bad value; the message names the setting."""


class UnknownEvent(ValueError):
    """An event the machine does not know."""


def check_settings(defaults, given, choices):
    """The defaults overridden by `given`, each value checked against its default's type."""
    settings = dict(defaults)
    for key in sorted(given):
        value = given[key]
        if key not in defaults:
            raise ConfigError("%s: unknown setting (known: %s)" % (key, ", ".join(sorted(defaults))))
        default = defaults[key]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError("%s: must be true or false, not %r" % (key, value))
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError("%s: must be a whole number, 0 or more, not %r" % (key, value))
        elif isinstance(default, list):
            if not isinstance(value, (list, tuple)):
                raise ConfigError("%s: must be a list, not %r" % (key, value))
            value = list(value)
        elif isinstance(default, str):
            if not isinstance(value, str):
                raise ConfigError("%s: must be text, not %r" % (key, value))
            if key in choices and value not in choices[key]:
                raise ConfigError("%s: %r is not one of %s" % (key, value, ", ".join(choices[key])))
        settings[key] = value
    return settings


class Exhibit:
    """The shared machinery. A subclass defines `NAME`, `DEFAULTS`, `CHOICES`,
    `LAMPS` (status lamps in attract order), `new_game_state()`, `outputs()`,
    `on_<event kind>()` handlers and `timer_<name>()` handlers. Any input
    wakes the machine from its attract state and acts as usual."""

    NAME = ""
    DEFAULTS = {}
    CHOICES = {}
    LAMPS = ()

    def __init__(self, config=None):
        self.config = check_settings(self.DEFAULTS, config or {}, self.CHOICES)
        self.check_config()
        self.state = {"attract": False, "attract_step": 0, "timers": {}, "shown": {}, "clock": 0}
        self.new_game_state()

    def check_config(self):
        """Checks across settings; a subclass raises ConfigError."""

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

    def on_release(self, event, now, out):
        """Buttons act when pressed; their release changes nothing."""

    def rebase(self, now):
        """After a restart the shell's clock starts again: move every timer by
        the same amount, so each keeps the time it had left, and resend every output."""
        shift = now - self.state["clock"]
        timers = self.state["timers"]
        for name in timers:
            timers[name] += shift
        self.state["shown"] = {}

    def next_deadline(self):
        """When the machine next needs a tick, in ms, or None."""
        timers = self.state["timers"]
        return min(timers.values()) if timers else None

    def to_dict(self):
        return {"machine": self.NAME, "config": dict(self.config), "state": _copy(self.state)}

    @classmethod
    def from_dict(cls, data):
        if data.get("machine") != cls.NAME:
            raise ConfigError("saved state is for %r, not %s" % (data.get("machine"), cls.NAME))
        machine = cls(data["config"])
        machine.state = _copy(data["state"])
        machine.restored()
        return machine

    def restored(self):
        """The opponent's random generator continues where the saved game left it."""
        self.opponent.rng.set_state(self.state["rng"])

    def make_opponent(self, position):
        """The `opponent` setting as a core player, checked against the game it will play."""
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
        """Someone used the machine: restart the idle clock."""
        idle = self.idle_after()
        if idle:
            self.set_timer("idle", now + idle)
        else:
            self.cancel_timer("idle")

    def idle_after(self):
        return 0

    def timer_idle(self, due, out):
        self.state["attract"] = True
        self.state["attract_step"] = 0
        self.set_timer("attract", due + self.config["attract_step_ms"])

    def timer_over(self, due, out):
        self.timer_idle(due, out)

    def timer_attract(self, due, out):
        self.state["attract_step"] = (self.state["attract_step"] + 1) % len(self.LAMPS)
        self.set_timer("attract", due + self.config["attract_step_ms"])

    def wake(self):
        if self.state["attract"]:
            self.state["attract"] = False
            self.cancel_timer("attract")

    def attract_lamps(self):
        lit = self.LAMPS[self.state["attract_step"] % len(self.LAMPS)]
        return dict(("lamp/" + name, ON if name == lit else OFF) for name in self.LAMPS)

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

    def tell(self, out, text, cue=None):
        if cue:
            out.append(("sound", cue))
        out.append(("message", text))


def _command(key, value):
    parts = key.split("/")
    return tuple(int(p) if p.isdigit() else p for p in parts) + (value,)


def _copy(value):
    if isinstance(value, dict):
        return dict((k, _copy(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_copy(v) for v in value]
    return value
