"""The reordering lesson's figure and sentences (core.viz.attention_figures): what each panel shows, that
the four share one colour range, and that each sentence is said only where it holds."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from core.analysis import attention
from core.schemes.registry import SCHEMES, Setting
from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz import charts
from core.viz.attention_figures import reorder_changed, reorder_changes, reorder_figure, reorder_sentences, share_text, shuffle_notes
from tests.app.conftest import decode

WORDS = ["dog", "bites", "man"]


def _study(words, order, pe=None, **options):
    pe = sinusoidal_encoding(len(words), 64) if pe is None else pe
    return attention.attention_study(words, pe, perm=np.array(order), backend=attention.multi_head_attention, width=64, **options)


def _panels(spec):
    return [(p["title"], decode(p["z"]).astype(float), p) for p in spec["panels"]]


def test_without_positions_the_picture_moves_with_its_words():
    res = _study(WORDS, [2, 1, 0])
    (t0, orig, p0), (t1, mine, p1), (t2, orig_pe, _), (t3, mine_pe, _) = _panels(reorder_figure(res, 0, "the sinusoid"))
    titles = ["original order, no positions", "your order, no positions", "original order, with the sinusoid", "your order, with the sinusoid"]
    assert [t0, t1, t2, t3] == titles
    assert p0["y"]["names"] == ["0:dog", "1:bites", "2:man"] and p1["y"]["names"] == ["0:man", "1:bites", "2:dog"]
    # slot k of your order holds word 2 - k: the same cells, carried along with their words
    np.testing.assert_allclose(mine, orig[::-1, ::-1], atol=1e-7)
    assert np.abs(mine_pe - orig_pe[::-1, ::-1]).max() > 1e-3  # with positions it is not a reordering of the original


def test_lined_up_your_order_is_drawn_in_word_order_so_without_positions_the_two_top_panels_are_one_picture():
    res = _study(WORDS, [1, 2, 0])
    (_, orig, p0), (t1, mine, p1), (_, orig_pe, _), (t3, mine_pe, _) = _panels(reorder_figure(res, 0, "the sinusoid", lined_up=True))
    assert t1 == "your order, lined up by word, no positions" and t3 == "your order, lined up by word, with the sinusoid"
    assert p0["y"]["names"] == ["0:dog", "1:bites", "2:man"]
    assert p1["y"]["names"] == ["2:dog", "0:bites", "1:man"]  # the same words in the same rows, each named with its place in your order
    np.testing.assert_allclose(mine, orig, atol=1e-7)  # the same picture
    drawn = _panels(reorder_figure(res, 0, "the sinusoid"))[3][1]  # the same weights as the unlined view, each word back in its place
    np.testing.assert_allclose(mine_pe, drawn[np.argsort([1, 2, 0])][:, np.argsort([1, 2, 0])], atol=1e-7)
    assert np.abs(mine_pe - orig_pe).max() == pytest.approx(reorder_changes(res, 0)[1], rel=1e-5) and np.abs(mine_pe - orig_pe).max() > 1e-3
    plain, moved = reorder_sentences(res, 0, "the sinusoid", causal=False, lined_up=True)
    assert "the two pictures are the same" in plain and "carried along" not in plain
    assert "moved back" not in moved and "the pictures differ" in moved


def test_the_four_panels_share_one_sequential_range_that_holds_them_all():
    res = _study(WORDS, [1, 2, 0])
    spec = reorder_figure(res, 0, "the sinusoid")
    assert len(spec["scales"]) == 1 and not spec["scales"][0]["signed"] and spec["columns"] == 2
    top = max(float(np.max(z)) for _, z, _ in _panels(spec))
    assert all(p["zmin"] == 0.0 and p["zmax"] == pytest.approx(top, rel=1e-6) for p in spec["panels"])


def test_the_changes_are_measured_with_each_word_moved_back():
    res = _study(WORDS, [2, 1, 0])
    plain, with_pe = reorder_changes(res, 0)
    assert plain < 1e-12
    mine = attention.multi_head_attention(attention.sentence_inputs(WORDS[::-1], 64) + sinusoidal_encoding(3, 64), 1, attention.random_projections(64))[1][0]
    back = mine[::-1, ::-1]  # your order's weights, each word moved back to its place (the reversal is its own inverse)
    assert with_pe == pytest.approx(float(np.abs(back - res.weights_pe[0]).max())) and with_pe > 1e-3


def test_sentences_say_only_what_holds():
    assert reorder_sentences(_study(["dog"], [0]), 0, "the sinusoid", causal=False)[0].startswith("A single word has no order")
    same = reorder_sentences(_study(WORDS, [0, 1, 2]), 0, "the sinusoid", causal=False)
    assert same == ["Both orders are the same sentence now: swap two different words to see what changes."]
    words = ["the", "cat", "the"]
    twins = reorder_sentences(_study(words, [2, 1, 0]), 0, "the sinusoid", causal=False)  # the two 'the' trade places: the same sentence
    assert twins == same
    # and the pages compare words, not copies: the order they draw is the identity, so every change is 0
    assert list(attention.same_words_in_order(words, [2, 1, 0])) == [0, 1, 2]
    assert list(attention.same_words_in_order(["a", "b", "a", "a"], [3, 2, 1, 0])) == [0, 2, 1, 3]
    canonical = _study(words, attention.same_words_in_order(words, [2, 1, 0]))
    assert max(float(np.abs(z).max()) for z in reorder_changed(canonical, 0)) == 0.0
    plain, moved = reorder_sentences(_study(WORDS, [2, 1, 0]), 0, "the sinusoid", causal=False)
    assert "carried along with their words" in plain and "the pictures differ" in moved
    masked, _ = reorder_sentences(_study(WORDS, [2, 1, 0], causal=True), 0, "the sinusoid", causal=True)
    assert "causal mask" in masked and "carried along" not in masked
    # a bias that depends only on |i - j| cannot tell a sentence from its mirror image
    alibi = SCHEMES["alibi"].attention_positions(3, Setting(64, 1e4, train_len=3, n_heads=1))
    _, blind = reorder_sentences(_study(WORDS, [2, 1, 0], pe=alibi), 0, "ALiBi", causal=False)
    assert "cannot tell these two orders apart" in blind
    # the order /attention opens on, for ALiBi: its numbers say why (a mirror image), and only for the reversal
    mirror = [n for n in shuffle_notes(_study(WORDS, [2, 1, 0], pe=alibi), WORDS, SCHEMES["alibi"], False) if "mirror image" in n]
    assert mirror == [n for n in mirror if n.startswith("Your order reverses the sentence, and ALiBi")] != []
    assert not [n for n in shuffle_notes(_study(WORDS, [1, 0, 2], pe=alibi), WORDS, SCHEMES["alibi"], False) if "mirror image" in n]
    # nothing added at all (a position factor of 0): said the same way, never 'the pictures differ'
    _, nothing = reorder_sentences(_study(WORDS, [1, 0, 2], pe=np.zeros((3, 64))), 0, "nothing", causal=False)
    assert "change no word's weights in either order" in nothing and "Try another order" not in nothing
    # positions a thousand times fainter: they do change the weights, by too little to see at the picture's colour scale
    faint = _study(WORDS, [1, 0, 2], pe=1e-3 * sinusoidal_encoding(3, 64))
    _, small = reorder_sentences(faint, 0, "the sinusoid", causal=False)
    assert 0 < reorder_changes(faint, 0)[1] < 0.02 * float(faint.weights_pe[0].max()) and "too little to see on this colour scale" in small
    # under the causal mask the change between orders is mostly the mask's: the positions' own part is said apart
    masked_res = _study(WORDS, [2, 1, 0], causal=True)
    _, masked_pe = reorder_sentences(masked_res, 0, "the sinusoid", causal=True)
    r = masked_res
    own = max(float(np.abs(r.weights_pe[0] - r.weights_plain[0]).max()), float(np.abs(r.weights_pe_shuffled[0] - r.weights_plain_shuffled[0]).max()))
    assert f"the sinusoid itself changes a word's weights by at most {charts.number(own)}" in masked_pe
    assert ("most of it the mask's doing" in masked_pe) is (reorder_changes(r, 0)[0] >= own)  # "most" only when the mask's part is the larger
    strong = _study(WORDS, [2, 1, 0], pe=16 * sinusoidal_encoding(3, 64), causal=True)  # positions 16 times stronger
    _, loud = reorder_sentences(strong, 0, "the sinusoid", causal=True)
    g = strong
    own_strong = max(float(np.abs(g.weights_pe[0] - g.weights_plain[0]).max()), float(np.abs(g.weights_pe_shuffled[0] - g.weights_plain_shuffled[0]).max()))
    assert ("most of it the mask's doing" in loud) is (reorder_changes(strong, 0)[0] >= own_strong)
    assert {"most of it the mask's doing" in masked_pe, "most of it the mask's doing" in loud} == {True, False}  # both cases met


def _mirror_notes(scheme: str, factor: float, order=(2, 1, 0), words=WORDS) -> list[str]:
    positions = SCHEMES[scheme].attention_positions(len(words), Setting(64, 1e4, train_len=len(words), n_heads=1), factor)
    return [n for n in shuffle_notes(_study(words, list(order), pe=positions), words, SCHEMES[scheme], False) if "mirror image" in n]


@pytest.mark.parametrize(
    "scheme, factor, said",
    [
        ("alibi", 1.0, True),  # a bias set by |i - j| alone, and /attention's default factor: the reversal is a mirror image
        ("kerple", 1.0, True),
        ("alibi", 0.0, False),  # a factor of 0 applies no positions: the weights are those without, nothing is mirrored by a bias
        ("rope", 0.0, False),
        ("rope", 1.0, False),  # a rotation reads the signed i - j: the reversal changes the weights
        ("sinusoidal", 1.0, False),  # the page's default scheme, added to the word vectors
    ],
)
def test_the_mirror_image_is_said_only_where_a_bias_on_the_distance_moves_the_weights(scheme, factor, said):
    notes = _mirror_notes(scheme, factor)
    assert bool(notes) is said
    if said:
        assert notes[0].startswith(f"Your order reverses the sentence, and {SCHEMES[scheme].label} adds to each score a bias")


def test_the_mirror_image_needs_the_reversal_and_more_than_one_word():
    assert not _mirror_notes("alibi", 1.0, order=(1, 0, 2))
    assert not _mirror_notes("alibi", 1.0, order=(0,), words=["dog"])


def test_a_bad_order_is_refused_in_words():
    with pytest.raises(ValueError, match="each of the 3 words once"):
        attention.attention_study(WORDS, sinusoidal_encoding(3, 64), perm=np.array([0, 0, 1]))


def test_the_share_caption_names_the_largest_part_at_the_factor_set():
    # hand-worked shares (content, cross, position) at the factor set: the sentence names the largest, its share, and says
    # positions weigh more than words only when the position term is the largest
    said = share_text(np.array([0.2, 0.3, 0.5]), 1.0)
    assert "At f = 1, as set, the position · position term is the largest part (50% of the three): where the words stand" in said
    said = share_text(np.array([0.6, 0.3, 0.1]), 0.25)
    assert "At f = 0.25, as set, the content · content term is the largest part (60% of the three)." in said and "where the words" not in said
    assert "the cross terms are the largest part (45% of the three)." in share_text(np.array([0.3, 0.45, 0.25]), 2.0)


@pytest.mark.parametrize("width", [2, 64])  # the sidebar's narrowest sinusoid and a usual one
def test_the_difference_row_draws_the_change_word_by_word_and_its_sentence_reads_the_same_arrays(width):
    res = _study(WORDS, [2, 1, 0], pe=sinusoidal_encoding(3, width))
    spec = reorder_figure(res, 0, "the sinusoid", lined_up=False, difference=True)
    panels = _panels(spec)
    assert len(panels) == 6 and spec["columns"] == 2 and len(spec["scales"]) == 2 and spec["scales"][1]["signed"]
    (t4, plain, p4), (t5, moved, _) = panels[4:]
    largest = float(np.abs(res.weights_plain_shuffled[0] - res.weights_plain[0]).max())  # 0, or rounding: which one the title says
    flat = " (0\u00a0everywhere)" if largest == 0 else " (0\u00a0everywhere, to rounding)"
    assert largest < 1e-9 and t4 == "your order − original: no positions" + flat and t5 == "your order − original: with the sinusoid"
    assert p4["y"]["names"] == ["0:dog", "1:bites", "2:man"]  # word by word: each word in its original place, whatever the view above
    np.testing.assert_allclose(plain, res.weights_plain_shuffled[0] - res.weights_plain[0], atol=1e-7)
    np.testing.assert_allclose(moved, res.weights_pe_shuffled[0] - res.weights_pe[0], atol=1e-7)
    assert np.abs(plain).max() < 1e-6 and np.abs(moved).max() > 1e-3  # without positions nothing moves; with them it does
    key = float(np.abs(moved).max())
    assert p4["zmax"] == pytest.approx(key, rel=1e-6)  # the change's own scale: its largest change is full colour
    sentences = reorder_sentences(res, 0, "the sinusoid", causal=False, lined_up=False, difference=True)
    assert len(sentences) == 3 and sentences[1].startswith("The next two pictures, with the sinusoid")
    assert f"on a key of ±{charts.number(key, 3)}): nothing without positions, up to {charts.number(key)} with the sinusoid." in sentences[2]
    # positions that change nothing: both change panels blank, the key ±1, and the sentence says nothing moved
    still = reorder_sentences(_study(WORDS, [2, 1, 0], pe=np.zeros((3, 64))), 0, "nothing", causal=False, difference=True)
    assert still[2].endswith(f"on a key of ±{charts.number(1.0, 3)}): nothing without positions, nothing with nothing.")
    assert "so no reordering can: these two pictures are the first two" in still[1]
    # the same under the causal mask: the order still moves the weights, through the mask alone, and no sentence denies it
    masked = reorder_sentences(_study(WORDS, [2, 1, 0], pe=np.zeros((3, 64)), causal=True), 0, "nothing", causal=True, difference=True)
    assert "no reordering can" not in " ".join(masked) and "the reordering moves them only through the mask" in masked[1]


def test_each_key_names_its_panels_briefly_and_a_blank_change_panel_says_it_is_0():
    res = _study(WORDS, [2, 1, 0])
    spec = reorder_figure(res, 0, "the sinusoid", lined_up=True, difference=True)
    weights, change = (scale["note"] for scale in spec["scales"])
    assert (weights, change) == ("(attention weight: the first four panels)", "(your order − original: the last two panels; white: 0)")
    assert [p["scale"] for p in spec["panels"]] == [0, 0, 0, 0, 1, 1]  # the names hold in the panels' order, whatever the columns
    plain = res.weights_plain
    # hand-made reorderings: the no-positions change exactly 0, then 1e-12 in one cell, then 0.1 there; with positions 0.1 throughout
    for nudge, said in ((0.0, " (0\u00a0everywhere)"), (1e-12, " (0\u00a0everywhere, to rounding)"), (0.1, "")):
        shuffled = plain.copy()
        shuffled[0, 1, 2] += nudge
        made = dataclasses.replace(res, weights_plain_shuffled=shuffled, weights_pe_shuffled=res.weights_pe + 0.1)
        titles = [p["title"] for p in reorder_figure(made, 0, "the sinusoid", lined_up=True, difference=True)["panels"][4:]]
        assert titles == [f"your order − original: no positions{said}", "your order − original: with the sinusoid"]
