"""The game families beyond Nim: subtraction games, Moore's Nim_k and
Rosebushes, each a `Variant` with one whole-number parameter. A module of
its own, loaded when a game of theirs is made (`from .rules import Moore`
finds them), so a board playing Nim or historic Dr. Nim does not carry them.
The registry of every family by name is here too (`find_variant`,
`make_variant`): only a host rebuilds a variant from its name, and a board's
machine makes its own (the Nimatron's `Nim`) directly."""

from .counting import combinations
from .endings import NORMAL
from .rules import Move, Nim, Variant


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


class Moore(OneParameter):
    """Moore's Nim_k: take any positive numbers from each of 1 to k heaps."""

    family = "moore"
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


# The families by name, each with its aliases.
FAMILIES = (("subtraction", ("take-away",), Subtraction), ("nim", ("bouton",), Nim),
            ("moore", ("nimk", "nim-k"), Moore), ("rosebushes", ("rosebush",), Rosebushes))


def find_variant(name):
    """The variant class called `name` or one of its aliases."""
    wanted = name.strip().lower()
    for family, aliases, cls in FAMILIES:
        if wanted == family or wanted in aliases:
            return cls
    raise ValueError("unknown game family %r: choose from %s" % (name, ", ".join(f[0] for f in FAMILIES)))


def make_variant(spec):
    """Rebuild a variant from the plain dict that `Variant.spec()` gives."""
    cls = find_variant(spec["family"])
    kwargs = {}
    for key in spec:
        if key != "family":
            kwargs[key] = spec[key]
    return cls(**kwargs)
