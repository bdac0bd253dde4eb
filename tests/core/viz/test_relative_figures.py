"""core.viz.relative_figures: the span chart names every head it draws on its line."""

from __future__ import annotations

import numpy as np
import pytest

from core.schemes import alibi
from core.viz import palette
from core.viz.relative_figures import SPAN_NAME_PX, SPAN_PLOT_PX, alibi_weights, label_lifts


def test_label_lifts_keep_names_apart_in_the_order_of_their_points():
    # points at 0, 3, 50 and 5 pixels, names 10 apart: 0 stays, 3 goes to 10, 5 to 20, 50 stays (hand-worked)
    np.testing.assert_allclose(label_lifts(np.array([0.0, 3.0, 50.0, 5.0]), 10), [0.0, 7.0, 0.0, 15.0])
    # between 5 and 40: up from 5 (5, 15, 25, 50), then down from 40 (50 to 40; 25, 15 and 5 already 10 apart below it)
    np.testing.assert_allclose(label_lifts(np.array([0.0, 3.0, 50.0, 5.0]), 10, 5, 40), [5.0, 12.0, -10.0, 20.0])


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
    axis = fig.layout.xaxis
    assert axis.type == "log" and axis.title.text.startswith("distance to the key + 1") and min(min(t.x) for t in fig.data) == 1  # distance 0 at 1


@pytest.mark.parametrize("n_heads", [2, 3, 5, 8, 9, 64])
def test_the_span_charts_names_stand_apart_inside_the_plot_at_every_length(n_heads):
    # at the phone's scale, in the order their lines start, a name's height and some air apart, none on the x axis or over the top
    slopes = alibi.alibi_slopes(n_heads)
    for max_len in (2, 3, 8, 64, 256, 4_096, 131_072):
        names = [a for a in alibi_weights(slopes, max_len, alibi.alibi_attention_span(slopes, max_len, 0.9)).layout.annotations if "head" in a.text]
        top = max(a.y for a in names)
        placed = sorted((a.y, a.y / top * SPAN_PLOT_PX - a.ay) for a in names)  # ay: pixels down from the point
        centres = [p for _, p in placed]
        assert len(names) == min(n_heads, 8) and np.diff(centres).min() >= SPAN_NAME_PX - 1e-9, max_len
        assert SPAN_NAME_PX / 2 - 1e-9 <= min(centres) and max(centres) <= SPAN_PLOT_PX - SPAN_NAME_PX / 2 + 1e-9, max_len


def test_the_span_charts_names_stand_on_an_axis_from_0_and_one_key_has_one_name():
    slopes = alibi.alibi_slopes(8)
    fig = alibi_weights(slopes, 2, alibi.alibi_attention_span(slopes, 2, 0.9))  # two keys: every weight far from 0
    assert fig.layout.yaxis.rangemode == "tozero"  # the lifts count pixels from a weight of 0
    fig = alibi_weights(slopes, 1, alibi.alibi_attention_span(slopes, 1, 0.9))  # one key: every head's one point is (1, 1.0)
    assert [a.text for a in fig.layout.annotations if "head" in a.text] == ["every head drawn"]
