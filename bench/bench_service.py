"""Benchmarks of the Raspberry Pi service on gpiozero's MockFactory. Prints
figures; asserts nothing.

    .venv/bin/python bench/bench_service.py          (or: make bench)

- latency from a mock input edge (the trigger) to the output it causes (the
  release), through the queue, the debouncer, the core machine, the saved
  game (fsync) and the board;
- CPU used by an idle service over 30 s (the loop must not busy-poll);
- resident memory, and the time from start to READY;
- the release's width while a storm of 100,000 edges/s floods an input (a
  floating sensor line): the loop checks its deadlines after every batch of
  edges, so the release must shut after release_pulse_ms whatever the input
  does;
- writes to the SD card per idle hour and per game, for both machines (the
  goal: none while idle, a handful per marble).
"""

import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gpiozero.pins.mock import MockFactory, MockPWMPin  # noqa: E402

from controller.core.registry import NAMES  # noqa: E402
from controller.hardware.pinmap import default_pinmap_path, load_pinmap  # noqa: E402
from controller.service.config import load_config  # noqa: E402
from controller.service.daemon import Service  # noqa: E402
from controller.service.notify import Notifier  # noqa: E402
from controller.sim.autoplay import autoplay  # noqa: E402
from controller.sim.engine import Simulation  # noqa: E402
from service_rig import write_config  # noqa: E402


class WatchedPin(MockPWMPin):
    """The release pin: sets an event when it goes high, another when it falls,
    and notes when each happened."""

    def __init__(self, factory, info):
        super().__init__(factory, info)
        self.rose = threading.Event()
        self.fell = threading.Event()
        self.rose_at = self.fell_at = None

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed and value:
            self.rose_at = time.perf_counter()
            self.rose.set()
        elif changed:
            self.fell_at = time.perf_counter()
            self.fell.set()
        return changed


def latency(samples=900, telemetry="", label="input edge to output (trigger to release)"):
    """`telemetry`: a [telemetry] section for the configuration (bench_fleet.py)."""
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        pinmap_text = default_pinmap_path("drnim").read_text().replace("debounce_ms = 20", "debounce_ms = 1")
        (folder / "pinmap.toml").write_text(pinmap_text)
        config_path = write_config(folder, marbles=999, capacity=999, lenient=True)
        config_path.write_text(config_path.read_text().replace(
            "[service]", '[service]\npinmap = "%s"\nrelease_pulse_ms = 1' % (folder / "pinmap.toml")) + telemetry)
        config = load_config(str(config_path))
        pinmap = load_pinmap(folder / "pinmap.toml")
        factory = MockFactory(pin_class=MockPWMPin)
        release = factory.pin(pinmap.outputs["release"].pins["pin"], pin_class=WatchedPin)
        trigger = factory.pin(pinmap.inputs["trigger"].pin)
        sensor = factory.pin(pinmap.inputs["marble_sensor"].pin)
        sensor.drive_high()     # the sensor's external pull-up: the beam is clear
        service = Service(config, pinmap, pin_factory=factory, notifier=Notifier({}), log=lambda text: None)
        loop = threading.Thread(target=service.run, daemon=True)
        loop.start()
        times = []
        stalled = ""
        for _ in range(samples):
            release.rose.clear()
            release.fell.clear()
            start = time.perf_counter()
            trigger.drive_low()
            if not release.rose.wait(5):
                stalled = "; stopped: the release did not open within 5 s (fault %s)" % service.machine.fault
                break
            times.append(time.perf_counter() - start)
            # the marble falls once the release has opened and shut: pressing again while it is
            # still open would only lengthen its pulse (no new marble, the machine retries later)
            release.fell.wait(5)
            trigger.drive_high()
            time.sleep(0.003)
            sensor.drive_low()
            time.sleep(0.003)
            sensor.drive_high()
            time.sleep(0.003)
        service.request_stop()
        loop.join(10)
    times.sort()
    print("%s, %d events: median %.2f ms, 99th percentile %.2f ms, max %.2f ms%s" % (
        label, len(times), 1000 * statistics.median(times), 1000 * times[int(0.99 * len(times)) - 1],
        1000 * times[-1], stalled))


STORM_EDGES_PER_S = 100000


def storm_release_width(rounds=10, seconds=1.0):
    """Each round: a fresh service on its own thread, a thread posting
    STORM_EDGES_PER_S edges to its queue for the marble sensor (as gpiozero's
    callback thread would for a floating line), and a press of the trigger
    part-way through the storm; the release's width is timed on the pin."""
    widths, rates, pulse_ms = [], [], None
    rng = random.Random(2026)
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            config = load_config(str(write_config(folder, equalizer=False)))
            pulse_ms = config.service["release_pulse_ms"]
            pinmap = load_pinmap(default_pinmap_path("drnim"))
            factory = MockFactory(pin_class=MockPWMPin)
            release = factory.pin(pinmap.outputs["release"].pins["pin"], pin_class=WatchedPin)
            trigger = factory.pin(pinmap.inputs["trigger"].pin)
            service = Service(config, pinmap, pin_factory=factory, notifier=Notifier({}), log=lambda text: None)
            loop = threading.Thread(target=service.run, daemon=True)
            loop.start()
            calm = threading.Event()
            posted = []
            storm = threading.Thread(target=flood, args=(service, calm, seconds, posted), daemon=True)
            storm.start()
            time.sleep(rng.uniform(0.05, seconds / 2))
            trigger.drive_low()
            if release.rose.wait(5) and release.fell.wait(5):
                widths.append(1000 * (release.fell_at - release.rose_at))
            trigger.drive_high()
            storm.join()
            rates.append(posted[0] / posted[1])
            service.request_stop()
            loop.join(10)
    widths.sort()
    print("release width under a storm of %d edges/s on the marble sensor (%d rounds, %.0f edges/s reached): "
          "min %.1f ms, median %.1f ms, max %.1f ms, for a %d ms pulse"
          % (STORM_EDGES_PER_S, len(widths), statistics.median(rates), widths[0], statistics.median(widths),
             widths[-1], pulse_ms))


def flood(service, calm, seconds, posted):
    """Post edges for `seconds` at STORM_EDGES_PER_S, alternating levels."""
    start = time.perf_counter()
    count = 0
    level = False
    while True:
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
        while count < elapsed * STORM_EDGES_PER_S:
            level = not level
            service.queue.put(("marble_sensor", level, service.clock()))
            count += 1
        time.sleep(0.0005)
    posted[:] = [count, time.perf_counter() - start]


def writes(games=20, idle_hours=1):
    """Saves written per idle hour and per game, on the simulator (the real
    service on mock pins, on a simulated clock)."""
    for machine in NAMES:
        sim = Simulation(machine, {}, seed=1)
        try:
            before = sim.service.writes
            sim.advance(idle_hours * 3600 * 1000)
            idle = (sim.service.writes - before) / idle_hours
            before = sim.service.writes
            autoplay(sim, games, "novice", seed=1)
            played = sim.service.writes - before
            marbles = sim.marbles.releases if sim.marbles else 0
        finally:
            sim.close()
        per_marble = ", %.1f per marble released" % (played / marbles) if marbles else ""
        print("%s writes: %.0f per idle hour, %.1f per game (%d games)%s"
              % (machine, idle, played / games, games, per_marble))


@contextmanager
def ready_service(config):
    """`controller run` (mock pins) on `config`, started: (its process, the seconds from its start to its
    READY, as systemd sees it); stopped after."""
    notify_path = str(Path(config).parent / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(notify_path)
    sock.settimeout(0.5)
    env = dict(os.environ, NOTIFY_SOCKET=notify_path, PYTHONPATH=str(ROOT))
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)], cwd=ROOT,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                if sock.recv(4096).startswith(b"READY=1"):
                    break
            except socket.timeout:
                if process.poll() is not None:
                    raise SystemExit("controller run stopped before it was ready (code %d)" % process.returncode)
        yield process, time.perf_counter() - started
    finally:
        process.terminate()
        process.wait(30)
        sock.close()
        os.remove(notify_path)


def process_figures(idle_seconds=30):
    with tempfile.TemporaryDirectory() as folder:
        with ready_service(write_config(Path(folder))) as (process, ready):
            before = cpu_seconds(process.pid)
            time.sleep(idle_seconds)
            used = cpu_seconds(process.pid) - before
            rss = resident_kib(process.pid)
    print("start to READY: %.2f s" % ready)
    print("idle service over %d s: %.3f s of CPU (%.2f %%)" % (idle_seconds, used, 100 * used / idle_seconds))
    print("resident memory: %.1f MiB" % (rss / 1024))


def cpu_seconds(pid):
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_kib(pid):
    for line in Path("/proc/%d/status" % pid).read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


if __name__ == "__main__":
    latency()
    storm_release_width()
    writes()
    process_figures()
