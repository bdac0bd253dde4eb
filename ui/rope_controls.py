"""RoPE controls shared by the `rope`, `code` and `context` pages: the pair layout, the scaling kind,
its factor and the original context, with the same keys and URL parameters on the rope and code
pages (plain names for choices: `rope_layout=interleaved`, `scaling=llama3`), so a link made on one
page opens the same choice on the other; and the model presets of the context page
(`presets=llama-3.1-8b,phi-2`)."""

from __future__ import annotations

import math

import streamlit as st

from core.schemes import rope
from core.schemes.rope_presets import PRESETS
from ui import controls
from ui.controls import check_url_value, number_in

# The kinds whose record says how a factor and an original context set them; the others (such as LongRoPE, a
# factor per pair in two lists, or proportional RoPE, a proportion of turning pairs) come with the model presets
# of the context page, which exports their code itself.
KINDS = ("none",) + tuple(name for name, kind in rope.SCALING_KINDS.items() if kind.controls is not None)  # "none": no RopeScaling at all
KIND_LABELS = {"none": "none", "default": "none"} | {name: kind.label for name, kind in rope.SCALING_KINDS.items()}
DEFAULT_PRESETS = ("llama-3.1-8b", "phi-3-mini-128k-instruct-2404", "gpt-neox-20b")
LAYOUT_LABELS = {"half": "half: i, i + d/2", "interleaved": "interleaved: 2i, 2i+1"}
LAYOUT_HELP = "half pairs dimension i with i + d/2 (rotate_half: Hugging Face Llama, GPT-NeoX); interleaved pairs 2i with 2i+1 (RoFormer, Meta's Llama, GPT-J)."


LAYOUT = controls.Choice("rope_layout", "Pair layout", list(rope.LAYOUTS), "half", labels=LAYOUT_LABELS, widget="segmented_control", help=LAYOUT_HELP)


def scaling_kind(default: str) -> controls.Choice:
    """The scaling kind, one of KINDS."""
    return controls.Choice("scaling", "Scaling", list(KINDS), default, labels=KIND_LABELS)


def reads_original(kind: str) -> bool:
    """Whether a kind of KINDS reads the original context (its record says so; "none" does not)."""
    return kind in rope.SCALING_KINDS and "original_max_len" in rope.SCALING_KINDS[kind].reads


MAX_FACTOR = 1024.0
DEFAULT_FACTOR = 4.0
_LLAMA31 = PRESETS["llama-3.1-8b"]
FACTOR_HELP = (
    "The scaling factor s. "
    + "; ".join(f"{rope.SCALING_KINDS[kind].label}: {rope.SCALING_KINDS[kind].controls.factor}" for kind in KINDS[1:])
    + ". Often the new context over the original one, but not always: Llama 3.1's config sets "
    f"{_LLAMA31.scaling.factor:g} with an original context of {_LLAMA31.scaling.original_max_len:,} and max_position_embeddings "
    f"{_LLAMA31.extended_context:,} ({_LLAMA31.extended_context / _LLAMA31.scaling.original_max_len:g}×; its sources are on /context). "
    f"At least {rope.MIN_FACTOR:g}."
)
MAX_ORIGINAL = 131_072
_FIELDS = {"factor": "factor", "original_len": "original_max_len"}  # link parameter -> RopeScaling field


def _link_number(key: str) -> float | int | None:
    """The link's value for `key` as a finite number (an int when whole), or None (absent, or not a
    number: the range check names it)."""
    try:
        value = float(st.query_params.get(key, "nan"))
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else value


def _refused(kind: str, fields: dict[str, float | int]) -> str | None:
    """The sentence of the kind's record refusing a scaling with these fields, or None when it takes it."""
    try:
        rope.RopeScaling(kind, **fields)
    except ValueError as error:
        return str(error).rstrip(".")
    return None


def _refusal(kind: str, key: str) -> str | None:
    """What the kind's record says of the link's number for `key` ("factor" or "original_len"): its sentence
    when it refuses it, None when it takes it. The other field is the link's when the record takes that one
    alone, else a value it takes (so each sentence names its own parameter)."""
    value = _link_number(key)
    if kind not in rope.SCALING_KINDS or value is None:
        return None
    fields = {"factor": DEFAULT_FACTOR, "original_max_len": 1}
    other_key = next(k for k in _FIELDS if k != key)
    other = _link_number(other_key)
    if other is not None and _refused(kind, fields | {_FIELDS[other_key]: other}) is None:
        fields[_FIELDS[other_key]] = other
    return _refused(kind, fields | {_FIELDS[key]: value})


def check_scaling_urls() -> None:
    """Check the URL's factor and original_len before their widgets exist (ui.controls.check_url_value): a
    value out of the control's range, or one the chosen kind's record refuses (its own sentence), is named
    and dropped."""
    kind = st.session_state.get("scaling", "none")  # the link's kind, checked just before
    factor, original = _refusal(kind, "factor"), _refusal(kind, "original_len")
    check_url_value(
        "factor",
        lambda raw: number_in(rope.MIN_FACTOR, MAX_FACTOR)(raw) and factor is None,
        factor or f"the factor is a number from {rope.MIN_FACTOR:g} to {MAX_FACTOR:,g}",
    )
    check_url_value(
        "original_len",
        lambda raw: number_in(1, MAX_ORIGINAL, whole=True)(raw) and original is None,
        original or f"the original context is a whole number of positions from 1 to {MAX_ORIGINAL:,}",
    )


def check_scaling_links(default: str) -> None:
    """Check the URL's scaling, factor and original_len whether or not their widgets are drawn on
    this run (they live in /rope's Scaling tab): a bad value is named at once, whichever tab is open."""
    scaling_kind(default).check()
    check_scaling_urls()


def factor_control(where=st) -> float:
    """The scaling factor s, the divisor of the interpolated pairs' frequencies, bound to the URL."""
    check_scaling_urls()
    return controls.Number("factor", "Factor s", rope.MIN_FACTOR, MAX_FACTOR, DEFAULT_FACTOR, step=0.5, help=FACTOR_HELP).draw(where)


def original_len_control(where, max_len: int, factor: float) -> int:
    """The context the model was trained on, bound to the URL; until moved it follows
    max_len / factor, so a link without it reopens the same view."""
    check_scaling_urls()
    default = max(1, int(max_len // max(factor, 1.0)))
    return controls.Number(
        "original_len", "Original context (positions)", 1, MAX_ORIGINAL, default, follow=True, help="The context the model was trained on; at most max_len."
    ).draw(where)


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


def scaling_words(scaling: rope.RopeScaling | None, head_dim: int, base: float, max_len: int) -> str:
    """What a scaling does, in one sentence for the rope page: its record's words, with the numbers of this setting written in."""
    if scaling is None:
        return "no scaling: positions past the original context give angles the slow pairs never saw"
    return scaling.record.controls.words(head_dim, base, scaling, max_len)
