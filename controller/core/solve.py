"""Who wins a Nim position, and every move that wins it.

Closed forms are used only where they are proven:

- subtraction 1..m, one heap: the mover loses iff n mod (m+1) is 0 (normal)
  or 1 (misère); several heaps in normal play: Sprague-Grundy, heap values
  n mod (m+1) combined by xor;
- Nim (Bouton): the mover loses iff the xor of the heaps is 0; misère Nim: the
  same while some heap is above 1, and when every heap is 0 or 1 the mover
  loses iff the number of 1-heaps is odd;
- Moore's Nim_k, normal play: the mover loses iff every binary column sum of
  the heaps is divisible by k+1.

Everything else (Rosebushes, misère Nim_k, misère subtraction on several
heaps) is solved by exact memoised search over sorted positions, because
no closed form is proven for it. Search is for small positions: it stops with
`SearchTooLarge` rather than run out of memory.

Convention: in misère play a position with no objects left is won by the
player to move (the other player took the last one), and has no moves.
"""

from .rules import Move, combinations


class SearchTooLarge(ValueError):
    """A position too big for exact search, in a game with no proven closed form."""


# The most positions an exact search may visit; a board sets a smaller one.
search_limit = 2000000


def mover_wins(variant, position):
    """True when the player to move can force a win."""
    return _SOLVERS[variant.family][0](variant, position)


def winning_moves(variant, position):
    """Every winning move, as a generator: in Nim_k there can be astronomically many."""
    return _SOLVERS[variant.family][1](variant, position)


def winning_move(variant, position):
    """The first winning move the solver finds, or None in a losing position."""
    for move in winning_moves(variant, position):
        return move
    return None


def _nonzero(position):
    for h in position:
        if h:
            return True
    return False


def _xor(values):
    total = 0
    for v in values:
        total ^= v
    return total


nim_sum = _xor


# --- subtraction ----------------------------------------------------------

def _subtraction_wins(variant, position):
    m1 = variant.max_take + 1
    if len(position) == 1:
        return position[0] % m1 != (1 if variant.misere else 0)
    if variant.misere:
        return _search_wins(variant, position)
    return _xor(h % m1 for h in position) != 0


def _subtraction_winning_moves(variant, position):
    if variant.misere and len(position) > 1:
        return _searched_winning_moves(variant, position)
    return _subtraction_closed_moves(variant, position)


def _subtraction_closed_moves(variant, position):
    m1 = variant.max_take + 1
    grundy = _xor(h % m1 for h in position)
    for heap, size in enumerate(position):
        for count in range(1, min(size, variant.max_take) + 1):
            left = size - count
            if len(position) == 1:
                if left % m1 == (1 if variant.misere else 0):
                    yield Move.take(heap, count)
            elif grundy ^ (size % m1) ^ (left % m1) == 0:
                yield Move.take(heap, count)


# --- Nim --------------------------------------------------------------------

def _nim_wins(variant, position):
    if variant.misere:
        big = 0
        ones = 0
        for h in position:
            if h > 1:
                big += 1
            elif h == 1:
                ones += 1
        if big == 0:
            return ones % 2 == 0
    return _xor(position) != 0


def _nim_winning_moves(variant, position):
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
    total = _xor(position)
    if total == 0:
        return
    for heap, size in enumerate(position):
        target = size ^ total
        if target < size:
            yield Move.take(heap, size - target)


# --- Moore's Nim_k --------------------------------------------------------

def _moore_wins(variant, position):
    if variant.misere:
        if variant.k == 1:
            return _nim_wins(variant, position)
        return _search_wins(variant, position)
    k1 = variant.k + 1
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


def _moore_winning_moves(variant, position):
    if variant.misere:
        if variant.k == 1:
            return _nim_winning_moves(variant, position)
        return _searched_winning_moves(variant, position)
    return _moore_normal_moves(position, variant.k)


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
    top = 0
    for h in position:
        if h > top:
            top = h
    bits = 0
    while (1 << bits) <= top:
        bits += 1
    return _moore_walk(position, k, bits - 1, (), {})


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



# --- Rosebushes -------------------------------------------------------------

def _rosebushes_wins(variant, position):
    return _search_wins(variant, position)


# --- exact search -----------------------------------------------------------

def _key(position):
    """Heap order and empty heaps do not matter in any family: sort and drop zeros."""
    return tuple(sorted(h for h in position if h))


def _search_wins(variant, position):
    """Exact game-tree search, memoised per variant on sorted positions.

    Iterative, so a long game cannot overflow the stack on a small board.
    """
    memo = variant.memo
    root = _key(position)
    if root in memo:
        return memo[root]
    stack = [root]
    while stack:
        key = stack[-1]
        if key in memo:
            stack.pop()
            continue
        if not key:
            memo[key] = variant.misere
            stack.pop()
            continue
        pending = []
        wins = False
        for move in variant.legal_moves(key):
            child = _key(variant.apply(key, move))
            known = memo.get(child)
            if known is None:
                pending.append(child)
            elif not known:
                wins = True
                break
        if wins or not pending:
            memo[key] = wins
            stack.pop()
        else:
            if len(memo) + len(stack) > search_limit:
                raise SearchTooLarge(
                    "%s has no proven closed form and %s is too big to search exactly "
                    "(more than %d positions)" % (variant.describe(), position, search_limit))
            stack.extend(pending)
    return memo[root]


def _searched_winning_moves(variant, position):
    if not _search_wins(variant, position):
        return
    for move in variant.legal_moves(position):
        if not _search_wins(variant, variant.apply(position, move)):
            yield move


def _rosebushes_winning_moves(variant, position):
    return _searched_winning_moves(variant, position)


_SOLVERS = {
    "subtraction": (_subtraction_wins, _subtraction_winning_moves),
    "nim": (_nim_wins, _nim_winning_moves),
    "moore": (_moore_wins, _moore_winning_moves),
    "rosebushes": (_rosebushes_wins, _rosebushes_winning_moves),
}
