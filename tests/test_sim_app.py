"""The bench simulator's terminal UI (controller/sim/app.py), driven by Textual's Pilot.

No terminal and no wall clock: every app runs with speed=0, so its timer only
redraws; the tests move the simulated clock themselves (sim.settle(),
sim.advance()) and redraw. The SVG snapshots in tests/snapshots/ and the
README's docs/simulator.svg are compared after normalising the SVG's ids;
regenerate them with

    UPDATE_SNAPSHOTS=1 pytest tests/test_sim_app.py

and look at the new pictures before committing them.
"""

import asyncio
import difflib
import html
import os
import re
from pathlib import Path

import pytest

from controller.core.rules import Move
from controller.core.solve import winning_move
from controller.language import CODES, language
from controller.sim.app import SimulatorApp
from controller.sim.engine import Simulation

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"

DRNIM_CONTROLS = ("#trigger", "#turn_switch", "#equalizer_switch", "#new_game", "#board", "#lamps")
NIMATRON_CONTROLS = ("#row1", "#row2", "#row3", "#row4", "#handover", "#new_game", "#bulbs1", "#bulbs4",
                     "#nimlamps", "#spectators")


def run(machine, settings, size, script, language="en"):
    """Run `script(app, pilot)` in a headless app on a fresh simulation, in `language`."""
    sim = Simulation(machine, settings, language=language)
    app = SimulatorApp(sim, speed=0)

    async def main():
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return await script(app, pilot)
    try:
        return asyncio.run(main())
    finally:
        sim.close()


async def settle(app, pilot, ms=None):
    """Let the simulated world come to rest (or `ms` pass), then redraw."""
    if ms is None:
        app.sim.settle()
    else:
        app.sim.advance(ms)
    app.redraw()


def shown(app, selector):
    """The plain text a widget shows."""
    return str(app.query_one(selector).content)


# --- Dr. Nim by keys ----------------------------------------------------------------
def test_drnim_standard_game_by_keys_the_visitor_wins():
    async def play(app, pilot):
        sim = app.sim
        assert "○ you win" in shown(app, "#lamps")
        assert "● your turn" in shown(app, "#lamps")
        await pilot.press("p", "space", "t")              # the visitor first: takes 2, leaving 13
        await settle(app, pilot)
        assert sim.machine.rail == 13
        assert "rail 13" in shown(app, "#board")
        for target in (9, 5, 1):
            before = sim.machine.rail
            await pilot.press("m", "space")               # hand over: Dr. Nim's turn
            await settle(app, pilot)
            assert 1 <= before - sim.machine.rail <= 3
            assert sim.machine.state["turn"] == "player"
            assert "● your turn" in shown(app, "#lamps")
            await pilot.press("p", *["space"] * (sim.machine.rail - target))
            await settle(app, pilot)
            assert sim.machine.rail == target
            assert "Dr. Nim's last turn" in shown(app, "#working")
        await pilot.press("m", "space")                   # Dr. Nim must take the last marble
        await settle(app, pilot)
        return sim.machine.state["winner"], shown(app, "#lamps"), shown(app, "#board"), shown(app, "#status"), sim.marbles.tray

    winner, lamps, board, status, tray = run("drnim", {"equalizer": False}, (120, 36), play)
    assert winner == "player"
    assert "● you win" in lamps and "○ Dr. Nim wins" in lamps and "○ your turn" in lamps
    assert "rail  0" in board and "tray 15" in board and board.count("●") == 15
    assert "You win!" in status
    assert tray == 15


def test_drnim_working_explains_the_move():
    async def play(app, pilot):
        await pilot.press("space")                       # the visitor takes 1: 14 left, q = 1
        await settle(app, pilot)
        return shown(app, "#working")

    working = run("drnim", {"equalizer": False}, (120, 36), play)
    assert "q = (n − t) mod 4 = (14 − 1) mod 4 = 1" in working
    assert "q = 1: the player to move wins by taking 1, leaving 13." in working
    # Dr. Nim has no hand-over button: the working says what the visitor does to end a turn.
    assert "hand over" not in working
    assert "If you now move the turn switch to Dr. Nim and press the trigger, Dr. Nim takes 1." in working


@pytest.mark.parametrize("machine", ["drnim", "nimatron"])
def test_no_working_keeps_the_winning_move_from_a_projectors_room(machine):
    """Found by a weekend volunteer: at a game's start the working gave the visitor's winning move, on the
    projector of a room asked to beat the machine. --no-working leaves the panel out; the rest is there."""
    def draw(working):
        sim = Simulation(machine, {})
        app = SimulatorApp(sim, speed=0, working=working)

        async def main():
            async with app.run_test(size=(120, 36)) as pilot:
                await pilot.pause()
                return [len(app.query(selector)) for selector in ("#working", "#status", "#log")]
        try:
            return asyncio.run(main())
        finally:
            sim.close()
    assert draw(True) == [1, 1, 1] and draw(False) == [0, 1, 1]


def test_drnim_status_line_names_the_turn_switch_not_a_hand_over_button():
    async def play(app, pilot):
        await pilot.press("space")                       # the visitor takes 1
        await settle(app, pilot)
        taken = shown(app, "#status")
        await pilot.press("m")                           # the turn switch to Dr. Nim, the trigger not yet
        await settle(app, pilot)
        return taken, shown(app, "#status")

    taken, switched = run("drnim", {"equalizer": False}, (120, 36), play)
    assert "Take up to 3. Then Dr. Nim's turn: m, then space." in taken
    assert "Turn switch on Dr. Nim's side: the trigger (space) once." in switched
    assert "hand" not in (taken + switched).lower()


def test_a_refused_press_says_why_where_the_visitor_looks():
    """A 4th press of the trigger did nothing a visitor could see: the machine's reason was only in the
    log, below the fold at 80x24."""
    async def play(app, pilot):
        await pilot.press("space", "space", "space")
        await settle(app, pilot)
        before = shown(app, "#status")
        await pilot.press("space")
        await settle(app, pilot)
        refused = shown(app, "#status")
        await pilot.press("m", "space")
        await settle(app, pilot)
        return before, refused, shown(app, "#status"), app.sim.machine.rail

    before, refused, after, rail = run("drnim", {}, (80, 24), play, language="de")
    said = language("de").message("took_three")
    assert said not in before and said in refused and said not in after
    assert rail < 12


def test_the_nimatron_says_why_it_refused_a_hand_over():
    async def play(app, pilot):
        await pilot.press("h")
        await settle(app, pilot)
        return shown(app, "#status")

    assert language("fr").message("lamp_first") in run("nimatron", {}, (80, 24), play, language="fr")


def test_drnim_working_foresees_the_equalizers_misplay():
    async def play(app, pilot):
        before = shown(app, "#working")
        await pilot.press("m", "space")                  # Dr. Nim first, the equalizer armed (R5)
        await settle(app, pilot)
        return before, app.sim.machine.rail, shown(app, "#working"), app.sim.side("equalizer")

    before, rail, after, equalizer = run("drnim", {}, (120, 36), play)
    assert "q = (n − t) mod 4 = (15 − 1) mod 4 = 2" in before
    assert ("If you now move the turn switch to Dr. Nim and press the trigger, Dr. Nim takes 1, the equalizer's "
            "misplay.") in before
    assert rail == 14 and equalizer == "left"
    assert "Dr. Nim's last turn: n = 15, q = 2: it took 1, the equalizer's misplay." in after


def test_drnim_controls_by_mouse():
    """Clicks work the switches and the trigger as the keys do."""
    async def play(app, pilot):
        sim = app.sim
        level = sim.service.board.level
        await pilot.click("#equalizer_switch")
        await pilot.pause()
        armed = level("equalizer_switch")
        await pilot.click("#trigger")
        await pilot.pause()
        await settle(app, pilot)
        rail = sim.machine.rail
        await pilot.click("#turn_switch")
        await pilot.pause()
        to_drnim = level("turn_switch")
        await pilot.click("#trigger")
        await pilot.pause()
        await settle(app, pilot)
        label = str(app.query_one("#turn_switch").label)
        await pilot.press("s")                          # the key that moves the turn switch over
        return armed, rail, to_drnim, sim.machine.rail, sim.machine.state["turns"], label, level("turn_switch")

    armed, rail, to_drnim, after, turns, label, toggled = run("drnim", {"equalizer": False}, (100, 30), play)
    assert armed is True and rail == 14 and to_drnim is True and toggled is False
    assert after < 14 and turns[-1][0] == "machine"
    assert "Dr. Nim ←" in label and "→ You" in label


def test_drnim_jam_is_shown_and_cleared():
    async def play(app, pilot):
        await jam(app, pilot)
        fault, lamps, board = shown(app, "#fault"), shown(app, "#lamps"), shown(app, "#board")
        await pilot.press("j")
        await settle(app, pilot)
        return fault, lamps, board, shown(app, "#fault"), app.sim.machine.state["fault"]

    fault, lamps, board, cleared, state = run("drnim", {"equalizer": False}, (100, 30), play)
    assert fault.startswith("Jam: a marble did not reach the gate")
    assert "1 marble stuck" in fault
    assert "● fault" in lamps
    assert "stuck ✖" in board
    assert state is None and cleared.startswith("No fault.")


@pytest.mark.parametrize("code", CODES)
def test_the_rail_and_tray_counts_are_whole_in_every_language(code):
    """German's 'Schiene 15' ran under the rail's first marbles and read 'Schiene ●5●'."""
    async def play(app, pilot):
        await pilot.press("space", "space")
        await settle(app, pilot)
        board = app.query_one("#board")
        return shown(app, "#board").splitlines(), board.region, app.query_one("#machine").content_region

    lines, board, panel = run("drnim", {}, (80, 24), play, language=code)
    t = language(code)
    assert lines[0].startswith(" %s · · ●" % t.format(t._("rail %(marbles)2d"), {"marbles": 13}))
    assert lines[-1].startswith(" %s " % t.format(t._("tray %(marbles)2d"), {"marbles": 2}))
    assert panel.contains_region(board), "the board is cut off at 80x24"


async def jam(app, pilot):
    """Mid-game: 2 for the visitor, Dr. Nim's turn, then the visitor's marble sticks in the chute."""
    sim = app.sim
    await pilot.press("space", "space")
    await settle(app, pilot)
    await pilot.press("m", "space")
    await settle(app, pilot)
    await pilot.press("p")
    sim.jam_rate = 1.0                                     # this marble jams...
    sim.marbles.set_world(lost=(2, 3))                     # ...and blocks the two retries
    await pilot.press("space")
    sim.jam_rate = 0.0
    await settle(app, pilot)
    assert sim.machine.state["fault"] == "jam"


def test_ctrl_c_quits_as_q_does():
    """A bench tester's reflex, Ctrl-C, quits: Textual's own answer was an English notice naming ctrl+q."""
    async def play(app, pilot):
        await pilot.press("ctrl+c")
        await pilot.pause()
        return app.return_code, [notice.message for notice in app._notifications]

    code, notices = run("drnim", {}, (80, 24), play, language="de")
    assert code == 0 and notices == []


@pytest.mark.parametrize("code", CODES)
def test_every_key_is_on_the_screen_at_80x24_in_every_language(code):
    """In German, French, Spanish and Dutch the one line of keys ran past 80 columns: 'q' to quit was cut off."""
    async def play(app, pilot):
        keys = {b.binding.action: "%s %s" % (app.get_key_display(b.binding), b.binding.description)
                for b in app.active_bindings.values() if b.binding.show and b.enabled}
        return list(keys.values()), svg_lines(await screenshot(app, pilot))

    keys, lines = run("drnim", {}, (80, 24), play, language=code)
    bottom = "\n".join(lines[-2:])
    assert len(keys) == 7
    for key in keys:
        assert key in bottom, (key, bottom)


# --- the Nimatron by mouse ----------------------------------------------------------------
def test_nimatron_game_by_mouse():
    async def play(app, pilot):
        sim = app.sim
        machine = sim.machine
        while machine.state["mode"] == "play":
            rows = tuple(machine.state["rows"])
            move = winning_move(machine.variant(), rows) or Move.take(rows.index(max(rows)), 1)
            heap, count = move.takes[0]
            for _ in range(count):
                assert await pilot.click("#row%d" % (heap + 1))
            assert list(machine.state["rows"]) == [n - count if i == heap else n for i, n in enumerate(rows)]
            if machine.state["mode"] == "play":
                assert await pilot.click("#handover")
                assert machine.state["turn"] == "machine"
                await settle(app, pilot)
        drawn = [shown(app, "#bulbs%d" % (r + 1)).count("●") for r in range(sim.pinmap.rows)]
        small = shown(app, "#spectators").splitlines()
        return (drawn, sim.rows(0), [line.count("▪") for line in small], sim.rows(1), machine.state["winner"],
                shown(app, "#nimlamps"), shown(app, "#status"))

    drawn, console, spectators, overhead, winner, lamps, status = run("nimatron", {}, (100, 30), play)
    assert drawn == console == [0, 0, 0, 0]
    assert spectators == overhead == console
    assert winner == "player"
    assert "◉ NIM CHAMP" in lamps and "○ the Nimatron wins" in lamps
    assert "NIM CHAMP! You beat the Nimatron." in status


def test_nimatron_working_shows_the_nim_sum():
    async def play(app, pilot):
        return shown(app, "#working"), app.sim.machine.state["rows"]

    working, rows = run("nimatron", {}, (120, 36), play)
    total = 0
    for i, n in enumerate(rows):
        total ^= n
        assert "row %d  %2d = %s" % (i + 1, n, format(n, "03b")) in working
    assert "nim-sum = %d" % total in working


def test_nimatron_working_speaks_of_its_hand_over_button():
    async def play(app, pilot):
        await pilot.press("1")                           # a lamp of row 1 out: the visitor's turn is taken
        await settle(app, pilot)
        return shown(app, "#working")

    working = run("nimatron", {}, (120, 36), play)
    assert "If you hand over now, the Nimatron" in working


def test_the_clock_runs_at_speed_times_real_time():
    real = [1000.0]
    sim = Simulation("nimatron", {"opening": "first", "openings": [[1, 3, 5, 7]]})
    app = SimulatorApp(sim, speed=2.0, clock=lambda: real[0])

    async def main():
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("4", "enter")              # a key presses (for 1 ms) and lets go 100 ms later
            start = sim.now
            thinking = shown(app, "#nimlamps")
            real[0] += 0.25                               # a quarter second: half a second simulated
            app.tick()
            half = sim.now - start
            real[0] += 60                                 # a stalled terminal: at most 1 s, 2 s simulated
            app.tick()
            drawn = [shown(app, "#bulbs%d" % (r + 1)).count("●") for r in range(4)]
            return start, half, sim.now - start, thinking, sim.machine.state["rows"], drawn, sim.rows(0)

    try:
        start, half, stalled, thinking, rows, drawn, lit = asyncio.run(main())
    finally:
        sim.close()
    from controller.core.debounce import BUTTON_MIN_PULSE_MS
    assert start == 2 * BUTTON_MIN_PULSE_MS, "each key's press counts once it has held its pulse filter's 1 ms"
    assert half == 500 and stalled == 2500
    assert "◉ the Nimatron's turn" in thinking                 # it blinks while it thinks
    assert sum(rows) == 14                                     # 2.5 s: it thought 2 s and put out a lamp
    assert drawn == lit == rows


# --- resizing ------------------------------------------------------------------------------
@pytest.mark.parametrize("machine, controls", [("drnim", DRNIM_CONTROLS), ("nimatron", NIMATRON_CONTROLS)])
def test_layout_keeps_the_controls_on_screen(machine, controls):
    async def play(app, pilot):
        seen = []
        for width, height in ((140, 40), (80, 24), (60, 30), (140, 40)):
            await pilot.resize_terminal(width, height)
            await pilot.pause()
            screen = app.screen.region
            usable = screen._replace(height=app.query_one("#keys").region.y)     # above the keys
            assert screen.size == (width, height)
            for selector in controls:
                region = app.query_one(selector).region
                assert region.area and usable.contains_region(region), (width, height, selector, region)
            machine_panel, side = app.query_one("#machine").region, app.query_one("#side").region
            seen.append((app.screen.has_class("-narrow"), side.x >= machine_panel.right,
                         side.y >= machine_panel.bottom))
        return seen

    seen = run(machine, {}, (140, 40), play)
    assert seen == [(False, True, False), (False, True, False), (True, False, True), (False, True, False)]


def test_a_big_terminal_gives_the_log_the_room_left():
    """At 200x60 the log kept its 14 lines, with 30 empty rows under it."""
    async def play(app, pilot):
        return app.query_one("#logbox").region, app.query_one("#keys").region

    log, keys = run("drnim", {}, (200, 60), play)
    assert log.bottom == keys.y and log.height > 30


# --- snapshots ------------------------------------------------------------------------------
def svg_lines(svg):
    """The screen's text, line by line, read back from Rich's SVG (a cell is 12.2 units wide)."""
    lines = {}
    for x, number, text in re.findall(r'<text [^>]*x="([\d.]+)"[^>]*clip-path="url\(#terminal-\d+-line-(\d+)\)"[^>]*>'
                                      r'(.*?)</text>', svg):
        line = lines.setdefault(int(number), {})
        for i, char in enumerate(html.unescape(text).replace("\xa0", " ")):
            line[int(round(float(x) / 12.2)) + i] = char
    return ["".join(line.get(i, " ") for i in range(max(line) + 1)).rstrip() for _, line in sorted(lines.items())]


def normalise(svg):
    return re.sub(r"terminal-\d+", "terminal", svg)


def check_svg(path, svg):
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        return
    assert path.exists(), "%s is missing: run UPDATE_SNAPSHOTS=1 pytest %s" % (path, __file__)
    expected = path.read_text(encoding="utf-8")
    if normalise(expected) != normalise(svg):
        diff = "\n".join(difflib.unified_diff(svg_lines(expected), svg_lines(svg), "expected", "now", lineterm=""))
        pytest.fail("%s differs (text diff below; an empty diff means colours or layout).\n"
                    "Check the new picture, then UPDATE_SNAPSHOTS=1 to accept it.\n%s"
                    % (path.relative_to(ROOT), diff))


async def screenshot(app, pilot):
    sim = app.sim
    sim.log[:] = [line.replace(str(ROOT) + os.sep, "") for line in sim.log]   # the checkout's path
    app.redraw()
    await pilot.pause()
    return app.export_screenshot()


async def drnim_start(app, pilot):
    return await screenshot(app, pilot)


async def drnim_jam(app, pilot):
    await jam(app, pilot)
    return await screenshot(app, pilot)


async def drnim_midgame(app, pilot):
    """Dr. Nim's turn with 11 left: its first marble falls past the gate's beam."""
    sim = app.sim
    await pilot.press("space", "space")
    await settle(app, pilot)
    await pilot.press("m", "space")
    await settle(app, pilot)
    await pilot.press("p", "space")
    await settle(app, pilot)
    await pilot.press("m")
    sim.press("trigger", hold_ms=30)                       # a quick push: the marble is still high
    app.redraw()
    return await screenshot(app, pilot)


async def nimatron_start(app, pilot):
    return await screenshot(app, pilot)


SNAPSHOT_CASES = {
    "drnim_start": ("drnim", {}, (80, 24), drnim_start, SNAPSHOTS / "drnim_start.svg"),
    "drnim_jam": ("drnim", {"equalizer": False}, (100, 30), drnim_jam, SNAPSHOTS / "drnim_jam.svg"),
    "nimatron_start": ("nimatron", {}, (80, 24), nimatron_start, SNAPSHOTS / "nimatron_start.svg"),
    "readme": ("drnim", {"equalizer": False}, (120, 36), drnim_midgame, ROOT / "docs" / "simulator.svg"),
}


@pytest.mark.parametrize("name", sorted(SNAPSHOT_CASES))
def test_snapshot(name):
    machine, settings, size, script, path = SNAPSHOT_CASES[name]
    check_svg(path, run(machine, settings, size, script))


def test_svg_lines_reads_the_screen_back():
    async def play(app, pilot):
        return svg_lines(await screenshot(app, pilot))

    lines = run("drnim", {}, (80, 24), play)
    assert len(lines) == 24
    assert any("THE AMAZING DR. NIM" in line for line in lines)
    assert any("TRIGGER" in line for line in lines)
