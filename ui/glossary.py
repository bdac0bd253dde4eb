"""The terms the scorecards, the compare table, /model's fitted wave, the lab's results and /attention's Words against
positions tab use, each defined once, here, and shown in an expander "What these terms mean" beside the table or result
that uses them (`terms_expander`; a sentence built from numbers gets the terms it uses from `used_in`)."""

from __future__ import annotations

import re

import streamlit as st

from ui.display import static_table

# term -> (what identifies it in a sentence, its definition)
TERMS: dict[str, tuple[str, str]] = {
    "max |value|": (
        r"max \|value\|",
        "The largest absolute value any code takes over the positions measured (for a bias scheme, over the distances).",
    ),
    "×growth on [L, 2L)": (
        r"×[0-9.e+-]+ on \[L, 2L\)",
        "max |value| over positions L to 2L − 1, just past max_len = L, divided by max |value| over positions 0 to L − 1: ×1 means no "
        "growth. Bounded asks whether max |value| ever stops growing, so the scorecard follows it through doublings out to position "
        "16,777,215 (further for long contexts): ✓ when the last doubling adds nothing beyond rounding, or when every code has the same length "
        "(a rotation), ✗ when it is still rising.",
    ),
    "closest codes … apart": (
        r"closest codes|min distance",
        "The smallest Euclidean distance between the codes of two different positions (two different distances, for a bias scheme). "
        "0 means two positions get the same code and cannot be told apart.",
    ),
    "neighbour / mean distance": (
        r"neighbour / mean",
        "The mean distance between the codes of neighbouring positions divided by the mean distance between the codes of all pairs of "
        "positions. Below 0.5 nearby positions look more alike than positions in general (smooth); 1 means neighbours are as far apart as any two.",
    ),
    "departure": (
        r"departure",
        "How far the positions' own score S(s, s + o) of a query and a key o positions apart is from depending on the offset o alone: for "
        "each offset, how much S varies with the start s (standard deviation), averaged over offsets, divided by how much S varies over all "
        "starts and offsets. 0: S depends only on the offset (relative); about 1: where the pair sits matters as much as how far apart it is. "
        "S is what the scheme alone puts in the score: for an added code the dot product of the two positions' codes, with no word and no "
        "learned projection; for a rotation a fixed query and key, each turned to its position (relative whatever the two vectors are); for a "
        "bias the bias, averaged over the heads. So a small departure for an added code is not RoPE's kind of relative: in a model the score "
        "also has the projections and the word × position cross terms (the attention page's Words against positions tab), and those in "
        "general depend on where the pair sits.",
    ),
    "perplexity": (
        r"[Pp]erplexit",
        "How unsure a language model is of the next character: e raised to the mean, over the characters scored, of −ln p, where p "
        "is the probability the model gave the character that came next. A perplexity of k is as unsure as a fair choice among k "
        "characters: 1 is a perfect prediction, and lower is better.",
    ),
    "R²": (
        r"R²",
        "The share of the variation of a quantity that a fit explains: 1 − (sum of squared errors) / (sum of squared deviations from the "
        "mean). 1 means the fit is exact; 0 means it does no better than always guessing the mean.",
    ),
    "ridge regression": (
        r"ridge regression",
        "A linear fit whose weights are kept small by a penalty on their squared size, λ‖w‖², solved in one step (closed form): it reads "
        "a number, here a character's position, as a weighted sum of a vector's entries.",
    ),
    "residual stream": (
        r"residual stream",
        "The vector each token carries from layer to layer: every attention or feed-forward block adds its output to it. A probe reads it "
        "between blocks (at a layer boundary).",
    ),
    "total variation distance": (
        r"total[- ]variation distance",
        "Between two rows of attention weights a and b (each adding up to 1): ½ Σⱼ |aⱼ − bⱼ|, the share of the attention that would have "
        "to move to turn one row into the other. 0: the same row; 1: no key in common.",
    ),
    "Toeplitz": (
        r"Toeplitz",
        "A matrix whose every diagonal holds one value: entry (p, q) depends only on p − q.",
    ),
    "permutation-equivariant": (
        r"permutation-equivariant",
        "Shuffling the input tokens shuffles the outputs the same way and changes nothing else: Attn(PX) = P·Attn(X) for every "
        "permutation P. Attention without positions is permutation-equivariant, so it cannot tell word orders apart.",
    ),
    "vector norm ||x||": (
        r"vector norm|\|\|x\|\|",
        "A vector's length: the square root of the sum of its squared entries. ||x|| is a word's vector, ||PE|| the position code added to "
        "it (times the position factor f).",
    ),
    "√d_model scaling": (
        r"√d_model scaling",
        "The Transformer paper multiplies its word vectors by √d_model (§3.4) and adds the position code to them (§3.5). The word "
        "vectors here have length about 1 without it and about √d_model with it; the sinusoid's code, at f = 1, has length √(d_model/2).",
    ),
    "cosine": (
        r"cosine of word|positions: cosine",
        "How alike two vectors' directions are, whatever their lengths: x·y / (||x|| ||y||). 1: they point the same way; 0: at right angles.",
    ),
    "content, cross and position terms": (
        r"content · content|cross terms",
        "An attention score is the dot product of a query and a key (each the input through its projection, when projections are on). "
        "With inputs x + f·PE it splits exactly into three parts: content · content (word with word, the same at every f), the cross "
        "terms content · position (word with position, growing with f) and position · position (growing with f²). The chart shows each "
        "part's size over every query and key (the square root of the sum of its matrix's squared entries) as a share of the three.",
    ),
    "position factor f": (
        r"position factor f",
        "A number the position code is multiplied by before it is added (the Position factor setting; 1 is the code as its scheme defines it, "
        "0 removes it), to see what happens as positions grow louder or quieter against the words.",
    ),
}

SCORECARD = ("max |value|", "×growth on [L, 2L)", "closest codes … apart", "neighbour / mean distance", "departure")
TRAINED = ("perplexity", "ridge regression", "residual stream", "R²", "total variation distance")  # the trained-model experiments' terms
WORDS_AND_POSITIONS = ("vector norm ||x||", "√d_model scaling", "cosine", "content, cross and position terms", "position factor f")  # /attention's tab


def used_in(text: str) -> list[str]:
    """The glossary's terms that `text` uses, in the glossary's order."""
    return [term for term, (pattern, _) in TERMS.items() if re.search(pattern, text)]


def definition(term: str) -> str:
    """A term's one definition, for a sentence that states it where no expander can stand (inside another one)."""
    return TERMS[term][1]


def terms_expander(terms: tuple[str, ...] | list[str], key: str) -> None:
    """A folded table of `terms` and their definitions, beside the table or result that uses them; built only
    while open (a lazy expander, as the Sources are), so a closed one costs the page nothing."""
    box = st.expander("What these terms mean", icon=":material/help:", key=key, on_change="rerun")
    if box.open:
        with box:
            static_table({"term": list(terms), "what it means": [TERMS[t][1] for t in terms]})
