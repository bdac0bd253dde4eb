"""ui.internals: the private Streamlit structures it reads are still there and behave as relied
on (these tests fail loudly on a Streamlit upgrade that moves one), and every function falls
back to public behaviour when a structure is missing.

Also checked: the private pieces of Streamlit that the tests and the bench use themselves
(AppTest._tree and AppTest._run in tests/app, LocalScriptRunner._run_script in
bench/script_thread.py, app_test.MediaFileManager in tests/app/test_code.py)."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import streamlit
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.testing.v1 import AppTest

from ui import internals
from ui.internals import hardening, session, speed, url

INSTALLED = internals.install({})  # every wrapper, as app.py installs them without PEE_STOCK_STREAMLIT

UPGRADE = "re-check every structure named in the docstrings of ui/internals/ against this Streamlit, then update WRITTEN_FOR"


def _probe_script() -> None:
    """An app that reads every private structure ui.internals relies on, the way it does."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    from streamlit.runtime.state.common import GENERATED_ELEMENT_ID_PREFIX

    ctx = get_script_run_ctx()
    state = ctx.session_state._state
    widgets = state._new_widget_state
    st.number_input("n", key="probe_n")
    st.session_state["facts"] = {
        "prefix": GENERATED_ELEMENT_ID_PREFIX,
        "session_id": type(ctx.session_id).__name__,
        "history": type(ctx.is_history_navigation).__name__,
        "states": type(widgets.states).__name__,
        "metadata": type(widgets.widget_metadata).__name__,
        "initial": dict(state.query_params._initial_query_params),
    }


def _sent_script() -> None:
    import streamlit as st

    from ui.internals.session import widget_values_sent_by_browser

    st.session_state["sent"] = widget_values_sent_by_browser()
    if st.session_state.get("draw"):
        st.number_input("drawn", key="drawn")


def _forget_script() -> None:
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    from ui.internals.url import forget_initial_query_param

    initial = get_script_run_ctx().session_state._state.query_params._initial_query_params
    st.session_state["before"] = "n" in initial
    try:
        del st.query_params["n"]
    except Exception:
        pass
    forget_initial_query_param("n")
    st.session_state["after"] = "n" in initial
    st.number_input("n", 0, 10, 3, key="n", bind="query-params")


def _drop_script() -> None:
    import streamlit as st

    from ui.internals.url import drop_query_param

    if st.query_params.get("n") == "1e309":
        drop_query_param("n")
    st.session_state["left"] = dict(st.query_params)
    st.number_input("n", 0, 10, 3, key="n", bind="query-params")


def _check_script() -> None:
    import streamlit as st

    from ui.internals.session import connection_check

    st.session_state["connected"] = connection_check()()


# --- the structures are there ----------------------------------------------------------


def test_written_for_the_installed_streamlit():
    assert streamlit.__version__ == internals.WRITTEN_FOR, UPGRADE
    for module in (session, url, hardening, speed):  # each module says which version it was written for
        assert f"streamlit {internals.WRITTEN_FOR}" in module.__doc__, module.__name__


def test_one_switch_runs_stock_streamlit_and_leaves_the_hardening_on():
    always = {"widget states", "uploads", "component events", "url writes", "url copy"}
    assert set(internals.install({})) == always | set(speed.PATCHES) and all(internals.install({}).values())
    assert set(internals.install({"PEE_STOCK_STREAMLIT": "1"})) == always
    assert set(internals.install({"PEE_STOCK_STREAMLIT": " theme, nonsense"})) == always | set(speed.PATCHES) - {"theme"}
    assert internals.left_out({"PEE_STOCK_STREAMLIT": ""}) == internals.left_out({}) == set()


def test_app_py_installs_the_wrappers_itself_and_importing_installs_nothing():
    root = Path(__file__).resolve().parents[2]
    top = ast.parse((root / "app.py").read_text()).body  # a call at the top of the script, so on every run
    assert any(ast.unparse(node) == "internals.install()" for node in top if isinstance(node, ast.Expr)), "app.py must call internals.install()"
    probe = "import ui.sidebar, ui.path, ui.controls; from streamlit.runtime import app_session; print(hasattr(app_session._populate_theme_msg, '__wrapped__'))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"  # the app's modules imported, Streamlit is still as shipped until install() runs


def test_the_private_structures_exist_in_a_real_script_run():
    at = AppTest.from_function(_probe_script)
    at.query_params["x"] = "1"
    at.run()
    assert not at.exception, (UPGRADE, [e.value for e in at.exception])
    facts = at.session_state["facts"]
    assert facts == {"prefix": "$$ID", "session_id": "str", "history": "bool", "states": "dict", "metadata": "dict", "initial": {"x": ["1"]}}, UPGRADE
    widget_id = at.number_input(key="probe_n").id
    assert re.fullmatch(r"\$\$ID-[0-9a-f]+-probe_n", widget_id), (UPGRADE, widget_id)


def test_the_runtime_answers_whether_a_session_is_connected():
    from streamlit import runtime
    from streamlit.runtime.runtime import Runtime
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    assert callable(runtime.exists) and callable(runtime.get_instance), UPGRADE
    assert list(inspect.signature(Runtime.is_active_session).parameters) == ["self", "session_id"], UPGRADE
    assert "session_id" in inspect.signature(ScriptRunContext).parameters, UPGRADE


def test_the_private_test_and_bench_hooks_exist():
    from streamlit.testing.v1 import app_test
    from streamlit.testing.v1.local_script_runner import LocalScriptRunner

    assert "widget_state" in inspect.signature(AppTest._run).parameters, UPGRADE  # tests/app/test_reconnect.py
    assert callable(LocalScriptRunner._run_script), UPGRADE  # bench/script_thread.py
    assert hasattr(app_test, "MediaFileManager"), UPGRADE  # tests/app/test_code.py patches it there
    at = AppTest.from_function(_check_script).run()
    assert hasattr(at._tree, "get_widget_states"), UPGRADE  # tests/app: test_reconnect.py, test_bad_input.py
    # tests/conftest.py scans for component manifests once per process: AppTest must still scan through that function
    from streamlit.components.v2 import manifest_scanner

    assert hasattr(manifest_scanner.scan_component_manifests, "cache_info"), UPGRADE  # the cached one is in place
    before = manifest_scanner.scan_component_manifests.cache_info()
    AppTest.from_function(_check_script).run()
    after = manifest_scanner.scan_component_manifests.cache_info()
    assert after.hits + after.misses == before.hits + before.misses + 1, UPGRADE  # a new AppTest's first run asked for the scan


# --- they behave as relied on ----------------------------------------------------------


def _states(*widgets: tuple[str, str, object]) -> WidgetStates:
    """Widget states as a browser sends them: (element id, proto field, value)."""
    states = WidgetStates()
    for widget_id, field, value in widgets:
        widget = states.widgets.add()
        widget.id = widget_id
        if field == "string_array_value":
            widget.string_array_value.data[:] = value
        elif field:
            setattr(widget, field, value)
    return states


def test_values_sent_for_widgets_not_drawn_yet_are_read_by_key():
    at = AppTest.from_function(_sent_script)
    at._run(
        widget_state=_states(
            ("$$ID-0123abcd-moved", "int_value", 7),
            ("$$ID-0123abcd-width", "double_value", 2.5),
            ("$$ID-0123abcd-labels", "string_array_value", ["a", "b"]),
            ("$$ID-0123abcd-choice", "string_value", "rope"),
            ("$$ID-0123abcd-empty", "", None),  # no value set: left out
            ("$$ID-0123abcd-None", "int_value", 1),  # a widget without a key
            ("something-else-key", "int_value", 1),  # not an element id
        )
    )
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["sent"] == {"moved": 7, "width": 2.5, "labels": ["a", "b"], "choice": "rope"}


def test_widgets_the_session_has_drawn_are_not_reported():
    at = AppTest.from_function(_sent_script)
    at.session_state["draw"] = True
    at.run()
    at.number_input(key="drawn").set_value(5).run()
    assert not at.exception
    assert at.session_state["sent"] == {}


def test_a_bad_initial_url_value_is_forgotten_before_its_widget_is_drawn():
    at = AppTest.from_function(_forget_script)
    at.query_params["n"] = "1e309"  # an int number_input seeded with it raises OverflowError
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["before"] and not at.session_state["after"]
    assert at.number_input(key="n").value == 3


def test_a_check_in_a_test_run_says_connected():
    at = AppTest.from_function(_check_script).run()
    assert not at.exception
    assert at.session_state["connected"] is True


def test_a_check_asks_the_runtime_about_this_session(monkeypatch):
    from streamlit import runtime

    connected = {"s1"}
    monkeypatch.setattr(session, "_script_context", lambda: SimpleNamespace(session_id="s1"))
    monkeypatch.setattr(runtime, "exists", lambda: True)
    monkeypatch.setattr(runtime, "get_instance", lambda: SimpleNamespace(is_active_session=lambda session: session in connected))
    check = session.connection_check()
    assert check() is True
    connected.clear()  # the tab is closed
    assert check() is False


def test_a_bad_url_value_met_on_back_is_dropped_though_its_widget_is_bound():
    from tests.links import history_run

    at = AppTest.from_function(_drop_script)
    at.query_params["n"] = "5"
    at.run()
    at = history_run(at, {"n": "1e309", "m": "1"})  # the widget is bound now: del st.query_params["n"] is refused
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["left"] == {"m": "1"} and at.query_params == {"m": "1"}  # gone from the URL the browser is told of
    assert at.number_input(key="n").value == 3  # and not seeded: the default


# --- and fall back when they are missing -----------------------------------------------


def test_outside_a_script_run_everything_falls_back():
    assert session.widget_values_sent_by_browser() == {}
    url.forget_initial_query_param("n")  # no exception
    url.drop_query_param("n")
    url.browser_copy_behind("a=0", "a=1")  # no exception, and nothing to follow
    assert url.followed() is False and url.sent_query_string() is None
    assert session.connection_check()() is True


@pytest.mark.parametrize(
    "ctx",
    [
        SimpleNamespace(is_history_navigation=False, session_state=SimpleNamespace()),  # no SafeSessionState._state
        SimpleNamespace(is_history_navigation=False, session_state=SimpleNamespace(_state=SimpleNamespace())),  # no _new_widget_state
        SimpleNamespace(
            is_history_navigation=False, session_state=SimpleNamespace(_state=SimpleNamespace(_new_widget_state=SimpleNamespace(states={"$$ID-1-k": 1})))
        ),
        SimpleNamespace(session_state=None),  # no is_history_navigation
    ],
)
def test_missing_structures_give_public_behaviour(monkeypatch, ctx):
    monkeypatch.setattr(session, "_script_context", lambda: ctx)
    assert session.widget_values_sent_by_browser() == {}
    url.forget_initial_query_param("n")  # no exception: the URL's value stays, as without the call
    url.drop_query_param("n")


def test_back_and_forward_report_nothing(monkeypatch):
    state = SimpleNamespace(_new_widget_state=SimpleNamespace(states={"$$ID-1-k": SimpleNamespace(value=1)}, widget_metadata={}))
    ctx = SimpleNamespace(is_history_navigation=True, session_state=SimpleNamespace(_state=state))
    monkeypatch.setattr(session, "_script_context", lambda: ctx)
    assert session.widget_values_sent_by_browser() == {}
    ctx.is_history_navigation = False
    assert session.widget_values_sent_by_browser() == {"k": 1}


def test_a_runtime_that_cannot_answer_counts_as_connected(monkeypatch):
    from streamlit import runtime

    monkeypatch.setattr(session, "_script_context", lambda: SimpleNamespace(session_id="s1"))
    monkeypatch.setattr(runtime, "exists", lambda: True)
    monkeypatch.setattr(runtime, "get_instance", lambda: SimpleNamespace())  # no is_active_session
    assert session.connection_check()() is True

    def broken(session: str) -> bool:
        raise RuntimeError("gone")

    monkeypatch.setattr(runtime, "get_instance", lambda: SimpleNamespace(is_active_session=broken))
    assert session.connection_check()() is True


def test_the_xsrf_cookie_is_named_and_made_as_visitor_id_reads_it():
    from streamlit.web.server.starlette import starlette_app_utils as xsrf
    from streamlit.web.server.starlette.starlette_server_config import XSRF_COOKIE_NAME

    assert session.XSRF_COOKIE == XSRF_COOKIE_NAME, UPGRADE
    token = bytes(range(16))
    first, second = xsrf.generate_xsrf_token_string(token), xsrf.generate_xsrf_token_string(token)
    assert first != second  # a new mask on every page load ...
    assert session._xsrf_token(first) == session._xsrf_token(second) == token  # ... the same token in every tab
    assert [session._xsrf_token(v) for v in ("", "1|ab", "2|zz|00|1", "2|0011|0a|1", None)] == [None] * 5


def _cookies(monkeypatch, cookies: dict[str, str]) -> None:
    import streamlit as st

    monkeypatch.setattr(type(st.context), "cookies", property(lambda self: cookies))


def test_a_visitor_is_one_browser_by_its_routing_cookie_or_its_xsrf_token(monkeypatch):
    from streamlit.web.server.starlette import starlette_app_utils as xsrf

    token = bytes(range(16))
    _cookies(monkeypatch, {"_streamlit_xsrf": xsrf.generate_xsrf_token_string(token)})
    tab1 = session.visitor_id()
    _cookies(monkeypatch, {"_streamlit_xsrf": xsrf.generate_xsrf_token_string(token)})  # another tab: another mask
    assert session.visitor_id() == tab1 and tab1.startswith("xsrf:") and token.hex() not in tab1
    _cookies(monkeypatch, {"_streamlit_xsrf": xsrf.generate_xsrf_token_string(bytes(16))})
    assert session.visitor_id() != tab1  # another browser
    _cookies(monkeypatch, {"st_route": "abc", "_streamlit_xsrf": xsrf.generate_xsrf_token_string(token)})
    assert session.visitor_id().startswith("route:") and "abc" not in session.visitor_id()


def test_without_cookies_a_visitor_is_the_session(monkeypatch):
    _cookies(monkeypatch, {})
    assert session.visitor_id() == ""  # outside a script run
    monkeypatch.setattr(session, "_script_context", lambda: SimpleNamespace(session_id="s-1"))
    assert session.visitor_id() == "session:s-1"
    _cookies(monkeypatch, {"_streamlit_xsrf": "not a token"})
    assert session.visitor_id() == "session:s-1"


# --- what every run repeats: the speed patch gives what Streamlit gives, once ----------


def _theme_of(populate) -> bytes:
    """The six sections as AppSession._create_new_session_message fills them."""
    from streamlit.proto.NewSession_pb2 import NewSession

    msg = NewSession()
    t = msg.custom_theme
    for part, section in ((t, "theme"), (t.light, "theme.light"), (t.dark, "theme.dark"), (t.sidebar, "theme.sidebar")):
        populate(part, section)
    populate(t.light.sidebar, "theme.light.sidebar")
    populate(t.dark.sidebar, "theme.dark.sidebar")
    return msg.SerializeToString(deterministic=True)


def test_the_theme_is_read_once_and_sent_as_streamlit_reads_it(monkeypatch):
    from streamlit import config
    from streamlit.runtime import app_session

    populate = app_session._populate_theme_msg
    assert INSTALLED["theme"] and populate.__wrapped__ is not populate, UPGRADE
    expected = _theme_of(populate.__wrapped__)
    reads = []
    original = config.get_options_for_section
    monkeypatch.setattr(config, "get_options_for_section", lambda section: reads.append(section) or original(section))
    parsed_again = dict(config.get_config_options())  # the same options in a new dict, as when the config is parsed again
    monkeypatch.setattr(config, "get_config_options", lambda *a, **k: parsed_again)
    assert _theme_of(populate) == expected
    sections = ["theme", "theme.dark", "theme.dark.sidebar", "theme.light", "theme.light.sidebar", "theme.sidebar"]
    assert sorted(reads) == sections
    assert _theme_of(populate) == _theme_of(populate) == expected
    assert sorted(reads) == sections  # not read again
    from streamlit.proto.NewSession_pb2 import CustomThemeConfig

    msg = CustomThemeConfig()
    populate(msg, "theme.light")  # the app's own themes (.streamlit/config.toml) are there, each in its section
    assert msg.primary_color == config.get_option("theme.light.primaryColor") == "#B2182B"
    msg = CustomThemeConfig()
    populate(msg, "theme.dark")
    assert msg.primary_color == config.get_option("theme.dark.primaryColor") == "#D6604D"


def test_a_theme_section_of_defaults_only_is_sent_as_streamlit_sends_it(monkeypatch):
    from streamlit import config
    from streamlit.runtime import app_session

    populate = app_session._populate_theme_msg
    original = config.get_options_for_section

    def only_base(section: str) -> dict:  # [theme] base = "light" and nothing else: the default value, set
        options = dict.fromkeys(original(section))
        return options | {"base": "light"} if section == "theme" else options

    monkeypatch.setattr(config, "get_options_for_section", only_base)
    parsed_again = dict(config.get_config_options())
    monkeypatch.setattr(config, "get_config_options", lambda *a, **k: parsed_again)
    expected = _theme_of(populate.__wrapped__)
    assert expected  # Streamlit sends the theme section, empty as it is: "light", not the visitor's system theme
    assert _theme_of(populate) == expected


def test_each_wrapper_leaves_streamlit_as_it_is_when_a_structure_is_missing(monkeypatch):
    from streamlit.runtime import app_session

    monkeypatch.delattr(app_session, "_populate_theme_msg")
    assert speed.theme_read_once() is False
    from streamlit.components.v2.bidi_component import main

    monkeypatch.delattr(main, "deserialize_trigger_list")
    assert hardening.one_event_each() is False
    from streamlit.runtime.state.query_params import QueryParams

    monkeypatch.delattr(QueryParams, "set_initial_query_params")
    monkeypatch.setattr(QueryParams, "populate_from_query_string", QueryParams.populate_from_query_string.__wrapped__)
    assert url.browser_copy_followed() is False and not hasattr(QueryParams, "set_initial_query_params")


# --- a component message runs a callback once per event name ----------------------------


def _events_script() -> None:
    import streamlit as st

    from ui.controls import Window
    from ui.heatmap import Zoom, draw_heatmap
    from ui.sinusoid_preview import sinusoid_preview

    rows = Window("rows")
    draw_heatmap({}, key="hm", zoom=Zoom(rows=(rows, 100), cols=None))
    sinusoid_preview(64, 128, 10000.0, "interleaved")
    st.session_state["window"] = rows.draw(100)


def _send_events(at: AppTest, key: str, events: list) -> None:
    """One message of `events` from the keyed component, as a browser (or a forger) sends it."""
    import json

    from streamlit.components.v2.bidi_component.main import _make_trigger_id

    (element_id,) = [e.proto.id for e in at._tree.main.children.values() if getattr(e.proto, "id", "").endswith(f"-{key}")]
    states = WidgetStates()
    widget = states.widgets.add()
    widget.id = _make_trigger_id(element_id, "events")
    widget.json_trigger_value = json.dumps(events)
    at._run(widget_state=states, timeout=30)  # Streamlit's own dispatch took seconds for this message
    assert not at.exception, [e.value for e in at.exception]


def test_a_message_of_ten_thousand_events_runs_each_components_callback_once(monkeypatch):
    import ui.heatmap
    import ui.sinusoid_preview

    assert INSTALLED["component events"], UPGRADE
    zooms, applies = [], []
    apply = ui.heatmap.Zoom.apply
    monkeypatch.setattr(ui.heatmap.Zoom, "apply", lambda self, request: zooms.append(request) or apply(self, request))
    monkeypatch.setattr(ui.sinusoid_preview, "set_shared", lambda values: applies.append(values) or False)
    at = AppTest.from_function(_events_script).run()
    first = [{"event": "zoom", "value": {"rows": [1, 2]}}] * 9_999
    _send_events(at, "hm", [*first, {"event": "zoom", "value": {"rows": [5, 9]}}])
    assert zooms == [{"rows": [5, 9]}] and at.session_state["window"] == (5, 10)  # the last event, once
    _send_events(at, "sin_preview", [{"event": "apply", "value": {"d_model": d}} for d in range(2, 10_002)])
    assert applies == [{"d_model": 10_001}]
    _send_events(at, "hm", [{"event": "zoom", "value": {"rows": [7, 8], "pad": "x" * hardening.TRIGGER_CHARS}}])  # too long to parse
    assert len(zooms) == 1 and at.session_state["window"] == (5, 10)


def test_a_message_keeps_the_last_event_of_each_name_in_order():
    zoom, reset, other = ({"event": "zoom", "value": 1}, {"event": "zoom", "value": {"reset": True}}, {"event": "apply", "value": 2})
    assert hardening.last_events([zoom, other, "junk", None, reset]) == [other, reset]
    assert hardening.last_events(None) is None and hardening.last_events([]) == []
    many = [{"event": f"e{i}", "value": i} for i in range(100)]
    assert hardening.last_events(many) == many[-hardening.EVENTS_PER_MESSAGE :]


def _held_script() -> None:
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    from ui.internals.url import hold_url_writes

    ctx = get_script_run_ctx()
    sent, enqueue = [], ctx.enqueue
    ctx.enqueue = lambda msg: (sent.append(msg.WhichOneof("type")), enqueue(msg))[1]
    try:
        hold_url_writes(True)
        st.query_params["a"] = "1"
        st.query_params.update(b="2")
        del st.query_params["a"]
        st.session_state["while held"] = (sent.count("page_info_changed"), ctx.query_string)
        st.session_state["released"] = hold_url_writes(False)
        st.query_params["c"] = "3"
        st.session_state["after"] = sent.count("page_info_changed")
    finally:
        ctx.enqueue = enqueue


def test_held_writes_of_the_url_are_kept_and_not_sent():
    from streamlit.runtime.state.query_params import QueryParams

    assert INSTALLED["url writes"] and QueryParams._send_query_param_msg._pee_held, UPGRADE
    at = AppTest.from_function(_held_script).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["while held"] == (0, "b=2")  # nothing sent; the run's query string follows every write
    assert at.session_state["released"] == "b=2" and at.session_state["after"] == 1  # sent as before once let go
    assert at.query_params == {"b": "2", "c": "3"}


def _behind_script() -> None:
    import streamlit as st

    from ui.internals import url

    st.session_state["started"] = (dict(st.query_params), url.followed())  # the URL this run starts from, and from where
    if "held" not in st.session_state:  # the session's first run holds its writes, as ui/history.py has it do
        st.session_state["held"] = True
        url.hold_url_writes(True)
        st.query_params.update(a="1", b="2")
        url.browser_copy_behind(url.sent_query_string(), url.hold_url_writes(False))
    elif st.session_state.get("write"):
        st.query_params["b"] = "3"  # one write, as a fragment's run makes


def _sends(at: AppTest, params: dict[str, str]) -> AppTest:
    """The query string the browser sends with its next rerun (AppTest would send the one its last run ended with)."""
    at.query_params.clear()
    at.query_params.update(params)
    return at


def test_a_run_after_a_held_one_starts_from_the_url_handed_over_not_the_browsers_copy():
    from streamlit.runtime.state.query_params import QueryParams

    from tests.links import history_run

    assert INSTALLED["url copy"] and QueryParams.populate_from_query_string._pee_followed, UPGRADE
    link = {"a": "0"}  # the link as opened: the copy Streamlit's frontend keeps, and sends with every rerun until it is sent a URL
    at = _sends(AppTest.from_function(_behind_script), link).run()  # the held run: nothing sent, the copy stays the link
    assert not at.exception, [e.value for e in at.exception]
    _sends(at, link).run()
    assert at.session_state["started"] == ({"a": "1", "b": "2"}, True)  # the URL the held run handed over
    at = history_run(_sends(at, {}), link)  # Back to an entry whose URL is that copy: the entry's URL, as it is
    assert at.session_state["started"] == (link, False)
    at.session_state["write"] = True
    _sends(at, link).run()  # one write: the URL sent is the one on screen with that write, not the copy with it
    assert at.session_state["started"] == ({"a": "1", "b": "2"}, True) and at.query_params == {"a": "1", "b": "3"}
    _sends(at, link).run()  # a URL was sent, so the browser's copy is current: what it sends is taken as it comes
    assert at.session_state["started"] == (link, False)
