"""The real-text lab's pictures (core.lab.lm): perplexity against evaluation length, one line per
scheme (its colour and its own shape of dot) with the training length marked, the ALiBi paper's own numbers
beside it, and the rows of the results table. Each function takes plain {length: perplexity} dicts, so the shipped results
and a live run draw the same way.

`series` is a sequence of (scheme, {length: perplexity or None}), in the order to draw.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from core.lab import lm
from core.schemes.registry import SCHEMES
from core.viz import charts, palette
from core.viz.memo import shared

Series = Sequence[tuple[str, dict[int, float | None]]]


def _colour_by_scheme(fig: go.Figure, schemes: Sequence[str]) -> go.Figure:
    """Each scheme's colour (core.viz.palette) on its trace, the same in every figure of the app, whatever is drawn."""
    for trace, scheme in zip(fig.data, schemes):
        trace.line.color = trace.marker.color = palette.scheme_colour(scheme)
    return fig


# each scheme's dot in the perplexity chart, where lines of two schemes can lie on each other (T5's and ALiBi's near
# perplexity 5): told apart by shape where their colours, one per scheme in every figure, cannot show
SCHEME_SYMBOLS = dict(
    zip(
        "none sinusoidal learned rope t5 alibi integer fraction binary onehot t2t shaw kerple".split(),
        "circle diamond star cross square triangle-up circle-open square-open diamond-open triangle-down pentagon hexagon x".split(),
        strict=True,
    )
)
DOT_PX = 9  # a shape the eye tells from another; a line of one point (no code past L) larger, so the others' dots at L leave it showing


def short_label(scheme: str) -> str:
    """A scheme's name where a table's column is narrow, read from its registry label (the registry keeps one label per
    scheme): the acronym it ends with in brackets ('rotary (RoPE)': RoPE), else its first word where no other scheme's label
    starts with it ('T5 relative buckets': T5, 'learned absolute table': learned), else the whole label (the two sinusoids)."""
    label = SCHEMES[scheme].label
    acronym = re.fullmatch(r".* \(([A-Za-z]*[A-Z][a-z]*[A-Z][A-Za-z]*)\)", label)
    if acronym:
        return acronym.group(1)
    first = label.split(" ")[0]
    return first if sum(s.label.split(" ")[0] == first for s in SCHEMES.values()) == 1 else label


def named(scheme: str, perplexity: dict[int, float | None], train_len: int) -> str:
    """The scheme's label, saying where its line stops when it has no code past the table."""
    missing = [n for n, v in sorted(perplexity.items()) if v is None]
    return SCHEMES[scheme].label + (f" (no code past {train_len}: the line stops)" if missing else "")


@shared
def perplexity_by_length(series: Series, train_len: int, *, what: str) -> go.Figure:
    """Held-out perplexity against evaluation length (log y: the sinusoid's rise and ALiBi's flat
    line on one scale), one line per scheme, the training length marked. `what` says whose numbers
    these are ("precomputed, seed 0", "your run")."""
    lines = []
    for scheme, ppl in series:
        lengths = sorted(ppl)
        lines.append((named(scheme, ppl, train_len), np.array(lengths), np.array([np.nan if ppl[n] is None else ppl[n] for n in lengths], dtype=float)))
    fig = charts.lines.fresh(
        lines,
        title=f"Held-out perplexity of Jane Austen against evaluation length, trained on {train_len} characters ({what})",
        x_title="evaluation length (characters, whole windows)",
        y_title="perplexity per character (log)",
        log_y=True,
        markers=True,
        x_marks=[(train_len, f"training length L = {train_len}")],
        symbols=[(SCHEME_SYMBOLS[scheme], 13 if np.isfinite(y).sum() == 1 else DOT_PX) for (scheme, _), (_, _, y) in zip(series, lines)],
    )
    return _colour_by_scheme(fig, [scheme for scheme, _ in series])


def ratio_text(series: Series, train_len: int) -> str:
    """'NoPE 1.105, sinusoidal 4.433, …' : ppl(4L) / ppl(L) per scheme, 'no code' where missing."""
    parts = []
    for scheme, ppl in series:
        r = lm.ratio(ppl, train_len, 4)
        parts.append(f"{SCHEMES[scheme].label} {'no code at 4L' if r is None else format(r, '.3f')}")
    return "; ".join(parts)


def rows(series: Series, train_len: int, seconds: dict[str, float] | None = None) -> list[dict[str, object]]:
    """One row per scheme: perplexity at each length (None: no code), ppl(4L)/ppl(L), ppl(8L)/ppl(L), seconds."""
    out = []
    for scheme, ppl in series:
        row: dict[str, object] = {"scheme": short_label(scheme)}
        row.update({f"ppl @ {n}": ppl[n] for n in sorted(ppl)})
        row["4L / L"] = lm.ratio(ppl, train_len, 4)
        row["8L / L"] = lm.ratio(ppl, train_len, 8)
        if seconds is not None:
            row["seconds"] = seconds.get(scheme)
        out.append(row)
    return out
