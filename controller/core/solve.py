"""Who wins a Nim position, every move that wins it, and how many there are.

Closed forms are used only where they are proven:

- subtraction 1..m, one heap: the mover loses iff n mod (m+1) is 0 (normal)
  or 1 (misère); several heaps in normal play: Sprague-Grundy, heap values
  n mod (m+1) combined by xor;
- Nim (Bouton): the mover loses iff the xor of the heaps is 0; misère Nim: the
  same while some heap is above 1, and when every heap is 0 or 1 the mover
  loses iff the number of 1-heaps is odd;
- Moore's Nim_k, normal play: the mover loses iff every binary column sum of
  the heaps is divisible by k+1;
- Rosebushes, normal and misère, in three cases (proofs in the docstrings of
  `_rosebushes_k1`, `_rosebushes_few` and `_rosebushes_k_plus_1`): k = 1; at
  most k non-empty heaps; exactly k+1 non-empty heaps.

Everything else (Rosebushes with k >= 2 and k+2 or more non-empty heaps,
misère Nim_k with k >= 2, misère subtraction on several heaps) is solved by
exact memoised search over sorted positions, because no closed form is proven
for it. Before it starts, a search estimates how many positions it may visit
and refuses with `SearchTooLarge` when that is more than `search_limit`; it
reports its progress to a `progress` callback when it is given one.

Convention: in misère play a position with no objects left is won by the
player to move (the other player took the last one), and has no moves.
"""

from .rules import Move, combinations, position_text


class SearchTooLarge(ValueError):
    """A position too big for exact search, in a game with no proven closed form."""


# The most positions an exact search may visit; a board sets a smaller one.
search_limit = 2000000

# The exact search's memo, one per variant spec: a variant is a value, so two
# equal variants share what was searched. `forget()` frees it.
_memos = {}

# How many positions a search settles between two calls of its progress callback.
PROGRESS_EVERY = 2048


def forget(variant=None):
    """Free the exact search's memo: of one variant, or of every variant."""
    if variant is None:
        _memos.clear()
    else:
        _memos.pop(_spec_key(variant), None)


def _spec_key(variant):
    return tuple(sorted(variant.spec().items()))


def _memo(variant):
    key = _spec_key(variant)
    memo = _memos.get(key)
    if memo is None:
        memo = _memos[key] = {}
    return memo


def nim_sum(heaps):
    """The xor of the heap sizes: 0 exactly when the mover loses at Nim."""
    total = 0
    for h in heaps:
        total ^= h
    return total


def mover_wins(variant, position, progress=None):
    """True when the player to move can force a win.

    `progress`, when given, is called now and then with the number of
    positions an exact search has settled (never by a closed form).
    """
    return _SOLVERS[variant.family][0](variant, position, progress)


def winning_moves(variant, position, progress=None):
    """Every winning move, as a generator: in Nim_k there can be astronomically many."""
    return _SOLVERS[variant.family][1](variant, position, progress)


def winning_move(variant, position, progress=None):
    """The first winning move the solver finds, or None in a losing position."""
    for move in winning_moves(variant, position, progress):
        return move
    return None


def winning_move_count(variant, position, progress=None):
    """How many winning moves there are, counted without listing them where a
    closed form allows: Nim, subtraction, Moore's Nim_k in normal play (see
    `_moore_normal_count`) and the Rosebushes closed forms (a few candidate
    moves checked). Elsewhere the moves are listed and counted."""
    return _SOLVERS[variant.family][2](variant, position, progress)


def _count_by_listing(variant, position, progress):
    count = 0
    for _ in winning_moves(variant, position, progress):
        count += 1
    return count


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


# --- subtraction ----------------------------------------------------------

def _subtraction_searched(variant, position):
    return variant.misere and len(position) > 1


def _subtraction_wins(variant, position):
    m1 = variant.max_take + 1
    if len(position) == 1:
        return position[0] % m1 != (1 if variant.misere else 0)
    return nim_sum(h % m1 for h in position) != 0


def _subtraction_closed_moves(variant, position):
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


def _subtraction_count(variant, position):
    return len(list(_subtraction_closed_moves(variant, position)))


# --- Nim --------------------------------------------------------------------

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


def _nim_wins(variant, position):
    if variant.misere:
        big, ones = _big_and_ones(position)
        if big == 0:
            return ones % 2 == 0
    return nim_sum(position) != 0


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
    total = nim_sum(position)
    if total == 0:
        return
    for heap, size in enumerate(position):
        target = size ^ total
        if target < size:
            yield Move.take(heap, size - target)


def _nim_count(variant, position):
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


# --- Moore's Nim_k --------------------------------------------------------

def _moore_searched(variant, position):
    return variant.misere and variant.k > 1


def _moore_wins(variant, position):
    if variant.misere:
        return _nim_wins(variant, position)
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
        return _nim_winning_moves(variant, position)
    return _moore_normal_moves(position, variant.k)


def _moore_count(variant, position):
    if variant.misere:
        return _nim_count(variant, position)
    return _moore_normal_count(position, variant.k)


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


# --- Rosebushes -------------------------------------------------------------

def _rosebushes_k1(misere, filled):
    """k = 1: every move takes exactly one object, so a game from a total of T
    objects lasts exactly T moves, whatever anyone does. In normal play the
    mover makes the last move iff T is odd; in misère play the mover loses iff
    T is odd (T = 0: the other player took the last object). So the mover
    loses iff T is even (normal) or odd (misère), and when the mover wins,
    every move wins."""
    return (sum(filled) % 2 == 1) != misere


def _rosebushes_few(misere, filled):
    """At most k non-empty heaps: every move keeps that true, and any set of
    non-empty heaps may lose one object each.

    Normal play: the mover loses iff every heap is even. From all-even heaps
    every move makes a touched heap odd; from a position with odd heaps,
    taking one from each odd heap (at most k of them) leaves all heaps even;
    and no heaps at all is all even, the mover's loss. So the winning move is
    unique: one from each odd heap.

    Misère play: the mover loses iff there is exactly one heap and it is odd,
    or there are two or more heaps and all are even. Call these positions L.
    (1) No move from L reaches L: from one odd heap h, the move leaves h-1,
    which is even, or nothing, which the mover of that empty position has
    won; from two or more even heaps, the touched heaps turn odd and stay
    non-empty, so two or more heaps remain and one is odd. (2) From any other
    non-empty position a move reaches L: one even heap h >= 2: take one,
    leaving h-1 odd. Two or more heaps, some odd: take one from each odd heap;
    if two or more heaps remain they are all even. Otherwise at most one heap
    is not 1: if none, take one from every heap but one, leaving a single 1;
    if it is odd, take one from every other heap, leaving it alone; if it is
    even, take one from every heap, leaving it odd and alone.
    """
    if not misere:
        for h in filled:
            if h % 2:
                return True
        return False
    if len(filled) == 1:
        return filled[0] % 2 == 0
    for h in filled:
        if h % 2:
            return True
    return not filled


def _rosebushes_k_plus_1(misere, filled, k):
    """Exactly k+1 non-empty heaps: a move touches at most k, so it leaves
    one heap untouched, and it leaves k+1 non-empty heaps or goes to the case
    of at most k (see `_rosebushes_few`). Induction on the number of objects.

    Normal play: the mover loses iff all heaps have the same parity. From
    such a position a move flips the parity of 1 to k heaps and keeps one:
    the parities are mixed (a win for the next mover, by induction), or a
    touched 1 became 0 and at most k heaps remain, among them the untouched
    odd one (a win, by the case of at most k). From mixed parities, taking one
    from each odd heap leaves all even (a loss, with k+1 heaps or fewer), and
    taking one from each even heap leaves k+1 odd heaps (a loss). No other
    move leaves a single parity, so exactly these two moves win.

    Misère play: let m be how many heaps equal the smallest. The mover loses
    iff (A) all heaps have one parity and m <= k-1 (two heaps exceed the
    smallest), or (B) m = k and the other heap has the other parity.

    (1) No move from (A) or (B) leaves a loss. From (A), with k+1 heaps left:
    one parity again would need every heap touched, which is not allowed.
    (B) needs k equal heaps; they share a parity, so the move touched all of
    them or none. If all, they were k equal heaps c+1 and the untouched heap,
    of their old parity and above c, is at least c+1: m >= k before, not (A).
    If none, they were equal already and the touched heap ends above them, so
    they were the smallest: m = k before, not (A). From (A), with fewer heaps
    left (a touched 1 became 0): the heaps were odd, the untouched ones stay
    odd, so the only loss is a single odd heap, which needs the k others to
    be 1s: m >= k, not (A). From (B), k heaps a and one b > a of the other
    parity: touching b alone leaves k heaps a and b-1 >= a, one parity, m >=
    k: neither (A) nor (B). Touching the k heaps a leaves k heaps a-1 and b,
    one parity, m = k: neither; or, when a = 1, b alone and even: a win.
    Touching some of the heaps a, but not all (so k >= 2), leaves both a-1
    and a, so both parities, with 1 to k-1 heaps at the smallest, a-1:
    neither; or, when a = 1, two or more heaps, a 1 among them: a win.

    (2) From any other position some move leaves a loss. All heaps equal a:
    take one from k of them, leaving (B), or a single 1 when a = 1. m = k and
    the other heap b of the same parity (so b >= a+2): take one from b, leaving
    (B). m <= k-1 and mixed parities: take one from each even heap, or one
    from each odd heap. The first lowers each heap x to the largest odd number
    <= x, the second to the largest even number <= x (0 allowed), and both
    keep the order. Two numbers x < y cannot share both, so for x the smallest
    heap and y the second largest (y > x as m <= k-1), one of the two moves
    keeps y's heap and the largest above the smallest. After the first that
    is (A); after the second it is (A) if no heap became 0, and otherwise two
    or more even heaps with at most k left: a loss either way.
    """
    if not misere:
        return not _same_parity(filled)
    smallest = min(filled)
    m = 0
    for h in filled:
        if h == smallest:
            m += 1
    if m == k + 1:
        return True
    if m == k:
        return max(filled) % 2 == smallest % 2
    return not _same_parity(filled)


def _same_parity(filled):
    for h in filled:
        if h % 2 != filled[0] % 2:
            return False
    return True


def _rosebushes_closed(variant, position):
    """Whether the mover wins by a proven closed form, or None where none is proven."""
    filled = [h for h in position if h]
    if variant.k == 1:
        return _rosebushes_k1(variant.misere, filled)
    if len(filled) <= variant.k:
        return _rosebushes_few(variant.misere, filled)
    if len(filled) == variant.k + 1:
        return _rosebushes_k_plus_1(variant.misere, filled, variant.k)
    return None


def _rosebushes_closed_key(variant, key):
    """`_rosebushes_closed` for a sorted position without zeros, quick to say None."""
    if variant.k > 1 and len(key) > variant.k + 1:
        return None
    return _rosebushes_closed(variant, key)


def _rosebushes_searched(variant, position):
    return _rosebushes_closed(variant, position) is None


def _rosebushes_count(variant, position):
    return len(list(_rosebushes_closed_moves(variant, position)))


def _rosebushes_closed_moves(variant, position):
    """The winning moves where a closed form holds, from a few candidates.

    With k = 1 every move wins in a winning position. Otherwise the proofs
    above name every move that reaches a loss: one from each odd heap, one
    from each even heap, and, for a heap j whose other heaps differ by at most
    1, one from each of the others or from those above their smallest, with or
    without j. Each candidate is kept when the closed form says it leaves the
    next mover lost: at most 4n+2 candidates for n heaps.
    """
    if not _rosebushes_closed(variant, position):
        return
    filled = [i for i, h in enumerate(position) if h]
    if variant.k == 1:
        for heap in filled:
            yield Move.take(heap, 1)
        return
    candidates = [[i for i in filled if position[i] % 2], [i for i in filled if position[i] % 2 == 0]]
    for j in filled:
        others = [i for i in filled if i != j]
        if not others:
            candidates.append([j])
            continue
        low = min(position[i] for i in others)
        if max(position[i] for i in others) - low <= 1:
            above = [i for i in others if position[i] > low]
            candidates.extend((others, sorted(others + [j]), above, sorted(above + [j])))
    seen = set()
    for heaps in candidates:
        heaps = tuple(heaps)
        if not heaps or len(heaps) > variant.k or heaps in seen:
            continue
        seen.add(heaps)
        after = list(position)
        for i in heaps:
            after[i] -= 1
        if not _rosebushes_closed(variant, after):
            yield Move([(i, 1) for i in heaps])


def _rosebushes_children(variant):
    """For the search: a function giving the distinct sorted positions one
    move away from a sorted position.

    Equal heaps are interchangeable, so a child is how many heaps of each run
    of equal sizes lose one, at most k in all; taking from the first heaps of
    a run keeps the tuple sorted, and only a run of 1s can leave zeros, at the
    front. Which indices to take from depends only on the run lengths, so it
    is worked out once per shape.
    """
    shapes = {}

    def children(key):
        runs = []
        start = 0
        for i in range(1, len(key) + 1):
            if i == len(key) or key[i] != key[start]:
                runs.append(i - start)
                start = i
        runs = tuple(runs)
        takes = shapes.get(runs)
        if takes is None:
            takes = shapes[runs] = []
            _rosebush_takes(runs, 0, 0, variant.k, [], takes)
        result = []
        ones = key[0] == 1
        for take in takes:
            heaps = list(key)
            for i in take:
                heaps[i] -= 1
            zeros = 0
            if ones:
                while zeros < len(heaps) and not heaps[zeros]:
                    zeros += 1
            result.append(tuple(heaps[zeros:]))
        return result

    return children


def _rosebush_takes(runs, index, start, budget, chosen, takes):
    """Every way to take one from the first few heaps of each run, 1 to budget in all."""
    if index == len(runs):
        if chosen:
            takes.append(tuple(chosen))
        return
    length = runs[index]
    for taken in range(min(length, budget) + 1):
        _rosebush_takes(runs, index + 1, start + length, budget - taken, chosen + list(range(start, start + taken)),
                        takes)


# --- exact search -----------------------------------------------------------

def _key(position):
    """Heap order and empty heaps do not matter in any family: sort and drop zeros."""
    return tuple(sorted(h for h in position if h))


def search_estimate(position):
    """An upper bound on the positions an exact search from `position` visits.

    Every position reached, sorted, lies below the sorted root heap by heap,
    so the bound is the number of sorted tuples b1 <= ... <= bn with each
    b_i <= r_i, r the sorted root: (41, 40) gives 902 (b1 from 0 to 40, b2
    from b1 to 41).
    """
    return _estimate(_key(position), None)[0]


def _estimate(bounds, cap):
    """The estimate for sorted bounds, and whether it is complete.

    Count the sorted tuples by the first i where b_i > r_i breaks the bound:
    V_m = C(r_m + m, m) - sum over i < m of V_{i-1} C(r_m - r_i + m - i, m - i + 1).
    V_m grows with m, so with a `cap` it stops at the first V_m above it
    (enough to refuse a search; the search passes one for more than 32 heaps,
    where the full count costs time) and says the figure is a lower bound.
    """
    counts = [1]
    for m in range(1, len(bounds) + 1):
        top = bounds[m - 1]
        value = binomial(top + m, m)
        for i in range(1, m):
            value -= counts[i - 1] * binomial(top - bounds[i - 1] + m - i, m - i + 1)
        counts.append(value)
        if cap is not None and value > cap and m < len(bounds):
            return value, False
    return counts[-1], True


def _move_children(variant):
    """For the search: a function giving the sorted positions one legal move away."""
    def children(key):
        return [_key(variant.apply(key, move)) for move in variant.legal_moves(key)]
    return children


def _search_wins(variant, position, progress=None):
    """Exact game-tree search, memoised per variant spec on sorted positions.

    Depth first, one unknown child at a time, so it stops at the first losing
    child it finds; iterative, so a long game cannot overflow the stack on a
    small board. Positions a closed form answers are not stored.
    """
    memo = _memo(variant)
    root = _key(position)
    if root in memo:
        return memo[root]
    estimate, complete = _estimate(root, search_limit if len(root) > 32 else None)
    if estimate > search_limit:
        raise SearchTooLarge(
            "no proven closed form for %s at %s, and an exact search may visit %s%d positions, more than the "
            "limit of %d" % (_named(variant), position_text(position), "" if complete else "more than ", estimate,
                             search_limit))
    children_of, closed = _SEARCH_HOOKS.get(variant.family, (_move_children, None))
    children_of = children_of(variant)
    settled = 0
    # A frame: [position, its children not known yet, the index of the one being searched].
    stack = [[root, None, 0]]
    while stack:
        frame = stack[-1]
        key = frame[0]
        if frame[1] is None:
            if key in memo:
                stack.pop()
                continue
            if not key:
                result = variant.misere
            else:
                result = None
                unknown = []
                for child in children_of(key):
                    known = memo.get(child)
                    if known is None and closed:
                        known = closed(variant, child)
                    if known is None:
                        unknown.append(child)
                    elif not known:
                        result = True
                        break
                if result is None and not unknown:
                    result = False
                frame[1] = unknown
        else:
            # The child at frame[2] has just been settled.
            result = None if memo[frame[1][frame[2]]] else True
            frame[2] += 1
            if result is None and frame[2] == len(frame[1]):
                result = False
        if result is not None:
            memo[key] = result
            stack.pop()
            settled += 1
            if progress and settled % PROGRESS_EVERY == 0:
                progress(len(memo))
            continue
        if len(memo) + len(stack) > search_limit:
            raise SearchTooLarge(
                "no proven closed form for %s at %s, and it is too big to search exactly "
                "(more than %d positions)" % (_named(variant), position_text(position), search_limit))
        stack.append([frame[1][frame[2]], None, 0])
    return memo[root]


def _named(variant):
    return "%s (%s)" % (type(variant).__name__, variant.describe())


def _searched_winning_moves(variant, position, progress):
    if not _search_wins(variant, position, progress):
        return
    for move in variant.legal_moves(position):
        if not _search_wins(variant, variant.apply(position, move), progress):
            yield move


def _family(searched, wins, moves, count):
    """A family's three solvers (who wins, the winning moves, their count):
    its closed forms, or exact search where `searched(variant, position)` says
    no closed form is proven."""
    def solver(closed, search):
        def solve(variant, position, progress=None):
            if searched and searched(variant, position):
                return search(variant, position, progress)
            return closed(variant, position)
        return solve
    return solver(wins, _search_wins), solver(moves, _searched_winning_moves), solver(count, _count_by_listing)


_SOLVERS = {
    "subtraction": _family(_subtraction_searched, _subtraction_wins, _subtraction_closed_moves, _subtraction_count),
    "nim": _family(None, _nim_wins, _nim_winning_moves, _nim_count),
    "moore": _family(_moore_searched, _moore_wins, _moore_winning_moves, _moore_count),
    "rosebushes": _family(_rosebushes_searched, _rosebushes_closed, _rosebushes_closed_moves, _rosebushes_count),
}

# Per family, for the exact search: what makes the function that gives the
# sorted children of a sorted position, and a closed form that answers some
# positions (None where it has none).
_SEARCH_HOOKS = {
    "rosebushes": (_rosebushes_children, _rosebushes_closed_key),
}
