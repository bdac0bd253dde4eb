"""The only module that touches Streamlit's private structures.

Written for and checked against streamlit 1.67.0 (`WRITTEN_FOR`); tests/ui/test_internals.py
fails when an upgrade moves or changes one of them. Each function below degrades to plain
public behaviour when a structure is missing or behaves otherwise: no exception reaches a page.

What is relied on, all in streamlit.runtime, none of it documented API:

- `scriptrunner.get_script_run_ctx()`: the ScriptRunContext of the script run on this thread
  (None outside a run). Its fields `session_id` (str), `session_state` (a SafeSessionState)
  and `is_history_navigation` (True on the browser's back/forward) are read.
- `SafeSessionState._state`: the session's SessionState, behind the thread-safe wrapper.
- `SessionState._new_widget_state`: a WStates of the widget values sent with this rerun.
  `.states` maps an element id to a `Serialized` (the browser's WidgetState proto, in `.value`)
  or a `Value` (already decoded, in `.value`); `.widget_metadata` maps the element id of every
  widget this session has drawn to its metadata. A keyed widget's element id is
  "$$ID-<hash>-<key>" (`state.common.GENERATED_ELEMENT_ID_PREFIX` is "$$ID"; see
  streamlit/elements/lib/utils.py `compute_and_register_element_id`).
- `SessionState.query_params._initial_query_params`: dict param -> list of values, the URL the
  session opened with; Streamlit seeds a widget bound to the URL (bind="query-params") from it,
  not from st.query_params.
- `runtime.exists()`, `runtime.get_instance()` (the server's Runtime) and
  `Runtime.is_active_session(session_id)`: whether a browser is still connected to a session.
"""

from __future__ import annotations

from collections.abc import Callable

WRITTEN_FOR = "1.67.0"  # the streamlit version whose private structures this module reads
_EMPTY = object()  # a WidgetState proto with no value set


def _script_context():
    """The running script's ScriptRunContext, or None outside a script run (or if it moved)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        return get_script_run_ctx()
    except Exception:
        return None


def _plain(value: object) -> object:
    """A widget value as the browser sent it, made plain: a WidgetState proto becomes its number
    (int_value / double_value), its label (string_value) or its list of labels (*_array_value);
    anything else (a value Streamlit already decoded) is returned as it is. _EMPTY for an empty proto."""
    if not hasattr(value, "WhichOneof"):
        return value
    field = value.WhichOneof("value")
    if field is None:
        return _EMPTY
    plain = getattr(value, field)
    return list(plain.data) if field.endswith("_array_value") else plain


def widget_values_sent_by_browser() -> dict[str, object]:
    """Values the browser sent with this rerun for keyed widgets this session has never drawn,
    by widget key. Empty on a fresh page load, and for every widget the session already knows.

    When the server process restarts, Streamlit's frontend reconnects to a new session and its
    next rerun (the user's next move) carries every widget the page shows, the moved one
    included. The new session has no metadata for them, so Streamlit runs no on_change callback
    and cannot decode them yet: they wait in `_new_widget_state` until the widgets are drawn.
    Each becomes a plain value: a number (number_input), a list of option labels (select_slider,
    multiselect, segmented_control) or a label (selectbox, radio). A value set through
    st.session_state before the widget is drawn overrides the sent one, so URL seeding (ui.shared)
    asks here first.
    On the browser's back/forward the URL is what the user asked for: nothing is returned, as
    Streamlit lets the URL win over widgets bound to it then.
    Any failure gives {}: the URL alone seeds the session, as it would without this."""
    try:
        from streamlit.runtime.state.common import GENERATED_ELEMENT_ID_PREFIX

        ctx = _script_context()
        if ctx is None or ctx.is_history_navigation:
            return {}
        widgets = ctx.session_state._state._new_widget_state  # noqa: SLF001
        sent: dict[str, object] = {}
        for widget_id, state in list(widgets.states.items()):
            prefix, _, rest = widget_id.partition("-")
            _, _, key = rest.partition("-")
            if prefix != GENERATED_ELEMENT_ID_PREFIX or not key or key == "None" or widget_id in widgets.widget_metadata:
                continue
            value = _plain(state.value)
            if value is not _EMPTY:
                sent[key] = value
        return sent
    except Exception:
        return {}


def forget_initial_query_param(key: str) -> None:
    """Drop `key` from Streamlit's copy of the URL the session opened with, so a widget bound to
    it starts from its default. Needed because an int number_input seeded from that copy with
    -inf or 1e309 raises OverflowError (streamlit 1.67), and deleting the parameter from
    st.query_params leaves the copy as it was. Any failure is a no-op."""
    try:
        ctx = _script_context()
        ctx.session_state._state.query_params._initial_query_params.pop(key, None)  # noqa: SLF001
    except Exception:
        pass


def connection_check() -> Callable[[], bool]:
    """A function, callable from any thread, that says whether the browser session running this
    script is still connected (a background job polls it to stop when its tab is closed).

    Without a server (an AppTest run) or if the runtime cannot be asked, it always says True:
    nobody can be seen to go away, so a job runs to its end, as it would without this."""
    try:
        from streamlit import runtime

        ctx = _script_context()
        if ctx is None or not runtime.exists():
            return lambda: True
        server, session = runtime.get_instance(), ctx.session_id
        server.is_active_session  # noqa: B018  fail here, not in the caller's thread, if it moved
    except Exception:
        return lambda: True

    def connected() -> bool:
        try:
            return bool(server.is_active_session(session))
        except Exception:
            return True

    return connected
