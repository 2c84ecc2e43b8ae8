"""The web page on a class's phones and tablets: played by touch alone, upright or on its side, and
turned mid-game; a drawn control is a 44 px target; nothing stays lit after a tap (a touch screen has
no hover); pressing the drawing selects none of its words; the page answers a tap while MicroPython
is still loading. One phone-like Chromium for the file (360x640, touch, 3 device pixels a CSS pixel).

Skipped, with the reason, when Chromium, Playwright or the npm package is missing."""

import contextlib

import pytest

from controller.web.browser import missing, open_page, served_page, spare_tabs

BROWSER_MISSING = missing()
pytestmark = pytest.mark.skipif(BROWSER_MISSING is not None, reason=str(BROWSER_MISSING))

PHONE, ON_ITS_SIDE = {"width": 360, "height": 640}, {"width": 640, "height": 360}
SETTLED = "(v => v.mode !== 'play' || (!v.in_flight && v.falling.length === 0))(nim.view())"
PLAYERS_TURN = "(v => v.mode !== 'play' || (v.turn === 'player' && !v.running && !v.in_flight))(nim.view())"
NIMATRON_READY = "(v => v.mode !== 'play' || (v.turn === 'player' && !v.moving))(nim.view())"
# Where an element is on the screen, in CSS pixels: {x, y, width, height}.
BOX = "s => { const b = document.querySelector(s).getBoundingClientRect(); " \
      "return {x: b.x, y: b.y, width: b.width, height: b.height}; }"


@pytest.fixture(scope="module")
def phone_browser():
    with served_page(viewport=(PHONE["width"], PHONE["height"]), touch=True, reduced_motion="reduce") as served:
        yield served


@pytest.fixture
def phone(phone_browser):
    context, address, _ = phone_browser
    yield context, address
    spare_tabs(context)


def box(page, selector):
    return page.evaluate(BOX, selector)


def in_sight(page, selector):
    """Whether the whole of `selector` is on the screen as it is scrolled now (to a pixel: a scroll
    stops on a device pixel, a third of a CSS pixel here)."""
    seen = box(page, selector)
    size = page.viewport_size
    return seen["y"] >= -1 and seen["y"] + seen["height"] <= size["height"] + 1 and seen["x"] >= -1 \
        and seen["x"] + seen["width"] <= size["width"] + 1


def test_a_whole_dr_nim_game_by_touch_with_the_phone_turned_on_its_side_mid_game(phone):
    """On its side (640x360) the board was 521 px high: its rail and its trigger were never on the screen
    together, and a pupil scrolled between them at every marble. Now the whole board, with its drawn
    trigger and turn switch, fits the screen's height, turned mid-game, and the game goes on."""
    context, address = phone
    page = open_page(context, address + "?machine=drnim&seed=5&pace_ms=60&equalizer=false&first=player")
    page.tap("svg .drawn-control")
    page.wait_for_function(SETTLED)
    assert page.evaluate("nim.view().taken") == 1
    page.set_viewport_size(ON_ITS_SIDE)
    page.evaluate("document.querySelector('#board').scrollIntoView({block: 'nearest'})")
    assert in_sight(page, "svg.drnim"), box(page, "svg.drnim")
    assert page.evaluate("nim.view().taken") == 1
    while page.evaluate("nim.view().mode") == "play":
        assert in_sight(page, "svg .drawn-switch") and in_sight(page, "svg .drawn-control")
        page.tap("svg .drawn-switch")           # Dr. Nim's turn
        page.tap("svg .drawn-control")
        page.wait_for_function(PLAYERS_TURN)
        if page.evaluate("nim.view().mode") != "play":
            break
        page.tap("svg .drawn-switch")           # back to the pupil, who takes one
        page.tap("svg .drawn-control")
        page.wait_for_function(SETTLED)
    assert page.evaluate("nim.view().mode") == "over" and page.evaluate("nim.view().rail") == 0
    assert page.page_errors == [] and page.evaluate("nim.errors") == []


def test_a_whole_nimatron_game_by_touch_upright_and_on_its_side(phone):
    context, address = phone
    page = open_page(context, address + "?machine=nimatron&seed=3&think_ms=60&pace_ms=50&openings=2,3,5,7"
                     "&opening=first&first=player")
    turned = False
    while page.evaluate("nim.view().mode") == "play":
        rows = page.evaluate("nim.view().rows")
        page.tap("#control-row%d" % (next(i for i, lit in enumerate(rows) if lit) + 1))
        if page.evaluate("nim.view().mode") != "play":
            break
        if not turned:
            page.set_viewport_size(ON_ITS_SIDE)
            turned = True
        page.tap("#control-handover")
        page.wait_for_function(NIMATRON_READY)
    assert turned and page.evaluate("nim.view().rows") == [0, 0, 0, 0]
    assert page.page_errors == [] and page.evaluate("nim.errors") == []


def test_the_drawn_trigger_is_a_44_px_target_on_a_phone(phone):
    """The trigger drawn on the board, which a pupil taps, was 90x25 px on a 360 px phone."""
    context, address = phone
    page = open_page(context, address + "?machine=drnim&pace_ms=60&first=player")
    page.locator("svg .drawn-control").scroll_into_view_if_needed()
    target = box(page, "svg .drawn-control")
    assert target["width"] >= 44 and target["height"] >= 44, target
    page.touchscreen.tap(target["x"] + 3, target["y"] + 3)
    page.wait_for_function(SETTLED)
    assert page.evaluate("nim.view().taken") == 1


def test_a_tapped_button_does_not_stay_lit(phone):
    """A touch screen has no hover, but a tapped button kept the hover's lighter colour until the next tap
    elsewhere: the Nimatron's row just pressed, or Hand over, looked chosen."""
    context, address = phone
    page = open_page(context, address + "?machine=nimatron&openings=7,7,7,7&opening=first&first=player")
    page.tap("#control-row2")
    assert page.evaluate("nim.view().rows") == [7, 6, 7, 7]
    colours = page.evaluate("[1, 2, 3].map(n => getComputedStyle(document.querySelector('#control-row' + n))"
                            ".backgroundColor)")
    assert colours[0] == colours[1] == colours[2]


def test_pressing_the_drawn_trigger_twice_selects_none_of_the_boards_words(phone):
    """Two quick presses of the drawn trigger (a double click at the projector; a long press on a phone
    does the same) selected its word TRIGGER, drawn over the board in the selection's colour."""
    context, address = phone
    page = open_page(context, address + "?machine=drnim&pace_ms=60&first=player")
    page.locator("svg .drawn-control").scroll_into_view_if_needed()
    words = box(page, "svg .drawn-control text")
    page.mouse.dblclick(words["x"] + words["width"] / 2, words["y"] + words["height"] / 2)
    assert page.evaluate("getSelection().toString()") == ""


@contextlib.contextmanager
def loading(phone):
    """A Dr. Nim page whose MicroPython is held back, once it shows its languages: (the page, what lets the
    port come and waits until the page is ready)."""
    context, address = phone
    held = []
    page = context.new_page()
    context.own_tabs.append(page)

    def let_it_come():
        assert len(held) == 1 and not page.evaluate("nim.ready")
        held[0].continue_()
        page.wait_for_function("nim.ready")

    try:
        page.route("**/micropython.wasm", lambda route: held.append(route))
        page.goto(address + "?machine=drnim", wait_until="commit")
        page.wait_for_function("document.querySelectorAll('#languages button').length > 0")
        yield page, let_it_come
    finally:
        page.close()        # its route is not the next test's


def test_the_sound_button_answers_a_tap_while_micropython_loads(phone):
    """On a slow phone the page shows its first lines and the Sound button for seconds before the
    machine; a tap on Sound then did nothing, and the sound stayed on. Keys pressed meanwhile are
    let go, without an error."""
    with loading(phone) as (page, let_it_come):
        assert page.inner_text("#status") == "Starting MicroPython, which runs the machine in this page…"
        page.tap("#sound")
        page.keyboard.press("t")
        let_it_come()
        assert page.get_attribute("#sound", "aria-pressed") == "false" and page.inner_text("#sound") == "Sound: off"
        assert page.evaluate("nim.view().taken") == 0 and page.evaluate("nim.errors") == []


def test_the_header_stands_still_while_micropython_loads_and_a_machine_tapped_meanwhile_starts(phone):
    """The machines' buttons came seconds after the languages', once MicroPython was up, and the header
    grew under a pupil's finger: a tap meant for one button landed on the next. Now they come together,
    and the machine tapped while the page loads is the one that starts."""
    with loading(phone) as (page, let_it_come):
        header = box(page, "header")
        assert page.evaluate("[...document.querySelectorAll('#machines button')].map(b => b.value)") == \
            ["drnim", "nimatron"]
        page.tap("#machines button[value=nimatron]")
        let_it_come()
        assert box(page, "header") == header
        assert page.evaluate("nim.view().machine") == "nimatron"
        assert page.get_attribute("#machines button[value=nimatron]", "aria-pressed") == "true"
        assert page.evaluate("nim.errors") == []
