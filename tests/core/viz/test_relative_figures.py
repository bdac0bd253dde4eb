"""core.viz.relative_figures: the span chart names every head it draws on its line."""

from __future__ import annotations

import numpy as np

from core.schemes import alibi
from core.viz import charts, palette
from core.viz.relative_figures import SPAN_PLOT_PX, alibi_weights, label_lifts


def test_label_lifts_keep_names_apart_in_the_order_of_their_points():
    # points at 0, 3, 50 and 5 pixels, names 10 apart: 0 stays, 3 goes to 10, 5 to 20, 50 stays (hand-worked)
    np.testing.assert_allclose(label_lifts(np.array([0.0, 3.0, 50.0, 5.0]), 10), [0.0, 7.0, 0.0, 15.0])


def test_every_head_of_the_span_chart_is_named_at_its_lines_start_in_its_colour():
    slopes = alibi.alibi_slopes(8)
    fig = alibi_weights(slopes, 256, alibi.alibi_attention_span(slopes, 256, 0.9))
    lines = {t.name.split(" (")[0]: t for t in fig.data if t.name}
    names = [a for a in fig.layout.annotations if a.text in lines]
    assert sorted(a.text for a in names) == sorted(lines) and len(names) == 8  # each drawn head once
    for a in names:
        line = lines[a.text]
        assert a.font.color == a.arrowcolor == line.line.color == palette.head_colour(int(a.text.split()[1]) - 1)
        assert a.x == 0.0 and a.y == line.y[0]  # the pointer ends at the line's start (log axis: 10^0 = 1)
    # at the phone's scale the names stand a label's height apart, in the order their lines start
    top = max(a.y for a in names)
    placed = sorted((a.y / top * SPAN_PLOT_PX - a.ay, a.y) for a in names)
    assert np.diff([p for p, _ in placed]).min() >= charts.MARK_LINE_PX
    assert [y for _, y in placed] == sorted(y for _, y in placed)


def test_the_span_charts_names_stand_on_an_axis_from_0_and_one_key_has_one_name():
    slopes = alibi.alibi_slopes(8)
    fig = alibi_weights(slopes, 2, alibi.alibi_attention_span(slopes, 2, 0.9))  # two keys: every weight far from 0
    assert fig.layout.yaxis.rangemode == "tozero"  # the lifts count pixels from a weight of 0
    fig = alibi_weights(slopes, 1, alibi.alibi_attention_span(slopes, 1, 0.9))  # one key: every head's one point is (1, 1.0)
    assert [a.text for a in fig.layout.annotations if "head" in a.text] == ["every head drawn"]
