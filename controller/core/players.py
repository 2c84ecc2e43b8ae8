"""Opponents: the perfect player and re-creations of historic Nim programs.

Every opponent has one method, `choose(variant, position)`, that returns a
legal `Move`. Random choices come from the core's own `rng.Random`, so a seed
replays the same game on CPython and on MicroPython. `find_player(name, rng)`
builds one from its name, such as ``perfect`` or ``fallible:0.1``.
"""

from .rng import Random
from .rules import Move
from . import solve


class UnknownPlayer(ValueError):
    """An opponent name that is not in the list."""


class Player:
    """The shared interface. `families` lists the game families it can play."""

    name = ""
    families = ("subtraction", "nim", "moore", "rosebushes")

    def __init__(self, rng=None):
        self.rng = rng or Random(1)

    def unsupported(self, variant, position):
        """Why this player cannot play the game, or None."""
        if variant.family not in self.families:
            return "%s plays only %s games, not %s" % (self.name, " and ".join(self.families), variant.family)
        return None

    def choose(self, variant, position):
        raise NotImplementedError

    def __repr__(self):
        return "<%s>" % self.name


class Perfect(Player):
    """A winning move whenever one exists (the first the solver finds).

    In a losing position it takes one object from the largest heap (the first,
    if several are equal): legal in every family, it makes the game last and
    gives the opponent the most chances to go wrong. It is also what Dr. Nim's
    marble logic does when it is losing (machines.md R10). ``perfect:random``
    makes a random legal move there instead.
    """

    name = "perfect"

    def __init__(self, rng=None, losing="delay"):
        Player.__init__(self, rng)
        self.losing = losing
        if losing != "delay":
            self.name = "perfect:" + losing

    def choose(self, variant, position):
        move = solve.winning_move(variant, position)
        if move:
            return move
        if self.losing == "random":
            return variant.random_move(position, self.rng)
        return delaying_move(position)


def delaying_move(position):
    """One object from the largest heap."""
    largest = 0
    for heap, size in enumerate(position):
        if size > position[largest]:
            largest = heap
    return Move.take(largest, 1)


class Fallible(Perfect):
    """Like `perfect`, but with probability P a random legal move instead.

    For exhibits that want visitors to win sometimes. The Nimatron won about
    90 % of its games; `make bench` measures ``fallible:0.1`` on the Nimatron's
    openings, the visitor first: it wins about 94 % against visitors who move
    at random and about 55 % against fallible:0.2 ones, but never against a
    perfect visitor, since every opening is a win for the first mover.
    P is read as a decimal in parts per million, so no float decides a move.
    """

    name = "fallible"

    def __init__(self, probability="0.1", rng=None):
        Perfect.__init__(self, rng, "delay")
        self.per_million = parse_probability(probability)
        self.name = "fallible:%s" % probability

    def choose(self, variant, position):
        if self.rng.chance(self.per_million, 1000000):
            return variant.random_move(position, self.rng)
        return Perfect.choose(self, variant, position)


def parse_probability(text):
    """'0.1' -> 100000 parts per million, exactly, without floats."""
    from .values import is_whole
    text = str(text).strip()
    whole, _, fraction = text.partition(".")
    if not (whole or fraction) or not is_whole(whole or "0") or (fraction and not is_whole(fraction)):
        raise UnknownPlayer("fallible:%s: the probability must be a number from 0 to 1" % text)
    per_million = int(whole or "0") * 1000000 + int((fraction + "000000")[:6])
    if per_million > 1000000:
        raise UnknownPlayer("fallible:%s: the probability must be a number from 0 to 1" % text)
    return per_million


PLAYER_NAMES = ("perfect", "perfect:random", "fallible:P", "sinclair", "nimx", "applet", "praxis")

# The historic programs live in historic_players.py, loaded when one is
# named; `from .players import Nimx` finds them too (PEP 562, in MicroPython).
HISTORIC = {"sinclair": "Sinclair", "nimx": "Nimx", "applet": "Applet", "praxis": "Praxis"}


def __getattr__(name):
    for cls in HISTORIC.values():
        if cls == name:
            return getattr(__import__("historic_players", globals(), None, (name,), 1), name)
    raise AttributeError(name)


def find_player(name, rng=None):
    """Build an opponent from its name: perfect, fallible:P, sinclair, nimx, applet, praxis."""
    base, _, argument = name.strip().lower().partition(":")
    if base == "fallible":
        return Fallible(argument or "0.1", rng)
    if base == "perfect" and argument in ("delay", "random"):
        return Perfect(rng, argument)
    if base == "perfect" and not argument:
        return Perfect(rng)
    if base in HISTORIC and not argument:
        return __getattr__(HISTORIC[base])(rng)
    raise UnknownPlayer("unknown opponent %r: choose from %s" % (name, ", ".join(PLAYER_NAMES)))
