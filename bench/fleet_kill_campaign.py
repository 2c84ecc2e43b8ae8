"""The fleet follower's kill campaign: `controller fleet` (the live table) killed at
random moments while a publisher sends games, KILLS times. Prints figures; asserts nothing.

    .venv/bin/python bench/fleet_kill_campaign.py [KILLS] [GAMES]       (default 50 kills, 20,000 games)

A real mosquitto (tests/broker_rig.py) on a free port; the follower's persistent
session made first (the broker queues games only for a session it knows); a
publisher thread sends GAMES games with QoS 1 from three exhibits, half at
once (a night's backlog) and half paced to last as long as the kills, and
notes each game the broker acknowledges; the
follower stays away 0 to 1 s (the games wait at the broker and come in a
burst), is started, killed after 0.2 to 2 s (SIGKILL, or one time in four
SIGINT, a Ctrl-C), and so on. At the end `controller fleet stats`
collects what the broker still holds, and the store is counted against the
acknowledged games. A game is lost when the broker acknowledged it and the
store does not have it. The last line is
`fleet kills N: games sent S, kept K, lost L`.
"""

import random
import signal
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

import paho.mqtt.client as mqtt  # noqa: E402

from controller.telemetry.payloads import encode  # noqa: E402

EXHIBITS = ("hall-1", "hall-2", "hall-3")


class Publisher(threading.Thread):
    """Sends `games` games, QoS 1, from EXHIBITS in turn: half at once (what waits for a follower that
    was away all night), the rest at `rate` a second; `acknowledged()` is the (exhibit, id) of each game
    the broker has acknowledged (paho's message info says so)."""

    def __init__(self, broker, prefix, games, rate):
        super().__init__(daemon=True)
        self.prefix, self.games, self.rate = prefix, games, rate
        self.sent = []
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=prefix + "-publisher")
        self.client.max_queued_messages_set(0)
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def run(self):
        start = time.monotonic()
        for number in range(self.games):
            exhibit = EXHIBITS[number % len(EXHIBITS)]
            payload = {"v": 1, "exhibit": exhibit, "id": "%s/%d" % (exhibit, number), "machine": "drnim",
                       "winner": "player" if number % 3 else "machine", "turns": 6, "duration_s": 40,
                       "ended": time.time(), "settings": {}}
            info = self.client.publish("%s/%s/game" % (self.prefix, exhibit), encode(payload), qos=1)
            self.sent.append((info, (exhibit, payload["id"])))
            delay = start + (number + 1 - self.games // 2) / self.rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    def acknowledged(self):
        return set(game for info, game in list(self.sent) if info.is_published())

    def finish(self, timeout=120):
        """Wait for the broker to acknowledge what was sent; the acknowledged games."""
        self.join(timeout)
        end = time.monotonic() + timeout
        while len(self.acknowledged()) < len(self.sent) and time.monotonic() < end:
            time.sleep(0.05)
        self.client.loop_stop()
        self.client.disconnect()
        return self.acknowledged()


def follower(broker, prefix, db, *more):
    return [sys.executable, "-m", "controller", "fleet", *more, "--broker", broker.address, "--prefix", prefix,
            "--db", str(db), "--client-id", prefix + "-follower"]


def campaign(broker, folder, kills, games, seed, report=lambda line: None):
    """Run the campaign on `broker` (tests/broker_rig.Broker); {"kills", "sent", "kept", "lost", "seconds"}."""
    rng = random.Random(seed)
    prefix = "kills-%d" % seed
    db = Path(folder) / ("%s.sqlite" % prefix)
    first = subprocess.run(follower(broker, prefix, db, "stats"), capture_output=True, text=True, cwd=ROOT,
                           timeout=60)
    if first.returncode != 0:
        raise RuntimeError("the follower's first run failed: %s" % first.stderr)
    lives = [rng.uniform(0.2, 2.0) for _ in range(kills)]
    downs = [rng.uniform(0.0, 1.0) for _ in range(kills)]
    publisher = Publisher(broker, prefix, games, (games - games // 2) / (sum(lives) + sum(downs) + 0.5 * kills))
    start = time.monotonic()
    publisher.start()
    for number, (life, down) in enumerate(zip(lives, downs)):
        time.sleep(down)        # the follower is away: games wait at the broker, and come in a burst
        process = subprocess.Popen(follower(broker, prefix, db), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   cwd=ROOT, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(life)
        how = signal.SIGINT if rng.random() < 0.25 else signal.SIGKILL
        process.send_signal(how)
        _, err = process.communicate(timeout=60)
        if b"Traceback" in err:
            report("kill %d: the follower said: %s" % (number + 1, err.decode(errors="replace").strip()))
        report("kill %d (%s after %.1f s): %d games acknowledged so far" % (
            number + 1, "SIGINT" if how == signal.SIGINT else "SIGKILL", life, len(publisher.acknowledged())))
    acknowledged = publisher.finish()
    last = subprocess.run(follower(broker, prefix, db, "stats"), capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    if last.returncode != 0:
        raise RuntimeError("the follower's last run failed: %s" % last.stderr)
    store = sqlite3.connect(str(db))
    kept = set(store.execute("select exhibit, id from games").fetchall())
    store.close()
    return {"kills": kills, "sent": len(acknowledged), "kept": len(acknowledged & kept),
            "lost": len(acknowledged - kept), "seconds": time.monotonic() - start}


def main(argv):
    from broker_rig import Broker
    kills = int(argv[0]) if argv else 50
    games = int(argv[1]) if len(argv) > 1 else 20000
    with tempfile.TemporaryDirectory(prefix="fleet-kills-") as folder:
        broker = Broker(Path(folder))
        try:
            figures = campaign(broker, folder, kills, games, 2026, lambda line: print(line, flush=True))
        finally:
            broker.stop()
    print("%.0f s in all" % figures["seconds"])
    print("fleet kills %d: games sent %d, kept %d, lost %d" % (figures["kills"], figures["sent"], figures["kept"],
                                                               figures["lost"]))


if __name__ == "__main__":
    main(sys.argv[1:])
