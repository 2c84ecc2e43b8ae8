"""The kill campaign: the real service on mock pins with the marble world
(tests/kill_rig.py), killed with SIGKILL at random moments and restarted,
ROUNDS times. Prints figures; asserts nothing.

    .venv/bin/python bench/kill_campaign.py [ROUNDS]          (default 1,000)

Each resume is judged against the world's log of the marbles that really
passed the gate: an exact resume, a game held in check (a release was under
way at the kill: the count cannot be known), or a miscount. The last line is
`kills N: exact resumes A, held in check B, miscounts C`.
"""

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from kill_rig import campaign  # noqa: E402

SEED = 2026


def main(argv):
    rounds = int(argv[0]) if argv else 1000

    def report(number, verdict, expected, resumed):
        if verdict == "miscount":
            print("kill %d: miscount: expected %s, resumed %s" % (number, expected, resumed), flush=True)
        elif number % 100 == 0:
            print("kill %d ..." % number, flush=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kill-campaign-") as folder:
        counts = campaign(folder, rounds, SEED, report)
    elapsed = time.perf_counter() - start
    print("%d marbles passed the gate in all; %.0f s (%.2f s a kill)" % (counts["marbles"], elapsed, elapsed / rounds))
    print("kills %d: exact resumes %d, held in check %d, miscounts %d"
          % (rounds, counts["exact"], counts["held"], counts["miscount"]))


if __name__ == "__main__":
    main(sys.argv[1:])
