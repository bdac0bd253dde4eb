"""The whole bad-input and hostile-link batteries (tests/links.py) through the checks that read a
link: one small app draws every kind of link-checked control the pages use (the shared settings
through ui.params.parse_param, and ui.controls' numbers, choices with and without labels, lists,
switches, text, linked numbers, a bound expander and bound tabs), each value goes into every one
of its parameters at once, and what the app made of it is judged by tests/links.py's oracle: no
exception, nothing formed from the input, a valid value everywhere, a notice naming every
parameter whose value was not taken, a valid value on a range's edge taken as it is, and a plain
rerun after it clean.

A run of this app costs a few milliseconds where a page costs a second, so every value is tried
here; tests/app/test_bad_input.py then proves, one run per class of input per page, that each
page reads its links through these checks (and `test_the_pages_read_links_only_through_these_kinds`
that no page reads one another way).
"""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.links import BATTERY, CASES, EDGES, NUMBERS, SCRIPT_BOUND_S, bound, case_values, history_run, link_problems, params_read, query_groups


def _every_control_app() -> None:
    """One control of every kind that checks a link's value, as the pages draw them."""
    import streamlit as st

    from ui import controls
    from ui.controls import check_url_value
    from ui.display import quoted
    from ui.reorder import word_order
    from ui.sidebar import shared_controls, show_url_notices
    from ui.tabs import url_tabs

    shared_controls()
    show_url_notices()
    controls.number(st, "Whole", "whole", 1, 64, 8)
    controls.number(st, "Rate", "rate", 1e-5, 1.0, 0.01, expected="a number from {lo} to {hi}", format="%.4g")
    controls.number(st, "Whole slider", "slid", 0, 16, 4, slider=True)
    controls.number(st, "Scale", "scale", 0.0, 4.0, 1.0, slider=True, step=0.5, expected="a number from {lo} to {hi}")
    controls.choice(st, "Heads", "heads", [1, 2, 4, 8], 2)
    controls.choice(st, "Width", "width", [16, 32, 64], 32, widget="select_slider")
    controls.choice(st, "Base", "grid_base", [10, 100], 10, widget="segmented_control")
    labels = {"half": "i, i + d/2", "interleaved": "2i, 2i+1"}
    controls.choice(st, "Layout", "layout", ["half", "interleaved"], "half", labels=labels, widget="segmented_control")
    controls.choice(st, "Scheme", "scheme", ["sinusoidal", "rope"], "sinusoidal", labels=str.upper)
    controls.choices(st, "Schemes", "schemes", ["rope", "alibi", "t5", "sinusoidal"], ["rope"])
    controls.toggle(st, "Flag", "flag", False)
    words = controls.text(st, "Words", "words", "a b", 200, "a sentence is up to {longest} characters")
    st.caption(f"Your words: {quoted(words)}")
    word_order("order", ["dog", "bites", "man"])
    controls.linked_number(st, "Dimension", "dim", 0, 383, 5)
    controls.linked_number(st, "Component", "pc", 1, 10, 1, select_slider=True)
    check_url_value("why", lambda raw: raw.lower() in ("true", "false"), "it is true (open) or false")
    with st.expander("Why", key="why", bind="query-params"):
        st.write("because")
    url_tabs("view", {"One": lambda: st.write("one"), "Two": lambda: st.write("two")})


def _open(given: dict[str, str]) -> AppTest:
    at = AppTest.from_function(_every_control_app, default_timeout=30)
    for key, value in given.items():
        at.query_params[key] = value
    return at.run()


PARAMS = params_read(_open({}))


def _judge(given: dict[str, str], *, edges: bool = False) -> None:
    start = time.perf_counter()
    at = _open(given)
    seconds = time.perf_counter() - start
    problems = link_problems(at, PARAMS, given, edges=edges)
    assert not problems, problems
    assert seconds < SCRIPT_BOUND_S, f"{seconds:.1f} s for one run"
    at.run()  # the session carries on
    assert not at.exception, [e.value for e in at.exception]


def test_the_app_reads_every_kind_the_pages_use():
    kinds = {p.kind for p in PARAMS}
    assert ("shared", "") in kinds and ("page", "tabs") in kinds and ("bound", "expander") in kinds
    assert len(PARAMS) >= 18, [p.name for p in PARAMS]  # every control above found by the discovery the page tests use


@pytest.mark.parametrize("case", list(BATTERY))
def test_hostile_value_in_every_parameter(case):
    value = BATTERY[case]
    for group in query_groups(PARAMS, value):
        _judge({p.name: value for p in group})


@pytest.mark.parametrize("case", list(CASES))
def test_bad_value_in_every_parameter(case):
    given = case_values(PARAMS, case)
    assert given, f"no parameter takes a {case} value"
    _judge(given, edges=case in EDGES)


BACK = [*(f"battery:{case}" for case in NUMBERS), *(case for case in CASES if case not in EDGES)]


@pytest.mark.parametrize("case", BACK)
def test_a_bad_value_met_on_back_gets_the_first_loads_check(case):
    # the session opened clean, then Back or Forward to an entry whose URL holds the value in every parameter bound to a widget
    # (history.pushState of a crafted URL, then back): Streamlit seeds those widgets from it again, so it must be checked again
    params = bound(PARAMS)
    assert {p.kind for p in params} >= {("bound", "number_input"), ("bound", "slider"), ("bound", "text_input"), ("page", "tabs")}
    given = {p.name: NUMBERS[case.split(":")[1]] for p in params} if case.startswith("battery:") else case_values(params, case)
    at = _open({})
    problems = link_problems(history_run(at, given), params, given)
    assert not problems, problems
    at.run()  # the session carries on
    assert not at.exception, [e.value for e in at.exception]
