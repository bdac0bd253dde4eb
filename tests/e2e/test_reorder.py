"""The reordering lesson on / in Chromium: the whole of it, both word orders without and with positions and what the
reordering changed, on the first screen at 1,440 x 900 beside the words that reorder it; on a phone (390 px) its six panels in
two columns within the page's column, so that its caption's rows and "right" still name what they say; and every chip or
option of a pills, segmented control or multiselect inside its column."""

from __future__ import annotations

from harness.browser import wait_ready

PANELS = """() => [...document.querySelectorAll('.st-key-lesson_weights .pee-hm-panel')].map((p) => {
    const r = p.getBoundingClientRect();
    return [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)];
})"""
COLUMN = "() => document.querySelector(\"[data-testid='stMainBlockContainer']\").getBoundingClientRect().right"
SETTLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def two_by_three(boxes: list[list[int]]) -> bool:
    """Six panels in two columns and three rows (no positions, with positions, the change): two lefts, three tops, each pair of
    a row side by side."""
    return len(boxes) == 6 and len({b[0] for b in boxes}) == 2 and len({b[1] for b in boxes}) == 3 and all(
        boxes[k][1] == boxes[k + 1][1] for k in (0, 2, 4)
    )


def test_the_lesson_fits_the_first_screen_and_keeps_two_columns_on_a_phone(context, app_url):
    page = context.new_page()
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(app_url)
    wait_ready(page, timeout=120_000)
    boxes = page.evaluate(PANELS)
    assert two_by_three(boxes) and max(b[3] for b in boxes) <= 900, boxes  # every panel ends above the fold
    words = page.locator(".st-key-order_pick").bounding_box()
    assert words["x"] + words["width"] <= min(b[0] for b in boxes) and words["y"] < 900  # the words beside the picture, on screen
    page.set_viewport_size({"width": 390, "height": 844})
    page.evaluate(SETTLE)
    boxes = page.evaluate(PANELS)
    assert two_by_three(boxes) and max(b[2] for b in boxes) <= page.evaluate(COLUMN) + 1, boxes
    page.close()


# every pills, segmented control and multiselect that holds more than fits one line at 390 px: (page, widget's key, its options' or chips' selector)
CONTROLS = (
    ("?lesson=the+cat+sat+on+the+mat", "order_pick", "button"),  # the words to swap on /
    ("attention?sentence=the+cat+sat+on+the+mat", "att_order_pick", "button"),
    ("compare", "schemes", "[data-tag]"),  # every scheme chosen: 13 chips
    ("lab", "lab_schemes", "[data-tag]"),
    ("lab", "lab_lm_schemes", "[data-tag]"),
    ("sinusoidal", "layout", "button"),  # two long options
    ("rope?rope_view=Scaling", "rope_layout", "button"),
)
OPEN = """(key) => {
    const shut = document.querySelector('.st-key-' + key)?.closest('details:not([open])');
    if (shut) shut.querySelector('summary').click();
    return Boolean(shut);
}"""
INSIDE = """([key, sel]) => {
    const box = document.querySelector('.st-key-' + key);
    if (!box) return null;
    const edge = box.getBoundingClientRect().right + 1;
    const items = [...box.querySelectorAll(sel)].filter((c) => c.checkVisibility()).map((c) => c.getBoundingClientRect());
    const scrolls = [...box.querySelectorAll('*')].some((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible'
        && getComputedStyle(e).overflowX !== 'clip' && e.tagName !== 'INPUT');
    return {items: items.length, outside: items.filter((r) => r.right > edge).length, rows: new Set(items.map((r) => Math.round(r.top))).size, scrolls};
}"""


def test_every_chip_and_option_stands_inside_its_column(context, app_url):
    # Streamlit's pills, segmented controls and multiselects in a column keep one line and scroll what does not fit: six words
    # cut the last at the column's edge, a multiselect of 13 schemes showed 6; wrapped, every one stands inside at both widths
    page = context.new_page()
    for width in (390, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        for path, key, sel in CONTROLS:
            page.goto(f"{app_url}/{path}")
            wait_ready(page, timeout=120_000)
            if page.evaluate(OPEN, key):  # a picker in a closed expander (/compare's): opened, as a visitor would, to be seen
                page.wait_for_timeout(600)
            seen = page.evaluate(INSIDE, [key, sel])
            assert seen and seen["items"] >= 2 and seen["outside"] == 0 and not seen["scrolls"], (width, path, key, seen)
            if (key, width) in (("order_pick", 1440), ("schemes", 390), ("schemes", 1440)):  # the narrow words column beside the lesson; 13 chips
                assert seen["rows"] >= 2, (width, path, seen)  # they wrap onto more lines
    page.close()
