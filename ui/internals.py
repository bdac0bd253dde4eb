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
  not from st.query_params. Streamlit sets it again from the query string of every run, and
  seeds from it on a widget's first run, on a page switch and on the browser's Back and Forward.
  `QueryParams.remove_param(key)`: takes a parameter out of the URL (and tells the browser) even
  when a widget is bound to it, which `del st.query_params[key]` refuses.
- `QueryParams._send_query_param_msg(self)`: what every write of st.query_params calls to send the new
  query string (`_query_params`, urlencoded) to the browser and keep it as `ScriptRunContext.query_string`;
  `url_writes_holdable` wraps it (below), and the app sets an attribute of its own on the context.
- `runtime.exists()`, `runtime.get_instance()` (the server's Runtime) and
  `Runtime.is_active_session(session_id)`: whether a browser is still connected to a session.
- `state.session_state.WStates.__getitem__`: where a widget value the browser sent is decoded
  by its widget's deserializer (`widget_metadata[id].deserializer`, its field `value_type`),
  before the script runs; `Value` is the decoded form it stores, `Serialized` the sent one
  (a WidgetState proto in `.value`); `WStates.get_serialized`, where a decoded value is encoded
  again when its widget registers. `tolerate_bad_widget_states` wraps both (below), and
  `elements.widgets.multiselect._check_max_selections` (a module global st.multiselect calls
  with the decoded list and its max_selections).
- `memory_uploaded_file_manager.MemoryUploadedFileManager`: the server's store of uploads, with
  `add_file(session_id, file)`, `file_storage` (session id -> {file id -> UploadedFileRec with
  `.data`}), `_lock`, `_total_bytes`, `_file_count`; the upload route of the Starlette server
  (web/server/starlette/starlette_routes.py) calls `add_file` once a PUT's body is read, and
  turns a `starlette.exceptions.HTTPException` raised there into that status.
  `bound_uploads` wraps it (below).
- The XSRF cookie's name and format (web/server/starlette/starlette_server_config.py
  `XSRF_COOKIE_NAME`, starlette_app_utils.py `generate_xsrf_token_string`): `_streamlit_xsrf`,
  "2|<mask hex>|<masked token hex>|<timestamp>", the token being the masked bytes XOR the mask
  repeated. The server keeps the token and draws a new mask on every page load, so the token is the
  same in every tab of a browser. Read by `visitor_id` (below), through the public st.context.cookies.
- `components.v2.bidi_component.main.deserialize_trigger_list`, a module global the component
  call (`_bidi_component`) registers as the deserializer of a component's trigger list (a JSON
  list of {"event", "value"} sent in `json_trigger_value`), whose decoded list
  `SessionState._dispatch_trigger_callbacks` walks, running the event's callback per entry.
  `one_event_each` wraps it (below).
- `navigation.page.StreamlitPage`: its state is plain attributes, made once by `__init__` (which
  resolves the script's path, reads its file's name and checks the icon: 4 % of a rerun's server
  time) except `_can_be_called`, which st.navigation sets on the page it returns and `run` clears
  (and `_default`, which st.navigation sets when no page is marked default; app.py marks one).
  So a shallow copy of a page made before any navigation is a page as st.Page would make it again.
  `reused_pages` (below) makes the pages once per process and copies them on every run;
  `made_page` gives st.page_link the process's page (read only: st.page_link given a page object
  reads its public properties and its script hash, instead of resolving a path on every call).
- What every run repeats, and four wrappers that do it once (installed at import, `INSTALLED`;
  each returns False and leaves Streamlit as it is when a structure is not as described):
  `runtime.app_session._populate_theme_msg(msg, section)`, a module function the new_session
  message of every full run calls for six theme sections, each reading every config option
  (`config.get_options_for_section`), each section a CustomThemeConfig with a `sidebar` field of
  the same type; `config.get_config_options()`, the options dict, a new one when the config is
  parsed again (`theme_read_once`). `BidiComponentMixin._bidi_component`
  (also bound at import as `streamlit._bidi_component`, which components v2 call) and its
  `_build_bidi_identity_kwargs(**kwargs)`, whose result `compute_and_register_element_id`
  ignores when a key is given (`key_as_main_identity=True`) (`keyed_components_unhashed`).
  `runtime.caching.cache_utils._make_function_key(cache_type, func)`, which CachedFunc calls
  for every decorated function, every time a page script defines one (`cache_keys_once`). The
  module global `get_session_state` of six widget modules (number_input, selectbox, slider,
  text_widgets, radio, time_widgets), whose `.filtered_state` they read only as
  `key in state and state[key] is None`; `SafeSessionState._lock` and `._state`,
  `SessionState.__getitem__`, `state.common.is_element_id`, `session_state._is_internal_key`
  (`widgets_read_one_key`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping

WRITTEN_FOR = "1.67.0"  # the streamlit version whose private structures this module reads
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


def drop_query_param(key: str) -> None:
    """Take `key` out of the URL and out of Streamlit's copy it seeds widgets from, even when a
    widget is already bound to it: a value met on Back or Forward arrives with the widget bound,
    and `del st.query_params[key]` then refuses. The widget starts from its default. Falls back
    to the public deletion (refused when bound: the copy is still cleared)."""
    try:
        _script_context().session_state._state.query_params.remove_param(key)  # noqa: SLF001
    except Exception:
        try:
            import streamlit as st

            del st.query_params[key]
        except Exception:
            pass
    forget_initial_query_param(key)


HELD_ATTR = "_pee_url_held"  # set on the ScriptRunContext while its run holds its writes of the URL


def hold_url_writes(hold: bool) -> str | None:
    """Hold this run's writes of the URL (`hold`: from now on), or let them go (returning the run's query
    string as it now stands, None if unknown). While held, st.query_params and the run's query string
    change as usual but nothing is sent to the browser: Streamlit's frontend would push a history entry
    per write (ui/history.py sends the final one instead). Needs `url_writes_holdable` in place; a
    no-op without a script run."""
    ctx = _script_context()
    if ctx is None:
        return None
    try:
        setattr(ctx, HELD_ATTR, hold)
        return None if hold else str(ctx.query_string)
    except Exception:
        return None


def url_writes_holdable() -> bool:
    """Wrap `QueryParams._send_query_param_msg` (what every write of st.query_params, and Streamlit's own
    corrections of a bound widget's parameter, calls to send the new query string in a page_info_changed
    message and keep it as the run's `ctx.query_string`) so that, while the running script holds its
    writes (`hold_url_writes`), it keeps the query string and sends nothing. True when in place."""
    try:
        from urllib import parse

        from streamlit.runtime.state.query_params import QueryParams

        original = QueryParams._send_query_param_msg
        if getattr(original, "_pee_held", False):
            return True

        def send(self) -> None:
            ctx = _script_context()
            if ctx is not None and getattr(ctx, HELD_ATTR, False):
                ctx.query_string = parse.urlencode(self._query_params, doseq=True)  # noqa: SLF001
                return
            original(self)

        send._pee_held, send.__wrapped__ = True, original
        QueryParams._send_query_param_msg = send
        return True
    except Exception:
        return False


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


# --- hostile widget states, uploads and component events: wrappers installed once per process


def tolerate_bad_widget_states() -> bool:
    """Make a widget value the browser sent that its widget cannot decode count as no value, so
    the widget shows its default, instead of an exception that ends the session for good.

    Streamlit 1.67 decodes a sent value before the script runs (`WStates.__getitem__`, from
    `SessionState.on_script_will_rerun`); an int number_input sent NaN or infinity raises there
    (`int(nan)`), on that rerun and every later one, since the bad value stays in the session:
    no code of the page can catch it; a value sent in another field than the widget's (a string
    for a number input, a number for a selectbox) is decoded, and then breaks the widget's next
    registration, which serializes it back into that field. Wrapped, such a value, and one whose
    deserializer raises (anything but KeyError, Streamlit's own "no such widget"), counts as no
    value: the widget's default (`deserializer(None)`) is stored in its place. True when the wrapper is in place (also when it
    already was); False, and Streamlit as it is, when the structure is not as written for."""
    try:
        from streamlit.runtime.state.session_state import Value, WStates

        original = WStates.__getitem__
        if getattr(original, "_pee_tolerant", False):
            return True

        def default(self, k: str):
            metadata = self.widget_metadata.get(k)
            try:
                value = metadata.deserializer(None)
            except Exception:
                raise KeyError(k) from None
            self.states[k] = Value(value)
            return value

        def __getitem__(self, k: str):
            state, metadata = self.states.get(k), self.widget_metadata.get(k)
            sent = _sent_field(state)
            if sent is not None and metadata is not None and sent not in _FIELDS_OF.get(metadata.value_type, {metadata.value_type}):
                return default(self, k)  # a value of another wire type than the widget's (a string for a number ...)
            try:
                return original(self, k)
            except KeyError:
                raise
            except Exception:  # a value this widget cannot decode: it sends nothing, as far as the page is concerned
                return default(self, k)

        original_serialized = WStates.get_serialized

        def get_serialized(self, k: str):
            try:
                return original_serialized(self, k)
            except Exception:  # a decoded value its widget cannot encode again: forget it, the widget starts from its default
                self.states.pop(k, None)
                return None

        __getitem__._pee_tolerant = True
        WStates.__getitem__ = __getitem__
        WStates.get_serialized = get_serialized
        _cap_multiselect_selections()
        return True
    except Exception:
        return False


def _cap_multiselect_selections() -> None:
    """A multiselect sent more selections than its max_selections raises
    StreamlitSelectionCountExceedsMaxError after the value is decoded (in st.multiselect, from
    `multiselect._check_max_selections`), on every rerun. Wrapped, a list sent by the browser is cut
    to max_selections in place (the list the session state holds), which a browser never exceeds."""
    from streamlit.elements.widgets import multiselect

    check = multiselect._check_max_selections  # noqa: SLF001
    if getattr(check, "_pee_capped", False):
        return

    def capped(selections, max_selections):
        if isinstance(selections, list) and max_selections is not None and len(selections) > max_selections:
            del selections[max_selections:]
        return check(selections, max_selections)

    capped._pee_capped = True
    multiselect._check_max_selections = capped  # noqa: SLF001


_FIELDS_OF = {"double_value": {"double_value", "int_value"}, "int_value": {"int_value", "double_value"}}  # a number input declares
# double_value and is sent int_value for whole numbers


def _sent_field(state) -> str | None:
    """The WidgetState field a value still in the browser's form was sent in, else None."""
    value = getattr(state, "value", None)
    try:
        return value.WhichOneof("value") if hasattr(value, "WhichOneof") else None
    except Exception:
        return None


UPLOAD_FILES_PER_SESSION = 2  # the model page's uploader holds one file; one more while it is being replaced
UPLOAD_BYTES_TOTAL = 256 * 2**20  # all sessions' uploads together; past it, new uploads are refused (HTTP 507)


def bound_uploads(files_per_session: int = UPLOAD_FILES_PER_SESSION, bytes_total: int = UPLOAD_BYTES_TOTAL) -> bool:
    """Bound what uploads can hold in this server process.

    Streamlit keeps every file PUT to /_stcore/upload_file/<session>/<file id> in memory until
    its session ends, however many there are: the file ids are the client's to invent, so one
    session could hold any number of maxUploadSize files. Wrapped, `add_file` keeps at most
    `files_per_session` files per session (the oldest are dropped first: a widget that still
    names one then holds nothing, as if the file had been removed), and refuses a file (HTTP 507,
    "Insufficient Storage") that would take all sessions' uploads past `bytes_total`. One
    session thus holds at most files_per_session x server.maxUploadSize bytes. True when the
    wrapper is in place (also when it already was); False, and Streamlit as it is, otherwise."""
    try:
        from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

        original = MemoryUploadedFileManager.add_file
        if getattr(original, "_pee_bounded", False):
            return True
        MemoryUploadedFileManager._pee_limits = (files_per_session, bytes_total)  # noqa: SLF001

        def add_file(self, session_id: str, file) -> None:
            per_session, total = type(self)._pee_limits  # noqa: SLF001
            with self._lock:  # noqa: SLF001
                replaced = self.file_storage.get(session_id, {}).get(file.file_id)
                held = self._total_bytes - (len(replaced.data) if replaced is not None else 0)  # noqa: SLF001
            if held + len(file.data) > total:
                _refuse_upload(f"This server holds {held / 2**20:.0f} MB of uploads already, its limit; try again in a few minutes.")
            original(self, session_id, file)
            with self._lock:  # noqa: SLF001
                storage = self.file_storage.get(session_id, {})
                while len(storage) > per_session:
                    oldest = next(fid for fid in storage if fid != file.file_id)
                    dropped = storage.pop(oldest)
                    self._total_bytes -= len(dropped.data)  # noqa: SLF001
                    self._file_count -= 1  # noqa: SLF001

        add_file._pee_bounded = True
        MemoryUploadedFileManager.add_file = add_file
        return True
    except Exception:
        return False


EVENTS_PER_MESSAGE = 8  # event names one component message may carry; the app's components send one or two
TRIGGER_CHARS = 2**20  # a component message's events as JSON: the app's are under 200 characters; past this, not even parsed


def last_events(payloads: object) -> object:
    """A component message's events as the app acts on them: the last event of each name, in the
    order those last ones were sent, at most EVENTS_PER_MESSAGE names (the last ones). The
    browser sends one event per message; a list repeating one is what a forged message holds,
    and Streamlit would run the event's callback once per entry. Streamlit shows the page the
    last value of each name already, so the page sees what it saw before. Anything but a list is
    returned as it is."""
    if not isinstance(payloads, list):
        return payloads
    last: dict[str, object] = {}
    for payload in reversed(payloads):
        name = payload.get("event") if isinstance(payload, dict) else None
        if isinstance(name, str) and name not in last:
            last[name] = payload
            if len(last) == EVENTS_PER_MESSAGE:
                break
    return list(reversed(last.values()))


def one_event_each() -> bool:
    """Run a component's callback at most once per event name per message.

    A browser component's events reach the server as one JSON list per message (its trigger
    value), decoded by `bidi_component.main.deserialize_trigger_list` (the deserializer every
    component call registers) and then dispatched by `SessionState._dispatch_trigger_callbacks`,
    which runs the event's callback once for every entry of the list, whatever its length. Wrapped,
    the decoded list is `last_events` of it, so a message of 10,000 zoom events runs the zoom
    callback once; a message longer than TRIGGER_CHARS is not parsed and holds no event (a 50 MB
    list of small objects would take the server seconds and gigabytes to parse). True when in place."""
    try:
        from streamlit.components.v2.bidi_component import main

        original = main.deserialize_trigger_list
        if getattr(original, "_pee_last", False):
            return True

        def deserialize_trigger_list(s):
            if isinstance(s, (str, bytes)) and len(s) > TRIGGER_CHARS:
                return []
            return last_events(original(s))

        deserialize_trigger_list._pee_last, deserialize_trigger_list.__wrapped__ = True, original
        main.deserialize_trigger_list = deserialize_trigger_list
        return True
    except Exception:
        return False


def _refuse_upload(detail: str) -> None:
    """Raise what the upload route turns into an HTTP error status (507), or a plain error (500)."""
    try:
        from starlette.exceptions import HTTPException
    except Exception:  # another server: any exception refuses the upload
        raise RuntimeError(detail) from None
    raise HTTPException(status_code=507, detail=detail)


# --- what every run repeats: four wrappers installed once per process ----------------------
# Measured in a room (py-spy --gil on a server under `python -m bench.load.ws --sessions 20`):
# the theme 5 % of the server's CPU, a keyed component's identity 2 %, the cache keys 3 %,
# the widgets' copies of Session State 3 to 4 %; docs/deploy.md has the before and after.


def theme_read_once() -> bool:
    """Read the theme from the config once per section, not at every full run.

    Every full run starts with a new_session message whose six theme sections Streamlit fills
    by reading every config option each time (`_populate_theme_msg`). Wrapped, a section is
    filled once into a message of its own (with whether Streamlit set it at all: a section set to
    defaults only, as `base` alone, is still sent) and copied into each later one; filled again when
    the config is parsed again (a new options dict). A theme option set at run time in the same dict
    (`config.set_option`; the app sets none) would not be seen. True when in place."""
    try:
        from streamlit import config
        from streamlit.runtime import app_session

        original = app_session._populate_theme_msg
        if getattr(original, "_pee_once", False):
            return True
        filled: dict = {}

        def populate(msg, section: str = "theme") -> None:
            try:
                options = config.get_config_options()
                found = filled.get((type(msg), section))
                if found is None or found[0] is not options:
                    holder = type(msg)()  # filled as a sub-message (its `sidebar`, of the same type): whether Streamlit set it shows
                    original(holder.sidebar, section)
                    found = filled[(type(msg), section)] = (options, holder.HasField("sidebar"), holder.sidebar)
                _, touched, section_msg = found
            except Exception:  # not as written for: Streamlit's own
                original(msg, section)
                return
            if touched:  # set (even to defaults only, as `base` alone): the section is sent, as Streamlit sends it
                msg.SetInParent()
                msg.MergeFrom(section_msg)

        populate._pee_once, populate.__wrapped__ = True, original
        app_session._populate_theme_msg = populate
        return True
    except Exception:
        return False


def keyed_components_unhashed() -> bool:
    """Skip the identity a keyed browser component's data would give it, which Streamlit computes
    and then ignores.

    For every component call, Streamlit hashes its data (a dict encoded to JSON a second time, keys
    sorted; bytes, a heatmap's ~130 kB of JSON, as they are) into identity kwargs for `compute_and_register_element_id`,
    which drops them all when the call has a key. Every component of the app has one. Wrapped, a
    keyed call's identity is built without its data (the element id is the same); an unkeyed
    call's as before. True when in place."""
    try:
        import threading
        import types

        import streamlit
        from streamlit.components.v2.bidi_component.main import BidiComponentMixin

        original_call = BidiComponentMixin._bidi_component
        if getattr(original_call, "_pee_keyed", False):
            return True
        original_identity = BidiComponentMixin._build_bidi_identity_kwargs
        keyed = threading.local()

        def _bidi_component(self, component_name, key=None, *args, **kwargs):
            keyed.on = key is not None
            try:
                return original_call(self, component_name, key, *args, **kwargs)
            finally:
                keyed.on = False

        def _build_bidi_identity_kwargs(self, **kwargs):
            if getattr(keyed, "on", False) and "proto" in kwargs:
                kwargs["data"] = None
                kwargs["proto"] = type(kwargs["proto"])()  # no data field set: nothing of it is encoded
            return original_identity(self, **kwargs)

        bound = getattr(streamlit, "_bidi_component", None)
        if getattr(bound, "__func__", None) is not original_call:
            return False
        _bidi_component._pee_keyed, _bidi_component.__wrapped__ = True, original_call
        _build_bidi_identity_kwargs.__wrapped__ = original_identity
        BidiComponentMixin._bidi_component = _bidi_component
        BidiComponentMixin._build_bidi_identity_kwargs = _build_bidi_identity_kwargs
        streamlit._bidi_component = types.MethodType(_bidi_component, bound.__self__)
        return True
    except Exception:
        return False


def cache_keys_once() -> bool:
    """Work out the key of an st.cache_data function once, not every time its page runs.

    A page script runs again on every rerun, so each `@st.cache_data def f` in it makes a new
    CachedFunc, whose key (a hash of the function's module, qualified name and source) Streamlit
    works out by reading the source again (`inspect.getsource`: a tokenizer pass over the file).
    Streamlit compiles a page once (ScriptCache), so each run's `f` has the same code object;
    code objects compare by their contents but not their file, defaults or comments, so the key is
    kept by (cache type, module, qualified name, code, file, defaults) of the function inside any
    functools.wraps decorator (what Streamlit reads the source of). A change to comments alone keeps
    the key (the app's servers do not watch files). True when in place."""
    try:
        import inspect

        from streamlit.runtime.caching import cache_utils

        original = cache_utils._make_function_key
        if getattr(original, "_pee_once", False):
            return True
        keys: dict = {}

        def make_function_key(cache_type, func):
            try:
                target = inspect.unwrap(func)  # Streamlit reads the source of the function inside any functools.wraps decorator
                code = target.__code__
                kwdefaults = tuple(sorted((target.__kwdefaults__ or {}).items()))
                # code objects compare without their file, defaults or comments: those are part of the key too
                found = (cache_type, func.__module__, func.__qualname__, code, code.co_filename, target.__defaults__, kwdefaults)
                key = keys.get(found)
            except Exception:  # no code object, or an unhashable default: Streamlit's own, every time
                return original(cache_type, func)
            if key is None:
                key = keys[found] = original(cache_type, func)
            return key

        make_function_key._pee_once, make_function_key.__wrapped__ = True, original
        cache_utils._make_function_key = make_function_key
        return True
    except Exception:
        return False


WIDGET_MODULES = ("number_input", "selectbox", "slider", "text_widgets", "radio", "time_widgets")


class _OneKeyState(Mapping):
    """Session State as a widget reads it: a plain key answered by one lookup, the same read
    `st.session_state[key]` makes; anything else (an element id, an internal key, iterating) from
    the whole `filtered_state`, built once."""

    def __init__(self, safe) -> None:
        self._safe, self._whole = safe, None

    def _one(self, key) -> tuple[bool, object] | None:
        from streamlit.runtime.state.common import is_element_id
        from streamlit.runtime.state.session_state import _is_internal_key

        if not isinstance(key, str) or is_element_id(key) or _is_internal_key(key):
            return None
        try:
            lock, state = self._safe._lock, self._safe._state
        except AttributeError:  # not as written for: the whole state answers
            return None
        with lock:
            try:
                return True, state[key]
            except KeyError:
                return False, None

    def _all(self) -> dict:
        if self._whole is None:
            self._whole = self._safe.filtered_state
        return self._whole

    def __contains__(self, key) -> bool:
        one = self._one(key)
        return key in self._all() if one is None else one[0]

    def __getitem__(self, key):
        one = self._one(key)
        if one is None:
            return self._all()[key]
        if not one[0]:
            raise KeyError(key)
        return one[1]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class _OneKeySession:
    """A SafeSessionState whose `filtered_state` is a `_OneKeyState`; everything else is the real one's."""

    def __init__(self, safe) -> None:
        self._safe = safe

    def __getattr__(self, name: str):
        return getattr(self._safe, name)

    @property
    def filtered_state(self) -> _OneKeyState:
        return _OneKeyState(self._safe)


def widgets_read_one_key() -> bool:
    """Let a widget ask Session State about its own key instead of copying all of it first.

    number_input, selectbox, slider, text_input, radio and the time widgets each read
    `get_session_state().filtered_state` only to ask `key in state and state[key] is None`;
    `filtered_state` builds a dict of every key the session holds, reading each value: a cost
    that grows with every page a visitor has seen, paid per widget per run. In those modules
    `get_session_state` is wrapped so that `filtered_state` is a `_OneKeyState`. True when in place."""
    try:
        import importlib

        from streamlit.runtime.state import get_session_state

        modules = [importlib.import_module(f"streamlit.elements.widgets.{name}") for name in WIDGET_MODULES]
        if all(getattr(m.get_session_state, "_pee_one_key", False) for m in modules):
            return True
        if not all(m.get_session_state is get_session_state for m in modules):
            return False
        _OneKeyState(None)._one("$$ID-0-k")  # the two helpers it imports are there

        def one_key_session_state():
            return _OneKeySession(get_session_state())

        one_key_session_state._pee_one_key = True
        for m in modules:
            m.get_session_state = one_key_session_state
        return True
    except Exception:
        return False


# Installed when this module is first imported (app.py imports ui.sidebar, which imports it), so
# before the first session's first run finishes; True where each is in place.
INSTALLED = {
    "widget states": tolerate_bad_widget_states(),
    "uploads": bound_uploads(),
    "component events": one_event_each(),
    "theme": theme_read_once(),
    "keyed components": keyed_components_unhashed(),
    "cache keys": cache_keys_once(),
    "one key": widgets_read_one_key(),
    "url writes": url_writes_holdable(),
}


_PAGES: list = []  # the process's pages, as made, never given to st.navigation


def reused_pages(make: Callable[[], list]) -> list:
    """The st.Page list `make` returns, made on the first run of the process and copied on later
    ones (see the module docstring); made anew whenever the copies would not be fresh pages."""
    if _PAGES:
        try:
            copies = [copy.copy(page) for page in _PAGES]
            if all(getattr(page, "_can_be_called", None) is False for page in copies):
                return copies
        except Exception:  # pragma: no cover - a page that cannot be copied: make them anew
            pass
    made = make()
    if all(getattr(page, "_can_be_called", None) is False for page in made):
        _PAGES[:] = [copy.copy(page) for page in made]
    return made


def made_page(url_path: str):
    """The process's page at `url_path` as `reused_pages` made it, for st.page_link; None before the first run made them."""
    return next((page for page in _PAGES if getattr(page, "url_path", None) == url_path), None)
