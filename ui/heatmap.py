"""Every heatmap of the app, painted by one browser component (ui/components/heatmap/) from a core.viz.heatmap
spec; with a `Zoom`, a box dragged over a panel sets the page's window controls (docs/architecture.md, "The
drawing rule"). A slider step sends new data to the same component, which paints in place: no chart is rebuilt."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

import streamlit as st

from core.viz import memo
from ui.components import component
from ui.controls import Window

NAME = "pee.heatmap"


@dataclass(frozen=True)
class Zoom:
    """What a box over the heatmap sets: the window control of its rows and of its columns, each
    with the size of the range it windows (None: that axis does not zoom). One control for both (a
    matrix of positions against positions) takes the span of the box's rows and columns together.
    `hint` is shown beside the colour key."""

    rows: tuple[Window, int] | None
    cols: tuple[Window, int] | None
    hint: str = "Drag a box over a panel to zoom in; double-click for the whole range."

    def apply(self, request: object) -> bool:
        """Set the windows from what the component sent: {"rows": [first, last] | None, "cols": ...}
        or {"reset": True}. Anything else changes nothing. Returns whether a window was set."""
        if not isinstance(request, dict):
            return False
        axes = [axis for axis in (self.rows, self.cols) if axis is not None]
        if request.get("reset") is True:
            for window, size in {window.key: (window, size) for window, size in axes}.values():
                window.reset(size)
            return bool(axes)
        spans: dict[str, list] = {}  # window key -> [window, size, first, last]
        for axis, name in ((self.rows, "rows"), (self.cols, "cols")):
            span = request.get(name)
            if axis is None or not _pair(span):
                continue
            window, size = axis
            if window.key in spans:  # one window for both axes: the span of both
                spans[window.key][2:] = [min(spans[window.key][2], span[0]), max(spans[window.key][3], span[1])]
            else:
                spans[window.key] = [window, size, span[0], span[1]]
        for window, size, first, last in spans.values():
            window.zoom_to(first, last, size)
        return bool(spans)


def _pair(span: object) -> bool:
    """Two whole numbers, as the component sends a window."""
    return isinstance(span, list) and len(span) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in span)


def _zoomed(key: str, zoom: Zoom) -> None:
    """A box or a double-click over the heatmap: its windows set, then the whole page runs (the
    windows' sliders may sit outside the fragment the heatmap is drawn in)."""
    got = st.session_state.get(key)
    if zoom.apply(got.get("zoom") if hasattr(got, "get") else None):
        st.rerun(scope="app")


def _json(spec: object) -> bytes:
    return json.dumps(spec).encode()


def payload(spec: dict, extra: dict) -> bytes:
    """The component's data: the JSON of `spec` with `extra`'s keys put in (theirs win), as bytes. The
    spec's own JSON is written once per shared spec (core.viz.memo: the same object for every session
    that asks for its settings), not on every run, as Streamlit would for a dict (a ms a heatmap)."""
    if not spec:
        return _json(extra)
    body = memo.STORE.derived(spec, _json)
    return body[:-1] + b", " + _json(extra)[1:] if extra else body


def draw_heatmap(spec: dict, *, key: str, zoom: Zoom | None = None) -> None:
    """Paint a core.viz.heatmap spec under a key of its own (the component keeps its canvases
    across reruns and paints them again when the spec changes); with `zoom`, a box over it sets
    the page's windows."""
    extra: dict = {"key": key, "file": f"{key}.png"}
    if zoom is None:
        component(NAME, "heatmap")(data=payload(spec, extra), key=key, height="content")
        return
    extra["zoom"] = {"y": zoom.rows is not None, "x": zoom.cols is not None, "hint": zoom.hint}
    component(NAME, "heatmap")(data=payload(spec, extra), key=key, height="content", on_zoom_change=functools.partial(_zoomed, key, zoom))
