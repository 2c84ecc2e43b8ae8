"""Brute force from the definitions, independent of the core: the yardstick
the solver and the move generator are checked against on small positions."""

from functools import lru_cache
from itertools import combinations, product


def legal_takes(spec, position):
    """Every legal move as a sorted tuple of (heap, count), straight from the rules."""
    family = spec["family"]
    filled = [i for i, h in enumerate(position) if h]
    if family == "subtraction":
        return {((i, c),) for i in filled for c in range(1, min(position[i], spec["max_take"]) + 1)}
    if family == "nim":
        return {((i, c),) for i in filled for c in range(1, position[i] + 1)}
    if family not in ("moore", "rosebushes"):
        raise ValueError("tests/brute.py knows no game family %r: give legal_takes its moves, written again from "
                         "its rules (DEVELOPERS.md, 'Adding a game family', step 6)" % family)
    moves = set()
    for size in range(1, spec["k"] + 1):
        for heaps in combinations(filled, size):
            if family == "rosebushes":
                moves.add(tuple((i, 1) for i in heaps))
            else:
                for counts in product(*[range(1, position[i] + 1) for i in heaps]):
                    moves.add(tuple(zip(heaps, counts)))
    return moves


def after(position, takes):
    heaps = list(position)
    for i, c in takes:
        heaps[i] -= c
    return tuple(heaps)


def _frozen(spec):
    return tuple(sorted(spec.items()))


@lru_cache(maxsize=None)
def _wins(frozen, position):
    spec = dict(frozen)
    moves = legal_takes(spec, position)
    if not moves:
        return spec["rule"] == "misere"
    return any(not _wins(frozen, after(position, m)) for m in moves)


def mover_wins(spec, position):
    return _wins(_frozen(spec), tuple(position))


def winning_takes(spec, position):
    return {m for m in legal_takes(spec, position) if not mover_wins(spec, after(position, m))}
