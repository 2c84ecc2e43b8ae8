"""A winning move in Moore's Nim_k found by integer programming.

After M. J. Chlond and C. Akyol, "A Nimatron", INFORMS Transactions on
Education 3(3), 2003, which solves Nim as an integer programme.  The
module imports without the solver; `highspy` (HiGHS) is needed only when
`ip_winning_move` is called.
"""

import ctypes
import os
import sys
from numbers import Integral

_MAX_HEAP = 2**20


def _check(heaps, k):
    if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    heaps = tuple(heaps)
    for h in heaps:
        if isinstance(h, bool) or not isinstance(h, Integral) or h < 0:
            raise ValueError(f"heap sizes must be non-negative integers, got {h!r}")
        if h >= _MAX_HEAP:
            raise ValueError(f"heap sizes must be below 2**20, got {h!r}")
    return tuple(int(h) for h in heaps), int(k)


def ip_winning_move(heaps, k=1):
    """Return a winning move in Nim_k (normal play), or None if there is none.

    In Moore's Nim_k a move takes at least one counter from each of 1..k
    heaps (Nim is k = 1).  A position is safe (a P-position) when, writing
    the heaps in binary, every column sum is divisible by k + 1.  For heaps
    h_1..h_n the integer programme is

        x_i   integer, 0 <= x_i <= h_i     the heap after the move
        b_ij  binary, x_i = sum_j 2^j b_ij   (j = 0..B-1, B = bit length)
        z_j   integer >= 0, sum_i b_ij = (k+1) z_j   (the new position is safe)
        s_i   = h_i - x_i >= 0             the number removed from heap i
        d_i   binary, s_i <= h_i d_i         (heap i may change only if d_i = 1)
        sum_i d_i <= k

        minimise sum_i d_i                 (the number of heaps changed)

    x_i and s_i are substituted out, leaving the rows sum_j 2^j b_ij <= h_i
    and sum_j 2^j b_ij + h_i d_i >= h_i; with x_i as a column of its own
    HiGHS wrongly reported some positions near 2**20 infeasible.  By Moore's
    theorem an unsafe position always has a move to a safe one, so the
    programme is always feasible.  Its optimum is 0 exactly when x = h, i.e.
    taking nothing, is feasible, i.e. the position is already safe; then
    there is no winning move and None is returned.  Otherwise the result is
    a tuple of (heap index from 0, amount taken) pairs, sorted by heap
    index, one for each heap with s_i > 0, and it changes as few heaps as
    any winning move does.

    HiGHS computes in floating point with tolerances, not just with doubles
    (exact below 2**53): a binary b_ij may be off by its integrality
    tolerance, 1e-6, which the weight 2^j magnifies, so the rows above are
    trustworthy only while 2^B * 1e-6 stays below about 1/2.  Heaps of
    2**20 or more therefore raise ValueError.  (HiGHS refuses coefficients
    above 1e15 outright, and near 2**50 it reports false infeasibility.)
    The move is checked with exact integers before it is returned, and a
    RuntimeError is raised if it is not a legal move to a safe position.
    """
    heaps, k = _check(heaps, k)
    try:
        import highspy
    except ImportError as error:
        from controller.extras import missing
        raise RuntimeError("the integer programme needs HiGHS: " + missing("ip", error)) from None

    n, bits = len(heaps), max(max(heaps, default=0).bit_length(), 1)
    m = _quiet_highs(highspy)
    b = [[m.addBinary() for _ in range(bits)] for _ in range(n)]
    z = [m.addIntegral(lb=0) for _ in range(bits)]
    d = [m.addBinary(obj=1) for _ in range(n)]
    for i, h in enumerate(heaps):
        x = m.qsum(2**j * b[i][j] for j in range(bits))
        m.addConstr(x <= h)
        m.addConstr(x + h * d[i] >= h)  # s_i = h_i - x_i <= h_i d_i
    for j in range(bits):
        m.addConstr(m.qsum(b[i][j] for i in range(n)) == (k + 1) * z[j])
    if n:
        m.addConstr(m.qsum(d) <= k)
    m.run()
    if m.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        # HiGHS's presolve is where its releases have gone wrong: 1.16.0's ends some of these programmes
        # (heaps 4 4 5 21 21 29, k=2) in a solve error that the same HiGHS solves without it.
        m.setOptionValue("presolve", "off")
        m.run()
    if m.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"HiGHS found no optimum: {m.modelStatusToString(m.getModelStatus())}")
    if round(m.getInfo().objective_function_value) == 0:
        return None

    col = m.getSolution().col_value
    after = [sum(2**j * round(col[v.index]) for j, v in enumerate(row)) for row in b]
    move = tuple((i, h - a) for i, (h, a) in enumerate(zip(heaps, after)) if h != a)
    if not (1 <= len(move) <= k and all(0 <= a <= h for h, a in zip(heaps, after))
            and all(sum(a >> j & 1 for a in after) % (k + 1) == 0 for j in range(bits))):
        raise RuntimeError(f"HiGHS returned an invalid move {move!r} from {heaps!r}")
    return move


def _quiet_highs(highspy):
    """A HiGHS model that prints nothing. HiGHS prints its banner on file
    descriptor 1 as the model is made, before any option can turn it off:
    there it would spoil `--json` piped into another program. So fd 1 points
    at /dev/null while the model is made (C's buffer flushed before it points
    back), and the model's own output is off."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
        finally:
            os.close(null)
        model = highspy.Highs()
        ctypes.CDLL(None).fflush(None)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    model.setOptionValue("output_flag", False)
    return model
