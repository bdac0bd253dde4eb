"""Chromium as the e2e tests, the benches and scripts/a11y_views.py start it, and what they wait for in it:
the app connected, its script finished and every figure drawn; what a page is drawing; a whole-page screenshot."""

from __future__ import annotations

import os
from pathlib import Path

from harness.pages import ROOT

SHOTS = ROOT / "artifacts" / "screenshots"

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
]

TRACES = ".trace, .hm, image, .heatmaplayer *, .imagelayer *, .scatterlayer *, .gl-container canvas"  # what Plotly draws a trace as
DRAWN = f"""() => [...document.querySelectorAll("[data-testid='stPlotlyChart'] .js-plotly-plot")]
        .every(p => p.querySelector('.main-svg') && (!(p.data || []).length || p.querySelector("{TRACES}")))
    && [...document.querySelectorAll("[data-testid='stElementContainer']:has([data-testid='stBidiComponentRegular'])")].every(c =>
        c.classList.contains('st-key-pee_scroll_regions') || c.classList.contains('st-key-pee_history')
        || c.querySelector('.pee-sp[data-drawn], .pee-mo[data-drawn]') || [...c.querySelectorAll('.pee-hm')].some(g => g.dataset.draws === g.dataset.paints
            && c.classList.contains('st-key-' + g.dataset.key)))"""
# every Plotly chart with its traces; every browser component that draws (not the scroll-region or history script) mounted (on a
# loaded machine its element can arrive after the script has finished) and, a heatmap, painted with the data of the key its element
# now has (a heatmap in the same place of another tab reuses the element: its earlier paint does not count)


def wait_ready(page, timeout: float = 60_000) -> None:
    """Wait until the app is connected, the script has finished, nothing is still loading, and every
    figure on the page is drawn (Plotly draws, and a panel grid paints, just after the run's last delta)."""
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", timeout=timeout)
    page.wait_for_function(
        """() => {
            const app = document.querySelector("[data-testid='stApp']");
            return app && app.getAttribute('data-test-script-state') === 'notRunning'
                && document.querySelectorAll("[data-testid='stSkeleton']").length === 0;
        }""",
        timeout=timeout,
    )
    page.wait_for_function(DRAWN, timeout=timeout)
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")  # two frames: what was drawn is painted


def figure_signature(page) -> list[str]:
    """What the browser is drawing, figure by figure: every Plotly chart's data as plotly.js holds
    it, every panel grid's title and the pixels of its canvases, read once every picture is on
    them, and the sinusoid preview's settings and pixels. A redraw with new numbers changes it; a page that draws nothing gives []."""
    page.wait_for_function("() => [...document.querySelectorAll('.pee-hm')].every(g => g.dataset.draws && g.dataset.draws === g.dataset.paints)")
    return page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(p => JSON.stringify(p.data || []))"
        ".concat([...document.querySelectorAll('.pee-hm')].map(g => g.dataset.title + [...g.querySelectorAll('canvas')].map(c => c.toDataURL()).join('|')))"
        ".concat([...document.querySelectorAll('.pee-sp[data-drawn]')].map(s => s.dataset.drawn + s.querySelector('canvas').toDataURL()))"
    )


def screenshot(page, name: str) -> Path:
    """Save the whole page: Streamlit scrolls inside its main container, so the viewport is
    first stretched to that container's height, then restored."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    size = page.viewport_size
    height = page.evaluate("() => { const m = document.querySelector(\"[data-testid='stMain']\"); return m ? m.scrollHeight : 0; }")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height), 12_000))})
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")  # laid out and painted at the new size
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
    return path
