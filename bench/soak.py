"""The soak: autoplay with jams, glitches and bounce on, on both machines, for
as many games as a museum sees in months. Prints figures; asserts nothing.

    .venv/bin/python bench/soak.py [GAMES] [MACHINE]    (GAMES per machine, default 10,000; both machines)

For each machine: games per second, the closing summary (faults by kind,
what the world did, games that ended with marbles left), and the resident
memory of this process after 1,000 games and after GAMES games. The memory
must stay flat (within a few MiB): a run that grows is keeping something for
ever (it was gpiozero's mock pins' history of states and the simulator's list
of every command; see controller/sim/pins.py).
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.core.registry import NAMES  # noqa: E402
from controller.sim.autoplay import autoplay, summary_lines  # noqa: E402
from controller.sim.engine import Simulation  # noqa: E402

FAULTS = {"jam_rate": 0.02, "glitch_rate": 0.02, "bounce": True}
CHECKPOINT = 1000
SEED = 3


def resident_mib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def soak(machine, games):
    sim = Simulation(machine, {}, seed=SEED, **FAULTS)
    memory = {}

    def after_game(line):
        played = int(line.split()[1].rstrip(":"))
        if played == min(CHECKPOINT, games) or played == games:
            memory[played] = resident_mib()
        if played % CHECKPOINT == 0:
            print("  %s: %d games, %.0f s, %.1f MiB" % (machine, played, time.perf_counter() - start, resident_mib()),
                  flush=True)
    start = time.perf_counter()
    try:
        summary = autoplay(sim, games, "novice", SEED, after_game)
    finally:
        sim.close()
    elapsed = time.perf_counter() - start
    print("%s: %d games in %.0f s: %.1f games/s" % (machine, games, elapsed, games / elapsed))
    for line in summary_lines(summary):
        print("  " + line)
    print("  resident memory: " + ", ".join("%.1f MiB after %d games" % (memory[n], n) for n in sorted(memory)))
    if len(memory) == 2:
        first, last = (memory[n] for n in sorted(memory))
        print("  growth from game %d to game %d: %+.1f MiB" % (min(memory), max(memory), last - first))


def main(argv):
    games = int(argv[0]) if argv else 10000
    machines = argv[1:] or NAMES
    print("soak: %d games per machine, novice visitor, jam rate %.2f, glitch rate %.2f/s, bounce on, seed %d"
          % (games, FAULTS["jam_rate"], FAULTS["glitch_rate"], SEED))
    for machine in machines:
        soak(machine, games)


if __name__ == "__main__":
    main(sys.argv[1:])
