"""Reference marks' labels (core.viz.charts._marks through charts.lines): a label stays where it
was when it meets no other; labels of marks close together are moved apart (an x mark's
inside the plot's top edge, a row lower each time; a y mark's to the first place around its line
that covers no other label, no other mark's line and no data), judged on the axis as drawn: in
decades on a log axis, over its fixed range when it has one."""

from __future__ import annotations

import numpy as np
import pytest

from core.viz import charts


def figure(x_marks=(), y_marks=(), log_x=False, log_y=False, x=(1.0, 50_000.0), y=(0.0, 1.0), y_range=None, points=False):
    return charts.lines(
        [("data", np.asarray(x), np.asarray(y))],
        points=points,
        title="t",
        x_title="x",
        y_title="y",
        log_x=log_x,
        log_y=log_y,
        x_marks=x_marks,
        y_marks=y_marks,
        y_range=y_range,
    )


def labels(fig, texts):
    by_text = {a.text: a for a in fig.layout.annotations}
    return [by_text[t] for t in texts]


def test_far_apart_x_marks_keep_their_labels_above_the_plot():
    fig = figure(x_marks=[(10, "ten"), (20_000, "twenty thousand")], log_x=True)
    for label in labels(fig, ["ten", "twenty thousand"]):
        assert label.yanchor == "bottom" and label.y == 1.0 and label.yshift is None
    assert [s.x0 for s in fig.layout.shapes] == [10, 20_000]  # the lines themselves at the values


def test_an_original_context_and_a_band_edge_20_pixels_apart_do_not_overlap():
    # /rope's YaRN case: 2,048 and 2,650 on a log axis of about four decades
    fig = figure(x_marks=[(2048, "original context"), (2650, "2,650")], log_x=True, x=(5.0, 50_000.0))
    first, second = labels(fig, ["original context", "2,650"])
    assert first.yanchor == "bottom" and first.yshift is None  # above the plot, as before
    assert second.yanchor == "top" and second.yshift == 0 and second.bgcolor  # just inside the top edge, on white
    assert second.x == pytest.approx(np.log10(2650))  # at its own line (an annotation on a log axis is placed in decades)


def test_the_same_marks_on_a_linear_axis_wide_enough_stay_put():
    # 2,048 and 2,650 on 0..4,000 are 120 pixels apart: room for both labels
    fig = figure(x_marks=[(2048, "original"), (2650, "edge")], x=(0.0, 4000.0))
    assert [a.yanchor for a in labels(fig, ["original", "edge"])] == ["bottom", "bottom"]


def test_three_crowded_x_marks_take_three_rows():
    fig = figure(x_marks=[(100, "aaaa"), (101, "bbbb"), (102, "cccc")], x=(0.0, 10_000.0))
    a, b, c = labels(fig, ["aaaa", "bbbb", "cccc"])
    assert (a.yanchor, b.yanchor, c.yanchor) == ("bottom", "top", "top")
    assert (b.yshift, c.yshift) == (0, -charts.MARK_LINE_PX)


def test_close_y_marks_take_free_places_around_their_lines():
    # 2,048, 2,650 and 3,000 are 10 and 5 pixels apart on this log axis: a label above 2,048 would sit on 2,650's line
    fig = figure(y_marks=[(2048, "original context 2,048"), (2650, "band edge 2,650"), (3000, "third")], log_y=True, y=(5.0, 50_000.0))
    a, b, c = labels(fig, ["original context 2,048", "band edge 2,650", "third"])
    assert (a.x, a.xanchor, a.yanchor) == (0.0, "left", "top")  # below its line: nothing is there
    assert (b.x, b.xanchor, b.yanchor) == (0.0, "left", "bottom")  # above its line at the left, clear of the first label
    assert (c.x, c.xanchor, c.yanchor) == (1.0, "right", "bottom")  # the left end taken: the right


def test_a_label_moves_off_the_data():
    # /rope · Scaling: a band edge at pair 0's own wavelength, 2π, would sit on pair 0's dot at the left end; the pairs rise
    # to the right, so above its line at the right end is free. The original context's label above its line at the left is clear
    # of the dots (they are lower there) and stays.
    wavelengths = 2 * np.pi / 10_000.0 ** -(np.arange(32) / 32)
    marks = [(64, "original context 64"), (256, "target max_len 256"), (2 * np.pi, "band edge 6.283")]
    fig = figure(y_marks=marks, log_y=True, x=np.arange(32.0), y=wavelengths, points=True)
    edge, original = labels(fig, ["band edge 6.283", "original context 64"])
    assert (edge.xanchor, edge.yanchor) == ("right", "bottom") and (original.xanchor, original.yanchor) == ("left", "bottom")
    assert [s.y0 for s in fig.layout.shapes] == [64, 256, 2 * np.pi]  # the lines in the marks' order, at their values


def test_a_fixed_range_decides_what_is_close():
    # 0.2 and 0.8 on a fixed 0..1.05 are far apart; on data that reach 1,000 they would meet (the data drawn away from the labels)
    fixed = figure(y_marks=[(0.2, "a"), (0.8, "b")], x=(25_000.0, 50_000.0), y=(0.0, 1000.0), y_range=(0.0, 1.05), points=True)
    assert [label.xanchor for label in labels(fixed, ["a", "b"])] == ["left", "left"]
    free = figure(y_marks=[(0.2, "a"), (0.8, "b")], x=(25_000.0, 50_000.0), y=(0.0, 1000.0), points=True)
    assert [label.xanchor for label in labels(free, ["a", "b"])] == ["left", "right"]


def test_place_labels_takes_the_first_free_slot():
    assert charts._place_labels([(0, 10), (20, 30), (25, 35), (28, 40), (50, 60)], 4) == [0, 0, 1, 2, 0]
    assert charts._place_labels([(0, 10)] * 6, 4) == [0, 1, 2, 3, 3, 3]  # all slots taken: the last


def test_a_reversed_fixed_range_is_the_same_range():
    # plotly.js draws range (1.05, 0) upside down; the labels are judged on the same span
    fig = figure(y_marks=[(0.2, "a"), (0.8, "b")], y_range=(1.05, 0.0))
    assert [label.xanchor for label in labels(fig, ["a", "b"])] == ["left", "left"]


def test_a_log_axis_ignores_values_it_cannot_show():
    # zero and negative values have no place on a log axis: the span comes from the positive ones
    fig = figure(x_marks=[(10, "ten"), (10_000, "ten thousand")], log_x=True, x=(-5.0, 0.0, 1.0, 100_000.0), y=(0.0, 0.5, 0.7, 1.0))
    assert [a.yanchor for a in labels(fig, ["ten", "ten thousand"])] == ["bottom", "bottom"]


def test_a_y_label_stays_inside_the_plot_or_is_not_drawn_and_steps_in_by_a_fraction_of_its_width():
    def lines(marks, plot_px):
        data = [("data", np.array([0.0, 1.0]), np.array([0.0, 0.0]))]
        return charts.lines(data, title="t", x_title="x", y_title="y", y_marks=marks, y_range=(0.0, 1.0), marks_px=plot_px)

    # a 30-character label (192 estimated pixels) fits no place in a 100-pixel plot: its line is drawn alone, beside a short one's label
    fig = lines([(0.5, "a" * 30), (0.2, "short")], (100.0, 200.0))
    assert [a.text for a in fig.layout.annotations] == ["short"] and [s.y0 for s in fig.layout.shapes] == [0.5, 0.2]
    # five labels on one line: both ends above and below taken, the fifth steps in by the widest label's width as a fraction of the
    # plot's (so it lies on the same data in a wider plot), with no pixel shift
    fig = lines([(0.5, name) for name in "abcde"], (300.0, 200.0))
    fifth = labels(fig, ["e"])[0]
    assert (fifth.xanchor, fifth.yanchor, fifth.xshift) == ("left", "bottom", None)
    assert fifth.x == pytest.approx((charts.MARK_CHAR_PX + 12) / 300.0)
