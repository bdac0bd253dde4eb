"""Page `practice`: exercises to predict then check, each a prepared link to a view, the first with its picture
above it; then common misconceptions about positions, each checked against the app. The words and every number in
them come from ui.practice_text (computed from core's arrays at the settings each answer names)."""

import streamlit as st

from core.viz import sinusoid_figures
from ui.display import plot
from ui.path import next_link
from ui.practice_text import EXERCISE_CIRCLE, exercises, misconceptions
from ui.sources import sources_expander

st.title("Misconceptions and practice")
st.markdown(
    "Predict what you will see, then open the view to check. "
    "Further down, statements learners often believe: decide whether you agree, then open the answer."
)


@st.cache_data(max_entries=1, show_spinner=False)
def lists() -> tuple[list, list]:
    return misconceptions(), exercises()


claims, tasks = lists()
st.header(f"{len(tasks)} exercises: predict, then check")
for k, task in enumerate(tasks, 1):
    st.markdown(f"**{k}. {task.question}**")
    if k == 1:
        d, max_len, base, count = EXERCISE_CIRCLE  # its one pair's point at the first positions: a figure core.viz.memo keeps
        plot(sinusoid_figures.phase_circle(d, max_len, base, 0, 0, count), key="practice_circle")
        st.caption(task.picture)
    st.link_button("Open the view", task.link, icon=":material/open_in_new:")
    with st.expander("What to look for"):
        st.markdown(task.check)

st.header(f"{len(claims)} misconceptions")
for m in claims:
    with st.expander(f"“{m.claim}”", icon=":material/help:"):
        st.markdown(m.answer)
        if m.link is not None:
            st.page_link(m.link[0], label=m.link[1], icon=":material/arrow_forward:")

sources_expander("practice")
next_link("practice")
