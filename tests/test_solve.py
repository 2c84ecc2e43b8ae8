"""The solver against brute force, the proven closed forms at scale, and the
rules observed only on data (checked exhaustively over their stated range)."""

import itertools
import random

import pytest
from hypothesis import given, settings, strategies as st

import brute
from controller.core import solve
from controller.core.rules import MISERE, NORMAL, Moore, Nim, Rosebushes, Subtraction

VARIANTS = [
    Subtraction(NORMAL), Subtraction(MISERE), Subtraction(NORMAL, max_take=2), Subtraction(MISERE, max_take=4),
    Nim(NORMAL), Nim(MISERE), Moore(NORMAL, k=1), Moore(MISERE, k=1), Moore(NORMAL, k=2), Moore(MISERE, k=2),
    Moore(NORMAL, k=3), Moore(MISERE, k=3), Rosebushes(NORMAL, k=1), Rosebushes(NORMAL, k=2),
    Rosebushes(MISERE, k=2), Rosebushes(NORMAL, k=3), Rosebushes(MISERE, k=3),
]


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
@settings(max_examples=80, deadline=None)
@given(position=st.lists(st.integers(0, 6), min_size=1, max_size=4).map(tuple))
def test_solver_agrees_with_brute_force(variant, position):
    spec = variant.spec()
    assert solve.mover_wins(variant, position) == brute.mover_wins(spec, position)
    moves = [m.takes for m in solve.winning_moves(variant, position)]
    assert len(moves) == len(set(moves))
    assert set(moves) == brute.winning_takes(spec, position)


@pytest.mark.parametrize("rule,losing", [(NORMAL, 0), (MISERE, 1)])
def test_one_heap_subtraction_closed_form(rule, losing):
    for m in (1, 2, 3, 5):
        variant = Subtraction(rule, max_take=m)
        for n in range(60):
            assert solve.mover_wins(variant, (n,)) == (n % (m + 1) != losing)


def test_drnim_standard_game():
    variant = Subtraction(MISERE)
    assert [str(m) for m in solve.winning_moves(variant, (15,))] == ["1:2"]
    assert list(solve.winning_moves(variant, (13,))) == []
    assert solve.mover_wins(variant, (0,)), "misère: no marbles left means the mover won"


def test_nim_with_ten_thousand_huge_heaps():
    rng = random.Random(2026)
    heaps = tuple(rng.randrange(2**63) for _ in range(10000))
    variant = Nim()
    total = 0
    for h in heaps:
        total ^= h
    assert solve.mover_wins(variant, heaps) == (total != 0)
    moves = list(solve.winning_moves(variant, heaps))
    assert moves and len(moves) == sum(1 for h in heaps if h ^ total < h)
    for move in moves[:20]:
        after = variant.apply(heaps, move)
        check = 0
        for h in after:
            check ^= h
        assert check == 0


def test_moore_with_thousands_of_huge_heaps():
    rng = random.Random(7)
    heaps = tuple(rng.randrange(2**63) for _ in range(3000))
    for k in (2, 3, 5):
        variant = Moore(k=k)
        assert solve.mover_wins(variant, heaps)
        move = solve.winning_move(variant, heaps)
        after = variant.apply(heaps, move)
        for bit in range(63):
            assert sum((h >> bit) & 1 for h in after) % (k + 1) == 0
        assert not solve.mover_wins(variant, after)


def test_misere_nim_endgame_leaves_an_odd_number_of_ones():
    variant = Nim(MISERE)
    assert [str(m) for m in solve.winning_moves(variant, (1, 1, 6))] == ["3:5"]
    assert [str(m) for m in solve.winning_moves(variant, (1, 6))] == ["2:6"]
    assert not solve.mover_wins(variant, (1, 3, 5, 7)), "Marienbad: the first player loses"


def test_search_refuses_positions_too_big_rather_than_exhaust_memory(monkeypatch):
    monkeypatch.setattr(solve, "search_limit", 1000)
    with pytest.raises(solve.SearchTooLarge, match="no proven closed form"):
        solve.mover_wins(Moore(MISERE, k=2), (40, 41, 42, 43))


def test_rosebushes_parity_rule_observed_for_five_bushes_up_to_16_and_k_2():
    """Observed on data, not proven: in normal-play Rosebushes with k = 2, a
    position of five bushes of at most 16 roses, sorted, loses for the mover
    exactly when its parity pattern (smallest bush first) is one of
    even-even-even-even-even, even-even-odd-odd-odd, odd-odd-even-even-odd,
    odd-odd-odd-odd-even. Checked here over all 20,349 such positions (sorted, 0 to 16 roses)."""
    variant = Rosebushes(NORMAL, k=2)
    patterns = {"00000", "00111", "11001", "11110"}
    count = 0
    for position in itertools.combinations_with_replacement(range(17), 5):
        pattern = "".join(str(h % 2) for h in position)
        assert solve.mover_wins(variant, position) == (pattern not in patterns), position
        count += 1
    assert count == 20349
