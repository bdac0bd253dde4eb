"""/rope · Scaling's figures (core.viz.scaling_figures): their reference marks' labels lie inside a phone's plot and stand clear of
each other there, at the page's defaults and at its sliders' ends, read back from where the figures put them."""

from __future__ import annotations

import numpy as np
import pytest

from core.analysis.context import ROPE_PAGE_HEAD_DIMS
from core.schemes import rope
from core.viz import charts
from core.viz.scaling_figures import RATIO_PX, WAVELENGTH_PX, joined, ratio_figure, wavelength_figure
from ui.params import BASE, MAX_LEN
from ui.rope_controls import KINDS, MAX_FACTOR, MAX_ORIGINAL

HEAD_DIM, BASE_DEFAULT = 64, BASE.default  # the page's defaults


def figures(kind: str, factor: float, original: int, max_len: int, head_dim: int = HEAD_DIM, base: float = BASE_DEFAULT):
    theta = rope.default_frequencies(head_dim, base)
    if kind == "none":
        scaled, ratio, labels, edges = theta, np.ones_like(theta), np.full(theta.size, "kept"), ()
    else:
        scaling = rope.RopeScaling(kind, factor, original)
        scaled, _ = rope.rope_frequencies(head_dim, base, scaling, seq_len=max_len)
        regions = rope.scaling_regions(head_dim, base, scaling, seq_len=max_len)
        ratio, labels, edges = regions.ratio, regions.label, regions.edges
    return (
        wavelength_figure(head_dim, base, kind, theta, scaled, labels, original, max_len, edges),
        ratio_figure(theta, ratio, factor, original, edges),
        edges,
    )


def _decades(values) -> tuple[float, float]:
    logs = np.log10(np.asarray(values, dtype=np.float64)[np.asarray(values, dtype=np.float64) > 0])
    return float(logs.min()), float(logs.max())


def y_boxes(fig, plot_px: tuple[float, float] = WAVELENGTH_PX) -> list[tuple[str, float, float, float, float]]:
    """Each y mark's label as (text, left, right, bottom, top) in pixels of a plot of `plot_px` (the phone's), from its anchor (a
    fraction of the plot's width, moved by any pixel shift; a right-anchored label ends there) and the axis' decades; a label of
    several lines is as wide as its longest and a line high for each."""
    width, height = plot_px
    lo, hi = _decades([v for t in fig.data for v in t.y] + [s.y0 for s in fig.layout.shapes])
    boxes = []
    for a in fig.layout.annotations:
        if a.yref != "y" or not a.text:
            continue
        rows = a.text.split("<br>")
        wide, tall = charts.MARK_CHAR_PX * max(map(len, rows)) + 6, charts.MARK_LINE_PX * len(rows)
        at, anchor = (a.y - lo) / (hi - lo) * height, a.x * width + (a.xshift or 0)
        left = anchor - wide if a.xanchor == "right" else anchor
        boxes.append((a.text, left, left + wide, *((at, at + tall) if a.yanchor == "bottom" else (at - tall, at))))
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


SLOWEST = (1024.0, 1, 256)  # the largest factor, the shortest original context
SETTINGS = [  # (kind, factor, original, max_len, head_dim, base): the defaults, each kind, each slider at its ends
    *[(kind, 4.0, 64, 256, HEAD_DIM, BASE_DEFAULT) for kind in KINDS],
    ("yarn", 4.0, 64, 256, HEAD_DIM, BASE.lo),
    ("yarn", 4.0, 1, 256, HEAD_DIM, BASE.lo),
    ("yarn", 4.0, 64, 256, HEAD_DIM, BASE.hi),
    ("llama3", 4.0, 64, 256, HEAD_DIM, BASE.hi),
    ("yarn", 4.0, 64, 256, ROPE_PAGE_HEAD_DIMS[0], BASE_DEFAULT),
    ("yarn", 4.0, 64, 256, ROPE_PAGE_HEAD_DIMS[-1], BASE_DEFAULT),
    ("yarn", rope.MIN_FACTOR, 256, 256, HEAD_DIM, BASE_DEFAULT),
    ("linear", rope.MIN_FACTOR, 256, 256, HEAD_DIM, BASE_DEFAULT),
    ("llama3", rope.MIN_FACTOR, 256, 256, HEAD_DIM, BASE_DEFAULT),
    ("yarn", MAX_FACTOR, *SLOWEST[1:], HEAD_DIM, BASE_DEFAULT),
    ("ntk", MAX_FACTOR, *SLOWEST[1:], HEAD_DIM, BASE_DEFAULT),
    ("yarn", 4.0, 1, 256, HEAD_DIM, BASE_DEFAULT),
    ("yarn", 4.0, 1, int(MAX_LEN.lo), HEAD_DIM, BASE_DEFAULT),
    ("none", 4.0, 1, int(MAX_LEN.lo), HEAD_DIM, BASE_DEFAULT),
    ("yarn", 2.0, 2048, 4096, HEAD_DIM, BASE_DEFAULT),
    ("linear", 2.0, 2048, 4096, HEAD_DIM, BASE_DEFAULT),
    ("yarn", 4.0, 32_768, int(MAX_LEN.hi), HEAD_DIM, BASE_DEFAULT),
    ("yarn", MAX_FACTOR, 128, int(MAX_LEN.hi), HEAD_DIM, BASE_DEFAULT),
    ("linear", MAX_FACTOR, MAX_ORIGINAL // 4, int(MAX_LEN.hi), HEAD_DIM, BASE.hi),
    ("llama3", MAX_FACTOR, MAX_ORIGINAL, int(MAX_LEN.hi), ROPE_PAGE_HEAD_DIMS[-1], BASE.hi),
]


@pytest.mark.parametrize("kind, factor, original, max_len, head_dim, base", SETTINGS)
def test_mark_labels_lie_inside_a_phones_plot_and_never_meet(kind, factor, original, max_len, head_dim, base):
    wavelengths, ratio, edges = figures(kind, factor, original, max_len, head_dim, base)
    ys = y_boxes(wavelengths)
    for text, left, right, _, _ in ys:
        assert 0 <= left and right <= WAVELENGTH_PX[0] + 1e-9, (text, left, right)
    for k, (a, l1, r1, b1, t1) in enumerate(ys):
        for b, l2, r2, b2, t2 in ys[k + 1 :]:
            assert r1 <= l2 or r2 <= l1 or t1 <= b2 or t2 <= b1, (a, b)
    xs = x_boxes(ratio)
    for k, (a, l1, r1, row1) in enumerate(xs):
        for b, l2, r2, row2 in xs[k + 1 :]:
            assert row1 != row2 or r1 <= l2 or r2 <= l1, (a, b)
    named = [a.text for a in ratio.layout.annotations if a.xref == "x"]  # every band edge named along the ratio chart's axis
    assert len(named) == 1 + len(edges) and all("e+" not in text for text in named)


DESKTOP_PX = (860.0, 266.0)  # the wavelength chart's plot at 1,440 pixels, measured in Chromium
CLEAR = [  # (settings, the plot's size): settings where every label finds a place clear of the dots
    (("yarn", 4.0, 64, 256, HEAD_DIM, BASE_DEFAULT), WAVELENGTH_PX),  # the defaults
    (("linear", rope.MIN_FACTOR, 256, 256, HEAD_DIM, BASE_DEFAULT), WAVELENGTH_PX),
    (("yarn", 4.0, 1, 256, HEAD_DIM, BASE.lo), WAVELENGTH_PX),
    # a phone's plot has no room for 'original context 2,048' beside the dots, but the label's place, a fraction of the
    # plot's width, lies on the same data in a desktop's plot, where it covers less of them
    (("yarn", 2.0, 2048, 4096, HEAD_DIM, BASE_DEFAULT), DESKTOP_PX),
    (("linear", 2.0, 2048, 4096, HEAD_DIM, BASE_DEFAULT), DESKTOP_PX),
    (("linear", rope.MIN_FACTOR, 256, 256, HEAD_DIM, BASE_DEFAULT), DESKTOP_PX),
    (("llama3", rope.MIN_FACTOR, 256, 256, HEAD_DIM, BASE_DEFAULT), DESKTOP_PX),
]


@pytest.mark.parametrize("settings, plot_px", CLEAR)
def test_labels_stand_off_the_dots(settings, plot_px):
    wavelengths, _, _ = figures(*settings)
    width, height = plot_px
    lo, hi = _decades([v for t in wavelengths.data for v in t.y] + [s.y0 for s in wavelengths.layout.shapes])
    x = np.concatenate([t.x for t in wavelengths.data])
    px = (x - x.min()) / (x.max() - x.min()) * width  # pairs 0 .. 31 across the plot
    py = (np.log10(np.concatenate([t.y for t in wavelengths.data])) - lo) / (hi - lo) * height
    boxes = y_boxes(wavelengths, plot_px)
    assert boxes  # none dropped for want of room
    for text, left, right, bottom, top in boxes:
        assert not np.any((px > left) & (px < right) & (py > bottom) & (py < top)), text


def test_marks_at_one_value_share_a_label_and_a_band_edge_crowding_one_is_left_unlabelled():
    data = np.array([1.0, 1e6])  # six decades over the phone's plot: 14 pixels are about 0.4 of a decade
    marks = [(64, "original context", "a"), (256, "max_len", "b"), (64.0, "band edge", "c"), (80.0, "band edge", "c"), (35_333.3, "band edge", "c")]
    drawn = joined(marks, data)
    assert drawn == [(64, "original =<br>band edge 64", "a"), (256, "max_len 256", "b"), (80.0, "", "c"), (35_333.3, "band edge 35,333", "c")]
    three = [(256, "original context", "a"), (256, "max_len", "b"), (256.0, "band edge", "c")]
    assert joined(three, data) == [(256, "original =<br>max_len =<br>band edge 256", "a")]
