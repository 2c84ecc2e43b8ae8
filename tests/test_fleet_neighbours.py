"""Issue 26: what a hostile neighbour on the museum's network can do to `controller fleet`.

A real broker (Debian's mosquitto, tests/broker_rig.py), a real publisher
(paho, as a stranger on the same broker would use it) and the follower as a
museum runs it: `controller fleet` in a process of its own. Each test has its
own topic prefix.
"""

import json
import math
import re
import sqlite3
import subprocess
import sys
import time

import paho.mqtt.client as mqtt
import pytest

from broker_rig import Broker, tls_settings, wait_until
from conftest import ROOT, in_process
from controller.telemetry.fleet import Fleet, FleetStore
from controller.telemetry.outbox import Outbox
from controller.telemetry.payloads import encode

sys.path.insert(0, str(ROOT / "bench"))
import fleet_kill_campaign  # noqa: E402


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    broker = Broker(tmp_path_factory.mktemp("broker"))
    yield broker
    broker.stop()


class Stranger:
    """A publisher on the museum's broker: one retained or queued QoS 1 message at a time, each acknowledged."""

    def __init__(self, broker, name):
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name)
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        self.retained = []

    def publish(self, topic, raw, retain=False):
        self.client.publish(topic, raw, qos=1, retain=retain).wait_for_publish(5)
        if retain:
            self.retained.append(topic)

    def close(self):
        for topic in self.retained:
            self.publish(topic, b"")
        self.client.loop_stop()
        self.client.disconnect()


def fleet(broker, prefix, *more, db=None):
    """`controller fleet ...` run in this process: its exit status, stdout and stderr (conftest.in_process);
    the refused certificate's and password file's tests start real ones."""
    argv = ["fleet", *more, "--broker", broker.address, "--prefix", prefix]
    if db:
        argv += ["--db", str(db), "--client-id", "%s-follower" % prefix]
    return in_process(argv)


def status(name, **more):
    payload = {"v": 1, "exhibit": name, "online": True, "at": time.time(), "machine": "drnim", "mode": "play",
               "fault": None, "version": "0.1.0", "uptime_s": 5, "heartbeat_s": 60,
               "today": {"date": time.strftime("%Y-%m-%d"), "games": 3, "machine_wins": 2},
               "last_game": {"id": "%s/1" % name, "winner": "machine", "ended": time.time() - 30}}
    payload.update(more)
    return payload


def game(name, number, **more):
    payload = {"v": 1, "exhibit": name, "id": "%s/%d" % (name, number), "machine": "drnim", "winner": "player",
               "turns": 6, "duration_s": 40, "ended": time.time(), "settings": {}}
    payload.update(more)
    return payload


def raw(payload):
    """JSON as a stranger may write it: Python's json writes inf and nan as Infinity and NaN, and a
    lone surrogate as its escape."""
    return json.dumps(payload).encode()


HOSTILE_STATUSES = {
    "minus-infinity": raw(status("minus-infinity", last_game={"id": "a", "winner": "machine", "ended": -math.inf})),
    "typed-1e999": raw(status("typed-1e999")).replace(b'"uptime_s": 5', b'"uptime_s": 5, "at": -1e999'),
    "nan": raw(status("nan", at=math.nan)),
    "infinity": raw(status("infinity", at=math.inf)),
    "surrogate": raw(status("surrogate", machine="\ud800")),
    "huge-uptime": raw(status("huge-uptime", uptime_s=2 ** 64)),
    "far-future": raw(status("far-future", last_game={"id": "b", "winner": "player", "ended": 1e300})),
}


def test_no_retained_status_crashes_the_table_and_each_costs_one_line(broker):
    prefix = "hostile-status"
    stranger = Stranger(broker, "hostile-status-stranger")
    try:
        for name, payload in HOSTILE_STATUSES.items():
            stranger.publish("%s/%s/status" % (prefix, name), payload, retain=True)
        stranger.publish("%s/hall-1/status" % prefix, raw(status("hall-1")), retain=True)
        result = fleet(broker, prefix, "--once")
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        ignored = result.stderr.splitlines()
        assert len(ignored) == len(HOSTILE_STATUSES), result.stderr
        assert all(line.startswith("controller fleet: ignored a message: %s/" % prefix) for line in ignored)
        rows = result.stdout.splitlines()[2:]
        assert [row.split()[:3] for row in rows] == [["hall-1", "drnim", "yes"]]
    finally:
        stranger.close()


def test_games_no_store_holds_are_ignored_and_the_good_ones_after_them_kept(broker, tmp_path):
    """`fleet stats` with games whose numbers SQLite cannot hold (above 2**63), times that are not
    finite or far ahead, a lone surrogate: each ignored in one line; the good games after them counted."""
    prefix = "hostile-games"
    db = tmp_path / "fleet.sqlite"
    assert fleet(broker, prefix, "stats", db=db).returncode == 0     # the persistent session, before the games
    stranger = Stranger(broker, "hostile-games-stranger")
    bad = [game("hall-1", 1, turns=2 ** 63), game("hall-1", 2, duration_s=2 ** 70), game("hall-1", 3, ended=math.inf),
           game("hall-1", 4, ended=math.nan), game("hall-1", 5, machine="\udfff"), game("hall-1", 6, ended=1e300),
           game("hall-1", 7, ended=time.time() + 3 * 86400)]
    try:
        for number, payload in enumerate(bad):
            stranger.publish("%s/hall-1/game" % prefix, raw(payload))
            stranger.publish("%s/hall-1/game" % prefix, raw(game("hall-1", 100 + number)))
        result = fleet(broker, prefix, "stats", db=db)
    finally:
        stranger.close()
    assert result.returncode == 0, result.stderr
    assert len(result.stderr.splitlines()) == len(bad) and "Traceback" not in result.stderr, result.stderr
    assert result.stdout.splitlines()[3].split()[:3] == ["hall-1", "drnim", "%d" % len(bad)]


def test_escape_sequences_from_the_network_never_reach_the_operators_terminal(broker, tmp_path):
    prefix = "escapes"
    title = "\x1b]0;pwned\x07\x1b[2J"
    clipboard = "\x1b]52;c;cm0gLXJmIH4K\x07"
    db = tmp_path / "fleet.sqlite"
    assert fleet(broker, prefix, "stats", db=db).returncode == 0
    stranger = Stranger(broker, "escapes-stranger")
    try:
        stranger.publish("%s/hall-1/status" % prefix, raw(status("hall-1", machine=title, fault=clipboard,
                                                                  service_faults=["\x9b31m", "a\u202eb"])), retain=True)
        stranger.publish("%s/hall-1/game" % prefix, raw(game("hall-1", 1, machine=title)))
        stranger.publish("%s/hall-1/fault" % prefix, raw({"v": 1, "exhibit": "hall-1", "id": "hall-1/f", "machine":
                                                          "drnim", "fault": clipboard, "at": time.time()}))
        stranger.publish("%s/hall-2/status" % prefix, b"not json \x1b[2J", retain=True)
        table = fleet(broker, prefix, "--once")
        stats = fleet(broker, prefix, "stats", db=db)
    finally:
        stranger.close()
    for result in (table, stats):
        assert result.returncode == 0, result.stderr
        shown = result.stdout + result.stderr
        assert "\x1b" not in shown and "\x9b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in table.stdout and "\\x9b31m" in table.stdout
    assert "not JSON: b'not json \\x1b[2J'" in table.stderr
    assert "\\x1b]52;c;cm0gLXJmIH4K\\x07 1" in stats.stdout


def test_a_fat_stranger_costs_the_table_only_what_it_shows():
    """20,000 retained statuses of 14 KB made `fleet --once` hold 1.39 GB: now only the documented
    fields are kept, each text cut short (bench/bench_fleet.py measures the memory)."""
    log = []
    follower = Fleet("fat", FleetStore(":memory:"), log.append)
    payload = status("fat-1", machine="x" * 3000, junk={"a": ["y" * 100] * 50}, mode="z" * 2000,
                     service_faults=["w" * 100] * 30)
    assert 13000 < len(encode(payload)) < 16384
    follower.message("fat/fat-1/status", encode(payload))
    kept = follower.exhibits["fat-1"]
    assert log == [] and "junk" not in kept and "v" not in kept
    assert len(kept["machine"]) == len(kept["mode"]) == 64 and len(kept["service_faults"]) == 8
    assert len(json.dumps(kept)) < 2000


def test_one_exhibit_cannot_take_another_exhibits_game_ids(tmp_path):
    store = FleetStore(str(tmp_path / "fleet.sqlite"))
    follower = Fleet("ids", store, [].append)
    follower.message("ids/hall-1/game", encode(game("hall-1", 1, id="shared")))
    follower.message("ids/hall-2/game", encode(game("hall-2", 1, id="shared")))
    follower.message("ids/hall-2/game", encode(game("hall-2", 1, id="shared")))     # a QoS 1 duplicate
    store.commit()
    assert (follower.games, follower.duplicates) == (2, 1)
    assert store.db.execute("select exhibit from games order by exhibit").fetchall() == [("hall-1",), ("hall-2",)]
    store.close()


def old_store(path, schema, *rows):
    """A store written by an older controller: its `schema`, then `rows` (insert statements)."""
    old = sqlite3.connect(path)
    old.executescript(schema)
    for row in rows:
        old.execute(row)
    old.commit()
    old.close()
    return FleetStore(path)


def test_a_store_keyed_by_id_alone_is_brought_up_to_date_keeping_its_games(tmp_path):
    path = str(tmp_path / "old.sqlite")
    store = old_store(path, "create table games (id text primary key, exhibit text not null, machine text not null, "
                            "winner text not null, turns integer not null, duration_s integer, ended real not null);"
                            "create table faults (id text primary key, exhibit text not null, machine text not null, "
                            "fault text not null, at real not null);",
                      "insert into games values ('a', 'hall-1', 'drnim', 'player', 6, 40, 1795435100.4)",
                      "insert into faults values ('f', 'hall-1', 'drnim', 'jam', 1795435000.0)")
    follower = Fleet("old", store, [].append)
    follower.message("old/hall-2/game", encode(game("hall-2", 1, id="a")))
    store.commit()
    assert store.db.execute("select exhibit, id from games order by exhibit").fetchall() == [("hall-1", "a"),
                                                                                           ("hall-2", "a")]
    assert store.db.execute("select exhibit, fault from faults").fetchall() == [("hall-1", "jam")]
    store.close()
    assert FleetStore(path).db.execute("select count(*) from games").fetchone() == (2,)


def test_a_store_of_version_1_gains_the_exhibits_and_keeps_its_games(tmp_path):
    store = old_store(str(tmp_path / "v1.sqlite"),
                      "create table games (exhibit text not null, id text not null, machine text not null, winner "
                      "text not null, turns integer not null, duration_s integer, ended real not null, primary key "
                      "(exhibit, id)); create table faults (exhibit text not null, id text not null, machine text not "
                      "null, fault text not null, at real not null, primary key (exhibit, id)); pragma user_version = 1;",
                      "insert into games values ('hall-1', 'a', 'drnim', 'player', 6, 40, 1795435100.4)")
    Fleet("v1", store, [].append).message("v1/hall-2/status", encode({"v": 1, "exhibit": "hall-2", "online": False,
                                                                       "at": 1795435000.0, "machine": "nimatron"}),
                                          retained=True)
    store.commit()
    assert store.db.execute("select exhibit, id from games").fetchall() == [("hall-1", "a")]
    assert store.without_games(1795435200.0) == [("hall-2", "nimatron")]
    store.close()


def test_a_game_and_the_days_count_go_into_the_exhibits_queue_together(tmp_path):
    """One transaction: a kill (or a failure) between the two never leaves the day's count ahead of the
    queue (after 15 kill -9 it was 12 games ahead)."""
    outbox = Outbox(str(tmp_path / "telemetry.sqlite"))
    day = ("2026-11-23", "machine", {"id": "x", "winner": "machine", "ended": 1.0})
    with pytest.raises(sqlite3.IntegrityError):
        outbox.add("t", None, day)                       # the message cannot be queued
    assert outbox.today("2026-11-23")["games"] == 0 and outbox.size() == 0 and outbox.last_game() is None
    outbox.add("t", b"{}", day)
    assert outbox.today("2026-11-23")["games"] == 1 and outbox.size() == 1


def test_a_follower_killed_at_random_moments_keeps_every_acknowledged_game(broker, tmp_path):
    """A small sample of bench/fleet_kill_campaign.py: a publisher sends games while the live
    follower is killed (SIGKILL, or Ctrl-C) again and again; every game the broker acknowledged
    to the publisher ends up in the store, once."""
    figures = fleet_kill_campaign.campaign(broker, tmp_path, kills=3, games=2000, seed=26)
    assert figures["kills"] == 3 and figures["sent"] == 2000
    assert figures["kept"] == figures["sent"], figures


def test_a_certificate_that_fails_the_check_is_said_so_not_called_out_of_reach(tmp_path):
    """An exhibit, and `controller fleet`, that do not trust the broker's certificate (here: the
    system's CAs, not the museum's) say the TLS check failed, not that the broker cannot be reached."""
    from controller.sim.engine import Simulation
    from controller.telemetry.settings import check_telemetry
    secure = Broker(tmp_path, "allow_anonymous true\n%s" % tls_settings(tmp_path))
    try:
        hall = Simulation("drnim", telemetry=check_telemetry("test", {
            "enabled": True, "host": "localhost", "port": secure.port, "tls": True, "client_id": "hall-9"}))
        try:
            wait_until(lambda: any("telemetry" in line for line in hall.log), 10, "a line about the broker")
            said = [line for line in hall.log if "telemetry" in line]
        finally:
            hall.close()
        # the check's own words, such as "self-signed certificate in certificate chain"
        found = re.fullmatch(r"telemetry: the broker localhost:%d failed the TLS check \(([a-z -]*certificate[a-z -]*): "
                             r"see telemetry\.ca_file and the broker's certificate\): play goes on; games and faults "
                             r"wait in the queue and are sent when it is back" % secure.port, said[0])
        assert len(said) == 1 and found, said
        result = subprocess.run([sys.executable, "-m", "controller", "fleet", "--once", "--tls", "--broker",
                                 "localhost:%d" % secure.port], capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert result.returncode == 1 and result.stderr == (
            "controller fleet: localhost:%d: TLS failed: %s (see --ca-file and the broker's certificate)\n"
            % (secure.port, found.group(1)))
    finally:
        secure.stop()


@pytest.mark.parametrize("text, mode, said", [
    (None, None, "cannot read it (not a regular file)"),
    (b"secret\n", 0o644, "readable by every user of this computer: chmod o-rw"),
    (b"x" * 100000, 0o600, "more than 4096 bytes: a password file holds one line"),
])
def test_a_password_file_that_is_not_one_private_line_is_refused_at_once(broker, tmp_path, text, mode, said):
    """--password-file /dev/zero read 4 GB in 6 s; a password file anyone may read was used."""
    path = "/dev/zero" if text is None else tmp_path / "password"
    if text is not None:
        path.write_bytes(text)
        path.chmod(mode)
    result = subprocess.run([sys.executable, "-m", "controller", "fleet", "--once", "--broker", broker.address,
                             "--username", "fleet", "--password-file", str(path)], capture_output=True, text=True,
                            cwd=ROOT, timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    # the option named, not the configuration's key, which the fleet does not read
    assert result.stderr.startswith("controller: --password-file: %s: cannot read it (" % path), result.stderr
    assert said in result.stderr
