"""Accessibility at a large setting (bench.config's extremes) on a phone's screen (390 px), one page load per page:
every tab passes axe-core's WCAG 2.0/2.1 A and AA rules but for what the minimal Streamlit page has too
(harness/a11y.py), and no view scrolls sideways as a whole, at 390 px nor, for the last tab, at 768 px (a figure
too wide scrolls in its own box, which then takes focus: ui/assets/scroll_regions.js). At the defaults, on a desktop's
screen, and from the keyboard: tests/e2e/test_browser.py."""

from __future__ import annotations

import pytest

from harness.settings import SETTINGS
from harness import a11y
from harness.browser import wait_ready
from tests.e2e.conftest import keep_warm
from tests.pages import NAMES

LARGE = next(s for s in SETTINGS if s.name == "extremes")
PHONE, TABLET = 390, 768


@pytest.fixture(scope="module")
def phone(browser, app_url):
    """A context with a phone's viewport for this module's tests (a context's viewport is set when it is made)."""
    ctx = browser.new_context(viewport={"width": PHONE, "height": 844})
    keep_warm(ctx, app_url)
    yield ctx
    ctx.close()


def overflow(page) -> dict:
    return page.evaluate(a11y.OVERFLOW)


@pytest.mark.parametrize("path", list(NAMES))
def test_every_view_at_a_large_setting_on_a_phone(phone, app_url, axe_reference, path):
    page = phone.new_page()
    try:
        query = "&".join(f"{k}={v}" for k, v in LARGE.query_params().items())
        page.goto(f"{app_url}/{path}?{query}")
        wait_ready(page)
        tabs = page.evaluate(a11y.BOUND_TABS, None)
        own, wide = {}, {}
        for i, label in enumerate(tabs or [""]):
            if i:
                page.evaluate(a11y.BOUND_TABS, i)
                page.wait_for_function("(label) => [...new URLSearchParams(location.search).values()].includes(label)", arg=label, timeout=60_000)
                page.wait_for_function(a11y.OPEN_PANEL, arg=label, timeout=60_000)
                wait_ready(page)
            own[label] = a11y.describe(a11y.own(a11y.violations(page), axe_reference))
            seen = overflow(page)
            if seen["scroll"] > seen["inner"]:
                wide[label] = seen
        page.set_viewport_size({"width": TABLET, "height": 1024})
        page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        seen = overflow(page)
        if seen["scroll"] > seen["inner"]:
            wide[f"{tabs[-1] if tabs else ''} at {TABLET} px"] = seen
        assert {view: text for view, text in own.items() if text} == {}
        assert wide == {}, "the page scrolls sideways as a whole: the document is wider than the window"
    finally:
        page.close()
