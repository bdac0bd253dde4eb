"""Page `llm`: a real language model's positions (SmolLM2-135M, read by core.llm), in five views (ui.llm):
one head's attention on a text with its rotary positions as trained, removed and shuffled; perplexity past the
trained context under each RoPE scaling; a hidden key; which rotation speeds it uses; its two layouts. Only the
open tab runs."""

import streamlit as st

from ui import llm
from ui.path import next_link
from ui.sources import sources_expander
from ui.tabs import url_tabs

st.title("A real language model's positions")
st.markdown(
    "SmolLM2-135M, a small real language model, rotates each query and key by an angle set by its position (RoPE). "
    "Each tab tests that rotation."
)
url_tabs(
    "llm_view",
    {
        "Your text": llm.text_view,
        "Past the trained context": llm.context_view,
        "Passkey": llm.passkey_view,
        "Which rotation speeds it uses": llm.frequencies_view,
        "Two layouts": llm.layouts_view,
    },
)
sources_expander("llm")
next_link("llm")
