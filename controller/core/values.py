"""Values a person types: whole numbers, durations and lists of them, each read
once, here, whatever reads them (the command line, scripts, settings).

`str.isdigit()` accepts characters that `int()` refuses (``²``, other
scripts' digits) and `int()` refuses texts of more than 4,300 digits, so a
check that uses one and a conversion that uses the other gives a traceback.
Here only ASCII digits count, a number has at most `MAX_DIGITS` of them, and
every value is checked against a named range; the error quotes the text.
"""

from .limits import DAY_MS
from .quoting import quoted

MAX_DIGITS = 100


class BadValue(ValueError):
    """A typed value that is not what was asked for; the message quotes it."""


def is_whole(text):
    """True when `text` is 1 to MAX_DIGITS ASCII digits and nothing else."""
    if not 0 < len(text) <= MAX_DIGITS:
        return False
    for char in text:
        if not "0" <= char <= "9":
            return False
    return True


def whole(text, what="a number", low=0, high=None):
    """The whole number `text` spells, in low..high (no upper bound when high is None)."""
    if not isinstance(text, str) or not is_whole(text):
        raise BadValue("%s is %s: it must be a whole number%s" % (what, quoted(text), range_text(low, high)))
    value = int(text)
    if value < low or (high is not None and value > high):
        raise BadValue("%s is %s: it must be %s" % (what, text, range_text(low, high).lstrip(", ")))
    return value


def range_text(low, high):
    if high is None:
        return ", %d or more" % low if low else ", 0 or more"
    return " from %d to %d" % (low, high)


# A duration's units, longest first (so that "ms" is not read as "s").
UNITS = (("min", 60000), ("ms", 1), ("s", 1000), ("h", 3600000))


def duration_ms(text, what="a duration", low=0, high=DAY_MS):
    """Milliseconds from ``500ms``, ``2s``, ``5min``, ``1h`` or a bare number of milliseconds."""
    number, scale = text, 1
    if isinstance(text, str):
        for unit, ms in UNITS:
            if text.endswith(unit):
                number, scale = text[:-len(unit)], ms
                break
    if not isinstance(number, str) or not is_whole(number):
        raise BadValue("%s is not a duration such as 500ms, 2s, 5min or 1h" % quoted(text))
    value = int(number) * scale
    if not low <= value <= high:
        raise BadValue("%s %s is out of range: it must be from %dms to %dms" % (what, quoted(text), low, high))
    return value


def wholes(text, what="a list", low=0, high=None):
    """``1,3,5`` as [1, 3, 5]."""
    return [whole(part, "%s: item %d" % (what, i + 1), low, high) for i, part in enumerate(text.split(","))]
