"""ui.rope_controls: the scaling controls come from the kinds' records (core.schemes.rope.SCALING_KINDS), and
a link's factor and original context are checked by the chosen kind's record before their widgets exist: a
value it refuses is named with its own sentence and dropped, never left for a red box further down."""

from __future__ import annotations

import dataclasses

import pytest
from streamlit.testing.v1 import AppTest

from core.schemes import rope
from ui import rope_controls


def _scaling_app() -> None:
    import streamlit as st

    from ui.rope_controls import check_scaling_links, factor_control, original_len_control

    check_scaling_links(default="yarn")
    factor = factor_control()
    st.session_state["got"] = (st.session_state["scaling"], factor, original_len_control(st, 1024, factor))


def run(**params: str) -> AppTest:
    at = AppTest.from_function(_scaling_app)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


def test_the_controls_are_the_records():
    on_controls = [name for name, kind in rope.SCALING_KINDS.items() if kind.controls is not None]
    assert rope_controls.KINDS == ("none", *on_controls) and {"longrope", "proportional"}.isdisjoint(on_controls)
    assert all(rope_controls.KIND_LABELS[name] == kind.label for name, kind in rope.SCALING_KINDS.items())
    assert all(rope.SCALING_KINDS[name].controls.factor in rope_controls.FACTOR_HELP for name in on_controls)
    assert all(rope_controls.reads_original(k) == ("original_max_len" in rope.SCALING_KINDS[k].reads) for k in on_controls)
    assert not rope_controls.reads_original("none")
    # by hand: linear and ntk divide by s whatever the context; dynamic, yarn and llama3 measure against it
    assert {k: rope_controls.reads_original(k) for k in ("linear", "ntk", "dynamic", "yarn", "llama3")} == {
        "linear": False, "ntk": False, "dynamic": True, "yarn": True, "llama3": True,
    }


@pytest.mark.parametrize("kind", ["none", "linear", "yarn"])
def test_a_factor_below_one_is_named_with_the_records_sentence(kind):
    at = run(scaling=kind, factor="0", original_len="64")
    assert not at.exception and not at.error
    refused = "factor must be at least 1, got 0.0: a scaling factor below 1 would shrink the context"  # the record's sentence
    expected = "the factor is a number from 1 to 1,024" if kind == "none" else refused  # no record: the range
    assert warnings(at) == [f"`factor='0'` in the link is not valid: {expected}. Using the default."]
    assert at.session_state["got"] == (kind, 4.0, 64) and "factor" not in at.query_params


def test_what_a_record_refuses_the_link_check_refuses(monkeypatch):
    # a kind whose own check refuses factors above 8 (inside the control's range): its sentence, at the link check
    def check(scaling: rope.RopeScaling) -> None:
        if scaling.factor > 8:
            raise ValueError(f"factor must be at most 8 for this kind, got {scaling.factor!r}.")

    monkeypatch.setitem(rope.SCALING_KINDS, "linear", dataclasses.replace(rope.SCALING_KINDS["linear"], check=check))
    at = run(scaling="linear", factor="10", original_len="64")
    assert warnings(at) == ["`factor='10'` in the link is not valid: factor must be at most 8 for this kind, got 10.0. Using the default."]
    assert at.session_state["got"] == ("linear", 4.0, 64)
    taken = run(scaling="linear", factor="8", original_len="0")  # 8 taken; a bad original context named on its own
    assert taken.session_state["got"] == ("linear", 8.0, 128)
    assert warnings(taken) == ["`original_len='0'` in the link is not valid: original_max_len must be a whole number of at least 1, got 0. Using the default."]


def test_good_values_are_taken_as_they_are():
    at = run(scaling="llama3", factor="1", original_len="131072")
    assert not warnings(at) and at.session_state["got"] == ("llama3", 1.0, 131_072)
