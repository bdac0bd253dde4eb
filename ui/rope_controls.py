"""RoPE controls shared by the `rope` and `code` pages: the pair layout and the scaling kind,
with plain names in the URL (`rope_layout=interleaved`, `scaling=llama3`), so a link made on
one page opens the same choice on the other."""

from __future__ import annotations

import streamlit as st

from core import rope
from ui.shared import keep_in_url, url_choice

KINDS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")  # "ntk" is the base change, not a RopeScaling kind
KIND_LABELS = {
    "none": "none",
    "linear": "linear (position interpolation)",
    "ntk": "NTK-aware base change",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3",
}
LAYOUT_LABELS = {"half": "half: i, i + d/2", "interleaved": "interleaved: 2i, 2i+1"}
LAYOUT_HELP = "half pairs dimension i with i + d/2 (rotate_half: Hugging Face Llama, GPT-NeoX); interleaved pairs 2i with 2i+1 (RoFormer, Meta's Llama, GPT-J)."


def _seed(key: str, options: list[str], default: str) -> None:
    notice = url_choice(key, options, default)
    if notice:
        st.warning(notice, icon=":material/link_off:")


def pair_layout_control(where=st) -> str:
    """The pair layout ("half" or "interleaved") in `where` (a column, or the page)."""
    _seed("rope_layout", list(rope.LAYOUTS), "half")
    layout = where.segmented_control("Pair layout", rope.LAYOUTS, required=True, key="rope_layout", format_func=LAYOUT_LABELS.get, help=LAYOUT_HELP)
    keep_in_url("rope_layout")
    return layout


def scaling_kind_control(where=st, *, default: str) -> str:
    """The scaling kind (one of KINDS) in `where`."""
    _seed("scaling", list(KINDS), default)
    kind = where.selectbox("Scaling", KINDS, format_func=KIND_LABELS.get, key="scaling")
    keep_in_url("scaling")
    return kind
