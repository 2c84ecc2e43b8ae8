"""The saved game in the board's flash, crash-safe: written to a new file,
then renamed over the old one (LittleFS renames atomically), so a power cut
leaves either the old game or the new one, never half of one."""

import json
import os


def save(path, data):
    """Write `data` as JSON safely, by MicroPython's json straight into the
    file (its text is never held whole); OSError (a full flash) is the caller's."""
    temporary = path + ".new"
    with open(temporary, "w") as f:
        json.dump(data, f, separators=(",", ":"))
    os.rename(temporary, path)


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
