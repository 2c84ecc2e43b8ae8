"""How a game ends: whoever takes the last object wins (NORMAL play) or
loses (MISERE). A module of its own, so a machine that never needs the game
theory (historic Dr. Nim on a board) can say which ending it plays without
loading the rules."""

NORMAL = "normal"
MISERE = "misere"
RULES = (NORMAL, MISERE)
