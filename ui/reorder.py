"""A sentence's word order that the visitor changes: click a word, then another, to swap them
(or reverse, shuffle, put back). The order is in the URL (`?order=2,1,0`: slot k of the new
sentence holds word number k of the original), checked like any link value.

The order belongs to one sentence: when the words change, it starts again from the page's default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import streamlit as st

from core.analysis.attention import same_words_in_order
from ui.controls import Toggle, first_check, link_notice

CHIPS = 16  # words offered as chips to click; a longer sentence is reordered by the buttons alone
STYLES = Path(__file__).parent / "assets" / "reorder.css"  # the two orders side by side on a phone (the file says why)
# the visitor's order drawn with each word back in its original place: without positions the two pictures are then one,
# which is the lesson at first sight (off, each picture is drawn in its own order and the top one moves with its words)
LINED_UP = Toggle(
    "lined_up", "Line up by word", True,
    help="Draw your order with every word put back in its original place, so that each picture compares word by word with the one "
    "beside it: the same picture means the reordering changed no word's attention.",
)  # fmt: skip


def parse_order(raw: str, n: int) -> tuple[int, ...] | None:
    """A link's order for n words: n whole numbers separated by commas, each of 0 .. n-1 once; None otherwise.
    At most n + 1 pieces are ever looked at, so a long link costs no more than a short one."""
    pieces = raw.split(",", n)
    if len(pieces) != n or not all(p.isascii() and p.isdigit() and len(p) <= 6 for p in pieces):
        return None
    order = tuple(int(p) for p in pieces)
    return order if sorted(order) == list(range(n)) else None


def _refuse(key: str, raw: str, n: int) -> None:
    st.warning(link_notice(key, raw, f"a word order names each of the {n} words once, by number from 0, separated by commas"), icon=":material/link_off:")


def reversed_order(n: int) -> tuple[int, ...]:
    """The sentence read backwards: 'dog bites man' becomes 'man bites dog'."""
    return tuple(range(n - 1, -1, -1))


def _state(key: str) -> str:
    return f"_{key}_order"


def _set(key: str, order: Sequence[int]) -> None:
    words, _ = st.session_state[_state(key)]
    st.session_state[_state(key)] = (words, tuple(order))
    st.session_state[f"_{key}_pending"] = None
    st.session_state[f"{key}_pick"] = None


def _picked(key: str) -> None:
    """A chip clicked: the first click marks a word, the second swaps the two."""
    pick, pending = st.session_state.get(f"{key}_pick"), st.session_state.get(f"_{key}_pending")
    if pick is None or pending is None or pending == pick:
        st.session_state[f"_{key}_pending"] = pick
        return
    _, order = st.session_state[_state(key)]
    swapped = list(order)
    swapped[pending], swapped[pick] = swapped[pick], swapped[pending]
    _set(key, swapped)


def _shuffled(key: str) -> None:
    words, order = st.session_state[_state(key)]
    n = len(order)
    new = list(order)
    # a shuffle the learner can see: the sentence must read differently, not only swap two copies of a word
    while len(set(words)) > 1 and [words[k] for k in new] == [words[k] for k in order]:
        new = [int(k) for k in np.random.default_rng().permutation(n)]
    _set(key, new)


def word_order(key: str, words: Sequence[str], default: Callable[[int], tuple[int, ...]] = reversed_order) -> np.ndarray:
    """Draw the word-order control for `words` and return the order (slot k holds word order[k], copies of a repeated word
    in their original order: `same_words_in_order`), (n,) int64.
    A link's order is read on the first run for these words, and again whenever the link says another order than the one held
    (Back, an edited address); a bad one gets a notice and the order stays."""
    n = len(words)
    held = st.session_state.get(_state(key))
    if held is None or held[0] != tuple(words):
        order = default(n)
        raw = st.query_params.get(key)
        stale = held is not None and raw == st.session_state.get(f"_{key}_written")  # the last sentence's order, this page's own write
        if raw is not None and not stale and first_check(f"{key}:order"):
            parsed = parse_order(raw, n)
            if parsed is None:
                _refuse(key, raw, n)
            else:
                order = parsed
        st.session_state[_state(key)] = (tuple(words), tuple(order))
        st.session_state[f"_{key}_pending"] = None
        st.session_state.pop(f"{key}_pick", None)
    else:  # the same words as before: a link that now says another order (Back, an edited address) is read again, with the same checks
        raw = st.query_params.get(key)
        if raw is not None and raw != st.session_state.get(f"_{key}_written"):  # not what this page last wrote: a button's swap is not undone
            parsed = parse_order(raw, n)
            if parsed is None:
                _refuse(key, raw, n)
            else:
                _set(key, parsed)
    _, order = st.session_state[_state(key)]
    if 1 < n <= CHIPS:
        st.pills(
            "Click two words to swap them",
            list(range(n)),
            format_func=lambda k: words[order[k]],
            selection_mode="single",
            key=f"{key}_pick",
            on_change=_picked,
            args=(key,),
            wrap=True,  # a long sentence's words wrap onto another line, where Streamlit's default in a column scrolls them out of sight
        )
    if n > 1:
        row = st.container(horizontal=True)  # one row that wraps on a phone
        row.button("Reverse", key=f"{key}_reverse", on_click=_set, args=(key, reversed_order(n)), icon=":material/swap_horiz:")
        row.button("Shuffle", key=f"{key}_shuffle", on_click=_shuffled, args=(key,), icon=":material/shuffle:")
        row.button("Original order", key=f"{key}_reset", on_click=_set, args=(key, tuple(range(n))), icon=":material/undo:")
    st.html(STYLES)  # a style-only element: it takes no room
    st.query_params[key] = st.session_state[f"_{key}_written"] = ",".join(map(str, order))
    return same_words_in_order(words, order)  # the chips keep the copies the visitor moved; the pictures compare words
