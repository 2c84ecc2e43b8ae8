"""Positions, moves, variants and the game record."""

import json

import pytest
from hypothesis import given, settings, strategies as st

import brute
from conftest import ROOT
from controller.core import players, rules, solve
from controller.core.families import FAMILIES, find_variant, make_variant
from controller.core.presets import PRESETS
from controller.core.rules import (
    MISERE, NORMAL, Game, IllegalMove, InvalidMove, InvalidPosition, Moore, Move, Nim, Rosebushes, Subtraction)

# Every family of the registry in both rules, so a new family is held to its rules here as soon as
# families.FAMILIES lists it, and a few parameters besides.
VARIANTS = list(dict.fromkeys([cls(rule) for _, _, cls in FAMILIES for rule in (NORMAL, MISERE)] + [
    Subtraction(NORMAL, max_take=2), Moore(MISERE, k=3), Rosebushes(MISERE, k=3)]))
small_positions = st.lists(st.integers(0, 5), min_size=1, max_size=4).map(tuple)
takes = st.dictionaries(st.integers(0, 20), st.integers(1, 10**20), min_size=1, max_size=5)


@given(takes)
def test_move_text_and_repr_round_trip(pairs):
    move = Move(pairs.items())
    assert Move.parse(str(move)) == move
    assert eval(repr(move), {"Move": Move}) == move
    assert str(move).split(",")[0].startswith(str(min(pairs) + 1) + ":")


def test_move_text_counts_heaps_from_one():
    assert Move.parse("2:3").takes == ((1, 3),)
    assert str(Move.take(0, 5)) == "1:5"
    assert Move.parse("3:2, 1:1") == Move.parse("1:1,3:2")


@given(st.integers(-3, 10**20), st.integers(-3, 10**20))
def test_one_take_is_the_move_of_that_one_pair_or_refused_alike(heap, count):
    """Move.take's fast way (the solver's) makes the same move, and refuses the same ones."""
    try:
        expected = Move([(heap, count)])
    except InvalidMove as error:
        with pytest.raises(InvalidMove, match=str(error)):
            Move.take(heap, count)
    else:
        move = Move.take(heap, count)
        assert move == expected and move.takes == expected.takes and hash(move) == hash(expected)


@pytest.mark.parametrize("text,words", [
    ("", "is not a move"), ("2", "is not a move"), ("a:1", "is not a move"), ("1:-2", "is not a move"),
    ("0:1", "heaps are numbered from 1"), ("1:0", "take at least 1"), ("1:1,1:2", "named twice"),
    ("²:1", "is not a move"), ("1:³", "is not a move"), ("1:" + "9" * 5000, "is not a move"),
])
def test_bad_move_text_is_refused_with_a_reason(text, words):
    with pytest.raises(InvalidMove, match=words):
        Move.parse(text)


@pytest.mark.parametrize("variant,position,text,message", [
    (Nim(), (3, 4, 5), "2:5", "illegal move '2:5' in (3, 4, 5): heap 2 has 4"),
    (Subtraction(MISERE), (15,), "1:4", "illegal move '1:4' in (15): take at most 3"),
    (Nim(), (3, 4, 5), "1:1,2:1", "take from one heap only"),
    (Moore(k=2), (3, 4, 5), "1:1,2:1,3:1", "take from at most 2 heaps"),
    (Rosebushes(k=2), (3, 4, 5), "1:2", "take exactly one from each heap"),
    (Nim(), (3, 4, 5), "4:1", "there is no heap 4"),
])
def test_illegal_moves_quote_move_position_and_reason(variant, position, text, message):
    with pytest.raises(IllegalMove) as error:
        variant.apply(position, Move.parse(text))
    assert message in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
@settings(max_examples=60, deadline=None)
@given(position=small_positions)
def test_legal_moves_are_exactly_the_rules(variant, position):
    generated = [m.takes for m in variant.legal_moves(position)]
    assert len(generated) == len(set(generated)), "%r gives a move twice in %s" % (variant, position)
    assert set(generated) == brute.legal_takes(variant.spec(), position), (
        "%r's legal_moves in %s differ from tests/brute.py's, the family's definition written again from its "
        "rules: give brute.legal_takes a branch for the family (DEVELOPERS.md, 'Adding a game family')"
        % (variant, position))


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
@settings(max_examples=40, deadline=None)
@given(position=small_positions, seed=st.integers(0, 2**32))
def test_random_moves_are_legal(variant, position, seed):
    from controller.core.rng import Random
    move = variant.random_move(position, Random(seed))
    if not any(position):
        assert move is None
    else:
        assert move.takes in brute.legal_takes(variant.spec(), position), (
            "%r's random_move gave %s in %s, which is not legal: Variant.random_move takes 1 to "
            "most_from_one_heap(size) from one heap, so a family where not every such take is legal gives "
            "its own random_move (fallible and perfect:random use it)" % (variant, move, position))


def where_a_family_is_missing(family, cls):
    """The tables a game family must be named in that do not name it."""
    sweeps = json.loads((ROOT / "tests" / "vectors" / "core.json").read_text())["sweeps"]
    tables = [
        (family == "nim" or rules.ELSEWHERE.get(cls.__name__) == "families",
         "rules.ELSEWHERE (so that `from .rules import %s` finds it)" % cls.__name__),
        (family in solve.FAMILIES, "solve.FAMILIES (its solve_%s.py)" % family),
        (family in players.Player.families, "players.Player.families (or no opponent plays it)"),
        (any(preset.variant_class is cls or (cls is Subtraction and preset.max_take) for preset in PRESETS),
         "a preset in presets.PRESETS (the game `controller solve` and `play` name)"),
        (any(sweep["variant"]["family"] == family for sweep in sweeps),
         "a sweep in tests/vectors/core.json (checked against tests/brute.py on CPython and MicroPython)"),
    ]
    return [table for named, table in tables if not named]


@pytest.mark.parametrize("family,cls", [(family, cls) for family, _, cls in FAMILIES], ids=lambda v: str(v))
def test_every_family_is_named_wherever_a_family_is_looked_up(family, cls):
    assert cls.family == family, "families.FAMILIES lists %s as %r, but its `family` is %r" % (
        cls.__name__, family, cls.family)
    missing = where_a_family_is_missing(family, cls)
    assert missing == [], "game family %r is not named in: %s (DEVELOPERS.md, 'Adding a game family')" % (
        family, "; ".join(missing))


@pytest.mark.parametrize("family,cls", [(family, cls) for family, _, cls in FAMILIES if family != "nim"],
                         ids=lambda v: str(v))
def test_the_terminal_game_says_each_familys_own_rule(family, cls):
    """controller/terminal.py's rule() says Nim's rule of any family it has no line for."""
    from controller.language import language
    from controller.terminal import rule
    english = language("en")
    assert rule(english, cls()) != rule(english, Nim()), (
        "the terminal game tells a player of %r Nim's rule: give rule() in controller/terminal.py a line for the "
        "family, then make catalogs and translate it (DEVELOPERS.md, 'Adding a game family')" % family)


def test_a_family_named_nowhere_else_is_said_to_be_missing_everywhere():
    class Lonely(Nim):
        family = "lonely"
    assert len(where_a_family_is_missing("lonely", Lonely)) == 5


def test_a_family_brute_force_does_not_know_is_said_so_not_played_as_moores():
    with pytest.raises(ValueError, match=r"^tests/brute.py knows no game family 'lonely': give legal_takes its moves"):
        brute.legal_takes({"family": "lonely", "rule": NORMAL}, (1, 2))


def test_variant_registry_and_specs_round_trip():
    assert find_variant("nim-k") is Moore
    assert find_variant(" Rosebush ") is Rosebushes
    for variant in VARIANTS:
        assert make_variant(variant.spec()) == variant
    with pytest.raises(ValueError, match="unknown game family 'chess'"):
        find_variant("chess")
    with pytest.raises(ValueError, match="k is 0"):
        Moore(k=0)
    with pytest.raises(ValueError, match="unknown rule 'sideways'"):
        Nim("sideways")


def test_positions_reject_negative_and_non_integer_heaps():
    with pytest.raises(InvalidPosition, match="heap 2 is -1"):
        Game(Nim(), (3, -1))
    with pytest.raises(InvalidPosition, match="heap 1 is 2.5"):
        Game(Nim(), (2.5,))


def test_game_push_pop_peek_and_outcome_in_both_rules():
    for rule, winner in ((NORMAL, 0), (MISERE, 1)):
        game = Game(Nim(rule), (1, 2))
        game.push(Move.parse("2:1"))
        assert game.position == (1, 1) and game.turn == 1 and game.outcome() is None
        game.push(Move.parse("1:1"))
        game.push(Move.parse("2:1"))
        assert game.position == (0, 0)
        assert game.outcome().winner == winner and game.outcome().last_mover == 0
        assert game.pop() == Move.parse("2:1") and game.peek() == Move.parse("1:1")
        assert game.position == (0, 1) and game.outcome() is None


def test_illegal_push_leaves_the_game_unchanged():
    game = Game(Subtraction(MISERE), (15,))
    game.push(Move.parse("1:2"))
    with pytest.raises(IllegalMove):
        game.push(Move.parse("1:4"))
    assert game.position == (13,) and len(game.stack) == 1


def test_empty_start_follows_the_misere_convention():
    assert Game(Nim(MISERE), (0, 0)).outcome().winner == 0
    assert Game(Nim(NORMAL), (0, 0)).outcome().winner == 1


def test_game_saves_to_a_dict_and_restores():
    game = Game(Moore(MISERE, k=2), (3, 4, 5))
    game.push(Move.parse("1:1,3:2"))
    game.push(Move.parse("2:4"))
    again = Game.from_dict(game.to_dict())
    assert again.position == game.position and again.stack == game.stack and again.variant == game.variant


def test_peek_on_a_game_with_no_moves_raises_index_error_as_python_chess_does():
    game = Game(Nim(), (1, 2))
    with pytest.raises(IndexError, match="no moves"):
        game.peek()
    game.push(Move.parse("2:2"))
    assert game.peek() == Move.parse("2:2")
    game.pop()
    with pytest.raises(IndexError):
        game.peek()


@pytest.mark.parametrize("make,name,message", [
    (lambda v: Subtraction(MISERE, v), "max_take", "max-take is %r: it must be 1 or more"),
    (lambda v: Moore(MISERE, v), "k", "k is %r: it must be 1 or more"),
    (lambda v: Rosebushes(MISERE, v), "k", "k is %r: it must be 1 or more"),
])
def test_families_with_a_parameter_share_one_base(make, name, message):
    from controller.core.rules import OneParameter
    variant = make(4)
    assert isinstance(variant, OneParameter) and getattr(variant, name) == 4
    assert variant.spec() == {"family": variant.family, "rule": MISERE, name: 4}
    assert repr(variant) == "%s(%s=4, rule='misere')" % (type(variant).__name__, name)
    assert "4" in variant.title and make_variant(variant.spec()) == variant
    for bad in (0, -1, "3", 2.0):
        with pytest.raises(ValueError) as error:
            make(bad)
        assert str(error.value) == message % (bad,)
    with pytest.raises(ValueError, match="unknown rule"):
        make(2).__class__("sideways", 2)
    assert Subtraction().title == "take 1 to 3 from one heap"
    assert Moore(k=3).title == "take any numbers from each of 1 to 3 heaps"
    assert Rosebushes().k == 2 and Rosebushes().title == "take one from each of 1 to 2 heaps"
