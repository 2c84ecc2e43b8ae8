"""Figures for the fleet's telemetry (issue 12), against a real mosquitto. Prints; asserts nothing.

    .venv/bin/python bench/bench_fleet.py [EXHIBITS...]     (or: make bench; EXHIBITS: 100 and 1000)

- messages and bytes per game, from simulated Dr. Nim and Nimatron games on
  mock pins (every status change the service asks for, no coalescing), and
  per day for a busy exhibit (1,000 games, the heartbeat every 60 s);
- the on-disk queue's limit, and its size on disk when full of games;
- the input-to-output latency with telemetry off, with the broker up, and
  with it stopped (bench_service.latency);
- how many exhibits one `controller fleet` follows: EXHIBITS lightweight
  publishers (one MQTT connection each, the same payloads as an exhibit)
  send their status and games at once; the follower's time and CPU to keep
  them all, and `controller fleet --once` listing them;
- the memory `controller fleet --once` needs for a stranger's 20,000 fat
  retained statuses (14 KB each, with a field of their own).
"""

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import paho.mqtt.client as mqtt  # noqa: E402

from bench_service import latency  # noqa: E402
from broker_rig import MISSING, Broker, find_mosquitto, free_port, wait_until  # noqa: E402
from controller.core.registry import NAMES  # noqa: E402
from controller.sim.autoplay import autoplay  # noqa: E402
from controller.sim.engine import Simulation  # noqa: E402
from controller.telemetry import publisher  # noqa: E402
from controller.telemetry.command import Follower  # noqa: E402
from controller.telemetry.fleet import Fleet, FleetStore  # noqa: E402
from controller.telemetry.outbox import LIMIT, Outbox  # noqa: E402
from controller.telemetry.payloads import encode  # noqa: E402
from controller.telemetry.settings import check_telemetry  # noqa: E402

GAMES = 20


# A PUBLISH of QoS 1 carries 2 bytes of fixed header (more above 127 bytes: 3), 2 of topic length,
# the topic and 2 of packet id; its PUBACK is 4 bytes.
def wire_bytes(topic, payload):
    body = 2 + len(topic) + 2 + len(payload)
    return body + (2 if body < 128 else 3) + 4


class Counting(publisher.Telemetry):
    """The real publisher, counting what the service asks it to send."""

    def __init__(self, *args, **kwargs):
        self.asked = {"status": 0, "game": 0, "fault": 0}
        super().__init__(*args, **kwargs)

    def status(self, status):
        changed = super().status(status)
        self.asked["status"] += changed
        return changed

    def game(self, *args):
        self.asked["game"] += 1
        super().game(*args)

    def fault(self, kind):
        self.asked["fault"] += 1
        super().fault(kind)


def per_game(broker):
    sizes = {}
    seen = []
    listener = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-listener")
    listener.on_message = lambda c, u, m: seen.append((m.topic, m.payload))
    listener.connect("127.0.0.1", broker.port)
    listener.subscribe("bench/#", qos=1)
    listener.loop_start()
    real = publisher.Telemetry
    for machine in NAMES:
        settings = check_telemetry("bench", {"enabled": True, "host": "127.0.0.1", "port": broker.port,
                                             "client_id": "bench-" + machine, "topic_prefix": "bench"})
        publisher.Telemetry = Counting      # the service imports it when it starts
        try:
            sim = Simulation(machine, telemetry=settings)
        finally:
            publisher.Telemetry = real
        telemetry = sim.service.telemetry
        autoplay(sim, GAMES, "novice", seed=1)
        wait_until(lambda: telemetry.queued == 0, 10, "the games sent")
        sim.close()
        time.sleep(0.3)
        asked = dict(telemetry.asked)
        mine = [(t, p) for t, p in seen if "/bench-%s/" % machine in t]
        for kind in ("status", "game", "fault"):
            payloads = [p for t, p in mine if t.endswith("/" + kind) and p]
            if payloads:
                sizes[(machine, kind)] = (sum(len(p) for p in payloads) / len(payloads),
                                          sum(wire_bytes(t, p) for t, p in mine if t.endswith("/" + kind))
                                          / len(payloads))
        status_size, status_wire = sizes[(machine, "status")]
        game_size, game_wire = sizes[(machine, "game")]
        messages = (asked["status"] + asked["game"] + asked["fault"]) / GAMES
        payload = (asked["status"] * status_size + asked["game"] * game_size) / GAMES
        wire = (asked["status"] * status_wire + asked["game"] * game_wire) / GAMES
        day = 1000 * wire + 86400 / 60 * status_wire
        print("%s: %.1f messages a game (%.1f status changes, 1 game, %.2f faults; %d games); payloads %.0f bytes "
              "a game (a status %.0f, a game %.0f), %.0f on the wire with MQTT's headers and PUBACKs"
              % (machine, messages, asked["status"] / GAMES, asked["fault"] / GAMES, GAMES, payload, status_size,
                 game_size, wire))
        print("%s: a busy exhibit, 1,000 games and a heartbeat every 60 s: %.2f MB a day sent to the broker"
              % (machine, day / 1e6))
    listener.loop_stop()


def queue_figures():
    with tempfile.TemporaryDirectory() as folder:
        outbox = Outbox(os.path.join(folder, "telemetry.sqlite"))
        game = encode({"v": 1, "exhibit": "hall-1", "machine": "drnim", "id": "hall-1/0123456789abcdef",
                       "winner": "machine", "turns": 8, "duration_s": 95, "ended": time.time(),
                       "settings": Simulation().config.machine})
        start = time.perf_counter()
        for _ in range(LIMIT + 100):
            outbox.add("nim-museum/hall-1/game", game)
        took = time.perf_counter() - start
        outbox.close()
        size = os.path.getsize(os.path.join(folder, "telemetry.sqlite"))
    print("the on-disk queue: at most %d messages (then the oldest are dropped); full of games it takes %.1f MB; "
          "%.2f ms to queue one (each its own transaction)" % (LIMIT, size / 1e6, 1000 * took / (LIMIT + 100)))


def latencies(broker):
    section = '\n[telemetry]\nenabled = true\nhost = "127.0.0.1"\nport = %d\nclient_id = "bench-latency"\n'
    latency(300, "", "trigger to release, telemetry off")
    latency(300, section % broker.port, "trigger to release, telemetry on, broker up")
    latency(300, section % free_port(), "trigger to release, telemetry on, broker stopped")


# Publishers per process: paho waits with select(), which takes no file descriptor above 1023.
PER_PROCESS = 200


def publish(first, count, port, games):
    """One process's share of the simulated exhibits: connect, send the status and the games, wait for
    the broker's acknowledgements, go."""
    now = time.time()
    day = time.strftime("%Y-%m-%d")
    sent = []
    for n in range(first, first + count):
        name = "exhibit-%04d" % n
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-" + name)
        client.connect("127.0.0.1", port)
        client.loop_start()
        sent.append((client, client.publish("cap/%s/status" % name, encode({
            "v": 1, "exhibit": name, "online": True, "at": now, "machine": "drnim", "mode": "play", "fault": None,
            "version": "0.1.0", "uptime_s": 1, "heartbeat_s": 60, "today": {"date": day, "games": games,
                                                                           "machine_wins": 3},
            "last_game": None}), qos=1, retain=True)))
        for g in range(games):
            sent.append((client, client.publish("cap/%s/game" % name, encode({
                "v": 1, "exhibit": name, "id": "%s/%d" % (name, g), "machine": "drnim", "winner": "machine",
                "turns": 8, "duration_s": 90, "ended": now, "settings": {}}), qos=1)))
    for _, info in sent:
        info.wait_for_publish(60)
    for client in {client for client, _ in sent}:
        client.disconnect()
        client.loop_stop()


def fleet_capacity(broker, exhibits, games=10):
    folder = tempfile.mkdtemp()
    kept = Fleet("cap", FleetStore(os.path.join(folder, "fleet.sqlite")), lambda text: None)
    args = type("Args", (), {"tls": False, "ca_file": None, "username": None, "password_file": None})()
    follower = Follower("127.0.0.1", broker.port, kept, "bench-fleet", True, args)
    follower.start()
    follower.subscribed.wait(5)
    start = time.perf_counter()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    publishers = [subprocess.Popen([sys.executable, __file__, "--publish", str(first),
                                    str(min(PER_PROCESS, exhibits - first)), str(broker.port), str(games)])
                  for first in range(0, exhibits, PER_PROCESS)]
    try:
        wait_until(lambda: follower.pump(0.05) is not None and kept.games == exhibits * games
                   and len(kept.exhibits) == exhibits, 120, "every game kept")
    except AssertionError:
        print("one fleet follower, %d exhibits: only %d of %d games and %d statuses came within 120 s"
              % (exhibits, kept.games, exhibits * games, len(kept.exhibits)))
        return
    finally:
        for process in publishers:
            process.wait(60)
    took = time.perf_counter() - start
    used = resource.getrusage(resource.RUSAGE_SELF)
    print("one fleet follower, %d exhibits (in %d publishing processes) sending their status and %d games each at "
          "once: all %d games kept in %.1f s (%.0f a second; the follower used %.1f s of CPU)"
          % (exhibits, len(publishers), games, exhibits * games, took, exhibits * games / took,
             used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime))
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "controller", "fleet", "--broker", broker.address, "--prefix",
                             "cap", "--once"], capture_output=True, text=True, timeout=60)
    rows = len(result.stdout.splitlines()) - 2
    print("controller fleet --once with %d exhibits: %d rows in %.2f s (the process, with Python's start)"
          % (exhibits, rows, time.perf_counter() - start))
    follower.stop()


def fat_strangers(broker, count=20000, size=14000):
    """A stranger's `count` retained statuses of about `size` bytes, fat with a field of their own:
    the peak memory of `controller fleet --once` listing them (it keeps only what the table shows)."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-fat-stranger")
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    now = time.time()
    status = {"v": 1, "online": True, "at": now, "machine": "drnim", "mode": "play", "fault": None, "version": "0.1.0",
              "uptime_s": 1, "heartbeat_s": 60, "today": {"date": time.strftime("%Y-%m-%d"), "games": 1,
                                                          "machine_wins": 1}, "last_game": None, "junk": "x" * size}
    sent = [client.publish("fat/stranger-%05d/status" % n, encode(dict(status, exhibit="stranger-%05d" % n)), qos=1,
                           retain=True) for n in range(count)]
    for info in sent:
        info.wait_for_publish(120)
    measure = ("import resource, subprocess, sys\n"
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "print(len(done.stdout.splitlines()) - 2, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "controller", "fleet", "--broker",
                             broker.address, "--prefix", "fat", "--once"], capture_output=True, text=True, cwd=ROOT,
                            timeout=600)
    rows, peak_kb = (int(word) for word in result.stdout.split())
    print("controller fleet --once with a stranger's %d retained statuses of %d KB: %d rows in %.1f s, peak memory "
          "%.0f MB" % (count, (size + 400) // 1000, rows, time.perf_counter() - start, peak_kb / 1024))
    for n in range(count):
        client.publish("fat/stranger-%05d/status" % n, b"", qos=0, retain=True)
    client.loop_stop()
    client.disconnect()


def main():
    fleets = [int(n) for n in sys.argv[1:]] or [100, 1000]
    if find_mosquitto() is None:
        print("bench_fleet: skipped: " + MISSING)
        return
    with tempfile.TemporaryDirectory() as folder:
        broker = Broker(Path(folder))
        try:
            per_game(broker)
            queue_figures()
            latencies(broker)
            for exhibits in fleets:
                fleet_capacity(broker, exhibits)
            fat_strangers(broker)
        finally:
            broker.stop()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--publish"]:
        publish(*(int(value) for value in sys.argv[2:6]))
    else:
        main()
