"""What a real model's RoPE does at long context: the numbers behind the /context page, for one kind of
layer of a preset (`core.schemes.rope_presets`): its pairs before and after scaling, the angles they reach
and the scores' decay, the /rope and /code links, the dynamic-NTK cache pitfall, and RoPE in 2-D.

Imports core.schemes only; arrays are numpy float64.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from core.schemes import rope
from core.schemes.rope_presets import LayerRope, RopePreset

ROPE_PAGE_HEAD_DIMS = (2, 4, 8, 16, 32, 64, 128, 256)  # the head widths /rope offers (app_pages/rope.py HEAD_DIMS; a test keeps them equal)
MAX_LINK_LEN = 131_072  # the sidebar's largest max_len
NOT_ROTATED = "not rotated"
SCALED = ("kept", "blended", "interpolated")  # what a scaling did to a turning pair (core.schemes.rope.scaling_regions)


class PairView(NamedTuple):
    """Every pair of one layer's head (head_dim // 2 of them), fastest first."""

    index: np.ndarray  # (P,) pair index
    before: np.ndarray  # (P,) wavelength 2*pi/theta without scaling, positions; inf for a pair that never turns
    after: np.ndarray  # (P,) wavelength at the extended context (longrope: its long list); inf likewise
    short: np.ndarray | None  # (P,) for sequences up to the trained context, where a length-dependent kind differs from before (LongRoPE's short list)
    label: np.ndarray  # (P,) str: "kept", "blended", "interpolated" or "not rotated"
    attention_factor: float  # on cos and sin at the extended context
    rotating: int  # how many dimensions turn: 2 * (pairs with a frequency), the rest are left as they are


def unscaled(layer: LayerRope) -> LayerRope:
    """The same layer without its scaling: no rope scaling, except that a kind that reads the partial
    rotary factor as its proportion of turning pairs (proportional RoPE) keeps that proportion and only
    loses its factor (dividing by s is its scaling)."""
    if layer.scaling is not None and layer.scaling.record.turning_proportion:
        return replace(layer, scaling=replace(layer.scaling, factor=1.0))
    return replace(layer, scaling=None)


def rotary_fraction(layer: LayerRope) -> float:
    """The fraction of the layer's head that rotates as partial rotary: its partial_rotary_factor, or 1
    when its scaling reads that factor as a proportion of turning pairs instead (every pair can turn)."""
    if layer.scaling is not None and layer.scaling.record.turning_proportion:
        return 1.0
    return layer.partial_rotary_factor


def _wavelengths(inv_freq: np.ndarray, pairs: int) -> np.ndarray:
    r"""$2\pi/\theta_i$ for the given frequencies, inf for a zero one and for the pairs past them. Returns (pairs,)."""
    out = np.full(pairs, np.inf)
    turning = inv_freq > 0
    out[: inv_freq.size][turning] = 2 * np.pi / inv_freq[turning]
    return out


def pair_view(layer: LayerRope, extended_context: int) -> PairView:
    """Wavelengths and labels of every pair of `layer`'s head, before scaling and after it at
    seq_len = extended_context (`core.schemes.rope.scaling_regions` for the turning pairs; the
    pairs partial rotary leaves alone are "not rotated"). Returns a PairView."""
    pairs = layer.head_dim // 2
    before_freq, _ = unscaled(layer).frequencies()
    after_freq, factor = layer.frequencies(seq_len=extended_context)
    label = np.full(pairs, NOT_ROTATED, dtype=object)
    if layer.scaling is None:
        label[: before_freq.size] = np.where(before_freq > 0, "kept", NOT_ROTATED)
    else:
        regions = rope.scaling_regions(layer.head_dim, layer.base, layer.scaling, seq_len=extended_context, partial_rotary_factor=layer.partial_rotary_factor)
        label[: regions.label.size] = regions.label
    short = None
    if layer.scaling is not None and layer.scaling.record.length_dependent:  # up to the trained context it may rotate otherwise
        short = _wavelengths(layer.frequencies(seq_len=None)[0], pairs)
        short = None if np.array_equal(short, _wavelengths(before_freq, pairs)) else short
    rotating = 2 * int(np.count_nonzero(after_freq > 0))
    return PairView(np.arange(pairs), _wavelengths(before_freq, pairs), _wavelengths(after_freq, pairs), short, label.astype(str), float(factor), rotating)


def wavelength_series(view: PairView, scaled: bool, trained_context: int) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """The lines of a wavelength-per-pair figure, as (name, pair indices, wavelengths): the unscaled
    wavelengths, those of sequences up to the trained context where they differ (LongRoPE's short list),
    and the scaled ones grouped by label; pairs that never turn
    are left out (an infinite wavelength has no place on the axis). Returns a list of tuples."""
    finite, turning = np.isfinite(view.before), np.isfinite(view.after)
    series = [("before scaling" if scaled else "every turning pair", view.index[finite], view.before[finite])]
    if view.short is not None:
        series.append((f"after, for sequences up to {trained_context:,} positions", view.index[turning], view.short[turning]))
    if scaled:
        series += [(f"after: {name}", view.index[view.label == name], view.after[view.label == name]) for name in SCALED if (view.label == name).any()]
    return series


def counts(view: PairView, trained_context: int, extended_context: int) -> dict[str, int]:
    """How many pairs complete a turn within the trained context (unscaled wavelength) and within
    the extended one (scaled), and how many of each label. Returns a dict of ints."""
    out = {
        "turn within trained": int(np.count_nonzero(view.before <= trained_context)),
        "turn within extended": int(np.count_nonzero(view.after <= extended_context)),
    }
    out |= {name: int(np.count_nonzero(view.label == name)) for name in rope.REGION_LABELS}
    return out


class Reach(NamedTuple):
    """What a scaling does to the angles of a head's turning pairs at the longest offset a layer meets
    at its extended context, against the angles the unscaled pairs took in training (`angle_reach`)."""

    turning: int  # pairs with a frequency (the rest never turn)
    turned: int  # of those, pairs whose unscaled wavelength is at most the longest trained offset + 1: they went round in training
    turned_kept: int  # of those, pairs the scaling keeps
    unturned: int  # the other turning pairs: they never completed a turn in training
    unturned_inside: int  # of those, pairs whose angle at the longest extended offset is at most their angle at the longest trained one
    trained_offset: int  # the longest offset between a query and a key in training: min(trained context, window) - 1
    extended_offset: int  # the longest at the extended context: min(extended context, window) - 1
    slowest_trained: float  # the slowest pair's angle at trained_offset, unscaled (rad)
    slowest_extended: float  # its angle at extended_offset, scaled (rad)
    overshoot: float  # the largest (angle at extended_offset) / (angle at trained_offset) over the unturned pairs; nan if none


def angle_reach(view: PairView, trained_context: int, extended_context: int, window: int | None = None) -> Reach:
    r"""Which turning pairs stay within the angles they took in training once scaled. RoPE's score
    depends on the offset δ between query and key, pair i adding the angle $\delta\,\theta_i$; the
    longest offset is $\Delta_T = \min(T, W) - 1$ in a trained context of T positions (W: the layer's
    sliding window, if any) and $\Delta_E = \min(E, W) - 1$ at the extended context E. A pair whose
    unscaled wavelength $2\pi/\theta_i$ is at most $\Delta_T + 1$ went all the way round in training;
    any other saw only the arc up to $\Delta_T\,\theta_i$ and stays inside it when scaled to $\theta_i'$ if
    $\Delta_E\,\theta_i' \le \Delta_T\,\theta_i$ (relative tolerance 1e-9). The slowest pair is the turning
    pair with the longest unscaled wavelength. Returns a Reach."""
    turning = np.isfinite(view.before) & np.isfinite(view.after)
    theta_before = np.where(turning, 2 * np.pi / np.where(turning, view.before, 1.0), 0.0)
    theta_after = np.where(turning, 2 * np.pi / np.where(turning, view.after, 1.0), 0.0)
    span_t = min(trained_context, window or trained_context) - 1
    span_e = min(extended_context, window or extended_context) - 1
    turned = turning & (view.before <= span_t + 1)
    unturned = turning & ~turned
    reached_t, reached_e = span_t * theta_before, span_e * theta_after
    inside = unturned & (reached_e <= reached_t * (1 + 1e-9))
    overshoot = float((reached_e[unturned] / reached_t[unturned]).max()) if unturned.any() and span_t > 0 else float("nan")
    slowest = int(np.argmax(np.where(turning, view.before, -np.inf))) if turning.any() else 0
    return Reach(
        int(turning.sum()),
        int(turned.sum()),
        int((turned & (view.label == "kept")).sum()),
        int(unturned.sum()),
        int(inside.sum()),
        span_t,
        span_e,
        float(reached_t[slowest]) if turning.any() else 0.0,
        float(reached_e[slowest]) if turning.any() else 0.0,
        overshoot,
    )


def reach_text(reach: Reach, scaled: bool) -> str:
    """The sentences under a figure of wavelengths per pair, every number from `reach`: how many pairs
    went round in training and how many of them the scaling keeps, how many never did and how many of
    those stay within the arc they covered in training, and the slowest pair's angle before and after."""
    if reach.turning == 0:
        return "No pair of this head turns: its scores do not depend on position."
    dt, de = f"{reach.trained_offset:,}", f"{reach.extended_offset:,}"
    kept = reach.turned_kept if scaled else reach.turned
    first = (
        f"{reach.turned} of the {reach.turning} turning pairs complete a turn within offsets up to {dt} (the longest in training), so at "
        f"longer offsets they only go round the circle they went round in training; {'the scaling' if scaled else 'without scaling, RoPE'} "
        f"keeps {kept} of them"
        + (f" and changes the other {reach.turned - kept}" if kept < reach.turned else "")
        + "."
    )
    if reach.unturned == 0:
        second = ""
    elif reach.extended_offset == reach.trained_offset:
        second = f" The other {reach.unturned} never complete a turn: their angles stay below {2 * np.pi:.4g} rad at every offset."
    elif reach.unturned_inside == reach.unturned:
        second = (
            f" The other {reach.unturned} never completed a turn in training; at offset {de} all of them stay within the arc they covered "
            f"up to offset {dt}."
        )
    else:
        stay = "none of them stays" if reach.unturned_inside == 0 else f"{reach.unturned_inside} of them stay"
        second = (
            f" The other {reach.unturned} never completed a turn in training; at offset {de} {stay} within the arc they covered up to offset {dt}, "
            f"and {reach.unturned - reach.unturned_inside} go past it, to angles training never gave them"
            # offsets up to 0 give every pair angle 0: past it, no ratio says by how much
            + (f", by up to {100 * (reach.overshoot - 1):.4g} %." if np.isfinite(reach.overshoot) else " (training gave them only angle 0).")
        )
    third = ""
    if reach.extended_offset > reach.trained_offset and reach.slowest_trained > 0:
        ratio = reach.slowest_extended / reach.slowest_trained
        third = (
            f" The slowest pair turns {reach.slowest_extended:.4g} rad at offset {de}, against {reach.slowest_trained:.4g} rad at offset {dt} "
            f"in training ({ratio:.3g}×)."
        )
    return first + second + third


def window_text(window: int, which: str, reach: Reach | None = None) -> str:
    """The sentence on layers that attend within a sliding window: their offsets stop at window − 1. `which` names them
    ("This layer", "every other layer"); with `reach` (`angle_reach` at that window) it says how many pairs go round there."""
    lead = f" {which[0].upper()}{which[1:]} attends within a window of {window:,} positions, so its offsets stop at {window - 1:,}"
    if reach is None:
        return lead + "."
    return lead + f": there {reach.turned} of the {reach.turning} turning pairs go round, the other {reach.unturned} never do."


def decay_offsets(extended_context: int, points: int = 400) -> np.ndarray:
    """0, then `points` log-spaced whole offsets from 1 to the extended context. Returns (n,) float64."""
    return np.unique(np.concatenate([[0.0], np.geomspace(1, max(extended_context, 2), points).round()]))


def decay_curves(layer: LayerRope, extended_context: int, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The score of a query and key of all ones against the offset δ, divided by head_dim:
    before scaling $\big(\sum_i 2\cos\delta\theta_i + (d - 2n)\big)/d$ (RoFormer's long-distance decay,
    the resting dimensions adding a constant), and after scaling at seq_len = extended_context,
    with the attention factor c on the turning pairs ($c^2$ on their part of the score).
    Returns (before, after), (n,) each."""
    ones = np.ones(layer.head_dim)
    before_freq, before_c = unscaled(layer).frequencies()
    after_freq, after_c = layer.frequencies(seq_len=extended_context)
    before = rope.relative_score(ones, ones, before_freq, offsets, attention_factor=before_c) / layer.head_dim
    after = rope.relative_score(ones, ones, after_freq, offsets, attention_factor=after_c) / layer.head_dim
    return before, after


def half_offset(offsets: np.ndarray, curve: np.ndarray) -> float | None:
    """The first offset at which a decay curve is below half its value at offset 0 (`offsets[0]` = 0), or
    None if it never falls that far over the offsets drawn."""
    below = np.flatnonzero(curve < curve[0] / 2)
    return float(offsets[below[0]]) if below.size else None


def decay_text(offsets: np.ndarray, before: np.ndarray, after: np.ndarray, scaled: bool) -> str:
    """The sentence under a decay figure: where each curve first falls below half its value at offset 0
    (`half_offset`, over the offsets drawn), before and after scaling. RoFormer (Su et al. 2021, §3.4.3)
    bounds this score by a sum that falls with the offset; the numbers say where, for this head."""

    def where(curve: np.ndarray) -> str:
        found = half_offset(offsets, curve)
        return f"offset {found:,.0f}" if found is not None else f"none up to {offsets[-1]:,.0f}"

    lead = "Of the offsets drawn, the first where the score of an all-ones query and key is below half its value at offset 0"
    if not scaled:
        return f"{lead}: {where(before)}."
    return f"{lead}: {where(before)} before scaling, {where(after)} after."


def _scaling_words(scaling: rope.RopeScaling | None) -> str:
    if scaling is None:
        return "none"
    return f"{scaling.kind} ×{scaling.factor:g}" if scaling.factor != 1 else scaling.kind


def summary_rows(presets: list[RopePreset]) -> list[dict[str, object]]:
    """One row per preset and kind of layer: its RoPE settings, attention factor and pair counts
    (`pair_view`, `counts`), the slowest turning wavelength before and after scaling, and the
    fields whose source could not be verified. Returns a list of dicts with the same keys."""
    rows = []
    for preset in presets:
        for layer in preset.layers:
            view = pair_view(layer, preset.extended_context)
            turning = np.isfinite(view.after)
            row: dict[str, object] = {
                "model": preset.label,
                "layers": layer.name,
                "scaling": _scaling_words(layer.scaling),
                "head_dim": layer.head_dim,
                "rotating dims": view.rotating,
                "base": layer.base,
                "trained context": preset.trained_context,
                "extended context": preset.extended_context,
                "attention factor": view.attention_factor,
                "pairs": layer.head_dim // 2,
            }
            row |= counts(view, preset.trained_context, preset.extended_context)
            row["slowest wavelength before"] = float(view.before[turning].max()) if turning.any() else float("nan")
            row["slowest wavelength after"] = float(view.after[turning].max()) if turning.any() else float("nan")
            row["unverified"] = ", ".join(preset.unverified) or "none"
            rows.append(row)
    return rows


# ----------------------------------------------------------------------------------------------
# Links to /rope and /code


class LinkPlan(NamedTuple):
    """URL parameters for /rope (None when its head widths do not include the layer's) and /code,
    and what they cannot carry, in words."""

    rope: dict[str, str] | None
    code: dict[str, str]
    dropped: tuple[str, ...]


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def link_params(preset: RopePreset, layer: LayerRope) -> LinkPlan:
    """The /rope and /code URL parameters (head_dim, rope_layout, scaling, factor, original_len,
    base, max_len; /code also scheme=rope, and preset=, under which it shows the preset's exact code
    as well) that open the nearest setting those pages show, and the parts of the preset the
    nearest setting leaves out. Returns a LinkPlan."""
    dropped: list[str] = []
    s = layer.scaling
    controls = None if s is None else s.record.controls  # how those pages' controls set this kind, if they can
    kind = "none" if controls is None else s.kind
    if s is not None and controls is None:
        dropped.append(f"the {s.kind} scaling (those pages build a scaling from a factor and an original context only)")
    if controls is not None:
        dropped += controls.left_out(s)
    if rotary_fraction(layer) < 1:
        dropped.append(f"partial rotary: only {rope.rotary_dim(layer.head_dim, layer.partial_rotary_factor)} of {layer.head_dim} dimensions turn here")
    if preset.mrope_section is not None:
        dropped.append("the M-RoPE sections (for text they change nothing)")
    max_len = min(preset.extended_context, MAX_LINK_LEN)
    if preset.extended_context > MAX_LINK_LEN:
        dropped.append(f"the extended context {preset.extended_context:,} (the sidebar stops at {MAX_LINK_LEN:,})")
    common = {"head_dim": str(layer.head_dim), "rope_layout": preset.layout, "scaling": kind, "base": _number(layer.base), "max_len": str(max_len)}
    if kind != "none":
        original = min(s.original_max_len, max_len)
        common |= {"factor": _number(s.factor), "original_len": str(original)}
    rope_params = dict(common) if layer.head_dim in ROPE_PAGE_HEAD_DIMS else None
    code_params = {"scheme": "rope"} | common | {"preset": preset.name}
    return LinkPlan(rope_params, code_params, tuple(dropped))


# ----------------------------------------------------------------------------------------------
# The dynamic-NTK pitfall


class CacheError(NamedTuple):
    """Scores of one query against cached keys, consistent and stale (see `dynamic_cache_error`)."""

    key_positions: np.ndarray  # (K,) positions of the cached keys
    consistent: np.ndarray  # (K,) score with both rotated at the query's base
    stale: np.ndarray  # (K,) score with the keys rotated at the base of the cache's length
    query_position: int
    base_cache: float  # the base the keys were rotated with
    base_query: float  # the base the query is rotated with


def dynamic_cache_error(
    head_dim: int, base: float, scaling: rope.RopeScaling, cache_len: int, query_len: int, *, keys: int = 512, partial_rotary_factor: float = 1.0
) -> CacheError:
    r"""The dynamic-NTK cache pitfall. A prompt of `cache_len` tokens is encoded and its keys cached,
    rotated with the base $b'(\text{cache\_len})$ (`core.schemes.rope.dynamic_base`); generation
    goes on to `query_len` tokens, where the query at $m = \text{query\_len} - 1$ is rotated with
    $b'(\text{query\_len})$. For a query and key of all ones the stale score is
    $\frac{1}{d}\big(\sum_i 2\cos(m\theta_i' - n\theta_i) + (d - 2n_\theta)\big)$ against the consistent
    $\frac{1}{d}\big(\sum_i 2\cos((m - n)\theta_i') + (d - 2n_\theta)\big)$ a fresh computation of the
    whole sequence gives; the first depends on m and n, not only on m - n.

    At most `keys` key positions, evenly strided over 0 .. cache_len - 1 (whole numbers).
    Returns a CacheError.
    """
    if scaling.kind != "dynamic":
        raise ValueError(f"the cache pitfall is about dynamic NTK scaling, got {scaling.kind!r}.")
    if not 1 <= cache_len <= query_len:
        raise ValueError(f"the cached length must be from 1 to the query's length, got {cache_len} and {query_len}.")
    key_pos = np.unique(np.linspace(0, cache_len - 1, min(keys, cache_len)).round())
    cache_freq, _ = rope.rope_frequencies(head_dim, base, scaling, seq_len=cache_len, partial_rotary_factor=partial_rotary_factor)
    query_freq, _ = rope.rope_frequencies(head_dim, base, scaling, seq_len=query_len, partial_rotary_factor=partial_rotary_factor)
    m = query_len - 1
    ones = np.ones((1, head_dim))
    q = rope.apply_rope(ones, [m], query_freq)[0]  # (d,)
    fresh = rope.apply_rope(np.ones((key_pos.size, head_dim)), key_pos, query_freq)  # (K, d)
    cached = rope.apply_rope(np.ones((key_pos.size, head_dim)), key_pos, cache_freq)  # (K, d)
    base_cache = rope.dynamic_base(head_dim, base, scaling, cache_len, partial_rotary_factor)
    base_query = rope.dynamic_base(head_dim, base, scaling, query_len, partial_rotary_factor)
    return CacheError(key_pos, fresh @ q / head_dim, cached @ q / head_dim, m, base_cache, base_query)


# ----------------------------------------------------------------------------------------------
# RoPE in 2-D


def grid_positions(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of every patch of a rows x cols grid, in row-major (raster) order. Returns ((N,), (N,))."""
    r, c = np.divmod(np.arange(rows * cols), cols)
    return r.astype(np.float64), c.astype(np.float64)


def axial_frequencies(head_dim: int, base: float) -> np.ndarray:
    r"""Axial 2-D RoPE's frequencies (Qwen2-VL's vision encoder, `compute_axial_rope_parameters`):
    $\phi_i = b^{-2i/(d/2)}$ for $i < d/4$, used once for the rows and once for the columns.
    head_dim must be a multiple of 4. Returns (head_dim // 4,)."""
    if head_dim % 4:
        raise ValueError(f"axial 2-D RoPE splits the pairs between rows and columns, so head_dim must be a multiple of 4, got {head_dim}.")
    return rope.default_frequencies(head_dim // 2, base)


def axial_angles(rows: np.ndarray, cols: np.ndarray, head_dim: int, base: float) -> np.ndarray:
    r"""Angles of axial 2-D RoPE: pair i < d/4 turns by $r\,\phi_i$, pair d/4 + i by $c\,\phi_i$
    (Qwen2-VL's vision `recomposition_frequencies`: cat(rows, columns)). Returns (N, head_dim // 2)."""
    phi = axial_frequencies(head_dim, base)
    return np.concatenate([rows[:, None] * phi[None, :], cols[:, None] * phi[None, :]], axis=1)  # (N, d/2)


def mrope_axes(mrope_section: tuple[int, ...] | list[int]) -> np.ndarray:
    """Which position stream (0 temporal, 1 height, 2 width) turns each pair: consecutive sections of
    the frequencies, section i taking stream i % 3 (transformers' Qwen2-VL `recomposition_frequencies`).
    Returns (sum(mrope_section),) int."""
    section = [int(s) for s in mrope_section]
    if any(s < 0 for s in section) or not section:
        raise ValueError(f"mrope_section must be whole numbers of at least 0, got {list(mrope_section)}.")
    return np.repeat(np.arange(len(section)) % 3, section)


def mrope_angles(t: np.ndarray, h: np.ndarray, w: np.ndarray, head_dim: int, base: float, mrope_section: tuple[int, ...]) -> np.ndarray:
    r"""Angles of M-RoPE: the default frequencies $\theta_i = b^{-2i/d}$, pair i turned by the
    coordinate (t, h or w) of its section, `mrope_axes`. sum(mrope_section) must be head_dim / 2.
    Returns (N, head_dim // 2)."""
    theta = rope.default_frequencies(head_dim, base)
    axes = mrope_axes(mrope_section)
    if axes.size != theta.size:
        raise ValueError(f"the M-RoPE sections must add up to head_dim / 2 = {theta.size}, got {list(mrope_section)} (sum {axes.size}).")
    streams = np.stack([t, h, w])  # (3, N)
    return streams[axes].T * theta[None, :]  # (N, d/2)


def flat_angles(rows: np.ndarray, cols: np.ndarray, n_cols: int, head_dim: int, base: float) -> np.ndarray:
    r"""Angles of 1-D RoPE over the flattened patches: position $rW + c$. Returns (N, head_dim // 2)."""
    return rope.rope_angles(rows * n_cols + cols, rope.default_frequencies(head_dim, base))


def patch_similarity(angles: np.ndarray, query: int) -> np.ndarray:
    r"""The score of an all-ones query at patch `query` against an all-ones key at every patch,
    divided by head_dim: $\frac{1}{P}\sum_i \cos(\alpha_i(p) - \alpha_i(p_0))$, 1 at the query itself.
    angles: (N, P). Returns (N,)."""
    return np.cos(angles - angles[query][None, :]).mean(axis=1)


def centred_grid(angles: np.ndarray, query: int, rows: int, cols: int) -> tuple[np.ndarray, float]:
    r"""`patch_similarity` on the grid, minus its mean over the grid: how much more (or less) than the
    average patch each patch scores against the query patch. Slow pairs add nearly 1 to every score,
    so the raw scores crowd near 1; centred, the shape shows on a diverging scale.
    Returns ((rows, cols), the mean that was subtracted)."""
    score = patch_similarity(angles, query).reshape(rows, cols)  # (rows, cols)
    mean = float(score.mean())
    return score - mean, mean

