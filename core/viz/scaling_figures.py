"""/rope · Scaling's two figures: each pair's wavelength before and after a scaling, and each pair's new frequency over its
old. Their reference marks crowd where the original context, a band edge and the target lie within a decade of each other
(64, 83.79 and 256 at the page's defaults), so their labels are placed for the plot a 390-pixel phone shows (charts.lines'
`marks_px`): apart there, they stay apart in a desktop's larger plot."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from core.schemes import rope
from core.viz import charts, palette

WAVELENGTH_PX = (238.0, 207.0)  # the wavelength chart's plot in a 390-pixel window, above its legend, measured in Chromium
RATIO_PX = (262.0, 266.0)  # the ratio chart's


def wavelength_figure(
    head_dim: int, base: float, kind: str, theta: np.ndarray, scaled: np.ndarray, labels: np.ndarray, original: int, max_len: int,
    edges: Sequence[float],
) -> go.Figure:  # fmt: skip
    """Each pair's wavelength 2π/θᵢ before (`theta`, (P,)) and after (`scaled`, (P,)) the scaling named `kind`, the after series split by
    each pair's region (`labels`, (P,)), with base 500,000 unscaled beside them (unless `base` is it), and marks at the original
    context, the target `max_len` and the band `edges`."""
    pairs = np.arange(theta.size)
    series = [(f"before: base {base:,.6g}", pairs, 2 * np.pi / theta)]
    if base != 500_000.0:
        series.append(("base 500,000 (no scaling)", pairs, 2 * np.pi / rope.default_frequencies(head_dim, 500_000.0)))
    after = 2 * np.pi / scaled
    series += [(f"after: {name}", pairs[labels == name], after[labels == name]) for name in ("kept", "blended", "interpolated") if (labels == name).any()]
    return charts.lines(
        series,
        title=f"Wavelength of each pair before and after {kind} scaling (head_dim {head_dim})",
        x_title="pair index i",
        y_title="wavelength 2π/θᵢ (positions, log scale)",
        log_y=True,
        points=True,
        colours=[palette.scaling_colour(name) for name, _, _ in series],
        symbols=[palette.OTHER_BASE_SYMBOL if name.startswith("base ") else None for name, _, _ in series],
        y_marks=joined(
            [(original, "original context", palette.MARK), (max_len, "max_len", palette.TARGET)] + [(e, "band edge", palette.FAINT_MARK) for e in edges],
            np.concatenate([ys for _, _, ys in series]),
        ),
        marks_px=WAVELENGTH_PX,
    )


def _value(value: float) -> str:
    return f"{value:,.0f}" if value >= 1000 or value == int(value) else f"{value:,.4g}"


SHORT = {"original context": "original"}  # a mark's name in a label it shares with others, which must fit a phone's plot


def joined(marks: Sequence[tuple[float, str, str]], data: np.ndarray) -> list[tuple[float, str, str]]:
    """(value, name, colour) marks as charts' y marks on a log axis over `data` ('name value'): marks at one value drawn as one line
    in the first one's colour, its label naming them all, short and one a line ('original =<br>max_len 256'), as a phone's plot
    has no room for them in a row; a band edge's line within a
    label's height of a labelled line, on the phone's plot, drawn without its label, which the ratio chart's axis gives (three
    labels around one line cannot all stand clear of each other and of the dots)."""
    out: list[tuple[float, list[str], str]] = []
    for value, name, colour in marks:
        same = next((m for m in out if np.isclose(m[0], value, rtol=1e-9, atol=0)), None)
        if same is None:
            out.append((value, [name], colour))
        elif name not in same[1]:
            same[1].append(name)
    logs = np.log10(np.concatenate([data[data > 0], [m[0] for m in out]]))
    px = (np.log10([m[0] for m in out]) - logs.min()) / max(float(np.ptp(logs)), 1e-12) * WAVELENGTH_PX[1]
    said: list[float] = []
    drawn = []
    for k, (value, names, colour) in enumerate(out):
        quiet = names == ["band edge"] and any(abs(px[k] - at) < charts.MARK_LINE_PX for at in said)
        said_as = " =<br>".join(SHORT.get(name, name) if len(names) > 1 else name for name in names)
        drawn.append((value, "" if quiet else f"{said_as} {_value(value)}", colour))
        if not quiet:
            said.append(float(px[k]))
    return drawn


def ratio_figure(theta: np.ndarray, ratio: np.ndarray, factor: float, original: int, edges: Sequence[float]) -> go.Figure:
    """Each pair's new frequency over its old (`ratio`, (P,)) against its original wavelength 2π/θᵢ (`theta`, (P,)), with 1/s
    marked (s = `factor`) and the original context and band `edges` along the wavelengths."""
    return charts.lines(
        [("new θᵢ / old θᵢ", 2 * np.pi / theta, ratio)],
        title="Each pair's new frequency over its old, against its original wavelength",
        x_title="original wavelength (positions, log scale)",
        y_title="new frequency / old frequency",
        log_x=True,
        markers=True,
        y_range=(0, 1.05),
        colours=[palette.UNSCALED],
        y_marks=[(1 / max(factor, 1.0), f"1/s = {1 / max(factor, 1.0):.3g}", palette.region_colour("interpolated"))],
        x_marks=[(original, "original context", palette.MARK)] + [(e, _value(e), palette.FAINT_MARK) for e in edges],
        marks_px=RATIO_PX,
    )
