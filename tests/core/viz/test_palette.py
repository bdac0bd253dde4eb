"""core.viz.palette: one colour per scheme, per RoPE scaling region and per recurring series, read back
from the figures that draw them (the figure builders of the lab and the model page; the /rope and /context
scaling figures are read in tests/app/test_rope.py and tests/app/test_context.py), and the colours drawn
together told apart with every common colour-vision deficiency (the simulation of test_colour_vision)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from core.analysis import position_analysis as pa
from core.lab import figures, lm_figures, trained_figures
from core.lab.config import LabConfig, LabResult
from core.schemes import rope
from core.schemes.registry import SCHEMES
from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz import charts, model_figures, palette
from tests.core.viz.test_colour_vision import VISIONS, lab

APART = 12.0  # ΔE*ab between any two colours drawn in one figure, for every vision: five just noticeable differences


def rgb8(colour: str) -> list[int]:
    return [int(colour[k : k + 2], 16) for k in (1, 3, 5)]


def closest(colours: list[str], vision: str | None) -> float:
    """The smallest ΔE*ab between two of `colours` as seen with `vision`."""
    seen = lab(np.array([rgb8(c) for c in colours]), vision)
    return min(float(np.linalg.norm(seen[i] - seen[j])) for i, j in itertools.combinations(range(len(colours)), 2))


def test_every_scheme_and_region_has_one_colour():
    assert set(palette.SCHEME_COLOURS) == set(SCHEMES)
    assert set(palette.REGION_COLOURS) == set(rope.REGION_LABELS)
    assert len(set(palette.SCHEME_COLOURS.values())) == len(SCHEMES)  # no two schemes share a colour
    assert palette.YELLOW not in palette.SCHEME_COLOURS.values() and palette.YELLOW not in charts.LINE_COLOURS  # too light for a line on white
    assert len(set(charts.LINE_COLOURS)) == len(charts.LINE_COLOURS) == 13
    assert palette.tint("#0072B2", 0.2) == "rgba(0,114,178,0.2)"


@pytest.mark.parametrize("vision", VISIONS)
def test_colours_drawn_together_stay_apart(vision):
    lab_defaults = [palette.scheme_colour(s) for s in ("none", "sinusoidal", "learned", "rope", "t5", "alibi")]
    regions = [palette.region_colour(r) for r in ("kept", "blended", "interpolated")]
    rope_scaling = [palette.UNSCALED, palette.OTHER_BASE, *regions, palette.TARGET, palette.MARK]
    context = [palette.UNSCALED, palette.SHORT, *regions, palette.TARGET, palette.MARK, palette.SCALED]
    heads = list(charts.LINE_COLOURS[:10])  # lines that name nothing, up to ten of them (ALiBi's heads, a sinusoid's dimensions)
    for group in (lab_defaults, rope_scaling, context, heads):
        assert closest(group, vision) >= APART, group
    # thirteen schemes cannot all be apart by colour: any two that are not differ in dash
    for a, b in itertools.combinations(SCHEMES, 2):
        if closest([palette.scheme_colour(a), palette.scheme_colour(b)], vision) < APART:
            assert palette.scheme_dash(a) != palette.scheme_dash(b), (a, b, vision)


def test_scaling_names_take_their_region_colour():
    assert palette.scaling_colour("after: kept") == palette.BLUE
    assert palette.scaling_colour("after: interpolated") == palette.region_colour("interpolated") == palette.VERMILLION
    assert palette.scaling_colour("after, for sequences up to 4,096 positions") == palette.SHORT
    assert palette.scaling_colour("base 500,000 (no scaling)") == palette.OTHER_BASE
    assert palette.scaling_colour("before: base 10,000") == palette.scaling_colour("every turning pair") == palette.UNSCALED
    with pytest.raises(KeyError):
        palette.scaling_colour("after: stretched")


def colours(fig) -> list[str]:
    return [t.line.color for t in fig.data]


def run(scheme: str) -> tuple[LabConfig, LabResult]:
    config = LabConfig(scheme=scheme, eval_lens=(32, 64))
    return config, LabResult(config, np.linspace(3, 1, 5), {32: 0.9, 64: 0.5}, {}, np.full(64, 0.7), None, 1.0, 1.0, False)


def test_live_lab_figures_draw_each_scheme_in_its_colour():
    done = [run(s) for s in ("rope", "alibi", "kerple")]  # a non-default scheme (Tol colour) dashed
    expected = [palette.GREEN, palette.VERMILLION, palette.MAGENTA]
    for build in (figures.accuracy_by_length, figures.accuracy_by_position, figures.loss_curves):
        fig = build(done)
        assert colours(fig)[:3] == expected
        assert [t.marker.color for t in fig.data[:3]] == expected
        assert [t.line.dash for t in fig.data[:3]] == ["solid", "solid", "dash"]
    assert colours(figures.answer_map(done[0][0])) == [palette.TESTED, palette.TRAINED]


def test_real_text_figures_draw_each_scheme_in_the_same_colour_as_the_live_lab():
    ppl = {64: 3.0, 256: 4.0}
    fig = lm_figures.perplexity_by_length([("sinusoidal", ppl), ("rope", ppl), ("alibi", ppl)], 64, what="test")
    assert colours(fig) == [palette.BLUE, palette.GREEN, palette.VERMILLION]
    probe = trained_figures.probe_figure([("rope", 2, [0.1, 0.5, 0.9]), ("none", 1, [0.0, 0.2])], what="test")
    assert colours(probe) == [palette.GREEN, palette.BLACK]
    rows = [{"scheme": s, "window": w, "stride": 32, "sliding": 3.0, "nonoverlapping": 4.0} for s in ("alibi", "rope") for w in (64, 128)]
    sliding = trained_figures.sliding_figure(rows, ["alibi", "rope"], what="test")
    assert colours(sliding) == [palette.VERMILLION] * 2 + [palette.GREEN] * 2 and [t.line.dash for t in sliding.data] == ["solid", "dash"] * 2
    passkey = trained_figures.passkey_figure([("t5", {"10": 1.0, "100": 0.5}), ("learned", {"10": 1.0, "100": None})], 8, 64, what="test")
    assert colours(passkey)[:2] == [palette.PURPLE, palette.ORANGE]


def test_model_figures_draw_the_learned_table_and_the_sinusoid_in_their_schemes_colours():
    table = np.random.default_rng(0).normal(size=(40, 16))
    A, S = pa.analyse(table), pa.analyse(sinusoidal_encoding(40, 16, 10_000.0))
    figs = model_figures.table_figures(A, S, "learned", "sinusoid")
    learned, sinusoid = palette.scheme_colour("learned"), palette.scheme_colour("sinusoidal")
    for key in ("model_neighbour", "model_variance", "model_dominant"):
        assert colours(figs[key]) == [learned, sinusoid], key
    # mean ± sd: one shaded band in the learned table's colour under its mean, not two more lines
    band, mean, sin = figs["model_offset"].data
    assert band.fill == "toself" and band.fillcolor == palette.tint(learned, 0.2) and band.line.width == 0
    assert (mean.line.color, sin.line.color) == (learned, sinusoid)
    n = len(mean.x)
    np.testing.assert_allclose(np.asarray(band.y[:n], dtype=float), A.offset_mean + A.offset_std)
    np.testing.assert_allclose(np.asarray(band.y[n:], dtype=float), (A.offset_mean - A.offset_std)[::-1])
