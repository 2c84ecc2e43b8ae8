"""Events per second on the emulated board: the real firmware under the unix
`micropython`, driven over a pseudo-terminal with the line protocol, as
`controller firmware test --emulate` drives it. Prints figures; asserts nothing.

    .venv/bin/python bench/bench_firmware.py          (or: make bench)

Each complete Dr. Nim game is played as a visitor would play it (the visitor
takes one marble a turn, then hands the turn to Dr. Nim), every step sent as
an `inject` or `advance` line. Counted: the events the board's machine
handled (its `event` lines: presses, releases, switches, marbles, ticks),
per second of wall time, end to end (the board's work, its flash saves, the
lines both ways and the host's parsing). A board on its own clock does the
same work per event, without the host's lines.
"""

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.core.scenario import GAP_MS, PRESS_MS, SETTLE_LIMIT_MS  # noqa: E402
from controller.firmware.board_test import Connector  # noqa: E402
from controller.firmware.tools import FirmwareError  # noqa: E402

SECONDS = 5.0


def press(role):
    return [("inject", {"event": ["press", role]}), ("advance", {"ms": PRESS_MS}),
            ("inject", {"event": ["release", role]}), ("advance", {"ms": GAP_MS}),
            ("advance", {"ms": SETTLE_LIMIT_MS, "settle": True})]


def play_games(board, seconds):
    """Complete games for `seconds`; (games, events, lines from the board, elapsed s)."""
    counts = {"events": 0, "lines": 0, "over": False}

    def seen(message):
        counts["lines"] += 1
        if message["kind"] == "event":
            counts["events"] += 1
        elif message["kind"] == "game_over":
            counts["over"] = True

    board.on_line = seen
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        counts["over"] = False
        board.ask("new_game", settings={"marbles": 15, "equalizer": False})
        while not counts["over"]:
            board.ask_all(press("trigger") + [("inject", {"event": ["switch", "turn", "machine"]})]
                          + press("trigger"))
        games += 1
    return games, counts["events"], counts["lines"], time.perf_counter() - start


def cpu_seconds(pid):
    """The CPU time (user + system) the process has used, from /proc; None elsewhere."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    connect = Connector(emulate=True)
    try:
        board = connect("drnim")
        play_games(board, 0.5)  # warm up: the interpreter compiles the firmware on first use
        before = cpu_seconds(connect.emulator.process.pid)
        games, events, lines, elapsed = play_games(board, SECONDS)
        after = cpu_seconds(connect.emulator.process.pid)
    except FirmwareError as error:
        print("emulated board: not measured (%s)" % error)
        return
    finally:
        connect.close()
    print("emulated board (firmware under micropython, over a pty): %d events/s, %d lines/s from the board "
          "(%d complete Dr. Nim games, %d events each, in %.1f s)"
          % (events / elapsed, lines / elapsed, games, events // max(games, 1), elapsed))
    if before is not None and after > before:
        print("emulated board: %d events per second of the interpreter's own CPU time (%.1f s of it)"
              % (events / (after - before), after - before))


if __name__ == "__main__":
    main()
