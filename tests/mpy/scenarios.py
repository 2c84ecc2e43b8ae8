"""Run scenario files and print, as JSON, each one's full trace of events and
commands and its failed expectations. Runs unchanged under CPython and
MicroPython; the tests compare the two outputs.
Usage: scenarios.py FILE...
"""

import json
import sys

from controller.core.scenario import run

results = {}
for path in sys.argv[1:]:
    with open(path) as f:
        played = run(f.read())
    results[path.split("/")[-1]] = {"trace": played.trace, "failures": played.failures}
print(json.dumps(results))
