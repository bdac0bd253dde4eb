"""Positional Encoding Explorer: the entry point.

Page config, the navigation over pages/ with stable URL paths, and the shared sidebar.
Run with `streamlit run app.py`.
"""

import streamlit as st

from ui.shared import shared_controls, show_url_notices

st.set_page_config(page_title="Positional Encoding Explorer", page_icon=":material/waves:", layout="wide")

PAGES = [
    st.Page("pages/problem.py", title="The position problem", icon=":material/help:", default=True),
    st.Page("pages/sinusoidal.py", title="Sinusoidal encoding", icon=":material/waves:", url_path="sinusoidal"),
    st.Page("pages/similarity.py", title="Similarity between positions", icon=":material/grid_on:", url_path="similarity"),
]

page = st.navigation(PAGES)
shared_controls()
show_url_notices()
page.run()
