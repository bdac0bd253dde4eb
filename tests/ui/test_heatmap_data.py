"""What ui.heatmap sends the browser component: the JSON of the spec with the element's own keys put in,
as bytes (index.js reads them back: tests/js/heatmap.test.mjs), the spec's JSON written once per shared spec."""

from __future__ import annotations

import json

import numpy as np

from core.viz import memo
from core.viz.grid import strided
from core.viz.heatmap import ScaleGroup, grouped_heatmap
from ui.heatmap import payload


def _spec():
    z = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    group = ScaleGroup([("z", z, strided(4, 4), strided(3, 3))], colorbar_title="value", hover="value")
    return grouped_heatmap([group], title="z over p and i", x_title="i", y_title="p")


def test_the_payload_is_the_spec_with_the_elements_keys_put_in():
    spec = _spec()
    extra = {"key": "k", "file": "k.png", "zoom": {"y": True, "x": False, "hint": 'Drag "a" box'}}
    assert json.loads(payload(spec, extra)) == {**spec, **extra}
    assert json.loads(payload({**spec, "key": "old"}, {"key": "new"}))["key"] == "new"  # the element's keys win, as {**spec, **extra}
    assert json.loads(payload({}, {"key": "k"})) == {"key": "k"} and json.loads(payload(spec, {})) == spec


def test_a_shared_specs_json_is_written_once():
    spec = _spec()  # a shared result (core.viz.memo): the same object for the same arguments
    assert spec is _spec()
    first = payload(spec, {"key": "a"})
    assert memo.STORE.made and payload(spec, {"key": "a"}) == first
    assert list(memo.STORE.made.values())[-1] == json.dumps(spec).encode()
    fresh = dict(spec)  # not held: written each time, never kept
    before = dict(memo.STORE.made)
    assert json.loads(payload(fresh, {"key": "b"})) == {**spec, "key": "b"} and memo.STORE.made == before
