"""The real service loop on mock pins with a physical world around it, as a
process the tests kill with SIGKILL at random moments and start again.

The world: each time the release pin is energised, a marble falls past the
gate 30 ms later, breaking the beam for BEAM_S (longer than any minimum pulse
width the sensor's filter asks for). Before the sensor pin sees it, the marble is written to the
world's log with fsync, so the log always holds every marble that really
passed. A visitor thread presses the trigger and moves the turn switch at
random. When the restarted service holds in "check the marbles", the rig
acts as the technician: it puts the marbles back (a "reset" line in the log)
and presses New game.

Usage: kill_rig.py CONFIG WORLD-LOG SEED
Prints one line once the service is up: STATE {json of the resumed state}.

`campaign()` runs the kills and judges every resume: the test suite runs a
few rounds, bench/kill_campaign.py a thousand.
"""

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.service import daemon
from controller.service.config import load_config
from controller.service.store import StateStore
from controller.sim.engine import EdgePin, rest_inputs

FALL_S = 0.03
BEAM_S = 0.012
ROOT = Path(__file__).resolve().parent.parent


class World:
    def __init__(self, factory, pinmap, log_path):
        self.sensor = factory.pin(pinmap.inputs["marble_sensor"].pin)
        self.log_path = log_path

    def write(self, line):
        with open(self.log_path, "a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def released(self):
        threading.Timer(FALL_S, self.fall).start()

    def fall(self):
        self.write("marble")
        self.sensor.drive_low()
        time.sleep(BEAM_S)
        self.sensor.drive_high()


def press(pin, hold=0.03):
    pin.drive_low()
    time.sleep(hold)
    pin.drive_high()


def visitor(factory, pinmap, rng):
    trigger = factory.pin(pinmap.inputs["trigger"].pin)
    turn = factory.pin(pinmap.inputs["turn_switch"].pin)
    while True:
        time.sleep(rng.uniform(0.02, 0.08))
        action = rng.random()
        if action < 0.6:
            press(trigger)
        elif action < 0.8:
            turn.drive_low()
        else:
            turn.drive_high()


def main(config_path, log_path, seed):
    config = load_config(config_path)
    pinmap = load_pinmap(default_pinmap_path("drnim"))
    factory = MockFactory(pin_class=MockPWMPin)
    world = World(factory, pinmap, log_path)
    rest_inputs(factory, pinmap)
    factory.pin(pinmap.outputs["release"].pins["pin"], pin_class=EdgePin, on_rise=world.released)
    service = daemon.Service(config, pinmap, pin_factory=factory, log=lambda text: None)
    service.start()
    state = service.machine.state
    print("STATE", json.dumps({"taken": state["taken"], "fault": state["fault"], "mode": state["mode"]}), flush=True)
    if state["fault"] == "check" or state["mode"] == "over":
        world.write("reset")
        factory.pin(pinmap.inputs["new_game"].pin).drive_low()
        service.pump()
        factory.pin(pinmap.inputs["new_game"].pin).drive_high()
    threading.Thread(target=visitor, args=(factory, pinmap, random.Random(seed)), daemon=True).start()
    while True:
        service.step()


def campaign(folder, rounds, seed, report=None):
    """Start the rig's service, kill it with SIGKILL at a random moment, start
    it again, `rounds` times, and judge each resume against the world's log:

    - "exact": it resumed with exactly the marbles that passed the gate;
    - "held": a release was under way at the kill, so it cannot know the
      count, and it holds in fault "check" instead of playing on;
    - "miscount": anything else (the resumed game disagrees with the world).

    Returns the counts of each and the marbles that passed in all."""
    sys.path.insert(0, str(ROOT / "tests"))
    from service_rig import write_config
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    config = write_config(folder, marbles=400, capacity=400, pace_ms=150, equalizer=False)
    world_log = folder / "world.log"
    world_log.write_text("")
    store = StateStore(str(folder / "state"))
    rng = random.Random(seed)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + str(ROOT / "tests"))
    counts = {"exact": 0, "held": 0, "miscount": 0}
    expected = None
    for number in range(rounds + 1):
        process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "kill_rig.py"), str(config),
                                    str(world_log), str(seed * 100003 + number)], cwd=ROOT, env=env,
                                   stdout=subprocess.PIPE, text=True)
        try:
            line = process.stdout.readline()
            if not line.startswith("STATE "):
                raise RuntimeError("round %d: the rig did not start: %r" % (number, line))
            if expected is not None:
                verdict = judge(expected, json.loads(line[6:]))
                counts[verdict] += 1
                if report:
                    report(number, verdict, expected, line[6:].strip())
            if number == rounds:
                break
            time.sleep(rng.uniform(0.05, 1.0))
        finally:
            process.kill()
            process.wait()
        expected = expectation(store.read()[0]["state"], world_log.read_text().split())
    counts["marbles"] = world_log.read_text().split().count("marble")
    return counts


def expectation(saved, lines):
    """What the next start must resume: "check" when a release was under way
    at the kill, else the marbles that passed since the last reset."""
    if saved["fault"] == "check" or saved["in_flight"] or saved["queued"]:
        return "check"
    return lines[::-1].index("reset") if "reset" in lines else len(lines)


def judge(expected, resumed):
    if expected == "check":
        return "held" if resumed["fault"] == "check" else "miscount"
    return "exact" if resumed["taken"] == expected and resumed["fault"] != "check" else "miscount"


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
