"""AppTest of each page's own controls: what they change on screen, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from core.schemes import sinusoidal
from core.analysis.attention import tokenize
from tests.app.conftest import assert_clean, decode, figures, open_page, title_text


def metric_values(at) -> list[str]:
    return [m.value for m in at.metric]


# --- problem ---------------------------------------------------------------------------


def test_problem_shows_the_residuals_and_bag_of_words_numbers():
    at = open_page("problem")
    assert_clean(at)
    plain, with_pe = metric_values(at)[:2]
    assert float(plain) < 1e-13 and float(with_pe) > 1e-3
    table = at.dataframe[0].value
    assert table.iloc[0, 1] == "1.000000"  # cosine without positions
    assert float(table.iloc[1, 1]) < 1.0


def test_problem_shuffle_button_changes_the_order():
    at = open_page("problem")
    shuffled = [m.value for m in at.markdown if m.value.startswith("Shuffled")]
    at.button(key="problem_shuffle").click().run()
    after = [m.value for m in at.markdown if m.value.startswith("Shuffled")]
    assert shuffled and after and shuffled != after
    assert float(metric_values(at)[0]) < 1e-13


@pytest.mark.parametrize(
    ("sentence", "outcome"),
    [
        ("", "warning"),
        ("!!! ... ???", "warning"),
        ("😀 🎉", "warning"),
        ("word", "warning"),
        ("Привет мир, 你好 世界", "ok"),
        (" ".join(["tok"] * 10_000), "info"),
    ],
)
def test_problem_sentence_input_edge_cases(sentence, outcome):
    at = open_page("problem")
    at.text_input(key="problem_sentence").input(sentence[:2000]).run()
    assert_clean(at)
    if outcome == "warning":
        assert any("at least two words" in w.value for w in at.warning)
    elif outcome == "info":
        assert any("first 64" in i.value for i in at.info)
        assert len(figures(at)) >= 2
    else:
        assert len(tokenize(sentence)) == 4 and len(figures(at)) >= 2


def test_problem_caps_the_demo_width_with_a_notice():
    at = open_page("problem", d_model="8192")
    assert_clean(at)
    assert any("width 512" in i.value for i in at.info)


# --- sinusoidal ------------------------------------------------------------------------


def test_sinusoidal_layout_toggle_changes_the_heatmap():
    at = open_page("sinusoidal", d_model="8", max_len="16")
    z = decode(figures(at)[0]["data"][0]["z"])
    np.testing.assert_allclose(z, sinusoidal.sinusoidal_encoding(16, 8), atol=1e-7)
    at.button_group(key="layout").set_value("concat").run()
    assert_clean(at)
    z = decode(figures(at)[0]["data"][0]["z"])
    np.testing.assert_allclose(z, sinusoidal.sinusoidal_encoding(16, 8, layout="concat"), atol=1e-7)
    assert "sines-first layout" in " ".join(c.value for c in at.caption)


def test_sinusoidal_exact_vector_matches_core():
    at = open_page("sinusoidal", d_model="6", max_len="50", base="100")
    at.number_input(key="position").set_value(37).run()
    assert_clean(at)
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["PE(37, j)"].to_numpy(), sinusoidal.sinusoidal_encoding(50, 6, 100.0)[37], atol=1e-15)
    assert list(table["function"]) == ["sin", "cos"] * 3


def test_sinusoidal_counts_pairs_longer_than_context():
    at = open_page("sinusoidal", d_model="128", max_len="256", base="10000")
    expected = int((sinusoidal.wavelengths(128, 1e4) > 256).sum())
    assert metric_values(at)[2] == f"{expected:,}"
    assert expected == 38


def test_sinusoidal_latex_shows_current_settings():
    at = open_page("sinusoidal", d_model="64", base="500000")
    latex = at.latex[0].value
    assert "2i/64" in latex and "500{,}000" in latex


def test_sinusoidal_waves_need_a_dimension():
    at = open_page("sinusoidal")
    at.multiselect(key="sin_dims").set_value([]).run()
    assert_clean(at)
    assert any("Pick at least one dimension" in i.value for i in at.info)


def test_sinusoidal_window_narrows_the_heatmap():
    at = open_page("sinusoidal", max_len="131072")
    at.slider(key="sin_window").set_value((1000, 1099)).run()
    assert_clean(at)
    fig = figures(at)[0]
    assert "positions 1,000 to 1,099" in title_text(fig)
    assert fig["data"][0]["type"] == "heatmap"  # 100 x 128 cells: exact values on hover


# --- similarity ------------------------------------------------------------------------


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
    assert any("M_40" in t for t in titles)


def test_untouched_page_controls_follow_the_shared_settings_moved_ones_stay():
    at = open_page("sinusoidal", max_len="256", d_model="128")
    assert at.slider(key="sin_window").value == (0, 255)
    at.number_input(key="max_len").set_value(512).run()
    assert at.slider(key="sin_window").value == (0, 511)  # untouched: follows, as a fresh link would show
    assert at.multiselect(key="sin_dims").value == [0, 1, 16, 64]
    at.number_input(key="d_model").set_value(256).run()
    assert at.multiselect(key="sin_dims").value == [0, 1, 32, 128]
    at.slider(key="sin_window").set_value((10, 99)).run()
    at.number_input(key="max_len").set_value(1000).run()
    assert at.slider(key="sin_window").value == (10, 99)  # moved by the user: kept
    assert_clean(at)


@pytest.mark.parametrize(
    ("page", "key", "value"),
    [("sinusoidal", "layout", "concat"), ("rope", "rope_layout", "interleaved"), ("rope", "scaling", "llama3"), ("compare", "schemes", "rope,alibi")],
)
def test_choice_links_carry_plain_names(page, key, value):
    """Choice widgets with display labels keep plain option names in the URL, both ways (a
    widget bound by Streamlit would put its label there and drop a plain name)."""
    at = open_page(page, **{key: value})
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    widget = at.multiselect(key=key) if key == "schemes" else at.get("button_group") if key.endswith("layout") else at.selectbox(key=key)
    if key == "schemes":
        assert widget.value == value.split(",")
    elif key == "scaling":
        assert widget.value == value
    assert at.query_params[key] == value
    assert at.session_state[key] == (value.split(",") if key == "schemes" else value)


@pytest.mark.parametrize(("page", "key", "raw"), [("sinusoidal", "layout", "diagonal"), ("rope", "scaling", "magic"), ("compare", "schemes", "rope,nonsense")])
def test_unknown_choice_in_link_gives_notice(page, key, raw):
    at = open_page(page, **{key: raw})
    assert_clean(at)
    assert any(key in w.value for w in at.warning), [w.value for w in at.warning]
