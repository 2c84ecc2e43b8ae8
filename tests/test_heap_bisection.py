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
