"""Benchmarks of the web page: the core's machines in MicroPython's
WebAssembly port, in Debian's headless Chromium. Prints figures; asserts nothing.

    .venv/bin/python bench/bench_web.py          (or: make bench)

- time from the page's load to its first playable frame (the machine drawn
  and taking events), the first load (the port compiled afresh) and later ones;
- the MicroPython heap after a complete Dr. Nim game played through the page's bridge;
- events per second through the machine in the browser: through the bridge, JSON
  both ways as the page feeds it, and the machine alone (tests/mpy/machine_game.py).
"""

import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.web.browser import missing, open_page, served_page  # noqa: E402

LOADS = 6
SECONDS = 2.0

# Complete Dr. Nim games through the page's bridge on a made-up clock, as
# tests/mpy/machine_game.py plays them: the visitor takes one marble a turn.
BRIDGE_GAMES = """(seconds) => {
  const b = nim.bridge;
  let events = 0, games = 0, busy = 0;
  while (busy < seconds * 1000) {
    const started = performance.now();
    let t = 0;
    let v = JSON.parse(b.start("drnim", '{"equalizer": false}', t)).view;
    while (v.mode === "play") {
      t += 500; b.handle('["press", "trigger"]', t);
      t += 100; b.handle('["release", "trigger"]', t);
      t += 300; v = JSON.parse(b.advance(t)).view;
      if (v.mode !== "play") break;
      t += 200; b.handle('["switch", "turn", "machine"]', t);
      t += 200; v = JSON.parse(b.handle('["press", "trigger"]', t)).view;
      while (v.running) { t = v.next; v = JSON.parse(b.advance(t)).view; }
    }
    busy += performance.now() - started;
    events += JSON.parse(b.trace()).trace.length;
    games += 1;
  }
  return [events, games, busy];
}"""

MACHINE_GAMES = """(seconds) => {
  const mp = nim.mp;
  mp.runPython("import machine_game\\ndef bench_game():\\n    return machine_game.drnim_game()[0].events");
  const game = mp.globals.get("bench_game");
  let events = 0, games = 0;
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    events += game();
    games += 1;
  }
  return [events, games, performance.now() - started];
}"""


def main():
    reason = missing()
    if reason:
        print("web page: skipped, %s" % reason)
        return
    with served_page() as (context, address, _):
        loads = []
        stages = []
        for _ in range(LOADS):
            page = open_page(context, address + "?machine=drnim")
            loads.append(page.evaluate("nim.firstFrameMs"))
            stages.append(page.evaluate("nim.stages"))
            page.close()
        print("web page: first playable frame %.0f ms after the load began (first load), median %.0f ms "
              "(loads 2-%d: %s)" % (loads[0], statistics.median(loads[1:]), LOADS,
                                    " ".join("%.0f" % ms for ms in loads[1:])))
        print("web page: of which, median of loads 2-%d: the core's files fetched by %.0f ms, MicroPython "
              "started by %.0f ms, the machines' declarations (the core imported) by %.0f ms"
              % (LOADS, *(statistics.median(s[name] for s in stages[1:]) for name in ("files", "runtime", "machines"))))

        page = open_page(context, address + "?machine=drnim")
        lines = []
        page.on("console", lambda message: lines.append(message.text))
        page.evaluate(BRIDGE_GAMES, 0.001)      # one complete game, on a freshly loaded page
        page.evaluate("nim.mp.runPython('import gc, micropython\\ngc.collect()\\nmicropython.mem_info()')")
        page.wait_for_timeout(100)
        used = total = None
        for line in lines:
            found = re.search(r"GC: total: (\d+), used: (\d+)", line)
            if found:
                total, used = int(found.group(1)), int(found.group(2))
        print("web page: MicroPython heap after a complete Dr. Nim game: %d KiB in use after gc.collect() "
              "(the core's modules loaded, the game's trace kept), of a %d KiB heap" % (used // 1024, total // 1024))
        events, games, elapsed = page.evaluate(BRIDGE_GAMES, SECONDS)
        print("web page: %d events/s through the bridge (JSON both ways, as the page feeds them; %d complete "
              "Dr. Nim games, %d events each, in %.1f s)" % (events / elapsed * 1000, games, events // games,
                                                             elapsed / 1000))
        source = (ROOT / "tests" / "mpy" / "machine_game.py").read_text()
        page.evaluate("(text) => nim.mp.FS.writeFile('/machine_game.py', text)", source)
        events, games, elapsed = page.evaluate(MACHINE_GAMES, SECONDS)
        print("web page: %d events/s through the machine alone in the browser's MicroPython (%d complete "
              "Dr. Nim games of tests/mpy/machine_game.py, %d events each, in %.1f s)"
              % (events / elapsed * 1000, games, events // games, elapsed / 1000))


if __name__ == "__main__":
    main()
