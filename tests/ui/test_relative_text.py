"""ui.relative_text: /relative's sentences about ALiBi's heads and Shaw's window, read at the ends of the
sliders (1, 2, 3, 6, 12, 16, 64 heads; max_len 1, 4 and the largest) against slopes and offsets worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.schemes import alibi, relative
from core.viz.grid import window
from ui import relative_text as words

# the reference code's slopes by hand: 2^(-8h/n) for a power of two n, else those of the power c below
# n, then every other one of 2c's (from the first)
BY_HAND = {
    1: [2.0**-8],
    2: [2.0**-4, 2.0**-8],
    3: [2.0**-4, 2.0**-8, 2.0**-2],
    6: [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8, 2.0**-1, 2.0**-3],
    8: [2.0**-k for k in range(1, 9)],
    12: [2.0**-k for k in range(1, 9)] + [2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5],
    16: [2.0 ** (-k / 2) for k in range(1, 17)],
    64: [2.0 ** (-k / 8) for k in range(1, 65)],
}
STEEPEST = {2: (0, 1), 3: (2, 1), 6: (4, 3), 8: (0, 7), 12: (8, 7), 16: (0, 15), 64: (0, 63)}  # (steepest, shallowest), read off BY_HAND


@pytest.mark.parametrize("heads", sorted(BY_HAND))
def test_the_slopes_by_hand(heads):
    np.testing.assert_allclose(alibi.alibi_slopes(heads), BY_HAND[heads], rtol=1e-12)


@pytest.mark.parametrize("heads", sorted(STEEPEST))
def test_the_heads_caption_names_the_steepest_and_shallowest_head(heads):
    steep, shallow = STEEPEST[heads]
    text = words.heads_caption(alibi.alibi_slopes(heads), 256)
    if (steep, shallow) == (0, heads - 1):
        assert "the first head forgets distant keys fastest, the last hardly at all" in text
    else:  # the old sentence, false here
        assert "the first head forgets" not in text
        assert f"head {steep + 1} (slope {BY_HAND[heads][steep]:.4g}) forgets distant keys fastest, head {shallow + 1} " in text  # named from 1


def test_the_heads_caption_at_one_head_and_one_position():
    assert "the one head's slope, 0.003906" in words.heads_caption(alibi.alibi_slopes(1), 256)
    assert "no distance to penalise" in words.heads_caption(alibi.alibi_slopes(8), 1)


@pytest.mark.parametrize("heads", sorted(BY_HAND))
def test_the_slopes_title_says_whole_powers_of_two_only_when_they_are(heads):
    title = words.slopes_title(alibi.alibi_slopes(heads))
    whole = heads in (1, 2, 3, 6, 8)  # every exponent in BY_HAND a whole number
    assert ("1/2^k" in title) is whole, title
    power = heads & (heads - 1) == 0
    assert (title.endswith("(a geometric sequence; each a whole power of two, 1/2^k)") or title.endswith("(a geometric sequence)")) is (power and heads > 1)
    if heads == 12:
        assert title == "Slopes of the 12 heads (heads 1 to 8 a geometric sequence; heads 9 to 12 between them)"


@pytest.mark.parametrize("heads", [8, 16, 12])
def test_the_slopes_caption_names_the_rule_that_made_them(heads):
    text = words.slopes_caption(alibi.alibi_slopes(heads))
    if heads == 12:
        assert "12 heads is not a power of two: heads 1 to 8 take the slopes of 8 heads, and heads 9 to 12 every other slope of 16 heads" in text
    else:
        assert "not a power of two" not in text and f"2^(−8/{heads})" in text
    assert ("exactly 1/2^k: 1/2, 1/4, 1/8" in text) is (heads == 8)


@pytest.mark.parametrize(("heads", "length"), [(8, 4), (12, 256), (6, 131072), (1, 256), (8, 1)])
def test_the_span_sentence(heads, length):
    slopes = np.array(BY_HAND[heads])
    # the nearest n keys hold (1 − e^(−mn)) / (1 − e^(−mL)) of a head's attention: the least n reaching 0.9, by brute force
    by_hand = [next(n for n in range(1, length + 1) if -math.expm1(-m * n) / -math.expm1(-m * length) >= 0.9 - 1e-12) for m in slopes]
    span = alibi.alibi_attention_span(slopes, length, 0.9)
    assert span.tolist() == by_hand
    text = words.span_text(slopes, span, length, 0.9)
    if len(set(by_hand)) == 1 and heads > 1:
        assert "too short for the slopes to differ" in text  # max_len 4: every head needs all 4 keys
    elif heads > 1:
        steep, shallow = STEEPEST[heads]
        assert f"the nearest {by_hand[steep]:,} keys hold 90% of the attention of head {steep + 1}, the steepest, while head {shallow + 1}" in text
        assert f"spreads over {by_hand[shallow]:,} of the {length:,} keys" in text


@pytest.mark.parametrize(
    ("k", "length", "colours", "flat"), [(4, 4, 7, False), (4, 5, 9, False), (4, 6, 9, True), (4, 256, 9, True), (64, 256, 63, False), (0, 10, 1, False)]
)
def test_the_shaw_sentence_counts_the_colours_drawn(k, length, colours, flat):
    rows = window(length, 32)
    drawn = relative.shaw_relative_positions(rows.indices, rows.indices, k)
    n = rows.indices.size  # offsets −(n−1) .. n−1, clipped to ±k: min(2(n−1), 2k) + 1 colours
    assert min(2 * (n - 1), 2 * k) + 1 == colours
    distinct = relative.shaw_distinct_ids(length, length, k)
    assert distinct == min(2 * (length - 1), 2 * k) + 1
    text = words.shaw_text(drawn, k, length, distinct)
    assert text.startswith(f"What to look for: {'one colour' if colours == 1 else f'{colours} colours'}")
    assert ("flat beyond" in text) is flat


@pytest.mark.parametrize("heads", [2, 6, 8, 12, 64])
def test_the_heads_caption_names_the_heads_that_look_flat_on_the_shared_range(heads):
    slopes = alibi.alibi_slopes(heads)
    text = words.heads_caption(slopes, 256)
    faint = [h for h in range(heads) if slopes[h] < 0.1 * slopes.max()]  # under a tenth of the steepest head's penalty at every distance
    assert faint, heads
    listed = text.split("On this range ")[1].split(" change")[0]
    named = set()
    for part in listed.removeprefix("heads ").removeprefix("head ").replace(" and ", ", ").split(", "):
        lo, _, hi = part.partition(" to ")
        named |= set(range(int(lo), int(hi or lo) + 1))
    assert named == {h + 1 for h in faint}  # named from 1
