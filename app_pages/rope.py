"""Page `rope`: rotary embeddings: the rotation, the relative property, the decay, long-context scaling (ui.rope_scaling)
and the two layouts, one tab each (ui.tabs: only the open tab runs; `rope_view` in the URL). The head width and the
pair layout, above the tabs, apply to all of them."""

import numpy as np
import streamlit as st

from core.schemes import rope
from core.schemes.registry import Setting
from core.viz import charts, describe
from ui.controls import check_url_value, follow_default, keep_valid
from ui import rope_text
from ui.display import guarded, plot
from ui.motion import look_for, motion, rope_data
from ui.path import next_link
from ui.rope_controls import LAYOUT, check_scaling_links
from ui.rope_derivation import derivation_tab
from ui.rope_scaling import scaling_tab
from ui.scorecard import scorecard
from ui.sidebar import current_settings
from ui.sources import sources_expander
from ui.tabs import url_tabs

HEAD_DIMS = (2, 4, 8, 16, 32, 64, 128, 256)
DENSE, SPARSE = 512, 1500  # offsets drawn: every one up to DENSE, then SPARSE log-spaced
PROBE_SEED = 7

st.title("Rotary position embeddings (RoPE)")
s = current_settings()
L, base = s.max_len, s.base
st.markdown("RoPE turns queries and keys by angles that grow with the position: scores then see offsets, not places.")
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
layout = LAYOUT.draw(c2)
check_scaling_links(default="yarn")  # the Scaling tab's link values, named whichever tab is open
theta = guarded(rope.default_frequencies, head_dim, base)


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def offset_scores(head_dim: int, base: float, layout: str, max_offset: int, start_b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(PROBE_SEED)
    q, k = rng.standard_normal((2, head_dim))
    theta = rope.default_frequencies(head_dim, base)
    offsets = np.unique(np.concatenate([np.arange(min(max_offset + 1, DENSE)), np.geomspace(DENSE, max(max_offset, DENSE), SPARSE).round()]))
    offsets = offsets[offsets <= max_offset].astype(np.float64)
    return offsets, rope.score_by_offset(q, k, theta, offsets, start=0, layout=layout), rope.score_by_offset(q, k, theta, offsets, start=start_b, layout=layout)


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def decay(head_dim: int, bases: tuple[float, ...], max_offset: int) -> tuple[np.ndarray, list[np.ndarray]]:
    offsets = np.unique(np.geomspace(1, max(max_offset, 1), 600).round()).astype(np.float64)
    ones = np.ones(head_dim)
    return offsets, [rope.relative_score(ones, ones, rope.default_frequencies(head_dim, b), offsets) / head_dim for b in bases]


# --- one pair ------------------------------------------------------------------------------
def _pair() -> None:
    st.header("One pair turning")
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
            title=f"The vector (1, 0) in pair {pair} (dimensions {a_dim} and {b_dim}) rotated to "
            + (f"positions 0 to {steps - 1}" if steps > 1 else "position 0, the only one"),
            x_title=f"dimension {a_dim}",
            y_title=f"dimension {b_dim}",
            note=f"θ{charts.subscript(pair)} = {charts.number(theta[pair])} rad per position: one turn every {charts.number(2 * np.pi / theta[pair])} "
            "positions",
        ),
        key="rope_pair_circle",
    )
    st.caption(
        "What to look for: each step turns the point by the same angle θᵢ, and its length never changes. Pair 0 turns by 1 radian per step; later "
        "pairs turn ever more slowly."
        if steps > 1
        else "With one position there is one point, the vector itself at position 0: raise max_len to watch each step turn it by the same angle θᵢ."
    )
    st.subheader("A query and a key turning as their positions advance")
    q, k = np.random.default_rng(PROBE_SEED).standard_normal((2, head_dim))  # the Offset tab's query and key
    offset = st.slider("Offset m − n (query position − key position)", 0, min(L - 1, 32), min(4, L - 1), key="rope_turn_offset") if L > 1 else 0
    turning = rope_data(q, k, theta, layout, L, int(offset))
    motion(turning, key="rope_turning")  # drawn in the browser: Play and Step ask nothing of the server
    st.caption(
        look_for(turning, "pair")
        + " The key's hand (k) turns by the same angle as the query's (q), so the angle between them stays the same as both move, and so "
        "does their score. Under each dial that angle is split into the angle before rotation (the two random vectors' own, at position 0) and "
        "the offset's turn, offset × θᵢ: only the second comes from the positions; the sum is the angle give or take whole turns of 360°."
    )


# --- relative property ---------------------------------------------------------------------
def _offset() -> None:
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
            dashes=["solid", "dash"],  # the curves lie on each other: the second dashed, so the first shows through its gaps
            note=f"largest difference between the two curves: {describe.number(gap)}"
            + (f"; every offset up to {DENSE - 1}, then {SPARSE:,} log-spaced up to {max_offset:,}" if sampled else ""),
        ),
        key="rope_relative",
    )
    st.caption(
        f"What to look for: the two curves lie on top of each other. Moving both tokens by {int(start_b):,} positions changes every "
        f"angle but not their differences; the largest gap, {describe.number(gap)}, is floating-point rounding of large angles."
    )


# --- decay ---------------------------------------------------------------------------------
def _decay() -> None:
    st.header("Long-distance decay")

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
    st.caption(rope_text.rope_decay_text(d_offsets, curves, bases, head_dim))


# --- layouts -------------------------------------------------------------------------------
def _layouts() -> None:
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
        f"max |interleaved(x)[perm] − half(x[perm])| = **{describe.number(residual)}**. "
        "That is why Hugging Face permutes Meta's Llama weights when converting them: the model is the same, only the order of "
        "the query and key dimensions differs."
    )
    st.caption(f"The layout chosen above ({layout}) is the one the pair picture and the offset curves use; the wavelength and decay views do not depend on it.")
    st.subheader("RoPE against the checklist")
    scorecard(["rope"], Setting(width=head_dim, base=base, train_len=L, layout=layout), L)


url_tabs(
    "rope_view",
    {
        "One pair": _pair,
        "Offset": _offset,
        "Derivation": lambda: derivation_tab(theta),
        "Decay": _decay,
        "Scaling": lambda: scaling_tab(head_dim, base, L, theta),
        "Layouts and the checklist": _layouts,
    },
)
sources_expander("rope")
next_link("rope")
