"""core.viz.charts.small_multiples: one panel per array, each on the diverging scale centred on
zero with its own range ±max|z|, NaN cells blank, every panel inside the figure, and numbers
sent as numbers below HEATMAP_CELLS cells per figure, as an image above."""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pytest
from PIL import Image

from core.viz import charts
from core.viz.grid import Sample, strided
from tests.app.conftest import decode


def panels(n: int, size: int = 10, seed: int = 0) -> list[tuple[str, np.ndarray, Sample, Sample]]:
    rng = np.random.default_rng(seed)
    grid = strided(size, size)
    return [(f"panel {k}", rng.standard_normal((size, size)) * 10.0**k, grid, grid) for k in range(n)]


def build(items, **kw):
    return charts.small_multiples(items, title="the title", x_title="key", y_title="query", **kw)


def heatmaps(fig) -> list:
    return [t for t in fig.data if t.type == "heatmap"]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 12])
def test_one_numeric_panel_per_array_with_its_own_axes(n):
    fig = build(panels(n))
    traces = heatmaps(fig)
    assert len(traces) == n and len(fig.data) == n
    assert [t.xaxis for t in traces] == ["x"] + [f"x{k}" for k in range(2, n + 1)]
    assert [t.yaxis for t in traces] == ["y"] + [f"y{k}" for k in range(2, n + 1)]
    titles = [a.text for a in fig.layout.annotations if a.text and "panel" in a.text]
    assert len(titles) == n and all(f"panel {k}" in titles[k] for k in range(n))


@pytest.mark.parametrize("n", [1, 4, 5, 12])
def test_each_panel_ranges_over_plus_minus_its_max_abs(n):
    items = panels(n)
    fig = build(items)
    for (_, z, _, _), trace in zip(items, heatmaps(fig)):
        bound = np.abs(z).max()
        assert trace.zmin == pytest.approx(-bound) and trace.zmax == pytest.approx(bound)
        assert trace.colorscale == fig.data[0].colorscale  # one diverging scale
        np.testing.assert_allclose(np.asarray(trace.z, dtype=np.float64), z, rtol=1e-6)  # sent as float32
    labels = [a.text for a in fig.layout.annotations if a.text and "colour range" in a.text]
    assert [float(re.search(r"±([0-9.e+-]+)", t).group(1)) for t in labels] == [float(f"{np.abs(z).max():.3g}") for _, z, _, _ in items]


def test_the_scale_is_diverging_and_centred_on_zero():
    fig = build(panels(2))
    scale = fig.data[0].colorscale
    assert [c for _, c in scale] == [c for _, c in fig.data[1].colorscale]
    assert scale[0][1] != scale[-1][1]  # two ends of different colour (blue, red)
    assert fig.data[0].zmin == -fig.data[0].zmax


def test_nan_cells_stay_nan_and_do_not_set_the_range():
    z = np.array([[np.nan, 1.0, -3.0], [2.0, np.nan, 0.5]])
    grid_x, grid_y = strided(3, 3), strided(2, 2)
    fig = build([("with holes", z, grid_x, grid_y)])
    trace = fig.data[0]
    assert (trace.zmin, trace.zmax) == (-3.0, 3.0)
    sent = np.asarray(trace.z, dtype=np.float64)
    assert np.isnan(sent[0, 0]) and np.isnan(sent[1, 1])
    assert np.array_equal(np.isnan(sent), np.isnan(z))
    # through plotly's JSON too: NaN cells arrive as NaN (blank in the browser)
    spec = fig.to_plotly_json()["data"][0]["z"]
    assert np.isnan(decode(spec)).sum() == 2


@pytest.mark.parametrize("z", [np.full((4, 4), np.nan), np.zeros((4, 4))])
def test_an_all_nan_or_all_zero_panel_gets_range_one(z):
    grid = strided(4, 4)
    fig = build([("empty", z, grid, grid), ("other", np.ones((4, 4)) * 7, grid, grid)])
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-1.0, 1.0)
    assert (fig.data[1].zmin, fig.data[1].zmax) == (-7.0, 7.0)


@pytest.mark.parametrize(("n", "columns"), [(1, 3), (2, 3), (5, 3), (12, 3), (16, 4), (7, 2), (3, 1), (6, 10)])
def test_every_domain_is_inside_the_figure_and_panels_do_not_overlap(n, columns):
    fig = build(panels(n, size=4), columns=columns)
    layout = fig.layout
    boxes = []
    for k in range(n):
        suffix = "" if k == 0 else str(k + 1)
        xd, yd = layout[f"xaxis{suffix}"].domain, layout[f"yaxis{suffix}"].domain
        assert 0.0 <= xd[0] < xd[1] <= 1.0 and 0.0 <= yd[0] < yd[1] <= 1.0, (k, xd, yd)
        assert layout[f"xaxis{suffix}"].anchor == f"y{suffix}" and layout[f"yaxis{suffix}"].anchor == f"x{suffix}"
        boxes.append((xd, yd))
    for (ax, ay), (bx, by) in [(boxes[i], boxes[j]) for i in range(n) for j in range(i + 1, n)]:
        overlap_x = min(ax[1], bx[1]) - max(ax[0], bx[0])
        overlap_y = min(ay[1], by[1]) - max(ay[0], by[0])
        assert overlap_x <= 1e-12 or overlap_y <= 1e-12
    cols = min(columns, n)
    rows = -(-n // cols)
    assert len({round(x[0], 9) for x, _ in boxes}) == cols
    assert len({round(y[0], 9) for _, y in boxes}) == rows


def test_axis_titles_on_the_outer_panels_only():
    fig = build(panels(5, size=4), columns=3)  # rows: 0 1 2 / 3 4
    x_titles = [fig.layout[f"xaxis{'' if k == 0 else k + 1}"].title.text for k in range(5)]
    y_titles = [fig.layout[f"yaxis{'' if k == 0 else k + 1}"].title.text for k in range(5)]
    assert x_titles == [None, None, "key", "key", "key"]  # panel 2 has nothing below it
    assert y_titles == ["query", None, None, "query", None]
    assert all(a.autorange == "reversed" for a in (fig.layout[f"yaxis{'' if k == 0 else k + 1}"] for k in range(5)))


def test_panels_carry_their_sample_indices():
    xs, ys = Sample(0, 100, 10), Sample(5, 35, 3)
    z = np.arange(ys.count * xs.count, dtype=float).reshape(ys.count, xs.count)
    trace = build([("sampled", z, xs, ys)]).data[0]
    assert np.array_equal(np.asarray(trace.x), xs.indices) and np.array_equal(np.asarray(trace.y), ys.indices)


def test_numbers_up_to_heatmap_cells_per_figure_and_an_image_beyond():
    rows = 50
    cols = charts.HEATMAP_CELLS // 4 // rows  # four panels of rows x cols fill the budget exactly
    xs, ys = strided(cols, cols), strided(rows, rows)
    rng = np.random.default_rng(1)
    at_budget = [(f"p{k}", rng.standard_normal((rows, cols)), xs, ys) for k in range(4)]
    assert sum(z.size for _, z, _, _ in at_budget) == charts.HEATMAP_CELLS
    fig = build(at_budget)
    assert [t.type for t in fig.data] == ["heatmap"] * 4
    over = at_budget + [("p4", rng.standard_normal((2, 2)), strided(2, 2), strided(2, 2))]  # 4 more cells
    fig = build(over)
    assert [t.type for t in fig.data] == ["image", "scatter", "heatmap"] * 5  # image + invisible colour-bar trace + hover probe per panel
    for (_, z, _, _), bar in zip(over, fig.data[1::3]):
        bound = np.abs(z).max()
        assert bar.marker.cmin == pytest.approx(-bound) and bar.marker.cmax == pytest.approx(bound)
        assert bar.marker.showscale is False


def _image_pixels(trace) -> np.ndarray:
    raw = base64.b64decode(trace.source.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(raw)).convert("RGBA"))


def test_image_panels_colour_each_panel_on_its_own_range():
    grid = strided(200, 200)
    big = np.linspace(-1000, 1000, 200 * 200).reshape(200, 200)
    small = big / 1000
    fig = build([("big", big, grid, grid), ("small", small, grid, grid)])
    assert [t.type for t in fig.data] == ["image", "scatter", "heatmap", "image", "scatter", "heatmap"]
    a, b = _image_pixels(fig.data[0]), _image_pixels(fig.data[3])
    assert a.shape == (200, 200, 4)
    assert np.array_equal(a, b)  # same picture: each is coloured against its own ±max|z|
    assert fig.data[0].x0 == 0 and fig.data[0].dx == 1


def test_nan_cells_of_an_image_panel_are_blank():
    grid = strided(300, 300)
    z = np.random.default_rng(2).standard_normal((300, 300))
    z[:10, :10] = np.nan
    fig = build([("holes", z, grid, grid)])
    assert fig.data[0].type == "image"
    pixels = _image_pixels(fig.data[0])
    assert np.all(pixels[:10, :10, 3] == 0)  # transparent, as plotly leaves NaN heatmap cells


def test_shared_axes_label_only_the_outer_panels_and_draw_no_grid():
    fig = build(panels(5, size=4), columns=3)  # every panel on the same grid
    x_labels = [fig.layout[f"xaxis{'' if k == 0 else k + 1}"].showticklabels for k in range(5)]
    y_labels = [fig.layout[f"yaxis{'' if k == 0 else k + 1}"].showticklabels for k in range(5)]
    assert x_labels == [False, False, True, True, True] and y_labels == [True, False, False, True, False]
    assert all(fig.layout[f"xaxis{'' if k == 0 else k + 1}"].showgrid is False for k in range(5))
    mixed = build([("a", np.ones((4, 4)), strided(4, 4), strided(4, 4)), ("b", np.ones((4, 8)), strided(8, 8), strided(4, 4))], columns=2)
    assert mixed.layout.xaxis.showticklabels and mixed.layout.xaxis2.showticklabels  # different x in each panel: both labelled
    assert mixed.layout.yaxis2.showticklabels is False
