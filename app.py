"""Positional Encoding Explorer: the entry point.

Page config, the navigation over app_pages/ with stable URL paths, and the shared sidebar.
Run with `streamlit run app.py`.

The page scripts live in app_pages/, not pages/: with a folder named pages/ beside the entry
script, Streamlit starts in its legacy multipage mode, and the first visitor of a fresh
server who opens a deep link (say /sinusoidal) gets that page run without this file, so
without the sidebar. tests/app/test_pages.py guards the name.
"""

from pathlib import Path

import pandas  # noqa: F401  imported here, once, before any session runs a page: the first visitors of a fresh
import plotly.express  # noqa: F401  server arrive together, and a second session could see a half-imported module
import streamlit as st

from ui.shared import shared_controls, show_url_notices

FAVICON = Path(__file__).parent / "ui" / "assets" / "favicon.png"  # served by the app: no font server needed offline

st.set_page_config(page_title="Positional Encoding Explorer", page_icon=str(FAVICON), layout="wide")

PAGES = [
    st.Page("app_pages/problem.py", title="The position problem", icon=":material/help:", default=True),
    st.Page("app_pages/sinusoidal.py", title="Sinusoidal encoding", icon=":material/waves:", url_path="sinusoidal"),
    st.Page("app_pages/similarity.py", title="Similarity between positions", icon=":material/grid_on:", url_path="similarity"),
    st.Page("app_pages/attention.py", title="Attention with and without positions", icon=":material/visibility:", url_path="attention"),
    st.Page("app_pages/compare.py", title="Every scheme compared", icon=":material/view_module:", url_path="compare"),
    st.Page("app_pages/rope.py", title="Rotary embeddings (RoPE)", icon=":material/rotate_right:", url_path="rope"),
    st.Page("app_pages/context.py", title="Long context in real models", icon=":material/width_full:", url_path="context"),
    st.Page("app_pages/relative.py", title="Relative biases (ALiBi, T5)", icon=":material/linear_scale:", url_path="relative"),
    st.Page("app_pages/model.py", title="A real model's positions", icon=":material/model_training:", url_path="model"),
    st.Page("app_pages/lab.py", title="The lab: train and extrapolate", icon=":material/science:", url_path="lab"),
    st.Page("app_pages/code.py", title="Code for these settings", icon=":material/code:", url_path="code"),
]

page = st.navigation(PAGES)
shared_controls()
show_url_notices()
page.run()
