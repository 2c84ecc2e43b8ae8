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
    """A MockPWMPin whose history of states holds at most 2 * HISTORY records.

    `held`, when not None, is the level a switch holds the line at: a toggle
    that joins the pin to GND keeps it low whatever internal pull the board
    sets (gpiozero's MockPin would let the pull-up win when a board is built).
    """

    held = None

    def _set_pull(self, value):
        super()._set_pull(value)
        if self.held is not None:
            (self.drive_high if self.held else self.drive_low)()

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed and len(self.states) > 2 * HISTORY:
            del self.states[:-HISTORY]
        return changed
