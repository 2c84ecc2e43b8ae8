"""Bounds every reader of times shares, in a module small enough for a board."""

DAY_MS = 86400000  # the longest time a setting or a script's `wait` may name
