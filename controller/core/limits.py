"""Bounds the core keeps, in a module small enough for a board: the longest
time any reader of times accepts, and the error of an exact search that
would pass its bound (raised by search.py, given out by solve.py)."""

DAY_MS = 86400000  # the longest time a setting or a script's `wait` may name


class SearchTooLarge(ValueError):
    """A position too big for exact search, in a game with no proven closed form."""
