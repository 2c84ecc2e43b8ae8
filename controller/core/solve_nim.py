"""Nim's closed forms (Bouton, 1901): the mover loses iff the xor of the heaps
is 0; in misère play the same while some heap is above 1, and when every heap
is 0 or 1 the mover loses iff the number of 1-heaps is odd. A module of its
own: the Nimatron's opponent loads only this."""

from .rules import Move

searched = None  # every Nim position has a closed form


def nim_sum(heaps):
    """The xor of the heap sizes: 0 exactly when the mover loses at Nim."""
    total = 0
    for h in heaps:
        total ^= h
    return total


def _big_and_ones(position):
    """How many heaps hold more than 1, and how many hold exactly 1: misère Nim's endgame."""
    big = 0
    ones = 0
    for h in position:
        if h > 1:
            big += 1
        elif h == 1:
            ones += 1
    return big, ones


def wins(variant, position):
    if variant.misere:
        big, ones = _big_and_ones(position)
        if big == 0:
            return ones % 2 == 0
    return nim_sum(position) != 0


def moves(variant, position):
    """Bouton's moves, heap by heap from the first."""
    if variant.misere:
        big = [i for i, h in enumerate(position) if h > 1]
        ones = len([h for h in position if h == 1])
        if not big:
            if ones and ones % 2 == 0:
                for heap, size in enumerate(position):
                    if size == 1:
                        yield Move.take(heap, 1)
            return
        if len(big) == 1:
            # Leave an odd number of 1-heaps and nothing bigger.
            heap = big[0]
            keep = 0 if ones % 2 else 1
            yield Move.take(heap, position[heap] - keep)
            return
    total = nim_sum(position)
    if total == 0:
        return
    for heap, size in enumerate(position):
        target = size ^ total
        if target < size:
            yield Move.take(heap, size - target)


def count(variant, position):
    """One winning move per heap h with h xor s < h (s the nim-sum); misère
    endgames: every 1-heap, or the one move on the only big heap."""
    if variant.misere:
        big, ones = _big_and_ones(position)
        if big == 0:
            return ones if ones % 2 == 0 else 0
        if big == 1:
            return 1
    total = nim_sum(position)
    count = 0
    if total:
        for h in position:
            if h ^ total < h:
                count += 1
    return count
