"""Whole-number settings changed in a TOML text, the rest of the text kept.

The configuration is a file people annotate (systemd/config.toml documents
every line), so `controller calibrate` changes only the value on a
setting's line and keeps its spacing and its comment; a setting the file
lacks is added at the end of its section, a missing section at the end of
the file. The project has no TOML writer (tomlkit would be one more
dependency on the Pi for two numbers), so the result is proved instead:
read back with tomllib, it must equal the old file with exactly those
values changed, or nothing is changed at all.
"""

import re
import tomllib

HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_-]+)\s*\]\s*(#.*)?$")
ANY_HEADER = re.compile(r"^\s*\[")


class EditError(ValueError):
    """A TOML text that cannot be changed safely by editing one line."""


def key_line(key):
    return re.compile(r"^(\s*%s\s*=\s*)([^#\s][^#]*?)(\s*(#.*)?)$" % re.escape(key))


def set_whole_numbers(text, section, values):
    """`text` with each key of `values` (whole numbers) set in `[section]`."""
    lines = text.splitlines(keepends=True)
    for key, value in values.items():
        lines = set_one(lines, section, key, value)
    edited = "".join(lines)
    expected = tomllib.loads(text)
    expected.setdefault(section, {}).update(values)
    try:
        if tomllib.loads(edited) != expected:
            raise EditError("the edit would change more than %s" % ", ".join(values))
    except tomllib.TOMLDecodeError as error:
        raise EditError("the edit would not read back (%s)" % error)
    return edited


def set_one(lines, section, key, value):
    start = next((number for number, line in enumerate(lines) if section_of(line) == section), None)
    if start is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        return lines + ["\n", "[%s]\n" % section, "%s = %d\n" % (key, value)]
    end = next((number for number in range(start + 1, len(lines)) if ANY_HEADER.match(lines[number])), len(lines))
    pattern = key_line(key)
    last = start
    for number in range(start + 1, end):
        match = pattern.match(lines[number].rstrip("\r\n"))
        if match:
            ending = lines[number][len(lines[number].rstrip("\r\n")):]
            lines[number] = match.group(1) + aligned(match.group(2), str(value), match.group(3)) + ending
            return lines
        if lines[number].strip() and not lines[number].lstrip().startswith("#"):
            last = number
    newline = "\n" if lines[last].endswith("\n") else ""
    if not newline:
        lines[last] += "\n"
    return lines[:last + 1] + ["%s = %d\n" % (key, value)] + lines[last + 1:]


def aligned(old, new, rest):
    """The new value and what followed the old one, its comment kept in its column."""
    comment = rest.lstrip()
    if not comment:
        return new
    return new + " " * max(1, len(old) + len(rest) - len(comment) - len(new)) + comment


def section_of(line):
    match = HEADER.match(line.rstrip("\r\n"))
    return match.group(1) if match else None
