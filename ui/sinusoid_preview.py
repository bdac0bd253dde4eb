"""An in-browser preview of the sinusoidal encoding (an `st.components.v2` component; its files are
in ui/components/sinusoid_preview/).

Its own three sliders (d_model, max_len, base) redraw the whole encoding in the browser on every
move, with no round trip to the server: the page sends the sidebar's settings when the tab opens
and again when a sidebar setting changes (the preview starts over there), with what the
component must not decide for itself: the app's diverging colour scale and the values at which
a cell's colour level steps up (core.viz.heatmap's, over ±1: the colours of every other
heatmap), the steps its rulers may number by, and the line under its sliders that says they are its
own and where they stop against the sidebar's. The component computes PE(p, i) itself, with
the formula core.schemes.sinusoidal uses (the paper's interleaved columns, or sines first; each row
the one before turned by each pair's angle, within 1e-12 of the formula), one canvas pixel per
cell. Hovering a cell reads its value; a button hands the preview's settings to the sidebar (every
figure follows), and a link opens the app at them.

Nothing a visitor types reaches the component's HTML: the data are numbers and the app's own
colours, and the component writes text with textContent only.
"""

from __future__ import annotations

from urllib.parse import urlparse

import streamlit as st

from core.viz import charts, heatmap, wire
from ui.components import component
from ui.params import BASE, D_MODEL, MAX_LEN
from ui.sidebar import set_shared

NAME = "pee.sinusoid_preview"
D_RANGE = (2, 1024)  # the preview's own slider ranges (the sidebar's may be larger: the preview clamps into these)
L_RANGE = (8, 2048)
BASE_EXPONENTS = (0.3, 7.0)  # the base slider moves log10(base) in steps of 0.01 (base 2 to 10 million: within the app's own range)
BASE_RANGE = (max(BASE.lo, 2.0), min(BASE.hi, 1e7))


def page_path(url: str | None) -> str:
    """The page's own path from its address (/sinusoidal, or /pe/sinusoidal behind a proxy), for
    the preview's link: absolute, so an address ending in a slash does not break it."""
    path = urlparse(url or "").path.rstrip("/")
    return path or "/sinusoidal"


def preview_data(d_model: int, max_len: int, base: float, layout: str, path: str = "/sinusoidal") -> dict:
    """What the component is sent (on the first draw and again whenever these change): the
    sidebar's settings (it brings them within its own ranges), the column layout, the app's
    diverging scale as RGB colours with the edges of its levels over ±1, the steps its rulers
    number by, and the page's path for its link."""
    return {
        "d_model": int(d_model),
        "max_len": int(max_len),
        "base": float(base),
        "layout": layout,
        "colours": wire.colour_lut(charts.DIVERGING, heatmap.LEVELS).tolist(),
        "dark_colours": heatmap.dark_colours(),  # the same levels as the heatmaps paint them in the dark theme
        "edges": heatmap.level_edges(-1.0, 1.0).tolist(),
        "tick_steps": charts.nice_steps(10 * max(D_RANGE[1], L_RANGE[1])),
        "d_range": list(D_RANGE),
        "L_range": list(L_RANGE),
        "base_exponents": list(BASE_EXPONENTS),
        "base_range": list(BASE_RANGE),
        "path": path,
        "note": ranges_note(d_model, max_len, base),  # under the preview's sliders: they are its own, and where they stop
    }


def start_settings(d_model: int, max_len: int, base: float) -> tuple[int, int, float]:
    """Where the preview's sliders start for the sidebar's settings, as index.js brings them within its ranges:
    an odd width up to the next even one (its slider steps by 2), each setting clamped into the preview's range."""
    d = min(max(d_model + d_model % 2, D_RANGE[0]), D_RANGE[1])
    return d, min(max(max_len, L_RANGE[0]), L_RANGE[1]), min(max(base, BASE_RANGE[0]), BASE_RANGE[1])


def ranges_note(d_model: int, max_len: int, base: float) -> str:
    """The line under the preview's sliders: they are its own, with their ranges against the sidebar's, and where the sidebar's
    settings on screen fall outside them, what the preview starts at instead."""

    def shown(x: float) -> str:
        return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.6g}"

    lead = (  # one line at 1,440 px: it stands between the sliders and the picture
        f"The preview's own sliders: d_model to {shown(D_RANGE[1])} (even), max_len to {shown(L_RANGE[1])}, base to {shown(BASE_RANGE[1])}; "
        f"the sidebar's (every other figure) to {shown(D_MODEL.hi)}, {shown(MAX_LEN.hi)}, {shown(BASE.hi)}."
    )
    starts = zip(("d_model", "max_len", "base"), (d_model, max_len, base), start_settings(d_model, max_len, base), strict=True)
    moved = [f"{name} {shown(given)} becomes {shown(used)}" for name, given, used in starts if used != given]
    return lead + (f" It starts at the sidebar's settings, brought within its ranges: {', '.join(moved)}." if moved else "")


KEY = "sin_preview"
REFUSED = "_sin_preview_refused"  # set by _apply when the settings sent could not be used


def _apply() -> None:
    """'Use these settings in the sidebar': the settings the preview sent become the sidebar's,
    checked there (ui.sidebar.set_shared), and the whole app runs again: the preview's tab runs
    as a fragment (ui/tabs.py), and the sidebar, the link and the other tabs follow only a
    full run. A message with a setting that is not a usable number changes nothing and says so."""
    got = st.session_state.get(KEY)
    if set_shared(got.get("apply") if hasattr(got, "get") else None):
        st.rerun(scope="app")  # from a callback (Streamlit 1.67): this interaction's run becomes the whole app's
    st.session_state[REFUSED] = True


def sinusoid_preview(d_model: int, max_len: int, base: float, layout: str) -> None:
    """Mount the preview, starting at these settings."""
    data = preview_data(d_model, max_len, base, layout, page_path(st.context.url))
    component(NAME, "sinusoid_preview")(data=data, key=KEY, height="content", on_apply_change=_apply)
    if st.session_state.pop(REFUSED, False):
        st.warning("The preview sent settings the app cannot use; the sidebar is unchanged.", icon=":material/block:")
