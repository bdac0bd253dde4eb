"""AppTest of the `similarity` page's own controls: what they change on screen, and bad input.
The page draws one tab at a time (ui/tabs.py); a test opens the tab it checks through the link."""

from __future__ import annotations

import numpy as np
import pytest

from core.analysis import similarity
from core.viz.grid import strided
from core.viz.heatmap import levels
from tests.app.conftest import assert_clean, chart_keys, decode, figures, grid_keys, grids, metric_values, open_page, open_views, panel_levels, title_text


def test_similarity_measures_are_shown():
    at = open_page("similarity", sim_view="Distance")
    assert_clean(at)
    assert float(metric_values(at)[1]) < 1e-12  # consecutive distance spread: rounding level for even d
    at = open_page("similarity", sim_view="Shift by k")
    assert_clean(at)
    values = metric_values(at)
    assert float(values[0]) < 1e-10  # rotation residual
    assert values[1] == "256 (all)"


def test_similarity_odd_width_says_what_breaks():
    views = open_views("similarity", d_model="7", max_len="300")
    for at in views:
        assert_clean(at)
    text = " ".join(c.value for at in views for c in at.caption)
    assert "lone" in text and "√((d−1)/2)" in text
    at = open_page("similarity", d_model="7", max_len="300", sim_view="Shift by k")
    assert float(metric_values(at)[0]) > 1e-3  # the lone sine cannot be rotated


def test_similarity_reference_and_offset_controls():
    at = open_page("similarity", max_len="100", sim_view="Distance")
    at.number_input(key="reference").set_value(0).run()
    assert_clean(at)
    assert any("to position 0" in title_text(f) for f in figures(at))
    at = open_page("similarity", max_len="100", sim_view="Shift by k")
    at.number_input(key="offset").set_value(40).run()
    assert_clean(at)
    assert any("M₄₀" in spec["title"] for spec in grids(at))  # Unicode, not raw TeX


def test_similarity_draws_only_the_open_tab():
    at = open_page("similarity")
    assert grid_keys(at) == ["sim_matrices"] and chart_keys(at) == []  # painted by the browser
    assert chart_keys(open_page("similarity", sim_view="Distance")) == ["sim_profile", "sim_consecutive"]
    assert chart_keys(open_page("similarity", sim_view="Uniqueness and norms")) == ["sim_norms"]


@pytest.mark.parametrize(("params", "start", "stop"), [({}, 0, 256), ({"d_model": "64", "max_len": "1000", "base": "500"}, 0, 1000)])
def test_similarity_matrices_are_cores_cosines_on_one_range(params, start, stop):
    """The two panels: the sinusoid's cosine similarity and the sines-only code's, at the page's
    strided positions, on one range ±1 (a cosine's), the picture and the hover's values both core's."""
    d, base = int(params.get("d_model", 128)), float(params.get("base", 10_000))
    (spec,) = grids(open_page("similarity", **params))
    g = strided(stop, 250, start=start)
    want = [similarity.similarity_matrix(g.start, g.step, g.count, d, base, kind="cosine"), similarity.sines_only_cosine(g.indices, d, base)]
    assert [p["title"] for p in spec["panels"]] == ["sines and cosines (the sinusoid)", "sines only, the same frequencies"]
    assert spec["shared_range"] and spec["scales"][0]["hi"] == "+1.00" and spec["scales"][0]["value"] == "cosine"
    for panel, values in zip(spec["panels"], want):
        assert (panel["zmin"], panel["zmax"]) == (-1.0, 1.0)
        assert panel["y"]["indices"] == panel["x"]["indices"] == g.indices.tolist()
        k = panel["probe"]
        np.testing.assert_allclose(decode(panel["z"]), values[::k, ::k], atol=1e-6)  # the hover's values
        assert np.mean(panel_levels(panel) == levels(values, -1.0, 1.0)) > 0.999  # the picture (a level's edge may round either way in float32)


def test_similarity_distance_sentence_at_d_model_2():
    # one pair: the cosine is cos(p − ref), a ±1 swing with no fall-off
    at = open_page("similarity", d_model="2", max_len="256", sim_view="Distance")
    assert_clean(at)
    text = " ".join(c.value for c in at.caption)
    assert "It does not fall off with distance" in text and "floor" not in text


def test_similarity_toeplitz_sentence_at_d_model_3():
    # the lone sine makes the value depend on where the positions are, not only on p − q
    at = open_page("similarity", d_model="3", max_len="256")
    assert_clean(at)
    text = " ".join(c.value for c in at.caption)
    assert "Toeplitz matrix)" not in text and "not exactly constant along its diagonals" in text


def test_similarity_matrices_at_one_position_describe_one_cell():
    at = open_page("similarity", max_len="1")
    assert_clean(at)
    text = " ".join(c.value for c in at.caption)
    assert "each matrix is a single cell" in text and "bands parallel" not in text and "Toeplitz" not in text
    assert "What these terms mean" not in [e.label for e in at.expander]  # one cell names no term to define
