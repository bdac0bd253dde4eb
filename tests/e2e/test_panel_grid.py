"""/compare's panel grids in Chromium: every canvas holds the panel the page
sent, cell by cell, on the app's diverging scale (blank where there is no value); the numbers
along a panel's sides stand at the centres of the cells they name; hover reads a cell's panel,
true row and column and exact value; a slider step paints the same grid again in place."""

from __future__ import annotations

import numpy as np
import pytest

from tests.app.conftest import decode, grid, grids, open_page, panel_levels
from harness.browser import wait_ready

PIXELS = """() => [...document.querySelectorAll('.pee-hm canvas')].map((c) => ({
    width: c.width, height: c.height, rgba: Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data),
}))"""

TICKS = """() => [...document.querySelectorAll('.pee-hm-panel')].map((panel) => {
    const c = panel.querySelector('canvas').getBoundingClientRect();
    const read = (cls, centre) => [...panel.querySelectorAll(cls + ' > span')].map((s) => {
        const r = s.getBoundingClientRect();
        return [s.textContent, centre === 'x' ? ((r.left + r.right) / 2 - c.left) / c.width : ((r.top + r.bottom) / 2 - c.top) / c.height];
    });
    return { x: read('.pee-hm-xt', 'x'), y: read('.pee-hm-yt', 'y') };
})"""


# /compare draws codes and biases in grids of their own: the tests of one grid pick the schemes that write codes
CODES = "none,integer,fraction,binary,onehot,sinusoidal,t2t,learned,rope"


def spec_of(page: str = "compare", **params: str) -> dict:
    """What the page sends at these settings (its first tab's one grid), read through AppTest."""
    (spec,) = grids(open_page(page, **params))
    return spec


def expected_rgba(spec: dict) -> list[np.ndarray]:
    """Per panel, what its canvas must hold: the float32 values sent at their colour level (or the
    levels of its PNG) on its own scale's colours, opaque; NaN cells see-through."""
    out = []
    for panel in spec["panels"]:
        colours = np.asarray(spec["scales"][panel["scale"]]["colours"], dtype=np.uint8)
        level = panel_levels(panel)
        rgba = np.zeros(level.shape + (4,), dtype=np.uint8)
        rgba[level >= 0, :3] = colours[level[level >= 0]]
        rgba[level >= 0, 3] = 255
        out.append(rgba)
    return out


def painted(page) -> list[np.ndarray]:
    return [np.asarray(c["rgba"], dtype=np.uint8).reshape(c["height"], c["width"], 4) for c in page.evaluate(PIXELS)]


def check_canvases(page, spec: dict, first: int = 0) -> None:
    """The canvases from the `first`-th on (a page may draw other grids before and after) hold the spec's panels."""
    want = expected_rgba(spec)
    got = painted(page)[first : first + len(want)]
    assert len(got) == len(want) == len(spec["panels"])
    for panel, g, w in zip(spec["panels"], got, want):
        assert g.shape == w.shape, (panel["title"], g.shape, w.shape)
        assert np.array_equal(g[..., 3], w[..., 3]), f"{panel['title']}: blank cells differ"
        # JavaScript rounds a level's halves up, NumPy to even: a cell exactly between two levels may differ by one
        share = np.mean(np.all(np.abs(g[..., :3].astype(int) - w[..., :3]) <= 3, axis=-1))
        assert share > 0.995, f"{panel['title']}: {share:.3f} of the cells in their colour"


def opened(context, app_url: str, query: str, path: str = "compare"):
    page = context.new_page()
    page.goto(f"{app_url}/{path}?{query}")
    wait_ready(page, timeout=120_000)
    page.wait_for_selector(".pee-hm[data-draws]", timeout=30_000)
    return page


@pytest.mark.parametrize("query", ["d_model=16&max_len=40&base=100&schemes=" + CODES, "d_model=7&max_len=300&base=500&compare_view=Scores"])
def test_every_canvas_is_its_panel_at_the_page_settings(context, app_url, query):
    params = dict(part.split("=") for part in query.split("&"))
    spec = spec_of(**params)
    page = opened(context, app_url, query)
    assert page.locator(".pee-hm-title").inner_text() == spec["title"]
    assert page.locator(".pee-hm-note").inner_text() == spec["note"]
    assert page.locator(".pee-hm-xlabel").inner_text() == spec["x_title"] and page.locator(".pee-hm-ylabel").inner_text() == spec["y_title"]
    titles = page.locator(".pee-hm-ptitle").all_inner_texts()
    assert titles == [p["title"] + (f"\n{p['range']}" if p["range"] else "") for p in spec["panels"]]  # one shared range: no range per panel
    check_canvases(page, spec)
    assert page.locator("[data-testid='stPlotlyChart']").count() == 0 and page.locator("[data-testid='stException']").count() == 0
    page.close()


def test_the_numbers_stand_at_the_cells_they_name(context, app_url):
    spec = spec_of(d_model="128", max_len="256", schemes=CODES)
    page = opened(context, app_url, "d_model=128&max_len=256&schemes=" + CODES)
    for panel, shown in zip(spec["panels"], page.evaluate(TICKS)):
        for axis, name in ((panel["x"], "x"), (panel["y"], "y")):
            assert [text for text, _ in shown[name]] == [label for _, label in axis["ticks"]]
            for (text, at), (share, _) in zip(shown[name], axis["ticks"]):
                assert abs(at - share) < 0.02, f"{panel['title']}: {text} at {at:.3f} of the {name} axis, its cell at {share:.3f}"
    page.close()


def hover_cell(page, k: int, row: int, col: int, rows: int, cols: int) -> str:
    canvas = page.locator(".pee-hm canvas").nth(k)
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + 1 + (col + 0.5) * (box["width"] - 2) / cols, box["y"] + 1 + (row + 0.5) * (box["height"] - 2) / rows)
    page.wait_for_selector(".pee-hm-tip:not([hidden])", timeout=5_000)
    return page.locator(".pee-hm-tip:not([hidden])").inner_text()  # a page of several grids has a tip each


def test_hover_reads_the_panel_the_true_indices_and_the_value(context, app_url):
    spec = spec_of(d_model="16", max_len="40", base="100", schemes=CODES)
    page = opened(context, app_url, "d_model=16&max_len=40&base=100&schemes=" + CODES)
    by_title = {p["title"]: k for k, p in enumerate(spec["panels"])}
    for title, row, col in (("sinusoidal (paper)", 7, 5), ("integer p", 30, 2), ("one-hot", 3, 3), ("one-hot", 25, 4)):
        k = by_title[title]
        panel = spec["panels"][k]
        z = decode(panel["z"])
        rows, cols = len(panel["y"]["indices"]), len(panel["x"]["indices"])
        text = hover_cell(page, k, row, col, rows, cols).splitlines()
        assert text[0] == title
        assert text[1] == f"{spec['y_title']}: {panel['y']['indices'][row]:,}" and text[2] == f"{spec['x_title']}: {panel['x']['indices'][col]:,}"
        if np.isnan(z[row, col]):
            assert text[3] == "no value here"
        else:
            assert float(text[3].removeprefix("value ")) == pytest.approx(float(z[row, col]), rel=1e-5, abs=1e-7)
    page.mouse.move(5, 5)
    assert page.locator(".pee-hm-tip").is_hidden()
    page.close()


def test_a_step_paints_the_same_grid_again(context, app_url):
    page = opened(context, app_url, "d_model=16&max_len=40&base=100&schemes=" + CODES)
    page.evaluate("() => { window.__grid = document.querySelector('.pee-hm'); }")
    draws = int(page.locator(".pee-hm").get_attribute("data-draws"))
    before = page.evaluate("location.search")
    page.locator(".st-key-d_model_slider input[type='range']").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(before) => location.search !== before", arg=before, timeout=30_000)
    wait_ready(page)
    d = page.locator(".st-key-d_model input").first.input_value()
    page.wait_for_function("(d) => document.querySelector('.pee-hm').dataset.title.includes('d_model = ' + d)", arg=d, timeout=30_000)
    assert page.evaluate("() => window.__grid === document.querySelector('.pee-hm')")  # the same element, painted again
    assert int(page.locator(".pee-hm").get_attribute("data-draws")) == draws + 1
    check_canvases(page, spec_of(d_model=d, max_len="40", base="100", schemes=CODES))
    page.close()


def test_the_grid_downloads_as_a_png_of_its_panels(context, app_url, tmp_path):
    from PIL import Image

    # each panel on its own range, so one-hot's 1 is the red end of its scale
    spec = spec_of(d_model="16", max_len="40", base="100", schemes=CODES, compare_shared="false")
    page = opened(context, app_url, "d_model=16&max_len=40&base=100&compare_shared=false&schemes=" + CODES)
    with page.expect_download() as download:
        page.locator(".pee-hm-save").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "compare_codes.png"
    image = Image.open(saved).convert("RGB")
    # three panels a row at 220 + 56 pixels, twice the scale: 3 rows of the 9 code panels, under the title, the note, the axes and one colour key
    top = 112 + 16
    assert image.size == (2 * (56 + 3 * 276), 2 * (top + 3 * 284 + 24))
    pixels = np.asarray(image)
    onehot = next(k for k, p in enumerate(spec["panels"]) if p["title"] == "one-hot")
    x, y = 56 + (onehot % 3) * 276, top + (onehot // 3) * 284 + 30  # the panel's top left corner
    cell = 220 / 40
    colours = np.asarray(spec["scales"][0]["colours"])
    # its first row: a 1 at column 0 (the red end), 0 at column 5 (the middle of the scale)
    for col, level in ((0, 254), (5, 127)):
        got = pixels[int(2 * (y + cell / 2)), int(2 * (x + (col + 0.5) * 220 / 16))]
        assert np.all(np.abs(got.astype(int) - colours[level]) <= 3), (col, got, colours[level])
    page.close()


def test_similaritys_large_panels_are_their_pictures_and_hover_reads_every_kth_cell(context, app_url):
    # two panels of 250 x 250 positions: each goes as a PNG of its levels, with every 4th row and column's values for the hover
    spec = spec_of("similarity", d_model="64", max_len="1000", base="500")
    assert [p["probe"] for p in spec["panels"]] == [4, 4] and all("image" in p for p in spec["panels"])
    page = opened(context, app_url, "d_model=64&max_len=1000&base=500", path="similarity")
    check_canvases(page, spec)
    panel = spec["panels"][1]
    text = hover_cell(page, 1, 9, 14, 250, 250).splitlines()  # reads the cell of row 8, column 12
    z = decode(panel["z"])
    assert text[:3] == ["sines only, the same frequencies", f"position p: {panel['y']['indices'][8]:,}", f"position q: {panel['x']['indices'][12]:,}"]
    assert float(text[3].removeprefix("cosine ")) == pytest.approx(float(z[2, 3]), rel=1e-5, abs=1e-7)
    assert text[4] == "(hover reads every 4th row and column)"
    page.close()


def test_a_one_panel_grid_hover_has_no_empty_title_line(context, app_url):
    # /sinusoidal's picture: one panel, named by the grid's title; 16 x 40 cells, every value sent
    spec = spec_of("sinusoidal", d_model="16", max_len="40", base="100", sin_view="Picture")
    page = opened(context, app_url, "d_model=16&max_len=40&base=100&sin_view=Picture", path="sinusoidal")
    check_canvases(page, spec)
    (panel,) = spec["panels"]
    text = hover_cell(page, 0, 7, 5, 40, 16).splitlines()
    assert text[:2] == ["position p: 7", "dimension j: 5"]
    assert float(text[2].removeprefix("value ")) == pytest.approx(float(decode(panel["z"])[7, 5]), rel=1e-5)
    page.close()


def test_attentions_grid_shows_words_two_scales_and_reads_words_on_hover(context, app_url):
    # /attention: first the two word orders without and with positions on one sequential range, each panel named by its own
    # order's words; then the weights without and with positions on one sequential range from 0 and their difference on the
    # diverging scale; rows and columns named by the sentence's words, each at its cell
    at = open_page("attention", sentence="the cat sat on the mat", lined_up="false")  # each order in its own, as the ticks below read
    orders, spec = grid(at, "att_orders"), grid(at, "att_side_by_side")
    page = opened(context, app_url, "sentence=the+cat+sat+on+the+mat&lined_up=false", path="attention")
    check_canvases(page, orders)
    check_canvases(page, spec, first=len(orders["panels"]))
    keys = [" ".join(text.split()) for text in page.locator(".pee-hm-keys > span").all_inner_texts()][-2:]
    weights, difference = (spec["scales"][k] for k in (0, 1))
    assert keys == [
        f"0 {weights['hi']} (weight: without positions, with sinusoidal (paper))",
        f"{difference['lo']} {difference['hi']} (with positions − without; white: 0)",
    ]
    assert difference["lo"] == "−" + difference["hi"][1:] and float(weights["hi"]) > 0
    names = ["0:the", "1:cat", "2:sat", "3:on", "4:the", "5:mat"]
    perm = [int(k) for k in at.query_params["att_order"].split(",")]
    reordered = [f"{i}:{names[k].split(':')[1]}" for i, k in enumerate(perm)]
    shown = page.evaluate(TICKS)
    for panel, ticks in zip(orders["panels"], shown):  # the original order on the left, yours on the right; the change row word by word
        expected = reordered if panel["title"].startswith("your order,") else names
        assert [text for text, _ in ticks["y"]] == expected, panel["title"]
    for panel, ticks in zip(spec["panels"], shown[len(orders["panels"]):]):
        for name in ("x", "y"):
            assert [text for text, _ in ticks[name]] == names
        for text, at_ in ticks["y"]:  # a row's word stands at the middle of its row
            assert abs(at_ - (names.index(text) + 0.5) / 6) < 0.02, (text, at_)
        for text, at_ in ticks["x"]:  # a column's word is turned and ends at its column: its box lies left of the centre
            assert at_ < (names.index(text) + 0.5) / 6 + 0.02, (text, at_)
    for k, value in ((0, "weight"), (2, "with − without")):
        panel = spec["panels"][k]
        text = hover_cell(page, len(orders["panels"]) + k, 4, 1, 6, 6).splitlines()
        assert text[:3] == [panel["title"], "query word: 4:the", "key word: 1:cat"]
        assert float(text[3].removeprefix(value + " ")) == pytest.approx(float(decode(panel["z"])[4, 1]), rel=1e-5, abs=1e-7)
    page.close()


def test_the_keyboard_reads_one_cell_at_a_time_and_says_it_aloud(context, app_url):
    spec = spec_of(d_model="16", max_len="40", base="100", schemes=CODES)
    page = opened(context, app_url, "d_model=16&max_len=40&base=100&schemes=" + CODES)
    canvas = page.locator(".pee-hm canvas").first
    panel = spec["panels"][0]
    label = canvas.get_attribute("aria-label")
    rows, cols = len(panel["y"]["indices"]), len(panel["x"]["indices"])
    assert canvas.get_attribute("role") == "img" and canvas.get_attribute("tabindex") == "0"
    assert f"{rows:,} rows" in label and f"{cols:,} columns" in label and panel["title"] in label  # what is drawn, and its size
    canvas.focus()
    live = page.locator(".pee-hm-live")
    assert live.get_attribute("aria-live") == "polite"
    for key in ("ArrowDown", "ArrowDown", "ArrowRight"):
        page.keyboard.press(key)
    page.wait_for_function("() => document.querySelector('.pee-hm').dataset.cursor === '0,2,1'", timeout=5_000)
    z = decode(panel["z"])
    said = live.inner_text().split("; ")
    assert said[:3] == [panel["title"], f"{spec['y_title']}: {panel['y']['indices'][2]:,}", f"{spec['x_title']}: {panel['x']['indices'][1]:,}"]
    assert float(said[3].removeprefix("value ")) == pytest.approx(float(z[2, 1]), rel=1e-5, abs=1e-7)
    assert page.locator(".pee-hm-cursor").is_visible()
    page.keyboard.press("Tab")  # the arrows do not trap focus: Tab goes on to the next panel, with a cursor of its own
    page.wait_for_function("() => document.querySelector('.pee-hm').dataset.cursor === '1,0,0'", timeout=5_000)
    assert live.inner_text().startswith(spec["panels"][1]["title"] + "; ")
    page.close()


def drag(page, canvas, rows: int, cols: int, start: tuple[int, int], end: tuple[int, int]) -> None:
    """Press on cell `start` (row, column) of a canvas of rows x cols cells, move to `end`, release."""
    box = canvas.bounding_box()

    def at(cell):
        return box["x"] + 1 + (cell[1] + 0.5) * (box["width"] - 2) / cols, box["y"] + 1 + (cell[0] + 0.5) * (box["height"] - 2) / rows

    page.mouse.move(*at(start))
    page.mouse.down()
    page.mouse.move(*at(end), steps=5)
    page.mouse.up()


def test_a_box_over_the_picture_sets_the_window_in_the_url_and_a_double_click_gives_back_the_whole_range(context, app_url):
    page = opened(context, app_url, "d_model=16&max_len=40&base=100&sin_view=Picture", path="sinusoidal")
    canvas = page.locator(".pee-hm canvas").first
    canvas.scroll_into_view_if_needed()
    drag(page, canvas, 40, 16, (10, 2), (19, 12))  # rows 10 to 19: every position is drawn at max_len 40
    page.wait_for_function("() => new URLSearchParams(location.search).getAll('sin_window').join(',') === '10,19'", timeout=30_000)
    wait_ready(page)
    page.wait_for_function("() => document.querySelector('.pee-hm').dataset.title.includes('positions 10 to 19')", timeout=30_000)
    spec = spec_of("sinusoidal", d_model="16", max_len="40", base="100", sin_window=["10", "19"], sin_view="Picture")
    assert spec["panels"][0]["y"]["indices"] == list(range(10, 20))  # those rows, each drawn
    check_canvases(page, spec)
    canvas = page.locator(".pee-hm canvas").first
    canvas.dblclick()
    page.wait_for_function("() => !new URLSearchParams(location.search).has('sin_window')", timeout=30_000)
    wait_ready(page)
    page.wait_for_function("() => document.querySelector('.pee-hm').dataset.title.includes('positions 0 to 39')", timeout=30_000)
    page.close()


def test_a_box_over_the_similarity_matrix_zooms_both_axes_to_its_positions(context, app_url):
    page = opened(context, app_url, "d_model=16&max_len=40&base=100", path="similarity")
    canvas = page.locator(".pee-hm canvas").first
    canvas.scroll_into_view_if_needed()
    drag(page, canvas, 40, 40, (5, 20), (12, 30))  # rows 5..12 and columns 20..30: one window spanning both, 5..30
    page.wait_for_function("() => new URLSearchParams(location.search).getAll('sim_window').join(',') === '5,30'", timeout=30_000)
    page.close()
