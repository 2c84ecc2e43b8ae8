"""The host's serial link to a board (controller/firmware/link.py), with real
pyserial over a real pseudo-terminal: the lines both ways, a board that
resets, a cable pulled and plugged in again, noise on the wire."""

import json

import pytest

from serial_rig import Port
from controller.firmware.link import Link

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
