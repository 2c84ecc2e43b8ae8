"""The rules of the Nim games: positions, moves, variants and a game record.

Modelled on python-chess: a position is a tuple of heap sizes, a `Move` is a
small value with a text form that parses back, a `Game` keeps a move stack,
and each variant family is a small class with one shared interface, listed in
one registry (`find_variant`).

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

    def __init__(self, takes):
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


def combinations(items, size, start=0):
    """All sorted tuples of `size` distinct items (itertools is not on every board)."""
    if size == 0:
        yield ()
        return
    for i in range(start, len(items) - size + 1):
        for rest in combinations(items, size - 1, i + 1):
            yield (items[i],) + rest


class Variant:
    """The shared interface of the game families.

    A variant knows which moves are legal; `controller.core.solve` knows who
    wins. Every family exists in normal play (taking the last object wins) and
    misère play (taking the last object loses).
    """

    family = ""
    aliases = ()
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


class OneParameter(Variant):
    """A family with one whole-number parameter, 1 or more: Subtraction's
    max_take, Moore's and Rosebushes' k. Subclasses name it (`parameter`, the
    attribute and spec key; `label`, its name in messages) and give `template`,
    the title with %d for it."""

    parameter = "k"
    label = "k"
    template = ""

    def __init__(self, rule, value):
        if not isinstance(value, int) or value < 1:
            raise ValueError("%s is %r: it must be 1 or more" % (self.label, value))
        Variant.__init__(self, rule)
        setattr(self, self.parameter, value)
        self.title = self.template % value

    def spec(self):
        spec = Variant.spec(self)
        spec[self.parameter] = getattr(self, self.parameter)
        return spec


class Subtraction(OneParameter):
    """Take 1 to m objects from one heap: Dr. Nim and the Sinclair matchstick game (m = 3)."""

    family = "subtraction"
    aliases = ("take-away",)
    parameter = "max_take"
    label = "max-take"
    template = "take 1 to %d from one heap"

    def __init__(self, rule=NORMAL, max_take=3):
        OneParameter.__init__(self, rule, max_take)

    def most_from_one_heap(self, size):
        return min(size, self.max_take)

    def shape_error(self, position, move):
        if len(move.takes) != 1:
            return "take from one heap only"
        if move.takes[0][1] > self.max_take:
            return "take at most %d" % self.max_take
        return None

    def legal_moves(self, position):
        for heap, size in enumerate(position):
            for count in range(1, min(size, self.max_take) + 1):
                yield Move.take(heap, count)


class Nim(Variant):
    """Take any number of objects from one heap (Bouton's Nim): the Nimatron, Marienbad, Nimx."""

    family = "nim"
    aliases = ("bouton",)
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


class Moore(OneParameter):
    """Moore's Nim_k: take any positive numbers from each of 1 to k heaps."""

    family = "moore"
    aliases = ("nimk", "nim-k")
    template = "take any numbers from each of 1 to %d heaps"

    def __init__(self, rule=NORMAL, k=2):
        OneParameter.__init__(self, rule, k)

    def shape_error(self, position, move):
        if len(move.takes) > self.k:
            return "take from at most %d heaps" % self.k
        return None

    def legal_moves(self, position):
        heaps = [i for i, h in enumerate(position) if h]
        for size in range(1, min(self.k, len(heaps)) + 1):
            for chosen in combinations(heaps, size):
                for counts in _counts(position, chosen):
                    yield Move(zip(chosen, counts))


def _counts(position, heaps):
    """Every tuple of takes (1..size) for the given heaps."""
    if not heaps:
        yield ()
        return
    for rest in _counts(position, heaps[1:]):
        for count in range(1, position[heaps[0]] + 1):
            yield (count,) + rest


class Rosebushes(OneParameter):
    """Take exactly one object from each of 1 to k non-empty heaps."""

    family = "rosebushes"
    aliases = ("rosebush",)
    template = "take one from each of 1 to %d heaps"

    def __init__(self, rule=NORMAL, k=2):
        OneParameter.__init__(self, rule, k)

    def most_from_one_heap(self, size):
        return min(size, 1)

    def shape_error(self, position, move):
        if len(move.takes) > self.k:
            return "take from at most %d heaps" % self.k
        for heap, count in move.takes:
            if count != 1:
                return "take exactly one from each heap"
        return None

    def legal_moves(self, position):
        heaps = [i for i, h in enumerate(position) if h]
        for size in range(1, min(self.k, len(heaps)) + 1):
            for chosen in combinations(heaps, size):
                yield Move([(heap, 1) for heap in chosen])

    def random_move(self, position, rng):
        heaps = [i for i, h in enumerate(position) if h]
        if not heaps:
            return None
        chosen = []
        for _ in range(rng.between(1, min(self.k, len(heaps)))):
            chosen.append(heaps.pop(rng.below(len(heaps))))
        return Move([(heap, 1) for heap in chosen])


VARIANTS = (Subtraction, Nim, Moore, Rosebushes)


def find_variant(name):
    """The variant class called `name` or one of its aliases."""
    wanted = name.strip().lower()
    for cls in VARIANTS:
        if wanted == cls.family or wanted in cls.aliases:
            return cls
    raise ValueError("unknown game family %r: choose from %s" % (name, ", ".join(c.family for c in VARIANTS)))


def make_variant(spec):
    """Rebuild a variant from the plain dict that `Variant.spec()` gives."""
    cls = find_variant(spec["family"])
    kwargs = {}
    for key in spec:
        if key != "family":
            kwargs[key] = spec[key]
    return cls(**kwargs)


class Outcome:
    """How a finished game ended: `winner` is 0 (the first mover) or 1."""

    def __init__(self, winner, last_mover):
        self.winner = winner
        self.last_mover = last_mover

    def __repr__(self):
        return "Outcome(winner=%d, last_mover=%d)" % (self.winner, self.last_mover)


class Game:
    """A game in progress: the start position and the stack of moves played.

    Player 0 moves first. `turn` is the player to move now.
    """

    def __init__(self, variant, heaps):
        self.variant = variant
        self.start = check_position(heaps)
        self.position = self.start
        self.stack = []

    @property
    def turn(self):
        return len(self.stack) % 2

    def push(self, move):
        self.position = self.variant.apply(self.position, move)
        self.stack.append(move)

    def pop(self):
        move = self.stack.pop()
        heaps = list(self.position)
        for heap, count in move.takes:
            heaps[heap] += count
        self.position = tuple(heaps)
        return move

    def peek(self):
        """The last move played; IndexError when there is none, as in python-chess."""
        if not self.stack:
            raise IndexError("no move to peek at: the game has no moves yet")
        return self.stack[-1]

    def legal_moves(self):
        return self.variant.legal_moves(self.position)

    def is_over(self):
        return self.variant.is_over(self.position)

    def outcome(self):
        """None while moves remain; else who won."""
        if not self.is_over():
            return None
        if not self.stack:
            # Nothing was ever taken: in misère play the mover wins by convention.
            return Outcome(0 if self.variant.misere else 1, 1)
        last = (len(self.stack) - 1) % 2
        return Outcome(self.variant.winner_at_end(last), last)

    def to_dict(self):
        return {"variant": self.variant.spec(), "start": list(self.start), "moves": [str(m) for m in self.stack]}

    @classmethod
    def from_dict(cls, data):
        game = cls(make_variant(data["variant"]), data["start"])
        for text in data["moves"]:
            game.push(Move.parse(text))
        return game
