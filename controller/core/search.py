"""Exact memoised search over sorted positions, for the games with no proven
closed form. Loaded only when such a game is asked for.

Before it starts, a search estimates how many positions it may visit and
refuses with `SearchTooLarge` when that is more than its `limit` (solve.py
passes `solve.search_limit`); it reports its progress to a `progress`
callback when it is given one. solve.py imports this module, never the
other way round: it hands the search the family's module and the limit.
"""

from .limits import SearchTooLarge
from .counting import binomial
from .rules import position_text

# The exact search's memo, one per variant spec: a variant is a value, so two
# equal variants share what was searched. `forget()` frees it.
_memos = {}

# How many positions a search settles between two calls of its progress callback, and how many moves
# it may look through: a position of misère Nim_k can have thousands, and a search of a few thousand
# positions then took a minute with nothing to show (a teacher took it for hung).
PROGRESS_EVERY = 2048
PROGRESS_MOVES = 16384


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


def search_wins(variant, position, family, limit, progress=None):
    """Exact game-tree search, memoised per variant spec on sorted positions.

    Depth first, one unknown child at a time, so it stops at the first losing
    child it finds; iterative, so a long game cannot overflow the stack on a
    small board. Positions a closed form answers are not stored.
    """
    memo = _memo(variant)
    root = _key(position)
    if root in memo:
        return memo[root]
    estimate, complete = _estimate(root, limit if len(root) > 32 else None)
    if estimate > limit:
        raise SearchTooLarge(
            "no proven closed form for %s at %s, and an exact search may visit %s%d positions, more than the "
            "limit of %d" % (_named(variant), position_text(position), "" if complete else "more than ", estimate,
                             limit))
    children_of = getattr(family, "children", _move_children)(variant)
    closed = getattr(family, "closed_key", None)
    settled = moves = 0
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
                children = children_of(key)
                moves += len(children)
                if progress and moves >= PROGRESS_MOVES:
                    moves = 0
                    progress(len(memo))
                for child in children:
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
        if len(memo) + len(stack) > limit:
            raise SearchTooLarge(
                "no proven closed form for %s at %s, and it is too big to search exactly "
                "(more than %d positions)" % (_named(variant), position_text(position), limit))
        stack.append([frame[1][frame[2]], None, 0])
    return memo[root]


def _named(variant):
    return "%s (%s)" % (type(variant).__name__, variant.describe())


def searched_moves(variant, position, family, limit, progress):
    if not search_wins(variant, position, family, limit, progress):
        return
    for move in variant.legal_moves(position):
        if not search_wins(variant, variant.apply(position, move), family, limit, progress):
            yield move
