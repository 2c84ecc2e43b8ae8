"""Dr. Nim under a random visitor and a random world (tests/test_stateful.py's
DrNimWorld: presses, switches, marbles dropped by hand, jams, glitches,
waiting and restores, the invariants checked after every step) for many
more games than the suite's sample of 100. Prints figures; a broken
invariant is printed with Hypothesis's shortest example of it.

    .venv/bin/python bench/stateful.py [GAMES]      (default 5,000)

The last line is `stateful: N games of up to 80 steps: every invariant held` (or: an
invariant broke, shown above; Hypothesis stops at the first).
"""

import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import settings  # noqa: E402
from hypothesis.stateful import run_state_machine_as_test  # noqa: E402

from test_stateful import STEPS, DrNimWorld  # noqa: E402


def main(argv):
    games = int(argv[0]) if argv else 5000
    start = time.perf_counter()
    held = True
    try:
        run_state_machine_as_test(DrNimWorld, settings=settings(max_examples=games, stateful_step_count=STEPS,
                                                                deadline=None, database=None))
    except Exception:
        held = False
        traceback.print_exc()
    print("%.0f s" % (time.perf_counter() - start))
    print("stateful: %d games of up to %d steps: %s" % (games, STEPS, "every invariant held" if held
                                                        else "an invariant broke (above)"))


if __name__ == "__main__":
    main(sys.argv[1:])
