"""Page `sinusoidal`: the encoding itself: first a live preview drawn in the browser, then heatmap, waves
(with the phase circle and a clock that turns in the browser), spectrum, binary analogy, exact values, the
tensor2tensor variant, and a learned table as the other absolute choice."""

import numpy as np
import streamlit as st

from core.schemes import sinusoidal
from core.schemes.registry import Setting
from core.viz import charts, palette
from core.viz import sinusoid_figures as figs
from ui.controls import Window, choice, follow_default, number
from ui import sinusoidal_text as words
from ui.display import note_if, plot
from ui.heatmap import Zoom, draw_heatmap
from ui.motion import clock_data, look_for, motion
from ui.path import next_link
from ui.scorecard import scorecard
from ui.sidebar import current_settings
from ui.sinusoid_preview import sinusoid_preview
from ui.sources import sources_expander
from ui.tabs import live_part, url_tabs

WAVE_SPAN = 64  # consecutive positions the waves show by default


def _formula() -> None:
    d, _, base = current_settings()  # read afresh: a live part (ui/tabs.py)
    base_tex = f"{base:,.6g}".replace(",", "{,}")
    # each equation in braces, a break allowed only between them: a narrow column shows one per line, not one cut at its edge
    st.latex(
        rf"{{PE_{{(p,\,2i)}} = \sin\!\left(\frac{{p}}{{{base_tex}^{{\,2i/{d}}}}}\right)}},\allowbreak\qquad "
        rf"{{PE_{{(p,\,2i+1)}} = \cos\!\left(\frac{{p}}{{{base_tex}^{{\,2i/{d}}}}}\right)}},\allowbreak\qquad {{i = 0,\dots,{(d + 1) // 2 - 1}}}"
    )
    odd = f"d_model = {d} is odd: the last column ({d - 1}) is a sine whose cosine partner would be column {d}, which does not exist."
    note_if(bool(d % 2), odd, caption=True)


st.title("The sinusoidal encoding")
st.markdown(
    "Each position becomes a vector of sines and cosines, one pair per frequency, each slower than the last. "
    "Drag the sliders: which columns repeat, and which keep changing?"
)
with st.expander("The formula"):
    st.markdown(
        "One (sine, cosine) pair per frequency: the first pair turns 1 radian per position, and each further pair more slowly, "
        "by the same factor, towards 1/base."
    )
    live_part("sin_formula", _formula)

# --- controls the tabs share: the layout, and the window of positions the picture and the t2t table show
layout = choice(  # plain names in the URL, not the labels
    st,
    "Column layout",
    "layout",
    sinusoidal.LAYOUTS,
    "interleaved",
    labels={"interleaved": "interleaved (paper: sin, cos, sin, cos, ...)", "concat": "sines first, then cosines"},
    widget="segmented_control",
)
WINDOW = Window("sin_window")  # the positions the picture and the t2t table show; a box dragged over the heatmap sets it


def _picture() -> None:
    d, L, base = current_settings()
    st.header("The encoding as a picture")
    start, stop = WINDOW.draw(L)
    heat = figs.encoding_heatmap(d, L, base, layout, start, stop)
    draw_heatmap(heat.spec, key="sin_heatmap", zoom=Zoom(rows=(WINDOW, L), cols=None))  # painted by the browser: a step repaints one canvas
    n_slow, slowest = figs.slow_columns(d, base, stop - start)
    rows, pairs = stop - start, (d + 1) // 2
    st.caption(
        (
            f"One position, one row: the sines and cosines of position {start:,}. Raise max_len, or widen the positions shown, to see the "
            "columns change down the rows. "
            if rows < 2
            else "What to look for: the left columns (fast pairs) change from one row to the next; columns further right change ever more slowly. "
            if pairs > 1
            else "What to look for: the one pair's two columns change from one row to the next. "
        )
        + (
            ""
            if rows < 2
            else f"Over these {stop - start:,} positions the slowest {n_slow:,} of {(d + 1) // 2:,} pairs turn less than a tenth of a cycle: "
            "their columns are almost constant. "
            if n_slow
            else f"At base {base:,.6g} even the slowest pair turns {slowest:.3g} cycles over these {stop - start:,} positions, so no column is constant. "
        )
        + ("Every row is a different mix, which is what makes positions distinguishable. " if rows > 1 else "")
        + ("With the sines-first layout the same columns are regrouped: sines on the left half, cosines on the right. " if layout == "concat" else "")
        + ("Columns are drawn as whole (sin, cos) pairs. " if heat.columns.is_sample else "")
        + (
            f"Rows sample every {heat.rows.step:,}th position: columns faster than that stride alias into moiré patterns that are not in the encoding; "
            "narrow the window to see every position."
            if heat.rows.step > 1
            else ""
        )
    )


def _waves() -> None:
    d, L, base = current_settings()
    st.header("Each dimension is a wave")
    default_dims = sorted({0, 1, min(d - 1, 2 * (d // 16)), min(d - 1, 2 * (d // 4))})
    dims_value = follow_default("sin_dims", default_dims, lambda dims: all(j < d for j in dims))
    dims_options = range(d) if d <= 4096 else sorted(set(range(0, d, d // 512)) | set(default_dims) | set(dims_value))  # a long list stays usable
    c1, c2 = st.columns([2, 3])
    chosen = c1.multiselect("Dimensions to draw", list(dims_options), default=dims_value, key="sin_dims", max_selections=8, wrap=True)
    with c2:
        wave_help = "A window of consecutive positions: every one gets its dot."
        w_start, w_stop = Window("wave_window", "Positions drawn", span=WAVE_SPAN, help=wave_help).draw(L)
    if chosen:
        plot(figs.waves(d, L, base, layout, sorted(chosen), w_start, w_stop), key="sin_waves")
        st.caption(
            "Dimension j repeats every λ = 2π·base^(2i/d) positions, i its pair (i = j // 2 in the paper's layout); a dashed line, measured from "
            "the window's start, marks a drawn dimension's wavelength where it is shorter than the window (and over 2% of it). A sine and the cosine beside it "
            "share a wavelength, a quarter cycle apart. The dots are the values a model sees; the curves between them are the formula at "
            "fractional positions."
        )
    else:
        st.info("Pick at least one dimension to draw its wave.")

    _circle(w_start)
    _clock()


@st.fragment  # inside the Waves tab's fragment: the pair reruns the circle alone
def _circle(w_start: int) -> None:
    d, L, base = current_settings()
    omega, wl = sinusoidal.pair_frequencies(d, base), sinusoidal.wavelengths(d, base)
    st.header("One pair traces a circle")
    n_full = d // 2  # at least one pair: d_model is at least 2
    near_32 = int(np.argmin(np.abs(np.log(wl[:n_full] / 32.0))))  # a pair that takes ~32 positions per turn
    pair_help = "Dimensions 2i (sin) and 2i+1 (cos) in the paper's layout."
    pair = number(st, "Pair i", "pair", 0, n_full - 1, near_32, expected="the pair is a whole number from {lo} to {hi:,}", follow=True, help=pair_help)
    count = figs.one_turn(wl[pair], L - w_start)  # less than one turn: each dot has a place of its own, colours in position order
    plot(figs.phase_circle(d, L, base, pair, w_start, count), key="sin_circle")
    turn = f"{np.degrees(omega[pair]) % 360:.4g}°"
    st.caption(
        f"One position, one point: raise max_len to watch each step turn it by the same angle, {turn}, along the grey circle."
        if count < 2
        else f"Each step in position turns the point by the same angle, {turn}, along the grey circle. The dots cover "
        + ("less than one turn, so their colours run round once, in order of position. " if count >= np.ceil(wl[pair]) else
           "less than one turn, their colours in order of position. ")
        + "That fixed turn is why PE(p + k) is a rotation of PE(p), the same for every p (see the similarity page)."
    )
    with st.expander("Clock hands, partners, and why it is called a phase circle"):
        st.markdown(
            "Think of each pair as a hand of a clock: the fast pairs are second hands, the slow ones hour hands, and reading all the hands "
            "together tells the position, as a clock's hands tell the time. The two members of a pair are partners: sine and cosine of one "
            "frequency are a quarter turn apart, sin² + cos² = 1 keeps the point on the circle, and over a whole turn their product averages "
            "to 0 (as functions they are orthogonal). A swinging pendulum, drawn as its position against its speed, goes round the same kind "
            "of loop (a circle for small swings, scaled to equal axes): that is why a picture like this is called a phase circle."
        )


def _clock() -> None:
    d, L, base = current_settings()
    st.header("Every pair at once: a clock")
    data = clock_data(d, L, base)
    motion(data, key="sin_clock")  # drawn in the browser: Play and Step ask nothing of the server
    together = " Together the hands tell the position, as a clock's hands tell the time." if len(data["dials"]) > 1 else ""
    st.caption(look_for(data, "hand") + together)


def _spectrum() -> None:
    d, L, base = current_settings()
    st.header("Frequencies and wavelengths")
    omega, wl = sinusoidal.pair_frequencies(d, base), sinusoidal.wavelengths(d, base)
    n_long = int((wl > L).sum())
    c1, c2, c3 = st.columns(3)
    c1.metric("sin/cos pairs", f"{omega.size:,}")
    c2.metric("fastest / slowest wavelength", f"{wl[0]:.4g} / {wl[-1]:,.4g}")
    c3.metric("pairs with wavelength > max_len", f"{n_long:,}", help="These never complete a cycle inside the context.")
    plot(charts.spectrum(wl, L, title=f"Wavelength of each pair, d_model = {d:,}, base = {base:,.6g}"), key="sin_spectrum")
    st.caption(words.spectrum_text(wl, L))


def _binary() -> None:
    d, L, base = current_settings()
    st.header("Like counting in binary, but smooth")
    draw_heatmap(figs.binary_analogy(d, L, base), key="sin_binary")
    on_fastest = int(np.count_nonzero(figs.nearest_pair_per_bit(d, L, base) == 0))  # bits whose nearest sine is pair 0
    shared = {1: "only bit 0 is nearest it", 2: "bits 0 and 1 share it"}.get(on_fastest, f"bits 0 to {on_fastest - 1} all share it")
    st.caption(
        "Bit b repeats every 2^(b+1) positions; beside each, the sine whose wavelength is nearest (the fastest sine repeats every 2π ≈ 6.3 "
        f"positions, so {shared}). The lowest bit flips every position, the next every two, the next every four: fast to slow, like the columns on the "
        "right. Bits are a discrete code: each column jumps between two values. The sinusoid is a continuous one: the same kind of fast-to-slow code with "
        "smooth values, so neighbouring positions stay close (and a fractional position would fall between its neighbours), and it keeps going past any "
        "fixed number of bits."
    )


def _exact() -> None:
    d, L, base = current_settings()
    st.header("A position's exact vector")
    p = number(st, "Position p", "position", 0, max(L - 1, 0), min(10, L - 1), expected="the position is a whole number from {lo} to {hi:,}", follow=True)
    pair_of, freq, is_cos = sinusoidal.column_info(d, base, layout)
    row = sinusoidal.sinusoidal_encoding(L, d, base, layout=layout, positions=np.array([p]))[0]
    columns = {"dimension j": np.arange(d), "pair i": pair_of, "function": np.where(is_cos, "cos", "sin")}
    columns |= {"ωᵢ (rad/position)": freq, "angle p·ωᵢ (rad)": p * freq}
    four = {name: st.column_config.NumberColumn(format="%.4g") for name in ("ωᵢ (rad/position)", "angle p·ωᵢ (rad)", f"PE({p}, j)")}
    st.dataframe(columns | {f"PE({p}, j)": row}, hide_index=True, height=280, column_config=four)
    st.caption(f"All {d:,} values, in the {layout} layout, to 4 significant digits. Its norm is {np.linalg.norm(row):.4g}.")
    with st.expander("The exact values (every digit of float64)"):
        st.dataframe({"dimension j": np.arange(d), f"PE({p}, j)": [repr(float(v)) for v in row]}, hide_index=True, height=280)


def _t2t() -> None:
    d, L, base = current_settings()
    st.header("The tensor2tensor / fairseq convention")
    start, stop = WINDOW.draw(L)
    draw_heatmap(figs.t2t_comparison(d, L, base, start, stop), key="sin_t2t")
    half = np.arange(d // 2)
    plot(
        charts.lines(
            [
                ("paper: base^(−2i/d)", half, sinusoidal.pair_frequencies(d, base)[: d // 2]),
                ("t2t/fairseq: exp(−i·ln(base)/(d/2 − 1))", half, sinusoidal.t2t_frequencies(d, max_timescale=base)),
            ],
            colours=[palette.scheme_colour("sinusoidal"), palette.scheme_colour("t2t")],
            dashes=[palette.scheme_dash("sinusoidal"), palette.scheme_dash("t2t")],
            title="Frequency of each pair in the two conventions",
            x_title="pair index i",
            y_title="ωᵢ (rad per position, log scale)",
            log_y=True,
        ),
        key="sin_t2t_freq",
    )
    st.caption(
        "Two differences: tensor2tensor and fairseq put all sines before all cosines (like the sines-first layout), and they "
        "space the d/2 frequencies so the last one is exactly 1/base (step ln(base)/(d/2 − 1)) where the paper steps by 2·ln(base)/d "
        "and stops short of 1/base. For odd widths they pad a zero column; the paper defines no odd width, and the lone last sine this app "
        "gives the paper's version there is the app's own convention. A model trained with one convention needs that same table at inference."
    )


def _learned() -> None:
    d, L, base = current_settings()
    st.header("The other absolute choice: a learned table")
    st.markdown(
        "BERT and GPT-2 do not compute their positions: they learn one vector per position, a table of max_len × d_model numbers trained with the rest of "
        "the model. Before training the table is noise; training gives it whatever structure the task rewards. It has no row past its last position, so "
        "it cannot run on longer inputs at all. In practice the two do about equally well at the lengths they were trained on: the Transformer paper "
        "tried a learned table in place of its sinusoid and got nearly identical results (Vaswani et al. 2017, Table 3, row E: development perplexity "
        "4.92 both, BLEU 25.7 against 25.8), and kept the sinusoid in the hope that it would extrapolate (§3.5)."
    )
    draw_heatmap(figs.learned_table(d, L, base), key="sin_learned")
    st.caption(
        "What to look for: the sinusoid's columns are waves from the first row; the untrained table has none, and its rows are no more alike when "
        "positions are near than when they are far. The model page shows a trained one, the lab trains one itself."
    )
    st.subheader("The sinusoid and the learned table against the checklist")
    scorecard(["sinusoidal", "t2t", "learned"], Setting(width=d, base=base, train_len=L), L)


def _preview() -> None:
    d, L, base = current_settings()
    st.header("Live, in your browser")
    sinusoid_preview(d, L, base, layout)
    st.caption(
        "What to look for while dragging: more dimensions add ever slower columns on the right; a larger base slows all but the first "
        "columns, so more of the picture turns flat; a longer max_len adds rows, and the fast columns on the left repeat while the slow ones "
        "keep changing, so no two rows are the same."
    )
    with st.expander("How this preview works"):
        st.markdown(
            "The preview draws every cell of the encoding on each move, without asking the server: your browser computes the same "
            "formula (one pixel per cell, on the colour scale of the other figures), with the column layout chosen above. The button under "
            "the preview hands the settings on its sliders to the sidebar, and every figure follows; the link beside it opens the app there, "
            "to share."
        )


# only the open tab runs and is drawn: a step of a shared slider redraws its figures, not all of the page's (ui/tabs.py)
url_tabs(
    "sin_view",
    {
        "Live preview": _preview,  # first: where a learner meets the sinusoid, drawn as they drag
        "Picture": _picture,
        "Waves": _waves,
        "Spectrum": _spectrum,
        "Binary": _binary,
        "Exact values": _exact,
        "tensor2tensor": _t2t,
        "Learned table": _learned,
    },
)
sources_expander("sinusoidal")
next_link("sinusoidal")
