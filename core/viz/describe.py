"""A figure in words and as a table, from the arrays it draws: the text alternative a screen reader reads in place
of a chart (what is drawn, how much of it, its range, and where it peaks), and the drawn data as CSV.

`figure_text` and `figure_csv` read a Plotly figure's traces (lines, markers, bars, 3-D paths); heatmaps are not
Plotly figures here (the heatmap component says what it paints: ui/components/heatmap/).
"""

from __future__ import annotations

import csv
import html
import io
import re

import numpy as np

from core.viz.charts import number as _padded

_TAG = re.compile(r"<[^>]+>")
KINDS = {"scatter": "line chart", "scattergl": "line chart", "bar": "bar chart", "scatter3d": "3-D path"}
NAMES_SHOWN = 4  # series named in a sentence; the rest are counted


def number(x: float) -> str:
    """A number in a sentence: core.viz.charts.number's rule (whole numbers in full, else 4 significant digits,
    scientific only beyond 1e-4 to 1e15) without the zeros that pad it on screen (1, not 1.000; 0.1, not 0.1000;
    2.5e-7, not 2.500e-7)."""
    text = _padded(x)
    mantissa, e, power = text.partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + e + power


def range_text(panels: list[tuple[str, np.ndarray]]) -> str:
    """On one colour range on a log scale (core.viz.heatmap's log_scale), which drawn panel reaches furthest from 0 and
    which least (largest |value| of each, NaN cells left out), said with each one's own lowest and highest value and how
    many times smaller the least one is: it still shows, paler. '' with fewer than two panels holding values."""
    drawn = [(name, values[np.isfinite(values)]) for name, values in panels if np.isfinite(values).any()]
    if len(drawn) < 2:
        return ""
    peaks = [(name, float(np.max(np.abs(v))), f"{number(float(v.min()))} to {number(float(v.max()))}") for name, v in drawn]
    (top, high, top_span), (least, low, least_span) = max(peaks, key=lambda p: p[1]), min(peaks, key=lambda p: p[1])
    if high == 0:
        return "Every panel is 0 everywhere drawn."
    if low == 0:
        return f"{least} is 0 everywhere drawn; {top} runs from {top_span}."
    if low * 10 >= high:
        return f"Every panel's largest size lies between {number(low)} and {number(high)}, so the colours compare sizes across them."
    return f"{top} runs from {top_span} and {least} only from {least_span}, {high / low:,.0f} times smaller: on this log scale it still shows, paler."


def plain(text: object) -> str:
    """A Plotly title as plain words: line breaks become spaces, tags go, and entities are the characters
    they stand for (a visitor's `<` reaches Plotly as `&lt;`: core.viz.charts.literal)."""
    return html.unescape(" ".join(_TAG.sub(" ", str(text or "").replace("<br>", " ")).split()))


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet read a cell as a formula (OWASP's list)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", re.IGNORECASE)


def csv_cell(value: object) -> object:
    """A cell as a spreadsheet may safely open it (OWASP's rule against CSV injection): text that
    starts like a formula gets a single quote in front, so it reads as the text it is; a number, or
    text that is a number (-0.5), stays as it is. Text cells are quoted by `figure_csv`'s writer."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def _values(trace, axis: str) -> np.ndarray | None:
    raw = getattr(trace, axis, None)
    if raw is None:
        return None
    try:
        values = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):  # words on an axis (a sentence's tokens): their order is their place
        return np.arange(len(raw), dtype=float) if len(raw) else None
    return values if values.size and np.isfinite(values).any() else None


def _drawn(fig) -> list:
    """The traces that draw data: not the invisible helpers (a colour bar's carrier, a see-through layer)."""
    out = []
    for trace in fig.data:
        if trace.type not in KINDS or getattr(trace, "opacity", None) == 0 or getattr(trace, "visible", None) is False:
            continue
        if _values(trace, "y") is None:
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
    points, each axis's title and range, and the highest and lowest point (which series, where)."""
    title = plain(fig.layout.title.text) if fig.layout.title and fig.layout.title.text else "A figure"
    traces = _drawn(fig)
    if not traces:
        return f"{title}. Nothing is drawn at these settings."
    kinds = sorted({KINDS[t.type] for t in traces})
    x_title, y_title = _axis_title(fig, "xaxis") or "x", _axis_title(fig, "yaxis") or "y"
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
    """The drawn data of a Plotly figure as CSV, one row per point: the series,
    then x, y (and z) under the axes' titles. Text is written as it reads (no entities), quoted, and
    never as a formula (`csv_cell`)."""
    traces = _drawn(fig)
    x_title, y_title = _axis_title(fig, "xaxis") or "x", _axis_title(fig, "yaxis") or "y"
    out = io.StringIO()
    table = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)  # every text cell quoted, numbers bare
    three_d = any(t.type == "scatter3d" for t in traces)
    table.writerow([csv_cell(cell) for cell in ["series", x_title, y_title] + (["z"] if three_d else [])])
    for trace in traces:
        y = list(trace.y)
        x = list(trace.x) if trace.x is not None else list(range(len(y)))
        z = list(trace.z) if three_d and trace.z is not None else None
        for i, (a, b) in enumerate(zip(x, y)):
            table.writerow([csv_cell(cell) for cell in [plain(trace.name), a, b] + ([z[i]] if z is not None else [])])
    return out.getvalue()

