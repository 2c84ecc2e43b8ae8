"""`controller --simulate --autoplay N`: N games on the virtual replica against
a model of a visitor, for demos and soak runs, with a summary at the end.

Visitors: `perfect` (a winning move whenever there is one), `random` (any
legal move), `novice` (right half the time). The visitor plays through the
controls, as a person would: presses, the turn switch, the hand-over button.
When a marble jams, the visitor waits a little and staff free it.

The summary hides nothing: the machine's faults by kind (extra marbles
included), what the world really did (sensor glitches, jams), and the games
that ended with marbles still on the rail. Those are expected when the
sensor glitches: the machine counts a glitch as a marble (it cannot tell
them apart), as an extra marble or as the marble it was waiting for while
the real one is jammed, so it sees the rail empty while a marble is still
there. A game that ends with more marbles left than the sensor glitched in
it is not explained by that, and the summary says so.
"""

import signal
import threading

from controller.core.players import find_player
from controller.core.rng import Random

VISITORS = {"perfect": "perfect", "random": "fallible:1", "novice": "fallible:0.5"}
JAM_WAIT_MS = 5000


def autoplay(sim, games, visitor="perfect", seed=0, report=None):
    """Play `games` games; returns the summary as a dict. Ctrl-C stops the run: the summary
    then has the games played before it, and "stopped" is True (the game under way is not counted).

    Ctrl-C is heard between two of the visitor's moves, never inside one: a KeyboardInterrupt
    raised anywhere could land inside gpiozero starting a device's thread, which its close
    (and its exit handler) then fails to join ("cannot join thread before it is started")."""
    stop = []
    main = threading.current_thread() is threading.main_thread()      # where a signal handler may be set
    before = signal.signal(signal.SIGINT, lambda number, frame: stop.append(number)) if main else None
    try:
        return play_games(sim, games, visitor, seed, report, stop)
    finally:
        if main:
            signal.signal(signal.SIGINT, before)


def play_games(sim, games, visitor, seed, report, stop):
    report = report or (lambda text: None)
    rng = Random(seed)
    player = find_player(VISITORS[visitor], rng)
    summary = {"games": 0, "player": 0, "machine": 0, "faults": {}, "marbles released": 0, "unfinished": 0,
               "glitches": 0, "jams": 0, "left on the rail": 0, "left unexplained": 0, "stopped": False}
    try:
        for number in range(games):
            glitches = sim.glitches
            if number:
                sim.press("new_game")
            finished = play_one(sim, player, rng, summary, stop=stop)
            if stop:
                break
            summary["games"] += 1
            winner = sim.machine.winner
            if finished and winner:
                summary[winner] += 1
            else:
                summary["unfinished"] += 1
            if sim.marbles:
                count_the_marbles(sim, summary, sim.glitches - glitches)
            # the visitor, as the summary's wins line calls them (the machine's own word is player)
            report("game %d: %s" % (number + 1, "won by " + ("visitor" if winner == "player" else winner) if winner
                                    else "unfinished"))
    except KeyboardInterrupt:       # outside the main thread, Ctrl-C is still Python's
        stop.append(signal.SIGINT)
    summary["stopped"] = bool(stop)
    if sim.marbles:
        summary["marbles released"] = sim.marbles.releases
        summary["glitches"] = sim.glitches
        summary["jams"] = sim.jams
    return summary


def count_the_marbles(sim, summary, glitches):
    """At the end of a game: its extra marbles, and the marbles the world still
    holds (explained when the sensor glitched at least as often in the game)."""
    extra = sim.machine.extra_marbles
    if extra:
        summary["faults"]["extra-marble"] = summary["faults"].get("extra-marble", 0) + extra
    left = sim.marbles.rail + sim.marbles.jammed + len(sim.marbles.falling)
    if left and sim.machine.mode == "over":
        summary["left on the rail"] += 1
        if left > glitches:
            summary["left unexplained"] += 1


def play_one(sim, player, rng, summary, limit=200, stop=()):
    """One game; False if it did not end within `limit` visitor turns, or `stop` (Ctrl-C heard)
    cut it short."""
    machine = sim.machine
    variant = machine.variant()
    marbles = sim.marbles is not None
    if marbles and rng.below(2):
        hand_over(sim, summary)  # the visitor lets Dr. Nim start
    for _ in range(limit):
        if machine.mode != "play":
            return True
        if stop:
            return False
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
    lines = ["games: %d%s" % (summary["games"], " (stopped by Ctrl-C; the game under way is not counted)"
                              if summary["stopped"] else ""),
             "wins: visitor %d, machine %d%s" % (summary["player"], summary["machine"],
                                                ", unfinished %d" % summary["unfinished"] if summary["unfinished"]
                                                else ""),
             "faults: " + faults]
    if summary["marbles released"]:
        lines.append("marbles released: %d" % summary["marbles released"])
        lines.append("world: sensor glitches %d, jams %d" % (summary["glitches"], summary["jams"]))
        lines.append("ended with marbles on the rail or in the chute: " + rail_left(summary))
    return lines


def rail_left(summary):
    left, unexplained = summary["left on the rail"], summary["left unexplained"]
    if not left:
        return "none"
    text = "%d game%s" % (left, "" if left == 1 else "s")
    if unexplained:
        return text + ", %d of them with more left than the sensor glitched: not explained, look into it" \
            % unexplained
    return text + ", each with a sensor glitch for every marble left (the machine counts a glitch as a marble: " \
                  "it cannot tell them apart)"
