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
  range), the axis titles, and the app's diverging scale as 255 colours.

A cell's colour is level round((v - zmin) / (zmax - zmin) * 254) of the 255, clipped: the
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
from core.viz.charts import DIVERGING, integer_ticks, number
from core.viz.grid import Picked, Sample

TICKS = 4  # labelled ticks per panel axis at most: a panel is about 200 pixels across
EXACT_CELLS = wire.LIST_CELLS  # cells per grid sent as values (hover exact at every cell); past it each panel goes as a PNG
HOVER_CELLS = 4_096  # a PNG panel's values for the hover: every k-th row and column, at most this many cells


def axis(sample: Sample | Picked, most: int = TICKS) -> dict:
    """One panel axis: the true index of every drawn row or column (`indices`), and the ticks to
    label, each as (share of the axis's length at the centre of its cell, its label). Along evenly
    spaced indices the ticks are whole numbers at a nice step, placed where they fall (between two
    drawn cells when the step skips them); along a Picked axis (whole pairs), a few of the drawn
    slots, evenly spread, each labelled with its own index."""
    indices = [int(i) for i in sample.indices]
    n = len(indices)
    if not n:
        return {"indices": [], "ticks": []}
    if not sample.uniform:
        slots = np.unique(np.linspace(0, n - 1, min(most, n)).round().astype(int))
        ticks = [[(int(k) + 0.5) / n, f"{indices[k]:,}"] for k in slots]
    else:
        step = sample.step
        ticks = [[((v - sample.start) / step + 0.5) / n, f"{v:,}"] for v in integer_ticks(indices[0], indices[-1], most)]
    return {"indices": indices, "ticks": ticks}


def _typed(z: np.ndarray) -> dict:
    """z as float32 in Plotly's typed-array form (tests/app/conftest.decode reads it back)."""
    values = np.ascontiguousarray(z, dtype="<f4")
    return {"dtype": "f4", "bdata": base64.b64encode(values.tobytes()).decode("ascii"), "shape": ", ".join(map(str, values.shape))}


def _largest(z: np.ndarray) -> float:
    """max|z| over the finite cells, 0 when there are none."""
    finite = z[np.isfinite(z)]
    return float(np.abs(finite).max()) if finite.size else 0.0


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
    one range ±max|z| over all of them, said once in the note; otherwise
    each panel has its own range ±max|z| (schemes differ by orders of magnitude), written under
    its title, and the note says so. `zmax`, with a shared range, fixes it at ±zmax (a cosine's ±1)
    where no value lies beyond. `value_title` names the values (in the colour key and the hover);
    `panel_height` is each panel's height on screen in pixels. NaN cells (no value there) are left blank."""
    if not panels:
        raise ValueError("a panel grid needs at least one panel")
    common = max(_largest(np.asarray(z, dtype=np.float64)) for _, z, _, _ in panels) or 1.0  # 1 for blank or all-zero panels
    if zmax is not None:
        if not shared_range or not zmax >= common * (1 - 1e-9):  # a cosine of 1.0000000000000004 is 1 to rounding
            raise ValueError(f"a fixed range ±{zmax} is for a shared range that holds every value (the largest is {common})")
        common = float(zmax)
    pictures = sum(np.size(z) for _, z, _, _ in panels) > EXACT_CELLS
    lut = np.vstack([wire.colour_lut(DIVERGING, 255), [[255, 255, 255]]]).astype(np.uint8)  # index 255: see-through (no value)
    out = []
    for name, z, xs, ys in panels:
        z = np.asarray(z, dtype=np.float64)
        if z.shape != (ys.count, xs.count):
            raise ValueError(f"panel {name!r}: values of shape {z.shape} for {ys.count} rows and {xs.count} columns")
        bound = common if shared_range else _largest(z) or 1.0
        panel = {"title": name, "range": "" if shared_range else f"colour range ±{number(bound, 3)}", "zmin": -bound, "zmax": bound}
        if pictures:
            level = levels(z, -bound, bound)
            k = max(1, int(np.ceil(np.sqrt(z.size / HOVER_CELLS))))
            panel |= {"image": wire.png(np.where(level < 0, 255, level), lut, transparent=255), "z": _typed(z[::k, ::k]), "probe": k}
        else:
            panel |= {"z": _typed(z), "probe": 1}
        out.append(panel | {"x": axis(xs), "y": axis(ys)})
    if shared_range:
        says = f"colour range ±{number(common, 3)}" if len(panels) == 1 else f"one colour range for every panel, ±{number(common, 3)}"
    else:
        says = "each panel has its own colour range"
    return {
        "title": title,
        "note": "; ".join(part for part in (note, says) if part),
        "x_title": x_title,
        "y_title": y_title,
        "columns": max(1, min(columns, len(panels))),
        "shared_range": shared_range,
        # the colour key beside the title: the scale's ends, and what they are
        "key": {"lo": f"−{number(common, 3)}", "hi": f"+{number(common, 3)}", "note": f"({value_title}; white: 0)"}
        if shared_range
        else {"lo": "−range", "hi": "+range", "note": f"({value_title}; white: 0; each panel's range is under its title)"},
        "value": value_title,
        "panel_height": int(panel_height),
        "colours": wire.colour_lut(DIVERGING, 255).tolist(),
        "panels": out,
    }


def levels(z: np.ndarray, zmin: float, zmax: float) -> np.ndarray:
    """The colour level (0..254) of every cell as the component paints it, -1 where z is NaN: the
    reference the browser tests compare the canvas with."""
    span = zmax - zmin if zmax > zmin else 1.0
    level = np.round(np.clip((np.asarray(z, dtype=np.float64) - zmin) / span, 0, 1) * 254)
    return np.where(np.isfinite(z), level, -1).astype(np.int64)
