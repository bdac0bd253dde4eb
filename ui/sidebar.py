"""The shared sidebar (d_model, max_len, base), bound to the URL.

Each setting has two widgets: a log-spaced slider for quick moves and an exact number
entry (key = the setting's name: see docs/architecture.md, "Links"). The number entry holds the value;
the slider follows it. On a session's first run the values are read from the URL through
`ui.params.parse_param`, so a bad value becomes a notice and a fallback, never an
exception; on every run the current values are written back, so the address bar is always
a link to the view on screen, after a page switch too.

A page shows only the settings it uses (`ui.path.Step.uses`); one that uses none shows no
settings section. A setting the page does not show keeps its value (in Session State and in the
URL), so a link's value reaches the next page that uses it.

How a move of a setting reruns the page depends on what the page does with it (`ui.path.Step`):
- a *live* setting, one the page reads only inside its live parts (the open tab, and any part
  above the tabs that `ui.tabs.live_part` draws), is a fragment too, and its move reruns
  its controls and those parts by their keys (`st.rerun([...])` from the control's callback):
  the page's title, text, controls and the rest of the sidebar are neither run nor sent nor
  drawn again (in Chromium, a d_model step on /similarity, /attention and /sinusoidal took
  about 0.03 s less, a tenth to a sixth of it: docs/deploy.md);
- any other setting the page uses is a plain control, whose move reruns the page once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st
from streamlit.errors import StreamlitAPIException

from ui.internals.session import widget_values_sent_by_browser
from ui.params import BASE, D_MODEL, MAX_LEN, SHARED_PARAMS, ParamSpec, log_ticks, parse_param

NOTICES_KEY = "_url_notices"
LIVE_PARTS_KEY = "_live_parts"  # the fragment keys of those parts drawn since the page's last full run (ui.tabs.live_part)
NOTICES_SHOWN_KEY = "_notices_shown"  # whether the page on screen was drawn with link notices (set on full runs)
# what a move of a shared setting reruns, as its controls are drawn (`shared_controls`): the page (a setting it reads
# above its live parts) or its live parts (a live setting)
PAGE, LIVE = "page", "live"


@dataclass(frozen=True)
class Settings:
    """The shared settings as plain values; they unpack in that order (`d, L, base = current_settings()`)."""

    d_model: int
    max_len: int
    base: float

    def __iter__(self):
        return iter((self.d_model, self.max_len, self.base))


def _slider_key(spec: ParamSpec) -> str:
    return f"{spec.name}_slider"


def _stops(spec: ParamSpec, value: float) -> list[float]:
    """The slider's stops: the log-spaced ones plus the exact current value."""
    return sorted(set(log_ticks(spec)) | {value})


def _slider_label(spec: ParamSpec, value: float) -> str:
    """How the slider shows a stop (and names it in the widget state the browser sends)."""
    return spec.format(value) if spec.integer else f"{value:,.6g}"


def _moved(source: str, twin: str, spec: ParamSpec, reruns: str) -> None:
    """A move of one of a setting's two widgets (slider, exact entry): the other takes its value, then what reads it reruns."""
    st.session_state[twin] = st.session_state[source]
    _rerun_what_reads(spec, reruns)


def _fragment_key(spec: ParamSpec) -> str:
    """The fragment key of a live setting's controls."""
    return f"shared_{spec.name}"


def _rerun_what_reads(spec: ParamSpec, reruns: str) -> None:
    """After a move of `spec` (in its callback), what reruns:
    - PAGE: the page; Streamlit's own rerun, nothing here;
    - LIVE: its controls and the page's live parts, by their keys.
    The whole app instead, for LIVE, when the page shows link notices the move made obsolete, when
    no live part was drawn since the page's last full run (it stopped before them: /compare with no
    scheme picked) or when one of them is no longer registered with Streamlit."""
    notices_shown = st.session_state.get(NOTICES_SHOWN_KEY, False)
    st.session_state[NOTICES_KEY] = []
    if reruns == PAGE:
        return
    parts = list(st.session_state.get(LIVE_PARTS_KEY, ()))
    if parts and not notices_shown:
        try:
            st.rerun([_fragment_key(spec), *parts])
        except StreamlitAPIException:  # a listed part Streamlit no longer holds (dropped by a later run): the whole app
            pass
    st.rerun(scope="app")  # the controls are a fragment: without this only they would rerun


def set_shared(values: Mapping[str, object]) -> bool:
    """Set shared settings to numbers a browser component sent (the live preview's 'use these
    settings'), each checked as a widget's value is (`_number_sent`: a finite number, whole
    where the setting is, clamped into its range): all of them or, if any is not usable, none.
    Call it from a callback, which runs before the sidebar's widgets are drawn. True if set."""
    if not isinstance(values, Mapping):
        return False
    specs = [spec for spec in SHARED_PARAMS if spec.name in values]
    checked = [(spec, _number_sent(spec, values[spec.name])) for spec in specs]
    if not checked or any(value is None for _, value in checked):
        return False
    for spec, value in checked:
        _put(spec, value)
    st.session_state[NOTICES_KEY] = []  # as a move of the sidebar's own controls
    return True


def _put(spec: ParamSpec, value: float) -> None:
    """A shared setting's value, in its exact-value box and on its slider alike."""
    st.session_state[spec.name] = value
    st.session_state[_slider_key(spec)] = value


def _number_sent(spec: ParamSpec, raw: object) -> float | None:
    """A number the browser sent for `spec`, checked and clamped by `parse_param`; None if not usable."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return None
    if isinstance(raw, float) and not (math.isfinite(raw) and (raw.is_integer() or not spec.integer)):
        return None
    return parse_param(str(raw), spec).value  # an int of any size too: parse_param clamps one past a float's range


def _moved_before_first_run(spec: ParamSpec, url_value: float, sent: dict[str, object]) -> float | None:
    """The value the user moved `spec` to, if the browser sent one that differs from the URL's
    (the URL is written on every run, so it holds the value shown before the move): a new
    number in the box, or a new stop on the slider, read against the stops the browser was
    showing. None when nothing was moved (or on a fresh page load, which sends nothing).
    A page link clicked first sends no query string: the values shown then differ from the
    defaults and are kept, where seeding from the empty URL reset them."""
    typed = _number_sent(spec, sent.get(spec.name))
    if typed is not None and typed != url_value:
        return typed
    labels = sent.get(_slider_key(spec))
    if isinstance(labels, list) and len(labels) == 1:
        stop = {_slider_label(spec, v): v for v in _stops(spec, url_value)}.get(labels[0])
        if stop is not None and stop != url_value:
            return stop
    return None


def _read_url_once() -> None:
    """On the first run of a session, seed every setting from the URL and keep the notices.

    A first run can also be a browser reconnecting to a restarted server, with the move that
    sent it (see `ui.internals.session.widget_values_sent_by_browser`): that move is kept for both
    widgets, as the on_change callbacks would have done, instead of being undone by the URL's
    older value."""
    if all(spec.name in st.session_state for spec in SHARED_PARAMS):
        return
    sent = widget_values_sent_by_browser()
    notices, moved = [], False
    for spec in SHARED_PARAMS:
        parsed = parse_param(st.query_params.get(spec.name), spec)
        value = _moved_before_first_run(spec, parsed.value, sent)
        if value is None:
            value = parsed.value
            if parsed.notice:
                notices.append(parsed.notice)
        else:
            moved = True
        _put(spec, value)
    st.session_state[NOTICES_KEY] = [] if moved else notices  # a move clears the notices, as in _rerun_what_reads


def _control(spec: ParamSpec, label: str, help_text: str, reruns: str = PAGE) -> float:
    st.select_slider(
        label,
        options=_stops(spec, st.session_state[spec.name]),
        format_func=lambda v: _slider_label(spec, v),
        key=_slider_key(spec),
        on_change=_moved,
        args=(_slider_key(spec), spec.name, spec, reruns),
        help=help_text,
    )
    st.number_input(
        f"exact {spec.name}",
        min_value=int(spec.lo) if spec.integer else float(spec.lo),
        max_value=int(spec.hi) if spec.integer else float(spec.hi),
        step=1 if spec.integer else 1000.0,
        format=None if spec.integer else "%.6g",
        key=spec.name,
        on_change=_moved,
        args=(spec.name, _slider_key(spec), spec, reruns),
    )
    return st.session_state[spec.name]


CONTROL_TEXT = {  # each shared setting's slider label and help
    D_MODEL.name: ("d_model: width of each position vector", "2 to 8192; any whole number in the box below."),
    MAX_LEN.name: ("max_len: number of positions", "1 to 131072; any whole number in the box below."),
    BASE.name: ("base: sets the slowest wavelength", "2 to 100,000,000; the paper uses 10,000."),
}


def shared_controls(uses: frozenset[str] = frozenset({"d_model", "max_len", "base"}), live: frozenset[str] = frozenset()) -> Settings:
    """Draw the sidebar settings the page uses (`uses` names them), write all of them to the URL,
    and return them. Call it from the entry script, once per run.

    A setting the page uses is drawn as a plain control: a move reruns the page, once; unless it
    is also `live` (the page reads it only in its live parts): then the controls are a fragment
    named `shared_<name>`, and a move reruns them and the page's live parts alone
    (`_rerun_what_reads` says when the whole app instead). A setting the page does not use is not
    drawn, and keeps its value (`_kept`)."""
    _read_url_once()
    # app.py's own lines run on full runs only, never on a fragment's: whether the page about to be drawn shows notices
    st.session_state[NOTICES_SHOWN_KEY] = bool(st.session_state.get(NOTICES_KEY))
    st.session_state[LIVE_PARTS_KEY] = []  # the page lists its live parts as it draws them (ui.tabs.live_part)
    with st.sidebar:
        if uses:
            st.markdown("**Shared settings**")
        for spec in SHARED_PARAMS:
            if spec.name not in uses:
                _kept(spec)
            elif spec.name in live:
                _fragment_controls(spec, LIVE)
            else:
                _control(spec, *CONTROL_TEXT[spec.name])
        _reconnect_timer()
    settings = current_settings()
    st.query_params.update({spec.name: spec.format(getattr(settings, spec.name)) for spec in SHARED_PARAMS})
    return settings


def _kept(spec: ParamSpec) -> None:
    """Keep a setting whose widgets this run does not draw. Streamlit drops a widget's value from
    Session State at the end of a run that did not draw it; a value set through Session State in
    the run is the app's own and stays, and the widgets take it up when a page draws them again."""
    for key in (spec.name, _slider_key(spec)):
        try:
            value = st.session_state[key]
        except KeyError:  # a widget whose value this session never received (a client that sent only another widget's state)
            continue
        st.session_state[key] = value


def _fragment_controls(spec: ParamSpec, reruns: str) -> None:
    """The controls of a live setting, as a fragment of their own (`shared_<name>`); on its own runs
    it writes the setting to the URL, which app.py does on full runs. What a move reruns:
    `_rerun_what_reads`."""

    def controls() -> None:
        _control(spec, *CONTROL_TEXT[spec.name], reruns=reruns)
        st.query_params[spec.name] = spec.format(st.session_state[spec.name])

    st.fragment(controls, key=_fragment_key(spec))()


# A fragment's rerun names its fragment, which lives in the server's session: a browser that
# reconnects to a restarted server (or to another replica) holds a fresh session, which drops a
# rerun of a fragment it has not registered, so a first move there would be lost (a live
# sidebar setting, or a control inside a tab: ui/tabs.py). Streamlit's frontend asks
# for a full run when it reconnects if the page has a fragment that reruns on a timer; so every
# page has one, which draws nothing, on a timer long enough to cost nothing (hourly).
# tests/e2e/test_faults.py moves a control after a restart.
RECONNECT_TIMER = "1h"


@st.fragment(run_every=RECONNECT_TIMER)
def _reconnect_timer() -> None:
    """Nothing to draw: its timer is what makes a reconnecting browser ask for a full run."""


def show_url_notices() -> None:
    """Show, at the top of the page, what was wrong with the link this session was opened with."""
    for notice in st.session_state.get(NOTICES_KEY, []):
        st.warning(notice, icon=":material/link_off:")


def current_settings() -> Settings:
    """The shared settings as set by the sidebar on this run (pages call this)."""
    return Settings(int(st.session_state[D_MODEL.name]), int(st.session_state[MAX_LEN.name]), float(st.session_state[BASE.name]))
