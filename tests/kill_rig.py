"""The real service loop on mock pins with a physical world around it, as a
process the tests kill with SIGKILL at random moments and start again.

The world: each time the release pin is energised, a marble falls past the
gate 30 ms later. Before the sensor pin sees it, the marble is written to the
world's log with fsync, so the log always holds every marble that really
passed. A visitor thread presses the trigger and moves the turn switch at
random. When the restarted service holds in "check the marbles", the rig
acts as the technician: it puts the marbles back (a "reset" line in the log)
and presses New game.

Usage: kill_rig.py CONFIG WORLD-LOG SEED
Prints one line once the service is up: STATE {json of the resumed state}.
"""

import json
import os
import random
import sys
import threading
import time

from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.hardware.pinmap import default_pinmap_path, load_pinmap
from controller.service import daemon
from controller.service.config import load_config
from controller.sim.engine import EdgePin, rest_inputs

FALL_S = 0.03


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
        time.sleep(0.012)           # a marble breaks the beam for 10-20 ms
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


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
