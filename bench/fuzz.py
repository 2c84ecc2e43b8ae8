"""Fuzz the inputs a person, a damaged card or a host can hand the controller:
random and mutated configurations, pin maps, scripts, saved games, the
firmware's protocol lines, the fleet's payloads (what a stranger on the
museum's broker publishes) and the live game's, as the web page's follower
(web/bridge.py) takes them. Prints figures; asserts nothing.

    .venv/bin/python bench/fuzz.py [INPUTS] [--seed N] [--only TARGET]     (default 100,000 inputs)

Each input starts from a valid one (the shipped files, the scenarios, saves
of played games) and is damaged a few times over: values and words swapped
for strange ones (huge and odd numbers, digits `int()` refuses, NUL, deep
brackets), lines dropped or doubled, bytes changed, the text cut short. An
input fails when it gives

- a traceback: any exception but the target's documented one-line errors
  (or one of those with a message on more than one line);
- a hang: longer than the target's time limit;
- a silent change of the game: a saved game accepted that resumes an
  impossible state (tests/saved_games.py `possible`), or one that then fails to play.

TARGETS is a table: a new input (the firmware's protocol, say) is one more
Target with its valid seeds, its runner and its errors. The suite runs a few
hundred inputs (tests/test_fuzz.py); the last line here is
`fuzz: N inputs, F failures`.
"""

import copy
import io
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from controller.arguments import ArgumentError, load_service_config, read_script  # noqa: E402
from controller.core import scenario  # noqa: E402
from controller.core import protocol  # noqa: E402
from controller.core.exhibit import ConfigError  # noqa: E402
from controller.core.saves import SaveError  # noqa: E402
from controller.core.registry import NAMES, machine_class  # noqa: E402
from controller.core.scenario import ScriptError  # noqa: E402
from controller.hardware.boards import Board  # noqa: E402
from controller.hardware.pinmap import PinMapError, default_pinmap_path, load_pinmap  # noqa: E402
from controller.service.daemon import Service  # noqa: E402
from controller.service.store import StateStore  # noqa: E402
from controller.sim.pins import BoundedPin  # noqa: E402
from controller.sim.script import run_script  # noqa: E402
from saved_games import DRNIM_EVENTS, NIMATRON_EVENTS, places, played_save, possible  # noqa: E402

# Strange values: edges of ranges, what isdigit() accepts and int() refuses,
# non-finite floats, other types, characters a file should not hold.
STRANGE = ["0", "-1", "1", "2", "3", "7", "15", "999", "1000", "100000", "86400000", "86400001", "2147483648",
           "9" * 5000, "\u00b2", "\u0661\u0662", "1e9", "1e309", "nan", "inf", "-inf", "1.5", "-0", "+5", "0x10",
           "1_000", "07", "true", "false", '""', "[]", "{}", "[" * 3000, "\x00", "x", "null", "1/x", ",,", "=",
           "#", "\t", '"', "'", "\\", "\u00e9", "\u202e", " " * 300, "a" * 300, *NAMES, "trigger",
           "row", "wait", "marble", "power", "press", "set", "expect", "machine", "game", "ms", "s", "86400s",
           "99999999999s", "-5ms", "on", "off", "up", "down", "low", "high", "none"]
TOKEN = re.compile(r"\w+|[^\w\s]")


class Hang(BaseException):
    """An input ran past its time limit (a BaseException, so no `except Exception` in the code hides it)."""


class Impossible(Exception):
    """An input was accepted but left the game in a state that cannot be."""


class Target:
    """One kind of input: `seeds()` the valid ones, `mutate(rng, seed)` one
    damaged input made from a seed, `run(input)` what the controller does with
    it (returns, or raises one of `errors` with a one-line message)."""

    def __init__(self, name, seeds, run, errors, mutate=None, share=1.0, limit_s=5.0):
        self.name = name
        self.seeds = seeds
        self.run = run
        self.errors = errors
        self.mutate = mutate or mutate_text
        self.share = share
        self.limit_s = limit_s


# --- damage ----------------------------------------------------------------------------------

def mutate_text(rng, text):
    """`text` (str) damaged one to four times; returns bytes."""
    for _ in range(rng.randint(1, 4)):
        text = rng.choice(TEXT_DAMAGE)(rng, text)
    raw = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.1:
        raw = damage_bytes(rng, raw)
    return raw


def swap_token(rng, text):
    tokens = list(TOKEN.finditer(text))
    if not tokens:
        return text + rng.choice(STRANGE)
    token = rng.choice(tokens)
    new = rng.choice(STRANGE) if rng.random() < 0.7 else rng.choice(tokens).group()
    return text[:token.start()] + new + text[token.end():]


def swap_number(rng, text):
    numbers = list(re.finditer(r"[0-9]{1,18}", text))
    if not numbers:
        return swap_token(rng, text)
    number = rng.choice(numbers)
    new = str(rng.choice([0, 1, -1, int(number.group()) + rng.randint(-3, 3), int(number.group()) * 1000,
                          2 ** rng.randint(8, 70)]))
    return text[:number.start()] + new + text[number.end():]


def edit_lines(rng, text):
    lines = text.split("\n")
    at = rng.randrange(len(lines))
    how = rng.randrange(4)
    if how == 0:
        del lines[at]
    elif how == 1:
        lines.insert(at, lines[rng.randrange(len(lines))])
    elif how == 2:
        other = rng.randrange(len(lines))
        lines[at], lines[other] = lines[other], lines[at]
    else:
        lines.insert(at, " ".join(rng.choice(STRANGE) for _ in range(rng.randint(1, 4))))
    return "\n".join(lines)


def cut(rng, text):
    return text[:rng.randrange(len(text) + 1)]


def insert_strange(rng, text):
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(STRANGE) + text[at:]


TEXT_DAMAGE = [swap_token, swap_token, swap_number, swap_number, edit_lines, insert_strange, cut]


def damage_bytes(rng, raw):
    raw = bytearray(raw)
    for _ in range(rng.randint(1, 3)):
        if raw and rng.random() < 0.5:
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        else:
            at = rng.randrange(len(raw) + 1)
            raw[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 3)))
    return bytes(raw)


# --- the targets -----------------------------------------------------------------------------

class Workshop:
    """A temporary folder the inputs are written into, as files the controller reads."""

    def __init__(self):
        self.folder = tempfile.TemporaryDirectory(prefix="drnim-fuzz-")
        self.path = Path(self.folder.name)

    def write(self, name, raw):
        path = self.path / name
        path.write_bytes(raw)
        return path


WORKSHOP = Workshop()


def config_seeds():
    shipped = (ROOT / "systemd" / "config.toml").read_text()
    seeds = [shipped, strip_comments(shipped)]
    for name in NAMES:
        seeds.append('[service]\nmachine = "%s"\npin_factory = "mock"\nstate_dir = "%s"\n' % (name, WORKSHOP.path))
    return seeds


def run_config(raw):
    """`controller config check`: the configuration and its pin map, checked together;
    what it accepts then builds its machine and plays a little."""
    path = WORKSHOP.write("config.toml", raw)
    config, _ = load_service_config(str(path))
    machine = machine_class(config.machine_name)(config.machine)
    play_a_little(machine, random.Random(len(raw)))


def pinmap_seeds():
    seeds = []
    for name in NAMES:
        text = default_pinmap_path(name).read_text()
        seeds += [text, strip_comments(text)]
    return seeds


def run_pinmap(raw):
    """The pin map loader; a map it accepts must build its board on mock pins."""
    path = WORKSHOP.write("pinmap.toml", raw)
    pinmap = load_pinmap(path)
    board = Board(pinmap, lambda role, level: None, MockFactory(pin_class=BoundedPin))
    board.close()


def script_seeds():
    return [path.read_text() for path in sorted((ROOT / "tests" / "scenarios").iterdir())
            if path.suffix in (".txt", ".sim")]


def run_core_script(raw):
    """A script as `--script` reads it, played on the core alone."""
    scenario.run(read_script(str(WORKSHOP.write("script.sim", raw))))


def run_sim_script(raw):
    """A script as `controller --simulate --script` plays it: the whole stack on mock pins."""
    run_script(read_script(str(WORKSHOP.write("script.sim", raw))))


def save_seeds():
    seeds = []
    for name, events in (("drnim", DRNIM_EVENTS), ("nimatron", NIMATRON_EVENTS)):
        for length in range(len(events) + 1):
            seeds.append((name, json.dumps(played_save(machine_class(name), events[:length]))))
        seeds.append((name, json.dumps(played_save(machine_class(name), events * 4))))
    return seeds


def mutate_save(rng, seed):
    """A saved game damaged in its structure (a value of another type or out of
    range, a key missing or extra) or in its text."""
    name, text = seed
    if rng.random() < 0.3:
        return name, mutate_text(rng, text)
    data = json.loads(text)
    for _ in range(rng.randint(1, 3)):
        spots = [path for path, _ in places(data) if path]
        if not spots:
            break
        path = rng.choice(spots)
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        how = rng.randrange(4)
        if how == 0:
            parent[last] = rng.choice([None, True, False, "x", "", [], {}, [1, 2], {"a": 1}, 1.5, "drnim"])
        elif how == 1:
            parent[last] = rng.choice([-1, 0, 1, 2, 3, 15, 16, 999, 1000, 2 ** 31, 2 ** 63, -2 ** 40, 10 ** 30])
        elif how == 2:
            del parent[last]
        elif isinstance(parent[last], dict):
            parent[last][rng.choice(["x", "taken", "mode", "fault", "rows", "in_flight"])] = rng.choice([0, None, "x"])
        elif isinstance(parent[last], list) and parent[last]:
            parent[last].append(parent[last][0])
    return name, json.dumps(data).encode()


def run_save(case):
    """The service's start with this saved game (its real `restore`, on a
    stand-in of the service's parts); a game it resumes must be possible and play on."""
    name, raw = case
    folder = WORKSHOP.path / "state"
    folder.mkdir(exist_ok=True)
    (folder / "game.json").write_bytes(raw)
    cls = machine_class(name)
    lines = []
    service = SimpleNamespace(config=SimpleNamespace(machine_name=name, machine=cls().config),
                              store=StateStore(str(folder)), log=lines.append,
                              fault_seen=lambda kind: None)
    machine = Service.restore(service)
    if len(lines) > 1 or any("\n" in line for line in lines):
        raise Impossible("the log says more than one line: %r" % lines)
    held = machine.fault == "check"
    try:
        possible(machine)
    except (AssertionError, SaveError) as error:
        raise Impossible("resumed an impossible state (%s%s)" % (type(error).__name__, error and ": %s" % error))
    if held and not any("cannot be resumed" in line for line in lines) and not machine.in_flight \
            and not machine.state.get("queued"):
        raise Impossible("held in check without a word: %r" % lines)
    play_a_little(machine, random.Random(len(raw)))
    possible(machine)


def play_a_little(machine, rng, events=12):
    """Presses, switches and marbles at random, with the machine's timers run."""
    choices = [("press", spec.role) for spec in machine.inputs() if spec.kind == "button"]
    choices += [("marble",)] if machine.NAME == "drnim" else []
    choices += [("switch", "turn", "machine"), ("switch", "turn", "player")] if machine.NAME == "drnim" else []
    now = 0
    machine.handle(("power",), now)
    for _ in range(events):
        now += rng.randint(1, 2000)
        deadline = machine.next_deadline()
        if deadline is not None and deadline <= now:
            machine.handle(("tick",), deadline)
        if choices:
            machine.handle(rng.choice(choices), now)


def protocol_seeds():
    return ['{"kind":"state","id":1}', '{"kind":"new_game","settings":{"marbles":15,"equalizer":true},"id":"a"}',
            '{"kind":"new_game","settings":{"openings":[[1,3,5,7]],"rule":"last-wins"}}',
            '{"kind":"inject","event":["press","trigger"],"id":1}', '{"kind":"inject","event":["marble"]}',
            '{"kind":"inject","event":["switch","turn","machine"]}', '{"kind":"inject","event":["press","row2"]}',
            '{"kind":"advance","ms":600000,"settle":true}', '{"kind":"advance","ms":500}']


def run_protocol(raw):
    """A line from the host, as a board in development mode on the host's clock
    takes it (firmware/runner.py): checked, then carried out on each machine."""
    message = protocol.checked(protocol.decode(raw), protocol.DEVELOPMENT, protocol.HOST_CLOCK)
    for name in NAMES:
        cls = machine_class(name)
        machine = cls(message["settings"]) if message["kind"] == "new_game" and "settings" in message else cls()
        machine.handle(("power",), 0)
        if message["kind"] == "inject":
            try:
                event = protocol.machine_event(machine, message["event"])
            except protocol.ProtocolError:
                continue    # an event of the other machine
            machine.handle(event, 100)
        possible(machine)


# --- the fleet's payloads: what a stranger on the museum's broker can publish ---------------------

FLEET = "nim-museum"
# Values a stranger may put anywhere in a payload: JSON's own oddities (Infinity, NaN, numbers beyond
# a store's 64 bits, lone surrogates) and a terminal's (escape sequences).
HOSTILE = [None, True, False, "", 0, -1, 1.5, 2 ** 63, 2 ** 64, -2 ** 63 - 1, 10 ** 30, 1e300, -1e300, float("inf"),
           float("-inf"), float("nan"), "\ud800", "\udfff x", "\x1b]0;pwned\x07\x1b[2J", "\x1b]52;c;eA==\x07",
           "\u202e", "x" * 3000, [], {}, [1, "a", None], {"a": {"b": [{}]}}, "player", "machine", "drnim", "play",
           {"id": "a", "winner": "machine", "ended": -1e999}, {"date": "2026-01-01", "games": -1, "machine_wins": 0}]
JSON_TOKENS = ["Infinity", "-Infinity", "NaN", "1e999", "-1e999", "9" * 30, '"\\ud800"', '"\\u001b[2J"', "1e300",
               "-0", "[]", "{}", "null", "true"]


def fleet_seeds():
    now = 1795435200.5
    status = {"v": 1, "exhibit": "hall-1", "online": True, "at": now, "machine": "drnim", "version": "0.1.0",
              "uptime_s": 86400, "heartbeat_s": 60, "queued": 0, "mode": "play", "turn": "player", "winner": None,
              "fault": None, "attract": False, "rail": 11, "loaded": 15, "service_faults": [],
              "today": {"date": "2026-11-23", "games": 41, "machine_wins": 33},
              "last_game": {"id": "hall-1/5f0c2a9e1b7d4c3a", "winner": "machine", "ended": now - 100}}
    will = {"v": 1, "exhibit": "hall-2", "online": False, "at": now, "machine": "nimatron"}
    game = {"v": 1, "exhibit": "hall-1", "id": "hall-1/5f0c2a9e1b7d4c3a", "machine": "drnim", "winner": "machine",
            "turns": 8, "duration_s": 95, "ended": now - 100, "settings": {"marbles": 15, "equalizer": True}}
    fault = {"v": 1, "exhibit": "hall-1", "id": "hall-1/0b3e", "machine": "drnim", "fault": "jam", "at": now - 50}
    nimatron = dict(status, exhibit="hall-3", machine="nimatron", rows=[1, 3, 5, 7])
    for key in ("rail", "loaded"):
        del nimatron[key]
    return [("%s/%s/%s" % (FLEET, payload["exhibit"], kind), json.dumps(payload))
            for kind, payload in (("status", status), ("status", will), ("game", game), ("fault", fault),
                                  ("status", nimatron))]


def mutate_payload(rng, seed):
    """A payload damaged in its structure (a hostile value anywhere, a key missing or added) or in its
    text (JSON's odd tokens among the damage), and now and then its topic."""
    name, text = seed
    if rng.random() < 0.1:
        name = rng.choice([name.replace("hall-1", "hall-9"), name.replace(FLEET, "other"), name + "/x",
                           "%s/%s/status" % (FLEET, "h" * 100), "%s//game" % FLEET, "%s/\u202e/status" % FLEET])
    if rng.random() < 0.3:
        for _ in range(rng.randint(1, 3)):
            tokens = list(TOKEN.finditer(text))
            token = rng.choice(tokens)
            text = text[:token.start()] + rng.choice(JSON_TOKENS + STRANGE[:40]) + text[token.end():]
        return name, mutate_text(rng, text) if rng.random() < 0.3 else text.encode("utf-8", "surrogatepass")
    data = json.loads(text)
    for _ in range(rng.randint(1, 3)):
        spots = [path for path, _ in places(data) if path]
        path = rng.choice(spots)
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        how = rng.randrange(3)
        if how == 0:
            parent[path[-1]] = copy.deepcopy(rng.choice(HOSTILE))
        elif how == 1 and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[rng.choice(["x", "\x1b[2J", "id", "online", "today", "last_game", "v"])] = copy.deepcopy(
                rng.choice(HOSTILE))
    return name, json.dumps(data).encode("utf-8", "surrogatepass")


def run_fleet(case):
    """A message as `controller fleet` takes it from the broker (its store in memory), then the table
    and the stats it prints: nothing may raise, and nothing a terminal acts on may be printed."""
    from controller.printable import printable
    from controller.service.stats import Period
    from controller.telemetry.command import print_stats
    from controller.telemetry.fleet import Fleet, FleetStore, table
    name, raw = case
    lines = []
    fleet = Fleet(FLEET, FleetStore(":memory:"), lines.append, clock=lambda: 1795435300.0)
    fleet.message(name, raw)
    fleet.store.commit()
    out = io.StringIO()
    out.write(table(fleet.rows()) + "\n")
    print_stats(fleet.store, Period(-10 ** 10, 10 ** 10, "all the store holds"), out)
    # a spreadsheet's rows, a day each (so over a week around the payloads' times): no formula, no escape
    print_stats(fleet.store, Period(1795435300.0 - 86400 * 7, 1795435300.0 + 86400, "a week"), out, csv=True)
    shown = out.getvalue() + "".join(printable(line) + "\n" for line in lines)
    fleet.store.close()
    if any(not char.isprintable() and char != "\n" for char in shown):
        raise Impossible("a character a terminal acts on was printed: %r" % shown[:200])
    if len(lines) > 1 or any("\n" in line for line in lines):
        raise Impossible("the log says more than one line: %r" % lines)
    if lines:
        raise Ignored(lines[0])


class Ignored(Exception):
    """The fleet ignored a message, with one line in its log: what it does with one that is not ours."""


LIVE_EXHIBIT = "hall-1"


def live_messages(name, events, exhibit=LIVE_EXHIBIT):
    """A played game's live messages as an exhibit publishes them: [(kind, JSON text)], kind state or event."""
    from controller.core.registry import machine_class
    from controller.telemetry.live import LiveGame
    from controller.telemetry.payloads import encode
    sent = []
    live = LiveGame(lambda kind, record: sent.append((kind.split("/")[1], encode(
        dict(record, v=1, exhibit=exhibit)).decode())))
    machine = machine_class(name)()
    now = 1000
    for event in [("power",)] + list(events):
        resting = machine.resting
        live.handled(machine, event, now, machine.handle(event, now), resting)
        now += 400
        deadline = machine.next_deadline()
        if deadline is not None and deadline <= now and not machine.resting:
            resting = machine.resting
            live.handled(machine, ("tick",), deadline, machine.handle(("tick",), deadline), resting)
    return sent


def live_seeds():
    return [("%s/%s/live/%s" % (FLEET, LIVE_EXHIBIT, kind), text)
            for name, events in (("drnim", DRNIM_EVENTS), ("nimatron", NIMATRON_EVENTS))
            for kind, text in live_messages(name, events)]


def bridge():
    """web/bridge.py, the page's side of the machine, on CPython."""
    if str(ROOT / "web") not in sys.path:
        sys.path.insert(0, str(ROOT / "web"))
    import bridge
    return bridge


def run_live(case):
    """A live message as the page takes it from the broker, after a real state and before a real event:
    an answer the page can draw, or one line in its log; never a traceback."""
    page = bridge()
    name, raw = case
    kind = name.rsplit("/", 1)[-1]
    start, follow_up = SEEDS_LIVE[0], SEEDS_LIVE[1]
    page.follow(LIVE_EXHIBIT)
    page.follow_message("state", start)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Ignored("not UTF-8 (the page refuses it before the bridge)")
    lines = []
    for each in (page.follow_message(kind if kind in ("state", "event") else "event", text),
                 page.follow_message("event", follow_up), page.follow_advance(10 ** 7)):
        answer = json.loads(each)
        if "log" in answer:
            lines.append(answer["log"])
    if any("\n" in line for line in lines):
        raise Impossible("a line of the page's log holds a line break: %r" % lines)
    if lines:
        raise Ignored(lines[0])


class LiveSeeds(list):
    """The first Dr. Nim state and event of live_seeds(), made when first needed."""

    def __getitem__(self, index):
        if not len(self):
            texts = [text for _, text in live_seeds()]
            self.extend([texts[1], texts[2]])       # after power: its state, then the first press
        return list.__getitem__(self, index)


SEEDS_LIVE = LiveSeeds()


def strip_comments(text):
    return "\n".join(line.split("#")[0].rstrip() for line in text.splitlines() if line.split("#")[0].strip())


TARGETS = [
    Target("configuration", config_seeds, run_config, (ArgumentError,), share=0.25),
    Target("pin map", pinmap_seeds, run_pinmap, (PinMapError,), share=0.25),
    Target("saved game", save_seeds, run_save, (), mutate=mutate_save, share=0.25),
    Target("script (core)", script_seeds, run_core_script, (ArgumentError, ScriptError), share=0.22),
    Target("script (simulator)", script_seeds, run_sim_script, (ArgumentError, ScriptError), share=0.03,
           limit_s=20.0),
    Target("firmware protocol", protocol_seeds, run_protocol, (protocol.ProtocolError, ConfigError), share=0.1),
    Target("fleet payload", fleet_seeds, run_fleet, (Ignored,), mutate=mutate_payload, share=0.15),
    Target("live payload", live_seeds, run_live, (Ignored,), mutate=mutate_payload, share=0.1),
]


# --- the run ---------------------------------------------------------------------------------

def alarm(signum, frame):
    raise Hang()


ACCEPTED = "accepted"


def attempt(target, case):
    """ACCEPTED, or None when the input was refused as documented, else what
    went wrong (one line)."""
    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, target.limit_s)
    try:
        target.run(case)
    except Hang:
        return "hang: more than %.0f s" % target.limit_s
    except target.errors as error:
        if "\n" in str(error):
            return "%s with a message on more than one line" % type(error).__name__
        return None
    except Impossible as error:
        return "silent change: %s" % error
    except Exception as error:
        where = traceback.extract_tb(error.__traceback__)[-1]
        return "traceback: %s: %s (%s:%d)" % (type(error).__name__, str(error)[:120].replace("\n", " "),
                                             os.path.relpath(where.filename, ROOT), where.lineno)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return ACCEPTED


def fuzz(inputs, seed=0, only=None, report=print):
    """Run `inputs` inputs shared among the targets; returns {target: (tried, {problem: example})}."""
    targets = [t for t in TARGETS if only is None or t.name.startswith(only)]
    if not targets:
        raise SystemExit("fuzz.py: --only %r: no target's name begins so (%s)" % (only, ", ".join(t.name for t in TARGETS)))
    total_share = sum(t.share for t in targets)
    counts = [max(1, int(inputs * t.share / total_share)) for t in targets]
    counts[0] += max(0, inputs - sum(counts))       # the rounding's remainder, so the total is `inputs`
    results = {}
    for target, count in zip(targets, counts):
        rng = random.Random("%d:%s" % (seed, target.name))
        seeds = target.seeds()
        problems = {}
        failures = accepted = 0
        start = time.perf_counter()
        for _ in range(count):
            case = target.mutate(rng, rng.choice(seeds))
            problem = attempt(target, case)
            if problem == ACCEPTED:
                accepted += 1
            elif problem is not None:
                failures += 1
                problems.setdefault(problem, case)
        results[target.name] = (count, failures, problems)
        report("%-20s %7d inputs (%d accepted), %d failures (%.0f s)"
               % (target.name, count, accepted, failures, time.perf_counter() - start))
        for problem, case in sorted(problems.items()):
            report("    %s\n        e.g. %s" % (problem, shorten(case)))
    return results


def shorten(case, size=300):
    text = repr(case)
    return text if len(text) <= size else text[:size] + "... (%d characters)" % len(text)


def main(argv):
    inputs, seed, only = 100000, 0, None
    words = list(argv)
    while words:
        word = words.pop(0)
        if word == "--seed":
            seed = int(words.pop(0))
        elif word == "--only":
            only = words.pop(0)
        else:
            inputs = int(word)
    start = time.perf_counter()
    results = fuzz(inputs, seed, only)
    tried = sum(count for count, _, _ in results.values())
    failures = sum(failed for _, failed, _ in results.values())
    print("%.0f s in all" % (time.perf_counter() - start))
    print("fuzz: %d inputs, %d failures" % (tried, failures))


if __name__ == "__main__":
    main(sys.argv[1:])
