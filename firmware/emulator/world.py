"""The marble world around an emulated board: marbles on the rail fall
past the gate's beam `fall_ms` after the release opens, some jam or go
missing, the beam glitches now and then. It reads the firmware's release pin
and drives its sensor pin, so the drivers and the interrupt run as on a
board. The marbles are the core's model (controller/core/marbles.py), the
same one the core's scenario runner and the simulator use, so `world` lines
mean what a script's `world` line means.

The same world runs beside both emulated boards: inside the unix
`micropython` on the fake `machine` module (firmware/emulator/board.py), and
on the host beside the official firmware in rp2040js
(controller/firmware/rp2040.py). Each gives it `pins`: `rest(number, level)`
sets an input's level with no edge (its pull resistor at power-up),
`drive(number, level)` moves it, and `watch(number, callback)` calls
`callback(value)` when an output changes.

Rates come as decimal text ("0.1"), as on the simulator's command line. The
core's generator has no floats, so a jam is a chance in a million, and
glitches come at random intervals averaging 1/rate seconds (spread evenly,
not exponentially as in the simulator: the same rate, not the same draws).
"""

from controller.core.marbles import Marbles
from controller.core.protocol import ProtocolError
from controller.core.rng import Random
from controller.core.quoting import quoted

FALL_MS = 300
# How long a marble breaks the beam: the simulator's figure (a marble takes 10-20 ms).
BEAM_MS = 12
MILLION = 1000000
FIELDS = ("kind", "id", "fall_ms", "lost", "double", "spike", "jam_rate", "glitch_rate", "seed", "drop", "free_jam")


def per_million(text, what):
    """ "0.1" as 100000; ProtocolError for anything but a decimal from 0 to 1000."""
    whole, _, part = text.partition(".") if isinstance(text, str) else ("", "", "")
    digits = whole + part
    if not digits or len(part) > 6 or len(whole) > 4 or not all("0" <= c <= "9" for c in digits):
        raise ProtocolError("world: %s %s is not a rate such as \"0.1\"" % (what, quoted(text)))
    return int(whole or "0") * MILLION + int((part + "000000")[:6])


def whole_list(value, what):
    if not isinstance(value, list) or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1
                                              for n in value):
        raise ProtocolError("world: %s %s is not a list of release numbers from 1" % (what, quoted(value)))
    return value


class World:
    def __init__(self, config, clock, pins):
        self.clock = clock
        self.pins = pins
        self.marbles = Marbles(0, FALL_MS)
        self.jam = 0
        self.glitch = 0
        self.rng = Random(1)
        self.next_glitch = None
        self.clears = []            # when the beam, broken now, is clear again
        self.opens = None
        self.sensor = None
        if config.SENSOR:
            self.sensor = config.SENSOR
            role, number, pull, active_high = config.SENSOR[:4]
            if pull is None:
                pins.rest(number, 0 if active_high else 1)      # its external pull resistor: the beam is clear
        for role, kind, numbers, active_high, options in config.OUTPUTS:
            if role == "release":
                self.opens = options[1] if kind == "servo" else (1 if active_high else 0)
                pins.watch(numbers[0], self.release_moved)

    def started(self, machine, resumed):
        """The board started with `machine`: a new game loads its marbles; a saved one
        resumed in a world that knows of none (a fresh emulator, started from a save)
        finds them where the game says, on the rail."""
        m = self.marbles
        if resumed != "saved":
            self.new_game(machine)
        elif self.opens is not None and not (m.rail or m.tray or m.jammed or m.falling):
            m.rail = machine.rail

    def new_game(self, machine):
        """Every marble back on the rail, as many as the game loads."""
        loaded = machine.config.get("marbles", 0) if self.opens is not None else 0
        world = self.marbles
        self.marbles = Marbles(loaded, world.fall_ms)

    def release_moved(self, value):
        if value == self.opens and self.marbles.released(self.clock(), self.jams) and self.sensor:
            self.edges((True, False))      # the solenoid's spike on the sensor line: both edges at once

    def shift(self, delta):
        """The board's clock moved by `delta` ms: so do the world's times."""
        m = self.marbles
        m.falling = [at + delta for at in m.falling]
        self.clears = [at + delta for at in self.clears]
        if self.next_glitch is not None:
            self.next_glitch += delta

    def jams(self):
        return self.jam > 0 and self.rng.below(MILLION) < self.jam

    def edges(self, broken):
        """The sensor pin through these beam states (True: broken)."""
        number, active_high = self.sensor[1], self.sensor[3]
        for state in broken:
            self.pins.drive(number, active_high if state else not active_high)

    def beam(self, now):
        """A marble (or a glitch) breaks the beam for BEAM_MS, as in the simulator."""
        self.edges((True,))
        self.clears.append(now + BEAM_MS)

    def next_due(self):
        times = [t for t in (self.marbles.next_arrival(), self.next_glitch) if t is not None] + self.clears[:1]
        return min(times) if times else None

    def finishing(self, due):
        """True when `due` ends the beam a marble is breaking: as in the
        simulator, a marble passes the beam whole, even past the end of a wait."""
        return bool(self.clears) and self.clears[0] == due

    def busy(self):
        return bool(self.marbles.falling or self.clears)

    def run(self, now):
        """Everything due by `now`, earliest first."""
        while True:
            due = self.next_due()
            if due is None or due > now:
                return
            if self.clears and self.clears[0] == due:
                self.clears.pop(0)
                self.edges((False,))
            elif self.marbles.falling and self.marbles.falling[0] == due:
                self.marbles.arrive()
                self.beam(now)
            else:
                self.beam(now)
                self.next_glitch = self.draw_glitch(self.next_glitch)

    def draw_glitch(self, after):
        if not self.glitch or not self.sensor:
            return None
        mean_ms = 1000 * MILLION // self.glitch
        return after + 1 + self.rng.below(2 * mean_ms)

    def configure(self, message):
        """A `world` line: every field checked first, then all applied."""
        for key in message:
            if key not in FIELDS:
                raise ProtocolError("world: %s is not a field of it (fields: %s)" % (quoted(key), ", ".join(FIELDS[2:])))
        fall = message.get("fall_ms")
        if fall is not None and (not isinstance(fall, int) or isinstance(fall, bool) or not 1 <= fall <= 600000):
            raise ProtocolError("world: fall_ms %s is not a time from 1 to 600000 ms" % quoted(fall))
        releases = {}
        for key in ("lost", "double", "spike"):
            if key in message:
                releases[key] = whole_list(message[key], key)
        jam = per_million(message["jam_rate"], "jam_rate") if "jam_rate" in message else None
        if jam is not None and jam > MILLION:
            raise ProtocolError("world: jam_rate %s is more than 1" % quoted(message["jam_rate"]))
        glitch = per_million(message["glitch_rate"], "glitch_rate") if "glitch_rate" in message else None
        seed = message.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= 0xFFFFFFFF):
            raise ProtocolError("world: seed %s is not a whole number from 0 to 4294967295" % quoted(seed))
        for key in ("drop", "free_jam"):
            if key in message and not isinstance(message[key], bool):
                raise ProtocolError("world: %s %s is not true or false" % (key, quoted(message[key])))
        now = self.clock()
        self.marbles.set_world(fall, releases.get("lost"), releases.get("double"), releases.get("spike"))
        if seed is not None:
            self.rng = Random(seed)
        if jam is not None:
            self.jam = jam
        if glitch is not None:
            self.glitch = glitch
            self.next_glitch = self.draw_glitch(now)
        if message.get("free_jam"):
            self.marbles.free_jam(now)
        if message.get("drop") and self.sensor and self.marbles.rail:
            self.marbles.drop_by_hand()
            self.beam(now)

    def view(self):
        m = self.marbles
        return {"rail": m.rail, "tray": m.tray, "jammed": m.jammed, "falling": len(m.falling),
                "releases": m.releases_since}
