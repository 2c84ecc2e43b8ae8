"""Named games from history: their variant, start position, first mover and opponent.

A preset is a small class, like a variant: class attributes describe it and
`find_preset(name)` looks it up. `variant(...)` and `start(...)` take the
choices a person may override (rule, k, max-take, heaps) and refuse the ones
the historic game does not have, with a one-line reason.
"""

from .nimatron import LAMPS_PER_ROW, OPENINGS, ROWS
from .rules import MISERE, NORMAL, Moore, Nim, Rosebushes, Subtraction, check_position

YOU = "you"
MACHINE = "machine"
RANDOM = "random"
FIRST_CHOICES = (YOU, MACHINE, RANDOM)


class PresetError(ValueError):
    """A choice the named game does not offer."""


class Preset:
    name = ""
    title = ""
    source = ""
    variant_class = None
    rules = (NORMAL, MISERE)
    rule = NORMAL
    heaps = None
    first = YOU
    opponent = "perfect"
    k = None
    max_take = None
    random_start = False  # start(rng=...) draws the heaps when none are given

    @classmethod
    def variant(cls, rule=None, k=None, max_take=None):
        rule = rule or cls.rule
        if rule not in cls.rules:
            raise PresetError("%s is played %s only, not %s" % (cls.name, " or ".join(cls.rules), rule))
        if k is not None and cls.k is None:
            raise PresetError("%s has no k (it is not a Moore or Rosebushes game)" % cls.name)
        if max_take is not None and cls.max_take is None:
            raise PresetError("%s has no maximum take (it is not a subtraction game)" % cls.name)
        if cls.max_take is not None:
            return Subtraction(rule, max_take if max_take is not None else cls.max_take)
        if cls.k is not None:
            return cls.variant_class(rule, k if k is not None else cls.k)
        return cls.variant_class(rule)

    @classmethod
    def start(cls, heaps=None, rng=None):
        """The start position: the heaps given, or the game's own."""
        if heaps:
            return check_position(heaps)
        if cls.heaps is None:
            raise PresetError("%s needs its heaps: give them, such as '%s 3 4 5'" % (cls.name, cls.name))
        return cls.heaps


class DrNim(Preset):
    name = "drnim"
    title = "The Amazing Dr. Nim (E.S.R. Inc., 1966)"
    source = "machines.md §1: 15 marbles, take 1-3, whoever takes the last marble loses"
    rule = MISERE
    heaps = (15,)
    max_take = 3


class Sinclair(Preset):
    name = "sinclair"
    title = "Sinclair Cambridge Programmable matchstick game (1977)"
    source = "program library vol. 1: you choose the sticks, the calculator moves first, take 1-3, last stick loses"
    rules = (MISERE,)
    rule = MISERE
    first = MACHINE
    opponent = "sinclair"
    max_take = 3

    @classmethod
    def start(cls, heaps=None, rng=None):
        if heaps and len(heaps) != 1:
            raise PresetError("sinclair is one pile of matchsticks: give one number, not %d" % len(heaps))
        if not heaps:
            raise PresetError("sinclair asks how many matchsticks to start with: give one number")
        return check_position(heaps)


class Nimatron(Preset):
    name = "nimatron"
    title = "The Nimatron (Westinghouse, New York World's Fair, 1940)"
    source = "machines.md §2: four rows of up to seven lamps, last lamp wins, the visitor moves first"
    variant_class = Nim
    first = YOU
    rows = ROWS
    lamps = LAMPS_PER_ROW
    openings = OPENINGS
    heaps = openings[0]
    random_start = True

    @classmethod
    def start(cls, heaps=None, rng=None):
        if heaps:
            position = check_position(heaps)
            if len(position) > cls.rows or max(position) > cls.lamps:
                raise PresetError("nimatron has %d rows of at most %d lamps: %s does not fit"
                                  % (cls.rows, cls.lamps, " ".join(str(h) for h in position)))
            return position
        return rng.choice(cls.openings) if rng else cls.heaps


class Marienbad(Preset):
    name = "marienbad"
    title = "Last Year at Marienbad (1961)"
    source = "the film's game: rows of 1, 3, 5 and 7, whoever takes the last one loses"
    variant_class = Nim
    rules = (MISERE,)
    rule = MISERE
    heaps = (1, 3, 5, 7)


class NimxGame(Preset):
    name = "nimx"
    title = "Nimx, a BASIC ten-liner"
    source = "rows 3 3 4 5, last counter wins, a random first player"
    variant_class = Nim
    rules = (NORMAL,)
    heaps = (3, 3, 4, 5)
    first = RANDOM
    opponent = "nimx"


class AppletGame(Preset):
    name = "applet"
    title = "Chlond and Akyol's Nimatron applet (2003)"
    source = "INFORMS Transactions on Education 3(3): 4 to 6 random piles of 1 to 9, the player first, last wins"
    variant_class = Nim
    rules = (NORMAL,)
    opponent = "applet"
    random_start = True

    @classmethod
    def start(cls, heaps=None, rng=None):
        if heaps:
            return check_position(heaps)
        if rng is None:
            raise PresetError("applet starts from random piles: give the heaps, or --seed N to draw them")
        return tuple(rng.between(1, 9) for _ in range(rng.between(4, 6)))


class PraxisGame(Preset):
    name = "praxis"
    title = "Programming Praxis' Nim (2010)"
    source = "any piles, last stone wins (the exercise's example: 25 32 19 4 17)"
    variant_class = Nim
    rules = (NORMAL,)
    heaps = (25, 32, 19, 4, 17)
    opponent = "praxis"


class MooreGame(Preset):
    name = "moore"
    title = "Moore's Nim_k (1910)"
    source = "take from 1 to k heaps at once; give k and the heaps"
    variant_class = Moore
    k = 2


class RosebushesGame(Preset):
    name = "rosebushes"
    title = "Rosebushes"
    source = "take one rose from each of 1 to k bushes; give k and the heaps"
    variant_class = Rosebushes
    k = 2


class SubtractionGame(Preset):
    name = "subtraction"
    title = "Subtraction game"
    source = "take 1 to m from one heap; give the heaps"
    max_take = 3


class NimGame(Preset):
    name = "nim"
    title = "Nim"
    source = "take any number from one heap; give the heaps"
    variant_class = Nim


PRESETS = (DrNim, Sinclair, Nimatron, Marienbad, NimxGame, AppletGame, PraxisGame,
           MooreGame, RosebushesGame, SubtractionGame, NimGame)


def find_preset(name):
    wanted = name.strip().lower()
    for preset in PRESETS:
        if preset.name == wanted:
            return preset
    raise PresetError("unknown game %r: choose from %s" % (name, ", ".join(p.name for p in PRESETS)))
