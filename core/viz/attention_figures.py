"""The attention page's pictures, from a core.analysis.attention.AttentionStudy of T words: the
weights of one head with and without positions and their difference, the size of each token's
word and position parts, where the scores come from as the position factor grows, and what the
permutation test's numbers mean for this sentence, in words.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from core.analysis.attention import AttentionStudy, reordered_weights
from core.schemes.registry import BIAS, Scheme
from core.viz import charts
from core.viz.grid import ordinal, strided
from core.viz.heatmap import Named, ScaleGroup, grouped_heatmap

MAX_TOKENS = 256  # tokens drawn per axis
TICK_LIMIT = 40  # above this many tokens the axes show positions instead of words
X_LABELS = 10  # key words named under each panel at most
ROW_PX = 14  # the height of a row with a word label: the 12-pixel tick font and a little room


def _slot_names(words: Sequence[str]) -> list[str]:
    """'position:word' for each word: unique even where a word repeats, so a hover names one cell."""
    return [f"{i}:{w}" for i, w in enumerate(words)]


def weight_figure(res: AttentionStudy, head: int, words: Sequence[str], label: str) -> dict:
    """Head `head`'s (T, T) weights without positions and with the scheme named `label`, side by
    side on one sequential colour range from 0, and their difference (signed, on the diverging
    scale) as a third panel of the same size with its own key: a core.viz.heatmap spec, which
    the browser paints (a Plotly figure of three heatmaps was all of the page's slider step).
    Axes name the words up to TICK_LIMIT tokens, positions beyond."""
    n = len(words)
    ax = strided(n, MAX_TOKENS)
    names = _slot_names(words) if n <= TICK_LIMIT else None  # unique, repeated words included: the hover names a cell by them
    every = max(1, -(-n // X_LABELS))  # a narrow panel has room for about X_LABELS turned key words; the rows name every word
    axis_title = "key word" if names else "key position"
    keys, queries = (Named(ax, names, every), Named(ax, names)) if names else (ax, ax)
    plain, with_pe = res.weights_plain[head], res.weights_pe[head]  # (T, T) each
    weights = ScaleGroup(
        [("without positions", plain, keys, queries), (f"with {label}", with_pe, keys, queries)],
        signed=False,
        zmin=0.0,
        zmax=float(max(plain.max(), with_pe.max())),
        colorbar_title="weight",
        hover="weight",
    )
    # a subtraction of its own, not /'s reordering change: it says which minus which, and that the order stays
    difference = ScaleGroup(
        [("with positions − without, same order", with_pe - plain, keys, queries)], colorbar_title="with positions − without", hover="with − without"
    )
    return grouped_heatmap(
        [weights, difference],
        title=f"Attention weights, head {head + 1} (row: query, column: key), and with positions − without",
        x_title=axis_title,
        y_title=axis_title.replace("key", "query"),
        note=f"key words named on every {ordinal(every)} column (the rows name every word)" if names and every > 1 else "",
        panel_height=max(260, ROW_PX * n) if names else 300,  # a word label per row needs its own line
    )


def reorder_changed(res: AttentionStudy, head: int) -> tuple[np.ndarray, np.ndarray]:
    """What reordering changed, word by word (your order with each word back in its place − the original order): head `head`'s
    weights without positions and with them, (T, T) each."""
    return res.weights_plain_shuffled[head] - res.weights_plain[head], res.weights_pe_shuffled[head] - res.weights_pe[head]


def change_key(res: AttentionStudy, head: int) -> float:
    """The change row's key runs ± this: the largest change, or 1 where every change is rounding (below 1e-9), which would
    otherwise be painted at full colour."""
    largest = max(reorder_changes(res, head))
    return largest if largest >= 1e-9 else 1.0


def _flat(z: np.ndarray) -> str:
    """What a change panel's title adds when it has nothing to show, so that a blank panel does not read as a chart that failed to draw:
    ' (0 everywhere)' when every value is exactly 0, ' (0 everywhere, to rounding)' when none reaches 1e-9 (change_key's
    and reorder_sentences' line for rounding), else nothing."""
    largest = float(np.abs(z).max())
    if not largest < 1e-9:
        return ""
    return " (0\u00a0everywhere)" if largest == 0 else " (0\u00a0everywhere, to rounding)"  # no-break: a narrow title wraps before "(0"


def reorder_figure(res: AttentionStudy, head: int, label: str, lined_up: bool = False, difference: bool = False) -> dict:
    """The lesson in one picture: head `head`'s weights for the sentence in its original order and in
    the visitor's order (`res.perm`), without positions (the first two panels) and with the scheme named `label`
    (the next two), on one sequential colour range from 0 so that every cell is comparable. Each order
    in its own order: without positions the visitor's panel is the original's with its rows and columns
    carried along with their words; with positions it is not. `lined_up`: the visitor's order drawn with
    every word put back in its original place, so that without positions the first two panels are the same
    picture and with positions they differ. `difference`: two more panels, what the reordering changed word by word
    (`reorder_changed`) without and with positions, on the diverging scale of /attention's difference, so that a change
    too small to see on the weights' range still shows. A core.viz.heatmap spec."""
    words = list(res.words)
    n = len(words)
    mine = [words[k] for k in res.perm]
    back = (lambda w: w) if lined_up else (lambda w: reordered_weights(w, res.perm))
    yours = "your order, lined up by word" if lined_up else "your order"
    ax = strided(n, MAX_TOKENS)
    if n <= TICK_LIMIT:
        every = max(1, -(-n // X_LABELS))
        where = np.argsort(res.perm)  # where each word stands in the visitor's order
        names = {"original": _slot_names(words), "yours": [f"{where[k]}:{w}" for k, w in enumerate(words)] if lined_up else _slot_names(mine)}
        axes = {order: (Named(ax, ns, every), Named(ax, ns)) for order, ns in names.items()}
        axis_title = "key word (position:word)"
    else:
        every, axes, axis_title = 1, {"original": (ax, ax), "yours": (ax, ax)}, "key position"
    panels = [
        ("original order, no positions", res.weights_plain[head], *axes["original"]),
        (f"{yours}, no positions", back(res.weights_plain_shuffled)[head], *axes["yours"]),
        (f"original order, with {label}", res.weights_pe[head], *axes["original"]),
        (f"{yours}, with {label}", back(res.weights_pe_shuffled)[head], *axes["yours"]),
    ]
    top = float(max(np.max(z) for _, z, _, _ in panels))
    # each key names its panels by where they stand in the panels' order, which holds in two columns and in the phone's one
    groups = [ScaleGroup(panels, signed=False, zmin=0.0, zmax=top, colorbar_title="attention weight", hover="weight", key_name="the first four panels")]
    if difference:
        what = "your order − original"  # on the diverging scale of weight_figure's difference, its own key
        changed = zip((f"{what}: no positions", f"{what}: with {label}"), reorder_changed(res, head))
        groups.append(
            ScaleGroup(
                [(name + _flat(z), z, *axes["original"]) for name, z in changed],
                zmax=change_key(res, head),
                colorbar_title=what,
                hover=what,
                key_name="the last two panels",
            )
        )
    return grouped_heatmap(
        groups,
        title=f"Attention weights{f', head {head + 1}' if res.weights_plain.shape[0] > 1 else ''} in two word orders"
        + (", and what the reordering changed word by word" if difference else "") + " (row: query, column: key)",
        x_title=axis_title,
        y_title=axis_title.replace("key", "query"),
        note=f"key words named on every {ordinal(every)} column" if every > 1 else "",
        # low enough that every row fits the first screen beside the words
        panel_height=max(72 if difference else 160, ROW_PX * n) if n <= TICK_LIMIT else 300,
        columns=2,
    )


def reorder_changes(res: AttentionStudy, head: int) -> tuple[float, float]:
    """How much head `head`'s weights change when the words are reordered, once each word is moved back
    to its place: max |weight| difference without positions and with them."""
    plain, with_pe = (float(np.abs(z).max()) for z in reorder_changed(res, head))
    return plain, with_pe


def reorder_sentences(res: AttentionStudy, head: int, label: str, causal: bool, lined_up: bool = False, difference: bool = False) -> list[str]:
    """What to look for in `reorder_figure` (drawn `lined_up` or not, with its `difference` row or not), said only where it holds
    for these weights."""
    n = len(res.words)
    if n < 2:
        return ["A single word has no order to change: add words to see what reordering does."]
    if [res.words[k] for k in res.perm] == list(res.words):  # the original order, or only copies of a word traded places
        return ["Both orders are the same sentence now: swap two different words to see what changes."]
    plain, with_pe = reorder_changes(res, head)
    below = "The next two pictures" if difference else "The last two pictures"  # counted, not rows: a phone may draw one column
    if plain < 1e-9:
        first = (
            "The first two pictures, no positions: with every word put back in its place, the two pictures are the same: reordering changed no word's attention"
            if lined_up
            else "The first two pictures, no positions: your order's is the original's with its rows and columns carried along with their words. "
            "Moved back to its place, every word's attention is unchanged"
        ) + (" (exactly)." if plain == 0 else f" (largest difference {plain:.0e}, rounding).")
    elif causal:
        first = (
            "The first two pictures: even without positions the causal mask (each word sees only itself and earlier words) makes attention depend on order: "
            f"moved back to their places, the weights differ by up to {charts.number(plain)}."
        )
    else:
        first = f"The first two pictures, no positions: moved back to their places, the weights differ by up to {charts.number(plain)}."
    # what the positions themselves change, in either order (0 at a position factor of 0), and the colour scale's top
    pairs = ((res.weights_pe, res.weights_plain), (res.weights_pe_shuffled, res.weights_plain_shuffled))
    own = max(float(np.abs(pe[head] - bare[head]).max()) for pe, bare in pairs)
    top = max(float(w[head].max()) for w in (res.weights_plain, res.weights_pe, res.weights_plain_shuffled, res.weights_pe_shuffled))
    unseen = f", too little to see on this colour scale (0 to {charts.number(top, 3)})"
    if own < 1e-9:
        second = (
            f"{below}, with {label}: as applied here the positions change no word's weights in either order "
            f"({'exactly' if own == 0 else f'largest change {own:.0e}, rounding'}), so "
            + (
                "no reordering can: these two pictures are the first two."
                if plain < 1e-9  # under the causal mask the order still counts: say through what
                else "these two pictures are the first two: the reordering moves them only through the mask."
            )
        )
    elif with_pe < 1e-9:
        second = (
            f"{below}, with {label}: this reordering leaves the weights as they were too (largest difference {with_pe:.0e}): "
            "the positions, as applied here, cannot tell these two orders apart. Try another order."
        )
    elif causal and plain >= 1e-9:
        share = "most of it the mask's doing" if plain >= own else "the mask alone gives"
        second = (
            f"{below}, with {label}: moved back to their places, the weights differ by up to {charts.number(with_pe)}, {share} "
            f"(without positions: {charts.number(plain)}); {label} itself changes a word's weights by at most {charts.number(own)}"
            + (unseen if own < 0.02 * top else "") + "."
        )
    elif with_pe < 0.02 * top:
        second = (
            f"{below}, with {label}: the pictures differ, but by at most {charts.number(with_pe)}{unseen}: the positions barely move "
            "these weights (a larger position factor, or another scheme, moves them more)."
        )
    else:
        second = (
            f"{below}, with {label}: the pictures differ, because where a word stands now changes whom it attends to "
            f"({'' if lined_up else 'moved back to their places, '}the weights differ by up to {charts.number(with_pe)})."
        )
    if not difference:
        return [first, second]
    key = change_key(res, head)  # the change row's key, as drawn
    third = (
        f"The last two: what the reordering changed, word by word (red: more attention, blue: less, on a key of ±{charts.number(key, 3)}): "
        + ("nothing" if plain < 1e-9 else f"up to {charts.number(plain)}")
        + " without positions, "
        + ("nothing" if with_pe < 1e-9 else f"up to {charts.number(with_pe)}")
        + f" with {label}."
    )
    return [first, second, third]


def difference_caption(res: AttentionStudy, head: int, applied: str, causal: bool) -> str:
    """What the with / without / difference figure shows for head `head`, its last sentence chosen by the weights."""
    moved = float(np.abs(res.weights_pe[head] - res.weights_plain[head]).max())
    return (
        f"The encoding is {applied}. "
        + (
            "Without it, a word's attention depends only on which words are present, so identical words get identical rows. "
            if not causal
            else "The causal mask hides later words (the upper triangle), and that alone already depends on order. "
        )
        + (
            "With it, where a word stands changes whom it attends to (red: more attention than without positions, blue: less)."
            if moved >= 1e-9
            else "As applied here it changes no weight, so the difference is all white."
        )
    )


def shuffle_notes(res: AttentionStudy, words: Sequence[str], scheme: Scheme, causal: bool) -> list[str]:
    """Sentences that qualify the permutation test for this sentence, scheme and mask."""
    n = len(words)
    notes = []
    if causal:
        notes.append(
            "With the causal mask even attention without positions is not shuffle-proof: the mask itself encodes order "
            "(a known reason decoder-only models can work without any positional encoding)."
        )
    if len(set(words)) == n:
        notes.append("This sentence has no repeated word, so the identical-word check has nothing to compare: try 'one word repeated'.")
    # only where the numbers show it: a bias on the scores (a function of i - j) that moves the weights, and the reversed sentence's
    # weights, put back, the original's, so the bias is the same at i - j and j - i (a rotation, RoPE, reads the signed i - j)
    moves = float(np.abs(res.weights_pe - res.weights_plain).max()) >= 1e-9
    mirrored = float(np.abs(res.weights_pe_shuffled - res.weights_pe).max()) < 1e-9 and res.residual_pe < 1e-9
    if scheme.applied == BIAS and n > 1 and not causal and np.array_equal(res.perm, np.arange(n)[::-1]) and moves and mirrored:
        notes.append(
            f"Your order reverses the sentence, and {scheme.label} adds to each score a bias that here depends only on the distance |i − j| "
            "between the two words, which reversal leaves unchanged: the reversed sentence is attended to as a mirror image. Shuffle, or turn "
            "on the causal mask."
        )
    if len(set(words)) == 1:
        notes.append(
            "Every word is the same, so the shuffled sentence is the same sentence and the shuffle test says little here; "
            "the same-word rows are the test that matters."
        )
    return notes


def norms_figure(res: AttentionStudy) -> go.Figure:
    """The norm of each token's word part and position part, (T,) each."""
    tok = np.arange(res.word_norm.size)
    return charts.lines(
        [("word part ||x||", tok, res.word_norm), ("position part ||PE||", tok, res.position_norm)],
        title="Size of each token's word part and position part",
        x_title="token position",
        y_title="vector norm",
        markers=tok.size <= 64,
        y_range=(0.0, 1.1 * float(max(res.word_norm.max(), res.position_norm.max(), 1e-9))),
    )


def shares_figure(share: np.ndarray, factors: np.ndarray, pe_scale: float) -> go.Figure:
    """The share of the score magnitude from content · content, the cross terms and
    position · position (`share`: (F, 3)) at each position factor f (`factors`: (F,))."""
    return charts.lines(
        [("content · content", factors, share[:, 0]), ("content · position (cross)", factors, share[:, 1]), ("position · position", factors, share[:, 2])],
        title="Where the attention scores come from",
        x_title="position factor f (inputs x + f·PE)",
        y_title="share of the score magnitude",
        y_range=(0.0, 1.0),
        x_marks=[(pe_scale, f"f = {pe_scale:g}")],
    )


def share_text(at: np.ndarray, f: float) -> str:
    """What the score-share chart shows at the position factor set, from its drawn shares there (content, cross, position)."""
    parts = ("content · content term", "cross terms", "position · position term")
    top = int(np.argmax(at))
    return (
        "The scores split exactly into a content · content term (word with word), cross terms (growing with f) and a position · position "
        f"term (growing with f²). At f = {f:g}, as set, the {parts[top]} {'is' if top != 1 else 'are'} the largest part ({at[top]:.0%} of the three)"
        + (": where the words stand weighs more in the scores than what they are." if top == 2 else ".")
    )
