"""What the web page's accessibility tests ask of a page in a tab, shared by test_page_access.py (the page
alone, as a kiosk) and test_second_screen.py (the page following an exhibit): axe-core's violations, and
whether the page's parts stand out (WCAG's contrast, computed from the styles) in the page's own colours
and in forced colours (Windows' high contrast, light and dark)."""

import re
from pathlib import Path

from controller.web.browser import missing, open_page

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
# Why a test of the page with axe-core cannot run here, or None.
MISSING = missing() or (None if AXE.exists() else "axe-core is missing (%s: cd web && npm ci)" % AXE)
# WCAG 2.0, 2.1 and 2.2, levels A and AA: axe-core's rules for them.
RULES = "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']"
AXE_RUN = ("async () => (await axe.run(document, {runOnly: {type: 'tag', values: %s}})).violations.map("
           "v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))" % RULES)


def violations(page):
    """What axe-core finds wrong in the page as it is now (WCAG 2.2 A and AA)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN)


# How a visitor may see the page: in its own colours, or in forced colours (Windows' high contrast),
# whose system colours Chromium takes from a light or a dark palette.
PALETTES = {"own colours": {"forced_colors": "none", "color_scheme": "light"},
            "forced colours, light": {"forced_colors": "active", "color_scheme": "light"},
            "forced colours, dark": {"forced_colors": "active", "color_scheme": "dark"}}
# The colour an element is seen on: the background of the nearest element around it that has one.
BEHIND = """const behind = (el) => {
    for (let at = el.parentElement; at; at = at.parentElement) {
        const colour = getComputedStyle(at).backgroundColor;
        if (colour !== 'rgba(0, 0, 0, 0)') return colour;
    }
    return 'rgb(255, 255, 255)'; };"""
LAMPS = """() => { %s
    return [...document.querySelectorAll('#lamps li')].map(lamp => {
        const bulb = getComputedStyle(lamp.querySelector('.bulb'));
        return {lit: !lamp.classList.contains('off'), fill: bulb.backgroundColor, edge: bulb.borderTopColor,
                weight: getComputedStyle(lamp.querySelector('.lamp-name')).fontWeight, behind: behind(lamp)} }) }""" % BEHIND
BOARD = """() => { const look = (selector, property) => getComputedStyle(document.querySelector(selector))[property];
    return {plastic: look('.plastic', 'fill'), marble: look('.slot.marble', 'fill'), slot: look('.slot:not(.marble)', 'stroke'),
            lever: look('.lever', 'fill'), side: look('.side:not(.active)', 'fill'), active: look('.side.active', 'fill'),
            weights: [look('.side:not(.active)', 'fontWeight'), look('.side.active', 'fontWeight')]} }"""
ROWS = """() => { %s const look = (selector, property) => getComputedStyle(document.querySelector(selector))[property];
    return {lit: look('.bulb-lit', 'fill'), out: look('.bulb-out', 'fill'), edge: look('.bulb-out', 'stroke'),
            behind: behind(document.querySelector('.bulbs'))} }""" % BEHIND
BUTTONS = """() => { %s return ['#language-en', '#language-de'].map(id => { const button = document.querySelector(id);
    const style = getComputedStyle(button);
    // in forced colours Chromium draws text on the palette's Canvas (a backplate), unless told not to adjust it
    const backplate = matchMedia('(forced-colors: active)').matches && style.forcedColorAdjust !== 'none';
    return {id, fill: style.backgroundColor, edge: style.borderTopColor, behind: behind(button), words: style.color,
            under: backplate ? getComputedStyle(document.documentElement).backgroundColor : style.backgroundColor} }) }
""" % BEHIND
# Every text shown outside the drawn board (whose labels BOARD looks at), a list's words for when it is empty
# (its ::before) too: its colour, what it is drawn on, and whether it is large text (WCAG: 24 px, or 18.66 px bold).
WORDS = """() => { %s const words = [];
    const backplate = matchMedia('(forced-colors: active)').matches;
    const canvas = getComputedStyle(document.documentElement).backgroundColor;
    const painted = (colour) => !/^rgba\\(.*, 0\\)$/.test(colour);
    for (const el of document.querySelectorAll('body *')) {
        if (!el.checkVisibility() || el.closest('svg')) continue;
        const style = getComputedStyle(el), before = getComputedStyle(el, '::before');
        const own = painted(style.backgroundColor) ? style.backgroundColor : behind(el);
        const texts = [...el.childNodes].filter(node => node.nodeType === Node.TEXT_NODE && node.textContent.trim())
            .map(node => [style, node.textContent]);
        if (/^".+"$/.test(before.content)) texts.push([before, before.content]);
        for (const [look, text] of texts) {
            const size = parseFloat(look.fontSize), bold = parseInt(look.fontWeight) >= 700;
            words.push({text: text.trim().slice(0, 50), words: look.color, behind: own,
                        under: backplate && look.forcedColorAdjust !== 'none' ? canvas : own,
                        large: size >= 24 || (bold && size >= 18.66)});
        }
    }
    return words; }""" % BEHIND


def seen(colour, under="rgb(255, 255, 255)"):
    """A computed colour, 'rgb(r, g, b)' or 'rgba(r, g, b, a)', as drawn over the colour `under`."""
    red, green, blue, *alpha = [float(part) for part in re.findall(r"[0-9.]+", colour)]
    if not alpha or alpha[0] == 1:
        return red, green, blue
    below = seen(under)
    return tuple(alpha[0] * mine + (1 - alpha[0]) * theirs for mine, theirs in zip((red, green, blue), below))


def contrast(one, other, under="rgb(255, 255, 255)"):
    """WCAG's contrast ratio of two computed colours (each drawn over `under`, the colour behind them)."""
    def luminance(colour):
        linear = [part / 255 / 12.92 if part / 255 <= 0.04045 else ((part / 255 + 0.055) / 1.055) ** 2.4
                  for part in seen(colour, under)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    lighter, darker = sorted((luminance(one), luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def colour_faults(page, palette, parts):
    """What a visitor who sees the page in `palette` (a name in PALETTES, emulated here) could hardly tell,
    one line each, among the `parts` it shows as it is now: "lamps" (the status lamps, one lit beside an unlit
    one: 3:1 each, a lit lamp's name in bold), "board" (Dr. Nim's, with an empty place on the rail: 3:1, the
    turn switch's words 4.5:1 and its side in bold), "rows" (the Nimatron's, a lamp out), "buttons" (the
    language buttons, English chosen: the chosen one told from another, their words 4.5:1, their focus rings
    3:1) and "words" (every text shown outside the board: 4.5:1, large text 3:1)."""
    page.emulate_media(**PALETTES[palette])
    faults = []

    def at_least(ratio, least, what):
        if ratio < least:
            faults.append("%s: %s, %.2f:1" % (palette, what, ratio))

    def fault(what):
        faults.append("%s: %s" % (palette, what))

    if "lamps" in parts:
        lamps = page.evaluate(LAMPS)
        lit, unlit = [lamp for lamp in lamps if lamp["lit"]], [lamp for lamp in lamps if not lamp["lit"]]
        assert lit and unlit, "the page shows no lit lamp beside an unlit one"
        for lamp in lamps:
            at_least(contrast(lamp["edge"], lamp["behind"], lamp["behind"]), 3, "a lamp's ring")
        for on in lit:
            at_least(contrast(on["fill"], on["behind"], on["behind"]), 3, "a lit lamp")
            for off in unlit:
                at_least(contrast(on["fill"], off["fill"], on["behind"]), 3, "a lit lamp beside an unlit one")
                if int(on["weight"]) <= int(off["weight"]):
                    fault("a lit lamp's name no bolder than an unlit one's")
    if "board" in parts:
        board = page.evaluate(BOARD)
        for part in ("marble", "slot", "lever"):
            at_least(contrast(board[part], board["plastic"]), 3, "the board's " + part)
        for side, words in (("side", "the turn switch's other side"), ("active", "the turn switch's side")):
            at_least(contrast(board[side], board["plastic"]), 4.5, words)
        if board["weights"][0] == board["weights"][1]:
            fault("the turn switch's side no bolder than its other side")
    if "rows" in parts:
        rows = page.evaluate(ROWS)
        at_least(contrast(rows["lit"], rows["behind"], rows["behind"]), 3, "a lit Nimatron lamp")
        at_least(contrast(rows["edge"], rows["behind"], rows["behind"]), 3, "an unlit Nimatron lamp's ring")
        at_least(contrast(rows["lit"], rows["out"], rows["behind"]), 3, "a lit Nimatron lamp beside an unlit one")
    if "buttons" in parts:
        chosen, other = page.evaluate(BUTTONS)
        at_least(max(contrast(chosen["fill"], other["fill"], chosen["behind"]),
                     contrast(chosen["edge"], other["edge"], chosen["behind"])), 3, "the chosen language's button")
        for button in chosen, other:
            at_least(contrast(button["words"], button["under"], button["behind"]), 4.5, button["id"] + "'s words")
            ring = page.evaluate("id => { document.querySelector(id).focus(); const style = getComputedStyle("
                                 "document.activeElement); return [style.outlineStyle, style.outlineColor] }",
                                 button["id"])
            if ring[0] == "none":
                fault(button["id"] + " shows no focus ring")
            at_least(contrast(ring[1], button["behind"], button["behind"]), 3, button["id"] + "'s focus ring")
    if "words" in parts:
        for text in page.evaluate(WORDS):
            at_least(contrast(text["words"], text["under"], text["behind"]), 3 if text["large"] else 4.5,
                     "the words %r" % text["text"])
    return faults


# --- each state of each machine's page, for axe-core (test_page_access.py, bench/page_axe.py) ---
SETTLED = "(v => v.mode !== 'play' || (!v.in_flight && v.falling.length === 0))(nim.view())"


def hold_for_check(page):
    """The machine holds in fault "check" (as after a restart with a marble on its way), drawn."""
    page.evaluate("nim.mp.runPython('import bridge\\nbridge.world.machine.hold_for_check()')")
    page.evaluate("nim.feed(['tick'])")


def fault(page):
    """The state "fault": the page's machine held in check."""
    hold_for_check(page)
    page.wait_for_function("nim.view().fault === 'check'")
    yield "fault", page, "nim.view().fault === 'check'"


def kiosk_attract(context, address, tab, key):
    """The state "kiosk attract": a kiosk at `address`, in `tab`, pressed once (`key`), then left until its
    machine rests in its attract state; the tab closed after."""
    page = open_page(context, address, tab=tab)
    page.keyboard.press(key)
    page.wait_for_function("nim.view().attract", timeout=15000)
    yield "kiosk attract", page, "nim.view().attract"
    page.close()


def drnim_states(context, address):
    """Each state of Dr. Nim, as (name, page, what holds while the page shows it)."""
    page = open_page(context, address + "?machine=drnim&seed=3&pace_ms=60000")
    yield "settings open", page, "nim.view().mode === 'play' && nim.view().turns.length === 0"
    page.keyboard.press("t")
    page.wait_for_function(SETTLED)
    yield "playing", page, "nim.view().turn === 'player' && nim.view().turns.length === 0"
    for _ in range(2):                  # three marbles dropped: Dr. Nim's reply is more than one, a minute apart
        page.keyboard.press("t")
        page.wait_for_function(SETTLED)
    page.keyboard.press("m")
    page.keyboard.press("t")
    page.wait_for_function("nim.view().running")
    yield "machine's turn", page, "nim.view().running"
    yield from fault(page)
    page = open_page(context, address + "?machine=drnim&marbles=2&capacity=2&rule=last-wins", tab=page)
    for _ in range(2):
        page.keyboard.press("t")
        page.wait_for_function(SETTLED)
    page.wait_for_function("nim.view().mode === 'over'")
    yield "game over", page, "nim.view().mode === 'over'"
    yield from kiosk_attract(context, address + "?kiosk=1&machine=drnim&idle_ms=300&lang=en", page, "t")


def nimatron_states(context, address):
    page = open_page(context, address + "?machine=nimatron&seed=3&think_ms=60000&openings=2,3,5,7&opening=first")
    yield "settings open", page, "nim.view().mode === 'play' && nim.view().turns.length === 0"
    page.keyboard.press("4")
    yield "playing", page, "nim.view().turn === 'player'"
    page.keyboard.press("h")
    page.wait_for_function("nim.view().turn === 'machine'")
    yield "machine's turn", page, "nim.view().turn === 'machine'"
    yield from fault(page)
    page = open_page(context, address + "?machine=nimatron&openings=1,0,0,0&opening=first", tab=page)
    page.keyboard.press("1")
    page.wait_for_function("nim.view().mode === 'over'")
    yield "game over", page, "nim.view().mode === 'over'"
    yield from kiosk_attract(context, address + "?kiosk=1&machine=nimatron&idle_ms=300&lang=en", page, "1")


def choose_language(page, code):
    """The visitor presses the language's button: the page redraws every text in it, in place."""
    page.click("#language-" + code)
    page.wait_for_function("document.getElementById('language-%s').getAttribute('aria-pressed') === 'true'" % code)


STATES = {"drnim": drnim_states, "nimatron": nimatron_states}


def axe_in_states(context, address, machine, languages):
    """{(state, language): axe-core's violations} for each state of `machine`'s page, in the
    languages `languages(n)` names for its n-th state, each chosen by its button there (a page is
    loaded once for a few states, not once for each language); AssertionError when the page
    had an error, or left the state while it was checked."""
    found = {}
    for number, (name, page, holds) in enumerate(STATES[machine](context, address)):
        for code in languages(number):
            choose_language(page, code)
            assert page.evaluate("document.documentElement.lang") == code
            found[name, code] = violations(page)
            assert page.page_errors == [] and page.evaluate("nim.errors") == []
        assert page.evaluate(holds), "the page left the state %r while it was checked" % name
    return found
