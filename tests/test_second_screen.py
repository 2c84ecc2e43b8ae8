"""Issue 28: a second screen beside the physical machine. The page follows a real
exhibit's game through the museum's broker, with the real parts: Debian's
mosquitto with a WebSockets listener (tests/broker_rig.py), the service on
gpiozero's mock pins with telemetry on (the simulator's world of marbles
around it, or `controller run` as a process that can be killed), and the
built page in Debian's Chromium. Each test has its own topic prefix.

Skipped, with the reason, when mosquitto, Chromium, Playwright or the npm
packages are missing (.ci/run installs them all).
"""

import datetime
import json
import random
import re
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from broker_rig import Broker, find_mosquitto, free_port, wait_until, MISSING
from controller.language import language
from controller.sim.autoplay import autoplay
from controller.sim.engine import Simulation
from controller.telemetry.settings import check_telemetry
from controller.web.browser import missing, open_page
from page_checks import MISSING as AXE_MISSING, PALETTES, colour_faults, violations
from service_rig import write_config

ENGLISH = language("en")
ROOT = Path(__file__).resolve().parent.parent
BROWSER_MISSING = missing()
pytestmark = [pytest.mark.skipif(BROWSER_MISSING is not None, reason=str(BROWSER_MISSING)),
              pytest.mark.skipif(find_mosquitto() is None, reason=MISSING)]
# Generous: the machine running the tests may be slow and busy.
TIMEOUT_MS = 20000


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    broker = Broker(tmp_path_factory.mktemp("broker"), websockets=True)
    yield broker
    broker.stop()


def prefix():
    return "screen-" + uuid.uuid4().hex[:8]


def telemetry(broker, topics, name="hall-1", **more):
    return check_telemetry("test", dict({"enabled": True, "host": "127.0.0.1", "port": broker.port,
                                         "client_id": name, "topic_prefix": topics, "heartbeat_s": 5}, **more))


def exhibit(broker, tmp_path, topics, machine="drnim", **settings):
    """The service on mock pins, reporting to the broker, once it is connected."""
    sim = Simulation(machine, settings, telemetry=telemetry(broker, topics), state_dir=str(tmp_path / "exhibit"))
    wait_until(lambda: sim.service.telemetry.connected, 10, "the exhibit connected to the broker")
    return sim


def screen(browser, broker, topics, more=""):
    """The built page following hall-1, once it has drawn the exhibit's machine."""
    context, address, requests = browser
    page = open_page(context, "%s?follow=hall-1&prefix=%s&broker=%s%s" % (address, topics, broker.ws_address, more))
    page.wait_for_function("nim.view && nim.view() !== null", timeout=TIMEOUT_MS)
    return page


def follows(page, sim):
    """Wait until the page shows the exhibit's game as it stands: the same turns, mode and working
    (a page that has no game yet, nim.view() null, is waited for: on a busy machine the exhibit's
    first state can come after the wait begins)."""
    machine = sim.machine
    wanted = {"turns": machine.turns, "mode": machine.mode, "winner": machine.winner,
              "working": [list(line) for line in machine.explain()]}
    # the working's values are tables, whose keys each runtime orders its own way: compared sorted
    page.wait_for_function("wanted => { const v = nim.view(); const same = (x) => JSON.stringify(x, (k, y) => "
                           "y && typeof y === 'object' && !Array.isArray(y) ? Object.fromEntries(Object.entries(y)"
                           ".sort()) : y); return v !== null && same([v.turns, v.mode, v.winner, v.working]) === "
                           "same([wanted.turns, wanted.mode, wanted.winner, wanted.working]) }",
                           arg=wanted, timeout=TIMEOUT_MS)


def same_face(page, sim):
    """What the page draws is what the mock pins show: the lamps, the flip-flops or the rows, the
    rail, the working, the verdict."""
    machine = sim.machine
    outputs = page.evaluate("nim.outputs()")
    for name, state in sim.lamps().items():
        if state != "blink":
            assert outputs["lamp/" + name] == state, name
        assert page.get_attribute("#lamps li:nth-child(%d)" % (list(sim.lamps()).index(name) + 1), "class") \
            == "lamp " + outputs["lamp/" + name]
    if machine.NAME == "drnim":
        for role in ("flip_flop_1", "flip_flop_2", "flip_flop_3", "equalizer", "turn"):
            assert outputs[role.replace("flip_flop_", "flip_flop/")] == sim.side(role), role
        assert "Rail: %d marble" % machine.rail in page.text_content("#board-desc")
        assert page.evaluate("nim.view().tray") == machine.taken
    else:
        assert [outputs["row/%d" % (i + 1)] for i in range(4)] == sim.rows() == machine.rows
        labels = [page.get_attribute("#board .row:nth-child(%d) .bulbs" % (i + 1), "aria-label") for i in range(4)]
        assert labels == ["row %d: %d of 7 lamps lit" % (i + 1, lit) for i, lit in enumerate(machine.rows)]
    assert page.locator("#working li").all_inner_texts() == [ENGLISH.line(line) for line in machine.explain()]
    if machine.mode == "over":
        assert ENGLISH.message(machine.verdict()) in page.inner_text("#status")


def clean(page, address):
    """No error on the page, and nothing asked of anything but its own folder and the broker."""
    assert page.page_errors == [] and page.evaluate("nim.errors") == []


def own_folder_only(requests, address):
    outside = [url for url in requests if not url.startswith((address, "data:", "blob:" + address))]
    assert outside == []


def test_a_whole_dr_nim_game_pressed_on_the_pins_appears_on_the_page(broker, browser, tmp_path):
    topics = prefix()
    sim = exhibit(broker, tmp_path, topics)
    try:
        page = screen(browser, broker, topics)
        assert page.get_attribute("#follow-status", "data-link") == "live"
        assert page.is_hidden("#controls") and page.is_hidden("#settings-panel")
        follows(page, sim)
        same_face(page, sim)
        # the visitor takes two, hands over; Dr. Nim plays its marbles: the page shows each step
        for _ in range(2):
            sim.press("trigger")
            sim.settle()
        follows(page, sim)
        same_face(page, sim)
        assert page.evaluate("nim.view().rail") == 13
        summary = autoplay(sim, 1, "novice", seed=5)
        assert summary["unfinished"] == 0
        follows(page, sim)
        same_face(page, sim)
        assert page.evaluate("nim.view().mode") == "over" and sum(n for _, n in sim.machine.turns) == 15
        lamp = "drnim_wins" if sim.machine.winner == "machine" else "you_win"
        assert page.evaluate("nim.outputs()")["lamp/" + lamp] == "on"
        said = page.locator("#messages li").all_inner_texts()
        assert said[0] == ENGLISH.message(sim.machine.verdict())
        assert not [line for line in page.evaluate("nim.log") if line.startswith("ignored")]
        clean(page, browser[1])
        own_folder_only(browser[2], browser[1])
    finally:
        sim.close()


def test_a_whole_nimatron_game_appears_on_the_kiosk(broker, browser, tmp_path):
    topics = prefix()
    sim = exhibit(broker, tmp_path, topics, "nimatron", think_ms=300, pace_ms=100)
    try:
        page = screen(browser, broker, topics, "&kiosk=1&idle_ms=1000")
        assert page.is_visible("#follow-status") and page.is_hidden("#settings-panel")
        assert page.evaluate("document.documentElement.classList.contains('kiosk')")
        follows(page, sim)
        same_face(page, sim)
        sim.press("row4")
        sim.press("row4")
        follows(page, sim)
        assert page.evaluate("nim.view().row") == 3 and page.evaluate("nim.outputs()")["row/4"] == sim.rows()[3]
        sim.press("handover")
        sim.settle()
        follows(page, sim)
        same_face(page, sim)
        summary = autoplay(sim, 1, "novice", seed=2)
        assert summary["unfinished"] == 0
        follows(page, sim)
        same_face(page, sim)
        assert sim.machine.rows == [0, 0, 0, 0]
        champ = sim.machine.winner == "player"
        assert page.evaluate("nim.outputs()")["lamp/" + ("nim_champ" if champ else "machine_wins")] == "on"
        clean(page, browser[1])
    finally:
        sim.close()


def test_a_page_started_in_the_middle_of_a_game_shows_the_game_so_far(broker, browser, tmp_path):
    topics = prefix()
    sim = exhibit(broker, tmp_path, topics, equalizer=False)
    try:
        sim.press("trigger")
        sim.settle()
        sim.set_switch("turn_switch", True)
        sim.press("trigger")
        sim.settle()
        sim.set_switch("turn_switch", False)
        assert len(sim.machine.turns) == 2
        page = screen(browser, broker, topics)
        follows(page, sim)
        same_face(page, sim)
        assert page.evaluate("nim.view().turns") == sim.machine.turns
        autoplay(sim, 1, "perfect", seed=1)
        follows(page, sim)
        same_face(page, sim)
        clean(page, browser[1])
    finally:
        sim.close()


def test_a_broker_restart_and_an_exhibit_restart_are_followed(broker, browser, tmp_path):
    topics = prefix()
    sim = exhibit(broker, tmp_path, topics)
    try:
        page = screen(browser, broker, topics)
        sim.press("trigger")
        sim.settle()
        follows(page, sim)
        broker.stop()
        page.wait_for_function("document.querySelector('#follow-status').dataset.link === 'reconnecting'",
                               timeout=TIMEOUT_MS)
        assert "reconnecting" in page.inner_text("#follow-status")
        sim.press("trigger")            # played while the broker is away: the page catches up from the state
        sim.settle()
        broker.start()
        wait_until(lambda: sim.service.telemetry.connected, 20, "the exhibit back on the broker")
        page.wait_for_function("document.querySelector('#follow-status').dataset.link === 'live'", timeout=TIMEOUT_MS)
        follows(page, sim)
        same_face(page, sim)
        assert page.evaluate("nim.view().rail") == 13

        sim.restart()                   # the service stops (its goodbye: offline) and starts again
        wait_until(lambda: sim.service.telemetry.connected, 10, "the exhibit back")
        page.wait_for_function("document.querySelector('#follow-status').dataset.online === 'true'",
                               timeout=TIMEOUT_MS)
        assert "went offline" in page.evaluate("nim.log").__str__()
        sim.press("trigger")
        sim.settle()
        follows(page, sim)
        same_face(page, sim)
        assert page.evaluate("nim.view().rail") == 12
        clean(page, browser[1])
    finally:
        sim.close()


def test_a_screen_started_before_its_broker_says_so_and_follows_once_the_broker_is_up(browser, tmp_path):
    """The technician's kiosk comes up before the museum's broker: the banner said "reconnecting" to a
    broker it had never reached; it says which address it cannot reach, and that it keeps trying, in one
    sentence (not "trying again…."), and the connection panel says so once."""
    topics = prefix()
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker", websockets=True)
    broker.stop()
    context, address, _ = browser
    try:
        page = open_page(context, "%s?follow=hall-1&prefix=%s&broker=%s" % (address, topics, broker.ws_address))
        page.wait_for_function("document.querySelector('#follow-status').dataset.link === 'unreachable'",
                               timeout=TIMEOUT_MS)
        assert page.inner_text("#follow-status") == \
            "Following hall-1: cannot reach the broker at %s, trying again…" % broker.ws_address
        assert page.evaluate("nim.log") == ["no answer from %s: trying again every 2 s" % broker.ws_address]
        broker.start()
        sim = exhibit(broker, tmp_path, topics)
        try:
            page.wait_for_function("nim.view && nim.view() !== null", timeout=TIMEOUT_MS)
            follows(page, sim)
            same_face(page, sim)
            clean(page, address)
        finally:
            sim.close()
    finally:
        broker.stop()


def test_a_kiosk_given_a_wrong_broker_address_shows_the_address_it_cannot_reach(browser):
    """A kiosk shows no connection panel: with a typo in its broker's address it said only
    "reconnecting…", and the technician could not tell a wrong address from a broker that is down."""
    context, address, _ = browser
    wrong = "ws://127.0.0.1:%d/" % free_port()
    page = open_page(context, "%s?follow=hall-1&broker=%s&kiosk=1&lang=de" % (address, wrong))
    page.wait_for_function("document.querySelector('#follow-status').dataset.link === 'unreachable'",
                           timeout=TIMEOUT_MS)
    assert page.is_hidden("#log-panel") and page.is_visible("#follow-status")
    assert page.inner_text("#follow-status") == \
        "Folgt hall-1: Broker unter %s nicht erreichbar, neuer Versuch …" % wrong
    clean(page, address)


def test_a_password_written_into_the_broker_s_address_is_never_shown(browser):
    """A broker address with its log-in written into it (ws://screen:secret@host/, as a browser takes
    one) was shown whole on the kiosk's banner while the broker could not be reached, and in the
    connection's log: any visitor beside the screen read the broker's password. Both show the
    address without it."""
    context, address, _ = browser
    port = free_port()
    page = open_page(context, "%s?follow=hall-1&broker=ws://screen:hunter2@127.0.0.1:%d/" % (address, port))
    page.wait_for_function("document.querySelector('#follow-status').dataset.link === 'unreachable'",
                           timeout=TIMEOUT_MS)
    assert "cannot reach the broker at ws://127.0.0.1:%d/," % port in page.inner_text("#follow-status")
    shown = page.inner_text("body") + "\n".join(page.evaluate("nim.log"))
    assert "hunter2" not in shown and "screen:" not in shown
    clean(page, address)


def test_a_kiosk_keeps_the_visitors_language_while_the_exhibit_rests_mid_game(broker, browser, tmp_path):
    """A visitor beside the exhibit chooses French on the screen and stops to think in the middle of
    the game: the exhibit rests (its idle time passes without a press), and the screen went back to
    the museum's language under the visitor's eyes. It stays in French for the game, and is in the
    museum's language for the next visitor once the game is over and the exhibit rests, as a kiosk
    that plays is."""
    topics = prefix()
    sim = exhibit(broker, tmp_path, topics, idle_ms=1000, attract_after_game_ms=1000)
    try:
        page = screen(browser, broker, topics, "&kiosk=1&lang=de")
        page.wait_for_function("nim.view().attract", timeout=TIMEOUT_MS)
        page.click("#language-fr")
        page.wait_for_function("document.documentElement.lang === 'fr'", timeout=TIMEOUT_MS)
        page.evaluate("window.languages = []; new MutationObserver(() => languages.push(document.documentElement.lang))"
                      ".observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] })")
        drawn = page.evaluate("nim.drawn.length")
        sim.press("trigger")
        sim.settle()
        page.wait_for_function("n => nim.drawn.length > n", arg=drawn, timeout=TIMEOUT_MS)
        # the visitor thinks, and the exhibit rests in the middle of the game (its idle second passes)
        sim.advance(1500)
        assert sim.machine.attract and sim.machine.mode == "play"
        page.wait_for_function("nim.view().attract", timeout=TIMEOUT_MS)
        assert page.evaluate("nim.view().mode") == "play" and page.evaluate("nim.view().turn_taken") == 1
        page.wait_for_timeout(1000)     # a language going back comes in a few milliseconds (its catalog, fetched)
        assert page.evaluate("languages") == []
        assert page.inner_text("#follow-status").startswith("Suivi de hall-1")
        summary = autoplay(sim, 1, "novice", seed=5)
        assert summary["unfinished"] == 0
        follows(page, sim)
        page.wait_for_function("nim.view().attract && document.documentElement.lang === 'de'", timeout=TIMEOUT_MS)
        assert page.evaluate("nim.view().mode") == "over" and set(page.evaluate("languages")) == {"de"}
        assert page.inner_text("#follow-status").startswith("Folgt hall-1")
        clean(page, browser[1])
    finally:
        sim.close()


def test_the_time_an_exhibit_went_offline_is_in_the_screens_language(broker, browser, tmp_path):
    """A German screen on a browser set to American English said "seit 11:17 PM"."""
    topics = prefix()
    sim = exhibit(broker, tmp_path, topics)
    try:
        page = screen(browser, broker, topics, "&lang=de")
        follows(page, sim)
    finally:
        sim.close()
    page.wait_for_function("document.querySelector('#follow-status').dataset.online === 'false'", timeout=TIMEOUT_MS)
    assert re.search(r"offline \(seit \d\d:\d\d\)", page.inner_text("#follow-status")), page.inner_text("#follow-status")
    page.click("#language-fr")
    page.wait_for_function("document.querySelector('#follow-status').innerText.startsWith('Suivi')", timeout=TIMEOUT_MS)
    assert re.search(r"depuis \d\d:\d\d\)", page.inner_text("#follow-status")), page.inner_text("#follow-status")
    clean(page, browser[1])


def stranger(broker, topics):
    """A client of the broker's own, connected: it publishes what a test needs on the exhibit's topics."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="stranger-" + topics)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    return client


def status(client, topics, retain=True, **fields):
    """hall-1's status, as its service publishes it."""
    payload = dict({"v": 1, "exhibit": "hall-1", "machine": "drnim"}, **fields)
    client.publish("%s/hall-1/status" % topics, json.dumps(payload), qos=1, retain=retain).wait_for_publish(5)


def test_an_exhibit_offline_since_another_day_is_shown_with_the_date(broker, browser):
    """After a night offline, "since 18:02" could be yesterday's or today's: a time of another day
    comes with its date, in the screen's language."""
    topics = prefix()
    client = stranger(broker, topics)
    try:
        status(client, topics, online=False, at=datetime.datetime(2024, 3, 5, 12, tzinfo=datetime.timezone.utc)
               .timestamp())
        context, address, _ = browser
        page = open_page(context, "%s?follow=hall-1&prefix=%s&broker=%s&lang=de" % (address, topics, broker.ws_address))
        page.wait_for_function("document.querySelector('#follow-status').dataset.online === 'false'",
                               timeout=TIMEOUT_MS)
        banner = page.inner_text("#follow-status")
        assert re.search(r"offline \(seit 5\. März 2024 um \d\d:\d\d\)", banner), banner
        page.click("#language-en")
        page.wait_for_function("document.documentElement.lang === 'en'")
        banner = page.inner_text("#follow-status")
        assert re.search(r"offline \(since March 5, 2024 at \d\d:\d\d [AP]M\)", banner), banner
        clean(page, address)
    finally:
        client.loop_stop()
        client.disconnect()


def test_the_banner_is_said_once_not_again_at_each_heartbeat(broker, browser):
    """The banner is a live region: written again with the same words at each of the exhibit's heartbeats
    (a status a minute), it had a screen reader say "Following hall-1: live." again and again."""
    topics = prefix()
    client = stranger(broker, topics)
    try:
        context, address, _ = browser
        page = open_page(context, "%s?follow=hall-1&prefix=%s&broker=%s" % (address, topics, broker.ws_address))
        status(client, topics, online=True, at=1)
        page.wait_for_function("document.querySelector('#follow-status').dataset.online === 'true'",
                               timeout=TIMEOUT_MS)
        page.evaluate("window.written = []; new MutationObserver(() => written.push(document.querySelector("
                      "'#follow-status').textContent)).observe(document.querySelector('#follow-status'), "
                      "{childList: true, characterData: true, subtree: true})")
        for beat in range(2, 5):
            status(client, topics, retain=False, online=True, at=beat)
        client.publish("%s/hall-1/live/event" % topics, b"", qos=1).wait_for_publish(5)
        page.wait_for_function("nim.log.includes(\"the exhibit's live event was cleared\")", timeout=TIMEOUT_MS)
        assert page.evaluate("written") == []
        clean(page, address)
    finally:
        client.loop_stop()
        client.disconnect()


def test_a_screen_waiting_for_the_exhibits_game_changes_its_language_throughout(broker, browser):
    """A visitor chose Deutsch while the screen waited for the exhibit's first game: the banner changed,
    but the heading and the line under it stayed English."""
    context, address, _ = browser
    page = open_page(context, "%s?follow=hall-1&prefix=%s&broker=%s&lang=en" % (address, prefix(), broker.ws_address))
    page.wait_for_function("document.querySelector('#follow-status').dataset.link === 'live'", timeout=TIMEOUT_MS)
    assert page.inner_text("#status") == "Waiting for the exhibit's game…"
    page.click("#language-de")
    page.wait_for_function("document.documentElement.lang === 'de'")
    assert page.inner_text("#machine-title") == "Folgt hall-1"
    assert page.inner_text("#status") == "Warten auf das Spiel des Exponats …"
    assert page.inner_text("#follow-status") == "Folgt hall-1: live. Warten auf das Spiel des Exponats …"
    clean(page, address)


def test_an_exhibit_killed_is_shown_offline_by_its_last_will_and_followed_again(broker, browser, tmp_path):
    topics = prefix()
    config = write_config(tmp_path, "drnim")
    config.write_text(config.read_text().replace("[service]", "[service]\nheartbeat_s = 1") +
                      '[telemetry]\nenabled = true\nhost = "127.0.0.1"\nport = %d\nclient_id = "hall-1"\n'
                      'topic_prefix = "%s"\n' % (broker.port, topics))

    def run():
        return subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    process = run()
    try:
        page = screen(browser, broker, topics)
        page.wait_for_function("document.querySelector('#follow-status').dataset.online === 'true'",
                               timeout=TIMEOUT_MS)
        assert page.evaluate("nim.view().mode") == "play" and page.evaluate("nim.view().rail") == 15
        first_run = page.evaluate("nim.follow")
        process.send_signal(signal.SIGKILL)     # a crash, a pulled plug: no goodbye, the broker sends the will
        process.wait(10)
        page.wait_for_function("document.querySelector('#follow-status').dataset.online === 'false'",
                               timeout=TIMEOUT_MS)
        # the will has no time: the screen, which got it as the exhibit went, says when that was
        assert re.search(r"The exhibit is offline \(since \d", page.inner_text("#follow-status")), \
            page.inner_text("#follow-status")
        assert page.evaluate("nim.view().rail") == 15       # its last game stays on the screen
        process = run()
        page.wait_for_function("document.querySelector('#follow-status').dataset.online === 'true'",
                               timeout=TIMEOUT_MS)
        assert "The exhibit is offline" not in page.inner_text("#follow-status")
        assert first_run["state"] == "live"
        clean(page, browser[1])
    finally:
        process.kill()
        process.wait(10)


def test_a_strangers_hostile_messages_do_not_stop_the_page(broker, browser, tmp_path):
    """bench/fuzz.py's hostile payloads (the fleet's set and the live game's, damaged: JSON's NaN and
    Infinity, numbers beyond 64 bits, lone surrogates, escape sequences, missing and fat fields), and
    bytes that are no text, too many of them or none, published on the topics the page follows: each
    is ignored with one line in its log, and the page follows the exhibit's next game."""
    sys.path.insert(0, str(ROOT / "bench"))
    import fuzz
    topics = prefix()
    sim = exhibit(broker, tmp_path, topics)
    client = stranger(broker, topics)
    try:
        page = screen(browser, broker, topics)
        follows(page, sim)
        rng = random.Random(28)
        seeds = fuzz.fleet_seeds() + fuzz.live_seeds()
        messages = [fuzz.mutate_payload(rng, rng.choice(seeds)) for _ in range(300)]
        messages += [("live/state", b"\xff\xfe not UTF-8"), ("live/event", b"x" * 20000),
                     ("live/event", b"[" * 16000), ("live/state", json.dumps({"v": 1, "exhibit": "hall-1"}).encode()),
                     ("status", b'{"v": 1, "exhibit": "hall-1", "online": false, "at": 1e999}')]
        for name, raw in messages:
            # each on one of the page's own topics: a live message on its own, the others on any
            kinds = [kind for kind in ("live/state", "live/event") if name.endswith(kind)]
            kind = name if name == "status" else kinds[0] if kinds else rng.choice(["status", "live/state",
                                                                                    "live/event"])
            client.publish("%s/hall-1/%s" % (topics, kind), raw, qos=1, retain=rng.random() < 0.2).wait_for_publish(5)
        page.wait_for_function("nim.log.filter(line => line.startsWith('ignored')).length >= 100", timeout=TIMEOUT_MS)
        autoplay(sim, 1, "novice", seed=8)
        follows(page, sim)
        same_face(page, sim)
        page.wait_for_function("document.querySelector('#follow-status').dataset.online === 'true'",
                               timeout=TIMEOUT_MS)
        log = page.evaluate("nim.log")
        assert all("\n" not in line and len(line) <= 300 for line in log)
        assert page.locator("#log li").count() <= 30
        clean(page, browser[1])
    finally:
        client.loop_stop()
        client.disconnect()
        sim.close()


def test_a_read_only_user_follows_and_the_page_never_publishes(browser, tmp_path):
    """The README's advice (its ACL, as it is written there): the screens log in as a user the
    broker lets read and nothing else. The page follows with it, and the broker's log shows it never published; a wrong password
    is one line on the page, which keeps trying."""
    passwd = shutil.which("mosquitto_passwd")
    if passwd is None:
        pytest.skip("mosquitto_passwd is missing: install Debian's package mosquitto")
    topics = prefix()
    (tmp_path / "passwd").write_text("")
    for user, password in (("exhibit", "exhibit-secret"), ("screen", "screen-secret")):
        subprocess.run([passwd, "-b", str(tmp_path / "passwd"), user, password], check=True, capture_output=True)
    readme = (ROOT / "README.md").read_text()
    acl = re.search(r"printf '(user exhibit[^']*)' \| sudo tee /etc/mosquitto/acl", readme).group(1)
    (tmp_path / "acl").write_text(acl.replace("\\n", "\n").replace("nim-museum/", topics + "/"))
    (tmp_path / "exhibit-password").write_text("exhibit-secret\n")
    (tmp_path / "exhibit-password").chmod(0o600)
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker", "allow_anonymous false\npassword_file %s\nacl_file %s"
                    % (tmp_path / "passwd", tmp_path / "acl"), websockets=True, logging="log_type all\n")
    sim = Simulation("drnim", telemetry=telemetry(broker, topics, username="exhibit",
                                                   password_file=str(tmp_path / "exhibit-password")),
                     state_dir=str(tmp_path / "exhibit"))
    try:
        wait_until(lambda: sim.service.telemetry.connected, 10, "the exhibit connected with its password")
        page = screen(browser, broker, topics, "&user=screen&password=screen-secret")
        sim.press("trigger")
        sim.settle()
        follows(page, sim)
        same_face(page, sim)
        client_id = page.evaluate("nim.client.options.clientId")
        refused = screen_refused(browser, broker, topics)
        log = (tmp_path / "broker" / "mosquitto.log").read_text()
        assert "Received SUBSCRIBE from %s" % client_id in log
        assert "Received PUBLISH from %s" % client_id not in log
        assert "not authorised" in refused.lower() or "not authorized" in refused.lower(), refused
        clean(page, browser[1])
    finally:
        sim.close()
        broker.stop()


def screen_refused(browser, broker, topics):
    """A page with a wrong password: what it says of the broker, once it has said it."""
    context, address, _ = browser
    page = open_page(context, "%s?follow=hall-1&prefix=%s&broker=%s&user=screen&password=wrong"
                     % (address, topics, broker.ws_address))
    page.wait_for_function("nim.follow && nim.follow.problem", timeout=TIMEOUT_MS)
    assert page.get_attribute("#follow-status", "data-link") != "live"
    text = page.inner_text("#follow-status")
    page.close()
    return text


@pytest.mark.parametrize("query, said", [
    ("?follow=a/b&broker=ws://127.0.0.1:9/", 'follow: "a/b" is not an exhibit\'s name'),
    ("?follow=hall-1&broker=http://127.0.0.1:9/", 'broker: "http://127.0.0.1:9/" is not a WebSockets address'),
    ("?follow=hall-1", "broker: null is not a WebSockets address"),
    ("?follow=hall-1&broker=mqtt://screen:secret@127.0.0.1:9/", 'broker: "mqtt://127.0.0.1:9/" is not a WebSockets'),
    ("?follow=hall-1&broker=ws://screen:secret@[::1", 'broker: "ws://[::1" is not a WebSockets address'),
    ("?follow=hall-1&broker=screen:secret@127.0.0.1:9001/", 'broker: "127.0.0.1:9001/" is not a WebSockets address'),
])
def test_an_address_that_names_no_exhibit_or_broker_is_one_line(browser, query, said):
    """The last two: a log-in written into a wrong broker address is never shown (the screen stands in a
    gallery), parsed or not."""
    context, address, _ = browser
    page = open_page(context, address + query)
    assert page.inner_text("#status").startswith("This screen cannot follow the exhibit: " + said)
    assert page.get_attribute("#follow-status", "data-link") == "stopped"
    assert "secret" not in page.inner_text("body")
    clean(page, address)


LINK = "document.querySelector('#follow-status').dataset.link === '%s'"
ONLINE = "document.querySelector('#follow-status').dataset.online === '%s'"
LOG_SCROLLS = "(log => log.scrollHeight > log.clientHeight)(document.querySelector('#log'))"


@pytest.mark.skipif(AXE_MISSING is not None, reason=str(AXE_MISSING))
def test_each_state_of_a_second_screen_stands_out_in_forced_colours_and_axe_finds_no_violation(broker, browser,
                                                                                                tmp_path):
    """The second screen's own states were seen in forced colours (Windows' high contrast) only by hand: a
    broker address that answers nothing (a typo, a broker not up), waiting for the exhibit's game, following
    it (the connection's log, after some restarts of the exhibit, longer than its panel) and the exhibit offline
    since a time. In each, seen in the page's own colours and in forced colours, light and dark, every word it
    shows, its lamps, board and buttons stand out as the kiosk's do (page_checks.colour_faults), the banner
    that warns is bolder than a live one (told by more than its colour, which forced colours replace), and
    axe-core finds no violation. (axe runs in the page's own colours: it reads a text's -webkit-text-fill-color,
    which Chromium's computed style leaves in the page's own ink while it paints the palette's, so in forced
    colours it would judge colours no one sees; the contrast there is colour_faults'.) It found the log, once it
    scrolled, out of a keyboard's reach (axe: scrollable-region-focusable): it is a tab stop now."""
    context, address, _ = browser
    found, faults, banners = {}, [], {}

    def look(state, page, parts, holds):
        for palette in PALETTES:
            faults.extend("%s, %s" % (state, fault) for fault in colour_faults(page, palette, parts))
            banners[state, palette] = int(page.evaluate("getComputedStyle(document.querySelector('#follow-status'))"
                                                        ".fontWeight"))
        page.emulate_media(**PALETTES["own colours"])
        found[state] = violations(page)
        assert page.evaluate(holds), "the screen left the state %r while it was checked" % state
        clean(page, address)

    page = open_page(context, "%s?follow=hall-1&broker=ws://127.0.0.1:%d/" % (address, free_port()))
    page.wait_for_function(LINK % "unreachable", timeout=TIMEOUT_MS)
    look("a broker that answers nothing", page, ("words", "buttons"), LINK % "unreachable")
    topics = prefix()
    page = open_page(context, "%s?follow=hall-1&prefix=%s&broker=%s" % (address, topics, broker.ws_address), tab=page)
    page.wait_for_function(LINK % "live", timeout=TIMEOUT_MS)
    look("waiting for the exhibit's game", page, ("words", "buttons"), "nim.view() === null && " + LINK % "live")
    sim = exhibit(broker, tmp_path, topics)
    client = stranger(broker, topics)
    try:
        sim.press("trigger")                # a marble gone: an empty place on the rail
        sim.settle()
        follows(page, sim)
        for online in (False, True) * 6:    # the exhibit's restarts, as its statuses tell them
            status(client, topics, retain=False, online=online)
        page.wait_for_function("nim.log.filter(line => line === 'the exhibit went offline').length === 6 && "
                               + ONLINE % "true", timeout=TIMEOUT_MS)
        look("following a game", page, ("words", "buttons", "lamps", "board"),
             "nim.view().rail === 14 && %s && %s" % (ONLINE % "true", LOG_SCROLLS))
    finally:
        client.loop_stop()
        client.disconnect()
        sim.close()                         # its goodbye: offline, with the time
    page.wait_for_function(ONLINE % "false", timeout=TIMEOUT_MS)
    look("the exhibit offline", page, ("words", "buttons", "lamps", "board"),
         "/offline \\(since \\d/.test(document.querySelector('#follow-status').textContent) && " + LOG_SCROLLS)
    for state in ("a broker that answers nothing", "the exhibit offline"):
        for palette in PALETTES:
            if banners[state, palette] <= banners["following a game", palette]:
                faults.append("%s, %s: the banner no bolder than a live one" % (state, palette))
    assert list(found) == ["a broker that answers nothing", "waiting for the exhibit's game", "following a game",
                           "the exhibit offline"]
    assert found == dict((state, []) for state in found)
    assert not faults, "\n".join(faults)


def test_a_second_screen_holds_no_more_after_rounds_of_games_statuses_and_restarts(broker, browser, tmp_path):
    """A sample of bench/kiosk_soak.py's second screen: once warm (some hundred live events), each round (a
    game of the exhibit's, a stranger's statuses, the exhibit and the broker restarted) leaves the page
    holding what it held: its JS heap, DOM, listeners, timers, WebSockets, MicroPython heap, and the
    sentences its live region said (nim.announced), of which it kept every one: one more at nearly every
    event, for as long as the screen followed."""
    sys.path.insert(0, str(ROOT / "bench"))
    import kiosk_soak
    topics = prefix()
    sim = exhibit(broker, tmp_path, topics)
    stranger = kiosk_soak.Stranger(broker, topics)
    page = None
    try:
        page = kiosk_soak.screen_page(browser[0], browser[1], broker, topics)
        gauge = kiosk_soak.Gauge(page)
        stranger.junk(200)          # the log full: its 200 lines, 30 of them shown
        page.wait_for_function("nim.log.some((line) => line.includes('junk 199'))", timeout=TIMEOUT_MS)
        kiosk_soak.exhibit_round(page, sim, broker, stranger, 10, seed=1)     # what the machine said: its 20 lines
        warm = gauge.read()
        kiosk_soak.exhibit_round(page, sim, broker, stranger, 1, seed=2)     # more rounds: the soak's
        # nim.drawn, which keeps the last 2000 events drawn, is still filling
        assert [each for each in kiosk_soak.grown(warm, gauge.read()) if each[0] != "drawn"] == []
        assert stranger.events >= 300
        clean(page, browser[1])
    finally:
        if page:
            page.close()
        stranger.close()
        sim.close()
