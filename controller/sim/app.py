"""The bench simulator drawn in the terminal (Textual): `controller --simulate`.

The virtual replica of `controller.sim.engine.Simulation` is drawn the way the
real exhibit would show it, from its mock output pins: Dr. Nim's red board
(the rail of marbles, the chute with the gate's IR beam, the three flip-flops,
the equalizer, the turn switch, the tray) or the Nimatron's console of lamps,
with the status lamps and the controls as buttons. A side panel explains the
fault, the working (why the machine moves as it does) and the log.

Every text is in the visitor's language (`--lang`, else the terminal's
LANG): `app.t`, a controller.language.Language. The log is the service's, as
its journal shows it, for the bench's technician; the machine's messages in it
are in the visitor's language.

A timer advances the simulated clock by the elapsed real time times `speed`
(`clock` gives the real time: the tests pass their own). With `speed=0` there
is no timer and nothing moves by itself: the tests drive the simulated clock
with `sim.advance()` / `sim.settle()` and call `redraw()`.

Keys (also in the footer):

    Dr. Nim   space or t  trigger         m  turn switch to Dr. Nim
              p  turn switch to you       s  turn switch to the other side
              e  equalizer switch over    j  free a jammed marble
              n  new game                 q or Ctrl-C  quit
    Nimatron  1-9  that row's button      h or enter  hand over
              n  new game                 q or Ctrl-C  quit
"""

import codecs
import os
import re
import sys
import time

from rich.text import Text
from textual.app import App
from textual.containers import Container, Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from controller.arguments import ArgumentError
from controller.language.lamps import lamp_names


TICK_S = 0.05           # how often the clock advances and the drawing is refreshed
MAX_STEP_S = 1.0        # a stalled terminal does not make the clock jump further than this
BLINK_MS = 500          # a blinking lamp's half period, on the simulated clock
LOG_LINES = 60

# Dr. Nim's board: red plastic, white flippers, glass marbles.
BOARD = "#ffffff on #8f1d1d"
LABEL = "#f4c2c2"
DIM = "#c46a6a"
MARBLE = "bold #cfe8ff"
FLIPPER = "bold #ffffff"
CHUTE = "#e8a0a0"
JAM = "bold #ffd400"
ACTIVE = "bold #ffffff"

LAMP_OFF = "#5a5a5a"
BULB_ON = "bold #ffd25a"
BULB_OFF = "#6b5a3e"


# Each machine's status lamps as the screen shows them, left to right, each in its colour.
LAMP_COLOURS = {
    "drnim": (("your_turn", "#4cd964"), ("drnim_turn", "#ffcc00"), ("fault", "#ff3b30"), ("you_win", "#35c8ff"),
              ("drnim_wins", "#ff9f0a")),
    "nimatron": (("your_turn", "#4cd964"), ("machine_turn", "#ffcc00"), ("nim_champ", "#ffd700"),
                 ("machine_wins", "#ff3b30")),
}


def status_lamps(t, machine):
    """(lamp, its name, its colour) of each of `machine`'s status lamps, left to right."""
    names = lamp_names(t)[machine]
    return tuple((lamp, names[lamp], colour) for lamp, colour in LAMP_COLOURS[machine])


def fault_text(t, fault):
    if fault == "jam":
        return t._("Jam: a marble did not reach the gate, even after the release was retried. Nothing was counted. "
                   "Free the marble (j): it counts when it passes the gate. Or put the marbles back and press New "
                   "game.")
    if fault == "check":
        return t._("Check: the controller restarted while a marble was on its way, so the count cannot be trusted. "
                   "Put every marble back on the rail and press New game.")
    return t.format(t._("Fault: %(fault)s."), {"fault": fault})


class Canvas:
    """A grid of styled cells, for the text art."""

    def __init__(self, width, height, style=""):
        self.width = width
        self.cells = [[(" ", style) for _ in range(width)] for _ in range(height)]

    def put(self, x, y, text, style=""):
        row = self.cells[y]
        for i, char in enumerate(text):
            if 0 <= x + i < self.width:
                row[x + i] = (char, style)

    def text(self):
        out = Text()
        for y, row in enumerate(self.cells):
            if y:
                out.append("\n")
            for char, style in row:
                out.append(char, style)
        return out


def lamp_glyph(state, now):
    """A status lamp: ● lit, ○ out, ◉ blinking (its colour follows the simulated clock)."""
    if state == "blink":
        return "◉", (now // BLINK_MS) % 2 == 0
    return ("●", True) if state == "on" else ("○", False)


def lamp_text(lamps, table, now, per_line):
    out = Text()
    for i, (name, label, colour) in enumerate(table):
        if name not in lamps:
            continue
        glyph, lit = lamp_glyph(lamps[name], now)
        if i and i % per_line == 0:
            out.append("\n")
        elif i:
            out.append("   ")
        out.append(glyph, "bold " + colour if lit else LAMP_OFF)
        out.append(" " + label, colour if lit else LAMP_OFF)
    return out


# --- Dr. Nim ------------------------------------------------------------------
def flipper(c, x, y, side):
    """A flipper as the booklet draws it, a lever over two lines with an arrow at
    its low end: ╲ pointing right, ╱ pointing left. It takes columns x and x+1."""
    if side == "right":
        c.put(x, y, "╲", FLIPPER)
        c.put(x + 1, y + 1, "╲", FLIPPER)
        c.put(x + 2, y + 1, "→", LABEL)
    elif side == "left":
        c.put(x + 1, y, "╱", FLIPPER)
        c.put(x, y + 1, "╱", FLIPPER)
        c.put(x - 1, y + 1, "←", LABEL)
    else:
        c.put(x, y, "??", FLIPPER)


def drnim_board(sim, t):
    """Dr. Nim's board from the pins and the marbles of the simulated world."""
    m = sim.config.machine
    capacity = max(m["capacity"], m["marbles"])
    step = 2 if capacity <= 17 else 1   # a long rail packs its marbles tight
    marbles = sim.marbles
    rail = marbles.rail
    label = t.format(t._("rail %(marbles)2d"), {"marbles": rail})
    slots = max(9, len(label) + 2)      # x of the first rail slot, after the label
    gate = slots + step * capacity      # the gate, at the right end of the rail
    chute = gate + 3                    # the chute down to the tray
    mid = (slots + gate) // 2
    c = Canvas(chute + 2, 11, BOARD)

    c.put(1, 0, label, LABEL)
    for i in range(capacity):
        full = i >= capacity - rail
        c.put(slots + step * i, 0, "●" if full else "·", MARBLE if full else DIM)
    c.put(gate, 0, "▐", FLIPPER)
    c.put(gate + 1, 0, "━━╮", CHUTE)
    for y in range(1, 10):
        c.put(chute, y, "│", CHUTE)
    c.put(chute - 4, 9, "IR┄┄┼", CHUTE)
    c.put(chute, 10, "▼", CHUTE)

    sides = dict((role, sim.side(role)) for role in ("flip_flop_1", "flip_flop_2", "flip_flop_3", "equalizer", "turn"))
    c.put(1, 2, t._("flip-flops")[:mid - 4], LABEL)
    for number, x, y in ((1, mid, 2), (2, mid - 8, 4), (3, mid + 8, 4)):
        c.put(x - 3, y, str(number), LABEL)
        flipper(c, x, y, sides["flip_flop_%d" % number])

    c.put(1, 6, t._("equalizer")[:mid - 3], LABEL)
    side = sides["equalizer"]
    flipper(c, mid, 6, side)
    c.put(mid + 5, 6, t._("armed") if side == "right" else t._("spent") if side == "left" else "", LABEL)

    c.put(1, 8, t._("turn")[:mid - 3], LABEL)
    side = sides["turn"]
    flipper(c, mid, 8, side)
    drnim = t._("Dr. Nim")
    c.put(mid - 2 - len(drnim), 9, drnim, ACTIVE if side == "left" else DIM)
    c.put(mid + 4, 9, t._("You"), ACTIVE if side == "right" else DIM)

    tray = marbles.tray
    c.put(1, 10, t.format(t._("tray %(marbles)2d"), {"marbles": tray}), LABEL)
    room = (chute - 2 - slots) // step + 1
    shown = min(tray, room)
    for i in range(shown):
        c.put(chute - 2 - step * i, 10, "●", MARBLE)
    if tray > shown:
        c.put(slots - 1, 10, "+", MARBLE)

    if marbles.jammed:
        stuck = t._("stuck")
        c.put(chute - 1 - len(stuck), 1, stuck, JAM)
        c.put(chute, 1, "✖", JAM)
    for due in marbles.falling:
        done = 1 - max(0, min(1, (due - sim.now) / float(marbles.fall_ms)))
        c.put(chute, 1 + int(round(done * 8)), "●", MARBLE)
    return c.text()


def drnim_status(sim, t):
    m = sim.machine
    out = Text()
    out.append(t.format(t._("Rail %(rail)d · tray %(tray)d · taken %(taken)d of %(loaded)d"), {
        "rail": m.rail, "tray": sim.marbles.tray, "taken": m.taken, "loaded": m.loaded}) + "\n", "bold")
    if m.mode == "over":
        out.append(t.message(m.verdict()), "bold #35c8ff" if m.winner == "player" else "bold #ff9f0a")
        out.append(" " + t._("Put the marbles back: New game (n)."))
    elif m.fault:
        out.append(t._("Fault: see below."), "bold #ff3b30")
    elif m.running:
        out.append(t._("Dr. Nim is playing its marbles..."))
    elif m.turn == "machine":
        out.append(t._("Turn switch on Dr. Nim's side: the trigger (space) once."))
    elif m.taken == 0:
        # Translators: m and space are the simulator's keys in every language (m: the turn switch to Dr. Nim).
        out.append(t._("You first: trigger (space) 1 to 3 times. Dr. Nim first: m, then space."))
    elif m.turn_taken or m.in_flight:
        # Translators: m and space are the simulator's keys in every language.
        out.append(t._("Take up to 3. Then Dr. Nim's turn: m, then space."))
    else:
        out.append(t._("Your turn: the trigger (space) 1 to 3 times."))
    return said(sim, t, out)


def said(sim, t, out):
    """`out`, and under it what the machine last said, such as why it refused a press (a fault says it in
    the fault's panel): the log alone had it, out of sight at 80x24."""
    if sim.said and not sim.machine.fault:
        out.append("\n" + t.message(*sim.said), "bold #ffcc00")
    return out


def drnim_fault(sim, t):
    fault = sim.machine.fault
    jammed = sim.marbles.jammed
    out = Text()
    if fault is None:
        out.append(t._("No fault."), "#4cd964")
    else:
        out.append(fault_text(t, fault), "#ff6b60")
    if jammed:
        out.append("\n" + t.format(t._n("World: %(marbles)d marble stuck in the chute.",
                                         "World: %(marbles)d marbles stuck in the chute.", jammed),
                                    {"marbles": jammed}), JAM)
    if sim.glitches:
        out.append("\n" + t.format(t._n("World: the sensor glitched %(times)d time.",
                                         "World: the sensor glitched %(times)d times.", sim.glitches),
                                    {"times": sim.glitches}), "dim")
    return out


# How the working's styles are drawn.
WORKING_STYLES = {"head": "bold", "good": "#4cd964", "warn": "#ff9f0a", "note": "dim", "plain": ""}


def working_text(lines, t):
    """The machine's `explain()` lines, drawn in the visitor's language."""
    out = Text()
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        out.append(t.line(line), WORKING_STYLES[line[0]])
    return out


# --- the Nimatron -----------------------------------------------------------------
def nimatron_row(lit, lamps, number):
    out = Text()
    out.append("%d " % number, "bold #c8b48a")
    for i in range(lamps):
        out.append(" ●  " if i < lit else " ○  ", BULB_ON if i < lit else BULB_OFF)
    return out


def spectators(rows, lamps):
    out = Text()
    for r, lit in enumerate(rows):
        if r:
            out.append("\n")
        out.append(" ".join("▪" if i < lit else "·" for i in range(lamps)), BULB_ON)
    return out


def nimatron_status(sim, t):
    m = sim.machine
    out = Text()
    out.append(t.format(t._("Rows %(rows)s"), {"rows": " ".join(str(n) for n in m.rows)}) + "\n", "bold")
    if m.mode == "over":
        out.append(t.message(m.verdict()), "bold #ffd700" if m.winner == "player" else "bold #ff3b30")
        out.append(" " + t._("New game (n)."))
    elif m.turn == "machine":
        out.append(t._("The Nimatron puts out its lamps...") if m.moving else t._("The Nimatron is thinking..."))
    elif m.row is not None:
        out.append(t.format(t._("Taking from row %(row)d: press it again (%(row)d) for another lamp, or hand over "
                                "(h)."), {"row": m.row + 1}))
    else:
        out.append(t.format(t._("Your turn: press a row's button (1-%(rows)d) once per lamp, then hand over (h)."),
                            {"rows": len(m.rows)}))
    return said(sim, t, out)


# --- the side panel ----------------------------------------------------------------
def log_text(lines):
    out = Text()
    for i, line in enumerate(lines):
        if i:
            out.append("\n")
        line = re.sub(r"\s{2,}", " ", line.strip())
        if line.startswith("message:"):
            out.append(line, "bold")
        elif line.startswith("world:"):
            out.append(line, JAM)
        else:
            out.append(line, "#b0b0b0")
    return out


# --- widgets ---------------------------------------------------------------------------
class Control(Button, can_focus=False):
    """A control of the machine. It never takes the keyboard focus (the keys
    belong to the app), and every click counts, however quick."""

    async def _on_click(self, event):
        event.stop()
        self.press()


class Panel(VerticalScroll, can_focus=False):
    """A scrolling panel that leaves the keys to the app."""


class Keys(Static):
    """The keys and what each does, as Textual's footer shows them, but on as many lines as the
    terminal's width needs: no key is cut off, whatever the language."""

    def render(self):
        bindings = {}
        for active in self.app.active_bindings.values():
            if active.binding.show and active.enabled:
                bindings.setdefault(active.binding.action, active.binding)
        out, width = Text(), 0
        for binding in bindings.values():
            key = self.app.get_key_display(binding)
            size = len(key) + 1 + len(binding.description)
            if width and width + 1 + size > self.app.size.width:
                out.append("\n")
                width = 0
            elif width:
                out.append(" ")
                width += 1
            out.append(key, "bold")
            out.append(" " + binding.description)
            width += size
        return out

    def on_resize(self):
        self.refresh(layout=True)


class SimulatorApp(App):
    """The bench simulator: the virtual machine, its controls, and why it moves."""

    TITLE = "Dr. Nim Controller: bench simulator"
    ENABLE_COMMAND_PALETTE = False
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (76, "-wide")]

    CSS = """
    Screen { layout: vertical; }
    #main { layout: horizontal; height: 1fr; }
    #machine { width: 53; height: 1fr; padding: 0 1; }
    #side { width: 1fr; min-width: 24; height: 1fr; }
    Screen.-narrow #main { layout: vertical; overflow-y: auto; }
    Screen.-narrow #machine { width: 1fr; height: auto; overflow-y: hidden; }
    Screen.-narrow #side { width: 1fr; height: auto; }

    #board { width: auto; background: #8f1d1d; color: #ffffff; border: round #e8a0a0;
             border-title-color: #ffffff; border-title-style: bold; padding: 0 1; }
    #lamps { height: auto; margin: 0 1; }
    .controls { height: auto; width: 1fr; }
    .controls Control { margin: 0 1 0 0; min-width: 10; }
    .gap { width: 1fr; }
    #trigger { min-width: 13; }

    #console { width: auto; height: auto; background: #2b2418; border: round #8a7350;
               border-title-color: #ffd25a; border-title-style: bold; padding: 0 1; }
    .lamprow { height: 3; width: auto; }
    .bulbs { width: auto; height: 3; content-align-vertical: middle; }
    .lamprow Control { min-width: 9; margin: 0 0 0 1; }
    #under { height: auto; width: auto; }
    #nimlamps { width: auto; min-width: 24; height: auto; padding: 1 1 0 1; }
    #spectators { width: auto; height: auto; background: #2b2418; border: round #8a7350;
                  border-title-color: #c8b48a; padding: 0 1; }

    #side > Static { height: auto; border: round #666666; border-title-color: #dddddd; padding: 0 1; }
    #logbox { height: 1fr; min-height: 14; border: round #666666; border-title-color: #dddddd; padding: 0 1; }
    Screen.-narrow #logbox { height: 14; }
    #keys { dock: bottom; height: auto; background: $footer-background; }
    """

    DRNIM_ACTIONS = {"trigger", "turn", "equalizer", "clear_jam"}
    NIMATRON_ACTIONS = {"row", "handover"}

    def __init__(self, simulation, speed=1.0, clock=time.monotonic, language=None, working=True):
        """`working`: the working shown (why the machine moved); it gives the winning move at every turn, which
        a projector's room asked "can you beat the machine?" should not see."""
        self.sim = simulation
        self.working = working
        self.speed = speed
        self.clock = clock
        self.t = language or simulation.config.language()
        self.drnim = simulation.marbles is not None     # a marble machine: Dr. Nim's board
        super().__init__()
        self.bind_keys(self.t)
        self.shown = {}
        self.carry_ms = 0.0
        self.last_tick = None

    def bind_keys(self, t):
        """The keys, with what each does in the visitor's language (the footer shows them)."""
        bind = self.bind
        bind("space,t", "trigger", description=t._("Trigger"), key_display=t._("space"))
        bind("m", "turn('machine')", description=t._("Turn→Dr. Nim"))
        bind("p", "turn('player')", description=t._("Turn→You"))
        bind("s", "turn('toggle')", description=t._("Turn switch over"), show=False)
        bind("e", "equalizer", description=t._("Equalizer"))
        bind("j", "clear_jam", description=t._("Free jam"))
        bind("1", "row(1)", description=t._("Row button"),
             key_display="1-%d" % (4 if self.drnim else self.sim.pinmap.rows))
        for number in range(2, 10):
            bind(str(number), "row(%d)" % number, show=False)
        bind("h,enter", "handover", description=t._("Hand over"), key_display="h")
        bind("n", "new_game", description=t._("New game"))
        bind("q", "quit", description=t._("Quit"))

    # --- layout -------------------------------------------------------------------
    def compose(self):
        with Container(id="main"):
            with Panel(id="machine"):
                if self.drnim:
                    yield from self.compose_drnim()
                else:
                    yield from self.compose_nimatron()
            with Panel(id="side"):
                yield Static(id="status")
                if self.drnim:
                    yield Static(id="fault")
                if self.working:
                    yield Static(id="working")
                with Panel(id="logbox"):
                    yield Static(id="log")
        yield Keys(id="keys")

    def compose_drnim(self):
        board = Static(id="board")
        board.border_title = self.t._("THE AMAZING DR. NIM")
        yield board
        yield Static(id="lamps")
        with Horizontal(classes="controls"):
            yield Control(self.turn_label(), id="turn_switch", action="app.turn('toggle')")
            yield Control(self.equalizer_label(), id="equalizer_switch", action="app.equalizer")
        with Horizontal(classes="controls"):
            yield Control(self.t._("New game"), id="new_game", action="app.new_game")
            yield Static(classes="gap")
            yield Control(self.t._("TRIGGER"), id="trigger", variant="error", action="app.trigger")

    def compose_nimatron(self):
        console = Vertical(id="console")
        console.border_title = self.t._("NIMATRON")
        with console:
            for r in range(self.sim.pinmap.rows):
                with Horizontal(classes="lamprow"):
                    yield Static(id="bulbs%d" % (r + 1), classes="bulbs")
                    yield Control(self.t.format(self.t._("Row %(row)d"), {"row": r + 1}), id="row%d" % (r + 1),
                                  action="app.row(%d)" % (r + 1))
        with Horizontal(id="under"):
            yield Static(id="nimlamps")
            box = Static(id="spectators")
            box.border_title = self.t._("spectators")
            yield box
        with Horizontal(classes="controls"):
            yield Control(self.t._("New game"), id="new_game", action="app.new_game")
            yield Static(classes="gap")
            yield Control(self.t._("Hand over"), id="handover", variant="warning", action="app.handover")

    def on_mount(self):
        t = self.t
        for name, title in (("status", t._("Now")), ("fault", t._("Fault")), ("working", t._("The working")),
                            ("logbox", t._("Log"))):
            for widget in self.query("#" + name):
                widget.border_title = title
        self.redraw()
        self.last_tick = self.clock()
        if self.speed > 0:
            self.set_interval(TICK_S, self.tick)

    # --- the clock -----------------------------------------------------------------
    def tick(self):
        """Advance the simulated clock by the real time since the last tick, times `speed`."""
        now = self.clock()
        elapsed = min(now - self.last_tick, MAX_STEP_S)
        self.last_tick = now
        if self.speed > 0:
            self.carry_ms += elapsed * self.speed * 1000
            step = int(self.carry_ms)
            if step:
                self.carry_ms -= step
                self.sim.advance(step)
        self.redraw()

    # --- drawing ----------------------------------------------------------------------
    def show(self, selector, content):
        """Update a widget only when what it shows changed."""
        if self.shown.get(selector) != content:
            self.shown[selector] = content
            widget = self.query_one(selector)
            if isinstance(widget, Button):
                widget.label = content
            else:
                widget.update(content)
            return True
        return False

    def redraw(self):
        sim, t = self.sim, self.t
        if self.drnim:
            self.show("#board", drnim_board(sim, t))
            self.show("#lamps", lamp_text(sim.lamps(), status_lamps(t, "drnim"), sim.now, 3))
            self.show("#turn_switch", self.turn_label())
            self.show("#equalizer_switch", self.equalizer_label())
            self.show("#status", drnim_status(sim, t))
            self.show("#fault", drnim_fault(sim, t))
        else:
            lamps = sim.pinmap.lamps_per_row
            for r, lit in enumerate(sim.rows(0)):
                self.show("#bulbs%d" % (r + 1), nimatron_row(lit, lamps, r + 1))
            self.show("#spectators", spectators(sim.rows(1), lamps))
            self.show("#nimlamps", lamp_text(sim.lamps(), status_lamps(t, "nimatron"), sim.now, 1))
            self.show("#status", nimatron_status(sim, t))
        if self.working:
            self.show("#working", working_text(sim.machine.explain(), t))
        if self.show("#log", log_text(sim.log[-LOG_LINES:])):
            self.query_one("#logbox").scroll_end(animate=False)

    def turn_label(self):
        on = self.sim.service.board.level("turn_switch")
        label = Text()
        label.append(self.t._("Dr. Nim") + " ←", "bold" if on else "dim")
        label.append(" ●── " if on else " ──● ")
        label.append("→ " + self.t._("You"), "dim" if on else "bold")
        return label

    def equalizer_label(self):
        on = self.sim.service.board.level("equalizer_switch")
        label = Text(self.t._("Equalizer") + " ")
        label.append("──● " + self.t._("armed") if on else "●── " + self.t._("off"), "bold")
        return label

    # --- the controls --------------------------------------------------------------------
    def check_action(self, action, parameters):
        if action in self.DRNIM_ACTIONS:
            return self.drnim
        if action in self.NIMATRON_ACTIONS:
            return not self.drnim
        return True

    def act(self, work):
        work()
        self.redraw()

    def action_trigger(self):
        self.act(lambda: self.sim.tap("trigger"))

    def action_turn(self, where):
        on = not self.sim.service.board.level("turn_switch") if where == "toggle" else where == "machine"
        self.act(lambda: self.sim.set_switch("turn_switch", on))

    def action_equalizer(self):
        on = not self.sim.service.board.level("equalizer_switch")
        self.act(lambda: self.sim.set_switch("equalizer_switch", on))

    def action_clear_jam(self):
        self.act(self.sim.clear_jam)

    def action_row(self, number):
        if number <= self.sim.pinmap.rows:
            self.act(lambda: self.sim.tap("row%d" % number))

    def action_handover(self):
        self.act(lambda: self.sim.tap("handover"))

    def action_new_game(self):
        self.act(lambda: self.sim.tap("new_game"))

    def action_help_quit(self):
        """Ctrl-C, which Textual answers with an English notice to press ctrl+q, quits as q does."""
        self.exit()


def encoding_setting():
    """Which variable gave this process its terminal's characters, as NAME=value (Python's own first)."""
    for name in ("PYTHONIOENCODING", "LC_ALL", "LC_CTYPE", "LANG"):
        if os.environ.get(name):
            return "%s=%s" % (name, os.environ[name])
    return "no LANG set"


def run_app(simulation, speed=1.0, working=True):
    """Draw `simulation` in the terminal until the visitor quits (q), in the simulation's language. The caller
    closes it. ArgumentError when there is no terminal that can draw it (Textual reads the keys from stdin
    and draws on stderr). In any encoding but UTF-8, Textual writes each character of the drawing it lacks
    as \\u2500 and the like, which fills the screen with backslashes."""
    if not (sys.stdin.isatty() and sys.__stderr__.isatty()):
        raise ArgumentError("--simulate: the drawing needs a terminal; without one, use --script FILE or "
                            "--autoplay N")
    if os.environ.get("TERM") == "dumb":
        raise ArgumentError("--simulate: TERM=dumb cannot draw the simulator; use a terminal that can, or "
                            "--script FILE or --autoplay N")
    encoding = codecs.lookup(sys.__stderr__.encoding or "ascii").name
    if encoding != "utf-8":
        setting = encoding_setting()
        fix = "unset PYTHONIOENCODING" if os.environ.get("PYTHONIOENCODING") else "set LANG=C.UTF-8"
        raise ArgumentError("--simulate: the drawing needs a UTF-8 terminal, and this one's characters are %s (%s); "
                            "%s, with the terminal in UTF-8 (PuTTY: Window, Translation), or use --script FILE or "
                            "--autoplay N" % (encoding, setting, fix))
    SimulatorApp(simulation, speed=speed, working=working).run()
