"""Page `rope`: rotary embeddings: the rotation, the relative property, the decay, and long-context scaling."""

import numpy as np
import streamlit as st

from core.schemes import rope
from core.schemes.registry import Setting
from core.viz import charts
from ui.path import next_link
from ui.rope_controls import KIND_LABELS, factor_control, original_len_control, pair_layout_control, scaling_kind_control, scaling_words
from ui.scorecard import scorecard
from ui.shared import check_url_value, current_settings, follow_default, guarded, keep_valid, plot

HEAD_DIMS = (2, 4, 8, 16, 32, 64, 128, 256)
DENSE, SPARSE = 512, 1500  # offsets drawn: every one up to DENSE, then SPARSE log-spaced
PROBE_SEED = 7
REGION_COLOURS = {"kept": charts.LINE_COLOURS[0], "blended": charts.LINE_COLOURS[4], "interpolated": charts.LINE_COLOURS[1]}

st.title("Rotary position embeddings (RoPE)")
s = current_settings()
L, base = s.max_len, s.base
st.info(
    "On the similarity page, shifting the sinusoid by k positions was one matrix Mₖ made of 2×2 rotations. That Mₖ is a rotation: "
    "RoPE applies it to the queries and keys of every attention layer instead of adding a vector to the words.",
    icon=":material/rotate_right:",
)
st.markdown(
    "RoPE adds nothing to the token vectors. It rotates every pair of query and key dimensions by an angle "
    "proportional to the position, p·θᵢ with θᵢ = base^(−2i/d). A dot product of two rotated vectors depends only "
    "on the difference of their angles, so the attention score sees the offset m − n, not m and n. "
    "This page uses the sidebar's base and max_len (the context); the head width is chosen here."
)
check_url_value(
    "head_dim",
    lambda raw: raw in {str(h) for h in HEAD_DIMS},
    f"RoPE rotates pairs of dimensions, so head_dim must be one of {', '.join(map(str, HEAD_DIMS))} (even)",
)
keep_valid("head_dim", lambda v: v in HEAD_DIMS)  # /code leaves any width under this key
c1, c2 = st.columns(2)
head_dim = c1.select_slider(
    "Head width (head_dim)", HEAD_DIMS, value=64, key="head_dim", bind="query-params", help="RoPE rotates pairs, so the width must be even."
)
layout = pair_layout_control(c2)
theta = guarded(rope.default_frequencies, head_dim, base)
rng = np.random.default_rng(PROBE_SEED)
q, k = rng.standard_normal((2, head_dim))

# --- one pair ---------------------------------------------------------------------------
st.header("One pair turns as the position advances")
if head_dim > 2:
    pair = st.slider("Pair i", 0, head_dim // 2 - 1, follow_default("rope_pair", head_dim // 8, lambda i: i < head_dim // 2), key="rope_pair")
else:
    pair = 0  # a single pair: nothing to choose
steps = int(min(L, 64))
positions = np.arange(steps, dtype=np.float64)
unit = np.zeros(head_dim)
a_dim, b_dim = (pair, pair + head_dim // 2) if layout == "half" else (2 * pair, 2 * pair + 1)
unit[a_dim] = 1.0
turned = rope.apply_rope(np.broadcast_to(unit, (steps, head_dim)), positions, theta, layout=layout)
arc = np.linspace(0.0, min(steps - 1, 2 * np.pi / theta[pair]), 720)  # the path between the dots, at fractional positions
path = rope.apply_rope(np.broadcast_to(unit, (arc.size, head_dim)), arc, theta, layout=layout)
plot(
    charts.phase_circle(
        turned[:, a_dim],
        turned[:, b_dim],
        positions,
        path=(path[:, a_dim], path[:, b_dim]),
        title=f"The vector (1, 0) in pair {pair} (dimensions {a_dim} and {b_dim}) rotated to positions 0 to {steps - 1}",
        x_title=f"dimension {a_dim}",
        y_title=f"dimension {b_dim}",
        note=f"θ{charts.subscript(pair)} = {charts.number(theta[pair])} rad per position: one turn every {charts.number(2 * np.pi / theta[pair])} positions",
    ),
    key="rope_pair_circle",
)
st.caption(
    "What to look for: each step turns the point by the same angle θᵢ, and its length never changes. Pair 0 turns by 1 radian per step; later "
    "pairs turn ever more slowly."
)

# --- relative property ------------------------------------------------------------------
st.header("The score depends only on the offset")
max_offset = max(1, L - 1)
start_b = st.number_input(
    "Second starting position",
    0,
    10**7,
    follow_default("rope_start", 10 * L, lambda v: True),
    key="rope_start",
    help="The key sits here; the first curve puts it at 0.",
)


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def offset_scores(head_dim: int, base: float, layout: str, max_offset: int, start_b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(PROBE_SEED)
    q, k = rng.standard_normal((2, head_dim))
    theta = rope.default_frequencies(head_dim, base)
    offsets = np.unique(np.concatenate([np.arange(min(max_offset + 1, DENSE)), np.geomspace(DENSE, max(max_offset, DENSE), SPARSE).round()]))
    offsets = offsets[offsets <= max_offset].astype(np.float64)
    return offsets, rope.score_by_offset(q, k, theta, offsets, start=0, layout=layout), rope.score_by_offset(q, k, theta, offsets, start=start_b, layout=layout)


offsets, at_zero, at_b = offset_scores(head_dim, base, layout, max_offset, int(start_b))
gap = float(np.abs(at_zero - at_b).max())
sampled = offsets.size < max_offset + 1
plot(
    charts.lines(
        [("key at position 0", offsets, at_zero), (f"key at position {int(start_b):,}", offsets, at_b)],
        title="(Rₙ₊δ q)·(Rₙ k) for a fixed random q and k, against the offset δ, for two absolute positions n",
        x_title="offset δ = query position − key position" + (" (log scale)" if sampled else ""),
        y_title="score q·k after rotation",
        log_x=sampled,
        note=f"largest difference between the two curves: {gap:.3g}"
        + (f"; every offset up to {DENSE - 1}, then {SPARSE:,} log-spaced up to {max_offset:,}" if sampled else ""),
    ),
    key="rope_relative",
)
st.caption(
    f"What to look for: the two curves lie on top of each other. Moving both tokens by {int(start_b):,} positions changes every "
    f"angle but not their differences; the largest gap, {gap:.2g}, is floating-point rounding of large angles."
)

# --- decay ------------------------------------------------------------------------------
st.header("Long-distance decay")


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def decay(head_dim: int, bases: tuple[float, ...], max_offset: int) -> tuple[np.ndarray, list[np.ndarray]]:
    offsets = np.unique(np.geomspace(1, max(max_offset, 1), 600).round()).astype(np.float64)
    ones = np.ones(head_dim)
    return offsets, [rope.relative_score(ones, ones, rope.default_frequencies(head_dim, b), offsets) / head_dim for b in bases]


bases = tuple(dict.fromkeys((float(base), 10_000.0, 500_000.0)))
d_offsets, curves = decay(head_dim, bases, max(L, 4096))
plot(
    charts.lines(
        [(f"base {b:,.6g}", d_offsets, c) for b, c in zip(bases, curves)],
        title="Score of a query and key of all ones, against the offset (divided by head_dim, so 1 at offset 0)",
        x_title="offset δ (positions, log scale)",
        y_title="score / head_dim",
        log_x=True,
        x_marks=[(L, f"max_len = {L:,}")],
    ),
    key="rope_decay",
)
st.caption(
    "What to look for: for equal query and key the score is Σᵢ 2cos(δθᵢ) / d: it falls and oscillates as the offset grows, "
    "so far-apart tokens score lower on average (RoFormer's long-distance decay). A larger base stretches the decay "
    "over more positions; that is why long-context models raise it (Llama 3 uses 500,000)."
)

# --- scaling ----------------------------------------------------------------------------
st.header("Scaling RoPE to a longer context")
st.markdown(
    f"A model trained on an original context can be run on a longer one (here the sidebar's max_len = {L:,}) "
    "by changing its frequencies. Each method treats fast and slow pairs differently."
)
c1, c2, c3 = st.columns(3)
kind = scaling_kind_control(c1, default="yarn")
factor = factor_control(c2)
original = original_len_control(c3, L, factor)
if original > L:
    st.error(
        f"The original context ({original:,}) is longer than the target context max_len = {L:,}: there is nothing to extend. Lower it or raise "
        "max_len in the sidebar.",
        icon=":material/error:",
    )
    st.stop()
if kind == "none":
    scaled, attention_factor, ratio, labels, edges = theta, 1.0, np.ones_like(theta), np.full(theta.size, "kept"), ()
    how = "no scaling: positions past the original context give angles the slow pairs never saw"
else:
    scaling = guarded(rope.RopeScaling, kind, factor, original)
    scaled, attention_factor = guarded(rope.rope_frequencies, head_dim, base, scaling, seq_len=L)
    regions = rope.scaling_regions(head_dim, base, scaling, seq_len=L)
    ratio, labels, edges = regions.ratio, regions.label, regions.edges
    how = scaling_words(kind, base, factor, head_dim, L)
st.caption(f"**{KIND_LABELS[kind]}**: {how}.")
pairs = np.arange(theta.size)
wave_before, wave_after = 2 * np.pi / theta, 2 * np.pi / scaled
series = [(f"before: base {base:,.6g}", pairs, wave_before)]
if base != 500_000.0:
    series.append(("base 500,000 (no scaling)", pairs, 2 * np.pi / rope.default_frequencies(head_dim, 500_000.0)))
series += [(f"after: {name}", pairs[labels == name], wave_after[labels == name]) for name in ("kept", "blended", "interpolated") if (labels == name).any()]
plot(
    charts.lines(
        series,
        title=f"Wavelength of each pair before and after {KIND_LABELS[kind]} scaling (head_dim {head_dim})",
        x_title="pair index i",
        y_title="wavelength 2π/θᵢ (positions, log scale)",
        log_y=True,
        points=True,
        y_marks=[(original, f"original context {original:,}", "#555555"), (L, f"target max_len {L:,}", charts.LINE_COLOURS[2])]
        + [(e, f"band edge {e:,.4g}", "#999999") for e in edges],
    ),
    key="rope_wavelengths",
)
m1, m2, m3, m4 = st.columns(4)
m1.metric("pairs kept", int((labels == "kept").sum()))
m2.metric("pairs blended", int((labels == "blended").sum()))
m3.metric("pairs interpolated", int((labels == "interpolated").sum()))
m4.metric("attention factor (cos, sin ×)", charts.number(attention_factor), help=f"exactly {attention_factor!r}")
plot(
    charts.lines(
        [("new θᵢ / old θᵢ", wave_before, ratio)],
        title="How much each pair's frequency is divided, against its original wavelength",
        x_title="original wavelength (positions, log scale)",
        y_title="new frequency / old frequency",
        log_x=True,
        markers=True,
        y_range=(0, 1.05),
        y_marks=[(1 / max(factor, 1.0), f"1/s = {1 / max(factor, 1.0):.3g}", charts.LINE_COLOURS[1])],
        x_marks=[(original, "original context", "#555555")] + [(e, f"{e:,.4g}", "#999999") for e in edges],
    ),
    key="rope_ratio",
)
st.caption(
    "What to look for: pairs whose wavelength is much shorter than the original context have turned many times in training; "
    "keeping them (ratio 1) keeps local order sharp. Pairs whose wavelength exceeds the original context never completed a turn; "
    "dividing them by s keeps their angles inside the range the model saw. YaRN and Llama 3 do exactly this, with a blend "
    "between; linear scaling divides everything, which blurs nearby positions; the NTK base change divides slow pairs most."
)

# --- layouts ----------------------------------------------------------------------------
st.header("Two layouts, one rotation")
perm = rope.layout_permutation(head_dim)
x = np.random.default_rng(PROBE_SEED + 1).standard_normal((8, head_dim))
check_pos = np.array([0, 1, 2, 3, 100, 1000, L - 1, 10 * L], dtype=np.float64)
interleaved = rope.apply_rope(x, check_pos, theta, layout="interleaved")
half = rope.apply_rope(x[:, perm], check_pos, theta, layout="half")
residual = float(np.abs(interleaved[:, perm] - half).max())
st.markdown(
    f"The interleaved layout pairs dimensions (2i, 2i+1); the half layout pairs (i, i + d/2). Reordering the dimensions "
    f"with the permutation [0, 2, 4, …, 1, 3, 5, …] turns one into the other: for 8 random vectors at positions "
    f"{', '.join(f'{int(p):,}' for p in check_pos)}, "
    f"max |interleaved(x)[perm] − half(x[perm])| = **{residual:.3g}**. "
    "That is why Hugging Face permutes Meta's Llama weights when converting them: the model is the same, only the order of "
    "the query and key dimensions differs."
)
st.caption(f"The layout chosen above ({layout}) is the one the pair picture and the offset curves use; the wavelength and decay views do not depend on it.")
st.subheader("RoPE against the checklist")
scorecard(["rope"], Setting(width=head_dim, base=base, train_len=L, layout=layout), L, key="rope_scorecard")
next_link("rope")
