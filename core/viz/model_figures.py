"""The model page's figures: a position table (a real model's, or an uploaded one) measured
beside the sinusoid of the same shape (core.analysis.position_analysis.TableAnalysis `A` and
`S`): the tables, similarity between positions, the positions' path by PCA, and the spectrum of
each dimension. Titles name the table (`name`, as written: the heatmaps show it as text, Plotly's figures through
`charts.literal`) and the sinusoid (`sin_name`).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.analysis import position_analysis as pa
from core.viz import charts, palette
from core.viz.grid import Sample, strided
from core.viz.heatmap import Binned, ScaleGroup, grouped_heatmap, heatmap

GRID = 512  # at most this many positions or dimensions per heatmap panel
# the spectrum heatmaps' colours: log₁₀ of a dimension's share of power, from 0.01% (and below) to 100%; on a linear scale a few
# peaks were the only cells not dark, and the faint power around them (how far a dimension is from one pure wave) did not show
SHARE_FLOOR = 1e-4
TABLE_PX = 380  # a table's panel height on screen (two tables side by side)
PAIR_PX = 320  # each of two panels side by side
PAIR = [palette.scheme_colour("learned"), palette.scheme_colour("sinusoidal")]  # a learned table beside the sinusoid, in their schemes' colours


def frequency_ticks(freqs: np.ndarray) -> list[float]:
    """Round frequencies (0, 0.1, 0.2, ... or finer) to label an axis of frequency bins, at most 7."""
    top = float(freqs[-1]) if len(freqs) > 1 else 0.5
    step = next((t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5) if top / t <= 6), 0.5) if top > 0 else 0.1
    return [float(v) for v in np.round(np.arange(0.0, top + 1e-12, step), 6)]


def compose(outer: Sample, inner: Sample) -> Sample:
    """The original indices drawn when `inner` samples the rows already sampled by `outer`."""
    return Sample(outer.start + inner.start * outer.step, outer.stop, outer.step * inner.step)


def notes(*parts: str) -> str:
    """The non-empty parts joined by '; '."""
    return "; ".join(p for p in parts if p)


def table_figures(A: pa.TableAnalysis, S: pa.TableAnalysis, name: str, sin_name: str) -> dict[str, go.Figure | dict]:
    """The figures (Plotly figures, and core.viz.heatmap specs for the heatmaps) that depend on the table `A` and the sinusoid `S` beside it only, by the page's
    chart key: the table and the sinusoid, cosine similarity, neighbour and offset curves (from
    two analysed positions on), explained variance, the spectrum and the dominant frequencies."""
    rows, cols = strided(A.rows.count, GRID), strided(A.cols.count, GRID)
    shown_rows, shown_cols = compose(A.rows, rows), compose(A.cols, cols)
    grid_note = notes(shown_rows.note("position"), shown_cols.note("dimension"))
    clip = float(np.quantile(np.abs(A.values), 0.999)) or 1.0
    shown = charts.literal(name)  # the name in Plotly's figures; the heatmaps write it as text
    figs: dict[str, go.Figure | dict] = {
        "model_table": grouped_heatmap(
            [ScaleGroup([("", A.values[:: rows.step, :: cols.step], shown_cols, shown_rows)], zmax=clip, colorbar_title="value", clipped=True)],
            title=f"{name}: value of each position's vector",
            x_title="dimension",
            y_title="position",
            note=notes(f"colours clipped at ±{clip:.3g} (99.9% of values lie within)", grid_note),
            panel_height=TABLE_PX,
        ),
        "model_sin_table": heatmap(
            [("", S.values[:: rows.step, :: cols.step], shown_cols, shown_rows)],
            title=f"The {sin_name}",
            x_title="dimension",
            y_title="position",
            shared_range=True,
            zmax=1.0,
            note=grid_note,
            panel_height=TABLE_PX,
        ),
    }
    sim_rows = strided(A.rows.count, GRID)
    sim_shown = compose(A.rows, sim_rows)
    figs["model_cosine"] = heatmap(
        [
            (name, A.cosine[:: sim_rows.step, :: sim_rows.step], sim_shown, sim_shown),
            (sin_name, S.cosine[:: sim_rows.step, :: sim_rows.step], sim_shown, sim_shown),
        ],
        title="Cosine similarity between the vectors of positions p and q",
        x_title="position q",
        y_title="position p",
        shared_range=True,
        zmax=1.0,
        value_title="cosine",
        note=sim_shown.note("position"),
        panel_height=PAIR_PX,
    )
    if A.rows.count >= 2:
        step = A.rows.step
        figs["model_neighbour"] = charts.lines(
            [(shown, A.rows.indices[:-1], A.neighbour), (sin_name, A.rows.indices[:-1], S.neighbour)],
            colours=PAIR,
            title=f"How alike each position is to the next: cosine(P(p), P(p + {step}))",
            x_title="position p",
            y_title="cosine similarity",
            y_range=(min(-0.05, float(A.neighbour.min()) - 0.05), 1.05),
        )
        offsets = np.arange(A.offset_mean.size) * step
        figs["model_offset"] = charts.lines(
            [(f"{shown}: mean over p", offsets, A.offset_mean), (sin_name, offsets, S.offset_mean)],
            colours=PAIR,
            spreads=[A.offset_std, None],
            title="Cosine similarity as a function of the offset k = q − p, averaged over p",
            x_title="offset k (positions)",
            y_title="cosine similarity",
            y_range=(-1.05, 1.05),
        )
    n_pc = min(A.explained.size, 64)
    figs["model_variance"] = charts.lines(
        [(shown, np.arange(1, n_pc + 1), np.cumsum(A.explained[:n_pc])), (sin_name, np.arange(1, n_pc + 1), np.cumsum(S.explained[:n_pc]))],
        colours=PAIR,
        title=f"Share of the variance between positions explained by the first k principal components (k up to {n_pc})",
        x_title="number of components k",
        y_title="cumulative explained variance",
        y_range=(0.0, 1.02),
        markers=True,
    )
    rank = strided(A.cols.count, A.cols.count)
    freqs = Binned(A.freqs, frequency_ticks(A.freqs))
    by_frequency = [np.log10(np.maximum(T.power_share[np.argsort(T.dominant, kind="stable")], SHARE_FLOOR)) for T in (A, S)]
    # one heatmap each, as the tables are drawn: a step of the base changes only the sinusoid's, and the learned
    # table's, unchanged, is then not sent to the browser again (Streamlit sends a reference to a message it holds)
    for key, title, T in (("model_spectrum", name, by_frequency[0]), ("model_sin_spectrum", f"the {sin_name}", by_frequency[1])):
        figs[key] = grouped_heatmap(
            [
                ScaleGroup(
                    [("", T, freqs, rank)],
                    signed=False,
                    zmin=float(np.log10(SHARE_FLOOR)),
                    zmax=0.0,
                    colorbar_title="share of power, log₁₀: −2 is 1%, 0 is all of it",
                    hover="log₁₀ share of power",
                    clipped=True,
                )
            ],
            title=f"Power spectrum of each dimension over position (mean removed): {title}",
            x_title="frequency (cycles per position)",
            y_title="dimension, by dominant frequency",
            note=notes(
                f"each row is one dimension's share of power per frequency bin on a log scale, below {SHARE_FLOOR:.2%} painted as {SHARE_FLOOR:.2%}",
                A.rows.note("position"),
                A.cols.note("dimension"),
            ),
            panel_height=PAIR_PX,
        )
    ranks = np.arange(A.cols.count)
    figs["model_dominant"] = charts.lines(
        [(shown, ranks, np.sort(A.dominant)), (sin_name, ranks, np.sort(S.dominant))],
        colours=PAIR,
        title="Dominant frequency of each dimension, dimensions sorted from slow to fast",
        x_title="dimension, by dominant frequency",
        y_title="cycles per position (log)",
        log_y=True,
        markers=True,
    )
    return figs


def path_figures(A: pa.TableAnalysis, S: pa.TableAnalysis, first: int, name: str, sin_name: str) -> tuple[go.Figure, go.Figure]:
    """The positions' path on principal components first, first+1 (from above) and on
    first, first+2 (from the side: how the ring moves along the third component)."""
    shown = charts.literal(name)
    pcs = [first - 1, first, first + 1]
    axis_titles = [f"PC {i + 1}" for i in pcs]
    flat = charts.position_paths(
        [
            (f"{shown} ({A.explained[pcs[0]]:.0%} + {A.explained[pcs[1]]:.0%} of variance)", A.scores[:, pcs[:2]], A.rows.indices),
            (f"{sin_name} ({S.explained[pcs[0]]:.0%} + {S.explained[pcs[1]]:.0%})", S.scores[:, pcs[:2]], S.rows.indices),
        ],
        title=f"Each position's vector projected on principal components {pcs[0] + 1} and {pcs[1] + 1}",
        axis_titles=axis_titles[:2],
        note=A.rows.note("position"),
    )
    side = charts.position_paths(
        [
            (f"{shown} ({A.explained[pcs[2]]:.0%} of variance on PC {pcs[2] + 1})", A.scores[:, [pcs[0], pcs[2]]], A.rows.indices),
            (f"{sin_name} ({S.explained[pcs[2]]:.0%})", S.scores[:, [pcs[0], pcs[2]]], S.rows.indices),
        ],
        title=f"The same path seen from the side: components {pcs[0] + 1} and {pcs[2] + 1}",
        axis_titles=[axis_titles[0], axis_titles[2]],
        note=A.rows.note("position"),
    )
    return flat, side


def solid_figure(A: pa.TableAnalysis, S: pa.TableAnalysis, first: int, name: str, sin_name: str) -> go.Figure:
    """The path on components first, first+1, first+2 in 3-D (drawn only on request: two
    WebGL scenes cost a browser without a graphics card about a second per redraw)."""
    shown = charts.literal(name)
    pcs = [first - 1, first, first + 1]
    return charts.position_paths(
        [(shown, A.scores[:, pcs], A.rows.indices), (sin_name, S.scores[:, pcs], S.rows.indices)],
        title=f"The same path in 3-D: components {pcs[0] + 1}, {pcs[1] + 1}, {pcs[2] + 1} (drag to turn)",
        axis_titles=[f"PC {i + 1}" for i in pcs],
        note=A.rows.note("position"),
        height=520,
    )


def dimension_figure(A: pa.TableAnalysis, j: int, name: str) -> tuple[go.Figure, float, float]:
    """One dimension over position with the sinusoid at its dominant frequency that fits it
    best. Returns (figure, frequency, R²)."""
    shown = charts.literal(name)
    spacing = float(A.freqs[1]) if A.freqs.size > 1 else 0.0
    freq, fitted, r2 = pa.best_sinusoid(A.values[:, j], A.rows.indices, float(A.dominant[j]), spacing)
    fig = charts.lines(
        [
            (f"{shown}, dimension {A.cols.indices[j]}", A.rows.indices, A.values[:, j]),
            (f"best-fitting sinusoid, {freq:.4f} cycles/position", A.rows.indices, fitted),  # a legend entry that fits a phone
        ],
        title=f"Dimension {A.cols.indices[j]} over position, with the sinusoid that fits it best (R² = {r2:.2f})",
        x_title="position p",
        y_title="value",
        note=A.rows.note("position"),
    )
    return fig, freq, r2
