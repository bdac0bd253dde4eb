"""AppTest of the `attention` page: presets, shuffle, every scheme in the picker, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from core.analysis import attention
from core.schemes.registry import SCHEMES, positional_schemes
from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz.charts import number
from tests.app.conftest import assert_clean, chart_keys, decode, figures, grid, grid_keys, grids, open_page, open_views
from tests.pages import CHARTS


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("preset", ["dog bites man", "man bites dog", "the cat sat on the mat", "one word repeated", "a long sentence"])
def test_every_preset(preset):
    at = open_page("attention")
    at.selectbox(key="sentence").set_value(preset).run()
    assert_clean(at)
    m = metrics(at)
    assert float(m["reordering residual, no positions"]) < 1e-12
    shuffled = next(m.value for m in at.markdown if m.value.startswith("Your order")).split("`")[1]  # shown as inert text in a code span
    words = attention.tokenize(shuffled)  # the same words as the sentence, in another order
    if len(set(words)) < len(words):
        assert float(m["same-word rows, no positions"]) < 1e-12
    else:
        assert m["same-word rows, no positions"] == "no repeats"
    assert grid_keys(at) == ["att_orders", "att_side_by_side"] and chart_keys(at) == []  # the open tab's (without, with, difference, painted); the others':
    assert sum(len(figures(run)) + len(grids(run)) for run in open_views("attention", sentence=preset)) == CHARTS["attention"]


def test_side_by_side_weights_are_the_core_numbers():
    at = open_page("attention", d_model="32")
    at.selectbox(key="sentence").set_value("the cat sat on the mat").run()
    words = attention.tokenize("the cat sat on the mat")
    study = attention.attention_study(words, sinusoidal_encoding(6, 32, 1e4), n_heads=1, seed=1)
    spec = grid(at, "att_side_by_side")  # painted by the browser
    panels = spec["panels"]
    assert [p["title"] for p in panels] == ["without positions", "with sinusoidal (paper)", "with positions − without, same order"]
    np.testing.assert_allclose(decode(panels[0]["z"]), study.weights_plain[0], atol=1e-6)
    np.testing.assert_allclose(decode(panels[1]["z"]), study.weights_pe[0], atol=1e-6)
    np.testing.assert_allclose(decode(panels[2]["z"]), study.weights_pe[0] - study.weights_plain[0], atol=1e-6)
    # the two weight panels share 0..max on the sequential scale, the difference is centred on zero: equal colours, equal values
    top = float(max(study.weights_plain[0].max(), study.weights_pe[0].max()))
    bound = float(np.abs(study.weights_pe[0] - study.weights_plain[0]).max())
    assert [x for p in panels for x in (p["zmin"], p["zmax"])] == pytest.approx([0.0, top, 0.0, top, -bound, bound], rel=1e-6)
    assert [p["scale"] for p in panels] == [0, 0, 1] and [s["value"] for s in spec["scales"]] == ["weight", "with − without"]
    assert spec["scales"][1]["note"] == "(with positions − without; white: 0)"  # which minus which, not /'s reordering change
    assert (spec["scales"][0]["lo"], spec["scales"][1]["hi"]) == ("0", f"+{number(bound, 3)}")
    names = [f"{i}:{w}" for i, w in enumerate(words)]  # 'the' twice, told apart by its position
    assert (spec["x_title"], spec["y_title"]) == ("key word", "query word")
    for p in panels:  # 6 words: every one named along both axes, each at its cell; the hover names a cell by them
        assert p["x"]["names"] == p["y"]["names"] == names
        assert p["x"]["ticks"] == p["y"]["ticks"] == [[(k + 0.5) / 6, w] for k, w in enumerate(names)]


def test_a_long_sentence_names_every_row_and_every_kth_column_and_grows_to_fit():
    at = open_page("attention")
    at.selectbox(key="sentence").set_value("a long sentence").run()
    assert_clean(at)
    spec = grid(at, "att_side_by_side")
    words = [label.split(":", 1)[1] for label in spec["panels"][0]["y"]["names"]]
    n = len(words)
    shuffled = next(m.value for m in at.markdown if m.value.startswith("Your order")).split("`")[1]
    assert sorted(attention.tokenize(shuffled)) == sorted(words) and 10 < n <= 40  # the sentence's words, all of them, in order below
    every = -(-n // 10)
    assert every > 1
    for panel in spec["panels"]:
        assert [label for _, label in panel["y"]["ticks"]] == [f"{i}:{w}" for i, w in enumerate(words)]
        assert [label for _, label in panel["x"]["ticks"]] == [f"{i}:{w}" for i, w in enumerate(words) if i % every == 0]
    assert spec["panel_height"] >= 14 * n  # a line per word label
    assert f"every {['', '', '2nd', '3rd', '4th'][every]} column" in spec["note"]


def test_repeated_word_rows_identical_without_positions_distinct_with():
    at = open_page("attention")
    at.selectbox(key="sentence").set_value("one word repeated").run()
    m = metrics(at)
    assert float(m["same-word rows, no positions"]) < 1e-15
    assert float(m["same-word rows, with positions"]) > 1e-3


def test_shuffle_button_reshuffles():
    at = open_page("attention")
    at.selectbox(key="sentence").set_value("the cat sat on the mat").run()
    before = [m.value for m in at.markdown if m.value.startswith("Your order")]
    at.button(key="att_order_shuffle").click().run()
    after = [m.value for m in at.markdown if m.value.startswith("Your order")]
    assert before != after
    assert float(metrics(at)["reordering residual, no positions"]) < 1e-12
    assert float(metrics(at)["reordering residual, with positions"]) > 1e-3


@pytest.mark.parametrize("scheme", positional_schemes())
def test_every_scheme_in_the_picker(scheme):
    # not the default order, the reversal: a bias set by |i − j| alone (ALiBi, KERPLE) attends to a reversed sentence as its mirror image
    at = open_page("attention", att_order="2,0,1")
    assert set(at.selectbox(key="scheme").options) == {SCHEMES[n].label for n in positional_schemes()}
    at.selectbox(key="scheme").set_value(scheme).run()
    assert at.query_params["scheme"] == scheme
    for heads in (1, 4):
        at.selectbox(key="heads").set_value(heads).run()
        assert_clean(at)
        m = metrics(at)
        assert float(m["reordering residual, with positions"]) > 1e-3, heads
        if heads > 1:
            at.selectbox(key="head").set_value(heads - 1).run()
            assert f"head {heads}" in grid(at, "att_side_by_side")["title"]


def test_causal_mask_changes_the_story():
    at = open_page("attention")
    at.toggle(key="causal").set_value(True).run()
    assert_clean(at)
    assert float(metrics(at)["reordering residual, no positions"]) > 1e-3
    assert any("mask itself encodes order" in c.value for c in at.caption)
    # the headline too: without positions a word no longer keeps its attention when the words are reordered
    assert at.markdown[0].value.startswith("Reorder the words: with the causal mask") and "without positions each word keeps" not in at.markdown[0].value
    at.toggle(key="causal").set_value(False).run()
    assert at.markdown[0].value.startswith("Reorder the words: without positions each word keeps its attention")


def test_at_a_position_factor_of_0_no_caption_says_the_positions_change_anything():
    at = open_page("attention", pe_scale="0")
    assert_clean(at)
    said = " ".join(c.value for c in at.caption)
    assert "change no word's weights in either order" in said and "Try another order" not in said and "the pictures differ" not in said
    assert "it changes no weight" in said and "where a word stands changes whom it attends to" not in said


@pytest.mark.parametrize(
    ("text", "outcome"),
    [("", "no words"), ("!!! ??? ...", "no words"), ("😀 🎉 👍", "no words"), ("Привет мир, 你好 世界 مرحبا", "ok"), ("word " * 10_000, "capped"), ("a", "ok")],
)
def test_custom_sentence_edge_cases(text, outcome):
    at = open_page("attention")
    at.selectbox(key="sentence").set_value("your own sentence").run()
    at.text_input(key="text").input(text).run()
    assert_clean(at)
    if outcome == "no words":
        assert any("no words" in w.value for w in at.warning)
        return
    if outcome == "capped":
        assert any("first 256" in i.value for i in at.info)
        panels = grid(at, "att_side_by_side")["panels"]  # 3 x 256 x 256 cells: PNGs, with every 4th row and column's values for the hover
        assert all("image" in p and p["probe"] == 4 and "names" not in p["x"] and p["x"]["indices"] == list(range(256)) for p in panels)
    assert len(grids(at)) == 2 and not figures(at)  # the open tab's (the two orders; with, without and the difference); with the others':
    views = open_views("attention", sentence="your own sentence", text=text)
    assert all(not run.exception for run in views)
    assert sum(len(figures(run)) + len(grids(run)) for run in views) == CHARTS["attention"]


def test_custom_sentence_and_settings_from_the_link():
    at = open_page("attention", sentence="your own sentence", text="colourless green ideas sleep furiously", heads="2", scheme="t2t")
    assert_clean(at)
    assert at.selectbox(key="heads").value == 2 and at.selectbox(key="scheme").value == "t2t"
    assert "colourless" in " ".join(m.value for m in at.markdown if m.value.startswith("Your order"))


def test_unknown_scheme_in_the_link():
    at = open_page("attention", scheme="rope-but-misspelt")
    assert_clean(at)
    assert any("scheme='rope-but-misspelt'" in w.value for w in at.warning)
    assert at.selectbox(key="scheme").value == "sinusoidal" and at.query_params["scheme"] == "sinusoidal"


def test_heads_that_do_not_divide_the_width_get_a_message():
    at = open_page("attention", d_model="6")
    at.selectbox(key="heads").set_value(4).run()
    assert not at.exception
    assert any("does not split into 4 equal heads" in e.value for e in at.error)


def test_width_is_capped_with_a_notice():
    at = open_page("attention", d_model="8192")
    assert_clean(at)
    assert any("width 512" in i.value for i in at.info)


def test_unscaled_words_shift_the_scores_to_positions():
    at = open_page("attention", att_view="Words against positions")
    assert chart_keys(at) == ["att_norms", "att_shares"]
    shares_on = figures(at)[1]["data"][2]["y"]
    at.toggle(key="scale_words").set_value(False).run()
    shares_off = figures(at)[1]["data"][2]["y"]
    assert_clean(at)
    at_one = 8  # FACTORS = linspace(0, 4, 33): index 8 is f = 1
    assert decode(shares_off)[at_one] > 0.5 > decode(shares_on)[at_one]
    # the caption reads the chart at the factor set: unscaled, the position term is the largest part at f = 1
    said = next(c.value for c in at.caption if "as set" in c.value)
    assert f"the position · position term is the largest part ({decode(shares_off)[at_one]:.0%} of the three)" in said
    assert any(e.label == "What these terms mean" for e in at.expander)  # the tab's words, defined above its figures


def test_add_or_concatenate_tab():
    at = open_page("attention", att_view="Add or concatenate")
    assert_clean(at)
    assert list(at.dataframe[0].value["input width"]) == [128, 256]
    at.selectbox(key="scheme").set_value("rope").run()
    assert_clean(at)
    assert any("concatenated" in i.value for i in at.info)


@pytest.mark.parametrize(
    ("words", "extra"),
    [(11, {}), (13, {"causal": "true", "heads": "4"}), (39, {"scheme": "alibi"}), (41, {}), (256, {"causal": "true"})],
)
def test_the_painted_weights_keep_the_figure_rules_at_every_length(words, extra):
    """The grid's rules (tests/app/test_truth.py) on sentences the shared settings never make: 11 and 13 words (word
    ticks at slots a float product puts a hair off), 39 named and 41 numbered, 256 painted as PNGs; a mask; heads."""
    from tests.app.test_truth import check_claims, check_grid

    text = " ".join(f"w{i}" for i in range(words))
    at = open_page("attention", sentence="your own sentence", text=text, **extra)
    assert_clean(at)
    spec = grid(at, "att_side_by_side")
    check_grid("att_side_by_side", spec)
    check_claims("attention", {"att_side_by_side": spec}, {"d_model": 128, "max_len": 256})
    named = words <= 40
    assert all(("names" in p["y"]) == named and (p["probe"] > 1) == (words == 256) for p in spec["panels"])
    assert spec["x_title"] == ("key word" if named else "key position")


def test_the_reordering_test_defines_permutation_equivariant_by_the_glossarys_one_definition():
    from ui import glossary

    at = open_page("attention")
    said = [c.value for c in at.caption if "permutation-equivariant" in c.value]
    assert len(said) == 1 and glossary.definition("permutation-equivariant") in said[0]
    assert glossary.used_in(said[0]) == ["permutation-equivariant"]  # no other term of the glossary goes undefined there


def test_a_new_sentence_starts_its_own_order_without_calling_the_last_sentences_order_a_bad_link():
    at = open_page("attention")  # 'dog bites man', its order written to the URL by the page
    assert_clean(at)
    at.button(key="locality").click().run()  # six words of one repeated word: the three-word order in the URL is the last sentence's
    assert_clean(at)
    assert not any("att_order" in w.value for w in at.warning)
    assert at.query_params["att_order"] == open_page("attention", sentence="one word repeated").query_params["att_order"]  # its default
    bad = open_page("attention", sentence="one word repeated", att_order="2,0,1")  # a link's own order for the wrong count is still refused
    assert any("att_order" in w.value for w in bad.warning)


def test_the_page_opens_on_the_lessons_order_with_what_the_reordering_changed():
    at = open_page("attention", d_model="32")
    assert at.query_params["att_order"] == open_page("problem").query_params["order"]  # 'man bites dog' beside 'dog bites man', as on /
    study = attention.attention_study(["dog", "bites", "man"], sinusoidal_encoding(3, 32, 1e4), perm=np.array([2, 1, 0]))
    change = grid(at, "att_orders")["panels"][4:]  # the third row: your order, each word back in its place, − the original
    np.testing.assert_allclose(decode(change[0]["z"]), study.weights_plain_shuffled[0] - study.weights_plain[0], atol=1e-6)
    np.testing.assert_allclose(decode(change[1]["z"]), study.weights_pe_shuffled[0] - study.weights_pe[0], atol=1e-6)
    assert np.abs(decode(change[1]["z"])).max() > 1e-3 and any("The last two: what the reordering changed" in c.value for c in at.caption)


def test_the_orders_are_lined_up_by_word_by_default_and_a_link_can_turn_that_off():
    at = open_page("attention", sentence="the cat sat on the mat")
    assert_clean(at)
    panels = grid(at, "att_orders")["panels"]  # without positions, each word put back in its place: one picture twice
    np.testing.assert_allclose(*(decode(p["z"]).astype(float) for p in panels[:2]), atol=1e-7)
    assert any("the two pictures are the same" in c.value for c in at.caption)
    at = open_page("attention", sentence="the cat sat on the mat", lined_up="false")
    assert_clean(at)
    perm = [int(k) for k in at.query_params["att_order"].split(",")]
    words = "the cat sat on the mat".split()
    assert grid(at, "att_orders")["panels"][1]["y"]["names"] == [f"{i}:{words[k]}" for i, k in enumerate(perm)]  # your order, in its own
