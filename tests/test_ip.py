"""Tests for controller.ip, the integer programme for a winning move in Nim_k."""

import itertools
import sys

import pytest

pytest.importorskip("highspy", reason="highspy is missing (pip install -e '.[ip]'; make test installs it)")

from hypothesis import example, given, settings, strategies as st  # noqa: E402

from controller.ip import ip_winning_move  # noqa: E402


def is_safe(heaps, k):
    """Every binary column sum divisible by k + 1 (a P-position of Nim_k)."""
    bits = max(heaps, default=0).bit_length()
    return all(sum(h >> j & 1 for h in heaps) % (k + 1) == 0 for j in range(bits))


def apply(heaps, move):
    after = list(heaps)
    for i, taken in move:
        after[i] -= taken
    return after


def legal_moves(heaps, k):
    """Every legal move: 1..k distinct non-empty heaps, 1..h_i from each."""
    nonempty = [i for i, h in enumerate(heaps) if h > 0]
    for r in range(1, k + 1):
        for chosen in itertools.combinations(nonempty, r):
            for amounts in itertools.product(*(range(1, heaps[i] + 1) for i in chosen)):
                yield tuple(zip(chosen, amounts))


def check_move(heaps, k, move):
    assert isinstance(move, tuple) and 1 <= len(move) <= k
    indices = [i for i, _ in move]
    assert indices == sorted(set(indices))
    for i, taken in move:
        assert 0 <= i < len(heaps) and 1 <= taken <= heaps[i]
    assert is_safe(apply(heaps, move), k)


positions = st.tuples(st.lists(st.integers(0, 40), min_size=1, max_size=6), st.integers(1, 3))
small_positions = st.tuples(st.lists(st.integers(0, 12), min_size=1, max_size=4), st.integers(1, 3))


@settings(deadline=None, max_examples=300)
@given(positions)
@example(([4, 4, 5, 21, 21, 29], 2))        # HiGHS 1.16.0's presolve ended it in a solve error
def test_none_exactly_when_safe_else_a_legal_move_to_safety(position):
    heaps, k = position
    move = ip_winning_move(heaps, k)
    if is_safe(heaps, k):
        assert move is None
    else:
        assert move is not None
        check_move(heaps, k, move)


@settings(deadline=None, max_examples=200)
@given(small_positions)
def test_changes_as_few_heaps_as_any_winning_move(position):
    heaps, k = position
    winning = [m for m in legal_moves(heaps, k) if is_safe(apply(heaps, m), k)]
    move = ip_winning_move(heaps, k)
    if not winning:
        assert move is None
    else:
        check_move(heaps, k, move)
        assert len(move) == min(len(m) for m in winning)


def test_a_position_highs_presolve_fails_on_is_solved_without_it(monkeypatch):
    """HiGHS 1.16.0's presolve ended this programme in a solve error, which the same HiGHS solves with its
    presolve off; CI's HiGHS solves it either way, so here a HiGHS whose presolve always fails stands in."""
    import highspy

    class PresolveFails(highspy.Highs):
        presolve = "choose"

        def setOptionValue(self, name, value):
            if name == "presolve":
                self.presolve = value
            return super().setOptionValue(name, value)

        def getModelStatus(self):
            if self.presolve != "off":
                return highspy.HighsModelStatus.kSolveError
            return super().getModelStatus()

    monkeypatch.setattr(highspy, "Highs", PresolveFails)
    heaps = [4, 4, 5, 21, 21, 29]
    check_move(heaps, 2, ip_winning_move(heaps, 2))


def test_examples():
    assert ip_winning_move([1, 3, 5, 7]) is None
    assert ip_winning_move((3, 4, 5)) == ((0, 2),)
    assert ip_winning_move([5]) == ((0, 5),)
    assert ip_winning_move([]) is None
    assert ip_winning_move([0, 0, 0]) is None
    assert ip_winning_move([7, 7, 7], k=2) is None
    assert ip_winning_move([1, 2, 4], k=2) == ((1, 1), (2, 3))
    move = ip_winning_move([2**20 - 1, 12345, 999999, 3], k=2)
    check_move([2**20 - 1, 12345, 999999, 3], 2, move)


@pytest.mark.parametrize(
    "heaps, k, message",
    [
        ([1, 2], 0, "k must be an integer >= 1, got 0"),
        ([1, 2], 1.0, "k must be an integer >= 1, got 1.0"),
        ([1, 2], True, "k must be an integer >= 1, got True"),
        ([1, -3], 1, "heap sizes must be non-negative integers, got -3"),
        ([1, 2.0], 1, "heap sizes must be non-negative integers, got 2.0"),
        (["3"], 1, "heap sizes must be non-negative integers, got '3'"),
        ([2**20], 1, "heap sizes must be below 2\\*\\*20, got 1048576"),
    ],
)
def test_bad_input(heaps, k, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        ip_winning_move(heaps, k)


def test_missing_highspy(monkeypatch):
    monkeypatch.setitem(sys.modules, "highspy", None)  # makes the import fail
    with pytest.raises(RuntimeError) as raised:
        ip_winning_move([1, 2])
    assert str(raised.value) == "the integer programme needs HiGHS: highspy is missing (the 'ip' extra): %s -m pip " \
                                "install 'highspy>=1.7'" % sys.executable
