"""The rules of the Nim games: positions, moves, variants and a game record.

Modelled on python-chess: a position is a tuple of heap sizes, a `Move` is a
small value with a text form that parses back, a `Game` keeps a move stack,
and each variant family is a small class with one shared interface, listed in
one registry (`families.find_variant`, which only a host needs).

Pure code in the MicroPython subset: no I/O, no clock, no global state.
"""

from .endings import MISERE, NORMAL, RULES


class InvalidMove(ValueError):
    """Text that does not spell a move."""


class IllegalMove(ValueError):
    """A move the rules do not allow in the position."""


class InvalidPosition(ValueError):
    """Heaps that are not a position of the game."""


def position_text(position):
    return "(" + ", ".join(str(h) for h in position) + ")"


def check_position(heaps):
    """Return heaps as a position tuple, or raise InvalidPosition naming the bad heap."""
    position = []
    for i, h in enumerate(heaps):
        if not isinstance(h, int) or isinstance(h, bool) or h < 0:
            raise InvalidPosition("heap %d is %r: a heap is a whole number, 0 or more" % (i + 1, h))
        position.append(h)
    return tuple(position)


class Move:
    """Objects taken from one or more heaps.

    `takes` holds (heap, count) pairs with heaps counted from 0; the text form
    counts heaps from 1, as people do: ``2:3`` takes 3 from the second heap,
    ``1:1,3:2`` takes 1 from the first heap and 2 from the third.
    """

    def __init__(self, takes, checked=False):
        if checked:     # Move.take's one pair, already checked: the solver's moves come this way, fast
            self.takes = takes
            return
        pairs = sorted((int(heap), int(count)) for heap, count in takes)
        if not pairs:
            raise InvalidMove("a move takes from at least one heap")
        for i, (heap, count) in enumerate(pairs):
            if heap < 0:
                raise InvalidMove("heap %d does not exist: heaps are numbered from 1" % (heap + 1))
            if count < 1:
                raise InvalidMove("cannot take %d from heap %d: take at least 1" % (count, heap + 1))
            if i and pairs[i - 1][0] == heap:
                raise InvalidMove("heap %d is named twice in one move" % (heap + 1))
        self.takes = tuple(pairs)

    @classmethod
    def take(cls, heap, count):
        """Take `count` from `heap` (counted from 0)."""
        if type(heap) is int and type(count) is int and heap >= 0 and count >= 1:
            return cls(((heap, count),), True)
        return cls(((heap, count),))

    @classmethod
    def parse(cls, text):
        """Read the text form, such as ``2:3`` or ``1:1,3:2``."""
        from .values import is_whole  # only a typed move loads the reader of typed values
        pairs = []
        for part in text.strip().split(","):
            fields = part.strip().split(":")
            if len(fields) != 2 or not is_whole(fields[0].strip()) or not is_whole(fields[1].strip()):
                raise InvalidMove("%r is not a move: write heap:count, such as 2:3 or 1:1,3:2" % text)
            pairs.append((int(fields[0]) - 1, int(fields[1])))
        return cls(pairs)

    @property
    def heaps(self):
        """The heaps this move takes from, counted from 0."""
        return tuple(heap for heap, _ in self.takes)

    @property
    def total(self):
        return sum(count for _, count in self.takes)

    def __str__(self):
        return ",".join("%d:%d" % (heap + 1, count) for heap, count in self.takes)

    def __repr__(self):
        return "Move.parse('%s')" % self

    def __eq__(self, other):
        return isinstance(other, Move) and self.takes == other.takes

    def __ne__(self, other):
        return not self == other

    def __lt__(self, other):
        return self.takes < other.takes

    def __hash__(self):
        return hash(self.takes)


class Variant:
    """The shared interface of the game families.

    A variant knows which moves are legal; `controller.core.solve` knows who
    wins. Every family exists in normal play (taking the last object wins) and
    misère play (taking the last object loses).
    """

    family = ""
    title = ""

    def __init__(self, rule=NORMAL):
        if rule not in RULES:
            raise ValueError("unknown rule %r: use normal or misere" % rule)
        self.rule = rule

    @property
    def misere(self):
        return self.rule == MISERE

    def spec(self):
        """The plain-dict description that `make_variant` rebuilds it from."""
        return {"family": self.family, "rule": self.rule}

    def describe(self):
        return "%s; whoever takes the last object %s" % (self.title, "loses" if self.misere else "wins")

    def __repr__(self):
        args = ", ".join("%s=%r" % (key, value) for key, value in sorted(self.spec().items()) if key != "family")
        return "%s(%s)" % (type(self).__name__, args)

    def __eq__(self, other):
        return isinstance(other, Variant) and self.spec() == other.spec()

    def __hash__(self):
        return hash(tuple(sorted(self.spec().items())))

    # --- legality -------------------------------------------------------
    def shape_error(self, position, move):
        """Why the move breaks this family's rule, or None (heap sizes are checked apart)."""
        raise NotImplementedError

    def check(self, position, move):
        """Raise IllegalMove, quoting the move and the position, unless it is legal."""
        reason = None
        for heap, count in move.takes:
            if heap >= len(position):
                reason = "there is no heap %d" % (heap + 1)
            elif count > position[heap]:
                reason = "heap %d has %d" % (heap + 1, position[heap])
            if reason:
                break
        reason = reason or self.shape_error(position, move)
        if reason:
            raise IllegalMove("illegal move '%s' in %s: %s" % (move, position_text(position), reason))

    def apply(self, position, move):
        """The position after a legal move."""
        self.check(position, move)
        heaps = list(position)
        for heap, count in move.takes:
            heaps[heap] -= count
        return tuple(heaps)

    def legal_moves(self, position):
        """Every legal move, as a generator (Nim heaps can be astronomically large)."""
        raise NotImplementedError

    def random_move(self, position, rng):
        """A random legal move: a random non-empty heap, then a random legal take from it."""
        heaps = [i for i, h in enumerate(position) if h]
        if not heaps:
            return None
        heap = rng.choice(heaps)
        return Move.take(heap, rng.between(1, self.most_from_one_heap(position[heap])))

    def most_from_one_heap(self, size):
        return size

    def is_over(self, position):
        """True when no move is left: in every family, when every heap is empty."""
        for h in position:
            if h:
                return False
        return True

    def winner_at_end(self, last_mover):
        """Who wins once the objects are gone: 0 or 1, given who took the last one."""
        return 1 - last_mover if self.misere else last_mover


class Nim(Variant):
    """Take any number of objects from one heap (Bouton's Nim): the Nimatron, Marienbad, Nimx."""

    family = "nim"
    title = "take any number from one heap"
    k = 1

    def shape_error(self, position, move):
        if len(move.takes) != 1:
            return "take from one heap only"
        return None

    def legal_moves(self, position):
        for heap, size in enumerate(position):
            for count in range(1, size + 1):
                yield Move.take(heap, count)


# Names importable from here that live in another module (PEP 562, also in
# MicroPython): every `from .rules import Moore` keeps working, and only
# loads families.py when it runs.
ELSEWHERE = {"OneParameter": "families", "Subtraction": "families", "Moore": "families", "Rosebushes": "families",
             "Game": "record", "Outcome": "record"}


def __getattr__(name):
    if name not in ELSEWHERE:
        raise AttributeError(name)
    return getattr(__import__(ELSEWHERE[name], globals(), None, (name,), 1), name)
