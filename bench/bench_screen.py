"""The second screen beside an exhibit: how long from a pin edge on the exhibit to
the page's drawing of it, and what a game costs the broker. Prints figures;
asserts nothing.

    .venv/bin/python bench/bench_screen.py          (or: make bench)

The real parts, in real time: the service (`controller run`'s Service) on
gpiozero's mock pins with telemetry on, its own thread and clock, a marble
that falls past the sensor 300 ms after each release; Debian's mosquitto with
a WebSockets listener; the built page in headless Chromium following the
exhibit. A whole Dr. Nim game is pressed on the pins; for each event a pin
edge caused that changed what the page draws (a press of the trigger, the
turn switch, a marble at the gate) the delay runs from the edge to the
animation frame in which the page drew what the exhibit did (the two clocks
are this computer's wall clock). It holds the exhibit's own work: its
debouncing, its save of the game (written and synced before it acts), then
the broker, the browser and the page's MicroPython.

Then the bytes a game puts on the broker: the live game (its retained state at
every change, each event with its commands) over a whole Dr. Nim game and a
Nimatron game played by the simulator's visitor, counted by a subscriber,
payloads and on the wire (MQTT's PUBLISH headers with the topic).
"""

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

FALL_S = 0.3
BEAM_S = 0.005
PRESS_S = 0.1
GAP_S = 0.25


def skip_reason():
    from broker_rig import MISSING, find_mosquitto
    from controller.web.browser import missing
    if find_mosquitto() is None:
        return MISSING
    return missing()


class Exhibit:
    """The service in real time on mock pins, with a marble world, reporting to the broker."""

    def __init__(self, folder, broker, prefix):
        from gpiozero.pins.mock import MockFactory
        from controller.hardware.pinmap import default_pinmap_path, load_pinmap
        from controller.service.config import load_config
        from controller.service.daemon import Service
        from controller.service.notify import Notifier
        from controller.sim.engine import EdgePin, rest_inputs
        from controller.sim.pins import BoundedPin
        from service_rig import write_config
        config = write_config(folder, "drnim", equalizer=False, pace_ms=300)
        config.write_text(config.read_text() + '[telemetry]\nenabled = true\nhost = "127.0.0.1"\nport = %d\n'
                          'client_id = "hall-1"\ntopic_prefix = "%s"\n' % (broker.port, prefix))
        self.pinmap = load_pinmap(default_pinmap_path("drnim"))
        self.factory = MockFactory(pin_class=BoundedPin)
        self.factory.pin(self.pinmap.outputs["release"].pins["pin"], pin_class=EdgePin, on_rise=self.released)
        rest_inputs(self.factory, self.pinmap, {"equalizer_switch": False})
        self.edges = []             # (role, active, wall time) of every edge driven
        self.lock = threading.Lock()
        self.service = Service(load_config(str(config)), self.pinmap, pin_factory=self.factory,
                               notifier=Notifier({}), log=lambda text: None)
        self.events = {}            # seq -> the event, as published
        send = self.service.live.send

        def noted(kind, record):
            if "event" in record:
                self.events[record["seq"]] = record["event"]
            send(kind, record)
        self.service.live.send = noted
        self.thread = threading.Thread(target=self.service.run, daemon=True)
        self.thread.start()

    def edge(self, role, active):
        pin = self.factory.pin(self.pinmap.inputs[role].pin)
        with self.lock:
            self.edges.append((role, active, time.time()))
            (pin.drive_low if active else pin.drive_high)()

    def released(self):
        threading.Timer(FALL_S, self.marble).start()

    def marble(self):
        self.edge("marble_sensor", True)
        time.sleep(BEAM_S)
        self.edge("marble_sensor", False)

    def press(self, role):
        self.edge(role, True)
        time.sleep(PRESS_S)
        self.edge(role, False)
        time.sleep(GAP_S)

    def settle(self):
        machine = self.service.machine
        while machine.running or machine.in_flight or machine.state["queued"]:
            time.sleep(0.05)
        time.sleep(GAP_S)

    def play(self):
        """A whole game: the visitor takes one or two, then hands over; Dr. Nim plays its marbles."""
        machine = self.service.machine
        take = 1
        while machine.mode == "play":
            for _ in range(take):
                self.press("trigger")
            self.settle()
            take = 3 - take
            if machine.mode != "play":
                break
            self.edge("turn_switch", True)
            time.sleep(GAP_S)
            self.press("trigger")
            self.settle()
            self.edge("turn_switch", False)
            time.sleep(GAP_S)

    def stop(self):
        self.service.request_stop()
        self.thread.join(10)


def caused_by(event):
    """The input role and its level whose edge made `event`, or None (a tick)."""
    if event[0] == "press":
        return event[1], True
    if event[0] == "release":
        return event[1], False
    if event[0] == "marble":
        return "marble_sensor", True
    if event[0] == "switch" and event[1] == "turn":
        return "turn_switch", event[2] == "machine"
    return None


def delays(exhibit, drawn):
    """For each event a pin edge made: ms from that edge (the last one before the event was drawn) to its drawing."""
    found = []
    for seq, at in drawn:
        event = exhibit.events.get(seq)
        cause = event and caused_by(event)
        if not cause:
            continue
        edges = [t for role, active, t in exhibit.edges if (role, active) == cause and t <= at / 1000]
        if edges:
            found.append(at - 1000 * edges[-1])
    return found


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def latency(folder, broker):
    from controller.web.browser import open_page, served_page
    exhibit = Exhibit(folder, broker, "bench-latency")
    try:
        with served_page() as (context, address, _):
            page = open_page(context, "%s?follow=hall-1&prefix=bench-latency&broker=%s" % (address, broker.ws_address))
            page.wait_for_function("nim.view && nim.view() !== null", timeout=30000)
            exhibit.play()
            page.wait_for_function("nim.view().mode === 'over'", timeout=30000)
            time.sleep(0.3)
            drawn = page.evaluate("nim.drawn")
            errors = page.evaluate("nim.errors") + page.page_errors
    finally:
        exhibit.stop()
    found = delays(exhibit, drawn)
    print("pin edge to the page's drawing, over a whole Dr. Nim game (%d events drawn): median %.1f ms, "
          "99th percentile %.1f ms, longest %.1f ms%s" % (len(found), statistics.median(found),
                                                          percentile(found, 0.99), max(found),
                                                          "" if not errors else " (the page said: %s)" % errors[0]))


def wire(topic, payload):
    """A QoS 0 PUBLISH's bytes: fixed header (type, remaining length), the topic with its length, the payload."""
    remaining = 2 + len(topic.encode()) + len(payload)
    length = 1
    while remaining >= 128 ** length:
        length += 1
    return 1 + length + remaining


def bytes_per_game(folder, broker):
    import paho.mqtt.client as mqtt
    from broker_rig import wait_until
    from controller.core.registry import NAMES
    from controller.sim.autoplay import autoplay
    from controller.sim.engine import Simulation
    from controller.telemetry.settings import check_telemetry
    counted = []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-bytes")
    client.on_message = lambda c, u, message: counted.append((message.topic, len(message.payload),
                                                               wire(message.topic, message.payload)))
    client.connect("127.0.0.1", broker.port)
    client.subscribe("bench-bytes/+/live/#")
    client.loop_start()
    try:
        for machine in NAMES:
            telemetry = check_telemetry("bench", {"enabled": True, "host": "127.0.0.1", "port": broker.port,
                                                  "client_id": machine, "topic_prefix": "bench-bytes"})
            sim = Simulation(machine, telemetry=telemetry, state_dir=str(folder / machine))
            wait_until(lambda: sim.service.telemetry.connected, 10, "the exhibit connected")
            games = 5
            autoplay(sim, games, "novice", seed=1)
            sent = sim.service.telemetry
            wait_until(lambda: len([c for c in counted if c[0].split("/")[1] == machine]) >= sent.live_sent, 10,
                       "every live message at the subscriber")
            mine = [c for c in counted if c[0].split("/")[1] == machine]
            states = [c for c in mine if c[0].endswith("state")]
            print("%-8s live game, a game on the broker: %.0f messages (%.0f states), %.1f KB of payloads, "
                  "%.1f KB on the wire" % (machine, len(mine) / games, len(states) / games,
                                           sum(c[1] for c in mine) / games / 1000,
                                           sum(c[2] for c in mine) / games / 1000))
            sim.close()
    finally:
        client.loop_stop()
        client.disconnect()


def main():
    problem = skip_reason()
    if problem:
        print("second screen: skipped, %s" % problem)
        return
    from broker_rig import Broker
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "broker").mkdir()
        broker = Broker(folder / "broker", websockets=True)
        try:
            latency(folder, broker)
            bytes_per_game(folder, broker)
        finally:
            broker.stop()


if __name__ == "__main__":
    main()
