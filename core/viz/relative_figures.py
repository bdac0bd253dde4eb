"""The figures of the relative-bias page (ALiBi, T5, Shaw, KERPLE), each true at every setting.

Heads are numbered from 1 in every label, as on every page a learner reads (the arrays keep their 0-based index).
Heads of one scheme share one colour range (they are meant to be compared: a per-head range
makes every ALiBi head look alike); attention weights go on a linear axis (a log axis down to
1e-300 hides the region that matters); the T5 staircase breaks where a bucket kind skips
positions.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.schemes import alibi, kerple, relative
from core.viz import charts, palette
from core.viz.grid import Sample, strided, window
from core.viz.heatmap import heatmap
from core.viz.memo import shared

GRID = 48  # query and key positions per small bias panel
MAX_PANELS = 16  # heads drawn as panels
WEIGHT_POINTS = 400


def alibi_heads(n_heads: int, max_len: int, causal: bool, shared_range: bool = True) -> dict:
    """The bias of each head (the first MAX_PANELS) over a strided grid of positions, on the
    sequential scale (every bias is ≤ 0), one colour range for every head (`shared_range`: the
    slopes compared) or each head's own (each head's straight-line penalty seen): a
    core.viz.heatmap spec (the browser paints it; 16 panels as Plotly axes cost the browser more
    than the rest of the page)."""
    slopes = alibi.alibi_slopes(n_heads)
    grid = strided(max_len, GRID)
    shown = min(n_heads, MAX_PANELS)
    bias = alibi.alibi_bias_window(n_heads, grid.indices, grid.indices, causal=causal)[:shown]  # (shown, g, g)
    if causal:
        bias = np.where(np.isfinite(bias), bias, np.nan)  # masked keys drawn blank
    notes = [n for n in (grid.note("position"), f"the first {shown} of {n_heads} heads" if shown < n_heads else "") if n]
    return heatmap(
        [(f"head {h + 1}: slope {charts.number(slopes[h])}", bias[h], grid, grid) for h in range(shown)],
        title=f"ALiBi bias −m·(i − j) added to the score of query i and key j, per head, over {max_len:,} positions"
        + (" (blank: masked)" if causal else ", |i − j| both ways"),
        x_title="key position j",
        y_title="query position i",
        note="; ".join(notes),
        columns=4,
        shared_range=shared_range,
        value_title="bias",
        one_signed=True,
    )


def bias_by_distance(name: str, bias: np.ndarray, distances: np.ndarray, *, title: str, note: str = "") -> go.Figure:
    """The bias (H, n) of every head against the distance to the key (linear axes), one line per head in its own colour."""
    return charts.lines(
        [(f"head {h + 1}", distances, bias[h]) for h in range(bias.shape[0])],
        colours=[palette.head_colour(h) for h in range(bias.shape[0])],
        title=title,
        x_title="distance to the key, query − key (positions)",
        y_title=f"{name} bias added to the score",
        note=note,
        integer_x=True,
    )


def alibi_lines(n_heads: int, max_len: int) -> go.Figure:
    """−mₕ·k against the distance k, one straight line per head (the first 8)."""
    slopes = alibi.alibi_slopes(n_heads)[:8]
    k = np.unique(np.linspace(0, max(max_len - 1, 1), 200).round())
    note = f"the first 8 of {n_heads} heads" if n_heads > 8 else ""
    return bias_by_distance(
        "ALiBi", -slopes[:, None] * k[None, :], k, title="ALiBi's bias against distance: one straight line per head, each its own slope", note=note
    )


SPAN_LINES = 8  # heads the span chart draws at most: more lines in one chart are not told apart


def span_heads(n_heads: int, most: int = SPAN_LINES) -> np.ndarray:
    """The heads (0-based, ascending) the span chart draws: every head up to `most`; past that `most` of them spread evenly from the
    first (the steepest slope, for a power of two) towards the last, each moved to its nearest head whose colour is apart from every
    other drawn head's (palette.lines_apart: palette.head_colour repeats every len(palette.LINES) heads, and some of its colours
    look alike with a missing cone), so no two lines of the chart look alike."""
    if n_heads <= most:
        return np.arange(n_heads)
    taken: list[int] = []
    for target in np.linspace(0, n_heads - 1, most).round().astype(int):
        free = [h for h in range(n_heads) if h not in taken and all(palette.lines_apart(palette.head_colour(h), palette.head_colour(t)) for t in taken)]
        taken.append(min(free, key=lambda h: (abs(h - int(target)), h)))
    return np.array(sorted(taken))


@shared
def alibi_weights(slopes: np.ndarray, max_len: int, span: np.ndarray) -> go.Figure:
    """Attention of the last query over max_len keys with equal content (only the bias counts), for the heads span_heads picks
    (each in its own colour, as in the bias chart beside it; which and why said under the title when not all), on a linear weight
    axis against a log distance axis."""
    heads = span_heads(slopes.size)
    distances = np.unique(np.geomspace(1, max(max_len, 1), WEIGHT_POINTS).round().astype(np.int64) - 1)
    weights = alibi.alibi_attention_weights(slopes, max_len, distances=distances)
    shown = f"heads {', '.join(str(h + 1) for h in heads)} of {slopes.size}, spread across them: more lines would not be told apart"
    colours = [palette.head_colour(int(h)) for h in heads]
    fig = charts.lines.fresh(  # its own figure: the heads' names are added to it
        [(f"head {h + 1} (span {span[h]:,})", distances + 1, weights[h]) for h in heads],
        colours=colours,
        title=f"Attention of the last query over {max_len:,} keys when all content scores are equal: only the bias counts",
        x_title="distance to the key + 1, as a log axis has no 0",  # the query's own key, at distance 0, holds the most weight
        y_title="attention weight",
        log_x=True,
        note=shown if heads.size < slopes.size else "",
        height=420,  # taller than a chart's default, so that a phone's plot, above its legend of 8 rows, holds 8 names apart
    )
    # each line named where it starts: the shallow heads start within a few pixels of each other near 0, where colour alone did not
    # tell them apart, so their names are moved apart, in the order their lines start, each with a pointer to its line's start
    starts = weights[heads, 0]
    fig.update_yaxes(rangemode="tozero")  # the moves below count pixels from a weight of 0
    if np.ptp(starts) == 0:  # every line one and the same (one key: each head gives it all the weight): one name for all
        named = "every head drawn" if heads.size > 1 else f"head {heads[0] + 1}"
        fig.add_annotation(
            x=0.0, y=float(starts[0]), xref="x", yref="y", text=named, font=dict(size=charts.MARK_FONT_PX),
            showarrow=True, arrowwidth=1, arrowhead=0, ax=SPAN_LABEL_PX, ay=0, xanchor="left", bgcolor=charts.LABEL_BACKING,
        )  # fmt: skip
        return fig
    scale = SPAN_PLOT_PX / max(float(starts.max()), 1e-300)  # pixels per unit of weight, the y axis running from 0 to the highest start
    half = SPAN_NAME_PX / 2  # a name stands whole inside the plot: neither on the x axis nor above the highest start
    for k, lift in enumerate(label_lifts(starts * scale, SPAN_NAME_PX, half, SPAN_PLOT_PX - half)):
        fig.add_annotation(
            x=0.0, y=float(starts[k]), xref="x", yref="y", text=f"head {heads[k] + 1}", font=dict(size=charts.MARK_FONT_PX, color=colours[k]),
            showarrow=True, arrowcolor=colours[k], arrowwidth=1, arrowhead=0, ax=SPAN_LABEL_PX, ay=-lift, xanchor="left", bgcolor=charts.LABEL_BACKING,
        )  # fmt: skip
    return fig


# pixels from 0 to the highest start at least, as a 390-pixel phone shows the span chart (its plot, above 8 rows of legend and under a
# note, measured 167 pixels tall in Chromium); a desktop shows more, and its names stand further apart
SPAN_PLOT_PX = 150
SPAN_NAME_PX = charts.MARK_LINE_PX + 4  # a name's centre to the next: its backing is 15 pixels tall in Chromium, and 3 more keep two apart
SPAN_LABEL_PX = 36  # how far right of its line's start a head's name sits


def label_lifts(at: np.ndarray, gap: float, lowest: float = -np.inf, highest: float = np.inf) -> np.ndarray:
    """How far (in pixels; below 0, down) to move each label from the point `at` it names (pixels from the axis' foot) so that labels
    stand at least `gap` apart, in the order of their points, between `lowest` and `highest`: from the lowest up, each at its point,
    `lowest` or `gap` above the one below, whichever is highest; then from the highest down, each at most `highest` and `gap` under
    the one above. Both bounds hold when the labels fit, (n − 1)·gap ≤ highest − lowest. (n,) float64."""
    at = np.asarray(at, dtype=np.float64)
    order = np.argsort(at, kind="stable")
    placed = np.empty_like(at)
    below = lowest - gap
    for k in order:
        placed[k] = below = max(float(at[k]), below + gap)
    above = highest + gap
    for k in order[::-1]:
        placed[k] = above = min(float(placed[k]), above - gap)
    return placed - at


def _broken_runs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x, y with a NaN point wherever x skips a value, so a line drawn through them stops at each gap."""
    cut = np.flatnonzero(np.diff(x) != 1) + 1
    return np.insert(x.astype(np.float64), cut, np.nan), np.insert(y.astype(np.float64), cut, np.nan)


def t5_bucket_map(num_buckets: int, max_distance: int, bidirectional: bool, ranges: list[relative.BucketRange]) -> go.Figure:
    """T5's bucket of each relative position, as a staircase per kind of bucket (exact, log)."""
    reach = int(min(max(2 * max_distance, 64), 4096))
    rel = np.arange(-reach, reach + 1)
    buckets = relative.t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    kind_of = np.array([r.kind for r in ranges])[buckets]
    return charts.lines(
        [(f"{kind} buckets", *_broken_runs(rel[kind_of == kind], buckets[kind_of == kind])) for kind in ("exact", "log") if (kind_of == kind).any()],
        title=f"Bucket of each relative position (key − query), {num_buckets} buckets, max distance {max_distance}",
        x_title="relative position key − query (positions)",
        y_title="bucket",
        steps=True,  # a staircase: one dot per position (up to 8,193) cost the browser more than the rest of the page
        integer_x=True,
        integer_y=True,
        x_marks=[(-max_distance, f"−{max_distance}"), (max_distance, f"{max_distance}")] if bidirectional else [(-max_distance, f"−{max_distance}")],
    )


def t5_heads(num_buckets: int, max_distance: int, bidirectional: bool, max_len: int) -> dict:
    """A T5 bias matrix for 4 heads from illustrative bucket values, one colour range: a
    core.viz.heatmap spec (the browser paints it)."""
    values = relative.t5_demo_bucket_values(num_buckets, 4, bidirectional=bidirectional, max_distance=max_distance)
    grid = strided(max_len, GRID)
    bias = relative.t5_bias(values, grid.indices, grid.indices, bidirectional=bidirectional, max_distance=max_distance)  # (4, g, g)
    note = "; ".join(
        n for n in ("illustrative bucket values (not a trained model): nearer buckets higher, heads forgetting at different rates", grid.note("position")) if n
    )
    return heatmap(
        [(f"head {h + 1}", bias[h], grid, grid) for h in range(4)],
        title="A T5 bias matrix from bucket values: each head looks up one number per bucket",
        x_title="key position",
        y_title="query position",
        note=note,
        columns=4,
        shared_range=True,
        value_title="bias",
    )


def shaw_clip(k: int, max_len: int) -> tuple[dict, Sample]:
    """clip(j − i, −k, k) for the first 32 positions (consecutive: a stride would skip the
    clipping), as a core.viz.heatmap spec."""
    rows = window(max_len, 32)
    ids = relative.shaw_relative_positions(rows.indices, rows.indices, k).astype(np.float64)
    spec = heatmap(
        [("", ids, rows, rows)],
        title=f"clip(j − i, −{k}, {k}): which of the {2 * k + 1} learned vectors the pair (query i, key j) uses",
        x_title="key position j",
        y_title="query position i",
        shared_range=True,  # ±the largest clipped offset drawn: k, or less where the window is shorter than k
        value_title="clipped j − i",
        note=rows.note("position"),
        panel_height=380,
    )
    return spec, rows


def kerple_lines(n_heads: int, max_len: int, seed: int = 0) -> go.Figure:
    """KERPLE's −r₁·log(1 + r₂·k) at its initial values beside ALiBi's −m·k, per head, against the distance."""
    params = kerple.kerple_parameters(n_heads, seed=seed)
    k = np.unique(np.linspace(0, max(max_len - 1, 1), 200).round())
    bias = kerple.kerple_log_bias(params["r1"], params["r2"], k, np.zeros(1))[:, :, 0]  # (H, n): a query k places after its key
    shown = min(n_heads, 8)
    return bias_by_distance(
        "KERPLE",
        bias[:shown],
        k,
        title="KERPLE's bias against distance, at its initial r₁ and r₂: a logarithm per head",
        note=f"the first {shown} of {n_heads} heads" if shown < n_heads else "",
    )
