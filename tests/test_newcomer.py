"""A newcomer's mistakes at `controller play` and `controller solve`: each is one line on
stderr that names the argument at fault, said before the game asks anything."""

import pytest

from test_cli import command


@pytest.mark.parametrize("argv,line", [
    (["solve", "marienbad", "--normal", "--k", "2"], "--normal: marienbad is played misere only, not normal"),
    (["solve", "sinclair", "9", "--normal", "--max-take", "2"], "--normal: sinclair is played misere only, not normal"),
    (["solve", "moore", "3", "4", "--k", "2", "--max-take", "2"],
     "--max-take: moore has no maximum take (it is not a subtraction game)"),
])
def test_the_option_at_fault_is_the_one_named(argv, line):
    result = command(*argv)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", "controller: %s\n" % line)


@pytest.mark.parametrize("option,line", [
    (["--normal"], "--normal: sinclair is played misere only, not normal"),
    (["--k", "2"], "--k: sinclair has no k (it is not a Moore or Rosebushes game)"),
    (["--opponent", "nimx"], "--opponent: nimx plays only nim and moore games, not subtraction"),
    (["--opponent", "hal"], "--opponent: unknown opponent 'hal'"),
])
def test_sinclair_refuses_a_wrong_option_before_asking_for_the_matchsticks(option, line):
    result = command("play", "sinclair", *option, stdin="9\n")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("controller: " + line) and result.stderr.count("\n") == 1


def test_a_heap_too_long_to_read_says_so():
    result = command("solve", "nim", "3", "1" * 101)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "controller: HEAPS: heap 2 has 101 digits: a heap has at most 100\n"


@pytest.mark.parametrize("argv,line", [
    (["solve", "drnim", "--seed", "5"], "--seed: drnim has no random start to draw (nimatron and applet have)"),
    (["solve", "applet", "3", "4", "--seed", "5"], "--seed: the heaps are given, so there is nothing to draw"),
])
def test_solve_refuses_a_seed_it_would_ignore(argv, line):
    result = command(*argv)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", "controller: %s\n" % line)
