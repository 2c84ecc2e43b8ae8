"""Which core modules a machine loads for its settings: the machine named in
argv[1], with argv[2] a JSON table of settings, powered up and given a press.
Prints the loaded modules of controller.core, one per line.
Runs under CPython and MicroPython."""

import json
import sys

from controller.core.registry import machine_class

machine = machine_class(sys.argv[1])(json.loads(sys.argv[2]))
machine.handle(("power",), 0)
machine.handle(("press", machine.buttons()[0]), 100)
for name in sorted(sys.modules):
    if name.startswith("controller.core."):
        print(name[len("controller.core."):])
