"""The board's inputs and outputs on `machine.Pin`, each built from a line of
the generated `board_config` (the pin map's [pico] section).

Inputs: an edge on a button or a switch is kept by its interrupt (its time
and level, in a small ring that allocates nothing) and wakes the loop, which
debounces them with the core's Debouncer, the same rule as the Pi service's,
edge by edge at their own times: a press made while the loop was held (a
save's flash erase, a write to a host that reads nothing) is not lost. The
marble sensor (Dr. Nim's) has a module of its own, marble_sensor.py, loaded
only on a board that has one.

Outputs: each carries out the commands of one output role of the machine
(an indicator's side, a lamp, the release, the buzzer, the Nimatron's rows on
a 74HC595 chain). Lamps and the buzzer are here; the indicators, the release,
the servo and the lamp chain each have a module, loaded only on a board that
has one (indicators.py, marble_release.py, servo.py, lamp_chain.py), as the
sensor's, so the others' code takes none of its heap. Timed things (the
release pulse, a beep, blinking lamps) end in `due(now)`, which the loop
calls at `next_due()`; `safe()` puts every output off with the release shut,
whatever happened before.
"""

from machine import Pin, Timer
from micropython import const

from controller.core.debounce import Debouncer

PULLS = {"up": Pin.PULL_UP, "down": Pin.PULL_DOWN, None: None}
EDGES = Pin.IRQ_RISING | Pin.IRQ_FALLING
BLINK_MS = 400
# The edges kept for each input between two looks of the loop: a visitor's presses through a
# held loop of half a second, each with a few bounces. Constants with a leading underscore cost
# a board no name in its table, which grows by doubling (4.4 KiB at once past 620 at 32 bits).
_KEPT = const(16)
_WRAP = const(0x3FFFFFFF)
_SIZE = const(35)            # an input's part of `edges`: edges kept, edges read, its level, then (ticks, level) pairs
# A beep for each sound cue: (on ms, off ms, count), as the Pi service's buzzer.
BEEPS = {"marble": (30, 0, 1), "lamp": (30, 0, 1), "refuse": (80, 80, 2), "extra": (50, 50, 2),
         "new_game": (100, 0, 1), "win": (200, 100, 3), "nim_champ": (100, 50, 8), "lose": (600, 0, 1),
         "fault": (100, 100, 5)}


def input_pin(number, pull):
    return Pin(number, Pin.IN, PULLS[pull])


def watch(pin, handler):
    """`handler(pin)` on both edges of `pin`: a hard interrupt where the port has
    them (it runs at the edge itself), else a soft one (the ESP32's pins); the
    IRQ object, and True when hard."""
    try:
        return pin.irq(handler, EDGES, hard=True), True
    except TypeError:
        return pin.irq(handler, EDGES), False


def start_timer(timer, ms, callback):
    """`callback(timer)` once, `ms` from now, in the timer's interrupt where the
    port can (the rp2 port's since MicroPython 1.26), so nothing the loop does can
    delay it; before that, scheduled (firmware/README.md, "The release")."""
    try:
        timer.init(mode=Timer.ONE_SHOT, period=ms, callback=callback, hard=True)
    except TypeError:
        timer.init(mode=Timer.ONE_SHOT, period=ms, callback=callback)


class Inputs:
    """The buttons and switches: the interrupt keeps each edge (`moved`), and
    `poll(now, emit)` debounces the edges kept, at their own times, then the
    level the pin has now, calling emit(event, now) for each newly accepted
    level (events: role -> (when active, when not))."""

    def __init__(self, specs, events, wake, ticks_ms, ticks_diff):
        self.items = []
        self.by_role = {}
        self.wake = wake
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        self.edges = [0] * (_SIZE * len(specs))     # the interrupt's ring of edges, _SIZE small ints an input
        handler = self.moved        # bound once: the interrupt allocates nothing
        for role, number, pull, active_high, debounce_ms, min_pulse_ms in specs:
            pin = input_pin(number, pull)
            level = pin.value() == active_high
            self.edges[_SIZE * len(self.items) + 2] = level
            item = (pin, active_high, Debouncer(debounce_ms, level, min_pulse_ms), events[role])
            self.items.append(item)
            self.by_role[role] = item
            watch(pin, handler)

    def event(self, role):
        """The event that says where the input `role` stands now (a switch's side)."""
        pin, active_high, debouncer, events = self.by_role[role]
        return events[0] if debouncer.level else events[1]

    def level(self, role):
        return self.by_role[role][2].level

    def moved(self, pin):
        edges = self.edges
        base = 0
        for item in self.items:
            if item[0] is pin:
                kept = edges[base]
                edges[base + 3 + 2 * (kept % _KEPT)] = self.ticks_ms()
                edges[base + 4 + 2 * (kept % _KEPT)] = pin.value() == item[1]
                edges[base] = (kept + 1) & _WRAP
                break
            base += _SIZE
        self.wake()

    def poll(self, now, emit):
        """Each input's edges kept since the last look, at their own times, then its
        level now: the debouncer first ends a lock or a pulse's wait that came
        before the edge, at the level the pin had then (no new names here: each
        costs a board's table of names, which grows by doubling)."""
        edges = self.edges
        ticks = self.ticks_ms()
        base = 0
        for pin, active_high, debouncer, events in self.items:
            kept = edges[base]
            read = edges[base + 1]
            if (kept - read) & _WRAP > _KEPT:
                read = (kept - _KEPT) & _WRAP       # more than the ring holds: the latest
            while True:
                replay = read != kept
                if replay:
                    slot = base + 3 + 2 * (read % _KEPT)
                    at = min(now, now - self.ticks_diff(ticks, edges[slot]))
                    level = edges[slot + 1] == 1
                    read = (read + 1) & _WRAP
                else:
                    at = now
                    level = pin.value() == active_high
                due = debouncer.due()
                if due is not None and due <= at:
                    accepted = debouncer.recheck(edges[base + 2] == 1, due)
                    if accepted is not None and events[1 - accepted] is not None:
                        emit(events[1 - accepted], now)
                edges[base + 2] = level
                accepted = debouncer.edge(level, at)
                if accepted is None:
                    accepted = debouncer.recheck(level, at)
                if accepted is not None and events[1 - accepted] is not None:
                    emit(events[1 - accepted], now)
                if not replay:
                    break
            edges[base + 1] = read
            base += _SIZE

    def next_due(self):
        """When a pin must be read again (a press held long enough to pass the
        pulse filter, the end of a lock), or None."""
        due = None
        for item in self.items:
            end = item[2].due()
            if end is not None and (due is None or end < due):
                due = end
        return due


class Level:
    """One output pin with its active level."""

    def __init__(self, number, active_high):
        self.active_high = active_high
        self.pin = Pin(number, Pin.OUT, value=0 if active_high else 1)

    def set(self, on):
        self.pin.value(1 if on == self.active_high else 0)


class Output:
    """The base of every output: nothing timed, off is off."""
    due_at = None

    def due(self, now):
        pass

    def safe(self):
        self.off()

    def shift(self, delta):
        """The loop's clock moved by `delta` ms: so does what is due (read once: the release's
        timer may shut it meanwhile, and an `off` due again is harmless)."""
        at = self.due_at
        if at is not None:
            self.due_at = at + delta


class Lamp(Output):
    """A status lamp: on, off or blinking."""

    def __init__(self, kind, pins, active_high, options):
        self.level = Level(pins[0], active_high)
        self.lit = False

    def carry_out(self, now, state):
        self.due_at = now + BLINK_MS if state == "blink" else None
        self.show(state != "off")

    def show(self, lit):
        self.lit = lit
        self.level.set(lit)

    def due(self, now):
        if self.due_at is not None and now >= self.due_at:
            self.due_at += BLINK_MS * (1 + (now - self.due_at) // BLINK_MS)
            self.show(not self.lit)

    def off(self):
        self.due_at = None
        self.show(False)


class Buzzer(Output):
    """An active buzzer beeping each cue's pattern; `options`, the cues it plays
    (the pin map's [pico] sound), None for every one."""

    def __init__(self, kind, pins, active_high, options):
        self.level = Level(pins[0], active_high)
        self.cues = options
        self.beeps = 0
        self.on_ms = self.off_ms = 0
        self.sounding = False

    def carry_out(self, now, cue):
        if self.cues is not None and cue not in self.cues:
            return
        self.on_ms, self.off_ms, self.beeps = BEEPS.get(cue, (50, 0, 1))
        self.sound(now, True)

    def sound(self, now, on):
        self.sounding = on
        self.level.set(on)
        if on:
            self.beeps -= 1
            self.due_at = now + self.on_ms
        else:
            self.due_at = now + self.off_ms if self.beeps > 0 else None

    def due(self, now):
        if self.due_at is not None and now >= self.due_at:
            self.sound(now, not self.sounding)

    def off(self):
        self.beeps = 0
        self.sound(0, False)


class BoardLed(Output):
    """The board's own LED ("LED": a Pico's GP25, a Pico W's on its radio chip):
    a slow blink while the firmware plays, a fast one while the game holds in a
    fault, lit steady while the firmware is stopped for maintenance, dark when
    no firmware runs. The loop blinks it, so a loop that hangs leaves it still.
    A board without one (no pin called "LED") just has none."""
    HALF_MS = {"play": 1000, "fault": 100}

    def __init__(self):
        try:
            self.pin = Pin("LED", Pin.OUT, value=0)
        except (ValueError, TypeError):
            self.pin = None
        self.pattern = None
        self.lit = False

    def show(self, pattern, now):
        """"play", "fault", "steady" or "off"."""
        if pattern == self.pattern or self.pin is None:
            return
        self.pattern = pattern
        half = self.HALF_MS.get(pattern)
        self.due_at = now + half if half else None
        self.light(pattern != "off")

    def light(self, lit):
        self.lit = lit
        self.pin.value(1 if lit else 0)

    def due(self, now):
        if self.due_at is not None and now >= self.due_at:
            half = self.HALF_MS[self.pattern]
            self.due_at += half * (1 + (now - self.due_at) // half)
            self.light(not self.lit)

    def off(self):
        self.show("off", 0)


# The output kinds whose drivers live in a module of their own, imported only
# on a board whose machine has one: their code takes no heap on the other.
MODULES = {"indicator": ("indicators", "Indicator"), "release": ("marble_release", "Release"),
           "lamp_rows": ("lamp_chain", "LampRows")}
KINDS = {"lamp": Lamp, "sound": Buzzer}


def device_class(kind):
    """The driver of an output `kind` of the machine's (its OUTPUTS)."""
    if kind in KINDS:
        return KINDS[kind]
    module, name = MODULES[kind]
    return getattr(__import__(module), name)


class Outputs:
    """Every output of the machine, reached by the head of its commands
    (``("flip_flop", 1)`` for ``("flip_flop", 1, "left")``)."""

    def __init__(self, specs, declared, pulse_ms, wake):
        self.by_command = {}
        self.devices = []
        self.release = None
        for role, kind, pins, active_high, options in specs:
            spec = declared[role]
            if spec.kind == "release":
                device = self.release = device_class("release")(kind, pins, active_high, options, pulse_ms, wake)
            else:
                device = device_class(spec.kind)(kind, pins, active_high, options)
            self.by_command[spec.command] = device
            self.devices.append(device)

    def apply(self, command, now):
        """Carry out one command; False when no output does it (a message, an
        output this board has no pin for)."""
        for size in (2, 1):
            device = self.by_command.get(command[:size])
            if device is not None:
                device.carry_out(now, *command[size:])
                return True
        return False

    def due(self, now):
        for device in self.devices:
            device.due(now)

    def next_due(self):
        due = None
        for device in self.devices:
            at = device.due_at
            if at is not None and (due is None or at < due):
                due = at
        return due

    def pulsing(self):
        """True while the release is open."""
        return self.release is not None and self.release.due_at is not None

    def shift(self, delta):
        for device in self.devices:
            device.shift(delta)

    def safe(self):
        """The release shut first, then everything else off."""
        if self.release is not None:
            self.release.safe()
        for device in self.devices:
            device.safe()
