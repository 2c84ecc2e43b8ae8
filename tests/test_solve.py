"""The solver against brute force, the proven closed forms at scale, and the
rules observed only on data (checked exhaustively over their stated range)."""

import itertools
import random

import pytest
from hypothesis import given, settings, strategies as st

import brute
from controller.core import search, solve, solve_moore, solve_rosebushes
from controller.core.rules import MISERE, NORMAL, Moore, Nim, Rosebushes, Subtraction, Variant

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


def test_search_refuses_at_once_with_its_estimate(monkeypatch):
    """The estimate is made before the search starts: nothing is searched."""
    variant = Rosebushes(NORMAL, k=3)
    solve.forget(variant)
    with pytest.raises(solve.SearchTooLarge) as error:
        solve.mover_wins(variant, (100,) * 7)
    assert str(error.value) == (
        "no proven closed form for Rosebushes (take one from each of 1 to 3 heaps; whoever takes the last object "
        "wins) at (100, 100, 100, 100, 100, 100, 100), and an exact search may visit 26075972546 positions, "
        "more than the limit of 2000000")
    assert "\n" not in str(error.value)
    assert not search._memos.get(search._spec_key(variant))
    assert solve.search_estimate((100,) * 7) == 26075972546
    with pytest.raises(solve.SearchTooLarge, match="may visit more than 9223372036854775809 positions"):
        solve.mover_wins(variant, (2**63,) * 40)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 7), max_size=5))
def test_search_estimate_counts_the_sorted_positions_below_the_root(heaps):
    below = set()
    for position in itertools.product(*[range(h + 1) for h in heaps]):
        below.add(tuple(sorted(position)))
    assert solve.search_estimate(heaps) == len(below)


def test_search_reports_progress_to_a_callback():
    variant = Rosebushes(MISERE, k=2)
    solve.forget(variant)
    seen = []
    assert solve.mover_wins(variant, (12, 13, 14, 15, 16, 17), seen.append) is not None
    assert len(seen) > 3 and seen == sorted(seen) and seen[-1] <= len(search._memo(variant))
    assert seen[0] <= search.PROGRESS_EVERY, "the first report comes by the 2,048th position settled"


def test_a_search_of_few_positions_with_many_moves_each_still_reports_progress():
    """Misère Nim_k at (30, 30, 30) searched 36 s before its first 2,048 positions were settled, and the
    terminal showed nothing all that time; a teacher at the projector took it for hung."""
    variant = Moore(MISERE, k=2)
    solve.forget(variant)
    seen = []
    assert solve.mover_wins(variant, (12, 12, 12), seen.append) is False
    assert len(search._memo(variant)) < search.PROGRESS_EVERY
    assert len(seen) >= 2 and seen == sorted(seen)
    solve.forget(variant)


@pytest.mark.parametrize("k", [2, 3])
def test_misere_moore_searches_the_positions_its_moves_reach(k):
    """Misère Nim_k makes its children without a Move each (three heaps of 30 took 36 s, now 5): the same
    positions as every legal move's, each once, for every sorted position of up to four heaps of 0 to 5."""
    variant = Moore(MISERE, k=k)
    made, moved = solve_moore.children(variant), search._move_children(variant)
    for size in range(1, 5):
        for key in itertools.combinations_with_replacement(range(1, 6), size):
            children = made(key)
            assert len(children) == len(set(children)) and set(children) == set(moved(key)), key


def test_the_memo_belongs_to_the_solver_one_per_spec_and_forget_frees_it():
    assert not hasattr(Variant(), "memo")
    one, two = Rosebushes(MISERE, k=2), Rosebushes(MISERE, k=2)
    solve.forget()
    assert not search._memos
    solve.mover_wins(one, (1, 2, 3, 4))
    assert search._memos[search._spec_key(two)] is search._memo(one), "equal variants share one memo"
    solve.mover_wins(Rosebushes(NORMAL, k=2), (1, 2, 3, 4))
    solve.forget(two)
    assert search._spec_key(one) not in search._memos and len(search._memos) == 1
    solve.forget()
    assert not search._memos


def test_nim_sum_is_public():
    assert solve.nim_sum((1, 3, 5, 7)) == 0 and solve.nim_sum((3, 4, 5)) == 2 and solve.nim_sum(()) == 0
    assert solve.nim_sum(h for h in (2**63, 1)) == 2**63 + 1
    assert not hasattr(solve, "_xor")


# --- winning_move_count -----------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
@settings(max_examples=60, deadline=None)
@given(position=st.lists(st.integers(0, 7), min_size=1, max_size=4).map(tuple))
def test_winning_move_count_is_the_number_of_winning_moves(variant, position):
    assert solve.winning_move_count(variant, position) == len(list(solve.winning_moves(variant, position)))


@pytest.mark.parametrize("heaps,k,count", [
    ((255, 255, 255, 255), 2, 1528), ((63, 63, 63, 63, 63), 3, 6025), ((1000, 999, 700, 513, 77), 2, 106),
])
def test_moore_count_matches_the_listing_on_larger_positions(heaps, k, count):
    assert solve.winning_move_count(Moore(k=k), heaps) == count == len(list(solve.winning_moves(Moore(k=k), heaps)))


def test_counts_astronomical_numbers_of_moves_without_listing_them():
    assert solve.winning_move_count(Moore(k=2), (2**62 - 1,) * 4) == 27670116110564327416
    rng = random.Random(11)
    heaps = tuple(rng.randrange(2**63) for _ in range(30))
    assert solve.winning_move_count(Moore(k=3), heaps) > 10**20
    nim = tuple(rng.randrange(2**63) for _ in range(10000))
    total = solve.nim_sum(nim)
    assert solve.winning_move_count(Nim(), nim) == sum(1 for h in nim if h ^ total < h)
    assert solve.winning_move_count(Subtraction(NORMAL, max_take=10**18), (10**18 + 5, 3)) == 1
    assert solve.winning_move_count(Subtraction(MISERE, max_take=10**18), (10**18 + 5,)) == 1


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


# --- Rosebushes closed forms ---------------------------------------------------

# The exhaustive range of each closed form: for k, every sorted position of
# `heaps` heaps (empty ones included, so fewer non-empty heaps too) of 0 to
# `largest` objects. With k = 1 any number of heaps has a closed form; with
# k >= 2 at most k+1 non-empty heaps.
CLOSED_RANGES = {1: (5, 7), 2: (3, 16), 3: (4, 8), 4: (5, 5)}


@pytest.mark.parametrize("rule", [NORMAL, MISERE])
@pytest.mark.parametrize("k", sorted(CLOSED_RANGES))
def test_rosebushes_closed_forms_agree_with_brute_force_over_their_range(k, rule):
    """Who wins, every winning move and their count, against the brute force of
    tests/brute.py, for every position of CLOSED_RANGES[k] (252 to 969 sorted positions a case)."""
    variant = Rosebushes(rule, k)
    spec = variant.spec()
    heaps, largest = CLOSED_RANGES[k]
    for position in itertools.combinations_with_replacement(range(largest + 1), heaps):
        assert solve_rosebushes.wins(variant, position) is not None, position
        assert solve.mover_wins(variant, position) == brute.mover_wins(spec, position), position
        moves = {m.takes for m in solve.winning_moves(variant, position)}
        assert moves == brute.winning_takes(spec, position), position
        assert solve.winning_move_count(variant, position) == len(moves), position


def test_rosebushes_with_more_than_k_plus_1_heaps_is_still_searched():
    variant = Rosebushes(NORMAL, k=2)
    assert solve_rosebushes.wins(variant, (1, 2, 3, 4)) is None
    assert solve_rosebushes.wins(Rosebushes(NORMAL, k=1), (1, 2, 3, 4)) is False
    assert solve.mover_wins(variant, (1, 2, 3, 4)) == brute.mover_wins(variant.spec(), (1, 2, 3, 4))


@pytest.mark.parametrize("variant,position,wins,expected", [
    # k = 1: the total decides, and in a winning position every move wins.
    (Rosebushes(NORMAL, k=1), (2**63 - 1, 2**63, 5), False, []),
    (Rosebushes(MISERE, k=1), (2**63 - 1, 2**63, 5), True, ["1:1", "2:1", "3:1"]),
    # At most k heaps: normal play, one from each odd heap.
    (Rosebushes(NORMAL, k=3), (2**63 - 1, 2**63 - 2, 2**63 - 3), True, ["1:1,3:1"]),
    (Rosebushes(NORMAL, k=3), (2**63, 2**63 - 2, 0, 2**62), False, []),
    (Rosebushes(MISERE, k=3), (2**63, 2**63 - 2, 2**62), False, []),
    (Rosebushes(MISERE, k=3), (2**63 - 1, 1, 0, 1), True, ["2:1,4:1"]),
    # k+1 heaps of mixed parities: one from each odd heap, or one from each even heap.
    (Rosebushes(NORMAL, k=2), (2**63 - 1, 2**63 - 2, 2**63 - 4), True, ["1:1", "2:1,3:1"]),
    (Rosebushes(MISERE, k=2), (2**63 - 1, 2**63 - 2, 2**63 - 4), True, ["1:1", "2:1,3:1"]),
    # Misère, k heaps equal the smallest: the other one must have the other parity.
    (Rosebushes(MISERE, k=2), (2**63 - 2, 2**63 - 2, 2**63 - 1), False, []),
    (Rosebushes(MISERE, k=2), (2**63 - 3, 2**63 - 3, 2**63 - 1), True, ["1:1,2:1", "3:1"]),
])
def test_rosebushes_closed_forms_answer_heaps_near_2_63_at_once(variant, position, wins, expected):
    solve.forget(variant)
    assert solve.mover_wins(variant, position) == wins
    assert sorted(str(m) for m in solve.winning_moves(variant, position)) == expected
    assert solve.winning_move_count(variant, position) == len(expected)
    assert not search._memos.get(search._spec_key(variant)), "a closed form needs no search"
