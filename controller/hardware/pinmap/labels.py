"""The status lamps' labels: the assembly guide's table of them (hardware/<machine>/README.md,
between `<!-- labels:begin -->` and `<!-- labels:end -->`), generated with the other tables.

The lamps go into the panel left to right in the order the machine lights them in its attract
pattern (its LAMPS), so that the pattern runs along the row. Their colours are not told apart by a
red-green colour-blind visitor (yellow-green, amber, orange and red look alike), and a lamp's
meaning is nowhere on the machine: each needs its name beside it, which the table gives in every
language of the catalogs. The names are the catalogs' own texts (the visitor card's, where the card
names the lamp, else the simulator's), so each is translated wherever the card and the simulator are.
"""

from controller.core.registry import machine_class
from controller.language import CODES, LANGUAGES, language

# Each machine's status lamps (its LAMPS) -> the catalogs' text that names it.
LAMP_NAMES = {
    "drnim": {"your_turn": "your turn", "drnim_turn": "Dr. Nim's turn", "you_win": "you win",
              "drnim_wins": "Dr. Nim wins", "fault": "fault"},
    "nimatron": {"your_turn": "your turn", "machine_turn": "Nimatron's turn", "nim_champ": "NIM CHAMP",
                 "machine_wins": "Nimatron wins"},
}


class LabelError(ValueError):
    """A status lamp with no name for its label; the message says where to give it one."""


def lamp_names(machine):
    """The names of `machine`'s status lamps, in the order they are fitted; LabelError saying what to add
    when a lamp has none."""
    names = LAMP_NAMES.get(machine, {})
    missing = [lamp for lamp in machine_class(machine).LAMPS if lamp not in names]
    if missing:
        raise LabelError("%s's lamps %s have no name for their labels: add them to LAMP_NAMES in "
                         "controller/hardware/pinmap/labels.py" % (machine, ", ".join(missing)))
    return [(lamp, names[lamp]) for lamp in machine_class(machine).LAMPS]


def label_table(pinmap):
    """The status lamps, left to right, each with its colour and its name in every language, as Markdown."""
    languages = [language(code) for code in CODES]
    out = ["| place | lamp | colour | " + " | ".join(LANGUAGES[code] for code in CODES) + " |",
           "| ---: | --- | --- | " + " | ".join("---" for code in CODES) + " |"]
    for place, (lamp, name) in enumerate(lamp_names(pinmap.machine), 1):
        options = pinmap.outputs["lamp_" + lamp].options
        colour = options.get("colour") or "%g V" % options["vf"]
        out.append("| %d | `lamp_%s` | %s | %s |" % (place, lamp, colour, " | ".join(t._(name) for t in languages)))
    return "\n".join(out) + "\n"
