# The Pico runs main.py at power-up: the compiled firmware does the rest (firmware/app.py).
# Frozen modules first, and no /lib: a module built into MicroPython (asyncio) is then found
# without three lookups in the flash's file system for files that are not there, and a board
# boots about 20 ms sooner (bench/bench_pico.py).
import sys

sys.path[:] = [".frozen", ""]

import app  # noqa: E402

app.run()
