"""The smallest page bench.load can drive, with nothing of this app: the three sidebar sliders
(the same keys as the app's, so the load script finds them) and one 3-point chart. What a
browser session costs on it is the floor of any Streamlit page under the load test:

    streamlit run bench/minimal_app.py --server.port 8631 --server.headless true
    python -m bench.load --url http://127.0.0.1:8631 --pages problem --sessions 20 --seconds 60

(`--pages problem` because the app's default page is the one at the root URL.)"""

import plotly.graph_objects as go
import streamlit as st

STOPS = {"d_model": [64, 128, 256], "max_len": [128, 256, 512], "base": [1000, 10000, 100000]}
DEFAULT = {"d_model": 128, "max_len": 256, "base": 10000}

values = {}
with st.sidebar:
    for name, stops in STOPS.items():
        values[name] = st.select_slider(name, stops, value=DEFAULT[name], key=f"{name}_slider")
        # the load script reads the value on screen from `.st-key-NAME input`, as the app's exact-value box
        st.html(f"<div class='st-key-{name}'><input value='{values[name]}' readonly></div>")
st.query_params.update({name: str(value) for name, value in values.items()})
st.plotly_chart(go.Figure(go.Scatter(x=[0, 1, 2], y=[values["d_model"], values["max_len"], values["base"] / 100])))
