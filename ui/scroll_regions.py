"""Boxes that scroll sideways made reachable from the keyboard (the script, ui/assets/scroll_regions.js, says how)."""

from __future__ import annotations

from pathlib import Path


from ui.components import script_component

JS = Path(__file__).parent / "assets" / "scroll_regions.js"


def scroll_regions() -> None:
    """Mount the script (once per page: it watches the page from then on)."""
    script_component("pee_scroll_regions", JS)(key="pee_scroll_regions")
