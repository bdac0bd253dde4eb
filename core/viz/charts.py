"""Plotly figure builders. Pages pass arrays and words; these return finished figures.

One diverging, colour-blind-safe scale (ColorBrewer RdBu, blue negative, red positive,
white at zero) for every signed quantity, and one sequential scale (viridis) for quantities
that cannot be negative. Every figure gets a title saying what it shows, labelled axes, and
the sampling note when it shows a sample.

Plotly draws lines, scatter and bars; every heatmap is painted by the browser component
(core.viz.heatmap says what it shows, ui/heatmap.py paints it).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from core.viz import palette
from core.viz import plotly_internals as private
from core.viz.memo import shared
from core.viz import wire
from core.viz.grid import ordinal

DIVERGING = "RdBu_r"
SEQUENTIAL = "Viridis"
LINE_COLOURS = palette.LINES  # a figure's lines in order, where they name nothing the palette colours
VALUE_DIGITS = 6  # significant digits of a value on hover
VALUE_FORMAT = f".{VALUE_DIGITS}~g"  # in d3's format: trailing zeros dropped (d3's ~: cos 0 reads 1, not 1.00000)
COORD_FORMAT = ".4~g"  # a point's coordinates on hover, likewise
FONT = dict(family="Inter, Source Sans Pro, sans-serif", size=13)
# Light or dark is the visitor's choice, made in the browser after the figure is built: a figure is built as the light
# theme shows it (white, as its PNG download keeps it), its grid and axis lines in a grey that reads on either, and
# its text in THEMED_TEXT, a colour that ui/assets/app.css redraws in the theme's text colour (as it redraws the white
# background, palette.MARK, a label's backing LABEL_BACKING and Okabe-Ito's black in the dark theme's colours).
THEMED_TEXT = "#111418"  # the light theme's text colour: what a figure shows wherever CSS does not reach (a PNG download)
LABEL_BACKING = "rgba(255,255,255,0.8)"  # behind a mark's label, so the lines under it do not cross its words
GRID, AXIS_LINE = "rgba(128,128,128,0.2)", "rgba(128,128,128,0.55)"
_AXIS = dict(gridcolor=GRID, zerolinecolor=AXIS_LINE, linecolor=AXIS_LINE, showline=True, ticks="outside", tickcolor=AXIS_LINE, automargin=True)
# The style is written into each figure's layout, not carried by a template. Streamlit's
# chart element re-sends a figure to plotly.js right after drawing it (a copy made through
# JSON); plotly.js draws the whole figure again when the copy has a template (it cannot tell
# a copied template from a new one) or a data array given as a typed array, unless
# layout.datarevision says the data are the same. So figures carry no template, scatter
# data go as plain lists, and datarevision is a digest of the data.
# The mode bar (shown while the pointer is over a figure) stands as a column at the figure's right edge, not a row across
# its top where the title is; without the buttons these figures have no use for (box and lasso selection, spike lines,
# hover modes; autoscale and zoom in / out, which the home button and box zoom do) it is a short column, four buttons
# under Streamlit's full-screen one, over the title band and the top corner of the plot.
MODEBAR = dict(
    orientation="v",
    remove=["select2d", "lasso2d", "autoScale2d", "zoomIn2d", "zoomOut2d", "toggleSpikelines", "hoverClosestCartesian", "hoverCompareCartesian"],
)
STYLE = dict(
    paper_bgcolor="white",
    plot_bgcolor="white",
    font=dict(FONT, color=THEMED_TEXT),
    colorway=list(LINE_COLOURS),
    hoverlabel=dict(font=dict(size=12)),
    modebar=MODEBAR,
)
_NO_TEMPLATE = go.layout.Template()  # given at construction, so plotly.py does not apply its default (~10 ms), then removed
_AXIS_KEY = re.compile(r"[xy]axis\d*$")


Mark = tuple  # (value, label) or (value, label, colour): a dashed reference line


MARK_FONT_PX = 11  # a reference mark's label
MARK_CHAR_PX = 6.2  # width of an average character of a mark's label
MARK_LINE_PX = 14  # height of a mark's label, with a little air


def _span(traces: Sequence, axis: str, marks: Sequence[Mark], fixed: Sequence[float] | None, log: bool) -> tuple[float, float] | None:
    """The data range an axis will show (on a log axis in decades): its fixed range when it has
    one, else the extent of the traces' numeric values on it and of its marks."""
    if fixed is not None:  # plotly.js takes a range either way round (a reversed axis)
        return float(min(fixed[0], fixed[1])), float(max(fixed[0], fixed[1]))
    values = [float(m[0]) for m in marks]
    for trace in traces:
        raw = getattr(trace, axis, None)
        if raw is None:
            continue
        try:
            arr = np.asarray(raw, dtype=float).ravel()
        except (TypeError, ValueError):
            continue  # words on a category axis: no marks go there
        arr = arr[np.isfinite(arr) & (arr > 0)] if log else arr[np.isfinite(arr)]  # a log axis shows no zero: its span starts at the least positive value
        if arr.size:
            values += [float(arr.min()), float(arr.max())]
    if log:
        values = [float(np.log10(v)) for v in values if v > 0]
    return (min(values), max(values)) if values else None


def _place_labels(spans: list[tuple[float, float]], options: int) -> list[int]:
    """Greedy placement of labels that each cover `spans` (pixel intervals along the axis, in
    value order) in one of `options` slots: each label takes the first slot in which it meets
    no label already placed in that slot. Returns each label's slot (the last when all meet
    one)."""
    placed: list[list[tuple[float, float]]] = [[] for _ in range(options)]
    slots = []
    for lo, hi in spans:
        for slot in range(options):
            if all(hi <= a or lo >= b for a, b in placed[slot]):
                break
        placed[slot].append((lo, hi))
        slots.append(slot)
    return slots


def _marks(
    x_marks: Sequence[Mark],
    y_marks: Sequence[Mark],
    *,
    log_x: bool = False,
    log_y: bool = False,
    x_span: tuple[float, float] | None = None,
    y_span: tuple[float, float] | None = None,
    plot_px: tuple[float, float] = (780.0, 300.0),
    points: Sequence[tuple[np.ndarray, np.ndarray, bool]] = (),
) -> tuple[list[dict], list[dict]]:
    """Dashed lines across the plot with a small label, as plain layout shapes and annotations
    (Plotly's add_vline/add_hline re-validate the whole figure each call: ~10 ms apiece).
    On a log axis plotly.js places a shape at the data value but an annotation at its
    exponent, hence `log_x` and `log_y`.

    Labels of marks close together would be drawn over each other (an original context of 2,048
    and a band edge at 2,650 are 20 pixels apart on a log axis of four decades), so each is
    placed where it meets no other, given the axis' data range (`x_span`, `y_span`, in decades
    on a log axis) and the plot's estimated size in pixels: an x mark's label goes above the
    plot, else just inside its top edge, a row lower each time. A y mark's label sits above its
    line at the left, else at the right, else below it at the left or the right, else further in
    (by a fraction of the plot's width, so that in a wider plot it lies on the same data): the first
    of these places inside the plot where it covers no other label, no other mark's line and none
    of the drawn data (`points`: each trace's (x, y, joined by a line), placed with `x_span`); where
    none is free, the one inside the plot and clear of the labels that covers fewest lines and dots;
    where there is none, the line goes unlabelled."""
    shapes, labels = [], []
    width_px, height_px = plot_px

    def where(value: float, span: tuple[float, float] | None, log: bool, px: float) -> float:
        v = float(np.log10(value)) if log and value > 0 else float(value)
        if span is None or span[1] <= span[0]:
            return 0.0
        return (v - span[0]) / (span[1] - span[0]) * px

    order = sorted(range(len(x_marks)), key=lambda k: float(x_marks[k][0]))
    spans = []
    for k in order:  # an x label is centred on its line, as wide as its text
        at, half = where(x_marks[k][0], x_span, log_x, width_px), MARK_CHAR_PX * len(str(x_marks[k][1])) / 2 + 3
        spans.append((at - half, at + half))
    slot_of = dict(zip(order, _place_labels(spans, 4)))
    for k, (value, text, *rest) in enumerate(x_marks):
        colour = rest[0] if rest else palette.MARK
        shapes.append(dict(type="line", xref="x", yref="paper", x0=value, x1=value, y0=0, y1=1, line=dict(color=colour, dash="dash", width=1.5)))
        label = dict(
            xref="x", yref="paper", x=float(np.log10(value)) if log_x else value, y=1.0, text=text, showarrow=False, font=dict(size=MARK_FONT_PX, color=colour)
        )
        if slot_of[k] == 0:  # above the plot
            label["yanchor"] = "bottom"
        else:  # inside its top edge, a row lower for each further slot, on white to stay legible over the data
            label.update(yanchor="top", yshift=-MARK_LINE_PX * (slot_of[k] - 1), bgcolor=LABEL_BACKING)
        labels.append(label)
    if y_marks:
        y_shapes, y_labels = _y_marks(y_marks, log_x, log_y, x_span, y_span, plot_px, points)
        shapes += y_shapes
        labels += y_labels
    return shapes, labels


def _pixels(values: np.ndarray, span: tuple[float, float] | None, log: bool, px: float) -> np.ndarray:
    """Where values fall along an axis of `px` pixels showing `span` (in decades on a log axis); NaN where they cannot be shown."""
    v = np.asarray(values, dtype=np.float64)
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.where(v > 0, np.log10(np.where(v > 0, v, 1.0)), np.nan)
    if span is None or span[1] <= span[0]:
        return np.where(np.isfinite(v), px / 2, np.nan)
    return (v - span[0]) / (span[1] - span[0]) * px


def _y_marks(marks, log_x: bool, log_y: bool, x_span, y_span, plot_px, points) -> tuple[list[dict], list[dict]]:
    """The lines and labels of the y marks (see _marks): each label at the first free place."""
    width_px, height_px = plot_px
    at = [float(_pixels(np.array([m[0]]), y_span, log_y, height_px)[0]) for m in marks]
    # the drawn data in pixels, a line's segments walked every 4 pixels (a label on a line is as bad as on a dot)
    dots = []
    for xs, ys, joined in points:
        px_x, px_y = _pixels(xs, x_span, log_x, width_px), _pixels(ys, y_span, log_y, height_px)
        keep = np.isfinite(px_x) & np.isfinite(px_y)
        if joined and px_x.size > 1:
            a, b = np.stack([px_x[:-1], px_y[:-1]], 1), np.stack([px_x[1:], px_y[1:]], 1)
            ok = np.isfinite(a).all(1) & np.isfinite(b).all(1)
            a, b = a[ok], b[ok]
            steps = np.minimum(np.ceil(np.hypot(*(b - a).T) / 4).astype(int) + 1, 200) if a.size else np.zeros(0, int)
            for (ax, ay), (bx, by), n in zip(a, b, steps):
                t = np.linspace(0.0, 1.0, n)
                dots.append(np.stack([ax + t * (bx - ax), ay + t * (by - ay)], 1))
        dots.append(np.stack([px_x[keep], px_y[keep]], 1))
    data = np.concatenate(dots) if dots else np.zeros((0, 2))
    lines = [str(m[1]).split("<br>") for m in marks]  # a label may be broken into lines
    widest = max(MARK_CHAR_PX * max(map(len, rows)) for rows in lines) + 12
    # (right end?, above the line?, fraction of the plot's width in from the end): an inset as a fraction of the width
    # lands on the same data in any plot as wide as `plot_px` or wider, where a fixed pixel shift would land on other dots
    places = [(right, above, inset) for inset in (0.0, widest / width_px) for above in (True, False) for right in (False, True)]
    taken: list[tuple[float, float, float, float]] = []
    shapes, labels = [{} for _ in marks], [{} for _ in marks]  # in the marks' order, placed in value order
    for k in sorted(range(len(marks)), key=lambda k: float(marks[k][0])):
        value, text, *rest = marks[k]
        colour = rest[0] if rest else palette.MARK
        shapes[k] = dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=value, y1=value, line=dict(color=colour, dash="dash", width=1.5))
        if not text:
            continue
        wide, tall = MARK_CHAR_PX * max(map(len, lines[k])) + 6, MARK_LINE_PX * len(lines[k])

        def box(place) -> tuple[float, float, float, float]:
            right, above, inset = place
            x0 = width_px * (1 - inset) - wide if right else width_px * inset
            return (x0, x0 + wide, *((at[k], at[k] + tall) if above else (at[k] - tall, at[k])))

        def covers(place) -> tuple[int, int]:
            """(past the plot's edges or over a label placed already, lines and dots under it): the first is never drawn."""
            x0, x1, y0, y1 = box(place)
            clash = int(x0 < 0 or x1 > width_px) + sum(1 for a, b, c, d in taken if x0 < b and a < x1 and y0 < d and c < y1)
            hits = sum(1 for j, y in enumerate(at) if j != k and y0 + 1 < y < y1 - 1)  # another mark's line through it
            if data.size:
                hits += int(np.count_nonzero((data[:, 0] > x0) & (data[:, 0] < x1) & (data[:, 1] > y0) & (data[:, 1] < y1)))
            return clash, hits

        cost = {place: covers(place) for place in places}
        best = min(places, key=cost.__getitem__)  # the first of the places that cover least
        if cost[best][0]:  # no place inside the plot clear of the labels: the line alone (its value is named elsewhere on the page)
            continue
        taken.append(box(best))
        right, above, inset = best
        labels[k] = dict(
            xref="paper",
            yref="y",
            x=1.0 - inset if right else inset,
            y=float(np.log10(value)) if log_y and value > 0 else value,
            text=text,
            showarrow=False,
            xanchor="right" if right else "left",
            align="right" if right else "left",  # the lines of a broken label flush with the end it sits at
            yanchor="bottom" if above else "top",
            font=dict(size=MARK_FONT_PX, color=colour),
        )
    return shapes, [label for label in labels if label]


# Margins. Every axis keeps automargin (labels are never cut off), but plotly.js draws a
# figure twice when the labels, the colour bar or the legend need more room than the margins
# ask for: it measures them on a first pass, then draws everything again with wider margins.
# That second pass was about half the browser's time per chart. So the margins asked for
# here are estimates of what those parts need, a little generous, for a chart 820 pixels
# wide (a 1280-pixel window with the sidebar open); when an estimate falls short (long
# tick labels, a narrow window) plotly.js still widens the margin and draws twice.
CHART_PX = 820  # the chart width the margins are estimated for (see above)
X_ROOM = 58  # pixels under the plot for x tick labels and the axis title (log axes: +6, superscripts)
LEGEND_WIDTH = 740  # pixels a horizontal legend may fill before it wraps to another row
CHAR_PX = 6.5  # width of an average character at the 13-pixel font (tick labels, names)
# a title line's length: plotly.js does not wrap titles; its 18-pixel title font takes about 7.7 pixels a
# character (measured in Chromium), so 112 characters take 860 pixels: the width of a chart at 1,440 pixels with the
# sidebar open (980) less the mode bar's column at its right edge. In a narrower column the page sets the title as
# text that wraps to the column instead (ui.display.plot; ui/assets/app.css switches at TITLE_COLUMN_PX)
TITLE_CHARS = 112
TITLE_COLUMN_PX = 900  # the narrowest column that shows plotly.js's own title: TITLE_CHARS characters and the mode bar beside them
NOTE_CHARS = 110  # the small print under a title is about 70 % of its size: more characters to a line
NOTE_LINE_PX = 16  # what each further line of the small print adds to the top margin
TITLE_LINE_PX = 23  # what each further title line adds to the top margin (the first line stays where a one-line title sits, the others hang below it)
AXIS_TITLE_CHAR_PX = 8.0  # width of an average axis-title character (plotly.js: 1.2 x the 13-pixel font); a longer rotated y title is wrapped
AXIS_TITLE_LINE_PX = 20  # what each further line of a wrapped y title adds to the left margin
# Every marker is an SVG element of its own, styled one by one, and a path of a few hundred
# coloured dots cost more than the rest of its figure. Lines run through every point (hover
# finds each one); plotly.js draws the dots of at most MAX_DOTS points per trace, evenly
# spread, and all of them once the user zooms in far enough.
MAX_DOTS = 128
TICKS = 8  # tick labels per axis at most; on a small panel, 4


_SUBSCRIPTS = str.maketrans("0123456789+-=()abcdeghijklmnoprstuvxyzδ", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐbcdₑgₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓyzδ")


def literal(text: str) -> str:
    """A visitor's text (a tensor's name from an upload) as a Plotly title or series name shows it,
    literally: Plotly draws <a href>, <b>, <br> and entities in those, and $...$ as LaTeX; escaped,
    they are text. Only for Plotly: the heatmap component writes its words as text already."""
    return html.escape(text, quote=False).replace("$", "&#36;")


def subscript(text: object) -> str:
    """Plain text as Unicode subscripts, for titles and captions (which do not render TeX):
    subscript(5) -> '₅', subscript("n+δ") -> 'ₙ₊δ'. Characters without a subscript form stay as they are."""
    return str(text).translate(_SUBSCRIPTS)


def number(x: float, digits: int = 4) -> str:
    """A number on screen, the app's one rule: a whole number too long for `digits` in full below 1e15, thousands
    separated (131,072, not 131,100); any other to `digits` significant digits (39.00, 0.1000), thousands separated, with no exponent between 1e-4 and 1e15
    (60,610 rather than 6.061e+04); beyond them scientific, its exponent unpadded as a hover writes it (2.500e-7, 1.000e+15).
    The exact value belongs in a hover or a table. `hover_format` is the same rule for Plotly's hover."""
    x = float(x)
    if not np.isfinite(x) or x == 0:
        return "0" if x == 0 else str(x)
    exponent = int(np.floor(np.log10(abs(x))))
    if not -4 <= exponent < 15:
        mantissa, power = f"{x:.{digits - 1}e}".split("e")
        return f"{mantissa}e{int(power):+d}"
    if x.is_integer() and exponent >= digits:  # a whole number that the digits would round (a position, a count): in full
        return f"{int(x):,}"
    decimals = digits - 1 - exponent
    rounded = round(x, decimals)
    if rounded and int(np.floor(np.log10(abs(rounded)))) > exponent:  # 0.99999 rounds up to 1.000, one digit fewer after the point
        decimals -= 1
        rounded = round(x, decimals)
    return f"{rounded:,.{max(decimals, 0)}f}"


def hover_format(values) -> str:
    """The d3 format of a hover over these values, by `number`'s rule with VALUE_DIGITS digits and no trailing zeros
    (a hover is where the exact value is read): whole numbers in full (',d'), others in decimals (',.6~r'), scientific
    ('.6~g') only when a value lies beyond 1e-4 to 1e15. Empty or non-numeric values get the decimal form."""
    try:
        v = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return f",.{VALUE_DIGITS}~r"
    v = np.abs(v[np.isfinite(v) & (v != 0)])
    v = v[v >= v.max() * 1e-12] if v.size else v  # rounding's residue next to 1 (sin π = 1.2e-16) is a zero, not a scale
    if v.size and (v.max() >= 1e15 or v.min() < 1e-4):
        return VALUE_FORMAT
    return ",d" if v.size and np.all(v == np.round(v)) else f",.{VALUE_DIGITS}~r"


def nice_steps(up_to: float) -> list[int]:
    """The whole steps of the form 1, 2 or 5 x 10^k, in order, up to the first at least `up_to`:
    the steps a tick may take (1, 2, 5, 10, 20, 50, ...)."""
    steps = [1]
    while steps[-1] < up_to:
        steps.append(steps[-1] * 5 // 2 if str(steps[-1])[0] == "2" else steps[-1] * 2)  # 1 -> 2 -> 5 -> 10 -> 20 ...
    return steps


def nice_step(span: float, most: int = TICKS) -> int:
    """The smallest whole step of the form 1, 2 or 5 x 10^k that cuts `span` into at most `most` parts."""
    return next(step for step in nice_steps(span / most) if span / step <= most)


def integer_ticks(lo: float, hi: float, most: int = TICKS) -> list[int]:
    """Whole-number tick values in [lo, hi], multiples of a nice step (positions, dimensions,
    heads and tokens never sit at 0.5)."""
    lo, hi = int(np.ceil(lo)), int(np.floor(hi))
    if hi < lo:
        return []
    step = nice_step(hi - lo, most)
    first = -(-lo // step) * step
    return list(range(first, hi + 1, step))


def log_ticks(lo: float, hi: float, most: int = TICKS) -> list[float]:
    """Tick values for a log axis over [lo, hi] (lo > 0), each to be labelled in full (20, 30, 50 rather than
    plotly.js's lone 2, 3, 5 between decades): 1-2-3-5 per decade when they fit, then 1-2-5, 1-3, 1 (never 6, 7, 8, 9:
    they crowd the top of a decade into '10 9 8 7 6')."""
    first, last = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    values: list[float] = []
    for mantissas in ((1, 2, 3, 5), (1, 2, 5), (1, 3), (1,)):
        values = [float(f"{m * 10.0**k:.12g}") for k in range(first, last + 1) for m in mantissas if lo <= m * 10.0**k <= hi]
        if len(values) <= most:
            break
    return values


_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def log_labels(values: Sequence[float]) -> list[str]:
    """A log axis's tick labels in one format: in full (0.001, 20, 50,000) when every tick lies in 0.001 .. 999,999, else
    every tick as a power of ten (10³, 2×10⁶, 10⁻⁵), so '100,000' never stands beside '10⁶' on one axis."""
    if all(1e-3 <= v < 1e6 for v in values):
        return [f"{v:,.10g}" for v in values]
    said = []
    for v in values:
        exponent = int(np.floor(np.log10(v) + 1e-9))
        mantissa, power = float(f"{v / 10.0**exponent:.3g}"), "10" + str(exponent).translate(_SUPERSCRIPTS)
        said.append(power if mantissa == 1 else f"{mantissa:g}×{power}")
    return said


def log_axis_ticks(lo: float, hi: float, most: int = TICKS + 2) -> list[float]:
    """The labelled ticks of a log axis over [lo, hi] (lo > 0): under three decades `log_ticks` (1 to 9,
    1-2-3-5, 1-2-5 or 1-3 per decade), else whole decades, every k-th when more than `most`; never
    plotly.js's lone minor labels (2, 5 between decades)."""
    if hi < 1000 * lo:
        ticks = log_ticks(lo, hi, most)
        if len(ticks) >= 2:
            return ticks
    first, last = int(np.ceil(np.log10(lo) - 1e-9)), int(np.floor(np.log10(hi) + 1e-9))
    if last < first:  # inside one decade with no tick from log_ticks: its ends
        return [float(f"{lo:.2g}"), float(f"{hi:.2g}")]
    step = max(1, -(-(last - first + 1) // most))
    return [float(f"1e{k}") for k in range(first, last + 1, step)]


def _dot_stride(n: int) -> int:
    """Every how many points plotly.js draws a dot when a trace of n points has MAX_DOTS."""
    return max(1, -(-n // MAX_DOTS))


def _dots_note(n: int, noun: str = "position") -> str:
    """'dots on every 4th position (zoom in for all)', or '' when every point has its dot."""
    stride = _dot_stride(n)
    return "" if stride == 1 else f"dots on every {ordinal(stride)} {noun}, the line through all (zoom in for every dot)"


def _colour_bar_title(traces: Sequence) -> str | None:
    """The title of the colour bar at the figure's right edge (a scatter's markers coloured by a
    scale), the last one shown ('' untitled), or None when it shows none."""
    for trace in reversed(traces):
        marker = getattr(trace, "marker", None)
        if marker is not None and marker.showscale:
            return marker.colorbar.title.text or ""
    return None


def _legend_rows(names: Sequence[str]) -> int:
    """Rows a horizontal legend of these names fills, packed greedily into LEGEND_WIDTH."""
    rows, used = 1, 0.0
    for name in names:
        width = 40 + CHAR_PX * len(name)  # the line sample, gaps, the text
        if used and used + width > LEGEND_WIDTH:
            rows, used = rows + 1, 0.0
        used += width
    return rows


def _margins(traces: Sequence, axes: dict[str, dict], legend_names: Sequence[str], top: int) -> tuple[dict, float]:
    """Margins that hold the tick labels, axis titles, colour bar and legend on the first
    pass (see X_ROOM above), and the legend's height below the plot in pixels."""
    y_axes = [a for k, a in axes.items() if k.startswith("yaxis")]
    x_axes = [a for k, a in axes.items() if k.startswith("xaxis")]
    left = 80 if any(a.get("type") == "log" for a in y_axes) else 76
    words = [len(str(t)) for a in y_axes for t in (a.get("ticktext") or [])]
    if words:
        left = max(left, 40 + CHAR_PX * max(words))
    bar = _colour_bar_title(traces)
    right = 20 if bar is None else max(116, 50 + 8 * len(bar))
    x_room = X_ROOM + (6 if any(a.get("type") == "log" for a in x_axes) else 0)
    words = [len(str(t)) for a in x_axes for t in (a.get("ticktext") or [])]
    if words:  # word ticks under narrow panels are turned by 30 degrees
        x_room = max(x_room, 44 + 0.5 * CHAR_PX * max(words))
    legend_px = 42 + 19 * (_legend_rows(legend_names) - 1) if legend_names else 0
    bottom = x_room + legend_px + (4 if legend_names else 0)
    return dict(l=round(left), r=round(right), t=top, b=round(bottom)), x_room


def wrap_title(text: str, limit: int = TITLE_CHARS) -> list[str]:
    """The title in lines of at most `limit` characters, broken at spaces, each filled as far as it
    goes (a title balanced into equal halves took half the chart's width), except that the last
    line keeps at least a quarter of `limit` (no lone last word); a word longer than `limit` keeps a
    line to itself: plotly.js would cut a long title off at the chart's right edge."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= limit:
            lines[-1] += " " + word
        else:
            lines.append(word)
    while len(lines) > 1 and len(lines[-1]) < limit // 4:
        head, _, word = lines[-2].rpartition(" ")
        if not head or len(word) + 1 + len(lines[-1]) > limit:
            break
        lines[-2], lines[-1] = head, word + " " + lines[-1]
    return lines


def _figure(
    traces: list,
    *,
    title: str,
    note: str = "",
    height: int = 380,
    x_title: str | None = None,
    y_title: str | None = None,
    legend: bool = False,
    x_marks: Sequence[Mark] = (),
    y_marks: Sequence[Mark] = (),
    marks_px: tuple[float, float] | None = None,
    top: int = 0,
    **layout,
) -> go.Figure:
    """Build the figure in one go: title (wrapped into lines, with the sampling note under it),
    axis titles, size, margins, our style, optional legend under the plot and reference marks.
    `layout` adds or overrides layout keys (axes are merged). One go.Figure call, without
    plotly.py's validation (see below), instead of one per update_* call."""
    lines = wrap_title(title)
    notes = wrap_title(note, NOTE_CHARS) if note else []  # a long note would be cut off at the right edge like a long title
    full = "<br>".join(lines) + "".join(f"<br><sup>{line}</sup>" for line in notes)
    first = 70 if note else 50  # the top margin of a one-line title, which plotly.js centres in it
    top += title_band(full)
    base: dict = dict(
        STYLE,
        title=dict(text=full, x=0.0, xanchor="left", y=1.0 - first / 2 / (height + (40 if legend else 0)), yref="container", yanchor="middle"),
        height=height + (40 if legend else 0),
        template=_NO_TEMPLATE,
        showlegend=legend,
    )
    extra_annotations = list(layout.pop("annotations", []))
    for axis, text in (("xaxis", x_title), ("yaxis", y_title)):
        merged = dict(layout.pop(axis, {}))
        if text is not None:
            merged["title"] = dict(text=text)
        base[axis] = merged
    base.update(layout)
    for letter in "xy":  # a hover's numbers by the rule of the numbers in the words (`number`): 54,410, not 5.441e+4
        axis = base.setdefault(f"{letter}axis", {})
        if "hoverformat" not in axis and axis.get("type") not in ("category", "date"):
            try:
                on_axis = [np.asarray(v, dtype=float).ravel() for t in traces if (getattr(t, f"{letter}axis", None) or letter) == letter
                           for v in [getattr(t, letter, None)] if v is not None]
            except (TypeError, ValueError):  # words along the axis: nothing to format
                continue
            axis["hoverformat"] = hover_format(np.concatenate(on_axis) if on_axis else [])
    for key in [k for k in base if _AXIS_KEY.match(k)]:
        base[key] = {**_AXIS, **base[key]}
    for letter, marks in (("x", x_marks), ("y", y_marks)):  # a log axis labelled in full, by decades or 1-2-5
        axis = base.get(f"{letter}axis", {})
        if axis.get("type") == "log" and "tickvals" not in axis:
            span = _span([t for t in traces if (getattr(t, f"{letter}axis", None) or letter) == letter], letter, marks, axis.get("range"), True)
            if span is not None:
                ticks = log_axis_ticks(10.0 ** span[0], 10.0 ** span[1])
                axis.update(tickmode="array", tickvals=ticks, ticktext=log_labels(ticks))
    names = [t.name or "" for t in traces if legend and t.showlegend is not False]
    margin, x_room = _margins(traces, {k: v for k, v in base.items() if k[1:5] == "axis"}, names, top)
    base["margin"] = margin
    plot_px = max(base["height"] - margin["t"] - margin["b"], 1)  # the plot's height in pixels
    if y_title and len(y_title) * AXIS_TITLE_CHAR_PX > plot_px:  # a y title taller than the plot runs into the title above it: wrap it
        y_lines = wrap_title(y_title, max(int(plot_px / AXIS_TITLE_CHAR_PX), 8))
        base["yaxis"]["title"] = dict(text="<br>".join(y_lines))
        margin["l"] += AXIS_TITLE_LINE_PX * (len(y_lines) - 1)
    log_x, log_y = (base.get(a, {}).get("type") == "log" for a in ("xaxis", "yaxis"))
    shapes, labels = _marks(
        x_marks,
        y_marks,
        log_x=log_x,
        log_y=log_y,
        x_span=_span(traces, "x", x_marks, base.get("xaxis", {}).get("range"), log_x) if x_marks or y_marks else None,
        y_span=_span(traces, "y", y_marks, base.get("yaxis", {}).get("range"), log_y) if y_marks else None,
        plot_px=marks_px or (CHART_PX - margin["l"] - margin["r"], plot_px),
        points=_drawn_points(traces) if y_marks else (),
    )
    base["shapes"] = shapes
    base["annotations"] = labels + extra_annotations
    if legend:  # at the figure's foot, under the x axis title: plotly.js adds a bottom-anchored legend's height to
        # the room the axis needs, so a legend that wraps into more rows in a narrow column pushes the plot up
        # rather than running into the axis title (placed below the plot in its units, it moved up as the plot shrank)
        base["legend"] = dict(orientation="h", yref="container", yanchor="bottom", y=0.0, xanchor="left", x=0.0)
    base["datarevision"] = wire.digest(traces)
    # Built without plotly.py's validation, which took over half of a 12-panel figure's build
    # (it checks every key of every axis against the schema): the traces were validated when
    # they were made (go.Scatter(...), go.Bar(...)), and the layout is written here in
    # plain nested keys (no "title_text" shorthand, no None; tests/core/test_charts.py checks
    # the result against a validated build).
    fig = private.unvalidated(wire.Figure, traces, _plain_layout(base))
    fig.layout.template = None
    return fig


def _drawn_points(traces: Sequence) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """Each 2-D trace's numeric (x, y) and whether a line joins them (what a mark's label must not cover)."""
    out = []
    for trace in traces:
        if trace.type not in ("scatter", "scattergl") or trace.x is None or trace.y is None:
            continue
        try:
            xs, ys = np.asarray(trace.x, dtype=np.float64), np.asarray(trace.y, dtype=np.float64)
        except (TypeError, ValueError):  # words on an axis
            continue
        out.append((xs, ys, "lines" in (trace.mode or "lines") and trace.fill is None))
    return out


def title_band(title: str) -> int:
    """The pixels at the top of a figure that its title takes, the small print under it included, from the
    title's text as `figure` writes it (lines joined by <br>, the small print's lines in <sup>): the top margin of a
    one-line title (50, or 70 with small print), and what each further line adds. Where the figure is too narrow for
    its title, the page covers this band with the title set as text, which wraps (ui.display.plot)."""
    parts = title.split("<br>")
    notes = sum(part.startswith("<sup>") for part in parts)
    lines = len(parts) - notes
    return (70 if notes else 50) + TITLE_LINE_PX * (lines - 1) + NOTE_LINE_PX * max(notes - 1, 0)


def _plain_layout(layout: dict) -> dict:
    """The layout as plotly.js reads it: an axis's "title_text" shorthand as title.text, and
    keys set to None or to an empty list dropped (what validation would do)."""
    out = {}
    for key, value in layout.items():
        if value is None or (isinstance(value, list) and not value):
            continue
        if _AXIS_KEY.match(key) and isinstance(value, dict):
            value = {k: v for k, v in value.items() if v is not None}
            text = value.pop("title_text", None)
            if text is not None:
                value["title"] = {**value.get("title", {}), "text": text}
        out[key] = value
    return out


@shared
def lines(
    series: Sequence[tuple[str, np.ndarray, np.ndarray]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    note: str = "",
    log_x: bool = False,
    log_y: bool = False,
    markers: bool = False,
    points: bool = False,
    steps: bool = False,
    x_range: tuple[float, float] | None = None,
    y_range: tuple[float, float] | None = None,
    x_marks: Sequence[Mark] = (),
    y_marks: Sequence[Mark] = (),
    height: int = 380,
    integer_x: bool | None = None,
    integer_y: bool = False,
    dots: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
    colours: Sequence[str] | None = None,
    dashes: Sequence[str] | None = None,
    spreads: Sequence[np.ndarray | None] | None = None,
    symbols: Sequence[tuple[str, int] | None] | None = None,
    marks_px: tuple[float, float] | None = None,
) -> go.Figure:
    """One line per (name, x, y) in Okabe-Ito colours in order, or in `colours` (one per series,
    from core.viz.palette where the series names a scheme, a region or a recurring series), solid
    or in `dashes`; the legend sits under the plot when
    there is more than one (`points`: markers only, for per-pair values; `steps`: a staircase,
    each value held until the next x, for a step function; NaN breaks a line). `y_range` fixes
    the y axis, so rounding noise on a constant is not blown up to full height. Marks are
    dashed reference lines (value, label[, colour]). An axis of whole numbers (positions, heads,
    buckets: `integer_x`, by default when every x is whole; `integer_y`) gets whole-number ticks.
    `dots`, one (x, y) per series, puts markers at those points only (the integer positions of a
    curve drawn through fractional ones). `spreads`, one per series (or None), draws a shaded
    band of ± that much around its line (a mean ± one standard deviation), under the lines. `symbols`, one per series
    (or None: a dot of 5 pixels), draws its markers as that Plotly symbol and size (a ring around points that others sit on, a
    large diamond for a line of one point). `marks_px`: the plot's width and height in pixels the marks' labels are placed
    for (see _marks), when not a desktop chart's: a phone's, the smallest a chart is drawn at, keeps labels placed apart there
    apart in any larger plot, since a label's pixels then cover less of the axes."""
    if any(given is not None and len(given) != len(series) for given in (colours, dashes, symbols)):
        raise ValueError(f"{len(series)} series take as many colours, dashes and symbols as there are series")
    shape = [{} if symbols is None or symbols[k] is None else dict(zip(("symbol", "size"), symbols[k])) for k in range(len(series))]
    ink = list(colours) if colours is not None else [LINE_COLOURS[k % len(LINE_COLOURS)] for k in range(len(series))]
    traces = [
        go.Scatter(
            x=np.asarray(xs),
            y=np.asarray(ys),
            name=name,
            mode="markers" if points else "lines+markers" if markers else "lines",
            line=dict(color=ink[k], width=2, shape="hv" if steps else "linear", dash=dashes[k] if dashes else "solid"),
            marker=dict(size=5, maxdisplayed=0 if points else MAX_DOTS, color=ink[k]) | shape[k],  # `points`: every dot is a value
        )
        for k, (name, xs, ys) in enumerate(series)
    ]
    for k, (name, xs, ys) in enumerate(series):
        half = None if spreads is None else spreads[k]
        if half is not None:
            x, y, half = (np.asarray(a, dtype=np.float64) for a in (xs, ys, half))
            traces.insert(
                0,
                go.Scatter(
                    x=np.concatenate([x, x[::-1]]),
                    y=np.concatenate([y + half, (y - half)[::-1]]),
                    name=f"{name} ± 1 sd",
                    mode="lines",
                    fill="toself",
                    fillcolor=palette.tint(ink[k], 0.2),
                    line=dict(width=0, color=ink[k]),
                    hoverinfo="skip",
                ),
            )
    if dots is not None:
        for k, (xs, ys) in enumerate(dots):
            colour = ink[k]
            traces.append(go.Scatter(x=np.asarray(xs), y=np.asarray(ys), mode="markers", marker=dict(color=colour, size=6), showlegend=False, hoverinfo="x+y"))
    if integer_x is None:
        integer_x = not log_x and all(np.all(np.asarray(xs, dtype=np.float64)[np.isfinite(np.asarray(xs, dtype=np.float64))] % 1 == 0) for _, xs, _ in series)
    x_axis: dict = dict(type="log" if log_x else "linear", range=x_range)
    y_axis: dict = dict(type="log" if log_y else "linear", range=y_range)
    for axis, wanted, values in (
        (x_axis, integer_x and not log_x, [xs for _, xs, _ in series]),
        (y_axis, integer_y and not log_y, [ys for _, _, ys in series]),
    ):
        finite = np.concatenate([np.asarray(v, dtype=np.float64).ravel() for v in values] or [np.zeros(0)])
        finite = finite[np.isfinite(finite)]
        if wanted and finite.size:
            span = (axis["range"][1] - axis["range"][0]) if axis.get("range") else float(finite.max() - finite.min())
            axis.update(tick0=0, dtick=nice_step(span), tickformat=",d")
    for axis, on, values in ((x_axis, log_x, [xs for _, xs, _ in series]), (y_axis, log_y, [ys for _, _, ys in series])):
        data = np.concatenate([np.asarray(v, dtype=np.float64).ravel() for v in values] or [np.zeros(0)])
        data = data[np.isfinite(data) & (data > 0)]
        if on and data.size and not axis.get("range") and data.max() < 1000 * data.min():  # under 3 decades: plotly.js labels 2, 3, 5 alone
            ticks = log_ticks(float(data.min()), float(data.max()), TICKS + 2)
            if len(ticks) >= 2:
                axis.update(tickmode="array", tickvals=ticks, ticktext=log_labels(ticks))
    if markers and not points:
        note = "; ".join(n for n in (note, _dots_note(max((len(xs) for _, xs, _ in series), default=0), "point")) if n)
    return _figure(
        traces,
        title=title,
        note=note,
        height=height,
        x_title=x_title,
        y_title=y_title,
        legend=len(series) > 1 or spreads is not None,
        x_marks=x_marks,
        y_marks=y_marks,
        marks_px=marks_px,
        xaxis=x_axis,
        yaxis=y_axis,
    )


@shared
def spectrum(wavelength: np.ndarray, max_len: int, *, title: str, note: str = "") -> go.Figure:
    """Wavelength (positions per cycle) of each sin/cos pair on a log scale, with max_len
    marked; pairs above the line never complete a cycle inside the context."""
    pair = np.arange(wavelength.size)
    longer = wavelength > max_len
    traces = [
        go.Scatter(
            x=pair[mask],
            y=wavelength[mask],
            mode="lines+markers",  # the line through every pair, dots on at most MAX_DOTS of them
            name=name,
            line=dict(color=colour, width=1.5),
            marker=dict(color=colour, size=5, maxdisplayed=MAX_DOTS),
            customdata=(2 * np.pi / wavelength[mask]),
            hovertemplate=f"pair %{{x}}<br>wavelength %{{y:{hover_format(wavelength[mask])}}} positions<br>"
            f"frequency %{{customdata:{hover_format(2 * np.pi / wavelength[mask])}}} rad/position<extra></extra>",
        )
        for mask, name, colour in ((~longer, "completes a cycle within max_len", palette.FAST), (longer, "wavelength > max_len", palette.SLOW))
        if mask.any()
    ]
    return _figure(
        traces,
        title=title,
        note="; ".join(n for n in (note, _dots_note(max(int((~longer).sum()), int(longer.sum())), "pair")) if n),
        height=420,
        x_title="pair index i (dimensions 2i, 2i+1)",
        y_title="wavelength 2π/ωᵢ (positions, log scale)",
        legend=True,
        y_marks=[(max_len, f"max_len = {max_len:,}")],
        xaxis=dict(tick0=0, dtick=nice_step(max(pair.size - 1, 1)), tickformat=",d"),
        yaxis=dict(type="log"),
    )


@shared
def phase_circle(
    sin_values: np.ndarray,
    cos_values: np.ndarray,
    positions: np.ndarray,
    *,
    title: str,
    note: str = "",
    x_title: str = "sin(p ω) (even dimension)",
    y_title: str = "cos(p ω) (odd dimension)",
    limit: float = 1.15,
    path: tuple[np.ndarray, np.ndarray] | None = None,
) -> go.Figure:
    """The point (sin pω, cos pω) for each position, coloured by position: the pair turns
    by the same angle ω at every step. Any pair of coordinates works (a RoPE pair of a
    rotated vector, say); the square axes run over ±limit. `path`, the same coordinates at
    fractional positions in between, is drawn as a thin line along the arc the point travels
    (joining the dots themselves would draw chords, a star when the steps are large)."""
    traces = []
    if path is not None:
        traces.append(go.Scatter(x=path[0], y=path[1], mode="lines", line=dict(color="rgba(120,120,120,0.45)", width=1), hoverinfo="skip", showlegend=False))
    # one position has no range to key: Plotly would invent one around it (−0.4 to 0.4 about 0), so the title names the position instead
    keyed = np.ptp(positions) > 0 if len(positions) else False
    traces.append(
        go.Scatter(
            x=sin_values,
            y=cos_values,
            mode="markers" if path is not None else "markers+lines",
            line=dict(color="rgba(120,120,120,0.3)", width=1),
            marker=dict(
                color=positions, colorscale=SEQUENTIAL, size=7, showscale=bool(keyed), colorbar=dict(title=dict(text="position")), maxdisplayed=MAX_DOTS
            ),
            customdata=positions,
            hovertemplate=f"position %{{customdata}}<br>x %{{x:{COORD_FORMAT}}}<br>y %{{y:{COORD_FORMAT}}}<extra></extra>",
            showlegend=False,
        )
    )
    return _figure(
        traces,
        title=title,
        note="; ".join(n for n in (note, _dots_note(len(positions), "point")) if n),
        height=440,
        x_title=x_title,
        y_title=y_title,
        xaxis=dict(range=[-limit, limit], scaleanchor="y", scaleratio=1),
        yaxis=dict(range=[-limit, limit]),
    )


def _panel_title(text: str, x: float, y: float, size: int) -> dict:
    """A panel's title: plain text centred above the panel at paper coordinates (x, y)."""
    return dict(text=text, x=x, y=y, xref="paper", yref="paper", xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=size))


@shared
def position_paths(
    panels: Sequence[tuple[str, np.ndarray, np.ndarray]],
    *,
    title: str,
    axis_titles: Sequence[str] = ("PC 1", "PC 2", "PC 3"),
    note: str = "",
    height: int = 460,
) -> go.Figure:
    """The path of the positions through a few coordinates (say their first principal
    components), one panel per (panel_title, coords (n, 2) or (n, 3), positions (n,)), side by
    side: points coloured by position on the sequential scale, joined in position order by a
    faint line. Two columns give flat panels with equal axis scales; three give 3-D scenes in
    a cube (equal data scales squash a small third component into unreadable ticks), one
    WebGL context each, so keep the panels few."""
    n, gap = len(panels), 0.08
    width = (1.0 - gap * (n - 1)) / n
    three_d = panels[0][1].shape[1] == 3
    lo = min(float(positions.min()) for _, _, positions in panels)
    hi = max(float(positions.max()) for _, _, positions in panels)
    traces, layout, titles = [], {}, []
    for k, (panel_title, coords, positions) in enumerate(panels):
        suffix = "" if k == 0 else str(k + 1)
        left = k * (width + gap)
        marker = dict(
            color=positions, colorscale=SEQUENTIAL, cmin=lo, cmax=hi, size=3 if three_d else 5, showscale=k == n - 1, colorbar=dict(title=dict(text="position"))
        )
        if not three_d:  # (a 3-D scene draws its dots in WebGL, all of them)
            marker["maxdisplayed"] = MAX_DOTS
        coordinates = "<br>".join(f"{axis_titles[i]} %{{{c}:{COORD_FORMAT}}}" for i, c in enumerate("xyz"[: coords.shape[1]]))
        hover = f"position %{{customdata}}<br>{coordinates}<extra></extra>"
        if three_d:
            traces.append(
                go.Scatter3d(
                    x=coords[:, 0],
                    y=coords[:, 1],
                    z=coords[:, 2],
                    mode="lines+markers",
                    line=dict(color="rgba(120,120,120,0.35)", width=2),
                    marker=marker,
                    customdata=positions,
                    hovertemplate=hover,
                    showlegend=False,
                    scene=f"scene{suffix}",
                )
            )
            layout[f"scene{suffix}"] = dict(
                domain=dict(x=[left, left + width], y=[0, 1]),
                xaxis=dict(title=dict(text=axis_titles[0]), tickfont=dict(size=10)),
                yaxis=dict(title=dict(text=axis_titles[1]), tickfont=dict(size=10)),
                zaxis=dict(title=dict(text=axis_titles[2]), tickfont=dict(size=10)),
                aspectmode="cube",
                camera=dict(eye=dict(x=1.8, y=1.8, z=0.75)),
            )  # a low, distant eye: the third axis upright, its ticks and title inside the scene
        else:
            traces.append(
                go.Scatter(
                    x=coords[:, 0],
                    y=coords[:, 1],
                    mode="lines+markers",
                    line=dict(color="rgba(120,120,120,0.3)", width=1),
                    marker=marker,
                    customdata=positions,
                    hovertemplate=hover,
                    showlegend=False,
                    xaxis=f"x{suffix}",
                    yaxis=f"y{suffix}",
                )
            )
            layout[f"xaxis{suffix}"] = dict(domain=[max(0.0, left), min(1.0, left + width)], anchor=f"y{suffix}", title_text=axis_titles[0], constrain="domain")
            layout[f"yaxis{suffix}"] = dict(anchor=f"x{suffix}", title_text=axis_titles[1], scaleanchor=f"x{suffix}", scaleratio=1, constrain="domain")
        if panel_title:
            titles.append(_panel_title(panel_title, left + width / 2, 1.0, 13))
    if not three_d:
        note = "; ".join(n for n in (note, _dots_note(max(len(positions) for _, _, positions in panels))) if n)
    return _figure(traces, title=title, note=note, height=height, top=20 if titles else 0, annotations=titles, **layout)
