"""The web page to WCAG 2.2 AA, for a visitor with a screen reader, a keyboard or a switch:
axe-core (pinned in web/package-lock.json) finds no violation in any state of either
machine, each state checked in one language and each language in some state (bench/page_axe.py
checks every state in every language); the polite live region says each move and the machine's reply
in words, once; the keyboard alone plays a whole game, and the focus stays where it was
across the machine's turn; visible focus and 44 px targets; prefers-reduced-motion stops
the marbles' animation. For low-vision and colour-blind visitors: the lamps, marbles, flip-flops
and the turn switch stand out (3:1, WCAG 1.4.11) and a lit lamp differs from an unlit one by more
than its hue (1.4.1), in the page's colours and in forced colours (Windows' high contrast, light and
dark); at 200 % zoom and with WCAG 1.4.12's text spacing nothing is cut off or overlaps.

Skipped, with the reason, when Chromium, Playwright, the npm packages or axe-core are missing."""

import re

import pytest

from controller.language import CODES, language
from controller.web.browser import open_page
from page_checks import MISSING, PALETTES, SETTLED, axe_in_states, colour_faults, hold_for_check, violations
from test_language import HAND_OVER

needs_browser = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))

PLAYERS_TURN = "(v => v.mode !== 'play' || (v.turn === 'player' && !v.running && !v.in_flight))(nim.view())"
NIMATRON_READY = "(v => v.mode !== 'play' || (v.turn === 'player' && !v.moving))(nim.view())"


@needs_browser
@pytest.mark.parametrize("machine", ["drnim", "nimatron"])
def test_axe_finds_no_violation_in_any_state_and_in_each_language(browser, machine):
    """Each state in one language, the next state in the next (the Nimatron starting further on), so that
    every state and every language is checked on each machine; bench/page_axe.py checks every state in
    every language."""
    context, address, _ = browser
    start = 0 if machine == "drnim" else len(CODES) // 2
    found = axe_in_states(context, address, machine, lambda number: [CODES[(start + number) % len(CODES)]])
    assert [name for name, code in found] == [
        "settings open", "playing", "machine's turn", "fault", "game over", "kiosk attract"]
    assert {code for name, code in found} == set(CODES)
    assert found == dict((key, []) for key in found)


# WCAG 1.4.12: the spacing a visitor's own style sheet may ask for, which the page must take without loss.
TEXT_SPACING = """* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important; }
p { margin-bottom: 2em !important; }"""
# What a visitor would miss: the page wider than the window, a box that hides some of its text, the words of
# two elements drawn over each other (the drawn board's labels too), a label of the board outside it.
LOST = """() => { const lost = [], name = (el) => el.id || el.getAttribute('class') || el.tagName;
    if (document.documentElement.scrollWidth > innerWidth) lost.push('the page is wider than the window');
    const shown = [...document.querySelectorAll('body *')].filter(el => el.checkVisibility());
    for (const el of shown) {
        const style = getComputedStyle(el);
        if ([style.overflowX, style.overflowY].some(overflow => overflow === 'hidden' || overflow === 'clip')
            && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) lost.push(name(el) + ' cut off');
    }
    const words = [];
    for (const el of shown) for (const text of el.childNodes) {
        if (text.nodeType !== Node.TEXT_NODE || !text.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(text);
        for (const box of el.closest('svg') ? [el.getBoundingClientRect()] : range.getClientRects()) words.push([el, box]);
    }
    words.forEach(([el, box], i) => words.slice(i + 1).forEach(([other, next]) => {
        if (el !== other && Math.min(box.right, next.right) - Math.max(box.left, next.left) > 1
            && Math.min(box.bottom, next.bottom) - Math.max(box.top, next.top) > 1) lost.push(name(el) + ' over ' + name(other));
    }));
    const board = document.querySelector('svg .plastic');
    const edge = board && board.getBoundingClientRect();
    for (const label of board ? document.querySelectorAll('svg text') : []) {
        const box = label.getBoundingClientRect();
        if (box.left < edge.left || box.right > edge.right || box.top < edge.top || box.bottom > edge.bottom)
            lost.push(label.textContent + ' outside the board');
    }
    return lost; }"""


def announced(page):
    return page.evaluate("nim.announced")


def scroll_and_tab_stop(page):
    """Whether what the machine said scrolls, and whether it is a tab stop (a short list was one too: found
    in the classroom walkthrough, a keyboard stopped on it for nothing)."""
    return page.evaluate("(list => [list.scrollHeight > list.clientHeight, list.tabIndex === 0])"
                         "(document.getElementById('messages'))")


@needs_browser
def test_a_whole_dr_nim_game_by_keyboard_alone_is_told_in_words_and_keeps_the_focus(browser):
    """Tab to the trigger, Enter to drop a marble, m for the turn switch: the live region says each marble the
    visitor drops and what Dr. Nim did in reply, once each, and the trigger keeps the focus throughout."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=drnim&seed=5&pace_ms=60&equalizer=false&first=player",
                     reduced_motion="no-preference")        # as most visitors see it: the marbles fall
    assert scroll_and_tab_stop(page) == [False, False]       # "Nothing yet.": no tab stop on it
    while page.evaluate("document.activeElement.id") != "control-trigger":
        page.keyboard.press("Tab")
    english = language("en")
    said = []
    rail = 15
    while page.evaluate("nim.view().mode") == "play":
        for _ in range(2 if rail % 4 == 3 else 1):
            page.keyboard.press("Enter")
            page.wait_for_function(SETTLED)
            rail -= 1
            said.append("You dropped 1 marble." + (" %d are left." % rail if rail != 1 else " 1 is left.")
                        if rail else "You dropped 1 marble. " + english.message(page.evaluate("nim.view().verdict")))
            if rail == 0:
                break
        if page.evaluate("nim.view().mode") != "play":
            break
        page.keyboard.press("m")
        said.append("Turn switch on Dr. Nim's side: press the trigger once for its turn.")
        page.keyboard.press("Enter")
        page.wait_for_function(PLAYERS_TURN)
        assert page.evaluate("document.activeElement.id") == "control-trigger"
        took = page.evaluate("nim.view().turns")[-1][1]
        rail -= took
        over = page.evaluate("nim.view().mode") == "over"
        words = "Dr. Nim dropped %d marble%s." % (took, "" if took == 1 else "s")
        if over:
            said.append(words + " " + english.message(page.evaluate("nim.view().verdict")))
        else:
            said.append(words + (" %d are left." % rail if rail != 1 else " 1 is left.") + " Your turn.")
    assert page.evaluate("nim.view().mode") == "over"
    assert [line for line in announced(page) if not line.startswith("New game")] == said
    assert page.get_attribute("#said", "aria-live") == "polite" and page.get_attribute("#said", "role") == "status"
    assert page.evaluate("document.activeElement.id") == "control-trigger"
    for _ in range(16):                  # a morning of games: more than the list shows at once
        page.keyboard.press("n")
    page.wait_for_function("document.getElementById('messages').children.length === 17")
    assert scroll_and_tab_stop(page) == [True, True]            # it scrolls, and a keyboard reaches it


@needs_browser
@pytest.mark.parametrize("code", CODES)
def test_dr_nims_page_names_the_turn_switch_and_the_trigger_never_a_hand_over_button(browser, code):
    """Dr. Nim has no hand-over button (the Nimatron has): through a turn and two refusals, the status line,
    the live region, the working and what the machine said name the turn switch and the trigger instead."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=drnim&seed=3&pace_ms=60&first=player&lang=" + code)
    shown = []
    page.keyboard.press("t")
    page.wait_for_function(SETTLED)
    shown += [page.inner_text("#status"), page.inner_text("#working")]
    page.keyboard.press("m")
    shown += [page.inner_text("#status"), page.inner_text("#working")]
    page.keyboard.press("t")
    page.wait_for_function(PLAYERS_TURN)
    page.keyboard.press("m")                            # before taking a marble
    page.evaluate("nim.feed(['press', 'trigger']); nim.feed(['switch', 'turn', 'machine'])")  # while it falls
    said = page.inner_text("#messages")
    assert language(code).message("take_first") in said and language(code).message("wait_marble") in said
    shown += announced(page) + [said]
    assert [text for text in shown if re.search(HAND_OVER[code], text, re.IGNORECASE)] == []


@needs_browser
@pytest.mark.parametrize("code, to_drnim, to_you", [
    ("en", "Turn switch to Dr. Nim", "Turn switch to you"),
    ("de", "Zugschalter auf Dr. Nim", "Zugschalter zu dir"),
    ("fr", "Sélecteur de tour vers le Dr Nim", "Sélecteur de tour vers vous"),
    ("es", "Interruptor de turno hacia el Dr. Nim", "Interruptor de turno hacia ti"),
    ("nl", "Beurtschakelaar op Dr. Nim", "Beurtschakelaar naar jou"),
])
def test_the_keys_of_the_turn_switch_are_told_in_each_languages_own_words(browser, code, to_drnim, to_you):
    """The keys line says where m and p put the turn switch as a sentence of each language, not "auf du" or
    "hacia tú" glued from the switch's name and its side's label."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=drnim&lang=" + code)
    keys = page.inner_text("#keys")
    assert to_drnim + " · " in keys and to_you + " · " in keys


@needs_browser
def test_a_whole_nimatron_game_by_keyboard_alone_is_told_in_words_and_keeps_the_focus(browser):
    context, address, _ = browser
    page = open_page(context, address + "?machine=nimatron&seed=3&think_ms=60&pace_ms=50&openings=1,2,0,0"
                     "&opening=first", reduced_motion="no-preference")
    page.focus("#control-row2")
    said = []
    rows = [1, 2, 0, 0]
    while page.evaluate("nim.view().mode") == "play":
        row = 2 if rows[1] > rows[0] else 1
        page.keyboard.press(str(row))                   # a row's key, the focus left where it is
        rows[row - 1] -= 1
        left = rows[row - 1]
        line = "You put out a lamp in row %d: %d %s still lit there." % (row, left, "is" if left == 1 else "are")
        if page.evaluate("nim.view().mode") == "over":
            said.append(line + " " + language("en").message(page.evaluate("nim.view().verdict")))
            break
        said.append(line)
        page.keyboard.press("h")
        said.append("Handed over to the Nimatron: it is thinking.")
        page.wait_for_function(NIMATRON_READY)
        assert page.evaluate("document.activeElement.id") == "control-row2"
        _, move = page.evaluate("nim.view().turns")[-1]
        taken_row, count = (int(part) for part in move.split(":"))
        rows[taken_row - 1] -= count
        words = "The Nimatron put out %d lamp%s in row %d." % (count, "" if count == 1 else "s", taken_row)
        if page.evaluate("nim.view().mode") == "over":
            said.append(words + " " + language("en").message(page.evaluate("nim.view().verdict")))
        else:
            said.append(words + " Your turn.")
    assert page.evaluate("nim.view().mode") == "over"
    assert [line for line in announced(page) if not line.startswith("New game")] == said


@needs_browser
def test_enter_on_a_focused_link_follows_it(browser):
    """Enter is the Nimatron's hand-over key: a keyboard visitor who tabbed to the footer's MicroPython
    link and pressed Enter stayed on the page, and the machine refused a hand-over they never asked for."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=nimatron&seed=3")
    while page.evaluate("document.activeElement.textContent") != "MicroPython":
        page.keyboard.press("Tab")
    with page.expect_navigation(timeout=5000):
        page.keyboard.press("Enter")
    assert page.url == address + "micropython/LICENSE" and "MIT License" in page.inner_text("body")


@needs_browser
def test_every_control_shows_its_focus_and_is_a_44_pixel_target(browser):
    context, address, _ = browser
    for machine in ("drnim", "nimatron"):
        page = open_page(context, address + "?machine=" + machine)
        # a checkbox's or a radio button's target is its label, which holds it
        small = page.evaluate("""() => [...document.querySelectorAll('button, select, input')]
            .filter(el => el.checkVisibility())
            .map(el => [el.id || el.textContent, (el.closest('label') || el).getBoundingClientRect()])
            .filter(([, box]) => box.width < 44 || box.height < 44).map(([name]) => name)""")
        assert small == [], machine
        seen = set()
        for _ in range(40):
            page.keyboard.press("Tab")
            focus = page.evaluate("""() => { const el = document.activeElement, s = getComputedStyle(el);
                return [el.tagName, el.id, s.outlineStyle, parseFloat(s.outlineWidth)] }""")
            if focus[0] in ("BUTTON", "SELECT", "INPUT", "A"):
                assert focus[2] != "none" and focus[3] >= 2, focus
                seen.add(focus[1])
        assert "control-new_game" in seen


@needs_browser
def test_the_marbles_fall_without_animation_when_the_visitor_asks_for_less_motion(browser):
    """prefers-reduced-motion: reduce (the test asks for the media feature): a falling marble is drawn still,
    where it is, and the flip-flops turn without a transition; without it, the marble falls."""
    context, address, _ = browser

    def falling(page):
        """Where the falling marble is drawn, frame after frame, while it falls."""
        page.evaluate("nim.feed(['press', 'trigger'])")
        places = []
        while page.evaluate("nim.view().falling.length") and len(places) < 6:
            places.append(tuple(page.evaluate("[...document.querySelectorAll('#board g.falling circle')]"
                                              ".map(c => c.getAttribute('cy'))")))
            page.wait_for_timeout(40)
        return [place for place in places if place]

    page = open_page(context, address + "?machine=drnim&seed=3", reduced_motion="reduce")
    assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    places = falling(page)
    assert places[0] and len(set(places)) == 1, places
    assert page.evaluate("getComputedStyle(document.querySelector('.lever')).transitionDuration") == "0s"
    page = open_page(context, address + "?machine=drnim&seed=3", reduced_motion="no-preference")
    assert not page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    assert len(set(falling(page))) > 1, "without the preference the marble falls"
    assert page.evaluate("getComputedStyle(document.querySelector('.lever')).transitionDuration") == "0.25s"


def lamps_seen(page):
    """The status lamps' looks over about 0.3 s."""
    seen = set()
    for _ in range(8):
        seen.add(tuple(page.locator("#lamps li").evaluate_all("lamps => lamps.map(lamp => lamp.className)")))
        page.wait_for_timeout(40)
    return seen


@needs_browser
def test_the_resting_machines_lamps_stand_still_when_the_visitor_asks_for_less_motion(browser):
    """Resting after a game (or idle), the machine lights its lamps one after another, by itself, every
    0.4 s for as long as no one plays: with prefers-reduced-motion: reduce they stand still, out. Without
    the preference, the Moving lamps button stops them (WCAG 2.2.2: a visitor could not, and they ran for as
    long as the page was open), and starts them again."""
    context, address, _ = browser
    for motion in ("reduce", "no-preference"):
        page = open_page(context, address + "?machine=drnim&idle_ms=300&attract_step_ms=50", reduced_motion=motion)
        page.keyboard.press("n")
        page.wait_for_function("nim.view().attract", timeout=10000)
        switch = page.locator("#moving-lamps")
        if motion == "reduce":
            assert lamps_seen(page) == {("lamp off",) * 5}
            assert switch.get_attribute("aria-pressed") == "false" and switch.inner_text() == "Moving lamps: off"
            continue
        assert len(lamps_seen(page)) > 1, "without the preference the lamps run round"
        assert switch.get_attribute("aria-pressed") == "true"
        switch.click()
        assert switch.get_attribute("aria-pressed") == "false" and switch.inner_text() == "Moving lamps: off"
        assert lamps_seen(page) == {("lamp off",) * 5}, "the Moving lamps button did not stop them"
        switch.click()
        assert len(lamps_seen(page)) > 1, "the Moving lamps button did not start them again"


@needs_browser
@pytest.mark.parametrize("seen_as", ["own colours", "forced colours"])
def test_lamps_marbles_levers_and_chosen_buttons_stand_out(browser, seen_as):
    """In the page's own colours an unlit lamp's ring, an empty place on the rail, an unlit Nimatron lamp's ring
    and the words of the turn switch's other side were too faint to see (under 3:1, the words under 4.5:1), and a
    lit red lamp differed from an unlit one by its hue alone (2.7:1). In forced colours (Windows' high contrast,
    light and dark) a low-vision visitor lost what the page draws with backgrounds: every status lamp was the
    same empty ring, lit or not, the fault lamp too; the chosen language's button looked like the others; and the
    Nimatron's lit lamps, yellow, were left on the palette's white (and a chosen button highlighted by a system
    colour hid its words: Chromium draws them on the palette's Canvas, in the highlight's text colour). In each
    palette each of them stands out, a lit lamp's name is bold, the turn switch's side in bold, and every
    button's focus ring is seen."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=drnim&seed=3&pace_ms=60000")
    page.keyboard.press("t")
    page.wait_for_function(SETTLED)                     # a marble gone: an empty place on the rail
    hold_for_check(page)
    page.wait_for_function("nim.view().fault === 'check'")     # the fault lamp lit, beside an unlit one
    nimatron = open_page(context, address + "?machine=nimatron&openings=2,3,5,7&opening=first")
    nimatron.keyboard.press("4")                        # a lamp put out
    faults = []
    for palette in PALETTES:
        if palette.startswith(seen_as):
            faults += colour_faults(page, palette, ("lamps", "board", "buttons"))
            faults += colour_faults(nimatron, palette, ("rows",))
    assert not faults, "\n".join(sorted(set(faults)))


@needs_browser
def test_a_tab_handed_on_starts_in_the_visitors_own_colours(browser):
    """A test that looked at the page in forced colours hands its tab on: the next page loaded in it is seen
    in its own colours, as a visitor's is, not in the last test's."""
    from controller.web.browser import spare_tabs
    context, address, _ = browser
    page = open_page(context, address + "?machine=drnim")
    page.emulate_media(forced_colors="active", color_scheme="dark")
    spare_tabs(context)
    again = open_page(context, address + "?machine=nimatron")
    assert again == page and again.evaluate(
        "[matchMedia('(forced-colors: active)').matches, matchMedia('(prefers-color-scheme: dark)').matches]") \
        == [False, False]


@needs_browser
def test_at_200_percent_zoom_and_with_wider_text_spacing_nothing_is_cut_off_or_drawn_over(browser):
    """Browser zoom at 200 % on a 1280x800 screen leaves a window of 640x400 CSS pixels; a visitor's style sheet may
    widen the lines, letters, words and paragraphs (WCAG 1.4.12). German's long words, in both machines: the page
    reflows, no text is cut off or drawn over another, the board's labels stay on the board."""
    context, address, _ = browser
    for machine in ("drnim", "nimatron"):
        page = open_page(context, address + "?machine=%s&lang=de" % machine)
        page.set_viewport_size({"width": 640, "height": 400})
        assert page.evaluate(LOST) == [], machine
        page.add_style_tag(content=TEXT_SPACING)
        assert page.evaluate(LOST) == [], machine + ", text spacing"


# The visitor's own events the page fed its machine: presses, releases and switches (not the clock's ticks).
MOVES = "nim.trace().trace.filter(([event]) => ['press', 'release', 'switch'].includes(event[0])).length"
WARNED = "!document.getElementById('still-playing').hidden"
# Where an element is in the window, and whether a press at its middle reaches it (nothing drawn over it).
IN_SIGHT = """(id => { const el = document.getElementById(id), box = el.getBoundingClientRect();
    return box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth && box.height > 0
        && document.elementFromPoint((box.left + box.right) / 2, (box.top + box.bottom) / 2) === el; })"""

# Everything the page shows is above the warning's banner (scrolled to the page's end, nothing is under it).
ABOVE_THE_WARNING = """(() => { const banner = document.getElementById('still-playing').getBoundingClientRect().top;
    return [...document.querySelectorAll('main *')].filter((el) => el.checkVisibility() && !el.closest('#still-playing'))
        .every((el) => el.getBoundingClientRect().bottom <= banner + 0.5); })()"""


def kiosk_after_a_move(browser, width, height):
    """A kiosk's Dr. Nim in a window of `width` x `height`, a marble dropped by the trigger, its idle time
    short (the warning comes within a second) and the warning long."""
    context, address, _ = browser
    page = open_page(context, address + "?kiosk=1&machine=drnim&idle_ms=800&warn_ms=60000&seed=5")
    page.set_viewport_size({"width": width, "height": height})
    page.focus("#control-trigger")
    page.keyboard.press("Enter")
    page.wait_for_function(SETTLED)
    return page


@needs_browser
def test_at_200_percent_zoom_the_kiosks_warning_is_seen_wherever_the_page_is_scrolled(browser):
    """WCAG 2.2.1 and 1.4.10: at 200 % zoom (a 640x400 window) a visitor scrolled down to the trigger never saw
    "Still playing?", the live region's line being 148 px above the window, and the game was ended unseen. The
    warning shows at the window's foot wherever the page is scrolled, its Keep playing button uncovered and the
    controls still reached above it; the focus stays where it was, nor does the page move; axe finds nothing."""
    page = kiosk_after_a_move(browser, 640, 400)
    for top in (False, True):
        if top:
            page.evaluate("scrollTo(0, 0)")
        else:
            page.eval_on_selector("#control-new_game", "(el) => el.scrollIntoView({block: 'end'})")
        trigger = "document.getElementById('control-trigger').getBoundingClientRect().top"
        seen = page.evaluate(trigger)
        page.wait_for_function(WARNED, timeout=10000)
        assert page.evaluate("document.getElementById('said').getBoundingClientRect().bottom < 0") is not top
        for part in ("still-playing-text", "keep-playing"):
            assert page.evaluate(IN_SIGHT, part), part
        if not top:                                 # the controls the visitor looks at stay where they were
            assert abs(page.evaluate(trigger) - seen) < 1, "the page moved under the visitor"
        assert page.evaluate("document.activeElement.id") == "control-trigger"
        if not top:
            page.evaluate("scrollTo(0, document.documentElement.scrollHeight)")   # the page's end is above it
            assert page.evaluate(ABOVE_THE_WARNING)
            assert violations(page) == []
        page.click("#keep-playing")
        assert page.evaluate(WARNED) is False
        assert page.evaluate("document.activeElement.id") == "control-trigger"
        assert page.evaluate(MOVES) == 2 and page.evaluate("nim.view().rail") == 14
    assert announced(page)[-1] == "Your game goes on."


@needs_browser
def test_on_a_desktop_window_the_kiosks_warning_is_shown_once_and_still_said(browser):
    """A desktop window showed "Still playing?" twice above the machine, in the live region's line and in the
    banner: the line is not shown while the banner is (a screen reader still has it in the live region; What
    the machine said keeps it, as it keeps all), and nothing on the page moves; the next thing said shows."""
    page = kiosk_after_a_move(browser, 1280, 800)
    trigger = "document.getElementById('control-trigger').getBoundingClientRect().top"
    seen = page.evaluate(trigger)
    page.wait_for_function(WARNED, timeout=10000)
    shown = """[...document.querySelectorAll('#exhibit *')].filter((el) => el.checkVisibility({opacityProperty: true})
        && [...el.childNodes].some((node) => node.nodeType === 3 && node.textContent.includes('Still playing?')))
        .map((el) => el.id)"""
    assert page.evaluate(shown) == ["still-playing-text"]
    assert page.evaluate("document.getElementById('said').textContent").startswith("Still playing?")
    assert abs(page.evaluate(trigger) - seen) < 1, "the page moved under the visitor"
    page.click("#keep-playing")
    assert page.evaluate("document.getElementById('said').checkVisibility({opacityProperty: true})")
    assert page.evaluate("document.getElementById('said').textContent") == "Your game goes on."


@needs_browser
def test_the_shortcut_keys_can_be_turned_off_and_then_space_scrolls_and_letters_play_nothing(browser):
    """WCAG 2.1.4: the one-key shortcuts acted wherever the focus was: at 400 % zoom Space dropped a marble instead
    of scrolling, n threw the game away, and a speech-input user's stray letters played moves. The Shortcut keys
    button turns them off (the keys' line says so), for the rest of the visit, as the Sound button the sound; a
    control's own keys still work."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=drnim&seed=5&pace_ms=60")
    page.set_viewport_size({"width": 320, "height": 200})       # 400 % zoom on a 1280x800 screen
    switch = page.locator("#shortcuts")
    assert switch.get_attribute("aria-pressed") == "true" and switch.inner_text() == "Shortcut keys: on"
    assert page.inner_text("#keys").endswith(
        "They work wherever the focus is but in the settings; the Shortcut keys button turns them off.")
    switch.click()
    assert switch.get_attribute("aria-pressed") == "false" and switch.inner_text() == "Shortcut keys: off"
    assert page.inner_text("#keys").endswith("They are off: the Shortcut keys button turns them on.")
    page.evaluate("document.activeElement.blur(); scrollTo(0, 0)")
    page.keyboard.press("Space")
    page.wait_for_function("scrollY > 0")                        # Space scrolls the page
    for key in "tnmpse":
        page.keyboard.press(key)
    assert page.evaluate(MOVES) == 0 and page.evaluate("nim.view().rail") == 15
    page.focus("#control-trigger")
    page.keyboard.press("Enter")                                 # a button's own key presses it
    page.wait_for_function(SETTLED)
    assert page.evaluate("nim.view().rail") == 14
    page.click("#language-de")
    page.wait_for_function("document.documentElement.lang === 'de'")
    assert switch.inner_text() == "Tastenkürzel: aus"
    page.click("#machines button[value=nimatron]")
    page.keyboard.press("1")
    assert page.evaluate(MOVES) == 0 and switch.get_attribute("aria-pressed") == "false"
    switch.click()
    page.keyboard.press("1")
    assert page.evaluate(MOVES) == 2, "turned on again, the keys play"


@needs_browser
def test_a_kiosk_turns_the_shortcut_keys_back_on_for_the_next_visitor_unless_its_address_says(browser):
    """A kiosk's keyboard or keypad plays by the keys: a visitor who turned them off turns them off for themselves,
    and the next visitor finds them on; a kiosk's address may keep them off (keys=off)."""
    context, address, _ = browser
    page = open_page(context, address + "?kiosk=1&machine=drnim&idle_ms=300&warn_ms=300&seed=5")
    page.click("#shortcuts")
    page.click("#control-trigger")
    page.wait_for_function("nim.announced.at(-1) === %r"
                           % "Time is up: that game is over, and a new one is ready for the next visitor.", timeout=15000)
    assert page.get_attribute("#shortcuts", "aria-pressed") == "true"
    page = open_page(context, address + "?kiosk=1&machine=drnim&keys=off", tab=page)
    assert page.get_attribute("#shortcuts", "aria-pressed") == "false"
    page.keyboard.press("t")
    assert page.evaluate(MOVES) == 0


BLINKING = """[...document.querySelectorAll('#lamps li.blink')].map((lamp) => [lamp.getAttribute('aria-label'),
    getComputedStyle(lamp.querySelector('.bulb')).animationName])"""


@needs_browser
def test_moving_lamps_off_holds_every_blinking_lamp_still(browser):
    """WCAG 2.2.2: "Moving lamps: off" held only the resting machine's lamps still: the Nimatron's NIM CHAMP went on
    blinking after a visitor's win. Every blinking lamp now stands lit, told from a steady one by a dashed ring, and
    still called blinking."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=nimatron&openings=1,0,0,0&opening=first&rule=last-wins",
                     reduced_motion="no-preference")
    page.keyboard.press("1")
    page.wait_for_function("nim.view().mode === 'over' && nim.view().winner === 'player'")
    assert page.evaluate(BLINKING) == [["NIM CHAMP: blinking", "blink"]]
    page.click("#moving-lamps")
    assert page.evaluate(BLINKING) == [["NIM CHAMP: blinking", "none"]]
    assert page.evaluate("getComputedStyle(document.querySelector('#lamps li.blink .bulb')).outlineStyle") == "dashed"
    page.click("#moving-lamps")
    assert page.evaluate(BLINKING) == [["NIM CHAMP: blinking", "blink"]]


@needs_browser
def test_a_switchs_button_names_the_side_it_stands_on_and_the_side_it_is_moved_to_is_said(browser):
    """A switch's button changed both its name and its pressed state: a reader said "Turn switch: you, toggle
    button, not pressed". Its name alone says its side, and the side it is moved to is said in the live region
    (unless the machine says more: Dr. Nim's turn)."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=drnim&seed=5&pace_ms=60&first=player")
    for role, name in (("turn_switch", "Turn switch: you"), ("equalizer_switch", "Equalizer switch: armed")):
        assert page.get_attribute("#control-" + role, "aria-pressed") is None
        assert page.get_by_role("button", name=name, exact=True).count() == 1
    page.focus("#control-equalizer_switch")
    page.keyboard.press("Space")
    assert page.get_by_role("button", name="Equalizer switch: off", exact=True).count() == 1
    assert announced(page)[-1] == "Equalizer switch: off."
    page.keyboard.press("Enter")
    assert announced(page)[-1] == "Equalizer switch: armed."
    page.focus("#control-trigger")
    page.keyboard.press("Enter")
    page.wait_for_function(SETTLED)
    page.focus("#control-turn_switch")
    page.keyboard.press("Space")
    assert page.get_by_role("button", name="Turn switch: Dr. Nim", exact=True).count() == 1
    assert announced(page)[-1] == "Turn switch on Dr. Nim's side: press the trigger once for its turn."


@needs_browser
def test_every_region_the_page_names_is_named_to_a_screen_reader(browser):
    """The controls' group had a name (aria-label) on a plain div, which the accessibility tree keeps as a
    nameless `generic`, and screen readers ignore: axe only lists it to review."""
    context, address, _ = browser
    for machine in ("drnim", "nimatron"):
        page = open_page(context, address + "?machine=" + machine)
        cdp = page.context.new_cdp_session(page)
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        named = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "[aria-label], [aria-labelledby]"})[
            "nodeIds"]
        unnamed = []
        for node in named:
            described = cdp.send("DOM.describeNode", {"nodeId": node})["node"]
            ax = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})["nodes"][0]
            hidden = {reason["name"] for reason in ax.get("ignoredReasons", [])} & {
                "notRendered", "notVisible", "ariaHiddenElement", "ariaHiddenSubtree", "inertElement", "inertSubtree"}
            if hidden:
                continue            # not shown now (a closed panel): nothing to name
            if ax.get("ignored") or ax["role"]["value"] in ("generic", "none") or not ax.get("name", {}).get("value"):
                unnamed.append("%s#%s" % (described["localName"], dict(zip(*[iter(described["attributes"])] * 2))
                                          .get("id", "")))
        assert unnamed == [], machine
        cdp.detach()


@needs_browser
def test_a_page_whose_micropython_never_comes_says_so_in_the_visitors_language_and_aloud(browser):
    """The heading stayed 'Wird geladen …', the line under it gave MicroPython's English error, unmarked, and
    nothing was announced; a language pressed after it changed <html lang> and nothing else."""
    context, address, _ = browser
    page = context.new_page()
    context.own_tabs.append(page)
    try:
        page.route("**/micropython.wasm", lambda route: route.abort("connectionrefused"))
        page.goto(address + "?machine=drnim&lang=de")
        page.wait_for_function("nim.errors.length > 0")
        assert page.inner_text("#machine-title") == "Die Maschine konnte nicht starten"
        status = page.inner_text("#status")
        assert status.startswith("Lade die Seite neu. Startet sie wieder nicht, muss jemand nach dem Computer der "
                                 "Ausstellung sehen: ")
        assert page.get_attribute("#status span", "lang") == "en" and page.inner_text("#status span") in status
        assert "Die Maschine konnte nicht starten" in page.evaluate("nim.announced")
        assert page.evaluate("[...document.querySelectorAll('#machines button')].every((b) => b.disabled)")
        page.click("#language-fr")
        page.wait_for_function("document.documentElement.lang === 'fr'")
        assert page.inner_text("#machine-title") == "La machine n’a pas pu démarrer"
        assert page.inner_text("#status").startswith("Rechargez la page.")
    finally:
        page.close()
