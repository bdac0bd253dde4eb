"""The /llm page's figures and sentences (core.viz.llm_figures), on hand-made attention arrays: what
each panel holds, where the causal mask blanks it, the shared range, and that each sentence says only
what these numbers show."""

from __future__ import annotations

import numpy as np
import pytest

from core.viz import llm_figures as lf
from core.viz import palette
from tests.app.conftest import decode
from tests.core.viz.test_colour_vision import VISIONS
from tests.core.viz.test_palette import APART, closest


def _rows(t: int, seed: int) -> np.ndarray:
    """A causal (t, t) attention map: each row a softmax over keys 0 .. q."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(t, t))
    z[np.triu_indices(t, 1)] = -np.inf
    w = np.exp(z - z.max(1, keepdims=True))
    return w / w.sum(1, keepdims=True)


def test_each_panel_is_its_map_with_later_keys_blank_on_one_range():
    tokens = ["The", " dog", " bites", " man"]
    maps = [("as trained", _rows(4, 0)), ("rotation removed", _rows(4, 1)), ("positions shuffled", _rows(4, 2))]
    spec = lf.attention_figure(tokens, maps, layer=3, head=7)
    assert [p["title"] for p in spec["panels"]] == ["as trained", "rotation removed", "positions shuffled"]
    assert spec["title"].startswith("Layer 3, head 7")
    top = max(float(w.max()) for _, w in maps)
    for (_, w), panel in zip(maps, spec["panels"]):
        z = decode(panel["z"]).astype(np.float64)
        below = np.tril_indices(4)
        np.testing.assert_allclose(z[below], w[below], rtol=1e-6)  # float32 as sent
        assert np.isnan(z[np.triu_indices(4, 1)]).all()  # a later key: no value, painted blank
        assert (panel["zmin"], panel["zmax"]) == (0.0, top)
        assert panel["y"]["names"] == ["0:The", "1:·dog", "2:·bites", "3:·man"]  # the leading space made visible
    assert "blank: later tokens" in spec["note"] and f"{lf.SPACE}: the space a token carries before its word" in spec["note"]
    assert lf.SPACE not in lf.attention_figure(["a", "b"], [("as trained", _rows(2, 0))], 1, 1)["note"]  # no token with a space: not said


def test_a_long_text_is_drawn_by_position_and_a_wrong_shape_is_refused():
    n = lf.TICK_LIMIT + 1
    spec = lf.attention_figure([f"t{i}" for i in range(n)], [("as trained", _rows(n, 3))], 1, 1)
    assert spec["x_title"] == "key position" and "names" not in spec["panels"][0]["x"]
    with pytest.raises(ValueError, match="3 x 3"):
        lf.attention_figure(["a", "b", "c"], [("as trained", np.eye(2))], 1, 1)


def test_the_heads_figure_keeps_each_summary_on_its_own_scale():
    distance = np.arange(6, dtype=float).reshape(3, 2)  # 3 layers, 2 heads
    first = np.array([[0.9, 0.1], [0.5, 0.0], [0.2, 0.3]])
    spec = lf.heads_figure(distance, first)
    d, f = spec["panels"]
    np.testing.assert_allclose(decode(d["z"]), distance)
    np.testing.assert_allclose(decode(f["z"]), first, rtol=1e-6)
    assert (d["zmin"], d["zmax"]) == (0.0, 5.0) and (f["zmin"], f["zmax"]) == (0.0, 1.0)
    assert d["y"]["names"] == ["1", "2", "3"] and d["x"]["names"] == ["1", "2"]  # layers and heads counted from 1, as the controls count


def test_the_sentences_count_the_sinks_and_name_the_furthest_head():
    distance = np.array([[0.5, 2.0], [7.25, 1.0]])
    first = np.array([[0.9, 0.5], [0.49, 0.1]])
    sinks, furthest = lf.heads_sentences(distance, first, n_tokens=16)
    assert sinks.startswith("2 of the 4 heads put, on average over the tokens after it, at least half")
    assert "layer 2, head 1: on average 7.2 tokens back" in furthest and "16 tokens is 7.5" in furthest
    none, _ = lf.heads_sentences(distance, np.full((2, 2), 0.1), n_tokens=16)
    assert none.startswith("0 of the 4 heads") and "none acts as an attention sink" in none
    assert lf.heads_sentences(distance, first, n_tokens=1) == ["With one token every head can only attend to it: type a longer text to see how far heads look."]


def test_the_head_sentence_reads_the_share_on_the_token_before():
    before = np.eye(3, k=-1)
    before[0, 0] = 1.0  # every query on the token before it (the first on itself)
    spread = np.tril(np.ones((3, 3))) / np.arange(1, 4)[:, None]  # query i spreads evenly over 0 .. i
    assert lf.previous_share(before) == 1.0 and lf.previous_share(spread) == pytest.approx((1 / 2 + 1 / 3) / 2)
    said = lf.head_sentence([("as trained", before), ("rotation removed", spread)])
    assert said == "Mean share of attention on the token just before in the text: 100% (as trained) and 42% (rotation removed)."
    with pytest.raises(ValueError):
        lf.previous_share(np.ones((1, 1)))


def _ablation(fast, slow):
    rows = {f"fastest {n}": {"which": "fastest", "count": n, "perplexity": p} for n, p in fast.items()}
    return rows | {f"slowest {n}": {"which": "slowest", "count": n, "perplexity": p} for n, p in slow.items()}


def test_pair_sizes_are_averaged_over_heads_and_the_largest_pair_is_named():
    q = np.zeros((2, 3, 4))
    q[:, :, 2] = [[1.0, 2.0, 3.0], [3.0, 3.0, 3.0]]  # pair 2: mean 2 in layer 1, 3 in layer 2
    k = np.ones((2, 1, 4))
    k[1, 0, 3] = 5.0
    spec = lf.pair_sizes_figure(q, k)
    qz, kz = (decode(p["z"]).astype(float) for p in spec["panels"])
    np.testing.assert_allclose(qz[:, 2], [2.0, 3.0])
    np.testing.assert_allclose(kz[1], [1, 1, 1, 5])
    assert lf.sizes_sentence(q, k, np.array([6.3, 20.0, 100.0, 1000.0])) == (
        "Averaged over heads and layers, the queries' largest pair is pair 2 (one turn every 100.0 tokens) "
        "and the keys' is pair 3 (one turn every 1,000.0 tokens)."
    )


def test_the_ablation_sentence_compares_equal_counts_where_the_slowest_cost_under_one_percent():
    ablation = _ablation({0: 20.0, 2: 30.0, 4: 60.0}, {0: 20.0, 2: 20.1, 4: 25.0})
    lines = {t.name: (list(t.x), list(t.y)) for t in lf.ablation_figure(ablation, 512).data}
    assert lines == {"the fastest pairs unrotated": ([0, 2, 4], [20.0, 30.0, 60.0]), "the slowest pairs unrotated": ([0, 2, 4], [20.0, 20.1, 25.0])}
    wavelength = np.array([6.0, 12.0, 24.0, 48.0])
    [said] = lf.frequency_sentences(ablation, wavelength, 512)
    assert said == (
        "With every pair turning, perplexity on these 512 tokens is 20.00. Stopping the 2 slowest pairs (wavelengths from 24 to 48 tokens) gives 20.10; "
        "stopping the 2 fastest (wavelengths 6.0 to 12.0 tokens) gives 30.00."
    )


def _entry(kind, factor, ppl, windows, attention_factor=None):
    return {"kind": kind, "factor": factor, "attention_factor": attention_factor, "perplexity": ppl, "by_window": windows}


@pytest.mark.parametrize("vision", VISIONS)
def test_each_scaling_kind_has_a_colour_apart_from_the_others(vision):
    assert closest(list(palette.KIND_COLOURS.values()), vision) >= APART


def test_the_perplexity_lines_take_their_kinds_colours_and_end_each_window_at_its_last_token():
    entries = {
        "none": _entry("none", 1.0, 30.0, [40.0, 20.0, 25.0]),
        "yarn ×2": _entry("yarn", 2.0, 31.0, [41.0, 21.0, 26.0], attention_factor=1.07),
        "yarn ×2, no temperature": _entry("yarn", 2.0, 35.0, [45.0, 25.0, 30.0], attention_factor=1.0),
        "linear ×4": _entry("linear", 4.0, 50.0, [60.0, 45.0, 40.0]),
    }
    fig = lf.perplexity_figure(entries, window=256, length=600, context=8192)
    drawn = {t.name: (list(t.x), list(t.y), t.line.color, t.line.dash) for t in fig.data if t.name}
    no, linear, yarn, cool = "no scaling", "linear (position interpolation) ×4", "YaRN ×2", "YaRN without its temperature ×2"
    assert list(drawn) == [no, linear, yarn, cool]  # the palette's order of kinds, named in words
    assert drawn[no][:2] == ([256, 512, 599], [40.0, 20.0, 25.0])  # 599 losses: the last window ends at token 599
    assert drawn[yarn][2] == palette.KIND_COLOURS["yarn"] and drawn[cool][2] == palette.KIND_COLOURS["yarn-no-temperature"]
    assert drawn[linear][3] == "dash" and drawn[no][3] == "solid"
    assert len({d[3] for d in drawn.values()}) == len(drawn)  # a dash each: lines on one another stay told apart
    axis = fig.to_dict()["layout"]["yaxis"]  # labelled 1-2-3-5 ticks from below the lowest value (20) to above the highest (60)
    assert list(axis["tickvals"]) == [20, 30, 50, 100] and list(axis["ticktext"]) == ["20", "30", "50", "100"]
    assert 10 ** axis["range"][0] < 20 and 10 ** axis["range"][1] > 100
    inside, _ = lf.perplexity_sentences(entries, 600, 8192)[:2]
    assert inside == (
        "Over all 600 tokens, perplexity by scaling, lowest first: no scaling 30.00, YaRN ×2 31.00, YaRN without its temperature ×2 35.00, "
        "linear (position interpolation) ×4 50.00."
    )
    assert "stay inside the 8,192" in lf.perplexity_sentences(entries, 600, 8192)[1]
    assert "past the mark at 512" in lf.perplexity_sentences(entries, 600, 512)[1]
    # windows end at 256, 512, 599: past 512 only the last; before it the first two, their geometric mean √(40·20) = 28.28 for no scaling
    assert lf.perplexity_sentences(entries, 600, 512, 256)[2] == (
        "Past the mark, the windows' perplexities (their geometric mean), lowest first: no scaling 25.00 (before it 28.28), "
        "YaRN ×2 26.00 (before it 29.34), YaRN without its temperature ×2 30.00 (before it 33.54), linear (position interpolation) ×4 40.00 (before it 51.96)."
    )


def test_lines_closer_than_two_percent_of_the_axis_at_every_window_are_said_to_lie_on_one_another():
    # values 20 to 40.84: ticks 20, 30, 50, so the axis is log10(50 / 20) + 0.04 = 0.43794 high and 2% of it is 0.0087588,
    # a ratio of 1.02037: 2% above no scaling at every window is within it, 2.1% is not (though within it of the 2% line)
    base = [40.0, 20.0, 25.0]
    entries = {
        "none": _entry("none", 1.0, 30.0, base),
        "ntk ×2": _entry("ntk", 2.0, 30.5, [v * 1.02 for v in base]),
        "yarn ×2": _entry("yarn", 2.0, 31.0, [v * 1.021 for v in base], attention_factor=1.07),
        "linear ×2": _entry("linear", 2.0, 32.0, [*base[:2], base[2] * 1.03]),  # apart at one window only
    }
    assert lf.perplexity_ticks(entries) == [20, 30, 50]
    assert lf.coinciding(entries) == [["none", "ntk ×2"]]
    said = lf.perplexity_sentences(entries, 600, 8192)
    assert said[2] == (
        "No scaling and NTK-aware base change ×2 lie on one another: at no window are their lines further apart than 2% of the axis's "
        "height, so tell them apart by their dashes, and by their numbers above."
    )
    assert lf.coinciding({"none": entries["none"], "yarn ×2": entries["yarn ×2"]}) == [] and len(lf.perplexity_sentences(entries, 600, 512)) == 5


def test_lines_that_lie_on_one_another_are_drawn_apart_as_the_text_read_so_far_above_the_lowest():
    # windows end at 256, 512, 599 (256, 256 and 87 tokens): read so far, no scaling is 40, √(40·20) and e^((256 ln 40 + 256 ln 20 + 87 ln 25) / 599)
    base = [40.0, 20.0, 25.0]
    entries = {
        "none": _entry("none", 1.0, 0.0, base),
        "ntk ×2": _entry("ntk", 2.0, 0.0, [v * 1.02 for v in base]),  # 2% above at every window, so 2% above read so far
        "yarn ×2": _entry("yarn", 2.0, 0.0, [40.0, 20.0, 25.0 * 1.5], attention_factor=1.07),
        "linear ×2": _entry("linear", 2.0, 0.0, [v * 3 for v in base]),  # three times the lowest: left out
    }
    whole = np.exp((256 * np.log(40) + 256 * np.log(20) + 87 * np.log(25)) / 599)
    np.testing.assert_allclose(lf.read_so_far(entries["none"], 256, 600), [40.0, np.sqrt(800.0), whole])
    assert lf.close_to_lowest(entries, 256, 600) == (["none", "ntk ×2", "yarn ×2"], ["linear ×2"])
    fig = lf.above_lowest_figure(entries, 256, 600, 512)
    drawn = {t.name: (list(t.x), np.asarray(t.y, dtype=float), t.line.color) for t in fig.data if t.name}
    assert list(drawn) == ["no scaling", "NTK-aware base change ×2", "YaRN ×2"]
    assert drawn["no scaling"][0] == [256, 512, 599]
    np.testing.assert_allclose(drawn["no scaling"][1], 0.0, atol=1e-12)
    np.testing.assert_allclose(drawn["NTK-aware base change ×2"][1], 2.0)
    yarn_end = 100 * (np.exp((256 * np.log(40) + 256 * np.log(20) + 87 * np.log(37.5)) / 599) / whole - 1)  # only its last window differs
    np.testing.assert_allclose(drawn["YaRN ×2"][1], [0.0, 0.0, yarn_end])
    assert drawn["YaRN ×2"][2] == palette.KIND_COLOURS["yarn"]
    low, high = fig.to_dict()["layout"]["yaxis"]["range"]  # the line on 0 shows above the axis line, and the highest under the top
    assert -0.1 * yarn_end < low < 0 and 2.0 < yarn_end < high < 1.1 * yarn_end
    assert "linear (position interpolation) ×2" in fig.layout.title.text  # the note under the title names the line left out
    assert lf.above_lowest_sentences(entries, 256, 600) == [
        "Each point is the perplexity of every token up to it; the last is the whole text's.",
        f"At the end the lowest is no scaling, and YaRN ×2 is {yarn_end:.1f}% above it.",
        "Left out: linear (position interpolation) ×2, more than 1.5 times the lowest at some point.",
    ]
    assert lf.above_lowest_figure({k: entries[k] for k in ("none", "linear ×2")}, 256, 600, 512) is None  # one line close: nothing to draw apart


def test_the_lead_under_the_perplexity_is_three_short_sentences_at_every_shipped_factor():
    from core.llm.registry import RECORDS, TRAINED_CONTEXT, WINDOW

    got = RECORDS["perplexity"].load().data
    for factor in got.factors():
        entries = got.at(factor)
        lead = lf.perplexity_lead(entries, got.length, TRAINED_CONTEXT, WINDOW)
        assert len(lead) <= 3 and len(" ".join(lead).split()) <= 60, lead
        past = {n: lf.past_and_before(e, WINDOW, got.length, TRAINED_CONTEXT)[0] for n, e in entries.items()}
        hi, lo = max(past, key=past.get), min(past, key=past.get)
        assert f"highest with {lf.scaling_name(entries[hi])}, {past[hi]:,.1f}, and lowest with {lf.scaling_name(entries[lo])}, {past[lo]:,.1f}" in lead[1]
    inside = {"none": _entry("none", 1.0, 30.0, [40.0, 20.0]), "ntk ×2": _entry("ntk", 2.0, 31.0, [41.0, 21.0])}
    assert lf.perplexity_lead(inside, 400, 8192)[0].startswith("These 400 tokens stay inside the 8,192")


def test_the_shuffled_cells_are_read_row_by_row_by_hand():
    # tokens 0, 1, 2 given positions 1, 0, 2: token 2's position before (1) is token 0, earlier in the text; token 0's (0) is
    # token 1, later, behind the mask; token 1 has position 0, none before it
    w = np.array([[1.0, 0.0, 0.0], [0.3, 0.7, 0.0], [0.8, 0.1, 0.1]])
    assert lf.shuffled_cells(w, [1, 0, 2]) == (
        "In the one row whose token given the position just before comes earlier in the text, the brightest cell is that token, off the "
        "diagonal. The other 2 rows have no such token to attend to (it comes later in the text, hidden by the causal mask, or the token was "
        "given position 0): in both of them the brightest cell is on the diagonal, the token itself."
    )
    w[2] = [0.1, 0.1, 0.8]  # token 2 looks at itself instead: no hit
    w[1] = [0.9, 0.1, 0.0]
    said = lf.shuffled_cells(w, [1, 0, 2])
    assert said.startswith("In the one row") and "is not that token." in said and "in 1 of them" in said
    # tokens in their own order: each of the 4 later rows looks at the one before, the first has none before it
    w = np.tril(np.full((5, 5), 0.01)) + np.eye(5, k=-1)
    in_order = lf.shuffled_cells(w, range(5))
    assert in_order.startswith("In all 4 rows whose token given the position just before comes earlier in the text, the brightest cell is that token")
    assert in_order.endswith(
        "The other row has no such token to attend to (it comes later in the text, hidden by the causal mask, or the token was given "
        "position 0): its brightest cell is on the diagonal, the token itself."
    )
    # the positions reversed: every token's position before is a later token's, so no row is of the first kind, and of the five
    # only the first row (one cell) is brightest on the diagonal
    reversed_said = lf.shuffled_cells(w, [4, 3, 2, 1, 0])
    assert reversed_said.startswith("The 5 rows have no such token") and "in 1 of them" in reversed_said
    assert lf.shuffled_cells(np.ones((1, 1)), [0]) == ""


def test_log_ticks_enclose_the_values_by_hand():
    assert lf.enclosing_log_ticks(22.0, 91.0) == [20, 30, 50, 100]  # the reach of the shipped curves: 91 under a labelled 100
    assert lf.enclosing_log_ticks(20.0, 50.0) == [20, 30, 50]  # values on a tick are their own ends
    assert lf.enclosing_log_ticks(1.5, 4000.0) == [1, 3, 10, 30, 100, 300, 1000, 3000, 10000]  # 1-2-3-5 too many: 1-3
    assert lf.enclosing_log_ticks(5.0, 5.5) == [5, 10]


def _trial(scaling, length, depth, seed, correct):
    return {f"{scaling}|{length}|{depth:g}|{seed}": {"scaling": scaling, "length": length, "depth": depth, "seed": seed, "correct": correct}}


def test_the_needle_grid_is_the_share_found_per_length_and_depth():
    trials = {}
    for length, depth, seed, correct in [(512, 0.0, 0, True), (512, 0.0, 1, True), (512, 1.0, 0, True), (2048, 0.0, 0, True), (2048, 1.0, 0, False)]:
        trials |= _trial("none", length, depth, seed, correct)
    trials |= _trial("yarn ×2", 2048, 0.0, 0, False)
    spec = lf.passkey_figure(trials)
    none, yarn = (decode(p["z"]).astype(float) for p in spec["panels"])
    np.testing.assert_array_equal(none, [[1.0, 1.0], [1.0, 0.0]])  # rows: depth 0%, 100%; columns: 512, 2,048
    assert np.isnan(yarn[:, 0]).all() and yarn[0, 1] == 0.0 and np.isnan(yarn[1, 1])  # no trial ran there: blank
    assert spec["panels"][0]["x"]["names"] == ["512", "2,048"] and spec["panels"][0]["y"]["names"] == ["0%", "100%"]
    assert [p["title"] for p in spec["panels"]] == ["no scaling", "YaRN ×2"]
    assert lf.passkey_sentences(trials) == ["no scaling: 4 of 5 keys found; every key at every length up to 512 tokens.", "YaRN ×2: 0 of 1 key found."]
    trials |= _trial("none", 512, 1.0, 1, False)  # depth 100% at 512: now 1 of 2 there
    trials["none|2048|1|0"]["correct"] = False
    trials["none|512|1|0"]["correct"] = False
    assert lf.passkey_sentences(trials)[0] == "no scaling: 3 of 6 keys found; none at depth 100%."
    every = _trial("none", 512, 0.0, 0, True) | _trial("none", 2048, 0.0, 0, True)
    assert lf.passkey_sentences(every) == ["no scaling: both keys found; every key at every length up to 2,048 tokens."]  # not "2 of 2"


def test_cells_not_run_yet_widen_the_grid_as_blanks_and_are_said_never_as_wrong():
    trials = _trial("none", 512, 0.5, 0, True) | _trial("none", 8192, 0.5, 0, False)
    not_run = ["none|16384|0.5|0", "linear ×2|8192|0.5|0"]
    scalings, lengths, depths, grids = lf.passkey_grid(trials, not_run)
    assert scalings == ["none", "linear ×2"] and lengths == [512, 8192, 16384] and depths == [0.5]
    np.testing.assert_array_equal(grids["none"], [[1.0, 0.0, np.nan]])  # 16,384 not run: blank, not 0
    assert np.isnan(grids["linear ×2"]).all()
    assert [p["title"] for p in lf.passkey_figure(trials, not_run=not_run)["panels"]] == ["no scaling", "linear (position interpolation) ×2"]
    assert lf.passkey_sentences(trials, not_run) == [
        "no scaling: 1 of 2 keys found; every key at every length up to 512 tokens.",
        "linear (position interpolation) ×2: not run yet.",
        "2 cells not run yet (blank).",
    ]


def test_a_scaling_s_label_reads_in_words():
    from core.schemes import rope

    assert [lf.label_name(x) for x in ["none", "yarn ×2, no temperature", "ntk ×2", "llama3 ×4"]] == [
        "no scaling",
        "YaRN without its temperature ×2",
        "NTK-aware base change ×2",  # the RoPE scaling record's label, as /rope and /context name it
        "Llama 3 ×4",
    ]
    assert all(lf.KIND_LABELS[name] == kind.label for name, kind in rope.SCALING_KINDS.items())


def test_the_shuffled_sentence_finds_the_token_one_position_before():
    positions = [2, 0, 1, 3]  # token 1 stands at position 0, token 2 at 1, token 0 at 2, token 3 at 3
    w = np.zeros((4, 4))
    w[0, 0] = 1.0  # token 0 (position 2): the token at position 1 is token 2, later in the text: hidden, not counted
    w[1, 1] = 1.0  # token 1 (position 0): no position before it
    w[2, 1] = 1.0  # token 2 (position 1): token 1 (position 0) comes earlier: counted, all of it
    w[3, 0], w[3, 2] = 0.5, 0.5  # token 3 (position 3): token 0 (position 2) counted, half
    assert lf.position_before_share(w, positions) == pytest.approx(0.75)
    # in text order it puts (0 + 1 + 0.5) / 3 = 50% on the token before: 75% is not twice that, so no more is said
    assert lf.shuffled_sentence(w, positions) == "There 75% goes to the token given the position just before (where it is earlier in the text)."
    w[3, 0], w[3, 2] = 1.0, 0.0  # now 100% by position against 33% in text order
    assert lf.shuffled_sentence(w, positions).endswith("(where it is earlier in the text): the head follows the positions, not the word order.")
    assert lf.position_before_share(w, [0, 1, 2, 3][::-1]) is None and lf.shuffled_sentence(w, [3, 2, 1, 0]) == ""  # every one later
    # under the maps: the shares as a token's mean on the one before (trained: 1, 1/2, 1/2 -> 67%; shuffled in text order:
    # (0 + 1 + 0) / 3 -> 33%), what a shuffle is, and the shuffled verdict: three sentences, no more
    trained = np.eye(4, k=-1) * [[1.0], [1.0], [0.5], [0.5]] + np.diag([1.0, 0.0, 0.5, 0.5])  # rows 1..3 give 1, 1/2, 1/2 to the one before
    lead = lf.attention_lead([("as trained", trained), ("shuffled", w)], w, positions)
    assert lead == [
        "Mean share of attention on the token just before in the text: 67% (as trained) and 33% (shuffled).",
        lf.SHUFFLED,
        lf.shuffled_sentence(w, positions),
    ]
    alone = lead[0].replace(" and 33% (shuffled)", "")
    assert lf.attention_lead([("as trained", trained)], w, None) == [alone]  # no positions dealt: the shares alone
    assert lf.attention_lead([("as trained", trained)], w, [3, 2, 1, 0]) == [alone, lf.SHUFFLED]  # no token before earlier: no verdict


def test_the_shuffled_panel_names_each_token_by_the_position_it_was_given():
    tokens = ["The", " dog", " bites", " man"]
    maps = [("as trained", _rows(4, 0)), ("positions shuffled", _rows(4, 2))]
    spec = lf.attention_figure(tokens, maps, 1, 1, dealt={"positions shuffled": (2, 0, 3, 1)})
    trained, shuffled = spec["panels"]
    assert trained["y"]["names"] == ["0:The", "1:·dog", "2:·bites", "3:·man"]  # as in the text
    assert shuffled["y"]["names"] == shuffled["x"]["names"] == ["2:The", "0:·dog", "3:·bites", "1:·man"]  # the text's order, each its dealt position
    np.testing.assert_allclose(decode(shuffled["z"])[np.tril_indices(4)], maps[1][1][np.tril_indices(4)], rtol=1e-6)  # the same cells
    assert "positions shuffled: each token named by the position it was given" in spec["note"]
    with pytest.raises(ValueError, match="4 positions for 4 tokens"):
        lf.attention_figure(tokens, maps, 1, 1, dealt={"positions shuffled": (0, 1)})
