"""Text from outside, as an operator's terminal may show it.

A stranger on the museum's broker can put anything in an exhibit's name, its
machine or its faults, and a board can put anything in a fault's text.
Printed raw, an escape sequence would act on the operator's terminal: set its
title, clear the screen, write the clipboard (OSC 52), hide what follows. So
every character that is not printable (ESC and the other control characters,
DEL, the C1 controls, bidirectional overrides, lone surrogates) is written as
its Python escape instead, which shows that something odd was sent and does
nothing.
"""


def printable(text):
    """`text` with each character that is not printable written as its escape (\\x1b, \\u202e)."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
