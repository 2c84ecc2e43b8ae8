"""A curator follows a museum's exhibits with `controller fleet` for years, and asks `controller fleet
stats` for a year or two of games: 20 busy exhibits' two years are some 4.3 million games (bench/
stats_two_years.py --fleet). The report must not stop the live follower that keeps the games meanwhile,
nor take memory in proportion to the games. Here a few hundred games show each."""

import io
import sqlite3
import threading
import time
import tracemalloc

import pytest

from controller.cli import main
from controller.telemetry import fleet
from controller.telemetry.fleet import FleetStore

# 2025-03-01 12:00 UTC and one game a minute after it
MARCH = 1740830400.0


def kept(path, games, exhibit="hall-1"):
    store = FleetStore(path)
    for n in range(games):
        store.game({"exhibit": exhibit, "id": "%s/%d" % (exhibit, n), "machine": "drnim",
                    "winner": "player" if n % 2 else "machine", "turns": 7, "duration_s": 90, "ended": MARCH + 60 * n})
    store.commit()
    store.close()


@pytest.mark.parametrize("csv", [[], ["--csv"]])
def test_the_live_follower_keeps_the_games_that_come_while_a_long_report_is_read(tmp_path, monkeypatch, csv):
    """Found measuring two years of 20 exhibits: `controller fleet stats` held the store for its whole
    read (6 s here, --csv 10 s; a Pi ten times that), and the live follower's commit of the games that came
    meanwhile waited 5 s for it, then stopped the live table ("the store cannot keep what comes"). Here the
    report's reading is slowed as on a Pi, and the follower waits a tenth of a second."""
    path = str(tmp_path / "fleet.sqlite")
    kept(path, 500)
    monkeypatch.setattr(fleet, "WAIT_S", 0.1)
    follower = FleetStore(path)
    connect = sqlite3.connect
    started, steps = threading.Event(), []

    def slow_connect(*args, **kwargs):
        """The report's store, each few steps of SQLite slowed, as a Pi 3 is slower than this computer."""
        db = connect(*args, **kwargs)

        def slowly():
            steps.append(1)
            if len(steps) == 30:
                started.set()
            time.sleep(0.001)
            return 0
        db.set_progress_handler(slowly, 20)
        return db
    monkeypatch.setattr(fleet.sqlite3, "connect", slow_connect)
    out = io.StringIO()
    report = threading.Thread(target=main, args=(["fleet", "stats", "--offline", "--db", path,
                                                  "--period", "2025-03"] + csv, out))
    report.start()
    assert started.wait(10)
    follower.game({"exhibit": "hall-1", "id": "hall-1/new", "machine": "drnim", "winner": "player", "turns": 7,
                   "duration_s": 60, "ended": MARCH + 60 * 500})
    follower.commit()
    assert report.is_alive()        # the commit did not wait for the report's end
    report.join(30)
    follower.close()
    monkeypatch.setattr(fleet.sqlite3, "connect", connect)
    assert FleetStore(path).db.execute("select count(*) from games").fetchone() == (501,)
    said = out.getvalue()
    if csv:
        assert sum(int(row.split(",")[4]) for row in said.splitlines()[1:]) in (500, 501)
    else:
        assert "hall-1" in said


def csv_peak(path):
    """The most memory Python held while `controller fleet stats --csv` wrote March 2025, in bytes."""
    tracemalloc.start()
    try:
        out = io.StringIO()
        assert main(["fleet", "stats", "--offline", "--db", path, "--period", "2025-03", "--csv"], out) == 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_csv_of_a_long_period_takes_no_more_memory_for_more_games(tmp_path):
    """Found measuring two years of one busy exhibit: the --csv read every game of the period into memory
    before counting them, 90 MB for 217,000 games, 1.3 GB for 20 such exhibits, on an office laptop or a
    Pi. Its rows are one per exhibit and day, whatever the games: ten times the games in the same month
    now take about the same memory."""
    few, many = str(tmp_path / "few.sqlite"), str(tmp_path / "many.sqlite")
    kept(few, 300)
    kept(many, 3000)
    csv_peak(few)           # the modules the command loads, loaded once
    grown = csv_peak(many) - csv_peak(few)
    assert grown < 100_000, "%d bytes more for 2,700 more games" % grown


def steps(path, argv, monkeypatch):
    """The steps SQLite took for `controller fleet stats --offline` `argv` (a hundred each), as a measure of
    the games it read."""
    connect, counted = sqlite3.connect, []

    def counting(*args, **kwargs):
        db = connect(*args, **kwargs)
        db.set_progress_handler(lambda: counted.append(1) and 0, 100)
        return db
    with monkeypatch.context() as patch:
        patch.setattr(fleet.sqlite3, "connect", counting)
        assert main(["fleet", "stats", "--offline", "--db", path] + argv, io.StringIO()) == 0
    return len(counted)


@pytest.mark.parametrize("csv", [[], ["--csv"]])
def test_a_short_report_reads_its_own_games_not_the_years_before(tmp_path, monkeypatch, csv):
    """Found measuring two years of 20 exhibits: the default report, the last 7 days, read all 4.3 million
    games to find a week's (1.2 s here, ten times that on a Pi), and took longer every month. Here a day's
    report of a store that holds 6,000 older games besides that day's 300 reads about what it reads
    without them."""
    day, years = str(tmp_path / "day.sqlite"), str(tmp_path / "years.sqlite")
    kept(day, 300)
    kept(years, 300)
    store = FleetStore(years)
    for n in range(6000):
        store.game({"exhibit": "hall-1", "id": "old/%d" % n, "machine": "drnim", "winner": "player", "turns": 7,
                    "duration_s": 90, "ended": MARCH - 86400 * 700 + 10000 * n})
    store.commit()
    store.close()
    alone = steps(day, ["--period", "2025-03-01"] + csv, monkeypatch)
    among = steps(years, ["--period", "2025-03-01"] + csv, monkeypatch)
    assert among < 3 * alone, "%d steps among older games, %d without them" % (among, alone)


def before_the_index(path, games):
    """A store of version 2, as the fleet's side kept it before the games were indexed by time."""
    kept(path, games)
    db = sqlite3.connect(path)
    db.executescript("drop index games_by_time; pragma user_version = 2;")
    db.close()


def test_the_first_run_after_an_update_says_it_updates_the_store_and_a_second_says_to_wait(tmp_path, monkeypatch,
                                                                                         capsys):
    """Found following 20 exhibits: the first `controller fleet` after the update to the store's version 3
    indexed every game kept, 5 s here, a minute on a Pi, with nothing said, and a second one started meanwhile
    said only "the store ...: cannot open it (database is locked)". Here the update is slowed as on a Pi; the
    store holds more games than are said (UPGRADE_SAID, made small)."""
    path = str(tmp_path / "fleet.sqlite")
    before_the_index(path, 300)
    monkeypatch.setattr(fleet, "UPGRADE_SAID", 200)
    monkeypatch.setattr(fleet, "WAIT_S", 0.1)
    connect, updating, waited = sqlite3.connect, threading.Event(), threading.Event()

    def slow_first(*args, **kwargs):
        """The first `controller fleet`'s store, each few steps of SQLite slowed until the second has tried."""
        monkeypatch.setattr(fleet.sqlite3, "connect", connect)
        db = connect(*args, **kwargs)

        def slowly():
            updating.set()
            if not waited.is_set():
                time.sleep(0.01)
            return 0                # go on
        db.set_progress_handler(slowly, 20)
        return db
    monkeypatch.setattr(fleet.sqlite3, "connect", slow_first)
    first_out, second_out = io.StringIO(), io.StringIO()
    first = threading.Thread(target=main, args=(["fleet", "stats", "--offline", "--db", path, "--period", "2025-03"],
                                                first_out))
    first.start()
    try:
        assert updating.wait(10)
        time.sleep(0.2)             # into the update
        assert main(["fleet", "--db", path, "--broker", "127.0.0.1:1"], second_out) == 1     # the live table
    finally:
        waited.set()
        first.join(60)
    assert "hall-1" in first_out.getvalue() and second_out.getvalue() == ""
    assert capsys.readouterr().err.splitlines() == [
        "controller fleet: updating the fleet's store (once, after an update of the controller): 300 games, some "
        "seconds, a minute on a Raspberry Pi...",
        "controller fleet: the store %s: another controller fleet is updating it (once, after an update of the "
        "controller: some seconds, a minute on a Raspberry Pi): wait until that one shows its table or report, "
        "then run this again" % path]
    assert main(["fleet", "stats", "--offline", "--db", path, "--period", "2025-03"], io.StringIO()) == 0
    assert capsys.readouterr().err == ""            # once


def test_a_small_store_is_updated_without_a_word(tmp_path, capsys):
    path = str(tmp_path / "fleet.sqlite")
    before_the_index(path, 30)
    out = io.StringIO()
    assert main(["fleet", "stats", "--offline", "--db", path, "--period", "2025-03"], out) == 0
    assert capsys.readouterr().err == "" and "hall-1" in out.getvalue()
    assert sqlite3.connect(path).execute("pragma user_version").fetchone() == (fleet.STORE_VERSION,)
