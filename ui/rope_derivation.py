"""/rope's "Derivation" tab: from the requirement that the score depend on m − n only, to the
rotation q·e^(imθ) (RoFormer, Su et al.), with one pair of a query and a key in the complex plane
as m and n move (core.viz.rope_derivation)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core.viz import rope_derivation as fig
from core.viz.charts import subscript
from ui.controls import Number, check_links
from ui.display import plot

PAIR = Number("rope_derive_pair", "Pair i", 0, 127, 0, expected="the pair is a whole number from {lo} to {hi}")
M = Number("rope_m", "Query position m", 0, 1000, 5, expected="m is a whole number from {lo} to {hi}", slider=True)
N = Number("rope_n", "Key position n", 0, 1000, 2, expected="n is a whole number from {lo} to {hi}", slider=True)
SOURCE = "Su, Lu, Pan, Murtadha, Wen & Liu, RoFormer: Enhanced Transformer with Rotary Position Embedding, arXiv:2104.09864"


def _n(x: float) -> str:
    return f"{x:.4f}" if x >= 0 else f"({x:.4f})"


def derivation_tab(theta: np.ndarray) -> None:
    st.header("Where the rotation comes from")
    st.markdown(
        "On the similarity page, shifting the sinusoid by k positions was one matrix Mₖ made of 2×2 rotations. That Mₖ is a rotation: "
        "RoPE applies it to the queries and keys of every attention layer instead of adding a vector to the words. "
        "It rotates every pair of query and key dimensions by an angle "
        "proportional to the position: p·θᵢ for pair i, with θᵢ = base^(−2i/head_dim). A dot product of two rotated vectors depends "
        "only on the difference of their angles, so the score of a query at position m and a key at position n sees only the offset m − n."
    )
    st.markdown(
        "RoFormer asks for position functions f whose scores depend on the two vectors and on the offset only: "
        "⟨f(q, m), f(k, n)⟩ = g(q, k, m − n). Take one pair of dimensions of a query and a key and read each as a complex number, "
        "q = q₁ + i q₂. Multiplying by e^(imθ) turns a pair by the angle mθ, and the real part of one number times the conjugate of "
        "another is their dot product, so\n\n"
        "Re[q e^(imθ) · conj(k e^(inθ))] = Re[q · conj(k) · e^(i(m−n)θ)] = |q| |k| cos(arg q − arg k + (m − n)θ):\n\n"
        "m and n enter only as m − n, and turning never changes |q| or |k|. A head of width d does this to each of its d/2 pairs, "
        "pair i at its own θᵢ = base^(−2i/d), and adds up the pairs' scores. "
        f"Source: {SOURCE}, §3.1 (the requirement) and §3.2 (the two-dimensional case and its general form); the derivation is "
        "worked out in its §3.4."
    )
    check_links(PAIR, M, N)
    c1, c2, c3 = st.columns(3)
    pair = min(int(PAIR.draw(c1)), theta.size - 1)
    m, n = int(M.draw(c2)), int(N.draw(c3))
    t = float(theta[pair])
    if pair != int(st.session_state.get(PAIR.key, pair)):
        st.caption(f"This head width has pairs 0 to {theta.size - 1}: pair {pair} is drawn.")
    plot(fig.complex_plane(m, n, t), key="rope_derive_plane")
    qm, kn = fig.turned(fig.Q, m, t), fig.turned(fig.K, n, t)
    value = float(np.real(qm * np.conj(kn)))
    st.caption(
        f"Pair {pair} turns θ{subscript(pair)} = {t:.6g} rad per position (the sidebar's base and this page's head width). The turned "
        f"pairs' dot product is {_n(qm.real)} × {_n(kn.real)} + {_n(qm.imag)} × {_n(kn.imag)} = {value:.4f}; "
        f"|q| |k| cos(arg q − arg k + (m − n)θ) = {float(fig.score_of_offset(fig.Q, fig.K, [m - n], t)[0]):.4f}. "
        f"Their lengths stay {abs(qm):.4f} and {abs(kn):.4f}. Move m and n together: the arrows turn, the score stays."
    )
    plot(fig.offset_curve(m, n, t, span=max(32, abs(m - n) + 8)), key="rope_derive_offset")
