"""The Amazing Dr. Nim (E.S.R. Inc., 1966) as an event-driven state machine.

The behaviour follows docs/machines.md §1; its numbered behaviours
R1-R21 are checked by the scenarios in tests/scenarios/.

The board: marbles wait on a rail; each trigger press releases one; the
marble falls past three flip-flops (top T, lower-left A, lower-right B), the
equalizer E and the turn switch S. In Dr. Nim's turn a marble either trips
the next release (CONTINUE) or knocks the turn switch back to the player
(STOP). The replica drives indicators for the five controls, reads the
trigger, the turn and equalizer switches, the new-game button and a gate
sensor that sees each marble fall.

The physical world is the truth: a marble counts when the gate sensor sees
it, never when a release is commanded, so marbles on the rail plus marbles
taken always equals the marbles loaded.

Policies where machines.md leaves a choice open:

- A release not seen within `release_timeout_ms` is retried
  `release_retries` times, then the game holds in fault "jam" (fault lamp on,
  nothing counted). The jam clears by itself when the marble comes through,
  or with New game.
- A marble seen with no release outstanding (dropped by hand, two marbles
  for one release, a sensor glitch) is counted for whoever's turn it is and
  routed through the flip-flops like any other; a message says so. Dr.
  Nim's turn still ends where its marble logic (or its strategy) says, so it
  never takes more than 3; a marble dropped after the hand-over but before
  the trigger starts Dr. Nim's turn, as it would on the original.
- Presses while the player's marble is still falling are queued, up to the
  3-marble limit; a 4th press is refused, and so is a hand-over before a
  marble (`lenient` lifts both, as the original trusted the player).
- The trigger is ignored while Dr. Nim's marbles run; moving the turn switch
  back before the trigger cancels the hand-over; moving it during the run is
  ignored.
- The equalizer switch is the hand that sets the original's equalizer: New
  game arms the equalizer exactly when the switch is at armed (right), as
  the original is set up by hand, and a marble never moves the switch, only
  the equalizer (its indicator). The switch acts on the game under way
  before the first release only (`lenient` allows it at any time); a move
  later is remembered for the next game. The `equalizer` setting says where
  the switch is until the machine hears it (a virtual switch starts there;
  the Pi service tells the machine where the real one is at start-up). With
  `decide = strategy` the equalizer takes no part and shows spent (left).
- After `idle_ms` without input in a game, and `attract_after_game_ms` after
  one, the machine shows its attract pattern; any input wakes it and acts.
"""

from .exhibit import (INDICATOR, LAMP, MACHINE, OFF, ON, PLAYER, RELEASE, SENSOR, SOUND, SWITCH, ConfigError,
                      Exhibit, Input, Output, Setting, UnknownEvent, time_setting, with_settings)
from .endings import MISERE
from .flip_flops import route

LEFT = "left"
RIGHT = "right"

# The flip-flop setting (T, A, B) for each phase r, machines.md §1.6:
# r = (N - 1) mod 4 when the last marble loses, N mod 4 when it wins.
# The rows for r = 1 and r = 3 are the first of two readings of the booklet
# (the "alt." reading swaps them): ambiguous until the booklet is checked.
# SYMBOLS and AMBIGUOUS are read by nothing: §1.6's replica advice ships the
# booklet's symbols as data, the ambiguous rows flagged, until then.
START_SETTINGS = {2: "RRL", 0: "RLR", 1: "LLL", 3: "LRR"}
SYMBOLS = {"RRL": "/ _ _", "RLR": "_ _ /", "LLL": "_ / _", "LRR": "_ _ _"}
AMBIGUOUS = ("LLL", "LRR")

SIDE = {"L": LEFT, "R": RIGHT}


def start_setting(marbles, rule):
    """The flip-flop setting that makes Dr. Nim play `marbles` correctly under `rule`."""
    phase = (marbles - 1) % 4 if rule == MISERE else marbles % 4
    return START_SETTINGS[phase]


class DrNim(Exhibit):
    NAME = "drnim"
    TITLE = "Dr. Nim"
    WIN_MESSAGE = "you_beat_drnim"
    LOSE_MESSAGE = "drnim_wins"
    LAMPS = ("your_turn", "drnim_turn", "you_win", "drnim_wins", "fault")
    INPUTS = (
        Input("trigger"),
        Input("turn_switch", SWITCH, "at the Dr. Nim side (left)", "turn", MACHINE, PLAYER, (LEFT, RIGHT)),
        Input("equalizer_switch", SWITCH, "right (armed)", "equalizer", RIGHT, LEFT, (ON, OFF), setting="equalizer"),
        Input("new_game"),
        Input("marble_sensor", SENSOR, "beam broken", "marble"),
    )
    OUTPUTS = (
        Output("release", RELEASE, ("release",)),
        Output("flip_flop_1", INDICATOR, ("flip_flop", 1)),
        Output("flip_flop_2", INDICATOR, ("flip_flop", 2)),
        Output("flip_flop_3", INDICATOR, ("flip_flop", 3)),
        Output("equalizer", INDICATOR, ("equalizer",)),
        Output("turn", INDICATOR, ("turn",)),
    ) + tuple(Output("lamp_" + name, LAMP, ("lamp", name)) for name in LAMPS) + (
        Output("buzzer", SOUND, ("sound",)),
    )
    RELEASE_GAPS = ("pace_ms", "release_timeout_ms")
    SETTINGS = with_settings(Exhibit.SETTINGS, {
        "marbles": Setting(15, 1, 999),         # marbles loaded for a game
        "capacity": Setting(15, 1, 999),        # marbles the rail holds
        "rule": Setting("last-loses", choices=("last-loses", "last-wins")),
        "flip_flops": Setting("auto"),          # auto (from marbles and rule), or T A B as "RRL", "LRR", ...
        "equalizer": Setting(True),             # the switch at armed until the machine hears it (a new game follows it)
        # any: any marble spends it; drnim: only Dr. Nim's
        "equalizer_model": Setting("any", choices=("any", "drnim")),
        # either (the visitor decides), player, machine
        "first": Setting("either", choices=("either", PLAYER, MACHINE)),
        # historic (the marble logic) or strategy (an opponent)
        "decide": Setting("historic", choices=("historic", "strategy")),
        "lenient": Setting(False),              # the original's leniency: no 1-3 limit, equalizer any time
        "pace_ms": time_setting(900, 50),       # between Dr. Nim's marbles, like the original's chain
        "release_timeout_ms": time_setting(1500, 100),
        "release_retries": Setting(2, 0, 10),
    })
    def check_config(self):
        c = self.config
        if not c["marbles"] <= c["capacity"]:
            raise ConfigError("marbles: must be 1 to %d (capacity, the marbles the rail holds), not %d"
                              % (c["capacity"], c["marbles"]))
        setting = c["flip_flops"]
        if setting != "auto" and (len(setting) != 3 or setting.strip("LR") != ""):
            raise ConfigError("flip_flops: %r is not auto or three of L and R, top first (such as RRL)" % setting)
        if c["decide"] == "strategy":
            self.make_opponent((c["marbles"],))

    def variant(self):
        from .rules import Subtraction
        return Subtraction(self.rule, 3)

    def new_game_state(self):
        """A new game: the marbles are back on the rail."""
        state = self.state
        state["timers"] = {}
        state["rng"] = self.rng_state()
        c = self.config
        flip_flops = c["flip_flops"]
        if flip_flops == "auto":
            flip_flops = start_setting(c["marbles"], self.rule)
        switch = state.get("equalizer_switch") or (RIGHT if c["equalizer"] else LEFT)
        state.update({
            "mode": "play", "loaded": c["marbles"], "taken": 0, "flip_flops": flip_flops,
            "equalizer": RIGHT if switch == RIGHT and c["decide"] == "historic" else LEFT, "equalizer_switch": switch,
            "turn": PLAYER, "running": False, "turn_taken": 0, "turns": [],
            "in_flight": False, "retries": 0, "queued": 0, "planned": 0,
            "fault": None, "winner": None, "extra_marbles": 0,
        })

    # --- views ---------------------------------------------------------------
    @property
    def rail(self):
        """Marbles still on the rail."""
        return self.state["loaded"] - self.state["taken"]

    @property
    def loaded(self):
        return self.state["loaded"]

    @property
    def taken(self):
        return self.state["taken"]

    @property
    def running(self):
        """True while Dr. Nim's own marbles run."""
        return self.state["running"]

    @property
    def turn_taken(self):
        """Marbles taken so far in the turn under way."""
        return self.state["turn_taken"]

    @property
    def in_flight(self):
        """True while a released marble has not yet reached the gate."""
        return self.state["in_flight"]

    @property
    def planned(self):
        """With decide = strategy: the marbles Dr. Nim's opponent chose this turn."""
        return self.state["planned"]

    @property
    def flip_flops(self):
        return self.state["flip_flops"]

    @property
    def equalizer_armed(self):
        return self.state["equalizer"] == RIGHT

    @property
    def extra_marbles(self):
        """Marbles seen with no release outstanding, this game."""
        return self.state["extra_marbles"]

    def controls(self):
        """The five original controls with their sides (R19)."""
        s = self.state
        controls = {"equalizer": s["equalizer"], "turn": RIGHT if s["turn"] == PLAYER else LEFT}
        for i in range(3):
            controls["flip_flop_%d" % (i + 1)] = SIDE[s["flip_flops"][i]]
        return controls

    def incidents(self):
        return {"extra-marble": self.extra_marbles}

    def switches(self):
        return {"equalizer_switch": self.state["equalizer_switch"] == RIGHT}

    def status(self):
        status = Exhibit.status(self)
        status["rail"] = self.rail
        status["loaded"] = self.loaded
        return status

    def outputs(self):
        s = self.state
        wanted = {"equalizer": s["equalizer"], "turn": RIGHT if s["turn"] == PLAYER else LEFT}
        for i in range(3):
            wanted["flip_flop/%d" % (i + 1)] = SIDE[s["flip_flops"][i]]
        if s["attract"]:
            wanted.update(self.attract_lamps())
        else:
            over = s["mode"] == "over"
            wanted["lamp/your_turn"] = ON if not over and s["turn"] == PLAYER else OFF
            wanted["lamp/drnim_turn"] = ON if not over and s["turn"] == MACHINE else OFF
            wanted["lamp/you_win"] = ON if s["winner"] == PLAYER else OFF
            wanted["lamp/drnim_wins"] = ON if s["winner"] == MACHINE else OFF
        wanted["lamp/fault"] = ON if s["fault"] else OFF
        return wanted

    # --- events ----------------------------------------------------------------
    def on_power(self, event, now, out):
        """After a restart: a release that was under way may or may not have let
        a marble go while the controller was off, so the count cannot be trusted."""
        s = self.state
        if s["mode"] == "play" and (s["in_flight"] or s["queued"]):
            self.hold_for_check()
            self.tell(out, "restarted", "fault")

    def hold_for_check(self):
        Exhibit.hold_for_check(self)
        self.state.update({"in_flight": False, "queued": 0, "running": False})

    def pressed(self, name, now, out):
        if name != "trigger":
            Exhibit.pressed(self, name, now, out)
        self.trigger(now, out)

    def new_game_message(self):
        return "new_loses" if self.rule == MISERE else "new_wins", {"marbles": self.state["loaded"]}

    def trigger(self, now, out):
        s = self.state
        if s["mode"] == "over":
            self.tell(out, "over", "refuse")
        elif s["fault"] == "jam":
            self.tell(out, "jammed", "refuse")
        elif s["fault"] == "check":
            self.tell(out, "check", "refuse")
        elif s["turn"] == MACHINE:
            if not s["running"]:
                self.start_machine_turn(now, out)
        elif s["taken"] == 0 and self.config["first"] == "machine":
            self.tell(out, "drnim_first", "refuse")
        elif s["turn_taken"] + s["queued"] + (1 if s["in_flight"] else 0) >= 3 and not self.config["lenient"]:
            self.tell(out, "took_three", "refuse")
        elif s["in_flight"]:
            s["queued"] += 1
        else:
            self.release(now, out)

    def on_switch(self, event, now, out):
        name, position = event[1], event[2]
        if name == "turn":
            self.turn_switch(position, now, out)
        elif name == "equalizer":
            self.equalizer_switch(position, out)
        else:
            raise UnknownEvent("unknown control in %r" % (event,))

    def turn_switch(self, position, now, out):
        s = self.state
        if s["mode"] == "over" or s["running"] or s["fault"] == "check" or position not in (LEFT, RIGHT, PLAYER, MACHINE):
            return
        to_machine = position in (LEFT, MACHINE)
        if not to_machine:
            if s["turn"] == MACHINE:
                s["turn"] = PLAYER
            return
        if s["turn"] == MACHINE:
            return
        if s["in_flight"] or s["queued"]:
            self.tell(out, "wait_marble", "refuse")
        elif s["taken"] == 0 and self.config["first"] == "player":
            self.tell(out, "you_first", "refuse")
        elif s["taken"] and s["turn_taken"] == 0 and not self.config["lenient"]:
            self.tell(out, "take_first", "refuse")
        else:
            s["turn"] = MACHINE

    def equalizer_switch(self, position, out):
        s = self.state
        if position not in (LEFT, RIGHT, ON, OFF):
            return
        side = RIGHT if position in (RIGHT, ON) else LEFT
        s["equalizer_switch"] = side
        if self.config["decide"] != "historic":
            self.tell(out, "eq_strategy", "refuse")
        elif (s["taken"] or s["in_flight"] or s["running"]) and not self.config["lenient"]:
            self.tell(out, "eq_next_game", "refuse")
        else:
            s["equalizer"] = side

    def start_machine_turn(self, now, out, release=True):
        s = self.state
        if s["turn_taken"]:
            s["turns"].append([PLAYER, s["turn_taken"]])
        s["running"] = True
        s["turn_taken"] = 0
        if self.config["decide"] == "strategy":
            s["planned"] = self.opponent.choose(self.variant(), (self.rail,)).total
            s["rng"] = self.opponent.rng.get_state()
        if release:
            self.release(now, out)

    def release(self, now, out):
        s = self.state
        s["in_flight"] = True
        s["retries"] = self.config["release_retries"]
        out.append(("release",))
        self.set_timer("lost", now + self.config["release_timeout_ms"])

    def timer_lost(self, due, out):
        s = self.state
        if s["retries"] > 0:
            s["retries"] -= 1
            out.append(("release",))
            self.set_timer("lost", due + self.config["release_timeout_ms"])
            return
        s["fault"] = "jam"
        self.tell(out, "jam", "fault")

    def timer_machine(self, due, out):
        self.release(due, out)

    def on_marble(self, event, now, out):
        s = self.state
        if s["mode"] == "over" or self.rail == 0:
            self.tell(out, "late_marble", "fault")
            return
        if s["fault"] == "check":
            s["taken"] += 1
            self.tell(out, "marble_back", None, {"left": self.rail})
            return
        expected = s["in_flight"]
        s["in_flight"] = False
        self.cancel_timer("lost")
        if s["fault"] == "jam":
            s["fault"] = None
            self.tell(out, "jam_cleared")
        if s["turn"] == MACHINE and not s["running"]:
            # A marble dropped by hand after the hand-over starts Dr. Nim's turn, as on the original.
            self.start_machine_turn(now, out, release=False)
        if not expected:
            s["extra_marbles"] += 1
            self.tell(out, "extra_drnim" if s["turn"] == MACHINE else "extra_you", "extra")
        s["taken"] += 1
        s["turn_taken"] += 1
        out.append(("sound", "marble"))
        gate = self.config["equalizer_model"] == "any" or s["turn"] == MACHINE
        armed = s["equalizer"] == RIGHT and self.config["decide"] == "historic"
        s["flip_flops"], armed, carry_on = route(s["flip_flops"], armed, gate)
        if self.config["decide"] == "historic":
            s["equalizer"] = RIGHT if armed else LEFT
        if self.rail == 0:
            self.last_marble(now, out)
        elif s["turn"] == PLAYER:
            if s["queued"]:
                s["queued"] -= 1
                self.release(now, out)
        else:
            self.machine_marble(carry_on, now, out)

    def machine_marble(self, carry_on, now, out):
        s = self.state
        if self.config["decide"] == "strategy":
            carry_on = s["turn_taken"] < s["planned"]
        if carry_on:
            self.set_timer("machine", now + self.config["pace_ms"])
            return
        self.cancel_timer("machine")
        s["turns"].append([MACHINE, s["turn_taken"]])
        s["turn"] = PLAYER
        s["running"] = False
        s["turn_taken"] = 0

    def last_marble(self, now, out):
        """The rail is empty: whoever's turn it is took the last marble."""
        s = self.state
        taker = s["turn"]
        s["turns"].append([taker, s["turn_taken"]])
        s["turn_taken"] = 0
        s["running"] = False
        s["queued"] = 0
        for name in ("machine", "lost"):
            self.cancel_timer(name)
        Exhibit.game_over(self, taker, now, out)

    def explain(self):
        from .working import explain_drnim
        return explain_drnim(self)
