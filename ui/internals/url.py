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
- `QueryParams.populate_from_query_string(self, query_string, valid_script_hashes=None)` and
  `QueryParams.set_initial_query_params(self, query_string)`: what `ScriptRunContext.reset` calls on every run
  on the same page (fragment runs too), after setting `ctx.query_string` and `ctx.is_history_navigation`,
  with the query string the browser sent; a page switch calls the first with `valid_script_hashes`, and it sends the
  URL when it takes out parameters bound to other pages' widgets.
  `browser_copy_followed` wraps both (below), and keeps an attribute of its own on the session's QueryParams.
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
            if getattr(self, BEHIND_ATTR, None) is not None:
                setattr(self, BEHIND_ATTR, None)  # the browser's copy is the URL just sent: nothing to follow

        send._pee_held, send.__wrapped__ = True, original
        QueryParams._send_query_param_msg = send
        return True
    except Exception:
        return False


# Streamlit's frontend keeps a copy of the URL of its own, set from the address bar when the page loads with a query
# string, on a page switch, and from every URL the server sends; it sends that copy with every rerun in place of the
# address bar's. A run that holds its writes sends nothing, so after it the copy is what it was when the run began,
# while ui/assets/history.js has written the run's URL into the address bar: the next run would start from the older
# URL, and a fragment's one write would send it back with every other value as it was (a max_len moved in a held run,
# then a live base moved: the link said the old max_len).
BEHIND_ATTR = "_pee_browser_copy"  # on the session's QueryParams: (the copy the browser holds, the URL it stands for)
SENT_ATTR = "_pee_url_sent"  # on the ScriptRunContext: the query string the browser sent for this run
FOLLOWED_ATTR = "_pee_url_followed"  # on the ScriptRunContext: whether this run starts from the URL, not the copy


def _query_params():
    return session._script_context().session_state._state.query_params  # noqa: SLF001


def browser_copy_behind(copy: str, url: str) -> None:
    """Say that the browser's copy of the URL is `copy` while the URL on screen is `url` (a held run handed `url`
    over and sent nothing): later runs on the same page that bring `copy` start from `url`. Any failure is a no-op."""
    try:
        setattr(_query_params(), BEHIND_ATTR, (copy, url))
    except Exception:
        pass


def sent_query_string() -> str | None:
    """The query string the browser sent for this run (its copy of the URL), None if unknown."""
    return getattr(session._script_context(), SENT_ATTR, None)


def followed() -> bool:
    """Whether this run started from the URL on screen in place of the browser's copy (`browser_copy_behind`)."""
    return bool(getattr(session._script_context(), FOLLOWED_ATTR, False))


def browser_copy_followed() -> bool:
    """Wrap what starts every run's st.query_params (and the values widgets bound to the URL are seeded from) from the
    query string the browser sent, so that on the same page, not on Back or Forward, a copy known to be behind
    (`browser_copy_behind`) is read as the URL it stands for. A URL the server sends brings the copy up to date
    (`url_writes_holdable`'s wrapper forgets it then). True when in place."""
    try:
        from streamlit.runtime.state.query_params import QueryParams

        populate, initial = QueryParams.populate_from_query_string, QueryParams.set_initial_query_params
        if getattr(populate, "_pee_followed", False):
            return True

        def on_screen(qp, query_string: str) -> str:
            ctx = session._script_context()
            behind = getattr(qp, BEHIND_ATTR, None)
            if ctx is None or behind is None or query_string != behind[0] or ctx.is_history_navigation:
                return query_string
            setattr(ctx, FOLLOWED_ATTR, True)
            ctx.query_string = behind[1]
            return behind[1]

        def populate_from_query_string(self, query_string, valid_script_hashes=None):
            ctx = session._script_context()
            if ctx is None:
                return populate(self, query_string, valid_script_hashes)
            setattr(ctx, SENT_ATTR, query_string)
            setattr(ctx, FOLLOWED_ATTR, False)
            if valid_script_hashes is None:
                return populate(self, on_screen(self, query_string), None)
            # A page switch: what the left page's controls bound to the URL are taken out of it is not sent (the new
            # page's run sends its own URL). Sent, it reached the browser while the address bar still showed the left
            # page, and unless ui/assets/history.js had loaded (a link clicked as the session's first run ended) it was
            # pushed as an entry of that page without them: Back to /relative?rel_view=T5 came to /relative.
            held = getattr(ctx, HELD_ATTR, False)
            setattr(ctx, HELD_ATTR, True)
            try:
                return populate(self, query_string, valid_script_hashes)
            finally:
                setattr(ctx, HELD_ATTR, held)

        def set_initial_query_params(self, query_string):
            return initial(self, on_screen(self, query_string))

        for wrapper, original in ((populate_from_query_string, populate), (set_initial_query_params, initial)):
            wrapper._pee_followed, wrapper.__wrapped__ = True, original
        QueryParams.populate_from_query_string = populate_from_query_string
        QueryParams.set_initial_query_params = set_initial_query_params
        return True
    except Exception:
        return False
