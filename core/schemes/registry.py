"""The registry of positional-encoding schemes: the single source of truth for pickers.

Pages and models apply a scheme through its three hooks, never through if/elif chains over
names, so a new scheme is one module plus one entry here:

- `input_code(positions, setting) -> (L, width)`: added to the token vectors ("added"
  schemes: naive codes, the sinusoids, a learned table); zeros for the others;
- `rotate(x, positions, setting) -> x` applied to queries and keys of every head ("rotary");
  the identity for the others;
- `score_bias(q_pos, k_pos, setting, q=None) -> (H, Lq, Lk)` added to the attention scores
  ("bias": ALiBi, T5, Shaw); zeros for the others. Shaw's term depends on the query vector,
  so it takes `q` (H, Lq, head_dim); without it a fixed unit query stands in.

A model that calls all three hooks runs every scheme the way it is really used.
`max_position(setting)` is the first position a scheme has no code for (a learned or one-hot
table ends; None = any position), and `parameters(setting)` counts what a model would learn.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from core.schemes import alibi, learned, naive, relative, rope
from core.schemes.sinusoidal import sinusoidal_encoding, t2t_timing_signal

ADDED, ROTARY, BIAS, NOTHING = "added to the input", "rotating queries and keys", "a bias on the attention scores", "nothing is added"
SHAW_CLIP = 16  # Shaw et al. found clipping distances of 16 and beyond performed alike
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128  # T5's defaults


@dataclass(frozen=True)
class Setting:
    """The numbers a scheme needs. `train_len` is the length a model (or a table) was built
    for: the sidebar's max_len. `width` is d_model for added schemes and the head width for
    rotary ones; `n_heads` matters for bias schemes; `seed` draws initial tables."""

    width: int
    base: float = 10_000.0
    train_len: int = 256
    n_heads: int = 8
    seed: int = 0

    def __post_init__(self) -> None:
        for name, words in (("width", "The width"), ("train_len", "The training length"), ("n_heads", "The number of heads"), ("seed", "The seed"), ("base", "The base")):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
                kind = "a number above 1" if name == "base" else "a whole number"
                raise ValueError(f"{words} must be {kind}, got {value!r}.")
        if self.base <= 1:
            raise ValueError(f"The base must be above 1, got {self.base!r}.")
        if int(self.seed) != self.seed or self.seed < 0:
            raise ValueError(f"The seed must be a whole number of at least 0, got {self.seed!r}.")
        if int(self.width) != self.width or self.width < 1:
            raise ValueError(f"The width must be a whole number of at least 1, got {self.width!r}.")
        if int(self.train_len) != self.train_len or self.train_len < 1:
            raise ValueError(f"The training length must be a whole number of at least 1, got {self.train_len!r}.")
        if int(self.n_heads) != self.n_heads or self.n_heads < 1:
            raise ValueError(f"The number of heads must be a whole number of at least 1, got {self.n_heads!r}.")

    @property
    def head_width(self) -> int:
        """Width of one head when `width` is split over `n_heads` (at least 1)."""
        return max(1, self.width // self.n_heads)


@dataclass(frozen=True)
class Positions:
    """How positions enter one attention call, in the three ways models use:
    `added` (T, d) to the inputs; `rotate` applied to the queries and the keys of every head,
    (H, T, head_dim) -> same; `bias` computed from the queries, (H, T, head_dim) -> (H, T, T),
    added to the scores (most biases ignore the queries; Shaw's uses them). None = not used.
    `core.schemes.registry.Scheme.attention_positions` builds one for any registered scheme."""

    added: np.ndarray | None = None
    rotate: Callable[[np.ndarray], np.ndarray] | None = None
    bias: Callable[[np.ndarray], np.ndarray] | None = None

    def inputs(self, x: np.ndarray) -> np.ndarray:
        """x + the added part (x itself when nothing is added). Returns (T, d)."""
        return x if self.added is None else x + self.added

    @property
    def added_norm(self) -> np.ndarray | None:
        """Norm of the added part per token, (T,), or None."""
        return None if self.added is None else np.linalg.norm(self.added, axis=1)



def _positions(positions) -> np.ndarray:
    return np.asarray(positions, dtype=np.float64).reshape(-1)


@dataclass(frozen=True)
class Scheme:
    """One positional encoding. `family` groups pickers; `summary` is one sentence for pages."""

    name: str
    label: str
    family: str
    applied: str
    summary: str
    encode: Callable[[np.ndarray, Setting], np.ndarray] | None = None
    rotation: Callable[[np.ndarray, np.ndarray, Setting], np.ndarray] | None = None
    bias: Callable[[np.ndarray, np.ndarray, Setting, np.ndarray | None], np.ndarray] | None = None
    table_rows: Callable[[Setting], int | None] = lambda s: None
    count: Callable[[Setting], int] = lambda s: 0
    carries_position: bool = True

    def max_position(self, setting: Setting) -> int | None:
        """First position without a code (positions >= this are refused), or None."""
        return self.table_rows(setting)

    def parameters(self, setting: Setting) -> int:
        """Trainable numbers a model with this scheme learns for positions."""
        return int(self.count(setting))

    def _check_positions(self, pos: np.ndarray, setting: Setting) -> None:
        rows = self.max_position(setting)
        if rows is not None and pos.size and pos.max() >= rows:
            raise ValueError(f"{self.label} has codes for positions 0 to {rows - 1:,} only; position {int(pos.max()):,} has none: a table cannot extrapolate.")

    def input_code(self, positions, setting: Setting) -> np.ndarray:
        """What is added to the token vectors at `positions`. Returns (L, width)."""
        pos = _positions(positions)
        if self.encode is None:
            return np.zeros((pos.size, setting.width))
        self._check_positions(pos, setting)
        return self.encode(pos, setting)

    def rotate(self, x: np.ndarray, positions, setting: Setting) -> np.ndarray:
        """Queries or keys (..., L, head_dim) after the scheme's rotation (identity if none)."""
        if self.rotation is None:
            return x
        return self.rotation(np.asarray(x, dtype=np.float64), _positions(positions), setting)

    def score_bias(self, q_positions, k_positions, setting: Setting, q: np.ndarray | None = None) -> np.ndarray:
        """What is added to the attention scores of queries at q_positions and keys at
        k_positions. Returns (H, Lq, Lk) (zeros when the scheme adds no bias)."""
        qp, kp = _positions(q_positions), _positions(k_positions)
        if self.bias is None:
            return np.zeros((setting.n_heads, qp.size, kp.size))
        return self.bias(qp, kp, setting, q)

    def attention_positions(self, length: int, setting: Setting, factor: float = 1.0) -> Positions:
        """The scheme's hooks for a sequence of `length` tokens at positions 0 .. length-1, as
        `core.analysis.attention` applies them; `factor` scales the position signal (the added code,
        the rotation angles, or the bias). setting.width must be the model width and
        setting.n_heads its head count."""
        pos = np.arange(length, dtype=np.float64)
        added = factor * self.input_code(pos, setting) if self.encode is not None else None
        rotate = (lambda x: self.rotate(x, factor * pos, setting)) if self.rotation is not None else None
        bias = (lambda q: factor * self.score_bias(pos, pos, setting, q)) if self.bias is not None else None
        return Positions(added=added, rotate=rotate, bias=bias)


# --- the hooks of each scheme --------------------------------------------------------------


def _broadcast(values: np.ndarray, width: int) -> np.ndarray:
    return np.repeat(values[:, None], width, axis=1)  # (L, width)


def _binary(pos: np.ndarray, s: Setting) -> np.ndarray:
    """Bit b of p in column b (least significant first) for the first min(width, bits) columns."""
    bits = min(s.width, naive.binary_width(max(int(pos.max(initial=0)) + 1, s.train_len)))
    code = np.zeros((pos.size, s.width))
    code[:, :bits] = (pos.astype(np.int64)[:, None] >> np.arange(bits)[None, :]) & 1
    return code


def _one_hot(pos: np.ndarray, s: Setting) -> np.ndarray:
    """Row p is e_p: 1 in column p. Positions must be whole numbers from 0 (a table has rows
    0, 1, 2, ...; numpy would read -1 as the last column)."""
    if pos.size and (np.any(pos < 0) or np.any(pos != np.round(pos))):
        raise ValueError("One-hot codes exist only for whole positions 0, 1, 2, ...")
    code = np.zeros((pos.size, s.width))
    code[np.arange(pos.size), pos.astype(np.int64)] = 1.0
    return code


def _rope(x: np.ndarray, pos: np.ndarray, s: Setting) -> np.ndarray:
    head_dim = x.shape[-1]
    inv_freq, factor = rope.rope_frequencies(head_dim, s.base)
    return rope.apply_rope(x, pos, inv_freq, layout="half", attention_factor=factor)


def _alibi(qp: np.ndarray, kp: np.ndarray, s: Setting, q: np.ndarray | None) -> np.ndarray:
    """-m_h |i - j|: the causal form -m_h (i - j) on and below the diagonal; a causal model's
    mask hides the rest, a bidirectional one sees the symmetric distance penalty."""
    slopes = alibi.alibi_slopes(s.n_heads)
    return -slopes[:, None, None] * np.abs(qp[None, :, None] - kp[None, None, :])  # (H, Lq, Lk)


def _t5(qp: np.ndarray, kp: np.ndarray, s: Setting, q: np.ndarray | None) -> np.ndarray:
    values = relative.t5_demo_bucket_values(T5_BUCKETS, s.n_heads, seed=s.seed)  # (H, buckets)
    return relative.t5_bias(values, qp, kp, bidirectional=True, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)


def _shaw(qp: np.ndarray, kp: np.ndarray, s: Setting, q: np.ndarray | None) -> np.ndarray:
    r"""Shaw et al.'s key term $q_i \cdot a^K_{\mathrm{clip}(j-i, k)} / \sqrt{d_h}$ per head (scaled as
    the content score it joins), from a table of
    2k+1 vectors of head width (at their initial values): each vector is scored against the
    query once, then indexed by clipped distance, so no (Lq, Lk, head_dim) array is built."""
    hd = s.head_width
    table = relative.shaw_table(SHAW_CLIP, hd, seed=s.seed)  # (2k+1, hd)
    ids = (relative.shaw_relative_positions(qp, kp, SHAW_CLIP) + SHAW_CLIP).astype(np.int64)  # (Lq, Lk)
    if q is None:
        q = np.full((s.n_heads, qp.size, hd), 1.0 / np.sqrt(hd))  # a fixed unit query stands in
    # Shaw et al. (eq. 5): e_ij = q_i·(k_j + a_ij) / sqrt(d_z); this is the a_ij part, with its 1/sqrt(d_z)
    per_id = q @ table.T / np.sqrt(hd)  # (H, Lq, 2k+1)
    return np.take_along_axis(per_id, np.broadcast_to(ids[None], (s.n_heads,) + ids.shape), axis=2)  # (H, Lq, Lk)


SCHEMES: dict[str, Scheme] = {
    scheme.name: scheme
    for scheme in (
        Scheme("none", "none (NoPE)", "baseline", NOTHING, "No position at all: attention sees a bag of words.", carries_position=False),
        Scheme("integer", "integer p", "naive", ADDED, "Adds the position number p to every dimension: unbounded.", encode=lambda p, s: _broadcast(p, s.width)),
        Scheme("fraction", "fraction p / L", "naive", ADDED, "Adds p divided by the sequence length: bounded, but a position's code changes with the length.", encode=lambda p, s: _broadcast(p / s.train_len, s.width)),
        Scheme("binary", "binary bits of p", "naive", ADDED, "Writes p in binary, one bit per dimension: unique but jumpy.", encode=_binary),
        Scheme(
            "onehot",
            "one-hot",
            "naive",
            ADDED,
            "A separate dimension per position: no nearness, and no code past the width or the table.",
            encode=_one_hot,
            table_rows=lambda s: min(s.width, s.train_len),
        ),
        Scheme("sinusoidal", "sinusoidal (paper)", "sinusoidal", ADDED, "The Transformer paper's sines and cosines of geometric frequencies.", encode=lambda p, s: sinusoidal_encoding(1, s.width, s.base, positions=p)),
        Scheme(
            "t2t",
            "sinusoidal (tensor2tensor)",
            "sinusoidal",
            ADDED,
            "The sinusoid as popular code writes it: sines then cosines, frequencies spaced over n − 1.",
            encode=lambda p, s: t2t_timing_signal(0, s.width, max_timescale=s.base, positions=p),
        ),
        Scheme(
            "learned",
            "learned absolute table",
            "learned",
            ADDED,
            "A trainable row per position (shown at its initialisation, normal with std 0.02).",
            encode=lambda p, s: learned.learned_rows(p, s.width, seed=s.seed),
            table_rows=lambda s: s.train_len,
            count=lambda s: s.train_len * s.width,
        ),
        Scheme("rope", "rotary (RoPE)", "rotary", ROTARY, "Rotates each pair of query and key dimensions by an angle proportional to the position.", rotation=_rope),
        Scheme("alibi", "ALiBi", "relative bias", BIAS, "Subtracts slope × distance from each score, one slope per head.", bias=_alibi),
        Scheme(
            "t5",
            "T5 relative buckets",
            "relative bias",
            BIAS,
            "One learned scalar per head and distance bucket: exact for short distances, log-spaced beyond (shown with illustrative values).",
            bias=_t5,
            count=lambda s: T5_BUCKETS * s.n_heads,
        ),
        Scheme(
            "shaw",
            f"Shaw relative (clip {SHAW_CLIP})",
            "relative bias",
            BIAS,
            f"A learned vector per distance, clipped at ±{SHAW_CLIP}, scored against the query (shown at its initialisation).",
            bias=_shaw,
            count=lambda s: (2 * SHAW_CLIP + 1) * s.head_width,
        ),
    )
}


def positional_schemes() -> list[str]:
    """Names of the schemes that carry position (the baseline 'none' left out)."""
    return [name for name, scheme in SCHEMES.items() if scheme.carries_position]


def schemes_applied(how: str) -> list[str]:
    """Names of the schemes applied in one way (ADDED, ROTARY, BIAS, NOTHING)."""
    return [name for name, scheme in SCHEMES.items() if scheme.applied == how]


def with_length(setting: Setting, train_len: int) -> Setting:
    """The same setting built for another length."""
    return replace(setting, train_len=train_len)
