"""The visitor cards' PDF (hardware/<machine>/visitor-card.pdf), made from the
card's SVG so that the same SVG always gives the same bytes:

    .venv/bin/python -m controller.cards hardware/drnim/visitor-card.svg hardware/drnim/visitor-card.pdf

CairoSVG alone writes the time of the run as the PDF's creation date, so a
card regenerated without a change showed as changed in git. Here the date is
`SOURCE_DATE_EPOCH` (the reproducible-builds convention) when it is set, else
the SVG's own modification time. Needs CairoSVG with Debian's libcairo2 (the
test extra installs CairoSVG).
"""

import os
import sys
import time


def creation_date(svg_path):
    """The PDF's creation date, ISO 8601 in UTC: SOURCE_DATE_EPOCH, else the SVG's modification time."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = int(epoch) if epoch.isdigit() and epoch.isascii() else int(os.stat(svg_path).st_mtime)
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))


def make_pdf(svg_path, pdf_path):
    import cairocffi
    from cairosvg.surface import PDFSurface
    created = creation_date(svg_path)

    class DatedPDF(PDFSurface):
        def finish(self):
            self.cairo.set_metadata(cairocffi.PDF_METADATA_CREATE_DATE, created)
            super().finish()

    DatedPDF.convert(url=str(svg_path), write_to=str(pdf_path))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: python -m controller.cards CARD.svg CARD.pdf\n")
        return 2
    try:
        make_pdf(argv[0], argv[1])
    except (OSError, ValueError) as error:
        sys.stderr.write("controller.cards: %s\n" % (getattr(error, "strerror", None) or error))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
