"""The live game: what an exhibit publishes so that a screen beside it (the web
page's `?follow=` mode) can show its game and its working as they happen.

    <prefix>/<exhibit>/live/state   retained, QoS 0: the machine's saved game (the dict the checked save
                                    holds), sent at every change worth a save
    <prefix>/<exhibit>/live/event   QoS 0: each event the machine handled, with the commands it gave

A follower restores the core machine from the state and replays the events
through it: the same core gives the same commands. The events are numbered
(`seq`, from 1 in each run of the exhibit, named by `run`), so a follower
that missed one knows it and waits for the next state. Ticks that only step
the resting timers (the attract lamps, the idle clock) are not sent: a
follower runs those itself, and an idle exhibit costs the broker nothing.

`LiveGame` is shared by the Pi service (its own machine) and `controller
firmware monitor` (a replica of the board's machine, restored from the
board's `state` reply and driven by its event lines). What it makes goes to
the publisher's thread (`Telemetry.live`), which never holds play up.
"""

import uuid

from controller.core.registry import NAMES, machine_class
from controller.core.saves import SaveError, restore
from controller.core.keeping import worth_keeping

STATE = "live/state"
EVENT = "live/event"


def animation(event, was_resting):
    """True for what a resting machine does by itself: a tick while it had only resting timers
    (the attract lamps stepping, the idle clock running out). Left out of the live game, which a
    follower runs itself, and of what `controller firmware monitor` shows, so that an idle exhibit
    costs the broker and a Pi's journal nothing; a press, a marble, a move are never one."""
    return event[0] == "tick" and was_resting


def new_run():
    """A short name for one run of an exhibit: its events are numbered from 1 again."""
    return uuid.uuid4().hex[:8]


class LiveGame:
    """Turns what a machine handles into live messages for `send(kind, record)` (kind: STATE or EVENT)."""

    def __init__(self, send):
        self.send = send
        self.run = new_run()
        self.seq = 0
        self.kept = None        # worth_keeping() of the last state sent
        self.replica = None     # the board's machine, for the monitor

    def handled(self, machine, event, now, commands, was_resting):
        """`machine` handled `event` at `now` (its clock, ms) and gave `commands`; `was_resting`: it had
        only resting timers before. A tick that only stepped those is left out."""
        if animation(event, was_resting):
            return
        self.seq += 1
        self.send(EVENT, {"seq": self.seq, "now": now, "event": list(event),
                          "commands": [list(command) for command in commands]})
        kept = worth_keeping(machine.to_save())
        if kept != self.kept:
            self.state(machine, now)

    def state(self, machine, now):
        """The machine's saved game, sent as the retained state."""
        self.kept = worth_keeping(machine.to_save())
        self.send(STATE, {"run": self.run, "seq": self.seq, "now": now, "game": machine.to_dict()})

    # --- the monitor's replica of a board's machine ------------------------------------------
    def board_state(self, game, now):
        """A board's `state` reply: its machine restored here, and sent. A game that cannot be
        restored (another controller's format, damaged) leaves no replica: one line, else None.
        The board's save leaves out the outputs shown, but the board shows them all: the replica
        takes them as shown, as a follower's machine does, so that its next event gives only that
        event's commands, as the board's did."""
        self.replica = None
        if not isinstance(game, dict) or game.get("machine") not in NAMES or not isinstance(now, int):
            return "the board's state is not a game this controller reads: nothing live is published"
        try:
            self.replica = restore(machine_class(game["machine"]), game)
        except (SaveError, ValueError) as error:
            return "the board's state cannot be followed (%s): nothing live is published" % error
        self.replica.sync([])
        self.run = new_run()
        self.seq = 0
        self.state(self.replica, now)
        return None

    def board_event(self, event, now):
        """A board's event line replayed through the replica. False when the replica cannot follow
        it (none yet, a clock that went back, an event it refuses): ask the board for its state."""
        machine = self.replica
        if machine is None:
            return False
        if not isinstance(event, list) or not event or not isinstance(now, int) or now < machine.state["clock"]:
            self.replica = None
            return False
        was_resting = machine.resting
        try:
            commands = machine.handle(tuple(event), now)
        except ValueError:
            self.replica = None
            return False
        self.handled(machine, event, now, commands, was_resting)
        return True
