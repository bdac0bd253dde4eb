"""A browser that reconnects to a restarted server: the new session's first run carries the
browser's widget values, the user's move among them, and the URL must not undo that move
(ui.internals.session.widget_values_sent_by_browser; tests/e2e/test_faults.py does the same with a real restart).

AppTest's first run normally sends no widget state, like a fresh page load. Here the first run
of a fresh AppTest is given the states a reconnecting browser sends (every widget on the page,
in the wire format Chromium was seen to use: a select_slider as its option label, a
number_input as int_value / double_value, a segmented_control as a list of labels), through
the private AppTest._run(widget_state=...).
"""

from __future__ import annotations

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.testing.v1 import AppTest

from tests.app.conftest import PAGE_FILES, ROOT, assert_clean, open_page

URL = {"d_model": "64", "max_len": "100", "base": "500"}


def browser_states(at: AppTest, moves: dict[str, object]) -> WidgetStates:
    """What a browser showing `at` sends when the user has made `moves` (widget key -> value:
    a str is a select_slider label, a list a multi-label value, an int or float a number)."""
    states = WidgetStates()
    states.CopyFrom(at._tree.get_widget_states())  # noqa: SLF001 - every widget on the page, as shown
    for key, value in moves.items():
        widget = next(w for w in states.widgets if w.id.endswith(f"-{key}"))
        if isinstance(value, str):
            widget.string_array_value.data[:] = [value]
        elif isinstance(value, list):
            widget.string_array_value.data[:] = value
        elif isinstance(value, float):
            widget.double_value = value
        else:
            widget.int_value = value
    return states


def fresh_session(page: str, params: dict[str, str], states: WidgetStates) -> AppTest:
    """A new session (a new AppTest) whose first run, on `page` with `params` in the URL,
    carries `states` from the browser."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for name, value in params.items():
        at.query_params[name] = value
    if PAGE_FILES[page]:
        at.switch_page(PAGE_FILES[page])
    at._run(widget_state=states)  # noqa: SLF001
    return at


def first_run_after_reconnect(page: str, params: dict[str, str], moves: dict[str, object]) -> AppTest:
    """The page as the browser showed it before the restart, then the first run of a fresh
    session carrying the browser's widgets with `moves` made."""
    return fresh_session(page, params, browser_states(open_page(page, **params), moves))


def settings(at: AppTest) -> dict[str, str]:
    return {name: at.query_params[name] for name in URL}


@pytest.mark.parametrize(
    ("moves", "want"),
    [
        ({"d_model_slider": "128"}, {"d_model": 128}),  # one stop right on the slider
        ({"d_model": 100}, {"d_model": 100}),  # typed into the box
        ({"max_len_slider": "64"}, {"max_len": 64}),  # one stop left
        ({"base_slider": "1,000"}, {"base": 1000.0}),  # base labels have thousands separators
        ({"base": 12345.5}, {"base": 12345.5}),
        ({"d_model": 100000}, {"d_model": 8192}),  # out of range: clamped as parse_param does
    ],
    ids=["d_model-slider", "d_model-box", "max_len-slider", "base-slider", "base-box", "d_model-clamped"],
)
def test_a_move_sent_with_the_first_run_is_kept(moves, want):
    at = first_run_after_reconnect("problem", URL, moves)
    assert_clean(at)
    expected = {"d_model": 64, "max_len": 100, "base": 500.0, **want}
    for name, value in expected.items():
        assert at.number_input(key=name).value == value, name
        assert at.select_slider(key=f"{name}_slider").value == value, name  # the slider follows the box
    assert settings(at) == {name: str(int(v)) if float(v).is_integer() else repr(v) for name, v in expected.items()}


def test_nothing_moved_seeds_from_the_url():
    at = first_run_after_reconnect("problem", URL, {})
    assert_clean(at)
    assert {name: at.number_input(key=name).value for name in URL} == {"d_model": 64, "max_len": 100, "base": 500.0}
    assert settings(at) == URL


def test_a_fresh_page_load_still_seeds_from_the_url_with_notices():
    # no widget state with the first run: the URL decides, and a bad value gives a notice
    at = open_page("problem", d_model="abc", max_len="100", base="1e12")
    assert_clean(at)
    assert at.number_input(key="d_model").value == 128 and at.number_input(key="max_len").value == 100
    assert at.number_input(key="base").value == 1e8
    warnings = " ".join(w.value for w in at.warning)
    assert "d_model='abc'" in warnings and "base='1e12'" in warnings


def test_settings_shown_before_a_page_switch_are_kept():
    # after a restart, a click on another page's link sends no query string: the settings the
    # browser shows come with it and are kept, not reset to the defaults
    shown = browser_states(open_page("problem", **URL), {})
    sidebar = WidgetStates(widgets=[w for w in shown.widgets if w.id.rsplit("-", 1)[1] in {*URL, *(f"{n}_slider" for n in URL)}])
    at = fresh_session("sinusoidal", {}, sidebar)  # the link carries no URL parameters
    assert_clean(at)
    assert settings(at) == URL


def test_a_page_choice_moved_with_the_first_run_is_kept():
    # ui.controls.Choice seeds the sinusoidal layout from the URL; the browser's choice wins
    params = {**URL, "layout": "interleaved"}
    at = first_run_after_reconnect("sinusoidal", params, {"layout": ["sines first, then cosines"]})
    assert_clean(at)
    assert at.query_params["layout"] == "concat"
    assert settings(at) == URL


def test_a_page_choice_not_moved_stays_as_in_the_url():
    params = {**URL, "layout": "concat"}
    at = first_run_after_reconnect("sinusoidal", params, {})
    assert_clean(at)
    assert at.query_params["layout"] == "concat"
