"""AppTest of the `similarity` page's own controls: what they change on screen, and bad input."""

from __future__ import annotations

from tests.app.conftest import assert_clean, figures, metric_values, open_page, title_text


def test_similarity_measures_are_shown():
    at = open_page("similarity")
    assert_clean(at)
    values = metric_values(at)
    # consecutive distance spread, rotation residual: rounding level for even d
    assert float(values[1]) < 1e-12
    assert float(values[2]) < 1e-10
    assert values[3] == "256 (all)"


def test_similarity_odd_width_says_what_breaks():
    at = open_page("similarity", d_model="7", max_len="300")
    assert_clean(at)
    text = " ".join(c.value for c in at.caption)
    assert "lone" in text and "√((d−1)/2)" in text
    assert float(metric_values(at)[2]) > 1e-3  # the lone sine cannot be rotated


def test_similarity_reference_and_offset_controls():
    at = open_page("similarity", max_len="100")
    at.number_input(key="reference").set_value(0).run()
    at.number_input(key="offset").set_value(40).run()
    assert_clean(at)
    titles = [title_text(f) for f in figures(at)]
    assert any("to position 0" in t for t in titles)
    assert any("M₄₀" in t for t in titles)  # Unicode, not raw TeX
