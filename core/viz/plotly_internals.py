"""The only module that touches Plotly's private structures (as the ui/internals package is for Streamlit's).

Written for and checked against plotly 7.1.0 (`WRITTEN_FOR`); tests/core/viz/test_plotly_internals.py
fails when an upgrade moves or changes one of them. Why they are used at all: building and
serialising a figure through plotly.py's public path validates every key of every axis and
deep-copies then base64-encodes every array, most of a chart's cost in a page's run
(core/viz/wire.py, core/viz/charts.py).

What is relied on, none of it documented API:

- `BaseFigure._data` (a list of each trace's validated properties, plain dicts holding numpy
  arrays as given) and `BaseFigure._layout` (the layout's, likewise).
- `BasePlotlyType._props`: one trace's validated properties, read in place (`to_plotly_json`
  deep-copies them).
- `BaseFigure.__init__(..., _validate=False)`: a figure built from plain dicts without checking
  them against the schema.
- `_plotly_utils.utils.to_typed_array_spec(array)`: the {dtype, bdata[, shape]} form plotly.py
  writes a numpy array in (what `to_dict` writes).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.utils import to_typed_array_spec

WRITTEN_FOR = "7.1.0"


def trace_dicts(fig: go.Figure) -> list[dict]:
    """Each trace's validated properties, in place (not copies)."""
    return fig._data


def layout_dict(fig: go.Figure) -> dict:
    """The layout's validated properties, in place."""
    return fig._layout


def props(trace) -> dict | None:
    """A trace object's validated properties, in place; None when it has none to read."""
    found = getattr(trace, "_props", None)
    return found if isinstance(found, dict) else None


def unvalidated(cls: type[go.Figure], data: list, layout: dict) -> go.Figure:
    """A figure of class `cls` from traces and a plain layout dict, without schema validation."""
    return cls(data=data, layout=layout, _validate=False)


def typed_array(array: np.ndarray) -> dict:
    """A numpy array as plotly.py writes it: {dtype, bdata[, shape]}."""
    return to_typed_array_spec(array)
