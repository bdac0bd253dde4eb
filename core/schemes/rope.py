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
circle; to run it on longer contexts the frequencies are rescaled, following the Hugging Face
transformers rope types (`src/transformers/modeling_rope_utils.py`, checked against transformers
5.23.0). Each scaling kind is one record, a `ScalingKind` in `SCALING_KINDS` (as transformers keeps
`ROPE_INIT_FUNCTIONS`), written top to bottom in a section of its own below; the rest of the app
reads the record and never names a kind. Partial rotary (only the first dimensions of a head turn):
`rotary_dim`, `rope_frequencies`, `apply_rope`.

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
REGION_LABELS: tuple[str, ...] = ("kept", "blended", "interpolated", "not rotated")
MIN_FACTOR = 1.0  # every kind: a factor below 1 would shrink the context

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


def _check_partial(partial_rotary_factor: float) -> float:
    if not is_finite_number(partial_rotary_factor) or not 0 < partial_rotary_factor <= 1:
        raise ValueError(
            f"partial_rotary_factor must be a number above 0 and at most 1, got {partial_rotary_factor!r}: "
            "it is the fraction of each head's dimensions that rotate (1: all of them)."
        )
    return float(partial_rotary_factor)


def _factor_list(name: str, values: object) -> tuple[float, ...]:
    """A LongRoPE factor list as a tuple of floats (hashable), each finite and above 0."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be a list of numbers, one per rotating pair, got {type(values).__name__}.")
    out = tuple(values)
    if not out:
        raise ValueError(f"{name} must hold one number per rotating pair, got an empty list.")
    if not all(is_finite_number(v) and v > 0 for v in out):
        raise ValueError(f"{name} must hold finite numbers above 0 (each divides one pair's frequency).")
    return tuple(float(v) for v in out)


# ----------------------------------------------------------------------------------------------
# Scaling configuration


@dataclass(frozen=True)
class RopeScaling:
    """How to stretch RoPE beyond the context it was trained on; the `rope_scaling` /
    `rope_parameters` dict of a Hugging Face config as a typed, hashable value.

    kind: one of SCALING_KINDS: "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional";
        its record (`record`) says which fields below it reads and checks them.
    factor: s, the divisor of the frequencies a kind interpolates (linear: every pair; ntk: the
        slowest, through the base; yarn, llama3: the pairs past their band; s = 1 changes nothing).
        Position interpolation picks s as the new context over the original one, but a config need
        not: Llama 3.1 sets 8 with original 8,192 and max_position_embeddings 131,072 (16×). Hugging
        Face derives it as max_position_embeddings / original_max_position_embeddings when a yarn or
        longrope config leaves it out; here it is always given.
    original_max_len: L, the context length the model was trained on; Hugging Face's
        `original_max_position_embeddings` (yarn, llama3, longrope), or `max_position_embeddings` for
        dynamic, which scales against that. "linear", "ntk" and "proportional" do not use it.
    The other fields belong to one kind each, and its section below says what they do.
    """

    kind: str
    factor: float
    original_max_len: int
    beta_fast: float = 32.0  # yarn: 32 and 1 as in the YaRN paper
    beta_slow: float = 1.0
    low_freq_factor: float = 1.0  # llama3: 1 and 4 as in Llama 3.1
    high_freq_factor: float = 4.0
    attention_factor: float | None = None  # yarn, longrope: None means the kind's own rule
    truncate: bool = True  # yarn: as Hugging Face's default (gpt-oss sets False)
    mscale: float | None = None  # yarn (DeepSeek)
    mscale_all_dim: float | None = None
    short_factor: tuple[float, ...] | None = None  # longrope, stored as tuples of floats
    long_factor: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in SCALING_KINDS:
            raise ValueError(f"Unknown RoPE scaling kind {self.kind!r}; choose one of {', '.join(SCALING_KINDS)}.")
        for name in ("factor", "beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor", "attention_factor", "mscale", "mscale_all_dim"):
            value = getattr(self, name)
            if value is not None or name not in ("attention_factor", "mscale", "mscale_all_dim"):
                object.__setattr__(self, name, _check_finite(name, value))
        for name in ("short_factor", "long_factor"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _factor_list(name, getattr(self, name)))
        if self.factor < MIN_FACTOR:
            raise ValueError(f"factor must be at least {MIN_FACTOR:g}, got {self.factor!r}: a scaling factor below 1 would shrink the context.")
        object.__setattr__(self, "original_max_len", whole_number(self.original_max_len, "original_max_len", 1))
        self.record.check(self)  # what this kind's own rule needs

    @property
    def record(self) -> ScalingKind:
        """Everything about this kind: its record in SCALING_KINDS."""
        return SCALING_KINDS[self.kind]


def _default(name: str) -> object:
    """A RopeScaling field's default value (what the pages' controls leave it at)."""
    return next(f.default for f in fields(RopeScaling) if f.name == name)


def _check_attention_factor(scaling: RopeScaling) -> None:
    if scaling.attention_factor is not None and scaling.attention_factor <= 0:
        raise ValueError(f"attention_factor must be above 0, got {scaling.attention_factor!r}.")


# ----------------------------------------------------------------------------------------------
# Frequencies without scaling


def rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    r"""How many dimensions of a head rotate: $r = \lfloor p\,d \rfloor$ (Hugging Face's
    `int(head_dim * partial_rotary_factor)`, GPT-NeoX's `rotary_ndims`). Every scaling rule but
    "proportional" computes its frequencies over r. Raises ValueError when fewer than 2 rotate.
    Returns an int (odd values are possible: head_dim 64 at p = 0.4 gives 25)."""
    head_dim, p = _check_head_dim(head_dim), _check_partial(partial_rotary_factor)
    dim = int(head_dim * p)
    if dim < 2:
        raise ValueError(f"only int({head_dim} × {p:g}) = {dim} dimension(s) would rotate: RoPE needs at least one pair; raise partial_rotary_factor.")
    return dim


def _theta(dim: int, base: float) -> np.ndarray:
    r"""$\theta_i = \text{base}^{-2i/r}$ for $i = 0 \dots \lceil r/2 \rceil - 1$ (Hugging Face's
    `torch.arange(0, dim, 2) / dim`; r may be odd). Returns (ceil(dim / 2),)."""
    # $\theta_i = \text{base}^{-2i/r}$
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def default_frequencies(head_dim: int, base: float = 10_000.0) -> np.ndarray:
    r"""The unscaled RoPE frequencies, $\theta_i = \text{base}^{-2i/d}$ for $i = 0 \dots d/2-1$
    (RoFormer eq. 15; Hugging Face `compute_default_rope_parameters`).

    Returns (head_dim // 2,) radians per position, fastest first ($\theta_0 = 1$).
    """
    head_dim, base = _check_head_dim(head_dim), _check_base(base)
    return _theta(head_dim, base)


def rope_wavelengths(inv_freq: np.ndarray) -> np.ndarray:
    r"""Wavelength of each pair in positions, $\lambda_i = 2\pi / \theta_i$: how far apart two
    positions are when pair i has turned one full circle. Returns (len(inv_freq),)."""
    inv_freq = _as_inv_freq(inv_freq)
    if np.any(inv_freq <= 0):
        raise ValueError("inv_freq must be positive to have a wavelength.")
    return 2.0 * np.pi / inv_freq


# ----------------------------------------------------------------------------------------------
# A scaling kind is one record. Every frequency rule has Hugging Face's signature
# (head_dim, base, scaling, seq_len, partial_rotary_factor) -> (inv_freq, attention_factor); its code
# is the `frequencies()` function the code page exports (core.files.codegen wraps it in the rotation),
# written with the same float operations as the rule, so tests/core/files/test_codegen.py finds the
# same numbers. A rule's code is written over the rotary width `D`: "HEAD_DIM" when every dimension
# rotates, "ROTARY_DIM" (partial rotary).

FrequencyRule = Callable[..., tuple[np.ndarray, float]]  # (head_dim, base, scaling, seq_len, partial_rotary_factor)


class CodeRule(NamedTuple):
    """A frequency rule as code: its words, its constants and the body of `frequencies()`."""

    words: str
    constants: tuple[Constant, ...]
    body: str


CodeTemplate = Callable[[int, RopeScaling, str], CodeRule]  # (rotary width, scaling, D) -> its code
EdgeRule = Callable[[int, float, RopeScaling, float], tuple[float, ...]]  # (head_dim, base, scaling, partial_rotary_factor) -> wavelengths
WordsRule = Callable[[int, float, RopeScaling, int], str]  # (head_dim, base, scaling, seq_len) -> one sentence


def _said(sentence: str) -> WordsRule:
    """Words that need no numbers of the setting."""
    return lambda head_dim, base, scaling, seq_len: sentence


class Controls(NamedTuple):
    """How the pages' controls set a kind: a factor s and an original context L (`ui/rope_controls.py`),
    every other field at its RopeScaling default."""

    words: WordsRule  # what it does, one sentence with the setting's numbers written in (/rope's Scaling tab)
    factor: str  # what s does in this kind (the factor's help)
    left_out: Callable[[RopeScaling], tuple[str, ...]] = lambda scaling: ()  # what of a given scaling the controls cannot hold (/context's links)


@dataclass(frozen=True)
class ScalingKind:
    """One RoPE scaling kind, the one place that knows it.

    name: its `RopeScaling.kind` and its plain name in links and configs ("yarn").
    label: its name on screen ("YaRN").
    frequencies: its rule (FrequencyRule): (inv_freq, attention factor) as Hugging Face computes them.
    code: its rule as generated code (CodeTemplate), the same float operations as `frequencies`.
    reads: the RopeScaling fields its rule reads (a test changes each other field and sees nothing move); every
        kind lists "factor", the s every scaling is defined by, even one whose rule reads it only past a threshold
        (tests/core/schemes/test_rope.py fails on a kind without it).
    check: raises ValueError with a sentence for a RopeScaling its rule cannot take; RopeScaling calls it
        after the checks every kind shares (finite numbers, factor at least 1, a whole original context).
    length_dependent: its frequencies depend on seq_len, so whatever rotates a sequence gets them again
        for that sequence's length (the torch twin, the generated module, /context's short list).
    even_rotary: its rotary width must be even (Hugging Face fails on an odd one).
    turning_proportion: it reads partial_rotary_factor as the proportion of pairs that turn, with a whole
        head's exponents, not as partial rotary; without its factor it keeps that proportion.
    edges: the wavelengths where its regions change (EdgeRule, `scaling_regions`); () for none.
    controls: how the pages' factor and original context set it; None when they cannot (a model preset
        brings it, on /context and under /code's presets).
    reference: the Hugging Face function its rule mirrors, for /rope's sources ("" when none).
    """

    name: str
    label: str
    frequencies: FrequencyRule
    code: CodeTemplate
    reads: tuple[str, ...]
    check: Callable[[RopeScaling], None] = lambda scaling: None  # nothing beyond the checks every kind shares
    length_dependent: bool = False
    even_rotary: bool = False
    turning_proportion: bool = False
    edges: EdgeRule = lambda head_dim, base, scaling, partial_rotary_factor=1.0: ()  # no band edges
    controls: Controls | None = None
    reference: str = ""


_THETA = "theta = 1.0 / {base} ** (np.arange(0, {D}, 2, dtype=np.float64) / {D})  # theta_i = base^(-2i / {D})"
_WRAP = 6  # numbers per line of a written-out factor list


def _number_list(values: tuple[float, ...]) -> Expr:
    """A list of floats as source, _WRAP to a line, that reads back to exactly the same values."""
    rows = [", ".join(literal(v) for v in values[i : i + _WRAP]) for i in range(0, len(values), _WRAP)]
    return Expr("[\n    " + ",\n    ".join(rows) + ",\n]")


def _default_code(dim: int, scaling: RopeScaling | None, D: str) -> CodeRule:
    return CodeRule("no scaling", (), _THETA.format(base="BASE", D=D) + "\nreturn theta, 1.0")


# ----------------------------------------------------------------------------------------------
# linear: position interpolation


def linear_frequencies(
    head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None, partial_rotary_factor: float = 1.0
) -> tuple[np.ndarray, float]:
    r"""Position interpolation (kaiokendev; Chen et al. 2023): $\theta_i' = \theta_i / s$, the same as feeding positions $m / s$
    (Hugging Face `_compute_linear_scaling_rope_parameters`; seq_len is unused).
    Returns ((ceil(r / 2),), attention factor 1.0), r = `rotary_dim`."""
    # $\theta_i' = \theta_i / s$
    return _theta(rotary_dim(head_dim, partial_rotary_factor), base) / scaling.factor, 1.0


def _linear_code(dim: int, scaling: RopeScaling, D: str) -> CodeRule:
    return CodeRule(
        "linear (position interpolation): theta_i' = theta_i / FACTOR",
        (("FACTOR", scaling.factor, "s: every frequency is divided by it"),),
        _THETA.format(base="BASE", D=D) + "\nreturn theta / FACTOR, 1.0",
    )


LINEAR = ScalingKind(
    "linear",
    "linear (position interpolation)",
    linear_frequencies,
    _linear_code,
    reads=("factor",),
    controls=Controls(_said("every frequency is divided by s: positions are squeezed into the original range"), "every pair's frequency is divided by it"),
    reference="_compute_linear_scaling_rope_parameters",
)


# ----------------------------------------------------------------------------------------------
# ntk: the NTK-aware base change, fixed


def _ntk_base(base: float, factor: float, dim: int) -> float:
    r"""The "NTK-aware" base (bloc97, 2023): the exponent d/(d-2) divides the slowest pair, $b^{-(d-2)/d}$,
    by exactly s while the fastest, $\theta_0 = 1$, is untouched."""
    if dim < 4:
        raise ValueError("head_dim must be at least 4 for an NTK-aware base: with a single pair the frequency is 1 whatever the base.")
    # $b' = b\,s^{d/(d-2)}$
    return base * factor ** (dim / (dim - 2))


def ntk_frequencies(
    head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None, partial_rotary_factor: float = 1.0
) -> tuple[np.ndarray, float]:
    r"""The NTK-aware base change as a fixed rule: the default frequencies with the base of
    the NTK-aware base, $\theta_i' = b'^{-2i/r}$, $b' = b\,s^{r/(r-2)}$ (seq_len unused; not a Hugging Face
    rope type: their "dynamic" is the same change made per sequence length). Returns ((ceil(r / 2),), attention factor 1.0)."""
    dim = rotary_dim(head_dim, partial_rotary_factor)
    return _theta(dim, _ntk_base(base, scaling.factor, dim)), 1.0


def _ntk_code(dim: int, scaling: RopeScaling, D: str) -> CodeRule:
    return CodeRule(
        f"NTK-aware base change: base' = BASE * FACTOR^({D} / ({D} - 2)); the slowest pair is divided by FACTOR, the fastest kept",
        (
            ("FACTOR", float(scaling.factor), "s: the slowest pair's frequency is divided by it"),
            ("NTK_BASE", Expr(f"BASE * FACTOR ** ({D} / ({D} - 2))"), "the enlarged base"),
        ),
        _THETA.format(base="NTK_BASE", D=D) + "\nreturn theta, 1.0",
    )


def _ntk_words(head_dim: int, base: float, scaling: RopeScaling, seq_len: int) -> str:
    new_base = _ntk_base(base, scaling.factor, head_dim)  # shown only once core accepted the setting (head_dim >= 4)
    return f"the base becomes {base:,.6g} · s^(d/(d−2)) = {new_base:,.6g}: fast pairs barely change, the slowest is divided by s"


NTK = ScalingKind(
    "ntk",
    "NTK-aware base change",
    ntk_frequencies,
    _ntk_code,
    reads=("factor",),
    controls=Controls(_ntk_words, "the slowest pair's frequency is divided by it, through the base"),
)


# ----------------------------------------------------------------------------------------------
# dynamic: the NTK-aware base change per sequence length


def dynamic_base(head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None, partial_rotary_factor: float = 1.0) -> float:
    r"""The base that dynamic NTK scaling uses for a sequence of seq_len positions
    (Hugging Face `_compute_dynamic_ntk_parameters`), over the rotary width r = `rotary_dim`:

    $$b' = b \left(\frac{s \cdot n}{L} - (s - 1)\right)^{r/(r-2)}, \qquad n = \max(\text{seq\_len}, L),$$

    that is the NTK-aware base for the effective factor $\alpha = 1 + s\,(n/L - 1)$: b' = b up to the
    trained length L (and when seq_len is None), and $\alpha$ grows by s for every further L
    positions (so the slowest pair is divided by exactly s at n = L (2s - 1) / s, not at n = s L).
    r = 2 has one pair whose frequency is 1 whatever the base, so it returns b unchanged
    there (Hugging Face divides by zero). Returns a float.
    """
    dim, base = rotary_dim(head_dim, partial_rotary_factor), _check_base(base)
    original = scaling.original_max_len
    # n = max(seq_len, L): shorter sequences use the trained frequencies
    n = original if seq_len is None else max(whole_number(seq_len, "seq_len", 1), original)
    if dim == 2:
        return base
    # $b' = b\,(s n / L - (s - 1))^{r/(r-2)}$
    return base * ((scaling.factor * n / original) - (scaling.factor - 1)) ** (dim / (dim - 2))


def dynamic_frequencies(
    head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None, partial_rotary_factor: float = 1.0
) -> tuple[np.ndarray, float]:
    r"""Dynamic NTK scaling (bloc97 and emozilla): the default frequencies with the base $b'$ of `dynamic_base`,
    $\theta_i' = b'^{-2i/r}$. Returns ((ceil(r / 2),), attention factor 1.0)."""
    dim = rotary_dim(head_dim, partial_rotary_factor)
    return _theta(dim, dynamic_base(head_dim, base, scaling, seq_len, partial_rotary_factor)), 1.0


def _dynamic_code(dim: int, scaling: RopeScaling, D: str) -> CodeRule:
    constants = (("FACTOR", scaling.factor, "s"), ("ORIGINAL_MAX_LEN", scaling.original_max_len, "L: the context the model was trained on"))
    if dim == 2:
        body = "# a single pair turns at 1 radian per position whatever the base: nothing to rescale\n" + _THETA.format(base="BASE", D=D)
        body += "\nreturn theta, 1.0"
    else:
        body = f"""
        n = ORIGINAL_MAX_LEN if seq_len is None else max(seq_len, ORIGINAL_MAX_LEN)
        base = BASE * ((FACTOR * n / ORIGINAL_MAX_LEN) - (FACTOR - 1)) ** ({D} / ({D} - 2))  # grows past L
        """
        body = textwrap.dedent(body).strip("\n") + "\n" + _THETA.format(base="base", D=D) + "\nreturn theta, 1.0"
    return CodeRule(
        f"dynamic NTK: for a sequence of n = max(seq_len, L) positions, base' = BASE * (s n / L - (s - 1))^({D} / ({D} - 2))",
        constants,
        body,
    )


def _dynamic_words(head_dim: int, base: float, scaling: RopeScaling, seq_len: int) -> str:
    return f"the base grows with the sequence length (here {seq_len:,}), as NTK does, only once it exceeds the original context"


DYNAMIC = ScalingKind(
    "dynamic",
    "dynamic NTK",
    dynamic_frequencies,
    _dynamic_code,
    reads=("factor", "original_max_len"),
    length_dependent=True,
    controls=Controls(_dynamic_words, "the base grows with the sequence length at a rate set by it"),
    reference="_compute_dynamic_ntk_parameters",
)


# ----------------------------------------------------------------------------------------------
# yarn: NTK-by-parts and an attention factor


def _check_yarn(scaling: RopeScaling) -> None:
    _check_attention_factor(scaling)
    if scaling.beta_slow <= 0:
        raise ValueError(f"beta_slow must be above 0, got {scaling.beta_slow!r}: it counts rotations over the original context.")
    if scaling.beta_fast <= scaling.beta_slow:
        raise ValueError(
            f"beta_fast must be greater than beta_slow for yarn, got beta_fast={scaling.beta_fast!r} and beta_slow={scaling.beta_slow!r}: "
            "pairs turning more than beta_fast times are kept, fewer than beta_slow times interpolated."
        )
    for name in ("mscale", "mscale_all_dim"):
        if getattr(scaling, name) is not None and getattr(scaling, name) <= 0:
            raise ValueError(f"{name} must be above 0, got {getattr(scaling, name)!r}: it scales the 0.1 ln(s) term of YaRN's attention factor.")


def yarn_mscale(factor: float, mscale: float = 1.0) -> float:
    r"""YaRN's magnitude term (Hugging Face and DeepSeek `get_mscale`): $0.1\,m \ln s + 1$, and 1 when
    $s \le 1$. Returns a float."""
    # $0.1\,m \ln s + 1$
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0


def yarn_attention_factor(scaling: RopeScaling) -> float:
    r"""YaRN's attention factor on cos and sin (Hugging Face `_compute_yarn_parameters`):

    - the configured attention_factor, if any;
    - else, when both mscale and mscale_all_dim are set (DeepSeek-V3),
      $\text{yarn\_mscale}(s, \text{mscale}) / \text{yarn\_mscale}(s, \text{mscale\_all\_dim})$
      (1 when they are equal: DeepSeek applies the mscale_all_dim term to the softmax scale instead);
    - else $\sqrt{1/t} = 0.1 \ln s + 1$ (YaRN eq. 22; 1 when s <= 1). A lone mscale is ignored.

    Both q and k carry it, so scores scale by its square. Returns a float."""
    if scaling.attention_factor is not None:
        return float(scaling.attention_factor)
    if scaling.mscale is not None and scaling.mscale_all_dim is not None:
        # $\text{yarn\_mscale}(s, m) / \text{yarn\_mscale}(s, m_{all})$
        return yarn_mscale(scaling.factor, scaling.mscale) / yarn_mscale(scaling.factor, scaling.mscale_all_dim)
    # $\sqrt{1/t} = 0.1 \ln s + 1$
    return yarn_mscale(scaling.factor)


def yarn_correction_range(head_dim: int, base: float, scaling: RopeScaling, partial_rotary_factor: float = 1.0) -> tuple[float, float]:
    r"""The pair indices where YaRN's ramp starts and ends (Hugging Face `find_correction_range`).

    A pair that turns r times over the original context L has wavelength L / r; solving
    $2\pi\,b^{2i/d} = L/r$ for i gives `find_correction_dim` (d the rotary width `rotary_dim`),

    $$i(r) = \frac{d \ln\!\big(L / (2\pi r)\big)}{2 \ln b},$$

    low = i(beta_fast), high = i(beta_slow), rounded outwards (floor, ceil) when
    scaling.truncate, then clamped to [0, d - 1] (Hugging Face clamps at d - 1, not d/2 - 1).
    Returns (low, high) as floats.
    """
    dim, base = rotary_dim(head_dim, partial_rotary_factor), _check_base(base)
    original = scaling.original_max_len

    def correction_dim(rotations: float) -> float:
        # $i(r) = d \ln(L / 2\pi r) / (2 \ln b)$
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(scaling.beta_fast), correction_dim(scaling.beta_slow)
    if scaling.truncate:
        low, high = math.floor(low), math.ceil(high)
    return float(max(low, 0)), float(min(high, dim - 1))


def yarn_frequencies(
    head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None, partial_rotary_factor: float = 1.0
) -> tuple[np.ndarray, float]:
    r"""YaRN "NTK-by-parts" (Peng et al. 2023, Hugging Face `_compute_yarn_parameters`; seq_len unused).

    With the ramp $\gamma_i = \text{clip}\big((i - \text{low}) / (\text{high} - \text{low}), 0, 1\big)$
    over the pair index (high gets +0.001 when it equals low),

    $$\theta_i' = \gamma_i\,\frac{\theta_i}{s} + (1 - \gamma_i)\,\theta_i,$$

    so fast pairs (i <= low) keep their frequency and slow pairs (i >= high) are interpolated.
    Returns ((r // 2,), attention factor from `yarn_attention_factor`); r must be even.
    """
    dim = rotary_dim(head_dim, partial_rotary_factor)
    theta = _theta(dim, base)
    low, high = yarn_correction_range(head_dim, base, scaling, partial_rotary_factor)
    if low == high:
        high += 0.001  # Hugging Face: prevent a division by zero
    # $\gamma_i = \text{clip}((i - \text{low}) / (\text{high} - \text{low}), 0, 1)$
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    keep = 1.0 - ramp  # Hugging Face's inv_freq_extrapolation_factor
    # $\theta_i' = \gamma_i\,\theta_i / s + (1 - \gamma_i)\,\theta_i$
    inv_freq = (theta / scaling.factor) * (1.0 - keep) + theta * keep
    return inv_freq, yarn_attention_factor(scaling)


def _yarn_code(dim: int, scaling: RopeScaling, D: str) -> CodeRule:
    mscales: tuple[Constant, ...] = ()
    if scaling.attention_factor is not None:
        attention = literal(scaling.attention_factor)
    elif scaling.factor <= 1:
        attention = "1.0"
    elif scaling.mscale is not None and scaling.mscale_all_dim is not None:
        attention = "(0.1 * MSCALE * math.log(FACTOR) + 1.0) / (0.1 * MSCALE_ALL_DIM * math.log(FACTOR) + 1.0)"
        mscales = (("MSCALE", scaling.mscale, ""), ("MSCALE_ALL_DIM", scaling.mscale_all_dim, "DeepSeek: the ratio of the two mscale terms"))
    else:
        attention = "0.1 * math.log(FACTOR) + 1.0"
    rounding = "low, high = math.floor(low), math.ceil(high)  # whole pairs\n    " if scaling.truncate else ""
    body = f'''
    def correction_dim(rotations):
        """The pair index that turns `rotations` times over ORIGINAL_MAX_LEN positions."""
        return {D} * math.log(ORIGINAL_MAX_LEN / (rotations * 2 * math.pi)) / (2 * math.log(BASE))

    {_THETA.format(base="BASE", D=D)}
    low, high = correction_dim(BETA_FAST), correction_dim(BETA_SLOW)
    {rounding}low, high = max(low, 0), min(high, {D} - 1)
    if low == high:
        high += 0.001  # no division by zero
    ramp = np.clip((np.arange({D} // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)  # gamma_i
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
        )
        + mscales
        + (("ATTENTION_FACTOR", Expr(attention), "on cos and sin"),),
        textwrap.dedent(body).replace("\n    \n", "\n\n").strip("\n"),
    )


def _yarn_edges(head_dim: int, base: float, scaling: RopeScaling, partial_rotary_factor: float = 1.0) -> tuple[float, ...]:
    r"""The wavelengths of the pairs low and high of `yarn_correction_range` (L / beta_fast and L / beta_slow
    before truncation and clamping): $\lambda(i) = 2\pi\,b^{2i/r}$ at the ramp's ends."""
    dim = rotary_dim(head_dim, partial_rotary_factor)
    low, high = yarn_correction_range(head_dim, base, scaling, partial_rotary_factor)
    return tuple(float(2 * np.pi * float(base) ** (2 * i / dim)) for i in (low, high))


def _yarn_left_out(scaling: RopeScaling) -> tuple[str, ...]:
    out = []
    if not scaling.truncate:
        out.append("truncate=False (the pages round the ramp's ends)")
    if (scaling.beta_fast, scaling.beta_slow) != (_default("beta_fast"), _default("beta_slow")):
        out.append(f"beta_fast {scaling.beta_fast:g} and beta_slow {scaling.beta_slow:g}")
    if scaling.attention_factor is not None or (scaling.mscale is not None and scaling.mscale_all_dim is not None):
        out.append(f"the attention factor {yarn_attention_factor(scaling):.4g} (the pages use 0.1 ln s + 1)")
    return tuple(out)


YARN = ScalingKind(
    "yarn",
    "YaRN",
    yarn_frequencies,
    _yarn_code,
    reads=("factor", "original_max_len", "beta_fast", "beta_slow", "truncate", "attention_factor", "mscale", "mscale_all_dim"),
    check=_check_yarn,
    even_rotary=True,
    edges=_yarn_edges,
    controls=Controls(
        _said("fast pairs are kept, slow ones divided by s, a linear ramp in between; cos and sin are multiplied by an attention factor"),
        "the pairs past the ramp are divided by it, and it sets the attention factor",
        _yarn_left_out,
    ),
    reference="_compute_yarn_parameters",
)


# ----------------------------------------------------------------------------------------------
# llama3: bands by wavelength, a smooth blend between


def _check_llama3(scaling: RopeScaling) -> None:
    if scaling.low_freq_factor <= 0:
        raise ValueError(f"low_freq_factor must be above 0, got {scaling.low_freq_factor!r}: the band edge is original_max_len / low_freq_factor.")
    if scaling.low_freq_factor >= scaling.high_freq_factor:
        raise ValueError(
            f"low_freq_factor must be below high_freq_factor for llama3, got {scaling.low_freq_factor!r} and {scaling.high_freq_factor!r}: "
            "together they set the band of wavelengths that is blended."
        )


def llama3_frequencies(
    head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None, partial_rotary_factor: float = 1.0
) -> tuple[np.ndarray, float]:
    r"""Llama 3.1's frequency scaling (Meta's `apply_scaling`, Hugging Face `_compute_llama3_parameters`;
    seq_len unused). With wavelength $\lambda_i = 2\pi/\theta_i$ and bands
    $\lambda_{hi} = L / \text{high\_freq\_factor}$, $\lambda_{lo} = L / \text{low\_freq\_factor}$:

    $$\theta_i' = \begin{cases} \theta_i & \lambda_i < \lambda_{hi} \\ \theta_i / s & \lambda_i > \lambda_{lo} \\
    (1 - g_i)\,\theta_i / s + g_i\,\theta_i & \text{otherwise}, \end{cases} \qquad
    g_i = \frac{L/\lambda_i - \text{low\_freq\_factor}}{\text{high\_freq\_factor} - \text{low\_freq\_factor}}.$$

    Returns ((ceil(r / 2),), attention factor 1.0).
    """
    theta = _theta(rotary_dim(head_dim, partial_rotary_factor), base)
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


def _llama3_code(dim: int, scaling: RopeScaling, D: str) -> CodeRule:
    body = f"""
    {_THETA.format(base="BASE", D=D)}
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


def _llama3_edges(head_dim: int, base: float, scaling: RopeScaling, partial_rotary_factor: float = 1.0) -> tuple[float, ...]:
    """The band's edges: L / high_freq_factor and L / low_freq_factor."""
    return (scaling.original_max_len / scaling.high_freq_factor, scaling.original_max_len / scaling.low_freq_factor)


def _llama3_words(head_dim: int, base: float, scaling: RopeScaling, seq_len: int) -> str:
    low, high = scaling.low_freq_factor, scaling.high_freq_factor
    return f"wavelengths below original/{high:g} are kept, above original/{low:g} divided by s, and the band between is blended smoothly"


def _llama3_left_out(scaling: RopeScaling) -> tuple[str, ...]:
    if (scaling.low_freq_factor, scaling.high_freq_factor) != (_default("low_freq_factor"), _default("high_freq_factor")):
        return ("low_freq_factor and high_freq_factor",)
    return ()


LLAMA3 = ScalingKind(
    "llama3",
    "Llama 3",
    llama3_frequencies,
    _llama3_code,
    reads=("factor", "original_max_len", "low_freq_factor", "high_freq_factor"),
    check=_check_llama3,
    edges=_llama3_edges,
    controls=Controls(_llama3_words, "the pairs past the band are divided by it", _llama3_left_out),
    reference="_compute_llama3_parameters",
)


# ----------------------------------------------------------------------------------------------
# longrope: a searched factor per pair, a short and a long list


def _check_longrope(scaling: RopeScaling) -> None:
    _check_attention_factor(scaling)
    if scaling.short_factor is None or scaling.long_factor is None:
        raise ValueError(
            "longrope needs both short_factor and long_factor: one divisor per rotating pair, "
            "the short list used up to original_max_len positions and the long list beyond."
        )
    if len(scaling.short_factor) != len(scaling.long_factor):
        raise ValueError(
            f"short_factor and long_factor must have the same length (one per rotating pair), got {len(scaling.short_factor)} and {len(scaling.long_factor)}."
        )


def longrope_attention_factor(scaling: RopeScaling) -> float:
    r"""LongRoPE's attention factor on cos and sin (Hugging Face `_compute_longrope_parameters`): the
    configured one, else

    $$c = \sqrt{1 + \frac{\ln s}{\ln L}}$$

    (1 when s <= 1). The same factor serves the short and the long list. Returns a float."""
    if scaling.attention_factor is not None:
        return float(scaling.attention_factor)
    if scaling.factor <= 1:
        return 1.0
    # $c = \sqrt{1 + \ln s / \ln L}$
    return math.sqrt(1 + math.log(scaling.factor) / math.log(scaling.original_max_len))


def longrope_frequencies(
    head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None, partial_rotary_factor: float = 1.0
) -> tuple[np.ndarray, float]:
    r"""LongRoPE (Ding et al. 2024; Phi-3's "su"; Hugging Face `_compute_longrope_parameters`): each pair
    divided by its own searched factor $\lambda_i$,

    $$\theta_i' = \frac{1}{\lambda_i\,\text{base}^{2i/r}}, \qquad
    \lambda = \begin{cases} \text{long\_factor} & \text{seq\_len} > L \\ \text{short\_factor} & \text{otherwise (or seq\_len None)}. \end{cases}$$

    Hugging Face's forward switches the whole sequence to the long list as soon as
    max(position_ids) + 1 > L, i.e. from seq_len = L + 1 on. Both lists must have r / 2 entries
    (r even). Returns ((r // 2,), `longrope_attention_factor`).
    """
    dim = rotary_dim(head_dim, partial_rotary_factor)
    for name in ("short_factor", "long_factor"):
        if len(getattr(scaling, name)) != dim // 2:
            raise ValueError(
                f"longrope needs one factor per rotating pair: {dim // 2} for a rotary width of {dim}, "
                f"but {name} has {len(getattr(scaling, name))} entries."
            )
    chosen = scaling.long_factor if seq_len is not None and seq_len > scaling.original_max_len else scaling.short_factor
    ext = np.asarray(chosen, dtype=np.float64)
    # $\theta_i' = 1 / (\lambda_i\,\text{base}^{2i/r})$
    return 1.0 / (ext * base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)), longrope_attention_factor(scaling)


def _longrope_code(dim: int, scaling: RopeScaling, D: str) -> CodeRule:
    if scaling.attention_factor is not None:
        attention = literal(scaling.attention_factor)
    else:
        attention = "1.0" if scaling.factor <= 1 else "math.sqrt(1 + math.log(FACTOR) / math.log(ORIGINAL_MAX_LEN))"
    body = f"""
    chosen = LONG_FACTOR if seq_len is not None and seq_len > ORIGINAL_MAX_LEN else SHORT_FACTOR  # the whole sequence switches
    ext = np.asarray(chosen, dtype=np.float64)
    return 1.0 / (ext * BASE ** (np.arange(0, {D}, 2, dtype=np.float64) / {D})), ATTENTION_FACTOR
    """
    return CodeRule(
        "LongRoPE: pair i divided by its own factor, SHORT_FACTOR[i] while the sequence fits in L = ORIGINAL_MAX_LEN positions, "
        "LONG_FACTOR[i] once it is longer; cos and sin are multiplied by ATTENTION_FACTOR",
        (
            (
                "FACTOR",
                scaling.factor,
                "s: unused here, the config gives the attention factor" if scaling.attention_factor is not None else "s: sets ATTENTION_FACTOR below",
            ),
            ("ORIGINAL_MAX_LEN", scaling.original_max_len, "L: the context the model was trained on"),
            ("SHORT_FACTOR", _number_list(scaling.short_factor or ()), "one divisor per pair, up to L positions"),
            ("LONG_FACTOR", _number_list(scaling.long_factor or ()), "one divisor per pair, past L positions"),
            ("ATTENTION_FACTOR", Expr(attention), "on cos and sin, for both lists"),
        ),
        textwrap.dedent(body).strip("\n"),
    )


LONGROPE = ScalingKind(
    "longrope",
    "LongRoPE",
    longrope_frequencies,
    _longrope_code,
    reads=("factor", "original_max_len", "short_factor", "long_factor", "attention_factor"),
    check=_check_longrope,
    length_dependent=True,
    even_rotary=True,
    reference="_compute_longrope_parameters",
)


# ----------------------------------------------------------------------------------------------
# proportional: a proportion of the pairs turn, with a whole head's exponents


def proportional_frequencies(
    head_dim: int, base: float, scaling: RopeScaling, seq_len: int | None = None, partial_rotary_factor: float = 1.0
) -> tuple[np.ndarray, float]:
    r"""Proportional RoPE (Gemma 4's global layers; Hugging Face `_compute_proportional_rope_parameters`;
    seq_len unused): the first $k = \lfloor p\,d / 2 \rfloor$ pairs turn with the exponents of the
    whole head, the rest have frequency 0 (they never turn: "NoPE" dimensions), all divided by s:

    $$\theta_i' = \begin{cases} \text{base}^{-2i/d} / s & i < k \\ 0 & k \le i < d/2. \end{cases}$$

    Unlike partial rotary, the turning pairs keep the frequencies they would have in a full
    head (the slowest is $\text{base}^{-2(k-1)/d}$, not $\text{base}^{-(r-2)/r}$).
    Returns ((head_dim // 2,), attention factor 1.0).
    """
    p = _check_partial(partial_rotary_factor)
    # k = int(p d // 2), Hugging Face's rope_angles
    turning = int(p * head_dim // 2)
    inv_freq = np.zeros(head_dim // 2)
    # $\theta_i' = \text{base}^{-2i/d} / s$ for the first k pairs
    inv_freq[:turning] = 1.0 / base ** (np.arange(0, 2 * turning, 2, dtype=np.float64) / head_dim) / scaling.factor
    return inv_freq, 1.0


def _proportional_code(dim: int, scaling: RopeScaling, D: str) -> CodeRule:
    body = """
    turning = int(PARTIAL_ROTARY_FACTOR * HEAD_DIM // 2)  # pairs that turn; the rest have frequency 0
    inv_freq = np.zeros(HEAD_DIM // 2)
    inv_freq[:turning] = 1.0 / BASE ** (np.arange(0, 2 * turning, 2, dtype=np.float64) / HEAD_DIM) / FACTOR
    return inv_freq, 1.0
    """
    return CodeRule(
        "proportional: the first int(PARTIAL_ROTARY_FACTOR * HEAD_DIM // 2) pairs keep theta_i = BASE^(-2i / HEAD_DIM) / FACTOR, "
        "the others get frequency 0 and never turn",
        (("FACTOR", scaling.factor, "s: every turning frequency is divided by it"),),
        textwrap.dedent(body).strip("\n"),
    )


PROPORTIONAL = ScalingKind(
    "proportional",
    "proportional",
    proportional_frequencies,
    _proportional_code,
    reads=("factor",),
    turning_proportion=True,
    reference="_compute_proportional_rope_parameters",
)


# ----------------------------------------------------------------------------------------------
# The registry of kinds, and the frequencies of any of them

SCALING_KINDS: dict[str, ScalingKind] = {kind.name: kind for kind in (LINEAR, NTK, DYNAMIC, YARN, LLAMA3, LONGROPE, PROPORTIONAL)}


def rope_frequencies(
    head_dim: int, base: float = 10_000.0, scaling: RopeScaling | None = None, *, seq_len: int | None = None, partial_rotary_factor: float = 1.0
) -> tuple[np.ndarray, float]:
    r"""The frequencies $\theta_i$ of every turning pair and the attention factor that multiplies cos
    and sin, as Hugging Face transformers computes them for rope type `scaling.kind` ("default"
    when scaling is None): the rule of the kind's record. seq_len (the current sequence length,
    Hugging Face's max(position_ids) + 1) matters only for a `length_dependent` kind.

    partial_rotary_factor p (GPT-NeoX / Pythia 0.25, Phi-2 0.4): only the first r = int(head_dim · p)
    dimensions rotate (`rotary_dim`), with frequencies over r; a kind with `turning_proportion` reads p
    as its proportion of turning pairs instead. Hugging Face returns ceil(r / 2) frequencies (r / 2 for
    an `even_rotary` kind, which refuses an odd r), and `apply_rope` turns the first 2 · len(inv_freq)
    dimensions and leaves the others as they are (GPT-NeoX's `rotary_dim = cos.shape[-1]`).

    Returns (inv_freq, attention_factor).
    """
    head_dim, base = _check_head_dim(head_dim), _check_base(base)
    p = _check_partial(partial_rotary_factor)
    if seq_len is not None:
        seq_len = whole_number(seq_len, "seq_len", 1)
    if scaling is not None and not isinstance(scaling, RopeScaling):
        raise ValueError(f"scaling must be a RopeScaling or None, got {type(scaling).__name__}.")
    if scaling is None:
        return _theta(rotary_dim(head_dim, p), base), 1.0
    record = scaling.record
    if record.turning_proportion:  # p is its proportion of turning pairs, not a rotary width
        return record.frequencies(head_dim, base, scaling, seq_len, p)
    dim = rotary_dim(head_dim, p)
    if record.even_rotary and dim % 2:
        raise ValueError(
            f"{scaling.kind} needs an even number of rotating dimensions, but int({head_dim} × {p:g}) = {dim} is odd: "
            "its per-pair rule has r // 2 entries for ceil(r / 2) frequencies (Hugging Face fails here too)."
        )
    return record.frequencies(head_dim, base, scaling, seq_len, p)


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


def pair_members(x: np.ndarray, layout: str, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The two members (a, b) of each of the first n pairs along the last axis (all d/2 when n is
    None): "half" pairs i with i + n, "interleaved" 2i with 2i + 1, both within the first 2n
    dimensions. Views, (..., n) each."""
    n = x.shape[-1] // 2 if n is None else n
    if layout == "half":
        return x[..., :n], x[..., n : 2 * n]
    return x[..., 0 : 2 * n : 2], x[..., 1 : 2 * n : 2]


def apply_rope(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray, *, layout: Layout = "half", attention_factor: float = 1.0) -> np.ndarray:
    r"""Rotate every row of x by its position: pair (a, b) of the row at position m becomes

    $$a' = c\,(a \cos m\theta_i - b \sin m\theta_i), \qquad b' = c\,(a \sin m\theta_i + b \cos m\theta_i)$$

    with c the attention factor. For layout "half" this is Hugging Face Llama's
    `q * cos + rotate_half(q) * sin` with cos = cat(freqs, freqs) * c; for "interleaved" it is
    GPT-J's `rotate_every_two` (and Meta Llama's complex product $(a + ib)\,e^{im\theta_i}$).

    Partial rotary: with n = len(inv_freq) < d/2 only the first 2n dimensions rotate ("half":
    i with i + n; "interleaved": 2i with 2i + 1, i < n), as GPT-NeoX's `apply_rotary_pos_emb` does
    with `rotary_dim = cos.shape[-1]`; dimensions 2n .. d-1 are returned unchanged (not scaled by c).
    A pair with frequency 0 ("proportional") is not turned either, but is scaled by c.

    x: (L, d) or (..., L, d) with d >= 2 n; positions: (L,), any real numbers; inv_freq: (n,).
    Returns float64 of the same shape as x.
    """
    _check_layout(layout)
    x = np.asarray(x, dtype=np.float64)
    inv_freq = _as_inv_freq(inv_freq)
    pos = _as_positions(positions)
    attention_factor = _check_finite("attention_factor", attention_factor)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (L, d) or (..., L, d), got shape {x.shape}.")
    n = inv_freq.size
    if x.shape[-1] < 2 * n:
        raise ValueError(
            f"x has {x.shape[-1]} dimensions but inv_freq has {n} pairs; RoPE needs d = 2 * len(inv_freq) or more "
            "(dimensions past the first 2 * len(inv_freq) pass through unrotated)."
        )
    if x.shape[-2] != pos.size:
        raise ValueError(f"x has {x.shape[-2]} positions (rows) but {pos.size} positions were given.")
    a, b = pair_members(x, layout, n)
    out = np.empty(x.shape, dtype=np.float64)
    out[..., 2 * n :] = x[..., 2 * n :]  # partial rotary: the rest passes through
    out_a, out_b = pair_members(out, layout, n)
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

    $$(R_m q)\cdot(R_n k) = c^2 \sum_i \big[(q_a k_a + q_b k_b)\cos\delta\theta_i + (q_a k_b - q_b k_a)\sin\delta\theta_i\big]
    + \sum_{j \ge 2n} q_j k_j,$$

    the last sum over the dimensions that do not rotate (partial rotary; none when d = 2n).

    The bracket is linear in the products, so the mean over rows is taken on the coefficients
    first; the cost is (n, d/2) whatever the number of rows. For q = k = all ones it is
    $\sum_i 2\cos\delta\theta_i$, RoFormer's long-distance decay curve; for random q = k the mean
    shows how the expected score falls with distance.

    q, k: (d,) or (B, d), broadcast together, d >= 2 len(inv_freq); offsets: (n,). Returns (n,).
    """
    _check_layout(layout)
    q, k = np.broadcast_arrays(np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64))
    inv_freq = _as_inv_freq(inv_freq)
    offsets = _as_positions(offsets, "offsets")
    attention_factor = _check_finite("attention_factor", attention_factor)
    n = inv_freq.size
    if q.ndim not in (1, 2) or q.shape[-1] < 2 * n:
        raise ValueError(f"q and k must have shape (d,) or (B, d) with d = 2 * len(inv_freq) = {2 * n} or more, got {q.shape}.")
    qa, qb = pair_members(q, layout, n)
    ka, kb = pair_members(k, layout, n)
    cos_coef = (qa * ka + qb * kb).reshape(-1, n).mean(axis=0)  # (n,)
    sin_coef = (qa * kb - qb * ka).reshape(-1, n).mean(axis=0)  # (n,)
    still = float((q[..., 2 * n :] * k[..., 2 * n :]).reshape(-1, q.shape[-1] - 2 * n).sum(axis=1).mean()) if q.shape[-1] > 2 * n else 0.0
    out = np.empty(offsets.size)
    for rows in _blocks(offsets.size, n):
        angle = offsets[rows, None] * inv_freq[None, :]  # (block, n)
        # $c^2 \sum_i [A_i \cos\delta\theta_i + B_i \sin\delta\theta_i] + \sum_{j \ge 2n} q_j k_j$
        out[rows] = attention_factor**2 * (np.cos(angle) @ cos_coef + np.sin(angle) @ sin_coef) + still
    return out


# ----------------------------------------------------------------------------------------------
# Which pairs a scaling interpolates


class ScalingRegions(NamedTuple):
    """What a scaling does to each turning pair (see `scaling_regions`)."""

    ratio: np.ndarray  # (n,) new inv_freq / old inv_freq: 1 kept, 1/s interpolated, 0 never turns
    label: np.ndarray  # (n,) str, one of REGION_LABELS: "kept", "blended", "interpolated", "not rotated"
    wavelength: np.ndarray  # (n,) unscaled wavelength 2*pi/theta_i, in positions
    edges: tuple[float, ...]  # wavelengths (positions) where the rule changes; () if none


def scaling_regions(
    head_dim: int, base: float = 10_000.0, scaling: RopeScaling | None = None, *, seq_len: int | None = None, partial_rotary_factor: float = 1.0
) -> ScalingRegions:
    r"""Per pair, the ratio $\theta_i'/\theta_i$ of scaled to unscaled frequency, and a label:

    - "kept": ratio 1, the pair extrapolates with its trained frequency;
    - "interpolated": ratio at most 1/s, divided by at least the factor (dynamic divides the slowest
      pairs by more than s once its effective factor, see `dynamic_base`, exceeds s; a LongRoPE list
      may hold divisors above s);
    - "blended": any other ratio (in between, for every kind but LongRoPE, whose divisors are free);
    - "not rotated": ratio 0, a "proportional" pair that never turns.

    The unscaled frequencies are those of the same rotary width (`rotary_dim`), or of the whole head
    for a kind with `turning_proportion` ("proportional"). Ratios are compared with a relative
    tolerance of 1e-9. `edges` are the wavelengths where the label changes, the `edges` of the kind's
    record. For a `length_dependent` kind the ratio depends on seq_len.
    Returns a ScalingRegions of (len(inv_freq),) arrays, as `rope_frequencies` returns them.
    """
    inv_freq, _ = rope_frequencies(head_dim, base, scaling, seq_len=seq_len, partial_rotary_factor=partial_rotary_factor)
    whole = scaling is not None and scaling.record.turning_proportion
    dim = head_dim if whole else rotary_dim(head_dim, partial_rotary_factor)
    theta = _theta(dim, float(base))
    ratio = inv_freq / theta
    factor = 1.0 if scaling is None else scaling.factor
    tol = 1e-9
    label = np.where(
        ratio == 0, "not rotated", np.where(np.abs(ratio - 1) <= tol, "kept", np.where(ratio <= (1 + tol) / factor, "interpolated", "blended"))
    )
    edges = () if scaling is None else scaling.record.edges(head_dim, float(base), scaling, partial_rotary_factor)
    return ScalingRegions(ratio=ratio, label=label, wavelength=2 * np.pi / theta, edges=edges)


# ----------------------------------------------------------------------------------------------
# Generated code: the constants and `frequencies()` of a setting (core.files.codegen wraps them)


PAIR_WORDS = {
    "half": "dimension i with i + HEAD_DIM/2 (rotate_half: Hugging Face Llama, GPT-NeoX)",
    "interleaved": "dimension 2i with 2i+1 (RoFormer, Meta's Llama, GPT-J)",
}
PARTIAL_PAIR_WORDS = {
    "half": "dimension i with i + n for the n turning pairs (GPT-NeoX's rotate_half on the first 2n dimensions)",
    "interleaved": "dimension 2i with 2i+1 for the n turning pairs",
}


def source(head_dim: int, base: float, layout: str = "half", scaling: RopeScaling | None = None, partial_rotary_factor: float = 1.0) -> Formula:
    """RoPE as generated code: the constants and the `frequencies()` function of the scaling rule
    (core.files.codegen wraps them in `rotate` and `RotaryEmbedding`): the `code` of the kind's record.
    With partial rotary (p < 1, any kind but one with `turning_proportion`) the constants gain PARTIAL_ROTARY_FACTOR and ROTARY_DIM, the rule
    is written over ROTARY_DIM, and the rotation turns the first 2 n dimensions only (n frequencies).
    Settings core refuses raise its ValueError."""
    _check_layout(layout)
    rope_frequencies(head_dim, base, scaling, partial_rotary_factor=partial_rotary_factor)  # the same checks and messages as core
    p = float(partial_rotary_factor)
    record = None if scaling is None else scaling.record
    proportion = record is not None and record.turning_proportion  # p is the proportion of turning pairs
    partial = p < 1 and not proportion
    D = "ROTARY_DIM" if partial else "HEAD_DIM"
    dim = rotary_dim(head_dim, p) if partial else head_dim
    rule = _default_code(dim, scaling, D) if record is None else record.code(dim, scaling, D)
    takes_seq_len = record is not None and record.length_dependent
    constants: tuple[Constant, ...] = (
        ("HEAD_DIM", head_dim, "width of one head's queries and keys"),
        ("BASE", float(base), ""),
        ("LAYOUT", layout, PAIR_WORDS[layout]),
    )
    if partial:
        constants += (
            ("PARTIAL_ROTARY_FACTOR", p, "the fraction of each head's dimensions that rotate"),
            ("ROTARY_DIM", Expr("int(HEAD_DIM * PARTIAL_ROTARY_FACTOR)"), "the first dimensions turn, the rest pass through unchanged"),
        )
    elif proportion:
        constants += (("PARTIAL_ROTARY_FACTOR", p, "the proportion of pairs that turn"),)
    constants += rule.constants
    arg = "seq_len=None" if takes_seq_len else ""
    frequencies = f'def frequencies({arg}):\n    """theta_i of each turning pair, and the factor on cos and sin."""\n' + textwrap.indent(rule.body, "    ")
    pairs = PARTIAL_PAIR_WORDS[layout] if partial else PAIR_WORDS[layout]
    extent = (
        f"\n    Partial rotary (GPT-NeoX, Phi): only the first ROTARY_DIM = int(HEAD_DIM * PARTIAL_ROTARY_FACTOR) = {dim} dimensions rotate, with "
        f"theta_i = BASE^(-2i / ROTARY_DIM); the other {head_dim - 2 * ((dim + 1) // 2)} pass through unchanged."
        if partial
        else ""
    )
    formula = f"""
    Pair i of a query or key at position m turns by the angle m * theta_i, theta_i = BASE^(-2i / HEAD_DIM):
        a' = c (a cos(m theta_i) - b sin(m theta_i)),   b' = c (a sin(m theta_i) + b cos(m theta_i))
    so q.k after rotation depends on the offset between the positions only.{extent}
    Pairs: {pairs}.
    Frequencies: {rule.words}.
    """
    title = "Rotary position embedding (RoPE, Su et al. 2021)"
    return Formula(title, formula, constants, torch_class="RotaryEmbedding", shared=frequencies, takes_seq_len=takes_seq_len, rule=rule.words)
