"""Moore's Nim_k in normal play: the mover loses iff every binary column sum
of the heaps is divisible by k+1; the winning moves are walked column by
column and counted without listing them. Misère Nim_k with k = 1 is misère
Nim; with k >= 2 no closed form is proven, so it is searched."""

from .counting import binomial, combinations
from .rules import Move
from . import solve_nim


def searched(variant, position):
    return variant.misere and variant.k > 1


def reach(variant, position):
    """The k that counts: a move touches at most every heap there is, so with
    k at least the number of heaps the game is the same as with k equal to
    it (a column sum, at most that number, is a multiple of k+1 only when
    it is 0 either way). A k of a billion then costs no memory and no time."""
    return min(variant.k, len(position))


def children(variant):
    """For the search (misère Nim_k): the distinct sorted positions one move
    away from a sorted position, made without a Move and a legality check for
    each of its moves, which took nearly all of the search's time: three heaps
    of 30 have 2,790 moves, and such a search settles 5,456 positions."""
    k = variant.k

    def children(key):
        found = set()
        heaps = list(key)
        for size in range(1, min(k, len(heaps)) + 1):
            for chosen in combinations(range(len(heaps)), size):
                _lowered(heaps, chosen, 0, found)
        return list(found)
    return children


def _lowered(heaps, chosen, i, found):
    """Into `found`, each sorted position with the `chosen` heaps from i on lowered, each by 1 or more."""
    if i == len(chosen):
        found.add(tuple(sorted(h for h in heaps if h)))
        return
    heap = chosen[i]
    size = heaps[heap]
    for value in range(size):
        heaps[heap] = value
        _lowered(heaps, chosen, i + 1, found)
    heaps[heap] = size


def wins(variant, position):
    if variant.misere:
        return solve_nim.wins(variant, position)
    k1 = reach(variant, position) + 1
    bit = 1
    top = max(position) if position else 0
    while bit <= top:
        column = 0
        for h in position:
            if h & bit:
                column += 1
        if column % k1:
            return True
        bit <<= 1
    return False


def moves(variant, position):
    if variant.misere:
        return solve_nim.moves(variant, position)
    return _moore_normal_moves(position, reach(variant, position))


def count(variant, position):
    if variant.misere:
        return solve_nim.count(variant, position)
    return _moore_normal_count(position, reach(variant, position))


def _top_bit(position):
    """The highest bit set in any heap, or -1 when every heap is empty."""
    top = 0
    for h in position:
        if h > top:
            top = h
    bits = 0
    while (1 << bits) <= top:
        bits += 1
    return bits - 1


def _moore_normal_moves(position, k):
    """Every move to a position whose binary columns all sum to a multiple of k+1.

    Walks the columns from the highest bit down. A heap the move changes
    "diverges" at the first column where its new bit is 0 and its old bit 1;
    above that it copies its old bits, below it its bits are free. At each
    column we choose which heaps diverge there and which free bits are 1 so
    that the column sum is a multiple of k+1. Such a choice always exists, so
    every branch ends in a winning move: the walk costs time only for the
    moves it yields.
    """
    return _moore_walk(position, k, _top_bit(position), (), {})


def _moore_walk(position, k, bit, diverged, values):
    if bit < 0:
        if diverged:
            yield Move([(heap, position[heap] - values[heap]) for heap in diverged])
        return
    ones = [i for i, h in enumerate(position) if (h >> bit) & 1 and i not in values]
    k1 = k + 1
    free = len(diverged)
    for new in range(min(k - free, len(ones)) + 1):
        # Column sum = len(ones) - new + (free bits set); it must be 0 mod k+1.
        set_bits = (new - len(ones)) % k1
        while set_bits <= free:
            for starting in combinations(ones, new):
                for raised in combinations(diverged, set_bits):
                    after = {}
                    for heap in diverged:
                        after[heap] = values[heap] * 2 + (1 if heap in raised else 0)
                    for heap in starting:
                        after[heap] = (position[heap] >> (bit + 1)) * 2
                    heaps = tuple(sorted(diverged + starting))
                    for move in _moore_walk(position, k, bit - 1, heaps, after):
                        yield move
            set_bits += k1


def _moore_normal_count(position, k):
    """How many moves `_moore_walk` yields, without walking them.

    What the walk can still do below a column depends only on which heaps
    have diverged, not on the free bits they were given: so the count is a
    memo over (column, set of diverged heaps). At a column, with d heaps
    diverged of which o had the column's bit, `new` heaps with the bit diverge
    and the free bits must set s of the d, where s = o + new - (column sum)
    mod k+1; since d <= k that s is unique, and there are C(d, s) ways. Once
    k heaps have diverged nothing else can, and the rest is a product over
    the columns below (`_moore_full_count`). The work grows with the diverged
    sets of fewer than k heaps met, up to 64 * C(n, k-1) * n/2 for n heaps:
    instant for a few dozen heaps, seconds for a hundred with k = 2, and
    minutes for hundreds of heaps with k >= 3.
    """
    k1 = k + 1
    top = _top_bit(position)
    columns = []
    holders = []
    residues = [0] * k1
    for bit in range(top + 1):
        having = [i for i, h in enumerate(position) if (h >> bit) & 1]
        holders.append(having)
        columns.append(len(having))
        residues[len(having) % k1] |= 1 << bit
    memo = {}

    def count(bit, diverged):
        if len(diverged) == k:
            return _moore_full_count([position[i] for i in diverged], k, bit, residues)
        if bit < 0:
            return 1 if diverged else 0
        key = (bit, diverged)
        known = memo.get(key)
        if known is not None:
            return known
        free = len(diverged)
        ones = [i for i in holders[bit] if i not in diverged]
        before = columns[bit] - len(ones)
        total = 0
        for new in range(min(k - free, len(ones)) + 1):
            set_bits = (before + new - columns[bit]) % k1
            if set_bits > free:
                continue
            ways = binomial(free, set_bits)
            for starting in combinations(ones, new):
                total += ways * count(bit - 1, tuple(sorted(diverged + starting)))
        memo[key] = total
        return total

    return count(top, ())


def _moore_full_count(heaps, k, bit, residues):
    """The ways to finish a move whose k heaps have all diverged, at the
    columns from `bit` down: the product over those columns of C(k, s), where
    s = (o - column sum) mod k+1 and o counts the k heaps with the column's
    bit. The columns are grouped by (o, column sum mod k+1) with bit masks:
    o is added up bit-sliced, one mask per binary digit of o."""
    low = (1 << (bit + 1)) - 1
    digits = []
    for h in heaps:
        carry = h & low
        for i in range(len(digits)):
            digits[i], carry = digits[i] ^ carry, digits[i] & carry
        if carry:
            digits.append(carry)
    k1 = k + 1
    result = 1
    for o in range(k + 1):
        mask = low
        for i in range(len(digits)):
            mask &= digits[i] if (o >> i) & 1 else ~digits[i]
        if o >> len(digits):
            mask = 0
        if not mask:
            continue
        for residue in range(k1):
            columns = bin(mask & residues[residue]).count("1")
            if columns:
                result *= binomial(k, (o - residue) % k1) ** columns
    return result
