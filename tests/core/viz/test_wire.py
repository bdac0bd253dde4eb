"""core.viz.wire.Figure.to_dict, built in one pass over the validated properties, writes the same
JSON as plotly's own path (deep copy, typed arrays, then `as_lists` on scatters and small heatmaps)
for every kind of figure the app draws and for the array kinds plotly treats specially (int64
beyond int32, float32, strings, empty arrays, skipped keys); and the spec it returns is a copy."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz import charts, wire
from core.viz.grid import strided

RNG = np.random.default_rng(5)


def _figures() -> dict[str, go.Figure]:
    pe = sinusoidal_encoding(64, 32)  # float32: written to 8 significant digits as lists
    small = strided(32, 32)
    side = 200  # 40,000 cells: an image, its colour bar and a hover grid
    big = RNG.standard_normal((side, side)).astype(np.float32)
    xy = {"title": "t", "x_title": "x", "y_title": "y"}
    return {
        "small heatmap": charts.heatmap(pe, small, strided(64, 64), **xy),
        "image heatmap": charts.heatmap(big, strided(side, side), strided(side, side), **xy),
        "lines": charts.lines([("a", np.arange(5), np.linspace(0, 1, 5)), ("b", np.arange(5), np.arange(5, dtype=np.float32))], **xy),
        "spectrum": charts.spectrum(np.array([6.28, 62.8, 628.0]), 100, title="s"),
        "phase circle": charts.phase_circle(np.zeros(3), np.ones(3), np.arange(3), title="c"),
        "side by side": charts.side_by_side_heatmaps([("a", pe, small, strided(64, 64)), ("b", -pe, small, strided(64, 64))], **xy),
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
    mid = RNG.standard_normal((120, 120))  # 14,400 float64 cells each, 28,800 in all: above LIST_CELLS, so typed arrays
    two = wire.Figure(data=[go.Heatmap(z=mid), go.Heatmap(z=-mid, xaxis="x2")], layout=dict(template=None))
    return {"plotly's special cases": fig, "two heatmaps, typed": two}


CASES = {**_figures(), **_plain_cases()}


@pytest.mark.parametrize("name", list(CASES))
def test_the_one_pass_spec_writes_what_plotlys_own_path_writes(name):
    fig = CASES[name]
    assert isinstance(fig, wire.Figure)
    fast, reference = fig.to_dict(), fig._to_dict_via_plotly()
    assert pio.to_json(fast, validate=False) == pio.to_json(reference, validate=False)


def test_the_sinusoid_goes_as_lists_of_short_floats_and_the_big_image_as_a_png():
    heat = CASES["small heatmap"].to_dict()["data"][0]
    assert isinstance(heat["z"], list) and heat["z"][0][0] == 0.0 and heat["z"][0][1] == 1.0  # sin 0, cos 0
    assert max(_digits(v) for row in heat["z"] for v in row) == 8  # float32 written to 8 significant digits, not float64's 17
    image, bar, probe = CASES["image heatmap"].to_dict()["data"]
    assert image["type"] == "image" and image["source"].startswith("data:image/png;base64,")
    assert probe["type"] == "heatmap" and isinstance(probe["z"], list)


def _digits(value: float) -> int:
    mantissa = repr(abs(value)).split("e")[0].replace(".", "").lstrip("0")
    return len(mantissa.rstrip("0")) if mantissa else 0


def test_typed_arrays_stay_typed_above_the_list_budget():
    a, b = (trace["z"] for trace in CASES["two heatmaps, typed"].to_dict()["data"])
    assert a["dtype"] == "f8" and a["shape"] == "120, 120"
    assert np.array_equal(wire.typed_array(b), -wire.typed_array(a))


def test_the_spec_is_a_copy():
    fig = CASES["lines"]
    spec = fig.to_dict()
    spec["data"][0]["y"][0] = 99.0
    spec["layout"]["title"]["text"] = "changed"
    assert fig.data[0].y[0] == 0.0 and fig.layout.title.text != "changed"
    assert fig.to_dict()["data"][0]["y"][0] == 0.0
