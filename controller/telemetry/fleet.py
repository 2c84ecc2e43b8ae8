"""The fleet's side: what every exhibit last said, and their games kept exactly once.

MQTT's QoS 1 delivers a message at least once: after a lost acknowledgement
the exhibit sends a game again. Each game has an id, and `FleetStore` keeps
a game only the first time it sees the id from that exhibit, so the counts
are exact (`insert or ignore`); keyed by exhibit too, so that one exhibit
cannot take another's ids first. The store is SQLite, on the follower's
computer.

A message that is not ours (a stranger on the same topics, a newer version,
a damaged payload) is ignored with one line in the log, never a crash. A game
or fault from further ahead than a day of this computer's clock is held aside
until the clock comes near it, with a line: a follower started before network
time set its clock (a Pi without a clock chip, off over a weekend) gets the
games queued meanwhile days ahead of it, and an exhibit whose clock went wrong
sends games of years ahead, which would count in every period. An empty
retained status is MQTT's way to clear it: the exhibit is forgotten. Of a status only what the table shows is kept, each
text cut short: a stranger's thousands of retained statuses, fat with fields
of their own, cost little memory.
"""

import datetime
import json
import os
import sqlite3
import time

from controller.printable import printable
from controller.telemetry.payloads import POWER_FIELDS, TEXT_KEPT, BadMessage, decode

# Version 5 of the store keeps the follower's MQTT sessions (`sessions`); version 4 keeps the games and faults
# held until this computer's clock comes near them; version 3 indexes the games by their time (so that a week's
# report reads a week's games, not years'); version 2 adds
# the exhibits heard from (so that `stats` names one without a game); version 1 keys games and faults by
# (exhibit, id); version 0 (no user_version) by id alone.
STORE_VERSION = 5
SCHEMA = """
create table if not exists games (exhibit text not null, id text not null, machine text not null,
    winner text not null, turns integer not null, duration_s integer, ended real not null, primary key (exhibit, id));
create table if not exists faults (exhibit text not null, id text not null, machine text not null,
    fault text not null, at real not null, primary key (exhibit, id));
create table if not exists exhibits (exhibit text primary key, machine text not null, first_heard real not null);
create index if not exists games_by_time on games (ended);
create table if not exists held (exhibit text not null, kind text not null, id text not null, payload text not null,
    due real not null, primary key (exhibit, kind, id));
create table if not exists sessions (client_id text primary key, current integer not null);
"""
# An exhibit whose status is older than this many of its heartbeats is shown as silent.
SILENT_AFTER_BEATS = 3
# A game or fault from further ahead than this of the follower's clock is not believed yet (it would count
# in every period of `stats` for ever): it is held until the clock is within this of it.
AHEAD_S = 86400
# The most games and faults held at once: a stranger's flood of them from years ahead is bounded.
HELD_LIMIT = 100000
# What is kept of a status, and how long a text of it may be.
STATUS_KEPT = ("online", "at", "machine", "version", "uptime_s", "heartbeat_s", "queued", "mode", "turn", "winner",
               "fault", "attract", "rail", "loaded", "rows", "service_faults", "today", "last_game", "power")
FAULTS_KEPT = 8
# The most exhibits the fleet keeps (a museum has dozens; bench_fleet.py follows 1,000): a stranger on the broker
# could send a status for each of a million made-up ones, each kept in memory.
EXHIBITS_LIMIT = 5000


# How long a write waits for the store (another follower's write): then the follower stops, and what it had
# not kept waits at the broker.
WAIT_S = 5.0
# A store of this many games or more is said before its upgrade, which reads every one: two years of 20 busy
# exhibits (4.3 million games) take 5 s here, a minute on a Pi, once.
UPGRADE_SAID = 100000


class StoreBusy(Exception):
    """The store is being upgraded by another follower, which holds it for as long as that takes."""


class FleetStore:
    """The games and faults, in SQLite's write-ahead log mode: a report (`controller fleet stats`) reads while
    the live follower writes, neither waiting for the other. In SQLite's default mode a reader holds the file
    for its whole read, and the follower's commit waits WAIT_S, then stops it: two years of 20 exhibits took
    `stats` 6 s, `--csv` 10 s (bench/stats_two_years.py --fleet), a Pi ten times that."""

    def __init__(self, path, say=lambda text: None):
        """`say`: a line for the user before a long upgrade (`upgrade`)."""
        if path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.db = sqlite3.connect(path, timeout=WAIT_S)
        if path != ":memory:":
            self.db.execute("pragma journal_mode = wal")
            self.db.execute("pragma journal_size_limit = %d" % (4 << 20))     # the log beside it, emptied, kept small
        self.upgrade(say)

    def upgrade(self, say):
        """The schema, created, or brought up from version 0 (games keyed by id alone), 1 (no exhibits
        table) or 2 (no index by time: some seconds for millions of games, once) in one transaction; said
        first when the store holds UPGRADE_SAID games or more, since it was silent for a minute on a Pi.
        Another follower started meanwhile waits WAIT_S for it, and finds it done or raises StoreBusy, which
        says what goes on and what to do: it was SQLite's "database is locked"."""
        db = self.db
        if db.execute("pragma user_version").fetchone()[0] >= STORE_VERSION:
            return
        try:
            db.execute("begin immediate")       # the store to itself: another follower waits, then reads it done
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode == sqlite3.SQLITE_BUSY:
                raise StoreBusy("another controller fleet is updating it (once, after an update of the controller: "
                                "some seconds, a minute on a Raspberry Pi): wait until that one shows its table or "
                                "report, then run this again") from None
            raise
        try:
            version = db.execute("pragma user_version").fetchone()[0]
            if version >= STORE_VERSION:        # by the follower it waited for
                db.rollback()
                return
            tables = [row[0] for row in db.execute(
                "select name from sqlite_master where type = 'table' and name in ('games', 'faults')")]
            # from version 3, a table is added and no game read
            games = db.execute("select count(*) from games").fetchone()[0] if "games" in tables and version < 3 else 0
            if games >= UPGRADE_SAID:
                say("updating the fleet's store (once, after an update of the controller): %s games, some seconds, "
                    "a minute on a Raspberry Pi..." % format(games, ","))
            old = [] if version else tables
            for table in old:
                db.execute("alter table %s rename to %s_v0" % (table, table))
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            if "games" in old:
                db.execute("insert or ignore into games select exhibit, id, machine, winner, turns, duration_s, ended "
                           "from games_v0")
            if "faults" in old:
                db.execute("insert or ignore into faults select exhibit, id, machine, fault, at from faults_v0")
            for table in old:
                db.execute("drop table %s_v0" % table)
            db.execute("pragma user_version = %d" % STORE_VERSION)
        except BaseException:
            db.rollback()
            raise
        db.commit()

    def game(self, payload):
        """Keep a game (written at the next `commit`); False when its exhibit's id was kept before (a QoS 1
        duplicate)."""
        cursor = self.db.execute("insert or ignore into games (exhibit, id, machine, winner, turns, duration_s, ended) "
                                 "values (?, ?, ?, ?, ?, ?, ?)", (
                                     payload["exhibit"], payload["id"], payload["machine"], payload["winner"],
                                     payload["turns"], payload["duration_s"], payload["ended"]))
        return cursor.rowcount == 1

    def fault(self, payload):
        cursor = self.db.execute("insert or ignore into faults (exhibit, id, machine, fault, at) values (?, ?, ?, ?, ?)",
                                 (payload["exhibit"], payload["id"], payload["machine"], payload["fault"],
                                  payload["at"]))
        return cursor.rowcount == 1

    def hold(self, exhibit, kind, payload, due):
        """Keep a game or fault aside until this computer's clock is within AHEAD_S of `due`; False when
        HELD_LIMIT are held already."""
        if self.db.execute("select count(*) from held").fetchone()[0] >= HELD_LIMIT:
            return False
        self.db.execute("insert or ignore into held (exhibit, kind, id, payload, due) values (?, ?, ?, ?, ?)",
                        (exhibit, kind, payload["id"], json.dumps(payload), due))
        return True

    def first_held(self):
        """When the earliest game or fault held is due, or None."""
        return self.db.execute("select min(due) from held").fetchone()[0]

    def take_held(self, until):
        """The games and faults held that are due by `until`, as (exhibit, kind, payload), taken out."""
        taken = [(exhibit, kind, json.loads(payload)) for exhibit, kind, payload in self.db.execute(
            "select exhibit, kind, payload from held where due <= ? order by due", (until,))]
        self.db.execute("delete from held where due <= ?", (until,))
        return taken

    def exhibit(self, name, machine, heard):
        """An exhibit heard from: kept with the time it was first heard (written only when it is new or
        its machine changed, not at each heartbeat)."""
        self.db.execute("insert into exhibits (exhibit, machine, first_heard) values (?, ?, ?) on conflict (exhibit) "
                        "do update set machine = excluded.machine where machine != excluded.machine",
                        (name, machine, heard))

    def exhibit_names(self):
        return [name for name, in self.db.execute("select exhibit from exhibits")]

    def forget(self, name):
        """An exhibit whose retained status was cleared: taken out of the fleet."""
        self.db.execute("delete from exhibits where exhibit = ?", (name,))

    def without_games(self, since, until=float("inf")):
        """(exhibit, machine) of each exhibit heard from before `until` that kept no game from `since` to
        `until`: a broken or closed exhibit, which a report should name."""
        return self.db.execute(
            "select exhibit, machine from exhibits where first_heard < ? and exhibit not in "
            "(select exhibit from games %s where ended >= ? and ended < ?) order by exhibit" % self.games_by(since, until),
            (until, since, until)).fetchall()

    def games_by(self, since, until):
        """How a report finds the games from `since` to `until`: through their index by time when the period
        holds a small part of them, which reads that part alone (a week of two years: 0.07 s, not 1.2 s); else
        by reading them all, which then is faster than looking each one up (two years: 6 s, not 9 s)."""
        first, last = (self.db.execute("select %s(ended) from games" % end).fetchone()[0] for end in ("min", "max"))
        if first is None or min(until, last) - max(since, first) > (last - first) / 4:
            return "not indexed"
        return "indexed by games_by_time"

    def sessions(self):
        """The client ID of the follower's MQTT session (None before the first), and those of sessions it
        left that the broker may still hold games in (`begin_session`)."""
        rows = self.db.execute("select client_id, current from sessions order by client_id").fetchall()
        return (next((name for name, current in rows if current), None),
                [name for name, current in rows if not current])

    def begin_session(self, client_id, left=None):
        """`client_id` the follower's session from now on, and `left` (the name the follower had before, or None)
        one to collect the games from, kept until `collected`: a follower stopped before then collects them at
        its next start."""
        self.db.execute("delete from sessions where current = 1")
        self.db.execute("insert into sessions (client_id, current) values (?, 1)", (client_id,))
        if left:
            self.db.execute("insert or ignore into sessions (client_id, current) values (?, 0)", (left,))
        self.db.commit()

    def collected(self, client_id):
        """The session left, emptied and ended at the broker."""
        self.db.execute("delete from sessions where client_id = ? and current = 0", (client_id,))
        self.db.commit()

    def heard_any(self):
        """Whether an exhibit was ever heard from: a store a follower used before."""
        return self.db.execute("select 1 from exhibits union all select 1 from games limit 1").fetchone() is not None

    def commit(self):
        """Write what came since the last commit: one transaction for a batch of messages, not one each."""
        self.db.commit()

    def summary(self, since, until=float("inf")):
        """Per exhibit from `since` to `until` (seconds since the epoch, `until` not included): (exhibit,
        machine, games, machine wins, player wins, mean turns, mean seconds or None), and the faults:
        (exhibit, kind, count)."""
        games = self.db.execute(
            "select exhibit, machine, count(*), sum(winner = 'machine'), sum(winner = 'player'), avg(turns), "
            "avg(duration_s) from games %s where ended >= ? and ended < ? group by exhibit, machine "
            "order by exhibit, machine" % self.games_by(since, until), (since, until)).fetchall()
        faults = self.db.execute("select exhibit, fault, count(*) from faults where at >= ? and at < ? "
                                 "group by exhibit, fault order by exhibit, fault", (since, until)).fetchall()
        return games, faults

    def records(self, since, until):
        """The games (exhibit, machine, ended, winner, duration_s) and faults (exhibit, machine, at) from
        `since` to `until` (not included): an iterable each, read from the store as it is gone through.
        Read all at once, two years of one busy exhibit (217,000 games) took 90 MB, of 20 such 1.3 GB."""
        games = self.db.execute("select exhibit, machine, ended, winner, duration_s from games %s where ended >= ? "
                                "and ended < ?" % self.games_by(since, until), (since, until))
        faults = self.db.execute("select exhibit, machine, at from faults where at >= ? and at < ?", (since, until))
        return games, faults

    def close(self):
        self.db.commit()
        self.db.close()


class Fleet:
    """Every exhibit's last status, from the messages on `prefix`; games and faults into `store`."""

    def __init__(self, prefix, store, log, clock=time.time, timer=time.monotonic):
        """`clock` dates what is heard and says the time of day (wall time); `timer` times how long ago this
        follower heard something itself (a status, a last will), so that network time setting the wall clock
        of a Pi without a real-time clock, hours forward at its boot or back, moves no age in the table."""
        self.prefix = prefix
        self.store = store
        self.log = log
        self.clock = clock
        self.timer = timer
        self.exhibits = {}
        self.games = 0          # new games kept
        self.duplicates = 0     # games seen again (QoS 1 redelivery), not counted twice
        self.held_from = store.first_held()     # when the earliest game or fault held aside is due
        if self.held_from is not None and self.held_from <= self.clock() + AHEAD_S:
            self.release_held()
            store.commit()

    def message(self, name, raw, retained=False):
        if self.held_from is not None and self.held_from <= self.clock() + AHEAD_S:
            self.release_held()
        if not raw and name.endswith("/status"):
            gone = name[len(self.prefix) + 1:-len("/status")]
            self.exhibits.pop(gone, None)
            self.store.forget(gone)
            return
        try:
            exhibit, kind, payload = decode(self.prefix, name, raw)
        except BadMessage as error:
            self.log("ignored a message: %s" % error)
            return
        if kind == "status":
            payload = kept(payload)
            # when it was heard: a status that comes while subscribed is the exhibit's now, whatever its clock
            # says (a Pi without a real-time clock or network time may be days behind); a retained one is as
            # old as it says
            if "at" in payload:
                payload["heard"] = payload["at"] if retained else self.clock()
                payload["heard_timed"] = None if retained else self.timer()
            if exhibit not in self.exhibits and len(self.exhibits) >= EXHIBITS_LIMIT:
                self.log("ignored a message: %s: a new exhibit, and the fleet holds %d already"
                         % (printable(name), EXHIBITS_LIMIT))
                return
            if not payload["online"]:
                # the last will says only "offline": what was known of the day stays
                before = self.exhibits.get(exhibit, {})
                will = "at" not in payload
                payload = dict(before, **payload, offline=self.went_offline(before, payload, retained))
                if will and isinstance(before.get("machine"), str):
                    # a will is written at the connection, before a board's monitor hears which machine the
                    # board plays: a Nimatron on a Pico went OFFLINE as "drnim", its Pi's own machine
                    payload["machine"] = before["machine"]
            self.exhibits[exhibit] = payload
            if isinstance(payload.get("machine"), str):
                self.store.exhibit(exhibit, payload["machine"], payload.get("heard", self.clock()))
            return
        when = payload["ended" if kind == "game" else "at"]
        if when <= self.clock() + AHEAD_S:
            self.keep(kind, payload)
        elif self.store.hold(exhibit, kind, payload, when):
            self.held_from = when if self.held_from is None else min(self.held_from, when)
            self.log("held a message: %s: a %s %s ahead of this computer's clock, kept aside until the clock is "
                     "within a day of it (is network time setting this clock?)" % (name, kind, ago(when - self.clock())))
        else:
            self.log("ignored a message: %s: a %s %s ahead of this computer's clock, and %d are held already" % (
                name, kind, ago(when - self.clock()), HELD_LIMIT))

    def forget_all_but(self, heard):
        """The exhibits whose retained status the broker holds are `heard`: any other, known to the store (for
        `stats`' rows of noughts) or to the table, was cleared and is forgotten, with a line. Nothing is when
        none of those known was heard (Follower.settle says why)."""
        known = set(self.store.exhibit_names()) | set(self.exhibits)
        if not known & set(heard):
            return
        for name in sorted(known - set(heard)):
            self.exhibits.pop(name, None)
            self.store.forget(name)
            self.log("forgot the exhibit %s: the broker no longer holds its status (it was cleared)" % printable(name))

    def keep(self, kind, payload):
        if kind == "game":
            if self.store.game(payload):
                self.games += 1
            else:
                self.duplicates += 1
        else:
            self.store.fault(payload)

    def release_held(self):
        """The games and faults held aside that this computer's clock has now come within a day of, kept."""
        taken = self.store.take_held(self.clock() + AHEAD_S)
        for _, kind, payload in taken:
            self.keep(kind, payload)
        self.held_from = self.store.first_held()
        if taken:
            self.log("kept %d game%s and faults held aside: this computer's clock has come within a day of them"
                     % (len(taken), "" if len(taken) == 1 else "s"))

    def went_offline(self, before, status, retained):
        """When the exhibit went offline, as far as this follower can tell: (time, True, timed) for since then,
        a clean stop's goodbye (which has its time) or a last will that came while subscribed (the broker sends
        it within 45 s of the exhibit gone); (time, False, timed) for before then, a last will the broker kept
        and replays at the follower's start or reconnection, which has no time: the exhibit may have gone an
        hour or months before. `timed`: the timer's reading when this follower heard it come (None for a
        retained goodbye, as old as its time says). A will replayed of an exhibit known offline keeps what was
        known."""
        if "heard" in status:
            return (status["heard"], True, status["heard_timed"])
        if not retained:
            return (self.clock(), True, self.timer())
        if before.get("online") is False:
            return before["offline"]
        return (self.clock(), False, self.timer())

    def age(self, at, timed):
        """Seconds since `at` (the wall clock's time), on the timer when this follower timed it (`timed`)."""
        return self.timer() - timed if timed is not None else self.clock() - at

    def rows(self, clock_times=False, narrow=False):
        """The table: one row of text cells per exhibit, by name, each cell printable. A time is said as
        how long ago, or with `clock_times` as the time it was (a log's table, which is not redrawn);
        `narrow`: the last game's time before its winner, for a table cut at a terminal's width."""
        today = datetime.date.fromtimestamp(self.clock()).isoformat()
        rows = []
        for name in sorted(self.exhibits):
            status = self.exhibits[name]
            rows.append([printable(cell) for cell in [name, status.get("machine", "?"),
                                                      self.online(status, clock_times, narrow),
                                                      self.fault(status, narrow)]
                         + self.day(status, today, self.live(status))
                         + [self.last_game(status, clock_times, narrow)]])
        return rows

    def when(self, at, clock_times):
        return "at " + self.time_of(at) if clock_times else "%s ago" % ago(self.clock() - at)

    def time_of(self, at):
        same_day = datetime.date.fromtimestamp(at) == datetime.date.fromtimestamp(self.clock())
        return time.strftime("%H:%M:%S" if same_day else "%Y-%m-%d %H:%M:%S", time.localtime(at))

    def online(self, status, clock_times=False, narrow=False):
        """"yes", OFFLINE with its age (`offline`), or "silent 12 min" after SILENT_AFTER_BEATS heartbeats
        unheard; `narrow`, "silent 12m", which leaves the last game's time inside 80 columns."""
        if not status["online"]:
            return self.offline(status, clock_times, narrow)
        if self.silent(status):
            heard = status["heard"]
            return "silent, last heard at " + self.time_of(heard) if clock_times \
                else "silent %s" % ago(self.age(heard, status["heard_timed"]), short=narrow)
        return "yes"

    def silent(self, status):
        """Unheard for more than SILENT_AFTER_BEATS of its heartbeats (a status without one never is)."""
        beat = status.get("heartbeat_s")
        return isinstance(beat, int) and self.age(status["heard"], status["heard_timed"]) > SILENT_AFTER_BEATS * beat

    def live(self, status):
        """Online, with heartbeats, and heard within SILENT_AFTER_BEATS of them: its status is the exhibit's now
        (one without a heartbeat may be as old as anything)."""
        return status["online"] and isinstance(status.get("heartbeat_s"), int) and not self.silent(status)

    def offline(self, status, clock_times, narrow):
        """OFFLINE, and since when (`went_offline`): "OFFLINE 3 h" (a log's table: "OFFLINE since 14:02:03"), or
        for a last will found kept by the broker "OFFLINE >3 h" (a log's: "OFFLINE (before 09:00:00)"), the time
        the follower found it, when that was a minute ago or more; `narrow`, "OFF" for the 80 columns."""
        at, since, timed = status["offline"]
        if clock_times:
            return "OFFLINE %s" % ("since " + self.time_of(at) if since else "(before %s)" % self.time_of(at))
        word, gone = "OFF" if narrow else "OFFLINE", self.age(at, timed)
        if since:
            return "%s %s" % (word, ago(gone))
        return "%s >%s" % (word, ago(gone)) if gone >= 60 else word

    @staticmethod
    def fault(status, narrow=False):
        """The machine's fault, the service's own, and the Pi's supply sagging or its CPU too hot now (as the
        exhibit last said: an exhibit offline after a sag that rebooted it still shows it); `narrow`, the
        Pi's in short words and all without spaces, which leaves its games today inside 80 columns."""
        power = status.get("power") or {}
        sagging, hot = ("undervolt", "hot") if narrow else ("under-voltage", "too-hot")
        faults = ([status["fault"]] if status.get("fault") else []) + status.get("service_faults", []) + [
            kind for kind, now in ((sagging, power.get("under_voltage")), (hot, power.get("hot"))) if now]
        return ("," if narrow else ", ").join(faults) or "-"

    @staticmethod
    def day(status, today, live):
        """Its games today and the machine's wins: the exhibit's today, in its time zone and by its clock,
        while it is `live` (a heartbeat brings a new day's noughts); else the day the follower calls today,
        which an exhibit silent or offline since an earlier day has not played."""
        counts = status.get("today")
        if counts is None:
            return ["-", "-"]
        if counts["date"] != today and not live:
            return ["0", "0"]
        return [str(counts["games"]), str(counts["machine_wins"])]

    def last_game(self, status, clock_times=False, narrow=False):
        game = status.get("last_game")
        if not isinstance(game, dict) or not isinstance(game.get("ended"), (int, float)):
            return "-"
        if narrow:
            return "%s, %s won" % (self.when(game["ended"], clock_times), game.get("winner"))
        return "%s won, %s" % (game.get("winner"), self.when(game["ended"], clock_times))


def kept(status):
    """What is known of an exhibit from its status: the documented fields (docs/telemetry.md) alone,
    a text cut to TEXT_KEPT characters, a list to FAULTS_KEPT items, anything else of another shape
    left out (the fields the table reads were checked by `decode`)."""
    keep = {}
    for key in STATUS_KEPT:
        value = status.get(key)
        if isinstance(value, str):
            keep[key] = value[:TEXT_KEPT]
        elif value is None or isinstance(value, (bool, int, float)):
            if key in status:
                keep[key] = value
        elif key in ("service_faults", "rows") and isinstance(value, list):
            keep[key] = [item[:TEXT_KEPT] if isinstance(item, str) else item for item in value[:FAULTS_KEPT]
                         if isinstance(item, (str, int))]
        elif key == "today":
            keep[key] = {"date": value["date"][:10], "games": value["games"], "machine_wins": value["machine_wins"]}
        elif key == "last_game":
            keep[key] = {"id": value["id"][:TEXT_KEPT], "winner": value["winner"], "ended": value["ended"]}
        elif key == "power":
            keep[key] = dict((name, value[name]) for name, _ in POWER_FIELDS)
    return keep


HEADINGS = ["exhibit", "machine", "online", "fault", "games today", "machine's wins", "last game"]


def table(rows, headings=HEADINGS):
    """Rows of text cells as aligned columns."""
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headings)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
             for row in [headings, ["-" * w for w in widths]] + rows]
    return "\n".join(lines)


def ago(seconds, short=False):
    """How long: "12 min", or `short` "12m" for a table cut to a terminal's width."""
    seconds = max(0, int(seconds))
    if seconds < 120:
        return "%d%s" % (seconds, "s" if short else " s")
    if seconds < 7200:
        return "%d%s" % (seconds // 60, "m" if short else " min")
    if seconds < 172800:
        return "%d%s" % (seconds // 3600, "h" if short else " h")
    return "%d%s" % (seconds // 86400, "d" if short else " days")
