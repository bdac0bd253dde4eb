"""core.charts: small heatmaps keep exact values, big ones become images under 1 MB,
signed data use the one diverging scale centred on zero, and every figure is labelled."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from core import charts
from core.grid import strided
from core.sinusoidal import sinusoidal_encoding


def test_small_heatmap_sends_exact_values_with_diverging_scale():
    z = sinusoidal_encoding(64, 32)
    fig = charts.heatmap(z, strided(32, 500), strided(64, 500), title="t", x_title="dimension j", y_title="position p")
    trace = fig.data[0]
    assert isinstance(trace, go.Heatmap)
    assert np.allclose(np.asarray(trace.z), z, atol=1e-7)  # float32 on the wire
    assert trace.zmin == -trace.zmax  # centred on zero
    assert fig.layout.xaxis.title.text == "dimension j" and fig.layout.yaxis.title.text == "position p"
    assert trace.colorscale == go.Heatmap(colorscale=charts.DIVERGING).colorscale


def test_big_heatmap_becomes_image_under_one_megabyte_and_keeps_colour_bar():
    rows, cols = strided(131072, 500), strided(8192, 500)
    z = sinusoidal_encoding(0, 8192, 1e8, positions=rows.indices, dims=cols.indices)
    fig = charts.heatmap(z, cols, rows, title="t", x_title="x", y_title="y", note=rows.note("position"))
    assert isinstance(fig.data[0], go.Image)
    assert fig.data[0].source.startswith("data:image/png;base64,")
    assert fig.data[0].dx == cols.step and fig.data[0].dy == rows.step
    assert fig.data[1].marker.showscale and fig.data[1].marker.cmin == -fig.data[1].marker.cmax
    assert len(pio.to_json(fig)) < 1_000_000
    assert "every 263rd position" in fig.layout.title.text


def test_image_colours_follow_the_scale():
    lut = charts._colour_lut(charts.DIVERGING)
    assert lut.shape == (256, 3)
    # RdBu reversed: low values blue, high values red, the middle nearly white
    assert lut[0, 2] > lut[0, 0] and lut[-1, 0] > lut[-1, 2] and lut[128].min() > 200


def test_lines_labels_and_legend():
    fig = charts.lines([("a", [0, 1], [1, 2]), ("b", [0, 1], [2, 3])], title="T", x_title="position p", y_title="v", note="every 2nd position")
    spec = json.loads(pio.to_json(fig))
    assert spec["layout"]["showlegend"] is True
    assert "every 2nd position" in spec["layout"]["title"]["text"]
    single = charts.lines([("a", [0, 1], [1, 2])], title="T", x_title="x", y_title="y")
    assert single.layout.showlegend is False


def test_log_axis_marker_is_placed_by_exponent():
    fig = charts.spectrum(np.array([6.28, 62.8, 628.0]), 100, title="s")
    # plotly.js puts a shape on a log axis at the data value and its label at the exponent
    assert fig.layout.shapes[0].y0 == 100 and fig.layout.annotations[0].y == 2.0
    assert [t.name for t in fig.data] == ["completes a cycle within max_len", "wavelength > max_len"]


def test_side_by_side_panels_share_one_scale():
    a, b = np.full((3, 3), 0.5), np.full((3, 3), -2.0)
    ax = strided(3, 3)
    fig = charts.side_by_side_heatmaps([("a", a, ax, ax), ("b", b, ax, ax)], title="t", x_title="x", y_title="y")
    assert {(t.zmin, t.zmax) for t in fig.data} == {(-2.0, 2.0)}
    assert [t.showscale for t in fig.data] == [False, True]


def test_side_by_side_cell_budget_is_per_figure():
    small, big = strided(100, 100), strided(250, 250)
    z_small, z_big = np.zeros((100, 100)), np.ones((250, 250))
    fig = charts.side_by_side_heatmaps([("a", z_small, small, small), ("b", z_small, small, small)], title="t", x_title="x", y_title="y")
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    fig = charts.side_by_side_heatmaps([("a", z_big, big, big), ("b", z_big, big, big)], title="t", x_title="x", y_title="y")
    assert [t.type for t in fig.data] == ["image", "scatter", "image", "scatter"]
    assert fig.data[2].xaxis == "x2" and fig.layout.xaxis2.domain[0] > fig.layout.xaxis.domain[1]
