"""Statistics in SQLite in the state directory: games, who won, faults.

The game never waits for its statistics and never stops for them. The
service hands each record to `Statistics`, whose own thread writes it; a
database that is damaged, locked, read-only or full costs one line in the
log and a fault in `controller status` (`problem`), not the game. A damaged
file found at start (its pages checked, not only its header) is set aside
under a time-stamped name and a new one begun; when writing works again, the
log says so.

`summary(path)` reads a database without changing it (for `controller stats`), but for rolling back
a write a power cut left half done, as the service does at its next start.
"""

import datetime
import os
import queue
import re
import sqlite3
import threading
import time
from pathlib import Path

from controller.core.values import is_whole, quoted
from controller.service.store import untaken

SCHEMA = """
create table if not exists games (ended real not null, machine text not null, winner text not null, duration_s integer);
create table if not exists faults (at real not null, machine text not null, kind text not null);
"""
# What the log says while the statistics cannot be written: the game never waits for them.
NOT_RECORDED = "the game goes on, but no games or faults are recorded until %s (tried again at each one)"
# A write waits this long for a lock (someone reading the file) before it is given up.
LOCK_WAIT_S = 2.0


class Statistics:
    def __init__(self, path, clock=time.time, log=None):
        self.path = path
        self.clock = clock
        self.log = log or (lambda text: None)
        self.problem = None
        self.queue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self.run, name="statistics", daemon=True)
        self.thread.start()

    # --- what the service calls: never blocks ------------------------------------
    def game(self, machine, winner, duration_s=None):
        """A game ended: who won, and how long it lasted from its first move (None: not known, as for a
        game resumed after a restart)."""
        self.queue.put(("insert into games (ended, machine, winner, duration_s) values (?, ?, ?, ?)",
                        (self.clock(), machine, winner, duration_s)))

    def fault(self, machine, kind):
        self.queue.put(("insert into faults (at, machine, kind) values (?, ?, ?)", (self.clock(), machine, kind)))

    def flush(self, timeout=10):
        """Wait until every record so far is written (or given up)."""
        done = threading.Event()
        self.queue.put(done)
        return done.wait(timeout)

    def close(self, timeout=10):
        self.queue.put(None)
        self.thread.join(timeout)

    # --- the writer thread -------------------------------------------------------------
    def run(self):
        db = self.open()
        stopping = False
        while not stopping:
            records, waiting, stopping = self.taken()
            if records:
                if db is None:
                    db = self.open()
                if db is not None:
                    self.write(db, records)
            for done in waiting:
                done.set()
        if db is not None:
            db.close()

    def taken(self):
        """Everything queued, once there is something: (the records, the flushes waiting, whether closed)."""
        records, waiting = [], []
        item = self.queue.get()
        while item is not None:
            if isinstance(item, threading.Event):
                waiting.append(item)
            else:
                records.append(item)
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                return records, waiting, False
        return records, waiting, True

    def open(self):
        """The database, made if missing; a damaged one set aside and begun anew; None if it cannot be."""
        try:
            return self.connect()
        except sqlite3.OperationalError as error:
            folder = os.path.dirname(os.path.abspath(self.path))
            # a laptop's monitor run with sudo, or a configuration's state_dir mistyped: what to do, not only why
            missing = "" if os.path.isdir(folder) else "; the folder %s is not there: make it, or give --config a " \
                "configuration whose state_dir is a folder of yours (without sudo, a computer without the service " \
                "keeps them in your own folder)" % folder
            self.trouble("cannot open the statistics in %s (%s)%s: %s"
                         % (self.path, error, missing, NOT_RECORDED % "the file can be opened"))
            return None
        except sqlite3.DatabaseError as error:
            return self.begin_anew(error)

    def begin_anew(self, damage):
        """Set the damaged file (and any journal of it) aside under a time-stamped name and begin new
        statistics; None if it cannot be."""
        try:
            aside = set_aside(self.path, self.clock())
        except OSError as move_error:
            self.trouble("the statistics in %s are damaged (%s) and cannot be set aside (%s): %s" % (
                self.path, damage, move_error.strerror, NOT_RECORDED % "it can be set aside"))
            return None
        self.log("the statistics in %s were damaged (%s): kept as %s, new statistics begun"
                 % (self.path, damage, aside))
        try:
            return self.connect()
        except sqlite3.Error as again:
            self.trouble("cannot begin new statistics in %s (%s): %s"
                         % (self.path, again, NOT_RECORDED % "a new file can be made"))
            return None

    def connect(self):
        db = sqlite3.connect(self.path, timeout=LOCK_WAIT_S)
        try:
            db.executescript(SCHEMA)
            if not lengths(db):        # statistics from before games had a length
                db.execute("alter table games add column duration_s integer")
            check_pages(db)
        except sqlite3.Error:
            db.close()
            raise
        return db

    def write(self, db, records):
        """Every record waiting, in one transaction: while a lock holds a write LOCK_WAIT_S,
        the records that came meanwhile wait for the next one together, so the queue cannot
        grow however often they come (and a burst of faults costs the SD card one write)."""
        try:
            with db:
                for sql, values in records:
                    db.execute(sql, values)
        except sqlite3.Error as error:
            self.trouble("cannot write the statistics in %s (%s): the game goes on, the records of this moment "
                         "are lost" % (self.path, error))
            return
        if self.problem:
            self.problem = None
            self.log("statistics are written again in %s" % self.path)

    def trouble(self, text):
        """Log a problem once (until it changes), and keep it for `controller status`."""
        if text != self.problem:
            self.log(text)
        self.problem = text


def set_aside(path, when):
    """Rename a damaged database (and its journal, if any) to path.bad-YYYYmmdd-HHMMSS (`when`, or -2,
    -3... when taken), kept for a look later; the new name. OSError is the caller's."""
    aside = untaken(path + ".bad-", when)
    os.replace(path, aside)
    if os.path.exists(path + "-journal"):
        os.replace(path + "-journal", aside + "-journal")
    return aside


def check_pages(db):
    """sqlite3.DatabaseError when the file's pages are damaged (a power cut or a worn SD card):
    opening reads only the first page, so damage further in would otherwise lose every record
    written after it, or leave `controller stats` unable to read any."""
    problems = [row[0] for row in db.execute("pragma quick_check(1)")]
    if problems != ["ok"]:
        # one line for the journal: SQLite writes "*** in database main ***" on a line of its own
        raise sqlite3.DatabaseError(" ".join(problems[0].split()) if problems else "pragma quick_check gave nothing")


# What --period takes (`controller stats`, `controller fleet stats`); the dates are this computer's.
PERIODS = ("a period such as 7d, 24h, 90min, 2025-03 (a month), 2025-03-01 (a day), 2025-03-01..2025-03-31 "
           "(days, both counted), 2025-03-01.. (since that day), this-month or last-month")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


class Period:
    """From `start` to `end` (seconds since the epoch; `end` not included), and how it was asked for."""

    def __init__(self, start, end, label):
        self.start, self.end, self.label = start, end, label

    def days(self):
        """Every local date of the period, in order (its first day's to its last's)."""
        first = datetime.date.fromtimestamp(self.start)
        last = datetime.date.fromtimestamp(max(self.start, self.end - 0.001))
        return [first + datetime.timedelta(days=n) for n in range((last - first).days + 1)]

    def said(self):
        """The period in words: its label and, for a rolling one, from when to when (local time)."""
        start = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.start))
        end = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.end))
        zones = [time.strftime("%Z", time.localtime(when)) for when in (self.start, self.end)]
        return "%s (%s to %s, %s)" % (self.label, start, end, zones[0] if zones[0] == zones[1] else "/".join(zones))


# A time zone as POSIX writes it in TZ, with its offset from UTC: CET-1CEST,M3.5.0,M10.5.0/3, <+03>-3.
POSIX_ZONE = re.compile(r"(<[^>]+>|[A-Za-z]{3,})[+-]?\d")


def check_time_zone(environ=os.environ):
    """ValueError when TZ names no time zone: the C library takes a misspelt one (Europe/Pariss) for UTC
    without a word, and a period's days would be UTC's. Unset or empty, the computer's own zone is used."""
    name = environ.get("TZ", "")
    zone = name[1:] if name.startswith(":") else name
    if not zone or POSIX_ZONE.match(zone):
        return
    if zone.startswith("/"):
        try:
            with open(zone, "rb") as file:
                if file.read(4) == b"TZif":
                    return
        except OSError:
            pass
    else:
        import zoneinfo
        try:
            zoneinfo.ZoneInfo(zone)
            return
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    raise ValueError("%s is no time zone this computer knows, so the days would be UTC's: give a name from "
                     "/usr/share/zoneinfo, such as Europe/Paris (timedatectl list-timezones lists them)"
                     % quoted(name))


def midnight(day):
    """Seconds since the epoch at the local midnight that begins `day` (a date): daylight saving's days
    are 23 or 25 hours long, so a day is never 86,400 s added."""
    return datetime.datetime(day.year, day.month, day.day).timestamp()


def month_of(year, month):
    start = datetime.date(year, month, 1)
    after = datetime.date(year + month // 12, month % 12 + 1, 1)
    return Period(midnight(start), midnight(after), start.strftime("%Y-%m"))


def a_date(text, whole):
    """A YYYY-MM-DD date; ValueError naming `whole` when it is not one."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise ValueError("%s is not %s" % (quoted(whole), PERIODS))
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise ValueError("%s%s is not a date of the calendar" % ("" if whole == text else quoted(whole) + ": ",
                                                                 quoted(text)))


# The longest period: its days are listed one by one (a table, a spreadsheet's rows), and a Pi's memory
# holds a century of them well, not the calendar's ten thousand years.
LONGEST_DAYS = 36525


def period(text, clock=time.time):
    """A Period from what a user wrote (PERIODS), in this computer's time zone; ValueError with one line."""
    edge = "%s reaches the edge of the calendar (years 1 to 9999)" % quoted(text)
    try:
        found = asked_period(text, clock())
        datetime.date.fromtimestamp(found.start)       # the days a period of hours or minutes reaches back to
    except (OverflowError, OSError):       # OSError: Windows' C library, before 1970
        raise ValueError(edge)
    except ValueError as error:
        if "out of range" in str(error):       # datetime's words for a year before 1 or after 9999
            raise ValueError(edge)
        raise
    if found.end - found.start > LONGEST_DAYS * 86400:
        raise ValueError("%s is longer than %d years" % (quoted(text), LONGEST_DAYS // 365))
    return found


def days_before(now, days):
    """`days` calendar days before `now`, at the same local clock time: a week across a change of
    daylight saving is 167 or 169 hours, and a weekly report run at 14:00 then begins at 14:00 too,
    where the week before ended (168 hours overlapped it by an hour in spring, and left an hour out in
    autumn)."""
    return (datetime.datetime.fromtimestamp(now) - datetime.timedelta(days=days)).timestamp()


def asked_period(text, now):
    """period()'s reading of `text` at `now` (seconds since the epoch)."""
    units = {"h": 3600, "min": 60}
    number = text[:-1]
    if text.endswith("d") and is_whole(number) and int(number) > 0:
        return Period(days_before(now, int(number)), now, "the last %s" % text)
    for unit, seconds in units.items():
        number = text[:-len(unit)]
        if text.endswith(unit) and is_whole(number) and int(number) > 0:
            return Period(now - int(number) * seconds, now, "the last %s" % text)
    today = datetime.date.fromtimestamp(now)
    if text in ("this-month", "last-month"):
        year, month = today.year, today.month
        if text == "last-month":
            year, month = (year, month - 1) if month > 1 else (year - 1, 12)
        return month_of(year, month)
    month = re.fullmatch(r"(\d{4})-(\d{2})", text)
    if month:
        if not 1 <= int(month.group(2)) <= 12:
            raise ValueError("%s is not a month of the calendar" % quoted(text))
        return month_of(int(month.group(1)), int(month.group(2)))
    if ".." in text:
        first, _, last = text.partition("..")
        first = a_date(first, text)
        last = a_date(last, text) if last else None
        if last is not None and last < first:
            raise ValueError("%s ends before it begins" % quoted(text))
        end = midnight(last + datetime.timedelta(days=1)) if last else max(now, midnight(first))
        return Period(midnight(first), end, text if last else "since %s" % first.isoformat())
    day = a_date(text, text)
    return Period(midnight(day), midnight(day + datetime.timedelta(days=1)), text)


CSV_HEADINGS = ("date", "weekday", "exhibit", "machine", "games", "visitors_wins", "machine_wins", "faults",
                "mean_length_s")


def write_csv(out, within, games, faults, always=()):
    """One row per exhibit per local day of the period (CSV_HEADINGS), every day of it, none of games
    too, for a spreadsheet. `games`: (exhibit, machine, ended, winner, seconds or None); `faults`:
    (exhibit, machine, at); `always`: (exhibit, machine) whose rows are written even without either."""
    import csv
    days = within.days()
    counts = {}
    def row(exhibit, machine, when):
        key = (exhibit, machine)
        if key not in counts:
            counts[key] = dict((day, [0, 0, 0, 0, 0, 0]) for day in days)
        return counts[key].get(datetime.date.fromtimestamp(when))
    for exhibit, machine, ended, winner, seconds in games:
        cells = row(exhibit, machine, ended)
        if cells is not None:
            cells[0] += 1
            cells[1 if winner == "player" else 2] += 1
            if seconds is not None:
                cells[4] += seconds
                cells[5] += 1
    for exhibit, machine, at in faults:
        cells = row(exhibit, machine, at)
        if cells is not None:
            cells[3] += 1
    for exhibit, machine in always:
        row(exhibit, machine, within.start)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADINGS)
    for (exhibit, machine), per_day in sorted(counts.items()):
        exhibit, machine = cell(exhibit), cell(machine)
        for day in days:
            games_, player, machine_wins, faults_, seconds, timed = per_day[day]
            writer.writerow([day.isoformat(), WEEKDAYS[day.weekday()], exhibit, machine, games_, player, machine_wins,
                             faults_, round(seconds / timed) if timed else ""])


def cell(text):
    """A name as a CSV cell: printable, and never a spreadsheet's formula (a stranger on the broker may name an
    exhibit '=HYPERLINK(...)'), which a leading apostrophe keeps text."""
    from controller.printable import printable
    text = printable(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def lengths(db):
    """Whether the games have a length (`duration_s`): a file from before they had one is read as it is
    (`controller stats` reads without changing it) until the service brings it up to date."""
    return any(row[1] == "duration_s" for row in db.execute("pragma table_info(games)"))


def reading(path):
    """A read-only connection to the statistics at `path`. A write that a power cut left half done (its
    journal beside the file, "hot") is rolled back first, as the service does when it next opens the file:
    a read-only connection cannot, and SQLite reads no record of the file until it is, which `controller
    stats` took for damage. The records are those before that write, as the service will find them."""
    if os.path.exists(path + "-journal"):
        try:
            writer = sqlite3.connect(Path(path).absolute().as_uri() + "?mode=rw", uri=True, timeout=LOCK_WAIT_S)
            try:
                writer.execute("select count(*) from sqlite_master").fetchall()
            finally:
                writer.close()
        except sqlite3.OperationalError:
            pass            # a file this user may not write: the read below says why it cannot be read
    return sqlite3.connect(Path(path).absolute().as_uri() + "?mode=ro", uri=True)


# Rows of the file a report reads at a time (milliseconds here, a few tenths of a second on a Pi 3): the
# service's write of a game that ends meanwhile waits for one window, never for the whole period.
WINDOW = 5000


def windows(db, table, columns, at, start, end):
    """The rows (`columns`) of `table` whose time `at` is from `start` to `end` (not included), read WINDOW
    rows of the file at a time, each window a read of its own, let go before the next. A report of two
    years (some 215,000 games, seconds on a Pi 3) held the file in one read all that time, and the
    service's write of a game that ended meanwhile, which waits LOCK_WAIT_S for a reader, was given up.
    Records are only ever added, so every row there was when the reading began is read once."""
    # min and max each alone, which SQLite finds at once: asked for together, they cost a read of every row
    lowest, highest = (db.execute("select %s(rowid) from %s" % (end_of, table)).fetchone()[0]
                       for end_of in ("min", "max"))
    for first in range((lowest or 1) - 1, highest or 0, WINDOW):
        yield from db.execute("select %s from %s where rowid > ? and rowid <= ? and %s >= ? and %s < ?"
                              % (columns, table, at, at), (first, first + WINDOW, start, end)).fetchall()


def games(db, start, end):
    """(machine, ended, winner, seconds or None) of each game from `start` to `end` (`windows`)."""
    return windows(db, "games", "machine, ended, winner, %s" % ("duration_s" if lengths(db) else "null"),
                   "ended", start, end)


def faults(db, start, end):
    """(machine, kind, at) of each fault from `start` to `end` (`windows`)."""
    return windows(db, "faults", "machine, kind, at", "at", start, end)


def read_only(path, rows, within):
    """`rows(db, start, end)` of the statistics at `path` `within` a Period, read only: an iterable that
    opens the file when it is first gone through and closes it at its end."""
    db = reading(path)
    try:
        yield from rows(db, within.start, within.end)
    finally:
        db.close()


def records(path, within):
    """The games (machine, ended, winner, seconds or None) and faults (machine, at) of a statistics database
    `within` a Period, read only: an iterable each, which reads the file as it is gone through, so that
    years of games are never all in memory."""
    return (read_only(path, games, within),
            ((machine, at) for machine, _, at in read_only(path, faults, within)))


def machines(path):
    """The machines a statistics database has games or faults of, read only, sorted."""
    db = reading(path)
    try:
        return sorted(row[0] for row in db.execute("select machine from games union select machine from faults"))
    finally:
        db.close()


def last_machine(path):
    """The machine of the newest game or fault in a statistics database, or None (none yet, or no file
    to read: a board's monitor then takes its configuration's until the board names its own)."""
    try:
        db = reading(path)
    except (OSError, sqlite3.Error):
        return None
    try:
        row = db.execute("select machine from (select ended as at, machine from games union all "
                         "select at, machine from faults) order by at desc limit 1").fetchone()
        return row[0] if row else None
    except sqlite3.Error:
        return None
    finally:
        db.close()


def summary(path, within=None):
    """Games, wins and faults `within` a Period (everything without one), read without changing the
    file (but for a write a power cut left half done: `reading`): the games of each local day and of each
    weekday, the wins by side, the faults by kind (the jams, the episodes of under-voltage and of a CPU too
    hot also alone) and of each local day, and the games' mean length in seconds (None when none was timed).
    sqlite3.DatabaseError when it is not a statistics database."""
    start, end = (within.start, within.end) if within else (float("-inf"), float("inf"))
    per_day, wins, kinds, faults_per_day = {}, {}, {}, {}
    count = timed = seconds_timed = 0
    db = reading(path)
    try:
        for _, ended, winner, seconds in games(db, start, end):
            day = datetime.date.fromtimestamp(ended)
            per_day[day] = per_day.get(day, 0) + 1
            wins[winner] = wins.get(winner, 0) + 1
            count += 1
            if seconds is not None:
                timed += 1
                seconds_timed += seconds
        for _, kind, at in faults(db, start, end):
            kinds[kind] = kinds.get(kind, 0) + 1
            that_day = faults_per_day.setdefault(datetime.date.fromtimestamp(at).isoformat(), {})
            that_day[kind] = that_day.get(kind, 0) + 1
    finally:
        db.close()
    per_weekday = dict.fromkeys(WEEKDAYS, 0)
    for day, games_that_day in per_day.items():
        per_weekday[WEEKDAYS[day.weekday()]] += games_that_day
    if within:
        per_day = dict((day, per_day.get(day, 0)) for day in within.days())
    return {"games": count, "games_per_day": [(day.isoformat(), n) for day, n in sorted(per_day.items())],
            "faults_per_day": dict((day, dict(sorted(kinds_that_day.items())))
                                   for day, kinds_that_day in faults_per_day.items()),
            "games_per_weekday": per_weekday, "wins": wins, "faults": dict(sorted(kinds.items())),
            "jams": kinds.get("jam", 0), "under_voltage": kinds.get("under-voltage", 0),
            "too_hot": kinds.get("too-hot", 0), "mean_length_s": round(seconds_timed / timed) if timed else None}
