"""A game record: the start position and the stack of moves played, as
python-chess's Board keeps its move stack. Loaded by the shells that keep a
record (the terminal game, the tests); the machines keep their own state."""

from .families import make_variant
from .rules import Move, check_position


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
