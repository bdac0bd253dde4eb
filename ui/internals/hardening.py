"""Hardening: what a hostile browser could send that Streamlit would act on without bound, wrapped
once per process. Always installed (`ui.internals.install`): these are not speed patches.

- `tolerate_bad_widget_states`: a widget value the widget cannot decode counts as no value.
- `bound_uploads`: at most a few files per session, a cap on all sessions' uploads together.
- `one_event_each`: a component message runs each event's callback once.

Written for streamlit 1.67.0 (`ui.internals.WRITTEN_FOR`); each returns False and leaves Streamlit
as it is when a structure is not as described (tests/ui/test_internals.py fails loudly when an
upgrade moves one). What is relied on, none of it documented API:

- `state.session_state.WStates.__getitem__`: where a widget value the browser sent is decoded
  by its widget's deserializer (`widget_metadata[id].deserializer`, its field `value_type`),
  before the script runs; `Value` is the decoded form it stores, `Serialized` the sent one
  (a WidgetState proto in `.value`); `WStates.get_serialized`, where a decoded value is encoded
  again when its widget registers. `tolerate_bad_widget_states` wraps both, and
  `elements.widgets.multiselect._check_max_selections` (a module global st.multiselect calls
  with the decoded list and its max_selections).
- `memory_uploaded_file_manager.MemoryUploadedFileManager`: the server's store of uploads, with
  `add_file(session_id, file)`, `file_storage` (session id -> {file id -> UploadedFileRec with
  `.data`}), `_lock`, `_total_bytes`, `_file_count`; the upload route of the Starlette server
  (web/server/starlette/starlette_routes.py) calls `add_file` once a PUT's body is read, and
  turns a `starlette.exceptions.HTTPException` raised there into that status.
- `components.v2.bidi_component.main.deserialize_trigger_list`, a module global the component
  call (`_bidi_component`) registers as the deserializer of a component's trigger list (a JSON
  list of {"event", "value"} sent in `json_trigger_value`), whose decoded list
  `SessionState._dispatch_trigger_callbacks` walks, running the event's callback per entry.
"""

from __future__ import annotations


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


def bound_uploads() -> bool:
    """Bound what uploads can hold in this server process.

    Streamlit keeps every file PUT to /_stcore/upload_file/<session>/<file id> in memory until
    its session ends, however many there are: the file ids are the client's to invent, so one
    session could hold any number of maxUploadSize files. Wrapped, `add_file` keeps at most
    UPLOAD_FILES_PER_SESSION files per session (the oldest are dropped first: a widget that still
    names one then holds nothing, as if the file had been removed), and refuses a file (HTTP 507,
    "Insufficient Storage") that would take all sessions' uploads past UPLOAD_BYTES_TOTAL. One
    session thus holds at most UPLOAD_FILES_PER_SESSION x server.maxUploadSize bytes. True when the
    wrapper is in place (also when it already was); False, and Streamlit as it is, otherwise."""
    try:
        from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

        original = MemoryUploadedFileManager.add_file
        if getattr(original, "_pee_bounded", False):
            return True

        def add_file(self, session_id: str, file) -> None:
            with self._lock:  # noqa: SLF001
                replaced = self.file_storage.get(session_id, {}).get(file.file_id)
                held = self._total_bytes - (len(replaced.data) if replaced is not None else 0)  # noqa: SLF001
            if held + len(file.data) > UPLOAD_BYTES_TOTAL:
                _refuse_upload(f"This server holds {held / 2**20:.0f} MB of uploads already, its limit; try again in a few minutes.")
            original(self, session_id, file)
            with self._lock:  # noqa: SLF001
                storage = self.file_storage.get(session_id, {})
                while len(storage) > UPLOAD_FILES_PER_SESSION:
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
