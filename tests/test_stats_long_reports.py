"""A museum's manager asks `controller stats` for a year or two of games while the exhibit is open:
the report must not keep the service from recording the games that end meanwhile. Two years of a
busy exhibit (bench/stats_two_years.py) are some 215,000 games, which a Pi 3 takes seconds to read;
here a few hundred games are read with each step of SQLite made slow, as on that Pi."""

import io
import threading
import time

import pytest

from controller.cli import main
from controller.service import stats
from controller.service.stats import Statistics, summary
from service_rig import write_config

# 2025-03-01 12:00 UTC and one game a minute after it
MARCH = 1740830400.0


def played(path, games):
    clock = [MARCH]
    writer = Statistics(path, clock=lambda: clock[0])
    for n in range(games):
        clock[0] = MARCH + 60 * n
        writer.game("drnim", "player" if n % 2 else "machine", 90)
    assert writer.flush()
    writer.close()


@pytest.mark.parametrize("csv", [[], ["--csv"]])
def test_a_game_that_ends_while_a_long_report_is_read_is_recorded(tmp_path, monkeypatch, csv):
    """Found measuring two years of games: `controller stats` read the whole period in one go, holding
    the file all that time, and the service's write of a game that ended meanwhile, which waits for a
    reader LOCK_WAIT_S (2 s), was given up: the game was lost and `controller status` showed a
    statistics fault. A Pi 3 reads two years in some seconds. Now a report reads a window of the file at
    a time, and the write waits for one window at most."""
    config = str(write_config(tmp_path))
    (tmp_path / "state").mkdir()
    path = str(tmp_path / "state" / "stats.sqlite")
    played(path, 500)
    monkeypatch.setattr(stats, "LOCK_WAIT_S", 0.15)
    monkeypatch.setattr(stats, "WINDOW", 25, raising=False)
    reading = stats.reading
    started, steps = threading.Event(), []

    def slow_reading(path):
        """The report's reading, each few steps of SQLite slowed, as a Pi 3 is slower than this computer."""
        db = reading(path)

        def slowly():
            steps.append(1)
            if len(steps) == 30:        # well into the games, past the reading of the file's schema
                started.set()
            time.sleep(0.001)
            return 0
        db.set_progress_handler(slowly, 20)
        return db
    monkeypatch.setattr(stats, "reading", slow_reading)
    out = io.StringIO()
    report = threading.Thread(target=main, args=(["stats", "--config", config, "--period", "2025-03"] + csv, out))
    report.start()
    assert started.wait(10)
    service = Statistics(path, clock=lambda: MARCH + 60 * 500)
    service.game("drnim", "player", 60)
    assert service.flush()
    service.close()
    report.join(30)
    assert service.problem is None
    monkeypatch.setattr(stats, "reading", reading)
    assert summary(path)["games"] == 501
    said = out.getvalue()
    assert ("Games: 500 " in said) if not csv else sum(int(row.split(",")[4]) for row in said.splitlines()[1:]) == 500
