"""Compute the core's results for tests/vectors/core.json and print them as JSON.

Runs unchanged under CPython and MicroPython (the core's subset): the tests run
it under both interpreters and compare the decoded output.
Usage: vectors.py PATH-TO-core.json
"""

import json
import sys

from controller.core import solve
from controller.core.players import find_player
from controller.core.presets import find_preset
from controller.core.rng import Random
from controller.core.families import make_variant
from controller.core.rules import Game, Move


def positions(count, largest):
    if count == 0:
        yield ()
        return
    for rest in positions(count - 1, largest):
        for size in range(largest + 1):
            yield rest + (size,)


def solved(variant, heaps):
    return {
        "variant": variant.spec(),
        "position": list(heaps),
        "mover_wins": solve.mover_wins(variant, heaps),
        "winning_moves": sorted(str(m) for m in solve.winning_moves(variant, heaps)),
        "winning_move_count": solve.winning_move_count(variant, heaps),
    }


def play(case):
    preset = find_preset(case["preset"])
    rng = Random(case["seed"])
    variant = preset.variant(None, case.get("k"), None)
    heaps = preset.start(case.get("heaps"), rng)
    seats = (find_player(case["first"], rng), find_player(case["second"], rng))
    game = Game(variant, heaps)
    while not game.is_over():
        game.push(seats[game.turn].choose(variant, game.position))
    return {"case": case, "start": list(heaps), "moves": [str(m) for m in game.stack],
            "winner": game.outcome().winner}


def main(path):
    with open(path) as f:
        data = json.load(f)
    out = {"solved": [], "counts": [], "moves": [], "illegal": [], "games": [], "rng": []}
    for sweep in data["sweeps"]:
        variant = make_variant(sweep["variant"])
        for heaps in positions(sweep["heaps"], sweep["max"]):
            out["solved"].append(solved(variant, heaps))
    for case in data["positions"]:
        out["solved"].append(solved(make_variant(case["variant"]), tuple(case["heaps"])))
    for case in data["counts"]:
        out["counts"].append(solve.winning_move_count(make_variant(case["variant"]), tuple(case["heaps"])))
    for text in data["moves"]:
        move = Move.parse(text)
        out["moves"].append([text, str(move), repr(move), list(move.takes)])
    for case in data["illegal"]:
        variant = make_variant(case["variant"])
        try:
            variant.apply(tuple(case["heaps"]), Move.parse(case["move"]))
            out["illegal"].append(None)
        except ValueError as error:
            out["illegal"].append(str(error))
    for case in data["games"]:
        out["games"].append(play(case))
    for seed in data["rng"]:
        rng = Random(seed)
        out["rng"].append([rng.next32() for _ in range(5)] + [rng.below(7), rng.below(2 ** 63)])
    print(json.dumps(out))


main(sys.argv[1])
