"""The exhibit's on-disk queue of games and faults not yet acknowledged by the broker.

SQLite in the state directory (telemetry.sqlite), used by the publisher's
thread alone. A message stays until the broker acknowledges it (QoS 1
PUBACK), so a game played while the broker is down, or while the exhibit is
off, is sent when both are back. Bounded: at most LIMIT messages (about 4 MB);
beyond that the oldest are dropped, and the log says how many. Opening it checks its pages
(sqlite3.DatabaseError when one is damaged), so that damage further in than the header is found
at start, where the publisher sets the file aside, and not at every game for months.

It also keeps today's tally and the last game, which the status carries, so
that `controller fleet --once` can show a day's games without having watched them.
Those are one exhibit's: the queue keeps its name, so that a card cloned for another
exhibit, or a new client_id, does not carry them over (`claim`).
"""

import json
import sqlite3

from controller.service.stats import check_pages

LIMIT = 10000

SCHEMA = """
create table if not exists outbox (seq integer primary key autoincrement, topic text not null, payload blob not null);
create table if not exists days (day text primary key, games integer not null, machine_wins integer not null);
create table if not exists last_game (one integer primary key check (one = 1), payload text not null);
create table if not exists exhibit (one integer primary key check (one = 1), name text not null);
"""


class Outbox:
    def __init__(self, path, limit=LIMIT):
        self.limit = limit
        self.db = sqlite3.connect(path, timeout=2.0)
        try:
            self.db.executescript(SCHEMA)
            check_pages(self.db)
        except sqlite3.Error:
            self.db.close()
            raise

    def claim(self, exhibit):
        """Keep the day's games and the last game for `exhibit` from now on. When they were kept for another
        (its SD card cloned, or its client_id changed), they are forgotten, and that exhibit's name is
        returned: its queued messages stay, each sent on its own topic with its own id, which a consumer
        keeps once. A queue of an earlier version, which kept no name, is taken as this exhibit's."""
        with self.db:
            row = self.db.execute("select name from exhibit").fetchone()
            if row is not None and row[0] == exhibit:
                return None
            if row is not None:
                self.db.execute("delete from days")
                self.db.execute("delete from last_game")
            self.db.execute("insert or replace into exhibit values (1, ?)", (exhibit,))
        return row[0] if row is not None else None

    def add(self, name, payload, game=None):
        """Queue one message; the number of old ones dropped to stay within the limit. `game`, for a
        game: (day, winner, the last game's record), counted in the same transaction, so that a kill
        between the two never leaves the day's count ahead of the queue."""
        with self.db:
            self.db.execute("insert into outbox (topic, payload) values (?, ?)", (name, payload))
            over = self.size() - self.limit
            if over > 0:
                self.db.execute("delete from outbox where seq in (select seq from outbox order by seq limit ?)",
                                (over,))
            if game is not None:
                self.count_game(*game)
        return max(0, over)

    def size(self):
        return self.db.execute("select count(*) from outbox").fetchone()[0]

    def waiting(self, leave_out, count):
        """Up to `count` queued messages, oldest first, but for the sequence numbers in `leave_out`."""
        rows = self.db.execute("select seq, topic, payload from outbox order by seq limit ?",
                               (count + len(leave_out),)).fetchall()
        return [row for row in rows if row[0] not in leave_out][:count]

    def sent(self, seq):
        with self.db:
            self.db.execute("delete from outbox where seq = ?", (seq,))

    def count_game(self, day, winner, game):
        """Add a game to its day's tally and keep it as the last game (in the caller's transaction)."""
        self.db.execute("insert or ignore into days values (?, 0, 0)", (day,))
        self.db.execute("update days set games = games + 1, machine_wins = machine_wins + ? where day = ?",
                        (1 if winner == "machine" else 0, day))
        self.db.execute("delete from days where day < date(?, '-30 days')", (day,))
        self.db.execute("insert or replace into last_game values (1, ?)", (json.dumps(game),))

    def today(self, day):
        row = self.db.execute("select games, machine_wins from days where day = ?", (day,)).fetchone()
        return {"date": day, "games": row[0] if row else 0, "machine_wins": row[1] if row else 0}

    def last_game(self):
        row = self.db.execute("select payload from last_game").fetchone()
        return json.loads(row[0]) if row else None

    def close(self):
        self.db.close()
