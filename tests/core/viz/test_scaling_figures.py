"""/rope · Scaling's figures (core.viz.scaling_figures): their reference marks' labels stand clear of each other on a phone's plot,
at the page's defaults and at its sliders' ends, read back from where the figures put them."""

from __future__ import annotations

import numpy as np
import pytest

from core.schemes import rope
from core.viz import charts
from core.viz.scaling_figures import RATIO_PX, WAVELENGTH_PX, joined, ratio_figure, wavelength_figure

HEAD_DIM, BASE = 64, 10_000.0  # the page's defaults


def figures(kind: str, factor: float, original: int, max_len: int):
    theta = rope.default_frequencies(HEAD_DIM, BASE)
    if kind == "none":
        scaled, ratio, labels, edges = theta, np.ones_like(theta), np.full(theta.size, "kept"), ()
    else:
        scaling = rope.RopeScaling(kind, factor, original)
        scaled, _ = rope.rope_frequencies(HEAD_DIM, BASE, scaling, seq_len=max_len)
        regions = rope.scaling_regions(HEAD_DIM, BASE, scaling, seq_len=max_len)
        ratio, labels, edges = regions.ratio, regions.label, regions.edges
    return (
        wavelength_figure(HEAD_DIM, BASE, kind, theta, scaled, labels, original, max_len, edges),
        ratio_figure(theta, ratio, factor, original, edges),
        edges,
    )


def _decades(values) -> tuple[float, float]:
    logs = np.log10(np.asarray(values, dtype=np.float64)[np.asarray(values, dtype=np.float64) > 0])
    return float(logs.min()), float(logs.max())


def y_boxes(fig) -> list[tuple[str, float, float, float, float]]:
    """Each y mark's label as (text, left, right, bottom, top) in pixels of the phone's plot, from its anchor and the axis' decades."""
    width, height = WAVELENGTH_PX
    lo, hi = _decades([v for t in fig.data for v in t.y] + [s.y0 for s in fig.layout.shapes])
    boxes = []
    for a in fig.layout.annotations:
        if a.yref != "y" or not a.text:
            continue
        wide, at = charts.MARK_CHAR_PX * len(a.text) + 6, (a.y - lo) / (hi - lo) * height
        left = (width - wide if a.xanchor == "right" else 0.0) + (a.xshift or 0) * (-1 if a.xanchor == "right" else 1)
        boxes.append((a.text, left, left + wide, *((at, at + charts.MARK_LINE_PX) if a.yanchor == "bottom" else (at - charts.MARK_LINE_PX, at))))
    return boxes


def x_boxes(fig) -> list[tuple[str, float, float, int]]:
    """Each x mark's label as (text, left, right, row: 0 above the plot, then the rows inside its top edge) in pixels of the phone's plot."""
    width = RATIO_PX[0]
    lo, hi = _decades([v for t in fig.data for v in t.x] + [s.x0 for s in fig.layout.shapes if s.xref == "x"])
    boxes = []
    for a in fig.layout.annotations:
        if a.xref != "x":
            continue
        at, half = (a.x - lo) / (hi - lo) * width, charts.MARK_CHAR_PX * len(a.text) / 2
        boxes.append((a.text, at - half, at + half, 0 if a.yanchor == "bottom" else 1 - round((a.yshift or 0) / charts.MARK_LINE_PX)))
    return boxes


SETTINGS = [  # (kind, factor, original, max_len): the defaults, each slider at its ends, each kind, the sidebar's longest context
    ("yarn", 4.0, 64, 256),
    ("yarn", 1.0, 256, 256),
    ("yarn", 1024.0, 1, 256),
    ("yarn", 4.0, 1, 256),
    ("yarn", 4.0, 256, 256),
    ("linear", 4.0, 64, 256),
    ("ntk", 4.0, 64, 256),
    ("llama3", 4.0, 64, 256),
    ("llama3", 1.0, 256, 256),
    ("none", 4.0, 64, 256),
    ("yarn", 4.0, 32_768, 131_072),
    ("yarn", 1024.0, 128, 131_072),
]


@pytest.mark.parametrize("kind, factor, original, max_len", SETTINGS)
def test_no_two_mark_labels_meet_on_a_phone(kind, factor, original, max_len):
    wavelengths, ratio, edges = figures(kind, factor, original, max_len)
    ys = y_boxes(wavelengths)
    for k, (a, l1, r1, b1, t1) in enumerate(ys):
        for b, l2, r2, b2, t2 in ys[k + 1 :]:
            assert r1 <= l2 or r2 <= l1 or t1 <= b2 or t2 <= b1, (a, b)
    xs = x_boxes(ratio)
    for k, (a, l1, r1, row1) in enumerate(xs):
        for b, l2, r2, row2 in xs[k + 1 :]:
            assert row1 != row2 or r1 <= l2 or r2 <= l1, (a, b)
    named = [a.text for a in ratio.layout.annotations if a.xref == "x"]  # every band edge named along the ratio chart's axis
    assert len(named) == 1 + len(edges) and all("e+" not in text for text in named)


def test_the_defaults_labels_stand_off_the_dots():
    wavelengths, _, _ = figures("yarn", 4.0, 64, 256)
    width, height = WAVELENGTH_PX
    lo, hi = _decades([v for t in wavelengths.data for v in t.y] + [s.y0 for s in wavelengths.layout.shapes])
    x = np.concatenate([t.x for t in wavelengths.data])
    px = (x - x.min()) / (x.max() - x.min()) * width  # pairs 0 .. 31 across the plot
    py = (np.log10(np.concatenate([t.y for t in wavelengths.data])) - lo) / (hi - lo) * height
    for text, left, right, bottom, top in y_boxes(wavelengths):
        assert not np.any((px > left) & (px < right) & (py > bottom) & (py < top)), text


def test_marks_at_one_value_share_a_label_and_a_band_edge_crowding_one_is_left_unlabelled():
    data = np.array([1.0, 1e6])  # six decades over the phone's plot: 14 pixels are about 0.4 of a decade
    marks = [(64, "original context", "a"), (256, "target max_len", "b"), (64.0, "band edge", "c"), (80.0, "band edge", "c"), (35_333.3, "band edge", "c")]
    drawn = joined(marks, data)
    assert drawn == [(64, "original context = band edge 64", "a"), (256, "target max_len 256", "b"), (80.0, "", "c"), (35_333.3, "band edge 35,333", "c")]
    assert joined([(256, "original context", "a"), (256, "target max_len", "b")], data) == [(256, "original context = target max_len 256", "a")]
