"""Each page's "Sources" expander: what the page says about a paper, a model or a library, and where that
comes from (paper, section, equation or table; a config file; a commit on a repository's default branch).
Numbers the page computes from its own arrays need no entry: the page says how they are computed. Where a
source could not be read here, the entry says so.

A page's entries are declared in its Step (ui/path.py, beside its title and pitch); `SOURCES` maps a page's
URL path to them, and `sources_expander(path)` draws them, folded, at the end of
the page. The text is the app's own, shown through `static_table` (as text, never as Markdown)."""

from __future__ import annotations

import streamlit as st

from ui.display import static_table
from ui.path import STEPS

SOURCES = {step.url_path: step.sources for step in STEPS}  # a page's entries are declared in its Step (ui/path.py)


def sources_expander(path: str) -> None:
    """The page's sources, folded, as a two-column table built only while the expander is open (Streamlit 1.67 runs
    a lazy expander's content only when it is open): a closed one costs the page nothing."""
    entries = SOURCES[path]
    box = st.expander("Sources", icon=":material/menu_book:", key=f"sources_{path or 'problem'}", on_change="rerun")
    if box.open:
        with box:
            static_table({"what the page says": [e.claim for e in entries], "source": [e.where for e in entries]})
