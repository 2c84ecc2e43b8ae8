"""The simulator, the terminal game and each visitor card in the pseudo-locale (tests/pseudo_locale.py):
no English word that did not come through the catalogs, and the cards' words fit."""

import asyncio

import pytest

from conftest import cairo_missing, typed

babel = pytest.importorskip("babel", reason="Babel (the test extra) reads the catalogs' template")

from pseudo_locale import english_left, pseudo_language  # noqa: E402


def shown_by(app):
    """What the app shows, widget by widget: each widget's content and border title, each button's
    label, and the footer's keys (the log, the service's journal for the bench's technician, left out:
    its machine's messages are the catalog's all the same)."""
    from textual.widgets import Button, Static
    texts = []
    for widget in app.screen.query("*"):
        if widget.id in ("log", "logbox"):
            continue
        if widget.border_title:
            texts.append(str(widget.border_title))
        if isinstance(widget, Button):
            texts.append(str(widget.label))
        elif isinstance(widget, Static):
            texts.append(str(widget.render()))
    for binding in app.active_bindings.values():
        if binding.binding.show:
            texts.append("%s %s" % (binding.binding.key_display or "", binding.binding.description))
    return "\n".join(texts)


def screens_of_the_simulator(machine):
    """The simulator's screens in the pseudo-locale, as the text they show."""
    from controller.sim.app import SimulatorApp
    from controller.sim.engine import Simulation
    shown = []
    sim = Simulation(machine, {"think_ms": 60} if machine == "nimatron" else {})
    app = SimulatorApp(sim, speed=0, language=pseudo_language())

    async def play():
        async with app.run_test(size=(140, 45)) as pilot:
            await pilot.pause()
            shown.append(shown_by(app))
            if machine == "drnim":
                sim.tap("trigger")
                sim.settle()
                sim.set_switch("turn_switch", True)
                sim.tap("trigger")
                sim.settle()
                shown.append(shown_by(app))
                sim.marbles.set_world(lost=[1, 2, 3, 4])
                sim.tap("trigger")
                sim.settle()
            else:
                sim.tap("row1")
                sim.tap("handover")
                sim.settle()
            app.redraw()
            await pilot.pause()
            shown.append(shown_by(app))
    try:
        asyncio.run(play())
    finally:
        sim.close()
    return shown


def svg_text(svg):
    """The words an SVG shows, line by line: its text elements joined by where they stand (a Textual
    screenshot draws a line in many pieces, a card a line each)."""
    import html
    import re
    lines = {}
    for attributes, content in re.findall(r"<text([^>]*)>(.*?)</text>", svg, re.S):
        x = float(re.search(r'\bx="([-0-9.]+)"', attributes).group(1))
        y = float(re.search(r'\by="([-0-9.]+)"', attributes).group(1))
        lines.setdefault(y, []).append((x, html.unescape(re.sub(r"<[^>]+>", "", content)).replace("\u00a0", " ")))
    return "\n".join("".join(part for _, part in sorted(lines[y])) for y in sorted(lines))


@pytest.mark.parametrize("machine", ["drnim", "nimatron"])
def test_every_screen_of_the_simulator_in_the_pseudo_locale(machine):
    pytest.importorskip("textual", reason="Textual (the sim extra) draws the simulator")
    screens = screens_of_the_simulator(machine)
    assert len(screens) == (3 if machine == "drnim" else 2)
    for text in screens:
        assert english_left(text) == [], text


def test_the_terminal_game_in_the_pseudo_locale(monkeypatch):
    import controller.arguments
    monkeypatch.setattr(controller.arguments, "visitor_language", lambda text: pseudo_language())
    for argv, lines in ((["play", "drnim", "--seed", "1", "--first", "you"], ["9", "2:1", "x", "2", "3", "3", "3"]),
                        (["play", "marienbad", "--seed", "4"], ["4:1"] * 7 + ["3:1"] * 5 + ["2:1"] * 3 + ["1:1"]),
                        (["play", "sinclair", "--seed", "2"], ["none", "5", "1", "1", "1", "1", "1"])):
        text = typed(argv + ["--lang", "qps"], lines)[1]
        # what the visitor typed comes back quoted, and the opponent's name is the one typed on the command line
        text = text.replace("'x'", "").replace("'none'", "").replace("'9'", "")
        for name in ("perfect", "sinclair"):
            text = text.replace("(" + name + ")", "").replace(" " + name + ";", "")
        assert english_left(text) == [], text


@pytest.mark.parametrize("machine", ["drnim", "nimatron"])
def test_each_visitor_card_in_the_pseudo_locale_fits_and_says_nothing_in_english(machine):
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    from controller.cards import card_svg
    svg = card_svg(machine, pseudo_language())
    assert english_left(svg_text(svg.split("</svg>")[0].split("<rect", 1)[1])) == []
