r"""RoPE derived, as pictures: one pair of a query and a key as complex numbers, turned to their
positions m and n, and the score they give as a function of m − n (RoFormer, Su et al.).

The requirement: the score of a query at m and a key at n depends on the two vectors and on
m − n only, $\langle f_q(x, m), f_k(y, n)\rangle = g(x, y, m - n)$. In two dimensions, read as a
complex number, $f(x, m) = x\,e^{i m\theta}$ meets it:

$$\mathrm{Re}\big[q e^{i m\theta}\,\overline{k e^{i n\theta}}\big] = \mathrm{Re}\big[q \bar k\, e^{i (m - n)\theta}\big]
= |q|\,|k| \cos\big(\arg q - \arg k + (m - n)\theta\big),$$

and turning keeps |q| and |k|. Every function takes numbers and returns a Plotly figure.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.viz import charts
from core.viz.memo import shared

Q = 1.2 * np.exp(0.4j)  # the pair of the query (x, y) = (Re, Im), before it is turned
K = 0.9 * np.exp(-0.6j)  # the pair of the key


def turned(z: complex, position: float, theta: float) -> complex:
    """z e^{i position θ}: the pair at `position`."""
    return complex(z * np.exp(1j * position * theta))


def score(q: complex, k: complex, m: float, n: float, theta: float) -> float:
    """Re[q e^{imθ} · conj(k e^{inθ})]: the dot product of the two turned pairs."""
    return float((turned(q, m, theta) * np.conj(turned(k, n, theta))).real)


def score_of_offset(q: complex, k: complex, offsets: np.ndarray, theta: float) -> np.ndarray:
    """|q||k| cos(arg q − arg k + (m − n)θ) for every offset m − n. Returns (len(offsets),)."""
    return np.abs(q) * np.abs(k) * np.cos(np.angle(q) - np.angle(k) + np.asarray(offsets, dtype=np.float64) * theta)


def _arrow(z: complex, name: str, colour: str, *, faint: bool = False) -> go.Scatter:
    return go.Scatter(
        x=[0.0, z.real],
        y=[0.0, z.imag],
        mode="lines+markers",
        name=name,
        line=dict(color=colour, width=1.5 if faint else 3, dash="dot" if faint else "solid"),
        marker=dict(symbol=["circle", "arrow"], angleref="previous", size=[1, 14 if not faint else 10], color=colour),
        hovertemplate=f"{name}<br>(%{{x:.4f}}, %{{y:.4f}})<extra></extra>",
    )


@shared
def complex_plane(m: int, n: int, theta: float, q: complex = Q, k: complex = K) -> go.Figure:
    """The query's pair at m and the key's at n in the complex plane, with where they started (dotted)
    and the circles they turn on: the angle between them is arg q − arg k + (m − n)θ."""
    qm, kn = turned(q, m, theta), turned(k, n, theta)
    ring = np.exp(1j * np.linspace(0, 2 * np.pi, 181))
    traces = [
        _arrow(q, "q at position 0", charts.LINE_COLOURS[0], faint=True),
        _arrow(k, "k at position 0", charts.LINE_COLOURS[1], faint=True),
        _arrow(qm, f"q turned to m = {m}", charts.LINE_COLOURS[0]),
        _arrow(kn, f"k turned to n = {n}", charts.LINE_COLOURS[1]),
    ]
    for z, colour in ((q, charts.LINE_COLOURS[0]), (k, charts.LINE_COLOURS[1])):
        circle = abs(z) * ring
        traces.append(
            go.Scatter(x=circle.real, y=circle.imag, mode="lines", line=dict(color=colour, width=0.8), opacity=0.35, showlegend=False, hoverinfo="skip")
        )
    r = 1.15 * max(abs(q), abs(k))
    return charts._figure(
        traces,
        title=f"One pair of a query and a key as complex numbers, turned by mθ and nθ (θ = {charts.number(theta)} rad per position)",
        note=f"score = Re[q e^(imθ) · conj(k e^(inθ))] = {score(q, k, m, n, theta):.4f}; |q| = {abs(qm):.4f} and |k| = {abs(kn):.4f} at every position",
        height=460,
        x_title="real part (first dimension of the pair)",
        y_title="imaginary part (second dimension)",
        legend=True,
        xaxis=dict(range=[-r, r], zeroline=True),
        yaxis=dict(range=[-r, r], zeroline=True, scaleanchor="x", scaleratio=1),
    )


@shared
def offset_curve(m: int, n: int, theta: float, span: int, q: complex = Q, k: complex = K) -> go.Figure:
    """The score against m − n from −span to span, the current (m, n) marked: every (m, n) with the
    same difference lands on the same point."""
    offsets = np.arange(-span, span + 1)
    fig = charts.lines.fresh(  # a point is added to it below
        [("score(m − n)", offsets, score_of_offset(q, k, offsets, theta))],
        title="The score depends on the offset m − n only",
        x_title="offset m − n (positions)",
        y_title="score q·k after turning",
        x_marks=[(m - n, f"m − n = {m - n}")],
        markers=True,
    )
    fig.add_trace(
        go.Scatter(x=[m - n], y=[score(q, k, m, n, theta)], mode="markers", name=f"(m, n) = ({m}, {n})", marker=dict(size=11, color=charts.LINE_COLOURS[1]))
    )
    return fig
