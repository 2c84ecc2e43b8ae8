"""Saved games: the format, its migration, and the check that lets nothing
impossible resume. Every field is checked for type and range against the
machine's STATE, then for consistency with the settings and with each other.

STATE and the machine's own rules (`check_consistency`) live in its
<name>_state.py (drnim_state.py, nimatron_state.py), loaded from here by
name: a machine's module does not carry them, and this module and those
are loaded only when a saved game is read back, so a board's heap carries
them only while it restores one (the firmware drops them after). The Pi
service, the firmware and the tests share them.
"""

from .basics import MACHINE, PLAYER, SAVE_FORMAT, ConfigError, plain_copy
from .limits import DAY_MS
from .registry import NAMES

TIMER_HORIZON_MS = 2 * DAY_MS
# The state every machine keeps, each key with what it may hold (see check_field); a
# machine's <name>_state.py adds its own keys to these.
STATE = {
    "attract": ("flag",),
    "attract_step": ("whole", 0, None),
    "timers": ("timers",),
    "shown": ("dict",),
    "clock": ("whole", 0, None),
    "mode": ("choice", ("play", "over")),
    "turn": ("choice", (PLAYER, MACHINE)),
    "winner": ("choice", (None, PLAYER, MACHINE)),
    "turns": ("list",),
    "rng": ("whole", 1, 0xFFFFFFFF),
    "fault": ("choice", (None, "check")),
}


class SaveError(ValueError):
    """A saved game that cannot be resumed; the message names the key and the problem."""


def _describe(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_field(key, spec, value, limits):
    """Check one state value against its STATE spec; SaveError naming `state.KEY`.

    Specs: ("flag",), ("whole", low, high) where high is a number, None (no
    bound) or the name of a setting in `limits` (and a fourth item: None is
    allowed too), ("choice", options), ("list",), ("list_or_none",), ("dict",),
    ("timers",).
    """
    kind = spec[0]
    where = "state." + key
    if kind == "flag":
        ok = isinstance(value, bool)
        want = "true or false"
    elif kind == "whole":
        high = limits[spec[2]] if isinstance(spec[2], str) else spec[2]
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= spec[1] \
            and (high is None or value <= high) or (value is None and len(spec) > 3)
        want = "a whole number from %d to %s" % (spec[1], "any" if high is None else high)
    elif kind == "choice":
        ok = value in spec[1]
        want = "one of %s" % ", ".join(str(option) for option in spec[1])
    elif kind == "list":
        ok = isinstance(value, list)
        want = "a list"
    elif kind == "list_or_none":
        ok = value is None or isinstance(value, list)
        want = "a list or nothing"
    elif kind in ("dict", "timers"):
        ok = isinstance(value, dict)
        want = "a table"
        if ok and kind == "timers":
            for name in value:
                due = value[name]
                if not isinstance(due, int) or isinstance(due, bool):
                    raise SaveError("%s.%s: %s is not a time in ms" % (where, name, _describe(due)))
    else:
        return
    if not ok:
        raise SaveError("%s: %s is not %s" % (where, _describe(value), want))


def require(condition, problem):
    """A consistency rule of a saved state: SaveError with `problem` when it fails."""
    if not condition:
        raise SaveError("state: " + problem)


def resume(cls, settings, data, problem=None, keep_settings=False):
    """What a controller plays at start, the same on the Pi and on a board:
    (machine, how, note). `data` is the saved game read back (None: no save),
    `problem` why it could not be read. how is "saved" (resumed), "new" (no
    save, one for the other machine, or, unless `keep_settings`, one made with
    other settings than times; `note` says which) or "check" (the save cannot be trusted:
    a new game held in fault "check" until staff press New game; `note` says
    why)."""
    if data is None and problem is None:
        return cls(settings), "new", None
    if problem is None and isinstance(data, dict) and data.get("machine") in NAMES and data["machine"] != cls.NAME:
        return cls(settings), "new", "the saved game was for %s" % data["machine"]
    if problem is None:
        try:
            machine = restore(cls, data)
        except SaveError as error:
            problem = str(error)
        else:
            if keep_settings:
                return machine, "saved", None
            fresh = cls(settings)
            if same_game(machine.config, fresh.config):
                machine.config = fresh.config
                return machine, "saved", None
            return fresh, "new", "the saved game was for other settings"
    machine = cls(settings)
    machine.hold_for_check()
    return machine, "check", problem


def same_game(saved, given):
    """Whether a saved game goes on under the settings `given`: the same but for the times (`*_ms`:
    the pace, the waits, the attract's), which staff may change mid-game; the next of each takes
    the new time."""
    for key in given:
        if saved.get(key) != given[key] and not key.endswith("_ms"):
            return False
    return True


def restore(cls, data):
    """The machine of class `cls` a saved game describes, every field checked;
    SaveError naming the first thing that is wrong."""
    data = migrate(data)
    if data["machine"] != cls.NAME:
        raise SaveError("machine: the saved game is for %s, not %s" % (_describe(data["machine"]), cls.NAME))
    try:
        machine = cls(data["config"])
    except ConfigError as error:
        raise SaveError("config.%s" % error)
    machine.check_state(data["state"])
    machine.state = plain_copy(data["state"])
    machine.restored()
    return machine


def state_rules(cls):
    """The module that says what a saved game of the machine `cls` may hold:
    its <name>_state.py, with STATE and check_consistency(machine, state)."""
    return __import__(cls.NAME + "_state", globals(), None, ("STATE",), 1)


def check_state(machine, state):
    """Every key of the machine's STATE present with a value it may hold, no
    other key, and the values consistent with each other and the settings."""
    rules = state_rules(machine)
    table = rules.STATE
    for key in table:
        if key not in state:
            raise SaveError("state.%s: missing" % key)
        check_field(key, table[key], state[key], machine.config)
    for key in state:
        if key not in table:
            raise SaveError("state.%s: not a key of a %s game" % (_describe(key), machine.NAME))
    clock = state["clock"]
    for name in state["timers"]:
        due = state["timers"][name]
        require(getattr(machine, "timer_" + name, None) is not None, "a timer %r that %s does not have"
                % (name, machine.NAME))
        require(clock < due <= clock + TIMER_HORIZON_MS, "timer %s is due at %d, which does not follow the "
                "clock's %d" % (name, due, clock))
    require(state["attract_step"] < len(machine.LAMPS), "attract_step %d is beyond the %d attract lamps"
            % (state["attract_step"], len(machine.LAMPS)))
    require(state["attract"] == ("attract" in state["timers"]), "attract and its timer disagree")
    require((state["mode"] == "over") == (state["winner"] is not None), "mode %s with winner %s"
            % (state["mode"], state["winner"]))
    for turn in state["turns"]:
        require(isinstance(turn, list) and len(turn) == 2 and turn[0] in (PLAYER, MACHINE),
                "turn %s is not [player|machine, what was taken]" % _describe(turn))
    rules.check_consistency(machine, state)


def migrate(data):
    """A saved game in the current format: an older one brought up to date,
    anything else refused with SaveError."""
    if not isinstance(data, dict):
        raise SaveError("not a saved game: %s instead of a table" % _describe(data))
    for key in ("machine", "config", "state"):
        if key not in data:
            raise SaveError("%s: missing" % key)
    for key in data:
        if key not in ("format", "machine", "config", "state"):
            raise SaveError("%s: not a key of a saved game" % _describe(key))
    version = data.get("format", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SaveError("format: %s is not a format version" % _describe(version))
    if version > SAVE_FORMAT:
        raise SaveError("format: saved in format %d by a newer controller; this one reads up to %d"
                        % (version, SAVE_FORMAT))
    if not isinstance(data["config"], dict) or not isinstance(data["state"], dict):
        raise SaveError("config and state must be tables")
    if version < SAVE_FORMAT:
        data = dict(data)
        data["state"] = dict(data["state"])
        data["format"] = SAVE_FORMAT
    if version == 1:
        data["state"].setdefault("fault", None)
    if version < 3 and data["machine"] == "drnim":
        # the switch was where the settings armed the equalizer at New game
        data["state"].setdefault("equalizer_switch", "right" if data["config"].get("equalizer", True) else "left")
    if version == 4:
        data = whole(data)
    return data


def whole(data):
    """A save of format 4 whole: one written short (Exhibit.to_save) has its
    settings at their defaults left out, no outputs shown (a resumed game
    sends them all again) and its turns as text."""
    from .registry import machine_class
    if data["machine"] not in NAMES:
        return data     # refused by restore, which names it
    config = dict((name, setting.default) for name, setting in machine_class(data["machine"]).SETTINGS.items())
    config.update(data["config"])
    state = {"shown": {}}
    state.update(data["state"])
    if "turns" in state and not isinstance(state["turns"], list):
        state["turns"] = turns_of(state["turns"])
    return {"format": SAVE_FORMAT, "machine": data["machine"], "config": config, "state": state}


def turns_of(text):
    """Turns in short ("p1,m3"; a Nimatron's "p4:1") as the state keeps them."""
    if not isinstance(text, str):
        raise SaveError("state.turns: %s is not the turns in short, such as \"p1,m3\"" % _describe(text))
    turns = []
    for turn in text.split(",") if text else ():
        who = {"p": PLAYER, "m": MACHINE}.get(turn[:1])
        taken = turn[1:]
        if who is None or not taken:
            raise SaveError("state.turns: %s is not a turn, such as p1 or m3" % _describe(turn))
        turns.append([who, int(taken) if taken.isdigit() else taken])
    return turns
