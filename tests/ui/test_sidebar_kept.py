"""A page that shows none of the shared settings keeps their values (ui.sidebar._kept), even when a
widget's value is missing from Session State: a client that sends only the widget it moved (the load
bench's websocket visitor does) left the slider keys without a value, and reading them raised."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _app() -> None:
    import streamlit as st

    from ui.sidebar import shared_controls

    if st.session_state.get("page") == "none":
        st.session_state.pop("base_slider", None)  # as after a run whose message carried no state for it
        shared_controls(frozenset(), frozenset())
    else:
        shared_controls(frozenset({"d_model", "max_len", "base"}), frozenset())


def test_a_page_without_settings_keeps_them_when_a_slider_has_no_value():
    at = AppTest.from_function(_app)
    at.query_params["d_model"] = "64"
    at.run()
    at.session_state["page"] = "none"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["d_model"] == 64 and at.query_params["d_model"] == "64"
