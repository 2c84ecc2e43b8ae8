"""The serial line protocol between a board running the firmware and a host
(a Pi or a laptop that watches it, keeps its statistics and runs its tests).

One JSON object a line, each with a "kind"; firmware/PROTOCOL.md describes
every kind. The encoder and the parser are here, in the core, so the board
and the host read and write exactly the same bytes. They are our own rather
than the `json` module's because the core imports nothing but itself, because
MicroPython's `json` orders keys differently from CPython's (ours sorts them,
so both runtimes send identical lines), and because a line from outside must
never cost more than one error line: ours refuses floats, deep nesting, long
numbers and anything but ASCII, each with a one-line message saying where.

Every check on a host line happens before anything changes, so a line that is
malformed, oversized, unknown or out of place gets one error line back and
changes nothing.
"""

from .exhibit import BUTTON, SENSOR, SWITCH
from .limits import DAY_MS
from .quoting import quoted

PROTOCOL = 1
# A file a host leaves in a board's flash (`controller firmware deploy`, by mpremote): the board's
# next start finds it, removes it and starts nothing, so no watchdog resets the board under the host.
MAINTENANCE_FILE = "/maintenance"
# The longest line a board reads, in bytes without the newline: a new game's
# settings with a dozen Nimatron openings fit in a third of it.
MAX_LINE = 1024
# The longest line a host reads: a board's `state` reply carries the whole saved game.
MAX_BOARD_LINE = 65536
# Lists and objects inside each other, at most (a Nimatron opening list is 3 deep).
MAX_DEPTH = 6
# Digits in a number, at most: every count and time fits, and no big integer is made.
MAX_DIGITS = 15
# The longest text in an injected event (a role, a switch's name or position).
MAX_WORD = 32

DEVELOPMENT = "development"
PRODUCTION = "production"
# Whose clock the board runs on: its own (real time), or the host's (time
# passes only with "advance" lines, so a script plays as it does in the simulator).
REAL_CLOCK = "real"
HOST_CLOCK = "host"

# What a host may send: each kind with its fields, (name, check, required).
HOST_KINDS = {
    "state": (),
    "new_game": (("settings", "table", False),),
    "inject": (("event", "event", True),),
    "advance": (("ms", "time", True), ("settle", "flag", False)),
}
# Kinds a board in production mode refuses: a visitor's game is never driven from outside.
DEVELOPMENT_ONLY = ("inject", "advance")
# What a board sends (see PROTOCOL.md for the fields of each).
BOARD_KINDS = ("hello", "event", "command", "status", "fault", "game_over", "state", "ok", "advanced",
               "error")


class ProtocolError(ValueError):
    """A line that breaks the protocol; the message says what and where."""


# --- encoding ----------------------------------------------------------------
def encode(message):
    """`message` (dicts, lists, tuples, text, whole numbers, true/false/None)
    as one line of JSON without the newline: keys sorted, ASCII only."""
    parts = []
    dump(message, parts.append)
    return "".join(parts)


def dump(value, write, depth=0):
    """`value` as `encode` writes it, given piece by piece to `write` (a
    file's), so a board saves its game without holding its text whole."""
    if depth > MAX_DEPTH + 20:
        raise ProtocolError("cannot send a value nested more than %d deep" % (MAX_DEPTH + 20))
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
                raise ProtocolError("cannot send the key %s: keys are text" % quoted(key))
            if i:
                write(",")
            _string(key, write)
            write(":")
            dump(value[key], write, depth + 1)
        write("}")
    else:
        raise ProtocolError("cannot send %s: only text, whole numbers, true, false, null, lists and tables"
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


# --- parsing -----------------------------------------------------------------
def decode(line, limit=MAX_LINE):
    """One line (text or bytes, the newline optional, at most `limit` long) as
    a table with a text "kind"; ProtocolError saying what is wrong and at
    which column."""
    if isinstance(line, (bytes, bytearray)):
        if len(line) > limit + 2:
            raise ProtocolError("line too long: %d bytes, at most %d" % (len(line), limit))
        for i, byte in enumerate(line):
            if byte > 0x7E or (byte < 0x20 and byte not in (9, 10, 13)):
                raise ProtocolError("column %d: byte 0x%02x: a line is printable ASCII (write \\u escapes)"
                                    % (i + 1, byte))
        line = line.decode()
    text = line.strip()
    if len(text) > limit:
        raise ProtocolError("line too long: %d characters, at most %d" % (len(text), limit))
    if not text:
        raise ProtocolError("empty line: a line is one JSON object with a \"kind\"")
    value = load(text)
    if not isinstance(value, dict):
        raise ProtocolError("not an object: %s (a line is one JSON object with a \"kind\")" % quoted(text))
    kind = value.get("kind")
    if not isinstance(kind, str):
        raise ProtocolError("no \"kind\" in %s" % quoted(text))
    return value


def load(text):
    """One JSON value (a saved game, a line's object) in the protocol's
    subset; ProtocolError saying what is wrong and at which column."""
    parser = _Parser(text)
    value = parser.value(0)
    parser.space()
    if parser.at < len(text):
        parser.fail("more after the end of the value")
    return value


class _Parser:
    """Reads by slices (`at`), never indexing one character: see `_string`."""

    def __init__(self, text):
        self.text = text
        self.at = 0

    def fail(self, problem):
        shown = self.text[self.at:self.at + 12]
        raise ProtocolError("column %d: %s%s" % (self.at + 1, problem, " at %s" % quoted(shown) if shown else
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
        if depth > MAX_DEPTH:
            self.fail("nested more than %d deep" % MAX_DEPTH)

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
        if count > MAX_DIGITS:
            self.at = start
            self.fail("a number of more than %d digits" % MAX_DIGITS)
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


# --- host lines --------------------------------------------------------------
def request(line, mode=DEVELOPMENT, clock=REAL_CLOCK):
    """A host's line, read and checked against what a board in `mode` on
    `clock` accepts: the table, or ProtocolError. Nothing about the machine is
    checked here (see `machine_event`)."""
    message = decode(line)
    kind = message["kind"]
    fields = HOST_KINDS.get(kind)
    if fields is None:
        raise ProtocolError("unknown kind %s (a host sends %s)" % (quoted(kind), ", ".join(sorted(HOST_KINDS))))
    if kind in DEVELOPMENT_ONLY and mode != DEVELOPMENT:
        raise ProtocolError("%s: only in development mode, and this board runs in %s mode" % (kind, mode))
    if kind == "advance" and clock != HOST_CLOCK:
        raise ProtocolError("advance: this board keeps its own time (clock %s); only a board on the host's "
                            "clock lets the host move time" % clock)
    names = ["kind", "id"]
    for name, check, required in fields:
        names.append(name)
        if name not in message:
            if required:
                raise ProtocolError("%s: the field %s is missing" % (kind, name))
            continue
        problem = _field_problem(check, message[name])
        if problem:
            raise ProtocolError("%s: %s %s %s" % (kind, name, quoted(message[name]), problem))
    for name in message:
        if name not in names:
            raise ProtocolError("%s: %s is not a field of it (fields: %s)" % (kind, quoted(name), ", ".join(names[2:])
                                                                               or "none"))
    ident = message.get("id")
    if ident is not None and not (_is_whole(ident) or isinstance(ident, str) and len(ident) <= MAX_WORD):
        raise ProtocolError("id %s is not a whole number or a short text" % quoted(ident))
    return message


def _is_whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _field_problem(check, value):
    if check == "table":
        return None if isinstance(value, dict) else "is not a table"
    if check == "flag":
        return None if isinstance(value, bool) else "is not true or false"
    if check == "time":
        return None if _is_whole(value) and 0 <= value <= DAY_MS else "is not a time from 0 to %d ms" % DAY_MS
    if not isinstance(value, list) or not 1 <= len(value) <= 3:
        return "is not a list of 1 to 3 words, such as [\"press\", \"trigger\"]"
    for word in value:
        if not isinstance(word, str) or not 0 < len(word) <= MAX_WORD:
            return "is not a list of words (each 1 to %d characters)" % MAX_WORD
    return None


def machine_event(machine, words):
    """The event an "inject" line's words name, as the machine takes it: a
    press or release of one of its buttons, one of its switches at a position
    it has (a script's word, such as left, made its on or off side), its
    sensor, power or tick. ProtocolError for anything else, so the machine
    never sees an event it would refuse half-way through."""
    kind = words[0]
    inputs = machine.inputs(machine.layout())
    if kind in ("press", "release") and len(words) == 2:
        for spec in inputs:
            if spec.kind == BUTTON and spec.role == words[1]:
                return (kind, words[1])
        raise ProtocolError("inject: %s has no button %s" % (machine.NAME, quoted(words[1])))
    if kind == "switch" and len(words) == 3:
        for spec in inputs:
            if spec.kind == SWITCH and spec.events[0][1] == words[1] and words[2] in spec.positions:
                return spec.events[0] if spec.positions[words[2]] else spec.events[1]
        raise ProtocolError("inject: %s has no switch %s with a position %s" % (machine.NAME, quoted(words[1]),
                                                                               quoted(words[2])))
    if len(words) == 1:
        if kind in ("power", "tick"):
            return (kind,)
        for spec in inputs:
            if spec.kind == SENSOR and spec.events[0][0] == kind:
                return (kind,)
    raise ProtocolError("inject: %s is not an event of %s (press ROLE, release ROLE, switch NAME POSITION, "
                        "power, tick, or its sensor's event)" % (quoted(" ".join(words)), machine.NAME))


# --- board lines -------------------------------------------------------------
def hello(machine, mode, clock, **more):
    """The message a board sends when it starts or resets, as a table: the
    board writes it piece by piece with `dump`, never as one text."""
    message = {"kind": "hello", "protocol": PROTOCOL, "machine": machine, "mode": mode, "clock": clock}
    message.update(more)
    return message


def reply(line):
    """A board's line, read by a host: the table, or ProtocolError for a line
    that is not one (a board's boot text, noise on the wire)."""
    message = decode(line, MAX_BOARD_LINE)
    if message["kind"] not in BOARD_KINDS:
        raise ProtocolError("unknown kind %s (a board sends %s)" % (quoted(message["kind"]), ", ".join(BOARD_KINDS)))
    return message
