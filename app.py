"""Positional Encoding Explorer: the entry point.

Page config, the navigation over app_pages/ with stable URL paths, and the shared sidebar.
Run with `streamlit run app.py`.

The page scripts live in app_pages/, not pages/: with a folder named pages/ beside the entry
script, Streamlit starts in its legacy multipage mode, and the first visitor of a fresh
server who opens a deep link (say /sinusoidal) gets that page run without this file, so
without the sidebar. tests/app/test_pages.py guards the name.
"""

import base64
from pathlib import Path

import ui.threads  # noqa: F401, I001  first: it sets how numpy's BLAS threads wait, which numpy reads when it loads
import pandas  # noqa: F401  imported here, once, before any session runs a page: the first visitors of a fresh
import plotly.express  # noqa: F401  server arrive together, and a second session could see a half-imported module
import streamlit as st

from ui import heap, history, internals
from ui.path import BY_PATH, pages
from ui.scroll_regions import scroll_regions
from ui.sidebar import shared_controls, show_url_notices

# The page icon, the app's own (no font server needed offline), inline: given a file's path, Streamlit
# reads, checks and registers the image again on every run (about 1 ms of every full rerun, py-spy).
FAVICON = "data:image/png;base64," + base64.b64encode((Path(__file__).parent / "ui" / "assets" / "favicon.png").read_bytes()).decode("ascii")
STYLES = Path(__file__).parent / "ui" / "assets" / "app.css"  # what the theme has no option for (the file says what)

# The hardening (and the URL hold ui/history.py needs) always; the speed patches unless PEE_STOCK_STREAMLIT
# asks for Streamlit as shipped. Once per process in effect: each is a no-op when already in place.
internals.install()
st.set_page_config(page_title="Positional Encoding Explorer", page_icon=FAVICON, layout="wide")

st.html(STYLES)
page = st.navigation(pages())  # in the order of the learning path (ui/path.py); the URL paths never change
step = BY_PATH[page.url_path]
held = history.hold_first_writes()  # a session's first run: its writes of the URL go into the entry of the load
try:
    shared_controls(step.uses, step.live)
    show_url_notices()
    with st.sidebar:
        scroll_regions()  # keyboard access to whatever scrolls sideways (ui/assets/scroll_regions.js)
    page.run()
finally:
    query = history.release(held)
    heap.settle()  # after a run that imported something: the collector's full passes kept off it (ui/heap.py)
history.one_entry_per_page(page.url_path, query)  # one history entry per page visited (ui/assets/history.js)
