"""A small sample of bench/fuzz.py (a few hundred inputs; the script runs
100,000): damaged configurations, pin maps, scripts and saved games give the
documented one-line error or play on, never a traceback, a hang or an
impossible game."""

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import fuzz  # noqa: E402


def test_a_sample_of_damaged_inputs_finds_nothing():
    lines = []
    results = fuzz.fuzz(400, seed=2026, report=lines.append)
    assert set(results) == set(target.name for target in fuzz.TARGETS)
    assert all(tried > 0 for tried, _, _ in results.values())
    assert sum(failed for _, failed, _ in results.values()) == 0, "\n".join(lines)


def test_the_fuzz_counts_a_traceback_a_hang_and_a_two_line_message_as_failures(monkeypatch):
    def run(case):
        if case == b"traceback":
            raise TypeError("not a documented error")
        if case == b"hang":
            while True:
                pass
        if case == b"two lines":
            raise ValueError("one\ntwo")
        raise ValueError("refused, as documented")
    cases = iter([b"traceback", b"hang", b"two lines", b"fine"])
    target = fuzz.Target("made up", lambda: [""], run, (ValueError,), mutate=lambda rng, seed: next(cases),
                         limit_s=0.2)
    monkeypatch.setattr(fuzz, "TARGETS", [target])
    tried, failed, problems = fuzz.fuzz(4, report=lambda line: None)["made up"]
    assert (tried, failed) == (4, 3)
    assert sorted(problem.split(":")[0] for problem in problems) == ["ValueError with a message on more than one line",
                                                                     "hang", "traceback"]


def test_a_sample_of_a_strangers_fleet_payloads_never_crashes_the_follower():
    """bench/fuzz.py's fleet target: payloads a stranger on the museum's broker may publish (JSON's
    Infinity and NaN, numbers beyond 64 bits, lone surrogates, escape sequences, fat or missing
    fields): each is kept or ignored with one line, and the table and the stats print nothing a
    terminal acts on."""
    lines = []
    tried, failed, problems = fuzz.fuzz(1500, seed=26, only="fleet payload", report=lines.append)["fleet payload"]
    assert tried == 1500 and failed == 0, "\n".join(lines)
    accepted = int(lines[0].split("(")[1].split()[0])
    assert 50 < accepted < 1450, "some payloads kept, most ignored: " + lines[0]
