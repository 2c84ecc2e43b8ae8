"""Which functions that a board loads ever run on a board.

A board loading `.mpy` files holds the code of every function of every module
it imports, whether it runs or not: the bytecode, and at 32 bits about 50 bytes
more for the function's object and its name. This bench tells how much of that
is code a board never runs: host-only code that could move to a module a board
never loads, as `jsontext.py`, `board_lines.py` and `families.py` did.

It copies the firmware and the core into a scratch folder, adds a call at the
top of each function that marks it run (in a `bytearray`: a hard interrupt
handler cannot allocate), and runs there what a board runs:

- every script of tests/scenarios on the emulated board (`controller firmware
  test --emulate unix`), both machines, power cuts and faults included;
- the firmware's own unit tests (firmware/tests/units.py), which reach the
  fault paths the scenarios do not.

It prints, for each module a Dr. Nim or a Nimatron board loads (the heap
bench's load order), how many of its functions ran and the names of those that
never did, then a line per machine. A function whose body sits on its `def`
line is not counted. The emulated board brings its own console, so app.py's
`Console`, which a real board writes its lines with, is among the never run.

Measured on 2026-11-26: taking every never-run function out of what a board
loads would save at most 5.6 KiB of a Nimatron's 57 KiB of modules (1.9 of a
Dr. Nim's 50), at 32 bits.

Usage: python bench/board_reach.py
"""

import ast
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_heap import load_order, sources  # noqa: E402

from controller.core.protocol import DEVELOPMENT  # noqa: E402
from controller.core.registry import NAMES  # noqa: E402
from controller.firmware.tools import find_tool  # noqa: E402
from controller.hardware.pinmap.pico import write_board_config  # noqa: E402

MARKER = "_reach"
# The marking module, in the subset both Pythons run; each run appends its marks, whole, after
# each new function it sees (a hard handler's mark waits for the next write that succeeds).
MARKING = """import sys
marks = bytearray(%d)
path = %r + sys.implementation.name


def mark(number):
    if marks[number]:
        return
    marks[number] = 1
    try:
        with open(path, "ab") as f:
            f.write(marks)
    except MemoryError:
        pass
"""


def instrument(path, names):
    """Puts a mark at the top of each function of `path` whose body is on lines of its own;
    `names` gets each marked function's "module:qualified name", its number being its index."""
    text = path.read_text()
    lines = text.splitlines(True)
    marks = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = child.body[0]
                if first.lineno != child.lineno:
                    marks.append((first.lineno, first.col_offset, "%s:%s%s" % (path.stem, prefix, child.name)))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    tree = ast.parse(text)
    visit(tree, "")
    for lineno, column, name in sorted(marks, reverse=True):
        lines.insert(lineno - 1, "%s%s.mark(%d)\n" % (" " * column, MARKER, len(names)))
        names.append(name)
    # the import goes after the module's docstring, before its first statement
    body = tree.body
    first = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    at = body[first].lineno - 1 if first < len(body) else len(lines)
    at += sum(1 for lineno, _, _ in marks if lineno - 1 < at)
    lines.insert(at, "import %s\n" % MARKER)
    path.write_text("".join(lines))


def run(command, **options):
    result = subprocess.run(command, capture_output=True, text=True, **options)
    if result.returncode != 0:
        raise SystemExit("board_reach: %s failed: %s" % (" ".join(map(str, command[:4])),
                                                          (result.stdout + result.stderr).strip()[-400:]))
    return result


def runs(names, scratch):
    """The marked functions that ran under MicroPython, by name."""
    ran = set()
    data = (scratch / "reach-micropython").read_bytes()
    for start in range(0, len(data), len(names)):
        ran.update(number for number, marked in enumerate(data[start:start + len(names)]) if marked)
    return {names[number] for number in ran}


def main():
    with tempfile.TemporaryDirectory(prefix="board-reach-") as folder:
        scratch = Path(folder)
        ignore = shutil.ignore_patterns("__pycache__", "node_modules")
        for part in ("controller", "firmware", "tests/scenarios"):
            shutil.copytree(ROOT / part, scratch / part, ignore=ignore)
        names = []
        for place in (scratch / "controller" / "core", scratch / "firmware"):
            for path in sorted(place.glob("*.py")):
                instrument(path, names)
        (scratch / (MARKER + ".py")).write_text(MARKING % (len(names), str(scratch / "reach-")))
        env = dict(os.environ, PYTHONPATH=str(scratch))
        scripts = sorted(str(path) for path in (scratch / "tests" / "scenarios").glob("*.txt"))
        run([sys.executable, "-m", "controller", "firmware", "test", "--emulate", "unix"] + scripts,
            cwd=scratch, env=env)
        config = scratch / "config"
        write_board_config(config, "drnim", mode=DEVELOPMENT)
        firmware = scratch / "firmware"
        micropath = os.pathsep.join([".frozen", str(config), str(firmware / "emulator"), str(firmware), str(scratch)])
        (scratch / "units").mkdir()
        result = run([find_tool("micropython"), "-X", "heapsize=4m", str(firmware / "tests" / "units.py"),
                      str(scratch / "units")], cwd=scratch, env=dict(os.environ, MICROPYPATH=micropath))
        if not result.stdout.strip().endswith(" 0 failed"):
            raise SystemExit("board_reach: the firmware's unit tests failed: " + result.stdout.strip()[-400:])
        ran = runs(names, scratch)

    files = sources()
    loaded = {machine: [name.rpartition(".")[2] for name in load_order(machine, files, "app")
                        if files.get(name) is not None and name != "machine"] for machine in NAMES}
    print("functions that never ran on a board: %d scenario scripts and the firmware's unit tests"
          % len(scripts))
    for module in dict.fromkeys(each for machine in NAMES for each in loaded[machine]):
        functions = [name for name in names if name.startswith(module + ":")]
        if not functions:
            continue
        never = [name.partition(":")[2] for name in functions if name not in ran]
        print("  %-14s %3d of %3d ran%s" % (module, len(functions) - len(never), len(functions),
                                            "; never: " + ", ".join(never) if never else ""))
    for machine, modules in loaded.items():
        functions = [name for name in names if name.partition(":")[0] in modules]
        print("a %s board loads %d functions (%d modules); %d never ran"
              % (machine, len(functions), len(modules), sum(1 for name in functions if name not in ran)))


if __name__ == "__main__":
    main()
