"""The working: why a machine moves as it does, as the simulator's working
panel (and the web page) shows it: (style, id, values) lines, pure data. Each
shell renders a line like a machine's message, from its catalog
(controller/language/messages.py has every id's English), in its visitor's
language.

Each machine's `explain()` calls its function here, so a board, which shows
no working, never loads this module. Styles: head, good, warn, note, plain.
"""

from .exhibit import MACHINE, PLAYER
from .flip_flops import route
from .rules import MISERE
from .solve import mover_wins, nim_sum, winning_move


def takes_by_theory(q):
    """What Dr. Nim drops, its equalizer spent or off, when q = (n - t) mod 4
    (machines.md §1.5): q, and 1 where it is losing (q = 0)."""
    return q or 1


def marbles_planned(machine):
    """What Dr. Nim's marble logic drops from here (from the next marble to
    fall, in a turn under way), run through the model of the flip-flops:
    exact for decide = historic, whatever the setting."""
    flip_flops, armed = machine.flip_flops, machine.equalizer_armed
    for taken in range(1, machine.rail + 1):
        flip_flops, armed, carry_on = route(flip_flops, armed, True)
        if not carry_on:
            return taken
    return machine.rail


def explain_drnim(machine):
    """Dr. Nim's working: q = (n - t) mod 4, what Dr. Nim will drop, and why it did."""
    historic = machine.config["decide"] == "historic"
    t = 1 if machine.rule == MISERE else 0
    rail = machine.rail
    n = rail + machine.turn_taken if machine.running else rail
    q = (n - t) % 4
    lines = [("head", "w_t_loses" if t else "w_t_wins", {"t": t}),
             ("plain", "w_n_turn" if machine.running else "w_n", {"n": n}),
             ("head", "w_q", {"n": n, "t": t, "q": q})]
    if machine.mode == "over":
        lines.append(("plain", "w_over", {}))
    elif q == 0:
        lines.append(("warn", "w_q0", {}))
    else:
        lines.append(("good", "w_q_wins", {"q": q, "left": n - q}))
    if historic:
        lines.append(("note", "w_historic", {}))
    else:
        lines.append(("note", "w_strategy", {"opponent": machine.config["opponent"]}))
    if machine.running:
        take = machine.turn_taken + marbles_planned(machine) if historic else machine.planned
        lines.append(("head", "w_this_turn", {"take": take, "taken": machine.turn_taken}))
    elif machine.mode == "play" and historic and not machine.fault:
        handed = machine.turn == MACHINE
        take = marbles_planned(machine)
        misplay = machine.equalizer_armed and take != takes_by_theory(q) and q in (2, 3)
        lines.append(("head", ("w_handed" if handed else "w_if_handed") + ("_misplay" if misplay else ""),
                      {"take": take}))
    last = None
    left = machine.loaded
    for who, count in machine.turns:
        if who == MACHINE:
            last = (left, count)
        left -= count
    if last:
        n0, took = last
        q0 = (n0 - t) % 4
        if q0 == 0:
            why = "w_last_losing"
        elif took == q0:
            why = "w_last_right"
        elif historic:
            why = "w_last_misplay"
        else:
            why = "w_last_opponent"
        lines.append(("plain", why, {"n": n0, "q": q0, "took": took, "left": n0 - took}))
    return lines


def explain_nimatron(machine):
    """The Nimatron's working: each row in binary, the column parities, the nim-sum, and what it means."""
    rows = list(machine.rows)
    variant = machine.variant()
    width = 1
    while max(rows + [1]) >> width:
        width += 1
    lines = [("head", "w_misere" if variant.misere else "w_nim", {})]
    for i, n in enumerate(rows):
        lines.append(("plain", "w_row", {"row": i + 1, "lamps": n, "bits": binary(n, width)}))
    ones = [sum((n >> b) & 1 for n in rows) for b in range(width - 1, -1, -1)]
    lines.append(("note", "w_ones", {"digits": "".join(str(k % 10) for k in ones)}))
    lines.append(("plain", "w_parity", {"digits": "".join(str(k % 2) for k in ones)}))
    total = nim_sum(rows)
    lines.append(("head", "w_nim_sum", {"sum": total}))
    if not any(rows):
        lines.append(("plain", "w_no_lamps", {}))
        return lines
    if variant.misere and max(rows) <= 1:
        lines.append(("note", "w_singles", {}))
    elif total == 0:
        lines.append(("warn", "w_sum0", {}))
    else:
        lines.append(("good", "w_sum_not0", {}))
    if machine.mode == "play":
        yours = machine.turn == PLAYER
        if yours and machine.turn_taken:
            lines.append(("plain", "w_hand_wins" if mover_wins(variant, tuple(rows)) else "w_hand_loses", {}))
        else:
            move = winning_move(variant, tuple(rows))
            if move is None:
                lines.append(("plain", "w_you_losing" if yours else "w_nimatron_losing", {}))
            else:
                heap, count = move.takes[0]
                lines.append(("plain", "w_you_move" if yours else "w_nimatron_move", {"count": count, "row": heap + 1}))
    return lines


def binary(n, width):
    """`n` in binary, `width` digits at least."""
    digits = ""
    while n:
        digits = str(n & 1) + digits
        n >>= 1
    return "0" * (width - len(digits)) + digits
