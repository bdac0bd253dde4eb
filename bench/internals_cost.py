"""What each of ui.internals' run wrappers saves per call: Streamlit's own function (`__wrapped__`)
against the wrapped one, timed in this process (the best of 7 repeats); and what ui.heatmap's data as
bytes saves against a dict.

    python -m bench.internals_cost

- the theme: the six sections of one new_session message (every full run sends one);
- a heatmap's data: Streamlit's JSON of a dict against the bytes of ui.heatmap.payload (per heatmap, per run).

Multiply by the calls of a run to see what a rerun saves; the load bench (bench.load.ab) says
what it comes to for the server under a room's load.
"""

from __future__ import annotations

import json
import timeit

import numpy as np


def best_us(fn, number: int) -> float:
    """µs per call: the fastest of 7 repeats of `number` calls."""
    return min(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6


def theme() -> tuple[float, float]:
    from streamlit.proto.NewSession_pb2 import NewSession
    from streamlit.runtime import app_session

    sections = ("theme", "theme.light", "theme.dark", "theme.sidebar", "theme.light.sidebar", "theme.dark.sidebar")

    def fill(populate) -> None:
        t = NewSession().custom_theme
        for section, msg in zip(sections, (t, t.light, t.dark, t.sidebar, t.light.sidebar, t.dark.sidebar)):
            populate(msg, section)

    wrapped = app_session._populate_theme_msg
    return best_us(lambda: fill(wrapped.__wrapped__), 200), best_us(lambda: fill(wrapped), 200)


def _spec() -> dict:
    """A heatmap spec of EXACT_CELLS cells, built as the pages build theirs (shared: core.viz.memo)."""
    from core.viz.grid import Sample
    from core.viz.heatmap import EXACT_CELLS, heatmap

    rows = 150
    z = np.random.default_rng(0).standard_normal((rows, EXACT_CELLS // rows))
    return heatmap([("p", z, Sample(0, z.shape[1], 1), Sample(0, rows, 1))], title="t", x_title="x", y_title="y", note="")


def heatmap_data() -> tuple[float, float]:
    """A heatmap's data on every run: Streamlit's JSON of it as a dict (`serialize_mixed_data`), against
    ui.heatmap.payload's bytes (the shared spec's JSON written once, the element's keys put in)."""
    from streamlit.components.v2.bidi_component.serialization import serialize_mixed_data
    from streamlit.proto.BidiComponent_pb2 import BidiComponent

    from ui.heatmap import payload

    spec, extra = _spec(), {"key": "k", "file": "k.png"}

    def as_bytes() -> None:
        BidiComponent().bytes = payload(spec, extra)

    return best_us(lambda: serialize_mixed_data({**spec, **extra}, BidiComponent()), 50), best_us(as_bytes, 50)


def main() -> int:
    from ui import internals

    installed = internals.install({})  # every wrapper, whatever PEE_STOCK_STREAMLIT says: the bench compares them with Streamlit's own
    if not all(installed.values()):
        raise SystemExit(f"not every wrapper is in place: {installed}")
    streamlit_us, wrapped_us = theme()
    print(f"theme, six sections of a new_session message:   Streamlit {streamlit_us:7.0f} µs, wrapped {wrapped_us:6.1f} µs")
    size = len(json.dumps({**_spec(), "key": "k"}))
    streamlit_us, wrapped_us = heatmap_data()
    label = f"a heatmap's data, {size / 1000:.0f} kB of JSON:"
    print(f"{label:<48}Streamlit {streamlit_us:7.0f} µs, as bytes {wrapped_us:4.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
