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
                lines.setdefault(prefix, number)
            continue
        found = _read_key(stripped, 0)
        if not found or found[1] >= len(stripped) or stripped[found[1]] != "=":
            continue
        parts = prefix + found[0]
        for k in range(len(prefix) + 1, len(parts) + 1):
            lines.setdefault(parts[:k], number)
        value = stripped[found[1] + 1:].lstrip()
        for quotes in ('"""', "'''"):
            if value.startswith(quotes) and value.count(quotes) == 1:
                open_string = quotes
    return lines


def line_of(lines, key):
    """The line of a dotted key, else of its nearest enclosing table or key, else 1."""
    parts = tuple(key.split("."))
    for k in range(len(parts), 0, -1):
        if parts[:k] in lines:
            return lines[parts[:k]]
    return 1
