"""The reordering lesson on / in Chromium: the whole of it, both word orders without and with positions, on the first
screen at 1,440 x 900 beside the words that reorder it; on a phone (390 px) its four panels in two columns within the
page's column, so that its caption's "top row" and "right" still name what they say."""

from __future__ import annotations

from harness.browser import wait_ready

PANELS = """() => [...document.querySelectorAll('.st-key-lesson_weights .pee-hm-panel')].map((p) => {
    const r = p.getBoundingClientRect();
    return [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)];
})"""
COLUMN = "() => document.querySelector(\"[data-testid='stMainBlockContainer']\").getBoundingClientRect().right"
SETTLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def two_by_two(boxes: list[list[int]]) -> bool:
    """Four panels in two columns and two rows: two lefts, two tops, each pair of a row side by side."""
    return len(boxes) == 4 and len({b[0] for b in boxes}) == 2 and len({b[1] for b in boxes}) == 2 and boxes[0][1] == boxes[1][1]


def test_the_lesson_fits_the_first_screen_and_keeps_two_columns_on_a_phone(context, app_url):
    page = context.new_page()
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(app_url)
    wait_ready(page, timeout=120_000)
    boxes = page.evaluate(PANELS)
    assert two_by_two(boxes) and max(b[3] for b in boxes) <= 900, boxes  # every panel ends above the fold
    words = page.locator(".st-key-order_pick").bounding_box()
    assert words["x"] + words["width"] <= min(b[0] for b in boxes) and words["y"] < 900  # the words beside the picture, on screen
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate(SETTLE)
    boxes = page.evaluate(PANELS)
    assert two_by_two(boxes) and max(b[2] for b in boxes) <= page.evaluate(COLUMN) + 1, boxes
    page.close()


def test_every_word_to_swap_stands_inside_its_column(context, app_url):
    # Streamlit's pills keep one line and scroll what does not fit: six words cut the last at the column's edge
    page = context.new_page()
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{app_url}/?lesson=the+cat+sat+on+the+mat")
    wait_ready(page, timeout=120_000)
    column = page.locator(".st-key-order_pick").bounding_box()
    chips = [page.locator(".st-key-order_pick button").nth(i).bounding_box() for i in range(6)]
    assert all(c["x"] + c["width"] <= column["x"] + column["width"] + 1 for c in chips), (column, chips)
    assert len({round(c["y"]) for c in chips}) == 2  # they wrap onto a second line
    page.close()
