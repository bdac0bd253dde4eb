"""Boxes that scroll sideways made reachable from the keyboard (the script, ui/assets/scroll_regions.js, says how)."""

from __future__ import annotations

import functools
from pathlib import Path

import streamlit as st

JS = Path(__file__).parent / "assets" / "scroll_regions.js"


@functools.cache
def _renderer():
    """The component, registered once per process: no HTML of its own, the script only."""
    return st.components.v2.component("pee_scroll_regions", js=JS.read_text(), isolate_styles=False)


def scroll_regions() -> None:
    """Mount the script (once per page: it watches the page from then on)."""
    _renderer()(key="pee_scroll_regions")
