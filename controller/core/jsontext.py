"""The protocol's JSON, ours: a writer that sorts keys and writes ASCII only,
so CPython and MicroPython write the same bytes, and a strict reader of the
subset a line or a saved game may hold, whose every refusal is one line
saying what and at which column (floats, deep nesting, long numbers, escapes
that make no character).

A board does not load this module: MicroPython's built-in `json` (C) reads
and writes its lines and its save, and protocol.py checks what it read
(`protocol.decode(..., parse=json.loads)`). The host, the tests and the web
page's bridge use it. It imports nothing of the protocol's, which passes its
limits in.
"""

from .quoting import quoted


class JsonTextError(ValueError):
    """Text that is not JSON of the protocol's subset; the message says what and where."""


# --- writing ----------------------------------------------------------------
# Nesting a writer follows, at most: deeper than any line or save it is given.
WRITE_DEPTH = 26


def encode(message):
    """`message` (dicts, lists, tuples, text, whole numbers, true/false/None)
    as one line of JSON without the newline: keys sorted, ASCII only."""
    parts = []
    dump(message, parts.append)
    return "".join(parts)


def dump(value, write, depth=0):
    """`value` as `encode` writes it, given piece by piece to `write` (a
    file's), so a board saves its game without holding its text whole."""
    if depth > WRITE_DEPTH:
        raise JsonTextError("cannot send a value nested more than %d deep" % WRITE_DEPTH)
    if value is None:
        write("null")
    elif value is True:
        write("true")
    elif value is False:
        write("false")
    elif isinstance(value, int):
        write(str(value))
    elif isinstance(value, str):
        _string(value, write)
    elif isinstance(value, (list, tuple)):
        write("[")
        for i, item in enumerate(value):
            if i:
                write(",")
            dump(item, write, depth + 1)
        write("]")
    elif isinstance(value, dict):
        write("{")
        for i, key in enumerate(sorted(value)):
            if not isinstance(key, str):
                raise JsonTextError("cannot send the key %s: keys are text" % quoted(key))
            if i:
                write(",")
            _string(key, write)
            write(":")
            dump(value[key], write, depth + 1)
        write("}")
    else:
        raise JsonTextError("cannot send %s: only text, whole numbers, true, false, null, lists and tables"
                            % quoted(value))


ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
UNESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _string(text, write):
    """`text` in double quotes. MicroPython interns every one-character string
    that indexing or iterating over text makes, for good, so the text is
    scanned as bytes and cut by slices, never a character at a time."""
    plain = True
    for byte in text.encode():
        if byte < 0x20 or byte > 0x7E or byte == 0x22 or byte == 0x5C:
            plain = False
            break
    if plain:
        write('"')
        write(text)
        write('"')
        return
    out = ['"']
    for at in range(len(text)):
        char = text[at:at + 1]
        code = ord(char)
        if char in ESCAPES:
            out.append(ESCAPES[char])
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code > 0xFFFF:
            code -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)))
        else:
            out.append("\\u%04x" % code)
    out.append('"')
    write("".join(out))


# --- reading -----------------------------------------------------------------
def load(text, depth=6, digits=15):
    """One JSON value (a saved game, a line's object) of the subset: nested at
    most `depth` deep, numbers whole, of at most `digits` digits; JsonTextError
    saying what is wrong and at which column."""
    parser = _Parser(text, depth, digits)
    value = parser.value(0)
    parser.space()
    if parser.at < len(text):
        parser.fail("more after the end of the value")
    return value


class _Parser:
    """Reads by slices (`at`), never indexing one character: see `_string`."""

    def __init__(self, text, depth, digits):
        self.text = text
        self.at = 0
        self.depth = depth
        self.digits = digits

    def fail(self, problem):
        shown = self.text[self.at:self.at + 12]
        raise JsonTextError("column %d: %s%s" % (self.at + 1, problem, " at %s" % quoted(shown) if shown else
                                                 " at the end of the line"))

    def space(self):
        text = self.text
        while self.at < len(text) and text[self.at:self.at + 1] in " \t\r\n":
            self.at += 1

    def peek(self):
        self.space()
        return self.text[self.at:self.at + 1]

    def expect(self, char):
        if self.peek() != char:
            self.fail("expected %s" % char)
        self.at += 1

    def value(self, depth):
        char = self.peek()
        if char == "{":
            return self.table(depth + 1)
        if char == "[":
            return self.array(depth + 1)
        if char == '"':
            return self.string()
        if char == "-" or "0" <= char <= "9":
            return self.number()
        for word, value in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.at):
                self.at += len(word)
                return value
        self.fail("expected a value")

    def closed(self, end):
        """After an item: True past `end`, False past a comma; anything else fails."""
        char = self.peek()
        if char == end or char == ",":
            self.at += 1
            return char == end
        self.fail("expected , or %s" % end)

    def nested(self, depth):
        if depth > self.depth:
            self.fail("nested more than %d deep" % self.depth)

    def table(self, depth):
        self.nested(depth)
        self.at += 1
        table = {}
        if self.peek() == "}":
            self.at += 1
            return table
        while True:
            if self.peek() != '"':
                self.fail("expected a key in double quotes")
            start = self.at
            key = self.string()
            if key in table:
                self.at = start
                self.fail("key %s twice" % quoted(key))
            self.expect(":")
            table[key] = self.value(depth)
            if self.closed("}"):
                return table

    def array(self, depth):
        self.nested(depth)
        self.at += 1
        items = []
        if self.peek() == "]":
            self.at += 1
            return items
        while True:
            items.append(self.value(depth))
            if self.closed("]"):
                return items

    def number(self):
        text = self.text
        start = self.at
        if text[self.at:self.at + 1] == "-":
            self.at += 1
        digits = self.at
        while "0" <= text[self.at:self.at + 1] <= "9":
            self.at += 1
        count = self.at - digits
        if count == 0:
            self.fail("expected a digit")
        if count > self.digits:
            self.at = start
            self.fail("a number of more than %d digits" % self.digits)
        if count > 1 and text[digits:digits + 1] == "0":
            self.at = start
            self.fail("a number with a leading 0")
        if self.at < len(text) and text[self.at:self.at + 1] in ".eE":
            self.fail("a fraction or an exponent: numbers are whole")
        return int(text[start:self.at])

    def string(self):
        text = self.text
        self.at += 1
        start = self.at
        while self.at < len(text) and text[self.at:self.at + 1] not in '"\\':
            if text[self.at:self.at + 1] < " ":
                self.fail("a control character in text")
            self.at += 1
        if text[self.at:self.at + 1] == '"':
            self.at += 1
            return text[start:self.at - 1]
        out = [text[start:self.at]]
        while True:
            if self.at >= len(text):
                self.fail("text without its closing quote")
            char = text[self.at:self.at + 1]
            if char == '"':
                self.at += 1
                return "".join(out)
            if char < " ":
                self.fail("a control character in text")
            if char != "\\":
                out.append(char)
                self.at += 1
                continue
            escape = text[self.at + 1:self.at + 2]
            if escape in UNESCAPES:
                out.append(UNESCAPES[escape])
                self.at += 2
            elif escape == "u":
                code = self.hex4(self.at + 2)
                self.at += 6
                if 0xD800 <= code < 0xDC00 and text[self.at:self.at + 2] == "\\u":
                    low = self.hex4(self.at + 2)
                    if 0xDC00 <= low < 0xE000:
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        self.at += 6
                if 0xD800 <= code < 0xE000:
                    self.at -= 6
                    self.fail("half of a surrogate pair")
                out.append(_char(code))
            else:
                self.fail("an unknown escape")

    def hex4(self, at):
        digits = self.text[at:at + 4]
        if len(digits) != 4:
            self.fail("\\u without four hex digits")
        code = 0
        for at in range(4):
            value = "0123456789abcdef".find(digits[at:at + 1].lower())
            if value < 0:
                self.fail("\\u without four hex digits")
            code = code * 16 + value
        return code


def _char(code):
    """The character of a \\u escape, made from its UTF-8 bytes: `chr` would
    intern it for good on MicroPython, and a host may send any of a million."""
    if code < 0x80:
        data = (code,)
    elif code < 0x800:
        data = (0xC0 | code >> 6, 0x80 | code & 0x3F)
    elif code < 0x10000:
        data = (0xE0 | code >> 12, 0x80 | code >> 6 & 0x3F, 0x80 | code & 0x3F)
    else:
        data = (0xF0 | code >> 18, 0x80 | code >> 12 & 0x3F, 0x80 | code >> 6 & 0x3F, 0x80 | code & 0x3F)
    return bytes(data).decode()
