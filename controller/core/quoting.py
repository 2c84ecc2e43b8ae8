"""How a message shows a value someone gave: quoted, and cut short when long.
Its own module, so a board that only reports bad lines (the protocol) does not
load the readers of typed values (values.py) for it."""


def quoted(text):
    """`text` quoted for a message, cut short when it is long."""
    shown = repr(text)
    return shown if len(shown) <= 30 else shown[:24] + "...'"
