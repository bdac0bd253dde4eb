"""/rope's "Scaling" tab: a scaling method chosen (kind, factor, original context), and what it does
to each pair's frequency against the target context (the sidebar's max_len)."""

import numpy as np
import streamlit as st

from core.analysis import context as cx
from core.schemes import rope
from core.viz import charts, scaling_figures
from ui.display import guarded, plot
from ui.rope_controls import KIND_LABELS, factor_control, original_len_control, scaling_kind, scaling_words


def scaling_tab(head_dim: int, base: float, L: int, theta: np.ndarray) -> None:  # L: the sidebar's max_len, named as on the page
    """Draw the scaling controls, the wavelengths before and after, the counts and the ratio per pair."""
    st.header("Scaling RoPE to a longer context")
    st.markdown(
        f"A model trained on an original context can be run on a longer one (here the sidebar's max_len = {L:,}) "
        "by changing its frequencies. Each method treats fast and slow pairs differently."
    )
    c1, c2, c3 = st.columns(3)
    kind = scaling_kind("yarn").draw(c1)
    factor = factor_control(c2)
    original = original_len_control(c3, L, factor)
    if original > L:
        st.error(
            f"The original context ({original:,}) is longer than the target context max_len = {L:,}: there is nothing to extend. Lower it or raise "
            "max_len in the sidebar.",
            icon=":material/error:",
        )
        return
    if kind == "none":
        scaled, attention_factor, ratio, labels, edges = theta, 1.0, np.ones_like(theta), np.full(theta.size, "kept"), ()
        how = scaling_words(None, head_dim, base, L)
    else:
        scaling = guarded(rope.RopeScaling, kind, factor, original)
        scaled, attention_factor = guarded(rope.rope_frequencies, head_dim, base, scaling, seq_len=L)
        regions = rope.scaling_regions(head_dim, base, scaling, seq_len=L)
        ratio, labels, edges = regions.ratio, regions.label, regions.edges
        how = scaling_words(scaling, head_dim, base, L)
    st.caption(f"**{KIND_LABELS[kind]}**: {how}.")
    pairs, wave_before, wave_after = np.arange(theta.size), 2 * np.pi / theta, 2 * np.pi / scaled
    plot(scaling_figures.wavelength_figure(head_dim, base, KIND_LABELS[kind], theta, scaled, labels, original, L, edges), key="rope_wavelengths")
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("pairs kept", int((labels == "kept").sum()))
    m2.metric("pairs blended", int((labels == "blended").sum()))
    m3.metric("pairs interpolated", int((labels == "interpolated").sum()))
    m4.metric("attention factor (cos, sin ×)", charts.number(attention_factor), help=f"exactly {attention_factor!r}")
    plot(scaling_figures.ratio_figure(theta, ratio, factor, original, edges), key="rope_ratio")
    view = cx.PairView(pairs, wave_before, wave_after, None, np.asarray(labels).astype(str), float(attention_factor), 2 * theta.size)
    st.caption(
        "What to look for: "
        + cx.reach_text(cx.angle_reach(view, original, L), kind != "none")
        + " YaRN and Llama 3 keep the fast pairs, whose angles tell near positions apart, and divide the slow ones (the 'NTK-by-parts' idea of "
        "Peng et al. 2023, YaRN §3.2, arXiv:2309.00071); linear scaling divides every pair by s; the NTK base change leaves the fastest pair as it "
        "is and divides the slowest by exactly s."
    )
