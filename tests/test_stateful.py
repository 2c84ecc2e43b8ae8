"""Dr. Nim under a random visitor and a random world: presses, switches,
marbles dropped by hand, jams, glitches, waiting and restores, with the
invariants checked after every step."""

import json

from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from controller.core import solve
from controller.core.drnim import DrNim
from controller.core.rules import MISERE, NORMAL, Subtraction

FALL_MS = 250


class DrNimWorld(RuleBasedStateMachine):
    """The machine plus a model of the marbles: each release lets one marble
    fall past the gate FALL_MS later, unless the test jams it."""

    @initialize(marbles=st.integers(1, 15), rule=st.sampled_from(["last-loses", "last-wins"]),
                equalizer=st.booleans(), model=st.sampled_from(["any", "drnim"]),
                decide=st.sampled_from(["historic", "strategy"]))
    def setup(self, marbles, rule, equalizer, model, decide):
        self.machine = DrNim({"marbles": marbles, "rule": rule, "equalizer": equalizer,
                              "equalizer_model": model, "decide": decide, "pace_ms": 700})
        self.now = 0
        self.falling = []
        self.jam_next = False
        self.seen = 0
        self.turn_start = None
        self.send(("power",))

    # --- the world ----------------------------------------------------------
    def send(self, event):
        before = self.machine.state
        running_before = before["running"]
        commands = self.machine.handle(event, self.now)
        for command in commands:
            if command == ("release",):
                if self.jam_next:
                    self.jam_next = False
                else:
                    self.falling.append(self.now + FALL_MS)
        if event == ("marble",):
            self.seen += 1
        state = self.machine.state
        if not running_before and state["running"]:
            self.turn_start = {"rail": self.machine.rail + (1 if event == ("marble",) else 0),
                               "armed": state["equalizer"] == "right",
                               "turns": len(state["turns"]), "extra": state["extra_marbles"]}
        self.check_machine_turn()

    def check_machine_turn(self):
        """With the equalizer spent, Dr. Nim plays a winning move whenever one exists."""
        start = self.turn_start
        state = self.machine.state
        if start is None or state["running"] or len(state["turns"]) <= start["turns"]:
            return
        self.turn_start = None
        who, count = state["turns"][start["turns"]]
        assert who == "machine" and 1 <= count <= 3, state["turns"]
        if start["armed"] or state["extra_marbles"] != start["extra"] or self.machine.config["decide"] != "historic":
            return
        variant = Subtraction(MISERE if self.machine.config["rule"] == "last-loses" else NORMAL)
        winning = [m.total for m in solve.winning_moves(variant, (start["rail"],))]
        if winning:
            assert count in winning, (start, count)

    def advance(self, until):
        while True:
            due = [t for t in self.falling if t <= until]
            deadline = self.machine.next_deadline()
            times = due + ([deadline] if deadline is not None and deadline <= until else [])
            if not times:
                break
            self.now = max(self.now, min(times))
            if self.falling and min(self.falling) <= self.now:
                self.falling.remove(min(self.falling))
                self.send(("marble",))
            else:
                self.send(("tick",))
        self.now = until
        self.send(("tick",))

    # --- what visitors and the world do ------------------------------------
    @rule()
    def new_game(self):
        self.falling = []
        self.turn_start = None
        self.send(("press", "new_game"))
        self.seen = 0

    @rule()
    def press_trigger(self):
        self.send(("press", "trigger"))
        self.now += 100
        self.send(("release", "trigger"))

    @rule(side=st.sampled_from(["machine", "player"]))
    def move_turn_switch(self, side):
        self.send(("switch", "turn", side))

    @rule(side=st.sampled_from(["left", "right"]))
    def move_equalizer(self, side):
        self.send(("switch", "equalizer", side))

    @rule(ms=st.integers(1, 6000))
    def wait(self, ms):
        self.advance(self.now + ms)

    @precondition(lambda self: self.machine.rail > len(self.falling))
    @rule()
    def drop_by_hand(self):
        self.send(("marble",))

    @rule()
    def jam_next_release(self):
        self.jam_next = True

    @precondition(lambda self: self.machine.rail > len(self.falling))
    @rule()
    def glitch(self):
        self.falling.append(self.now + 10)

    @rule()
    def restore(self):
        saved = json.loads(json.dumps(self.machine.to_dict()))
        restored = DrNim.from_dict(saved)
        assert json.loads(json.dumps(restored.to_dict())) == saved
        self.machine = restored

    # --- invariants -----------------------------------------------------------
    @invariant()
    def marbles_are_conserved(self):
        state = self.machine.state
        assert 0 <= self.machine.rail <= state["loaded"]
        assert self.machine.rail + state["taken"] == state["loaded"]

    @invariant()
    def every_marble_the_gate_saw_is_counted(self):
        state = self.machine.state
        if state["mode"] == "play":
            assert state["taken"] == self.seen

    @invariant()
    def no_machine_turn_takes_0_or_more_than_3(self):
        for who, count in self.machine.state["turns"]:
            assert 1 <= count if who == "machine" else count >= 1
            if who == "machine":
                assert count <= 3


# A sample of 100 random games of up to 80 steps; bench/stateful.py plays thousands.
STEPS = 80
DrNimWorld.TestCase.settings = settings(max_examples=100, stateful_step_count=STEPS, deadline=None)
TestDrNimWorld = DrNimWorld.TestCase
