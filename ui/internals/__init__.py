"""The only package that touches Streamlit's private structures, a module per job:

- `session`: reading the running session (whose run, what the browser sent, still connected, who the visitor is);
- `url`: Streamlit's private copy of the URL and its sending of every URL write;
- `hardening`: bounds on what a hostile browser sends (widget states, uploads, component events), always on;
- `speed`: what Streamlit repeats on every run, done once per process, off with PEE_STOCK_STREAMLIT=1.

Each module lists the structures it relies on and falls back to public behaviour when one is
missing; tests/ui/test_internals.py fails loudly when an upgrade moves one. Nothing is wrapped
at import: app.py calls `install()` at the top of every run (a no-op once in place).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

WRITTEN_FOR = "1.67.0"  # the streamlit version whose private structures every module here reads
STOCK_ENV = "PEE_STOCK_STREAMLIT"  # "1": no speed patch, Streamlit as shipped (hardening stays); or the names of the patches to leave out


def install(environ: Mapping[str, str] = os.environ) -> dict[str, bool]:
    """Put the wrappers in place, once per process: the hardening and the URL hold always, the speed
    patches unless `environ` asks for stock Streamlit: PEE_STOCK_STREAMLIT=1 leaves every one out, a list of
    their names (`speed.PATCHES`, comma-separated) those alone, which is how the A/B measures each.
    Returns, by name, True where each is in place."""
    from ui.internals import hardening, speed, url

    installed = {
        "widget states": hardening.tolerate_bad_widget_states(),
        "uploads": hardening.bound_uploads(),
        "component events": hardening.one_event_each(),
        "url writes": url.url_writes_holdable(),
        "url copy": url.browser_copy_followed(),
    }
    installed.update({name: patch() for name, patch in speed.PATCHES.items() if name not in left_out(environ)})
    return installed


def left_out(environ: Mapping[str, str]) -> set[str]:
    """The speed patches PEE_STOCK_STREAMLIT leaves out: all for "1", else the names it lists (unknown ones ignored)."""
    from ui.internals.speed import PATCHES

    value = environ.get(STOCK_ENV, "").strip()
    if value == "1":
        return set(PATCHES)
    return {name.strip() for name in value.split(",")} & set(PATCHES)
