"""Issue 28: the live game an exhibit publishes (controller/telemetry/live.py) and the
page's follower that takes it (web/bridge.py), without a broker: the service on mock
pins, the Pico's firmware on the emulated board through `controller firmware monitor`,
the follower on CPython and on the real MicroPython. The broker and the browser are
tests/test_second_screen.py's."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT
from controller.core.registry import machine_class
from controller.firmware.monitor import Monitor
from controller.sim.autoplay import autoplay
from controller.sim.engine import Simulation
from controller.telemetry.live import LiveGame
from controller.telemetry.payloads import encode
from test_fleet import GameCatcher
from test_firmware import GAMES, emulate, configs  # noqa: F401  (configs: the fixture)

sys.path.insert(0, str(ROOT / "web"))
import bridge  # noqa: E402


def published(exhibit="hall-1"):
    """A sink for LiveGame: the messages as the publisher's thread makes them, [(kind, JSON text)]."""
    sent = []

    def send(kind, record):
        sent.append((kind.split("/")[1], encode(dict(record, v=1, exhibit=exhibit)).decode()))
    return sent, send


def followed(messages, exhibit="hall-1"):
    """The page's follower fed `messages`; its last answer and the lines of its log."""
    bridge.follow(exhibit)
    lines = []
    answer = None
    for kind, text in messages:
        answer = json.loads(bridge.follow_message(kind, text))
        if "log" in answer:
            lines.append(answer["log"])
    return answer, lines


def service_game(machine="drnim", games=1, **settings):
    """A game played on the service's mock pins, with its live messages."""
    sim = Simulation(machine, settings)
    sent, send = published()
    sim.service.live = LiveGame(send)
    sim.service.live.state(sim.machine, sim.now)
    autoplay(sim, games, "novice", seed=4)
    return sim, sent


@pytest.mark.parametrize("machine", ["drnim", "nimatron"])
def test_each_event_goes_numbered_with_its_commands_and_a_state_at_each_change(machine):
    sim, sent = service_game(machine)
    try:
        events = [json.loads(text) for kind, text in sent if kind == "event"]
        assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
        states = [json.loads(text) for kind, text in sent if kind == "state"]
        assert states[-1]["game"] == json.loads(json.dumps(sim.machine.to_dict()))
        assert states[-1]["seq"] == events[-1]["seq"] and len({state["run"] for state in states}) == 1
        assert {event["event"][0] for event in events} >= {"press", "release"}
        answer, lines = followed(sent)
        assert lines == []
        view = answer["view"]
        assert (view["mode"], view["winner"], view["turns"]) == ("over", sim.machine.winner, sim.machine.turns)
        assert view["working"] == [list(line) for line in sim.machine.explain()]
        # at rest, the attract lamps step on the exhibit and on the page, and nothing is sent for them
        count = len(sent)
        sim.advance(10 * 60 * 1000)
        assert sim.machine.attract and len(sent) == count
        answer = json.loads(bridge.follow_advance(sim.now))
        assert answer["view"]["attract"] and answer["commands"]
    finally:
        sim.close()


def test_a_missed_event_or_other_commands_are_one_line_and_the_next_state_catches_up():
    sim, sent = service_game("drnim")
    sim.close()
    # an event lost with no state after it (a button's release changes nothing worth a save)
    lost = next(i for i in range(2, len(sent) - 1) if sent[i][0] == sent[i + 1][0] == "event")
    later = next(i for i in range(lost, len(sent)) if sent[i][0] == "state")
    _, lines = followed(sent[:lost] + sent[lost + 1:later])
    assert lines == ["ignored a live event: 1 event of the exhibit missed: waiting for its next state"]
    answer, lines = followed(sent[:lost] + sent[lost + 1:later + 1])
    assert json.loads(sent[later][1])["game"]["state"]["turns"] == answer["view"]["turns"]
    assert answer["restored"] and answer["commands"], "a restored machine draws every output"
    event = json.loads(sent[lost][1])
    other = dict(event, commands=[["release"], ["release"]])
    _, lines = followed(sent[:lost] + [("event", json.dumps(other))])
    assert lines == ["ignored a live event: event %d, %s: the page's machine gave other commands than the "
                     "exhibit's: waiting for its next state" % (event["seq"], bridge.quoted(event["event"]))]


def test_the_page_follows_on_the_real_micropython(tmp_path, micropython):
    sim, sent = service_game("nimatron", think_ms=200)
    sim.close()
    (tmp_path / "messages.json").write_text(json.dumps(sent))
    script = tmp_path / "follow.py"
    script.write_text("import sys\nsys.path.insert(0, %r)\nsys.path.insert(0, %r)\nimport bridge, json\n"
                      "bridge.follow('hall-1')\n"
                      "for kind, text in json.load(open(%r)):\n"
                      "    answer = json.loads(bridge.follow_message(kind, text))\n"
                      "    assert 'log' not in answer, answer['log']\n"
                      "print(json.dumps(answer['view']))\n" % (str(ROOT), str(ROOT / "web"),
                                                              str(tmp_path / "messages.json")))
    done = subprocess.run([str(micropython), str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    view = json.loads(done.stdout)
    assert (view["winner"], view["turns"], view["rows"]) == (sim.machine.winner, sim.machine.turns, [0, 0, 0, 0])


def test_a_boards_live_game_goes_through_the_monitor(micropython, configs, tmp_path):  # noqa: F811
    """The real firmware on the emulated board plays its sample game; the monitor's replica of it
    sends the live game, which the page follows to the board's own end."""
    lines = [line.encode() for line in (GAMES / "drnim.jsonl").read_text().splitlines()]
    board = emulate(micropython, configs["drnim", "development"], [b'{"kind":"state"}'] + lines
                    + [b'{"kind":"state"}'], tmp_path / "flash.json")
    catcher = GameCatcher()

    class Link:
        serial, opens, asked = True, 0, []

        def send(self, message):
            self.asked.append(message)
    link = Link()
    monitor = Monitor(link, lambda line: None, telemetry=catcher)
    monitor.ask()           # as when the port opens
    for message in board:
        monitor.record(message)
    sent = [(kind.split("/")[1], encode(dict(record, v=1, exhibit="pico-1")).decode())
            for kind, record in catcher.lives]
    asked = [{"kind": "state", "id": "monitor"}]
    assert link.asked == asked, "asked once, at the start; then the replica followed every event"
    end = [message for message in board if message["kind"] == "state"][-1]["game"]
    ended = machine_class(end["machine"]).from_dict(end)     # the board's own, as it sends it: short
    assert ended.mode == "over"
    answer, lines = followed(sent, "pico-1")
    assert lines == []
    assert answer["view"]["turns"] == ended.turns and answer["view"]["winner"] == ended.winner
    # a board whose clock starts again (a reset) is asked for its state, once
    monitor.record({"kind": "event", "event": ["press", "trigger"], "at": 5})
    monitor.record({"kind": "event", "event": ["marble"], "at": 6})
    assert link.asked == asked * 2


@pytest.mark.parametrize("machine, press", [("drnim", "trigger"), ("nimatron", "row1")])
def test_the_first_live_event_after_a_board_starts_has_only_its_own_commands(
        micropython, configs, tmp_path, machine, press):  # noqa: F811
    """The replica restored from a board's short save had shown nothing, so the first event after a
    board (or the monitor) started sent every output again with its own commands: the page, whose
    machine shows the state's outputs, refused it and lost the visitor's move."""
    board = emulate(micropython, configs[machine, "development"],
                    [b'{"kind":"state"}', ('{"kind":"inject","event":["press","%s"]}' % press).encode()],
                    tmp_path / "flash.json")
    catcher = GameCatcher(machine)
    monitor = Monitor(None, lambda line: None, telemetry=catcher)
    for message in board:
        monitor.record(message)
    sent = [(kind.split("/")[1], encode(dict(record, v=1, exhibit="pico-1")).decode())
            for kind, record in catcher.lives]
    events = [json.loads(text) for kind, text in sent if kind == "event"]
    assert [event["event"] for event in events] == [["press", press]]
    pressed = next(index for index, message in enumerate(board) if message.get("event") == ["press", press])
    own = []
    for message in board[pressed + 1:]:
        if message["kind"] != "command":
            break
        own.append(message["command"])
    assert own and events[0]["commands"] == own, "what the board's machine itself gave for the press"
    answer, lines = followed(sent, "pico-1")
    assert lines == []
    assert answer["seq"] == 1, "the page played it, and follows on"


def test_a_boards_state_that_cannot_be_followed_is_one_line():
    shown = []
    monitor = Monitor(None, shown.append, telemetry=GameCatcher())
    monitor.record({"kind": "state", "game": {"machine": "drnim", "config": {}, "state": {}}, "now": 0})
    assert shown == ["live: the board's state cannot be followed (state.attract: missing): nothing live is "
                     "published"]
