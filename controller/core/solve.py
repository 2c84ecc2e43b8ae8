"""Who wins a Nim position, every move that wins it, and how many there are.

Closed forms are used only where they are proven:

- subtraction 1..m, one heap: the mover loses iff n mod (m+1) is 0 (normal)
  or 1 (misère); several heaps in normal play: Sprague-Grundy, heap values
  n mod (m+1) combined by xor;
- Nim (Bouton): the mover loses iff the xor of the heaps is 0; misère Nim: the
  same while some heap is above 1, and when every heap is 0 or 1 the mover
  loses iff the number of 1-heaps is odd;
- Moore's Nim_k, normal play: the mover loses iff every binary column sum of
  the heaps is divisible by k+1;
- Rosebushes, normal and misère, in three cases (proofs in the docstrings of
  `_rosebushes_k1`, `_rosebushes_few` and `_rosebushes_k_plus_1`): k = 1; at
  most k non-empty heaps; exactly k+1 non-empty heaps.

Everything else (Rosebushes with k >= 2 and k+2 or more non-empty heaps,
misère Nim_k with k >= 2, misère subtraction on several heaps) is solved by
exact memoised search over sorted positions (search.py), because no closed
form is proven for it.

Each family's closed forms live in a module of their own (solve_nim.py,
solve_subtraction.py, solve_moore.py, solve_rosebushes.py), imported when a
game of that family is first asked about, and the search only when a position
needs it: a board playing Nim loads Nim's theory and nothing more.

Convention: in misère play a position with no objects left is won by the
player to move (the other player took the last one), and has no moves.
"""

from .limits import SearchTooLarge  # noqa: F401  (part of this module's interface)
from .solve_nim import nim_sum  # noqa: F401  (part of this module's interface)


# The most positions an exact search may visit; a board sets a smaller one.
search_limit = 2000000

# Each family's module: `searched(variant, position)` (None when every
# position has a closed form), `wins`, `moves` (a generator) and `count`.
FAMILIES = {"subtraction": "solve_subtraction", "nim": "solve_nim", "moore": "solve_moore",
            "rosebushes": "solve_rosebushes"}


# The families' modules imported so far, by family: a move asked for again costs no import.
_loaded = {}


def family_of(variant):
    """The module holding the closed forms of the variant's family, imported when first asked for."""
    family = _loaded.get(variant.family)
    if family is None:
        family = _loaded[variant.family] = __import__(FAMILIES[variant.family], globals(), None, ("wins",), 1)
    return family


def _searched(family, variant, position):
    return family.searched is not None and family.searched(variant, position)


def mover_wins(variant, position, progress=None):
    """True when the player to move can force a win.

    `progress`, when given, is called now and then with the number of
    positions an exact search has settled (never by a closed form).
    """
    family = family_of(variant)
    if _searched(family, variant, position):
        from .search import search_wins
        return search_wins(variant, position, family, search_limit, progress)
    return family.wins(variant, position)


def winning_moves(variant, position, progress=None):
    """Every winning move, as a generator: in Nim_k there can be astronomically many."""
    family = family_of(variant)
    if _searched(family, variant, position):
        from .search import searched_moves
        return searched_moves(variant, position, family, search_limit, progress)
    return family.moves(variant, position)


def winning_move(variant, position, progress=None):
    """The first winning move the solver finds, or None in a losing position."""
    for move in winning_moves(variant, position, progress):
        return move
    return None


def winning_move_count(variant, position, progress=None):
    """How many winning moves there are, counted without listing them where a
    closed form allows: Nim, subtraction, Moore's Nim_k in normal play and
    the Rosebushes closed forms (a few candidate moves checked). Elsewhere
    the moves are listed and counted."""
    family = family_of(variant)
    if not _searched(family, variant, position):
        return family.count(variant, position)
    count = 0
    for _ in winning_moves(variant, position, progress):
        count += 1
    return count


def search_estimate(position):
    """How many positions an exact search from `position` may visit."""
    from .search import search_estimate
    return search_estimate(position)


def forget(variant=None):
    """Free the exact search's memo: of one variant, or of every variant."""
    from .search import forget
    forget(variant)
