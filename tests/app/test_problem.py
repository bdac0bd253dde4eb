"""AppTest of the `problem` page's own controls: what they change on screen, and bad input."""

from __future__ import annotations

import pytest

from core.analysis.attention import tokenize
from tests.app.conftest import assert_clean, figures, metric_values, open_page


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
