"""The saved game in the board's flash, crash-safe by LittleFS itself (the
file system MicroPython formats a Pico's flash with): a file's new contents
are committed whole when it is closed, so a power cut leaves either the old
game or the new one, never half of one.

The game is so written over in place. Writing a new file and renaming it over
the old one, as a file system without that promise needs, costs a Pico's
LittleFS a second commit each time: on the emulated Pico a save took 8.1
pages of 256 bytes and 0.52 sector erases that way, 1.7 pages and 0.14
erases in place (bench/bench_pico.py gives what a game costs)."""

import json
import os


def save(path, data):
    """Write `data` as JSON over the saved game, by MicroPython's json straight
    into the file (its text is never held whole); OSError (a full flash) is the
    caller's."""
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))


def read(path):
    """The saved text, or None when there is none or it cannot be read."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def write(path, text):
    """A small file written whole (its old text, if any, replaced)."""
    with open(path, "w") as f:
        f.write(text)


def exists(path):
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def take(path):
    """True when a file was at `path`; it is gone now."""
    try:
        os.remove(path)
    except OSError:
        return False
    return True


def set_aside(path):
    """Keep a save that cannot be resumed as PATH.bad, for a look later."""
    try:
        os.rename(path, path + ".bad")
    except OSError:
        pass
