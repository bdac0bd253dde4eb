"""core.viz.wire.Figure.to_dict, built in one pass over the validated properties, writes the same
JSON as plotly's own path (deep copy, typed arrays, then `_as_lists` on scatters)
for every kind of figure the app draws and for the array kinds plotly treats specially (int64
beyond int32, float32, strings, empty arrays, skipped keys); and the spec it returns is a copy."""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz import charts, wire

RNG = np.random.default_rng(5)


def _typed_array(value) -> np.ndarray:
    """A typed-array spec ({dtype, bdata[, shape]}) as a numpy array (empty if it is not one)."""
    if not (isinstance(value, dict) and "bdata" in value and "dtype" in value):
        return np.empty(0)
    array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return array.reshape([int(n) for n in str(value["shape"]).split(",")]) if value.get("shape") else array


def _as_lists(node) -> None:
    """Typed-array specs inside a trace dict back to lists, in place."""
    for key, value in node.items() if isinstance(node, dict) else ():
        array = _typed_array(value)
        if array.size or (isinstance(value, dict) and "bdata" in value):
            node[key] = (wire.short_floats(array) if array.dtype == np.float32 else array).tolist()
        elif isinstance(value, dict):
            _as_lists(value)


def _via_plotly(fig: go.Figure) -> dict:
    """The reference: plotly's own `to_dict` (typed arrays throughout), scatter arrays turned back into lists."""
    spec = go.Figure.to_dict(fig)
    if spec.get("layout", {}).get("template", 0) is None:
        del spec["layout"]["template"]
    for trace in spec["data"]:
        if trace.get("type") in wire.LISTED:
            _as_lists(trace)
    return spec


def _figures() -> dict[str, go.Figure]:
    xy = {"title": "t", "x_title": "x", "y_title": "y"}
    path = RNG.standard_normal((20, 3))
    return {
        "lines": charts.lines([("a", np.arange(5), np.linspace(0, 1, 5)), ("b", np.arange(5), np.arange(5, dtype=np.float32))], **xy),
        "spectrum": charts.spectrum(np.array([6.28, 62.8, 628.0]), 100, title="s"),
        "phase circle": charts.phase_circle(np.zeros(3), np.ones(3), np.arange(3), title="c"),
        "paths": charts.position_paths([("a", path[:, :2], np.arange(20))] * 2, title="p", axis_titles=("PC 1", "PC 2")),
        "paths 3-D": charts.position_paths([("a", path, np.arange(20))], title="p"),
    }


def _plain_cases() -> dict[str, go.Figure]:
    """Arrays plotly encodes in its own ways, in a wire.Figure built directly."""
    fig = wire.Figure(
        data=[
            go.Scatter(
                x=np.arange(4, dtype=np.int64) * 2**40,
                y=np.array([1.5, np.nan, 2.5, 3.0]),
                text=np.array(["a", "b", "c", "d"]),
                customdata=np.arange(8).reshape(4, 2),
            ),
            go.Heatmap(z=np.arange(6, dtype=np.int64).reshape(2, 3), x=np.array([], dtype=float), text=[["u", "v", "w"], ["x", "y", "z"]]),
            go.Bar(x=np.arange(3, dtype=np.uint64), y=np.array([0.1, 0.2, 0.3], dtype=np.float32)),
        ],
        layout=dict(xaxis=dict(range=np.array([0.0, 5.0]), tickvals=np.arange(3), ticktext=["0", "1", "2"]), template=None, datarevision="r"),
    )
    return {"plotly's special cases": fig}


CASES = {**_figures(), **_plain_cases()}


@pytest.mark.parametrize("name", list(CASES))
def test_the_one_pass_spec_writes_what_plotlys_own_path_writes(name):
    fig = CASES[name]
    assert isinstance(fig, wire.Figure)
    fast, reference = fig.to_dict(), _via_plotly(fig)
    assert pio.to_json(fast, validate=False) == pio.to_json(reference, validate=False)


def test_float32_scatter_values_go_as_lists_of_short_floats():
    y = sinusoidal_encoding(16, 2)[:, 0].astype(np.float32)  # float32 sines: written to 8 significant digits as lists
    line = wire.Figure(data=[go.Scatter(x=np.arange(16), y=y)], layout=dict(template=None)).to_dict()["data"][0]
    assert isinstance(line["y"], list) and line["y"][0] == 0.0
    assert max(_digits(v) for v in line["y"]) == 8  # not float64's 17
    np.testing.assert_allclose(line["y"], y, rtol=1e-7)


def _digits(value: float) -> int:
    mantissa = repr(abs(value)).split("e")[0].replace(".", "").lstrip("0")
    return len(mantissa.rstrip("0")) if mantissa else 0


def test_arrays_of_other_traces_stay_typed():
    bar = CASES["plotly's special cases"].to_dict()["data"][2]
    assert bar["type"] == "bar" and bar["y"]["dtype"] == "f4"
    np.testing.assert_array_equal(_typed_array(bar["y"]), np.array([0.1, 0.2, 0.3], dtype=np.float32))


def test_the_spec_is_a_copy():
    fig = CASES["lines"]
    spec = fig.to_dict()
    spec["data"][0]["y"][0] = 99.0
    spec["layout"]["title"]["text"] = "changed"
    assert fig.data[0].y[0] == 0.0 and fig.layout.title.text != "changed"
    assert fig.to_dict()["data"][0]["y"][0] == 0.0


def test_the_data_revision_follows_the_data_and_never_raises():
    a, b = go.Figure(go.Scatter(x=[1, 2], y=[1, 3])), go.Figure(go.Scatter(x=[1, 2], y=[1, 4]))
    assert wire.digest(a.data) == wire.digest(go.Figure(go.Scatter(x=[1, 2], y=[1, 3])).data) != wire.digest(b.data)
    import datetime  # a kind the digest does not read: each call a fresh revision (the chart redrawn), not an exception

    dated = go.Figure(go.Scatter(x=[datetime.date(2020, 1, 1)], y=[1])).data
    assert len(wire.digest(dated)) == 20 and wire.digest(dated) != wire.digest(dated)
