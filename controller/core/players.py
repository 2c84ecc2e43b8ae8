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


class Sinclair(Player):
    """The Sinclair Cambridge Programmable's "matchstick game" (program library
    vol. 1, 1977): one pile, take 1-3, whoever takes the last stick loses.

    It leaves 4n+1 sticks, and takes 1 when it cannot. Quirk: it knows only
    that one formula, so in a last-stick-wins game it still plays to leave
    4n+1 and loses games it could win. Source: suppertime.co.uk blog
    "Nim and the Sinclair Cambridge Programmable calculator" (2018); the
    program listing itself is a 36-step keystroke program we could not read,
    so the formula is the documented strategy, not a transcription.
    """

    name = "sinclair"
    families = ("subtraction",)

    def unsupported(self, variant, position):
        if variant.family != "subtraction" or len(position) != 1:
            return "sinclair plays only one pile of matchsticks (a subtraction game with one heap)"
        return None

    def choose(self, variant, position):
        take = (position[0] - 1) % (variant.max_take + 1)
        return Move.take(0, take or 1)


class Nimx(Player):
    """Nimx, the BASIC ten-liner (rows 3 3 4 5, last counter wins).

    It scans the rows from the first, taking away one counter at a time, and
    plays the first safe position (nim-sum 0) it finds; in each row at most
    one count is safe, the one that leaves row xor nim-sum. When there is none,
    a random non-empty row and a random count from it. Quirk: "safe" is always
    nim-sum 0, so in misère play it walks into lost endgames. Reconstructed
    from the program's description; no listing was available to us.
    """

    name = "nimx"
    families = ("nim", "moore")

    def choose(self, variant, position):
        total = solve.nim_sum(position)
        for heap, size in enumerate(position):
            if size and size ^ total < size:
                return Move.take(heap, size - (size ^ total))
        return variant.random_move(position, self.rng)


class Applet(Player):
    """The Java applet of M. J. Chlond and C. Akyol, "A Nimatron", INFORMS
    Transactions on Education 3(3), 2003.

    It writes the heaps in four binary columns (1, 2, 4, 8), takes f, the
    highest column with an odd sum, picks the last heap with bit f set, and
    builds that heap's new value column by column from f down, flipping every
    odd column. When no column is odd the move comes out as 0, and it takes a
    random count from the first non-empty heap instead. Quirk: bits above 8
    are invisible to it, so with a heap of 16 or more it misjudges positions
    (its moves stay legal). Reconstructed from the paper's description.
    """

    name = "applet"
    families = ("nim", "moore")

    def choose(self, variant, position):
        odd = solve.nim_sum(size & 15 for size in position)
        if odd == 0:
            for heap, size in enumerate(position):
                if size:
                    return Move.take(heap, self.rng.between(1, size))
            return None
        f = 3
        while not (odd >> f) & 1:
            f -= 1
        heap = 0
        for i, size in enumerate(position):
            if (size >> f) & 1:
                heap = i
        new = position[heap]
        for column in range(f, -1, -1):
            if (odd >> column) & 1:
                new ^= 1 << column
        return Move.take(heap, position[heap] - new)


class Praxis(Player):
    """Programming Praxis' Nim player (exercise "Nim", 8 January 2010).

    With nim-sum x, it plays on the first heap h where h xor x < h, leaving
    h xor x; when x is 0 it makes a random legal move (a random non-empty heap,
    a random count), as the exercise asks. Quirk: the published Scheme solution
    instead takes one stone from the first non-empty pile; and, like Nimx, it
    plays normal-play Nim whatever the rule.
    """

    name = "praxis"
    families = ("nim", "moore")

    def choose(self, variant, position):
        total = solve.nim_sum(position)
        if total == 0:
            return variant.random_move(position, self.rng)
        for heap, size in enumerate(position):
            if size ^ total < size:
                return Move.take(heap, size - (size ^ total))
        return None


PLAYERS = (Perfect, Fallible, Sinclair, Nimx, Applet, Praxis)
PLAYER_NAMES = ("perfect", "perfect:random", "fallible:P", "sinclair", "nimx", "applet", "praxis")


def find_player(name, rng=None):
    """Build an opponent from its name: perfect, fallible:P, sinclair, nimx, applet, praxis."""
    base, _, argument = name.strip().lower().partition(":")
    if base == "fallible":
        return Fallible(argument or "0.1", rng)
    if base == "perfect" and argument in ("delay", "random"):
        return Perfect(rng, argument)
    for cls in PLAYERS:
        if cls.name == base and not argument:
            return cls(rng)
    raise UnknownPlayer("unknown opponent %r: choose from %s" % (name, ", ".join(PLAYER_NAMES)))
