"""Simulator scripts: `controller --simulate --script FILE`.

The script language and its interpreter are the core's
(controller/core/scenario.py): here is only the world they act on, the
virtual replica of `Simulation`, so a script runs through the whole stack
(pins, debouncing, the service, the core machine) on the simulated clock, as
fast as the computer allows. Every scenario of tests/scenarios/ runs both on
the core alone and here.

`press` works a control as a person would (held about 100 ms, then a short
pause); `set` moves a switch the way a person looking at it would. What an
`expect` checks is read from the pins: the indicators' sides, the lamps
decoded from the shift-register chain.
"""

from controller.core.exhibit import RELEASE
from controller.core.scenario import Script, read_controls, summary_of
from controller.sim.engine import Simulation


class SimWorld:
    """The world of a script played on the virtual replica."""

    def __init__(self, seed=0, jam_rate=0.0, glitch_rate=0.0, bounce=False):
        self.options = {"seed": seed, "jam_rate": jam_rate, "glitch_rate": glitch_rate, "bounce": bounce}
        self.sim = None

    @property
    def machine(self):
        return self.sim.machine

    @property
    def commands(self):
        return self.sim.commands

    def start(self, cls, settings):
        simulation = Simulation(cls.NAME, settings, keep_commands=True, **self.options)
        self.close()
        self.sim = simulation

    def press(self, role):
        self.sim.press(role)

    def switch(self, spec, active):
        self.sim.set_switch(spec.role, active)

    def drop_marble(self):
        self.sim.drop_by_hand()

    def power(self):
        self.sim.restart()

    def wait(self, ms):
        self.sim.advance(ms)

    def settle(self):
        self.sim.settle()

    def set_world(self, fall_ms=None, lost=None, double=None, spike=None):
        self.sim.marbles.set_world(fall_ms, lost, double, spike)

    def view(self):
        """What a person can check, read from the machine and, for what it shows, from the pins."""
        sim = self.sim
        machine = sim.machine
        view = {"turn": machine.turn, "winner": machine.winner or "none", "fault": machine.fault or "none",
                "mode": machine.mode, "attract": "yes" if machine.attract else "no",
                "turns": [":".join(str(p) for p in turn) for turn in machine.turns],
                "releases": str(sim.marbles.releases_since if sim.marbles else 0)}
        if machine.has_output(RELEASE):
            view["rail"] = str(machine.rail)
            read_controls(view, sim.side)
        else:
            view["rows"] = ",".join(str(n) for n in sim.rows())
        return view

    def summary(self):
        return summary_of(self.view())

    def close(self):
        if self.sim:
            self.sim.close()
            self.sim = None


def run_script(text, report=None, **options):
    """Play a script through the whole stack; returns the failures (empty: all held)."""
    world = SimWorld(**options)
    try:
        return Script(world, report).play(text).failures
    finally:
        world.close()
