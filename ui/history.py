"""One history entry per page the visitor goes to (the script, ui/assets/history.js, says why and how).

The script patches the page's history once it has loaded, but a session's first run writes the URL before
it can have: that run holds its writes (`ui.internals.hold_url_writes`: st.query_params changes, nothing is
sent to the browser) and hands the final query string to the script at its end, which writes it into the
entry of the load. Later runs write as usual, and the script turns their pushes into replacements.
"""

from __future__ import annotations

import functools
from pathlib import Path

import streamlit as st

from ui.internals import hold_url_writes

JS = Path(__file__).parent / "assets" / "history.js"
SHOWN_KEY = "_url_in_history"  # set once a run of this session has handed its URL to the script


@functools.cache
def _renderer():
    """The component, registered once per process: no HTML of its own, the script only."""
    return st.components.v2.component("pee_history", js=JS.read_text(), isolate_styles=False)


def hold_first_writes() -> bool:
    """At the start of a run: hold its writes of the URL if no run of this session has handed one over yet. Whether held."""
    if SHOWN_KEY in st.session_state:
        return False
    hold_url_writes(True)
    return True


def release(held: bool) -> str | None:
    """At the end of a run (also one cut short): let its writes go; the query string to hand over if they were held."""
    return hold_url_writes(False) if held else None


def one_entry_per_page(path: str, query: str | None) -> None:
    """Mount the script (every full run, at its end), with the held run's query string for the page at `path`."""
    if query is not None:
        st.session_state[SHOWN_KEY] = True
    with st.sidebar:
        _renderer()(data={"path": path, "query": query}, key="pee_history")
