"""The Dr. Nim and Nimatron machines beyond the scenarios: settings, the
contract (time only through stamps, state as a plain dict), save and restore."""

import json
import re

import pytest

from conftest import ROOT
from controller.core.drnim import DrNim, route, start_setting
from controller.core.exhibit import ConfigError, UnknownEvent
from controller.core.saves import SaveError
from controller.core.nimatron import Nimatron
from controller.core.scenario import run

SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*.txt"))


def through_json(machine):
    return type(machine).from_dict(json.loads(json.dumps(machine.to_dict())))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_saving_and_restoring_after_every_event_changes_nothing(path):
    text = path.read_text()
    straight = run(text)
    restored = run(text, reload=through_json)
    assert restored.failures == []
    assert restored.trace == straight.trace


@pytest.mark.parametrize("machine,config,words", [
    (DrNim, {"marbles": 16}, "marbles: must be 1 to 15"),
    (DrNim, {"marbles": 20, "capacity": 24}, None),
    (DrNim, {"rule": "sometimes"}, "rule: 'sometimes' is not one of last-loses, last-wins"),
    (DrNim, {"flip_flops": "RRX"}, "flip_flops: 'RRX' is not auto or three of L and R"),
    (DrNim, {"equalizer": "yes"}, "equalizer: must be true or false"),
    (DrNim, {"pace_ms": -5}, "pace_ms: must be a whole number from 50 to 86400000, not -5"),
    (DrNim, {"colour": "red"}, "colour: unknown setting (known: attract_after_game_ms"),
    (DrNim, {"decide": "strategy", "opponent": "nimx"}, "opponent: nimx plays only nim and moore games"),
    (DrNim, {"decide": "strategy", "opponent": "hal"}, "opponent: unknown opponent 'hal'"),
    (Nimatron, {"openings": [[1, 2, 3]]}, "openings: opening 1 [1, 2, 3] must be 4 rows of 0 to 7 lamps"),
    (Nimatron, {"openings": [[1, 2, 3, 9]]}, "must be 4 rows of 0 to 7 lamps"),
    (Nimatron, {"openings": [[1, -2, 3, 4]]}, "openings: opening 1: heap 2 is -2"),
    (Nimatron, {"rows": 0}, "rows: must be a whole number from 1 to 16, not 0"),
    (Nimatron, {"opponent": "sinclair"}, "opponent: sinclair plays only one pile"),
])
def test_settings_are_checked_with_one_line_naming_the_setting(machine, config, words):
    if words is None:
        assert machine(config).rail == 20
        return
    with pytest.raises(ConfigError, match=re.escape(words)) as error:
        machine(config)
    assert "\n" not in str(error.value)


def test_unknown_events_and_controls_are_refused():
    machine = DrNim()
    with pytest.raises(UnknownEvent):
        machine.handle(("smell", "smoke"), 0)
    with pytest.raises(UnknownEvent):
        machine.handle(("press", "self_destruct"), 0)
    with pytest.raises(UnknownEvent):
        Nimatron().handle(("press", "row9"), 0)


def test_the_machine_reads_no_clock_time_comes_only_with_events():
    a, b = DrNim(), DrNim()
    for machine in (a, b):
        machine.handle(("power",), 0)
        machine.handle(("switch", "turn", "machine"), 100)
    first = a.handle(("press", "trigger"), 200)
    second = b.handle(("press", "trigger"), 200)
    assert first == second == [("release",)]
    assert a.next_deadline() == 200 + a.config["release_timeout_ms"]


def test_after_a_restart_timers_keep_the_time_they_had_left():
    """The shell's clock starts again after a power cut: a restored machine
    moves its timers so each keeps its time left, and resends every output."""
    machine = DrNim({"pace_ms": 900})
    machine.handle(("power",), 0)
    machine.handle(("switch", "turn", "machine"), 10)
    machine.handle(("press", "trigger"), 20)
    machine.handle(("marble",), 300)          # leaves 14 with the equalizer on: stop
    machine = DrNim({"pace_ms": 900, "equalizer": False})
    machine.handle(("power",), 0)
    machine.handle(("switch", "turn", "machine"), 10)
    machine.handle(("press", "trigger"), 20)
    machine.handle(("marble",), 300)          # continue: next release due at 1200
    assert machine.next_deadline() == 1200
    saved = json.loads(json.dumps(machine.to_dict()))
    again = DrNim.from_dict(saved)
    commands = again.handle(("power",), 5)    # the new process's clock reads 5 ms
    assert again.next_deadline() == 905
    assert ("turn", "left") in commands and ("flip_flop", 1, "left") in commands
    assert again.handle(("tick",), 904) == []
    assert again.handle(("tick",), 905) == [("release",)]


def test_from_dict_refuses_another_machines_state():
    with pytest.raises(SaveError, match="machine: the saved game is for .nimatron., not drnim"):
        DrNim.from_dict(Nimatron().to_dict())


@pytest.mark.parametrize("rule", ["misere", "normal"])
def test_start_settings_make_the_marble_logic_play_perfectly(rule):
    """Exhaustively, N = 1..15, equalizer off: with the derived setting, each
    marble is STOP exactly when it leaves (n - t) mod 4 in {0, 3}."""
    t = 1 if rule == "misere" else 0
    for marbles in range(1, 16):
        flip_flops = start_setting(marbles, rule)
        for taken in range(1, marbles + 1):
            flip_flops, _, carry_on = route(flip_flops, False, True)
            left = marbles - taken
            assert carry_on == ((left - t) % 4 in (1, 2)), (marbles, taken)


def test_a_perfect_visitor_wins_the_standard_game_from_either_seat_only_with_the_equalizer():
    """R14 over every line of play: with the equalizer a perfect visitor wins
    from either seat; without it, only moving first."""
    from controller.core.rules import MISERE, Subtraction
    from controller.core import solve

    def visitor_wins(equalizer, visitor_first):
        machine = DrNim({"equalizer": equalizer})
        now = 0
        machine.handle(("power",), now)
        variant = Subtraction(MISERE)
        first_turn = True
        while machine.state["mode"] == "play":
            if first_turn and not visitor_first:
                take = 0
            else:
                move = solve.winning_move(variant, (machine.rail,))
                take = move.total if move else 1
            first_turn = False
            for _ in range(take):
                now += 500
                machine.handle(("press", "trigger"), now)
                now += 300
                machine.handle(("marble",), now)
            if machine.state["mode"] != "play":
                break
            now += 100
            machine.handle(("switch", "turn", "machine"), now)
            now += 100
            commands = machine.handle(("press", "trigger"), now)
            while ("release",) in commands:
                now += 300
                commands = machine.handle(("marble",), now)
                if machine.next_deadline() is not None and "machine" in machine.state["timers"]:
                    now = machine.next_deadline()
                    commands = machine.handle(("tick",), now)
        return machine.state["winner"] == "player"

    assert visitor_wins(True, True) and visitor_wins(True, False)
    assert visitor_wins(False, True) and not visitor_wins(False, False)


@pytest.mark.parametrize("cls", [DrNim, Nimatron])
def test_the_longest_game_saves_in_the_512_bytes_littlefs_keeps_in_its_directory(cls):
    """A board's LittleFS keeps a file of at most 512 bytes inside the directory's
    own block: such a save costs a few hundred bytes of a block already being
    written, not a block of its own (erased each time). The longest game of the
    default settings (one marble or lamp a turn, on a clock of two weeks) fits."""
    machine = cls({})
    machine.handle(("power",), 14 * 24 * 3600 * 1000)
    if cls is DrNim:
        turns = [[("player", "machine")[i % 2], 1] for i in range(machine.config["marbles"])]
    else:
        turns = [[("player", "machine")[i % 2], "%d:1" % (1 + i % 4)] for i in range(sum(machine.state["start"]))]
    machine.state["turns"] = turns
    saved = machine.to_save()
    assert len(json.dumps(saved, separators=(",", ":"))) <= 512


def test_the_working_says_what_a_mis_set_dr_nim_drops_while_its_turn_runs():
    """R19: a mis-set machine plays mechanically, and the working follows its
    marbles, not the theory: 13 marbles set as for 12 leave Dr. Nim losing
    (q = 0) with flip-flops that drop 3. The working said 3 before the
    trigger, then 'this turn Dr. Nim takes 1' while it took 3."""
    def working():
        return dict((line[1], line[2]) for line in machine.explain())

    machine = DrNim({"marbles": 13, "flip_flops": "LRR", "equalizer": False})
    machine.handle(("switch", "turn", "machine"), 10)
    assert working()["w_handed"] == {"take": 3}
    machine.handle(("press", "trigger"), 20)
    now, running = 320, []
    while machine.running:
        running.append(working()["w_this_turn"]["take"])
        machine.handle(("marble",), now)
        if machine.running:
            now = machine.next_deadline()
            machine.handle(("tick",), now)
        now += 300
    assert machine.rail == 10
    assert running == [3, 3, 3]


def test_the_working_blames_the_equalizer_only_when_it_is_armed():
    """A mis-set machine (R19) with the equalizer off takes 1 where the theory
    says 2: the working said 'the equalizer's misplay' under a spent equalizer."""
    forecast = DrNim({"flip_flops": "LLL", "equalizer": False}).explain()[-1]
    assert forecast == ("head", "w_if_handed", {"take": 1})
    assert DrNim({"equalizer": True}).explain()[-1] == ("head", "w_if_handed_misplay", {"take": 1})
