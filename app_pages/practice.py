"""Page `practice`: common misconceptions about positions, each checked against the app, and
exercises to predict then check, each a prepared link to a view."""

import numpy as np
import streamlit as st

from core.schemes import sinusoidal
from ui.path import next_link

st.title("Misconceptions and practice")
st.markdown(
    "Each statement below is something learners often believe. Read it, decide whether you agree, then open the answer. "
    "The exercises after them are links to views of this app: predict what you will see before you follow one."
)

# --- misconceptions ----------------------------------------------------------------------
st.header("Six misconceptions")


def misconception(claim: str, answer: str, link: tuple[str, str] | None = None) -> None:
    """One claim, folded; the answer and, where the app shows it, a link to the view."""
    with st.expander(f"“{claim}”", icon=":material/help:"):
        st.markdown(answer)
        if link is not None:
            st.page_link(link[0], label=link[1], icon=":material/arrow_forward:")


misconception(
    "Positions are added to the input once, and that is how every model does it.",
    "The Transformer paper adds its sinusoid (and BERT and GPT-2 their learned tables) once, to the token vectors before the first layer. "
    "Most models since do not add anything: RoPE rotates the queries and keys inside **every** attention layer, and ALiBi, T5 and KERPLE add a bias "
    "to the scores of every layer. Position then acts where tokens are compared, not in the token vectors.",
    ("app_pages/compare.py", "See how each scheme is applied on the compare page"),
)
misconception(
    "A decoder does not need positions: its causal mask already gives the order.",
    "The mask hides later tokens, so a decoder can in principle count how many tokens it sees, and models without any encoding (NoPE) do learn "
    "something of position that way. But it is a weak signal: in the lab's ‘token k places back’ task, a one-layer model without positions "
    "gets about a quarter of the answers right, where the sinusoid, a learned table, RoPE and T5 get nearly all of them at the training length "
    "(the table under ‘Why this task’ on the lab page).",
    ("app_pages/lab.py", "Train it yourself in the lab"),
)
misconception(
    "The positional encoding and the padding mask are the same thing.",
    "The padding mask marks which tokens are real and which are filler, so attention ignores the filler. It says nothing about order: a sentence and "
    "its shuffle have the same padding mask. Positions say where each real token stands.",
)
misconception(
    "Every sequence model needs a positional encoding.",
    "Recurrent networks read tokens one after the other and convolutions look at neighbours through their kernels: both carry order by how they "
    "compute. Self-attention compares every token with every other in the same way, whatever their places, so it is the one that needs positions.",
    ("app_pages/problem.py", "See attention ignore word order on the first page"),
)

a, b = 3, 5
pe = sinusoidal.sinusoidal_encoding(a + b + 1, 64, 10_000.0)
gap_sum = float(np.linalg.norm(pe[a] + pe[b] - pe[a + b]))
gap_rot = float(np.abs(sinusoidal.rotation_matrix(b, 64) @ pe[a] - pe[a + b]).max())
misconception(
    "PE(a) + PE(b) = PE(a + b): the sinusoid adds positions.",
    f"No. At d_model = 64, ‖PE({a}) + PE({b}) − PE({a + b})‖ = {gap_sum:.4g}, about the length of a vector itself (√32 ≈ 5.657). "
    f"What holds is a rotation: PE(a + b) = M · PE(a), where the matrix M depends on b alone, the same for every a (here "
    f"max |M · PE({a}) − PE({a + b})| = {gap_rot:.1e}, rounding). Shifting a position is multiplying by a matrix, not adding a vector.",
    ("app_pages/similarity.py", "See the matrix Mₖ on the similarity page"),
)
misconception(
    "The sinusoid extrapolates to any length: its formula works for every position.",
    "The formula gives a vector for any position, but a model trained on short inputs has only seen some combinations of its angles. Beyond the "
    "training length the slow pairs reach angles it never saw, and accuracy falls: in the lab, a model trained on 32 tokens with the sinusoid "
    "answers almost every question at 32 tokens and about a third at 128. A formula that is defined is not a model that generalises.",
    ("app_pages/lab.py", "Measure it in the lab"),
)

# --- exercises ---------------------------------------------------------------------------
st.header("Five exercises: predict, then check")
EXERCISES = (
    (
        "With only two dimensions (one sin/cos pair) and 10,000 positions, can every position still be told apart?",
        "similarity?d_model=2&max_len=10000&base=10000",
        "Look at ‘Is every position unique?’: the smallest distance between two positions. One pair turns once every 2π positions, "
        "so positions about 2π apart nearly coincide: the closest pair is very close, though not equal.",
    ),
    (
        "Does the similarity of two sinusoidal positions depend on where they are, or only on how far apart they are?",
        "similarity?d_model=128&max_len=256&base=10000",
        "Every diagonal of the matrix has one colour: it depends on p − q only. Then change d_model to an odd number and look at the "
        "norms at the bottom of the page: the lone last sine breaks the pattern slightly.",
    ),
    (
        "Shuffle a sentence: with no positions, does attention notice? With the sinusoid? With ALiBi and no causal mask?",
        "attention?scheme=alibi&causal=false&project=false",
        "Without positions the shuffle residual is rounding error. With the sinusoid it is large. ALiBi without a mask is symmetric in distance: "
        "a reversed sentence is attended to exactly like the original, mirrored (try the three-word presets).",
    ),
    (
        "Llama 3 stretches a context of 8,192 to 65,536 (factor 8). How many of a 128-wide head's 64 pairs keep their frequency?",
        "rope?head_dim=128&scaling=llama3&factor=8&original_len=8192&max_len=65536&base=500000&rope_view=Scaling",
        "Read ‘pairs kept’ under the wavelength chart: the fast pairs, whose wavelength is below a quarter of the original context, are kept; "
        "the slow ones are divided by 8, and a band between is blended.",
    ),
    (
        "ALiBi with 8 heads: how many keys hold 90 % of the first head's attention, and of the last head's, when the content is equal?",
        "relative?max_len=4096&alibi_heads=8",
        "The span table under ‘each head's attention span’: the steep first head looks at a handful of keys, the last head at hundreds. "
        "Raise max_len: the first head's span does not change, which is why ALiBi extrapolates.",
    ),
)
for k, (question, link, check) in enumerate(EXERCISES, 1):
    st.markdown(f"**{k}. {question}**")
    st.link_button("Open the view", link, icon=":material/open_in_new:")
    with st.expander("What to look for"):
        st.markdown(check)

next_link("practice")
