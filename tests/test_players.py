"""The opponents: each plays as its source describes, quirks included."""

import re

import pytest
from hypothesis import given, settings, strategies as st

import brute
from conftest import ROOT
from controller.core.players import (
    HISTORIC, PLAYER_NAMES, Applet, Fallible, Nimx, Perfect, Praxis, Sinclair, UnknownPlayer, find_player)
from controller.core.rng import Random
from controller.core.rules import MISERE, NORMAL, Game, Moore, Move, Nim, Rosebushes, Subtraction

ALL = [Subtraction(MISERE), Nim(NORMAL), Nim(MISERE), Moore(NORMAL, k=2), Rosebushes(MISERE, k=2)]


@pytest.mark.parametrize("variant", ALL, ids=repr)
@settings(max_examples=60, deadline=None)
@given(position=st.lists(st.integers(0, 6), min_size=1, max_size=4).map(tuple))
def test_perfect_wins_whenever_it_can_and_delays_when_it_cannot(variant, position):
    if not any(position):
        return
    move = Perfect().choose(variant, position)
    spec = variant.spec()
    if brute.mover_wins(spec, position):
        assert move.takes in brute.winning_takes(spec, position)
    else:
        largest = position.index(max(position))
        assert move == Move.take(largest, 1)


def test_perfect_beats_every_line_from_a_winning_start():
    """Against all replies, perfect never loses the standard Dr. Nim game when it moves first."""
    variant = Subtraction(MISERE)

    def explore(position, perfect_to_move):
        if not any(position):
            # misère: the player to move now won
            return perfect_to_move
        if perfect_to_move:
            move = Perfect().choose(variant, position)
            return explore(variant.apply(position, move), False)
        return all(explore(variant.apply(position, m), True) for m in variant.legal_moves(position))

    assert explore((15,), True)


def test_fallible_zero_is_perfect_and_one_is_random():
    variant = Nim()
    position = (3, 4, 5)
    assert all(Fallible("0", Random(s)).choose(variant, position) == Move.parse("1:2") for s in range(50))
    moves = {Fallible("1", Random(s)).choose(variant, position) for s in range(200)}
    assert len(moves) > 6 and all(m.takes in brute.legal_takes(variant.spec(), position) for m in moves)


def test_fallible_errs_at_about_the_rate_asked():
    variant = Subtraction(MISERE)
    player = Fallible("0.1", Random(42))
    errors = sum(player.choose(variant, (15,)) != Move.parse("1:2") for _ in range(20000))
    # A random move is a mistake two times in three: about 6.7 % of moves.
    assert 0.05 < errors / 20000 < 0.085


@pytest.mark.parametrize("text", ["2", "-0.1", "x", "1.5", "0.1.2", "", "0.²", "²", "1" * 5000])
def test_fallible_refuses_a_bad_probability(text):
    with pytest.raises(UnknownPlayer, match="probability must be a number from 0 to 1"):
        find_player("fallible:" + text if text else "fallible:.")


def test_same_seed_same_game():
    def game(seed):
        rng = Random(seed)
        players = (find_player("fallible:0.5", rng), find_player("praxis", rng))
        g = Game(Nim(), (7, 7, 7, 6))
        while not g.is_over():
            g.push(players[g.turn].choose(g.variant, g.position))
        return [str(m) for m in g.stack]

    assert game(5) == game(5)
    assert len({tuple(game(s)) for s in range(20)}) > 5


@pytest.mark.parametrize("sticks,take", [(23, 2), (21, 1), (20, 3), (16, 3), (14, 1), (6, 1), (5, 1), (2, 1), (1, 1)])
def test_sinclair_leaves_4n_plus_1_or_takes_1(sticks, take):
    assert Sinclair().choose(Subtraction(MISERE), (sticks,)) == Move.take(0, take)


def test_sinclair_plays_the_same_formula_in_a_last_stick_wins_game():
    assert Sinclair().choose(Subtraction(NORMAL), (8,)) == Move.take(0, 3), "leaves 5, though 8 is a win"
    assert Sinclair().unsupported(Nim(), (3, 4)) is not None


def test_nimx_plays_the_first_safe_row_else_a_random_row_and_count():
    assert Nimx().choose(Nim(), (3, 3, 4, 5)) == Move.parse("1:1")
    assert Nimx().choose(Nim(), (7, 6, 2)) == Move.parse("1:3")
    assert Nimx().choose(Nim(), (1, 2, 2)) == Move.parse("1:1")
    seen = {Nimx(Random(s)).choose(Nim(), (3, 3, 4, 4)) for s in range(300)}
    assert {m.heaps[0] for m in seen} == {0, 1, 2, 3}
    assert {m.total for m in seen} == {1, 2, 3, 4}


def test_nimx_keeps_its_nim_sum_idea_in_misere_play():
    assert Nimx().choose(Nim(MISERE), (1, 1)) == Move.parse("1:1")  # safe in normal play, losing in misère


def test_applet_builds_the_move_column_by_column_on_the_last_heap_with_bit_f():
    # 3 5 7 = 0011 0101 0111: only column 1 is odd, f = 0, the last heap with bit 0 is heap 3
    assert Applet().choose(Nim(), (3, 5, 7)) == Move.parse("3:1")
    # 2 3 8: odd columns 8 and 1 -> f = 3, the last heap with bit 3 is heap 3: 8 -> 8^9 = 1
    assert Applet().choose(Nim(), (2, 3, 8)) == Move.parse("3:7")
    # 6 6 1 1 9 9 9: the last heap with bit f = 3 set is heap 7
    assert Applet().choose(Nim(), (6, 6, 1, 1, 9, 9, 9)) == Move.parse("7:9")


def test_applet_takes_a_random_count_from_the_first_heap_when_safe():
    moves = {Applet(Random(s)).choose(Nim(), (0, 5, 1, 4)) for s in range(200)}
    assert {m.heaps[0] for m in moves} == {1}
    assert {m.total for m in moves} == {1, 2, 3, 4, 5}


def test_applet_is_blind_above_four_bits():
    # 16 and 0: bits above 8 are invisible, so the applet thinks (16,) is safe
    # and does not take the whole heap, though that would win.
    move = Applet(Random(3)).choose(Nim(), (16,))
    assert Perfect().choose(Nim(), (16,)) == Move.parse("1:16")
    assert move.takes[0][0] == 0
    assert any(Applet(Random(s)).choose(Nim(), (16,)) != Move.parse("1:16") for s in range(5))


def test_praxis_plays_on_the_first_heap_that_shrinks():
    assert Praxis().choose(Nim(), (25, 32, 19, 4, 17)) == Move.parse("2:1")  # 32 xor 63 = 31
    assert Praxis().choose(Nim(), (7, 6, 2)) == Move.parse("1:3")  # all three shrink: the first
    assert Praxis().choose(Nim(), (5, 1, 6)) == Move.parse("3:2")


def test_praxis_moves_at_random_when_losing():
    moves = {Praxis(Random(s)).choose(Nim(), (1, 2, 3)) for s in range(200)}
    assert len(moves) == 6  # every legal move of (1, 2, 3)


def test_historic_programs_refuse_games_they_cannot_play():
    for player in (Nimx(), Applet(), Praxis()):
        assert "subtraction" in player.unsupported(Subtraction(MISERE), (15,))
    assert Perfect().unsupported(Rosebushes(k=2), (3, 4)) is None


def test_unknown_opponent_lists_the_choices():
    with pytest.raises(UnknownPlayer, match="unknown opponent .deep-blue.: choose from perfect, perfect:random, fallible:P"):
        find_player("deep-blue")
    assert find_player("Fallible:0.25").name == "fallible:0.25"


def test_every_opponent_named_is_one_find_player_builds_and_the_page_names_for_visitors():
    """PLAYER_NAMES is what --opponent's help, find_player's refusals and the page offer: each name
    builds an opponent, each historic player is named there, and the page has each one's name for
    visitors (choiceName in web/page.js), as DEVELOPERS.md's 'Adding an opponent' asks."""
    offered = [name.replace("fallible:P", "fallible:0.1") for name in PLAYER_NAMES]
    unbuilt = [name for name in offered if not builds(name)]
    assert not unbuilt, "players.PLAYER_NAMES names %s, which find_player does not build: name its class in " \
        "players.HISTORIC (DEVELOPERS.md, 'Adding an opponent')" % ", ".join(unbuilt)
    unnamed = [name for name in HISTORIC if name not in PLAYER_NAMES]
    assert not unnamed, "players.HISTORIC has %s, which players.PLAYER_NAMES does not name, so --opponent's help " \
        "and the web page leave it out: name it there (DEVELOPERS.md, 'Adding an opponent')" % ", ".join(unnamed)
    page = (ROOT / "web" / "page.js").read_text()
    names = page[page.index("function choiceName("):]
    names = names[:names.index("\n}\n")]
    keys = set(re.findall(r'(?:^|[{,]\s*)"?([\w:.-]+)"?:', names, re.M))
    nameless = [name for name in offered if name not in keys]
    assert not nameless, "the web page shows %s to visitors in English only: give choiceName in web/page.js its " \
        "name for visitors, then make catalogs and translate it (DEVELOPERS.md, 'Adding an opponent')" % (
            ", ".join(nameless))


def builds(name):
    try:
        find_player(name)
    except UnknownPlayer:
        return False
    return True
