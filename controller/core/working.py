"""The working: why a machine moves as it does, as the simulator's working
panel (and the web page) shows it: (style, text) lines, pure data.

Each machine's `explain()` calls its function here, so a board, which shows
no working, never loads this module. Styles: head, good, warn, note, plain.
"""

from .exhibit import MACHINE, PLAYER
from .flip_flops import route
from .rules import MISERE
from .solve import mover_wins, nim_sum, winning_move


def takes_by_theory(q, armed):
    """What Dr. Nim drops when q = (n - t) mod 4 (machines.md §1.5)."""
    return 1 if q == 0 or armed else q


def marbles_planned(machine):
    """What Dr. Nim's marble logic drops from here, run through the model of
    the flip-flops: exact for decide = historic, whatever the setting."""
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
    lines = [("head", "Last marble %s, so t = %d" % ("loses" if t else "wins", t)),
             ("plain", "n = %d marbles on the rail%s" % (n, " when Dr. Nim's turn began" if machine.running else "")),
             ("head", "q = (n − t) mod 4 = (%d − %d) mod 4 = %d" % (n, t, q))]
    if machine.mode == "over":
        lines.append(("plain", "The game is over."))
    elif q == 0:
        lines.append(("warn", "q = 0: the player to move is losing."))
    else:
        lines.append(("good", "q = %d: the player to move wins by taking %d, leaving %d." % (q, q, n - q)))
    if historic:
        lines.append(("note", "Dr. Nim on q = 0 is losing and takes 1; on q = 1-3 it takes q, unless the "
                              "equalizer is armed: then it takes 1 (its one misplay)."))
    else:
        lines.append(("note", "Dr. Nim's moves come from the '%s' opponent (decide = strategy)."
                      % machine.config["opponent"]))
    if machine.running:
        take = min(takes_by_theory(q, machine.equalizer_armed), n) if historic else machine.planned
        lines.append(("head", "This turn Dr. Nim takes %d; %d so far." % (take, machine.turn_taken)))
    elif machine.mode == "play" and historic and not machine.fault:
        handed = machine.turn == MACHINE
        take = marbles_planned(machine)
        misplay = take != takes_by_theory(q, False) and q in (2, 3)
        lines.append(("head", "%s Dr. Nim %s %d%s." % (
            "Handed over:" if handed else "If you hand over now,", "will take" if handed else "takes",
            take, ", the equalizer's misplay" if misplay else "")))
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
            why = "q = 0, losing: it took %d" % took
        elif took == q0:
            why = "q = %d: it took %d, leaving %d" % (q0, took, n0 - took)
        elif historic:
            why = "q = %d: it took %d, the equalizer's misplay" % (q0, took)
        else:
            why = "q = %d: its opponent took %d" % (q0, took)
        lines.append(("plain", "Dr. Nim's last turn: n = %d, %s." % (n0, why)))
    return lines


def explain_nimatron(machine):
    """The Nimatron's working: each row in binary, the column parities, the nim-sum, and what it means."""
    rows = list(machine.rows)
    variant = machine.variant()
    width = 1
    while max(rows + [1]) >> width:
        width += 1
    lines = [("head", "Last lamp %s (%s)" % ("wins" if machine.rule != MISERE else "loses",
                                             "misère Nim" if variant.misere else "Nim"))]
    for i, n in enumerate(rows):
        lines.append(("plain", "row %d  %2d = %s" % (i + 1, n, binary(n, width))))
    ones = [sum((n >> b) & 1 for n in rows) for b in range(width - 1, -1, -1)]
    lines.append(("note", "%-12s%s" % ("ones", "".join(str(k % 10) for k in ones))))
    lines.append(("plain", "%-12s%s" % ("parity", "".join(str(k % 2) for k in ones))))
    total = nim_sum(rows)
    lines.append(("head", "nim-sum = %d" % total))
    if not any(rows):
        lines.append(("plain", "No lamps left."))
        return lines
    if variant.misere and max(rows) <= 1:
        lines.append(("note", "Only single lamps left: the mover loses when their number is odd."))
    elif total == 0:
        lines.append(("warn", "0: the player to move is losing."))
    else:
        lines.append(("good", "Not 0: the player to move can win."))
    if machine.mode == "play":
        mover = "you" if machine.turn == PLAYER else "the Nimatron"
        if machine.turn == PLAYER and machine.turn_taken:
            lines.append(("plain", "If you hand over now, the Nimatron %s." % (
                "can win" if mover_wins(variant, tuple(rows)) else "is losing")))
        else:
            move = winning_move(variant, tuple(rows))
            if move is None:
                lines.append(("plain", "To move: %s, in a losing position." % mover))
            else:
                heap, count = move.takes[0]
                lines.append(("plain", "To move: %s; winning move: take %d from row %d." % (mover, count, heap + 1)))
    return lines


def binary(n, width):
    """`n` in binary, `width` digits at least."""
    digits = ""
    while n:
        digits = str(n & 1) + digits
        n >>= 1
    return "0" * (width - len(digits)) + digits
