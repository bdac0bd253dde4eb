"""Page `relative`: ALiBi's per-head linear biases, T5's relative buckets, and Shaw's clipping."""

import numpy as np
import pandas as pd
import streamlit as st

from core.schemes import alibi, relative
from core.viz import charts
from core.viz.grid import Sample, strided
from ui.controls import Choice, Number, Toggle, check_links, number
from ui.shared import current_settings, guarded, plot

GRID = 48  # query and key positions per small bias panel
MAX_PANELS = 16  # heads drawn as panels
SPAN_MASS = 0.9
WEIGHT_POINTS = 400
HEAD_CHOICES = tuple(range(1, 65))


def broken_runs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x, y with a NaN point wherever x skips a value, so a line drawn through them stops at
    each gap instead of joining the runs on either side."""
    cut = np.flatnonzero(np.diff(x) != 1) + 1
    return np.insert(x.astype(np.float64), cut, np.nan), np.insert(y.astype(np.float64), cut, np.nan)


st.title("Relative biases: ALiBi, T5 and Shaw")
s = current_settings()
L = s.max_len
st.markdown(
    "These schemes add nothing to the token vectors. They change the attention scores directly, by an amount that "
    "depends only on how far apart the query and the key are. The context length is the sidebar's max_len."
)

# --- ALiBi ------------------------------------------------------------------------------
st.header("ALiBi: a straight-line penalty per head")
ALIBI_HEADS = Choice(
    "alibi_heads", "Heads", HEAD_CHOICES, 8, expected="ALiBi needs a whole number of heads from {first} to {last}", widget="select_slider",
    help="Powers of two get slopes 2^(−8/H), 2^(−16/H), …; other counts follow the paper's reference code.",
)  # fmt: skip
ALIBI_CAUSAL = Toggle("alibi_causal", "Causal (a decoder: keys after the query are masked)", True)
check_links(ALIBI_HEADS, ALIBI_CAUSAL)
c1, c2 = st.columns(2)
heads, causal = ALIBI_HEADS.draw(c1), ALIBI_CAUSAL.draw(c2)
slopes = guarded(alibi.alibi_slopes, int(heads))
grid = strided(L, GRID)
shown = min(int(heads), MAX_PANELS)
bias = alibi.alibi_bias_window(int(heads), grid.indices, grid.indices, causal=causal)[:shown]  # (shown, g, g)
if causal:
    bias = np.where(np.isfinite(bias), bias, np.nan)  # masked keys drawn blank
notes = [n for n in (grid.note("position"), f"the first {shown} of {heads} heads" if shown < heads else "") if n]
plot(
    charts.small_multiples(
        [(f"head {h}: slope {slopes[h]:.4g}", bias[h], grid, grid) for h in range(shown)],
        title=f"ALiBi bias −m·(i − j) added to the score of query i and key j, per head, over {L:,} positions"
        + (" (blank: masked)" if causal else ", |i − j| both ways"),
        x_title="key position j",
        y_title="query position i",
        note="; ".join(notes),
        columns=4,
    ),
    key="alibi_heads_map",
)
st.caption(
    "What to look for: every panel is the same picture, darker away from the diagonal, but with a different steepness. "
    "The first head forgets distant keys fastest, the last hardly at all: each head gets its own range."
)
exponents = -np.log2(slopes)
plot(
    charts.lines(
        [("slope m_h", np.arange(int(heads)), slopes)],
        title=f"Slopes of the {heads} heads (a geometric sequence; powers of two as 1/2^k)",
        x_title="head h",
        y_title="slope m_h (log scale)",
        log_y=True,
        markers=True,
    ),
    key="alibi_slopes",
)
st.caption(
    "Slopes: "
    + ", ".join(f"2^−{e:.4g}" for e in exponents[:16])
    + (" …" if heads > 16 else "")
    + (
        ". With 8 heads these are exactly 1/2, 1/4, …, 1/256."
        if heads == 8
        else ". A head count that is not a power of two takes the slopes of the next lower power of two and fills in with every other slope of the next "
             "higher one."
    )
)

st.subheader("What softmax makes of it: each head's attention span")
span = alibi.alibi_attention_span(slopes, L, SPAN_MASS)
distances = np.unique(np.geomspace(1, max(L, 1), WEIGHT_POINTS).round().astype(np.int64) - 1)
weights = alibi.alibi_attention_weights(slopes, L, distances=distances)
pick = np.unique(np.linspace(0, int(heads) - 1, min(int(heads), 6)).round().astype(int))
plot(
    charts.lines(
        [(f"head {h} (span {span[h]:,})", distances + 1, weights[h]) for h in pick],
        title=f"Attention of the last query over {L:,} keys when all content scores are equal: only the bias counts",
        x_title="distance to the key + 1 (positions, log scale)",
        y_title="attention weight (log scale)",
        log_x=True,
        log_y=True,
        note=f"heads {', '.join(map(str, pick))} of {heads}" if pick.size < heads else "",
    ),
    key="alibi_weights",
)
table = pd.DataFrame({"head": np.arange(int(heads)), "slope": slopes, f"keys holding {SPAN_MASS:.0%} of the attention": span, "share of the context": span / L})
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={"slope": st.column_config.NumberColumn(format="%.6g"), "share of the context": st.column_config.NumberColumn(format="%.3f")},
    key="alibi_span_table",
)
st.caption(
    f"What to look for: with equal content, the nearest {span[0]:,} keys hold {SPAN_MASS:.0%} of head 0's attention, while head "
    f"{int(heads) - 1} spreads over {span[-1]:,}. Content scores can overrule the bias, but these spans are the default reach of each head, "
    "and they do not change with the context length once it is longer than the span: that is why ALiBi extrapolates."
)

# --- T5 ---------------------------------------------------------------------------------
st.header("T5: relative positions in buckets")
T5_BUCKETS = Number("t5_buckets", "Buckets", 2, 256, 32, expected="the number of buckets must be a whole number from {lo} to {hi}")
T5_MAX_DISTANCE = Number(
    "t5_max_distance", "Max distance", 1, 131_072, 128, expected="the max distance is a whole number from {lo} to {hi:,}",
    help="Distances from here on share the last bucket.",
)  # fmt: skip
T5_BIDIRECTIONAL = Toggle(
    "t5_bidirectional", "Bidirectional (encoder)", True,
    help="An encoder splits the buckets between keys before and after the query; a decoder uses them all for keys before.",
)  # fmt: skip
check_links(T5_BUCKETS, T5_MAX_DISTANCE, T5_BIDIRECTIONAL)
c1, c2, c3 = st.columns(3)
num_buckets, max_distance, bidirectional = T5_BUCKETS.draw(c1), T5_MAX_DISTANCE.draw(c2), T5_BIDIRECTIONAL.draw(c3)
try:
    ranges = relative.t5_bucket_ranges(bidirectional=bidirectional, num_buckets=int(num_buckets), max_distance=int(max_distance))
except ValueError as err:
    st.error(f"{err} The T5 views wait for a valid setting; the Shaw section below does not depend on it.", icon=":material/error:")
    ranges = None
if ranges is not None:
    reach = int(min(max(2 * max_distance, 64), 4096))
    rel = np.arange(-reach, reach + 1)
    buckets = relative.t5_relative_bucket(rel, bidirectional=bidirectional, num_buckets=int(num_buckets), max_distance=int(max_distance))
    kind_of = np.array([r.kind for r in ranges])[buckets]
    plot(
        charts.lines(
            [(f"{kind} buckets", *broken_runs(rel[kind_of == kind], buckets[kind_of == kind])) for kind in ("exact", "log") if (kind_of == kind).any()],
            title=f"Bucket of each relative position (key − query), {num_buckets} buckets, max distance {max_distance}",
            x_title="relative position key − query (positions)",
            y_title="bucket",
            steps=True,  # a staircase: one dot per position (up to 8,193) cost the browser more than the rest of the page
            x_marks=[(-max_distance, f"−{max_distance}"), (max_distance, f"{max_distance}")] if bidirectional else [(-max_distance, f"−{max_distance}")],
        ),
        key="t5_buckets_map",
    )
    exact = [r for r in ranges if r.kind == "exact"]
    used_log = [r for r in ranges if r.kind == "log"]
    st.caption(
        f"What to look for: near the query every distance has its own bucket ({len(exact)} exact buckets); further out the buckets widen "
        f"logarithmically ({len(used_log)} log buckets), and every distance from the last bucket's start on shares one value, so T5 "
        "treats 200 and 20,000 positions back alike. "
        + (
            "Keys after the query (right) get their own buckets."
            if bidirectional
            else "In the causal form all keys after the query fall in bucket 0, and the mask hides them."
        )
    )
    bucket_table = pd.DataFrame({"bucket": [r.bucket for r in ranges], "kind": [r.kind for r in ranges], "relative positions": [r.label for r in ranges]})
    with st.expander("Every bucket's range"):
        st.dataframe(bucket_table, hide_index=True, width="stretch", key="t5_range_table")

    values = relative.t5_demo_bucket_values(int(num_buckets), 4, bidirectional=bidirectional, max_distance=int(max_distance))
    t_grid = strided(L, GRID)
    t5_bias = relative.t5_bias(values, t_grid.indices, t_grid.indices, bidirectional=bidirectional, max_distance=int(max_distance))  # (4, g, g)
    plot(
        charts.small_multiples(
            [(f"head {h}", t5_bias[h], t_grid, t_grid) for h in range(4)],
            title="A T5 bias matrix from bucket values: each head looks up one number per bucket",
            x_title="key position",
            y_title="query position",
            note="; ".join(
                n
                for n in (
                    "illustrative bucket values (not a trained model): nearer buckets higher, heads forgetting at different rates",
                    t_grid.note("position"),
                )
                if n
            ),
            columns=4,
        ),
        key="t5_bias_map",
    )
    st.caption(
        f"What to look for: like ALiBi the matrix is constant along diagonals, but in steps: a new colour only where a new bucket begins. "
        f"Past max distance ({max_distance}) it is flat. T5 learns {num_buckets} numbers per head for this, shared by all layers."
    )

# --- Shaw -------------------------------------------------------------------------------
st.header("Shaw et al.: clipped relative positions")
shaw_k = number(st, "Clipping distance k", "shaw_k", 0, 64, 4, expected="the clipping distance is a whole number from {lo} to {hi}", slider=True)
n_show = int(min(L, 32))
ids = relative.shaw_relative_positions(np.arange(n_show), np.arange(n_show), int(shaw_k)).astype(np.float64)
window = Sample(0, n_show, 1)
plot(
    charts.heatmap(
        ids,
        window,
        window,
        title=f"clip(j − i, −{shaw_k}, {shaw_k}): which of the {2 * shaw_k + 1} learned vectors the pair (query i, key j) uses",
        x_title="key position j",
        y_title="query position i",
        colorbar_title="clipped j − i",
        zmax=max(int(shaw_k), 1),
        note=f"the first {n_show} of {L:,} positions" if n_show < L else "",
        height=460,
    ),
    key="shaw_clip",
)
distinct = relative.shaw_distinct_ids(L, L, int(shaw_k))
st.caption(
    f"What to look for: {2 * shaw_k + 1} colours, one per clipped distance, and flat beyond ±{shaw_k}. Shaw et al. add the chosen vector "
    f"to the key (and the value) before the dot product, so a head learns (2k + 1) × head_dim numbers per table whatever the length. "
    f"Over {L:,} positions the pairs use {distinct:,} distinct vectors."
)
