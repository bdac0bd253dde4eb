"""A box over a heatmap sets the page's window (ui.heatmap.Zoom through ui.controls.Window, whose
slider is bound to the URL: tests/e2e/test_panel_grid.py sees the address change), a link's bad window gets a notice and the default, a
double-click's reset gives back the whole range, and a request that is not two whole numbers changes
nothing."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest


def _zoom_app() -> None:
    import streamlit as st

    from ui.controls import Window
    from ui.heatmap import Zoom

    rows, cols = Window("rows"), Window("cols", "Dimensions shown", noun="dimension")
    one = Window("both")  # positions against positions: one window for both axes
    if "request" in st.session_state:
        request = st.session_state.pop("request")
        st.session_state["applied"] = Zoom(rows=(rows, 100), cols=(cols, 64)).apply(request)
        Zoom(rows=(one, 50), cols=(one, 50)).apply(request)
    st.session_state["got"] = (rows.draw(100), cols.draw(64), one.draw(50))


def run(**params) -> AppTest:
    at = AppTest.from_function(_zoom_app)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def zoom(at: AppTest, request) -> AppTest:
    at.session_state["request"] = request
    return at.run()


def test_a_box_sets_each_axis_window():
    at = zoom(run(), {"rows": [10, 19], "cols": [40, 47]})
    assert not at.exception and at.session_state["applied"] is True
    assert at.session_state["got"] == ((10, 20), (40, 48), (10, 48))  # one window for both axes: the span of the box's rows and columns


def test_a_box_one_axis_wide_sets_only_the_other():
    at = zoom(run(), {"rows": None, "cols": [3, 5]})
    assert at.session_state["got"][:2] == ((0, 100), (3, 6))


def test_a_box_past_the_range_is_brought_inside_and_a_one_index_box_kept_two_wide():
    at = zoom(run(), {"rows": [90, 400], "cols": [63, 63]})
    assert at.session_state["got"][:2] == ((90, 100), (62, 64))


def test_a_double_click_resets_every_window_to_the_whole_range():
    at = zoom(run(), {"rows": [10, 19], "cols": [40, 47]})
    at = zoom(at, {"reset": True})
    assert at.session_state["applied"] is True and at.session_state["got"] == ((0, 100), (0, 64), (0, 50))


@pytest.mark.parametrize("request_", [None, "rows", {"rows": [1.5, 3]}, {"rows": [True, 3]}, {"rows": [1, 2, 3]}, {"reset": "yes"}, {}])
def test_a_request_that_is_not_two_whole_numbers_changes_nothing(request_):
    at = zoom(run(), request_)
    assert not at.exception and at.session_state["applied"] is False
    assert at.session_state["got"] == ((0, 100), (0, 64), (0, 50))


def test_a_link_sets_the_window():
    at = run(rows=["5", "9"])
    assert not at.warning and at.session_state["got"][0] == (5, 10)


@pytest.mark.parametrize("bad", [["9", "5"], ["5"], ["a", "9"], ["5", "100"], ["-1", "3"], ["1.5", "3"], ["1", "2", "3"]])
def test_a_bad_link_window_gets_a_notice_and_the_default(bad):
    at = run(rows=bad)
    assert not at.exception
    (notice,) = [w.value for w in at.warning]
    assert "rows" in notice and "two positions from 0 to 99, the first no later than the last" in notice
    assert at.session_state["got"][0] == (0, 100)
