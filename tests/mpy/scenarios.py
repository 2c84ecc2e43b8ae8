"""Run scenario files and print, as JSON, each one's full trace of events and
commands, the machine's working (`explain()`) after every step, and its failed
expectations. Runs unchanged under CPython and MicroPython; the tests compare
the two outputs.
Usage: scenarios.py FILE...
"""

import json
import sys

from controller.core.scenario import CoreWorld, Script

results = {}
for path in sys.argv[1:]:
    with open(path) as f:
        text = f.read()
    world = CoreWorld()
    working = []
    played = Script(world, lambda line: working.append(world.machine.explain())).play(text)
    results[path.split("/")[-1]] = {"trace": played.trace, "failures": played.failures, "working": working}
print(json.dumps(results))
