"""The real service loop on mock pins, stopped by SIGTERM at random moments
while a thread floods its inputs with edges, round after round in one process.

Each round: a fresh service (its own state folder), a burst thread driving
the trigger and the marble sensor pins as fast as it can, the loop in the
main thread with the service's own signal handlers, and SIGTERM sent to this
process after a random delay. The round passes when `run()` returns (the
stop was clean) and every output pin is at its inactive level; it prints the
seconds from the signal to the outputs being off. A stop that deadlocks never
returns: faulthandler then dumps the stacks and ends the process with an error.

Usage: stop_rig.py ROUNDS SEED FOLDER
Prints one line per round: "ROUND n stopped_after_s off=True|False".
`campaign()` runs several of these processes at once (tests/test_stress.py,
bench/stop_campaign.py).
"""

import faulthandler
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from gpiozero.pins.mock import MockFactory, MockPWMPin

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_rig import write_config  # noqa: E402
from controller.hardware.pinmap import default_pinmap_path, load_pinmap  # noqa: E402
from controller.service.config import load_config  # noqa: E402
from controller.service.daemon import Service  # noqa: E402
from controller.service.notify import Notifier  # noqa: E402
from controller.sim.engine import rest_inputs  # noqa: E402

# A stop that takes longer than this is a hang, not a slow machine.
HANG_S = 20


def output_levels(factory, pinmap):
    """Each output pin: True when it is at its active level."""
    levels = {}
    for role, spec in pinmap.outputs.items():
        for name, number in spec.pins.items():
            state = bool(factory.pin(number).state)
            levels["%s.%s" % (role, name)] = state if spec.active != "low" else not state
    return levels


def burst(factory, pinmap, stop, rng):
    pins = [factory.pin(pinmap.inputs[role].pin) for role in ("trigger", "marble_sensor", "new_game")]
    try:
        while not stop.is_set():
            pin = rng.choice(pins)
            for _ in range(rng.randint(50, 2000)):
                pin.drive_low()
                pin.drive_high()
            time.sleep(rng.uniform(0, 0.002))
    except Exception:
        pass  # the stopped service closed the pins under the burst: the round is over


def one_round(number, rng, folder):
    base = Path(folder) / ("round%d" % number)
    base.mkdir(parents=True)
    config = load_config(str(write_config(base)))
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    factory = MockFactory(pin_class=MockPWMPin)
    rest_inputs(factory, pinmap)
    service = Service(config, pinmap, pin_factory=factory, notifier=Notifier({}), log=lambda text: None)
    signal.signal(signal.SIGTERM, service.request_stop)
    stop = threading.Event()
    flood = threading.Thread(target=burst, args=(factory, pinmap, stop, random.Random(rng.random())), daemon=True)
    sent = []

    def terminate():
        time.sleep(rng.uniform(0.001, 0.05))
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGTERM)

    faulthandler.dump_traceback_later(HANG_S, exit=True)
    flood.start()
    threading.Thread(target=terminate, daemon=True).start()
    service.run()
    stopped = time.monotonic()
    faulthandler.cancel_dump_traceback_later()
    off = not any(output_levels(factory, pinmap).values())
    stop.set()
    flood.join()
    factory.reset()
    return stopped - sent[0], off


def campaign(rounds, processes, seed, folder):
    """`rounds` stops in each of `processes` rigs at once (a round mostly waits, for its
    random moment and for the stop, and each process has its own signals and pins):
    ([(seconds from the signal to the outputs off, every output off), ...], the standard
    error of each rig that did not end well (a hang ends it with the stacks dumped))."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rigs = [subprocess.Popen([sys.executable, str(Path(__file__).resolve()), str(rounds), str(seed + number),
                              str(Path(folder) / str(number))], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT, env=env) for number in range(processes)]
    rounds_seen, failed = [], []
    for rig in rigs:
        out, err = rig.communicate()
        rounds_seen += [(float(line.split()[2]), line.split()[3] == "off=True")
                        for line in out.splitlines() if line.startswith("ROUND")]
        if rig.returncode != 0:
            failed.append(err)
    return rounds_seen, failed


def main(rounds, seed, folder):
    rng = random.Random(seed)
    for number in range(rounds):
        took, off = one_round(number, rng, folder)
        print("ROUND %d %.4f off=%s" % (number, took, off), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
