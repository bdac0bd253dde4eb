"""Page `attention`: attention with and without positional encoding, side by side, live."""

from dataclasses import replace

import numpy as np
import streamlit as st

from core.analysis import attention
from core.schemes.registry import ADDED, SCHEMES, Setting, positional_schemes
from core.viz import attention_figures as figs
from core.viz import charts
from ui import glossary
from ui.controls import Choice, Number, Text, Toggle, check_links
from ui.display import guarded, note_if, plot, quoted
from ui.heatmap import draw_heatmap
from ui.path import next_link
from ui.reorder import LINED_UP, word_order
from ui.sidebar import current_settings
from ui.sources import sources_expander
from ui.tabs import live_part, url_tabs

WIDTH_CAP = 512  # the page builds d x d projections and (H, T, T) weights for three runs
MAX_TOKENS = figs.MAX_TOKENS  # words attended over, each one drawn on the figures' axes
MAX_CHARS = 100_000  # the custom sentence box
PRESETS = {
    "dog bites man": "dog bites man",
    "man bites dog": "man bites dog",
    "the cat sat on the mat": "the cat sat on the mat",
    "one word repeated": "the the the the the the",
    "a long sentence": (
        "when the quick brown fox finally jumped over the lazy dog the dog woke up looked around "
        "and wondered why every sentence about foxes ends with a sleeping dog in the sun"
    ),
}
CUSTOM = "your own sentence"
FACTORS = np.linspace(0.0, 4.0, 33)  # position factors for the score-share curve


def _width() -> tuple[int, float]:
    """The width this page computes with and the base, read afresh: d_model and base are live here
    (ui/path.py), so the parts that read them rerun alone and must not keep a module-level copy."""
    s = current_settings()
    return min(s.d_model, WIDTH_CAP), s.base


def _width_note() -> None:
    d = current_settings().d_model
    note_if(d > WIDTH_CAP, f"This page uses width {WIDTH_CAP} (d_model is {d:,}): it computes d x d projections and every attention weight live.")


st.title("Attention with and without positions")
live_part("att_width", _width_note)
headline = st.empty()  # written once the mask is read (below): with it, order matters even without positions

# --- controls ----------------------------------------------------------------------------
SENTENCE = Choice("sentence", "Sentence", [*PRESETS, CUSTOM], next(iter(PRESETS)), expected="pick one of the preset sentences or 'your own sentence'")
TEXT = Text("text", "Your sentence", "the quick brown fox", MAX_CHARS, expected="your sentence can be up to {longest:,} characters")
check_links(SENTENCE, TEXT)


def locality_band() -> None:
    """The preset where positions alone drive attention: one word repeated, Q = K = V, words unscaled (norm ~1 against the sinusoid's √(d/2))."""
    st.session_state.update(sentence="one word repeated", project=False, scale_words=False, causal=False, heads=1, scheme="sinusoidal", pe_scale=1.0)


# the controls beside the pictures, so that the first picture opens the page (on a phone the controls come first, above it)
controls, view = st.columns([1, 2.6], gap="medium")
with controls:
    preset = SENTENCE.draw()
    text = TEXT.draw(disabled=preset != CUSTOM)
words = attention.tokenize(PRESETS.get(preset, text))
if not words:
    controls.warning("There are no words to attend over: type some letters or digits (any script).", icon=":material/edit:")
    st.stop()
if len(words) > MAX_TOKENS:
    controls.info(f"Using the first {MAX_TOKENS} of {len(words):,} words.", icon=":material/content_cut:")
    words = words[:MAX_TOKENS]
with controls:
    order = word_order("att_order", words)  # reversed, as / opens: 'dog bites man' becomes 'man bites dog' on both pages

names = positional_schemes()
SCHEME = Choice("scheme", "Positional encoding", names, "sinusoidal", labels=lambda n: SCHEMES[n].label)
PROJECT = Toggle("project", "Random Q, K, V projections", True, help="Off: Q = K = V = the input vectors.")
CAUSAL = Toggle("causal", "Causal mask", False, help="Each word attends only to itself and earlier words.")
SCALE_WORDS = Toggle(
    "scale_words", "Scale words by √d_model", True,
    help="The Transformer paper multiplies its word embeddings by √d_model (§3.4); it does not say why. Off: each word vector has length about 1.",
)  # fmt: skip
HEADS = Choice("heads", "Heads", [1, 2, 4, 8], 1, expected="the head count is {options}")
PE_SCALE = Number(
    "pe_scale", "Position factor", 0.0, 4.0, 1.0, expected="the position factor is a number from {lo:g} to {hi:g}", step=0.25, slider=True,
    help="Multiplies the positional encoding before it is applied.",
)  # fmt: skip
check_links(SCHEME, PROJECT, CAUSAL, SCALE_WORDS, HEADS, PE_SCALE)
with controls:
    scheme = SCHEMES[SCHEME.draw()]
    with st.expander("Model settings: heads, projections, mask, scaling"):
        st.caption(
            "Words are fixed pseudo-random vectors and the projections fixed random ones, standing in for trained ones; each encoding is applied "
            "the way a model applies it."
        )
        heads, project, causal = HEADS.draw(), PROJECT.draw(), CAUSAL.draw()
        scale_words, pe_scale = SCALE_WORDS.draw(), PE_SCALE.draw()
        # a preset of these settings, so it stands among them rather than above the first figure
        st.button(
            "Show the locality band", on_click=locality_band, key="locality", icon=":material/blur_linear:",
            help="Sets one word repeated, no projections, unscaled words and the sinusoid: only the positions tell the words apart.",
        )  # fmt: skip
# true of both views of the picture (lined up or each order in its own); "can": at a position factor of 0, or with a symmetric bias and a
# mirrored order, it does not, and the caption under the picture says which
headline.markdown(
    "Reorder the words: with the causal mask each word sees only the words before it, so its attention can change even without positions."
    if causal
    else "Reorder the words: without positions each word keeps its attention; with a positional encoding it can change."
)


@st.cache_data(max_entries=16, ttl=3600, show_spinner=False)
def study(
    words: tuple[str, ...], width: int, base: float, scheme: str, heads: int, project: bool, causal: bool, scale_words: bool, pe_scale: float,
    order: tuple[int, ...],
) -> attention.AttentionStudy:  # fmt: skip
    """Cached per setting; the (H, T, T) weights are kept as float32 (at 256 tokens and 8
    heads an entry is ~8 MB), so 16 entries stay near 130 MB at worst."""
    positions = SCHEMES[scheme].attention_positions(len(words), Setting(width, base, train_len=len(words), n_heads=heads), pe_scale)
    result = attention.attention_study(
        list(words), positions, n_heads=heads, project=project, causal=causal, scale_words=scale_words, perm=np.array(order), width=width
    )
    weights = ("weights_plain", "weights_pe", "weights_plain_shuffled", "weights_pe_shuffled")
    return replace(result, **{name: getattr(result, name).astype(np.float32) for name in weights})


def _study() -> attention.AttentionStudy:
    """The study at this run's settings (a live part calls it; the result is never kept at module level)."""
    width, base = _width()
    return guarded(study, tuple(words), width, base, scheme.name, heads, project, causal, scale_words, pe_scale, tuple(int(k) for k in order))


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def bag(width: int, base: float, scheme: str) -> attention.BagOfWords:
    return attention.bag_of_words(
        ["dog", "bites", "man"], ["man", "bites", "dog"], width, SCHEMES[scheme].attention_positions(3, Setting(width, base, train_len=3, n_heads=1))
    )


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def shares(words: tuple[str, ...], width: int, base: float, scheme: str, project: bool, scale_words: bool) -> np.ndarray:
    return attention.score_shares(
        list(words),
        SCHEMES[scheme].input_code(np.arange(len(words)), Setting(width, base, train_len=len(words))),
        FACTORS,
        project=project,
        scale_words=scale_words,
    )


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def add_concat(words: tuple[str, ...], width: int, base: float, scheme: str, order: tuple[int, ...]) -> attention.AddVersusConcat:
    codes = SCHEMES[scheme].input_code(np.arange(len(words)), Setting(width, base, train_len=len(words)))
    return attention.add_versus_concat(list(words), codes, perm=np.array(order))


added = scheme.applied == ADDED
n = len(words)


def _side_by_side() -> None:
    res = _study()
    head = st.selectbox("Head shown", list(range(heads)), key="head", format_func=lambda h: f"head {h + 1} of {heads}") if heads > 1 else 0
    lined_up = LINED_UP.draw()
    # /'s picture with its third row, what the reordering changed word by word: a scheme's change can be too small to see on the weights' range
    draw_heatmap(figs.reorder_figure(res, head, scheme.label, lined_up, difference=True), key="att_orders")  # painted by the browser
    st.caption(" ".join(figs.reorder_sentences(res, head, scheme.label, causal, lined_up, difference=True)))
    st.subheader("With positions against without, in the same order")
    draw_heatmap(figs.weight_figure(res, head, words, scheme.label), key="att_side_by_side")
    st.caption(figs.difference_caption(res, head, scheme.applied, causal))
    with st.expander("The reordering test in numbers"):
        _permutation(res)


def _permutation(res: attention.AttentionStudy) -> None:
    width, base = _width()
    shuffled = [words[i] for i in res.perm]
    st.markdown(f"Your order: {quoted(' '.join(shuffled[:60]), limit=1000)}{' ...' if n > 60 else ''}")  # the visitor's words, as text
    m1, m2 = st.columns(2)  # two by two, so that every label fits its box beside the controls
    m3, m4 = st.columns(2)
    residual_help = "max |output difference| between the reordered run, put back in order, and the original"
    m1.metric("reordering residual, no positions", f"{res.residual_plain:.1e}", help=residual_help)
    m2.metric("reordering residual, with positions", charts.number(res.residual_pe), help=f"the same, with {scheme.label}: {res.residual_pe!r}")
    repeated = len(set(words)) < n
    spread_help = "largest difference between the attention rows of two identical words"
    m3.metric("same-word rows, no positions", f"{res.repeat_spread_plain:.1e}" if repeated else "no repeats", help=spread_help)
    m4.metric("same-word rows, with positions", f"{res.repeat_spread_pe:.3g}" if repeated else "no repeats", help=f"the same, with {scheme.label}")
    notes = figs.shuffle_notes(res, words, scheme, causal)
    st.caption(
        "Reorder the words but keep positions 0, 1, 2, ... where they are, run attention, and put the outputs back in the "
        "original word order. The residual is the largest difference from the outputs of the original order. "
        + (
            f"Without positions it is rounding ({res.residual_plain:.1e}): attention is permutation-equivariant. "
            + glossary.definition("permutation-equivariant")
            + " "
            if res.residual_plain < 1e-9
            else ""
        )
        + " ".join(notes)
    )
    b = guarded(bag, width, base, scheme.name)
    st.markdown(
        "Two fixed sentences, whatever the order above: "
        f"'dog bites man' against 'man bites dog', mean of the attention outputs: cosine **{charts.number(b.cosine_plain)}** without positions, "
        f"**{charts.number(b.cosine_pe)}** with {scheme.label} (relative distance {b.distance_plain:.1e} against {charts.number(b.distance_pe)})."
        + (
            f" {scheme.label} cannot tell these two apart: 'man bites dog' is 'dog bites man' reversed, and a bias that depends only on the distance "
            "|i − j| is the same for a sentence and its reverse. Decoders apply ALiBi with a causal mask, which breaks the tie."
            if b.distance_pe < 1e-9
            else ""
        )
    )


def _magnitudes() -> None:
    res, (width, base) = _study(), _width()
    st.header("Words against positions: who drives attention?")
    glossary.terms_expander(glossary.WORDS_AND_POSITIONS, key="terms_att_words")  # the tab's words, defined above its figures
    col_a, col_b = st.columns(2)
    with col_a:
        plot(figs.norms_figure(res), key="att_norms")
        if res.position_norm.any():
            st.caption(
                f"Mean ratio word : position = {res.word_norm.mean() / res.position_norm.mean():.3g}. "
                f"Without the √d_model scaling the word vectors have norm ≈ 1 while the sinusoid has norm √(d/2) = {np.sqrt(width / 2):.3g}."
            )
            far = min(5, n - 1)
            codes = pe_scale * scheme.input_code(np.array([0, far]), Setting(width, base, train_len=n))
            same = attention.same_word_cosine(words[0], width, codes, scale=scale_words)[1] if far else 1.0
            st.metric("one word at two positions: cosine", charts.number(same))  # a label that fits a narrow column; the caption says which
            st.caption(
                f"The cosine of word + position for ‘{words[0][:30]}’ put at positions 0 and {far} (wherever it stands in your order). "
                "1 would mean the word looks the same wherever it "
                "stands; the lower it is, the more the position part changes what attention sees."
            )
        else:
            st.caption(f"{scheme.label} adds nothing to the inputs, so the position part is zero: its effect is on the scores, in the side-by-side figures.")
    with col_b:
        if not added:
            st.info(
                f"{scheme.label} adds nothing to the word vectors ({scheme.applied}), so the position part above is zero and the scores do not split "
                "into word and position terms: position acts inside attention. Pick an added scheme to see the split.",
                icon=":material/info:",
            )
        else:
            share = shares(tuple(words), width, base, scheme.name, project, scale_words)
            plot(figs.shares_figure(share, FACTORS, pe_scale), key="att_shares")
            st.caption(figs.share_text(share[int(np.argmin(np.abs(FACTORS - pe_scale)))], pe_scale))


def _add_concat() -> None:
    width, base = _width()
    if added:  # only an added code can be concatenated instead
        st.header("Add or concatenate?")
        ac = guarded(add_concat, tuple(words), width, base, scheme.name, tuple(int(k) for k in order))
        st.dataframe(
            {
                "": ["add: x + PE", "concatenate: [x, PE]"],
                "input width": [ac.width_add, ac.width_concat],
                "Q, K, V parameters": [f"{ac.params_add:,}", f"{ac.params_concat:,}"],
                "shuffle residual (order visible if > 0)": [f"{ac.residual_add:.3g}", f"{ac.residual_concat:.3g}"],
            },
            hide_index=True,
        )
        overlap = ac.overlap  # |cos| of each word (scaled by √d, as the shuffle test takes it) and its code
        st.caption(
            "Both make order visible. Concatenation keeps words and positions in separate dimensions but doubles the width; the projections here are "
            f"square, so they hold {ac.params_concat / ac.params_add:g} times the parameters (a projection to a fixed width would hold twice as many). "
            "Addition shares the space: what it could lose is the part of a word that points along its position's code. Here a word's vector and "
            f"its code have a mean |cosine| of {overlap.mean():.2g} (largest {overlap.max():.2g}; 0 would be orthogonal), so "
            + ("little is lost." if overlap.max() < 0.3 else "they overlap noticeably at this width.")
        )
    else:
        st.info(f"{scheme.label} is {scheme.applied}: only a code added to the inputs can be concatenated instead.", icon=":material/info:")


# only the open tab runs and is drawn: a step of a shared slider redraws its figures, not all of the page's (ui/tabs.py)
with view:
    url_tabs(
        "att_view",
        {"Side by side": _side_by_side, "Words against positions": _magnitudes, "Add or concatenate": _add_concat},
    )
sources_expander("attention")
next_link("attention")
