"""The URL as Streamlit keeps it privately: its copy of the URL a session opened with (which seeds
widgets bound to the URL), and its sending of every write of st.query_params to the browser.

Written for streamlit 1.67.0 (`ui.internals.WRITTEN_FOR`); each function falls back to public
behaviour when a structure is missing (tests/ui/test_internals.py fails loudly when an upgrade
moves one). What is relied on, none of it documented API:

- `SessionState.query_params._initial_query_params`: dict param -> list of values, the URL the
  session opened with; Streamlit seeds a widget bound to the URL (bind="query-params") from it,
  not from st.query_params. Streamlit sets it again from the query string of every run, and
  seeds from it on a widget's first run, on a page switch and on the browser's Back and Forward.
  `QueryParams.remove_param(key)`: takes a parameter out of the URL (and tells the browser) even
  when a widget is bound to it, which `del st.query_params[key]` refuses.
- `QueryParams._send_query_param_msg(self)`: what every write of st.query_params calls to send the new
  query string (`_query_params`, urlencoded) to the browser and keep it as `ScriptRunContext.query_string`;
  `url_writes_holdable` wraps it (below), and the app sets an attribute of its own on the context.
"""

from __future__ import annotations

from ui.internals import session


def forget_initial_query_param(key: str) -> None:
    """Drop `key` from Streamlit's copy of the URL the session opened with, so a widget bound to
    it starts from its default. Needed because an int number_input seeded from that copy with
    -inf or 1e309 raises OverflowError (streamlit 1.67), and deleting the parameter from
    st.query_params leaves the copy as it was. Any failure is a no-op."""
    try:
        ctx = session._script_context()
        ctx.session_state._state.query_params._initial_query_params.pop(key, None)  # noqa: SLF001
    except Exception:
        pass


def drop_query_param(key: str) -> None:
    """Take `key` out of the URL and out of Streamlit's copy it seeds widgets from, even when a
    widget is already bound to it: a value met on Back or Forward arrives with the widget bound,
    and `del st.query_params[key]` then refuses. The widget starts from its default. Falls back
    to the public deletion (refused when bound: the copy is still cleared)."""
    try:
        session._script_context().session_state._state.query_params.remove_param(key)  # noqa: SLF001
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
    ctx = session._script_context()
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
            ctx = session._script_context()
            if ctx is not None and getattr(ctx, HELD_ATTR, False):
                ctx.query_string = parse.urlencode(self._query_params, doseq=True)  # noqa: SLF001
                return
            original(self)

        send._pee_held, send.__wrapped__ = True, original
        QueryParams._send_query_param_msg = send
        return True
    except Exception:
        return False
