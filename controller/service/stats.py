"""Statistics in SQLite in the state directory: games, who won, faults."""

import sqlite3
import time

SCHEMA = """
create table if not exists games (ended real not null, machine text not null, winner text not null);
create table if not exists faults (at real not null, machine text not null, kind text not null);
"""


class Statistics:
    def __init__(self, path, clock=time.time):
        self.clock = clock
        # the service makes it in one thread and may use it from its loop thread
        self.db = sqlite3.connect(path, check_same_thread=False)
        self.db.executescript(SCHEMA)

    def game(self, machine, winner):
        with self.db:
            self.db.execute("insert into games values (?, ?, ?)", (self.clock(), machine, winner))

    def fault(self, machine, kind):
        with self.db:
            self.db.execute("insert into faults values (?, ?, ?)", (self.clock(), machine, kind))

    def summary(self, days=14):
        since = self.clock() - days * 86400
        per_day = self.db.execute(
            "select date(ended, 'unixepoch', 'localtime') as day, count(*) from games where ended >= ? "
            "group by day order by day", (since,)).fetchall()
        wins = self.db.execute("select winner, count(*) from games group by winner order by winner").fetchall()
        faults = self.db.execute("select kind, count(*) from faults group by kind order by kind").fetchall()
        return {"games_per_day": per_day, "wins": dict(wins), "faults": dict(faults),
                "jams": dict(faults).get("jam", 0)}

    def close(self):
        self.db.close()
