"""The status lamps' labels: the assembly guide's table of them (hardware/<machine>/README.md,
between `<!-- labels:begin -->` and `<!-- labels:end -->`), generated with the other tables.

The lamps go into the panel left to right in the order the machine lights them in its attract
pattern (its LAMPS), so that the pattern runs along the row. Their colours are not told apart by a
red-green colour-blind visitor (yellow-green, amber, orange and red look alike), and a lamp's
meaning is nowhere on the machine: each needs its name beside it, which the table gives in every
language of the catalogs, in the simulator's words (controller/language/lamps.py).
"""

from controller.core.registry import machine_class
from controller.language import CODES, LANGUAGES, language
from controller.language.lamps import lamp_names


class LabelError(ValueError):
    """A status lamp with no name for its label; the message says where to give it one."""


def lamp_labels(machine, t):
    """{lamp: its name in `t`'s language} for `machine`'s status lamps; LabelError saying what to add
    when a lamp has none."""
    names = lamp_names(t).get(machine, {})
    missing = [lamp for lamp in machine_class(machine).LAMPS if lamp not in names]
    if missing:
        raise LabelError("%s's lamps %s have no name for their labels: add them to lamp_names() in "
                         "controller/language/lamps.py" % (machine, ", ".join(missing)))
    return names


def label_table(pinmap):
    """The status lamps, left to right, each with its colour and its name in every language, as Markdown."""
    languages = [language(code) for code in CODES]
    out = ["| place | lamp | colour | " + " | ".join(LANGUAGES[code] for code in CODES) + " |",
           "| ---: | --- | --- | " + " | ".join("---" for code in CODES) + " |"]
    named = [lamp_labels(pinmap.machine, t) for t in languages]
    for place, lamp in enumerate(machine_class(pinmap.machine).LAMPS, 1):
        options = pinmap.outputs["lamp_" + lamp].options
        colour = options.get("colour") or "%g V" % options["vf"]
        out.append("| %d | `lamp_%s` | %s | %s |" % (place, lamp, colour, " | ".join(names[lamp] for names in named)))
    return "\n".join(out) + "\n"
