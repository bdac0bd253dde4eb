"""One history entry per page the visitor goes to (the script, ui/assets/history.js, says why and how).

The script patches the page's history once it has loaded, but a session's first run writes the URL before
it can have: that run holds its writes (`ui.internals.url.hold_url_writes`: st.query_params changes, nothing is
sent to the browser) and hands the final query string to the script at its end, which writes it into the
entry of the load. So do the runs after it until one arrives with that query string in the browser's URL,
which says the script has run (a link clicked before it loaded is followed by a run that would otherwise
push its URL unpatched). Later runs write as usual, and the script turns their pushes into replacements.

A held run sends Streamlit's frontend nothing, so the copy of the URL it keeps (and sends with every rerun, in place
of the address bar's, once the page was loaded with a query string or switched) still says what it said when the run
began. The run says so (`ui.internals.url.browser_copy_behind`), and the runs after it on the page start from the URL
it handed over; such a run cannot tell whether the script has run, and holds too, until a URL is sent.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs

import streamlit as st

from ui.components import script_component

from ui.internals.url import browser_copy_behind, followed, hold_url_writes, sent_query_string

JS = Path(__file__).parent / "assets" / "history.js"
SHOWN_KEY = "_url_in_history"  # set once the browser's URL shows what a run handed to the script: it has run
HANDED_KEY = "_url_handed"  # the query string last handed to the script


def hold_first_writes() -> bool:
    """At the start of a run, before it writes the URL: hold its writes unless the script has shown it runs. Whether held."""
    if SHOWN_KEY in st.session_state:
        return False
    handed = st.session_state.get(HANDED_KEY)
    if handed is not None and not followed() and parse_qs(handed) == {key: st.query_params.get_all(key) for key in st.query_params}:
        st.session_state[SHOWN_KEY] = True  # the browser's URL is what the script was handed: it is in place
        return False
    hold_url_writes(True)
    return True


def release(held: bool) -> str | None:
    """At the end of a run (also one cut short): let its writes go; the query string to hand over if they were held."""
    return hold_url_writes(False) if held else None


def one_entry_per_page(path: str, query: str | None) -> None:
    """Mount the script (every full run, at its end), with the held run's query string for the page at `path`."""
    if query is not None:
        st.session_state[HANDED_KEY] = query
        copy = sent_query_string()
        if copy is not None:
            browser_copy_behind(copy, query)  # nothing was sent: the browser's copy is still the one this run brought
    with st.sidebar:
        script_component("pee_history", JS)(data={"path": path, "query": query}, key="pee_history")
