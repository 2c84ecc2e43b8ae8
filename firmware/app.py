"""The board's main program on a real Pico: two asyncio tasks around the Runner.

- `play` sleeps until something happens, then does everything due. It is woken
  by `wake`, a ThreadSafeFlag that the pins' interrupts set (a button, a switch,
  the marble sensor), and by a one-shot timer set to the next thing due (a
  machine's timer, a debounce lock's end, a blinking lamp), at the latest
  FEED_MS away: it feeds the watchdog then, so a loop that stops stops feeding
  it. An idle board sleeps (and an emulated one costs no time).
- `serial` reads the host's lines from USB serial into a fixed buffer, so no
  line can make the board allocate without bound: the bytes waiting are taken
  at once, up to a chunk, after one wait. It reads the console's bytes
  (`sys.stdin.buffer`): the text console would hand it characters, turn a
  terminal's CR LF into two line ends, and refuse bytes that are not UTF-8.

The lines to the host go through `Console`, which never waits on a host
that stopped reading: it drops whole lines instead, and the play task says
how many in a "link" fault once the host reads again.

In production mode `machine.WDT` resets a board whose loop hangs, and it is
fed only while both tasks make progress (`Watchdog`). No MicroPython can stop
it, so a board stopped at its console (mpremote, Thonny) is reset within
seconds: a host that needs the console leaves MAINTENANCE_FILE in the flash
and resets the board, which then starts nothing, and no watchdog, while the
file is there (an interrupted deploy leaves it, so half a build never runs).
Any error that escapes reaches `run`'s handler: it puts every output safe
(the release shut first), reports the error in one line, and resets the
board, which resumes the saved game (or holds in "check" if a release was
under way). A board that keeps resetting so holds instead (`CrashGuard`).

The board's own LED says which: a slow blink while it plays, a fast one on a
fault or when it holds after resets, steady while stopped for maintenance.
"""

import sys

import asyncio
import json
import machine
import micropython
from micropython import const
import select
import time

import board_config as config
import flash
from drivers import BoardLed, start_timer
from runner import Lines, Runner

from controller.core.protocol import MAINTENANCE_FILE, PRODUCTION

# Room to report an exception raised in an interrupt. Every board port has
# it; the unix port that runs the emulated board does not.
if hasattr(micropython, "alloc_emergency_exception_buf"):
    micropython.alloc_emergency_exception_buf(100)
SAVE_PATH = "/game.json"
# After a fatal error: the time the host gets to read the report before the reset.
REPORT_MS = 200
# The loop wakes at least this often: it feeds the watchdog then, well within its timeout.
FEED_MS = config.WATCHDOG_MS // 5
# The serial task takes at most this many bytes per turn, so a flood cannot hold the loop.
CHUNK = 256
# The board's clock is kept below this many ms (a small int on a 32-bit port: long ints allocate).
CLOCK_LIMIT = 1 << 29
CLOCK_SHIFT = 1 << 28
# A write to the host held this long means a host asleep with the port open (Console: a Pico's console
# holds it 500 ms then; a host that reads, however busy, takes a line in a few); its lines are then tried
# again this long after. (const, and _: no names for the board's table of them.)
_HELD_MS = const(250)
_RETRY_MS = const(5000)
STOPPED = "The firmware is stopped for maintenance while %s is in the flash: deploy, or remove it and reset."
LINK = "%d lines dropped: the host read nothing for a while"


class Clock:
    """Milliseconds since start, counted across `ticks_ms`' wrap (about 12 days);
    `move(delta)` moves it, which the play task does every few days so it stays
    a small integer."""

    def __init__(self):
        self.last = time.ticks_ms()
        self.ms = 0

    def __call__(self):
        ticks = time.ticks_ms()
        self.ms += time.ticks_diff(ticks, self.last)
        self.last = ticks
        return self.ms

    def move(self, delta):
        self.ms += delta


class Console:
    """The serial line to the host, written without ever waiting on a host
    that has stopped reading. A board's USB console holds each write up to
    500 ms while the host keeps the port open and reads nothing (a monitor
    stuck on a failing SD card): line after line, the loop would stop long
    enough for the watchdog to reset the board, again and again.

    So a piece is written only when the line has room for it. From the first
    piece that finds none, the rest of its line and every line after are
    dropped and counted in `dropped`, until a line starts with room again; a
    line cut off is ended first, so the ones after it are whole.

    A host asleep with the port open (a laptop's lid closed on the monitor)
    suspends the USB bus, and then a Pico's console says it has room and holds
    every write 500 ms all the same. So after a write held _HELD_MS or longer,
    a port that says it has room is tried again only after _RETRY_MS (one that
    says it has none is a host that stopped reading, as above)."""

    def __init__(self, stream):
        self.stream = stream
        self.poller = select.poll()
        self.poller.register(stream, select.POLLOUT)
        self.dropped = 0
        self.dropping = False
        self.cut = False
        self.starting = True        # the next piece starts a line
        self.last = None            # ticks_ms when the last write was held (None: it went at once)

    def room(self):
        for _ in self.poller.ipoll(0):      # ipoll: no list allocated
            # room, it says; after a write that was held, a sleeping host's port says so too
            return self.last is None or time.ticks_diff(time.ticks_ms(), self.last) >= _RETRY_MS
        self.last = None        # no room, and it says so: a host that stopped reading, read again when it does
        return False

    def write(self, text):
        ending = text == "\n"
        if self.dropping and self.starting and self.room():
            self.dropping = False
            if self.cut:
                self.cut = False
                text = "\n" + text     # the line cut off is ended first, in the same write
        if not self.dropping and not self.room():
            self.dropping = True
            self.cut = not self.starting
            if ending and self.cut:
                self.starting = True    # only its end is missing, and ending the cut line writes it
                return
        self.starting = ending
        if not self.dropping:
            start = time.ticks_ms()
            self.stream.write(text)
            end = time.ticks_ms()
            self.last = end if time.ticks_diff(end, start) >= _HELD_MS else None
        elif ending:
            self.dropped += 1


class Watchdog:
    """`machine.WDT` (production mode), fed by the play task only while the
    serial task keeps up: bytes from the host waiting longer than FEED_MS with
    none taken mean it is stuck, and the board is better reset."""

    def __init__(self, dog, stream):
        self.dog = dog
        self.poller = select.poll()
        self.poller.register(stream, select.POLLIN)
        self.taken = 0          # bytes the serial task has taken
        self.seen = 0
        self.waiting_since = None

    def feed(self, now):
        waiting = False
        for _ in self.poller.ipoll(0):
            waiting = True
        if not waiting or self.taken != self.seen:
            self.seen = self.taken
            self.waiting_since = None
        elif self.waiting_since is None:
            self.waiting_since = now
        if self.waiting_since is None or now - self.waiting_since < FEED_MS:
            self.dog.feed()


class CrashGuard:
    """Resets in a row, kept in a small file: a board that resets (a crash, a
    hang the watchdog ended) soon after it starts, again and again, holds
    every output safe instead and waits for the host. Counted only for resets
    the board made itself: a power cut is not one, nor a soft reset (Ctrl-D
    at the console: Thonny, mpremote), which keeps a Pico's last cause (a
    watchdog reset after any machine.reset()) but not its chip's clock:
    `started`, the ms on the timer every reset of the chip restarts at 0, is
    then past BOOT_MS (a soft reset sooner still counts). Forgotten once the
    board has played GUARD_MS without one. The file is `resets` beside the
    saved game (/resets on a board)."""
    LIMIT = 3
    GUARD_MS = 60000
    BOOT_MS = 5000      # a Pico that reset says hello 0.4 s later (emulated)

    def __init__(self, cause, started, beside):
        self.path = beside[:beside.rfind("/") + 1] + "resets"
        text = flash.read(self.path)
        self.count = int(text) if text and text.isdigit() else 0
        if cause == getattr(machine, "WDT_RESET", None) and started < self.BOOT_MS:
            self.count += 1
            flash.write(self.path, str(self.count))

    def held(self):
        return self.count >= self.LIMIT

    def played(self, now, pulsing):
        """The board has played `now` ms: the resets before no longer count. Not while the
        release is open (`pulsing`): a Pico's flash write holds its interrupts, the timer
        that shuts the release among them, for as long as it takes."""
        if self.count and now >= self.GUARD_MS and not pulsing:
            self.count = 0
            flash.take(self.path)


async def play(runner, clock, wake, feeder, console, guard):
    alarm = machine.Timer(-1)
    ring = lambda timer: wake.set()  # noqa: E731  (made once: the timer's interrupt allocates nothing)
    reported = 0
    while True:
        now = clock()
        if now >= CLOCK_LIMIT and runner.quiet():
            clock.move(-CLOCK_SHIFT)
            runner.move_clock(-CLOCK_SHIFT)
            now = clock()
        runner.step(now)
        if console.dropped != reported and console.room():
            runner.fault("link", LINK % (console.dropped - reported), now)
            reported = console.dropped
        if feeder:
            feeder.feed(now)
        guard.played(now, runner.outputs.pulsing())
        due = runner.next_due()
        wait = FEED_MS if due is None else max(1, min(FEED_MS, due - now))
        start_timer(alarm, wait, ring)
        await wake.wait()


async def serial(stream, lines, wake, feeder):
    reader = asyncio.StreamReader(stream)
    poller = select.poll()
    poller.register(stream, select.POLLIN)
    one = bytearray(1)
    while True:
        if not await reader.readinto(one):
            raise SystemExit()     # the host closed the line (the emulated board's end)
        taken = 1
        lines.byte(one[0])
        while taken < CHUNK and waiting(poller) and stream.readinto(one):
            lines.byte(one[0])
            taken += 1
        if feeder:
            feeder.taken += taken
        wake.set()      # a line may have changed what is due next


def waiting(poller):
    for _ in poller.ipoll(0):
        return True
    return False


async def main(runner, clock, wake, feeder, stream, lines, console, guard):
    runner.start(clock())
    # gathered, so an error in either task reaches run()'s handler instead of ending that task alone
    await asyncio.gather(play(runner, clock, wake, feeder, console, guard), serial(stream, lines, wake, feeder))


def run(stream=None, console=None, path=SAVE_PATH, world=None, take=None, stop=MAINTENANCE_FILE, uptime=time.ticks_ms):
    """The board's life. The emulated board passes its serial stream and
    console, its marble world (`world(clock)` makes it) and `take(raw,
    length)`, which sees each line first, its own files, and `uptime()`, the
    ms since its chip started. With a file at `stop`, the board starts
    nothing: its pins stay as at every power-up before the firmware starts,
    inputs."""
    console = console or Console(sys.stdout)
    write = console.write
    stream = stream or sys.stdin.buffer
    if flash.exists(stop):
        BoardLed().show("steady", 0)
        write(STOPPED % stop)
        write("\n")
        return
    guard = CrashGuard(machine.reset_cause(), uptime(), path)
    if guard.held():
        from held import hold
        return hold(config, stream, write, guard, path)
    asyncio.new_event_loop()        # no task left from an earlier run (the emulated board restarts without a reset)
    clock = Clock()
    wake = asyncio.ThreadSafeFlag()
    runner = None
    try:
        dog = machine.WDT(timeout=config.WATCHDOG_MS) if config.MODE == PRODUCTION else None
        feeder = Watchdog(dog, stream) if dog else None
        lines = Lines(None)     # its buffer before the machine's code loads, while the heap is in one piece
        runner = Runner(config, write, wake.set, time.ticks_ms, time.ticks_diff, path=path, time=clock)
        if world:
            runner.world = world(clock)
        line = take and take(runner) or runner.line
        lines.take = lambda raw, length: (runner.step(clock()), line(raw, length))
        asyncio.run(main(runner, clock, wake, feeder, stream, lines, console, guard))
    except SystemExit:
        if runner is not None:
            runner.outputs.safe()
        raise
    except BaseException as error:
        if runner is not None:
            runner.outputs.safe()
        report = {"kind": "fault", "fault": "crash", "text": "%s: %s" % (type(error).__name__, error), "at": clock()}
        if runner is not None:
            runner.send(report)     # after a line the error broke off, on a line of its own
        else:
            write(json.dumps(report))
            write("\n")
        if isinstance(error, KeyboardInterrupt):
            raise
        time.sleep_ms(REPORT_MS)
        machine.reset()
