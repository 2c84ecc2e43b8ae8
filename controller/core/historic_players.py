"""Re-creations of historic Nim programs as opponents: the Sinclair
Cambridge Programmable's matchstick game, Nimx, the 2003 Nimatron applet and
Programming Praxis' player, each with its source and quirks. Loaded when a
setting names one of them (players.find_player)."""

from .players import Player
from .rules import Move
from . import solve


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
