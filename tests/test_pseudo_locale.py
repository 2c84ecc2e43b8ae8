"""Checked, not trusted: every screen of the page rendered in a pseudo-locale
(tests/pseudo_locale.py: every catalog text accented and 40 % longer, between ⟦ ⟧) shows no
English word that did not come through the catalogs, and (measured by Playwright) no text cut
off or overflowing its box; the simulator, the terminal game and the cards are checked the same
way in test_pseudo_shells.py. The page's language: ?lang=fr is French throughout, the language
buttons change it, and the kiosk goes back to the museum's first language for the next visitor. In the
right-to-left pseudo-locale (qpb) the page runs right to left and the machines' drawings do not."""

import pytest

from conftest import WEB_PORT_MISSING
from controller.cli import main
from controller.language import CODES, language
from controller.web.browser import missing, open_page

babel = pytest.importorskip("babel", reason="Babel (the test extra) reads the catalogs' template")

from pseudo_locale import english_left  # noqa: E402

BROWSER_MISSING = missing()
needs_browser = pytest.mark.skipif(BROWSER_MISSING is not None, reason=str(BROWSER_MISSING))
SETTLED = "(v => v.mode !== 'play' || (!v.in_flight && v.falling.length === 0))(nim.view())"
# A desktop's width and a phone's, px.
WIDTHS = (1024, 390)

# Every text the page shows, and every name a screen reader reads, but what is marked as another
# language (the language buttons, each in its own; the connection's technical log, in English).
VISIBLE = """() => {
  const words = [];
  const other = (el) => el.closest('[lang]') && el.closest('[lang]') !== document.documentElement;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || other(el) || el.closest('script, noscript')) continue;
    if (el.closest('svg') ? el.closest('svg').checkVisibility() : el.checkVisibility()) words.push(node.textContent);
  }
  for (const el of document.querySelectorAll('[aria-label]')) if (!other(el)) words.push(el.getAttribute('aria-label'));
  for (const el of document.querySelectorAll('[data-empty]')) if (el.checkVisibility() && !el.children.length) words.push(el.dataset.empty);
  words.push(document.title);
  return words.join('\\n');
}"""

# Text that runs out of its element's box or off the page, an element that clips what it holds, a
# drawn label outside its drawing: each as a line.
OVERFLOW = """() => {
  const bad = [], width = document.documentElement.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' ' + JSON.stringify(el.textContent.slice(0, 40));
  for (const el of document.querySelectorAll('body *')) {
    // text not seen (the live region's line while the kiosk's warning shows it in its banner) cannot overflow
    if (el instanceof SVGElement || !el.checkVisibility({opacityProperty: true})) continue;
    const box = el.getBoundingClientRect();
    for (const node of el.childNodes) {
      if (node.nodeType !== 3 || !node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        if (r.right > box.right + 1 || r.left < box.left - 1 || r.bottom > box.bottom + 1 || r.right > width + 1) {
          bad.push('text outside its box: ' + name(el));
        }
      }
    }
    const style = getComputedStyle(el);
    const clips = ['hidden', 'clip'].includes(style.overflowX) || ['hidden', 'clip'].includes(style.overflowY);
    if (clips && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)) bad.push('cut off: ' + name(el));
  }
  const measure = document.createElement('canvas').getContext('2d');
  for (const select of document.querySelectorAll('select')) {
    if (!select.checkVisibility()) continue;
    const style = getComputedStyle(select);
    measure.font = style.font;
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
    for (const option of select.options) {
      if (measure.measureText(option.text).width > room) bad.push('cut off: the choice ' + JSON.stringify(option.text));
    }
  }
  for (const text of document.querySelectorAll('svg text')) {
    const svg = text.ownerSVGElement;
    if (!svg.checkVisibility()) continue;
    const b = text.getBoundingClientRect(), outer = svg.getBoundingClientRect();
    if (b.left < outer.left - 1 || b.top < outer.top - 1 || b.right > outer.right + 1 || b.bottom > outer.bottom + 1) {
      bad.push('drawn text outside its drawing: ' + JSON.stringify(text.textContent));
    }
  }
  return [...new Set(bad)];
}"""


def check(page, where, problems):
    """What this screen shows that is English left over, or that overflows, into `problems`."""
    left = english_left(page.evaluate(VISIBLE))
    if left:
        problems.append("%s: English, not from the catalogs (web/page.js gives each text through _(), "
                        "then make catalogs; an opponent's name is page.js's choiceName): %s" % (where, ", ".join(left)))
    for line in page.evaluate(OVERFLOW):
        problems.append("%s: %s" % (where, line))


@needs_browser
def test_every_screen_of_the_page_in_the_pseudo_locale(browser):
    """At a desktop's width and a phone's, each screen (the page drawn again at the other width, as
    when a phone turns): Dr. Nim and the Nimatron from their first screen through a whole game, a
    fault, the kiosk, and the second screen's banner."""
    context, address, _ = browser
    problems = []

    def check_both(page, where):
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 768})
            check(page, "%s, %d px" % (where, width), problems)

    page = open_page(context, address + "?machine=drnim&seed=3&pace_ms=60&lang=qps")
    check_both(page, "Dr. Nim, first screen")
    page.keyboard.press("t")
    page.wait_for_function(SETTLED)
    page.keyboard.press("m")
    check_both(page, "Dr. Nim, handed over")
    page.keyboard.press("t")
    page.wait_for_function("(v => v.turn === 'player' && !v.running)(nim.view())")
    check_both(page, "Dr. Nim, after its turn")
    page.evaluate("nim.feed(['switch', 'equalizer', 'off'])")
    page.evaluate("nim.feed(['press', 'trigger']); nim.feed(['press', 'trigger']); nim.feed(['press', 'trigger'])")
    page.wait_for_function(SETTLED)
    check_both(page, "Dr. Nim, refusals")
    page.evaluate("nim.mp.runPython('import bridge\\nbridge.world.machine.hold_for_check()')")
    page.evaluate("nim.feed(['tick'])")
    check_both(page, "Dr. Nim, fault")
    page = open_page(context, address + "?machine=drnim&marbles=1&capacity=1&lang=qps", tab=page)
    page.keyboard.press("t")
    page.wait_for_function("nim.view().mode === 'over'")
    check_both(page, "Dr. Nim, game over")
    page = open_page(context, address + "?machine=nimatron&seed=3&think_ms=60000&pace_ms=50&lang=qps", tab=page)
    check_both(page, "Nimatron, first screen")
    page.keyboard.press("1")
    page.keyboard.press("2")
    check_both(page, "Nimatron, a refusal")
    page.keyboard.press("h")
    page.wait_for_function("nim.view().turn === 'machine'")
    check_both(page, "Nimatron, thinking")
    assert page.evaluate("nim.view().turn") == "machine"
    page = open_page(context, address + "?kiosk=1&machine=nimatron&idle_ms=300&lang=qps", tab=page)
    page.keyboard.press("1")
    page.wait_for_function("nim.view().attract", timeout=15000)
    check_both(page, "kiosk, attract")
    page = open_page(context, address + "?follow=hall-1&broker=ws://127.0.0.1:9/&lang=qps", tab=page)
    check_both(page, "second screen, no broker")
    assert problems == []


@needs_browser
def test_lang_fr_is_french_throughout_and_the_buttons_change_the_language(browser):
    """The buttons name each language in itself from what the build says: the page fetches the one
    catalog it shows, not every language's to read its name."""
    context, address, requests = browser
    page = open_page(context, address + "?machine=drnim&lang=fr")
    assert [url for url in requests if "/language/" in url and "messages" not in url] == [
        address + "language/fr.json", address + "language/fr.json"]     # a HEAD (is there one?), then the catalog
    assert page.evaluate("document.documentElement.lang") == "fr"
    assert page.inner_text("#page-title") == "L’étonnant Dr Nim et le Nimatron"
    assert page.inner_text("#control-trigger") == "Déclencheur"
    assert page.inner_text("#working li:first-child") == "La dernière bille perd, donc t = 1"
    assert page.get_attribute("#language-fr", "aria-pressed") == "true"
    assert page.get_attribute("#language-de", "lang") == "de" and page.inner_text("#language-de") == "Deutsch"
    assert page.inner_text("#language-fr") == "Français" and page.inner_text("#language-en") == "English"
    page.keyboard.press("t")
    page.wait_for_function(SETTLED)
    assert page.inner_text("#said") == "Vous avez lâché 1 bille. Il en reste 14."
    page.focus("#language-nl")
    page.keyboard.press("Enter")
    page.wait_for_function("document.documentElement.lang === 'nl'")
    assert page.inner_text("#control-trigger") == "Trekker"
    assert page.evaluate("nim.view().rail") == 14, "the game goes on in the new language"
    assert page.evaluate("document.activeElement.id") == "language-nl"


@needs_browser
def test_the_kiosk_goes_back_to_the_museums_first_language_for_the_next_visitor(browser):
    """The museum's first language here is written right to left (the pseudo-locale qpb, as Hebrew would be):
    the next visitor finds the page right to left again after a tourist's Spanish."""
    context, address, _ = browser
    page = open_page(context, address + "?kiosk=1&machine=drnim&idle_ms=400&warn_ms=300&lang=qpb")
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ar-XB", "rtl"]
    page.click("#language-es")
    page.wait_for_function("document.documentElement.lang === 'es'")
    assert page.evaluate("document.documentElement.dir") == "ltr"
    page.keyboard.press("t")
    page.wait_for_function("nim.view().attract && nim.view().taken === 0", timeout=15000)
    page.wait_for_function("document.documentElement.lang === 'ar-XB'")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.inner_text("#control-trigger") == "\u200f\u202eTrigger\u202c\u200f"


def test_a_translator_puts_the_pseudo_locales_into_a_built_page_to_see_them(tmp_path, capsys):
    """DEVELOPERS.md, "A new language": python tests/pseudo_locale.py build/web, then ?lang=qpb."""
    import json
    from pseudo_locale import main as pseudo_main
    assert pseudo_main([str(tmp_path)]) == 1
    assert capsys.readouterr().err == "%s is not a built page's: run controller web build first\n" % tmp_path
    (tmp_path / "language").mkdir()
    assert pseudo_main([str(tmp_path)]) == 0
    catalogs = [json.loads((tmp_path / "language" / name).read_text(encoding="utf-8"))
                for name in ("qps.json", "qpb.json")]
    assert [(catalog["code"], catalog["dir"]) for catalog in catalogs] == [("qps", "ltr"), ("qpb", "rtl")]


def test_the_build_offers_the_configured_languages(tmp_path, monkeypatch):
    """`controller web build --config` offers [exhibit] language, the museum's first first."""
    import json
    import re
    from controller.web import build as web_build
    if not web_build.runtime_ready():
        pytest.skip(WEB_PORT_MISSING)
    config = tmp_path / "config.toml"
    config.write_text('[exhibit]\nlanguage = ["nl", "fr"]\n')
    assert main(["web", "build", "--out", str(tmp_path / "page"), "--config", str(config)]) == 0
    files = json.loads((tmp_path / "page" / "files.json").read_text())
    assert files["languages"] == ["nl", "fr"]
    assert sorted(p.name for p in (tmp_path / "page" / "language").iterdir()) == sorted(
        [code + ".json" for code in CODES] + ["messages.json"]), "every language's texts, and the messages"
    # check.js, which fetches nothing, finds the same in index.html, with its three texts in every language
    page = (tmp_path / "page" / "index.html").read_text(encoding="utf-8")
    check = json.loads(re.search(r'<script type="application/json" id="check-languages">(.*?)</script>', page).group(1))
    assert check["offered"] == ["nl", "fr"] and sorted(check["catalogs"]) == sorted(CODES)
    assert [len(check["catalogs"][code]["texts"]) for code in CODES[1:]] == [3] * (len(CODES) - 1)


# Where each element is drawn, by the window's left edge: {selector: [left, right]}.
PLACES = """(selectors) => Object.fromEntries(selectors.map((s) => {
  const box = document.querySelector(s).getBoundingClientRect();
  return [s, [box.left, box.right]];
}))"""
NIMATRON_PLAYS = "(v => v.mode !== 'play' || (v.turn === 'player' && !v.moving))(nim.view())"


@needs_browser
def test_a_language_written_right_to_left_turns_the_page_but_not_the_machine(browser):
    """In the right-to-left pseudo-locale (tests/pseudo_locale.py, qpb: as Arabic, Hebrew or Persian would
    be) the page runs right to left: the heading at the right, the controls in mirrored order, the
    language buttons each written its own way, the English connection log still left to right. The
    Nimatron's row buttons stay left of their lamps and Dr. Nim's drawn words stay beside their levers, as
    on the machines; a whole game plays by keys; English, chosen again, turns the page back."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=nimatron&seed=3&think_ms=60&pace_ms=50&lang=qpb")
    assert page.evaluate("[document.documentElement.dir, document.documentElement.lang]") == ["rtl", "ar-XB"]
    width = page.evaluate("document.documentElement.clientWidth")
    places = page.evaluate(PLACES, ["#page-title", "#control-handover", "#control-new_game", "#control-row1",
                                    "#board .bulbs"])
    assert places["#page-title"][1] > width - 40, "the heading starts at the right"
    assert page.evaluate("[...document.querySelectorAll('#controls button')].map(b => b.id)")[:2] == [
        "control-handover", "control-new_game"]
    assert places["#control-handover"][0] > places["#control-new_game"][1], "the first control is the rightmost"
    assert places["#control-row1"][1] <= places["#board .bulbs"][0], "a row's button stays left of its lamps"
    assert page.evaluate("[...document.querySelectorAll('#languages button')].map(b => b.dir + ' ' + b.lang)") == [
        "rtl ar-XB"] + ["%s %s" % (language(code).direction, code) for code in CODES]
    assert page.evaluate("getComputedStyle(document.querySelector('#log')).direction") == "ltr"
    while page.evaluate("nim.view().mode") == "play":
        rows = page.evaluate("nim.view().rows")
        page.keyboard.press(str(next(i for i, lit in enumerate(rows) if lit) + 1))
        if page.evaluate("nim.view().mode") != "play":
            break
        page.keyboard.press("h")
        page.wait_for_function(NIMATRON_PLAYS)
    assert page.evaluate("nim.view().mode") == "over" and not any(page.evaluate("nim.view().rows"))
    assert "\u202e" in page.inner_text("#status"), "the verdict in the pseudo-locale"
    page.click("#machines button[value=drnim]")
    page.wait_for_function("nim.view().machine === 'drnim'")
    # the words "Dr. Nim" end at x = 180, left of the turn switch (x = 200), however the page runs
    assert page.evaluate("(b => b.x + b.width)(document.querySelector('#board text.side').getBBox())") <= 181
    page.click("#language-en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.evaluate("document.documentElement.dir") == "ltr"
    places = page.evaluate(PLACES, ["#control-trigger", "#control-new_game"])
    assert places["#control-trigger"][1] < places["#control-new_game"][0]
    assert page.page_errors == [] and page.evaluate("nim.errors") == []


# Where the broker's address begins (its "w") and ends (its "/") on the second screen's banner, px from the left.
ADDRESS_ENDS = """() => {
  const node = document.querySelector('#follow-status').firstChild, text = node.textContent;
  const left = (at) => { const range = document.createRange(); range.setStart(node, at); range.setEnd(node, at + 1);
                         return range.getBoundingClientRect().left; };
  const start = text.indexOf('ws://');
  return [left(start), left(text.indexOf('/', start + 5))];
}"""


@needs_browser
def test_a_second_screen_written_right_to_left_keeps_the_brokers_address_whole(browser):
    """A museum's staff read which broker a second screen cannot reach: in a sentence written right to left
    the address's closing slash went to its far side (/ws://127.0.0.1:9)."""
    context, address, _ = browser
    page = open_page(context, address + "?follow=hall-1&broker=ws://127.0.0.1:9/&lang=qpb")
    page.wait_for_function("document.querySelector('#follow-status').dataset.link === 'unreachable'", timeout=15000)
    start, slash = page.evaluate(ADDRESS_ENDS)
    assert start < slash, page.inner_text("#follow-status")
