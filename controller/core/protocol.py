"""The serial line protocol between a board running the firmware and a host
(a Pi or a laptop that watches it, keeps its statistics and runs its tests).

One JSON object a line, each with a "kind"; firmware/PROTOCOL.md describes
every kind. What a line may hold and what each kind means are here, in the
core, the same for the board and the host. The JSON text itself is read and
written by the core's own jsontext.py on the host (keys sorted, ASCII only,
every refusal saying where) and by MicroPython's built-in `json` on a board,
which is C: fast, and none of the board's heap for its code. What the
built-in reader makes of a host's line is checked to be within the same
subset (`plain`): no floats, no deep nesting, no long numbers; a line that is
not ASCII is refused before either reads it.

Every check on a host line happens before anything changes, so a line that is
malformed, oversized, unknown or out of place gets one error line back and
changes nothing. What a host reads from a board is in board_lines.py,
which a board never loads.
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
# Lists and objects inside each other, at most (a Nimatron opening list is 3 deep).
MAX_DEPTH = 6
# Digits in a number, at most: every count and time fits, and no big integer is made.
MAX_DIGITS = 15
LONGEST = 10 ** MAX_DIGITS
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
    "state": (("heap", "flag", False),),
    "new_game": (("settings", "table", False),),
    "inject": (("event", "event", True),),
    "advance": (("ms", "time", True), ("settle", "flag", False)),
}
# Kinds a board in production mode refuses: a visitor's game is never driven from outside.
DEVELOPMENT_ONLY = ("inject", "advance")


class ProtocolError(ValueError):
    """A line that breaks the protocol; the message says what and where."""


# --- reading -----------------------------------------------------------------
def decode(line, limit=MAX_LINE, parse=None):
    """One line (text or bytes, the newline optional, at most `limit` long) as
    a table with a text "kind"; ProtocolError saying what is wrong and, where
    the reader can tell, at which column. `parse`, another reader of JSON
    text (a board's built-in json.loads): what it reads is checked to be
    within the protocol's subset."""
    unit = "characters"
    if isinstance(line, (bytes, bytearray)):
        unit = "bytes"      # as the board counts what it read (its lines are ASCII: one byte a character)
        if len(line) > limit + 2:
            raise ProtocolError("line too long: %d bytes, at most %d" % (len(line), limit))
        for i, byte in enumerate(line):
            if byte > 0x7E or (byte < 0x20 and byte not in (9, 10, 13)):
                raise ProtocolError("column %d: byte 0x%02x: a line is printable ASCII (write \\u escapes)"
                                    % (i + 1, byte))
        line = line.decode()
    text = line.strip()
    if len(text) > limit:
        raise ProtocolError("line too long: %d %s, at most %d" % (len(text), unit, limit))
    if not text:
        raise ProtocolError("empty line: a line is one JSON object with a \"kind\"")
    value = load(text) if parse is None else plain(text, parse)
    if not isinstance(value, dict):
        raise ProtocolError("not an object: %s (a line is one JSON object with a \"kind\")" % quoted(text))
    kind = value.get("kind")
    if not isinstance(kind, str):
        raise ProtocolError("no \"kind\" in %s" % quoted(text))
    return value


def load(text):
    """One JSON value (a saved game, a line's object) in the protocol's
    subset, read by the core's own reader (jsontext.py); ProtocolError saying
    what is wrong and at which column."""
    from .jsontext import load as read
    try:
        return read(text, MAX_DEPTH, MAX_DIGITS)
    except ValueError as error:
        raise ProtocolError(str(error))


def plain(text, parse):
    """`text` read by `parse` and checked to hold only what the protocol's own
    reader takes: tables, lists, text, whole numbers of at most MAX_DIGITS
    digits, true, false, null, nested at most MAX_DEPTH deep."""
    try:
        value = parse(text)
    except ValueError as error:
        raise ProtocolError("not JSON (%s): a line is one JSON object with a \"kind\"" % error)
    within(value, 0)
    return value


def within(value, depth):
    if isinstance(value, (dict, list)):
        if depth >= MAX_DEPTH:
            raise ProtocolError("nested more than %d deep" % MAX_DEPTH)
        for item in value.values() if isinstance(value, dict) else value:
            within(item, depth + 1)
    elif isinstance(value, int) and not isinstance(value, bool):
        if not -LONGEST < value < LONGEST:
            raise ProtocolError("a number of more than %d digits" % MAX_DIGITS)
    elif not (value is None or isinstance(value, (str, bool))):
        raise ProtocolError("%s: numbers are whole" % quoted(value))


# --- host lines --------------------------------------------------------------
def checked(message, mode=DEVELOPMENT, clock=REAL_CLOCK):
    """A host's request (its line as `decode` read it) checked against what a
    board in `mode` on `clock` accepts: the table, or ProtocolError. A board
    takes the request's "id" before this check, so that a refusal goes back
    with it and the host hears why at once (not, after its wait, that nothing
    came). Nothing about the machine is checked here (see `machine_event`)."""
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
    """The message a board sends when it starts or resets, as a table (the
    board's runner writes it as one line of JSON)."""
    message = {"kind": "hello", "protocol": PROTOCOL, "machine": machine, "mode": mode, "clock": clock}
    message.update(more)
    return message
