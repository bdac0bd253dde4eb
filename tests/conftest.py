"""What every test shares.

Each new AppTest scans every installed distribution for Streamlit component manifests on its first
run (streamlit.components.v2.manifest_scanner.scan_component_manifests, 0.14 s with this project's
packages), and the suite creates well over a thousand of them. The installed packages do not change
while the tests run, so the scan is done once per process. tests/ui/test_internals.py fails if
Streamlit stops calling it this way.
"""

from __future__ import annotations

import functools

from streamlit.components.v2 import manifest_scanner

manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)
