r"""Rotary position embeddings (RoPE, Su et al. 2021, "RoFormer") and their long-context scalings.

RoPE does not add anything to the token vector. It splits the query and the key of one head
(width $d$) into $d/2$ pairs and turns pair $i$ of the vector at position $m$ by the angle
$m\,\theta_i$, with

$$\theta_i = \text{base}^{-2i/d}, \qquad i = 0 \dots d/2 - 1,$$

$$\begin{pmatrix} x'_a \\ x'_b \end{pmatrix} =
\begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i \end{pmatrix}
\begin{pmatrix} x_a \\ x_b \end{pmatrix}.$$

Rotations compose, $R_m^\top R_n = R_{n-m}$, so the attention score
$(R_m q)\cdot(R_n k) = q^\top R_{n-m}\,k$ depends on the offset $m - n$ only, and every row keeps
its norm. Which two dimensions form a pair is a convention (`layout`):

- "half": dimension $i$ with $i + d/2$, as in GPT-NeoX and Hugging Face Llama (`rotate_half`);
- "interleaved": dimension $2i$ with $2i+1$, as in RoFormer, Meta's Llama code and GPT-J.

They differ only by a fixed permutation of the dimensions (`layout_permutation`).

A model trained on contexts up to $L$ has seen the slow pairs turn through less than a full
circle. To run it on longer contexts, the frequencies are rescaled. `rope_frequencies`
follows the Hugging Face transformers rope types of the same names
(`src/transformers/modeling_rope_utils.py`, checked against transformers 5.23.0):

- "linear" (position interpolation, kaiokendev; Chen et al. 2023): every $\theta_i / s$;
- "ntk" (NTK-aware, bloc97): a larger base, $b' = b\,s^{d/(d-2)}$, fixed (not a Hugging Face rope type:
  their "dynamic" applies it per sequence length);
- "dynamic" (dynamic NTK, bloc97 and emozilla): a larger base, growing with the sequence length;
- "yarn" (Peng et al. 2023): slow pairs interpolated, fast pairs kept, a linear ramp between,
  and an attention factor $0.1 \ln s + 1$ on cos and sin;
- "llama3" (Meta, Llama 3.1): the same idea with bands set by wavelength, a smooth blend between.

All arrays are numpy float64 (Hugging Face computes the frequencies in float32).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Literal, NamedTuple

import numpy as np

from core.schemes.checks import is_finite_number, whole_number
from core.schemes.formula import Constant, Expr, Formula, literal

Layout = Literal["half", "interleaved"]
LAYOUTS: tuple[str, ...] = ("half", "interleaved")
SCALING_KINDS: tuple[str, ...] = ("linear", "ntk", "dynamic", "yarn", "llama3")
REGION_LABELS: tuple[str, ...] = ("kept", "blended", "interpolated")

_BLOCK = 1 << 17  # angles per block (1 MB of float64): long inputs are processed a block of positions at a time


def _blocks(n: int, pairs: int) -> list[slice]:
    """Slices of about _BLOCK / pairs positions covering 0 .. n-1, so a (block, d/2) temporary stays small."""
    step = max(1, _BLOCK // max(pairs, 1))
    return [slice(lo, min(lo + step, n)) for lo in range(0, n, step)]


# ----------------------------------------------------------------------------------------------
# Input checks: each raises ValueError with a sentence a user understands.


def _check_head_dim(head_dim: int) -> int:
    head_dim = whole_number(head_dim, "head_dim", 2)
    if head_dim % 2:
        raise ValueError(f"head_dim must be even, got {head_dim}: RoPE rotates pairs of dimensions, so an odd width leaves one dimension without a partner.")
    return head_dim


def _check_base(base: float) -> float:
    if not is_finite_number(base) or base <= 1:
        raise ValueError(f"base must be a finite number above 1, got {base!r}: at base 1 or below the pairs would not slow down from one to the next.")
    return float(base)


def _check_layout(layout: str) -> None:
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}.")


def _check_finite(name: str, value: float) -> float:
    if not is_finite_number(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}.")
    return float(value)


def _as_inv_freq(inv_freq: np.ndarray) -> np.ndarray:
    inv_freq = np.asarray(inv_freq, dtype=np.float64)
    if inv_freq.ndim != 1 or inv_freq.size == 0:
        raise ValueError(f"inv_freq must be a 1-D array with one frequency per pair, got shape {inv_freq.shape}.")
    if not np.all(np.isfinite(inv_freq)):
        raise ValueError("inv_freq must contain finite numbers only.")
    return inv_freq


def _as_positions(positions: np.ndarray, name: str = "positions") -> np.ndarray:
    pos = np.asarray(positions, dtype=np.float64)
    if pos.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of positions, got shape {pos.shape}.")
    if not np.all(np.isfinite(pos)):
        raise ValueError(f"{name} must be finite numbers.")
    return pos


# ----------------------------------------------------------------------------------------------
# Scaling configuration


@dataclass(frozen=True)
class RopeScaling:
    """How to stretch RoPE beyond the context it was trained on; the `rope_scaling` /
    `rope_parameters` dict of a Hugging Face config as a typed value.

    kind: "linear", "ntk", "dynamic", "yarn" or "llama3".
    factor: s, the new context length over the original one (s = 1 changes nothing).
    original_max_len: L, the context length the model was trained on; Hugging Face's
        `original_max_position_embeddings` (yarn, llama3), or `max_position_embeddings` for
        dynamic, which scales against that. "linear" and "ntk" do not use it.
    beta_fast, beta_slow (yarn): a pair that turns more than beta_fast times over L keeps its
        frequency, one that turns fewer than beta_slow times is interpolated; 32 and 1 as in
        the YaRN paper.
    low_freq_factor, high_freq_factor (llama3): pairs with a wavelength above L / low are
        interpolated, below L / high kept; 1 and 4 as in Llama 3.1.
    attention_factor (yarn): multiplies cos and sin; None means 0.1 ln(s) + 1, as in the paper.
    truncate (yarn): round the ramp's ends outwards to whole pairs, as Hugging Face does by
        default (gpt-oss sets it to False).
    """

    kind: str
    factor: float
    original_max_len: int
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    attention_factor: float | None = None
    truncate: bool = True

    def __post_init__(self) -> None:
        if self.kind not in SCALING_KINDS:
            raise ValueError(f"Unknown RoPE scaling kind {self.kind!r}; choose one of {', '.join(SCALING_KINDS)}.")
        for f in fields(self):
            if f.name in ("kind", "original_max_len", "truncate") or (f.name == "attention_factor" and self.attention_factor is None):
                continue
            object.__setattr__(self, f.name, _check_finite(f.name, getattr(self, f.name)))
        if self.factor < 1:
            raise ValueError(f"factor must be at least 1, got {self.factor!r}: a scaling factor below 1 would shrink the context.")
        object.__setattr__(self, "original_max_len", whole_number(self.original_max_len, "original_max_len", 1))
        if self.kind == "yarn":
            if self.beta_slow <= 0:
                raise ValueError(f"beta_slow must be above 0, got {self.beta_slow!r}: it counts rotations over the original context.")
            if self.beta_fast <= self.beta_slow:
                raise ValueError(
                    f"beta_fast must be greater than beta_slow for yarn, got beta_fast={self.beta_fast!r} and beta_slow={self.beta_slow!r}: "
                    "pairs turning more than beta_fast times are kept, fewer than beta_slow times interpolated."
                )
            if self.attention_factor is not None and self.attention_factor <= 0:
                raise ValueError(f"attention_factor must be above 0, got {self.attention_factor!r}.")
        if self.kind == "llama3":
            if self.low_freq_factor <= 0:
                raise ValueError(f"low_freq_factor must be above 0, got {self.low_freq_factor!r}: the band edge is original_max_len / low_freq_factor.")
            if self.low_freq_factor >= self.high_freq_factor:
                raise ValueError(
                    f"low_freq_factor must be below high_freq_factor for llama3, got {self.low_freq_factor!r} and {self.high_freq_factor!r}: "
                    "together they set the band of wavelengths that is blended."
                )


# ----------------------------------------------------------------------------------------------
# Frequencies: the default one, then one rule per scaling kind (same signature, as in Hugging Face)


def default_frequencies(head_dim: int, base: float = 10_000.0) -> np.ndarray:
    r"""The unscaled RoPE frequencies, $\theta_i = \text{base}^{-2i/d}$ for $i = 0 \dots d/2-1$
    (RoFormer eq. 15; Hugging Face `compute_default_rope_parameters`).

    Returns (head_dim // 2,) radians per position, fastest first ($\theta_0 = 1$).
    """
    head_dim, base = _check_head_dim(head_dim), _check_base(base)
    # $\theta_i = \text{base}^{-2i/d}$
    return 1.0 / base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)


def rope_wavelengths(inv_freq: np.ndarray) -> np.ndarray:
    r"""Wavelength of each pair in positions, $\lambda_i = 2\pi / \theta_i$: how far apart two
    positions are when pair i has turned one full circle. Returns (len(inv_freq),)."""
    inv_freq = _as_inv_freq(inv_freq)
    if np.any(inv_freq <= 0):
        raise ValueError("inv_freq must be positive to have a wavelength.")
    return 2.0 * np.pi / inv_freq


def ntk_aware_base(base: float, factor: float, head_dim: int) -> float:
    r"""The "NTK-aware" base change (bloc97, 2023): $b' = b\,s^{d/(d-2)}$.

    The exponent is chosen so that the slowest pair, $\theta_{d/2-1} = b^{-(d-2)/d}$, is divided
    by exactly s (interpolated) while the fastest, $\theta_0 = 1$, is untouched (extrapolated).
    Needs head_dim >= 4: with a single pair its frequency is 1 whatever the base. Returns a float.
    """
    base = _check_base(base)
    factor = _check_finite("factor", factor)
    if factor < 1:
        raise ValueError(f"factor must be at least 1, got {factor!r}: a scaling factor below 1 would shrink the context.")
    head_dim = _check_head_dim(head_dim)
    if head_dim < 4:
        raise ValueError("head_dim must be at least 4 for an NTK-aware base: with a single pair the frequency is 1 whatever the base.")
    # $b' = b\,s^{d/(d-2)}$
    return base * factor ** (head_dim / (head_dim - 2))


def linear_frequencies(head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""Position interpolation: $\theta_i' = \theta_i / s$, the same as feeding positions $m / s$
    (Hugging Face `_compute_linear_scaling_rope_parameters`; seq_len is unused).
    Returns ((head_dim // 2,), attention factor 1.0)."""
    # $\theta_i' = \theta_i / s$
    return default_frequencies(head_dim, base) / scaling.factor, 1.0


def ntk_frequencies(head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""The NTK-aware base change as a fixed rule: the default frequencies with the base of
    `ntk_aware_base`, $\theta_i' = b'^{-2i/d}$, $b' = b\,s^{d/(d-2)}$ (seq_len unused; "dynamic" is
    the same change made per sequence length). Returns ((head_dim // 2,), attention factor 1.0)."""
    return default_frequencies(head_dim, ntk_aware_base(base, scaling.factor, head_dim)), 1.0


def dynamic_base(head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None) -> float:
    r"""The base that dynamic NTK scaling uses for a sequence of seq_len positions
    (Hugging Face `_compute_dynamic_ntk_parameters`):

    $$b' = b \left(\frac{s \cdot n}{L} - (s - 1)\right)^{d/(d-2)}, \qquad n = \max(\text{seq\_len}, L),$$

    that is `ntk_aware_base` for the effective factor $\alpha = 1 + s\,(n/L - 1)$: b' = b up to the
    trained length L (and when seq_len is None), and $\alpha$ grows by s for every further L
    positions (so the slowest pair is divided by exactly s at n = L (2s - 1) / s, not at n = s L).
    head_dim 2 has one pair whose frequency is 1 whatever the base, so it returns b unchanged
    there (Hugging Face divides by zero). Returns a float.
    """
    head_dim, base = _check_head_dim(head_dim), _check_base(base)
    original = scaling.original_max_len
    # n = max(seq_len, L): shorter sequences use the trained frequencies
    n = original if seq_len is None else max(whole_number(seq_len, "seq_len", 1), original)
    if head_dim == 2:
        return base
    # $b' = b\,(s n / L - (s - 1))^{d/(d-2)}$
    return base * ((scaling.factor * n / original) - (scaling.factor - 1)) ** (head_dim / (head_dim - 2))


def dynamic_frequencies(head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""Dynamic NTK scaling: the default frequencies with the base $b'$ of `dynamic_base`,
    $\theta_i' = b'^{-2i/d}$. Returns ((head_dim // 2,), attention factor 1.0)."""
    return default_frequencies(head_dim, dynamic_base(head_dim, base, scaling, seq_len)), 1.0


def yarn_attention_factor(scaling: RopeScaling) -> float:
    r"""YaRN's attention factor on cos and sin: the configured one, else
    $\sqrt{1/t} = 0.1 \ln s + 1$ (YaRN eq. 22; 1 when s <= 1), Hugging Face `get_mscale`.
    Both q and k carry it, so scores scale by its square. Returns a float."""
    if scaling.attention_factor is not None:
        return float(scaling.attention_factor)
    # $\sqrt{1/t} = 0.1 \ln s + 1$
    return 1.0 if scaling.factor <= 1 else 0.1 * math.log(scaling.factor) + 1.0


def yarn_correction_range(head_dim: int, base: float, scaling: RopeScaling) -> tuple[float, float]:
    r"""The pair indices where YaRN's ramp starts and ends (Hugging Face `find_correction_range`).

    A pair that turns r times over the original context L has wavelength L / r; solving
    $2\pi\,b^{2i/d} = L/r$ for i gives `find_correction_dim`,

    $$i(r) = \frac{d \ln\!\big(L / (2\pi r)\big)}{2 \ln b},$$

    low = i(beta_fast), high = i(beta_slow), rounded outwards (floor, ceil) when
    scaling.truncate, then clamped to [0, d - 1] (Hugging Face clamps at d - 1, not d/2 - 1).
    Returns (low, high) as floats.
    """
    head_dim, base = _check_head_dim(head_dim), _check_base(base)
    original = scaling.original_max_len

    def correction_dim(rotations: float) -> float:
        # $i(r) = d \ln(L / 2\pi r) / (2 \ln b)$
        return head_dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(scaling.beta_fast), correction_dim(scaling.beta_slow)
    if scaling.truncate:
        low, high = math.floor(low), math.ceil(high)
    return float(max(low, 0)), float(min(high, head_dim - 1))


def yarn_frequencies(head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""YaRN "NTK-by-parts" (Peng et al. 2023, Hugging Face `_compute_yarn_parameters`; seq_len unused).

    With the ramp $\gamma_i = \text{clip}\big((i - \text{low}) / (\text{high} - \text{low}), 0, 1\big)$
    over the pair index (high gets +0.001 when it equals low),

    $$\theta_i' = \gamma_i\,\frac{\theta_i}{s} + (1 - \gamma_i)\,\theta_i,$$

    so fast pairs (i <= low) keep their frequency and slow pairs (i >= high) are interpolated.
    Returns ((head_dim // 2,), attention factor from `yarn_attention_factor`).
    """
    theta = default_frequencies(head_dim, base)
    low, high = yarn_correction_range(head_dim, base, scaling)
    if low == high:
        high += 0.001  # Hugging Face: prevent a division by zero
    # $\gamma_i = \text{clip}((i - \text{low}) / (\text{high} - \text{low}), 0, 1)$
    ramp = np.clip((np.arange(head_dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    keep = 1.0 - ramp  # Hugging Face's inv_freq_extrapolation_factor
    # $\theta_i' = \gamma_i\,\theta_i / s + (1 - \gamma_i)\,\theta_i$
    inv_freq = (theta / scaling.factor) * (1.0 - keep) + theta * keep
    return inv_freq, yarn_attention_factor(scaling)


def llama3_frequencies(head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""Llama 3.1's frequency scaling (Meta's `apply_scaling`, Hugging Face `_compute_llama3_parameters`;
    seq_len unused). With wavelength $\lambda_i = 2\pi/\theta_i$ and bands
    $\lambda_{hi} = L / \text{high\_freq\_factor}$, $\lambda_{lo} = L / \text{low\_freq\_factor}$:

    $$\theta_i' = \begin{cases} \theta_i & \lambda_i < \lambda_{hi} \\ \theta_i / s & \lambda_i > \lambda_{lo} \\
    (1 - g_i)\,\theta_i / s + g_i\,\theta_i & \text{otherwise}, \end{cases} \qquad
    g_i = \frac{L/\lambda_i - \text{low\_freq\_factor}}{\text{high\_freq\_factor} - \text{low\_freq\_factor}}.$$

    Returns ((head_dim // 2,), attention factor 1.0).
    """
    theta = default_frequencies(head_dim, base)
    s, original = scaling.factor, scaling.original_max_len
    low_freq_wavelen = original / scaling.low_freq_factor
    high_freq_wavelen = original / scaling.high_freq_factor
    wavelen = 2 * np.pi / theta
    # $g_i = (L/\lambda_i - \text{low}) / (\text{high} - \text{low})$
    smooth = (original / wavelen - scaling.low_freq_factor) / (scaling.high_freq_factor - scaling.low_freq_factor)
    inv_freq = np.where(wavelen > low_freq_wavelen, theta / s, theta)
    is_medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    # $(1 - g_i)\,\theta_i / s + g_i\,\theta_i$ in the band between
    inv_freq = np.where(is_medium, (1 - smooth) * theta / s + smooth * theta, inv_freq)
    return inv_freq, 1.0


FrequencyRule = Callable[..., tuple[np.ndarray, float]]  # (head_dim, base, scaling, seq_len)
SCALING_RULES: dict[str, FrequencyRule] = {
    "linear": linear_frequencies,
    "ntk": ntk_frequencies,
    "dynamic": dynamic_frequencies,
    "yarn": yarn_frequencies,
    "llama3": llama3_frequencies,
}


def rope_frequencies(head_dim: int, base: float = 10_000.0, scaling: RopeScaling | None = None, *, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    r"""The frequencies $\theta_i$ of every pair and the attention factor that multiplies cos and sin,
    as Hugging Face transformers computes them for rope type `scaling.kind` ("default" when
    scaling is None). seq_len (the current sequence length, Hugging Face's max(position_ids) + 1)
    matters for "dynamic" only.

    Returns (inv_freq (head_dim // 2,), attention_factor float).
    """
    head_dim, base = _check_head_dim(head_dim), _check_base(base)
    if seq_len is not None:
        seq_len = whole_number(seq_len, "seq_len", 1)
    if scaling is None:
        return default_frequencies(head_dim, base), 1.0
    if not isinstance(scaling, RopeScaling):
        raise ValueError(f"scaling must be a RopeScaling or None, got {type(scaling).__name__}.")
    return SCALING_RULES[scaling.kind](head_dim, base, scaling, seq_len)


# ----------------------------------------------------------------------------------------------
# Applying the rotation


def layout_permutation(head_dim: int) -> np.ndarray:
    """The dimension order that turns an interleaved vector into a half-layout one:
    perm = [0, 2, 4, ..., d-2, 1, 3, ..., d-1], so x_half = x_interleaved[..., perm] puts pair i's
    first member at i and its second at i + d/2. Then

        apply_rope(x[:, perm], pos, f, layout="half") == apply_rope(x, pos, f, layout="interleaved")[:, perm]

    This is the row order of Hugging Face's `permute` in `convert_llama_weights_to_hf.py`, which
    converts Meta's interleaved q/k weights for `rotate_half`. np.argsort(perm) goes back.
    Returns (head_dim,) int.
    """
    head_dim = _check_head_dim(head_dim)
    j = np.arange(head_dim)
    return np.concatenate([j[0::2], j[1::2]])


def rope_angles(positions: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    r"""The angle $m\,\theta_i$ by which pair i at position m is turned, in radians (not reduced
    mod $2\pi$). Returns (L, d/2)."""
    return _as_positions(positions)[:, None] * _as_inv_freq(inv_freq)[None, :]  # (L, d/2)


def _pairs(x: np.ndarray, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The two members (a, b) of every pair along the last axis: views, (..., d/2) each."""
    if layout == "half":
        h = x.shape[-1] // 2
        return x[..., :h], x[..., h:]
    return x[..., 0::2], x[..., 1::2]


def apply_rope(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray, *, layout: Layout = "half", attention_factor: float = 1.0) -> np.ndarray:
    r"""Rotate every row of x by its position: pair (a, b) of the row at position m becomes

    $$a' = c\,(a \cos m\theta_i - b \sin m\theta_i), \qquad b' = c\,(a \sin m\theta_i + b \cos m\theta_i)$$

    with c the attention factor. For layout "half" this is Hugging Face Llama's
    `q * cos + rotate_half(q) * sin` with cos = cat(freqs, freqs) * c; for "interleaved" it is
    GPT-J's `rotate_every_two` (and Meta Llama's complex product $(a + ib)\,e^{im\theta_i}$).

    x: (L, d) or (..., L, d); positions: (L,), any real numbers; inv_freq: (d/2,).
    Returns float64 of the same shape as x.
    """
    _check_layout(layout)
    x = np.asarray(x, dtype=np.float64)
    inv_freq = _as_inv_freq(inv_freq)
    pos = _as_positions(positions)
    attention_factor = _check_finite("attention_factor", attention_factor)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (L, d) or (..., L, d), got shape {x.shape}.")
    if x.shape[-1] != 2 * inv_freq.size:
        raise ValueError(f"x has {x.shape[-1]} dimensions but inv_freq has {inv_freq.size} pairs; RoPE needs d = 2 * len(inv_freq).")
    if x.shape[-2] != pos.size:
        raise ValueError(f"x has {x.shape[-2]} positions (rows) but {pos.size} positions were given.")
    a, b = _pairs(x, layout)
    out = np.empty(x.shape, dtype=np.float64)
    out_a, out_b = _pairs(out, layout)
    for rows in _blocks(pos.size, inv_freq.size):  # a block of positions at a time: temporaries stay small
        angle = pos[rows, None] * inv_freq[None, :]  # (block, d/2)
        cos, sin = attention_factor * np.cos(angle), attention_factor * np.sin(angle)
        a_blk, b_blk = a[..., rows, :], b[..., rows, :]
        # $a' = c(a\cos m\theta - b\sin m\theta)$, $b' = c(a\sin m\theta + b\cos m\theta)$
        np.multiply(a_blk, cos, out=out_a[..., rows, :])
        out_a[..., rows, :] -= b_blk * sin
        np.multiply(a_blk, sin, out=out_b[..., rows, :])
        out_b[..., rows, :] += b_blk * cos
    return out


# ----------------------------------------------------------------------------------------------
# Scores between a rotated query and a rotated key


def score_by_offset(
    q: np.ndarray,
    k: np.ndarray,
    inv_freq: np.ndarray,
    offsets: np.ndarray,
    *,
    start: float = 0.0,
    layout: Layout = "half",
    attention_factor: float = 1.0,
) -> np.ndarray:
    r"""The score $(R_{\text{start}+\delta}\,q)\cdot(R_{\text{start}}\,k)$ of query q at position
    start + offset against key k at position start, computed by really rotating both at their
    absolute positions with `apply_rope`. Drawing it for two starts shows the same curve: RoPE
    scores depend only on the offset (`relative_score` is the closed form).

    q, k: (d,); offsets: (n,), query position minus key position (positive: the key is earlier).
    Returns (n,).
    """
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    if q.ndim != 1 or q.shape != k.shape:
        raise ValueError(f"q and k must be single vectors of the same width, got shapes {q.shape} and {k.shape}.")
    offsets = _as_positions(offsets, "offsets")
    start = _check_finite("start", start)
    k_rot = apply_rope(k[None, :], [start], inv_freq, layout=layout, attention_factor=attention_factor)[0]  # (d,)
    out = np.empty(offsets.size)
    for rows in _blocks(offsets.size, q.size // 2):
        block = offsets[rows]
        q_rot = apply_rope(np.broadcast_to(q, (block.size, q.size)), start + block, inv_freq, layout=layout, attention_factor=attention_factor)  # (block, d)
        out[rows] = q_rot @ k_rot
    return out


def relative_score(
    q: np.ndarray, k: np.ndarray, inv_freq: np.ndarray, offsets: np.ndarray, *, layout: Layout = "half", attention_factor: float = 1.0
) -> np.ndarray:
    r"""The RoPE score as a function of the offset $\delta = m - n$ alone (query at m, key at n),
    averaged over the rows of q and k:

    $$(R_m q)\cdot(R_n k) = c^2 \sum_i \big[(q_a k_a + q_b k_b)\cos\delta\theta_i + (q_a k_b - q_b k_a)\sin\delta\theta_i\big].$$

    The bracket is linear in the products, so the mean over rows is taken on the coefficients
    first; the cost is (n, d/2) whatever the number of rows. For q = k = all ones it is
    $\sum_i 2\cos\delta\theta_i$, RoFormer's long-distance decay curve; for random q = k the mean
    shows how the expected score falls with distance.

    q, k: (d,) or (B, d), broadcast together; offsets: (n,). Returns (n,).
    """
    _check_layout(layout)
    q, k = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64))
    inv_freq = _as_inv_freq(inv_freq)
    offsets = _as_positions(offsets, "offsets")
    attention_factor = _check_finite("attention_factor", attention_factor)
    if q.ndim not in (1, 2) or q.shape[-1] != 2 * inv_freq.size:
        raise ValueError(f"q and k must have shape (d,) or (B, d) with d = 2 * len(inv_freq) = {2 * inv_freq.size}, got {q.shape}.")
    qa, qb = _pairs(q, layout)
    ka, kb = _pairs(k, layout)
    cos_coef = (qa * ka + qb * kb).reshape(-1, inv_freq.size).mean(axis=0)  # (d/2,)
    sin_coef = (qa * kb - qb * ka).reshape(-1, inv_freq.size).mean(axis=0)  # (d/2,)
    out = np.empty(offsets.size)
    for rows in _blocks(offsets.size, inv_freq.size):
        angle = offsets[rows, None] * inv_freq[None, :]  # (block, d/2)
        # $c^2 \sum_i [A_i \cos\delta\theta_i + B_i \sin\delta\theta_i]$
        out[rows] = attention_factor**2 * (np.cos(angle) @ cos_coef + np.sin(angle) @ sin_coef)
    return out


# ----------------------------------------------------------------------------------------------
# Which pairs a scaling interpolates


class ScalingRegions(NamedTuple):
    """What a scaling does to each pair (see `scaling_regions`)."""

    ratio: np.ndarray  # (d/2,) new inv_freq / old inv_freq: 1 kept, 1/s interpolated
    label: np.ndarray  # (d/2,) str: "kept", "blended" or "interpolated"
    wavelength: np.ndarray  # (d/2,) unscaled wavelength 2*pi/theta_i, in positions
    edges: tuple[float, ...]  # wavelengths (positions) where the rule changes; () if none


def scaling_regions(head_dim: int, base: float = 10_000.0, scaling: RopeScaling | None = None, *, seq_len: int | None = None) -> ScalingRegions:
    r"""Per pair, the ratio $\theta_i'/\theta_i$ of scaled to unscaled frequency, and a label:

    - "kept": ratio 1, the pair extrapolates with its trained frequency;
    - "interpolated": ratio at most 1/s, divided by the factor (dynamic divides the slowest pairs by
      more than s once its effective factor, see `dynamic_base`, exceeds s);
    - "blended": in between.

    Ratios are compared with a relative tolerance of 1e-9. `edges` are the wavelengths where the
    label changes: llama3 (L / high_freq_factor, L / low_freq_factor); yarn the wavelengths of
    the pairs low and high of `yarn_correction_range` (L / beta_fast and L / beta_slow before
    truncation and clamping); none for the other kinds. For "dynamic" the ratio depends on
    seq_len (none or at most L: every pair is kept).
    Returns a ScalingRegions of (head_dim // 2,) arrays.
    """
    theta = default_frequencies(head_dim, base)
    inv_freq, _ = rope_frequencies(head_dim, base, scaling, seq_len=seq_len)
    ratio = inv_freq / theta
    factor = 1.0 if scaling is None else scaling.factor
    tol = 1e-9
    label = np.where(ratio >= 1 - tol, "kept", np.where(ratio <= (1 + tol) / factor, "interpolated", "blended"))
    edges: tuple[float, ...] = ()
    if scaling is not None and scaling.kind == "llama3":
        edges = (scaling.original_max_len / scaling.high_freq_factor, scaling.original_max_len / scaling.low_freq_factor)
    elif scaling is not None and scaling.kind == "yarn":
        low, high = yarn_correction_range(head_dim, base, scaling)
        # $\lambda(i) = 2\pi\,b^{2i/d}$ at the ramp's ends
        edges = tuple(float(2 * np.pi * float(base) ** (2 * i / head_dim)) for i in (low, high))
    return ScalingRegions(ratio=ratio, label=label, wavelength=2 * np.pi / theta, edges=edges)


# ----------------------------------------------------------------------------------------------
# Generated code: each scaling rule as the `frequencies()` function the code page exports
# (core.files.codegen wraps it in the rotation), written with the same float operations as the
# rule above it, so tests/core/files/test_codegen.py finds the same numbers.

_THETA = "theta = 1.0 / {base} ** (np.arange(0, HEAD_DIM, 2, dtype=np.float64) / HEAD_DIM)  # theta_i = base^(-2i / HEAD_DIM)"


class CodeRule(NamedTuple):
    """A frequency rule as code: its words, its constants and the body of `frequencies()`."""

    words: str
    constants: tuple[Constant, ...]
    body: str
    takes_seq_len: bool = False


def _default_code(head_dim: int, scaling: RopeScaling | None) -> CodeRule:
    return CodeRule("no scaling", (), _THETA.format(base="BASE") + "\nreturn theta, 1.0")


def _linear_code(head_dim: int, scaling: RopeScaling) -> CodeRule:
    return CodeRule(
        "linear (position interpolation): theta_i' = theta_i / FACTOR",
        (("FACTOR", scaling.factor, "s: new context over original context"),),
        _THETA.format(base="BASE") + "\nreturn theta / FACTOR, 1.0",
    )


def _ntk_code(head_dim: int, scaling: RopeScaling) -> CodeRule:
    return CodeRule(
        "NTK-aware base change: base' = BASE * FACTOR^(HEAD_DIM / (HEAD_DIM - 2)); the slowest pair is divided by FACTOR, the fastest kept",
        (("FACTOR", float(scaling.factor), "s: new context over original context"), ("NTK_BASE", Expr("BASE * FACTOR ** (HEAD_DIM / (HEAD_DIM - 2))"), "the enlarged base")),
        _THETA.format(base="NTK_BASE") + "\nreturn theta, 1.0",
    )


def _dynamic_code(head_dim: int, scaling: RopeScaling) -> CodeRule:
    constants = (("FACTOR", scaling.factor, "s"), ("ORIGINAL_MAX_LEN", scaling.original_max_len, "L: the context the model was trained on"))
    if head_dim == 2:
        body = "# a single pair turns at 1 radian per position whatever the base: nothing to rescale\n" + _THETA.format(base="BASE") + "\nreturn theta, 1.0"
    else:
        body = """
        n = ORIGINAL_MAX_LEN if seq_len is None else max(seq_len, ORIGINAL_MAX_LEN)
        base = BASE * ((FACTOR * n / ORIGINAL_MAX_LEN) - (FACTOR - 1)) ** (HEAD_DIM / (HEAD_DIM - 2))  # grows past L
        """
        body = textwrap.dedent(body).strip("\n") + "\n" + _THETA.format(base="base") + "\nreturn theta, 1.0"
    return CodeRule(
        "dynamic NTK: for a sequence of n = max(seq_len, L) positions, base' = BASE * (s n / L - (s - 1))^(HEAD_DIM / (HEAD_DIM - 2))",
        constants,
        body,
        takes_seq_len=True,
    )


def _yarn_code(head_dim: int, scaling: RopeScaling) -> CodeRule:
    attention = (
        literal(scaling.attention_factor) if scaling.attention_factor is not None else ("1.0" if scaling.factor <= 1 else "0.1 * math.log(FACTOR) + 1.0")
    )
    rounding = "low, high = math.floor(low), math.ceil(high)  # whole pairs\n    " if scaling.truncate else ""
    body = f'''
    def correction_dim(rotations):
        """The pair index that turns `rotations` times over ORIGINAL_MAX_LEN positions."""
        return HEAD_DIM * math.log(ORIGINAL_MAX_LEN / (rotations * 2 * math.pi)) / (2 * math.log(BASE))

    {_THETA.format(base="BASE")}
    low, high = correction_dim(BETA_FAST), correction_dim(BETA_SLOW)
    {rounding}low, high = max(low, 0), min(high, HEAD_DIM - 1)
    if low == high:
        high += 0.001  # no division by zero
    ramp = np.clip((np.arange(HEAD_DIM // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)  # gamma_i
    keep = 1.0 - ramp
    return (theta / FACTOR) * (1.0 - keep) + theta * keep, ATTENTION_FACTOR
    '''
    return CodeRule(
        "YaRN: pairs turning more than BETA_FAST times over L keep theta_i, fewer than BETA_SLOW times get theta_i / s, a linear ramp between; "
        "cos and sin are multiplied by ATTENTION_FACTOR",
        (
            ("FACTOR", scaling.factor, "s"),
            ("ORIGINAL_MAX_LEN", scaling.original_max_len, "L: the context the model was trained on"),
            ("BETA_FAST", scaling.beta_fast, ""),
            ("BETA_SLOW", scaling.beta_slow, ""),
            ("ATTENTION_FACTOR", Expr(attention), "on cos and sin"),
        ),
        textwrap.dedent(body).replace("\n    \n", "\n\n").strip("\n"),
    )


def _llama3_code(head_dim: int, scaling: RopeScaling) -> CodeRule:
    body = f"""
    {_THETA.format(base="BASE")}
    wavelen = 2 * np.pi / theta
    low_freq_wavelen, high_freq_wavelen = ORIGINAL_MAX_LEN / LOW_FREQ_FACTOR, ORIGINAL_MAX_LEN / HIGH_FREQ_FACTOR
    smooth = (ORIGINAL_MAX_LEN / wavelen - LOW_FREQ_FACTOR) / (HIGH_FREQ_FACTOR - LOW_FREQ_FACTOR)
    inv_freq = np.where(wavelen > low_freq_wavelen, theta / FACTOR, theta)  # long wavelengths interpolated
    is_medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    inv_freq = np.where(is_medium, (1 - smooth) * theta / FACTOR + smooth * theta, inv_freq)  # blended between
    return inv_freq, 1.0
    """
    return CodeRule(
        "Llama 3: wavelengths below L / HIGH_FREQ_FACTOR keep theta_i, above L / LOW_FREQ_FACTOR get theta_i / s, blended smoothly between",
        (
            ("FACTOR", scaling.factor, "s"),
            ("ORIGINAL_MAX_LEN", scaling.original_max_len, "L: the context the model was trained on"),
            ("LOW_FREQ_FACTOR", scaling.low_freq_factor, ""),
            ("HIGH_FREQ_FACTOR", scaling.high_freq_factor, ""),
        ),
        textwrap.dedent(body).strip("\n"),
    )


CODE_RULES: dict[str, Callable[[int, RopeScaling], CodeRule]] = {
    "linear": _linear_code,
    "ntk": _ntk_code,
    "dynamic": _dynamic_code,
    "yarn": _yarn_code,
    "llama3": _llama3_code,
}
PAIR_WORDS = {"half": "dimension i with i + HEAD_DIM/2 (rotate_half: Hugging Face Llama, GPT-NeoX)", "interleaved": "dimension 2i with 2i+1 (RoFormer, Meta's Llama, GPT-J)"}


def source(head_dim: int, base: float, layout: str = "half", scaling: RopeScaling | None = None) -> Formula:
    """RoPE as generated code: the constants and the `frequencies()` function of the scaling rule
    (core.files.codegen wraps them in `rotate` and `RotaryEmbedding`). Settings core refuses
    raise its ValueError."""
    _check_layout(layout)
    rope_frequencies(head_dim, base, scaling)  # the same checks and messages as core
    rule = (_default_code if scaling is None else CODE_RULES[scaling.kind])(head_dim, scaling)
    constants = (("HEAD_DIM", head_dim, "width of one head's queries and keys"), ("BASE", float(base), ""), ("LAYOUT", layout, PAIR_WORDS[layout])) + rule.constants
    arg = "seq_len=None" if rule.takes_seq_len else ""
    frequencies = f'def frequencies({arg}):\n    """theta_i of each pair, (HEAD_DIM // 2,), and the factor on cos and sin."""\n' + textwrap.indent(rule.body, "    ")
    formula = f"""
    Pair i of a query or key at position m turns by the angle m * theta_i, theta_i = BASE^(-2i / HEAD_DIM):
        a' = c (a cos(m theta_i) - b sin(m theta_i)),   b' = c (a sin(m theta_i) + b cos(m theta_i))
    so q.k after rotation depends on the offset between the positions only.
    Pairs: {PAIR_WORDS[layout]}.
    Frequencies: {rule.words}.
    """
    return Formula("Rotary position embedding (RoPE, Su et al. 2021)", formula, constants, torch_class="RotaryEmbedding", shared=frequencies, takes_seq_len=rule.takes_seq_len, rule=rule.words)
