"""The core is the same on both runtimes: its files compile with mpy-cross, its
test vectors give the same decoded results under CPython and the real
MicroPython interpreter, and a whole Dr. Nim game runs in a small heap."""

import ast
import json
import shutil
import subprocess
import sys

import pytest

import brute
from conftest import ROOT, needed_tool, run_micropython
from controller.core import solve
from controller.core.presets import find_preset
from controller.core.registry import NAMES
from controller.core.families import make_variant
from controller.core.rules import Game, Move

CORE = sorted((ROOT / "controller" / "core").glob("*.py"))
VECTORS = ROOT / "tests" / "vectors" / "core.json"
RUNNER = ROOT / "tests" / "mpy" / "vectors.py"


@pytest.fixture(scope="module")
def cpython_results():
    result = subprocess.run([sys.executable, str(RUNNER), str(VECTORS)], cwd=ROOT, capture_output=True,
                            text=True, timeout=300, env={"PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def mpy_cross():
    return needed_tool("mpy-cross")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """(the folder, {source: mpy-cross's run}): each core file and controller/__init__.py compiled once
    for the file's tests, each .mpy where MicroPython imports it from (controller/core/NAME.mpy)."""
    folder = tmp_path_factory.mktemp("compiled")
    runs = {}
    for path in CORE + [ROOT / "controller" / "__init__.py"]:
        target = folder / path.relative_to(ROOT).with_suffix(".mpy")
        target.parent.mkdir(parents=True, exist_ok=True)
        runs[path] = subprocess.run([mpy_cross(), "-o", str(target), str(path)], capture_output=True, text=True)
    return folder, runs


@pytest.mark.parametrize("path", CORE + [ROOT / "controller" / "__init__.py"], ids=lambda p: p.name)
def test_core_file_compiles_with_mpy_cross(path, compiled):
    result = compiled[1][path]
    assert result.returncode == 0, "%s is not MicroPython: %s(docs/design.md §3 says what MicroPython lacks)" % (
        path.name, result.stderr)


def outside_imports(name, source):
    """Each import of a core module's source that reaches outside the core, said with its line and what to do."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = ", ".join(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level != 1:
            names = node.module
        else:
            continue
        found.append("%s:%d imports %s: the core imports only its own modules, relatively (`from .rng import "
                     "Random`), with no clock, files, GPIO, random, typing, enum, dataclasses, functools, abc or "
                     "itertools (DEVELOPERS.md, 'Rules for the core')" % (name, node.lineno, names))
    return found


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_core_imports_nothing_outside_the_core(path):
    """No clock, files, GPIO or CPython-only modules: only the core's own modules."""
    found = outside_imports(path.name, path.read_text())
    assert not found, "\n".join(found)


def test_an_import_from_outside_the_core_is_said_with_its_line_and_the_way_in():
    source = "from .rules import Move\nfrom functools import reduce\nfrom controller.core.rng import Random\n"
    assert [line.split(": the core")[0] for line in outside_imports("solve_x.py", source)] == [
        "solve_x.py:2 imports functools", "solve_x.py:3 imports controller.core.rng"]
    assert "relatively (`from .rng import Random`)" in outside_imports("solve_x.py", "import time\n")[0]


def first_difference(micro, cpython):
    """Where MicroPython's results first differ from CPython's, for the message."""
    for mine, theirs in zip(micro, cpython):
        if mine != theirs:
            return "MicroPython gives %s where CPython gives %s" % (json.dumps(mine), json.dumps(theirs))
    return "the results differ in number: MicroPython %d, CPython %d" % (len(micro), len(cpython))


def test_vectors_give_identical_results_under_micropython(micropython, cpython_results):
    result = run_micropython(micropython, str(RUNNER), str(VECTORS))
    assert result.returncode == 0, result.stderr
    micro = json.loads(result.stdout)
    assert micro.keys() == cpython_results.keys()
    for key in cpython_results:
        assert micro[key] == cpython_results[key], (
            "%s: %s. The core gives the same results on both runtimes: no floats (a board's are single precision), "
            "and decoded data compared, never dict order (DEVELOPERS.md, 'Rules for the core')"
            % (key, first_difference(micro[key], cpython_results[key])))


def test_the_first_difference_between_the_runtimes_is_the_one_said():
    assert first_difference([1, {"a": 2}, 3], [1, {"a": 2.0001}, 4]) == (
        'MicroPython gives {"a": 2} where CPython gives {"a": 2.0001}')
    assert first_difference([1], [1, 2]) == "the results differ in number: MicroPython 1, CPython 2"


def test_vector_results_are_right(cpython_results):
    data = json.loads(VECTORS.read_text())
    assert len(cpython_results["solved"]) > 1000
    for entry in cpython_results["solved"]:
        spec, position = entry["variant"], tuple(entry["position"])
        variant = make_variant(spec)
        if max(position) <= 6:
            assert entry["mover_wins"] == brute.mover_wins(spec, position), entry
            expected = sorted(str(Move(t)) for t in brute.winning_takes(spec, position))
            assert entry["winning_moves"] == expected, entry
        else:
            assert entry["mover_wins"] == bool(entry["winning_moves"])
            for text in entry["winning_moves"]:
                assert not solve.mover_wins(variant, variant.apply(position, Move.parse(text)))
        assert entry["winning_move_count"] == len(entry["winning_moves"]), entry
    assert cpython_results["counts"] == [27670116110564327416] + [
        len(list(solve.winning_moves(make_variant(case["variant"]), tuple(case["heaps"])))) for case in data["counts"][1:]]
    assert [m[1] for m in cpython_results["moves"]] == ["2:3", "1:1,3:2", "4:10", "1:1,3:2"]
    assert all(message.startswith("illegal move '") for message in cpython_results["illegal"])
    for played, case in zip(cpython_results["games"], data["games"]):
        assert played["case"] == case
        variant = find_preset(case["preset"]).variant(None, case.get("k"), None)
        game = Game(variant, played["start"])
        for text in played["moves"]:
            game.push(Move.parse(text))
        assert game.is_over() and game.outcome().winner == played["winner"]


def test_a_drnim_game_runs_in_a_128k_heap_from_compiled_files(micropython, compiled, tmp_path):
    """The core as test_core_file_compiles_with_mpy_cross compiled it, and the game's own file."""
    folder, runs = compiled
    for path, run in runs.items():
        run.check_returncode()
    shutil.copytree(folder, tmp_path, dirs_exist_ok=True)
    subprocess.run([mpy_cross(), "-o", str(tmp_path / "drnim_game.mpy"), str(ROOT / "tests" / "mpy" / "drnim_game.py")],
                   check=True)
    result = subprocess.run([micropython, "-X", "heapsize=128k", "-m", "drnim_game", "7"], cwd=tmp_path,
                            env={"MICROPYPATH": ".frozen:" + str(tmp_path)}, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    moves, winner = result.stdout.split(" winner ")
    assert sum(int(m.split(":")[1]) for m in moves.split()) == 15


@pytest.mark.parametrize("machine,settings,needs,spares", [
    ("drnim", {}, {"drnim", "exhibit"}, {"rules", "players", "solve", "presets", "values", "working", "saves"}),
    ("drnim", {"decide": "strategy", "opponent": "fallible:0.2"}, {"drnim", "players", "solve"}, {"presets"}),
    ("nimatron", {}, {"nimatron", "players", "solve_nim"}, {"presets", "working", "saves", "search", "solve_moore", "values", "families", "record",
                                                          "historic_players"}),
])
def test_a_machine_loads_only_what_its_settings_use(micropython, machine, settings, needs, spares):
    """A board's heap holds the code its game needs: historic Dr. Nim plays
    without the rules, the solver or any opponent."""
    loaded = run_micropython(micropython, str(ROOT / "tests" / "mpy" / "loaded.py"), machine, json.dumps(settings))
    assert loaded.returncode == 0, loaded.stderr
    modules = set(loaded.stdout.split())
    assert needs <= modules, "a %s board with %s did not load %s: if a module was renamed, rename it in `needs` " \
        "here" % (machine, settings, ", ".join(sorted(needs - modules)))
    assert not spares & modules, (
        "a %s board with %s loads %s, which its game never needs: import it inside the function that needs it, or "
        "by name from a registry's table (players.HISTORIC, solve.FAMILIES), so that a board's heap holds only "
        "what it plays (DEVELOPERS.md, 'Layers')" % (machine, settings, ", ".join(sorted(spares & modules))))


@pytest.mark.parametrize("machine", NAMES)
def test_complete_games_through_the_machines_match_on_both_runtimes(micropython, machine):
    script = str(ROOT / "tests" / "mpy" / "machine_game.py")
    cpython = subprocess.run([sys.executable, script, machine], cwd=ROOT, capture_output=True, text=True,
                             env={"PYTHONPATH": str(ROOT)}, timeout=60)
    micro = run_micropython(micropython, script, machine)
    assert cpython.returncode == 0 and micro.returncode == 0, cpython.stderr + micro.stderr
    assert micro.stdout == cpython.stdout and " winner machine " in cpython.stdout
