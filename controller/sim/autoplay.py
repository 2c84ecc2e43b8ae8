"""`controller --simulate --autoplay N`: N games on the virtual replica against
a model of a visitor, for demos and soak runs, with a summary at the end.

Visitors: `perfect` (a winning move whenever there is one), `random` (any
legal move), `novice` (right half the time). The visitor plays through the
controls, as a person would: presses, the turn switch, the hand-over button.
When a marble jams, the visitor waits a little and staff free it.
"""

from controller.core.players import find_player
from controller.core.rng import Random

VISITORS = {"perfect": "perfect", "random": "fallible:1", "novice": "fallible:0.5"}
JAM_WAIT_MS = 5000


def autoplay(sim, games, visitor="perfect", seed=0, report=None):
    """Play `games` games; returns the summary as a dict."""
    report = report or (lambda text: None)
    rng = Random(seed)
    player = find_player(VISITORS[visitor], rng)
    summary = {"games": 0, "player": 0, "machine": 0, "faults": {}, "marbles released": 0, "unfinished": 0}
    for number in range(games):
        if number:
            sim.press("new_game")
        finished = play_one(sim, player, rng, summary)
        summary["games"] += 1
        winner = sim.machine.winner
        if finished and winner:
            summary[winner] += 1
        else:
            summary["unfinished"] += 1
        report("game %d: %s" % (number + 1, "won by " + winner if winner else "unfinished"))
    summary["marbles released"] = sim.marbles.releases if sim.marbles else 0
    return summary


def play_one(sim, player, rng, summary, limit=200):
    """One game; False if it did not end within `limit` visitor turns."""
    machine = sim.machine
    variant = machine.variant()
    marbles = sim.marbles is not None
    if marbles and rng.below(2):
        hand_over(sim, summary)  # the visitor lets Dr. Nim start
    for _ in range(limit):
        if machine.mode != "play":
            return True
        if marbles:
            for _ in range(player.choose(variant, (machine.rail,)).total):
                sim.press("trigger")
                sim.settle()
                check_faults(sim, summary)
            if machine.mode == "play":
                hand_over(sim, summary)
        else:
            if machine.turn == "machine":
                sim.settle()
                continue
            heap, count = player.choose(variant, tuple(machine.rows)).takes[0]
            for _ in range(count):
                sim.press("row%d" % (heap + 1))
            if machine.mode == "play":
                sim.press("handover")
                sim.settle()
    return machine.mode != "play"


def hand_over(sim, summary):
    sim.set_switch("turn_switch", True)
    sim.press("trigger")
    sim.settle()
    check_faults(sim, summary)


def check_faults(sim, summary):
    fault = sim.machine.fault
    if fault:
        summary["faults"][fault] = summary["faults"].get(fault, 0) + 1
        sim.advance(JAM_WAIT_MS)
        if fault == "jam":
            sim.clear_jam()
            sim.settle()
        else:
            sim.press("new_game")


def summary_lines(summary):
    faults = ", ".join("%s %d" % item for item in sorted(summary["faults"].items())) or "none"
    lines = ["games: %d" % summary["games"],
             "wins: visitor %d, machine %d%s" % (summary["player"], summary["machine"],
                                                ", unfinished %d" % summary["unfinished"] if summary["unfinished"]
                                                else ""),
             "faults: " + faults]
    if summary["marbles released"]:
        lines.append("marbles released: %d" % summary["marbles released"])
    return lines
