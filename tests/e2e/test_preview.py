"""/sinusoidal's live preview (ui/sinusoid_preview.py) in Chromium: its canvas holds every cell of
the encoding, coloured as core.schemes.sinusoidal's values on the app's diverging scale, at the
sidebar's settings and after its own sliders move; a move sends nothing to the server; hover
reads a cell's exact value; the link carries the preview's settings; the numbers along its sides
stand at their rows and columns, follow its sliders and stay in view while it scrolls."""

from __future__ import annotations

import numpy as np
import pytest

from core.schemes import sinusoidal
from core.viz import charts, wire
from harness.browser import wait_ready
from tests.e2e.conftest import open_recording

PIXELS = """() => {
    const c = document.querySelector('.pee-sp-canvas');
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    return { width: c.width, height: c.height, rgb: Array.from(data) };
}"""


def expected_rgb(d: int, L: int, base: float, layout: str) -> np.ndarray:
    """What the canvas must hold: the encoding's levels (as the app's image heatmaps compute
    them) through the app's diverging scale; (L, d, 3)."""
    pe = sinusoidal.sinusoidal_encoding(L, d, base, layout=layout)
    level = np.round((np.clip(pe, -1, 1) + 1) / 2 * 254).astype(int)
    return wire.colour_lut(charts.DIVERGING, 255)[level]


def canvas(page) -> np.ndarray:
    got = page.evaluate(PIXELS)
    return np.asarray(got["rgb"], dtype=np.uint8).reshape(got["height"], got["width"], 4)


def agree(got: np.ndarray, want: np.ndarray) -> float:
    """The share of cells whose colour is the expected one (a value within 1e-12 of a level's
    edge may round the other way in JavaScript's sin than in NumPy's: a handful of cells)."""
    assert got.shape[:2] == want.shape[:2], (got.shape, want.shape)
    assert np.all(got[..., 3] == 255)
    return float(np.mean(np.all(got[..., :3] == want, axis=-1)))


def opened(context, app_url, query: str):
    page, sent = open_recording(context, f"{app_url}/sinusoidal?sin_view=Live%20preview&{query}")
    page.wait_for_selector(".pee-sp[data-drawn]", timeout=30_000)
    return page, sent


def move(page, cls: str, value: float) -> None:
    page.evaluate(
        "([cls, value]) => { const i = document.querySelector(cls); i.value = value; i.dispatchEvent(new Event('input', { bubbles: true })); }",
        [cls, value],
    )


@pytest.mark.parametrize(
    ("query", "d", "L", "base", "layout"),
    [("d_model=16&max_len=40&base=100", 16, 40, 100.0, "interleaved"), ("d_model=64&max_len=100&base=500&layout=concat", 64, 100, 500.0, "concat")],
)
def test_the_canvas_is_the_encoding_at_the_sidebar_settings(context, app_url, query, d, L, base, layout):
    page, _ = opened(context, app_url, query)
    assert page.locator(".pee-sp").get_attribute("data-drawn") == f"{d},{L},{base:g}"
    assert agree(canvas(page), expected_rgb(d, L, base, layout)) > 0.999
    title = page.locator(".pee-sp-title").inner_text()
    assert f"positions 0 to {L - 1}" in title and f"{d} dimensions" in title and f"base {base:,g}" in title
    page.close()


def test_its_sliders_redraw_in_the_browser_without_the_server(context, app_url):
    page, sent = opened(context, app_url, "d_model=16&max_len=40&base=100")
    sent.clear()
    search = page.evaluate("location.search")
    move(page, ".pee-sp-d", 32)
    move(page, ".pee-sp-L", 64)
    move(page, ".pee-sp-base", 3.0)  # log10: base 1,000
    assert page.locator(".pee-sp").get_attribute("data-drawn") == "32,64,1000"
    assert agree(canvas(page), expected_rgb(32, 64, 1000.0, "interleaved")) > 0.999
    page.wait_for_timeout(1000)
    assert sent == [] and page.evaluate("location.search") == search  # nothing asked of the server, the page's link unchanged
    assert page.locator(".pee-sp-link").get_attribute("href") == "/sinusoidal?d_model=32&max_len=64&base=1000&layout=interleaved"
    move(page, ".pee-sp-base", 0.0)  # below the slider's end: the base stays within the app's range
    assert page.locator(".pee-sp").get_attribute("data-drawn") == "32,64,2"
    page.close()


def test_a_sidebar_move_restarts_the_preview_there_and_a_move_still_draws_once(context, app_url):
    page, _ = opened(context, app_url, "d_model=16&max_len=40&base=100")
    for want in ("32", "64"):  # the sidebar's d_model slider, one stop right, twice: the component runs again on the same page
        before = page.evaluate("location.search")
        page.locator(".st-key-d_model_slider input[type='range']").focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("(before) => location.search !== before", arg=before, timeout=30_000)
        wait_ready(page)
        page.wait_for_function("(d) => document.querySelector('.pee-sp').dataset.drawn.startsWith(d + ',')", arg=want, timeout=30_000)
    assert agree(canvas(page), expected_rgb(64, 40, 100.0, "interleaved")) > 0.999
    draws = int(page.locator(".pee-sp").get_attribute("data-draws"))
    move(page, ".pee-sp-L", 50)
    assert int(page.locator(".pee-sp").get_attribute("data-draws")) == draws + 1  # one draw per move, not one per run so far
    assert agree(canvas(page), expected_rgb(64, 50, 100.0, "interleaved")) > 0.999
    page.close()


def test_hover_reads_the_exact_value_of_a_cell(context, app_url):
    page, _ = opened(context, app_url, "d_model=16&max_len=40&base=100")
    box = page.locator(".pee-sp-canvas").bounding_box()
    row, col = 7, 5  # cos of pair 2 at position 7
    page.mouse.move(box["x"] + (col + 0.5) * box["width"] / 16, box["y"] + (row + 0.5) * box["height"] / 40)
    text = page.locator(".pee-sp-readout").inner_text()
    value = sinusoidal.sinusoidal_encoding(40, 16, 100.0)[row, col]
    assert text == f"position {row}, dimension {col} (cos of pair 2): {value:.6f}"
    page.close()


def test_a_large_encoding_gets_a_screen_pixel_per_cell_and_scrolls(context, app_url):
    # shrunk to fit its box, 2,048 rows would show one in five and moiré that is not in the encoding
    page, _ = opened(context, app_url, "d_model=512&max_len=2048")
    size = page.evaluate("() => { const c = document.querySelector('.pee-sp-canvas'); return [c.clientWidth, c.clientHeight]; }")
    assert size[0] >= 512 and size[1] >= 2048, size
    assert "scroll the picture to see all 2,048 rows" in page.locator(".pee-sp-note").inner_text()
    page, _ = opened(context, app_url, "d_model=16&max_len=40&base=100")
    assert page.locator(".pee-sp-note").inner_text() == ""  # small enough to fit: no note
    page.close()


RULERS = """() => {
    const c = document.querySelector('.pee-sp-canvas').getBoundingClientRect();
    const read = (cls) => [...document.querySelectorAll(cls + ' > span')].map((s) => {
        const r = s.getBoundingClientRect();
        return { text: s.textContent, cx: (r.left + r.right) / 2, cy: (r.top + r.bottom) / 2, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    });
    return { canvas: { left: c.left, top: c.top, width: c.width, height: c.height }, x: read('.pee-sp-xticks'), y: read('.pee-sp-yticks') };
}"""


def check_ruler(labels: list[dict], cells: int, start: float, length: float, centre: str, low: str, high: str, *, skip_first: bool = False) -> list[int]:
    """The numbers along one side: 0, step, 2·step, ... below `cells`, each at the middle of its
    row or column on the canvas (within 2 px; the canvas's 1-px border included), none touching
    the next; returns the numbers."""
    values = [int(label["text"].replace(",", "")) for label in labels]
    assert values[0] == 0 and len(values) >= 3, values
    step = values[1]
    assert step in {f * 10**k for k in range(5) for f in (1, 2, 5)} and values == list(range(0, cells, step)), values
    for value, label in list(zip(values, labels))[1 if skip_first else 0 :]:
        assert abs(label[centre] - (start + 1 + (value + 0.5) * (length - 2) / cells)) <= 2, (value, label, start, length)
    assert all(a[high] < b[low] for a, b in zip(labels, labels[1:])), labels
    return values


def test_the_rulers_number_the_rows_and_columns_they_stand_at(context, app_url):
    page, _ = opened(context, app_url, "d_model=16&max_len=40&base=100")
    got = page.evaluate(RULERS)
    c = got["canvas"]
    assert check_ruler(got["x"], 16, c["left"], c["width"], "cx", "left", "right")[-1] <= 15
    assert check_ruler(got["y"], 40, c["top"], c["height"], "cy", "top", "bottom")[-1] <= 39
    move(page, ".pee-sp-d", 64)  # the preview's own slider: the numbers follow in the browser
    move(page, ".pee-sp-L", 300)
    got = page.evaluate(RULERS)
    c = got["canvas"]
    assert check_ruler(got["x"], 64, c["left"], c["width"], "cx", "left", "right")[-1] > 15
    assert check_ruler(got["y"], 300, c["top"], c["height"], "cy", "top", "bottom")[-1] > 39
    page.close()


def test_the_rulers_of_a_scrolled_picture_stay_in_view_and_on_their_cells(context, app_url):
    page, _ = opened(context, app_url, "d_model=1024&max_len=2048")
    got = page.evaluate(RULERS)
    c = got["canvas"]
    assert c["width"] == 1026 and c["height"] == 2050  # one pixel per cell (and the border)
    check_ruler(got["x"], 1024, c["left"], c["width"], "cx", "left", "right", skip_first=True)  # 0 starts at its column
    check_ruler(got["y"], 2048, c["top"], c["height"], "cy", "top", "bottom")
    page.evaluate("document.querySelector('.pee-sp-scroll').scrollTo(300, 500)")
    page.wait_for_timeout(200)
    box = page.locator(".pee-sp-scroll").bounding_box()
    x, y = page.locator(".pee-sp-xticks").bounding_box(), page.locator(".pee-sp-yticks").bounding_box()
    # sticky: the column numbers stay at the bottom of the box scrolled down, the row numbers at its left scrolled right
    assert box["y"] + box["height"] - 30 <= x["y"] and x["y"] + x["height"] <= box["y"] + box["height"] + 1, (x, box)
    assert box["x"] - 1 <= y["x"] <= box["x"] + 1, (y, box)
    got = page.evaluate(RULERS)
    c = got["canvas"]  # moved by the scroll: the numbers moved with their cells
    check_ruler(got["x"], 1024, c["left"], c["width"], "cx", "left", "right", skip_first=True)
    check_ruler(got["y"], 2048, c["top"], c["height"], "cy", "top", "bottom")
    page.close()


def test_its_button_hands_its_settings_to_the_sidebar(context, app_url):
    page, _ = opened(context, app_url, "d_model=16&max_len=40&base=100")
    move(page, ".pee-sp-d", 48)
    move(page, ".pee-sp-L", 77)
    move(page, ".pee-sp-base", 3.3)  # log10: base 1,995.26
    page.locator(".pee-sp-apply").click()
    page.wait_for_function("() => location.search.includes('d_model=48')", timeout=30_000)
    wait_ready(page)
    params = page.evaluate("Object.fromEntries(new URLSearchParams(location.search))")
    assert (params["d_model"], params["max_len"], params["base"]) == ("48", "77", "1995.26")
    boxes = [page.locator(f".st-key-{name} input").first.input_value() for name in ("d_model", "max_len", "base")]
    assert boxes == ["48", "77", "1995.26"]  # the sidebar's exact-value boxes
    page.wait_for_function("() => document.querySelector('.pee-sp').dataset.drawn === '48,77,1995.26'", timeout=30_000)
    assert agree(canvas(page), expected_rgb(48, 77, 1995.26, "interleaved")) > 0.999  # the preview starts over there, the same picture
    assert page.locator("[data-testid='stException']").count() == 0
    page.close()


def test_the_rulers_follow_a_narrower_window_and_the_box_does_not_scroll_when_the_picture_fits(context, app_url):
    page, _ = opened(context, app_url, "d_model=128&max_len=256")
    fits = "() => { const s = document.querySelector('.pee-sp-scroll'); return [s.scrollHeight - s.clientHeight, s.scrollWidth - s.clientWidth]; }"
    assert page.evaluate(fits) == [0, 0]  # the picture and its rulers fit: no scroll bar, nothing under the column numbers
    before = int(page.locator(".pee-sp-xticks").get_attribute("data-step"))
    page.set_viewport_size({"width": 900, "height": 900})
    page.wait_for_function("(b) => Number(document.querySelector('.pee-sp-xticks').dataset.step) > b", arg=before, timeout=10_000)
    got = page.evaluate(RULERS)
    c = got["canvas"]
    check_ruler(got["x"], 128, c["left"], c["width"], "cx", "left", "right")  # wider steps, still apart and on their columns
    page.close()
