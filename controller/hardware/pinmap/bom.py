"""A replica's parts list (`hardware/<machine>/bom.csv`) as the priced table
of its assembly guide (`hardware/<machine>/README.md`, between
`<!-- parts:begin -->` and `<!-- parts:end -->`), with the total.

Each row has a typical unit price in euros (`unit price EUR`) and a `choice`:
empty for a part of the build the shipped pin map describes, "alternative"
for a part that replaces another (the servo gate, the micro-USB supply),
"optional" for one the build works without (chip sockets). Only the first
kind counts in the total. Prices are summed as decimals, so the total is
exact to the cent.

The plywood the pin map's `[build]` table sizes (Dr. Nim's backboard and base,
the Nimatron's upright) has its sizes in its row's example part number, which
`sized_bom` writes from the map (`--write-docs`), as the tables are.
"""

import csv
import re
from decimal import Decimal
from pathlib import Path

from controller.hardware.pinmap.electrical import COUNTED_FOR

PRICED = "November 2026"
CHOICES = ("", "alternative", "optional")
COLUMNS = ("part", "quantity", "example part number", "note", "unit price EUR", "choice")


class BomError(ValueError):
    """A parts list that cannot be priced; the message names the file, the row and the cell."""


def read_bom(path):
    """The rows of a bom.csv, each a dict, with `quantity` an int and `unit price EUR` a Decimal."""
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [name for name in COLUMNS if name not in (reader.fieldnames or ())]
        if missing:
            raise BomError("%s: no column %s (the columns: %s)" % (path, ", ".join(missing), ", ".join(COLUMNS)))
        for number, row in enumerate(reader, start=2):
            try:
                row["quantity"] = int(row["quantity"])
                row["unit price EUR"] = Decimal(row["unit price EUR"])
            except (TypeError, ValueError, ArithmeticError):
                raise BomError("%s:%d: %s: quantity %r or unit price EUR %r is not a number"
                               % (path, number, row.get("part"), row.get("quantity"), row.get("unit price EUR")))
            if row["choice"] not in CHOICES:
                raise BomError("%s:%d: %s: choice %r is not one of: (empty), alternative, optional"
                               % (path, number, row["part"], row["choice"]))
            rows.append(row)
    return rows


# Dr. Nim's base: as wide as the backboard (board_mm), and as deep and as thick as assembly.scad draws it
# (`base = [board[0], 305, 9]`; a test holds the two together), mm.
DRNIM_BASE_MM = (305, 9)
# "9 mm birch plywood 320 x 340 mm": thickness, the wood, width x height (or depth)
PLYWOOD = re.compile(r"(\d+(?:\.\d+)?) mm ([\w ]*?plywood) (\d+(?:\.\d+)?) x (\d+(?:\.\d+)?) mm")


def plywood(pinmap):
    """{a parts list's row: (thickness, width, height or depth), mm} for the plywood the pin map's [build]
    sizes: Dr. Nim's backboard (board_mm) and its base, the Nimatron's upright (upright_mm)."""
    build = pinmap.build
    if "board_mm" in build:
        width, height, thickness = build["board_mm"]
        depth, base_thickness = DRNIM_BASE_MM
        return {"Backboard": (thickness, width, height), "Base": (base_thickness, width, depth)}
    if "upright_mm" in build:
        width, height, thickness = build["upright_mm"]
        return {"Upright": (thickness, width, height)}
    return {}


def plywood_text(sizes):
    """(9, 320, 340) as the parts list gives it: "9 mm ... 320 x 340 mm" without the wood."""
    return tuple("%g" % size for size in sizes)


def sized_bom(text, pinmap, path="bom.csv"):
    """The text of a bom.csv with each plywood row's sizes (`plywood`) in its example part number, the rest
    as it is; a BomError names a row with no "9 mm birch plywood 320 x 340 mm" to size."""
    sizes = plywood(pinmap)
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines):
        part = line.split(",", 1)[0]
        if part not in sizes:
            continue
        thickness, width, height = plywood_text(sizes[part])
        line, count = PLYWOOD.subn(lambda m: "%s mm %s %s x %s mm" % (thickness, m.group(2), width, height), line,
                                   count=1)
        if not count:
            raise BomError("%s:%d: %s: no \"9 mm birch plywood 320 x 340 mm\" in it to give the pin map's sizes "
                           "(%s mm, %s x %s mm)" % (path, number + 1, part, thickness, width, height))
        lines[number] = line
    return "".join(lines)


def layout_warning(pinmap):
    """A line for a Nimatron pin map of another layout than COUNTED_FOR, with what its build takes; None else."""
    if pinmap.machine != "nimatron" or (pinmap.rows, pinmap.lamps_per_row) == COUNTED_FOR:
        return None
    from controller.hardware.pinmap.check import map_lines
    from controller.hardware.pinmap.electrical import lamp_ma
    from controller.hardware.pinmap.positions import line_of
    chain = pinmap.lamp_chain
    lamps = 2 * pinmap.rows * pinmap.lamps_per_row
    return ("%s:%d: rows, lamps_per_row: %d rows of %d lamps, where the parts list, the console top and the lamp "
            "boards are counted for the 1940 machine's %d of %d: this build takes %d lamp LEDs and their resistors, "
            "%d 74HC595s and as many ULN2803s, %d buttons, and %.2f A through the ribbon with every lamp lit, which "
            "its PTCs must hold; hardware/nimatron/README.md, \"Another layout\", says what to change" % (
                pinmap.path, line_of(map_lines(pinmap), "rows"), pinmap.rows, pinmap.lamps_per_row, *COUNTED_FOR,
                lamps, chain.options["registers"], pinmap.rows + 2, lamps * lamp_ma(chain.options) / 1000))


def total(rows):
    """The price of the build, in euros: every row that is not an alternative or optional."""
    return sum((row["quantity"] * row["unit price EUR"] for row in rows if not row["choice"]), Decimal("0"))


# The rows of a parts list that are the Pi's own: the board, its supply and its card.
PI_PARTS = ("Raspberry Pi with a 40-pin header", "Pi power supply (USB-C)", "microSD card 16 GB or more")
# A build with a Pico (the guide's Pico section): its two alternatives in place of the Pi's own
# rows, the T-Cobbler and the Pi's screws.
PICO_PARTS = ("Raspberry Pi Pico (instead of the Pi)", "USB charger and micro-USB data cable (for the Pico)")
NOT_WITH_A_PICO = PI_PARTS + ("GPIO breakout and 40-way ribbon cable", "Self-tapping screws M2.5 x 6")
PICO_SECTION = "#with-a-raspberry-pi-pico-instead-of-the-pi"


def _price(rows, names, path):
    """What the rows called `names` cost together; a BomError naming the first one missing."""
    found = dict((row["part"], row) for row in rows)
    for name in names:
        if name not in found:
            raise BomError("%s: no row %r, which the guide's cost line counts" % (path, name))
    return sum(found[name]["quantity"] * found[name]["unit price EUR"] for name in names)


def pico_total(rows, path="bom.csv"):
    """The price of the build with a Pico: the total, less the rows a Pico build leaves out,
    with the Pico's own alternatives."""
    return total(rows) - _price(rows, NOT_WITH_A_PICO, path) + _price(rows, PICO_PARTS, path)


def cost_text(pinmap):
    """The assembly guide's sentence on the cost, from the parts list next to `pinmap`: its
    total and the Pi's share, and, when the list has a Pico's alternatives, the build's total
    with a Pico, each to the euro."""
    path = Path(pinmap.path).parent / "bom.csv"
    if not path.exists():
        return ""
    rows = read_bom(path)
    pi = _price(rows, PI_PARTS, path)
    pico = ""
    if any(row["part"] in PICO_PARTS for row in rows):
        pico = "; about %d € with a Pico in place of the Pi, its supply, its card and the T-Cobbler ([with a " \
               "Pico](%s))" % (pico_total(rows, path).to_integral_value(), PICO_SECTION)
    return "**Cost:** about %d € with a new Raspberry Pi 4 (%d € of it the Pi, its supply and its card)%s; see " \
           "the [total](#the-parts-list).\n" % (total(rows).to_integral_value(), pi.to_integral_value(), pico)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def parts_table(pinmap):
    """The Markdown table of the parts list next to `pinmap`, with prices and the total."""
    path = Path(pinmap.path).parent / "bom.csv"
    if not path.exists():
        return ""
    rows = read_bom(path)
    out = ["| part | qty | example | each | line |", "| --- | ---: | --- | ---: | ---: |"]
    for row in rows:
        line = row["quantity"] * row["unit price EUR"]
        part = _cell(row["part"]) + (" (*%s, not in the total*)" % row["choice"] if row["choice"] else "")
        out.append("| %s | %d | %s | %s € | %s € |" % (part, row["quantity"], _cell(row["example part number"]),
                                                     row["unit price EUR"], line))
    out.append("| **total** (typical prices, %s; indicative) | | | | **%s €** |" % (PRICED, total(rows)))
    return "\n".join(out) + "\n"
