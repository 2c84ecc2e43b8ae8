"""axe-core on every state of each machine's page in every language: the whole of what
tests/test_page_access.py samples (there each state in one language, every language in some
state). A language changes the page's words, so a translation can leave a button without a
name or a text without its language; this finds it in whichever state shows it. Prints each
state's violations by language, and exits 1 when there is any.

    .venv/bin/python bench/page_axe.py        (about 25 s; Chromium, Playwright and axe-core, as make test has them)
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from controller.language import CODES  # noqa: E402
from controller.web.browser import served_page  # noqa: E402
from page_checks import MISSING, STATES, axe_in_states  # noqa: E402


def main():
    if MISSING:
        print("page axe: skipped, %s" % MISSING)
        return 0
    failed = False
    with served_page(reduced_motion="reduce") as (context, address, _):
        for machine in STATES:
            found = axe_in_states(context, address, machine, lambda number: CODES)
            for (state, code), problems in found.items():
                print("%s, %s, %s: %s" % (machine, state, code, "; ".join(problems) or "no violation"))
                failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
