"""The visitor cards (hardware/<machine>/visitor-card.<LL>.svg and .pdf, one per
machine and language) print on A6 (105 x 148 mm), one page, the PDF says what
the SVG says, and the committed cards are what controller/cards.py makes."""

import html
import math
import re

import pytest

from conftest import ROOT, cairo_missing
from controller.core.registry import NAMES as MACHINES
from controller.language import CODES, language

pypdf = pytest.importorskip("pypdf", reason="pypdf (the test extras) reads the cards' PDF")

# A language written right to left has no card (controller/cards.py: RIGHT_TO_LEFT).
CARDS = [(machine, code) for machine in MACHINES for code in CODES if language(code).direction == "ltr"]


def card(machine, code="en", suffix="svg"):
    return ROOT / "hardware" / machine / ("visitor-card.%s.%s" % (code, suffix))


A6_MM = (105, 148)
POINTS_PER_MM = 72 / 25.4


def words(text):
    return " ".join(text.split())


def svg_lines(svg):
    """Every line of text on a card, as the SVG has it."""
    return [words(html.unescape(line)) for line in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


def page_size_mm(reader):
    box = reader.pages[0].mediabox
    return round(float(box.width) / POINTS_PER_MM), round(float(box.height) / POINTS_PER_MM)


@pytest.mark.parametrize("machine, code", CARDS)
def test_the_card_is_one_a6_page(machine, code):
    reader = pypdf.PdfReader(card(machine, code, "pdf"))
    assert len(reader.pages) == 1
    assert page_size_mm(reader) == A6_MM
    svg = card(machine, code).read_text(encoding="utf-8")
    assert 'width="105mm" height="148mm"' in svg and 'xml:lang="%s"' % code in svg


@pytest.mark.parametrize("machine, code", CARDS)
def test_the_pdf_says_what_the_svg_says(machine, code):
    """An edited SVG without a remade PDF fails here: remake them with the command in hardware/README.md."""
    svg = card(machine, code).read_text(encoding="utf-8")
    printed = words(pypdf.PdfReader(card(machine, code, "pdf")).pages[0].extract_text())
    lines = [line for line in svg_lines(svg) if line]
    assert len(lines) > 20
    missing = [line for line in lines if line not in printed]
    assert missing == [], "the PDF is older than the SVG"


@pytest.mark.parametrize("machine, code", CARDS)
def test_the_card_sends_no_visitor_anywhere(machine, code):
    """A card leads no visitor off-site (docs/privacy.md): no web address or QR code on it, no link in
    its PDF, no picture drawn from elsewhere. A code or an address to follow would take a visitor's
    phone to a server that sees its address, which the museum's data protection officer must vet."""
    svg = card(machine, code).read_text(encoding="utf-8").replace('xmlns="http://www.w3.org/2000/svg"', "", 1)
    assert re.findall(r"(?:https?|ftp)://|www\.|<a[ >]|<image|href", svg) == []
    page = pypdf.PdfReader(card(machine, code, "pdf")).pages[0]
    assert "/Annots" not in page and "/XObject" not in page.get("/Resources", {})
    assert not re.search(r"https?://|www\.", page.extract_text())


@pytest.mark.parametrize("machine, code", CARDS)
def test_the_committed_card_is_what_the_catalogs_make(machine, code):
    """A changed translation or drawing without remade cards fails here (python -m controller.cards)."""
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    from controller.cards import card_svg
    assert card_svg(machine, language(code)) == card(machine, code).read_text(encoding="utf-8")


# Dr. Nim's red board on the card (visitor-card-drawing.svg: x 9 to 96, y 24 to 70, corners of 4 mm), and how far
# inside its edge a white label keeps (a printer's half millimetre).
BOARD = (9, 24, 96, 70, 4)
MARGIN_MM = 0.5


def on_the_board(x, y):
    """Whether the point (x, y) is on the board, MARGIN_MM inside its edge, round its corners too."""
    left, top, right, bottom, corner = BOARD
    nearest = (min(max(x, left + corner), right - corner), min(max(y, top + corner), bottom - corner))
    return math.hypot(x - nearest[0], y - nearest[1]) <= corner - MARGIN_MM


@pytest.mark.parametrize("code", [code for machine, code in CARDS if machine == "drnim"])
def test_every_label_on_dr_nims_board_stays_on_the_board(code):
    """A label fits the width it is given (smaller, down to 60 %), but NEW GAME's reached to x = 9, where the
    board's corner has curved in: the French card's white NOUVELLE PARTIE ran off the red board onto the cream
    card."""
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    from controller.cards import Measure
    measure = Measure()
    svg = card("drnim", code).read_text(encoding="utf-8")
    outside = []
    for x, y, size, weight, anchor, text in re.findall(
            r'<text x="([\d.]+)" y="([\d.]+)" font-size="([\d.]+)" font-weight="(\w+)" font-style="\w+" '
            r'text-anchor="(\w+)" fill="#fff">([^<]*)</text>', svg):
        wide = measure(html.unescape(text), float(size), weight == "bold")
        left = float(x) - {"start": 0, "middle": wide / 2, "end": wide}[anchor]
        top = float(y) - 0.72 * float(size)       # the capitals' height
        if not all(on_the_board(px, py) for px in (left, left + wide) for py in (top, float(y))):
            outside.append("%s from x = %.1f to %.1f" % (text, left, left + wide))
    assert outside == []


# What each machine's card must say: how its game ends, then each control it names (a new machine gives its line).
ENDS_AND_CONTROLS = {
    "drnim": ("Whoever drops the LAST marble LOSES.", "TRIGGER", "NEW GAME", "TURN SWITCH", "EQUALIZER", "flip-flops"),
    "nimatron": ("Whoever puts out the LAST lamp WINS.", "HAND OVER", "NEW GAME", "row buttons", "NIM CHAMP"),
}


@pytest.mark.parametrize("machine", MACHINES)
def test_the_card_tells_how_the_game_ends_and_names_every_control(machine):
    text = " ".join(svg_lines(card(machine).read_text(encoding="utf-8")))
    for words in ENDS_AND_CONTROLS[machine]:
        assert words in text


def test_the_cards_pdf_is_the_same_bytes_each_time_in_the_language_asked(tmp_path):
    """`python -m controller.cards --lang de` makes the German card; made again without a change, the same
    bytes: the PDF's creation date is SOURCE_DATE_EPOCH, else the committed cards' date, never the time of
    the run or of a file (a fresh clone's files are as new as the clone). Without SOURCE_DATE_EPOCH, as
    `make catalogs` runs it, the card is the committed one, byte for byte: a card nobody changed is not
    rewritten."""
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    import datetime
    import os
    import subprocess
    import sys
    made = []
    for name, epoch in (("one", "1700000000"), ("two", "1700000000"), ("three", None)):
        env = dict(os.environ)
        env.pop("SOURCE_DATE_EPOCH", None)
        if epoch:
            env["SOURCE_DATE_EPOCH"] = epoch
        (tmp_path / name).mkdir()
        result = subprocess.run([sys.executable, "-m", "controller.cards", "--machine", "drnim", "--lang", "de",
                                 "--out", str(tmp_path / name)], env=env, cwd=ROOT, capture_output=True)
        assert result.returncode == 0, result.stderr
        made.append(tmp_path / name / "visitor-card.de.pdf")
    assert made[0].read_bytes() == made[1].read_bytes()
    assert (tmp_path / "one" / "visitor-card.de.svg").read_bytes() == card("drnim", "de").read_bytes()
    assert "Wer die LETZTE Murmel fallen lässt, VERLIERT." in words(pypdf.PdfReader(made[0]).pages[0].extract_text())
    assert pypdf.PdfReader(made[0]).metadata.creation_date == datetime.datetime(2023, 11, 14, 22, 13, 20,
                                                                              tzinfo=datetime.timezone.utc)
    assert made[2].read_bytes() == card("drnim", "de", "pdf").read_bytes()
    assert page_size_mm(pypdf.PdfReader(made[0])) == A6_MM


@pytest.mark.parametrize("machine, code, title", [("drnim", "en", "The Amazing Dr. Nim"),
                                                   ("nimatron", "fr", None), ("drnim", "de", None)])
def test_each_cards_pdf_is_titled_with_the_cards_title_in_its_language(machine, code, title):
    """A screen reader says a PDF's title as it opens it: the cards had none ("untitled", or the file's name
    read out letter by letter), so a blind visitor sent the PDF could not tell which card it was."""
    pypdf = pytest.importorskip("pypdf")
    first_line = card(machine, code, "txt").read_text(encoding="utf-8").split("\n", 1)[0]
    assert pypdf.PdfReader(card(machine, code, "pdf")).metadata.title == (title or first_line) != ""


def test_an_unknown_language_is_one_line(tmp_path):
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-m", "controller.cards", "--lang", "xx", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr == ("controller.cards: --lang: 'xx' is not a language of this "
                                                        "controller (%s)\n" % ", ".join(CODES))


def test_the_cards_go_into_a_folder_that_is_not_there_yet(tmp_path, capsys):
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    from controller.cards import main
    out = tmp_path / "cards" / "de"
    assert main(["--machine", "drnim", "--lang", "de", "--out", str(out)]) == 0
    assert sorted(path.name for path in out.iterdir()) == ["visitor-card.de.pdf", "visitor-card.de.svg",
                                                           "visitor-card.de.txt"]


def test_a_folder_the_cards_cannot_go_into_is_named(tmp_path, capsys):
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    from controller.cards import main
    taken = tmp_path / "cards"
    taken.write_text("a file, not a folder")
    assert main(["--machine", "drnim", "--lang", "de", "--out", str(taken)]) == 1
    assert capsys.readouterr().err == "controller.cards: %s: File exists\n" % taken


def test_a_computer_without_the_cairo_library_is_told_in_one_line_how_to_get_it(tmp_path, capsys, monkeypatch):
    """Without libcairo, cairocffi's import raises OSError with a line for each name it tried (six on
    Linux): `controller hardware cards` printed them after its name, and nothing said what to install.
    Here cairocffi's own dlopen looks for a library of a name no computer has, and its error stands for
    the import's, as on a laptop without Cairo."""
    import importlib.abc
    import importlib.util
    import sys

    try:
        import cairocffi
    except (ImportError, OSError):
        pytest.skip("cairocffi cannot be imported here (make test installs it, with Debian's libcairo2)")
    try:
        cairocffi.dlopen(cairocffi.ffi, ("drnim-no-cairo",), ("libdrnim-no-cairo.so.2",))
    except OSError as error:
        lacking = error
    assert str(lacking).count("\n") >= 1       # cairocffi's own words: a line for each name it tried

    class NoCairo(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path=None, target=None):
            return importlib.util.spec_from_loader(name, self) if name in ("cairocffi", "cairosvg") else None

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            raise lacking

    for name in [name for name in sys.modules if name.split(".")[0] in ("cairocffi", "cairosvg")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [NoCairo()] + sys.meta_path)
    monkeypatch.setattr(sys, "platform", "linux")
    from controller.cli import main
    assert main(["hardware", "cards", "--machine", "drnim", "--lang", "de", "--out", str(tmp_path)]) == 1
    assert capsys.readouterr().err == ("controller hardware cards: the cards are drawn with the Cairo library, "
                                       "which this computer lacks: sudo apt-get install libcairo2 (Debian, "
                                       "Ubuntu, Raspberry Pi OS)\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("code, warning", [
    ("en", "WARNING: CHOKING HAZARD (marbles). Not for children under 3."),
    ("de", "ACHTUNG: ERSTICKUNGSGEFAHR (Murmeln). Nicht für Kinder unter 3 Jahren."),
    ("fr", "ATTENTION : RISQUE D’ÉTOUFFEMENT (billes). Ne convient pas aux enfants de moins de 3 ans."),
    ("es", "ADVERTENCIA: PELIGRO DE ASFIXIA (canicas). No apto para menores de 3 años."),
    ("nl", "WAARSCHUWING: VERSTIKKINGSGEVAAR (knikkers). Niet geschikt voor kinderen onder 3 jaar."),
])
def test_the_dr_nim_card_warns_that_the_marbles_are_a_choking_hazard(code, warning):
    """The card asks visitors to put 16 mm marbles back: it says, in its language, they are not for small
    children."""
    text = " ".join(svg_lines(card("drnim", code).read_text(encoding="utf-8")))
    assert warning in text


def test_a_translation_too_long_for_its_card_is_named_with_the_machine_and_the_language(tmp_path):
    """make catalogs stopped with only "'…' does not fit in 20 mm": a translator had to guess which card and
    which language."""
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    import gettext
    from controller.cards import CardError, write_cards
    from controller.language import Language

    class Wordy(gettext.NullTranslations):
        def gettext(self, message):
            return "NEUES SPIEL FÜR ALLE BESUCHERINNEN UND BESUCHER" if message == "NEW GAME" else message

    with pytest.raises(CardError) as raised:
        write_cards(["drnim"], ["de"], tmp_path, languages={"de": Language("de", Wordy())})
    assert str(raised.value).startswith("the drnim card in de: 'NEUES SPIEL FÜR ALLE BESUCHERINNEN UND BESUCHER' "
                                        "does not fit in ")
    assert list(tmp_path.iterdir()) == []


def test_cards_already_made_are_left_as_they_are_and_said_so_in_one_line(tmp_path, capsys):
    """make catalogs remade and listed every card, each with its absolute path, at every run."""
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    from controller.cards import main
    assert main(["--machine", "drnim", "--lang", "de", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "wrote %s, its PDF and its words (.txt)\n" % (tmp_path / "visitor-card.de.svg")
    made = {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
    assert main(["--machine", "drnim", "--lang", "de", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "visitor cards up to date: 1\n"
    assert {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()} == made


def test_a_language_written_right_to_left_gets_no_card_but_a_line_saying_why(tmp_path, capsys, monkeypatch):
    """cairo, which draws the cards' PDF, lays text out from the left: a Hebrew card printed each word backwards
    and an Arabic one its letters unjoined. Such a language gets none, in one line, and make catalogs makes the
    other languages' cards (tests/pseudo_locale.py: qpb stands for Hebrew)."""
    reason = cairo_missing()
    if reason:
        pytest.skip(reason)
    pytest.importorskip("babel", reason="Babel (the test extra) reads the catalogs' template")
    from controller import cards
    from pseudo_locale import RIGHT_TO_LEFT, right_to_left_language
    with pytest.raises(cards.CardError) as raised:
        cards.write_cards(["drnim"], [RIGHT_TO_LEFT], tmp_path, languages={RIGHT_TO_LEFT: right_to_left_language()})
    assert str(raised.value) == "the drnim card in qpb: it is written right to left, which the cards' PDF (cairo) " \
        "cannot lay out: its words would print backwards; no card is made (the page and the kiosk show the language)"
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(cards, "CODES", ("en", RIGHT_TO_LEFT))
    monkeypatch.setattr(cards, "language", lambda code: right_to_left_language() if code == RIGHT_TO_LEFT
                        else language(code))
    assert cards.main(["--machine", "drnim", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().err == "controller.cards: no visitor card in qpb: " + cards.RIGHT_TO_LEFT + "\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["visitor-card.en.pdf", "visitor-card.en.svg",
                                                                "visitor-card.en.txt"]


def test_a_machine_without_its_words_gets_no_card_but_a_line_saying_what_to_add():
    """The cards' list of machines was written out apart from the registry's, so a new machine had no card and
    no word of it; a machine without its words now stops `make catalogs` with the step to take."""
    from controller.cards import CardError, card_svg
    with pytest.raises(CardError, match=r"^nimrod has no visitor card: give it its words in WORDS of "
                       r"controller/cards.py and its drawing, hardware/nimrod/visitor-card-drawing.svg"):
        card_svg("nimrod", language("en"), measure=lambda *args, **options: 1.0)


@pytest.mark.parametrize("machine, code", CARDS)
def test_each_card_has_its_words_as_plain_text_for_a_screen_reader_or_large_print(machine, code):
    """The A6 card's steps are 6.5 to 7.8 pt, and a PDF drawn by cairo is untagged, its words in drawing order:
    a blind visitor's screen reader, a braille transcriber and a large-print sheet need the words alone. The
    .txt beside each card has every line of the card that is not a label of the drawing, in reading order,
    and is what the catalogs make (no cairo needed)."""
    from controller.cards import card_text
    path = card(machine, code, "txt")
    assert path.exists(), "python -m controller.cards writes it"
    text = path.read_text(encoding="utf-8")
    assert text == card_text(machine, language(code))
    svg = " ".join(svg_lines(card(machine, code).read_text(encoding="utf-8")))
    t = language(code)
    title, heading = t._("The Amazing Dr. Nim" if machine == "drnim" else "The Nimatron"), t._("How to play")
    assert text.startswith(title + "\n\n") and "\n\n%s\n\n1. " % heading in text
    steps = re.findall(r"^(\d+)\. (.*)$", text, re.M)
    assert [int(number_) for number_, _ in steps] == list(range(1, len(steps) + 1)) and len(steps) >= 5
    for _, step in steps:
        assert words(step) in svg, "each step is the card's, whole"
    for line in (t._("WARNING: CHOKING HAZARD (marbles). Not for children under 3."),) if machine == "drnim" else ():
        assert line in text, "the warning"


@pytest.mark.parametrize("machine, code", CARDS)
def test_no_line_of_a_card_ends_with_the_machines_title(machine, code):
    """Found by a translator: the German card ended a line with "Dr." and the French with "Dr", their
    "Nim" on the next line."""
    lines = [html.unescape(line).rstrip() for line in
             re.findall(r"<text[^>]*>([^<]*)</text>", card(machine, code).read_text(encoding="utf-8"))]
    assert [line for line in lines if line.split()[-1:] in (["Dr."], ["Dr"])] == []


def test_a_no_break_space_a_translator_wrote_is_never_where_a_line_breaks():
    """Polish binds a one-letter word to the next with a no-break space ("i\u00a0oddaje"): the card split
    its lines at any white space, so that "i" ended a line all the same."""
    from controller.cards import STEPS_LEFT, STEPS_RIGHT, Card
    width = STEPS_RIGHT - STEPS_LEFT
    # each character a millimetre wide: a line of `width` characters at most
    laid = Card(lambda text, size, bold=False, italic=False: len(text)).wrapped(
        "x" * (width - 2) + " i\u00a0oddaje kulki", 4)
    assert laid == ["x" * (width - 2), "i\u00a0oddaje kulki"]


@pytest.mark.parametrize("machine, code", CARDS)
def test_every_card_is_linked_from_its_guide_and_its_language_named_in_the_build_pack(machine, code):
    """Found adding a language: `make catalogs` made the new card, but no guide linked it, so a builder never
    found it (DEVELOPERS.md's "A new language" names both places)."""
    guide = (ROOT / "hardware" / machine / "README.md").read_text(encoding="utf-8")
    assert "(visitor-card.%s.pdf)" % code in guide
    assert "`%s`" % code in (ROOT / "hardware" / "README.md").read_text(encoding="utf-8").split("## Visitor cards")[1]
