"""When a controller writes its game: one rule for the Pi service (on its SD
card) and a board (in its flash).

A game is written whenever something worth keeping changed: not the clock,
not the attract lamps, not a resting timer (the idle and attract timers).
It is written before a release opens (`Keeper.first`), so a reset can lose a
command, but a release under way always finds one under way in the saved
game; other commands are carried out first, the lamps a visitor watches
changing at once, since a write takes tens of ms (a Pico's up to 150).

While the release is open, the write waits until it shuts: a write holds the
controller for tens of ms (an SD card's fsync, a flash erase), and the
release would stay open as long, long enough for a second marble. Waiting
loses nothing: the game written before the release opened has it under way,
so a restart in between holds in fault "check" all the same.
"""

from .exhibit import RESTING_TIMERS

# State that changes while nothing worth a write happens (the attract lamps, the clock).
UNSAVED = ("clock", "attract", "attract_step")


def worth_keeping(saved):
    """The part of a save (Exhibit.to_save) whose change is worth a write, to compare with ==."""
    state = saved["state"]
    kept = {"config": saved["config"]}
    for key in state:
        if key not in UNSAVED:
            kept[key] = state[key]
    kept["timers"] = dict((name, due) for name, due in state["timers"].items() if name not in RESTING_TIMERS)
    return kept


class Keeper:
    """What to write, and when: `wanted(machine, open)` after every change, with
    whether the release is open, gives the save to write now (or None), and
    `written(save)` once it is; `waiting` is True while a write waits for the
    release to shut. A game started afresh with the same settings as the one
    written is not written again."""

    def __init__(self):
        self.kept = None
        self.waiting = False

    def wanted(self, machine, release_open):
        if release_open:
            self.waiting = True
            return None
        self.waiting = False
        saved = machine.to_save()
        return None if worth_keeping(saved) == self.kept else saved

    def first(self, commands):
        """True when the game is written before `commands` are carried out: they open the release."""
        return ("release",) in commands

    def written(self, saved):
        self.kept = worth_keeping(saved)
