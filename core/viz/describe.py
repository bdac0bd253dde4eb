"""A figure in words and as a table, from the arrays it draws: the text alternative a screen reader reads in place
of a chart (what is drawn, how much of it, its range, and where it peaks), and the drawn data as CSV.

`figure_text` and `figure_csv` read a Plotly figure's traces (lines, markers, bars, 3-D paths, heatmap cells).
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np

from core.viz.charts import number as _padded

_TAG = re.compile(r"<[^>]+>")
KINDS = {"scatter": "line chart", "scattergl": "line chart", "bar": "bar chart", "scatter3d": "3-D path", "heatmap": "heatmap"}
NAMES_SHOWN = 4  # series named in a sentence; the rest are counted


def number(x: float) -> str:
    """A number in a sentence: 4 significant digits as on screen (core.viz.charts.number), without the zeros
    that pad it there (1, not 1.000; 0.1, not 0.1000)."""
    text = _padded(x)
    if "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")
    return text


def plain(text: object) -> str:
    """A Plotly title as plain words: line breaks become spaces, tags go."""
    return " ".join(_TAG.sub(" ", str(text or "").replace("<br>", " ")).split())


def _values(trace, axis: str) -> np.ndarray | None:
    raw = getattr(trace, axis, None)
    if raw is None:
        return None
    try:
        values = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):  # words on an axis (a sentence's tokens): their order is their place
        return np.arange(len(raw), dtype=float) if len(raw) else None
    return values if values.size and np.isfinite(values).any() else None


def _pictured(fig) -> bool:
    """Whether the figure paints a heatmap as a picture (an image under a see-through heatmap for the hover): its values
    are then in the see-through heatmap laid over it for the hover, at every k-th row and column."""
    return any(trace.type == "image" for trace in fig.data)


def _drawn(fig) -> list:
    """The traces that draw data: not the invisible helpers (a colour bar's carrier, a hover layer), but the hover
    layer of a heatmap painted as a picture, which holds the picture's values."""
    out = []
    pictured = _pictured(fig)
    for trace in fig.data:
        hidden = getattr(trace, "opacity", None) == 0 and not (pictured and trace.type == "heatmap")
        if trace.type not in KINDS or hidden or getattr(trace, "visible", None) is False:
            continue
        if _values(trace, "z" if trace.type == "heatmap" else "y") is None:
            continue
        out.append(trace)
    return out


def _axis_title(fig, axis: str) -> str:
    layout_axis = getattr(fig.layout, axis, None)
    title = getattr(getattr(layout_axis, "title", None), "text", None) if layout_axis is not None else None
    return plain(title)


def _span(values: np.ndarray) -> str:
    lo, hi = np.nanmin(values), np.nanmax(values)
    return number(lo) if lo == hi else f"{number(lo)} to {number(hi)}"


def _names(traces: list) -> str:
    names = [plain(t.name) for t in traces if plain(t.name)]
    if not names:
        return ""
    shown = ", ".join(names[:NAMES_SHOWN]) + (f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else "")
    return f" ({shown})"


def figure_text(fig) -> str:
    """What a Plotly figure shows, in words, from its drawn traces: its title, how many series of how many
    points, each axis's title and range, and the highest and lowest point (which series, where). A heatmap:
    its rows and columns, the range of its values and where the largest is."""
    title = plain(fig.layout.title.text) if fig.layout.title and fig.layout.title.text else "A figure"
    traces = _drawn(fig)
    if not traces:
        return f"{title}. Nothing is drawn at these settings."
    kinds = sorted({KINDS[t.type] for t in traces})
    x_title, y_title = _axis_title(fig, "xaxis") or "x", _axis_title(fig, "yaxis") or "y"
    if traces[0].type == "heatmap":
        z = np.asarray(traces[0].z, dtype=float)
        row, col = np.unravel_index(np.nanargmax(z), z.shape)
        xs, ys = _values(traces[0], "x"), _values(traces[0], "y")
        at_x = number(xs[col]) if xs is not None and len(xs) == z.shape[1] else number(col)
        at_y = number(ys[row]) if ys is not None and len(ys) == z.shape[0] else number(row)
        kind = "A heatmap painted as a picture, its values read" if _pictured(fig) else "A heatmap"
        return (
            f"{title}. {kind} at {z.shape[0]} rows ({y_title}) by {z.shape[1]} columns ({x_title}), values {_span(z)}; "
            f"the largest, {number(np.nanmax(z))}, at {x_title} {at_x}, {y_title} {at_y}."
        )
    sizes = [len(_values(t, "y")) for t in traces]
    xs = [_values(t, "x") if _values(t, "x") is not None else np.arange(n, dtype=float) for t, n in zip(traces, sizes)]
    ys = [_values(t, "y") for t in traces]
    count = f"{sizes[0]} points" if len(set(sizes)) == 1 else f"{min(sizes)} to {max(sizes)} points"
    series = f"{len(traces)} series{_names(traces)} of {count} each" if len(traces) > 1 else f"{count}{_names(traces)}"
    all_x, all_y = np.concatenate(xs), np.concatenate(ys)
    words = [f"{title}. A {' and '.join(kinds)} of {series}: {x_title} {_span(all_x)}, {y_title} {_span(all_y)}"]
    if traces[0].type == "scatter3d":
        zs = np.concatenate([_values(t, "z") for t in traces if _values(t, "z") is not None] or [np.zeros(1)])
        z_title = plain(getattr(getattr(fig.layout.scene.zaxis, "title", None), "text", None)) or "z"
        words[0] += f", {z_title} {_span(zs)}"
    if np.nanmax(all_y) > np.nanmin(all_y):
        for label, reduce, pick in (("highest", np.nanmax, np.nanargmax), ("lowest", np.nanmin, np.nanargmin)):
            k = int(pick([reduce(y) if np.isfinite(y).any() else np.nan for y in ys]))  # the series that reaches it
            i = int(pick(ys[k]))
            who = f"{plain(traces[k].name)} " if len(traces) > 1 and plain(traces[k].name) else ""
            words.append(f"{label}: {who}{number(ys[k][i])} at {x_title} {number(xs[k][i])}")
    return "; ".join(words) + "."


def figure_csv(fig) -> str:
    """The drawn data of a Plotly figure as CSV, one row per point (per cell, for a heatmap): the series,
    then x, y (and z) under the axes' titles."""
    traces = _drawn(fig)
    x_title, y_title = _axis_title(fig, "xaxis") or "x", _axis_title(fig, "yaxis") or "y"
    out = io.StringIO()
    table = csv.writer(out, lineterminator="\n")
    if traces and traces[0].type == "heatmap":
        table.writerow(["series", x_title, y_title, plain(fig.layout.title.text) or "value"])
        for trace in traces:
            z = np.asarray(trace.z, dtype=float)
            xs = list(trace.x) if trace.x is not None else list(range(z.shape[1]))
            ys = list(trace.y) if trace.y is not None else list(range(z.shape[0]))
            for r, row in enumerate(z):
                table.writerows([plain(trace.name), xs[c], ys[r], repr(float(v))] for c, v in enumerate(row))
        return out.getvalue()
    three_d = any(t.type == "scatter3d" for t in traces)
    table.writerow(["series", x_title, y_title] + (["z"] if three_d else []))
    for trace in traces:
        y = list(trace.y)
        x = list(trace.x) if trace.x is not None else list(range(len(y)))
        z = list(trace.z) if three_d and trace.z is not None else None
        for i, (a, b) in enumerate(zip(x, y)):
            table.writerow([plain(trace.name), a, b] + ([z[i]] if z is not None else []))
    return out.getvalue()

