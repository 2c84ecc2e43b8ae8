"""Play a game in the terminal, the way the historic programs did: show the
heaps, read the player's move, answer, announce the winner.

This is a shell: it reads and prints; every rule and every choice of the
machine comes from `controller.core`. What it prints is in the player's
language (`--lang`, else the terminal's LANG): `t` is a
controller.language.Language.
"""

from controller.core.rules import Game, IllegalMove, InvalidMove, Move
from controller.core.values import is_whole

DRAWN_UP_TO = 30


def title(t, preset):
    """The game's name in the player's language (a game the catalogs do not know keeps its own)."""
    titles = {
        "drnim": t._("The Amazing Dr. Nim (E.S.R. Inc., 1966)"),
        "sinclair": t._("Sinclair Cambridge Programmable matchstick game (1977)"),
        "nimatron": t._("The Nimatron (Westinghouse, New York World's Fair, 1940)"),
        "marienbad": t._("Last Year at Marienbad (1961)"),
        "nimx": t._("Nimx, a BASIC ten-liner"),
        "applet": t._("Chlond and Akyol's Nimatron applet (2003)"),
        "praxis": t._("Programming Praxis' Nim (2010)"),
        "moore": t._("Moore's Nim_k (1910)"),
        "rosebushes": t._("Rosebushes"),
        "subtraction": t._("Subtraction game"),
        "nim": t._("Nim"),
    }
    return titles.get(preset.name, preset.title)


def rule(t, variant):
    """What a move may take, and how the game ends, in words."""
    family = variant.family
    if family == "subtraction" and variant.max_take == 1 or family == "rosebushes" and variant.k == 1:
        take = t._("take one from one heap")    # not "take 1 to 1", nor "from each of 1 to 1 heap"
    elif family == "subtraction":
        take = t.format(t._("take 1 to %(most)d from one heap"), {"most": variant.max_take})
    elif family == "moore" and variant.k > 1:
        take = t.format(t._n("take any numbers from each of 1 to %(k)d heap",
                             "take any numbers from each of 1 to %(k)d heaps", variant.k), {"k": variant.k})
    elif family == "rosebushes":
        take = t.format(t._n("take one from each of 1 to %(k)d heap",
                             "take one from each of 1 to %(k)d heaps", variant.k), {"k": variant.k})
    else:   # Nim, and Moore's Nim_k with k = 1, which is Nim
        take = t._("take any number from one heap")
    end = t._("whoever takes the last object loses") if variant.misere else t._("whoever takes the last object wins")
    return t.format(t._("%(take)s; %(end)s"), {"take": take, "end": end})


def draw(t, position):
    """One line per heap: its objects as marks (when few enough to count) and its size."""
    width = 2 * min(max(position or (0,)), DRAWN_UP_TO)
    lines = []
    for heap, size in enumerate(position):
        marks = " ".join(["o"] * size) if size <= DRAWN_UP_TO else "o o o ... o"
        lines.append("  %s %s %s" % (t.format(t._("heap %(heap)d:"), {"heap": heap + 1}), marks.ljust(width),
                                     t.number(size)))
    return "\n".join(lines)


def examples(variant, position):
    """Moves as the player types them, that this game's rule allows: Rosebushes refuses 2:3,
    and a game whose move may touch several heaps shows how to write one that does."""
    count = variant.most_from_one_heap(2)
    if len(position) == 1:
        return str(count), None
    several = "1:1,2:%d" % count if getattr(variant, "k", 1) > 1 else None
    return "2:%d" % variant.most_from_one_heap(3), several


def prompt(t, variant, position):
    if len(position) == 1:
        return t._("How many do you take? ")
    one, several = examples(variant, position)
    if several:
        # Translators: %(one)s and %(several)s are moves as typed, such as 2:3 and 1:1,2:2 (heap:count).
        return t.format(t._("Your move (heap:count, such as %(one)s, or %(several)s from two heaps): "),
                        {"one": one, "several": several})
    return t.format(t._("Your move (heap:count, such as %(one)s): "), {"one": one})


def not_a_move(t, variant, position, typed):
    """What to type instead of `typed`, which is no move at all."""
    one, several = examples(variant, position)
    values = {"move": repr(typed), "one": one, "several": several}
    if len(position) == 1:
        return t.format(t._("%(move)s is not a move: write how many you take, such as %(one)s."), values)
    if several:
        return t.format(t._("%(move)s is not a move: write heap:count, such as %(one)s, or %(several)s from two "
                            "heaps."), values)
    return t.format(t._("%(move)s is not a move: write heap:count, such as %(one)s."), values)


def read_move(text, position):
    """The player's move: heap:count, or a bare count when there is one heap."""
    text = text.strip()
    if len(position) == 1 and is_whole(text):
        return Move.take(0, int(text))
    return Move.parse(text)


def say_move(t, move):
    parts = [t.format(t._("%(count)s from heap %(heap)d"), {"count": t.number(count), "heap": heap + 1})
             for heap, count in move.takes]
    return t._(" and ").join(parts)


def why_illegal(t, variant, position, move, typed):
    """Why the rules refuse `move` (as the player typed it) in `position`, in words: the game's rule before
    the heap's size, so that 99 at Dr. Nim's 15 marbles is told 'take 1 to 3', not that 15 is too few."""
    for heap, _ in move.takes:
        if heap >= len(position):
            return t.format(t._("There is no heap %(heap)d."), {"heap": heap + 1})
    broken = t.format(t._("%(move)s is not allowed here: %(rule)s."), {"move": repr(typed), "rule": rule(t, variant)})
    if variant.shape_error(position, move):
        return broken
    for heap, count in move.takes:
        if position[heap] == 0:
            return t.format(t._("Heap %(heap)d is empty."), {"heap": heap + 1})
        if count > position[heap]:
            return t.format(t._n("Heap %(heap)d has only %(size)d.", "Heap %(heap)d has only %(size)d.",
                                 position[heap]), {"heap": heap + 1, "size": position[heap]})
    return broken


def play(variant, heaps, opponent, machine_first, ask, tell, t):
    """Play one game and return its Outcome; `ask(prompt)` reads a line, `tell(text)` prints."""
    game = Game(variant, heaps)
    machine = 0 if machine_first else 1
    asked = prompt(t, variant, heaps)
    while not game.is_over():
        tell(draw(t, game.position))
        if game.turn == machine:
            move = opponent.choose(variant, game.position)
            game.push(move)
            tell(t.format(t._("The machine (%(opponent)s) takes %(move)s."),
                          {"opponent": opponent.name, "move": say_move(t, move)}))
            continue
        while True:
            text = ask(asked)
            try:
                game.push(read_move(text, game.position))
                break
            except InvalidMove:
                tell(not_a_move(t, variant, game.position, text.strip()))
            except IllegalMove:
                tell(why_illegal(t, variant, game.position, read_move(text, game.position), text.strip()))
    outcome = game.outcome()
    if outcome.winner == machine:
        tell(t._("The machine wins."))
    else:
        tell(t._("You win!"))
    return outcome
