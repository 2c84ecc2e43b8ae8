"""A fake `machine` module for the emulated board (firmware/emulator/), on
MICROPYPATH ahead of the unix port's own: the firmware's drivers run on it
unchanged. Never copied to a board (the build takes only firmware/*.py).

Pins keep their level; `drive(level)` is the outside world moving an input
(a button, the marble beam) and fires the pin's IRQ on the matching edge,
at once, as a real interrupt would. An output's `watch` callback lets the
world see what the firmware does (the release opening).

Interrupts are modelled as the RP2040 has them. A hard handler runs with
the heap locked, so one that allocates fails here as it would on a board.
Between `disable_irq()` and `enable_irq()` (a board's flash write holds
every interrupt that long) a pin keeps the edges it sees, and its handler
runs once when interrupts come back, with `flags()` giving every edge
kept: the handler can see only the level at that moment.
"""

import asyncio
import micropython
import time

PINS = {}
# The pins with edges waiting while interrupts are held (kept in one list: holding allocates nothing).
WAITING = []
HELD = False
PWRON_RESET = 1
WDT_RESET = 3
# Why the board last started: the emulator sets it when it starts the firmware again.
CAUSE = PWRON_RESET


def disable_irq():
    global HELD
    state = not HELD
    HELD = True
    return state


def enable_irq(state=True):
    global HELD
    if state and HELD:
        HELD = False
        while WAITING:
            WAITING.pop(0).fire()


class Reset(Exception):
    """`reset()` on the emulated board: the emulator starts the firmware again."""


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    # Set only on the pins with an IRQ, so the fake's pins take little of the
    # heap (a board's are not in it at all).
    edges = 0           # the edges that run the handler next: `flags()`

    def __init__(self, id, mode=IN, pull=None, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        self.level = value if value is not None else (1 if pull == Pin.PULL_UP else 0)
        self.handler = None
        self.trigger = 0
        self.watch = None
        PINS[id] = self

    def value(self, level=None):
        if level is None:
            return self.level
        level = 1 if level else 0
        if level != self.level:
            self.level = level
            if self.watch:
                self.watch(self, level)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        """The pin is its own IRQ object: `flags()` is on it."""
        self.handler = handler
        self.trigger = trigger
        self.hard = hard
        return self

    def flags(self):
        return self.edges

    def drive(self, level):
        """The world sets an input's level; the IRQ fires on a matching edge,
        or once interrupts come back."""
        level = 1 if level else 0
        if level == self.level:
            return
        self.level = level
        edge = (Pin.IRQ_RISING if level else Pin.IRQ_FALLING) & self.trigger
        if not (self.handler and edge):
            return
        if not HELD:
            self.edges = edge
            self.fire()
        elif not self.edges:
            self.edges = edge
            WAITING.append(self)
        else:
            self.edges |= edge

    def fire(self):
        if self.hard:
            micropython.heap_lock()
        try:
            self.handler(self)
        finally:
            if self.hard:
                micropython.heap_unlock()
            self.edges = 0


class PWM:
    def __init__(self, pin, freq=50, duty_u16=0):
        self.pin = pin
        self.hz = freq
        self.duty = duty_u16
        self.pin.pwm = self

    def freq(self, hz=None):
        if hz is None:
            return self.hz
        self.hz = hz

    def duty_u16(self, duty=None):
        if duty is None:
            return self.duty
        if duty != self.duty:
            self.duty = duty
            if self.pin.watch:
                self.pin.watch(self.pin, duty)


class Timer:
    """A timer that fires where the emulated board runs the firmware's own
    asyncio loop (`Timer.live`, on a real clock): one task of that loop looks
    every millisecond at the timers armed, so arming one allocates nothing, as
    on a board. On the host's clock it never fires, and the loop's `due` does
    what is due."""
    PERIODIC = 1
    ONE_SHOT = 0
    live = False
    armed = []          # every timer ever armed; those with a `due` count down
    ticker = None

    def __init__(self, id=-1, **kwargs):
        self.callback = None
        self.due = None
        if kwargs:
            self.init(**kwargs)

    def init(self, mode=PERIODIC, period=-1, freq=-1, callback=None, hard=False):
        self.callback = callback
        self.mode = mode
        self.period = period
        self.due = time.ticks_add(time.ticks_ms(), period) if callback is not None else None
        if self not in Timer.armed:
            Timer.armed.append(self)
        if Timer.live and Timer.ticker is None:
            Timer.ticker = asyncio.create_task(Timer.tick())

    @staticmethod
    async def tick():
        while True:
            now = time.ticks_ms()
            for timer in Timer.armed:
                if timer.due is not None and time.ticks_diff(now, timer.due) >= 0:
                    timer.due = time.ticks_add(timer.due, timer.period) if timer.mode == Timer.PERIODIC else None
                    timer.callback(timer)
            await asyncio.sleep_ms(1)


class WatchdogReset(SystemExit):
    """The watchdog went hungry: the emulator starts the firmware again, as the
    hardware would. A SystemExit, so the firmware reports no crash."""


class WDT:
    """Counts feeds, and resets the board when a feed comes more than
    `timeout` after the last one. A real watchdog resets the board the
    moment the time is up; the emulator cannot stop a loop that is stuck, so
    it resets at the late feed, once the loop moves again. `WDT.started`
    holds every watchdog the firmware started, for the tests."""
    started = []

    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= 8388:
            raise ValueError("WDT timeout %d ms is beyond the RP2040's 8388" % timeout)
        self.timeout = timeout
        self.feeds = 0
        self.fed = time.ticks_ms()
        WDT.started.append(self)

    def feed(self):
        now = time.ticks_ms()
        if time.ticks_diff(now, self.fed) > self.timeout:
            raise WatchdogReset()
        self.fed = now
        self.feeds += 1


class WorldPins:
    """The pins as the marble world (world.py) moves and watches them."""

    def rest(self, number, level):
        PINS[number].level = level

    def drive(self, number, level):
        PINS[number].drive(level)

    def watch(self, number, callback):
        PINS[number].watch = lambda pin, value: callback(value)


def reset_cause():
    return CAUSE


def reset():
    raise Reset()


def reset_pins():
    """Forget every pin: the board starts again, its interrupts on."""
    global HELD
    HELD = False
    del WAITING[:]
    PINS.clear()
    del Timer.armed[:]
    Timer.ticker = None
