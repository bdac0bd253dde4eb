"""The words of /relative that state a property of a figure (which ALiBi head is steepest, what the slopes
are, how far each head reaches, how many of Shaw's vectors the window uses), each built from the arrays
the page draws, so it says only what holds at the settings on screen. Pure functions: no Streamlit,
so tests can read every sentence."""

from __future__ import annotations

import numpy as np

RTOL = 1e-9  # slopes are float64 powers of two: equal ratios agree to rounding
# Every function here takes heads by their index in the arrays (0-based) and names them as the learner reads them, from 1.


def _runs(slopes: np.ndarray) -> list[tuple[int, int]]:
    """Heads [start, stop) between the places where a slope rises above the one before, in order."""
    cuts = [0, *(np.flatnonzero(np.diff(slopes) > 0) + 1).tolist(), slopes.size]
    return list(zip(cuts[:-1], cuts[1:], strict=True))


def _geometric(run: np.ndarray) -> bool:
    return run.size < 3 or bool(np.allclose(run[1:] / run[:-1], run[1] / run[0], rtol=RTOL, atol=0))


def _heads(hs: list[int]) -> str:
    """Any heads (by index), runs of consecutive ones joined, named from 1: 'head 2', 'heads 3 to 7 and 10 to 11', 'heads 1, 4 and 6'."""
    hs = [h + 1 for h in hs]
    runs, start = [], hs[0]
    for a, b in zip(hs, [*hs[1:], None]):
        if b != a + 1:
            runs.append(str(start) if start == a else f"{start} to {a}")
            start = b
    said = runs[0] if len(runs) == 1 else f"{', '.join(runs[:-1])} and {runs[-1]}"
    return f"head {said}" if len(hs) == 1 else f"heads {said}"


FAINT = 0.1  # a head whose slope is under this share of the steepest spans under a tenth of the shared colour range


def heads_caption(slopes: np.ndarray, length: int) -> str:
    """The ALiBi heatmap's caption: which head forgets distant keys fastest and which slowest, from the slopes."""
    if length < 2:
        return "What to look for: with one position there is no distance to penalise; every panel is one cell of bias 0."
    if slopes.size == 1:
        return f"What to look for: the panel is darker away from the diagonal, by the one head's slope, {slopes[0]:.4g} per position of distance."
    lead = "What to look for: one colour range for all heads, so equal colours are equal penalties, and every panel is darker away from the diagonal, "
    steep, shallow = int(np.argmax(slopes)), int(np.argmin(slopes))
    if steep == 0 and shallow == slopes.size - 1 and np.all(np.diff(slopes) < 0):
        order = "but with a different steepness: the first head forgets distant keys fastest, the last hardly at all; the steepness falls from head to head."
    else:
        first = _runs(slopes)[0][1]
        later = list(range(first, slopes.size))
        order = (
            f"but with a different steepness: head {steep + 1} (slope {slopes[steep]:.4g}) forgets distant keys fastest, head {shallow + 1} "
            f"(slope {slopes[shallow]:.4g}) hardly at all; the steepness does not fall from head to head: {_heads(later)} "
            f"{'takes a slope' if len(later) == 1 else 'take slopes'} between those of {_heads(list(range(first)))}."
        )
    faint = [h for h in range(slopes.size) if slopes[h] < FAINT * slopes[steep]]
    if faint:
        order += (
            f" On this range {_heads(faint)} {'changes' if len(faint) == 1 else 'change'} by less than a tenth of the steepest head's penalty "
            f"and {'looks' if len(faint) == 1 else 'look'} nearly flat: switch to each head's own range to see {'it' if len(faint) == 1 else 'them'} "
            "fall too."
        )
    return lead + order


def slopes_title(slopes: np.ndarray) -> str:
    """The slope chart's title: one geometric sequence, or two one after the other; 'each 1/2^k' only
    when every slope is a whole power of two."""
    whole = bool(np.all(np.isclose(np.log2(slopes), np.round(np.log2(slopes)), rtol=0, atol=1e-12)))
    runs = _runs(slopes)
    n = slopes.size
    if n == 1:
        return f"Slope of the one head ({'1/2^k: ' if whole else ''}1/{1 / slopes[0]:.4g})"
    first = "a geometric sequence" if _geometric(slopes[: runs[0][1]]) else "falling"
    shape = first if len(runs) == 1 else f"{_heads(list(range(runs[0][1])))} {first}"
    for a, b in runs[1:]:
        shape += f"; {_heads(list(range(a, b)))} between them"
    return f"Slopes of the {n} heads ({shape}{'; each a whole power of two, 1/2^k' if whole else ''})"


def slopes_caption(slopes: np.ndarray, shown: int = 16) -> str:
    """The slopes as powers of two, then what rule made them (a power-of-two count or not)."""
    n = slopes.size
    listed = ", ".join(f"2^−{e:.4g}" for e in -np.log2(slopes[:shown])) + (" …" if n > shown else "")
    if n & (n - 1) == 0:
        rule = f"A power-of-two head count gets 2^(−8/{n}), 2^(−16/{n}), …: each head's slope is the one before's times 2^(−8/{n})."
        if np.all(np.isclose(np.log2(slopes), np.round(np.log2(slopes)), rtol=0, atol=1e-12)):
            rule += " Here every slope is exactly 1/2^k: " + ", ".join(f"1/{round(1 / m):,}" for m in slopes[:shown]) + (" …" if n > shown else "") + "."
    else:
        c = 1 << (n.bit_length() - 1)
        rule = (
            f"{n} heads is not a power of two: {_heads(list(range(c)))} take the slopes of {c} heads, and {_heads(list(range(c, n)))} every "
            f"other slope of {2 * c} heads, which lie between them."
        )
    return f"Slopes: {listed}. {rule}"


def span_text(slopes: np.ndarray, span: np.ndarray, length: int, mass: float) -> str:
    """How many of the nearest keys hold `mass` of the steepest and the shallowest head's attention."""
    steep, shallow = int(np.argmax(slopes)), int(np.argmin(slopes))
    share = f"{mass:.0%}"
    keys = f"{length:,} key{'s' if length != 1 else ''}"
    if slopes.size == 1:
        return f"What to look for: with equal content, the nearest {span[0]:,} of the {keys} hold {share} of the one head's attention."
    if np.all(span == span[0]):
        return (
            f"What to look for: over {keys} every head needs the nearest {span[0]:,} for {share} of its attention: "
            "the context is too short for the slopes to differ in reach."
        )
    return (
        f"What to look for: with equal content, the nearest {span[steep]:,} keys hold {share} of the attention of head {steep + 1}, the steepest, while head "
        f"{shallow + 1}, the shallowest, spreads over {span[shallow]:,} of the {keys}."
    )


def shaw_text(drawn_ids: np.ndarray, k: int, length: int, distinct: int) -> str:
    """Shaw's clip figure: the colours the drawn window holds, whether it reaches past the clip, and how
    many of the 2k + 1 vectors the whole context uses. drawn_ids: (n, n) clipped offsets of the window."""
    n, colours = drawn_ids.shape[0], int(np.unique(drawn_ids).size)
    if k == 0:
        seen = "one colour: with k = 0 every pair uses the same vector"
    elif n - 1 > k:
        seen = f"{colours} colours, one per clipped distance, and flat beyond ±{k}"
    else:
        seen = f"{colours} colour{'s' if colours != 1 else ''}, one per offset among the {n} drawn positions, too few to reach past ±{k}"
    used = "the one vector" if k == 0 else f"{distinct:,} of the {2 * k + 1} vectors"
    return f"What to look for: {seen}. Over {length:,} position{'s' if length != 1 else ''} the pairs use {used}."
