"""The browser's history, in headless Chromium: a page load and a setting change leave one entry (the app's
writes of the URL replace it: ui/assets/history.js), a page link adds one, and Back goes to the page before with
every setting as the visitor left it, never to a blank page."""

from __future__ import annotations

import re

from harness.browser import wait_ready


def entries(page) -> int:
    return page.evaluate("() => history.length")


def test_one_entry_per_page_and_back_keeps_the_settings(context, app_url):
    page = context.new_page()
    before = entries(page)  # the new tab's blank page
    page.goto(f"{app_url}/rope")
    wait_ready(page)
    page.wait_for_function("document.location.search.includes('base=10000')", timeout=30_000)  # the app wrote its settings into the URL ...
    loaded = before + 1
    assert entries(page) == loaded  # ... in the entry of the load
    thumb = page.locator(".st-key-base_slider input[type='range']")  # a shared setting /rope shows
    thumb.focus()
    thumb.press("ArrowRight")  # base 10,000 -> 20,000: the URL follows, in the same entry
    page.wait_for_function("document.location.search.includes('base=20000')", timeout=30_000)
    wait_ready(page)
    width = page.locator(".st-key-head_dim input[type='range']")  # /rope's own control, bound to the URL by Streamlit
    width.focus()
    width.press("ArrowRight")  # head_dim 64 -> 128
    page.wait_for_function("document.location.search.includes('head_dim=128')", timeout=30_000)
    wait_ready(page)
    assert entries(page) == loaded
    page.locator("[data-testid='stSidebarNav'] a", has_text="Sinusoidal").click()  # a page link: one entry
    page.wait_for_url(re.compile(r".*/sinusoidal\?.*"), timeout=30_000)
    wait_ready(page)
    assert entries(page) == loaded + 1 and "base=20000" in page.url
    page.go_back()  # the page before, as it was left
    page.wait_for_url(re.compile(r".*/rope\?.*"), timeout=30_000)
    wait_ready(page)
    assert page.locator("[data-testid='stApp'] [data-testid='stMain']").count() == 1
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(".st-key-base input").input_value().replace(",", "") == "20000"
    assert "base=20000" in page.url and "head_dim=128" in page.url
    assert width.get_attribute("aria-valuetext") == "128"  # and the control shows it
    assert entries(page) == loaded + 1
