"""The self-test's bench on gpiozero's mock pins, in a simulated world that
answers the self-test's questions itself: how the tests run it, and how
`controller selftest --simulate` shows it.

The world is the bench simulator's (controller/sim/engine.py): marbles that
leave the rail when the release pin rises, fall for `fall_ms` and break the
beam at the gate; a 74HC595 chain decoded from its pins. Around it:

- a visitor who does what a stage asks: presses a button (its contact
  bouncing for `bounce_ms`, or longer for a worn one in `worn`), moves a
  switch there and back, breaks the sensor's beam; an input in `unwired`
  never moves its pin (a sensor in it never sees a marble either), one in
  `held` reads active from the start and stays so (a stuck button, a beam
  blocked), one in `reversed` is wired the other way round from its pin map
  (a button to 3.3 V where the map pulls it up: its pin never moves; a
  receiver whose output is high while the beam is broken where the map says
  low: it reads active at rest);
- eyes that answer "is it lit?" from the pins, never from what the
  self-test meant to show: a lamp in `dead` is never seen lit, a chain in
  `dead` never lights, a lamp or LED pair in `reversed` is lit at the level
  its pin map calls off (a common-anode LED where the map says high), so a
  fault the stage should catch is caught only if the board really drives the
  wrong pins;
- `jam_rate`: the chance that a released marble sticks in the chute.

The release may be a solenoid (a marble goes when its pin rises) or a servo
gate (when it swings nearer its open angle than its closed one).

Time is simulated: the stages run as fast as the computer allows.
"""

import heapq
import random

from gpiozero.pins.mock import MockFactory

from controller.core.marbles import Marbles
from controller.hardware.pinmap import display_registers
from controller.selftest.bench import Bench
from controller.selftest.report import asking
from controller.sim.engine import BEAM_MS, GAP_MS, PRESS_MS, Chip74HC595, EdgePin, hold, rest_inputs
from controller.sim.pins import BoundedPin

BOUNCE_MS = 8          # a good contact's bounce: edges 1 ms apart
WORN_BOUNCE_MS = 45    # a worn one, longer than any debounce_ms in the shipped pin maps
ANSWER = {True: "yes", False: "no"}


def servo_angle(spec, pin):
    """A servo's angle read from its mock PWM pin's pulse (None when detached)."""
    if not pin.frequency or not pin.state:
        return None
    pulse_ms = pin.state * 1000 / pin.frequency
    low, high = spec.options["min_pulse_ms"], spec.options["max_pulse_ms"]
    return -90 + (pulse_ms - low) * 180 / (high - low)


class WatchedChip(Chip74HC595):
    """The 74HC595 chain as the eyes see it: every latched frame remembered,
    and nothing lit while its OE line (`enable`, active low) is high."""

    def __init__(self, factory, spec):
        super().__init__(factory, spec)
        self.enable = factory.pin(spec.pins["enable"]) if "enable" in spec.pins else None
        self.frames = []

    def shown(self):
        if self.enable is not None and self.enable.state:
            return [False] * len(self.outputs)
        return list(self.outputs)

    def latch(self):
        super().latch()
        self.frames.append(self.shown())


class SimulatedBench(Bench):
    simulated = True

    def __init__(self, pinmap, layout=None, out=None, rail=15, fall_ms=250, jam_rate=0.0, seed=0,
                 dead=(), unwired=(), worn=(), held=(), reversed=()):
        self.time = 0
        self.happenings = []     # a heap of (time, order, what happens)
        self.order = 0
        self.rng = random.Random(seed)
        self.jam_rate = jam_rate
        self.dead = set(dead)
        self.unwired = set(unwired)
        self.worn = set(worn)
        self.held = set(held)
        self.reversed = set(reversed)
        self.pinmap = pinmap
        self.factory = MockFactory(pin_class=BoundedPin)
        self.chip = None
        self.marbles = None
        self.gate_open = False
        release = pinmap.outputs.get("release")
        if release is not None:
            self.factory.pin(release.pin, pin_class=EdgePin, on_rise=lambda: self.gate_moved(release))
            self.marbles = Marbles(rail, fall_ms)
        for spec in pinmap.outputs.values():
            if spec.kind == "shift_register":
                self.chip = WatchedChip(self.factory, spec)
        rest_inputs(self.factory, pinmap)
        for role in self.held | (self.reversed & {"marble_sensor"}):
            hold(self.factory.pin(pinmap.inputs[role].pin), pinmap.inputs[role].active_high)
        super().__init__(pinmap, self.factory, layout, out, clock=lambda: self.time)

    # --- the world's clock -----------------------------------------------------------
    def at(self, when, happening):
        self.order += 1
        heapq.heappush(self.happenings, (when, self.order, happening))

    def next_event(self, deadline):
        """The next edge, letting the world happen until it gives one (or the deadline)."""
        while self.queue.empty():
            if not self.happenings or self.happenings[0][0] > deadline:
                self.time = max(self.time, deadline)
                return None
            when, _, happening = heapq.heappop(self.happenings)
            self.time = max(self.time, when)
            happening()
        return self.queue.get_nowait()

    # --- the marbles ---------------------------------------------------------------------
    def gate_moved(self, spec):
        """The release pin changed: a solenoid energised, or a servo gate moved
        (open when nearer its open angle than its closed one)."""
        if spec.kind == "servo":
            angle = servo_angle(spec, self.factory.pin(spec.pin))
            opened = angle is not None and \
                abs(angle - spec.options["open_angle"]) < abs(angle - spec.options["closed_angle"])
        else:
            opened = True
        if opened and not self.gate_open:
            self.released()
        self.gate_open = opened and spec.kind == "servo"

    def released(self):
        """The release opened: one marble leaves the rail, unless it jams."""
        falling = len(self.marbles.falling)
        self.marbles.released(self.time, lambda: self.rng.random() < self.jam_rate)
        for when in self.marbles.falling[falling:]:
            self.at(when, self.arrive)

    def arrive(self):
        self.marbles.arrive()
        if self.unwired & {"marble_sensor"} or self.held & {"marble_sensor"} or self.reversed & {"marble_sensor"}:
            return
        sensor = self.factory.pin(self.pinmap.inputs["marble_sensor"].pin)
        sensor.drive_low()
        self.at(self.time + BEAM_MS, sensor.drive_high)

    # --- the visitor -------------------------------------------------------------------
    def go_ahead(self, text):
        self.out.write(asking(text, "[Enter: go, s: skip]") + "\n")
        return True

    def act(self, text, role, changes):
        self.say(text)
        if role in self.unwired or role in self.held or role in self.reversed:
            return
        pin = self.factory.pin(self.pinmap.inputs[role].pin)
        active_high = self.pinmap.inputs[role].active_high
        level = bool(pin.state) == active_high
        when = self.time + GAP_MS
        for _ in range(changes):
            level = not level
            self.change(pin, level == active_high, when, WORN_BOUNCE_MS if role in self.worn else BOUNCE_MS)
            when += PRESS_MS if level else GAP_MS

    def change(self, pin, high, when, bounce_ms):
        """The pin goes `high` (or low) at `when`, the contact chattering for `bounce_ms` first."""
        for ms in range(0, bounce_ms, 2):
            self.at(when + ms, pin.drive_high if high else pin.drive_low)
            self.at(when + ms + 1, pin.drive_low if high else pin.drive_high)
        self.at(when + bounce_ms, pin.drive_high if high else pin.drive_low)

    # --- the eyes --------------------------------------------------------------------------
    def ask(self, question, look=None):
        answer = ANSWER[self.sees(*look)]
        self.out.write(asking(question, "[y/n/s]") + answer[0] + "\n")
        return answer

    def sees(self, what, role=None, side=None):
        if what == "on":
            return role not in self.dead and self.lit(self.pinmap.outputs[role])
        if what == "off":
            spec = self.pinmap.outputs[role]
            return role in self.dead or not any(self.lit(spec, name) for name in spec.pins)
        if what == "side":
            return role not in self.dead and self.side(self.pinmap.outputs[role]) == side
        walked = self.walked(role)
        self.chip.frames = []
        return "lamps" not in self.dead and walked

    def lit(self, spec, name="pin"):
        return (bool(self.factory.pin(spec.pins[name]).state) == (spec.active != "low")) != (spec.role in self.reversed)

    def side(self, spec):
        """Which way an indicator points, read from its pins (a servo's from its pulse)."""
        if spec.kind == "servo":
            angle = servo_angle(spec, self.factory.pin(spec.pin))
            if angle is None:
                return None
            return "left" if abs(angle - spec.options["left_angle"]) < abs(angle - spec.options["right_angle"]) \
                else "right"
        left, right = self.lit(spec, "left"), self.lit(spec, "right")
        return "left" if left and not right else "right" if right and not left else None

    def rows(self, outputs, display):
        lamps, rows = self.pinmap.lamps_per_row, self.pinmap.rows
        start = display * 8 * display_registers(rows, lamps)
        return [sum(outputs[start + r * lamps:start + (r + 1) * lamps]) for r in range(rows)]

    def walked(self, row):
        """Row `row` (None: every row dark now) lit 1, 2, ... lamps in turn, the
        others dark, the same on both displays, in the frames latched since the last look."""
        if row is None:
            return not any(self.chip.shown())
        shown = []
        for frame in self.chip.frames:
            console, spectators = self.rows(frame, 0), self.rows(frame, 1)
            others = [lit for number, lit in enumerate(console + spectators) if number % len(console) != row - 1]
            if console == spectators and not any(others) and console[row - 1] and \
                    (not shown or shown[-1] != console[row - 1]):
                shown.append(console[row - 1])
        return shown == list(range(1, self.pinmap.lamps_per_row + 1))
