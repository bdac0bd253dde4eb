"""A page control reruns only what depends on it (issue 17), checked on the wire in Chromium.

A full rerun of a page sends every widget of the page again, the sidebar's sliders included
(Streamlit leaves out only charts whose spec did not change); a fragment run sends only the
fragment's elements. So after a control inside a fragment changes, the frames the browser
receives must carry that control's figure, redrawn, and none of the sidebar. The open tab of a
tabbed page is a fragment (ui/sections.py); /model's PCA section and one-dimension figure are
fragments of their own; /sinusoidal's circle is a fragment inside the Waves tab's.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import wait_ready
from tests.e2e.test_browser import chart_titles

SIDEBAR = b"exact max_len"  # the label of the sidebar's exact max_len box: no figure, control or link of these pages has it

CASES = {
    # page, control, new value, bytes that only the redrawn figure carries
    "sinusoidal pair": ("sinusoidal?sin_view=Waves", "pair", "5", b"for pair 5:"),
    "sinusoidal position": ("sinusoidal?sin_view=Exact+values", "position", "7", rb"PE\(7, j\)"),
    "similarity reference": ("similarity?sim_view=Distance", "reference", "9", b"every position to position 9"),
    "model dimension": ("model?model_view=Spectrum", "dim", "3", rb"Dimension \d+ over position"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_control_inside_a_fragment_reruns_that_fragment_only(context, app_url, case):
    path, control, value, redrawn = CASES[case]
    page = context.new_page()
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f if isinstance(f, bytes) else f.encode())))
    page.goto(f"{app_url}/{path}")
    wait_ready(page, timeout=120_000)
    assert SIDEBAR in b"".join(frames), "the first run sends the sidebar (else this test could not see a full rerun)"
    frames.clear()
    box = page.locator(f".st-key-{control} input").first
    box.fill(value)
    box.press("Enter")
    page.wait_for_function("document.querySelector(\"[data-testid='stApp']\").getAttribute('data-test-script-state') === 'notRunning'")
    page.wait_for_timeout(1500)
    wait_ready(page)
    sent = b"".join(frames)
    assert re.search(redrawn, sent), f"{case}: the figure of the changed control was not sent again"
    assert SIDEBAR not in sent, f"{case}: the whole page ran again (the sidebar was sent), not the fragment"
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(f".st-key-{control} input").first.input_value() == value


def test_a_fragment_follows_the_sidebar_after_its_own_runs(context, app_url):
    """A fragment run uses the settings of the page's last full run; the next full run (a
    sidebar step) must redraw the fragment with the new settings, its control kept."""
    page = context.new_page()
    page.goto(f"{app_url}/sinusoidal?sin_view=Waves")
    wait_ready(page, timeout=120_000)
    box = page.locator(".st-key-pair input").first
    box.fill("5")
    box.press("Enter")
    page.wait_for_timeout(1000)
    wait_ready(page)
    titles = chart_titles(page)
    before = next(t for t in titles if "for pair 5" in t)
    page.locator(".st-key-d_model_slider input[type='range']").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("!location.search.includes('d_model=128') && location.search.includes('d_model=')", timeout=30_000)
    page.wait_for_timeout(1000)
    wait_ready(page)
    titles = chart_titles(page)
    after = next(t for t in titles if "for pair 5" in t)
    assert after != before  # ω of pair 5 depends on d_model: the circle was redrawn at the new width
    assert page.locator(".st-key-pair input").first.input_value() == "5"
