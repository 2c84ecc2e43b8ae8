"""The board's line protocol (controller/core/protocol.py): what a host line
may be, what a board makes of it, and the same answers under CPython and the
real MicroPython interpreter."""

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT, run_micropython
from controller.core.drnim import DrNim
from controller.core.nimatron import Nimatron
from controller.core.jsontext import encode
from controller.core.board_lines import reply
from controller.core.protocol import MAX_LINE, ProtocolError, checked, decode, hello, machine_event

CASES = ROOT / "tests" / "mpy" / "protocol_cases.py"
GOOD = [
    b'{"kind":"state"}',
    b'{"kind":"state","id":7}',
    b' {"kind" : "new_game", "settings": {"marbles": 11, "rule": "last-wins"}, "id": "a"}\r',
    b'{"kind":"inject","event":["press","trigger"]}',
    b'{"kind":"inject","event":["switch","turn","left"]}',
    b'{"kind":"inject","event":["marble"]}',
    b'{"kind":"advance","ms":600000,"settle":true}',
    b'{"kind":"new_game","settings":{"openings":[[1,3,5,7]],"title":"caf\\u00e9 \\ud83d\\ude00"}}',
    b'{"kind":"state","heap":true,"id":8}',
]
BAD = [
    b'', b'{', b'nul', b'[1,2]', b'{"kind":7}', b'{"kind":"zap"}', b'{"kind":"state","x":1}',
    b'{"kind":"state","kind":"state"}', b'{"kind":"advance","ms":1.5}', b'{"kind":"advance","ms":-1}',
    b'{"kind":"advance","ms":1e3}', b'{"kind":"advance","ms":0100}', b'{"kind":"advance"}',
    b'{"kind":"inject","event":["press","nobody"]}', b'{"kind":"inject","event":["switch","turn","up"]}',
    b'{"kind":"inject","event":["fly"]}', b'{"kind":"inject","event":"press trigger"}',
    b'{"kind":"inject","event":[]}', b'{"kind":"new_game","settings":[]}', b'{"kind":"state","id":[1]}',
    b'{"kind":"state"} {"kind":"state"}', b'{"kind":"st\xc3\xa4te"}', b'{"kind":"\\ud800"}',
    b'{"kind":"\\u12"}', b'{"kind":"a\x01"}', b'{"kind":"state","id":1' + b'2' * 20 + b'}',
    b'{"kind":"state","heap":1}', b'[' * 40 + b']' * 40, b'{"kind":"state","pad":"' + b'x' * MAX_LINE + b'"}',
]


def board_view(tmp_path, runner, mode="development", clock="host", *more):
    path = tmp_path / "lines.txt"
    path.write_bytes(b"\n".join([("%s %s" % (mode, clock)).encode()] + GOOD + BAD))
    if runner == "cpython":
        result = subprocess.run([sys.executable, str(CASES), str(path)], cwd=ROOT, capture_output=True,
                                env={"PYTHONPATH": str(ROOT)}, timeout=60)
    else:
        result = run_micropython(runner, str(CASES), str(path), *more)
        result.stdout = result.stdout.encode()
    assert result.returncode == 0, result.stderr
    return result.stdout.decode().splitlines()


def test_a_board_reads_each_line_the_same_under_micropython(tmp_path, micropython):
    cpython = board_view(tmp_path, "cpython")
    assert board_view(tmp_path, micropython) == cpython
    answers = [json.loads(line) for line in cpython]
    assert [a["kind"] for a in answers[:len(GOOD)]] == ["state", "state", "new_game", "inject", "inject", "inject",
                                                        "advance", "new_game", "state"]
    assert answers[4]["event"] == ["switch", "turn", "machine"]     # a script's word made the machine's side
    assert answers[7]["settings"]["title"] == "caf\u00e9 \U0001F600"
    errors = answers[len(GOOD):]
    assert len(errors) == len(BAD) and all(a["kind"] == "error" for a in errors)


# What MicroPython's built-in reader lets through that ours refuses: a repeated key
# (the last one counts) and a leading 0. Neither is a line anything sends.
LENIENT = [b'{"kind":"state","kind":"state"}', b'{"kind":"advance","ms":0100}']


def test_a_board_reading_with_the_built_in_json_takes_and_refuses_the_same_lines(tmp_path, micropython):
    """What a board runs: MicroPython's json (C) reads, the protocol checks what it read."""
    ours = [json.loads(line) for line in board_view(tmp_path, "cpython")]
    board = [json.loads(line) for line in board_view(tmp_path, micropython, "development", "host", "--builtin-json")]
    assert board[:len(GOOD)] == ours[:len(GOOD)]
    refused = [line for line, answer in zip(BAD, board[len(GOOD):]) if answer["kind"] == "error"]
    assert [line for line in BAD if line not in refused] == LENIENT
    said = dict(zip(BAD, (answer.get("error") for answer in board[len(GOOD):])))
    assert said[b'{"kind":"advance","ms":1.5}'] == "1.5: numbers are whole"
    assert said[b'{"kind":"state","id":1' + b'2' * 20 + b'}'] == "a number of more than 15 digits"
    assert said[b'[' * 40 + b']' * 40] == "nested more than 6 deep"
    assert said[b'{'].startswith("not JSON (")
    assert said[b'{"kind":"st\xc3\xa4te"}'].startswith("column 12: byte 0xc3")


def test_every_refusal_is_one_line_saying_what_and_where(tmp_path):
    errors = [json.loads(line)["error"] for line in board_view(tmp_path, "cpython")[len(GOOD):]]
    for text in errors:
        assert "\n" not in text and "Traceback" not in text and len(text) < 200, text
    said = dict(zip(BAD, errors))
    assert said[b'{"kind":"zap"}'].startswith("unknown kind 'zap'")
    assert said[b'{"kind":"advance","ms":1.5}'] == "column 25: a fraction or an exponent: numbers are whole at '.5}'"
    assert said[b'{"kind":"inject","event":["press","nobody"]}'] == "inject: drnim has no button 'nobody'"
    assert said[b'{"kind":"st\xc3\xa4te"}'].startswith("column 12: byte 0xc3")
    assert said[b'{"kind":"state","heap":1}'] == "state: heap 1 is not true or false"
    assert said[BAD[-1]] == "line too long: 1049 bytes, at most 1024"


def test_a_line_one_byte_too_long_is_counted_in_bytes_as_a_longer_one_is():
    line = b'{"kind":"state","pad":"' + b"x" * 1000 + b'"}'
    for extra in (b"", b"x" * 100):
        with pytest.raises(ProtocolError) as refused:
            decode(line + extra)        # as a board hands it over, its end of line taken off
        assert str(refused.value) == "line too long: %d bytes, at most 1024" % (len(line) + len(extra))


def test_production_refuses_development_lines_and_a_real_clock_refuses_advance(tmp_path):
    answers = [json.loads(line) for line in board_view(tmp_path, "cpython", "production", "real")[:len(GOOD)]]
    assert [a["kind"] for a in answers] == ["state", "state", "new_game", "error", "error", "error", "error",
                                            "new_game", "state"]
    assert answers[3]["error"] == "inject: only in development mode, and this board runs in production mode"
    with pytest.raises(ProtocolError, match="advance: this board keeps its own time"):
        checked(decode(b'{"kind":"advance","ms":5}'), "development", "real")


def test_a_board_line_round_trips_and_the_host_reads_it():
    line = encode({"kind": "command", "command": ("row", 2, 5), "at": 12500})
    assert line == '{"at":12500,"command":["row",2,5],"kind":"command"}'
    assert reply(line) == {"kind": "command", "command": ["row", 2, 5], "at": 12500}
    game = DrNim().to_dict()
    assert decode(encode({"kind": "state", "game": game}))["game"] == json.loads(json.dumps(game))
    assert reply(encode(hello("drnim", "production", "real", resumed="new"))) == {
        "kind": "hello", "protocol": 1, "machine": "drnim", "mode": "production", "clock": "real", "resumed": "new"}
    with pytest.raises(ProtocolError, match="unknown kind 'inject'"):
        reply('{"kind":"inject","event":["marble"]}')
    with pytest.raises(ValueError, match="cannot send 0.5"):
        encode({"kind": "status", "x": 0.5})


def test_the_nimatron_rows_are_its_buttons():
    machine = Nimatron({"rows": 3})
    assert machine_event(machine, ["press", "row3"]) == ("press", "row3")
    with pytest.raises(ProtocolError, match="nimatron has no button 'row4'"):
        machine_event(machine, ["press", "row4"])
    with pytest.raises(ProtocolError, match="'marble' is not an event of nimatron"):
        machine_event(machine, ["marble"])


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-10 ** 14, 10 ** 14) | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=4), max_leaves=12)


@settings(max_examples=100, deadline=None)
@given(JSON_VALUES)
def test_what_is_encoded_decodes_to_itself(value):
    message = {"kind": "x", "v": value}
    line = encode(message)
    assert line.isascii() and "\n" not in line
    assert json.loads(line) == message
    if len(line) <= MAX_LINE:
        try:
            assert decode(line) == message
        except ProtocolError as error:
            assert "nested more than" in str(error)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=80) | st.text(max_size=80).map(lambda t: ('{"kind":"state","id":' + t).encode("utf-8")))
def test_no_line_breaks_the_parser(line):
    try:
        checked(decode(line))
    except ProtocolError as error:
        assert "\n" not in str(error)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=80) | st.sampled_from([b'{"kind":"command","command":["release"],"at":5}',
                                                 b'{"kind":"hello","protocol":1}']).map(lambda b: b[:len(b) // 2]))
def test_no_board_line_breaks_the_host(line):
    """A host reading a board's noise (boot text, a line cut by a reset) gets one ProtocolError, never a crash."""
    try:
        reply(line)
    except ProtocolError as error:
        assert "\n" not in str(error)


def test_reading_and_writing_lines_interns_no_strings_under_micropython(micropython):
    """Every distinct character a host sends must not be kept for good on the board: the protocol
    reads and writes text by slices, never one character at a time (which MicroPython interns)."""
    result = run_micropython(micropython, str(ROOT / "tests" / "mpy" / "protocol_qstrs.py"))
    assert result.returncode == 0, result.stderr
    counts = [int(line.split("n_qstr=")[1].split(",")[0]) for line in result.stdout.splitlines()
              if "n_qstr=" in line]
    assert len(counts) == 2 and counts[1] == counts[0], result.stdout
