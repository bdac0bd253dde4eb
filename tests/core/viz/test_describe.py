"""A figure in words and as CSV (core.viz.describe), on hand-worked figures: every number in the sentence is one
of the drawn arrays' own, and the CSV gives the drawn points back exactly."""

from __future__ import annotations

import csv
import io

import numpy as np
import plotly.graph_objects as go
import pytest

from core.viz import charts, describe


def waves() -> go.Figure:
    x = np.arange(4.0)
    return charts.lines([("up", x, np.array([0.0, 1.0, 2.0, 3.0])), ("down", x, np.array([5.0, 2.5, -1.0, -2.0]))],
                        title="Two lines<br><sup>a note</sup>", x_title="position", y_title="value")  # fmt: skip


def test_a_line_chart_says_its_series_axes_ranges_and_extremes():
    assert describe.figure_text(waves()) == (
        "Two lines a note. A line chart of 2 series (up, down) of 4 points each: position 0 to 3, value -2 to 5; "
        "highest: down 5 at position 0; lowest: down -2 at position 3."
    )


def test_one_series_names_no_series_and_a_flat_one_has_no_extremes():
    flat = charts.lines([("", np.arange(3.0), np.full(3, 0.5))], title="Flat", x_title="k", y_title="score")
    assert describe.figure_text(flat) == "Flat. A line chart of 3 points: k 0 to 2, score 0.5."


def test_a_heatmap_says_its_shape_range_and_largest_cell():
    z = np.array([[0.0, 1.0, 2.0], [3.0, 9.0, 4.0]])
    fig = go.Figure(go.Heatmap(z=z, x=[10, 20, 30], y=[0, 1]), layout=dict(title=dict(text="Cells"), xaxis_title="key", yaxis_title="query"))
    assert describe.figure_text(fig) == "Cells. A heatmap at 2 rows (query) by 3 columns (key), values 0 to 9; the largest, 9, at key 20, query 1."
    rows = list(csv.reader(io.StringIO(describe.figure_csv(fig))))
    assert rows[0] == ["series", "key", "query", "Cells"]
    assert [(int(r[1]), int(r[2]), float(r[3])) for r in rows[1:]] == [(x, y, z[j, i]) for j, y in enumerate([0, 1]) for i, x in enumerate([10, 20, 30])]


def test_invisible_helpers_are_not_described():
    fig = waves()
    fig.add_trace(go.Scatter(x=[None], y=[None], showlegend=False))  # a colour bar's carrier draws nothing
    fig.add_trace(go.Heatmap(z=[[100.0]], opacity=0))  # a hover layer
    assert describe.figure_text(fig) == describe.figure_text(waves())


def test_a_heatmap_painted_as_a_picture_is_read_from_its_hover_layer():
    # a big heatmap drawn as an image, with a see-through heatmap of every k-th cell over it for the hover
    z = np.arange(300 * 200, dtype=float).reshape(300, 200) / 1000  # (300, 200)
    k = 4
    fig = go.Figure(
        [
            go.Image(source="data:image/png;base64,", x0=0, dx=1, y0=0, dy=1, hoverinfo="skip"),
            go.Heatmap(z=z[::k, ::k], x=np.arange(200)[::k], y=np.arange(300)[::k], opacity=0, showscale=False, colorscale=charts.SEQUENTIAL),
        ]
    )
    fig.update_layout(title_text="Big", xaxis_title="column", yaxis_title="row")
    probe = next(t for t in fig.data if t.type == "heatmap")
    k = int(np.diff(probe.x)[0])  # the hover layer's stride
    rows, cols = np.asarray(probe.z).shape
    assert k > 1 and (rows, cols) == (len(range(0, 300, k)), len(range(0, 200, k)))
    top = z[::k, ::k].max()
    assert describe.figure_text(fig) == (
        f"Big. A heatmap painted as a picture, its values read at {rows} rows (row) by {cols} columns (column), "
        f"values 0 to {describe.number(top)}; the largest, {describe.number(top)}, at column {(cols - 1) * k}, row {(rows - 1) * k}."
    )
    assert len(describe.figure_csv(fig).splitlines()) == 1 + rows * cols


def test_nothing_drawn_is_said():
    assert describe.figure_text(go.Figure(layout=dict(title=dict(text="Empty")))) == "Empty. Nothing is drawn at these settings."


def test_the_csv_is_every_drawn_point_exactly():
    rows = list(csv.reader(io.StringIO(describe.figure_csv(waves()))))
    assert rows[0] == ["series", "position", "value"]
    assert [(r[0], float(r[1]), float(r[2])) for r in rows[1:]] == [("up", i, v) for i, v in enumerate([0, 1, 2, 3])] + [
        ("down", i, v) for i, v in enumerate([5, 2.5, -1, -2])
    ]


@pytest.mark.parametrize(("x", "text"), [(1.0, "1"), (0.1, "0.1"), (-0.99, "-0.99"), (60610.0, "60,610"), (2.5e-7, "2.500e-07"), (0.0, "0")])
def test_numbers_in_a_sentence_have_no_padding(x, text):
    assert describe.number(x) == text
