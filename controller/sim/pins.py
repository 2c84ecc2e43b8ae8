"""gpiozero's mock pins for runs that last: the simulator's soak, the drawing
left open all day, `controller run --pin-factory mock`.

gpiozero's MockPin appends every change of state to its `states` list (for
its `assert_states` checks) and never forgets one: a soak of 1,000 games
grew to 85 MiB, mostly those records. `BoundedPin` keeps the last `HISTORY`
changes, which is all a test ever looks at.
"""

from gpiozero.pins.mock import MockPWMPin

HISTORY = 100


class BoundedPin(MockPWMPin):
    """A MockPWMPin whose history of states holds at most 2 * HISTORY records."""

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed and len(self.states) > 2 * HISTORY:
            del self.states[:-HISTORY]
        return changed
