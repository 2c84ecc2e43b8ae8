"""A teacher's `controller web serve --bind 0.0.0.0` for a class: 30 pupils' Chromebooks, old iPads and
phones on the school's Wi-Fi opening the page in the same minute. What a class does that one visitor does
not: browsers that open connections ahead of their requests, and reloads. (bench/bench_class.py times a
class's load; these check what a pupil would notice.)"""

import contextlib
import socket
import urllib.error
import urllib.request

import pytest

from controller.language import language
from controller.web.browser import open_page
from test_web import other_device, served as web_served

PAGE = "<!doctype html><title>page</title>\n"
# What check.js says where the machines cannot run (web/check.js; its texts' context in the catalogs).
CHECK = "browser check"
TITLE = "The machines cannot run here"
WEBASSEMBLY_OFF = ("This browser does not run WebAssembly, which the machines need: it is turned off (on an iPhone or "
                   "iPad, by Lockdown Mode) or the browser is too old. Another browser or device plays them.")
TOO_OLD = ("This browser is too old to run the machines: they need Chrome or Edge 93, Safari 15.4 (on an iPhone or "
           "iPad, iOS 15.4) or Firefox 92, or newer.")
# What the page says when a language pressed does not come (web/page.js, cannotChangeLanguage).
NO_LANGUAGE = ("The page cannot switch to %(language)s right now: the computer it came from did not send the words. "
               "Keep playing, and try again in a while.")
# Texts of every part of a Dr. Nim page, and each as a language says it (texts_in).
TEXTS = """() => [document.title, ...['#page-title', '#machine-title', '#control-trigger', '#control-new_game',
    '#sound', '#working-title', '#settings-title', '#messages-title'].map((s) => document.querySelector(s).innerText),
    document.querySelector('#languages').getAttribute('aria-label')]"""
# Everything the page shows but the machine's words (#said and what it said) and the language buttons' state.
SHOWN = """() => [...document.querySelectorAll(
    'header, #exhibit > :not(#said), #working-panel, #settings-panel, footer')].map((part) => part.innerText)"""
PRESSED = """[...document.querySelectorAll('#languages button')].filter((b) => b.ariaPressed === 'true')
    .map((b) => b.value)"""
SETTLED = "(v => v.mode !== 'play' || (!v.in_flight && v.falling.length === 0))(nim.view())"


@contextlib.contextmanager
def served(folder, **options):
    """(the server, its address) of a folder holding a page, on a free port of localhost while the block runs."""
    (folder / "index.html").write_text(PAGE)
    with web_served(folder, **options) as (server, address):
        yield server, address + "/"


def test_connections_a_browser_opens_ahead_of_its_requests_keep_no_pupil_waiting(tmp_path, capfd):
    """Chromium opens two connections a load of the page that it sends nothing on (for requests it may
    make), and each held one of the server's threads until its timeout: 30 pupils' devices held all 32,
    and every pupil waited 10 s for the page instead of half a second (bench/bench_class.py). Here twice
    as many such connections as threads, a 30 s timeout, and a pupil's request is answered at once; a
    connection that sent nothing is closed after the timeout without a line in the log (it asked for
    nothing: before, each was a 'Request timed out' line in the teacher's terminal)."""
    devices = [other_device(number) for number in range(4)]    # other pupils'
    with served(tmp_path, timeout=30, threads=2, quiet=True) as (server, address):
        ahead = [socket.create_connection(server.server_address, timeout=30, source_address=(device, 0))
                 for device in devices]
        try:
            with urllib.request.urlopen(address, timeout=10) as reply:
                assert reply.read().decode() == PAGE
        finally:
            for connection in ahead:
                connection.close()
    capfd.readouterr()
    with served(tmp_path, timeout=0.2) as (server, address):
        with socket.create_connection(server.server_address, timeout=30) as ahead:
            assert ahead.recv(100) == b"", "the server closes a connection that sends nothing"
        with urllib.request.urlopen(address, timeout=10) as reply:
            assert reply.read().decode() == PAGE
    assert [line.split(" ", 2)[2] for line in capfd.readouterr().err.splitlines()] == ["GET / 200"]


def test_a_browser_asks_before_it_uses_its_copy_and_a_copy_that_has_not_changed_costs_no_bytes(tmp_path):
    """A class reloading the page fetches nothing again that has not changed: asked with the date of
    its copy, the server answers 304 with no body. And a browser asks each time (no-cache): without it,
    a browser ran a copy it deemed fresh (a tenth of the file's age: a day for a page built ten days
    before) without asking, so that once the teacher had built the page again, a pupil's tablet ran the
    old one, or the old page.js with the new core's files."""
    with served(tmp_path, quiet=True) as (_, address):
        with urllib.request.urlopen(address) as reply:
            assert reply.headers["Cache-Control"] == "no-cache"
            modified = reply.headers["Last-Modified"]
        with pytest.raises(urllib.error.HTTPError) as unchanged:
            urllib.request.urlopen(urllib.request.Request(address, headers={"If-Modified-Since": modified}))
    assert unchanged.value.code == 304 and unchanged.value.read() == b""
    assert unchanged.value.headers["Cache-Control"] == "no-cache"


def test_a_browser_that_cannot_run_the_machines_says_why_in_their_place(browser):
    """A pupil's device that cannot run the page: JavaScript off, WebAssembly off (an iPhone or iPad in
    Lockdown Mode), or a browser too old for the port and page.js (an old iPad's Safari, a Chromebook
    no longer updated; here one without Object.hasOwn). Each reads why where the machine would be, and
    sees no "Starting MicroPython…" nor buttons that do nothing. Before, JavaScript off left "Starting
    MicroPython…" on the page, its sentence at the foot, and the others read "The machine could not
    start: WebAssembly is not defined" or "...: Object.hasOwn is not a function"."""
    context, address, _ = browser
    cases = (("javascript", None, "please turn JavaScript on"), ("webassembly", "delete window.WebAssembly",
             "Lockdown Mode"), ("too old", "delete Object.hasOwn", "Safari 15.4 (on an iPhone or iPad, iOS 15.4)"))
    for case, script, said in cases:
        page = context.new_page()
        try:
            if script:
                page.add_init_script(script)
            else:
                context.new_cdp_session(page).send("Emulation.setScriptExecutionDisabled", {"value": True})
            page.goto(address)
            page.wait_for_function("(said) => document.querySelector('#exhibit').innerText.includes(said)",
                                   arg=said, timeout=15000) if script else None
            shown = page.evaluate("""() => [...document.querySelectorAll('#exhibit > *, header > *, aside')]
                .filter(el => el.checkVisibility() && el.innerText.trim()).map(el => el.innerText)""")
            exhibit = page.evaluate("[...document.querySelectorAll('#exhibit > *')].filter(el => el.innerText.trim()"
                                    " && el.checkVisibility()).map(el => el.innerText)")
            assert said in exhibit[1], (case, exhibit)      # under the heading, where the machine would be
            assert not any("Starting MicroPython" in text or "could not start" in text for text in shown), (case, shown)
            assert not any(text.startswith(("Sound", "Moving lamps", "Why the machine")) for text in shown), (case, shown)
        finally:
            page.close()


def test_a_browser_that_cannot_run_the_machines_says_why_in_the_visitor_s_language(browser):
    """A French, Dutch or German pupil whose school iPad is too old reads why in their own language,
    chosen as page.js chooses it: ?lang= first, else the browser's own language when the page offers it
    (not a kiosk's: its browser is the museum's), else the museum's first. Before, every pupil read English."""
    context, address, _ = browser
    cases = (("?lang=fr", "delete Object.hasOwn", "fr", TOO_OLD),       # ?lang= before the browser's Dutch
             ("", "delete window.WebAssembly", "nl", WEBASSEMBLY_OFF),   # the browser's first the page offers
             ("?kiosk=1", "delete window.WebAssembly", "en", WEBASSEMBLY_OFF))     # the museum's first
    for query, script, code, sentence in cases:
        page = context.new_page()
        try:
            page.add_init_script("Object.defineProperty(navigator, 'languages', {get: () => ['sv-SE', 'nl-BE']});"
                                 + script)
            page.goto(address + query)
            page.wait_for_function("document.documentElement.classList.contains('unable')", timeout=15000)
            title, said = language(code)._p(CHECK, TITLE), language(code)._p(CHECK, sentence)
            assert code == "en" or (title != TITLE and said != sentence), "%s: the catalog translates them" % code
            assert [page.inner_text("#machine-title"), page.inner_text("#status")] == [title, said], query
            assert page.get_attribute("#status", "lang") == code, query
        finally:
            page.close()


def texts_in(code):
    """TEXTS as a Dr. Nim page in language `code` shows them."""
    t = language(code)
    return [t._("The Amazing Dr. Nim"), t._("The Amazing Dr. Nim %(and)s the Nimatron") % {"and": t._("and")},
            t._("The Amazing Dr. Nim (1966)"), t._("Trigger"), t._("New game"), t._("Sound: on"),
            t._("Why the machine moved"), t._("Settings"), t._("What the machine said"), t._("Language")]


def notice_in(code, name):
    return language(code)._(NO_LANGUAGE) % {"language": name}


def said_and_listed(page):
    """What the live region says now, and every line of what the machine said."""
    return page.inner_text("#said"), page.evaluate(
        "[...document.querySelectorAll('#messages li')].map(li => li.innerText)")


def test_a_language_that_does_not_come_is_said_in_the_page_s_language_and_the_game_plays_on(browser):
    """A class plays on after the teacher's laptop went to sleep or `serve` stopped (README), but a pupil's press
    on Deutsch fetched a catalog that never came: nothing happened, not a word, and the page had an unhandled
    error. Now the page says so in its own language where the machine's words are (the live region and what the
    machine said), stays whole in it, with its buttons pressed as before, and plays on; once the server is back a
    press works and the notice goes. Two quick presses end in the second language, even when the first one's
    catalog comes (or fails) after the second's."""
    context, address, _ = browser
    page = open_page(context, address + "?machine=drnim&seed=3&pace_ms=60&lang=fr")
    try:
        page.keyboard.press("t")
        page.wait_for_function(SETTLED)
        shown = page.evaluate(SHOWN)
        assert page.evaluate(TEXTS) == texts_in("fr")
        page.route("**/language/de.json", lambda route: route.abort("connectionrefused"))     # the server gone
        page.click("#language-de")
        notice = notice_in("fr", "Deutsch")
        assert notice != notice_in("en", "Deutsch"), "the catalog translates it"
        page.wait_for_function("(notice) => document.querySelector('#said').textContent === notice", arg=notice,
                               timeout=10000)
        assert said_and_listed(page)[1][0] == notice
        assert page.evaluate(SHOWN) == shown and page.evaluate(TEXTS) == texts_in("fr")
        assert page.evaluate(PRESSED) == ["fr"] and page.evaluate("document.documentElement.lang") == "fr"
        page.click("#language-de")          # a second try: one notice, said again
        page.wait_for_function("(notice) => document.querySelector('#said').textContent === notice + '\u00a0'",
                               arg=notice)
        assert said_and_listed(page)[1].count(notice) == 1
        page.keyboard.press("t")
        page.wait_for_function(SETTLED)
        assert page.evaluate("nim.view().rail") == 13, "the game plays on"

        page.unroute("**/language/de.json")                 # the server back
        page.click("#language-de")
        page.wait_for_function("document.documentElement.lang === 'de'")
        assert page.evaluate(TEXTS) == texts_in("de") and page.evaluate(PRESSED) == ["de"]
        said, listed = said_and_listed(page)
        assert said == "" and not any("Deutsch" in line for line in listed), "the notice goes"
        assert page.evaluate("nim.view().rail") == 13

        held = []           # a slow answer for the first of two quick presses
        page.route("**/language/nl.json", lambda route: held.append(route))
        page.click("#language-nl")
        page.click("#language-es")
        page.wait_for_function("document.documentElement.lang === 'es'")
        with page.expect_event("requestfinished", lambda request: request.url.endswith("/nl.json")):
            held.pop().continue_()
        page.wait_for_timeout(300)
        assert page.evaluate("document.documentElement.lang") == "es", "the second press's language stays"
        assert page.evaluate(TEXTS) == texts_in("es") and page.evaluate(PRESSED) == ["es"]
        page.click("#language-nl")                          # a first press whose catalog fails after the second's came
        page.click("#language-fr")
        page.wait_for_function("document.documentElement.lang === 'fr'")
        with page.expect_event("requestfailed", lambda request: request.url.endswith("/nl.json")):
            held.pop().abort("connectionrefused")
        page.wait_for_timeout(300)
        assert page.evaluate(TEXTS) == texts_in("fr") and page.evaluate(PRESSED) == ["fr"]
        said, listed = said_and_listed(page)
        assert "Nederlands" not in said + "".join(listed), "no notice of a press given up"
        assert page.page_errors == [] and page.evaluate("nim.errors") == []
    finally:
        page.unroute_all()      # the tab is the next test's


@contextlib.contextmanager
def own_tab(context):
    """A new tab of its own for a test that changes it for good (a fake clock, a route), closed after it."""
    page = context.new_page()
    page.page_errors = []
    page.on("pageerror", lambda error: page.page_errors.append(str(error)))
    try:
        yield page
    finally:
        page.close()


def test_a_language_whose_server_does_not_answer_is_said_after_ten_seconds(browser):
    """A laptop gone to sleep answers nothing, and a browser waits minutes before it gives up on a request:
    the pupil's press on Español did nothing for that long. Ten seconds (on the page's clock, here a fake
    one), and the page says so in its language."""
    context, address, _ = browser
    with own_tab(context) as tab:
        tab.clock.install()
        page = open_page(context, address + "?machine=drnim&lang=nl", tab=tab)
        page.route("**/language/es.json", lambda route: None)      # held, never answered
        with page.expect_request("**/language/es.json"):
            page.click("#language-es")
        page.clock.run_for(9000)
        assert said_and_listed(page) == ("", [])
        page.clock.run_for(1500)
        notice = notice_in("nl", "Español")
        page.wait_for_function("(notice) => document.querySelector('#said').textContent === notice", arg=notice,
                               timeout=5000)
        assert page.evaluate(TEXTS) == texts_in("nl") and page.evaluate(PRESSED) == ["nl"]


def test_a_language_pressed_while_micropython_loads_is_the_whole_page_s(browser):
    """On a slow phone the language buttons come seconds before the machine: a pupil's press on Deutsch then
    left the heading ("Loading…", English whatever the language) and the line under it ("Démarrage de
    MicroPython…") in the language before, until the machine came."""
    context, address, _ = browser
    with own_tab(context) as page:
        held = []
        page.route("**/micropython.wasm", lambda route: held.append(route))
        page.goto(address + "?machine=drnim&lang=fr", wait_until="commit")
        page.wait_for_function("document.querySelectorAll('#languages button').length > 0")
        french, german = language("fr"), language("de")
        starting = "Starting MicroPython, which runs the machine in this page…"
        assert [page.inner_text("#machine-title"), page.inner_text("#status")] == [
            french._("Loading…"), french._(starting)]
        page.click("#language-de")
        page.wait_for_function("document.documentElement.lang === 'de'")
        assert [page.inner_text("#machine-title"), page.inner_text("#status")] == [
            german._("Loading…"), german._(starting)]
        assert german._("Loading…") != "Loading…"
        held.pop().continue_()
        page.wait_for_function("nim.ready")
        assert page.evaluate(TEXTS) == texts_in("de") and page.evaluate(PRESSED) == ["de"]
