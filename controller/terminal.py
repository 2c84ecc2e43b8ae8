"""Play a game in the terminal, the way the historic programs did: show the
heaps, read the player's move, answer, announce the winner.

This is a shell: it reads and prints; every rule and every choice of the
machine comes from `controller.core`.
"""

from controller.core.rules import Game, IllegalMove, InvalidMove, Move
from controller.core.values import is_whole

DRAWN_UP_TO = 30


def draw(position):
    """One line per heap: its objects as marks (when few enough to count) and its size."""
    width = 2 * min(max(position or (0,)), DRAWN_UP_TO)
    lines = []
    for heap, size in enumerate(position):
        marks = " ".join(["o"] * size) if size <= DRAWN_UP_TO else "o o o ... o"
        lines.append("  heap %d: %-*s %d" % (heap + 1, width, marks, size))
    return "\n".join(lines)


def read_move(text, position):
    """The player's move: heap:count, or a bare count when there is one heap."""
    text = text.strip()
    if len(position) == 1 and is_whole(text):
        return Move.take(0, int(text))
    return Move.parse(text)


def say_move(move):
    parts = []
    for heap, count in move.takes:
        parts.append("%d from heap %d" % (count, heap + 1))
    return "takes " + " and ".join(parts)


def play(variant, heaps, opponent, machine_first, ask, tell):
    """Play one game and return its Outcome; `ask(prompt)` reads a line, `tell(text)` prints."""
    game = Game(variant, heaps)
    machine = 0 if machine_first else 1
    prompt = "How many do you take? " if len(heaps) == 1 else "Your move (heap:count, such as 2:3): "
    while not game.is_over():
        tell(draw(game.position))
        if game.turn == machine:
            move = opponent.choose(variant, game.position)
            game.push(move)
            tell("The machine (%s) %s." % (opponent.name, say_move(move)))
            continue
        while True:
            text = ask(prompt)
            try:
                game.push(read_move(text, game.position))
                break
            except (InvalidMove, IllegalMove) as error:
                tell(str(error))
    outcome = game.outcome()
    if outcome.winner == machine:
        tell("The machine wins.")
    else:
        tell("You win!")
    return outcome
