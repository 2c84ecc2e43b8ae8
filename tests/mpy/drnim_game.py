"""One complete Dr. Nim game (15 marbles, take 1-3, last loses) between the
perfect player and a fallible visitor, for measuring the smallest MicroPython
heap the core needs. Prints the moves and the winner."""

import sys

from controller.core.players import find_player
from controller.core.presets import find_preset
from controller.core.rng import Random
from controller.core.rules import Game

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
preset = find_preset("drnim")
rng = Random(seed)
seats = (find_player("fallible:0.5", rng), find_player("perfect", rng))
game = Game(preset.variant(), preset.start())
while not game.is_over():
    game.push(seats[game.turn].choose(game.variant, game.position))
print(" ".join(str(m) for m in game.stack), "winner", game.outcome().winner)
