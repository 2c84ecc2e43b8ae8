"""The README's picture of the web page, docs/web.png, taken in Debian's
headless Chromium from a freshly built page, a few moves into a Dr. Nim game:

    .venv/bin/python -m controller.web.screenshot [PATH]

Run it by hand in the repository after changing the page (the tests compare
nothing pixel-wise); PATH defaults to docs/web.png in the current folder.
"""

import argparse
import sys
from pathlib import Path

from controller.web.browser import missing, open_page, served_page

# The README's picture, from the top of a checkout.
DEFAULT = Path("docs") / "web.png"
SETTLED = "(v => v.mode !== 'play' || (!v.in_flight && v.falling.length === 0 && !v.running))(nim.view())"


def take(path=DEFAULT):
    reason = missing()
    if reason:
        raise SystemExit("controller.web.screenshot: %s" % reason)
    with served_page(viewport=(1280, 860)) as (context, address, _):
        page = open_page(context, address + "?machine=drnim&seed=1&pace_ms=100")
        for _ in range(2):
            page.click("#control-trigger")
            page.wait_for_function(SETTLED)
        page.click("#control-turn_switch")
        page.click("#control-trigger")
        page.wait_for_function(SETTLED)
        page.mouse.move(0, 0)
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(400)      # the flip-flops finish turning
        page.screenshot(path=str(path))
    return path


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m controller.web.screenshot", description="The README's picture "
                                     "of the web page, taken in headless Chromium.")
    parser.add_argument("path", nargs="?", default=str(DEFAULT), metavar="PATH",
                        help="the PNG to write (default: docs/web.png)")
    args = parser.parse_args(argv)
    if Path(args.path).suffix.lower() != ".png":
        parser.error("PATH: %s: the picture is a PNG, so its name ends in .png" % args.path)
    print("wrote %s" % take(Path(args.path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
