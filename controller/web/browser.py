"""The built page in a real browser, for the tests and the bench: Debian's
Chromium, headless, driven by Playwright for Python (the system browser,
never one Playwright downloads), on a local server of the built folder.

`missing()` names what this machine lacks to do it, so a test that needs it
is skipped with that reason.
"""

import shutil
import tempfile
import threading
from contextlib import contextmanager

from controller.web.build import PACKAGE, build, runtime_ready
from controller.web.serve import make_server

CHROMIUM = "/usr/bin/chromium"
# No network of its own: no updates, no sync, no QUIC probes, a fresh profile.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def missing():
    """What is missing to run the page in a browser, in words, or None."""
    if shutil.which(CHROMIUM) is None:
        return "chromium is missing (%s; Debian: apt-get install chromium)" % CHROMIUM
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is missing (pip install playwright; make test installs it)"
    if not runtime_ready():
        return "the npm package %s is missing (controller web build fetches it with npm)" % PACKAGE
    return None


@contextmanager
def served_page(viewport=(1280, 800), add=None, reduced_motion="no-preference", touch=False, policy=False):
    """(Playwright's browser context, the page's address, every address it asked for):
    the page built afresh into a temporary folder and served on a free port. `add`: files
    to put into the built folder, path -> text (a test's own catalog). `reduced_motion`:
    the visitor's prefers-reduced-motion in every tab, unless open_page is asked otherwise
    ("reduce": a falling marble is drawn still, not redrawn frame by frame). `touch`: a phone's
    browser (touch events, no hover, the mobile viewport, 3 device pixels a CSS pixel).
    `policy`: the page's Content-Security-Policy holds, as in a visitor's browser; without it
    the browser lets the tests' own scripts in (wait_for_function("nim.ready") is an eval in
    the page, which the policy forbids the page itself)."""
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as folder:
        build(folder + "/page", fetch=False)
        for name, text in (add or {}).items():
            with open(folder + "/page/" + name, "w", encoding="utf-8") as f:
                f.write(text)
        server = make_server(folder + "/page", 0, quiet=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        requests = []
        try:
            with sync_playwright() as playwright:
                context = playwright.chromium.launch_persistent_context(
                    folder + "/profile", executable_path=CHROMIUM, args=ARGS, headless=True,
                    viewport={"width": viewport[0], "height": viewport[1]}, bypass_csp=not policy,
                    **({"has_touch": True, "is_mobile": True, "device_scale_factor": 3} if touch else {}))
                context.on("request", lambda request: requests.append(request.url))
                context.own_tabs = []       # the tabs open_page opened
                context.spare_tabs = []     # those of them handed back (spare_tabs)
                context.viewport = {"width": viewport[0], "height": viewport[1]}
                context.reduced_motion = reduced_motion
                try:
                    yield context, "http://127.0.0.1:%d/" % server.server_address[1], requests
                finally:
                    context.close()
        finally:
            server.shutdown()
            server.server_close()


def spare_tabs(context):
    """Every tab open_page opened, handed back once done with: the next open_page loads its
    address in one of them."""
    context.spare_tabs[:] = [page for page in context.own_tabs if not page.is_closed()]


def open_page(context, address, timeout_ms=30000, tab=None, reduced_motion=None):
    """A tab on `address`, once its machine is drawn and playable; a RuntimeError
    with the page's own words when it could not start. The tab: `tab` (one this
    opened before), else one handed back with `spare_tabs` (brought to the front,
    its size as the context's again), else a new one. A load in a tab Chromium has
    open costs a third less work than in a new one: it keeps the tab's renderer.
    `reduced_motion`: the visitor's preference for this page (by default the
    context's, served_page)."""
    if tab is None and context.spare_tabs:
        tab = context.spare_tabs.pop()
        tab.bring_to_front()        # a tab behind another draws no animation frames
        tab.set_viewport_size(context.viewport)
    if tab is None:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        context.own_tabs.append(page)
    else:
        page, errors = tab, tab.page_errors
        errors.clear()
    # a tab handed back keeps what its last test emulated: each page starts from the visitor's defaults again
    page.emulate_media(reduced_motion=reduced_motion or context.reduced_motion, forced_colors="none",
                       color_scheme="light")
    page.goto(address)
    page.wait_for_function("() => window.nim && (window.nim.ready || window.nim.errors.length > 0)", timeout=timeout_ms)
    problems = page.evaluate("window.nim.errors") + errors
    if problems:
        raise RuntimeError("the page could not start: %s" % problems[0])
    page.page_errors = errors
    return page
