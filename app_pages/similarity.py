"""Page `similarity`: how alike two positions' vectors are, and the structure behind it."""

import numpy as np
import streamlit as st

from core.analysis import similarity
from core.schemes import sinusoidal
from core.viz import charts
from core.viz.grid import Sample, envelope, strided
from core.viz.heatmap import heatmap
from ui import glossary
from ui.controls import Window, number
from ui.display import plot
from ui.heatmap import Zoom, draw_heatmap
from ui.path import next_link
from ui.sidebar import current_settings
from ui.sources import sources_expander
from ui.tabs import url_tabs

MATRIX_GRID = 250  # positions per similarity matrix panel
LINE_POINTS = 2000
ELEMENTS = 1_000_000  # budget of encoding values per measured quantity (positions x d)
MEASURED_MOST = 20_000  # positions a measured line draws at most: a narrow d_model would otherwise send megabytes of figure
MAP_DIMS = 64  # dimensions of M_k drawn

st.title("Similarity between positions")
st.markdown(
    "How alike two positions' vectors are depends on how far apart they are, not on where they are (for an even d_model). "
    "Each figure below shows a consequence."
)
with st.expander("Why: every pair adds cos((p − q)·ω)"):
    st.markdown(
        "Because every (sin, cos) pair contributes cos((p − q)·ω) to the dot product PE(p)·PE(q), "
        "the similarity of two positions depends on how far apart they are, not on where they are, for an even d_model; at an odd d_model "
        "the lone last sine adds a term that depends on where they are. "
        "All numbers here are computed from that offset function or measured from encoding rows."
    )


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def closest(max_len: int, d_model: int, base: float) -> similarity.Closest | None:
    return similarity.closest_pair(max_len, d_model, base)


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def profile(reference: int, max_len: int, d_model: int, base: float) -> np.ndarray:
    return similarity.dot_profile(reference, max_len, d_model, base)


WINDOW = Window("sim_window")  # the positions of the matrices; a box dragged over them sets it

def measured_positions(stop: int, d: int) -> Sample:
    """Positions at which a quantity is measured from full rows of width d, within the element budget."""
    return strided(stop, min(MEASURED_MOST, max(16, ELEMENTS // d)))


def _matrices() -> None:
    d, L, base = current_settings()  # read afresh: a live part (ui/tabs.py)
    st.header("Similarity matrices")
    start, stop = WINDOW.draw(L)
    grid = strided(stop, MATRIX_GRID, start=start)
    cos = similarity.similarity_matrix(grid.start, grid.step, grid.count, d, base, kind="cosine")
    sines = similarity.sines_only_cosine(grid.indices, d, base)
    draw_heatmap(  # painted by the browser: a step repaints two canvases, no Plotly chart is rebuilt
        heatmap(
            [("sines and cosines (the sinusoid)", cos, grid, grid), ("sines only, the same frequencies", sines, grid, grid)],
            title=f"Cosine similarity between {f'positions {start:,} to {stop - 1:,}' if stop - 1 > start else f'position {start:,} and itself'}: "
            "the sinusoid beside a code that keeps only the sines",
            x_title="position q",
            y_title="position p",
            columns=2,
            shared_range=True,
            zmax=1.0,
            value_title="cosine",
            note=grid.note("position"),
            panel_height=400,
        ),
        key="sim_matrices",
        zoom=Zoom(rows=(WINDOW, L), cols=(WINDOW, L)),  # positions against positions: one window for both
    )
    said = similarity.matrices_text(cos, sines, d)
    st.caption(said)
    if glossary.used_in(said):  # one cell names no Toeplitz matrix
        glossary.terms_expander(glossary.used_in(said), key="terms_similarity")


def _distance() -> None:
    d, L, base = current_settings()
    st.header("Similarity to one position")
    ref = number(st, "Reference position", "reference", 0, L - 1, L // 2, expected="the reference is a position from {lo} to {hi:,}", follow=True)
    prof = profile(int(ref), L, d, base)
    cos_prof = prof / (similarity.row_norm(np.array([ref]), d, base)[0] * similarity.row_norm(np.arange(L), d, base))
    idx, vals = envelope(cos_prof, LINE_POINTS)
    fig = charts.lines(
        [("cosine(PE(ref), PE(p))", idx, vals)],
        title=f"Cosine similarity of every position to position {ref:,}",
        x_title="position p",
        y_title="cosine similarity",
        note=f"{L:,} positions drawn as the minimum and maximum of each of {LINE_POINTS // 2:,} buckets" if idx.size < L else "",
        x_marks=[(ref, "reference")],
    )
    plot(fig, key="sim_profile")
    st.caption(similarity.profile_text(cos_prof, int(ref)))
    st.header("Every step is the same size")
    if L >= 2:
        cons_pos = measured_positions(L - 1, d)
        dist = similarity.consecutive_distances(cons_pos.indices, d, base)
        c1, c2 = st.columns(2)
        c1.metric("‖PE(p+1) − PE(p)‖, smallest measured", charts.number(dist.min()), help=f"exactly {dist.min()!r}")
        c2.metric("largest − smallest", f"{dist.max() - dist.min():.2e}")
        plot(
            charts.lines(
                [("distance to the next position", cons_pos.indices, dist)],
                title="Distance between consecutive positions",
                x_title="position p",
                y_title="‖PE(p+1) − PE(p)‖",
                note=cons_pos.note("position"),
                y_range=(0.0, 1.15 * dist.max()),
            ),
            key="sim_consecutive",
        )
        st.caption(
            "The distance from each position to the next is the same everywhere (up to rounding) for even d: stepping by one turns "
            "every pair by its own fixed angle, wherever you start." + (" For odd d the lone last sine adds a small wobble." if d % 2 else "")
        )
    else:
        st.info("max_len = 1 has no consecutive positions.")


def _shift_by_k() -> None:
    d, L, base = current_settings()
    st.header("Shifting by k is one linear map")
    k = number(st, "Offset k", "offset", 0, 1_000_000, 5, expected="the offset is a whole number from {lo} to {hi:,}")
    st.markdown(f"Each (sin, cos) pair i of PE(p + {k}) is the same pair of PE(p) turned by the angle {k}·ωᵢ:")
    st.latex(
        rf"\begin{{pmatrix}}\sin((p+{k})\,\omega_i)\\ \cos((p+{k})\,\omega_i)\end{{pmatrix}} = "
        rf"\underbrace{{\begin{{pmatrix}}\cos {k}\omega_i & \sin {k}\omega_i\\ -\sin {k}\omega_i & \cos {k}\omega_i\end{{pmatrix}}}}"
        rf"_{{\text{{one block of }} M_{{{k}}}}}"
        rf"\begin{{pmatrix}}\sin p\,\omega_i\\ \cos p\,\omega_i\end{{pmatrix}}"
    )
    paper_cols = np.arange(min(d, MAP_DIMS))
    layout_of = np.argsort(sinusoidal.layout_permutation(d, "interleaved"))[paper_cols]
    m = sinusoidal.rotation_matrix(k, d, base, dims=layout_of)
    ax = strided(len(paper_cols), len(paper_cols))
    draw_heatmap(
        heatmap(
            [("", m, ax, ax)],
            title=f"M{charts.subscript(k)}: PE(p + {k}) = M{charts.subscript(k)} · PE(p), one 2×2 rotation per pair",
            x_title="input dimension",
            y_title="output dimension",
            shared_range=True,
            zmax=1.0,
            note=f"first {len(paper_cols)} of {d:,} dimensions" if d > MAP_DIMS else "",
            panel_height=400,
        ),
        key="sim_rotation",
    )
    res_pos = measured_positions(L, d)
    resid = similarity.rotation_residual(k, res_pos.indices, d, base)
    c1, c2 = st.columns(2)
    c1.metric(f"max |PE(p+{k}) − M{charts.subscript(k)}·PE(p)|", f"{resid.max():.2e}")
    c2.metric("positions checked", f"{res_pos.count:,}" + (f" (every {res_pos.step:,}th)" if res_pos.is_sample else " (all)"))
    st.caption(
        "The matrix is block-diagonal: each block rotates one (sin, cos) pair by k·ωᵢ. It contains k but not p, so one matrix "
        "moves every position k steps forward: a linear map of the vectors can look 'k words back' from any position, which is why the "
        "Transformer paper chose this encoding (Vaswani et al. 2017, §3.5). "
        + (
            "For odd d the last sine has no cosine partner, so no matrix shifts it exactly: that column sets the residual above."
            if d % 2
            else "The residual is rounding error."
        )
    )
    st.info(
        "This block is a rotation. RoPE, on the next pages, takes the idea one step further: instead of adding PE(p) to the word and hoping attention "
        "finds the rotation, it applies the rotation itself to every query and key.",
        icon=":material/rotate_right:",
    )


def _uniqueness_and_norms() -> None:
    d, L, base = current_settings()
    st.header("Is every position unique?")
    best = closest(L, d, base)
    if best is None:
        st.info("With max_len = 1 there is only one position.")
    else:
        pair_text = f"positions {best.p:,} and {best.q:,}" + (f" (any two positions {best.q - best.p:,} apart)" if d % 2 == 0 else "")
        st.metric(
            "smallest distance between two distinct positions",
            charts.number(best.distance),
            help=f"Exact search over all offsets (and, for odd d, all positions): {best.distance!r}.",
        )
        st.markdown(f"Closest pair: {pair_text}." + ("" if best.exact else " (odd-d search stopped at its candidate limit: this is an upper bound.)"))
        st.caption(similarity.uniqueness_text(best))
    st.header("Every row has the same length")
    norm_pos = measured_positions(L, d)
    rows = sinusoidal.sinusoidal_encoding(L, d, base, positions=norm_pos.indices)
    norms = np.linalg.norm(rows, axis=1)
    floor = (np.sqrt(d / 2), f"√(d/2) = √{d // 2}") if d % 2 == 0 else (np.sqrt((d - 1) / 2), f"√((d−1)/2) = √{(d - 1) // 2}")
    fig = charts.lines(
        [("‖PE(p)‖", norm_pos.indices, norms)],
        title="Norm of each position vector",
        x_title="position p",
        y_title="‖PE(p)‖",
        note=norm_pos.note("position"),
        y_range=(0.0, 1.15 * norms.max()),
        y_marks=[floor],
    )
    plot(fig, key="sim_norms")
    if d % 2 == 0:
        spread = norms.max() - norms.min()
        st.caption(f"Each pair contributes sin² + cos² = 1, so every row has norm √(d/2) = {charts.number(np.sqrt(d / 2))}; measured spread {spread:.1e}.")
    else:
        st.caption(
            f"Odd d: {(d - 1) // 2} full pair{'s give' if d > 3 else ' gives'} (d − 1)/2, and the lone sine adds sin²(p·ω), so the norm wanders "
            "between √((d−1)/2) = "
            f"{charts.number(np.sqrt((d - 1) / 2))} and √((d+1)/2) = {charts.number(np.sqrt((d + 1) / 2))}."
        )


# only the open tab runs and is drawn: a step of a shared slider redraws its figures, not all of the page's (ui/tabs.py)
url_tabs(
    "sim_view",
    {"Matrices": _matrices, "Distance": _distance, "Shift by k": _shift_by_k, "Uniqueness and norms": _uniqueness_and_norms},
)
sources_expander("similarity")
next_link("similarity")
