"""The named historic games: their start positions, rules and first movers."""

import re

import pytest

from conftest import ROOT
from controller.core import solve
from controller.core.presets import PRESETS, PresetError, find_preset
from controller.core.rng import Random


def test_the_readme_lists_every_game_play_and_solve_take():
    """A row '| `name` | ...' (or '| `one`, `other` | ...') each in README.md's table of games."""
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("### Games"):readme.index("### Opponents")]
    listed = [name for row in re.findall(r"^\| (`[^|]+`) \|", table, re.M) for name in re.findall(r"`([^`]+)`", row)]
    names = [preset.name for preset in PRESETS]
    missing = [name for name in names if name not in listed]
    gone = [name for name in listed if name not in names]
    assert not missing, "README.md's table of games has no row for %s: give it one (DEVELOPERS.md, 'Adding a " \
        "named game')" % ", ".join(missing)
    assert not gone, "README.md's table of games has a row for %s, which presets.PRESETS does not have" % (
        ", ".join(gone))


@pytest.mark.parametrize("name,heaps,rule,first,opponent", [
    ("drnim", (15,), "misere", "you", "perfect"),
    ("marienbad", (1, 3, 5, 7), "misere", "you", "perfect"),
    ("nimx", (3, 3, 4, 5), "normal", "random", "nimx"),
    ("praxis", (25, 32, 19, 4, 17), "normal", "you", "praxis"),
])
def test_fixed_start_presets(name, heaps, rule, first, opponent):
    preset = find_preset(name)
    assert preset.start() == heaps
    assert preset.variant().rule == rule
    assert (preset.first, preset.opponent) == (first, opponent)


def test_drnim_is_take_one_to_three_and_offers_last_marble_wins():
    preset = find_preset("drnim")
    assert preset.variant().max_take == 3
    assert preset.variant("normal").rule == "normal"
    assert preset.variant(max_take=4).max_take == 4


def test_sinclair_asks_for_the_sticks_and_moves_first():
    preset = find_preset("sinclair")
    assert preset.first == "machine" and preset.opponent == "sinclair"
    assert preset.start([21]) == (21,)
    with pytest.raises(PresetError, match="how many matchsticks"):
        preset.start()
    with pytest.raises(PresetError, match="one pile of matchsticks"):
        preset.start([3, 4])
    with pytest.raises(PresetError, match="sinclair is played misere only, not normal"):
        preset.variant("normal")


def test_nimatron_openings_fit_the_lamps_and_let_a_good_visitor_win():
    preset = find_preset("nimatron")
    variant = preset.variant()
    assert variant.rule == "normal" and preset.first == "you"
    assert len(preset.openings) == 12
    for opening in preset.openings:
        assert len(opening) == 4 and max(opening) <= 7
        assert solve.mover_wins(variant, opening), opening
    starts = {preset.start(None, Random(seed)) for seed in range(100)}
    assert starts == set(preset.openings)
    assert preset.start([7, 7, 7, 7]) == (7, 7, 7, 7)
    with pytest.raises(PresetError, match="4 rows of at most 7 lamps: 8 1 does not fit"):
        preset.start([8, 1])
    assert preset.variant("misere").misere


def test_applet_deals_four_to_six_piles_of_one_to_nine():
    preset = find_preset("applet")
    deals = [preset.start(None, Random(seed)) for seed in range(300)]
    assert {len(d) for d in deals} == {4, 5, 6}
    assert {h for d in deals for h in d} == set(range(1, 10))
    assert deals[0] == preset.start(None, Random(0))


def test_moore_and_rosebushes_take_k_and_need_heaps():
    assert find_preset("moore").variant(k=3).k == 3
    assert find_preset("rosebushes").variant().k == 2
    with pytest.raises(PresetError, match="needs its heaps"):
        find_preset("moore").start()
    with pytest.raises(PresetError, match="drnim has no k"):
        find_preset("drnim").variant(k=2)
    with pytest.raises(PresetError, match="unknown game 'go'"):
        find_preset("go")
