"""The figures of the sinusoidal page, each true at every setting in range.

Columns are sampled as whole (sin, cos) pairs (core.viz.grid.pairs), waves are drawn as
continuous curves through fractional positions with a dot at every whole position of a window
of consecutive positions, and a pair's circle follows its arc rather than joining far-apart
dots with chords.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from core.schemes import learned, naive, sinusoidal
from core.viz import charts
from core.viz.grid import Picked, Sample, pairs, strided, window
from core.viz.heatmap import Named, heatmap

GRID = 500  # positions and dimensions per heatmap at most
SMALL_GRID = 160  # per panel when heatmaps stand side by side
CURVE_POINTS = 2000  # points of a continuous curve
DOTS = 128  # whole positions marked on a curve at most


def pair_columns(d_model: int, layout: str, limit: int) -> Sample | Picked:
    """At most `limit` columns of the encoding in `layout`, as whole (sin, cos) pairs."""
    column_of = np.argsort(sinusoidal.layout_permutation(d_model, layout))  # paper column -> column in layout
    return pairs(column_of[0::2], column_of[1::2], limit)


@dataclass(frozen=True)
class Heatmap:
    spec: dict  # a core.viz.heatmap spec of one panel: the browser paints it
    rows: Sample
    columns: Sample | Picked


def encoding_heatmap(d: int, max_len: int, base: float, layout: str, start: int, stop: int) -> Heatmap:
    """PE(p, j) over the window [start, stop) of positions (strided when long) and every
    dimension, or whole pairs of them when there are more than GRID, on the range ±1 of a sine."""
    rows, cols = strided(stop, GRID, start=start), pair_columns(d, layout, GRID)
    enc = sinusoidal.sinusoidal_encoding(max_len, d, base, layout=layout, positions=rows.indices, dims=cols.indices)
    note = "; ".join(n for n in (rows.note("position"), cols.note("dimension")) if n)
    title = f"PE(p, j) for positions {start:,} to {stop - 1:,}, d_model = {d:,}, base = {base:,.6g}"
    spec = heatmap(
        [("", enc, cols, rows)], title=title, x_title="dimension j", y_title="position p", columns=1, shared_range=True, zmax=1.0, note=note, panel_height=460
    )
    return Heatmap(spec, rows, cols)


def slow_columns(d: int, base: float, span: int) -> tuple[int, float]:
    """How many pairs turn less than a tenth of a cycle over `span` positions (nearly constant
    columns), and how much of a cycle the slowest pair turns. Returns (count, cycles)."""
    cycles = span / sinusoidal.wavelengths(d, base)
    return int((cycles < 0.1).sum()), float(cycles[-1])


def waves(d: int, max_len: int, base: float, layout: str, chosen: list[int], start: int, stop: int) -> go.Figure:
    """The chosen columns over positions [start, stop): a continuous curve through fractional
    positions (what the formula gives between whole positions) and a dot at every whole
    position (thinned to DOTS), a dashed line at the wavelength of each pair that fits."""
    x = np.linspace(start, stop - 1, min(CURVE_POINTS, max(2, 16 * (stop - start))))
    whole = np.arange(start, stop)[:: max(1, -(-(stop - start) // DOTS))]
    curves = sinusoidal.sinusoidal_encoding(max_len, d, base, layout=layout, positions=x, dims=np.asarray(chosen))
    dots = sinusoidal.sinusoidal_encoding(max_len, d, base, layout=layout, positions=whole, dims=np.asarray(chosen))
    pair_of, _, is_cos = sinusoidal.column_info(d, base, layout)
    wl = sinusoidal.wavelengths(d, base)
    marks, marked = [], set()
    for k, j in enumerate(chosen):  # one dashed line per pair whose wavelength fits the span readably
        i = pair_of[j]
        if 0.02 * (stop - start) <= wl[i] < stop - start and i not in marked:
            marked.add(i)
            dims = ", ".join(str(m) for m in chosen if pair_of[m] == i)  # named by dimension, as the legend names the curves
            marks.append((start + wl[i], f"λ of dim {dims}", charts.LINE_COLOURS[k % len(charts.LINE_COLOURS)]))
    every = "" if whole.size == stop - start else f"dots on every {whole[1] - whole[0]:,}th whole position"
    return charts.lines(
        [(f"dim {j} ({'cos' if is_cos[j] else 'sin'}, λ = {wl[pair_of[j]]:,.4g})", x, curves[:, k]) for k, j in enumerate(chosen)],
        title=f"PE(p, j) against position for the chosen dimensions, positions {start:,} to {stop - 1:,}",
        x_title="position p",
        y_title="PE(p, j)",
        note="; ".join(n for n in ("curves through fractional positions, dots at whole ones", every) if n),
        x_marks=marks,
        integer_x=True,
        y_range=(-1.1, 1.1),
        dots=[(whole, dots[:, k]) for k in range(len(chosen))],
    )


def one_turn(wavelength: float, available: int, cap: int = 400) -> int:
    """How many consecutive whole positions a phase circle draws: as many as fit in less than one full turn
    (ceil(wavelength) of them: the last is (ceil(wavelength) − 1)·ω < 2π past the first, so no two dots share a place
    and their colours run once round in position order), bounded by the positions available and by `cap` (a slow
    pair then shows part of a turn). Every pair's wavelength is at least 2π, so a turn holds at least 7 positions."""
    return int(max(1, min(available, cap, math.ceil(wavelength))))


def turns_text(angle: float) -> str:
    """An angle in radians as the turns it makes: '0.955 of a turn', '1 turn', '15.8 turns'. Less than a turn is
    rounded down (to thousandths), so it never reads as a whole turn."""
    turns = angle / (2 * np.pi)
    if turns < 1:
        return f"{math.floor(turns * 1000) / 1000:.3g} of a turn"
    return "1 turn" if f"{turns:.3g}" == "1" else f"{turns:.3g} turns"


def phase_circle(d: int, max_len: int, base: float, pair: int, start: int, count: int) -> go.Figure:
    """(sin pω, cos pω) of one pair at `count` consecutive whole positions from `start`, and the
    arc the point travels between them (through fractional positions, about one turn or the
    whole span, whichever is shorter)."""
    omega = sinusoidal.pair_frequencies(d, base)[pair]
    whole = np.arange(start, start + count)
    arc_span = min(count - 1, 2 * np.pi / omega) if count > 1 else 0.0
    arc = np.linspace(start, start + arc_span, 720) if arc_span > 0 else np.array([float(start)])
    dims = np.array([2 * pair, 2 * pair + 1])
    dots = sinusoidal.sinusoidal_encoding(max_len, d, base, positions=whole, dims=dims)
    path = sinusoidal.sinusoidal_encoding(max_len, d, base, positions=arc, dims=dims)
    return charts.phase_circle(
        dots[:, 0],
        dots[:, 1],
        whole,
        title=f"(sin pω, cos pω) for pair {pair}: ω = {omega:.4g} rad per position, "
        + (f"positions {start:,} to {start + count - 1:,}" if count > 1 else f"position {start:,}, the only one"),
        note=f"{count:,} consecutive positions, {turns_text((count - 1) * omega)}; the grey arc is the path between them" if count > 1 else "",
        path=(path[:, 0], path[:, 1]),
    )


def nearest_pair_per_bit(d: int, max_len: int, base: float) -> np.ndarray:
    """For each bit of positions 0 .. min(max_len, 64) - 1, the pair whose wavelength is nearest the bit's period on a log scale
    (bit b repeats every 2^(b+1) positions)."""
    n_bits = naive.binary_positions(max(min(max_len, 64), 2)).shape[1]
    periods = 2.0 ** np.arange(1, n_bits + 1)
    return np.argmin(np.abs(np.log(sinusoidal.wavelengths(d, base)[None, :] / periods[:, None])), axis=1)


def binary_analogy(d: int, max_len: int, base: float) -> dict:
    """The bits of positions 0 .. 63 (or max_len) beside the sine of the pair whose wavelength is
    nearest each bit's period: a core.viz.heatmap spec whose columns are named (the hover names
    the bit or the pair, not the slot it is drawn in)."""
    n_pos = min(max_len, 64)
    bits = naive.binary_positions(max(n_pos, 2))[:n_pos]
    n_bits = bits.shape[1]
    wl = sinusoidal.wavelengths(d, base)
    nearest = np.unique(nearest_pair_per_bit(d, max_len, base))
    sines = sinusoidal.sinusoidal_encoding(n_pos, d, base, dims=2 * nearest)
    pos = strided(n_pos, n_pos)
    bit_names = Named(strided(n_bits, n_bits), [f"bit {b}" for b in range(n_bits)])
    pair_names = Named(strided(sines.shape[1], sines.shape[1]), [f"pair {i}, λ {wl[i]:.3g}" for i in nearest])
    return heatmap(
        [("bits of p (red 1, blue 0)", 2 * bits - 1, bit_names, pos), ("sin(p·ωᵢ), the pair nearest each bit", sines, pair_names, pos)],
        title=f"Positions 0 to {n_pos - 1}: binary digits beside the sine of {sines.shape[1]} pairs",
        x_title="bit / pair (fast to slow)",
        y_title="position p",
        columns=2,
        shared_range=True,
        zmax=1.0,
        panel_height=360,
    )


def t2t_comparison(d: int, max_len: int, base: float, start: int, stop: int) -> dict:
    """The paper's encoding in the sines-first layout, tensor2tensor's table and their difference,
    column by column (whole pairs of the paper's columns when there are more than SMALL_GRID), on
    one colour range: a core.viz.heatmap spec."""
    rows, cols = strided(stop, SMALL_GRID, start=start), pair_columns(d, "concat", SMALL_GRID)
    paper = sinusoidal.sinusoidal_encoding(max_len, d, base, layout="concat", positions=rows.indices, dims=cols.indices)
    t2t = sinusoidal.t2t_timing_signal(0, d, max_timescale=base, positions=rows.indices)[:, cols.indices]
    return heatmap(
        [("paper, sines first", paper, cols, rows), ("tensor2tensor / fairseq", t2t, cols, rows), ("difference", t2t - paper, cols, rows)],
        title="The paper's encoding (sines-first layout) beside the tensor2tensor/fairseq table",
        x_title="dimension",
        y_title="position p",
        shared_range=True,  # ±max|value|: the difference can reach past ±1
        note="; ".join(n for n in (rows.note("position"), cols.note("dimension")) if n),
        panel_height=300,
    )


def learned_table(d: int, max_len: int, base: float) -> dict:
    """A learned table at its initialisation beside the sinusoid: the first positions (a window,
    every dimension up to GRID as whole pairs for the sinusoid, strided for the table), one colour range each."""
    rows = window(max_len, 64)
    sin_cols, table_cols = pair_columns(d, "interleaved", SMALL_GRID), strided(d, SMALL_GRID)
    table = learned.learned_rows(rows.indices, d)[:, table_cols.indices]
    sin = sinusoidal.sinusoidal_encoding(max_len, d, base, positions=rows.indices, dims=sin_cols.indices)
    bound = float(np.abs(table).max()) or 1.0
    return heatmap(
        [(f"learned table at initialisation (÷ {bound:.3g}, its largest |value|)", table / bound, table_cols, rows), ("sinusoid", sin, sin_cols, rows)],
        title=f"A learned table (normal, std 0.02, one row per position) beside the sinusoid, positions {rows.start} to {rows.stop - 1}",
        x_title="dimension",
        y_title="position p",
        columns=2,
        shared_range=True,
        zmax=1.0,
        note="; ".join(n for n in (rows.note("position"), table_cols.note("dimension")) if n),
        panel_height=300,
    )
