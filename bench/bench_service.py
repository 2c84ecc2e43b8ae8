"""Benchmarks of the Raspberry Pi service on gpiozero's MockFactory. Prints
figures; asserts nothing.

    .venv/bin/python bench/bench_service.py          (or: make bench)

- latency from a mock input edge (the trigger) to the output it causes (the
  release), through the queue, the debouncer, the core machine, the saved
  game (fsync) and the board;
- CPU used by an idle service over 30 s (the loop must not busy-poll);
- resident memory, and the time from start to READY.
"""

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gpiozero.pins.mock import MockFactory, MockPWMPin  # noqa: E402

from controller.hardware.pinmap import default_pinmap_path, load_pinmap  # noqa: E402
from controller.service.config import load_config  # noqa: E402
from controller.service.daemon import Service  # noqa: E402
from controller.service.notify import Notifier  # noqa: E402
from service_rig import write_config  # noqa: E402


class WatchedPin(MockPWMPin):
    """The release pin: sets an event when it goes high."""

    def __init__(self, factory, info):
        super().__init__(factory, info)
        self.rose = threading.Event()

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed and value:
            self.rose.set()
        return changed


def latency(samples=1000):
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        pinmap_text = default_pinmap_path("drnim").read_text().replace("debounce_ms = 20", "debounce_ms = 1")
        (folder / "pinmap.toml").write_text(pinmap_text)
        config_path = write_config(folder, marbles=5000, capacity=5000, lenient=True)
        config_path.write_text(config_path.read_text().replace(
            "[service]", '[service]\npinmap = "%s"\nrelease_pulse_ms = 1' % (folder / "pinmap.toml")))
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
        for _ in range(samples):
            release.rose.clear()
            start = time.perf_counter()
            trigger.drive_low()
            release.rose.wait(5)
            times.append(time.perf_counter() - start)
            trigger.drive_high()
            time.sleep(0.003)
            sensor.drive_low()
            time.sleep(0.003)
            sensor.drive_high()
            time.sleep(0.003)
        service.request_stop()
        loop.join(10)
    times.sort()
    print("input edge to output (trigger to release), %d events: median %.2f ms, 99th percentile %.2f ms, "
          "max %.2f ms" % (samples, 1000 * statistics.median(times), 1000 * times[int(0.99 * len(times)) - 1],
                           1000 * times[-1]))


def process_figures(idle_seconds=30):
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        config = write_config(folder)
        notify_path = str(folder / "notify.sock")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(notify_path)
        sock.settimeout(60)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path, PYTHONPATH=str(ROOT))
        start = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)], cwd=ROOT,
                                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while not sock.recv(4096).startswith(b"READY=1"):
                pass
            ready = time.perf_counter() - start
            before = cpu_seconds(process.pid)
            time.sleep(idle_seconds)
            used = cpu_seconds(process.pid) - before
            rss = resident_kib(process.pid)
        finally:
            process.terminate()
            process.wait(30)
            sock.close()
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
    process_figures()
