"""The emulated board's runner on the host's clock: time passes only in the
host's `advance` lines, so a script plays on the board as it does in the
simulator. A real board keeps its own time and refuses `advance`, so none of
this is copied to one.

The marble sensor's interrupt reads `ticks_ms` as a board's does: the host's
time wrapped at 2**30 ms, compared as a board's `time.ticks_diff` compares,
right only within 2**29 ms (6.2 days). A plain subtraction, or the unix
port's own ticks (which wrap at 2**62 on a 64-bit computer), would hide what
a week without a marble does to a board."""

from runner import Runner

from controller.core.protocol import HOST_CLOCK

# Steps one `advance` takes at their own times, at most: a long wait (hours of
# attract lamps) passes the rest at once, where the machine catches up on
# every missed attract step as it does after a long gap between ticks.
STEP_LIMIT = 2000
TICKS_MASK = (1 << 30) - 1      # a board's time.ticks_ms() wraps past it
TICKS_HALF = 1 << 29


def ticks_diff(a, b):
    """A board's time.ticks_diff: `a - b` in ticks that wrap at 2**30, from -2**29 to 2**29 - 1."""
    return ((a - b + TICKS_HALF) & TICKS_MASK) - TICKS_HALF


class HostClockRunner(Runner):
    def __init__(self, config, write, path):
        # nothing to wake: time passes, and `step` runs, only in the host's `advance` lines
        Runner.__init__(self, config, write, lambda: None, lambda: self.now & TICKS_MASK, ticks_diff, HOST_CLOCK,
                        path=path)

    def read_switches(self, now):
        """Its levers are the host's injected events, not its pins: there is nothing to read."""

    def ask_advance(self, message, ident):
        """Time passes on the host's clock: everything due happens at its own
        time; `settle` stops early once nothing is under way."""
        self.advance(message["ms"], message.get("settle", False))
        self.answer(ident, {"kind": "advanced", "now": self.now, "busy": self.busy()})

    def advance(self, ms, settle=False):
        """`ms` pass on the host's clock, each thing due at its own time."""
        until = self.now + ms
        steps = 0
        while steps < STEP_LIMIT and not (settle and not self.busy()):
            due = self.next_due(not settle)
            if due is None or due > until and not (self.world and self.world.finishing(due)):
                break
            steps += 1
            self.step(max(due, self.now))
        if not settle:
            self.step(until)    # after a beam finished past the end, back to it, as the simulator's clock
