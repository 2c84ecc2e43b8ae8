"""The Nimatron (Westinghouse, 1940 World's Fair) as an event-driven state machine.

The behaviour follows docs/machines.md §2; its numbered behaviours N1-N8
are checked by the scenarios in tests/scenarios/.

Rows of lamps (four rows of up to seven by default). The visitor picks a row
by pressing its button, puts out one lamp per press of that row's button, and
presses the hand-over button to give the machine its turn. The machine
"thinks" for `think_ms` (the original's delay relay), then puts out lamps of
one row one at a time, `pace_ms` apart. The commands ``("row", N, LIT)`` say
how many lamps of row N are lit; a shell mirrors them on the visitor's
console and on the spectators' display (N1). Lamps go out from the end of the
row (which end the original used is unknown).

Policies where machines.md leaves a choice open:

- Start positions come from `openings`, chosen at random from the core's
  seeded generator (or always the first, with `opening = first`); the
  default list holds a dozen positions the visitor, moving first, can win.
- The machine's move in a losing position is its opponent's documented
  choice: `perfect` takes one lamp from the longest row, `perfect:random`
  takes a random move (N6).
- Pressing another row's button within a turn, or an empty row's, is refused
  with a message; so is handing over before putting out a lamp.
- Buttons are ignored while the machine thinks and moves.
- A visitor's win is celebrated apart: the "Nim Champ" lamp blinks, with its
  own sound and message (N8), the replica's stand-in for the 1940 token.
"""

from .exhibit import (BLINK, LAMP, LAMP_ROWS, MACHINE, OFF, ON, PLAYER, SOUND, ConfigError, Exhibit, Input, Output,
                      Setting, time_setting, with_settings)
from .rules import Nim, check_position

# The original's console, and the most rows and lamps a replica may have.
ROWS = 4
LAMPS_PER_ROW = 7
OPENINGS = (
    # A dozen openings, each a win for a visitor who moves first and plays
    # well; the original's patterns are unknown (machines.md §2, N7).
    (1, 3, 5, 6), (2, 3, 5, 7), (7, 7, 7, 6), (3, 4, 5, 6),
    (6, 5, 4, 2), (7, 6, 4, 2), (5, 5, 3, 2), (4, 4, 4, 1),
    (7, 7, 3, 2), (6, 6, 5, 1), (2, 4, 6, 7), (1, 2, 5, 7),
)


class Nimatron(Exhibit):
    NAME = "nimatron"
    TITLE = "the Nimatron"
    WIN_MESSAGE = "nim_champ"
    LOSE_MESSAGE = "nimatron_wins"
    WIN_CUE = "nim_champ"
    LAMPS = ("your_turn", "machine_turn", "nim_champ", "machine_wins")
    INPUTS = (Input("handover"), Input("new_game"))
    OUTPUTS = (Output("lamps", LAMP_ROWS, ("row",)),) + tuple(
        Output("lamp_" + name, LAMP, ("lamp", name)) for name in LAMPS) + (Output("buzzer", SOUND, ("sound",)),)
    LAYOUT = (("rows", "rows", "the number of lamp rows"), ("lamps_per_row", "lamps", "the lamps in each row"))
    SETTINGS = with_settings(Exhibit.SETTINGS, {
        "rows": Setting(ROWS, 1, 16),
        "lamps": Setting(LAMPS_PER_ROW, 1, 64),     # lamps in each row, at most
        "rule": Setting("last-wins", choices=("last-wins", "last-loses")),
        # start positions, such as [[1, 3, 5, 6], [2, 3, 5, 7]]; empty: the dozen built in
        "openings": Setting([]),
        "opening": Setting("random", choices=("random", "first")),   # random (from the seed) or first
        "first": Setting(PLAYER, choices=(PLAYER, MACHINE, "random")),
        "think_ms": time_setting(2000),
        "pace_ms": time_setting(600, 50),
        "attract_step_ms": time_setting(300, 50),
    })
    @classmethod
    def inputs(cls, layout=None):
        """A button for each row (`layout["rows"]` of them), then the hand-over and New game."""
        rows = (layout or {}).get("rows") or 0
        return tuple(Input("row%d" % i) for i in range(1, rows + 1)) + cls.INPUTS

    def check_config(self):
        c = self.config
        self.openings = parse_openings(c["openings"], c["rows"], c["lamps"])
        self.make_opponent(self.openings[0])

    def variant(self):
        return Nim(self.rule)

    def hold_for_check(self):
        Exhibit.hold_for_check(self)
        self.state.update({"plan": None, "row": None})

    def new_game_state(self):
        state = self.state
        state["timers"] = {}
        rng = self.opponent.rng
        if self.config["opening"] == "random":
            position = rng.choice(self.openings)
        else:
            position = self.openings[0]
        first = self.config["first"]
        if first == "random":
            first = MACHINE if rng.below(2) else PLAYER
        state.update({
            "mode": "play", "start": list(position), "rows": list(position), "turn": first,
            "row": None, "turn_taken": 0, "turns": [], "plan": None, "winner": None, "fault": None,
            "rng": rng.get_state(),
        })
        if first == MACHINE:
            self.set_timer("think", state["clock"] + self.config["think_ms"])

    # --- views ---------------------------------------------------------------
    @property
    def rows(self):
        """Lamps lit in each row."""
        return self.state["rows"]

    @property
    def row(self):
        """The row the visitor is taking from this turn (counted from 0), or None."""
        return self.state["row"]

    @property
    def turn_taken(self):
        """Lamps put out so far in the turn under way."""
        return self.state["turn_taken"]

    @property
    def moving(self):
        """True while the machine puts out its lamps (it has chosen its move)."""
        return self.state["plan"] is not None

    def status(self):
        status = Exhibit.status(self)
        status["rows"] = list(self.rows)
        return status

    def outputs(self):
        s = self.state
        wanted = {}
        for i in range(self.config["rows"]):
            wanted["row/%d" % (i + 1)] = 0 if s["fault"] else s["rows"][i]
        if s["fault"]:
            # held: the rows dark, "your turn" blinking for New game
            for name in self.LAMPS:
                wanted["lamp/" + name] = BLINK if name == "your_turn" else OFF
            return wanted
        if s["attract"]:
            wanted.update(self.attract_lamps())
            return wanted
        playing = s["mode"] == "play"
        wanted["lamp/your_turn"] = ON if playing and s["turn"] == PLAYER else OFF
        wanted["lamp/machine_turn"] = (BLINK if s["plan"] is None else ON) if playing and s["turn"] == MACHINE else OFF
        wanted["lamp/nim_champ"] = BLINK if s["winner"] == PLAYER else OFF
        wanted["lamp/machine_wins"] = ON if s["winner"] == MACHINE else OFF
        return wanted

    # --- events ----------------------------------------------------------------
    def pressed(self, name, now, out):
        if self.state["fault"]:
            self.tell(out, "not_resumed", "refuse")
        elif name == "handover":
            self.handover(now, out)
        elif self.row_of(name) is not None:
            self.take_lamp(self.row_of(name), now, out)
        else:
            Exhibit.pressed(self, name, now, out)

    def row_of(self, button):
        """The row (from 0) whose button is called `button`, or None."""
        for row in range(self.config["rows"]):
            if button == "row%d" % (row + 1):
                return row
        return None

    def new_game_message(self):
        return ("new_you_first" if self.state["turn"] == PLAYER else "new_nimatron_first",
                {"rows": " ".join(str(n) for n in self.state["rows"])})

    def take_lamp(self, row, now, out):
        s = self.state
        if s["mode"] != "play" or s["turn"] != PLAYER:
            return
        if s["row"] is not None and s["row"] != row:
            self.tell(out, "one_row", "refuse", {"row": s["row"] + 1})
            return
        if s["rows"][row] == 0:
            self.tell(out, "row_empty", "refuse", {"row": row + 1})
            return
        s["row"] = row
        s["rows"][row] -= 1
        s["turn_taken"] += 1
        out.append(("sound", "lamp"))
        if not any(s["rows"]):
            self.end_turn(PLAYER)
            self.game_over(PLAYER, now, out)

    def handover(self, now, out):
        s = self.state
        if s["mode"] != "play" or s["turn"] != PLAYER:
            return
        if s["turn_taken"] == 0:
            self.tell(out, "lamp_first", "refuse")
            return
        self.end_turn(PLAYER)
        s["turn"] = MACHINE
        self.set_timer("think", now + self.config["think_ms"])

    def end_turn(self, who):
        s = self.state
        row = s["row"] if who == PLAYER else s["plan"][0]
        s["turns"].append([who, "%d:%d" % (row + 1, s["turn_taken"])])
        s["row"] = None
        s["turn_taken"] = 0

    def timer_think(self, due, out):
        s = self.state
        move = self.opponent.choose(self.variant(), tuple(s["rows"]))
        s["rng"] = self.opponent.rng.get_state()
        heap, count = move.takes[0]
        s["plan"] = [heap, count]
        self.timer_lamp(due, out)

    def timer_lamp(self, due, out):
        s = self.state
        heap, left = s["plan"]
        s["rows"][heap] -= 1
        s["turn_taken"] += 1
        s["plan"][1] = left - 1
        out.append(("sound", "lamp"))
        if left > 1:
            self.set_timer("lamp", due + self.config["pace_ms"])
            return
        self.end_turn(MACHINE)
        s["plan"] = None
        if any(s["rows"]):
            s["turn"] = PLAYER
        else:
            self.game_over(MACHINE, due, out)
        # a whole move is done: the idle clock starts again from here
        self.touched(due)

    def explain(self):
        from .working import explain_nimatron
        return explain_nimatron(self)


def parse_openings(openings, rows, lamps):
    """The start positions, checked against the lamps there are."""
    if not openings:
        if rows == ROWS and lamps == LAMPS_PER_ROW:
            return OPENINGS
        return [tuple(lamps for _ in range(rows))]
    checked = []
    for number, opening in enumerate(openings):
        try:
            position = check_position(opening if isinstance(opening, (list, tuple)) else [opening])
        except ValueError as error:
            raise ConfigError("openings: opening %d: %s" % (number + 1, error))
        if len(position) != rows or max(position) > lamps or not any(position):
            raise ConfigError("openings: opening %d %r must be %d rows of 0 to %d lamps, some lit" % (
                number + 1, list(position), rows, lamps))
        checked.append(position)
    return checked
