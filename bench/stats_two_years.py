"""Two years of a busy exhibit's statistics: what they cost on disk, and what `controller stats`
and the service's start cost with them. Prints figures; asserts nothing.

    .venv/bin/python bench/stats_two_years.py [GAMES_A_DAY]      (default 300)
    .venv/bin/python bench/stats_two_years.py --fleet [EXHIBITS] [GAMES_A_DAY]     (default 20 and 300)

The state directory is written by the service's own code (controller/service/stats.py's
Statistics, one per day as after the nightly restart, its games at the day's times in
Europe/London, across two changes of daylight saving and a new year), 360 open days a year
ending yesterday, and the fleet's store by the follower's own code (controller/telemetry/fleet.py)
from the same games, as an exhibit with telemetry sends them. Then:

- the size of everything under the state directory, and per game;
- `controller stats` (a fresh process, /usr/bin/time -v) over 14 days, last month, a year and the
  two years, and its --csv over the two years: wall time and peak memory, beside `controller
  stats` on an empty state directory;
- the statistics' opening at the service's start (its pages checked, in the statistics' own
  thread: the service is READY without waiting for it) and the service's start to READY with
  these statistics and with none;
- how long the service's write of a game waits while `controller stats` reads the two years
  (it gives up after stats.LOCK_WAIT_S, and the game is lost);
- `controller fleet stats --offline` and its --csv over the two years of this one exhibit.

With --fleet, only the fleet's side, as a curator follows a museum's EXHIBITS for two years: one
exhibit's two years kept by the follower's own code, copied to EXHIBITS exhibits, each with its
retained status; then the store's size, `controller fleet stats --offline` over 7 days, a year and
the two years, and --csv over a month and the two years (wall time and peak memory), how long the
live follower's commit of a game waits while the two years' --csv is read, and the live table of
the EXHIBITS exhibits against an 80x24 terminal.

A Pi 3 runs Python about ten times slower than a desktop computer, and reads its SD card five to
ten times slower than this computer's disk: multiply the times by about ten for one.
"""

import datetime
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

ZONE = "Europe/London"
os.environ["TZ"] = ZONE
time.tzset()

from controller.service import stats  # noqa: E402
from controller.service.stats import Statistics, summary  # noqa: E402
from controller.telemetry.fleet import Fleet, FleetStore  # noqa: E402
from controller.telemetry.payloads import encode  # noqa: E402
from service_rig import write_config  # noqa: E402
from bench_service import ready_service  # noqa: E402

OPEN_DAYS = 720
FAULTS = ("jam", "extra-marble", "check")


def open_days(count, rng):
    """The last `count` days the museum opened, ending yesterday: closed on some Mondays
    (about 360 days a year)."""
    days, day = [], datetime.date.today()
    while len(days) < count:
        day -= datetime.timedelta(days=1)
        if not (day.weekday() == 0 and rng.random() < 0.3):
            days.append(day)
    return days[::-1]


def fill(path, fleet, games_a_day):
    """Two years of games and faults, day after day, through Statistics (one per day: the nightly
    restart) and the fleet's follower; the days, and the time the statistics took to open each day."""
    rng = random.Random(1)
    days = open_days(OPEN_DAYS, rng)
    opening_times = []
    sent = 0
    for day in days:
        now = [datetime.datetime(day.year, day.month, day.day, 10).timestamp()]
        started = time.perf_counter()
        writer = Statistics(path, clock=lambda: now[0])
        writer.flush()
        opening_times.append(time.perf_counter() - started)
        for _ in range(rng.randint(games_a_day - 50, games_a_day + 50)):
            now[0] += rng.uniform(60, 150)
            winner, seconds = rng.choice(("player", "machine")), rng.randint(20, 240)
            writer.game("drnim", winner, seconds)
            sent += 1
            fleet.message("m/hall-1/game", encode({"v": 1, "exhibit": "hall-1", "id": "hall-1/%d" % sent,
                                                   "machine": "drnim", "winner": winner, "turns": 7,
                                                   "duration_s": seconds, "ended": now[0], "settings": {}}))
            if rng.random() < 0.01:
                kind = rng.choice(FAULTS)
                writer.fault("drnim", kind)
                fleet.message("m/hall-1/fault", encode({"v": 1, "exhibit": "hall-1", "id": "hall-1/f%d" % sent,
                                                        "machine": "drnim", "fault": kind, "at": now[0]}))
        writer.flush()
        writer.close()
        fleet.store.commit()
    return days, opening_times


def timed(argv):
    """(wall seconds, peak memory in MiB, lines printed) of a command run in a fresh process."""
    result = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "controller"] + argv, cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True)
    if result.returncode:
        raise SystemExit("%s: %s" % (" ".join(argv), result.stderr[-500:]))
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", result.stderr)
    hours, minutes, seconds = wall.groups()
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1))
    return (int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds), peak / 1024,
            len(result.stdout.splitlines()))


def sizes(folder):
    total = 0
    for path in sorted(Path(folder).rglob("*")):
        if path.is_file():
            total += path.stat().st_size
            print("  %-34s %8.2f MB" % (path.relative_to(folder), path.stat().st_size / 1e6))
    return total


def ready_time(config):
    """Seconds from starting `controller run` (mock pins) to its READY, as systemd sees it."""
    with ready_service(config) as (_, ready):
        return ready


def write_wait(path, within):
    """Seconds the service's write of one game waited while `summary` read `within` in another
    thread, and whether the game was recorded."""
    writer = Statistics(path)
    writer.flush()
    reading = threading.Thread(target=summary, args=(path, within))
    reading.start()
    time.sleep(0.01)
    started = time.perf_counter()
    writer.game("drnim", "player", 60)
    writer.flush()
    waited = time.perf_counter() - started
    writer.close()
    reading.join()
    return waited, writer.problem is None


def fleet_of(folder, exhibits, games_a_day):
    """The fleet's store of `exhibits` exhibits' two years, and the Fleet that kept it: the first exhibit's
    games and faults kept by the follower's own code, copied for the others; each one's retained status."""
    store = FleetStore(str(folder / "fleet.sqlite"))
    fleet = Fleet("m", store, lambda text: None)
    rng = random.Random(1)
    days = open_days(OPEN_DAYS, rng)
    sent = 0
    for day in days:
        now = datetime.datetime(day.year, day.month, day.day, 10).timestamp()
        for _ in range(rng.randint(games_a_day - 50, games_a_day + 50)):
            now += rng.uniform(60, 150)
            sent += 1
            fleet.message("m/hall-1/game", encode({
                "v": 1, "exhibit": "hall-1", "id": "hall-1/%d" % sent, "machine": "drnim",
                "winner": rng.choice(("player", "machine")), "turns": 7, "duration_s": rng.randint(20, 240),
                "ended": now, "settings": {}}))
            if rng.random() < 0.01:
                fleet.message("m/hall-1/fault", encode({"v": 1, "exhibit": "hall-1", "id": "hall-1/f%d" % sent,
                                                        "machine": "drnim", "fault": rng.choice(FAULTS), "at": now}))
        store.commit()
    for n in range(2, exhibits + 1):
        for table in ("games", "faults"):
            store.db.execute("insert into %s select ?, id, machine, %s from %s where exhibit = 'hall-1'" % (
                table, "winner, turns, duration_s, ended" if table == "games" else "fault, at", table),
                             ("hall-%d" % n,))
        store.commit()
    now = time.time()
    for n in range(1, exhibits + 1):
        machine = "nimatron" if n % 4 == 0 else "drnim"
        fleet.message("m/hall-%d/status" % n, encode({
            "v": 1, "exhibit": "hall-%d" % n, "online": n % 7 != 3, "at": now - 30, "machine": machine,
            "version": "0.1.0", "uptime_s": 86400, "heartbeat_s": 60, "queued": 0, "mode": "play",
            "turn": "player", "winner": None, "fault": "jam" if n % 9 == 5 else None, "attract": False,
            "rail": 11, "loaded": 15, "service_faults": [],
            "today": {"date": datetime.date.today().isoformat(), "games": 140 + n, "machine_wins": 100 + n},
            "last_game": {"id": "hall-%d/x" % n, "winner": "machine", "ended": now - 700}}), retained=True)
    store.commit()
    return fleet, days, sent


def longest_commit_wait(store, argv):
    """The longest a commit of one game (as the live follower's, one every 50 ms) waited while `argv` ran,
    in seconds, and how many commits failed (the follower's store waits 5 s, then stops the follower)."""
    process = subprocess.Popen([sys.executable, "-m", "controller"] + argv, cwd=ROOT, stdout=subprocess.DEVNULL,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)))
    longest, failed, n = 0.0, 0, 0
    while process.poll() is None:
        n += 1
        started = time.perf_counter()
        try:
            store.game({"exhibit": "hall-1", "id": "wait/%d" % n, "machine": "drnim", "winner": "player",
                        "turns": 7, "duration_s": 60, "ended": time.time()})
            store.commit()
        except sqlite3.OperationalError:
            store.db.rollback()
            failed += 1
        longest = max(longest, time.perf_counter() - started)
        time.sleep(0.05)
    return longest, failed


def fleet_main(exhibits=20, games_a_day=300):
    from controller.telemetry.command import frame
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        started = time.perf_counter()
        fleet, days, sent = fleet_of(folder, exhibits, games_a_day)
        store = folder / "fleet.sqlite"
        print("%d exhibits, %d games each on %d open days (%s to %s, %s), kept in %.0f s"
              % (exhibits, sent, len(days), days[0], days[-1], ZONE, time.perf_counter() - started))
        print("the fleet's store: %.1f MB, %.1f MB an exhibit, %.0f bytes a game"
              % (store.stat().st_size / 1e6, store.stat().st_size / 1e6 / exhibits,
                 store.stat().st_size / exhibits / sent))
        print("\ncontroller fleet stats --offline (wall s, peak MiB, lines):")
        first = days[0].isoformat()
        year = (days[-1] - datetime.timedelta(days=364)).isoformat() + ".."
        month = (days[-1] - datetime.timedelta(days=30)).isoformat() + ".."
        base = ["fleet", "stats", "--offline", "--db", str(store), "--period"]
        for name, argv in [("7d (the default)", base + ["7d"]), ("a year", base + [year]),
                           ("two years", base + [first + ".."]), ("a month --csv", base + [month, "--csv"]),
                           ("two years --csv", base + [first + "..", "--csv"])]:
            print("  %-30s %5.2f s %6.1f MiB %6d" % ((name,) + timed(argv)))
        print("\nthe live follower's commit of a game (one every 50 ms) while two years' --csv is read:")
        print("  waited at most %.3f s, %d failed (the follower waits 5 s, then stops)"
              % longest_commit_wait(fleet.store, base + [first + "..", "--csv"]))
        fleet.store.close()
        print("\nthe live table of %d exhibits in an 80x24 terminal:" % exhibits)
        lines = frame(fleet, "broker.museum.lan:1883", True, ["17:05:02 a line of the log"] * 5,
                      (80, 24)).splitlines()
        print("  %d lines, the widest %d characters; its last line:\n  %s"
              % (len(lines), max(len(line) for line in lines), lines[-1]))


def main():
    if sys.argv[1:2] == ["--fleet"]:
        return fleet_main(*[int(number) for number in sys.argv[2:]])
    games_a_day = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        config = str(write_config(folder))
        (folder / "empty").mkdir()
        empty = str(write_config(folder / "empty"))
        state = folder / "state"
        state.mkdir()
        path = str(state / "stats.sqlite")
        store = FleetStore(str(folder / "fleet.sqlite"))
        fleet = Fleet("m", store, lambda text: None)
        started = time.perf_counter()
        days, opening_times = fill(path, fleet, games_a_day)
        store.close()
        games = summary(path)["games"]
        print("%d games on %d open days (%s to %s, %s), written in %.0f s"
              % (games, len(days), days[0], days[-1], ZONE, time.perf_counter() - started))

        print("\nthe state directory:")
        total = sizes(state)
        print("  all %.2f MB: %.0f bytes a game, %.1f MB a year"
              % (total / 1e6, total / games, total / 1e6 * 360 / len(days)))

        print("\ncontroller stats (wall s, peak MiB, lines):")
        first = days[0].isoformat()
        year = (days[-1] - datetime.timedelta(days=364)).isoformat() + ".."
        runs = [("an empty state directory", ["stats", "--config", empty]),
                ("14d (the default)", ["stats", "--config", config]),
                ("last-month", ["stats", "--config", config, "--period", "last-month"]),
                ("a year", ["stats", "--config", config, "--period", year]),
                ("two years", ["stats", "--config", config, "--period", first + ".."]),
                ("two years --csv", ["stats", "--config", config, "--period", first + "..", "--csv"]),
                ("fleet stats, two years", ["fleet", "stats", "--offline", "--db", str(folder / "fleet.sqlite"),
                                            "--period", first + ".."]),
                ("fleet stats, two years --csv", ["fleet", "stats", "--offline", "--db",
                                                  str(folder / "fleet.sqlite"), "--period", first + "..", "--csv"])]
        for name, argv in runs:
            print("  %-30s %5.2f s %6.1f MiB %6d" % ((name,) + timed(argv)))
        print("  the fleet's store (on the follower's computer): %.2f MB"
              % ((folder / "fleet.sqlite").stat().st_size / 1e6))

        print("\nthe service's start:")
        print("  the statistics' opening (pages checked): %.3f s the first day, %.3f s the last"
              % (opening_times[0], opening_times[-1]))
        print("  start to READY: %.2f s with these statistics, %.2f s with none"
              % (ready_time(config), ready_time(empty)))

        print("\na game's write while controller stats reads the two years (the write gives up after %.1f s):"
              % stats.LOCK_WAIT_S)
        waited, recorded = write_wait(path, stats.period(first + ".."))
        print("  waited %.3f s, %s" % (waited, "recorded" if recorded else "LOST"))


if __name__ == "__main__":
    main()
