"""What the browser receives for a figure: the wire format.

Streamlit's chart element re-sends a figure to plotly.js right after drawing it (a copy made
through JSON); plotly.js draws the whole figure again when the copy has a template or a data
array given as a typed array, unless layout.datarevision says the data are the same. So the
figures core.viz.charts builds are `Figure`s whose scatter arrays go as plain JSON lists and
which carry a `digest` of their data as datarevision. Heatmaps are not Plotly figures here: the
browser component paints them from a palette `png` (core.viz.heatmap). Plotly's private
structures are read through core.viz.plotly_internals only.
"""

from __future__ import annotations

import base64
import functools
import io
import os

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale, sample_colorscale

from core.viz import memo
from core.viz import plotly_internals as private

LISTED = ("scatter", "scatter3d")  # trace types whose arrays go as lists


class Figure(go.Figure):
    """A go.Figure whose scatter arrays go to the browser as plain JSON lists, not typed arrays (see
    the module docstring). Ints stay ints, float64 values are written exactly, float32 values to
    8 significant digits (float32 holds 7 to 8)."""

    def to_dict(self) -> dict:
        """The figure as plotly.js reads it: the same spec as plotly's own `to_dict` with the scatter
        traces' typed arrays turned back into lists, built in one pass over the validated properties
        (plotly's deep-copies every array, then base64-encodes it, which had to be decoded again:
        most of a chart's cost in a page's run). No figure of the app has frames: none are written."""
        spec = {"data": [_copy(trace) for trace in private.trace_dicts(self)], "layout": _copy(private.layout_dict(self))}
        if spec["layout"].get("template", 0) is None:  # unvalidated, a removed template stays as null
            del spec["layout"]["template"]
        for trace in spec["data"]:
            _encode(trace, lists=trace.get("type") in LISTED)
        _encode(spec["layout"], lists=False)
        return spec


_SKIPPED = frozenset(("geojson", "layer", "layers", "range"))  # keys plotly never turns into typed arrays


def _copy(node):
    """The dicts and lists of a spec copied, tuples as lists (JSON writes both alike); arrays and
    scalars shared (`_encode` replaces the arrays)."""
    if isinstance(node, dict):
        return {key: _copy(value) for key, value in node.items()}
    if isinstance(node, (list, tuple)):
        return [_copy(value) for value in node]
    return node


def _numeric(value) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.size > 0


def _encode(node, *, lists: bool) -> None:
    """numpy arrays inside a copied spec, in place: as JSON lists (`lists`: float32 to 8 significant
    digits) or as plotly.js typed-array specs, exactly as plotly's `convert_to_base64` writes them
    (and leaves alone: the keys in _SKIPPED, empty and non-numeric arrays)."""
    for key, value in list(node.items() if isinstance(node, dict) else enumerate(node)):
        if not lists and isinstance(key, str) and key in _SKIPPED:
            continue
        if isinstance(value, np.ndarray):
            if lists:
                if _numeric(value):
                    node[key] = (short_floats(value) if value.dtype == np.float32 else value).tolist()
            elif _numeric(value):
                node[key] = private.typed_array(value)
        elif isinstance(value, (dict, list)):
            _encode(value, lists=lists)


def short_floats(array: np.ndarray) -> np.ndarray:
    """float32 values as the float64 nearest to each one rounded to 8 significant digits,
    so JSON writes them in at most 8 digits (a float32 printed as float64 takes ~17)."""
    values = array.astype(np.float64)
    finite = np.isfinite(values) & (values != 0)
    exponent = np.zeros(values.shape)
    exponent[finite] = np.floor(np.log10(np.abs(values[finite])))
    digits = np.clip(7 - exponent, -300, 300)  # decimals that keep 8 significant digits
    up = digits >= 0  # 10**digits is exact for the decimals a float32 needs: divide by it
    out = values.copy()
    out[up] = np.round(values[up] * 10.0 ** digits[up]) / 10.0 ** digits[up]
    out[~up] = np.round(values[~up] / 10.0 ** -digits[~up]) * 10.0 ** -digits[~up]
    return out


def digest(traces) -> str:
    """A short digest of everything the traces hold, for layout.datarevision: equal data give
    equal digests (a rerun with the same figure keeps its chart), any change a new one."""
    props = [private.props(trace) for trace in traces]  # read in place: to_plotly_json deep-copies them
    try:
        return memo.digest([p if p is not None else t.to_plotly_json() for p, t in zip(props, traces)]).hex()[:20]
    except memo.Unkeyed:  # a value of a kind the digest cannot read: a fresh revision, so the chart is redrawn rather than kept stale
        return os.urandom(10).hex()


@functools.lru_cache(maxsize=8)
def colour_lut(scale: str | tuple[tuple[float, str], ...], n: int = 256) -> np.ndarray:
    """n RGB colours along a named Plotly scale, or one given as (share, colour) stops. Returns (n, 3) uint8, read-only.

    Kept per (scale, n) for the process, shared by every session: plotly's sampling validates each
    colour and looks the scale's name up through `inspect`, about 3 ms a call, and a grid or image
    figure asks for its scale's colours on every run (a profile of a server under the websocket
    load found this function in 7 % of its samples). The app uses two scales at two sizes."""
    stops = get_colorscale(scale) if isinstance(scale, str) else [list(stop) for stop in scale]
    colours = sample_colorscale(stops, np.linspace(0, 1, n), colortype="tuple")
    lut = np.round(np.asarray(colours) * 255).astype(np.uint8)
    lut.flags.writeable = False  # one array for every caller: nobody may change it
    return lut


def png(levels: np.ndarray, lut: np.ndarray, *, transparent: int | None = None) -> str:
    """An 8-bit palette PNG: one byte per pixel (a colour index) plus the 256-colour palette,
    a third of the size of RGB for the same picture, so even noise-like data stay well under 1 MB.
    Pixels of palette index `transparent` are see-through."""
    from PIL import Image

    image = Image.fromarray(levels.astype(np.uint8), mode="P")
    image.putpalette(lut.reshape(-1).tolist())
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6, **({} if transparent is None else {"transparency": transparent}))
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
