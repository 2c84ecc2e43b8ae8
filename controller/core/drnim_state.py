"""What a saved Dr. Nim game may hold (docs/machines.md §1): each key of its
state with the values it may take (STATE), and the rules the values keep with
each other (`check_consistency`). Read only when a saved game is restored
(saves.py loads it by name), so a board's heap holds it only then.
"""

from .basics import MACHINE, PLAYER
from .drnim import LEFT, RIGHT
from .saves import STATE as COMMON, require

STATE = dict(COMMON)
STATE.update({
    "loaded": ("whole", 1, "capacity"),
    "taken": ("whole", 0, "capacity"),
    "flip_flops": ("choice", ("LLL", "LLR", "LRL", "LRR", "RLL", "RLR", "RRL", "RRR")),
    "equalizer": ("choice", (LEFT, RIGHT)),
    "equalizer_switch": ("choice", (LEFT, RIGHT)),
    "running": ("flag",),
    "turn_taken": ("whole", 0, "capacity"),
    "in_flight": ("flag",),
    "retries": ("whole", 0, 10),
    "queued": ("whole", 0, "capacity"),
    "planned": ("whole", 0, "capacity"),
    "fault": ("choice", (None, "jam", "check")),
    "extra_marbles": ("whole", 0, "capacity"),
})


def check_consistency(machine, s):
    """Counts that add up, a marble on its way only with its timer, a turn
    under way only with its next release coming (machines.md R2, R3)."""
    timers = s["timers"]
    require(s["loaded"] == machine.config["marbles"], "%d marbles loaded, but the settings load %d"
            % (s["loaded"], machine.config["marbles"]))
    require(s["taken"] <= s["loaded"], "%d marbles taken of %d loaded" % (s["taken"], s["loaded"]))
    counted = 0
    for who, count in s["turns"]:
        require(isinstance(count, int) and not isinstance(count, bool) and count >= 1
                and (who == PLAYER or count <= 3), "a turn of %r marbles for %s" % (count, who))
        counted += count
    counted += s["turn_taken"]
    if s["fault"] == "check":
        require(counted <= s["taken"], "the turns count %d marbles, more than the %d taken"
                % (counted, s["taken"]))
    else:
        require(counted == s["taken"], "the turns count %d marbles, but %d were taken" % (counted, s["taken"]))
    over = s["mode"] == "over"
    busy = s["running"] or s["in_flight"] or s["queued"]
    require(not over or (s["taken"] == s["loaded"] and not busy and s["fault"] is None and s["turn"] == PLAYER),
            "the game is over with marbles or a fault left")
    require(over or s["fault"] == "check" or s["taken"] < s["loaded"], "the rail is empty but the game goes on")
    require(not s["running"] or s["turn"] == MACHINE, "Dr. Nim's marbles run in the player's turn")
    require(not s["running"] or s["in_flight"] or "machine" in timers or s["fault"] == "jam",
            "Dr. Nim's turn runs with no marble on its way and none to come")
    require(s["in_flight"] == ("lost" in timers or (s["in_flight"] and s["fault"] == "jam")),
            "a marble on its way without its timer, or a timer without a marble")
    require("machine" not in timers or (s["running"] and not s["in_flight"]), "a release planned outside "
            "Dr. Nim's turn")
    require(not s["queued"] or s["in_flight"], "presses queued with no marble on its way")
    require(machine.config["lenient"] or s["queued"] <= 2, "more than 3 presses waiting for marbles")
    require(s["fault"] != "check" or not busy, "held for a check with a marble on its way")
    require(s["retries"] <= machine.config["release_retries"], "more retries left than the settings allow")
    require(machine.config["decide"] == "historic" or s["equalizer"] == LEFT,
            "the equalizer is armed but a strategy decides")
