"""The visitor cards: an A6 card per machine and language that tells visitors
how to play, as SVG and PDF (hardware/<machine>/visitor-card.<LL>.svg, .pdf),
and its words alone as plain text (.txt), for a screen reader, braille or
large print.

    controller hardware cards [--machine drnim] [--lang de] [--out DIR]
    .venv/bin/python -m controller.cards ...      (the same, in a checkout: make catalogs runs it)

Each card is the machine's drawing (hardware/<machine>/visitor-card-drawing.svg,
the shapes alone) with its words in the language, from the catalogs
(controller/language): the words are measured in the card's font (DejaVu
Sans, through cairo) so that a label shrinks to its place and a step of
"How to play" wraps to the card's width, in a language that takes more room
too; the steps' size goes down a little when a language needs it, and a card
whose words cannot fit at all is refused (CardError), never printed cut off.
Without --machine and --lang: every card, into hardware/ (the committed ones);
an installed controller writes them into the current folder instead, never
among its own files.

The PDF comes from the SVG with CairoSVG, the same bytes each time and on
every machine: its date is `SOURCE_DATE_EPOCH` (the reproducible-builds
convention) when it is set, else the date the committed cards carry, so
that `make catalogs` with nothing changed changes no card (CairoSVG alone
writes the time of the run, and a file's modification time is that of the
clone). Needs CairoSVG with the Cairo library (Debian's libcairo2) and the
DejaVu fonts (the cards extra installs CairoSVG, and so does the test extra);
a computer without the library is told in one line how to get it.
"""

import argparse
import os
import sys
import time
from html import escape
from pathlib import Path

from controller.core.registry import NAMES
from controller.language import CODES, UnknownLanguage, language

FONT = "DejaVu Sans"
# "How to play": where the steps go, their size at most and at least, and the lines' spacing (in sizes).
STEPS_LEFT, STEPS_RIGHT, STEPS_TOP = 11, 98, 83
STEP_SIZES = (2.75, 2.6, 2.45, 2.3)
LINE = 1.255
GAP = 1.545
TEXT = "#222"
RED = "#8b1a1a"
# The PDFs' date without SOURCE_DATE_EPOCH: 2025-01-01, the one the committed cards carry.
CARD_DATE = 1735689600


# Why a language written right to left has no card, after "the drnim card in he: ".
RIGHT_TO_LEFT = ("it is written right to left, which the cards' PDF (cairo) cannot lay out: its words would print "
                 "backwards; no card is made (the page and the kiosk show the language)")


# How to get the Cairo library, by sys.platform (cairocffi finds it by name: no pip package carries it).
CAIRO_INSTALL = {
    "linux": "sudo apt-get install libcairo2 (Debian, Ubuntu, Raspberry Pi OS)",
    "darwin": "brew install cairo (Homebrew)",
    "win32": "install the GTK 3 runtime for Windows, as CairoSVG's documentation says under Installation",
}


class CardError(ValueError):
    """A card that cannot be made: the words do not fit, or a file cannot be read or written."""


def cairo():
    """cairocffi, or CardError in one line where the Cairo library is missing: cairocffi raises
    OSError then, one line for each of the six names it tried."""
    try:
        import cairocffi
    except OSError:
        raise CardError("the cards are drawn with the Cairo library, which this computer lacks: %s"
                        % CAIRO_INSTALL.get(sys.platform, CAIRO_INSTALL["linux"])) from None
    return cairocffi


def creation_date():
    """The PDF's creation date, ISO 8601 in UTC: SOURCE_DATE_EPOCH, else CARD_DATE."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = int(epoch) if epoch.isdigit() and epoch.isascii() else CARD_DATE
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))


def make_pdf(svg_path, pdf_path, title):
    """The card's PDF, dated (creation_date) and titled: a screen reader says a PDF's title as it opens it,
    and one without is "untitled" or its file's name."""
    cairocffi = cairo()
    from cairosvg.surface import PDFSurface
    created = creation_date()

    class DatedPDF(PDFSurface):
        def finish(self):
            self.cairo.set_metadata(cairocffi.PDF_METADATA_CREATE_DATE, created)
            self.cairo.set_metadata(cairocffi.PDF_METADATA_TITLE, title)
            super().finish()

    DatedPDF.convert(url=str(svg_path), write_to=str(pdf_path))


class Measure:
    """The width of a text in the card's font, in mm at a size in mm (cairo's own metrics)."""

    def __init__(self):
        cairocffi = cairo()
        self.context = cairocffi.Context(cairocffi.RecordingSurface(cairocffi.CONTENT_COLOR_ALPHA, None))
        self.cairo = cairocffi

    def __call__(self, text, size, bold=False, italic=False):
        self.context.select_font_face(FONT, self.cairo.FONT_SLANT_ITALIC if italic else self.cairo.FONT_SLANT_NORMAL,
                                      self.cairo.FONT_WEIGHT_BOLD if bold else self.cairo.FONT_WEIGHT_NORMAL)
        self.context.set_font_size(100)
        return self.context.text_extents(text)[4] * size / 100


class Card:
    """The words of one card, as SVG text elements, placed with `measure`."""

    def __init__(self, measure):
        self.measure = measure
        self.lines = []

    def text(self, x, y, words, size, most=None, anchor="start", bold=False, italic=False, fill="#fff"):
        """Words at (x, y), a line each of their lines (the first at y); smaller, down to 60 % of `size`,
        to fit `most` mm; CardError when even that is too wide."""
        lines = words.split("\n")
        if most is not None:
            wide = max(self.measure(line, size, bold, italic) for line in lines)
            if wide > most:
                if wide * 0.6 > most:
                    raise CardError("%r does not fit in %s mm" % (words, most))
                size = size * most / wide
        for i, line in enumerate(lines):
            self.lines.append('<text x="%s" y="%s" font-size="%s" font-weight="%s" font-style="%s" text-anchor="%s" '
                              'fill="%s">%s</text>' % (number(x), number(y + i * size * 1.2), number(size),
                                                       "bold" if bold else "normal", "italic" if italic else "normal",
                                                       anchor, fill, escape(line, quote=False)))

    label = text        # a label of the drawing: on the card, the same as any text

    def wrapped(self, words, size):
        """`words` as lines no wider than the steps' width at `size`."""
        lines = []
        for paragraph in words.split("\n"):
            line = ""
            for word in unbroken(paragraph):
                longer = (line + " " + word) if line else word
                if line and self.measure(longer, size) > STEPS_RIGHT - STEPS_LEFT:
                    lines.append(line)
                    line = word
                else:
                    line = longer
            if self.measure(line, size) > STEPS_RIGHT - STEPS_LEFT:
                raise CardError("%r is wider than the card" % line)
            lines.append(line)
        return lines

    def steps(self, heading, steps, bottom):
        """The heading and the numbered steps of "How to play", from STEPS_TOP down to `bottom` at most."""
        self.text(7, STEPS_TOP - 6, heading, 4.0, 91, bold=True, fill=RED)
        for size in STEP_SIZES:
            laid = [self.wrapped(step, size) for step in steps]
            height = sum(len(lines) - 1 for lines in laid) * size * LINE + (len(laid) - 1) * size * GAP
            if STEPS_TOP + height <= bottom:
                break
        else:
            raise CardError("the steps do not fit above %s mm even at %s mm" % (bottom, STEP_SIZES[-1]))
        y = STEPS_TOP
        for number_, lines in enumerate(laid):
            self.text(7, y, str(number_ + 1), size, bold=True, fill=RED)
            for i, line in enumerate(lines):
                self.text(STEPS_LEFT, y + i * size * LINE, line, size, fill=TEXT)
            y += (len(lines) - 1) * size * LINE + size * GAP


# The machine's title, which never ends a line: "Dr." in most languages, "Dr" in French.
TITLES = ("Dr.", "Dr")


def unbroken(paragraph):
    """The paragraph's words as a line may break between them: at a space, never at a no-break space a
    translator wrote (Polish binds a one-letter word to the next), nor after the machine's title."""
    units = []
    for word in paragraph.split(" "):
        if not word:
            continue
        if units and units[-1].split("\u00a0")[-1] in TITLES:
            units[-1] += "\u00a0" + word
        else:
            units.append(word)
    return units


class Words:
    """The card's words alone, in reading order, as plain text (`card_text`): the title, how to play,
    the hint and the warning, without the drawing's labels, which mean nothing without it. A screen
    reader reads it, a braille transcriber takes it, and a word processor prints it as large as a
    visitor needs."""

    def __init__(self):
        self.paragraphs = []

    def text(self, x, y, words, *rest, **options):
        self.paragraphs.append(words.replace("\n", " "))

    def label(self, *words, **options):
        """The drawing's labels are left out."""

    def steps(self, heading, steps, bottom):
        self.paragraphs.append(heading)
        self.paragraphs.append("\n".join("%d. %s" % (number_ + 1, step.replace("\n", " "))
                                         for number_, step in enumerate(steps)))


def number(value):
    """A length as the SVG writes it: at most two decimals."""
    return ("%.2f" % value).rstrip("0").rstrip(".")


def drnim_words(card, t):
    """Dr. Nim's card: the drawing's labels and how to play."""
    card.text(52.5, 14, t._("The Amazing Dr. Nim"), 7.2, 93, "middle", bold=True, fill=RED)
    card.text(52.5, 20.5, t._("a computer that thinks with marbles (E.S.R. Inc., 1966)"), 3.0, 93, "middle",
              italic=True, fill=TEXT)
    card.label(14, 34.5, t._("15 marbles on the rail"), 2.4, 36)
    card.label(89, 28.2, t._("gate"), 2.4, 12, "middle")
    card.label(65, 43.5, t._("3 flip-flops"), 2.5, 30)
    card.label(58, 54.5, t._("equalizer: right = armed"), 2.5, 37)
    card.label(45, 60.2, t._("Dr. Nim"), 2.4, 20, "end", bold=True)
    card.label(58, 60.2, t._("you (turn switch)"), 2.4, 24, bold=True)
    card.label(52, 66, t._("tray"), 2.3, 20, "middle")
    card.label(86, 67.8, t._("TRIGGER"), 2.4, 17, "middle", bold=True)
    card.label(19, 67.8, t._("NEW GAME"), 2.4, 17, "middle", bold=True)     # 17 mm: clear of the board's corner
    card.label(18.7, 41.9, t._("your turn"), 2.3, 24)
    card.label(18.7, 46.9, t._("Dr. Nim's turn"), 2.3, 24)
    card.steps(t._("How to play"), [
        t._("Fifteen marbles wait on the rail. You and Dr. Nim take turns to drop one, two or three of them."),
        t._("Whoever drops the LAST marble LOSES."),
        t._("Your turn: press the TRIGGER once for each marble you take."),
        t._("Then hand over: flip the TURN SWITCH to Dr. Nim and press the TRIGGER once. Dr. Nim drops its own "
            "marbles and hands the turn back. (Switch already on Dr. Nim's side? Flip it to you and back.)"),
        t._("Want Dr. Nim to start? Hand over before you take any."),
        t._("EQUALIZER right (armed): Dr. Nim makes one mistake, so you can win whoever starts. Set it before the "
            "first marble; at left, Dr. Nim shows no mercy."),
        t._("Game over? Put the marbles back on the rail and press NEW GAME."),
    ], 134.5)
    card.text(52.5, 137.7, t._("Hint: Dr. Nim counts in fours. So can you."), 3.0, 93, "middle", bold=True,
              italic=True, fill=RED)
    card.text(52.5, 140.7, t._("A working replica, run by the Dr. Nim Controller"), 2.3, 93, "middle", fill="#666")
    card.text(52.5, 143.8, t._("WARNING: CHOKING HAZARD (marbles). Not for children under 3."), 2.3, 95, "middle",
              bold=True, fill=RED)


def nimatron_words(card, t):
    """The Nimatron's card: the drawing's labels and how to play."""
    card.text(52.5, 14, t._("The Nimatron"), 7.2, 93, "middle", bold=True, fill=RED)
    card.text(52.5, 20.5, t._("the Nim machine of the New York World's Fair, 1940"), 3.0, 93, "middle", italic=True,
              fill=TEXT)
    for row, y in enumerate((31.5, 39.0, 46.5, 54.0)):
        card.label(14, y, str(row + 1), 2.6, bold=True, anchor="middle", fill="#f7dc6f")
    card.label(76, 27.0, t._("row buttons"), 2.3, 20, "middle")
    # Translators: a button's name on the card, in two short lines (\n between them).
    card.label(88, 46.2, t._("HAND\nOVER"), 2.3, 15, "middle", bold=True)
    # Translators: a button's name on the card, in two short lines (\n between them).
    card.label(88, 63.4, t._("NEW\nGAME"), 2.3, 15, "middle", bold=True)
    for x, words in ((15, t._("your turn")), (32, t._("Nimatron's turn")), (49, t._("NIM CHAMP")),
                     (66, t._("Nimatron wins"))):
        card.label(x, 67.3, words, 2.1, 16, "middle")
    card.steps(t._("How to play"), [
        t._("Four rows of lamps are lit. You and the Nimatron take turns to put lamps out."),
        t._("On your turn, pick ONE row and press its button once for each lamp you put out: one lamp, or several, or "
            "the whole row, but all from that row."),
        t._("Then press HAND OVER. The Nimatron thinks for a moment and puts out lamps of one row."),
        t._("Whoever puts out the LAST lamp WINS."),
        t._("Beat it and the NIM CHAMP lamp flashes. In 1940 the winners got a coin stamped \"Nim Champ\"."),
        t._("Every game starts from a position you can win, if you find the right moves. But one wrong move, and the "
            "machine will not give you another chance."),
        t._("Press NEW GAME to start again."),
    ], 135.5)
    card.text(52.5, 138.4, t._("Hint: the secret is in binary numbers."), 3.0, 93, "middle", bold=True, italic=True,
              fill=RED)
    card.text(52.5, 141.5, t._("A working replica, run by the Dr. Nim Controller"), 2.3, 93, "middle", fill="#666")


WORDS = {"drnim": drnim_words, "nimatron": nimatron_words}


def card_svg(machine, t, measure=None):
    """The card of `machine` in the Language `t`, as SVG text. A language written right to left gets none
    (CardError, RIGHT_TO_LEFT): the PDF is drawn by cairo, which lays text out letter after letter from the
    left, so Hebrew would print backwards and Arabic with its letters unjoined, a card no visitor can read."""
    if t.direction == "rtl":
        raise CardError(RIGHT_TO_LEFT)
    if machine not in WORDS:
        raise CardError("%s has no visitor card: give it its words in WORDS of controller/cards.py and its drawing, "
                        "hardware/%s/visitor-card-drawing.svg (DEVELOPERS.md, 'Adding a machine')" % (machine, machine))
    card = Card(measure or Measure())
    WORDS[machine](card, t)
    from controller import shipped
    drawing = shipped.path("hardware", machine, "visitor-card-drawing.svg").read_text(encoding="utf-8")
    shapes = [line for line in drawing.splitlines() if line.startswith("<") and not line.startswith(("<?", "<!--",
                                                                                                       "<svg", "</svg"))]
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<!-- SPDX-License-Identifier: CERN-OHL-P-2.0 -->",
        "<!-- Made by controller/cards.py from visitor-card-drawing.svg and the catalogs: edit those. -->",
        '<svg xmlns="http://www.w3.org/2000/svg" width="105mm" height="148mm" viewBox="0 0 105 148" '
        'font-family="DejaVu Sans, Verdana, Arial, sans-serif" xml:lang="%s">' % t.code,
    ] + shapes + card.lines + ["</svg>", ""])


def card_text(machine, t):
    """The words of the card of `machine` in the Language `t` as plain text (Words): each paragraph a line,
    an empty line between them, the steps numbered, one a line."""
    if machine not in WORDS:
        raise CardError("%s has no visitor card" % machine)
    words = Words()
    WORDS[machine](words, t)
    return "\n\n".join(words.paragraphs) + "\n"


def card_path(folder, code):
    return Path(folder) / ("visitor-card.%s.svg" % code)


def write_cards(machines=NAMES, codes=CODES, out=None, languages=None):
    """Each machine's card in each language, SVG and PDF, and its words as plain text (.txt), into `out`
    (default: hardware/<machine>/ in a checkout, else the current folder); the paths of the cards and texts
    written (each SVG stands for its three files), leaving out those already as they would be (`make catalogs`
    runs this each time). `languages`, code -> Language, stands in for the catalogs
    (a test's pseudo-locale)."""
    from controller import shipped
    measure = Measure()
    made = []
    if out is None and not shipped.in_checkout():
        out = "."
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
    for machine in machines:
        folder = Path(out) if out else shipped.path("hardware", machine)
        for code in codes:
            t = (languages or {}).get(code) or language(code)
            svg = card_path(folder, code) if not out or len(machines) == 1 else \
                Path(out) / ("visitor-card.%s.%s.svg" % (machine, code))
            try:
                text = card_svg(machine, t, measure)
            except CardError as error:
                raise CardError("the %s card in %s: %s" % (machine, code, error)) from None
            pdf, words = svg.with_suffix(".pdf"), svg.with_suffix(".txt")
            plain = card_text(machine, t)
            if svg.exists() and svg.read_text(encoding="utf-8") == text and pdf.exists() \
                    and pdf.stat().st_mtime >= svg.stat().st_mtime \
                    and words.exists() and words.read_text(encoding="utf-8") == plain:
                continue
            # "\n" on every computer: the same bytes a Pi and a Windows laptop write
            svg.write_text(text, encoding="utf-8", newline="\n")
            make_pdf(svg, pdf, plain.split("\n", 1)[0])
            words.write_text(plain, encoding="utf-8", newline="\n")
            made.append(svg)
    return made


def add_parser(actions):
    """`controller hardware cards`, among the hardware command's `actions`."""
    cards = actions.add_parser("cards", help="the visitor cards, how to play, per machine and language: SVG, PDF "
                               "and plain text (into the current folder, or hardware/<machine>/ in a checkout)")
    cards.set_defaults(action=lambda args, out: make(args, out, name="controller hardware cards"))
    add_arguments(cards)


def add_arguments(parser):
    """The cards' options, for `python -m controller.cards` and `controller hardware cards`."""
    parser.add_argument("--machine", choices=NAMES, action="append", help="a machine (default: each)")
    parser.add_argument("--lang", action="append", metavar="LL", help="a language: %s (default: each)"
                        % ", ".join(CODES))
    parser.add_argument("--out", metavar="DIR", help="the folder to write into (default: hardware/<machine>/ in a "
                        "checkout, else the current folder)")


def make(args, out=None, name="controller.cards"):
    """The cards `args` asks for; the exit status, a refusal said in one line on stderr after `name`."""
    out = out or sys.stdout
    try:
        codes = [language(code).code for code in args.lang] if args.lang else list(CODES)
        if not args.lang:       # make catalogs: every card that can be made, and a line for each language that cannot
            for code in [code for code in codes if language(code).direction == "rtl"]:
                sys.stderr.write("%s: no visitor card in %s: %s\n" % (name, code, RIGHT_TO_LEFT))
                codes.remove(code)
        machines = args.machine or NAMES
        written = write_cards(machines, codes, args.out)
        for path in written:
            out.write("wrote %s, its PDF and its words (.txt)\n" % path)
        if not written:
            out.write("visitor cards up to date: %d\n" % (len(machines) * len(codes)))
    except UnknownLanguage as error:
        sys.stderr.write("%s: --lang: %s\n" % (name, error))
        return 2
    except ImportError as error:
        from controller.extras import missing
        sys.stderr.write("%s: the PDF is made with CairoSVG: %s\n" % (name, missing("cards", error)))
        return 1
    except OSError as error:
        sys.stderr.write("%s: %s: %s\n" % (name, error.filename, error.strerror) if error.filename
                         else "%s: %s\n" % (name, error.strerror or error))
        return 1
    except ValueError as error:
        sys.stderr.write("%s: %s\n" % (name, error))
        return 1
    return 0


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m controller.cards", description="The visitor cards (SVG and "
                                     "PDF), per machine and language.")
    add_arguments(parser)
    return make(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
