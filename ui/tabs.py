"""A page's figures in tabs, of which only the open one runs.

`st.tabs(..., key=..., bind="query-params")` (Streamlit 1.55+; lazy since 1.67) keeps the open
tab in the URL under `key` (its label verbatim; the first tab is the default and leaves the URL
clean), reruns the page when another tab is opened, and tells each tab whether it is open
(`.open`). A page that draws all its figures on every step of a shared slider makes the
browser draw them all again; drawn in tabs, a step redraws only the open tab's figures, and
every other figure stays one click away and in the link (`/sinusoidal?sin_view=Waves`).
A link naming no such tab opens the first one, with a notice.

The open tab runs as an `st.fragment`: a control inside it (a chosen dimension, a pair, a
reference position) reruns that tab alone, not the page around it (its header, the sidebar,
the controls above the tabs). Anything outside the tab that reads such a control would go
stale on those runs, so a control the page reads elsewhere belongs above the tabs (a change
there reruns the page).

The open tab is also a *live part* (`live_part`): a fragment with a key, which a move of a
shared setting the page declares live (`ui.path.Step.live`) reruns by that key, together with
the setting's own controls, instead of the whole page (`ui.sidebar`). So a drawer must read the
shared settings itself (`ui.sidebar.current_settings()`), never through a module-level name
computed from them: on a live rerun only the fragment runs, and the page's module-level names
keep the values of its last full run. tests/app/test_live.py checks, tab by tab, that a live
step shows exactly what a fresh load of the same link shows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import streamlit as st

from ui.controls import check_url_value
from ui.sidebar import LIVE_PARTS_KEY


def url_tabs(key: str, drawers: Mapping[str, Callable[[], None]]) -> None:
    """Draw one tab per label of `drawers`, and run the drawer of the open tab only (in its tab)."""
    labels = list(drawers)
    check_url_value(key, lambda raw: raw in labels, f"the tab is one of {', '.join(labels)}")  # Streamlit would drop it without a word
    tabs = st.tabs(labels, key=key, bind="query-params")
    for index, (label, tab) in enumerate(zip(labels, tabs)):
        if tab.open is False:  # None: the tabs do not track state (never, bound as they are), so run everything
            continue
        with tab:
            live_part(f"{key}_open" if tab.open else f"{key}_{index}", drawers[label])  # a fragment key is drawn once per run


def live_part(key: str, draw: Callable[[], None]) -> None:
    """Run `draw` here as a fragment named `key`, and list it among the parts a move of a live
    shared setting reruns (`ui.sidebar`). A part of a page above its tabs that reads a live setting
    (a formula with d_model in it, a notice about the width) is one too. `draw` reads the
    settings itself, as url_tabs' drawers do.
    ui.sidebar clears the list at the start of each full run; the page's parts add themselves as
    they are drawn, in full runs and fragment runs alike."""
    parts = st.session_state.setdefault(LIVE_PARTS_KEY, [])
    if key not in parts:
        parts.append(key)
    st.fragment(draw, key=key)()
