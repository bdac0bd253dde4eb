"""AppTest of the `problem` page (`/`): the roadmap, the bag-of-words numbers, the naive codes
scored against the checklist, and the width cap."""

from __future__ import annotations

import numpy as np

from core.analysis import properties, raw_positions
from core.viz import charts
from tests.app.conftest import assert_clean, chart_keys, decode, figure, figures, grid, grid_keys, open_page, plain_table, title_text
from ui.path import STEPS


def test_the_roadmap_lists_the_checklist_and_every_page_in_path_order():
    at = open_page("problem")
    assert_clean(at)
    links = [el for el in at.get("page_link")]
    labels = [el.proto.label for el in links]
    assert labels[: len(STEPS)] == [f"{k}. {step.title}: {step.pitch}" for k, step in enumerate(STEPS, 1)]
    assert labels[-1].startswith(f"Next: {STEPS[1].title}")
    checklist = next(m.value for m in at.markdown if m.value.startswith("- **unique**"))
    assert [line.split("**")[1] for line in checklist.splitlines()] == [name for name, _ in properties.CHECKLIST]


def test_problem_shows_the_bag_of_words_numbers():
    at = open_page("problem")
    assert len(at.dataframe) == 0  # small tables that follow the sidebar are static: shown whole, cheap to redraw
    table = plain_table(at.table[0])
    assert table.iloc[0, 1] == "1.000"  # cosine without positions, 4 significant digits
    assert float(table.iloc[0, 2]) < 1e-12  # distance at rounding level
    assert float(table.iloc[1, 1]) < 1.0


def test_the_naive_codes_are_scored_from_their_measurements():
    at = open_page("problem", max_len="256", problem_view="Against the checklist")
    card = plain_table(at.table[-1])  # the scorecard is the tab's table
    rows = {row["property"].split(":")[0]: row for _, row in card.iterrows()}
    assert rows["bounded"]["integer p"].startswith("✗") and rows["bounded"]["binary bits of p"].startswith("✓")
    assert rows["smooth"]["binary bits of p"].startswith("✗") and rows["smooth"]["integer p"].startswith("✓")
    assert rows["code past max_len"]["one-hot"].startswith("✗") and rows["code past max_len"]["fraction p / L"].startswith("✗")
    assert all(cell.startswith("✓") for cell in list(rows["cheap"])[1:])
    # the fraction code: ✗ with the reason, beside a caption that says where it is bounded
    assert rows["bounded"]["fraction p / L"] == "✗ in range only up to the length it is built for: max |value| ×2.004 on [L, 2L)"
    captions = " ".join(c.value for c in open_page("problem", max_len="256", problem_view="p / L").caption)
    assert "Bounded within the sentence it is divided by" in captions and "the checklist tab marks it unbounded" in captions
    # one-hot at d_model 128: codes for positions 0 to 127 only, said by the caption and the scorecard alike
    assert rows["code past max_len"]["one-hot"] == "✗ no code past position 127"
    assert "one-hot: codes exist for positions 0 to 127 only" in " ".join(c.value for c in at.caption)
    assert "it has codes for positions 0 to 127 only" in " ".join(c.value for c in open_page("problem", max_len="256", problem_view="One-hot").caption)


def test_the_scorecard_at_max_len_1_says_what_does_not_apply():
    at = open_page("problem", max_len="1", problem_view="Against the checklist")
    assert_clean(at)
    rows = {row["property"].split(":")[0]: row for _, row in plain_table(at.table[-1]).iterrows()}
    assert all(rows["unique"][c] == "– one position: no pair to compare" for c in ("integer p", "fraction p / L", "binary bits of p", "one-hot"))
    assert rows["bounded"]["integer p"] == "✗ max |value| 0 within max_len, 1 on [L, 2L), still rising at position 16,777,215"
    first = open_page("problem", max_len="1")  # the integer code's tab: one position has no growth to draw, and says so instead
    assert "naive_integer" not in chart_keys(first) and any("only position 0" in i.value for i in first.info)
    hot = open_page("problem", max_len="1", problem_view="One-hot")  # was one cell under 'every position is equally unlike every other'
    assert "naive_one_hot" not in grid_keys(hot) and [i.value for i in hot.info] == [i.value for i in first.info]


def test_the_binary_tab_names_a_jump_its_figure_draws():
    # at max_len 2 the figure was one step (the sinusoid's dot hid under the binary one) under '7 -> 8 flips four bits'
    two = open_page("problem", max_len="2", problem_view="Binary")
    assert_clean(two)
    assert "naive_binary" not in chart_keys(two) and not any("flips" in c.value for c in two.caption)
    assert any("one pair of neighbours, 0 and 1, one bit apart" in i.value for i in two.info)
    for params, p, bits in (({"max_len": "5"}, 3, 3), ({}, 7, 4)):  # {}: the default max_len, 256
        at = open_page("problem", problem_view="Binary", **params)
        binary = next(t for t in figure(at, "naive_binary")["data"] if t["name"] == "binary code")
        x, y = decode(binary["x"]), decode(binary["y"])
        assert x[p] == p and np.isclose(y[p], np.sqrt(bits)) and np.all(y[:p] < y[p])  # the jump named is drawn, the largest so far
        word = ("three", "four")[bits - 3]
        assert f"sometimes more ({p} -> {p + 1} flips {word} bits)" in " ".join(c.value for c in at.caption)


def test_problem_caps_the_demo_width_with_a_notice():
    at = open_page("problem", d_model="8192")
    assert_clean(at)
    assert any("width 512" in i.value for i in at.info)


def test_raw_positions_scale_and_gradient_step_are_cores():
    """The two figures of the tab 'Raw positions in training' draw core.analysis.raw_positions' arrays, and the
    caption is its sentence for them (the numbers and their rules are tested in tests/core/analysis/test_raw_positions.py)."""
    at = open_page("problem", d_model="64", max_len="1000", problem_view="Raw positions in training")
    assert_clean(at)
    study = raw_positions.raw_scale(raw_positions.measured_positions(1000), 64)
    figs = {title_text(f).split(",")[0].split(":")[0]: f for f in figures(at)}
    scale = next(f for t, f in figs.items() if t.startswith("How long the position code is"))
    step = next(f for t, f in figs.items() if t.startswith("The largest gradient step"))
    lines = {t["name"]: decode(t["y"]).astype(float) for t in scale["data"] if "name" in t}
    np.testing.assert_allclose(lines["integer p in every feature"], study.integer_ratio, rtol=1e-6)
    lines = {t["name"]: decode(t["y"]).astype(float) for t in step["data"] if "name" in t}
    np.testing.assert_allclose(lines["word + integer p"], study.integer_max_step, rtol=1e-6)
    np.testing.assert_allclose(lines["word + sinusoid"], study.sinusoid_max_step, rtol=1e-6)
    size, step = raw_positions.raw_scale_parts(study, 64)  # the size under the figures, the gradient step a click away
    assert size in [c.value for c in at.caption] and step.strip() in [c.value for c in at.caption]
    assert all("markers" not in t.get("mode", "lines") for t in scale["data"] if "name" in t)  # many positions: lines
    alone = open_page("problem", max_len="2", problem_view="Raw positions in training")  # position 1 alone: a line of one point shows nothing
    for key in ("naive_scale", "naive_step"):
        assert all("markers" in t["mode"] for t in figure(alone, key)["data"] if t.get("name", "").startswith(("integer", "sinusoid", "word")))


def test_the_lesson_opens_the_page_and_a_swap_reorders_its_picture():
    at = open_page("problem", d_model="64", lined_up="false")  # each order drawn in its own: a link that turns the default view off
    assert_clean(at)
    assert grid_keys(at)[0] == "lesson_weights"  # the first figure of the page
    assert at.query_params["order"] == "2,1,0"  # 'man bites dog' beside 'dog bites man'
    at.button_group(key="order_pick").set_value(0).run()
    at.button_group(key="order_pick").set_value(2).run()  # swap the words in slots 0 and 2: back to 'dog bites man'
    assert at.query_params["order"] == "0,1,2"
    assert at.caption[0].value == "Both orders are the same sentence now: swap two different words to see what changes."
    at.button(key="order_reverse").click().run()
    panels = grid(at, "lesson_weights")["panels"]
    assert [p["y"]["names"] for p in panels[:2]] == [["0:dog", "1:bites", "2:man"], ["0:man", "1:bites", "2:dog"]]
    plain, mine = (decode(p["z"]).astype(float) for p in panels[:2])
    np.testing.assert_allclose(mine, plain[::-1, ::-1], atol=1e-7)


def test_lined_up_by_default_draws_your_order_with_each_word_in_its_place():
    at = open_page("problem", d_model="64")  # 'man bites dog' put back in word order: the top row is one picture twice
    assert_clean(at)
    panels = grid(at, "lesson_weights")["panels"]
    assert [p["y"]["names"] for p in panels[:2]] == [["0:dog", "1:bites", "2:man"], ["2:dog", "1:bites", "0:man"]]
    assert panels[1]["title"] == "your order, lined up by word, no positions"
    keys = ["(attention weight: the first four panels)", "(your order − original: the last two panels; white: 0)"]
    assert [scale["note"] for scale in grid(at, "lesson_weights")["scales"]] == keys  # each key names its panels briefly
    np.testing.assert_allclose(*(decode(p["z"]).astype(float) for p in panels[:2]), atol=1e-7)
    assert "the two pictures are the same" in at.caption[0].value and at.toggle(key="lined_up").value
    # a third row, the change word by word on its own scale, and the sentence that reads it
    change = [decode(p["z"]).astype(float) for p in panels[4:]]
    assert len(panels) == 6 and np.abs(change[0]).max() < 1e-6 and np.abs(change[1]).max() > 1e-3
    assert f"up to {charts.number(float(np.abs(change[1]).max()))} with the sinusoid." in at.caption[0].value


def test_two_copies_of_a_word_traded_are_the_same_sentence_and_change_nothing():
    at = open_page("problem", lesson="the cat sat on the mat", order="4,1,2,3,0,5")  # only the two 'the' swapped
    assert_clean(at)
    assert at.query_params["order"] == "4,1,2,3,0,5"  # the chips keep the copies the visitor moved
    assert at.caption[0].value == "Both orders are the same sentence now: swap two different words to see what changes."
    panels = grid(at, "lesson_weights")["panels"]
    assert all(np.abs(decode(p["z"]).astype(float)).max() == 0 for p in panels[4:])  # the change row: nothing changed


def test_a_bad_order_in_the_link_gets_a_notice_and_the_default():
    at = open_page("problem", order="0,0,1")
    assert_clean(at)
    assert any("word order" in w.value for w in at.warning) and at.query_params["order"] == "2,1,0"


def test_an_order_met_later_in_the_link_is_read_again_with_the_same_checks():
    at = open_page("problem")
    at.query_params["order"] = "0,1,2"  # as Back to an earlier entry brings it
    at.run()
    assert at.session_state["_order_order"][1] == (0, 1, 2) and at.caption[0].value.startswith("Both orders are the same")
    at.query_params["order"] = "9,9,9"
    at.run()
    assert any("word order" in w.value for w in at.warning) and at.query_params["order"] == "0,1,2"
