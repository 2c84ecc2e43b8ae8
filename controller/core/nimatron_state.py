"""What a saved Nimatron game may hold (docs/machines.md §2): each key of its
state with the values it may take (STATE), and the rules the values keep with
each other (`check_consistency`). Read only when a saved game is restored
(saves.py loads it by name), so a board's heap holds it only then.
"""

from .basics import MACHINE, PLAYER
from .saves import STATE as COMMON, require
from .values import is_whole

STATE = dict(COMMON)
STATE.update({
    "start": ("list",),
    "rows": ("list",),
    "row": ("whole", 0, None, True),
    "turn_taken": ("whole", 0, "lamps"),
    "plan": ("list_or_none",),
})


def check_consistency(machine, s):
    """Rows that fit the lamps, turns that add up to the lamps put out, and
    a timer for the machine's move whenever it is under way."""
    rows, lamps = machine.config["rows"], machine.config["lamps"]
    for key in ("start", "rows"):
        value = s[key]
        require(len(value) == rows and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= lamps
                                           for n in value),
                "%s must be %d rows of 0 to %d lamps, not %s" % (key, rows, lamps, value))
    require(all(s["rows"][i] <= s["start"][i] for i in range(rows)), "a row has more lamps than it started with")
    counted = s["turn_taken"]
    for who, move in s["turns"]:
        row, _, count = str(move).partition(":")
        require(is_whole(row) and 1 <= int(row) <= rows and is_whole(count) and int(count) >= 1,
                "a turn %r is not row:lamps" % (move,))
        counted += int(count)
    out = sum(s["start"]) - sum(s["rows"])
    require(counted == out or s["fault"] == "check", "the turns count %d lamps, but %d are out" % (counted, out))
    timers = s["timers"]
    playing = s["mode"] == "play" and s["fault"] is None
    require(s["mode"] == "play" or not any(s["rows"]), "the game is over with lamps lit")
    require(s["mode"] == "over" or any(s["rows"]) or s["fault"], "every lamp is out but the game goes on")
    require(not playing or s["turn"] == PLAYER or "think" in timers or "lamp" in timers,
            "the machine's turn with no move coming")
    plan = s["plan"]
    require(plan is None or (s["turn"] == MACHINE and len(plan) == 2 and 0 <= plan[0] < rows
                             and 1 <= plan[1] <= s["rows"][plan[0]] and "lamp" in timers),
            "the machine's move %s does not fit the rows" % (plan,))
    require(("think" not in timers or (plan is None and s["turn"] == MACHINE))
            and ("lamp" not in timers or plan is not None), "a move's timer without its move")
    row = s["row"]
    require((row is None) == (s["turn"] == MACHINE or s["turn_taken"] == 0) and (row is None or row < rows),
            "the row %s does not fit the turn" % (row,))
