"""The board's main program on a real Pico: asyncio tasks around the Runner.

- `poll`: every POLL_MS, everything due (inputs, outputs, machine timers);
  it also feeds the watchdog, so a loop that stops stops feeding it;
- `marbles`: woken by the sensor's ThreadSafeFlag, counts the marbles at once;
- `serial`: the host's lines from USB serial, one byte at a time into a
  fixed buffer, so no line can make the board allocate without bound. It
  reads the console's bytes (`sys.stdin.buffer`): the text console would
  hand it characters, turn a terminal's CR LF into two line ends, and
  refuse bytes that are not UTF-8.

The lines to the host go through `Console`, which never waits on a host
that stopped reading: it drops whole lines instead, and the poll task says
how many in a "link" fault once the host reads again.

In production mode `machine.WDT` resets a board whose loop hangs. No
MicroPython can stop it, so a board stopped at its console (mpremote,
Thonny) is reset within seconds: a host that needs the console leaves
MAINTENANCE_FILE in the flash and resets the board, which then starts
nothing, and no watchdog, until its next reset. Any error
that escapes reaches `run`'s handler: it puts every output safe (the release
shut first), reports the error in one line, and resets the board, which
resumes the saved game (or holds in "check" if a release was under way).
"""

import sys

import asyncio
import machine
import micropython
import select
import time

import board_config as config
import flash
from runner import Lines, Runner

from controller.core.protocol import MAINTENANCE_FILE, PRODUCTION, encode

# Room to report an exception raised in an interrupt. Every board port has
# it; the unix port that runs the emulated board does not.
if hasattr(micropython, "alloc_emergency_exception_buf"):
    micropython.alloc_emergency_exception_buf(100)
SAVE_PATH = "/game.json"
# After a fatal error: the time the host gets to read the report before the reset.
REPORT_MS = 200
STOPPED = "The firmware is stopped for maintenance until the board is reset (it found %s)."
LINK = "%d lines dropped: the host read nothing for a while"


class Clock:
    """Milliseconds since start that never wrap (ticks_ms wraps after about 12 days)."""

    def __init__(self):
        self.last = time.ticks_ms()
        self.ms = 0

    def __call__(self):
        ticks = time.ticks_ms()
        self.ms += time.ticks_diff(ticks, self.last)
        self.last = ticks
        return self.ms


class Console:
    """The serial line to the host, written without ever waiting on a host
    that has stopped reading. A board's USB console holds each write up to
    500 ms while the host keeps the port open and reads nothing (a monitor
    stuck on a failing SD card): line after line, the loop would stop long
    enough for the watchdog to reset the board, again and again.

    So a piece is written only when the line has room for it. From the first
    piece that finds none, the rest of its line and every line after are
    dropped and counted in `dropped`, until a line starts with room again; a
    line cut off is ended first, so the ones after it are whole."""

    def __init__(self, stream):
        self.stream = stream
        self.poller = select.poll()
        self.poller.register(stream, select.POLLOUT)
        self.dropped = 0
        self.dropping = False
        self.cut = False
        self.starting = True        # the next piece starts a line

    def room(self):
        for _ in self.poller.ipoll(0):      # ipoll: no list allocated
            return True
        return False

    def write(self, text):
        if self.dropping and self.starting and self.room():
            self.dropping = False
            if self.cut:
                self.cut = False
                self.stream.write("\n")
        ending = text == "\n"
        if not self.dropping and not self.room():
            self.dropping = True
            self.cut = not self.starting
            if ending and self.cut:
                self.starting = True    # only its end is missing, and ending the cut line writes it
                return
        self.starting = ending
        if not self.dropping:
            self.stream.write(text)
        elif ending:
            self.dropped += 1


async def poll(runner, clock, dog, console):
    reported = 0
    while True:
        runner.step(clock())
        if dog:
            dog.feed()
        if console.dropped != reported and console.room():
            runner.fault("link", LINK % (console.dropped - reported), clock())
            reported = console.dropped
        await asyncio.sleep_ms(config.POLL_MS)


async def marbles(runner, clock, flag):
    while True:
        await flag.wait()
        runner.step(clock())


async def serial(stream, lines):
    reader = asyncio.StreamReader(stream)
    while True:
        data = await reader.read(1)
        if not data:
            raise SystemExit()     # the host closed the line (the emulated board's end)
        lines.byte(data[0])


async def main(runner, clock, flag, dog, stream, lines, console):
    runner.start(clock())
    # gathered, so an error in any task reaches run()'s handler instead of ending that task alone
    await asyncio.gather(poll(runner, clock, dog, console), marbles(runner, clock, flag), serial(stream, lines))


def run(stream=None, console=None, path=SAVE_PATH, world=None, take=None, stop=MAINTENANCE_FILE):
    """The board's life. The emulated board passes its serial stream and
    console, its marble world (`world(clock)` makes it) and `take(raw,
    length)`, which sees each line first, and its own files. With a file at
    `stop`, the board starts nothing: its pins stay as at every power-up
    before the firmware starts, inputs."""
    console = console or Console(sys.stdout)
    write = console.write
    if flash.take(stop):
        write(STOPPED % stop)
        write("\n")
        return
    asyncio.new_event_loop()        # no task left from an earlier run (the emulated board restarts without a reset)
    clock = Clock()
    flag = asyncio.ThreadSafeFlag()
    runner = None
    try:
        dog = machine.WDT(timeout=config.WATCHDOG_MS) if config.MODE == PRODUCTION else None
        lines = Lines(None)     # its buffer before the machine's code loads, while the heap is in one piece
        runner = Runner(config, write, flag, time.ticks_ms, time.ticks_diff, path=path, time=clock)
        if world:
            runner.world = world(clock)
        line = take and take(runner) or runner.line
        lines.take = lambda raw, length: (runner.step(clock()), line(raw, length))
        asyncio.run(main(runner, clock, flag, dog, stream or sys.stdin.buffer, lines, console))
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
            write(encode(report))
            write("\n")
        if isinstance(error, KeyboardInterrupt):
            raise
        time.sleep_ms(REPORT_MS)
        machine.reset()
