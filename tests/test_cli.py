"""The controller command: solve and play, and its one-line errors."""

import io
import json
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from controller.cli import main


def run(*argv, lines=()):
    out = io.StringIO()
    feed = iter(lines)

    def read_line(prompt):
        out.write(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError

    code = main(list(argv), out=out, read_line=read_line)
    return code, out.getvalue()


def command(*argv, stdin=""):
    return subprocess.run([sys.executable, "-m", "controller", *argv], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


def test_solve_prints_the_winner_and_every_winning_move_in_words():
    code, text = run("solve", "nim", "3", "4", "5")
    assert code == 0
    assert "The player to move wins with 1 winning move" in text
    assert "1:2" in text and "take 2 from heap 1, leaving (1, 4, 5)" in text


def test_solve_says_when_the_mover_loses():
    code, text = run("solve", "drnim", "13")
    assert code == 0 and "The player to move loses" in text


def test_solve_json_has_the_documented_keys():
    code, text = run("solve", "moore", "3", "4", "5", "--k", "2", "--json")
    data = json.loads(text)
    assert code == 0
    assert data["game"] == "moore" and data["rule"] == "normal" and data["position"] == [3, 4, 5]
    assert data["mover_wins"] is True
    assert data["winning_moves"] == [{"move": "2:1,3:2", "leaves": [3, 3, 3]}]


def test_solve_rule_flags_and_presets_defaults():
    assert json.loads(run("solve", "drnim", "--json")[1])["winning_moves"] == [{"move": "1:2", "leaves": [13]}]
    normal = json.loads(run("solve", "drnim", "--normal", "--json")[1])
    assert normal["rule"] == "normal" and normal["winning_moves"] == [{"move": "1:3", "leaves": [12]}]
    misere = json.loads(run("solve", "nim", "1", "1", "6", "--misere", "--json")[1])
    assert [m["move"] for m in misere["winning_moves"]] == ["3:5"]


def test_solve_limits_astronomical_lists_and_says_so():
    code, text = run("solve", "moore", *[str(2**62 - 1)] * 4, "--k", "2", "--limit", "5")
    assert code == 0 and "more than 5 winning moves" in text and "raise --limit" in text
    data = json.loads(run("solve", "moore", "9", "9", "9", "9", "--k", "2", "--json", "--limit", "3")[1])
    assert data["complete"] is False and len(data["winning_moves"]) == 3


@pytest.mark.parametrize("argv,words", [
    (["solve", "nim", "3", "-4"], "HEAPS: heap 2 is '-4'"),
    (["solve", "nim", "3", "x"], "HEAPS: heap 2 is 'x'"),
    (["solve", "chess"], "GAME: unknown game 'chess'"),
    (["solve", "moore", "3", "--k", "0"], "argument --k: must be a whole number, 1 or more, not '0'"),
    (["solve", "nimx", "--misere"], "--misere: nimx is played normal only"),
    (["solve", "sinclair", "9", "--normal"], "--normal: sinclair is played misere only"),
    (["solve", "nim", "3", "--k", "2"], "--k: nim has no k"),
    (["solve", "nim", "3", "--max-take", "2"], "--max-take: nim has no maximum take"),
    (["solve", "moore"], "HEAPS: moore needs its heaps"),
    (["play", "drnim", "--opponent", "hal"], "--opponent: unknown opponent 'hal'"),
    (["play", "drnim", "--opponent", "nimx"], "--opponent: nimx plays only nim and moore games"),
    (["play", "drnim", "--first", "later"], "argument --first: invalid choice: 'later'"),
    (["solve", "nim", "3", "--method", "ip", "--misere"], "--method ip"),
])
def test_bad_arguments_get_one_line_and_exit_2(argv, words):
    result = command(*argv)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and words in result.stderr
    assert "Traceback" not in result.stderr


def test_play_drnim_against_perfect_to_a_win():
    code, text = run("play", "drnim", "--seed", "1", "--first", "you", lines=["2", "3", "3", "3"])
    assert code == 0
    assert text.count("The machine (perfect) takes 1 from heap 1.") == 4
    assert text.rstrip().endswith("You win!")


def test_a_bad_move_is_refused_with_a_reason_and_asked_again():
    code, text = run("play", "drnim", "--seed", "1", "--first", "you", lines=["5", "2:1", "three", "2", "3", "3", "3"])
    assert code == 0
    assert "illegal move '1:5' in (15): take at most 3" in text
    assert "illegal move '2:1' in (15): there is no heap 2" in text
    assert "'three' is not a move" in text
    assert text.rstrip().endswith("You win!")


def test_the_machine_wins_when_you_go_wrong():
    code, text = run("play", "marienbad", "--seed", "4", lines=["4:1", "4:1", "4:1", "4:1", "4:1", "4:1", "4:1",
                                                              "3:1", "3:1", "3:1", "3:1", "3:1", "2:1", "2:1",
                                                              "2:1", "1:1"])
    assert code == 0 and text.rstrip().endswith("The machine wins.")


def test_sinclair_asks_for_the_matchsticks_and_the_calculator_starts():
    code, text = run("play", "sinclair", "--seed", "1", lines=["lots", "23", "1", "1", "1", "1", "1", "1"])
    assert code == 0
    assert text.count("How many matchsticks?") == 2
    first_reply = text.index("The machine (sinclair) takes 2 from heap 1.")
    assert first_reply < text.index("How many do you take?")
    assert text.rstrip().endswith("The machine wins.")


def test_the_same_seed_gives_the_same_game():
    lines = ["1:1"] * 30
    one = run("play", "nimx", "--seed", "99", lines=lines)
    two = run("play", "nimx", "--seed", "99", lines=lines)
    assert one == two and "(seed 99)" in one[1]


def test_end_of_input_ends_the_game_cleanly():
    result = command("play", "drnim", stdin="2\n")
    assert result.returncode == 0 and "Game abandoned: end of input." in result.stdout
    assert result.stderr == ""


def test_ctrl_c_ends_the_game_cleanly():
    process = subprocess.Popen([sys.executable, "-m", "controller", "play", "drnim"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert "How many do you take?" in process.stdout.read(1) + _read_until(process, "take? ")
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130
    assert "Game abandoned." in stdout and "Traceback" not in stderr


def _read_until(process, end):
    seen = ""
    deadline = time.monotonic() + 60
    while not seen.endswith(end) and time.monotonic() < deadline:
        seen += process.stdout.read(1)
    return seen


def test_solve_by_integer_programme():
    pytest.importorskip("highspy")
    code, text = run("solve", "nim", "3", "4", "5", "--method", "ip")
    assert code == 0 and "integer programme's move" in text and "take 2 from heap 1, leaving (1, 4, 5)" in text
    code, text = run("solve", "nim", "1", "3", "5", "7", "--method", "ip")
    assert "already safe" in text and "loses" in text
    data = json.loads(run("solve", "moore", "3", "4", "5", "--k", "2", "--method", "ip", "--json")[1])
    assert data["mover_wins"] and data["winning_moves"] == [{"move": "2:1,3:2", "leaves": [3, 3, 3]}]
    result = command("solve", "nim", str(2**60), "3", "--method", "ip")
    assert result.returncode == 2 and result.stderr.startswith("controller: --method ip: heap sizes must be")
