"""The marbles of a Dr. Nim replica in the physical world: on the rail,
falling to the gate, jammed in the chute, in the tray.

One model for every world that plays a machine: the core's scenario runner,
the bench simulator and the firmware's emulated board. Pure, like the rest
of the core: times come in with the calls, and a jam is the caller's choice.
"""

# How far behind the first a second marble falls, when one release lets two through.
DOUBLE_GAP_MS = 60
# Marbles freed from a jam roll down one behind the other, this far apart.
FREED_GAP_MS = 80


class Marbles:
    def __init__(self, rail, fall_ms=300):
        self.rail = rail
        self.fall_ms = fall_ms
        self.falling = []       # when each falling marble reaches the gate, earliest first
        self.jammed = 0
        self.tray = 0
        self.releases = 0
        self.since = 0          # releases before the world was last set
        self.lost = ()          # releases (counted from `since`) whose marble never comes
        self.double = ()        # releases that let two marbles through
        self.spike = ()         # releases whose solenoid puts a spike on the sensor line as it fires

    def set_world(self, fall_ms=None, lost=None, double=None, spike=None):
        """Change the fall time, or which releases (counted from now) lose or
        double their marble, or spike the sensor line as they fire."""
        if fall_ms is not None:
            self.fall_ms = fall_ms
        if lost is not None or double is not None or spike is not None:
            self.since = self.releases
        if lost is not None:
            self.lost = tuple(lost)
        if double is not None:
            self.double = tuple(double)
        if spike is not None:
            self.spike = tuple(spike)

    @property
    def releases_since(self):
        """Releases since the world was last set."""
        return self.releases - self.since

    def released(self, now, jams=None):
        """The release opened: one marble leaves the rail and falls, unless the
        rail is empty or the release is lost. `jams()`, asked only when a
        marble leaves, says whether it sticks in the chute. True when this
        release spikes the sensor line (the world's `spike`): the caller puts
        a pulse of microseconds on it."""
        self.releases += 1
        number = self.releases - self.since
        if self.rail == 0 or number in self.lost:
            return number in self.spike
        self.rail -= 1
        if jams is not None and jams():
            self.jammed += 1
            return number in self.spike
        self.falling.append(now + self.fall_ms)
        if number in self.double and self.rail:
            self.rail -= 1
            self.falling.append(now + self.fall_ms + DOUBLE_GAP_MS)
        self.falling.sort()
        return number in self.spike

    def next_arrival(self):
        """When the next falling marble reaches the gate, or None."""
        return self.falling[0] if self.falling else None

    def arrive(self):
        """The first falling marble passes the gate and lands in the tray."""
        self.falling.pop(0)
        self.tray += 1

    def drop_by_hand(self):
        """Someone takes a marble off the rail and drops it through the gate."""
        self.rail -= 1
        self.tray += 1

    def free_jam(self, now):
        """A technician frees the jammed marbles: they fall, one behind the other."""
        while self.jammed:
            self.jammed -= 1
            self.falling.append(now + self.fall_ms + FREED_GAP_MS * self.jammed)
        self.falling.sort()

    def reload(self):
        """Every marble back on the rail."""
        self.rail += self.tray + self.jammed + len(self.falling)
        self.tray = self.jammed = 0
        self.falling = []
