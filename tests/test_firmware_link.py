"""The host's serial link to a board (controller/firmware/link.py), with real
pyserial over a real pseudo-terminal: the lines both ways, a board that
resets, a cable pulled and plugged in again, noise on the wire."""

import io
import json
import threading
import time

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT
from serial_rig import Port
from controller.firmware.link import STEADY_S, Link

HELLO = '{"clock":"real","kind":"hello","machine":"drnim","mode":"production","protocol":1,"resumed":"new"}\n'


@pytest.fixture
def port(tmp_path):
    port = Port(tmp_path / "ttyACM0")
    yield port
    port.close()


@pytest.fixture
def link(port):
    said = []
    link = Link(port.path, report=said.append, retry_s=0.05)
    link.said = said
    assert link.try_open()  # pyserial empties the port's input when it opens it
    yield link
    link.close()


def test_lines_go_both_ways(port, link):
    assert link.send({"kind": "state", "id": 1})
    assert [json.loads(line) for line in port.lines()] == [{"kind": "state", "id": 1}]
    port.write(HELLO + '{"at":5,"event":["press","trigger"],"kind":"event"}\n')
    assert link.receive(5)["kind"] == "hello"
    assert link.receive(5) == {"at": 5, "event": ["press", "trigger"], "kind": "event"}
    assert link.receive(0.1) is None
    assert link.said == []


def test_a_line_split_across_reads_arrives_whole(port, link):
    link.send({"kind": "state"})
    port.lines()
    port.write('{"at":5,"event":["mar')
    assert link.receive(0.2) is None
    port.write('ble"],"kind":"event"}\n')
    assert link.receive(5) == {"at": 5, "event": ["marble"], "kind": "event"}


def test_a_board_that_resets_is_reported_in_one_line(port, link):
    port.write(HELLO)
    assert link.receive(5)["kind"] == "hello"
    assert link.said == []
    port.write(HELLO)
    assert link.receive(5)["kind"] == "hello"
    assert link.said == ["the board on %s started again (a reset): drnim, protocol 1, production mode" % port.path]
    assert link.resets == 1


def test_noise_and_an_endless_line_are_reported_and_skipped(port, link):
    link.send({"kind": "state"})
    port.write("Traceback (most recent call last):\n  File \"app.py\", line 9\nMemoryError:\n" + "x" * 70000 + "\n"
               + HELLO + "MPY: soft reboot\n" + HELLO)
    assert link.receive(5)["kind"] == "hello"
    assert link.receive(5)["kind"] == "hello"
    assert len(link.said) == 4, "one line for each run of noise"
    assert link.said[0].startswith("the board on %s sent a line that is not the protocol (" % port.path)
    assert link.said[0].endswith("): 'Traceback (most recent call last):'")
    assert link.said[1] == "the board on %s sent a line over 65536 bytes: skipped" % port.path
    assert link.said[2].endswith("): 'MPY: soft reboot'")
    assert link.said[3].startswith("the board on %s started again" % port.path)


def test_a_pulled_cable_is_reported_once_and_the_board_found_again(port, link):
    port.write(HELLO)
    assert link.receive(5)["kind"] == "hello"
    port.unplug()
    assert link.receive(0.3) is None
    assert link.send({"kind": "state"}) is False
    assert len(link.said) == 1
    assert link.said[0].startswith("the board on %s is gone (" % port.path)
    assert link.said[0].endswith("): waiting for it to come back")
    port.plug()
    assert link.receive(0.3) is None
    port.write(HELLO)
    assert link.receive(5)["kind"] == "hello"
    assert link.said[1:] == ["the board on %s is back" % port.path,
                             "the board on %s started again (a reset): drnim, protocol 1, production mode" % port.path]
    assert link.send({"kind": "state"})
    assert port.lines() == ['{"kind":"state"}']


def test_a_port_that_flaps_is_said_once_until_it_stays(port):
    """A loose cable, or a board resetting over and over, for hours: its comings and goings are
    said once, not two or three journal lines each, and how often it went once it stays."""
    said, moved = [], [0.0]
    link = Link(port.path, report=said.append, retry_s=0.05, clock=lambda: time.monotonic() + moved[0])
    try:
        assert link.try_open()
        for _ in range(4):
            port.unplug()
            assert link.receive(0.2) is None
            port.plug()
            assert link.receive(0.2) is None
            port.write(HELLO)
            assert link.receive(5)["kind"] == "hello"
        assert said == ["the board on %s is gone (Input/output error): waiting for it to come back" % port.path,
                        "the board on %s is back" % port.path,
                        "the board on %s is gone again (Input/output error) within 60 s of coming back: it is not "
                        "said again until it stays back or away 60 s" % port.path]
        moved[0] += STEADY_S
        assert link.receive(0.1) is None
        assert said[3:] == ["the board on %s is back, after going 3 times in a row" % port.path]
        assert link.resets == 3
        port.unplug()
        assert link.receive(0.2) is None
        assert said[4:] == ["the board on %s is gone (Input/output error): waiting for it to come back" % port.path]
    finally:
        link.close()


def test_a_port_that_is_not_there_yet_is_waited_for(tmp_path):
    said = []
    link = Link(str(tmp_path / "ttyACM9"), report=said.append, retry_s=0.05)
    try:
        assert link.receive(0.2) is None
        assert said == ["the board on %s is not there (No such file or directory): waiting for it"
                        % (tmp_path / "ttyACM9")]
        port = Port(tmp_path / "ttyACM9")
        assert link.receive(0.3) is None
        port.write(HELLO)
        assert link.receive(5)["kind"] == "hello"
        assert said[1:] == ["the board on %s is back" % port.path]
        port.close()
    finally:
        link.close()


@settings(max_examples=60, deadline=None)
@given(noise=st.lists(st.one_of(st.binary(max_size=300), st.text(max_size=200).map(str.encode),
                                st.sampled_from([HELLO[:30].encode(), b'{"kind":"event","at":', b"\xff\xfe{",
                                                 b'{"kind":"zap"}', b'[1,2]', b'{"kind":"event","at":1e9}'])),
                      max_size=6))
def test_whatever_the_board_sends_the_link_reports_and_reads_on(noise):
    """Random, truncated and malformed lines from the board: never an exception,
    at most one report per run of noise, and the next good line arrives intact."""
    port, link = FUZZ["port"], FUZZ["link"]
    link.said.clear()
    port.write(b"\n".join(noise) + b'\n{"at":7,"event":["marble"],"kind":"event"}\n')
    message = link.receive(5)
    while message is not None and message != {"at": 7, "event": ["marble"], "kind": "event"}:
        message = link.receive(5)  # a noise line that happened to be good protocol
    assert message == {"at": 7, "event": ["marble"], "kind": "event"}
    assert all(line.startswith("the board on %s " % port.path) and "\n" not in line for line in link.said)
    assert len(link.said) <= len(noise) + 1


@pytest.fixture(scope="module", autouse=True)
def fuzz_port(tmp_path_factory):
    """One port for every fuzz example: a pty pair per example would be most of the time."""
    port = Port(tmp_path_factory.mktemp("fuzz") / "ttyACM0")
    said = []
    link = Link(port.path, report=said.append, retry_s=0.05)
    link.said = said
    link.try_open()
    FUZZ.update(port=port, link=link)
    yield
    link.close()
    port.close()


FUZZ = {}


def test_the_link_keeps_the_port_to_itself_so_a_deploy_cannot_share_it(port, link, capsys, tmp_path, mpremote):
    """mpremote locks the port as ours does: a deploy (the real mpremote) started
    while a monitor holds the board says so in one line, instead of both reading
    the same bytes; and a second monitor waits for the port."""
    from controller.cli import main
    build = tmp_path / "build"
    build.mkdir()
    (build / "main.py").write_text("import app\n")
    (build / "build.json").write_text(json.dumps({"machine": "drnim", "mode": "production", "files": ["main.py"]}))
    assert main(["firmware", "deploy", "--port", str(port.path), "--build", str(build)]) == 1
    assert capsys.readouterr().err == "controller firmware: mpremote could not stop the firmware on %s: mpremote: " \
        "failed to access %s (it may be in use by another program)\n" % (port.path, port.path)
    said = []
    second = Link(port.path, report=said.append, retry_s=0.05)
    assert not second.try_open()
    assert said == ["the board on %s is in use by another program (mpremote, another monitor): waiting for it"
                    % port.path]


def test_a_board_of_another_protocol_is_said_once_and_refused_by_the_scripts(port, link, tmp_path):
    """Its lines may mean something else: the link says so in one line, and `firmware test`
    will not play a script on it."""
    from controller.firmware.board import Board, BoardError
    from controller.firmware.board_test import Connector
    port.write(HELLO.replace('"protocol":1', '"protocol":2') + '{"kind":"state","protocol":2,"id":1}\n')
    assert link.receive(5)["kind"] == "hello" and link.receive(5)["kind"] == "state"
    assert link.said == ["the board on %s speaks protocol 2 and this controller protocol 1: deploy this controller's "
                         "firmware to it, or update the controller" % port.path]
    connect = Connector(port.path)
    connect.link = link
    with pytest.raises(BoardError, match="speaks protocol 2 and this controller protocol 1: deploy"):
        connect.check(Board(link).hello, "drnim")


def test_the_firmware_guide_quotes_what_an_updated_monitor_says_of_a_board_of_another_protocol(port, link):
    """A museum updates the Pi that watches its Pico: the guide's paragraph on updating says when the board
    needs the new build by quoting the monitor's line word for word, so that the line in the journal
    leads to it. It had no word on the board's firmware."""
    port.write(HELLO.replace('"protocol":1', '"protocol":2'))
    assert link.receive(5)["kind"] == "hello"
    guide = " ".join((ROOT / "firmware" / "README.md").read_text().split())
    assert "`%s`" % link.said[0].replace(port.path, "PORT") in guide


# What a board whose firmware came from commit 1106397 answers to "state" (its game cut short): the
# state reply named no protocol before a6e4ee9, though every board has spoken protocol 1.
OLD_STATE = ('{"busy":false,"game":{"config":{},"format":2,"machine":"drnim","state":{}},"id":1,"kind":"state",'
             '"now":0,"status":{"attract":false,"fault":null,"loaded":15,"mode":"play","rail":15,"turn":"player",'
             '"winner":null},"world":{"falling":0,"jammed":0,"rail":15,"releases":0,"tray":0}}\n')


def test_a_board_whose_firmware_predates_the_protocol_in_its_state_is_told_to_be_deployed(port, link):
    """A Pi updated while its Pico kept an older build: `firmware test` said the board 'speaks protocol
    None', a version no board ever had."""
    from controller.firmware.board import Board, BoardError
    from controller.firmware.board_test import Connector
    answer = threading.Thread(target=lambda: port.lines(5) and port.write(OLD_STATE), daemon=True)
    answer.start()      # once its hello is given up for, the host asks for the board's state
    connect = Connector(port.path)
    connect.link = link
    with pytest.raises(BoardError) as refused:
        connect.check(Board(link).identify(0.05), "drnim")
    assert str(refused.value) == ("the board on %s runs firmware older than this controller's, which does not say "
                                  "its protocol: deploy this controller's build to it" % port.path)


def test_the_emulated_pico_says_in_one_line_which_of_its_files_is_missing(tmp_path, monkeypatch):
    """No UF2, no boot ROM (neither named nor beside the UF2), a name that is not a file: one line each."""
    from controller.firmware.rp2040 import tools
    from controller.firmware.tools import FirmwareError
    monkeypatch.delenv("CONTROLLER_PICO_UF2", raising=False)
    monkeypatch.delenv("CONTROLLER_RP2040_BOOTROM", raising=False)
    with pytest.raises(FirmwareError, match="no MicroPython for the emulated Pico: give --uf2 FILE or set "
                                            "CONTROLLER_PICO_UF2 .*micropython.org"):
        tools()
    uf2 = tmp_path / "RPI_PICO.uf2"
    uf2.write_bytes(b"\0" * 512)
    with pytest.raises(FirmwareError, match="needs the RP2040's boot ROM: set CONTROLLER_RP2040_BOOTROM, or put "
                                            "bootrom-b1.bin beside the UF2"):
        tools(str(uf2))
    (tmp_path / "bootrom-b1.bin").write_bytes(b"\0" * 16384)
    monkeypatch.setattr("shutil.which", lambda name, *args, **kwargs: "/usr/bin/" + name)
    assert tools(str(uf2))[2] == str(tmp_path / "bootrom-b1.bin")
    monkeypatch.setenv("CONTROLLER_PICO_UF2", str(tmp_path / "nowhere.uf2"))
    with pytest.raises(FirmwareError, match="CONTROLLER_PICO_UF2: .*nowhere.uf2 is not a file"):
        tools()


def test_what_a_board_names_itself_reaches_the_report_as_escapes_on_one_line(port, link):
    """Something on a USB port that pretends to be a board names its machine, its mode and its protocol
    with an escape sequence (a terminal's title, a clear screen) and a line break that starts a line of its
    own in the journal: the monitor's report wrote them raw to the terminal and the journal. They are
    shown as escapes, on the one line of the report."""
    hostile = HELLO.replace('"drnim"', '"drnim\\u001b]0;owned\\u0007\\nFault: none"').replace(
        '"production"', '"\\u202eproduction"')
    port.write(hostile + hostile + '{"kind":"state","protocol":"\\u001b[2J","id":1}\n')
    assert [link.receive(5)["kind"] for _ in range(3)] == ["hello", "hello", "state"]
    assert len(link.said) == 2
    for line in link.said:
        assert line.isprintable(), line
    assert link.said[0].endswith("(a reset): drnim\\x1b]0;owned\\x07\\nFault: none, protocol 1, \\u202eproduction mode")
    assert "speaks protocol \\x1b[2J and" in link.said[1]


def test_a_production_board_whose_hello_went_unheard_stops_the_test_run_in_one_line(port, capsys):
    """A real board said hello before the port was opened, and its state did not say its mode: `firmware
    test --port` on a production build (the common slip: --development forgotten) played every script and
    printed a refusal or more for each, 37 failed. The state says the mode, and the run stops in one line."""
    from controller.cli import main
    state = json.loads(OLD_STATE)
    state.update(protocol=1, mode="production")

    done = threading.Event()

    def answer():
        while not done.is_set():
            for line in port.lines(0.2):
                asked = json.loads(line)
                if asked["kind"] == "state":
                    port.write(json.dumps(dict(state, id=asked["id"])) + "\n")
    answering = threading.Thread(target=answer, daemon=True)
    answering.start()
    try:
        assert main(["firmware", "test", "--port", port.path, "--machine", "drnim"], out=io.StringIO()) == 1
    finally:
        done.set()
        answering.join(5)
    assert capsys.readouterr().err == "controller firmware test: the board on %s runs in production mode, which " \
        "takes no injected events: deploy a build made with --development\n" % port.path
