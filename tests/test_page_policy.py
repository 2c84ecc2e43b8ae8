"""The page held to its own Content-Security-Policy, as a visitor's browser holds it (the other browser
tests let their own scripts in: served_page's `policy`). A file of its own: its browser cannot share a
thread with another test file's (conftest.py's served_browser)."""

import pytest

from controller.web.browser import missing, open_page, served_page

BROWSER_MISSING = missing()
needs_browser = pytest.mark.skipif(BROWSER_MISSING is not None, reason=str(BROWSER_MISSING))


def own_folder_only(requests, address):
    outside = [url for url in requests if not url.startswith(address) and not url.startswith("data:")]
    assert outside == []


@needs_browser
def test_the_page_plays_and_follows_under_its_own_content_security_policy():
    """The page as a visitor's browser runs it, held to the policy the server sends: both machines
    start and play, a language with its own plural rule is read (the rule was compiled with new
    Function, an eval the policy forbids: the page could not start), the lamps take their colours
    (a style="" attribute the policy refuses) and a second screen tries its broker's WebSockets.
    Nothing is refused."""
    with served_page(policy=True) as (context, address, requests):
        context.add_init_script("window.refused = []; document.addEventListener('securitypolicyviolation', "
                                "(e) => window.refused.push(e.violatedDirective + ' ' + e.blockedURI));")
        page = open_page(context, address + "?machine=drnim&seed=5&pace_ms=60")
        page.click("#control-trigger")
        page.wait_for_function("() => nim.view().taken > 0")
        assert page.evaluate("getComputedStyle(document.querySelector('.lamp')).getPropertyValue('--lamp')") \
            == "#4cd964"
        assert page.evaluate("refused") == [] and page.page_errors == [] and page.evaluate("nim.errors") == []
        page = open_page(context, address + "?machine=nimatron&lang=fr&openings=2,3,5,7&opening=first")
        page.keyboard.press("1")
        page.keyboard.press("1")
        page.wait_for_function("() => nim.view().rows[0] === 0")
        label = page.evaluate("document.querySelector('svg.bulbs').getAttribute('aria-label')")
        assert label.startswith("rangée 1\xa0: 0 allumée ") and "allumées" not in label     # French: 0 is singular
        assert page.evaluate("refused") == [] and page.page_errors == [] and page.evaluate("nim.errors") == []
        page = open_page(context, address + "?follow=hall-2&broker=ws://127.0.0.1:9/")
        page.wait_for_function("() => document.querySelector('#follow-status').dataset.link === 'unreachable'")
        assert page.evaluate("refused") == [] and page.page_errors == [] and page.evaluate("nim.errors") == []
        own_folder_only(requests, address)
