"""Reading the running session from Streamlit's private structures: whose run this is, what the
browser sent before its widgets were drawn, whether the browser is still connected, who the visitor is.

Written for streamlit 1.67.0 (`ui.internals.WRITTEN_FOR`); each function falls back to what a
run without it would do when a structure is missing (tests/ui/test_internals.py fails loudly
when an upgrade moves one). What is relied on, none of it documented API:

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
- `runtime.exists()`, `runtime.get_instance()` (the server's Runtime) and
  `Runtime.is_active_session(session_id)`: whether a browser is still connected to a session.
- The XSRF cookie's name and format (web/server/starlette/starlette_server_config.py
  `XSRF_COOKIE_NAME`, starlette_app_utils.py `generate_xsrf_token_string`): `_streamlit_xsrf`,
  "2|<mask hex>|<masked token hex>|<timestamp>", the token being the masked bytes XOR the mask
  repeated. The server keeps the token and draws a new mask on every page load, so the token is the
  same in every tab of a browser. Read by `visitor_id` (below), through the public st.context.cookies.
"""

from __future__ import annotations

from collections.abc import Callable

_EMPTY = object()  # a WidgetState proto with no value set


def _script_context():
    """The running script's ScriptRunContext, or None outside a script run (or if it moved)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        return get_script_run_ctx()
    except Exception:
        return None


def session_id() -> str:
    """The id of the session whose script runs on this thread; "" outside a script run."""
    return str(getattr(_script_context(), "session_id", "") or "")


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
    st.session_state before the widget is drawn overrides the sent one, so URL seeding (ui.sidebar, ui.controls)
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


ROUTE_COOKIE = "st_route"  # the routing cookie of deploy/nginx (and the Ingress's affinity cookie): one per browser
XSRF_COOKIE = "_streamlit_xsrf"


def _xsrf_token(value: str) -> bytes | None:
    """The token inside a version-2 XSRF cookie value, or None when it is not one."""
    try:
        version, mask_hex, masked_hex, _ = value.strip("\"'").split("|")
        mask, masked = bytes.fromhex(mask_hex), bytes.fromhex(masked_hex)
        if version != "2" or len(mask) != 4 or not masked:
            return None
        return bytes(b ^ mask[i % 4] for i, b in enumerate(masked))
    except (ValueError, AttributeError):
        return None


def visitor_id() -> str:
    """Who runs this script: the same string for every tab of one browser, another for another
    browser (a private window is another browser). For sharing something fairly between the people
    in a room, not for security: a visitor who clears their cookies is someone new.

    From the cookies the browser sent with its websocket (st.context.cookies): the proxy's routing
    cookie (`st_route`, deploy/nginx) when there is one, else the token in Streamlit's XSRF cookie
    (on whenever server.enableXsrfProtection is, as in .streamlit/config.toml). Hashed: the XSRF
    token is a secret. Without either (no server, as in AppTest, or a format that changed), the
    session itself, as if every tab were its own visitor; "" outside a script run."""
    import hashlib

    try:
        import streamlit as st

        cookies = st.context.cookies
        route = cookies.get(ROUTE_COOKIE)
        if route:
            return "route:" + hashlib.sha256(route.encode()).hexdigest()[:16]
        token = _xsrf_token(cookies.get(XSRF_COOKIE) or "")
        if token:
            return "xsrf:" + hashlib.sha256(token).hexdigest()[:16]
    except Exception:
        pass
    ctx = _script_context()
    return f"session:{getattr(ctx, 'session_id', '')}" if ctx is not None else ""
