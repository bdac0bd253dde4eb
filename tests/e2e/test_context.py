"""The `context` page in headless Chromium: every model preset draws all its charts without an exception, the
preset names travel in the URL, and the links to /rope and /code open those pages with the preset's settings."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from core.schemes.rope_presets import PRESETS
from harness.browser import screenshot, wait_ready
from tests.e2e.test_browser import chart_titles


MODEL_TABS = """(click) => {
    const list = document.querySelector(".st-key-context_tab [role='tablist']");  // the tabs of "Model by model", one per preset
    const tabs = list ? [...list.querySelectorAll("[role='tab']")] : [];
    if (click !== null) tabs[click].click();
    return tabs.map(t => t.innerText);
}"""


def test_every_preset_draws_its_charts(context, app_url):
    # every preset in one page, its tab of "Model by model" opened in turn (only the open one is drawn); the server side
    # of each preset alone: tests/app/test_context.py
    page = context.new_page()
    page.goto(f"{app_url}/context?presets={','.join(PRESETS)}")
    wait_ready(page)
    assert parse_qs(urlparse(page.url).query)["presets"] == [",".join(PRESETS)]
    labels = page.evaluate(MODEL_TABS, None)
    assert labels == [preset.label for preset in PRESETS.values()]
    for i, preset in enumerate(PRESETS.values()):
        if i:
            page.evaluate(MODEL_TABS, i)
            selected = "(label) => document.querySelector(\".st-key-context_tab [role='tab'][aria-selected='true']\")?.innerText === label"
            page.wait_for_function(selected, arg=preset.label)
            wait_ready(page)
        charts = 2 * len(preset.layers)  # per layer kind: wavelengths and decay, in the open tab (the tab's run may follow its click)
        drawn = "(n) => [...document.querySelectorAll(\".st-key-context_tab [role='tabpanel']\")].filter(p => p.offsetParent)" \
            ".flatMap(p => [...p.querySelectorAll(\"[data-testid='stPlotlyChart'] .main-svg\")]).length >= n"
        page.wait_for_function(drawn, arg=charts, timeout=30_000)
        wait_ready(page)
        assert page.locator("[data-testid='stException']").count() == 0, preset.label
        assert all(title.strip() for title in chart_titles(page)), preset.label
        if preset.label.startswith("Gemma 3"):
            screenshot(page, "page-context-gemma-3")


def test_link_opens_rope_in_a_new_tab_with_the_presets_settings(context, app_url):
    page = context.new_page()
    page.goto(f"{app_url}/context?presets=llama-3.1-8b")
    wait_ready(page)
    screenshot(page, "page-context")
    page.get_by_text("The counts, the decay and links").first.click()  # the links are one click away, beside the counts
    link = page.locator("a", has_text="Open Llama 3.1 8B in /rope")
    link.wait_for(state="visible")
    wait_ready(page)
    with context.expect_page() as opened:  # a new tab: a fresh session that reads the whole URL, shared settings included
        link.click()
    rope_page = opened.value
    rope_page.wait_for_load_state()
    wait_ready(rope_page)
    assert urlparse(rope_page.url).path.endswith("/rope")
    assert rope_page.locator("[data-testid='stException']").count() == 0
    alerts = rope_page.locator("[data-testid='stAlert']").all_inner_texts()  # the page's own info boxes, but no link notice (icon link_off)
    assert not any("link_off" in text or "in the link" in text for text in alerts), alerts
    assert rope_page.locator(".st-key-max_len input").input_value() == "131072"
    assert rope_page.locator(".st-key-base input").input_value() == "500000"
    got = {k: v[0] for k, v in parse_qs(urlparse(rope_page.url).query).items()}
    assert {k: got[k] for k in ("head_dim", "scaling", "factor", "original_len", "base", "max_len")} == {
        "head_dim": "128", "scaling": "llama3", "factor": "8", "original_len": "8192", "base": "500000", "max_len": "131072"
    }  # fmt: skip
