"""The stop campaign: the real service loop on mock pins, its inputs flooded
with edges, stopped by SIGTERM at a random moment, ROUNDS times over a few
processes at once (tests/stop_rig.py's campaign, of which the suite runs
forty stops in tests/test_stress.py). Prints figures; asserts nothing.

    .venv/bin/python bench/stop_campaign.py [ROUNDS] [PROCESSES]      (default 2,000 over 2)

A round passes when the loop returns and every output is at its inactive
level. The last line is `stops N: outputs left on F, hangs H, slowest S s`
(a hang: a round that did not return within the rig's 20 s; its process then
ends with the stacks dumped, and its remaining rounds are not played).
"""

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from stop_rig import campaign  # noqa: E402

SEED = 2026


def main(argv):
    rounds = int(argv[0]) if argv else 2000
    processes = int(argv[1]) if len(argv) > 1 else 2
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="stop-campaign-") as folder:
        results, failed = campaign(-(-rounds // processes), processes, SEED, folder)
    took = sorted(seconds for seconds, _ in results)
    if took:
        print("from the signal to the outputs off: median %.1f ms, 99th percentile %.1f ms, slowest %.1f ms"
              % (1000 * took[len(took) // 2], 1000 * took[int(len(took) * 0.99)], 1000 * took[-1]))
    print("%d rounds in %.0f s" % (len(results), time.perf_counter() - start))
    print("stops %d: outputs left on %d, hangs %d, slowest %.2f s"
          % (len(results), sum(1 for _, off in results if not off), len(failed), took[-1] if took else 0.0))


if __name__ == "__main__":
    main(sys.argv[1:])
