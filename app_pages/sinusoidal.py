"""Page `sinusoidal`: the encoding itself: heatmap, waves, spectrum, phase, binary analogy, exact values."""

import numpy as np
import streamlit as st

from core.schemes import naive, sinusoidal
from core.viz import charts
from core.viz.grid import strided
from ui.controls import choice, number
from ui.shared import current_settings, follow_default, plot, position_window

GRID = 500  # at most this many positions and dimensions per heatmap
SMALL_GRID = 160  # per panel when heatmaps stand side by side
LINE_POINTS = 2000

st.title("The sinusoidal encoding")
s = current_settings()
d, L, base = s.d_model, s.max_len, s.base
omega = sinusoidal.pair_frequencies(d, base)
wl = sinusoidal.wavelengths(d, base)
base_tex = f"{base:,.6g}".replace(",", "{,}")
st.markdown(
    "Each position p becomes a vector of d_model numbers: sines and cosines of p at frequencies that fall geometrically from 1 radian per position down to "
    "almost 1/base."
)
st.latex(
    rf"PE_{{(p,\,2i)}} = \sin\!\left(\frac{{p}}{{{base_tex}^{{\,2i/{d}}}}}\right),\qquad "
    rf"PE_{{(p,\,2i+1)}} = \cos\!\left(\frac{{p}}{{{base_tex}^{{\,2i/{d}}}}}\right),\qquad i = 0,\dots,{(d + 1) // 2 - 1}"
)
if d % 2:
    st.caption(f"d_model = {d} is odd: the last column ({d - 1}) is a sine whose cosine partner would be column {d}, which does not exist.")

# --- heatmap ---------------------------------------------------------------------------
st.header("The encoding as a picture")
layout = choice(  # plain names in the URL, not the labels
    st,
    "Column layout",
    "layout",
    sinusoidal.LAYOUTS,
    "interleaved",
    labels={"interleaved": "interleaved (paper: sin, cos, sin, cos, ...)", "concat": "sines first, then cosines"},
    widget="segmented_control",
)
start, stop = position_window(L, "sin_window")
rows, cols = strided(stop, GRID, start=start), strided(d, GRID)
enc = sinusoidal.sinusoidal_encoding(L, d, base, layout=layout, positions=rows.indices, dims=cols.indices)
note = "; ".join(n for n in (rows.note("position"), cols.note("dimension")) if n)
plot(
    charts.heatmap(
        enc,
        cols,
        rows,
        title=f"PE(p, j) for positions {start:,} to {stop - 1:,}, d_model = {d:,}, base = {base:,.6g}",
        x_title="dimension j",
        y_title="position p",
        colorbar_title="value",
        note=note,
        height=520,
    ),
    key="sin_heatmap",
)
st.caption(
    "What to look for: the left columns (fast pairs) change from one row to the next; columns to the "
    "right change ever more slowly, until the last ones are almost constant over the whole context. "
    "Every row is a different mix, which is what makes positions distinguishable. "
    + ("With the sines-first layout the same columns are regrouped: sines on the left half, cosines on the right. " if layout == "concat" else "")
    + (
        f"This picture samples every {rows.step:,}th position: columns faster than that stride alias into moiré patterns that are not in the encoding; "
        "narrow the window to see every position."
        if rows.is_sample
        else ""
    )
)

# --- waves -----------------------------------------------------------------------------
st.header("Each dimension is a wave")
default_dims = sorted({0, 1, min(d - 1, 2 * (d // 16)), min(d - 1, 2 * (d // 4))})
dims_value = follow_default("sin_dims", default_dims, lambda dims: all(j < d for j in dims))
dims_options = range(d) if d <= 4096 else sorted(set(range(0, d, d // 512)) | set(default_dims) | set(dims_value))  # a long list stays usable
chosen = st.multiselect("Dimensions to draw", list(dims_options), default=dims_value, key="sin_dims", max_selections=8)
pos = strided(min(stop, start + LINE_POINTS), LINE_POINTS, start=start)  # consecutive positions: no aliasing
if chosen:
    chosen = sorted(chosen)
    values = sinusoidal.sinusoidal_encoding(L, d, base, layout=layout, positions=pos.indices, dims=np.asarray(chosen))
    pair_of, _, is_cos = sinusoidal.column_info(d, base, layout)
    marks, marked = [], set()
    for k, j in enumerate(chosen):  # one dashed line per pair whose wavelength fits the span readably
        i = pair_of[j]
        if 0.02 * pos.total <= wl[i] < pos.total and i not in marked:
            marked.add(i)
            marks.append((start + wl[i], f"λ{i}", charts.LINE_COLOURS[k % len(charts.LINE_COLOURS)]))
    fig = charts.lines(
        [(f"dim {j} ({'cos' if is_cos[j] else 'sin'}, λ = {wl[pair_of[j]]:,.1f})", pos.indices, values[:, k]) for k, j in enumerate(chosen)],
        title=f"PE(p, j) against position for the chosen dimensions, positions {start:,} to {pos.stop - 1:,}",
        x_title="position p",
        y_title="PE(p, j)",
        note=f"the first {LINE_POINTS:,} positions of the window" if stop - start > LINE_POINTS else "",
        x_marks=marks,
    )
    plot(fig, key="sin_waves")
    st.caption(
        "Dimension j repeats every λ_i = 2π·base^(2i/d) positions (dashed lines λ_i, measured from the window's start), with i = j // 2 in the paper's "
        "layout. A sine and the cosine beside it share a wavelength, a quarter cycle apart."
    )
else:
    st.info("Pick at least one dimension to draw its wave.")

# --- spectrum --------------------------------------------------------------------------
st.header("Frequencies and wavelengths")
n_long = int((wl > L).sum())
c1, c2, c3 = st.columns(3)
c1.metric("sin/cos pairs", f"{omega.size:,}")
c2.metric("fastest / slowest wavelength", f"{wl[0]:.4g} / {wl[-1]:,.6g}")
c3.metric("pairs with wavelength > max_len", f"{n_long:,}", help="These never complete a cycle inside the context.")
plot(charts.spectrum(wl, L, title=f"Wavelength of each pair, d_model = {d:,}, base = {base:,.6g}"), key="sin_spectrum")
st.caption(
    f"The wavelengths form a straight line on this log scale: each pair is {base ** (2 / d):.6g}× slower than the one before. "
    f"{n_long:,} of {omega.size:,} pairs lie above the max_len line: across {L:,} positions they cover less than one cycle, "
    "so they act as slowly drifting coarse position signals rather than repeating ones."
)

# --- phase circle ----------------------------------------------------------------------
st.header("One pair traces a circle")
n_full = d // 2
if n_full == 0:
    st.info("d_model = 1 has no complete sin/cos pair.")
else:
    near_32 = int(np.argmin(np.abs(np.log(wl[:n_full] / 32.0))))  # a pair that takes ~32 positions per turn
    pair_help = "Dimensions 2i (sin) and 2i+1 (cos) in the paper's layout."
    pair = number(st, "Pair i", "pair", 0, n_full - 1, near_32, expected="the pair is a whole number from {lo} to {hi:,}", follow=True, help=pair_help)
    circ = strided(stop, 400, start=start)
    both = sinusoidal.sinusoidal_encoding(L, d, base, positions=circ.indices, dims=np.array([2 * pair, 2 * pair + 1]))
    step_deg = np.degrees(omega[pair]) % 360
    plot(
        charts.phase_circle(
            both[:, 0], both[:, 1], circ.indices, title=f"(sin pω, cos pω) for pair {pair}: ω = {omega[pair]:.6g} rad per position", note=circ.note("position")
        ),
        key="sin_circle",
    )
    st.caption(
        f"Each step in position turns the point by the same angle, {step_deg:.4g}°. That fixed turn is why PE(p + k) is a rotation of PE(p), the same for "
        "every p (see the similarity page)."
    )

# --- binary analogy --------------------------------------------------------------------
st.header("Like counting in binary, but smooth")
n_pos = min(L, 64)
bits = naive.binary_positions(max(n_pos, 2))[:n_pos]
n_bits = bits.shape[1]
periods = 2.0 ** np.arange(1, n_bits + 1)  # bit b repeats every 2^(b+1) positions
pairs = np.unique(np.argmin(np.abs(np.log(wl[None, :] / periods[:, None])), axis=1))  # nearest wavelength per bit
sines = sinusoidal.sinusoidal_encoding(n_pos, d, base, dims=2 * pairs)
pos_b = strided(n_pos, n_pos)
plot(
    charts.side_by_side_heatmaps(
        [
            ("bits of p (+1 = 1, -1 = 0), lowest first", 2 * bits - 1, strided(n_bits, n_bits), pos_b),
            ("sin(p·ω_i) of the pairs nearest each bit's period", sines, strided(sines.shape[1], sines.shape[1]), pos_b),
        ],
        title=f"Positions 0 to {n_pos - 1}: binary digits beside the sine of {sines.shape[1]} pairs",
        x_title="bit / pair (fast to slow)",
        y_title="position p",
        zmax=1.0,
        x_ticks=[[f"bit {b}" for b in range(n_bits)], [f"pair {i} (λ {wl[i]:.3g})" for i in pairs]],
        height=460,
    ),
    key="sin_binary",
)
st.caption(
    "Bit b repeats every 2^(b+1) positions; beside each, the sine whose wavelength is nearest (the fastest sine repeats every 2π ≈ 6.3 positions, so the "
    "two fastest bits share it). The lowest bit flips every position, the next every two, the next every four: fast to slow, like the columns on the "
    "right. The sinusoid makes the same kind of fast-to-slow code with smooth values, so neighbouring positions stay close, and it keeps going past any "
    "fixed number of bits."
)

# --- exact vector ----------------------------------------------------------------------
st.header("A position's exact vector")
p = number(st, "Position p", "position", 0, max(L - 1, 0), min(10, L - 1), expected="the position is a whole number from {lo} to {hi:,}", follow=True)
pair_of, freq, is_cos = sinusoidal.column_info(d, base, layout)
row = sinusoidal.sinusoidal_encoding(L, d, base, layout=layout, positions=np.array([p]))[0]
st.dataframe(
    {
        "dimension j": np.arange(d),
        "pair i": pair_of,
        "function": np.where(is_cos, "cos", "sin"),
        "ω_i (rad/position)": freq,
        "angle p·ω_i (rad)": p * freq,
        f"PE({p}, j)": row,
    },
    hide_index=True,
    height=280,
    column_config={f"PE({p}, j)": st.column_config.NumberColumn(format="%.12f"), "ω_i (rad/position)": st.column_config.NumberColumn(format="%.6e")},
)
st.caption(f"All {d:,} values, in the {layout} layout, to 12 decimals. Its norm is {np.linalg.norm(row):.12f}.")

# --- t2t / fairseq ---------------------------------------------------------------------
st.header("The tensor2tensor / fairseq convention")
t2t_rows, t2t_cols = strided(stop, SMALL_GRID, start=start), strided(d, SMALL_GRID)
paper_concat = sinusoidal.sinusoidal_encoding(L, d, base, layout="concat", positions=t2t_rows.indices, dims=t2t_cols.indices)
t2t = sinusoidal.t2t_timing_signal(0, d, max_timescale=base, positions=t2t_rows.indices)[:, t2t_cols.indices]
plot(
    charts.side_by_side_heatmaps(
        [
            ("paper, sines first", paper_concat, t2t_cols, t2t_rows),
            ("tensor2tensor / fairseq", t2t, t2t_cols, t2t_rows),
            ("difference", t2t - paper_concat, t2t_cols, t2t_rows),
        ],
        title="The paper's encoding (sines-first layout) beside the tensor2tensor/fairseq table",
        x_title="dimension",
        y_title="position p",
        zmax=1.0 if d > 1 else None,
        note="; ".join(n for n in (t2t_rows.note("position"), t2t_cols.note("dimension")) if n),
        height=460,
    ),
    key="sin_t2t",
)
half = np.arange(d // 2)
plot(
    charts.lines(
        [("paper: base^(-2i/d)", half, omega[: d // 2]), ("t2t/fairseq: exp(-i·ln(base)/(d/2 - 1))", half, sinusoidal.t2t_frequencies(d, max_timescale=base))],
        title="Frequency of each pair in the two conventions",
        x_title="pair index i",
        y_title="ω_i (rad per position, log scale)",
        log_y=True,
    ),
    key="sin_t2t_freq",
)
st.caption(
    "Two differences: tensor2tensor and fairseq put all sines before all cosines (like the sines-first layout), and they "
    "space the d/2 frequencies so the last one is exactly 1/base (step ln(base)/(d/2 − 1)) where the paper steps by 2·ln(base)/d "
    "and stops short of 1/base; for odd widths they pad a zero column where the paper adds one more sine. "
    "A model trained with one convention needs that same table at inference."
)
