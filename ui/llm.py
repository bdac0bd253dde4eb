"""The /llm page's live view: a real language model (core.llm, SmolLM2-135M) reads a text, and one
head's attention is drawn with its rotary positions as trained, with the rotation removed and with
the positions shuffled, the next-token top 5 under each, and every head of every layer summarised in
a lazy expander.

The model is loaded once per process by core.llm; a reading of one text (every head of every layer
under the three ways) is kept per text in a small process-wide cache (READINGS entries, each about
13 MB at 64 tokens), and at most one reading is computed at a time in this process, so a burst of
new texts queues here instead of taking every core from the other visitors.
"""

from __future__ import annotations

import threading

import streamlit as st

from core.llm import model
from core.viz import llm_figures as lf
from ui.controls import Choice, Number, Text, check_links
from ui.display import guarded, static_table
from ui.heatmap import draw_heatmap

MAX_CHARS = 1_000  # the text box; the token budget below is what bounds the work
PRESETS = {
    "The capital of France is": "The capital of France is",
    "dog bites man": "dog bites man",
    "man bites dog": "man bites dog",
    "one word repeated": "the the the the the the the the",
}
CUSTOM = "your own text"
READINGS = 4  # cached readings (texts) per process
_ONE_AT_A_TIME = threading.Lock()

SENTENCE = Choice("llm_sentence", "Text", [*PRESETS, CUSTOM], next(iter(PRESETS)), expected="pick one of the preset texts or 'your own text'")
TEXT = Text("llm_text", "Your text", "The man bites the dog, and then the", MAX_CHARS, expected="your text can be up to {longest:,} characters")


def missing() -> str | None:
    """None when the model can be read, else the sentence that says how to get it."""
    return model.missing()


MODES = {"trained": "RoPE as trained", "none": "rotation removed", "shuffled": "positions shuffled"}  # the ways of giving positions, as drawn


@st.cache_resource(max_entries=READINGS, ttl=3600, show_spinner=False)
def reading(text: str):
    """Every head of every layer on `text`, under each way of giving positions (core.llm; torch is imported when the first one runs)."""
    from core.llm import experiments

    with _ONE_AT_A_TIME:
        return experiments.read(text)


def chosen_text() -> str | None:
    """The text the visitor chose (a preset or their own), or None with a sentence in the page."""
    c1, c2 = st.columns([2, 3])
    preset = SENTENCE.draw(c1)
    text = TEXT.draw(c2, disabled=preset != CUSTOM)
    text = PRESETS.get(preset, text)
    if not text.strip():
        st.warning("There is no text to read: type a few words.", icon=":material/edit:")
        return None
    return text


def text_view() -> None:
    """The opening view: the text, a layer and a head, the head's three maps, the top 5 under each."""
    absent = missing()
    if absent:
        st.info(absent, icon=":material/download:")
        return
    check_links(SENTENCE, TEXT)
    text = chosen_text()
    if text is None:
        return
    got = guarded(reading, text)
    layers, heads = got.layers, got.heads
    layer_control = Number("llm_layer", "Layer", 1, layers, 1, expected="the layer is a whole number from {lo} to {hi}", slider=True)
    head_control = Number("llm_head", "Head", 1, heads, 1, expected="the head is a whole number from {lo} to {hi}", slider=True)
    check_links(layer_control, head_control)
    c1, c2 = st.columns(2)
    layer, head = layer_control.draw(c1), head_control.draw(c2)
    maps = [(label, got.weights[mode][layer - 1, head - 1]) for mode, label in MODES.items()]
    draw_heatmap(lf.attention_figure(got.tokens, maps, layer, head), key="llm_attention")
    st.markdown("**What the model would write next**, its five likeliest tokens and their probabilities under each way:")
    static_table({label: [f"{lf.shown_token(token)}  {p:.1%}" for token, p in got.top[mode]] for mode, label in MODES.items()})
    box = st.expander(f"Every head of all {layers} layers", icon=":material/grid_view:", key="llm_heads", on_change="rerun")
    if box.open:
        with box:
            draw_heatmap(lf.heads_figure(got.distance, got.first), key="llm_heads_map")
            st.caption(" ".join(lf.heads_sentences(got.distance, got.first, len(got.tokens))))
