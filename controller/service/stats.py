"""Statistics in SQLite in the state directory: games, who won, faults.

The game never waits for its statistics and never stops for them. The
service hands each record to `Statistics`, whose own thread writes it; a
database that is damaged, locked, read-only or full costs one line in the
log and a fault in `controller status` (`problem`), not the game. A damaged
file found at start (its pages checked, not only its header) is set aside
under a time-stamped name and a new one begun; when writing works again, the
log says so.

`summary(path)` reads a database without changing it (for `controller stats`).
"""

import os
import queue
import sqlite3
import threading
import time
from pathlib import Path

from controller.service.store import untaken

SCHEMA = """
create table if not exists games (ended real not null, machine text not null, winner text not null);
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
    def game(self, machine, winner):
        self.queue.put(("insert into games values (?, ?, ?)", (self.clock(), machine, winner)))

    def fault(self, machine, kind):
        self.queue.put(("insert into faults values (?, ?, ?)", (self.clock(), machine, kind)))

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
            self.trouble("cannot open the statistics in %s (%s): %s"
                         % (self.path, error, NOT_RECORDED % "the file can be opened"))
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


def summary(path, days=14, clock=time.time):
    """Games per day, wins and faults by kind, read without changing the file.
    sqlite3.DatabaseError when it is not a statistics database."""
    db = sqlite3.connect(Path(path).absolute().as_uri() + "?mode=ro", uri=True)
    try:
        since = clock() - days * 86400
        per_day = db.execute(
            "select date(ended, 'unixepoch', 'localtime') as day, count(*) from games where ended >= ? "
            "group by day order by day", (since,)).fetchall()
        wins = db.execute("select winner, count(*) from games group by winner order by winner").fetchall()
        faults = db.execute("select kind, count(*) from faults group by kind order by kind").fetchall()
    finally:
        db.close()
    return {"games_per_day": per_day, "wins": dict(wins), "faults": dict(faults),
            "jams": dict(faults).get("jam", 0)}
