"""Page `/`: the position problem. Attention is blind to order; naive fixes and why they fail."""

import numpy as np
import streamlit as st

from core.analysis import attention, properties, raw_positions
from core.schemes import naive
from core.schemes.registry import Setting
from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz import attention_figures, charts
from core.viz.grid import strided
from core.viz.heatmap import ScaleGroup, grouped_heatmap
from ui.controls import Choice, check_links
from ui.display import guarded, note_if, plot, static_table
from ui.heatmap import draw_heatmap
from ui.path import STEPS, link, next_link
from ui.reorder import LINED_UP, word_order
from ui.scorecard import scorecard
from ui.sidebar import current_settings
from ui.sources import sources_expander
from ui.tabs import url_tabs

DEMO_WIDTH = 512  # the attention demo's width cap: it builds three d x d projections
LESSONS = {  # sentences whose order matters: a swap of subject and object, and a repeated word
    "dog bites man": ["dog", "bites", "man"],
    "the cat sat on the mat": ["the", "cat", "sat", "on", "the", "mat"],
}

st.title("The position problem")
s = current_settings()
width = min(s.d_model, DEMO_WIDTH)
st.markdown(
    "Attention cannot tell where a word stands: reorder the words. **Without positions** each word keeps its attention; "
    "**with a positional encoding** added, it can change."
)  # true of both views of the picture, lined up by word (the default) or each order in its own; "can": swapping two copies of a word changes nothing
# the words to reorder beside their picture, so that the whole lesson, both rows, fits the first screen (on a phone, above it)
controls, figure_box = st.columns([1, 2.6], gap="medium")
SENTENCE = Choice("lesson", "Sentence", list(LESSONS), next(iter(LESSONS)), expected="pick one of the sentences offered")
check_links(SENTENCE)
with controls:
    words = LESSONS[SENTENCE.draw()]
    order = word_order("order", words)
    lined_up = LINED_UP.draw()
    note_if(s.d_model > DEMO_WIDTH, f"The attention pictures use width {DEMO_WIDTH} (d_model is {s.d_model:,}): they build d x d matrices.")


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def lesson(words: tuple[str, ...], order: tuple[int, ...], width: int, base: float) -> attention.AttentionStudy:
    return attention.attention_study(list(words), sinusoidal_encoding(len(words), width, base), perm=np.array(order), backend=attention.multi_head_attention)


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def bag_result(width: int, base: float) -> attention.BagOfWords:
    return attention.bag_of_words(["dog", "bites", "man"], ["man", "bites", "dog"], width, sinusoidal_encoding(3, width, base))


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def raw_study(max_len: int, width: int, base: float) -> raw_positions.RawScale:
    return raw_positions.raw_scale(raw_positions.measured_positions(max_len), width, base)


with figure_box:
    study = guarded(lesson, tuple(words), tuple(int(k) for k in order), width, s.base)
    # a third row, the change word by word on its own scale: the sinusoid's change is small beside the weights' range
    draw_heatmap(attention_figures.reorder_figure(study, 0, "the sinusoid", lined_up, difference=True), key="lesson_weights")
    st.caption(" ".join(attention_figures.reorder_sentences(study, 0, "the sinusoid", causal=False, lined_up=lined_up, difference=True)))

with st.expander("What attention does, and why it needs positions"):
    st.markdown(
        "Each word starts as its own fixed vector, the same wherever it appears. Self-attention replaces it by a weighted mix of all the "
        "words' vectors, weighted by how well they match, so the output is a *contextual* vector: ‘bank’ next to ‘river’ ends up different "
        "from ‘bank’ next to ‘loan’. That mix depends on which words are present and, without positions, on nothing else: the same words in "
        "another order give the same vectors, only reordered. A recurrent network reads one word after another, so order is built into how it "
        "reads; attention reads every word in parallel, which is what makes it fast, and is exactly why order has to be added. "
        "A **positional encoding** is that addition: a vector (or a change to the scores) that depends on where a word stands."
    )
    st.markdown(
        "Here the word vectors are fixed pseudo-random vectors (the same word always gets the same one), attention uses fixed random "
        "projections standing in for trained ones, and the sinusoid of the sidebar's width and base is added to the words. "
        "The attention page does the same with any scheme and any sentence."
    )
    bag = guarded(bag_result, width, s.base)
    st.markdown("The same test on a whole sentence: the mean of the attention outputs for ‘dog bites man’ and for ‘man bites dog’.")
    static_table(
        {
            "": ["without positions", "with the sinusoid added"],
            "cosine of the two sentence vectors": [charts.number(bag.cosine_plain), charts.number(bag.cosine_pe)],
            "relative distance ‖a − b‖ / ‖a‖": [f"{bag.distance_plain:.1e}", charts.number(bag.distance_pe)],
        }
    )
    st.caption(
        f"Without positions the two orders give the same vector (distance {bag.distance_plain:.1e}, rounding): the model sees a bag of words. "
        f"With the sinusoid they differ (distance {charts.number(bag.distance_pe)}). A cosine near 1 does not mean the positions are missing: "
        "what tells is whether the distance is rounding error. The sinusoid alone is not enough either: the mean of (word + position) over "
        "the sentence is the same for both orders; the difference appears because attention mixes words according to where they are."
    )

with st.expander("What a good encoding needs, and the path through the app"):
    st.markdown("\n".join(f"- **{name}**: {words}" for name, words in properties.CHECKLIST))
    st.caption("Every scheme page scores its schemes on this list, measured from their own arrays at the sidebar's settings; the compare page scores them all.")
    for k, step in enumerate(STEPS, 1):
        link(step, f"{k}. {step.title}: {step.pitch}", step.icon)


# --- 3. Naive fixes, one tab each: a step of a shared setting redraws the open tab's figure, not all seven
L = s.max_len
st.header("Naive fixes, and why each fails")
st.markdown("Each tab tries one obvious way to write a position into the word vectors, and shows where it breaks.")


def _one_position() -> bool:
    """At max_len = 1 a tab whose fix fails only across positions says so in place of a figure of one point."""
    if L < 2:
        st.info("With max_len = 1 there is only position 0, and this fix fails only across positions: raise max_len to see how.", icon=":material/info:")
    return L < 2


def _integer() -> None:
    if _one_position():
        return
    pos = strided(L, 2000)
    fig = charts.lines(
        [("position code p", pos.indices, naive.integer_positions(L)[pos.indices, 0])],
        title="Raw integer positions: the code grows without bound",
        x_title="position p",
        y_title="value added to each feature",
        note=pos.note("position"),
        y_marks=[(1.0, "typical size of a word feature (~1)")],
    )
    plot(fig, key="naive_integer")
    st.caption(
        f"Adding p itself: at position {L - 1:,} the code is {L - 1:,} in every feature, against word features of about 1 "
        "(the tab on training measures what that does)."
    )


def _fraction() -> None:
    lengths = sorted({n for n in (4, 8, 16, max(L, 2)) if n <= max(L, 16)})
    fig = charts.lines(
        [(f"sentence of {n:,} words", np.arange(min(n, 17)), naive.fraction_positions(n)[:17, 0]) for n in lengths],
        title="Position / length: the same position, different codes",
        x_title="position p",
        y_title="code p / L",
        markers=True,
        note="first 17 positions of each sentence",
        x_range=(-0.5, 16.5),
        x_marks=[(3, "position 3")],
    )
    plot(fig, key="naive_fraction")
    codes = ", ".join(f"{3 / n:.3f} (L={n})" for n in lengths if n > 3)
    st.caption(f"Position 3 is coded {codes}: the model cannot learn what 'third word' means.")
    with st.expander("Is it bounded?"):
        st.caption(
            "Bounded within the sentence it is divided by (p / L stays below 1). Past the length it was built for, p / L grows past 1 "
            "(the checklist tab marks it unbounded for that)."
        )


def _binary() -> None:
    if _one_position():  # no neighbours within max_len
        return
    if L == 2:  # one step, which cannot jump
        st.info("With max_len = 2 there is one pair of neighbours, 0 and 1, one bit apart: raise max_len to see the distance jump.", icon=":material/info:")
        return
    n_bin = min(L, 64)
    bits = naive.binary_positions(n_bin)
    sin_ref = sinusoidal_encoding(n_bin, 2 * bits.shape[1], s.base)
    binary_steps, steps = naive.neighbour_distances(bits), naive.neighbour_distances(sin_ref)
    fig = charts.lines(
        [
            ("binary code", np.arange(n_bin - 1), binary_steps),
            (f"sinusoid, d = {2 * bits.shape[1]}", np.arange(n_bin - 1), steps),
        ],
        title="Binary codes: distance between neighbours p and p+1",
        y_range=(0.0, 2.7),
        x_title="position p",
        y_title="||code(p+1) - code(p)||",
        markers=True,
    )
    plot(fig, key="naive_binary")
    same = f"the same distance, {steps[0]:.4g}, at every step" if np.ptp(steps) < 1e-9 else f"between {steps.min():.4g} and {steps.max():.4g} a step"
    flips = np.rint(binary_steps**2).astype(int)  # bits that change from p to p + 1 (each adds 1 to the squared distance)
    p = int(np.argmax(flips[:8]))  # the largest jump drawn among the first steps: 7 -> 8 from max_len = 9
    jump = f"{p} -> {p + 1} flips {('two', 'three', 'four')[flips[p] - 2]} bits"
    st.caption(f"Neighbours are sometimes 1 bit apart and sometimes more ({jump}); the sinusoid at d = {sin_ref.shape[1]} moves {same}.")
    with st.expander("Discrete against continuous"):
        st.caption(
            "Bounded and unique, but the distance between neighbours jumps: bits are a discrete code, each feature either 0 or 1. The sinusoid "
            "is a continuous code, each feature a smooth wave."
        )


def _one_hot() -> None:
    if _one_position():  # no other position to be unlike
        return
    n_hot = min(L, s.d_model, 32)  # only positions that have a code: a one-hot table has d_model of them
    one_hot = naive.one_hot_positions(n_hot)
    ax = strided(n_hot, n_hot)
    draw_heatmap(
        grouped_heatmap(
            [ScaleGroup([("", one_hot @ one_hot.T, ax, ax)], signed=False, zmin=0.0, zmax=1.0, colorbar_title="dot product", hover="dot product")],
            title="One-hot positions: similarity between positions",
            x_title="position",
            y_title="position",
            note=f"first {n_hot} positions" if L > n_hot else "",
            panel_height=300,
        ),
        key="naive_one_hot",
    )
    example = ": position 5 is no closer to 6 than to 30" if n_hot > 30 else f": position 0 is no closer to 1 than to {n_hot - 1}" if n_hot > 2 else ""
    rows = min(s.d_model, L)  # a one-hot code is a column per position: the table stops at the width
    short = f"; at d_model = {s.d_model:,} it has codes for positions 0 to {rows - 1:,} only" if s.d_model < L else ""
    st.caption(f"Every position is equally unlike every other (0 off the diagonal){example}.")
    with st.expander("How big the table gets"):
        st.caption(f"The table needs one dimension per position, {L:,} for max_len = {L:,}{short}, and position {rows:,} has no code at all.")


def _training() -> None:
    if _one_position():
        return
    study = guarded(raw_study, L, width, s.base)
    alone = study.positions.size == 1  # max_len = 2: position 1 alone, a line of one point, drawn as a dot
    sampled = f"{study.positions.size:,} positions from 1 to {L - 1:,}" if study.positions.size < L - 1 else ""
    col_e, col_f = st.columns(2)
    with col_e:
        plot(
            charts.lines(
                [("integer p in every feature", study.positions, study.integer_ratio), ("sinusoid", study.positions, study.sinusoid_ratio)],
                title=f"How long the position code is against the word (d = {width})",
                x_title="position p (log scale)",
                y_title="‖code(p)‖ / ‖word‖ (log scale)",
                log_x=True,
                log_y=True,
                markers=alone,
                y_marks=[(1.0, "as long as the word")],
                note="position 1 alone: raise max_len to see the code grow" if alone else sampled,
            ),
            key="naive_scale",
        )
    with col_f:
        plot(
            charts.lines(
                [("word + integer p", study.positions, study.integer_max_step), ("word + sinusoid", study.positions, study.sinusoid_max_step)],
                title="The largest gradient step that still lowers a linear layer's loss, 2/‖x‖², over the step that fits the word",
                x_title="position p (log scale)",
                y_title="largest step / word's step (log scale)",
                log_x=True,
                log_y=True,
                markers=alone,
                y_marks=[(1.0, "the word's step, η = 1/‖word‖²")],
                note="one step of size η multiplies the squared error by (1 − η‖x‖²)²",
            ),
            key="naive_step",
        )
    size, step = raw_positions.raw_scale_parts(study, width)
    st.caption(size)
    with st.expander("What that does to a gradient step"):
        st.caption(step.strip())


def _checklist() -> None:
    scorecard(["integer", "fraction", "binary", "onehot"], Setting(width=s.d_model, base=s.base, train_len=L), L)


url_tabs(
    "problem_view",
    {
        "Integer p": _integer,
        "p / L": _fraction,
        "Binary": _binary,
        "One-hot": _one_hot,
        "Raw positions in training": _training,
        "Against the checklist": _checklist,
    },
)
sources_expander("")
next_link("")
