"""RoPE controls shared by the `rope`, `code` and `context` pages: the pair layout, the scaling kind,
its factor and the original context, with the same keys and URL parameters on the rope and code
pages (plain names for choices: `rope_layout=interleaved`, `scaling=llama3`), so a link made on one
page opens the same choice on the other; and the model presets of the context page
(`presets=llama-3.1-8b,phi-2`)."""

from __future__ import annotations

import streamlit as st

from core.schemes import rope
from core.schemes.rope_presets import PRESETS
from ui import controls
from ui.controls import check_url_value, follow_default, keep_in_url, number_in, url_choice, whole_in

# The kinds a factor and an original context define. "longrope" (a factor per pair, two lists) and
# "proportional" (a proportion of turning pairs) need more than these controls hold: they come
# with the model presets of the context page, which exports their code itself.
CONTROLLED_KINDS = ("linear", "ntk", "dynamic", "yarn", "llama3")
KINDS = ("none",) + CONTROLLED_KINDS  # "none": no RopeScaling at all
assert set(CONTROLLED_KINDS) <= set(rope.SCALING_KINDS)
KIND_LABELS = {
    "none": "none",
    "linear": "linear (position interpolation)",
    "ntk": "NTK-aware base change",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3",
    "longrope": "LongRoPE",
    "proportional": "proportional",
    "default": "none",
}
DEFAULT_PRESETS = ("llama-3.1-8b", "phi-3-mini-128k-instruct-2404", "gpt-neox-20b")
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


MAX_FACTOR = 1024.0
_LLAMA31 = PRESETS["llama-3.1-8b"]
FACTOR_HELP = (
    "What the interpolated frequencies are divided by: every pair's for linear, the slowest pair's for NTK (through the base), those "
    "past the band for YaRN and Llama 3; dynamic NTK grows its base with the sequence length at a rate set by s. Often the "
    f"new context over the original one, but not always: Llama 3.1's config sets {_LLAMA31.scaling.factor:g} with an original context of "
    f"{_LLAMA31.scaling.original_max_len:,} and max_position_embeddings {_LLAMA31.extended_context:,} "
    f"({_LLAMA31.extended_context / _LLAMA31.scaling.original_max_len:g}×; its sources are on /context). At least 1."
)
MAX_ORIGINAL = 131_072


def check_scaling_urls() -> None:
    """Check the URL's factor and original_len before their widgets exist (ui.controls.check_url_value)."""
    check_url_value("factor", number_in(0.0, MAX_FACTOR), f"the factor is a number up to {MAX_FACTOR:g} (at least 1 to scale)")
    check_url_value("original_len", whole_in(1, MAX_ORIGINAL), f"the original context is a whole number of positions from 1 to {MAX_ORIGINAL:,}")


def check_scaling_links(default: str) -> None:
    """Check the URL's scaling, factor and original_len whether or not their widgets are drawn on
    this run (they live in /rope's Scaling tab): a bad value is named at once, whichever tab is open."""
    _seed("scaling", list(KINDS), default)
    check_scaling_urls()


def factor_control(where=st) -> float:
    """The scaling factor s, the divisor of the interpolated pairs' frequencies, bound to the URL."""
    check_scaling_urls()
    return float(
        where.number_input("Factor s", 0.0, MAX_FACTOR, 4.0, step=0.5, key="factor", bind="query-params", help=FACTOR_HELP)
    )


def original_len_control(where, max_len: int, factor: float) -> int:
    """The context the model was trained on, bound to the URL; until moved it follows
    max_len / factor, so a link without it reopens the same view."""
    check_scaling_urls()
    default = max(1, int(max_len // max(factor, 1.0)))
    return int(
        where.number_input(
            "Original context (positions)",
            1,
            MAX_ORIGINAL,
            follow_default("original_len", default, lambda v: True),
            key="original_len",
            bind="query-params",
            help="The context the model was trained on; at most max_len.",
        )
    )


def preset_control(where=st, default: tuple[str, ...] = DEFAULT_PRESETS) -> list[str]:
    """The model presets to show (core.schemes.rope_presets.PRESETS), by their plain names in the URL
    (`presets=llama-3.1-8b,phi-2`); unknown names are left out with a notice."""
    return controls.choices(
        where,
        "Models",
        "presets",
        list(PRESETS),
        list(default),
        labels={name: preset.label for name, preset in PRESETS.items()},
        help="Each model's RoPE as its published config sets it; every value is cited under 'Sources'.",
    )


def scaling_words(kind: str, base: float, factor: float, head_dim: int, max_len: int) -> str:
    """What a scaling kind does, in one sentence for the rope page (the numbers of this setting written in)."""
    if kind == "none":
        return "no scaling: positions past the original context give angles the slow pairs never saw"
    if kind == "ntk":
        new_base = base * factor ** (head_dim / (head_dim - 2))  # the page shows this only once core accepted the setting (head_dim >= 4)
        return f"the base becomes {base:,.6g} · s^(d/(d−2)) = {new_base:,.6g}: fast pairs barely change, the slowest is divided by s"
    return {
        "linear": "every frequency is divided by s: positions are squeezed into the original range",
        "dynamic": f"the base grows with the sequence length (here {max_len:,}), as NTK does, only once it exceeds the original context",
        "yarn": "fast pairs are kept, slow ones divided by s, a linear ramp in between; cos and sin are multiplied by an attention factor",
        "llama3": "wavelengths below original/4 are kept, above original/1 divided by s, and the band between is blended smoothly",
    }[kind]
