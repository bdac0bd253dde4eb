"""ui.controls: one description of a control checks the link's value against the range or options
it draws, names them in the notice, and draws the widget bound to the URL (choices with labels by
their plain names)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ui.controls import Choice, Number, _listed


def _numbers_app() -> None:
    import streamlit as st

    from ui.controls import Number, check_links, number

    wide = Number("wide", "Wide", 0, 2**31 - 1, 7, expected="the seed is a whole number from {lo} to {hi:,}")
    rate = Number("rate", "Rate", 1e-5, 1.0, 0.01, expected="the rate is a number from {lo:.5f} to {hi:g}", format="%.4g")
    check_links(wide, rate)
    st.session_state["got_values"] = (wide.draw(), rate.draw())
    st.session_state["got_followed"] = number(st, "Followed", "followed", 0, 99, st.session_state.get("follow_default", 10), follow=True)


def _choices_app() -> None:
    import streamlit as st

    from ui.controls import choice, choices, text, toggle

    st.session_state["got_heads"] = choice(st, "Heads", "heads", [1, 2, 4, 8], 2, expected="the head count is {options}")
    st.session_state["got_layers"] = choice(st, "Layers", "layers", [1, 2, 3, 4], 1, expected="layers are {first} to {last}", widget="select_slider")
    st.session_state["got_layout"] = choice(st, "Layout", "layout", ["half", "interleaved"], "half", labels={"half": "i, i + d/2", "interleaved": "2i, 2i+1"})
    st.session_state["got_picked"] = choices(st, "Schemes", "schemes", ["rope", "alibi", "t5"], ["rope"], labels=str.upper)
    st.session_state["got_flag"] = toggle(st, "Flag", "flag", False)
    st.session_state["got_words"] = text(st, "Words", "words", "a b", 10, "a sentence is up to {longest} characters")


def _linked_app() -> None:
    import streamlit as st

    from ui.controls import linked_number

    st.session_state["got_dim"] = linked_number(st, "Dimension", "dim", 0, 383, 5)
    st.session_state["got_pc"] = linked_number(st, "Component", "pc", 1, 10, 1, select_slider=True)


def run(app, **params: str) -> AppTest:
    at = AppTest.from_function(app)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


def test_the_notice_names_the_range_the_widget_draws():
    at = run(_numbers_app, wide="-1", rate="5")
    assert not at.exception
    assert warnings(at) == [
        "`wide='-1'` in the link is not valid: the seed is a whole number from 0 to 2,147,483,647. Using the default.",
        "`rate='5'` in the link is not valid: the rate is a number from 0.00001 to 1. Using the default.",
    ]
    assert at.session_state["got_values"] == (7, 0.01)
    wide = at.number_input(key="wide")
    assert (wide.min, wide.max, wide.value) == (0, 2**31 - 1, 7)


def test_good_link_values_are_taken_and_typed():
    at = run(_numbers_app, wide="12.0", rate="0.5")
    assert not at.exception and not at.warning
    values = at.session_state["got_values"]
    assert values == (12, 0.5) and isinstance(values[0], int) and isinstance(values[1], float)


@pytest.mark.parametrize("raw", ["-inf", "1e309", "9" * 400, "abc"])
def test_values_a_bound_int_widget_would_raise_on_give_a_notice(raw):
    at = run(_numbers_app, wide=raw)
    assert not at.exception, raw
    assert len(at.warning) == 1 and at.warning[0].value.startswith("`wide=")


def test_a_followed_default_moves_until_the_user_moves_the_control():
    at = AppTest.from_function(_numbers_app)
    at.session_state["follow_default"] = 10
    at.run()
    assert at.session_state["got_followed"] == 10
    at.session_state["follow_default"] = 20
    at.run()
    assert at.session_state["got_followed"] == 20  # untouched: follows
    at.number_input(key="followed").set_value(33).run()
    at.session_state["follow_default"] = 30
    at.run()
    assert at.session_state["got_followed"] == 33  # moved: kept


def test_choices_check_their_options_and_keep_plain_names_in_the_url():
    at = run(_choices_app, heads="3", layers="9", layout="diagonal", schemes="rope,warp", flag="maybe", words="x" * 11)
    assert not at.exception, [e.value for e in at.exception]
    text = warnings(at)
    assert "`heads='3'` in the link is not valid: the head count is 1, 2, 4 or 8. Using the default." in text
    assert "`layers='9'` in the link is not valid: layers are 1 to 4. Using the default." in text
    assert any(w.startswith("`layout='diagonal'` in the link is not one of half, interleaved; using half.") for w in text)
    assert any("'warp'" in w and "left out" in w for w in text)
    assert "`flag='maybe'` in the link is not valid: a switch is true or false. Using the default." in text
    assert any("a sentence is up to 10 characters" in w for w in text)
    assert (at.session_state["got_heads"], at.session_state["got_layers"], at.session_state["got_layout"]) == (2, 1, "half")
    assert at.session_state["got_picked"] == ["rope"] and at.session_state["got_flag"] is False and at.session_state["got_words"] == "a b"
    assert at.query_params["layout"] == "half" and at.query_params["schemes"] == "rope"


def test_a_labelled_choice_reads_and_writes_its_plain_name():
    at = run(_choices_app, layout="interleaved", schemes="t5,alibi", heads="8", flag="true")
    assert not at.exception and not at.warning, warnings(at)
    assert at.session_state["got_layout"] == "interleaved" and at.query_params["layout"] == "interleaved"
    assert at.session_state["got_picked"] == ["t5", "alibi"] and at.session_state["got_heads"] == 8 and at.session_state["got_flag"] is True


def test_a_linked_number_reads_plain_digits_once_and_writes_the_url():
    at = run(_linked_app, dim="7", pc="3")
    assert not at.exception and not at.warning
    assert (at.session_state["got_dim"], at.session_state["got_pc"]) == (7, 3)
    assert (at.query_params["dim"], at.query_params["pc"]) == ("7", "3")
    bad = run(_linked_app, dim="7.0", pc="11")
    assert warnings(bad) == [
        "`dim='7.0'` in the link is not valid: a whole number from 0 to 383. Using the default.",
        "`pc='11'` in the link is not valid: a whole number from 1 to 10. Using the default.",
    ]
    assert (bad.session_state["got_dim"], bad.session_state["got_pc"]) == (5, 1)


def test_option_lists_are_written_as_a_sentence():
    assert _listed([16, 32, 64]) == "16, 32 or 64" and _listed(["half"]) == "half"
    assert Choice("k", "K", [1, 2], 1, expected="k is {options}").expected.format(options=_listed([1, 2])) == "k is 1 or 2"
    assert Number("n", "N", 0, 10, 3).whole and not Number("x", "X", 0.0, 1.0, 0.5).whole
