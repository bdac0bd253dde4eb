"""A grid of small heatmaps as data for the browser to paint (ui/panel_grid.py), not a Plotly figure.

Why not Plotly: a figure of 13 small heatmaps needs 26 axes, and plotly.js lays out and draws
every axis again on every redraw: /compare's grid took 0.33 s of the browser's time per slider
step, 3.7 times a one-chart page's whole step, while the same 13 panels painted one canvas pixel
per cell took 0.14 s, 1.5 times (issue 17; docs/deploy.md). So this module says what the grid
shows, and the component only paints it:

- each panel: its title, its values (rows = y indices, columns = x indices; NaN where there is
  no value), its colour range, and along each axis the true index of every row and column and
  the ticks to label (whole numbers, each at the centre of the cell it names);
- the grid: a title, the note under it (what is sampled, and whether the panels share a colour
  range), the axis titles, and its colour scales, each 255 colours with a key (its ends, what
  its values are) and the panels painted on it: the app's diverging scale centred on zero for
  signed values, the sequential one for values that are not (`grouped_grid`: attention weights
  from 0 beside their signed difference).

Along an axis of words (`names`: a label per drawn row or column) the ticks are those words, at
the centres of their cells, and the hover names a cell by them.

A cell's colour is level round((v - zmin) / (zmax - zmin) * 254) of its scale's 255, clipped: the
levels of the app's image heatmaps (core.viz.charts.heatmap_trace). Values travel as float32 in
Plotly's typed-array form ({dtype, bdata, shape}), so a hover reads the value the server computed
to 6 or 7 significant digits. A grid of more than EXACT_CELLS cells would send too much that way
(a 250 x 250 panel is 333 kB of float32): each panel is then a palette PNG of its levels, which
the browser decodes onto the canvas, and its values on every k-th row and column (`probe` k, at
most HOVER_CELLS a panel), which the hover reads and says so, as the image heatmaps' hover does.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

import numpy as np

from core.viz import wire
from core.viz.charts import DIVERGING, SEQUENTIAL, ScaleGroup, integer_ticks, number
from core.viz.grid import Picked, Sample

TICKS = 4  # labelled ticks per panel axis at most: a panel is about 200 pixels across
EXACT_CELLS = wire.LIST_CELLS  # cells per grid sent as values (hover exact at every cell); past it each panel goes as a PNG
HOVER_CELLS = 4_096  # a PNG panel's values for the hover: every k-th row and column, at most this many cells
NAME_CHARS = 24  # characters of a row's or column's name shown (ticks and hover); longer ones end in an ellipsis


def axis(sample: Sample | Picked, most: int = TICKS, *, names: Sequence[str] | None = None, every: int = 1) -> dict:
    """One panel axis: the true index of every drawn row or column (`indices`), and the ticks to
    label, each as (share of the axis's length at the centre of its cell, its label). Along evenly
    spaced indices the ticks are whole numbers at a nice step, placed where they fall (between two
    drawn cells when the step skips them); along a Picked axis (whole pairs), a few of the drawn
    slots, evenly spread, each labelled with its own index. With `names` (a word per drawn slot),
    every `every`-th slot is labelled with its word, and the names go along for the hover."""
    indices = [int(i) for i in sample.indices]
    n = len(indices)
    if names is not None:
        if len(names) != n:
            raise ValueError(f"{len(names)} names for {n} drawn rows or columns")
        names = [_short(str(x)) for x in names]
        return {"indices": indices, "ticks": [[(k + 0.5) / n, names[k]] for k in range(0, n, max(1, every))], "names": names}
    if not n:
        return {"indices": [], "ticks": []}
    if not sample.uniform:
        slots = np.unique(np.linspace(0, n - 1, min(most, n)).round().astype(int))
        ticks = [[(int(k) + 0.5) / n, f"{indices[k]:,}"] for k in slots]
    else:
        step = sample.step
        ticks = [[((v - sample.start) / step + 0.5) / n, f"{v:,}"] for v in integer_ticks(indices[0], indices[-1], most)]
    return {"indices": indices, "ticks": ticks}


def _short(name: str) -> str:
    """A name as a label: at most NAME_CHARS characters, the rest replaced by an ellipsis (a
    visitor's word can be 100,000 letters long; its index before the colon still tells it apart)."""
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def _typed(z: np.ndarray) -> dict:
    """z as float32 in Plotly's typed-array form (tests/app/conftest.decode reads it back)."""
    values = np.ascontiguousarray(z, dtype="<f4")
    return {"dtype": "f4", "bdata": base64.b64encode(values.tobytes()).decode("ascii"), "shape": ", ".join(map(str, values.shape))}


def _largest(z: np.ndarray) -> float:
    """max|z| over the finite cells, 0 when there are none."""
    finite = z[np.isfinite(z)]
    return float(np.abs(finite).max()) if finite.size else 0.0


def _scale(name: str, lo: str, hi: str, note: str, value: str, signed: bool) -> dict:
    """One colour scale of a grid: its 255 colours, the labels of its key's ends, what the values
    are (the key's note, and the hover's name for a value), and whether it is centred on zero."""
    return {"colours": wire.colour_lut(name, 255).tolist(), "lo": lo, "hi": hi, "note": note, "value": value, "signed": signed}


def _palette(scale: dict) -> np.ndarray:
    """A scale's 255 colours and, at index 255, the see-through colour of a cell with no value: a PNG panel's palette."""
    return np.vstack([np.asarray(scale["colours"]), [[255, 255, 255]]]).astype(np.uint8)


def _panel(name: str, z: np.ndarray, xs: Sample | Picked, ys: Sample | Picked, zmin: float, zmax: float, scale: int, palette: np.ndarray | None) -> dict:
    """One panel: its values (every cell; or, given the `palette` of its scale, a PNG of its levels
    and every k-th row and column's values), its range, and the scale it is painted on."""
    z = np.asarray(z, dtype=np.float64)
    if z.shape != (ys.count, xs.count):
        raise ValueError(f"panel {name!r}: values of shape {z.shape} for {ys.count} rows and {xs.count} columns")
    panel = {"title": name, "range": "", "zmin": zmin, "zmax": zmax, "scale": scale}
    if palette is not None:
        level = levels(z, zmin, zmax)
        k = max(1, int(np.ceil(np.sqrt(z.size / HOVER_CELLS))))
        return panel | {"image": wire.png(np.where(level < 0, 255, level), palette, transparent=255), "z": _typed(z[::k, ::k]), "probe": k}
    return panel | {"z": _typed(z), "probe": 1}


def _spec(
    title: str, note: str, x_title: str, y_title: str, columns: int, shared_range: bool, scales: list[dict], panels: list[dict], panel_height: int
) -> dict:
    """The spec the component paints (ui/panel_grid.py)."""
    return {
        "title": title,
        "note": note,
        "x_title": x_title,
        "y_title": y_title,
        "columns": max(1, min(columns, len(panels))),
        "shared_range": shared_range,
        "scales": scales,
        "panel_height": int(panel_height),
        "panels": panels,
    }


def panel_grid(
    panels: Sequence[tuple[str, np.ndarray, Sample | Picked, Sample | Picked]],
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
) -> dict:
    """A grid of small heatmaps, one per (panel title, z, x sample, y sample), on the diverging scale
    centred on zero. Panels meant to be compared (`shared_range`: the heads of one scheme) share
    one range ±max|z| over all of them, said once in the note; otherwise each panel has its own
    range ±max|z| (schemes differ by orders of magnitude), written under its title, and the note
    says so. `zmax`, with a shared range, fixes it at ±zmax (a cosine's ±1) where no value lies
    beyond. `value_title` names the values (in the colour key and the hover); `panel_height` is
    each panel's height on screen in pixels. NaN cells (no value there) are left blank."""
    if not panels:
        raise ValueError("a panel grid needs at least one panel")
    largest = [_largest(np.asarray(z, dtype=np.float64)) for _, z, _, _ in panels]  # max|z| of each panel, 0 for a blank one
    common = max(largest) or 1.0  # 1 for blank or all-zero panels
    if zmax is not None:
        if not shared_range or not zmax >= common * (1 - 1e-9):  # a cosine of 1.0000000000000004 is 1 to rounding
            raise ValueError(f"a fixed range ±{zmax} is for a shared range that holds every value (the largest is {common})")
        common = float(zmax)
    if shared_range:
        scale = _scale(DIVERGING, f"−{number(common, 3)}", f"+{number(common, 3)}", f"({value_title}; white: 0)", value_title, True)
    else:
        scale = _scale(DIVERGING, "−range", "+range", f"({value_title}; white: 0; each panel's range is under its title)", value_title, True)
    palette = _palette(scale) if sum(np.size(z) for _, z, _, _ in panels) > EXACT_CELLS else None  # past it, each panel a PNG
    out = []
    for (name, z, xs, ys), own in zip(panels, largest):
        bound = common if shared_range else own or 1.0
        panel = _panel(name, z, xs, ys, -bound, bound, 0, palette)
        out.append(panel | {"range": "" if shared_range else f"colour range ±{number(bound, 3)}", "x": axis(xs), "y": axis(ys)})
    if shared_range:
        says = f"colour range ±{number(common, 3)}" if len(panels) == 1 else f"one colour range for every panel, ±{number(common, 3)}"
    else:
        says = "each panel has its own colour range"
    return _spec(title, "; ".join(part for part in (note, says) if part), x_title, y_title, columns, shared_range, [scale], out, panel_height)


def grouped_grid(
    groups: Sequence[ScaleGroup],
    *,
    title: str,
    x_title: str,
    y_title: str,
    note: str = "",
    panel_height: int = 190,
    x_names: Sequence[str] | None = None,
    y_names: Sequence[str] | None = None,
    x_every: int = 1,
) -> dict:
    """Panels in one row, in groups that each share one colour scale, one range and one key, as
    core.viz.charts.heatmap_row draws them: a signed group on the diverging scale ±max|z| (or
    ±zmax), an unsigned one on the sequential scale from its zmin to its zmax (the data's own
    extremes when None), each key naming its values (`colorbar_title`; `hover` names a value on
    hover). `x_names` / `y_names` label the drawn columns / rows with words (every `x_every`-th
    column), which the hover names a cell by."""
    if not groups or not all(g.panels for g in groups):
        raise ValueError("a grouped grid needs at least one panel in every group")
    pictures = sum(np.size(z) for g in groups for _, z, _, _ in g.panels) > EXACT_CELLS
    scales, out = [], []
    for k, group in enumerate(groups):
        zmin, zmax = group.bounds()
        if not zmax > zmin:  # a constant unsigned group: a range of 1 from its value, never 0
            zmax = zmin + 1.0
        values = group.finite()
        if values.size and not (zmin - 1e-9 * abs(zmin) <= values.min() and values.max() <= zmax + 1e-9 * abs(zmax)):
            raise ValueError(f"a group's range {zmin} .. {zmax} must hold every value ({values.min()} .. {values.max()})")
        # the key says what its values are and, where it serves several panels, which
        said = group.colorbar_title + (f": {', '.join(t for t, _, _, _ in group.panels)}" if len(group.panels) > 1 else "")
        if group.signed:
            scale = _scale(DIVERGING, f"−{number(zmax, 3)}", f"+{number(zmax, 3)}", f"({said}; white: 0)", group.hover, True)
        else:
            scale = _scale(SEQUENTIAL, number(zmin, 3), number(zmax, 3), f"({said})", group.hover, False)
        scales.append(scale)
        palette = _palette(scale) if pictures else None
        for name, z, xs, ys in group.panels:
            panel = _panel(name, z, xs, ys, float(zmin), float(zmax), k, palette)
            out.append(panel | {"x": axis(xs, names=x_names, every=x_every), "y": axis(ys, names=y_names)})
    return _spec(title, note, x_title, y_title, len(out), True, scales, out, panel_height)


def levels(z: np.ndarray, zmin: float, zmax: float) -> np.ndarray:
    """The colour level (0..254) of every cell as the component paints it, -1 where z is NaN: the
    reference the browser tests compare the canvas with."""
    span = zmax - zmin if zmax > zmin else 1.0
    level = np.round(np.clip((np.asarray(z, dtype=np.float64) - zmin) / span, 0, 1) * 254)
    return np.where(np.isfinite(z), level, -1).astype(np.int64)
