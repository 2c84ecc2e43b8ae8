"""The virtual replica: the real service and hardware layer on gpiozero's
MockFactory pins, with a model of the physical machine around them.

Dr. Nim's world: marbles wait on the rail; when the release output is
energised one marble leaves the rail, falls for `fall_ms`, breaks the IR
beam at the gate (the sensor pin), and lands in the tray. The Nimatron's
world: its lamps are decoded from the 74HC595 pin traffic alone, so the
shift-register code is exercised for real.

Faults on demand: `jam_rate` (a released marble sticks in the chute),
`glitch_rate` (the sensor fires with no marble, per second), `bounce`
(buttons bounce on press and release). `seed` makes a run repeatable. Time
is simulated: `advance(ms)` runs as fast as the computer allows.
"""

import random
import tempfile

from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.core.exhibit import LAMP, LAMP_ROWS, RELEASE, check_settings
from controller.core.marbles import Marbles
from controller.core.scenario import command_text
from controller.core.registry import NAMES, machine_class
from controller.hardware.pinmap import default_pinmap_path, display_registers, load_pinmap
from controller.service.config import SERVICE_SETTINGS, Config, check_exhibit, check_with_pinmap
from controller.service.daemon import Service
from controller.service.notify import Notifier
from controller.service.sound import DAY_MINUTES, local_minute
from controller.sim.pins import BoundedPin

PRESS_MS = 100
GAP_MS = 100
BEAM_MS = 12
BOUNCES = 4


class EdgePin(BoundedPin):
    """A mock output pin that tells the world when it goes high."""

    def __init__(self, factory, info, on_rise=None):
        super().__init__(factory, info)
        self.on_rise = on_rise

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed and value and self.on_rise is not None:
            self.on_rise()
        return changed


class GatePin(MockPWMPin):
    """A servo gate's mock pin (a release of kind "servo"): it tells the world when the servo is sent nearer
    its open angle than its closed one, as a solenoid's pin does by going high."""

    def __init__(self, factory, info, spec=None, on_open=None):
        super().__init__(factory, info)
        self.spec = spec
        self.on_open = on_open
        self.opened = False

    def _change_state(self, value):
        changed = super()._change_state(value)
        opened = self.open_now(value)
        if opened and not self.opened and self.on_open is not None:
            self.on_open()
        self.opened = opened
        return changed

    def open_now(self, value):
        """Whether the pulse `value` (a duty cycle at the servo's frequency) turns the gate nearer open."""
        if not value or not self.frequency:
            return False
        options = self.spec.options
        low, high = options.get("min_pulse_ms", 1.0), options.get("max_pulse_ms", 2.0)
        angle = -90 + (value * 1000 / self.frequency - low) / (high - low) * 180
        return abs(angle - options.get("open_angle", 60)) < abs(angle - options.get("closed_angle", 0))


def rest_inputs(factory, pinmap, switches=None):
    """The external resistors of a pin map's inputs on mock pins: a pin with no
    internal pull floats, so each such input (the marble sensor, with its
    10 kΩ pull-up to 3.3 V) is driven to its level at rest before the service
    reads it. `switches` (a machine's `switches()`: role -> active) are the
    switches a person set where the machine believes they are, as the
    configuration says (Dr. Nim's equalizer switch at armed): each holds its
    line (BoundedPin.held) through the pull the board sets."""
    for spec in pinmap.inputs.values():
        if spec.pull == "none":
            pin = factory.pin(spec.pin)
            (pin.drive_low if spec.active_high else pin.drive_high)()
    for role, active in (switches or {}).items():
        hold(factory.pin(pinmap.inputs[role].pin), active == pinmap.inputs[role].active_high)


def hold(pin, level):
    """A switch holds `pin` at `level` (a BoundedPin keeps it when a board sets its pull)."""
    pin.held = level
    (pin.drive_high if level else pin.drive_low)()


class Chip74HC595:
    """A chain of 74HC595s seen from its pins: a clock rise shifts the data pin
    in at output 0, a latch rise copies the shift register to the outputs."""

    def __init__(self, factory, spec):
        count = 8 * spec.options["registers"]
        self.data = factory.pin(spec.pins["data"])
        factory.pin(spec.pins["clock"], pin_class=EdgePin, on_rise=self.clock)
        factory.pin(spec.pins["latch"], pin_class=EdgePin, on_rise=self.latch)
        self.shifting = [False] * count
        self.outputs = [False] * count

    def clock(self):
        self.shifting = [bool(self.data.state)] + self.shifting[:-1]

    def latch(self):
        self.outputs = list(self.shifting)


class Simulation:
    """One virtual machine. `settings` are the machine's (as in config.toml)."""

    def __init__(self, machine=NAMES[0], settings=None, seed=0, jam_rate=0.0, glitch_rate=0.0, bounce=False,
                 fall_ms=250, state_dir=None, keep_commands=False, telemetry=None, language="en", exhibit=None,
                 local_start=None, runtime_dir=None, pinmap=None):
        """`runtime_dir`: where the heartbeat's status file goes (the state folder when None; a Pi's
        is in RAM, /run, which a measure of what the SD card is written leaves out). `pinmap`: the
        exhibit's wiring, checked (a configuration's, `--simulate --config`); None: the machine's shipped one."""
        self.machine_name = machine
        self.rng = random.Random(seed)
        self.jam_rate = jam_rate
        self.glitch_rate = glitch_rate
        self.bounce = bounce
        self.now = 0
        self.log = []
        # Every command, as text, for a script's `expect commands`; off for a soak or
        # the drawing, where the list would grow for as long as the run lasts.
        self.commands = [] if keep_commands else None
        self.scheduled = []     # (time, control, active): the edges of buttons tap() is working
        self.said = None        # (id, values): what the machine last said, till it next does something
        self.glitches = 0       # the world's own counts, to set beside what the machine saw
        self.jams = 0
        cls = machine_class(machine)
        machine_settings = cls(settings).config
        self.folder = None if state_dir else tempfile.TemporaryDirectory(prefix="drnim-sim-")
        folder = state_dir or self.folder.name
        service = check_settings(SERVICE_SETTINGS, {"machine": machine, "pin_factory": "mock", "state_dir": folder,
                                                    "runtime_dir": runtime_dir or folder})
        # telemetry: checked [telemetry] settings (controller/telemetry/settings.py), to report to a broker
        # language: the visitor's (a code), which the service says the machine's messages in; exhibit: the
        # other [exhibit] settings of a configuration (the beeps the buzzer plays), checked
        exhibit = dict(exhibit or {}, language=[language])
        self.config = Config(service, {machine: machine_settings}, telemetry=telemetry,
                             exhibit=check_exhibit("the simulator", exhibit))
        # the minute of the day the run starts at (None: this computer's now), for the quiet hours: the
        # simulated time runs on from it
        self.local_start = local_minute() if local_start is None else local_start
        self.pinmap = pinmap or load_pinmap(default_pinmap_path(machine))
        # settings the wiring cannot carry (a script's five rows on a pin map of four) are refused in a line, as a
        # configuration's are, before a board is built from them
        check_with_pinmap(self.config, self.pinmap, where="the simulator")
        self.factory = MockFactory(pin_class=BoundedPin)
        self.chip = None
        self.marbles = None
        if cls.has_output(RELEASE):
            gate = self.pinmap.outputs["release"]
            if gate.kind == "servo":
                self.factory.pin(gate.pins["pin"], pin_class=GatePin, spec=gate, on_open=lambda: self.released())
            else:
                self.factory.pin(gate.pins["pin"], pin_class=EdgePin, on_rise=lambda: self.released())
            self.marbles = Marbles(machine_settings["marbles"], fall_ms)
        if cls.has_output(LAMP_ROWS):
            self.chip = Chip74HC595(self.factory, self.pinmap.outputs["lamps"])
        self.next_glitch = self.draw_glitch()
        rest_inputs(self.factory, self.pinmap, cls(machine_settings).switches())
        self.start_service()

    def start_service(self):
        """Start the service (again, after a simulated restart: it resumes its saved game)."""
        rest_inputs(self.factory, self.pinmap)
        self.service = Service(self.config, self.pinmap, pin_factory=self.factory, clock=lambda: self.now,
                               notifier=Notifier({}), log=self.note, local_time=self.local_time)
        original = self.service.handle

        def handle(event, now):
            commands = original(event, now)
            if commands:
                self.said = next((c[1:] for c in reversed(commands) if c[0] == "message"), None)
            if self.commands is not None:
                self.commands.extend(command_text(c) for c in commands)
            if event[0] != "tick" or commands:
                self.note("%7.1f s  %-28s -> %s" % (now / 1000, " ".join(str(p) for p in event),
                                                   "; ".join(self.done(c) for c in commands
                                                             if c[0] != "message") or "nothing"))
            return commands
        self.service.handle = handle
        self.service.start()

    def done(self, command):
        """A command of the machine as the log shows it: a beep the buzzer keeps quiet says so."""
        text = " ".join(str(p) for p in command)
        return text + " (not played: [exhibit] sound)" if command[0] == "sound" and not self.service.plays(
            command[1]) else text

    def local_time(self):
        """The minute of the day on the simulated clock."""
        return (self.local_start + self.now // 60000) % DAY_MINUTES

    def restart(self):
        """The service process dies and starts again on the same pins."""
        self.service.board.close()
        self.service.stats.close()
        if self.service.telemetry:
            self.service.telemetry.close()
        self.start_service()

    # --- the world ------------------------------------------------------------
    @property
    def machine(self):
        return self.service.machine

    def note(self, text):
        self.log.append(text)
        del self.log[:-500]

    def released(self):
        """The release pin went high: one marble leaves the rail, if there is one."""
        def jams():
            if self.rng.random() < self.jam_rate:
                self.jams += 1
                self.note("world: the marble jammed in the chute")
                return True
            return False
        if self.marbles.released(self.now, jams):
            self.spike()

    def spike(self):
        """The solenoid firing puts a spike of microseconds on the sensor line:
        on the simulated clock, both edges at the same millisecond."""
        sensor = self.factory.pin(self.pinmap.inputs["marble_sensor"].pin)
        self.note("world: the release spiked the sensor line")
        sensor.drive_low()
        sensor.drive_high()

    def draw_glitch(self):
        if self.glitch_rate <= 0 or self.marbles is None:
            return None
        return self.now + int(self.rng.expovariate(self.glitch_rate) * 1000) + 1

    def drop_by_hand(self):
        """Someone takes a marble off the rail and drops it through the gate."""
        self.marbles.drop_by_hand()
        self.beam()

    def clear_jam(self):
        """A technician frees the jammed marbles: they fall through the gate."""
        self.marbles.free_jam(self.now)
        self.advance(0)

    def advance(self, ms):
        """Let `ms` of simulated time pass: the service, the marbles and the glitches work."""
        end = self.now + ms
        while True:
            self.service.pump()
            arrival = self.marbles.next_arrival() if self.marbles else None
            world = [t for t in [arrival, self.next_glitch, self.service.next_busy_deadline()]
                     + [t for t, _, _ in self.scheduled] if t is not None and t <= end]
            if not world:
                break  # only the machine at rest until the end: one step there, however long
            times = [t for t in world + [self.service.next_deadline()] if t is not None and t <= end]
            self.now = max(self.now, min(times))
            if self.scheduled and min(self.scheduled)[0] <= self.now:
                _, control, active = min(self.scheduled)
                self.scheduled.remove(min(self.scheduled))
                self.edge(self.factory.pin(self.pinmap.inputs[control].pin), active)
            elif arrival is not None and arrival <= self.now:
                self.marbles.arrive()
                self.beam()
            elif self.next_glitch is not None and self.next_glitch <= self.now:
                self.glitches += 1
                self.note("world: the sensor glitched")
                self.beam()
                self.next_glitch = self.draw_glitch()
        self.now = end
        self.service.pump()

    def beam(self):
        sensor = self.factory.pin(self.pinmap.inputs["marble_sensor"].pin)
        sensor.drive_low()
        self.service.pump()
        self.now += BEAM_MS
        sensor.drive_high()
        self.service.pump()

    # --- a person at the machine ----------------------------------------------------
    def press(self, control, hold_ms=PRESS_MS):
        """Press a button as a person would: held about 100 ms, then a short pause."""
        if control == "new_game" and self.marbles:
            self.marbles.reload()
        pin = self.factory.pin(self.pinmap.inputs[control].pin)
        self.edge(pin, True)
        self.advance(hold_ms)
        self.edge(pin, False)
        self.advance(GAP_MS)

    def tap(self, control, hold_ms=PRESS_MS):
        """Press a button now (or, if it is still held from the last tap, just
        after it is let go), let it go `hold_ms` later, and return once the
        press has held its `min_pulse_ms` (1 ms: the service counts it then),
        hardly running the clock: what a key or a click in the drawing does,
        so the marbles it releases are seen falling all the way."""
        if control == "new_game" and self.marbles:
            self.marbles.reload()
        start = self.now
        for time, held, _ in self.scheduled:
            if held == control:
                start = max(start, time + GAP_MS)
        self.scheduled.append((start, control, True))
        self.scheduled.append((start + hold_ms, control, False))
        self.advance(self.pinmap.inputs[control].min_pulse_ms if start == self.now else 0)

    def edge(self, pin, active):
        if self.bounce:
            for _ in range(BOUNCES):
                (pin.drive_low if active else pin.drive_high)()
                self.service.pump()
                self.now += 1
                (pin.drive_high if active else pin.drive_low)()
                self.service.pump()
                self.now += 1
        (pin.drive_low if active else pin.drive_high)()
        self.service.pump()

    def set_switch(self, control, on):
        """Move a toggle switch: on is the Dr. Nim side (turn) or right (equalizer).

        A person moves it to the side asked for even when it already sits
        there (Dr. Nim's marbles flip the turn indicator back, not the lever):
        then it goes to the other side and back."""
        pin = self.factory.pin(self.pinmap.inputs[control].pin)
        if self.service.board.level(control) == on:
            self.edge(pin, not on)
            self.advance(GAP_MS)
        self.edge(pin, on)
        pin.held = bool(pin.state)      # the lever stays there through a restart of the service
        self.advance(GAP_MS)

    def settle(self, limit_ms=60000):
        """Let time pass until nothing falls and no machine move is under way."""
        waited = 0
        while waited < limit_ms and self.busy():
            self.advance(100)
            waited += 100

    def busy(self):
        """True while something is under way: a press, a falling marble, a machine move."""
        if self.scheduled:
            return True
        machine = self.machine
        if self.marbles:
            return bool(self.marbles.falling) or machine.running or (machine.in_flight and machine.fault is None)
        return machine.mode == "play" and machine.turn == "machine"

    # --- what is shown -------------------------------------------------------------
    def output(self, role, name="pin"):
        return bool(self.factory.pin(self.pinmap.outputs[role].pins[name]).state)

    def side(self, role):
        """An indicator's side, read from its pins (a servo's from its angle)."""
        spec = self.pinmap.outputs[role]
        if spec.kind == "servo":
            return "left" if self.service.board.outputs[role].angle < 0 else "right"
        return "left" if self.output(role, "left") else "right" if self.output(role, "right") else None

    def lamps(self):
        """Status lamps by name: on, off or blink, read from the pins."""
        shown = {}
        board = self.service.board
        for role, lamp in board.outputs.items():
            if board.kinds[role] == LAMP:
                name = role[len("lamp_"):]
                shown[name] = "blink" if lamp._blink_thread is not None else "on" if lamp.is_lit else "off"
        return shown

    def rows(self, display=0):
        """The Nimatron's lit lamps per row, decoded from the shift-register pins
        (display 0 the console's, from U1's QA; 1 the spectators', from U5's)."""
        lamps, rows = self.pinmap.lamps_per_row, self.pinmap.rows
        start = display * 8 * display_registers(rows, lamps)
        bits = self.chip.outputs[start:start + rows * lamps]
        return [sum(bits[r * lamps:(r + 1) * lamps]) for r in range(rows)]

    def close(self):
        self.service.stop()
        if self.folder:
            self.folder.cleanup()
