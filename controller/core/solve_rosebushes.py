"""Rosebushes (Chlond): closed forms in three proven cases (k = 1; at most k
non-empty heaps; exactly k+1 non-empty heaps), normal and misère, with the
proofs in the docstrings; elsewhere the exact search, with `children` giving
it the distinct sorted positions one move away."""

from .rules import Move


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


def wins(variant, position):
    """Whether the mover wins by a proven closed form, or None where none is proven."""
    filled = [h for h in position if h]
    if variant.k == 1:
        return _rosebushes_k1(variant.misere, filled)
    if len(filled) <= variant.k:
        return _rosebushes_few(variant.misere, filled)
    if len(filled) == variant.k + 1:
        return _rosebushes_k_plus_1(variant.misere, filled, variant.k)
    return None


def closed_key(variant, key):
    """`wins` for a sorted position without zeros, quick to say None."""
    if variant.k > 1 and len(key) > variant.k + 1:
        return None
    return wins(variant, key)


def searched(variant, position):
    return wins(variant, position) is None


def count(variant, position):
    return len(list(moves(variant, position)))


def moves(variant, position):
    """The winning moves where a closed form holds, from a few candidates.

    With k = 1 every move wins in a winning position. Otherwise the proofs
    above name every move that reaches a loss: one from each odd heap, one
    from each even heap, and, for a heap j whose other heaps differ by at most
    1, one from each of the others or from those above their smallest, with or
    without j. Each candidate is kept when the closed form says it leaves the
    next mover lost: at most 4n+2 candidates for n heaps.
    """
    if not wins(variant, position):
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
        if not wins(variant, after):
            yield Move([(i, 1) for i in heaps])


def children(variant):
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

