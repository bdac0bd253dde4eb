"""AppTest helpers: open the app on a page with given URL parameters, read its figures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from harness.app_run import component_data
from core.lab import labrun
from tests.links import tab_sets
from tests.pages import PAGE_FILES
from ui.heatmap import NAME

ROOT = Path(__file__).resolve().parents[2]
DEFAULTS = {"d_model": "128", "max_len": "256", "base": "10000"}
EXTREMES = {"d_model": "8192", "max_len": "131072", "base": "100000000"}


def open_page(page: str, **params: str) -> AppTest:
    """A fresh session whose first run is `page` with `params` in the URL, as a visitor following a
    deep link gets it: one script run (app.py, which runs the page)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for name, value in params.items():
        at.query_params[name] = value
    if PAGE_FILES[page]:
        at.switch_page(PAGE_FILES[page])
    return at.run()


def open_views(page: str, **params: str) -> list[AppTest]:
    """The page once per tab of its bound tabs, each opened through the URL as a link would
    (the page as opened with `params` first): together, every figure the page can show."""
    first = open_page(page, **params)
    runs = [first]
    for key, labels in tab_sets(first):
        if key in params:
            continue
        runs += [open_page(page, **params, **{key: label}) for label in labels[1:]]
    return runs


def open_tab(at: AppTest, label: str) -> AppTest:
    """Open the tab `label` of the page's bound tabs in this AppTest session, as a click on it
    would (the tabs' state is their key's session state, and the link follows), and rerun."""
    (key, labels), *_ = tab_sets(at)
    assert label in labels, (label, labels)
    at.session_state[key] = label
    at.query_params[key] = label  # AppTest sends its query string with every run: a bound widget would follow it back
    return at.run()


def every_figure(at: AppTest, sent=None) -> list[dict]:
    """Every Plotly figure (or, with `sent=grids`, every heatmap) the page shows in this AppTest
    session, tab by tab: each tab of its bound tab set opened in turn in this session (what an
    upload or a control set stays set), then the tab that was open opened again. A page without
    bound tabs: its figures."""
    sent = sent or figures
    sets = tab_sets(at)
    if not sets:
        return sent(at)
    (key, labels), *_ = sets
    was = at.session_state[key] if key in at.session_state else labels[0]
    found = []
    for label in labels:
        found += sent(open_tab(at, label))
    open_tab(at, was)
    return found


def figures(at: AppTest) -> list[dict]:
    """The Plotly figures the page sent, as the JSON the browser receives."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def figure(at: AppTest, key: str) -> dict:
    """The figure the page sent under the chart key `key` (plot(..., key=...))."""
    for el in at.get("plotly_chart"):
        if el.proto.id.endswith(f"-{key}"):
            return json.loads(el.proto.spec)
    raise KeyError(f"no chart with key {key!r}")


def chart_keys(at: AppTest) -> list[str]:
    """The chart keys of the figures the page sent, in page order."""
    return [el.proto.id.split("-", 2)[-1] for el in at.get("plotly_chart")]


PANEL_GRID = NAME  # ui/heatmap.py: every heatmap, painted by the browser from a core.viz.heatmap spec


def grids(at: AppTest) -> list[dict]:
    """The heatmaps the page sent (core.viz.heatmap specs, as the browser receives them), in page order."""
    return [json.loads(component_data(el.proto)) for el in at.get("bidi_component") if el.proto.component_name == PANEL_GRID]


def grid_keys(at: AppTest) -> list[str]:
    """The keys of the panel grids the page sent, in page order."""
    return [el.proto.id.split("-", 2)[-1] for el in at.get("bidi_component") if el.proto.component_name == PANEL_GRID]


def grid_map(at: AppTest) -> dict[str, dict]:
    """Every panel grid the page sent, by its key."""
    return dict(zip(grid_keys(at), grids(at)))


def grid(at: AppTest, key: str) -> dict:
    """The heatmap the page sent under the key `key` (ui.heatmap.draw_heatmap(..., key=...))."""
    sent = grid_map(at)
    if key not in sent:
        raise KeyError(f"no panel grid with key {key!r}")
    return sent[key]


def grid_bytes(at: AppTest) -> list[int]:
    return [len(component_data(el.proto)) for el in at.get("bidi_component") if el.proto.component_name == PANEL_GRID]


def _png(panel: dict):
    import base64
    import io

    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(panel["image"].split(",", 1)[1])))


def panel_palette(panel: dict):
    """A panel's PNG palette: 256 colours [r, g, b], index 255 the see-through one."""
    import numpy as np

    return np.asarray(_png(panel).getpalette()[: 3 * 256], dtype=np.int64).reshape(-1, 3)


def panel_levels(panel: dict):
    """The colour level (0..254, -1 blank) of every cell of a heatmap's panel as the browser
    paints it: its PNG's palette indices."""
    import numpy as np

    index = np.asarray(_png(panel), dtype=np.int64)
    return np.where(index == 255, -1, index)


def title_text(fig: dict) -> str:
    """A figure's title on one line: the lines core.viz.charts wraps a long title into, joined by
    spaces (the small-print note stays after its <br><sup>, its own lines joined the same way)."""
    head, sep, note = fig["layout"]["title"]["text"].partition("<br><sup>")
    return head.replace("<br>", " ") + sep + note.replace("</sup><br><sup>", " ")


def figure_bytes(at: AppTest) -> list[int]:
    return [len(el.proto.spec.encode()) for el in at.get("plotly_chart")]


def _shown(value):
    return re.sub(r"\\(.)", r"\1", value) if isinstance(value, str) else value


def plain_table(table) -> pd.DataFrame:
    """An st.table drawn by ui.display.static_table, its cells and headers as shown: the
    backslashes that keep them from being read as Markdown taken out."""
    frame = table.value.map(_shown)
    frame.columns = [_shown(c) for c in frame.columns]
    return frame


def assert_clean(at: AppTest) -> None:
    """No exception box, no error box."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.fixture(autouse=True)
def no_run_outlives_its_test():
    """A lab run a test started (a Train button pressed by a hostile widget state, a tiny run) is
    stopped when the test ends: left training, it would hold one of the server's trainers, and so
    make a later test wait in line, and take a core from every test after it."""
    yield
    labrun.stop_live_runs()


@pytest.fixture()
def page_at():
    return open_page


def decode(array):
    """A Plotly JSON array back to numpy: plotly 7 sends typed arrays as {dtype, bdata, shape}."""
    import base64

    import numpy as np

    if isinstance(array, dict) and "bdata" in array:
        values = np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"]))
        shape = array.get("shape")
        if shape:
            values = values.reshape([int(n) for n in str(shape).split(",")])
        return values
    return np.asarray(array)


def metric_values(at: AppTest) -> list[str]:
    """The values of the page's st.metric elements, in page order."""
    return [m.value for m in at.metric]
