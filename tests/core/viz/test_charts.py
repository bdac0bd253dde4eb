"""core.viz.charts: small heatmaps keep exact values, big ones become images under 1 MB,
signed data use the one diverging scale centred on zero, and every figure is labelled."""

import json

import numpy as np
import pytest
import plotly.graph_objects as go
import plotly.io as pio

from core.viz import charts, wire
from core.viz.grid import ordinal, pairs, strided
from core.schemes.sinusoidal import sinusoidal_encoding


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
    lut = wire.colour_lut(charts.DIVERGING)
    assert lut.shape == (256, 3)
    # RdBu reversed: low values blue, high values red, the middle nearly white
    assert lut[0, 2] > lut[0, 0] and lut[-1, 0] > lut[-1, 2] and lut[128].min() > 200


def test_a_scales_colours_are_sampled_once_and_shared_read_only():
    from plotly.colors import get_colorscale, sample_colorscale

    wire.colour_lut.cache_clear()
    first = wire.colour_lut(charts.SEQUENTIAL, 255)
    again = wire.colour_lut(charts.SEQUENTIAL, 255)
    assert again is first and wire.colour_lut.cache_info().hits == 1  # the second call samples nothing
    direct = np.round(np.asarray(sample_colorscale(get_colorscale(charts.SEQUENTIAL), np.linspace(0, 1, 255), colortype="tuple")) * 255)
    assert np.array_equal(first, direct.astype(np.uint8))
    with pytest.raises(ValueError):
        first[0, 0] = 1  # shared by every caller, so nobody writes into it


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
    assert [t.type for t in fig.data] == ["image", "scatter", "heatmap", "image", "scatter", "heatmap"]  # each image with its hover probe
    assert fig.data[3].xaxis == fig.data[5].xaxis == "x2" and fig.layout.xaxis2.domain[0] > fig.layout.xaxis.domain[1]


def test_a_heatmap_row_gives_each_group_its_own_scale_and_a_bar_beside_its_last_panel():
    weights, diff = np.array([[0.2, 0.8], [0.5, 0.5]]), np.array([[-0.3, 0.1], [0.0, 0.05]])
    ax = strided(2, 2)
    fig = charts.heatmap_row(
        [
            charts.ScaleGroup([("w1", weights, ax, ax), ("w2", weights / 2, ax, ax)], signed=False, zmin=0.0, colorbar_title="weight", hover="weight"),
            charts.ScaleGroup([("d", diff, ax, ax)], colorbar_title="difference", hover="with − without"),
        ],
        title="t",
        x_title="x",
        y_title="y",
    )
    # the first group from 0 to its largest value (0.8), the second on ±max|d| (0.3) with the diverging scale
    assert [(t.zmin, t.zmax) for t in fig.data] == [(0.0, 0.8), (0.0, 0.8), (-0.3, 0.3)]
    assert [t.showscale for t in fig.data] == [False, True, True]
    scale = {name: go.Heatmap(colorscale=getattr(charts, name)).colorscale for name in ('SEQUENTIAL', 'DIVERGING')}
    assert [t.colorscale for t in fig.data] == [scale['SEQUENTIAL'], scale['SEQUENTIAL'], scale['DIVERGING']]
    assert "weight %{z" in fig.data[0].hovertemplate and "with − without %{z" in fig.data[2].hovertemplate
    domains = [fig.layout[f"xaxis{s}"].domain for s in ("", "2", "3")]
    widths = [b - a for a, b in domains]
    assert max(widths) - min(widths) < 1e-9  # equal panels
    assert domains[0][0] == 0.0 and abs(domains[2][1] - 1.0) < 1e-9
    bar = fig.data[1].colorbar  # between panel 2 and panel 3, clear of both
    assert domains[1][1] < bar.x and bar.xanchor == "left"
    assert abs(domains[2][0] - domains[1][1] - (charts.BAR_ROOM + domains[1][0] - domains[0][1])) < 1e-9  # its room plus the usual gap
    assert fig.data[2].colorbar.x is None  # the last bar stays at the right edge, in the margin kept for it
    assert fig.layout.margin.r >= 50 + 8 * len("difference")  # that margin is sized for the right edge's title


def test_a_heatmap_row_can_put_its_cells_at_their_words():
    ax = strided(4, 4)
    words = ["0:a", "1:b", "2:a", "3:c"]
    group = charts.ScaleGroup([("p", np.arange(16.0).reshape(4, 4), ax, ax)], signed=False, hover="weight")
    named = charts.heatmap_row([group], title="t", x_title="key", y_title="query", x_ticks=[words], y_ticks=[words], name_cells=True)
    trace = named.data[0]
    assert list(trace.x) == words and list(trace.y) == words
    assert trace.hovertemplate == "key %{x}<br>query %{y}<br>weight %{z:.6~g}<extra></extra>"
    assert named.layout.xaxis.type == named.layout.yaxis.type == "category"
    assert list(named.layout.xaxis.ticktext) == list(named.layout.xaxis.tickvals) == words  # every column
    assert list(named.layout.yaxis.ticktext) == words  # every row
    plain = charts.heatmap_row([group], title="t", x_title="key", y_title="query", x_ticks=[words], y_ticks=[words])
    assert list(plain.data[0].x) == [0, 1, 2, 3] and plain.layout.xaxis.type is None  # at their indices, labelled by words
    assert list(plain.layout.xaxis.tickvals) == [0, 1, 2, 3] and list(plain.layout.xaxis.ticktext) == words


def test_the_binary_analogy_names_each_column_by_its_bit_or_pair_on_hover():
    from core.schemes import sinusoidal
    from core.viz import sinusoid_figures

    fig = sinusoid_figures.binary_analogy(128, 256, 10_000.0)
    bits, sines = fig.data
    assert list(bits.x) == [f"bit {b}" for b in range(6)]  # positions 0..63: six bits
    pairs = [int(label.split("<br>")[0].split()[1]) for label in sines.x]
    wl = sinusoidal.wavelengths(128, 10_000.0)
    assert [f"pair {i}<br>λ {wl[i]:.3g}" for i in pairs] == list(sines.x) and pairs == sorted(set(pairs))
    assert all(t.hovertemplate.startswith("bit / pair (fast to slow) %{x}<br>position p %{y}<br>") for t in fig.data)
    assert fig.layout.xaxis.type == fig.layout.xaxis2.type == "category" and fig.layout.yaxis.type is None  # positions stay numbers
    assert list(bits.y) == list(range(64))


def test_each_bit_is_matched_to_the_pair_whose_wavelength_is_nearest_its_period():
    from core.viz import sinusoid_figures

    # d = 128, base 10^4: pair k has wavelength 2π·1.1548^k (6.28, 7.26, 8.38, ...). Bit 1 repeats every 4: |ln(6.28/4)| = 0.45 beats
    # |ln(7.26/4)| = 0.60, so pair 0; bit 2 repeats every 8: pair 2 (8.38, 0.046 away in log) beats pair 1 (7.26, 0.097)
    assert list(sinusoid_figures.nearest_pair_per_bit(128, 256, 10_000.0)[:3]) == [0, 0, 2]
    # with one pair every bit's nearest is it; at d = 8 pair 1's wavelength is 62.8 (base^(2/8) = 10): bits 0-3 (periods 2..16) nearer 2π
    assert list(sinusoid_figures.nearest_pair_per_bit(2, 64, 10_000.0)) == [0] * 6
    assert list(sinusoid_figures.nearest_pair_per_bit(8, 64, 10_000.0)[:4]) == [0] * 4


def test_a_heatmap_row_of_images_moves_the_image_bar_between_groups():
    big = strided(300, 300)
    z = np.linspace(0, 1, 300 * 300).reshape(300, 300)
    fig = charts.heatmap_row(
        [charts.ScaleGroup([("a", z, big, big)], signed=False), charts.ScaleGroup([("b", z - 0.5, big, big)])], title="t", x_title="x", y_title="y"
    )
    assert [t.type for t in fig.data] == ["image", "scatter", "heatmap", "image", "scatter", "heatmap"]
    first_bar, last_bar = fig.data[1].marker, fig.data[4].marker
    assert first_bar.showscale and first_bar.colorbar.x > fig.layout.xaxis.domain[1] and first_bar.colorbar.x < fig.layout.xaxis2.domain[0]
    assert last_bar.colorbar.x is None
    assert (first_bar.cmin, first_bar.cmax) == (0.0, 1.0) and (last_bar.cmin, last_bar.cmax) == (-0.5, 0.5)


# --- cheap to draw: what keeps plotly.js from drawing a figure twice ----------------------


def spec_of(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))  # what st.plotly_chart sends


def test_figures_carry_no_template_but_keep_the_style():
    fig = spec_of(charts.lines([("a", np.arange(3), np.ones(3))], title="t", x_title="x", y_title="y"))
    layout = fig["layout"]
    assert "template" not in layout  # plotly.js redraws a figure whose template was copied
    assert layout["paper_bgcolor"] == "white" and layout["colorway"][0] == charts.LINE_COLOURS[0]
    assert layout["xaxis"]["gridcolor"] == "#EBEDF0" and layout["yaxis"]["automargin"] is True
    panels = spec_of(charts.side_by_side_heatmaps([("a", np.ones((2, 2)), strided(2, 2), strided(2, 2))] * 2, title="t", x_title="x", y_title="y"))["layout"]
    assert panels["xaxis2"]["linecolor"] == "#C9CED6" and panels["xaxis2"]["showgrid"] is False  # every subplot axis styled, no grid under a heatmap


def test_scatter_data_and_small_heatmaps_go_as_plain_lists_big_heatmaps_as_typed_arrays():
    y = np.array([0.1, 1 / 3, -2.5e-9])
    fig = spec_of(charts.lines([("a", np.arange(3), y)], title="t", x_title="x", y_title="y"))
    assert fig["data"][0]["x"] == [0, 1, 2] and fig["data"][0]["y"] == y.tolist()  # exact float64
    circle = spec_of(charts.phase_circle(np.zeros(3), np.ones(3), np.arange(3), title="c"))
    assert circle["data"][0]["marker"]["color"] == [0, 1, 2] and circle["data"][0]["customdata"] == [0, 1, 2]
    z = np.array([[np.nan, 1 / 3, -2.5e-9], [1e6 / 7, 0.0, -1.0]])
    small = spec_of(charts.heatmap(z, strided(3, 3), strided(2, 2), title="t", x_title="x", y_title="y"))["data"][0]
    assert small["x"] == [0, 1, 2] and small["y"] == [0, 1]
    assert small["z"][0][0] is None  # a blank cell, as NaN in a typed array
    sent = np.array(small["z"], dtype=np.float64)
    np.testing.assert_allclose(sent[np.isfinite(z)], z[np.isfinite(z)], rtol=1e-7)  # float32 on the wire, to 8 digits
    assert max(len(repr(float(v))) for v in sent[np.isfinite(z)]) <= 15  # short numbers, not float32 printed as float64
    side = int(np.sqrt(wire.LIST_CELLS)) + 1  # past the lists' budget a heatmap is an image, never typed arrays (drawn twice)
    big = spec_of(charts.heatmap(np.ones((side, side)), strided(side, side), strided(side, side), title="t", x_title="x", y_title="y"))
    assert [t["type"] for t in big["data"]] == ["image", "scatter", "heatmap"]
    assert isinstance(big["data"][2]["z"], list)  # the hover probe: plain lists


def test_an_image_heatmap_gives_exact_values_on_hover_of_every_kth_cell():
    rows, cols = strided(300, 300), strided(128, 128)
    z = np.sin(np.add.outer(np.arange(300) / 7.0, np.arange(128) / 3.0))  # (300, 128)
    image, bar, probe = charts.heatmap(z, cols, rows, title="t", x_title="x", y_title="y").data
    assert image.type == "image" and image.hoverinfo == "skip" and probe.opacity == 0 and probe.showscale is False
    k = int(np.ceil(np.sqrt(z.size / charts.HOVER_CELLS)))
    assert np.asarray(probe.z).size <= charts.HOVER_CELLS
    assert np.array_equal(np.asarray(probe.x), cols.indices[::k]) and np.array_equal(np.asarray(probe.y), rows.indices[::k])
    np.testing.assert_allclose(np.asarray(probe.z, dtype=np.float64), z[::k, ::k], rtol=1e-7)
    assert f"every {ordinal(k)} row and column" in probe.hovertemplate
    assert (probe.zmin, probe.zmax) == (bar.marker.cmin, bar.marker.cmax)  # the same colour range as the picture


def test_an_image_of_picked_columns_names_each_slots_true_column_in_customdata_and_on_hover():
    # whole (sin, cos) pairs: every 8th pair of 256 columns, drawn in slots 0, 1, 2, ...
    cols = pairs(np.arange(0, 256, 2), np.arange(1, 256, 2), 64)
    rows = strided(600, 600)
    z = np.cos(np.add.outer(np.arange(600) / 11.0, np.arange(256) / 5.0))[:, cols.indices]  # (600, 64)
    image, bar, probe = charts.heatmap(z, cols, rows, title="t", x_title="dimension", y_title="position").data
    assert image.type == "image" and (image.x0, image.dx) == (0.0, 1.0)
    assert list(image.customdata) == list(cols.indices)  # slot k is column customdata[k]
    k = int(np.ceil(np.sqrt(z.size / charts.HOVER_CELLS)))
    slots = np.arange(cols.count)[::k]
    assert np.array_equal(np.asarray(probe.x), slots)  # the probe sits on the picture's slots
    assert np.array_equal(np.asarray(probe.customdata), np.broadcast_to(cols.indices[slots], np.asarray(probe.z).shape))
    assert "x %{customdata}" in probe.hovertemplate  # the hover names the true column, not the slot
    np.testing.assert_allclose(np.asarray(probe.z, dtype=np.float64), z[::k, ::k], rtol=1e-7)


def test_no_figure_carries_meta():
    # plotly.js draws a figure whose copy carries a `meta` a second time, whole (Streamlit hands it a copy right after the first draw)
    panels = [(f"p{i}", np.full((40, 40), float(i + 1)), strided(40, 40), strided(40, 40)) for i in range(3)]
    row = charts.side_by_side_heatmaps(panels, title="t", x_title="x", y_title="y")
    picked = pairs(np.arange(0, 512, 2), np.arange(1, 512, 2), 128)  # every 4th pair: 128 of 512 columns
    rows = strided(wire.LIST_CELLS // 100, wire.LIST_CELLS // 100)
    image = charts.heatmap(np.ones((rows.count, picked.count)), picked, rows, title="t", x_title="x", y_title="y")
    assert image.data[0].type == "image"
    for fig in [row, image]:
        spec = spec_of(fig)
        assert "meta" not in spec["layout"] and all("meta" not in t for t in spec["data"])


def test_datarevision_follows_the_data():
    def revision(y):
        return spec_of(charts.lines([("a", np.arange(3), np.asarray(y, dtype=float))], title="t", x_title="x", y_title="y"))["layout"]["datarevision"]

    assert revision([1, 2, 3]) == revision([1, 2, 3])  # a rerun sends the same figure: the chart stays
    assert revision([1, 2, 3]) != revision([1, 2, 4])
    z = np.zeros((2, 2))
    heat = [charts.heatmap(v, strided(2, 2), strided(2, 2), title="t", x_title="x", y_title="y").layout.datarevision for v in (z, z + 1)]
    assert heat[0] != heat[1]


def test_margins_leave_room_for_colour_bar_legend_and_word_ticks():
    heat = charts.heatmap(np.ones((2, 2)), strided(2, 2), strided(2, 2), title="t", x_title="x", y_title="y", colorbar_title="share of power")
    assert heat.layout.margin.r >= 50 + 8 * len("share of power")
    plain = charts.lines([("a", [0, 1], [1, 2])], title="t", x_title="x", y_title="y")
    assert plain.layout.margin.r == 20 and plain.layout.margin.b < 70
    two = charts.lines([("a", [0, 1], [1, 2]), ("b", [0, 1], [2, 3])], title="t", x_title="x", y_title="y")
    assert two.layout.margin.b > plain.layout.margin.b + 40  # one legend row under the axis title
    many = charts.lines([(f"a long series name number {k}", [0, 1], [1, 2]) for k in range(8)], title="t", x_title="x", y_title="y")
    assert many.layout.margin.b > two.layout.margin.b  # the legend wraps
    words = charts.side_by_side_heatmaps(
        [("a", np.ones((2, 2)), strided(2, 2), strided(2, 2))], title="t", x_title="x", y_title="y", y_ticks=[["0:a rather long word", "1:b"]]
    )
    assert words.layout.margin.l >= 40 + charts.CHAR_PX * len("0:a rather long word")


def test_long_paths_draw_a_sample_of_their_dots_and_say_so():
    n = 512
    coords = np.random.default_rng(0).standard_normal((n, 2))
    fig = charts.position_paths([("a", coords, np.arange(n))], title="t")
    trace = fig.data[0]
    assert trace.mode == "lines+markers" and trace.marker.maxdisplayed == charts.MAX_DOTS
    assert len(trace.x) == n  # the line and the hover keep every position
    assert "dots on every 4th position" in fig.layout.title.text
    short = charts.position_paths([("a", coords[:100], np.arange(100))], title="t")
    assert "dots" not in short.layout.title.text
    flat = charts.lines([("a", np.arange(n), np.ones(n))], title="t", x_title="x", y_title="y", markers=True)
    assert flat.data[0].marker.maxdisplayed == charts.MAX_DOTS and "every 4th point" in flat.layout.title.text
    points = charts.lines([("a", np.arange(n), np.ones(n))], title="t", x_title="x", y_title="y", points=True)
    assert points.data[0].marker.maxdisplayed == 0  # markers that are the data are all drawn


def test_long_titles_wrap_into_balanced_lines_and_push_the_plot_down():
    text = "Power spectrum of each dimension over position (mean removed), dimensions sorted by their dominant frequency"
    lines = charts.wrap_title(text)
    assert " ".join(lines) == text  # every word kept, in order
    assert len(lines) == 2 and all(len(line) <= charts.TITLE_CHARS for line in lines)
    assert abs(len(lines[0]) - len(lines[1])) <= 10  # balanced: no lone word on the second line
    assert charts.wrap_title("Dominant frequency of each dimension, dimensions sorted from slow to fast")[1] != "fast"
    assert charts.wrap_title("short") == ["short"] and charts.wrap_title("") == [""]
    assert charts.wrap_title("a " + "x" * 90 + " b") == ["a", "x" * 90, "b"]  # an over-long word keeps a line to itself

    def figure(title, note=""):
        return charts.lines([("a", np.arange(3), np.ones(3))], title=title, note=note, x_title="x", y_title="y")

    short, wrapped = figure("t", note="n"), figure(text, note="n")
    assert wrapped.layout.title.text == "<br>".join(lines) + "<br><sup>n</sup>"
    assert short.layout.title.text == "t<br><sup>n</sup>"
    assert wrapped.layout.margin.t == short.layout.margin.t + charts.TITLE_LINE_PX  # one more line, that much lower
    assert wrapped.layout.title.y == short.layout.title.y  # the first line stays where a one-line title sits


def test_a_long_note_wraps_too_and_pushes_the_plot_down_by_its_lines():
    note = (
        "illustrative bucket values (not a trained model): nearer buckets higher, heads forgetting at different rates; "
        "every 43rd position (48 of 2,048 shown); one colour range for every head"
    )
    fig = charts.lines([("a", np.arange(3), np.ones(3))], title="t", note=note, x_title="x", y_title="y")
    one = charts.lines([("a", np.arange(3), np.ones(3))], title="t", note="n", x_title="x", y_title="y")
    head, *lines = fig.layout.title.text.split("<br>")
    assert head == "t" and len(lines) == 2 and all(line.startswith("<sup>") and line.endswith("</sup>") for line in lines)
    assert " ".join(line[5:-6] for line in lines) == note and all(len(line[5:-6]) <= charts.NOTE_CHARS for line in lines)
    assert fig.layout.margin.t == one.layout.margin.t + charts.NOTE_LINE_PX


def test_panels_in_a_row_share_one_x_title_under_the_row():
    panel = ("a", np.ones((2, 2)), strided(2, 2), strided(2, 2))
    row = charts.side_by_side_heatmaps([panel, panel], title="t", x_title="frequency", y_title="y")
    assert row.layout.xaxis.title.text is None and row.layout.xaxis2.title.text is None
    under = [a for a in row.layout.annotations if a.text == "frequency"]
    assert len(under) == 1 and under[0].x == 0.5 and under[0].yanchor == "top" and under[0].yshift < 0
    assert row.layout.margin.t == charts.side_by_side_heatmaps([panel, panel], title="t", x_title="f", y_title="y").layout.margin.t
    single = charts.side_by_side_heatmaps([panel], title="t", x_title="frequency", y_title="y")
    assert single.layout.xaxis.title.text == "frequency" and not [a for a in single.layout.annotations if a.text == "frequency"]


def _every_kind_of_figure() -> dict:
    rng = np.random.default_rng(3)
    x = np.arange(300)
    z = rng.normal(size=(40, 30))
    panel = ("p", z, strided(30, 30), strided(40, 40))
    path = rng.normal(size=(50, 3))
    return {
        "lines": charts.lines(
            [("a", x, np.sin(x / 5) + 1.5), ("b", x, np.cos(x / 7) + 1.5)],
            title="t " * 50,
            note="n",
            x_title="x",
            y_title="y",
            log_x=True,
            x_marks=[(10, "ten")],
        ),
        "heatmap": charts.heatmap(z, strided(30, 30), strided(40, 40), title="h", x_title="x", y_title="y"),
        "image heatmap": charts.heatmap(
            rng.normal(size=(600, 600)).astype(np.float32), strided(600, 600), strided(600, 600), title="h", x_title="x", y_title="y"
        ),
        "side by side": charts.side_by_side_heatmaps([panel, panel], title="s", x_title="x", y_title="y"),
        "two scales": charts.heatmap_row(
            [charts.ScaleGroup([panel, panel], signed=False), charts.ScaleGroup([panel], colorbar_title="d")], title="r", x_title="x", y_title="y"
        ),
        "word ticks": charts.side_by_side_heatmaps(
            [("a", np.ones((2, 2)), strided(2, 2), strided(2, 2))] * 2, title="w", x_title="x", y_title="y", x_ticks=[["a", "b"]] * 2, y_ticks=[["c", "d"]] * 2
        ),
        "paths 3-D": charts.position_paths([("a", path, np.arange(50))] * 2, title="p"),
        "paths": charts.position_paths([("a", path[:, :2], np.arange(50))] * 2, title="p", axis_titles=("PC 1", "PC 2")),
        "frequencies": charts.frequency_heatmaps([("a", np.abs(z), strided(40, 40))], np.linspace(0, 0.5, 30), title="f", y_title="d"),
        "spectrum": charts.spectrum(2 * np.pi * 10_000 ** (np.arange(64) / 64), 256, title="w"),
        "phase": charts.phase_circle(np.sin(x / 5), np.cos(x / 5), x, title="c"),
    }


def test_figures_built_without_validation_equal_validated_ones(monkeypatch):
    # core.viz.charts builds figures without plotly.py's validation (too slow for 12-panel
    # figures); built the validated way, every kind of figure must come out the same.
    fast = {name: spec_of(fig) for name, fig in _every_kind_of_figure().items()}

    class Validated(wire.Figure):
        def __init__(self, *args, **kwargs):
            kwargs.pop("_validate", None)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(wire, "Figure", Validated)
    monkeypatch.setattr(charts, "_plain_layout", lambda layout: layout)
    checked = {name: spec_of(fig) for name, fig in _every_kind_of_figure().items()}
    assert checked.keys() == fast.keys()
    for name in fast:
        assert fast[name] == checked[name], name
        assert "template" not in fast[name]["layout"]


def test_log_ticks_by_hand():
    assert charts.log_ticks(4.7, 45.8, 10) == [5, 6, 7, 8, 9, 10, 20, 30, 40]  # 1 to 9 per decade when they fit
    assert charts.log_ticks(4.7, 45.8, 8) == [5, 10, 20, 30]  # else 1-2-3-5
    assert charts.log_ticks(18.5, 132.4) == [20, 30, 50, 100]  # 20 to 90 and 100 are nine: too many for 8
    assert charts.log_ticks(1, 999) == [1, 3, 10, 30, 100, 300]
    assert charts.log_ticks(4.7, 5.4) == [5]


def test_a_log_axis_under_three_decades_labels_every_tick_in_full():
    fig = charts.lines([("a", [64, 128, 256], [5.97, 15.6, 45.8]), ("b", [64, 128, 256], [5.4, 5.3, 5.3])], title="t", x_title="x", y_title="y", log_y=True)
    axis = fig.to_dict()["layout"]["yaxis"]
    assert axis["type"] == "log" and list(axis["tickvals"]) == [6, 7, 8, 9, 10, 20, 30, 40]
    assert list(axis["ticktext"]) == ["6", "7", "8", "9", "10", "20", "30", "40"]
    wide = charts.lines([("a", [1, 2, 3], [1e-3, 1.0, 1e3])], title="t", x_title="x", y_title="y", log_y=True)
    assert "tickvals" not in wide.to_dict()["layout"]["yaxis"]  # six decades: plotly.js's own 0.001, 1, 1000 read fine


def test_hover_numbers_drop_trailing_zeros():
    """Every number a hover prints with a significant-digits format trims its trailing zeros
    (d3's `~`): cos 0 reads 1, not 1.00000."""
    import re

    rows, cols = strided(4096, 500), strided(512, 500)
    small = sinusoidal_encoding(64, 32)
    figures = [
        charts.heatmap(small, strided(32, 500), strided(64, 500), title="t", x_title="x", y_title="y"),
        charts.heatmap(sinusoidal_encoding(0, 512, positions=rows.indices, dims=cols.indices), cols, rows, title="t", x_title="x", y_title="y"),
        charts.side_by_side_heatmaps([("a", small, strided(32, 500), strided(64, 500))], title="t", x_title="x", y_title="y"),
        charts.spectrum(np.array([6.3, 60.0, 600.0]), 100, title="t"),
        charts.phase_circle(np.sin(np.arange(5.0)), np.cos(np.arange(5.0)), np.arange(5), title="t"),
        charts.position_paths([("flat", np.random.default_rng(0).normal(size=(6, 2)), np.arange(6))], title="t"),
        charts.position_paths([("deep", np.random.default_rng(0).normal(size=(6, 3)), np.arange(6))], title="t"),
    ]
    formats = [f for fig in figures for t in fig.data for f in re.findall(r"%\{\w+:([^}]*)\}", t.hovertemplate or "")]
    assert len(formats) >= 12  # heatmaps' z, the image probe's z, spectrum's y and customdata, the circle's x and y, the paths' 2 and 3 coordinates
    assert all(re.fullmatch(r"\.\d+~g", f) for f in formats), formats


def test_a_y_title_longer_than_the_plot_wraps_and_widens_the_left_margin():
    """A rotated y title is centred on the plot: longer than the plot is tall, it runs up into the title and its note
    (/context's wavelength chart). It wraps into lines that fit, and the left margin grows by a line for each."""
    y = np.array([1.0, 2.0])
    long_title = "wavelength 2π/θᵢ (positions, log scale) of every pair"
    short = charts.lines([("a", np.array([0, 1]), y)], title="t", x_title="x", y_title="short", note="n", height=380)
    assert short.layout.yaxis.title.text == "short"
    tall = charts.lines([("a", np.array([0, 1]), y)], title="t", x_title="x", y_title=long_title, note="n", height=800)
    assert tall.layout.yaxis.title.text == long_title  # fits an 800-pixel chart's plot
    small = charts.lines([("a", np.array([0, 1]), y)], title="t " * 60, x_title="x", y_title=long_title, note="n", height=300)
    lines = small.layout.yaxis.title.text.split("<br>")
    plot_px = small.layout.height - small.layout.margin.t - small.layout.margin.b
    assert len(lines) >= 2 and " ".join(lines) == long_title
    assert all(len(line) * charts.AXIS_TITLE_CHAR_PX <= plot_px for line in lines)
    assert small.layout.margin.l == short.layout.margin.l + charts.AXIS_TITLE_LINE_PX * (len(lines) - 1)
