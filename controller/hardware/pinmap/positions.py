"""Where each key of a TOML file is, by line: tomllib gives values, not
positions, and an error message must name the line to look at.

A light scan, not a parser: table headers and `key = value` lines, skipping
multi-line strings. Keys inside an inline table are found through their
table's line (`line_of`).
"""

import re

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _read_key(text, i):
    """A TOML key (bare, quoted, dotted) at text[i:]: (parts, index after it), or None."""
    parts = []
    n = len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            return None
        c = text[i]
        if c == '"':
            j = i + 1
            out = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                out.append(text[j])
                j += 1
            if j >= n:
                return None
            parts.append("".join(out))
            i = j + 1
        elif c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                return None
            parts.append(text[i + 1:j])
            i = j + 1
        else:
            m = _BARE.match(text, i)
            if not m:
                return None
            parts.append(m.group())
            i = m.end()
        while i < n and text[i] in " \t":
            i += 1
        if i < n and text[i] == ".":
            i += 1
            continue
        return tuple(parts), i


def key_lines(text):
    """Where each table header and key is: {("inputs", "trigger", "pin"): line, ...}.

    A light scan, not a parser (tomllib gives no positions): headers and
    `key = value` lines, skipping multi-line strings. Keys inside an inline
    table are found through their table's line (see `line_of`).
    """
    lines = {}
    for number, parts, header in _scan(text):
        if header:
            lines.setdefault(parts, number)
        else:
            key, table = parts
            for k in range(table + 1, len(key) + 1):
                lines.setdefault(key[:k], number)
    return lines


def _scan(text):
    """(line, parts, True) for each table header, (line, (the key's parts with its table's, the table's
    length), False) for each `key = value`, in order."""
    prefix = ()
    open_string = None
    for number, line in enumerate(text.splitlines(), 1):
        if open_string:
            if open_string in line:
                open_string = None
            continue
        stripped = line.lstrip()
        if stripped.startswith("["):
            start = 2 if stripped.startswith("[[") else 1
            found = _read_key(stripped, start)
            if found and found[1] < len(stripped) and stripped[found[1]] == "]":
                prefix = found[0]
                yield number, prefix, True
            continue
        found = _read_key(stripped, 0)
        if not found or found[1] >= len(stripped) or stripped[found[1]] != "=":
            continue
        yield number, (prefix + found[0], len(prefix)), False
        value = stripped[found[1] + 1:].lstrip()
        for quotes in ('"""', "'''"):
            if value.startswith(quotes) and value.count(quotes) == 1:
                open_string = quotes


def line_of(lines, key):
    """The line of a dotted key, else of its nearest enclosing table or key, else 1."""
    parts = tuple(key.split("."))
    for k in range(len(parts), 0, -1):
        if parts[:k] in lines:
            return lines[parts[:k]]
    return 1


def written_twice(text, message, number):
    """tomllib's words for a key or a table written twice ('Cannot overwrite a value', 'Cannot declare
    ('telemetry',) twice'), which named neither: what is twice, on which lines, and what to do, or None. A
    technician who pastes a guide's [telemetry] into a configuration that has one, or adds enabled = true
    under the shipped enabled = false, meets it; a builder who copies an output's lines in a pin map too."""
    if not message.startswith(("Cannot overwrite a value", "Cannot declare")):
        return None
    # the header or key each line sets; a value over several lines (an array, a multi-line string) is told at
    # the line where it ends, after the key's
    keys = dict((line, parts if header else parts[0]) for line, parts, header in _scan(text))
    while number > 1 and number not in keys:
        number -= 1
    key = keys.get(number)
    first = key and key_lines(text).get(key)
    if not first or first == number:
        return None
    name = ".".join(key)
    if message.startswith("Cannot declare"):
        return "[%s] is written twice, at line %d and at line %d: put the settings of both under the first" % (
            name, first, number)
    return "%s is set twice, at line %d and at line %d: keep one" % (name, first, number)
