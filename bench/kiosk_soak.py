"""Months of a kiosk's page in minutes: the page in Debian's headless Chromium, as a museum
leaves it open for weeks, driven through what those weeks bring, and what it holds printed
at each round. Prints figures; asserts nothing. Growth that does not settle from round to
round is a leak: an unbounded list, a timer or listener added per game or connection,
DOM nodes kept, a reconnect that stacks clients.

    .venv/bin/python bench/kiosk_soak.py [ROUNDS] [GAMES]      (defaults: 10 rounds, 20 games a round)

- the kiosk (?kiosk=1): GAMES complete games a round on each machine, played by keys, each
  followed by the reset for the next visitor; every third visitor chooses another language
  (the kiosk goes back to its own). The page's clock is the soak's own (INIT_SCRIPT), so the
  idle minutes before a reset pass at once;
- the second screen (?follow=): a real exhibit (the service on mock pins, the simulator's
  world) through a real mosquitto with a WebSockets listener; a round is GAMES of its games
  (their live events and states), statuses from a stranger (the exhibit offline and online
  again), an exhibit restart, a broker restart, and the screen's network off and on; every
  fifth round the broker also stops answering (SIGSTOP) until the screen gives up on it, then
  is down for half a minute.

Each line, after two forced garbage collections: the JS heap (CDP Runtime.getHeapUsage), the
DOM's elements and nodes (detached ones not yet collected included: CDP Performance.getMetrics),
the event listeners, the timers pending (setTimeout, setInterval, wrapped by an init script),
the WebSockets open, the MicroPython heap in use (gc.mem_alloc()) and the JavaScript objects it
holds (its proxy table), and the lengths of the lists the page keeps for tests (nim.announced,
nim.log, nim.drawn).
"""

import random
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import paho.mqtt.client as mqtt  # noqa: E402

from broker_rig import MISSING, Broker, find_mosquitto, wait_until  # noqa: E402
from controller.sim.autoplay import autoplay  # noqa: E402
from controller.sim.engine import Simulation  # noqa: E402
from controller.telemetry.settings import check_telemetry  # noqa: E402
from controller.web.browser import missing, open_page, served_page  # noqa: E402

TIMEOUT_MS = 60000
# How long the broker stays down in a round with `freeze`.
DOWN_MS = 30000

# Counts what the page has pending: every setTimeout until it runs or is cleared, every setInterval
# until it is cleared, every WebSocket until it closes. And the page's own clock: once soakClock.start()
# has taken it over, performance.now() and setTimeout go by it, and soakClock.run(ms) moves it on, each
# timer run at its time. (Playwright's page.clock would do, but it is the whole context's: every later tab
# of the tests' shared Chromium would have it.)
INIT_SCRIPT = """(() => {
  const timeouts = new Set(), intervals = new Set(), due = new Map();
  const real = { set: window.setTimeout, clear: window.clearTimeout, now: performance.now.bind(performance) };
  const setI = window.setInterval, clearI = window.clearInterval;
  let sockets = 0, virtual = null, last = 2 ** 30;
  window.setTimeout = (f, ms, ...args) => {
    const run = () => { timeouts.delete(id); if (typeof f === "function") f(...args); };
    const id = virtual === null ? real.set.call(window, run, ms) : ++last;
    if (virtual !== null) due.set(id, [virtual + Math.max(0, Number(ms) || 0), run]);
    timeouts.add(id);
    return id;
  };
  window.clearTimeout = (id) => { timeouts.delete(id); due.delete(id); real.clear.call(window, id); };
  window.setInterval = function (...args) { const id = setI.apply(window, args); intervals.add(id); return id; };
  window.clearInterval = (id) => { intervals.delete(id); clearI.call(window, id); };
  performance.now = () => virtual === null ? real.now() : virtual;
  window.soakClock = {
    start() { virtual = real.now(); },
    run(ms) {
      const end = virtual + ms;
      for (;;) {
        let next = null;
        for (const [id, [at]] of due) if (at <= end && (next === null || at < due.get(next)[0])) next = id;
        if (next === null) break;
        const [at, run] = due.get(next);
        due.delete(next);
        virtual = at;
        run();
      }
      virtual = end;
    },
  };
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      sockets += 1;
      this.addEventListener("close", () => { sockets -= 1; }, { once: true });
    }
  };
  window.soakCounts = () => ({ timeouts: timeouts.size, intervals: intervals.size, sockets });
})();"""

# What the page holds, once MicroPython has collected its garbage.
HELD = """() => {
  const gc = nim.mp.pyimport("gc");
  gc.collect();
  const proxies = globalThis.proxy_js_ref.filter((each) => each !== undefined).length;
  return Object.assign(window.soakCounts(), {
    elements: document.getElementsByTagName("*").length, python: gc.mem_alloc(), proxies,
    announced: nim.announced.length, log: nim.log.length, drawn: nim.drawn.length,
  });
}"""


# How far a figure may move from one round to the next once the page is warm: the nodes Chromium has
# not collected yet, a timer under way; the lists the page keeps, the elements and the sockets not at all.
MARGINS = {"heap": 256 * 1024, "elements": 0, "nodes": 64, "listeners": 2, "timeouts": 2, "intervals": 0,
           "sockets": 0, "python": 8 * 1024, "proxies": 4, "announced": 0, "log": 0, "drawn": 0}


def grown(before, after):
    """The figures that grew from `before` to `after` by more than their margin: [(name, before, after)]."""
    return [(name, before[name], after[name]) for name in MARGINS if after[name] > before[name] + MARGINS[name]]


class Gauge:
    """The page's figures through Chromium's DevTools protocol."""

    def __init__(self, page):
        self.page = page
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")

    def read(self):
        for _ in range(2):      # the second collects what the first one's finalizers let go
            self.cdp.send("HeapProfiler.collectGarbage")
            self.page.evaluate("0")     # a task between: the finalizers run
        held = self.page.evaluate(HELD)
        metrics = {m["name"]: m["value"] for m in self.cdp.send("Performance.getMetrics")["metrics"]}
        held.update(heap=self.cdp.send("Runtime.getHeapUsage")["usedSize"], nodes=int(metrics["Nodes"]),
                    listeners=int(metrics["JSEventListeners"]))
        return held


def line(mode, done, figures):
    print("%-13s %-16s heap %6.0f KiB  elements %4d  nodes %5d  listeners %3d  timers %d+%d  sockets %d  "
          "python %5.0f KiB  proxies %3d  announced %5d  log %3d  drawn %4d"
          % (mode, done, figures["heap"] / 1024, figures["elements"], figures["nodes"], figures["listeners"],
             figures["timeouts"], figures["intervals"], figures["sockets"], figures["python"] / 1024,
             figures["proxies"], figures["announced"], figures["log"], figures["drawn"]), flush=True)


def growth(mode, first, last):
    beyond = ", ".join("%s %s -> %s" % each for each in grown(first, last))
    print("%-13s from the first round to the last: heap %+.0f KiB, nodes %+d, listeners %+d, python %+.0f KiB; "
          "grown beyond a round's margin: %s" % (mode, (last["heap"] - first["heap"]) / 1024, last["nodes"] - first["nodes"],
                                                 last["listeners"] - first["listeners"],
                                                 (last["python"] - first["python"]) / 1024, beyond or "nothing"),
          flush=True)


def tab(context):
    page = context.new_page()
    page.page_errors = []
    page.on("pageerror", lambda error: page.page_errors.append(str(error)))
    return page


# --- the kiosk -------------------------------------------------------------------------------
def visit(page, keys, ms):
    """A visitor's keys (each a keydown, as the page hears them), then `ms` on the page's clock: the view then."""
    return page.evaluate("([keys, ms]) => { for (const key of keys) document.dispatchEvent(new KeyboardEvent("
                         "'keydown', { key })); soakClock.run(ms); return nim.view() }", [list(keys), ms])


def players_turn(view):
    return view["mode"] != "play" or (view["turn"] == "player" and not view.get("running")
                                      and not view.get("in_flight") and not view.get("moving"))


def until(page, view, holds, ms):
    """The page's clock run on, `ms` at a time, until `holds(view)`: the view then."""
    for _ in range(1000):
        if holds(view):
            return view
        view = visit(page, "", ms)
    raise RuntimeError("the kiosk never got there: %s" % view)


def dr_nim_game(page, rng):
    """A visitor takes 1 to 3 marbles a turn, one trigger press each once the last has fallen; then the
    turn switch to Dr. Nim and the trigger for its turn."""
    view = page.evaluate("nim.view()")
    while view["mode"] == "play":
        for _ in range(min(1 + rng.randrange(3), view["rail"])):
            view = until(page, visit(page, "t", 400), lambda v: not v["in_flight"] and not v["falling"], 200)
        if view["mode"] != "play":
            break
        view = until(page, visit(page, "mt", 4000), players_turn, 1000)


def nimatron_game(page, rng):
    """A visitor puts out some lamps of one row, then hands over."""
    view = page.evaluate("nim.view()")
    while view["mode"] == "play":
        row = rng.choice([i for i, lit in enumerate(view["rows"]) if lit])
        view = visit(page, str(row + 1) * (1 + rng.randrange(view["rows"][row])), 0)
        if view["mode"] != "play":
            break
        view = until(page, visit(page, "h", 6000), players_turn, 1000)


def resting(view):
    """The next visitor's fresh machine, resting in its attract state."""
    return view["attract"] and view["mode"] == "play" and not view["turns"]


GAME = {"drnim": dr_nim_game, "nimatron": nimatron_game}


def kiosk_page(context, address, machine):
    """A new tab (its own clock and counters: close it after) with the kiosk on `machine`."""
    page = tab(context)
    page.add_init_script(INIT_SCRIPT)
    open_page(context, address + "?kiosk=1&lang=en&machine=" + machine, tab=page)
    page.evaluate("soakClock.start()")
    return page


def visitors(page, machine, rng, games):
    """`games` complete games, each followed by the kiosk's reset; every third visitor chooses Deutsch."""
    for game in range(games):
        if game % 3 == 2:
            page.evaluate("document.getElementById('language-de').click()")
            page.wait_for_function("document.documentElement.lang === 'de'")
        GAME[machine](page, rng)
        until(page, page.evaluate("nim.view()"), resting, 10000)     # the visitor left: the machine rests, resets


def kiosk(context, address, machine, rounds, games):
    page = kiosk_page(context, address, machine)
    gauge = Gauge(page)
    rng = random.Random(7)
    mode = "kiosk " + machine
    first = figures = gauge.read()
    line(mode, "start", figures)
    started = time.monotonic()
    for round_ in range(1, rounds + 1):
        visitors(page, machine, rng, games)
        figures = gauge.read()
        line(mode, "%d games" % (round_ * games), figures)
        if round_ == 1:
            first = figures
    growth(mode, first, figures)
    print("%-13s %d games in %.0f s; errors: %s" % (mode, rounds * games, time.monotonic() - started,
                                                 page.page_errors + page.evaluate("nim.errors") or "none"), flush=True)
    page.close()


# --- the second screen -----------------------------------------------------------------------
class Stranger:
    """A client of the broker's own: it counts the exhibit's live events and publishes statuses."""

    def __init__(self, broker, topics):
        self.topics = topics
        self.events = 0
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="soak-stranger-" + topics)
        self.client.on_connect = lambda client, *_: client.subscribe(topics + "/hall-1/live/event")
        self.client.on_message = lambda *_: setattr(self, "events", self.events + 1)
        self.client.reconnect_delay_set(1, 2)       # back soon after each restart of the broker
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def statuses(self, count):
        """`count` statuses of hall-1, offline and online in turn, the last one online."""
        for beat in range(count):
            status = '{"v": 1, "exhibit": "hall-1", "machine": "drnim", "online": %s, "at": %d}' % (
                "true" if (count - beat) % 2 else "false", beat + 1)
            self.client.publish(self.topics + "/hall-1/status", status, qos=1).wait_for_publish(10)

    def junk(self, count):
        """`count` live events that are no JSON: a line each in the screen's log."""
        sent = [self.client.publish(self.topics + "/hall-1/live/event", "junk %d" % number, qos=1) for number in range(count)]
        for each in sent:
            each.wait_for_publish(10)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def screen_page(context, address, broker, topics):
    """A new tab (its own counters: close it after) following hall-1, once it has drawn its machine."""
    page = tab(context)
    page.add_init_script(INIT_SCRIPT)
    open_page(context, "%s?follow=hall-1&prefix=%s&broker=%s" % (address, topics, broker.ws_address), tab=page)
    page.wait_for_function("nim.view && nim.view() !== null", timeout=TIMEOUT_MS)
    return page


def exhibit_round(page, sim, broker, stranger, games, seed, freeze=False):
    """What a screen sees in a day or so: `games` of the exhibit's games, 10 statuses, the exhibit
    restarted, the broker restarted, the screen's network off and on (Chromium's emulation: it cuts no
    WebSocket open on the loopback, but tells the page), and with `freeze` a broker that stops answering
    (SIGSTOP) until the screen's keepalive gives up on it, then is down for DOWN_MS: the screen tries
    again every 2 s. Returns once the screen shows the exhibit's
    new game, one marble taken."""
    autoplay(sim, games, "novice", seed=seed)
    stranger.statuses(10)
    sim.restart()
    wait_until(lambda: sim.service.telemetry.connected, 20, "the exhibit back")
    broker.restart()
    wait_until(lambda: sim.service.telemetry.connected, 30, "the exhibit back on the broker")
    page.wait_for_function("nim.follow.state === 'live'", timeout=TIMEOUT_MS)
    page.context.set_offline(True)
    page.wait_for_timeout(500)
    page.context.set_offline(False)
    if freeze:
        broker.process.send_signal(signal.SIGSTOP)
        page.wait_for_function("nim.follow.state === 'reconnecting'", timeout=120000)
        broker.process.send_signal(signal.SIGCONT)
        broker.stop()
        page.wait_for_timeout(DOWN_MS)
        broker.start()
        wait_until(lambda: sim.service.telemetry.connected, 60, "the exhibit back on the broker")
    page.wait_for_function("nim.follow.state === 'live' && nim.follow.online === true", timeout=TIMEOUT_MS)
    sim.press("new_game")       # each round ends on the same drawing: a new game's first marble
    sim.press("trigger")
    sim.settle()
    page.wait_for_function("turns => JSON.stringify(nim.view().turns) === JSON.stringify(turns)",
                           arg=sim.machine.turns, timeout=TIMEOUT_MS)


def second_screen(context, address, folder, rounds, games):
    broker = Broker(folder / "broker", websockets=True)
    topics = "soak"
    telemetry = check_telemetry("soak", {"enabled": True, "host": "127.0.0.1", "port": broker.port,
                                         "client_id": "hall-1", "topic_prefix": topics, "heartbeat_s": 5})
    sim = Simulation("drnim", {}, telemetry=telemetry, state_dir=str(folder / "exhibit"))
    stranger = Stranger(broker, topics)
    try:
        wait_until(lambda: sim.service.telemetry.connected, 20, "the exhibit connected")
        page = screen_page(context, address, broker, topics)
        gauge = Gauge(page)
        first = figures = gauge.read()
        line("second screen", "start", figures)
        started = time.monotonic()
        for round_ in range(1, rounds + 1):
            exhibit_round(page, sim, broker, stranger, games, round_, freeze=round_ % 5 == 0)
            figures = gauge.read()
            line("second screen", "%d games" % (round_ * games), figures)
            if round_ == 1:
                first = figures
        growth("second screen", first, figures)
        print("second screen %d games, %d live events, %d statuses, %d exhibit and broker restarts and network "
              "cycles, %d brokers frozen and down, in %.0f s; errors: %s"
              % (rounds * games, stranger.events, rounds * 10, rounds, rounds // 5, time.monotonic() - started,
                 page.page_errors + page.evaluate("nim.errors") or "none"), flush=True)
        page.close()
    finally:
        stranger.close()
        sim.close()
        broker.stop()


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    reason = missing()
    if reason:
        print("kiosk soak: skipped, %s" % reason)
        return
    with served_page(reduced_motion="reduce") as (context, address, _):
        for machine in GAME:
            kiosk(context, address, machine, rounds, games)
        if find_mosquitto() is None:
            print("second screen: skipped, %s" % MISSING)
            return
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "broker").mkdir()
            second_screen(context, address, Path(folder), rounds, games)


if __name__ == "__main__":
    main()
