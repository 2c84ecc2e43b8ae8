"""Counting without itertools (not on every board): the tuples of a size
from a list, and binomial coefficients. The families beyond Nim list their
moves with them, Moore's closed forms count with them, and the search
estimates its size with them; a board playing Nim or Dr. Nim never loads
them."""


def combinations(items, size, start=0):
    """All sorted tuples of `size` distinct items."""
    if size == 0:
        yield ()
        return
    for i in range(start, len(items) - size + 1):
        for rest in combinations(items, size - 1, i + 1):
            yield (items[i],) + rest


def binomial(n, r):
    """n choose r, exactly, for whole numbers (0 when r < 0 or r > n)."""
    if r < 0 or r > n:
        return 0
    if r > n - r:
        r = n - r
    result = 1
    for i in range(r):
        result = result * (n - i) // (i + 1)
    return result
