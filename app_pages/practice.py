"""Page `practice`: common misconceptions about positions, each checked against the app, and
exercises to predict then check, each a prepared link to a view. The words and every number in
them come from ui.practice_text (computed from core's arrays at the settings each answer names)."""

import streamlit as st

from ui.path import next_link
from ui.practice_text import exercises, misconceptions
from ui.sources import sources_expander

st.title("Misconceptions and practice")
st.markdown(
    "Each statement below is something learners often believe. Read it, decide whether you agree, then open the answer. "
    "The exercises after them are links to views of this app: predict what you will see before you follow one."
)


@st.cache_data(max_entries=1, show_spinner=False)
def lists() -> tuple[list, list]:
    return misconceptions(), exercises()


claims, tasks = lists()
st.header(f"{len(claims)} misconceptions")
for m in claims:
    with st.expander(f"“{m.claim}”", icon=":material/help:"):
        st.markdown(m.answer)
        if m.link is not None:
            st.page_link(m.link[0], label=m.link[1], icon=":material/arrow_forward:")

st.header(f"{len(tasks)} exercises: predict, then check")
for k, task in enumerate(tasks, 1):
    st.markdown(f"**{k}. {task.question}**")
    st.link_button("Open the view", task.link, icon=":material/open_in_new:")
    with st.expander("What to look for"):
        st.markdown(task.check)

sources_expander("practice")
next_link("practice")
