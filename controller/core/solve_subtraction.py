"""Subtraction games 1..m: one heap, the mover loses iff n mod (m+1) is 0
(normal) or 1 (misère); several heaps in normal play by Sprague-Grundy, heap
values n mod (m+1) combined by xor. Misère play on several heaps is searched."""

from .rules import Move
from .solve_nim import nim_sum


def searched(variant, position):
    return variant.misere and len(position) > 1


def wins(variant, position):
    m1 = variant.max_take + 1
    if len(position) == 1:
        return position[0] % m1 != (1 if variant.misere else 0)
    return nim_sum(h % m1 for h in position) != 0


def moves(variant, position):
    """At most one winning take per heap: the one that leaves the residue wanted."""
    m1 = variant.max_take + 1
    grundy = nim_sum(h % m1 for h in position)
    for heap, size in enumerate(position):
        if len(position) == 1:
            target = 1 if variant.misere else 0
        else:
            target = grundy ^ (size % m1)
        count = (size - target) % m1
        if target < m1 and 1 <= count <= size:
            yield Move.take(heap, count)


def count(variant, position):
    return len(list(moves(variant, position)))
