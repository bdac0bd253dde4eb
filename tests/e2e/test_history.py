"""The browser's history, in headless Chromium: a page load and a setting change leave one entry (the app's
writes of the URL replace it: ui/assets/history.js), a page link adds one, and Back goes to the page before with
every setting as the visitor left it, never to a blank page: when Back during a page switch makes Streamlit's
frontend give up ("Bad delta path index", the whole app unmounted), the entry is loaded again with its settings."""

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


def test_an_app_gone_after_back_is_loaded_again_with_the_settings_of_its_entry(context, app_url):
    """What the race below does, made certain: at the Back, Streamlit's frontend drops the whole app and its session
    writes settings of its own into the URL; the page is loaded again at the entry's URL, its settings intact."""
    page = context.new_page()
    page.goto(f"{app_url}/rope?base=20000")
    wait_ready(page)
    page.wait_for_function("document.location.search.includes('max_len=256')", timeout=30_000)
    page.locator("[data-testid='stSidebarNav'] a", has_text="Sinusoidal").click()
    page.wait_for_url(re.compile(r".*/sinusoidal\?.*"), timeout=30_000)
    wait_ready(page)
    page.evaluate(
        """() => addEventListener('popstate', () => {
            document.querySelector("[data-testid='stApp']").remove();
            history.replaceState(history.state, '', location.pathname + '?d_model=2&max_len=1&base=2');
        }, { once: true })"""
    )
    with page.expect_event("load", timeout=30_000):  # Back itself stays in the document: this load is the page loaded again
        page.go_back()
    wait_ready(page)
    assert page.evaluate("performance.getEntriesByType('navigation')[0].type") == "reload"
    assert re.search(r"/rope\?", page.url) and "base=20000" in page.url and "max_len=256" in page.url
    assert page.locator(".st-key-base input").input_value().replace(",", "") == "20000"


def test_a_page_opened_from_a_link_keeps_max_len_in_the_url_when_a_live_setting_moves_next(context, app_url):
    """Opened from a link with a query string, Streamlit's frontend sends its own copy of the URL with every rerun; the
    runs that hold their writes (ui/history.py) leave that copy at the link. On /sinusoidal max_len reruns the page and
    base only its live parts: max_len moved, then base, the URL said the link's max_len while the sidebar showed 1."""
    page = context.new_page()
    page.goto(f"{app_url}/sinusoidal?max_len=256")
    wait_ready(page)
    page.wait_for_function("document.location.search.includes('base=10000')", timeout=30_000)
    loaded = entries(page)
    length = page.locator(".st-key-max_len_slider input[type='range']")
    length.focus()
    length.press("Home")  # max_len 256 -> 1, a run of the whole page
    page.wait_for_function("new URLSearchParams(location.search).get('max_len') === '1'", timeout=30_000)
    wait_ready(page)
    base = page.locator(".st-key-base_slider input[type='range']")
    base.focus()
    base.press("ArrowRight")  # base 10,000 -> 20,000, a run of the live parts alone
    page.wait_for_function("new URLSearchParams(location.search).get('base') === '20000'", timeout=30_000)
    wait_ready(page)
    url = dict(re.findall(r"(d_model|max_len|base)=([^&]*)", page.url))
    shown = {name: page.locator(f".st-key-{name} input").input_value().replace(",", "") for name in ("d_model", "max_len", "base")}
    assert url == shown == {"d_model": "128", "max_len": "1", "base": "20000"}
    assert length.get_attribute("aria-valuetext") == "1"
    assert entries(page) == loaded  # and still one entry for the page


def test_back_pressed_before_the_next_page_arrives_returns_to_the_page_left_with_its_settings(context, app_url):
    """A quick Back: on /rope, the 3rd sidebar link, then Back before the new page's run has sent anything. Streamlit
    pushes the new page's entry only when that run's first message arrives, so without the click's own push Back would
    go to the entry before /rope (here a page outside the app); the click pushes it (ui/assets/history.js), and Back
    stays in /rope with its settings, Forward still ahead."""
    page = context.new_page()
    page.goto(f"{app_url}/_stcore/health")  # the entry before /rope: outside the app
    page.goto(f"{app_url}/rope?base=20000")
    wait_ready(page)
    page.wait_for_function("document.location.search.includes('max_len=256')", timeout=30_000)
    left, before = page.url, entries(page)
    page.evaluate("""() => { document.querySelectorAll("[data-testid='stSidebarNav'] a")[2].click(); history.back(); }""")
    page.wait_for_timeout(1_000)  # Back and the runs it starts
    wait_ready(page)
    assert page.url == left and entries(page) == before + 1
    assert page.locator("[data-testid='stApp'] [data-testid='stMain']").count() == 1
    assert page.locator(".st-key-base input").input_value().replace(",", "") == "20000"
    assert page.locator(".st-key-max_len input").input_value() == "256"


def test_a_link_clicked_before_the_script_loads_leaves_the_page_left_with_its_url(context, app_url):
    """A page switch makes Streamlit take the left page's controls bound to the URL out of it, and it sent that URL
    while the address bar still showed the left page: a link clicked as the session's first run ended, before
    ui/assets/history.js had loaded, pushed /relative without rel_view=T5, and Back came to it (the view changed, one
    entry too many). Here the script never patches the history (it finds it patched), as if the click came first."""
    page = context.new_page()
    page.add_init_script("history.pushState.peeSamePage = true")
    page.goto(f"{app_url}/relative?rel_view=T5")
    wait_ready(page)
    page.wait_for_function("document.location.search.includes('max_len=256')", timeout=30_000)
    left, before = page.url, entries(page)
    page.locator("[data-testid='stSidebarNav'] a").nth(2).click()
    page.wait_for_url(re.compile(r".*/similarity\?.*max_len=256.*"), timeout=30_000)
    wait_ready(page)
    assert entries(page) == before + 1
    page.go_back()
    page.wait_for_url(re.compile(r".*/relative\?.*"), timeout=30_000)
    wait_ready(page)
    assert page.url == left and "rel_view=T5" in page.url
