"""The few names a machine (exhibit.py) and its saved games (saves.py) both
use, in a module below both, so that neither imports the other back: the two
sides, the error of a bad setting, the saved game's format and the copy of
plain data a save holds; and the state the core's generator (rng.py) starts
from for a seed, which a machine with no opponent keeps without loading the
generator. exhibit.py gives them out too, under the same names.
"""

PLAYER = "player"
MACHINE = "machine"

# The saved game's format: 1 had no version and no Nimatron fault; 2 adds both; 3 adds where
# Dr. Nim's equalizer switch is (equalizer_switch); 4 may be short (`Exhibit.to_save`).
SAVE_FORMAT = 4


class ConfigError(ValueError):
    """A setting with a bad value; the message names the setting."""


def plain_copy(value):
    """A deep copy of plain data (tuples become lists, as JSON has them)."""
    if isinstance(value, dict):
        return dict((k, plain_copy(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [plain_copy(v) for v in value]
    return value


def seeded_state(seed):
    """The state rng.Random(seed) starts from: the seed mixed, so that nearby seeds
    (0, 1, 2...) start far apart, and never 0, which xorshift cannot leave."""
    return (int(seed) * 0x9E3779B1 + 0x7F4A7C15) & 0xFFFFFFFF or 0x6D2B79F5
