"""Dr. Nim's marble logic: one marble through the three flip-flops and the
equalizer (docs/machines.md §1.7).

A module of its own, below the machine (drnim.py) that plays by it and the
working (working.py) that runs it ahead to say what Dr. Nim will drop.
"""

OTHER = {"L": "R", "R": "L"}


def route(flip_flops, equalizer_armed, gate_equalizer):
    """One marble through the flip-flops (docs/machines.md §1.7).

    Returns (new flip-flops, equalizer still armed, CONTINUE?). `gate_equalizer`
    is False when the equalizer may not act on this marble (model EQ-drnim in
    the player's turn).
    """
    top, left, right = flip_flops[0], flip_flops[1], flip_flops[2]
    exit_top = OTHER[top]
    top = exit_top
    if exit_top == "L":
        left = OTHER[left]
        exit_low = left
    else:
        right = OTHER[right]
        exit_low = right
    carry_on = exit_low == "L"
    if carry_on and equalizer_armed and gate_equalizer:
        equalizer_armed = False
        carry_on = False
    return top + left + right, equalizer_armed, carry_on
