"""The emulated board's live heap after each game of games played back to
back (each ends with the host's `state` line with id "end"): a board left on
for months must keep nothing from one game to the next. Runs the emulated
board (firmware/emulator/board.py) on stdin; writes one number a game, in
bytes, to stderr (stdout is the board's line protocol).
"""

import gc
import sys

import board
import runner

answer = runner.Runner.line


def line(self, raw, length=0):
    answer(self, raw, length)
    if raw is not None and b'"id":"end"' in raw:
        gc.collect()
        sys.stderr.write("%d\n" % gc.mem_alloc())


runner.Runner.line = line
sys.exit(board.main(sys.argv[1:]))
