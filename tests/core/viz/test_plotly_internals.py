"""core.viz.plotly_internals: every private structure of Plotly it reads is there and means what it
assumes, checked against the public API that gives the same thing slowly. An upgrade of plotly
fails here first, loudly, naming what to re-check."""

from __future__ import annotations

import copy
import json

import numpy as np
import plotly
import plotly.graph_objects as go
import plotly.io as pio

from core.viz import plotly_internals as private

UPGRADE = "re-check every structure named in core/viz/plotly_internals.py's docstring against this plotly, then update WRITTEN_FOR"


def _plain(spec: dict) -> dict:
    """A spec as plain JSON values (key order aside)."""
    return json.loads(pio.to_json(spec, validate=False))


def _figure() -> go.Figure:
    return go.Figure(
        data=[go.Scatter(x=np.arange(3), y=np.array([0.5, 1.5, 2.5]), name="a"), go.Bar(x=[1, 2], y=np.array([3.0, 4.0], dtype=np.float32))],
        layout=dict(title=dict(text="t"), xaxis=dict(range=[0, 2]), template=None),
    )


def test_the_installed_plotly_is_the_one_the_module_was_written_for():
    assert plotly.__version__ == private.WRITTEN_FOR, UPGRADE


def test_the_trace_and_layout_dicts_are_the_figures_own_properties_in_place():
    fig = _figure()
    traces, layout = private.trace_dicts(fig), private.layout_dict(fig)
    assert isinstance(traces, list) and all(isinstance(t, dict) for t in traces) and isinstance(layout, dict), UPGRADE
    assert [t["type"] for t in traces] == ["scatter", "bar"] and traces[0]["name"] == "a", UPGRADE
    assert traces[0]["y"] is fig.data[0]["y"], UPGRADE  # the same array, not a copy
    for inner, public in zip(traces, fig.data, strict=True):  # every property as the public API reads it
        assert all(np.array_equal(np.asarray(value), np.asarray(public[key])) for key, value in inner.items() if key != "type"), UPGRADE
    assert layout["title"] == {"text": "t"} and list(layout["xaxis"]["range"]) == list(fig.layout.xaxis.range) == [0, 2], UPGRADE
    fig.data[0].name = "b"  # a change through the public API shows in place
    assert private.trace_dicts(fig)[0]["name"] == "b", UPGRADE


def test_a_traces_props_are_its_validated_properties_read_in_place():
    trace = go.Scatter(x=np.arange(4), y=np.ones(4), mode="lines")
    props = private.props(trace)
    assert props is not None and props["mode"] == "lines" and props["x"] is trace.x, UPGRADE
    assert _plain(props) == _plain({k: v for k, v in trace.to_plotly_json().items() if k not in ("x", "y")}) | _plain({"x": trace.x, "y": trace.y}), UPGRADE
    assert private.props(object()) is None


def test_an_unvalidated_figure_equals_a_validated_one_from_the_same_plain_dicts():
    traces = [go.Scatter(x=np.arange(3), y=np.arange(3.0))]
    layout = {"title": {"text": "t"}, "xaxis": {"title": {"text": "x"}, "range": [0, 2]}, "height": 300}
    fast = private.unvalidated(go.Figure, copy.deepcopy(traces), copy.deepcopy(layout))
    checked = go.Figure(data=copy.deepcopy(traces), layout=copy.deepcopy(layout))
    assert _plain(fast.to_dict()) == _plain(checked.to_dict()), UPGRADE


def test_a_typed_array_is_what_plotly_writes_for_an_array():
    for array in (np.arange(5, dtype=np.int32), np.linspace(0, 1, 4), np.ones((2, 3), dtype=np.float32)):
        written = go.Figure(go.Heatmap(z=array) if array.ndim == 2 else go.Scatter(y=array)).to_dict()["data"][0]
        assert private.typed_array(array) == written["z" if array.ndim == 2 else "y"], UPGRADE
