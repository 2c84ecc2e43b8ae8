"""Issue 12: a museum's fleet reporting to one MQTT broker.

A real broker (Debian's mosquitto, tests/broker_rig.py), simulated exhibits
(the simulator's service on gpiozero mock pins, and `controller run` on mock
pins as a process that can be killed), and the fleet's side as a museum
uses it: `controller fleet` and its store. Each test has its own topic prefix.
"""

import errno
import io
import os
import pty
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from broker_rig import Broker, StrangeBroker, free_port, tls_settings, wait_until
from controller.cli import main
from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.service.config import load_config
from controller.service.daemon import Service
from controller.service.notify import Notifier
from controller.service.stats import Statistics
from controller.sim.autoplay import autoplay
from controller.sim.engine import Simulation
from controller.firmware.monitor import Monitor
from controller.telemetry.command import Follower, session
from controller.telemetry.fleet import Fleet, FleetStore
from controller.telemetry.outbox import Outbox
from controller.telemetry.payloads import encode
from controller.telemetry.settings import check_telemetry
from service_rig import Rig, write_config

SYSTEMD = Path(__file__).resolve().parent.parent / "systemd"


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    broker = Broker(tmp_path_factory.mktemp("broker"))
    yield broker
    broker.stop()


def telemetry(broker, prefix, name, **more):
    return check_telemetry("test", dict({"enabled": True, "host": "127.0.0.1", "port": broker.port,
                                         "client_id": name, "topic_prefix": prefix, "heartbeat_s": 5}, **more))


def follow(broker, prefix, tmp_path, name="follower"):
    """The fleet's side, as the live table runs it: a persistent session, a store; its log kept."""
    log = []
    fleet = Fleet(prefix, FleetStore(str(tmp_path / ("%s.sqlite" % name))), log.append)
    args = types.SimpleNamespace(tls=False, ca_file=None, username=None, password_file=None)
    follower = Follower("127.0.0.1", broker.port, fleet, "%s-%s" % (prefix, name), True, args)
    follower.start()
    follower.subscribed.wait(5)
    return follower, fleet, log


def waiting(follower, condition, timeout=10, what="the fleet"):
    def check():
        follower.pump(0.05)
        return condition()
    wait_until(check, timeout, what)


def fleet_once(broker, prefix):
    out, err = io.StringIO(), io.StringIO()
    saved, sys.stderr = sys.stderr, err
    try:
        code = main(["fleet", "--broker", broker.address, "--prefix", prefix, "--once"], out=out)
    finally:
        sys.stderr = saved
    rows = {line.split()[0]: line.split("  ") for line in out.getvalue().splitlines()[2:]}
    return code, rows, out.getvalue(), err.getvalue()


def test_once_on_a_broker_no_exhibit_has_reported_to_says_so(broker):
    code, rows, out, err = fleet_once(broker, "empty-hall")
    assert code == 0 and rows == {}
    assert err == "controller fleet: no exhibit has reported to %s under empty-hall/ (its [telemetry] " \
        "topic_prefix)\n" % broker.address


def cells(row):
    return [cell.strip() for cell in row if cell.strip()]


def test_every_game_arrives_exactly_once_across_a_broker_restart(broker, tmp_path):
    prefix = "restart"
    follower, fleet, _ = follow(broker, prefix, tmp_path)
    hall1 = Simulation("drnim", telemetry=telemetry(broker, prefix, "hall-1"), state_dir=str(tmp_path / "hall-1"))
    hall2 = Simulation("nimatron", telemetry=telemetry(broker, prefix, "hall-2"), state_dir=str(tmp_path / "hall-2"))
    played = {"hall-1": [], "hall-2": []}
    try:
        def play(name, sim, games):
            if sim.machine.mode == "over":
                sim.press("new_game")
            summary = autoplay(sim, games, "novice", seed=len(played[name]))
            assert summary["unfinished"] == 0
            played[name] += ["player"] * summary["player"] + ["machine"] * summary["machine"]

        play("hall-1", hall1, 2)
        play("hall-2", hall2, 2)
        waiting(follower, lambda: fleet.games == 4, what="the first 4 games")

        broker.stop()
        wait_until(lambda: not hall1.service.telemetry.connected and not hall2.service.telemetry.connected, 10,
                   "the exhibits seeing the broker gone")
        play("hall-1", hall1, 2)
        play("hall-2", hall2, 3)
        hall2.restart()             # the exhibit restarts while its games wait: they wait on disk
        play("hall-2", hall2, 1)
        wait_until(lambda: hall1.service.telemetry.queued >= 2 and hall2.service.telemetry.queued >= 4, 5,
                   "the games queued (%d, %d)" % (hall1.service.telemetry.queued, hall2.service.telemetry.queued))
        assert any("went away" in line and "play goes on" in line for line in hall1.log)
        broker.start()

        total = sum(len(winners) for winners in played.values())
        assert total == 10
        waiting(follower, lambda: fleet.games == total, 20, "all %d games after the restart" % total)
        follower.pump(0.5)          # anything sent twice has had time to come again
        db = sqlite3.connect(str(tmp_path / "follower.sqlite"))
        kept = db.execute("select exhibit, winner from games order by ended").fetchall()
        assert len(kept) == total and fleet.games == total, "each game once, duplicates (%d) dropped" % fleet.duplicates
        for name, winners in played.items():
            assert sorted(w for e, w in kept if e == name) == sorted(winners)
        wait_until(lambda: hall1.service.telemetry.queued == 0 and hall2.service.telemetry.queued == 0, 5,
                   "the queues emptied")
    finally:
        hall1.close()
        hall2.close()
        follower.stop()


@pytest.mark.parametrize("cut_short", [False, True])
def test_the_fleets_session_is_no_name_a_screen_can_guess_and_the_old_sessions_games_are_collected(
        broker, tmp_path, monkeypatch, capsys, cut_short):
    """The follower's persistent session was drnim-fleet-HOSTNAME: anyone who may log in (the README's screens,
    whose password is in every screen's address) connecting with that client ID took the games the broker
    queued while no follower ran, and threw the live table off. Its name is made once and kept in the store;
    a store that followed under the old name collects what waits there, and that session is ended once it
    is empty: `cut_short`, a collection that stops before (days of games waiting, on a Pi) leaves it for the
    next start, where it had ended the session and the games left in it (found by the fleet review)."""
    prefix = "moving-%s" % cut_short
    monkeypatch.setattr(socket, "gethostname", lambda: "office-%s" % prefix)
    before = "drnim-fleet-office-%s" % prefix
    path = tmp_path / "fleet.sqlite"
    fleet = Fleet(prefix, FleetStore(str(path)), lambda text: None)
    args = types.SimpleNamespace(tls=False, ca_file=None, username=None, password_file=None)
    older = Follower("127.0.0.1", broker.port, fleet, before, True, args)      # the version before's follower
    older.start()
    older.subscribed.wait(5)
    hall = Simulation("drnim", telemetry=telemetry(broker, prefix, "hall-1"), state_dir=str(tmp_path / "hall-1"))

    def play(games):
        if hall.machine.mode == "over":
            hall.press("new_game")
        assert autoplay(hall, games, "novice", seed=games)["unfinished"] == 0
        wait_until(lambda: hall.service.telemetry.queued == 0, 10, "the games at the broker")

    def stats():
        assert main(["fleet", "stats", "--broker", broker.address, "--prefix", prefix, "--db", str(path)]) == 0
        said = capsys.readouterr()
        return {line.split()[0]: line.split()[2] for line in said.out.splitlines() if line.startswith("hall-")}, said.err

    try:
        play(1)
        waiting(older, lambda: fleet.games == 1)
        older.stop()
        fleet.store.close()
        play(2)                                         # queued in the session the follower had

        if cut_short:
            with monkeypatch.context() as short:
                short.setattr("controller.telemetry.command.COLLECT_S", 0)
                counted, said = stats()
            assert counted["hall-1"] == "1"
            assert said == "controller fleet: collected 0 games of those that wait in the broker's session %s, " \
                "which this follower left for one of its own: the rest at the next start\n" % before
        counted, said = stats()
        assert counted["hall-1"] == "3"
        assert "controller fleet: collected the games that waited in the broker's session %s (2), which this " \
            "follower left for one of its own\n" % before in said
        current = sqlite3.connect(path).execute("select client_id from sessions").fetchall()
        assert current[0][0] == session(FleetStore(str(path)))[0], "kept"
        assert len(current) == 1 and re.fullmatch(r"%s-[0-9a-f]{12}" % before, current[0][0]), current

        play(1)                                         # queued in the follower's session while it does not run
        taken, answered = [], []
        intruder = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=before, clean_session=False)
        intruder.on_connect = lambda client, data, flags, reason, properties: answered.append(flags.session_present)
        intruder.on_message = lambda client, data, message: taken.append(message.topic)
        intruder.connect("127.0.0.1", broker.port)
        intruder.loop_start()
        try:
            wait_until(lambda: answered, what="the broker's answer to the old name")
            time.sleep(1)
        finally:
            intruder.disconnect()
            intruder.loop_stop()
        assert answered == [False] and taken == [], "the old name still held a session, and what it queued"

        counted, said = stats()
        assert counted["hall-1"] == "4" and said == ""
    finally:
        hall.close()


def test_a_store_copied_to_another_computer_follows_there_under_a_session_of_its_own(tmp_path, monkeypatch):
    """The name of the session is kept in the store: a copy on another computer took it too, and the two
    followers threw each other off every second, each keeping part of the games (found by the fleet review)."""
    store = FleetStore(str(tmp_path / "fleet.sqlite"))
    monkeypatch.setattr(socket, "gethostname", lambda: "office")
    first, left = session(store)
    assert re.fullmatch(r"drnim-fleet-office-[0-9a-f]{12}", first) and left == []
    assert session(store) == (first, [])
    monkeypatch.setattr(socket, "gethostname", lambda: "archive-laptop")
    copied, left = session(store)
    assert re.fullmatch(r"drnim-fleet-archive-laptop-[0-9a-f]{12}", copied) and left == []
    assert session(store) == (copied, [])


def run_exhibit(tmp_path, port, prefix, name, host="127.0.0.1", **popen):
    """`controller run` on mock pins, reporting to the broker at `host`:`port`, as a process that can be
    killed (`popen`: more for subprocess.Popen, such as its environment)."""
    (tmp_path / name).mkdir(exist_ok=True)
    config = write_config(tmp_path / name)
    config.write_text(config.read_text().replace("[service]", "[service]\nheartbeat_s = 1") + '[telemetry]\nenabled = true\nhost = "%s"\nport = %d\n'
                      'client_id = "%s"\ntopic_prefix = "%s"\n' % (host, port, name, prefix))
    return config, subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **popen)


def test_the_last_will_fires_and_the_table_shows_the_fleet(broker, tmp_path):
    prefix = "will"
    follower, fleet, _ = follow(broker, prefix, tmp_path)
    config, process = run_exhibit(tmp_path, broker.port, prefix, "hall-3")
    hall1 = Simulation("drnim", telemetry=telemetry(broker, prefix, "hall-1"))
    try:
        summary = autoplay(hall1, 3, "novice", seed=4)
        waiting(follower, lambda: fleet.exhibits.get("hall-3", {}).get("online") is True, 20, "hall-3 online")
        waiting(follower, lambda: fleet.games == 3, 10, "hall-1's games")
        code, rows, text, _ = fleet_once(broker, prefix)
        assert code == 0 and sorted(rows) == ["hall-1", "hall-3"], text
        assert cells(rows["hall-1"])[:6] == ["hall-1", "drnim", "yes", "-", "3", str(summary["machine"])], text
        assert cells(rows["hall-1"])[6].startswith(("player won", "machine won")), text
        assert cells(rows["hall-3"])[:6] == ["hall-3", "drnim", "yes", "-", "0", "0"], text
        shown = "Telemetry: connected to 127.0.0.1:%d, 0 games and faults waiting to be sent.\n" % broker.port

        def status():
            out = io.StringIO()
            main(["status", "--config", str(config)], out=out)
            return out.getvalue()
        wait_until(lambda: shown in status(), 10, "controller status saying so")

        last_heard = fleet.exhibits["hall-3"]["at"]
        process.send_signal(signal.SIGKILL)      # a crash, a pulled plug: no goodbye
        process.wait(10)
        waiting(follower, lambda: fleet.exhibits["hall-3"]["online"] is False, 10, "hall-3's last will")
        went = time.time()
        # the will says nothing of when: what the fleet knew last stands, not the time hall-3 connected
        assert fleet.exhibits["hall-3"]["at"] >= last_heard, (fleet.exhibits["hall-3"]["at"], last_heard)
        # but the follower heard it go: since then, its age in the table, its time of day in a log's
        ages = dict((row[0], row[2]) for row in fleet.rows())
        logged = dict((row[0], row[2]) for row in fleet.rows(clock_times=True))
        assert re.fullmatch(r"OFFLINE \d s", ages["hall-3"]) and ages["hall-1"] == "yes", ages
        assert logged["hall-3"] in ["OFFLINE since " + time.strftime("%H:%M:%S", time.localtime(went - back))
                                    for back in range(3)], logged
        # a follower started since finds the will the broker kept, which has no time: it says none
        code, rows, text, _ = fleet_once(broker, prefix)
        assert cells(rows["hall-3"])[:3] == ["hall-3", "drnim", "OFFLINE"], text
        assert cells(rows["hall-1"])[2] == "yes"
    finally:
        if process.poll() is None:
            process.kill()
        hall1.close()
        follower.stop()
    code, rows, text, _ = fleet_once(broker, prefix)
    stopped = cells(rows["hall-1"])
    assert stopped[:2] + stopped[3:5] == ["hall-1", "drnim", "-", "3"] and re.fullmatch(r"OFFLINE \d s", stopped[2]), \
        "a clean stop says goodbye, with the day's games and its time: " + text


def test_a_strangers_bad_payloads_are_ignored_with_a_line_each(broker, tmp_path):
    prefix = "strangers"
    follower, fleet, log = follow(broker, prefix, tmp_path)
    stranger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="stranger")
    stranger.connect("127.0.0.1", broker.port)
    stranger.loop_start()
    good = {"v": 1, "exhibit": "hall-1", "id": "hall-1/1", "machine": "drnim", "winner": "player", "turns": 6,
            "ended": time.time(), "duration_s": 40, "settings": {}}
    bad = [("hall-1/game", b"not json at all"),
           ("hall-1/game", b"\xff\xfe\x00"),
           ("hall-1/game", encode(dict(good, winner="nobody"))),
           ("hall-1/game", encode(dict(good, turns="six"))),
           ("hall-1/game", encode(dict(good, exhibit="hall-2"))),
           ("hall-1/status", encode({"v": 2, "exhibit": "hall-1", "online": True})),
           ("hall-1/fault", b"[1, 2, 3]"),
           ("hall-1/status", b"{" * 100000)]
    try:
        for name, payload in bad:
            stranger.publish("%s/%s" % (prefix, name), payload, qos=1).wait_for_publish(5)
        stranger.publish("%s/evil/status" % prefix, b"\x00 retained garbage", qos=1, retain=True).wait_for_publish(5)
        stranger.publish("%s/hall-1/game" % prefix, encode(good), qos=1).wait_for_publish(5)
        waiting(follower, lambda: fleet.games == 1, 10, "the good game")
        assert len(log) == len(bad) + 1, log
        assert all("\n" not in line and line.startswith("ignored a message: %s/" % prefix) for line in log), log
        assert fleet.exhibits == {}
        code, rows, text, err = fleet_once(broker, prefix)
        assert code == 0 and rows == {} and err.count("\n") == 2 and "ignored a message" in err, (text, err)
        assert err.splitlines()[-1].startswith("controller fleet: no exhibit has reported"), err
    finally:
        stranger.publish("%s/evil/status" % prefix, b"", retain=True).wait_for_publish(5)
        stranger.loop_stop()
        follower.stop()


def test_an_unreachable_broker_is_one_line_and_exit_1(capsys):
    code = main(["fleet", "--broker", "127.0.0.1:%d" % free_port(), "--once"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "cannot reach the broker" in err


class WatchedPin(MockPWMPin):
    """The release pin: an event when it opens."""

    def __init__(self, factory, info):
        super().__init__(factory, info)
        self.rose = threading.Event()

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed and value:
            self.rose.set()
        return changed


def black_hole():
    """A broker that takes the connection and never answers (a hung or overloaded one)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    return listener, listener.getsockname()[1]


@pytest.mark.parametrize("broker_state", ["stopped", "never answers"])
def test_play_never_waits_for_the_broker(tmp_path, broker_state):
    """The release still follows the trigger at once: loose bound, the figures are in bench/bench_fleet.py."""
    listener, port = black_hole() if broker_state == "never answers" else (None, free_port())
    config_path = write_config(tmp_path, marbles=999, capacity=999, lenient=True)
    config_path.write_text(config_path.read_text() + '[telemetry]\nenabled = true\nhost = "127.0.0.1"\n'
                           'port = %d\nclient_id = "hall-9"\nheartbeat_s = 5\n' % port)
    config = load_config(str(config_path))
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    factory = MockFactory(pin_class=MockPWMPin)
    release = factory.pin(pinmap.outputs["release"].pins["pin"], pin_class=WatchedPin)
    trigger = factory.pin(pinmap.inputs["trigger"].pin)
    sensor = factory.pin(pinmap.inputs["marble_sensor"].pin)
    sensor.drive_high()
    log = []
    service = Service(config, pinmap, pin_factory=factory, notifier=Notifier({}), log=log.append)
    loop = threading.Thread(target=service.run, daemon=True)
    loop.start()
    slowest = 0
    try:
        for _ in range(5):
            release.rose.clear()
            start = time.perf_counter()
            trigger.drive_low()
            assert release.rose.wait(5), "the release never opened"
            slowest = max(slowest, time.perf_counter() - start)
            time.sleep(0.1)
            trigger.drive_high()
            sensor.drive_low()
            time.sleep(0.02)
            sensor.drive_high()
            time.sleep(0.1)
        # what the test holds: the release within the pace between Dr. Nim's marbles, 900 ms (a connect to a
        # broker that never answers takes seconds), on a busy machine too: 500 ms failed once, at 535, in a
        # CI run's suite on 2 cores
        assert slowest < 0.9, "slowest trigger-to-release %.0f ms" % (1000 * slowest)
        assert not service.telemetry.connected
    finally:
        service.request_stop()
        loop.join(15)
        if listener:
            listener.close()
    assert not loop.is_alive(), "the service stopped although the broker never answered"


def test_config_check_names_a_bad_telemetry_setting(tmp_path, capsys):
    path = write_config(tmp_path)
    for text, expected in [('client_id = "hall/1"', "telemetry.client_id: 'hall/1'"),
                           ('topic_prefix = "museum/#"', "telemetry.topic_prefix"),
                           ('port = 70000', "telemetry.port: must be a whole number from 0 to 65535"),
                           ('brokr = "x"', "telemetry.brokr: unknown setting"),
                           ('enabled = true\npassword_file = "/no/such/file"\nusername = "a"',
                            "telemetry.password_file: '/no/such/file': no such file"),
                           ('enabled = true\npassword_file = "%s"\nusername = "a"' % (tmp_path / "secret"),
                            "telemetry.password_file: %s: cannot read it" % (tmp_path / "secret"))]:
        (tmp_path / "secret").write_bytes(b"\xff\xfe not UTF-8")
        os.chmod(tmp_path / "secret", 0o600)
        path.write_text(write_config(tmp_path).read_text() + "[telemetry]\n%s\n" % text)
        assert main(["config", "check", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and expected in err, err


def test_the_fleet_keeps_a_game_sent_twice_once(tmp_path):
    """QoS 1 is at least once: the same game id again is not counted again."""
    store = FleetStore(str(tmp_path / "fleet.sqlite"))
    fleet = Fleet("m", store, lambda text: None)
    game = encode({"v": 1, "exhibit": "a", "id": "a/1", "machine": "drnim", "winner": "machine", "turns": 5,
                   "ended": time.time(), "duration_s": None, "settings": {}})
    for _ in range(3):
        fleet.message("m/a/game", game)
    store.commit()
    assert (fleet.games, fleet.duplicates) == (1, 2)
    out = io.StringIO()
    assert main(["fleet", "stats", "--offline", "--db", str(tmp_path / "fleet.sqlite"), "--period", "1d"],
                out=out) == 0
    assert out.getvalue().splitlines()[3].split() == ["a", "drnim", "1", "1", "0", "5.0", "-"]


def test_the_queue_is_bounded_and_drops_the_oldest(tmp_path):
    outbox = Outbox(str(tmp_path / "telemetry.sqlite"), limit=3)
    dropped = [outbox.add("t", b"%d" % n) for n in range(5)]
    assert dropped == [0, 0, 0, 1, 1]
    assert [payload for _, _, payload in outbox.waiting(set(), 10)] == [b"2", b"3", b"4"]


def test_on_a_pi_the_service_reaches_the_broker_through_the_local_socket(broker, tmp_path, monkeypatch):
    """As systemd runs it (drnim-mqtt.socket): the controller has no network, connects to a local
    socket, and systemd's socket proxy carries the bytes to the broker."""
    path = tmp_path / "broker.sock"
    process = socket_proxy(broker, path)
    follower, fleet, _ = follow(broker, "socket", tmp_path)
    try:
        wait_until(path.exists, 10, "the socket")
        monkeypatch.setenv("DRNIM_MQTT_SOCKET", str(path))
        # the host is the broker's name for TLS; the bytes go through the socket
        sim = Simulation("drnim", telemetry=telemetry(broker, "socket", "hall-4", host="broker.invalid"))
        try:
            autoplay(sim, 1, "novice")
            waiting(follower, lambda: fleet.games == 1, 10, "the game through the socket")
            # a first try may meet the socket bound but not yet listening: the retry is what a Pi does too
            connected = "telemetry: connected to broker.invalid:%d (through %s) as hall-4" % (broker.port, path)
            assert any(line.startswith(connected) for line in sim.log), sim.log
        finally:
            sim.close()
    finally:
        process.terminate()
        process.wait(5)
        follower.stop()


def socket_proxy(broker, path):
    """systemd's socket proxy, as drnim-mqtt.socket runs it: the local socket `path` to the broker."""
    activate = shutil.which("systemd-socket-activate")
    proxy = next((p for p in ("/usr/lib/systemd/systemd-socket-proxyd", "/lib/systemd/systemd-socket-proxyd")
                  if os.access(p, os.X_OK)), None)
    if activate is None or proxy is None:
        pytest.skip("systemd-socket-activate or systemd-socket-proxyd is missing: install Debian's package systemd")
    return subprocess.Popen([activate, "--listen", str(path), proxy, "127.0.0.1:%d" % broker.port],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_the_service_reports_to_the_broker_within_its_units_sandbox(broker, tmp_path):
    """The units keep the service off the network: only local sockets (RestrictAddressFamilies=AF_UNIX),
    the broker reached through drnim-mqtt.socket. paho-mqtt wakes its thread through a pair of sockets it
    made over TCP on 127.0.0.1, which that refuses: telemetry stopped a second after the start, with a
    traceback in the journal, `controller status` said "not connected yet" for ever and --check said OK.
    Here `controller run` gets the families the unit and its telemetry drop-in allow (a board's monitor the
    same), refused by the kernel as systemd has them refused (tests/sandbox_rig.py), and its status reaches
    the broker."""
    import sandbox_rig
    if sandbox_rig.missing():
        pytest.skip(sandbox_rig.missing())
    families, monitors = (sandbox_rig.unit_address_families(SYSTEMD / unit, SYSTEMD / "drnim-controller-telemetry.conf")
                          for unit in ("drnim-controller.service", "drnim-monitor@.service"))
    assert families == monitors
    path = tmp_path / "broker.sock"
    proxy = socket_proxy(broker, path)
    follower, fleet, _ = follow(broker, "sandbox", tmp_path)
    try:
        wait_until(path.exists, 10, "the socket")
        _, process = run_exhibit(tmp_path, broker.port, "sandbox", "hall-9", host="broker.invalid", text=True,
                                 env=dict(os.environ, DRNIM_MQTT_SOCKET=str(path)),
                                 preexec_fn=sandbox_rig.restricted(families))
        try:
            waiting(follower, lambda: fleet.exhibits.get("hall-9", {}).get("online") is True, 20,
                    "the exhibit's status through the socket, within %s" % sorted(families))
        finally:
            process.terminate()
            _, stderr = process.communicate(timeout=30)
        assert "Traceback" not in stderr, stderr
    finally:
        proxy.terminate()
        proxy.wait(5)
        follower.stop()


def test_telemetry_stopped_by_an_error_is_said_and_tried_again_while_play_goes_on(tmp_path):
    """An error no session expects ended the telemetry's thread with a traceback alone: the exhibit's games
    waited for ever, `controller status` said "not connected yet" and --check OK. In a sandbox stricter than
    the units' (no socket at all: paho cannot make its pair), it is one line in the journal, the status says
    it, --check warns, and the service plays on."""
    import sandbox_rig
    if sandbox_rig.missing():
        pytest.skip(sandbox_rig.missing())
    config, process = run_exhibit(tmp_path, 1883, "stopped", "hall-8", host="broker.invalid", text=True,
                                  env=dict(os.environ, DRNIM_MQTT_SOCKET=str(tmp_path / "broker.sock")),
                                  preexec_fn=sandbox_rig.restricted(set()))
    said = "the telemetry stopped on an error (OSError: [Errno %d] " % errno.EAFNOSUPPORT

    def status(*more):
        out = io.StringIO()
        return main(["status", "--config", str(config), *more], out=out), out.getvalue()
    try:
        wait_until(lambda: said in status()[1], 20, "controller status saying so")
        code, text = status("--check")
        assert code == 1 and text.startswith("WARNING") and said in text, text
        assert process.poll() is None, "the service plays on"
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    assert "Traceback" not in stderr, stderr
    assert "telemetry: stopped on an error (OSError: [Errno %d] " % errno.EAFNOSUPPORT in stderr, stderr


def test_a_broker_changed_without_install_sh_telemetry_is_said_by_config_check_and_status(tmp_path):
    """The museum moved its broker: the manager changed telemetry.host and restarted the service, as for any
    other setting. drnim-mqtt.service still forwarded to the old broker (install.sh wrote it beside the
    configuration), so the exhibit reported there, or nowhere, and status said only 'not connected yet'."""
    forwarded = tmp_path / "hall-7" / "mqtt-broker.env"
    forwarded.parent.mkdir()
    forwarded.write_text("# Written by install.sh from [telemetry] in config.toml: run it again after a change.\n"
                         "BROKER=broker.old.example:1883\n")
    config, process = run_exhibit(tmp_path, 1883, "moved", "hall-7", host="broker.new.example", text=True,
                                  env=dict(os.environ, DRNIM_MQTT_SOCKET=str(tmp_path / "broker.sock")))
    said = ("the broker broker.new.example:1883 is not where drnim-mqtt.service forwards to: it goes to "
            "broker.old.example:1883 (%s, which install.sh wrote from an earlier [telemetry]): run sudo "
            "systemd/install.sh telemetry" % forwarded)
    out = io.StringIO()
    assert main(["config", "check", str(config)], out=out) == 0
    assert out.getvalue().splitlines()[-1] == "%s: telemetry: %s" % (config, said)

    def check():
        out = io.StringIO()
        return main(["status", "--config", str(config), "--check"], out=out), out.getvalue()
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True)
    reader.start()
    unreachable = "telemetry: the broker broker.new.example:1883 (through %s, which drnim-mqtt.service forwards to " \
        "broker.old.example:1883) cannot be reached" % (tmp_path / "broker.sock")
    try:
        wait_until(lambda: "forwards to" in check()[1], 20, "controller status saying so")
        code, text = check()
        assert code == 1 and text.startswith("WARNING - telemetry: the broker broker.new.example:1883 (through %s) "
                                             "is not where drnim-mqtt.service forwards to: it goes to "
                                             "broker.old.example:1883 " % (tmp_path / "broker.sock")), text
        # every later line names the broker the bytes reach, never the new one alone (its first try to connect
        # may come after status said so, on a busy machine)
        wait_until(lambda: any(unreachable in line for line in lines), 20, "the exhibit's first try to connect")
    finally:
        process.terminate()
        process.wait(timeout=30)
        reader.join(timeout=30)
    assert any("is not where drnim-mqtt.service forwards to" in line for line in lines), lines
    forwarded.write_text("BROKER=broker.new.example:1883\n")     # install.sh telemetry, run again
    out = io.StringIO()
    assert main(["config", "check", str(config)], out=out) == 0 and "forwards" not in out.getvalue()


def test_a_picos_games_reach_the_broker_through_the_monitor(broker, tmp_path):
    """`controller firmware monitor` on a board's port (a real pseudo-terminal) publishes what the board says."""
    from serial_rig import Port
    from test_firmware_monitor import GAME, HELLO, Running
    follower, fleet, _ = follow(broker, "pico", tmp_path)
    config = write_config(tmp_path)
    config.write_text(config.read_text() + '[telemetry]\nenabled = true\nhost = "127.0.0.1"\nport = %d\n'
                      'client_id = "pico-1"\ntopic_prefix = "pico"\n' % broker.port)
    (tmp_path / "state").mkdir()
    port = Port(tmp_path / "ttyACM0")
    monitor = Running("--port", port.path, "--config", str(config))
    try:
        monitor.until("Ctrl-C stops")
        assert port.lines() == ['{"id":"monitor","kind":"state"}'], "the monitor has the port open"
        port.write(HELLO + "".join(line + "\n" for line in GAME))
        # the status that counts the game is sent just after it (publisher.py): wait for both
        waiting(follower, lambda: fleet.games == 1 and fleet.exhibits.get("pico-1", {}).get("today", {}).get("games")
                == 1, 15, "the board's game")
        status = fleet.exhibits["pico-1"]
        assert (status["online"], status["mode"], status["winner"], status["today"]["games"]) == (
            True, "over", "machine", 1)
        db = sqlite3.connect(str(tmp_path / "follower.sqlite"))
        assert db.execute("select exhibit, winner, turns from games").fetchall() == [("pico-1", "machine", 2)]
        waiting(follower, lambda: db.execute("select fault from faults").fetchall() == [("jam",)], 5, "the jam")
    finally:
        assert monitor.stop() == 0
        port.close()
    waiting(follower, lambda: fleet.exhibits["pico-1"]["online"] is False, 10, "the monitor's goodbye")
    follower.stop()


def test_a_board_monitor_killed_before_its_board_speaks_goes_offline_as_the_machine_it_played(broker, tmp_path):
    """The monitor's last will is written as it connects, before the board names its machine: it named
    the Pi's own, and a Nimatron whose monitor was killed went OFFLINE as "drnim" for every follower
    started later. It names the machine of the board's last game."""
    from serial_rig import Port
    from test_firmware_monitor import Running
    config = write_config(tmp_path)
    config.write_text(config.read_text() + '[telemetry]\nenabled = true\nhost = "127.0.0.1"\nport = %d\n'
                      'client_id = "pico-2"\ntopic_prefix = "quiet"\n' % broker.port)
    (tmp_path / "state").mkdir()
    played = Statistics(str(tmp_path / "state" / "stats.sqlite"))
    played.game("nimatron", "machine")
    assert played.flush()
    played.close()
    port = Port(tmp_path / "ttyACM0")
    monitor = Running("--port", port.path, "--config", str(config))
    try:
        monitor.until("Ctrl-C stops")
        monitor.until("telemetry: connected", stream="err")
    finally:
        monitor.process.kill()
        monitor.process.wait(10)
        port.close()
    follower, fleet, _ = follow(broker, "quiet", tmp_path)
    try:
        waiting(follower, lambda: fleet.exhibits.get("pico-2", {}).get("online") is False, 20, "the last will")
        assert fleet.exhibits["pico-2"]["machine"] == "nimatron"
    finally:
        follower.stop()


def test_a_broker_down_for_longer_than_a_heartbeat_costs_no_cpu(tmp_path):
    """Found in review: once a heartbeat fell due with the broker down, the
    telemetry thread waited for it with a timeout of 0, for ever: a thread spinning beside play."""
    from controller.telemetry.publisher import Telemetry
    later = [0]
    settings = check_telemetry("test", {"enabled": True, "host": "127.0.0.1", "port": free_port(),
                                        "client_id": "hall-5", "heartbeat_s": 5})
    log = []
    publisher = Telemetry(settings, "drnim", str(tmp_path), log.append, clock=lambda: time.time() + later[0],
                          timer=lambda: time.monotonic() + later[0])
    try:
        publisher.status({"mode": "play"})
        wait_until(lambda: any("cannot be reached" in line for line in log), 10, "the broker found down")
        later[0] = 3600                   # an hour on: many heartbeats due, none sendable
        publisher.fault("jam")            # wakes the thread
        start = time.process_time()
        time.sleep(1)
        assert time.process_time() - start < 0.3, "the process was busy while nothing happened"
    finally:
        publisher.close()


@pytest.mark.parametrize("into", ["terminal", "file"])
def test_the_live_table_shows_an_exhibit_and_stops_on_ctrl_c(broker, tmp_path, into):
    """On a terminal the table is redrawn in place each second; into a file or a pipe (`controller fleet >
    fleet.log`) it has no terminal codes, and a table is written only when it changed, under its time."""
    hall = Simulation("nimatron", telemetry=telemetry(broker, "live", "hall-6"))
    if into == "terminal":
        reader, writer = pty.openpty()
    else:
        reader, writer = os.pipe()
    process = subprocess.Popen([sys.executable, "-m", "controller", "fleet", "--broker", broker.address, "--prefix",
                                "live", "--db", str(tmp_path / "fleet.sqlite")], stdout=writer,
                               stderr=subprocess.PIPE)
    os.close(writer)
    shown = [b""]
    frames = (lambda text: text.split(b"\033[H\033[2J")) if into == "terminal" else (
        lambda text: re.split(rb"^(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  broker )", text, flags=re.M))

    def until(words):
        """Read the table until its last frame shows `words`."""
        deadline = time.monotonic() + 15
        while words not in frames(shown[0])[-1]:
            assert time.monotonic() < deadline and process.poll() is None, shown[0]
            shown[0] += os.read(reader, 65536)
    try:
        until(b"(connected)")      # subscribed: the games from now on are kept for it
        autoplay(hall, 1, "novice")
        until(b"1 games kept")
        time.sleep(2.5)            # two more redraws on a terminal; nothing changed, so nothing more in a file
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=15)
        hall.close()
    while True:
        try:
            more = os.read(reader, 65536)
        except OSError:            # a terminal whose writer has ended
            break
        if not more:
            break
        shown[0] += more
    os.close(reader)
    last = frames(shown[0])[-1].decode()
    assert process.returncode == 0 and b"Traceback" not in err, err
    assert "broker %s (connected)  1 exhibits  1 games kept" % broker.address in last, last
    assert cells(next(line for line in last.splitlines() if line.startswith("hall-6")).split("  "))[:5] == [
        "hall-6", "nimatron", "yes", "-", "1"], last
    # the game and the exhibit's status that counts it are two messages, which may land in two tables
    tables = [frame[len("YYYY-mm-dd HH:MM:SS"):].rstrip() for frame in frames(shown[0]) if frame]
    if into == "file":
        assert b"\033" not in shown[0] and tables.count(tables[-1]) == 1, shown[0].decode()
        assert all(before != after for before, after in zip(tables, tables[1:])), shown[0].decode()
    else:                          # redrawn each second, changed or not
        assert len([table for table in tables if b"1 games kept" in table]) >= 2, shown[0].decode()


def test_stats_and_a_second_table_beside_the_live_table_never_throw_it_off_the_broker(broker, tmp_path):
    """`controller fleet stats`, run beside the live table on its store, connected under the table's own
    session: the broker threw the table off ("reconnecting...") for as long as the stats ran, and a second
    live table on the store (a wall screen's and an ssh window's) threw the first off every second, and
    was thrown off in turn. The one that comes second follows under a session of its own, but for a table
    that finds a `stats` there: it waits for it, to follow under the store's session."""
    import fcntl
    hall = Simulation("drnim", telemetry=telemetry(broker, "beside", "hall-7"))
    store = str(tmp_path / "fleet.sqlite")
    tables = []

    def table():
        process = subprocess.Popen([sys.executable, "-m", "controller", "fleet", "--broker", broker.address,
                                    "--prefix", "beside", "--db", store], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        shown, said = [], []
        for stream, lines in ((process.stdout, shown), (process.stderr, said)):
            threading.Thread(target=lambda stream=stream, lines=lines: lines.extend(iter(stream.readline, b"")),
                             daemon=True).start()
        tables.append((process, shown, said))
        return shown, said

    stats = open(store + ".follower", "a+")      # a stats that follows the store
    fcntl.flock(stats, fcntl.LOCK_EX)
    stats.write("4242 stats\n")
    stats.flush()
    first, said = table()
    try:
        wait_until(lambda: said, 15, "the table's line")
        assert said == [("controller fleet: a controller fleet stats (pid 4242) follows the store %s: the table "
                         "starts once it ends\n" % store).encode()]
        stats.close()
        wait_until(lambda: any(b"(connected)" in line for line in first), 15, "the live table")
        assert Path(store + ".follower").read_text() == "%d table\n" % tables[0][0].pid
        autoplay(hall, 1, "novice")
        wait_until(lambda: any(b"1 games kept" in line for line in first), 15, "the game in the table")
        out = io.StringIO()
        assert main(["fleet", "stats", "--broker", broker.address, "--prefix", "beside", "--db", store],
                    out=out) == 0
        assert next(line for line in out.getvalue().splitlines() if line.startswith("hall-7")).split()[2] == "1"
        second, _ = table()
        wait_until(lambda: any(b"(connected)" in line for line in second), 15, "the second table")
        time.sleep(3)
    finally:
        stats.close()
        for process, _, _ in tables:
            process.send_signal(signal.SIGINT)
        for process, _, _ in tables:
            process.wait(timeout=15)
        hall.close()
    for process, shown, said in tables:
        assert process.returncode == 0 and b"Traceback" not in b"".join(said), said
        assert not [line for line in shown if b"reconnecting" in line], b"".join(shown).decode()


def test_tls_and_a_password_and_a_broker_that_refuses(tmp_path):
    """A museum's broker on a network it does not trust: TLS with its own CA, a password per
    exhibit. A wrong password is one line in the log and the games wait; the right one sends them."""
    passwd = shutil.which("mosquitto_passwd")
    if passwd is None:
        pytest.skip("mosquitto_passwd is missing: install Debian's package mosquitto")

    def run(*args):
        subprocess.run(args, cwd=tmp_path, check=True, capture_output=True, timeout=60)
    tls = tls_settings(tmp_path)
    run(passwd, "-b", "-c", "passwords", "hall-7", "right horse battery")
    run(passwd, "-b", "passwords", "fleet", "staple")
    for name, password in (("wrong", "wrong"), ("right", "right horse battery"), ("fleet-password", "staple")):
        (tmp_path / name).write_text(password + "\n")
        os.chmod(tmp_path / name, 0o640)        # a password file no other user may read
    os.chmod(tmp_path / "passwords", 0o600)
    secure = Broker(tmp_path, "allow_anonymous false\npassword_file %s\n%s" % (tmp_path / "passwords", tls))
    try:
        log = []
        fleet = Fleet("secure", FleetStore(":memory:"), log.append)
        args = types.SimpleNamespace(tls=True, ca_file=str(tmp_path / "ca.crt"), username="fleet",
                                     password_file=str(tmp_path / "fleet-password"))
        follower = Follower("localhost", secure.port, fleet, "secure-follower", True, args)
        follower.start()
        follower.subscribed.wait(5)

        def exhibit(password):
            return Simulation("drnim", state_dir=str(tmp_path / "hall-7"), telemetry=telemetry(
                secure, "secure", "hall-7", host="localhost", tls=True, ca_file=str(tmp_path / "ca.crt"),
                username="hall-7", password_file=str(tmp_path / password)))
        hall = exhibit("wrong")
        try:
            autoplay(hall, 1, "novice")
            wait_until(lambda: any("refused us" in line for line in hall.log), 10, "the refusal")
            assert [line for line in hall.log if "telemetry" in line] == [
                "telemetry: the broker localhost:%d refused us (Not authorized: check telemetry.username and "
                "telemetry.password_file): play goes on; games and faults "
                "wait in the queue and are sent when it is back" % secure.port]
        finally:
            hall.close()
        hall = exhibit("right")
        try:
            waiting(follower, lambda: fleet.games == 1 and fleet.exhibits.get("hall-7", {}).get("online"), 15,
                    "the game that waited, and the exhibit online")
        finally:
            hall.close()
        follower.stop()
    finally:
        secure.stop()


def test_a_full_queue_drops_the_oldest_and_says_so_without_filling_the_journal(tmp_path):
    from controller.telemetry.publisher import Telemetry
    settings = check_telemetry("test", {"enabled": True, "host": "127.0.0.1", "port": free_port(),
                                        "client_id": "hall-8"})
    log = []
    publisher = Telemetry(settings, "drnim", str(tmp_path), log.append, outbox_limit=5)
    try:
        for _ in range(110):
            publisher.fault("jam")
        # the count of what waits is taken after the publisher's thread has kept the whole batch it took
        wait_until(lambda: publisher.dropped == 105 and publisher.queued == 5, 20,
                   "the drops, and five left in the queue")
        full = [line for line in log if "queue is full" in line]
        assert full == ["telemetry: the queue is full (5 messages): the oldest are dropped, 1 so far",
                        "telemetry: the queue is full (5 messages): the oldest are dropped, 100 so far"], full
    finally:
        publisher.close()


def test_an_exhibit_whose_status_is_old_is_shown_silent(tmp_path):
    now = time.time()
    fleet = Fleet("m", FleetStore(":memory:"), lambda text: None, clock=lambda: now)
    status = {"v": 1, "exhibit": "a", "online": True, "at": now - 1000, "machine": "drnim", "mode": "play",
              "fault": None, "version": "0.1.0", "uptime_s": 5, "heartbeat_s": 60, "last_game": None,
              "today": {"date": time.strftime("%Y-%m-%d", time.localtime(now)), "games": 4, "machine_wins": 3}}
    fleet.message("m/a/status", encode(status), retained=True)     # as the broker keeps it
    assert fleet.rows() == [["a", "drnim", "silent 16 min", "-", "4", "3", "-"]]


def test_an_exhibit_whose_clock_is_days_behind_is_not_shown_silent_while_its_statuses_come(tmp_path):
    """Found in a months audit: a Pi has no real-time clock, and one without network time starts each day at
    the time it last saved, its statuses dated days behind the follower's clock; the live table showed it
    "silent 2 days" while its heartbeats came every minute. A status that comes while the follower is
    subscribed is the exhibit's now; only a retained one, kept by the broker, is as old as it says."""
    now = time.time()
    fleet = Fleet("m", FleetStore(":memory:"), lambda text: None, clock=lambda: now, timer=lambda: now)
    status = {"v": 1, "exhibit": "a", "online": True, "at": now - 2 * 86400, "machine": "drnim", "mode": "play",
              "fault": None, "version": "0.1.0", "uptime_s": 5, "heartbeat_s": 60, "last_game": None,
              "today": {"date": time.strftime("%Y-%m-%d", time.localtime(now - 2 * 86400)), "games": 4,
                        "machine_wins": 3}}
    fleet.message("m/a/status", encode(status), retained=True)
    assert fleet.rows()[0][2] == "silent 2 days"
    fleet.message("m/a/status", encode(status))
    assert fleet.rows()[0][2] == "yes"
    now += 1000
    assert fleet.rows()[0][2] == "silent 16 min"
    assert fleet.rows(clock_times=True)[0][2] == "silent, last heard at %s" % time.strftime(
        "%H:%M:%S" if time.localtime(now - 1000)[:3] == time.localtime(now)[:3] else "%Y-%m-%d %H:%M:%S",
        time.localtime(now - 1000))


def test_an_exhibit_in_another_time_zone_shows_its_own_days_games_while_its_statuses_come(tmp_path):
    """Found by the curator's review: on a Berlin laptop after midnight, a Los Angeles exhibit playing its
    afternoon showed 0 games today (its status's date, its own, is the laptop's yesterday), as did a Pi
    whose clock started behind. A status heard lately is the exhibit's today; one whose heartbeats
    stopped on a day that is not the follower's is from a day gone."""
    now = time.time()
    fleet = Fleet("m", FleetStore(":memory:"), lambda text: None, clock=lambda: now, timer=lambda: now)
    status = {"v": 1, "exhibit": "la-1", "online": True, "at": now - 9 * 3600, "machine": "drnim", "mode": "play",
              "fault": None, "version": "0.1.0", "uptime_s": 5, "heartbeat_s": 60, "last_game": None,
              "today": {"date": time.strftime("%Y-%m-%d", time.localtime(now - 86400)), "games": 57,
                        "machine_wins": 41}}
    fleet.message("m/la-1/status", encode(status))
    assert fleet.rows()[0][2:6] == ["yes", "-", "57", "41"]
    now += 1000
    assert fleet.rows()[0][2:6] == ["silent 16 min", "-", "0", "0"]
    del status["heartbeat_s"]      # a status without heartbeats may be as old as anything: not its today
    fleet.message("m/la-1/status", encode(status))
    assert fleet.rows()[0][2:6] == ["yes", "-", "0", "0"]


def test_a_password_file_is_read_only_where_it_is_used(tmp_path, capsys):
    """Staff who cannot read the password file still read `controller status`; `config check`
    says it cannot be read, in one line."""
    (tmp_path / "secret").write_bytes(b"\xff\xfe not UTF-8")
    os.chmod(tmp_path / "secret", 0o600)
    path = write_config(tmp_path)
    path.write_text(path.read_text() + '[telemetry]\nenabled = true\nusername = "a"\npassword_file = "%s"\n'
                    % (tmp_path / "secret"))
    assert load_config(str(path)).telemetry["password_file"] == str(tmp_path / "secret")
    assert main(["status", "--config", str(path)]) == 0
    capsys.readouterr()
    assert main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "telemetry.password_file: %s: cannot read it" % (tmp_path / "secret") in err, err


def test_odd_retained_statuses_are_ignored_with_a_line_each(broker, tmp_path):
    """A status whose machine, fault or service_faults has the wrong type is not ours: retained, it
    comes back at every start, so it must never crash the table."""
    prefix = "oddities"
    stranger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="odd-stranger")
    stranger.connect("127.0.0.1", broker.port)
    stranger.loop_start()
    base = {"v": 1, "online": True, "at": time.time(), "machine": "drnim", "mode": "play", "fault": None,
            "version": "1", "uptime_s": 5, "today": {"date": "2026-01-01", "games": 0, "machine_wins": 0},
            "last_game": None}
    odd = {"off-machine": {"v": 1, "online": False, "at": time.time(), "machine": 5},
           "off-fault": {"v": 1, "online": False, "at": time.time(), "fault": 3},
           "off-faults": {"v": 1, "online": False, "at": time.time(), "service_faults": 5},
           "on-faults": dict(base, service_faults=5),
           "on-faults-items": dict(base, service_faults=[{}])}
    try:
        for name, payload in odd.items():
            stranger.publish("%s/%s/status" % (prefix, name), encode(dict(payload, exhibit=name)), qos=1,
                             retain=True).wait_for_publish(5)
        code, rows, text, err = fleet_once(broker, prefix)
        assert code == 0 and rows == {} and err.count("\n") == len(odd) + 1, (text, err)
        assert all(line.startswith("controller fleet: ignored a message: %s/" % prefix)
                   for line in err.splitlines()[:-1]), err
        assert err.splitlines()[-1].startswith("controller fleet: no exhibit has reported"), err
    finally:
        for name in odd:
            stranger.publish("%s/%s/status" % (prefix, name), b"", retain=True).wait_for_publish(5)
        stranger.loop_stop()


@pytest.mark.parametrize("more", [["--tls", "--ca-file", "/nonexistent"], ["--db", "/etc/passwd"],
                                  ["--db", "/proc/x/f.sqlite"]])
def test_a_store_or_ca_file_that_cannot_be_opened_is_one_line_and_exit_1(broker, more, capsys):
    code = main(["fleet", "--broker", broker.address, "--prefix", "unopened"] + more)
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and err.startswith("controller fleet: "), err


class GameCatcher:
    """The service's telemetry, reduced to what it is handed."""

    where, connected, queued, problem = "nowhere", False, 0, None

    def __init__(self, machine="drnim"):
        self.machine = machine
        self.games = []
        self.faults = []
        self.lives = []

    def game(self, winner, turns, duration_s, settings):
        self.games.append(duration_s)

    def status(self, status):
        pass

    def fault(self, kind):
        self.faults.append(kind)

    def live(self, kind, record):
        self.lives.append((kind, record))


def test_a_games_length_is_measured_on_the_services_clock(tmp_path):
    """Not the wall clock: a clock set back or forward during a game does not make its length."""
    rig = Rig(tmp_path)
    rig.service.telemetry = catcher = GameCatcher()
    rig.take(1)
    started = rig.clock.now
    while rig.service.machine.state["mode"] == "play":
        rig.hand_over()
        if rig.service.machine.state["mode"] == "play":
            rig.take(1)
    assert len(catcher.games) == 1
    assert catcher.games[0] > 5 and abs(catcher.games[0] - (rig.clock.now - started) // 1000) <= 2, (
        catcher.games, rig.clock.now - started)


def test_the_monitor_labels_a_boards_games_with_the_boards_machine(tmp_path):
    """The Pi's configuration names one machine, the board on the cable may be another; a fault the
    board does not name is not sent as "None"."""
    catcher = GameCatcher("drnim")
    monitor = Monitor(None, lambda line: None, telemetry=catcher)
    monitor.record({"kind": "hello", "machine": "nimatron"})
    assert catcher.machine == "nimatron"
    monitor.record({"kind": "fault"})
    monitor.record({"kind": "fault", "fault": "jam"})
    assert catcher.faults == ["jam"]


@pytest.mark.parametrize("argv, named", [(["stats", "--period", "\u00b2d"], "--period: "),
                                         (["stats", "--period", "0d"], "--period: "),
                                         (["--broker", "localhost:\u00b2"], "--broker: "),
                                         (["--broker", "localhost:0"], "--broker: ")])
def test_a_period_or_port_that_is_not_ascii_digits_is_one_line(argv, named, capsys):
    assert main(["fleet"] + argv + ["--offline"] * (argv[0] == "stats")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and named in err and "invalid literal" not in err, err


def test_a_status_is_sent_at_once_only_when_what_staff_look_at_changed(tmp_path):
    """The rule is the publisher's, so the Pico monitor's statuses (every one of them) follow it too."""
    from controller.telemetry.publisher import Telemetry
    settings = check_telemetry("test", {"enabled": True, "host": "127.0.0.1", "port": free_port(),
                                        "client_id": "hall-9", "heartbeat_s": 5})
    publisher = Telemetry(settings, "drnim", str(tmp_path), lambda text: None)
    monitor = Monitor(None, lambda line: None, telemetry=publisher)
    sent = []
    status = publisher.status
    publisher.status = lambda given: sent.append(status(given))
    try:
        for rail, mode in [(15, "play"), (14, "play"), (13, "play"), (13, "over"), (13, "over")]:
            monitor.record({"kind": "status", "status": {"mode": mode, "rail": rail, "fault": None}})
        assert sent == [True, False, False, True, False]
    finally:
        publisher.close()


def test_a_stranger_s_statuses_of_made_up_exhibits_are_kept_only_up_to_the_fleet_s_limit(monkeypatch):
    """Anyone who may publish on the broker can send a status for each of a million made-up exhibits:
    the fleet kept every one, in memory and in its table, until the follower's computer ran out. It keeps
    EXHIBITS_LIMIT (here 3) and ignores a new exhibit's status beyond them with a line; a known exhibit's
    status still comes in, and one cleared makes room."""
    from controller.telemetry import fleet as fleet_module
    monkeypatch.setattr(fleet_module, "EXHIBITS_LIMIT", 3, raising=False)
    said = []
    now = time.time()
    fleet = Fleet("m", FleetStore(":memory:"), said.append, clock=lambda: now)

    def status(name, games):
        return encode({"v": 1, "exhibit": name, "online": True, "at": now, "machine": "drnim", "mode": "play",
                       "fault": None, "version": "0.1.0", "uptime_s": 5, "heartbeat_s": 60, "last_game": None,
                       "today": {"date": time.strftime("%Y-%m-%d", time.localtime(now)), "games": games,
                                 "machine_wins": 0}})
    for number in range(5):
        fleet.message("m/x%d/status" % number, status("x%d" % number, 1))
    assert [row[0] for row in fleet.rows()] == ["x0", "x1", "x2"]
    assert said == ["ignored a message: m/x%d/status: a new exhibit, and the fleet holds 3 already" % n for n in (3, 4)]
    fleet.message("m/x1/status", status("x1", 7))
    fleet.message("m/x0/status", b"")
    fleet.message("m/x4/status", status("x4", 2))
    assert [(row[0], row[4]) for row in fleet.rows()] == [("x1", "7"), ("x2", "1"), ("x4", "2")]


def test_a_packet_longer_than_any_message_is_not_read_and_is_said(capsys):
    """Found by the museum IT review: a stranger's retained message of 200 MB took `controller fleet` to
    620 MB, as paho keeps a packet whole before it looks at it. Here a packet says it is 32 MiB long: the
    fleet closes the connection before it has read a quarter of it, and says why in one line."""
    length = 32 * 1024 * 1024
    stranger = StrangeBroker(length)
    try:
        assert main(["fleet", "--broker", "127.0.0.1:%d" % stranger.port, "--once"]) == 0
        assert stranger.closed.wait(30), "the fleet read %d bytes of the packet" % stranger.sent
        assert stranger.sent < length // 4
        said = capsys.readouterr().err
        assert "controller fleet: the broker sent a packet of %d bytes, more than the 1048576 read" % length \
            in said, said
    finally:
        stranger.close()


def test_statuses_sent_while_the_follower_is_away_never_crowd_out_its_games(tmp_path):
    """Found by the months review: the follower subscribed to statuses at QoS 1, so the broker queued every
    heartbeat of every exhibit for its session while it was away: with the docs' max_queued_messages the
    queue was full in two or three weeks of four exhibits, and the broker dropped the games that came
    after (the exhibits had deleted them, acknowledged). Here a queue of 50, an exhibit's 60 statuses, then
    5 games: every game reaches the store, and the exhibit's latest status the table."""
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker", queued=50)
    prefix = "away"
    follower, fleet, _ = follow(broker, prefix, tmp_path)
    follower.stop()
    exhibit = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="hall-1")
    try:
        exhibit.connect("127.0.0.1", broker.port)
        exhibit.loop_start()
        for beat in range(60):
            exhibit.publish("%s/hall-1/status" % prefix, encode(
                {"v": 1, "exhibit": "hall-1", "online": True, "at": time.time(), "machine": "drnim", "mode": "play",
                 "fault": None, "version": "0.1.0", "uptime_s": 60 * beat, "last_game": None,
                 "today": {"date": time.strftime("%Y-%m-%d"), "games": 0, "machine_wins": 0}}),
                qos=1, retain=True).wait_for_publish(5)
        for number in range(5):
            exhibit.publish("%s/hall-1/game" % prefix, encode(
                {"v": 1, "exhibit": "hall-1", "id": "hall-1/%d" % number, "machine": "drnim", "winner": "player",
                 "turns": 6, "duration_s": 40, "ended": time.time(), "settings": {}}), qos=1).wait_for_publish(5)
        follower, fleet, _ = follow(broker, prefix, tmp_path)
        waiting(follower, lambda: fleet.games == 5 and "hall-1" in fleet.exhibits, 10,
                "the 5 games played while the follower was away")
        assert fleet.exhibits["hall-1"]["uptime_s"] == 59 * 60
    finally:
        exhibit.loop_stop()
        follower.stop()
        broker.stop()


def test_an_exhibit_cleared_while_the_follower_is_away_is_forgotten_at_its_return(broker, tmp_path):
    """Statuses come at QoS 0 (above), so a clearing is not queued for a follower that is away: what the
    broker no longer retains once the follower is back and the broker quiet is forgotten, in the table and
    in `stats`' rows of noughts, with a line; an exhibit still retained stays. A follower under another
    prefix (a typo), which hears none of them, forgets none (found reviewing it: it emptied the store)."""
    prefix = "cleared"
    stranger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="technician")
    stranger.connect("127.0.0.1", broker.port)
    stranger.loop_start()
    follower = None
    try:
        for name in ("hall-1", "hall-2"):
            stranger.publish("%s/%s/status" % (prefix, name), encode(
                {"v": 1, "exhibit": name, "online": False, "at": time.time(), "machine": "drnim", "mode": "play",
                 "fault": None, "version": "0.1.0", "uptime_s": 5, "last_game": None,
                 "today": {"date": time.strftime("%Y-%m-%d"), "games": 0, "machine_wins": 0}}),
                qos=1, retain=True).wait_for_publish(5)
        follower, fleet, _ = follow(broker, prefix, tmp_path)
        waiting(follower, lambda: set(fleet.exhibits) == {"hall-1", "hall-2"}, what="both exhibits")
        follower.stop()
        stranger.publish("%s/hall-2/status" % prefix, b"", qos=0, retain=True).wait_for_publish(5)
        follower.stop()
        follower, fleet, log = follow(broker, prefix + "-typo", tmp_path)     # another prefix: nothing heard
        waiting(follower, lambda: follower.statuses is None and follower.answered_subscription,
                what="the broker quiet")
        assert sorted(fleet.store.exhibit_names()) == ["hall-1", "hall-2"] and log == []
        follower.stop()
        follower, fleet, log = follow(broker, prefix, tmp_path)
        waiting(follower, lambda: "hall-1" in fleet.exhibits and follower.statuses is None, what="the broker quiet")
        assert set(fleet.exhibits) == {"hall-1"}
        assert fleet.store.exhibit_names() == ["hall-1"]
        assert log == ["forgot the exhibit hall-2: the broker no longer holds its status (it was cleared)"]
    finally:
        stranger.publish("%s/hall-1/status" % prefix, b"", retain=True).wait_for_publish(5)
        stranger.loop_stop()
        if follower:
            follower.stop()


def test_a_status_a_broker_sends_before_it_answers_the_subscription_is_kept():
    """MQTT 3.1.1 lets a broker send a retained message before it answers the subscription (mosquitto does
    not): the follower started hearing statuses at the answer, so the one before it was taken for cleared
    and forgotten, and `--once` printed an empty table (found reviewing it, with a broker that did so)."""
    status = encode({"v": 1, "exhibit": "hall-1", "online": True, "at": time.time(), "machine": "drnim",
                     "mode": "play", "fault": None, "version": "0.1.0", "uptime_s": 5, "last_game": None,
                     "today": {"date": time.strftime("%Y-%m-%d"), "games": 0, "machine_wins": 0}})
    stranger = StrangeBroker(first=[("nim-museum/hall-1/status", status)])
    out = io.StringIO()
    try:
        assert main(["fleet", "--broker", "127.0.0.1:%d" % stranger.port, "--once"], out=out) == 0
    finally:
        stranger.close()
    assert [line.split()[0] for line in out.getvalue().splitlines()[2:]] == ["hall-1"], out.getvalue()
