"""The emulated board: the real firmware (firmware/app.py, runner.py,
drivers.py and the core) on the fake `machine` module, in the marble world,
talking the line protocol on stdin/stdout or on a serial device by path.

    MICROPYPATH=CONFIG:firmware/emulator:firmware:REPO micropython firmware/emulator/board.py \\
        [--port /dev/pts/N] [--flash game.json] [--clock host|real]

CONFIG is a folder holding the generated `board_config.py`
(controller.hardware.pinmap.pico.write_board_config). On the host's clock
(the default, for tests and scripts) time passes only with `advance` lines,
and the emulator reads and answers one line at a time; on a real clock it
runs the firmware's own asyncio main (firmware/app.py), as a Pico does.

Besides the protocol it takes `world` lines (PROTOCOL.md), and in them
`"power_cut": true`: the board loses power and starts again from its flash,
in the same world, as a real one would.
"""

import json
import sys

import machine

import board_config as config
from host_clock import HostClockRunner
from runner import Lines
from world import BEAM_MS, World

from controller.core.protocol import HOST_CLOCK, ProtocolError, decode


class Emulator:
    def __init__(self, write, path, clock):
        self.write = write
        self.path = path
        self.clock = clock
        self.world = None
        self.runner = None

    def boot(self, now):
        """Power on: fresh pins, the firmware started from its flash, the world hooked to the new pins."""
        machine.reset_pins()
        runner = HostClockRunner(config, self.write, self.path)
        marbles = self.world.marbles if self.world else None
        self.world = World(config, lambda: runner.now, machine.WorldPins())
        if marbles is not None:
            self.world.marbles = marbles
        runner.world = self.world
        self.runner = runner
        runner.start(now)

    def take(self, raw, length):
        if raw is not None and b'"world"' in raw:
            self.world_line(raw)
        else:
            self.runner.line(raw, length)

    def world_line(self, raw):
        ident = None
        try:
            message = decode(raw, parse=json.loads)
            if message["kind"] != "world":
                self.runner.line(raw, len(raw))
                return
            ident = message.get("id")
            cut = message.pop("power_cut", False)
            if not isinstance(cut, bool):
                raise ProtocolError("world: power_cut is not true or false")
            self.world.configure(message)
            if message.get("drop") and self.clock == HOST_CLOCK:
                self.runner.advance(BEAM_MS)       # the dropped marble passes the beam, as in the simulator
            else:
                self.runner.step(self.runner.now)
            reply = {"kind": "ok", "asked": "world"}
        except ValueError as error:
            reply = {"kind": "error", "error": str(error)}
            cut = False
        if ident is not None:
            reply["id"] = ident
        self.write(json.dumps(reply))
        self.write("\n")
        if cut:
            self.runner.outputs.safe()
            if self.clock != HOST_CLOCK:
                raise PowerCut()
            self.boot(self.runner.now)


class PowerCut(SystemExit):
    """On a real clock, a `world` line cut the power: the firmware stops where
    it is (a SystemExit, so it reports no crash) and boots again from its flash."""


def writer(stream):
    """Text to the host as the firmware gives it. The unix port's files write
    at once, unbuffered (and flushing a terminal fails: there is nothing to sync)."""
    def write(text):
        stream.write(text.encode())
    return write


def main(argv):
    options = {"--port": None, "--flash": "game.json", "--clock": HOST_CLOCK}
    i = 0
    while i < len(argv):
        if argv[i] not in options or i + 1 >= len(argv):
            sys.stderr.write("usage: board.py [--port PATH] [--flash PATH] [--clock host|real]\n")
            return 2
        options[argv[i]] = argv[i + 1]
        i += 2
    port = options["--port"]
    source = open(port, "rb") if port else sys.stdin.buffer
    if options["--clock"] != HOST_CLOCK:
        import app

        # the board's own console: it drops what a host that stopped reading does not take
        console = app.Console(open(port, "w") if port else sys.stdout)
        emulator = Emulator(console.write, options["--flash"], options["--clock"])

        def world(clock):
            fresh = World(config, clock, machine.WorldPins())
            if emulator.world:
                fresh.marbles = emulator.world.marbles      # the marbles stay where the power cut left them
            return fresh

        def take(runner):
            emulator.runner, emulator.world = runner, runner.world
            return emulator.take

        machine.Timer.live = True
        while True:
            try:
                # each start is its chip's (this board has no soft reset): its chip's clock at 0
                app.run(source, console, options["--flash"], world, take, stop=options["--flash"] + ".maintenance",
                        uptime=lambda: 0)
            except (machine.Reset, machine.WatchdogReset, PowerCut) as reset:
                machine.CAUSE = machine.PWRON_RESET if isinstance(reset, PowerCut) else machine.WDT_RESET
                machine.reset_pins()
    emulator = Emulator(writer(open(port, "wb") if port else sys.stdout.buffer), options["--flash"],
                        options["--clock"])
    lines = Lines(emulator.take)        # its buffer first, while the heap is in one piece
    emulator.boot(0)
    byte = bytearray(1)
    while source.readinto(byte):
        lines.byte(byte[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
