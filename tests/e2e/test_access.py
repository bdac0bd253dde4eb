"""Accessibility beyond the defaults and beyond the mouse, one page load per page and test:

- at a large setting (bench.config's extremes) on a phone's screen (390 px): every tab passes axe-core's WCAG 2.0/2.1
  A and AA rules but for what the minimal Streamlit page has too (tests/e2e/a11y.py), and no view scrolls sideways
  as a whole, at 390 px nor, for the last tab, at 768 px (a figure too wide scrolls in its own box);
- with the keyboard alone: Tab reaches every control, button, link and tab list of the page; the arrow keys move a
  slider (the URL and the figures follow), switch the bound tabs; Enter opens an expander; Space presses a button
  (a figure's CSV download)."""

from __future__ import annotations

import csv
import io

import pytest

from bench.config import SETTINGS
from tests.e2e import a11y
from tests.e2e.conftest import figure_signature, wait_ready
from tests.pages import NAMES

FOLLOWS = {"": ("max_len", "512"), "sinusoidal": ("d_model", "256"), "similarity": ("max_len", "512")}  # the first view redraws
LARGE = next(s for s in SETTINGS if s.name == "extremes")
PHONE, TABLET = 390, 768


@pytest.fixture(scope="module")
def phone(browser):
    """A context with a phone's viewport for this module's tests (a context's viewport is set when it is made)."""
    ctx = browser.new_context(viewport={"width": PHONE, "height": 844})
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


FOCUSABLE = """() => [...document.querySelectorAll(
        "[data-testid='stSidebar'] *, [data-testid='stMain'] *")]
    .filter(e => !e.closest("[data-testid='stElementToolbar']"))  // a table's own toolbar: Streamlit's, shown when the table has focus
    .filter(e => { const shut = e.closest('details:not([open])');  // a closed expander shows its title only
        return !shut || e.parentElement === shut && e.tagName === 'SUMMARY'; })
    .filter(e => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
        && (e.matches("input, button, select, textarea, summary, a[href], [role='slider'], [role='tab'], [role='button'], [role='combobox'], [tabindex]")))
    .map((e, i) => { e.dataset.kb = i; return i; })"""

WHAT = """() => { const e = document.activeElement; if (!e) return null;
    const role = e.getAttribute('role'), text = (e.innerText || e.getAttribute('aria-label') || '').trim();
    return {kb: e.dataset.kb ?? null, role, tag: e.tagName.toLowerCase(), text: text.slice(0, 40),
        slider: e.matches("input[type='range']") && ([...(e.closest("[class*='_slider']") || {classList: []}).classList]
            .find(c => c.startsWith('st-key-')) || '').replace('st-key-', ''),
        bound: role === 'tab' && !!e.closest("[class*='st-key-'][class*='_view']"), csv: e.tagName === 'BUTTON' && text.includes('Data (CSV)'),
        expander: e.tagName === 'SUMMARY' && !!e.closest("[data-testid='stExpander']")}; }"""


def walk(page, limit: int) -> list[dict]:
    """Press Tab until focus comes back to where it started (or `limit` presses), and say where each press landed."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        here = page.evaluate(WHAT)
        if seen and here == seen[0]:
            break
        seen.append(here)
    return seen


@pytest.mark.parametrize("path", list(NAMES))
def test_the_page_works_from_the_keyboard(context, app_url, path):
    page = context.new_page()
    page.goto(f"{app_url}/{path}")
    wait_ready(page)
    controls = page.evaluate(FOCUSABLE)
    stops = walk(page, len(controls) + 40)
    reached = {int(s["kb"]) for s in stops if s and s["kb"] is not None}
    missed = page.evaluate(
        "(reached) => [...document.querySelectorAll('[data-kb]')].filter(e => !reached.includes(+e.dataset.kb))"
        # a tab list and a radio group are one Tab stop each: the arrows move within them (WAI-ARIA's pattern)
        ".filter(e => !(e.getAttribute('role') === 'tab' && e.getAttribute('aria-selected') === 'false'))"
        ".filter(e => !(e.getAttribute('role') === 'radio' && e.getAttribute('aria-checked') === 'false'))"
        ".map(e => e.tagName.toLowerCase() + ' ' + (e.innerText || e.getAttribute('aria-label') || '').trim().slice(0, 40))",
        sorted(reached),
    )
    assert controls and missed == []

    def focus(kind: str) -> bool:
        """Focus the first stop of `kind` the Tab walk reached (reaching it by Tab is shown above)."""
        kb = next((s["kb"] for s in stops if s and s[kind]), None)
        if kb is not None:
            page.focus(f"[data-kb='{kb}']")
        return kb is not None and bool(page.evaluate(WHAT)[kind])

    # Space presses a button: a figure's data downloads as CSV, its header the axes' titles
    if any(s and s["csv"] for s in stops):
        assert focus("csv")
        with page.expect_download() as download:
            page.keyboard.press("Space")
        rows = list(csv.reader(io.StringIO(open(download.value.path(), encoding="utf-8").read())))
        assert rows[0][0] == "series" and len(rows) > 1

    # Enter opens an expander (every page ends with its Sources)
    assert focus("expander")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.closest('details').open")

    # the arrows move a slider: the URL follows, and the figures (on the pages whose first view draws that setting)
    setting, after = FOLLOWS.get(path, ("max_len", "512"))
    before = figure_signature(page)
    kb = next((s["kb"] for s in stops if s and s["slider"] == f"{setting}_slider"), None)
    assert kb is not None
    page.focus(f"[data-kb='{kb}']")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"document.location.search.includes('{setting}={after}')", timeout=30_000)
    wait_ready(page)
    if path in FOLLOWS:
        assert figure_signature(page) != before

    # the arrows switch the bound tabs
    tabs = page.evaluate(a11y.BOUND_TABS, None)
    if len(tabs) > 1:
        assert focus("bound")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        page.wait_for_function("(label) => [...new URLSearchParams(location.search).values()].includes(label)", arg=tabs[1], timeout=30_000)
        wait_ready(page)
    page.close()
