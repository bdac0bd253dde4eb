"""core.viz.charts: every figure is labelled and styled, sent cheaply (no template, scatter data as
plain lists, a datarevision that follows the data), and built without validation to the same
spec as a validated build."""

import json

from pathlib import Path

import numpy as np
import pytest
import plotly.io as pio

from core.viz import charts, memo, wire


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


def test_the_binary_analogy_names_each_column_by_its_bit_or_pair_on_hover():
    from core.schemes import sinusoidal
    from core.viz import sinusoid_figures

    spec = sinusoid_figures.binary_analogy(128, 256, 10_000.0)  # a core.viz.heatmap spec: the hover reads an axis's names
    bits, sines = spec["panels"]
    assert bits["x"]["names"] == [f"bit {b}" for b in range(6)]  # positions 0..63: six bits
    pairs = [int(name.split(",")[0].split()[1]) for name in sines["x"]["names"]]
    wl = sinusoidal.wavelengths(128, 10_000.0)
    assert [f"pair {i}, λ {wl[i]:.3g}" for i in pairs] == sines["x"]["names"] and pairs == sorted(set(pairs))
    assert "names" not in bits["y"] and bits["y"]["indices"] == list(range(64))  # positions stay numbers


def test_each_bit_is_matched_to_the_pair_whose_wavelength_is_nearest_its_period():
    from core.viz import sinusoid_figures

    # d = 128, base 10^4: pair k has wavelength 2π·1.1548^k (6.28, 7.26, 8.38, ...). Bit 1 repeats every 4: |ln(6.28/4)| = 0.45 beats
    # |ln(7.26/4)| = 0.60, so pair 0; bit 2 repeats every 8: pair 2 (8.38, 0.046 away in log) beats pair 1 (7.26, 0.097)
    assert list(sinusoid_figures.nearest_pair_per_bit(128, 256, 10_000.0)[:3]) == [0, 0, 2]
    # with one pair every bit's nearest is it; at d = 8 pair 1's wavelength is 62.8 (base^(2/8) = 10): bits 0-3 (periods 2..16) nearer 2π
    assert list(sinusoid_figures.nearest_pair_per_bit(2, 64, 10_000.0)) == [0] * 6
    assert list(sinusoid_figures.nearest_pair_per_bit(8, 64, 10_000.0)[:4]) == [0] * 4


def test_the_phase_circle_draws_less_than_one_turn_so_its_colours_run_round_once():
    from core.schemes import sinusoidal
    from core.viz import sinusoid_figures

    # the fastest pair turns 1 rad a step: 2π ≈ 6.28, so positions 0..6 span 6 rad, and a 7th dot would pass the first
    assert sinusoid_figures.one_turn(2 * np.pi, 256) == 7
    assert sinusoid_figures.one_turn(32.0, 256) == 32  # exactly a whole wavelength: 31 steps, one short of the turn
    assert sinusoid_figures.one_turn(5000.0, 256) == 256  # a slow pair: every position there is, part of a turn
    assert sinusoid_figures.one_turn(5000.0, 10_000) == 400
    assert sinusoid_figures.one_turn(2 * np.pi, 1) == 1
    for pair in range(64):  # at every pair of d = 128, the dots span less than 2π, and the figure says what share
        wl = sinusoidal.wavelengths(128, 10_000.0)[pair]
        count = sinusoid_figures.one_turn(wl, 256)
        omega = sinusoidal.pair_frequencies(128, 10_000.0)[pair]
        assert (count - 1) * omega < 2 * np.pi
        assert count == 256 or count * omega >= 2 * np.pi  # one more dot would close the turn
    # the fastest pair, 7 dots: 6 rad = 0.9549 of a turn, said rounded down so it never reads as a whole turn
    assert "7 consecutive positions, 0.954 of a turn" in sinusoid_figures.phase_circle(128, 256, 10_000.0, 0, 0, 7).layout.title.text
    assert sinusoid_figures.turns_text(2 * np.pi * 0.99995) == "0.999 of a turn" and sinusoid_figures.turns_text(99.0) == "15.8 turns"
    assert sinusoid_figures.turns_text(2 * np.pi) == "1 turn"


# --- cheap to draw: what keeps plotly.js from drawing a figure twice ----------------------


def spec_of(fig) -> dict:
    return json.loads(pio.to_json(fig, validate=False))  # what st.plotly_chart sends


def test_figures_carry_no_template_but_keep_the_style():
    fig = spec_of(charts.lines([("a", np.arange(3), np.ones(3))], title="t", x_title="x", y_title="y"))
    layout = fig["layout"]
    assert "template" not in layout  # plotly.js redraws a figure whose template was copied
    # white (app.css paints it in the dark theme's background there); text in the colour app.css themes
    assert layout["paper_bgcolor"] == layout["plot_bgcolor"] == "white" and layout["colorway"][0] == charts.LINE_COLOURS[0]
    assert layout["font"]["color"] == charts.THEMED_TEXT
    assert layout["xaxis"]["gridcolor"] == charts.GRID and layout["yaxis"]["automargin"] is True
    path = np.random.default_rng(0).normal(size=(5, 2))
    panels = spec_of(charts.position_paths([("a", path, np.arange(5))] * 2, title="t", axis_titles=("PC 1", "PC 2")))["layout"]
    assert panels["xaxis2"]["linecolor"] == charts.AXIS_LINE and panels["xaxis2"]["gridcolor"] == charts.GRID  # every subplot axis styled


def test_scatter_data_go_as_plain_lists():
    y = np.array([0.1, 1 / 3, -2.5e-9])
    fig = spec_of(charts.lines([("a", np.arange(3), y)], title="t", x_title="x", y_title="y"))
    assert fig["data"][0]["x"] == [0, 1, 2] and fig["data"][0]["y"] == y.tolist()  # exact float64
    circle = spec_of(charts.phase_circle(np.zeros(3), np.ones(3), np.arange(3), title="c"))
    assert circle["data"][0]["marker"]["color"] == [0, 1, 2] and circle["data"][0]["customdata"] == [0, 1, 2]


def test_a_phase_circle_keys_its_positions_only_when_they_span_a_range():
    # one position has no range: a colour bar would be Plotly's invented one around it (−0.4 to 0.4), not the data's
    one, three = (charts.phase_circle(np.zeros(n), np.ones(n), np.arange(n), title="c").data[0].marker for n in (1, 3))
    assert one.showscale is False and three.showscale is True


def test_no_figure_carries_meta():
    # plotly.js draws a figure whose copy carries a `meta` a second time, whole (Streamlit hands it a copy right after the first draw)
    for fig in _every_kind_of_figure().values():
        spec = spec_of(fig)
        assert "meta" not in spec["layout"] and all("meta" not in t for t in spec["data"])


def test_datarevision_follows_the_data():
    def revision(y):
        return spec_of(charts.lines([("a", np.arange(3), np.asarray(y, dtype=float))], title="t", x_title="x", y_title="y"))["layout"]["datarevision"]

    assert revision([1, 2, 3]) == revision([1, 2, 3])  # a rerun sends the same figure: the chart stays
    assert revision([1, 2, 3]) != revision([1, 2, 4])
    circles = [charts.phase_circle(np.sin(t), np.cos(t), np.arange(5), title="c").layout.datarevision for t in (np.arange(5.0), np.arange(5.0) + 1)]
    assert circles[0] != circles[1]


def test_margins_leave_room_for_colour_bar_and_legend():
    path = charts.position_paths([("a", np.random.default_rng(0).normal(size=(5, 2)), np.arange(5))], title="t", axis_titles=("PC 1", "PC 2"))
    assert path.layout.margin.r >= 50 + 8 * len("position")  # the colour bar of positions and its title
    plain = charts.lines([("a", [0, 1], [1, 2])], title="t", x_title="x", y_title="y")
    assert plain.layout.margin.r == 20 and plain.layout.margin.b < 70
    two = charts.lines([("a", [0, 1], [1, 2]), ("b", [0, 1], [2, 3])], title="t", x_title="x", y_title="y")
    assert two.layout.margin.b > plain.layout.margin.b + 40  # one legend row under the axis title
    many = charts.lines([(f"a long series name number {k}", [0, 1], [1, 2]) for k in range(8)], title="t", x_title="x", y_title="y")
    assert many.layout.margin.b > two.layout.margin.b  # the legend wraps


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


def test_long_titles_fill_their_lines_and_push_the_plot_down():
    text = "Power spectrum of each dimension over position (mean removed), dimensions sorted by their dominant frequency from the slowest to the fastest"
    lines = charts.wrap_title(text)
    assert " ".join(lines) == text  # every word kept, in order
    assert len(lines) == 2 and all(len(line) <= charts.TITLE_CHARS for line in lines)
    # the first line as full as the words allow (the next word would not fit), not half of it
    first = "Power spectrum of each dimension over position (mean removed), dimensions sorted by their dominant frequency"
    assert lines == [first, "from the slowest to the fastest"]
    assert len(lines[0]) + 1 + len(lines[1].split(" ")[0]) > charts.TITLE_CHARS
    # no lone last word: words move down until the last line holds a quarter of the limit
    orphan = charts.wrap_title("Dominant frequency of each dimension, dimensions sorted from slow to fast", 70)
    assert orphan == ["Dominant frequency of each dimension, dimensions sorted", "from slow to fast"]
    assert len(orphan[1]) >= 70 // 4
    assert charts.wrap_title("short") == ["short"] and charts.wrap_title("") == [""]
    assert charts.wrap_title("a " + "x" * 120 + " b") == ["a", "x" * 120, "b"]  # an over-long word keeps a line to itself

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


def _every_kind_of_figure() -> dict:
    rng = np.random.default_rng(3)
    x = np.arange(300)
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
        "paths 3-D": charts.position_paths([("a", path, np.arange(50))] * 2, title="p"),
        "paths": charts.position_paths([("a", path[:, :2], np.arange(50))] * 2, title="p", axis_titles=("PC 1", "PC 2")),
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
    memo.STORE.clear()  # built again, not the figures the first build stored (core.viz.memo)
    checked = {name: spec_of(fig) for name, fig in _every_kind_of_figure().items()}
    assert checked.keys() == fast.keys() and memo.STORE.misses >= len(fast)
    for name in fast:
        assert fast[name] == checked[name], name
        assert "template" not in fast[name]["layout"]


def test_log_ticks_by_hand():
    assert charts.log_ticks(4.7, 45.8, 10) == [5, 10, 20, 30]  # 1-2-3-5, never the crowded 6, 7, 8, 9 ('10 9 8 7 6 5')
    assert charts.log_ticks(4.7, 45.8, 3) == [5, 10, 20]  # else 1-2-5
    assert charts.log_ticks(18.5, 132.4) == [20, 30, 50, 100]
    assert charts.log_ticks(1, 999) == [1, 3, 10, 30, 100, 300]
    assert charts.log_ticks(4.7, 5.4) == [5]


def test_a_log_axis_under_three_decades_labels_every_tick_in_full():
    fig = charts.lines([("a", [64, 128, 256], [5.97, 15.6, 45.8]), ("b", [64, 128, 256], [5.4, 5.3, 5.3])], title="t", x_title="x", y_title="y", log_y=True)
    axis = fig.to_dict()["layout"]["yaxis"]
    assert axis["type"] == "log" and list(axis["tickvals"]) == [10, 20, 30]  # 5.3 to 45.8: 1-2-3-5 inside the data
    assert list(axis["ticktext"]) == ["10", "20", "30"]
    wide = charts.lines([("a", [1, 2, 3], [1e-3, 1.0, 1e3])], title="t", x_title="x", y_title="y", log_y=True)
    axis = wide.to_dict()["layout"]["yaxis"]  # six decades: every decade, no lone 2 and 5 between them
    assert list(axis["tickvals"]) == [0.001, 0.01, 0.1, 1, 10, 100, 1000] and list(axis["ticktext"]) == ["0.001", "0.01", "0.1", "1", "10", "100", "1,000"]


def test_every_log_axis_is_labelled_by_decades_or_one_two_five():
    # many decades: every k-th decade, written as powers of ten past 10⁶; the spectrum's log axis too, over its data and its mark
    assert charts.log_axis_ticks(1e-6, 1e9) == [1e-6, 1e-4, 1e-2, 1, 1e2, 1e4, 1e6, 1e8]
    assert charts.log_labels([0.002, 1, 50_000]) == ["0.002", "1", "50,000"]  # all inside 0.001 .. 999,999: written in full
    # one tick past them writes the whole axis as powers of ten: 10³ .. 10⁷ (a context length axis), never '100,000' beside '10⁶'
    assert charts.log_labels(charts.log_axis_ticks(1e3, 1e7)) == ["10³", "10⁴", "10⁵", "10⁶", "10⁷"]
    assert charts.log_labels([1e-6, 0.002, 1, 2e6]) == ["10⁻⁶", "2×10⁻³", "10⁰", "2×10⁶"]
    tall = charts.lines([("a", [1, 2], [1e3, 1e7])], title="t", x_title="x", y_title="y", log_y=True)
    assert list(tall.to_dict()["layout"]["yaxis"]["ticktext"]) == ["10³", "10⁴", "10⁵", "10⁶", "10⁷"]
    wavelengths = 2 * np.pi / 10_000 ** -(np.arange(32) / 32)  # 6.28 to about 50,000 positions
    axis = charts.spectrum.fresh(wavelengths, 256, title="t").to_dict()["layout"]["yaxis"]
    assert list(axis["tickvals"]) == [10, 100, 1000, 10_000] and axis["tickmode"] == "array"  # the decades inside 6.28 .. 50,000
    # a fixed range (plotly.js reads a log range in decades) and a reference mark set the span too
    fig = charts.lines([("a", [1, 2], [3.0, 4.0])], title="t", x_title="x", y_title="y", log_y=True, y_range=(0, 2), y_marks=[(50.0, "m")])
    assert list(fig.to_dict()["layout"]["yaxis"]["tickvals"]) == [1, 2, 3, 5, 10, 20, 30, 50, 100]  # 1 to 100: 1-2-3-5
    # offset 0 then log-spaced offsets (/context's decay): the zero has no place on the axis, the decades start at the least positive
    offsets = np.concatenate([[0.0], np.geomspace(1, 131_072, 50)])
    decay = charts.lines([("a", offsets, np.cos(offsets))], title="t", x_title="x", y_title="y", log_x=True, x_marks=[(8192, "trained")])
    assert list(decay.to_dict()["layout"]["xaxis"]["ticktext"]) == ["1", "10", "100", "1,000", "10,000", "100,000"]


def test_hover_numbers_drop_trailing_zeros():
    """Every number a hover prints with a significant-digits format trims its trailing zeros
    (d3's `~`): cos 0 reads 1, not 1.00000."""
    import re

    figures = [
        charts.spectrum(np.array([6.3, 60.0, 600.0]), 100, title="t"),
        charts.phase_circle(np.sin(np.arange(5.0)), np.cos(np.arange(5.0)), np.arange(5), title="t"),
        charts.position_paths([("flat", np.random.default_rng(0).normal(size=(6, 2)), np.arange(6))], title="t"),
        charts.position_paths([("deep", np.random.default_rng(0).normal(size=(6, 3)), np.arange(6))], title="t"),
    ]
    formats = [f for fig in figures for t in fig.data for f in re.findall(r"%\{\w+:([^}]*)\}", t.hovertemplate or "")]
    assert len(formats) >= 9  # spectrum's y and customdata, the circle's x and y, the paths' 2 and 3 coordinates
    assert all(re.fullmatch(r",d|,?\.\d+~[gr]", f) for f in formats), formats  # or whole numbers, which have no zeros to trim


@pytest.mark.parametrize(
    ("values", "wanted"),
    [
        ([0, 1, 2, 131_072], ",d"),  # whole numbers in full: 131,072
        ([54_410.3, 2.5, -7.25], ",.6~r"),  # decimals, thousands separated: 54,410.3, never 5.4410e+4
        ([1.0, np.sin(np.pi), 0.5], ",.6~r"),  # sin π's 1.2e-16 is rounding, not a scale that needs an exponent
        ([1e-7, 1.0], ".6~g"),  # a value below 1e-4: scientific
        ([3.0, 2e15], ".6~g"),  # or from 1e15
        ([], ",.6~r"),
    ],
)
def test_a_hover_follows_the_number_rule(values, wanted):
    assert charts.hover_format(values) == wanted


def test_a_lines_hover_writes_large_values_with_separators():
    """/context's wavelengths reach 54,410 positions: the hover says so as the sentence beside it does."""
    fig = charts.lines([("a", [0, 1, 2], [6.28, 628.3, 54_410.0])], title="t", x_title="pair", y_title="wavelength")
    assert fig.layout.xaxis.hoverformat == ",d" and fig.layout.yaxis.hoverformat == ",.6~r"


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


def test_the_mode_bar_stands_beside_the_title_and_titles_fill_a_wide_column():
    # a column at the figure's right edge, not a row across the title, without the buttons no figure here uses
    fig = charts.lines([("a", np.arange(3), np.ones(3))], title="t", x_title="x", y_title="y")
    assert fig.layout.modebar.orientation == "v" and "lasso2d" in fig.layout.modebar.remove and "zoom2d" not in fig.layout.modebar.remove
    # a full title line (7.7 px a character) and the mode bar's column (about 30 px) fit the narrowest column that shows
    # plotly.js's title, and the stylesheet switches to the title as wrapping text just below that width
    assert charts.TITLE_CHARS * 7.7 + 30 <= charts.TITLE_COLUMN_PX
    css = (Path(__file__).parents[3] / "ui" / "assets" / "app.css").read_text()
    assert f"@container (max-width: {charts.TITLE_COLUMN_PX - 1}px)" in css


def test_the_title_band_is_the_top_margin_a_title_takes():
    # hand-worked: a one-line title sits in 50 px (70 with small print); each further line adds 23, each further line of small print 16
    assert charts.title_band("a") == 50
    assert charts.title_band("a<br><sup>n</sup>") == 70
    assert charts.title_band("a<br>b<br><sup>n1</sup><br><sup>n2</sup>") == 70 + 23 + 16
    # and it is the whole top margin of a figure that asks for nothing else above its plot
    long = "the title of a figure, long enough to take two lines of a chart at the width its lines are broken for, as wide as a whole chart"
    fig = charts.lines([("a", np.arange(3), np.ones(3))], title=long, note="the small print", x_title="x", y_title="y")
    assert fig.layout.title.text.count("<br>") == 2 and fig.layout.margin.t == charts.title_band(fig.layout.title.text) == 70 + 23


def test_the_waves_mark_each_wavelength_by_the_dimensions_the_legend_names():
    from core.viz import sinusoid_figures

    # d 128, base 10,000: dims 16 and 17 are pair 8, λ = 2π·10,000^(16/128) = 2π·10^0.5 = 19.87; dim 0 is pair 0, λ = 2π = 6.283 (under 2% of 400: no line)
    fig = sinusoid_figures.waves(128, 512, 10_000.0, "interleaved", [0, 16, 17], 0, 400)
    marks = [(a["x"], a["text"]) for a in fig.layout.annotations if a["text"].startswith("λ")]
    assert len(marks) == 1 and marks[0][1] == "λ of dim 16, 17" and marks[0][0] == pytest.approx(2 * np.pi * 10 ** 0.5)
    assert [t.name.split(" (")[0] for t in fig.data if t.name] == ["dim 0", "dim 16", "dim 17"]  # the legend's names


def test_lines_draws_a_series_markers_as_the_symbol_given_and_the_others_as_dots():
    x = np.arange(3)
    fig = charts.lines.fresh([("a", x, x), ("b", x, 2 * x)], title="t", x_title="x", y_title="y", markers=True, symbols=[("diamond", 13), None])
    assert (fig.data[0].marker.symbol, fig.data[0].marker.size) == ("diamond", 13)
    assert (fig.data[1].marker.symbol, fig.data[1].marker.size) == (None, 5)  # Plotly's dot, as without the option
    with pytest.raises(ValueError, match="as many colours, dashes and symbols"):
        charts.lines.fresh([("a", x, x)], title="t", x_title="x", y_title="y", symbols=[None, None])
