"""The visitor cards (hardware/<machine>/visitor-card.svg and .pdf) print on
A6 (105 x 148 mm), one page, and the PDF says what the SVG says."""

import html
import re

import pytest

from conftest import ROOT

pypdf = pytest.importorskip("pypdf", reason="pypdf (the test extras) reads the cards' PDF")

MACHINES = ("drnim", "nimatron")
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


@pytest.mark.parametrize("machine", MACHINES)
def test_the_card_is_one_a6_page(machine):
    reader = pypdf.PdfReader(ROOT / "hardware" / machine / "visitor-card.pdf")
    assert len(reader.pages) == 1
    assert page_size_mm(reader) == A6_MM
    svg = (ROOT / "hardware" / machine / "visitor-card.svg").read_text(encoding="utf-8")
    assert 'width="105mm" height="148mm"' in svg


@pytest.mark.parametrize("machine", MACHINES)
def test_the_pdf_says_what_the_svg_says(machine):
    """An edited SVG without a remade PDF fails here: remake it with the command in hardware/README.md."""
    svg = (ROOT / "hardware" / machine / "visitor-card.svg").read_text(encoding="utf-8")
    printed = words(pypdf.PdfReader(ROOT / "hardware" / machine / "visitor-card.pdf").pages[0].extract_text())
    lines = [line for line in svg_lines(svg) if line]
    assert len(lines) > 20
    missing = [line for line in lines if line not in printed]
    assert missing == [], "the PDF is older than the SVG"


@pytest.mark.parametrize("machine", MACHINES)
def test_the_card_tells_how_the_game_ends_and_names_every_control(machine):
    text = " ".join(svg_lines((ROOT / "hardware" / machine / "visitor-card.svg").read_text(encoding="utf-8")))
    if machine == "drnim":
        assert "Whoever drops the LAST marble LOSES." in text
        for control in ("TRIGGER", "NEW GAME", "TURN SWITCH", "EQUALIZER", "flip-flops"):
            assert control in text
    else:
        assert "Whoever puts out the LAST lamp WINS." in text
        for control in ("HAND OVER", "NEW GAME", "row buttons", "NIM CHAMP"):
            assert control in text


def test_the_documented_command_makes_an_a6_pdf(tmp_path):
    try:
        import cairosvg
    except (ImportError, OSError) as error:
        pytest.skip("cairosvg with Debian's libcairo2 makes the cards' PDF: %s" % error)
    target = tmp_path / "visitor-card.pdf"
    cairosvg.svg2pdf(url=str(ROOT / "hardware" / "drnim" / "visitor-card.svg"), write_to=str(target))
    reader = pypdf.PdfReader(target)
    assert len(reader.pages) == 1 and page_size_mm(reader) == A6_MM


def test_the_cards_pdf_is_the_same_bytes_from_the_same_svg(tmp_path):
    """Regenerated without a change, the PDF does not change: its creation date is SOURCE_DATE_EPOCH
    (else the SVG's modification time), not the time of the run."""
    try:
        import cairosvg  # noqa: F401
    except (ImportError, OSError) as error:
        pytest.skip("cairosvg with Debian's libcairo2 makes the cards' PDF: %s" % error)
    import datetime
    import os
    import subprocess
    import sys
    made = []
    for name, epoch in (("one.pdf", "1700000000"), ("two.pdf", "1700000000"), ("three.pdf", None)):
        env = dict(os.environ)
        env.pop("SOURCE_DATE_EPOCH", None)
        if epoch:
            env["SOURCE_DATE_EPOCH"] = epoch
        result = subprocess.run([sys.executable, "-m", "controller.cards", str(ROOT / "hardware" / "drnim" /
                                 "visitor-card.svg"), str(tmp_path / name)], env=env, cwd=ROOT, capture_output=True)
        assert result.returncode == 0, result.stderr
        made.append(tmp_path / name)
    assert made[0].read_bytes() == made[1].read_bytes()
    assert pypdf.PdfReader(made[0]).metadata.creation_date == datetime.datetime(2023, 11, 14, 22, 13, 20,
                                                                              tzinfo=datetime.timezone.utc)
    svg_time = int((ROOT / "hardware" / "drnim" / "visitor-card.svg").stat().st_mtime)
    assert pypdf.PdfReader(made[2]).metadata.creation_date.timestamp() == svg_time
    assert page_size_mm(pypdf.PdfReader(made[0])) == A6_MM


def test_the_dr_nim_card_warns_that_the_marbles_are_a_choking_hazard():
    """The card asks visitors to put 16 mm marbles back: it says they are not for small children."""
    text = " ".join(svg_lines((ROOT / "hardware" / "drnim" / "visitor-card.svg").read_text(encoding="utf-8")))
    assert "WARNING: CHOKING HAZARD (marbles). Not for children under 3." in text
