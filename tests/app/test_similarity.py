"""AppTest of the `similarity` page's own controls: what they change on screen, and bad input.
The page draws one tab at a time (ui/sections.py); a test opens the tab it checks through the link."""

from __future__ import annotations

from tests.app.conftest import assert_clean, chart_keys, figures, metric_values, open_page, open_views, title_text


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
    assert any("M₄₀" in title_text(f) for f in figures(at))  # Unicode, not raw TeX


def test_similarity_draws_only_the_open_tab():
    assert chart_keys(open_page("similarity")) == ["sim_matrices"]
    assert chart_keys(open_page("similarity", sim_view="Distance")) == ["sim_profile", "sim_consecutive"]
    assert chart_keys(open_page("similarity", sim_view="Uniqueness and norms")) == ["sim_norms"]
