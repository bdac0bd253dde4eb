"""Every heatmap of the app, as data for the browser to paint (ui/heatmap.py), never a Plotly figure: what a spec
holds and which rules it decides is in docs/architecture.md, "The drawing rule".

Why not Plotly: a figure of 13 small heatmaps needs 26 axes, and plotly.js lays out and draws every axis again on
every redraw, while painting one canvas pixel per cell costs a fraction of that (docs/deploy.md has the measurements).
Values travel as float32 in Plotly's typed-array form ({dtype, bdata, shape}), so a hover reads the value the server
computed to 6 or 7 significant digits; past EXACT_CELLS a grid sends every k-th row and column of each panel
(`probe` k, at most HOVER_CELLS a panel: a 250 x 250 panel is 333 kB of float32), and the hover says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.viz import palette, wire
from core.viz import plotly_internals as private
from core.viz.charts import DIVERGING, SEQUENTIAL, VALUE_DIGITS, integer_ticks, number
from core.viz.grid import Picked, Sample, ordinal
from core.viz.memo import shared

TICKS = 4  # labelled ticks per panel axis at most: a panel is about 200 pixels across
EXACT_CELLS = 24_000  # cells per grid whose every value is sent (hover exact at every cell; ~5.3 characters a cell); past it every k-th
HOVER_CELLS = 4_096  # a big panel's values for the hover: every k-th row and column, at most this many cells
NAME_CHARS = 24  # characters of a row's or column's name shown (ticks and hover); longer ones end in an ellipsis
LEVELS = 255  # colour levels of a scale; palette index LEVELS (255) is a cell with no value, see-through
BLANK = LEVELS


@dataclass(frozen=True, eq=False)
class Named:
    """Drawn rows or columns named by words (a sentence's tokens, bits, pairs): a name per drawn
    slot of `sample`, every `every`-th of them labelled; the hover names a cell by its words."""

    sample: Sample | Picked
    names: Sequence[str]
    every: int = 1

    @property
    def count(self) -> int:
        return self.sample.count


@dataclass(frozen=True, eq=False)
class Binned:
    """Drawn columns that are bins of a measured quantity (a frequency), one value per bin: the
    ticks are round values of it placed where they fall, and the hover reads a cell's bin value."""

    values: np.ndarray  # (n,), evenly spaced
    ticks: Sequence[float]
    digits: int = 4

    @property
    def count(self) -> int:
        return int(np.size(self.values))


Axis = Sample | Picked | Named | Binned


@dataclass(frozen=True)
class ScaleGroup:
    """Consecutive panels that share one colour scale, one range and one key: (panel title, z,
    x, y) each. Signed data use the diverging scale centred on zero (+-zmax, or +-the largest
    |value| when zmax is None); unsigned data the sequential one from zmin to zmax (the data's
    own extremes when None). `colorbar_title` names the values in the key, `hover` on hover.
    `clipped`: zmin and zmax are a chosen range that some values lie beyond, painted at its ends
    (the key says so). `key_name`: a short name for the panels the key serves ("the last two panels"), which a
    grid of several keys says instead of every panel's title."""

    panels: Sequence[tuple[str, np.ndarray, Axis, Axis]]
    signed: bool = True
    zmin: float | None = None
    zmax: float | None = None
    colorbar_title: str = ""
    hover: str = "value"
    clipped: bool = False
    key_name: str = ""

    def finite(self) -> np.ndarray:
        """Every finite value of the group's panels, flat (NaN cells, no value there, left out)."""
        flat = [np.ravel(np.asarray(z, dtype=np.float64)) for _, z, _, _ in self.panels]
        return np.concatenate([f[np.isfinite(f)] for f in flat]) if flat else np.zeros(0)

    def bounds(self) -> tuple[float, float]:
        """The group's colour range, from its finite values (a panel with no value, all NaN, does
        not set it): ±zmax or ±max|z| when signed (±1 when that is 0), else zmin .. zmax or the
        values' own extremes (0 .. 1 when there are none)."""
        finite = self.finite()
        if self.signed:
            bound = self.zmax if self.zmax is not None else float(np.abs(finite).max()) if finite.size else 0.0
            bound = bound if bound > 0 else 1.0
            return -bound, bound
        zmin = self.zmin if self.zmin is not None else float(finite.min()) if finite.size else 0.0
        zmax = self.zmax if self.zmax is not None else float(finite.max()) if finite.size else 1.0
        return zmin, zmax


def level_edges(zmin: float, zmax: float) -> np.ndarray:
    """The LEVELS - 1 values at which a cell's colour level steps up over the range zmin .. zmax:
    level k covers the values from edge k-1 to edge k, so a value is at level round((v - zmin) /
    (zmax - zmin) * 254), halves rounded up, clipped to 0 .. 254. (LEVELS - 1,) float64."""
    span = zmax - zmin if zmax > zmin else 1.0
    return zmin + (np.arange(LEVELS - 1) + 0.5) / (LEVELS - 1) * span


def levels(z: np.ndarray, zmin: float, zmax: float) -> np.ndarray:
    """The colour level (0 .. LEVELS - 1) of every cell, -1 where z is NaN: how many of
    `level_edges` the value reaches. The component paints these levels; the sinusoid preview
    computes the same from the same edges. Same shape as z, int64."""
    z = np.asarray(z, dtype=np.float64)
    level = np.searchsorted(level_edges(zmin, zmax), z, side="right")
    return np.where(np.isnan(z), -1, level).astype(np.int64)


def signed_log(z: np.ndarray | float, floor: float) -> np.ndarray:
    """sign(z)·log10(1 + |z| / floor): what a log colour scale paints instead of z, 0 at 0, each tenfold step of |z| past
    `floor` one equal step further from it, so values many orders of magnitude apart all show. Same shape as z, float64."""
    z = np.asarray(z, dtype=np.float64)
    return np.sign(z) * np.log10(1.0 + np.abs(z) / floor)


def axis(along: Axis, most: int = TICKS) -> dict:
    """One panel axis: the true index of every drawn row or column (`indices`), the last index
    the axis covers (`last`: a box over its last cell reaches it), and the ticks to label, each as
    (share of the axis's length at the centre of its cell, its label). Along evenly spaced
    indices the ticks are whole numbers at a nice step, placed where they fall (between two drawn
    cells when the step skips them); along a Picked axis (whole pairs), a few of the drawn slots,
    evenly spread, each labelled with its own index. A Named axis labels every `every`-th slot
    with its word and sends the words for the hover; a Binned one sends its bins' values, ticked
    at round values."""
    if isinstance(along, Named):
        inner = axis(along.sample, most)
        n = len(inner["indices"])
        if len(along.names) != n:
            raise ValueError(f"{len(along.names)} names for {n} drawn rows or columns")
        names = [_short(str(x)) for x in along.names]
        return inner | {"ticks": [[(k + 0.5) / n, names[k]] for k in range(0, n, max(1, along.every))], "names": names}
    if isinstance(along, Binned):
        values = np.asarray(along.values, dtype=np.float64)
        n = values.size
        step = float(values[1] - values[0]) if n > 1 else 1.0
        ticks = [[((t - values[0]) / step + 0.5) / n, f"{t:g}"] for t in along.ticks if values[0] <= t <= values[-1]]
        return {"indices": list(range(n)), "last": n - 1, "ticks": ticks, "values": [float(f"{v:.{along.digits}g}") for v in values]}
    indices = [int(i) for i in along.indices]
    n = len(indices)
    if not n:
        return {"indices": [], "last": -1, "ticks": []}
    if not along.uniform:
        slots = np.unique(np.linspace(0, n - 1, min(most, n)).round().astype(int))
        ticks = [[(int(k) + 0.5) / n, f"{indices[k]:,}"] for k in slots]
        return {"indices": indices, "last": indices[-1], "ticks": ticks}
    step = along.step
    ticks = [[((v - along.start) / step + 0.5) / n, f"{v:,}"] for v in integer_ticks(indices[0], indices[-1], most)]
    return {"indices": indices, "last": int(along.stop) - 1, "ticks": ticks}


def _short(name: str) -> str:
    """A name as a label: at most NAME_CHARS characters, the rest replaced by an ellipsis (a
    visitor's word can be 100,000 letters long; its index before the colon still tells it apart)."""
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def _typed(z: np.ndarray) -> dict:
    """z (2-D) as float32 in Plotly's typed-array form (tests/app/conftest.decode reads it back)."""
    return private.typed_array(np.ascontiguousarray(z, dtype="<f4"))


def _largest(z: np.ndarray) -> float:
    """max|z| over the finite cells, 0 when there are none."""
    finite = z[np.isfinite(z)]
    return float(np.abs(finite).max()) if finite.size else 0.0


MINUS = re.compile(r"(^|\s)-(?=\d)")  # a number's sign at the start of a key's label, or after its ≤


def _scale(name: str, lo: str, hi: str, note: str, value: str, signed: bool) -> dict:
    """One colour scale of a grid: its LEVELS colours, the labels of its key's ends, what the values
    are (the key's note, and the hover's name for a value), and whether it is centred on zero. A signed
    scale also carries its dark-theme twin (`dark`: the same levels in palette.DARK_DIVERGING, and the note
    with the colour of 0 it shows), which the browser paints when the visitor's theme is dark."""
    lo, hi = (MINUS.sub("\\1−", end) for end in (lo, hi))  # a minus sign, not a hyphen, as the signed keys write it
    scale = {"colours": wire.colour_lut(name, LEVELS).tolist(), "lo": lo, "hi": hi, "note": note, "value": value, "signed": signed}
    if signed:
        scale["dark"] = {"colours": dark_colours(), "note": note.replace("white: 0", "dark grey: 0")}
    return scale


def dark_colours() -> list[list[int]]:
    """The LEVELS colours of the diverging scale in the dark theme (core.viz.palette.DARK_DIVERGING), as RGB."""
    return wire.colour_lut(palette.DARK_DIVERGING, LEVELS).tolist()


def _palette(scale: dict) -> np.ndarray:
    """A scale's LEVELS colours and, at index BLANK, the see-through colour of a cell with no value: a panel's PNG palette."""
    return np.vstack([np.asarray(scale["colours"]), [[255, 255, 255]]]).astype(np.uint8)


def _panel(
    name: str, z: np.ndarray, xs: Axis, ys: Axis, zmin: float, zmax: float, scale: int, palette: np.ndarray, every: bool, floor: float | None = None
) -> dict:
    """One panel: the PNG of its levels on the `palette` of its scale, its values (every cell when
    `every`, else every k-th row and column, said in `probe_note`), its range, and its scale. With a
    `floor`, the levels are of signed_log(z, floor) over signed_log of the range (a log colour scale)."""
    z = np.asarray(z, dtype=np.float64)
    if z.shape != (ys.count, xs.count):
        raise ValueError(f"panel {name!r}: values of shape {z.shape} for {ys.count} rows and {xs.count} columns")
    sent = z.astype(np.float32)  # a cell's colour is the level of the value its hover reads
    if floor is None:
        level = levels(sent, zmin, zmax)
    else:
        level = levels(signed_log(sent, floor), float(signed_log(zmin, floor)), float(signed_log(zmax, floor)))
    image = wire.png(np.where(level < 0, BLANK, level), palette, transparent=BLANK)
    panel = {"title": name, "range": "", "zmin": zmin, "zmax": zmax, "scale": scale, "image": image}
    k = 1 if every else max(1, int(np.ceil(np.sqrt(z.size / HOVER_CELLS))))
    note = f"(hover reads every {ordinal(k)} row and column)" if k > 1 else ""
    return panel | {"z": _typed(z[::k, ::k]), "probe": k, "probe_note": note, "x": axis(xs), "y": axis(ys)}


def _spec(
    title: str, note: str, x_title: str, y_title: str, columns: int, shared_range: bool, scales: list[dict], panels: list[dict], panel_height: int
) -> dict:
    """The spec the component paints (ui/heatmap.py)."""
    return {
        "title": title,
        "note": note,
        "x_title": x_title,
        "y_title": y_title,
        "columns": max(1, min(columns, len(panels))),
        "shared_range": shared_range,
        "scales": scales,
        "panel_height": int(panel_height),
        "digits": VALUE_DIGITS,
        "panels": panels,
    }


@shared
def heatmap(
    panels: Sequence[tuple[str, np.ndarray, Axis, Axis]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    columns: int = 3,
    note: str = "",
    shared_range: bool = False,
    zmax: float | None = None,
    value_title: str = "value",
    panel_height: int = 190,
    one_signed: bool = False,
    log_scale: bool = False,
) -> dict:
    """Heatmaps in a grid, one per (panel title, z, x, y), on the diverging scale centred on zero,
    or, `one_signed` (values that are all ≤ 0 or all ≥ 0, ALiBi's biases), on the sequential scale
    from the values' least to their largest, shared or each panel's own (a diverging scale would
    spend half its colours on values that never occur and draw the small ones white).
    Panels meant to be compared (`shared_range`: the heads of one scheme) share one range ±max|z|
    over all of them, said once in the note; otherwise each panel has its own range ±max|z|
    (schemes differ by orders of magnitude), written under its title, and the note says so.
    `zmax`, with a shared range, fixes it at ±zmax (a cosine's ±1) where no value lies beyond.
    `value_title` names the values (in the colour key and the hover); `panel_height` is each
    panel's height on screen in pixels. NaN cells (no value there) are left blank.
    `log_scale`, with a shared range, paints signed_log of the values (scale["log_floor"]: a tenth of the
    smallest panel's max|z| that is not 0), so that every panel with values shows beside one a thousand times
    larger, still one colour for one value; the key and the note say so."""
    if not panels:
        raise ValueError("a heatmap needs at least one panel")
    if log_scale and (not shared_range or one_signed):
        raise ValueError("a log colour scale is for one diverging range shared by every panel")
    floor = None
    if one_signed:
        finite = [np.asarray(z, dtype=np.float64)[np.isfinite(z)] for _, z, _, _ in panels]
        flat = np.concatenate(finite)
        if flat.size and flat.min() < 0 < flat.max():
            raise ValueError(f"one-signed values lie on one side of zero, not {flat.min()} .. {flat.max()}")
        common = _extent(flat)
        ranges = [common if shared_range else _extent(values) for values in finite]
        if shared_range:
            scale = _scale(SEQUENTIAL, number(common[0], 3), number(common[1], 3), f"({value_title})", value_title, False)
        else:
            scale = _scale(SEQUENTIAL, "least", "largest", f"({value_title}; each panel's range is under its title)", value_title, False)
    else:
        largest = [_largest(np.asarray(z, dtype=np.float64)) for _, z, _, _ in panels]  # max|z| of each panel, 0 for a blank one
        top = max(largest) or 1.0  # 1 for blank or all-zero panels
        if zmax is not None:
            if not shared_range or not zmax >= top * (1 - 1e-9):  # a cosine of 1.0000000000000004 is 1 to rounding
                raise ValueError(f"a fixed range ±{zmax} is for a shared range that holds every value (the largest is {top})")
            top = float(zmax)
        common = (-top, top)
        ranges = [common if shared_range else (-(own or 1.0), own or 1.0) for own in largest]
        nonzero = [bound for bound in largest if bound > 0]
        floor = (min(nonzero) / 10 if nonzero else 1.0) if log_scale else None
        if floor is not None:
            said = f"({value_title}; white: 0; a log scale, so values down to ±{number(floor, 3)} still show some colour)"
            scale = _scale(DIVERGING, f"−{number(top, 3)}", f"+{number(top, 3)}", said, value_title, True) | {"log_floor": floor}
        elif shared_range:
            scale = _scale(DIVERGING, f"−{number(top, 3)}", f"+{number(top, 3)}", f"({value_title}; white: 0)", value_title, True)
        else:
            scale = _scale(DIVERGING, "−range", "+range", f"({value_title}; white: 0; each panel's range is under its title)", value_title, True)

    def span(lo: float, hi: float) -> str:  # a range in words: ±hi on the diverging scale, lo to hi on the sequential one
        return f"{number(lo, 3)} to {number(hi, 3)}" if one_signed else f"±{number(hi, 3)}"

    palette, every = _palette(scale), sum(np.size(z) for _, z, _, _ in panels) <= EXACT_CELLS
    out = []
    for (name, z, xs, ys), (lo, hi) in zip(panels, ranges):
        panel = _panel(name, z, xs, ys, lo, hi, 0, palette, every, floor)
        out.append(panel | {"range": "" if shared_range else f"colour range {span(lo, hi)}"})
    if shared_range:
        says = f"{'colour range' if len(panels) == 1 else 'one colour range for every panel,'} {span(*common)}"
        says += ", on a log scale" if floor is not None else ""
    else:
        says = "each panel has its own colour range"
    return _spec(title, "; ".join(part for part in (note, says) if part), x_title, y_title, columns, shared_range, [scale], out, panel_height)


def _extent(values: np.ndarray) -> tuple[float, float]:
    """One-signed values' colour range: their least to their largest; a constant panel a range of 1 on its side of zero."""
    lo, hi = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
    return (lo, hi) if hi > lo else (lo, lo + 1.0) if lo >= 0 else (hi - 1.0, hi)


@shared
def grouped_heatmap(
    groups: Sequence[ScaleGroup],
    *,
    title: str,
    x_title: str,
    y_title: str,
    note: str = "",
    panel_height: int = 190,
    columns: int | None = None,
) -> dict:
    """Heatmaps in groups that each share one colour scale, one range and one key (in one row
    unless `columns` says otherwise): a signed group on the diverging scale ±max|z| (or ±zmax), an
    unsigned one on the sequential scale from its zmin to its zmax (the data's own extremes when
    None), each key naming its values (`colorbar_title`; `hover` names a value on hover). A
    `clipped` group's key ends read ≤ and ≥: values beyond are painted at the ends."""
    if not groups or not all(g.panels for g in groups):
        raise ValueError("a grouped heatmap needs at least one panel in every group")
    every = sum(np.size(z) for g in groups for _, z, _, _ in g.panels) <= EXACT_CELLS
    scales, out = [], []
    for k, group in enumerate(groups):
        zmin, zmax = group.bounds()
        if not zmax > zmin:  # a constant unsigned group: a range of 1 from its value, never 0
            zmax = zmin + 1.0
        values = group.finite()
        if not group.clipped and values.size and not (zmin - 1e-9 * abs(zmin) <= values.min() and values.max() <= zmax + 1e-9 * abs(zmax)):
            raise ValueError(f"a group's range {zmin} .. {zmax} must hold every value ({values.min()} .. {values.max()})")
        # the key says what its values are and, where there are several keys, which panels it serves: by its short name, else by
        # their titles when it serves several (a lone panel's key sits beside it; one key serves them all)
        which = group.key_name or (", ".join(t for t, _, _, _ in group.panels) if len(group.panels) > 1 else "")
        said = group.colorbar_title + (f": {which}" if which and len(groups) > 1 else "")
        below, above = ("≤ ", "≥ ") if group.clipped else ("", "")
        if group.signed:
            scale = _scale(DIVERGING, f"{below}−{number(zmax, 3)}", f"{above}+{number(zmax, 3)}", f"({said}; white: 0)", group.hover, True)
        else:
            scale = _scale(SEQUENTIAL, f"{below}{number(zmin, 3)}", f"{above}{number(zmax, 3)}", f"({said})", group.hover, False)
        scale["clipped"] = group.clipped
        scales.append(scale)
        palette = _palette(scale)
        for name, z, xs, ys in group.panels:
            out.append(_panel(name, z, xs, ys, float(zmin), float(zmax), k, palette, every))
    if len(groups) == 1:  # one key: the note says its range too, as a grid of one range does
        zmin, zmax = float(out[0]["zmin"]), float(out[0]["zmax"])
        says = f"colour range ±{number(zmax, 3)}" if groups[0].signed else f"colour range {number(zmin, 3)} to {number(zmax, 3)}"
        note = "; ".join(part for part in (note, says) if part)
    return _spec(title, note, x_title, y_title, columns or len(out), True, scales, out, panel_height)
