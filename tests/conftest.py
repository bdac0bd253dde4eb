"""What every test shares.

Each new AppTest scans every installed distribution for Streamlit component manifests on its first
run (streamlit.components.v2.manifest_scanner.scan_component_manifests, 0.14 s with this project's
packages), and the suite creates well over a thousand of them. The installed packages do not change
while the tests run, so the scan is done once per process. tests/ui/test_internals.py fails if
Streamlit stops calling it this way.

Figures are shared between sessions once built (core.viz.memo); each test checks that none it stored
was changed afterwards, and starts with none stored.
"""

from __future__ import annotations

import functools

import pytest
from streamlit.components.v2 import manifest_scanner

from core.viz import memo
from ui import internals

memo.STORE.watch = True  # every stored figure's contents recorded, for the check below

manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)

# What app.py installs on its first run, in place before any test: a helper's own AppTest (a function, not
# app.py) then runs under the Streamlit the app runs under (PEE_STOCK_STREAMLIT=1 runs the suite on stock).
internals.install()


@pytest.fixture(autouse=True)
def shared_figures_stay_as_built():
    """Figures are built once per process and shared (core.viz.memo): after each test, none of those it
    stored may have changed since (a caller that styles a figure builds its own with `.fresh`), and the
    store is emptied, so that no test sees another's figures."""
    yield
    changed = memo.STORE.changed()
    memo.STORE.clear()
    assert not changed, f"{len(changed)} shared figure(s) changed after they were built"
