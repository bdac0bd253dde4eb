"""End to end, in headless Chromium: every page renders its charts, passes axe-core's WCAG 2.1 AA rules in each
of its tabs and can be used with the keyboard alone; a shared slider redraws the chart and rewrites the URL; that URL
reopens the same view in a fresh browser."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from harness import a11y
from harness.a11y import BOUND_TABS
from harness.browser import TRACES, figure_signature, screenshot, wait_ready
from tests.pages import CHARTS, NAMES

def settled(page, quiet_ms: int = 250, most_ms: int = 20_000) -> int:
    """drawn_charts once it has not changed for `quiet_ms`. The tab's run has begun (a11y.tab_by_keyboard waits
    for its first element) and ended (wait_ready), but on a loaded machine an element of it can mount after that."""
    count, since, waited = drawn_charts(page), 0, 0
    while since < quiet_ms and waited < most_ms:
        page.wait_for_timeout(250)
        since, waited = since + 250, waited + 250
        now = drawn_charts(page)
        if now != count:
            wait_ready(page)
            count, since = drawn_charts(page), 0
    return count


def chart_titles(page) -> list[str]:
    return page.eval_on_selector_all("[data-testid='stPlotlyChart'] .gtitle, .pee-hm-title", "els => els.map(e => e.textContent)")


def drawn_charts(page) -> int:
    """Charts that Plotly has actually drawn: a main SVG with at least one trace or image in it,
    or (3-D scenes) a WebGL canvas; and panel grids the browser painted, a
    canvas per panel, at least one cell of one of them coloured."""
    plotly = page.eval_on_selector_all(
        "[data-testid='stPlotlyChart'] .js-plotly-plot", f"els => els.filter(e => e.querySelector('.main-svg') && e.querySelector('{TRACES}')).length"
    )
    painted = page.eval_on_selector_all(
        ".pee-hm[data-draws]",
        "els => els.filter(g => [...g.querySelectorAll('canvas')].some(c => "
        "c.getContext('2d').getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v > 0))).length",
    )
    return plotly + painted


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_deep_link_on_a_fresh_server_runs_the_whole_app(context, app_url):
    # first request of this server's life goes straight to a page with settings in the URL
    page = context.new_page()
    page.goto(f"{app_url}/similarity?d_model=64&max_len=100&base=500")
    wait_ready(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(".st-key-d_model input").input_value() == "64"
    assert page.locator(".st-key-base input").input_value() == "500"
    assert query(page) == {"d_model": "64", "max_len": "100", "base": "500"}
    assert "positions 0 to 99" in chart_titles(page)[0]


@pytest.mark.parametrize("path", list(NAMES))
def test_page_renders_its_charts(context, app_url, axe_reference, path):
    # at the defaults, every tab: its figures drawn, and no serious or critical axe-core violation of the app's own (harness/a11y.py)
    page = context.new_page()
    app_host = urlparse(app_url).netloc
    elsewhere: list[str] = []  # a workshop laptop may have no network: nothing may come from another host
    page.on(
        "request",
        lambda r: elsewhere.append(r.url) if urlparse(r.url).scheme in ("http", "https", "ws", "wss") and urlparse(r.url).netloc != app_host else None,
    )
    page.goto(f"{app_url}/{path}")
    wait_ready(page)
    assert page.locator("[data-testid='stException']").count() == 0
    tabs = page.evaluate(BOUND_TABS, None)
    expected = CHARTS[NAMES[path]]
    if not tabs:  # every figure of the page is on screen at once: wait for as many as it draws
        page.wait_for_function(
            f"document.querySelectorAll(\"[data-testid='stPlotlyChart'] .main-svg, .pee-hm[data-draws]\").length >= {expected}", timeout=30_000
        )
    drawn = drawn_charts(page)
    assert all(title.strip() for title in chart_titles(page))
    screenshot(page, f"page-{path or 'problem'}")
    own = {tabs[0] if tabs else "": a11y.own(a11y.violations(page), axe_reference)}
    keyboard(page)
    for label in tabs[1:]:  # every other tab: one key away (ArrowRight, Enter), and in the link
        a11y.tab_by_keyboard(page, label)
        wait_ready(page)
        assert page.locator("[data-testid='stException']").count() == 0
        drawn += settled(page)
        assert all(title.strip() for title in chart_titles(page))
        own[label] = a11y.own(a11y.violations(page), axe_reference)
    assert {view: a11y.describe(found) for view, found in own.items() if found} == {}
    assert drawn >= expected
    assert {k: query(page)[k] for k in ("d_model", "max_len", "base")} == {"d_model": "128", "max_len": "256", "base": "10000"}
    icons = "Array.from(document.querySelectorAll('link[rel~=icon]')).map(l => new URL(l.href)).map(u => u.protocol === 'data:' ? 'inline' : u.host)"
    assert page.evaluate(icons) == ["inline"]  # the app's own icon, in the page (app.py)
    assert elsewhere == []


def keyboard(page) -> None:
    """Tab reaches every control, button, link, tab list and expander title of the page, and Space presses a button:
    a figure's data downloads as CSV under its axes' titles. (Enter and the arrows open the tabs, in the test above;
    the arrows move a slider, in the test below.)"""
    page.evaluate(a11y.FOCUSABLE)
    stops = a11y.walk(page, page.locator("[data-kb]").count() + 40)
    assert a11y.missed_by_tab(page, stops) == []
    kb = next((s["kb"] for s in stops if s and s["csv"]), None)
    if kb is not None:
        page.focus(f"[data-kb='{kb}']")
        with page.expect_download() as download:
            page.keyboard.press("Space")
        rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8"))))
        assert rows[0][0] == "series" and len(rows) > 1


@pytest.mark.parametrize(("path", "setting", "after"), [("", "max_len", "512"), ("sinusoidal", "d_model", "256"), ("similarity", "max_len", "512")])
# (the first page's charts do not change with d_model: its numbers do, and max_len changes its charts)
def test_slider_redraws_and_url_reopens_same_view(browser, context, app_url, path, setting, after):
    page = context.new_page()
    page.goto(f"{app_url}/{path}")
    wait_ready(page)
    before = figure_signature(page)
    thumb = page.locator(f".st-key-{setting}_slider input[type='range']")
    thumb.focus()
    thumb.press("ArrowRight")  # the next log-spaced stop: 128 -> 256, 256 -> 512
    page.wait_for_function(f"document.location.search.includes('{setting}={after}')", timeout=30_000)
    wait_ready(page)
    assert page.locator(f".st-key-{setting} input").input_value() == after
    moved = figure_signature(page)
    assert moved != before
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, f"{path or 'problem'}-{setting}-{after}")
    shared = page.url

    # switch page through the sidebar: the settings stay in the URL and on screen
    target = "Sinusoidal" if path != "sinusoidal" else "Similarity"
    page.locator("[data-testid='stSidebarNav'] a", has_text=target).click()
    page.wait_for_url(re.compile(rf".*/{target.lower()}\?.*"), timeout=30_000)
    wait_ready(page)
    assert query(page)[setting] == after
    assert page.locator(f".st-key-{setting} input").input_value() == after

    # the copied link opens the same view in a fresh browser context
    fresh = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        other = fresh.new_page()
        other.goto(shared)
        wait_ready(other)
        assert other.locator(f".st-key-{setting} input").input_value() == after
        assert query(other)[setting] == after
        assert figure_signature(other) == moved  # the same numbers drawn as before the page switch
    finally:
        fresh.close()


def test_bad_link_shows_notice_and_falls_back(context, app_url):
    page = context.new_page()
    page.goto(f"{app_url}/similarity?d_model=abc&max_len=-5&base=inf")
    wait_ready(page)
    assert page.locator("[data-testid='stException']").count() == 0
    alerts = " ".join(page.locator("[data-testid='stAlert']").all_inner_texts())
    assert "d_model" in alerts and "max_len" in alerts and "base" in alerts
    page.wait_for_function("document.location.search.includes('max_len=1')", timeout=30_000)
    assert query(page) == {"d_model": "128", "max_len": "1", "base": "10000"}
    screenshot(page, "similarity-bad-link")


def test_attention_sentence_change_redraws(context, app_url):
    page = context.new_page()
    page.goto(f"{app_url}/attention")
    wait_ready(page)
    before = figure_signature(page)
    page.locator(".st-key-sentence").click()
    page.get_by_role("option", name="your own sentence").click()
    wait_ready(page)
    box = page.locator(".st-key-text input")
    box.fill("colourless green ideas sleep furiously")
    box.press("Enter")
    page.wait_for_function("document.location.search.includes('colourless')", timeout=30_000)
    # the URL changes when the box commits, which can be before the run it starts has begun: wait for
    # the words on the figure's axis (a run that never redraws them times out here)
    ticks = "Array.from(document.querySelectorAll('.pee-hm-yt > span')).map(e => e.textContent).join(' ')"  # the painted grid's row words
    page.wait_for_function(f"() => {ticks}.includes('4:furiously')", timeout=30_000)
    wait_ready(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert figure_signature(page) != before
    shown = page.evaluate(f"() => {ticks}")
    assert "0:colourless" in shown and "4:furiously" in shown and "quick" not in shown
    screenshot(page, "attention-custom-sentence")
