"""Accessibility at a large setting (bench.config's extremes) on a phone's screen (390 px), one page load per page:
every tab passes axe-core's WCAG 2.0/2.1 A and AA rules but for what the minimal Streamlit page has too
(harness/a11y.py), no figure is wider than its column, and no view scrolls sideways as a whole, at 390 px nor, for
the last tab, at 768 px. In the dark theme, a few pages: the theme the browser prefers is followed, figures included,
and axe-core passes; the menu switches it. At the defaults, on a desktop's screen, and from the keyboard:
tests/e2e/test_browser.py."""

from __future__ import annotations

import pytest

from harness.settings import SETTINGS
from harness import a11y
from harness.browser import wait_ready
from tests.pages import NAMES

LARGE = next(s for s in SETTINGS if s.name == "extremes")
PHONE, TABLET = 390, 768




def overflow(page) -> dict:
    return page.evaluate(a11y.OVERFLOW)


@pytest.mark.parametrize("path", list(NAMES))
def test_every_view_at_a_large_setting_on_a_phone(context, app_url, axe_reference, path):
    page = context.new_page()  # in the shared context, its cache and renderer warm: a phone's window is the tab's own
    try:
        page.set_viewport_size({"width": PHONE, "height": 844})
        query = "&".join(f"{k}={v}" for k, v in LARGE.query_params().items())
        page.goto(f"{app_url}/{path}?{query}")
        wait_ready(page)
        tabs = page.evaluate(a11y.BOUND_TABS, None)
        own, wide, cut_off = {}, {}, {}
        for i, label in enumerate(tabs or [""]):
            if i:
                page.evaluate(a11y.BOUND_TABS, i)
                page.wait_for_function("(label) => [...new URLSearchParams(location.search).values()].includes(label)", arg=label, timeout=60_000)
                page.wait_for_function(a11y.OPEN_PANEL, arg=label, timeout=60_000)
                wait_ready(page)
            own[label] = a11y.describe(a11y.own(a11y.violations(page), axe_reference))
            if cut := page.evaluate(a11y.WIDER_THAN_COLUMN):
                cut_off[label] = cut
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
        assert cut_off == {}, f"figures wider than their column at {PHONE} px"
    finally:
        page.close()


# --- the dark theme: the browser's preference is followed, the visitor can pick it in the menu -----------------------

DARK_PAGES = {  # pages that between them show what the dark theme recolours (and /rope, in the menu's test: figures)
    "lab": "figures, primary buttons, a multiselect's chips, tables",
    "code": "the code highlighter, tabs",
}
DARK_TEXT, DARK_BACKGROUND = "rgb(250, 250, 250)", "rgb(14, 17, 23)"  # .streamlit/config.toml [theme.dark]
CLEAR = "rgba(0, 0, 0, 0)"


@pytest.mark.parametrize("path", list(DARK_PAGES))
def test_a_browser_that_prefers_dark_gets_the_dark_theme_and_passes_axe(context, app_url, axe_reference_dark, path):
    page = context.new_page()  # the shared context, the preference the tab's own (as a context's color_scheme would give it)
    try:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.emulate_media(color_scheme="dark")
        page.goto(f"{app_url}/{path}")
        wait_ready(page)
        shown = page.evaluate(a11y.THEME_SHOWN)
        assert (shown["text"], shown["background"]) == (DARK_TEXT, DARK_BACKGROUND)
        assert set(shown["figures"]) <= {DARK_TEXT}, "a figure's text is not in the theme's text colour"
        assert set(shown["behind"]) <= {DARK_BACKGROUND, CLEAR}, "a figure paints a light background"
        assert a11y.describe(a11y.own(a11y.violations(page), axe_reference_dark)) == ""
    finally:
        page.close()


def test_the_visitor_picks_the_dark_theme_in_the_menu(browser, app_url):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")  # its own: the pick is kept in the browser
    try:
        page = ctx.new_page()
        page.goto(f"{app_url}/rope")
        wait_ready(page)
        before = page.evaluate(a11y.THEME_SHOWN)
        assert before["background"] == "rgb(255, 255, 255)" and before["figures"] == ["rgb(17, 20, 24)"]
        page.locator("[data-testid='stMainMenu']").click()
        page.locator("[data-testid='stMainMenuItem-theme-Dark']").click()
        page.wait_for_function("(bg) => getComputedStyle(document.querySelector('.stApp')).backgroundColor === bg", arg=DARK_BACKGROUND, timeout=10_000)
        after = page.evaluate(a11y.THEME_SHOWN)  # the figures follow, without a run of the page
        assert after["figures"] == [DARK_TEXT] and set(after["behind"]) <= {DARK_BACKGROUND, CLEAR}
    finally:
        ctx.close()
