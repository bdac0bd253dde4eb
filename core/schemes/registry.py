"""The registry of positional-encoding schemes: the single source of truth for what exists.

A scheme is one module (its math, pure functions named after the quantity) plus one entry here.
The entry carries everything other code needs from it (the hooks a model calls, its picture, its
generated code, its trainable torch twin, built lazily so that importing the registry never
imports torch, the settings it reads, where a table ends), so pages, analysis, the lab, the code
export and the downloads never switch on a scheme's name or on how it is applied.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from core.schemes import alibi, kerple, learned, naive, relative, rope, sinusoidal
from core.schemes.checks import whole_number
from core.schemes.formula import Formula

ADDED, ROTARY, BIAS, NOTHING = "added to the input", "rotating queries and keys", "a bias on the attention scores", "nothing is added"
SHAW_CLIP = 16  # Shaw et al. found clipping distances of 16 and beyond performed alike
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128  # T5's defaults
T5_STD = 0.02  # T5's bucket scalars when a model starts to learn them (the lab)
PROBE_SEED = 12345  # the fixed random query and key of a rotary scheme's pair scores


@dataclass(frozen=True)
class Setting:
    """The numbers a scheme needs. `train_len` is the length a model (or a table) was built
    for: the sidebar's max_len. `width` is d_model for added schemes and the head width for
    rotary ones; `n_heads` matters for bias schemes; `seed` draws initial tables. `layout` and
    `scaling` are RoPE's pair layout and long-context scaling (a kind whose record is
    length-dependent at seq_len = train_len, the context the setting describes)."""

    width: int
    base: float = 10_000.0
    train_len: int = 256
    n_heads: int = 8
    seed: int = 0
    layout: str = "half"
    scaling: rope.RopeScaling | None = None

    def __post_init__(self) -> None:
        whole_number(self.width, "The width", 1)
        if isinstance(self.base, bool) or not isinstance(self.base, (int, float, np.integer, np.floating)) or not math.isfinite(self.base):
            raise ValueError(f"The base must be a number above 1, got {self.base!r}.")
        if self.base <= 1:
            raise ValueError(f"The base must be above 1, got {self.base!r}.")
        whole_number(self.train_len, "The training length", 1)
        whole_number(self.n_heads, "The number of heads", 1)
        whole_number(self.seed, "The seed", 0)
        if self.layout not in rope.LAYOUTS:
            raise ValueError(f"The pair layout must be one of {', '.join(rope.LAYOUTS)}, got {self.layout!r}.")
        if self.scaling is not None and not isinstance(self.scaling, rope.RopeScaling):
            raise ValueError(f"The scaling must be a RopeScaling or None, got {type(self.scaling).__name__}.")

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
    `Scheme.attention_positions` builds one for any registered scheme."""

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


@dataclass(frozen=True, eq=False)
class Picture:
    """What a scheme looks like at some positions: what the pages draw and the downloads hold.

    per "position": `values` (n, width), one vector per position (rows positions, columns
    dimensions); per "pair": `values` (H, n, n), one number per head, query and key. `what`
    says in a phrase what the values are."""

    values: np.ndarray
    per: str
    what: str


def _positions(positions) -> np.ndarray:
    return np.asarray(positions, dtype=np.float64).reshape(-1)


def _probe(width: int) -> tuple[np.ndarray, np.ndarray]:
    """Fixed random unit query and key of `width` values (the pair scores of a rotary scheme)."""
    rng = np.random.default_rng(PROBE_SEED)
    q, k = rng.standard_normal((2, width))
    return q / np.linalg.norm(q), k / np.linalg.norm(k)


def torch_twin(name: str, *args, **kwargs) -> Any:
    """The torch module `name` of core.schemes.torch built with these arguments; torch is imported
    here, when a model is built, never when the registry is."""
    return getattr(importlib.import_module("core.schemes.torch"), name)(*args, **kwargs)


@dataclass(frozen=True)
class Scheme:
    """One positional encoding: its hooks, its picture, its code and its twin (module docstring).
    `family` groups pickers; `summary` is one sentence for pages; `reads` names the Setting
    fields the scheme uses. For drawing its picture without changing it: `pair_columns` gives
    the (sin, cos) column pairs of a sinusoid-like picture (a figure keeps whole pairs), and a
    `discrete` code (bits, one-hot) is drawn as a window of consecutive positions and columns."""

    name: str
    label: str
    family: str
    applied: str
    summary: str
    reads: frozenset[str]
    formula: Callable[[Setting], Formula]
    encode: Callable[[np.ndarray, Setting], np.ndarray] | None = None
    rotation: Callable[[np.ndarray, np.ndarray, Setting], np.ndarray] | None = None
    bias: Callable[[np.ndarray, np.ndarray, Setting, np.ndarray | None], np.ndarray] | None = None
    max_position: Callable[[Setting], int | None] = lambda s: None  # positions from it on are refused (a table ends)
    count: Callable[[Setting], int] = lambda s: 0
    trainable: Callable[[Setting, Any], Any] | None = None
    carries_position: bool = True
    pair_columns: Callable[[Setting], tuple[np.ndarray, np.ndarray]] | None = None
    discrete: bool = False

    def parameters(self, setting: Setting) -> int:
        """Trainable numbers a model with this scheme learns for positions."""
        return int(self.count(setting))

    @property
    def per(self) -> str:
        """What the picture has one value or vector for: "pair" (a bias) or "position"."""
        return "pair" if self.bias is not None else "position"

    def _check_positions(self, pos: np.ndarray, setting: Setting) -> None:
        rows = self.max_position(setting)
        if rows is not None and pos.size and pos.max() >= rows:
            raise ValueError(f"{self.label} has codes for positions 0 to {rows - 1:,} only; position {int(pos.max()):,} has none: a table cannot extrapolate.")

    # --- the hooks a model calls ------------------------------------------------------------

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

    # --- what the scheme looks like -----------------------------------------------------------

    def _rotated_unit(self, pos: np.ndarray, setting: Setting) -> np.ndarray:
        unit = np.full((pos.size, setting.width), 1.0 / np.sqrt(setting.width))  # (n, width)
        return self.rotate(unit, pos, setting)

    def picture(self, positions, setting: Setting) -> Picture:
        """The scheme at `positions`, as the pages draw it and the downloads hold it: a bias
        between every pair of the positions, (H, n, n); a unit vector of equal entries rotated to
        each position, (n, width); or the code added to each position, (n, width)."""
        pos = _positions(positions)
        if self.bias is not None:
            return Picture(self.score_bias(pos, pos, setting), "pair", f"the bias between query and key, {setting.n_heads} heads")
        if self.rotation is not None:
            return Picture(self._rotated_unit(pos, setting), "position", "a unit vector of equal entries (1/√d each) rotated to each position")
        return Picture(self.input_code(pos, setting), "position", "the code of each position")

    def codes(self, positions, setting: Setting) -> np.ndarray:
        """What each position becomes, for measuring: the added code, or the rotated unit vector
        (n, width); for a bias, which stores no absolute position, what each distance k becomes:
        the bias of a query k places after its key in every head, (n, H)."""
        pos = _positions(positions)
        if self.bias is not None:
            return self.score_bias(pos, np.zeros(1), setting)[:, :, 0].T  # (n, H)
        return self.picture(pos, setting).values

    def pair_scores(self, rows, cols, setting: Setting) -> np.ndarray:
        """S(m, n), what the scheme adds to the score of a query at m (rows) and a key at n (cols):
        PE(m)·PE(n) for an added code; (R_m q)·(R_n k) for a fixed random unit q and k when it
        rotates; the bias averaged over heads; 0 when nothing is added.
        Returns (len(rows), len(cols))."""
        rows, cols = _positions(rows), _positions(cols)
        if self.bias is not None:
            return self.score_bias(rows, cols, setting).mean(axis=0)
        if self.rotation is not None:
            q, k = _probe(setting.width)
            rq = self.rotate(np.broadcast_to(q, (rows.size, q.size)), rows, setting)
            rk = self.rotate(np.broadcast_to(k, (cols.size, k.size)), cols, setting)
            return rq @ rk.T
        return self.input_code(rows, setting) @ self.input_code(cols, setting).T


# --- the hooks of each scheme, adapting its module's functions to a Setting -----------------


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
    seq_len = s.train_len if s.scaling is not None else None  # a length-dependent kind (its record says) scales for the whole context
    inv_freq, factor = rope.rope_frequencies(head_dim, s.base, s.scaling, seq_len=seq_len)
    return rope.apply_rope(x, pos, inv_freq, layout=s.layout, attention_factor=factor)


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


def _kerple(qp: np.ndarray, kp: np.ndarray, s: Setting, q: np.ndarray | None) -> np.ndarray:
    params = kerple.kerple_parameters(s.n_heads, seed=s.seed)
    return kerple.kerple_log_bias(params["r1"], params["r2"], qp, kp)  # (H, Lq, Lk)


WIDTH, BASE, LENGTH, HEADS, SEED, ROPE = (
    frozenset({"width"}),
    frozenset({"base"}),
    frozenset({"train_len"}),
    frozenset({"n_heads"}),
    frozenset({"seed"}),
    frozenset({"layout", "scaling"}),
)

SCHEMES: dict[str, Scheme] = {
    scheme.name: scheme
    for scheme in (
        Scheme(
            "none",
            "none (NoPE)",
            "baseline",
            NOTHING,
            "No position at all: attention sees a bag of words.",
            WIDTH,
            lambda s: naive.none_source(s.width),
            carries_position=False,
        ),
        Scheme(
            "integer",
            "integer p",
            "naive",
            ADDED,
            "Adds the position number p to every dimension: unbounded.",
            WIDTH,
            lambda s: naive.integer_source(s.width),
            encode=lambda p, s: _broadcast(p, s.width),
        ),
        Scheme(
            "fraction",
            "fraction p / L",
            "naive",
            ADDED,
            "Adds p divided by the sequence length: bounded, but a position's code changes with the length.",
            WIDTH | LENGTH,
            lambda s: naive.fraction_source(s.width, s.train_len),
            encode=lambda p, s: _broadcast(p / s.train_len, s.width),
        ),
        Scheme(
            "binary",
            "binary bits of p",
            "naive",
            ADDED,
            "Writes p in binary, one bit per dimension: unique but jumpy.",
            WIDTH | LENGTH,
            lambda s: naive.binary_source(s.width, s.train_len),
            encode=_binary,
            discrete=True,
        ),
        Scheme(
            "onehot",
            "one-hot",
            "naive",
            ADDED,
            "A separate dimension per position: no nearness, and no code past the width or the table.",
            WIDTH | LENGTH,
            lambda s: naive.one_hot_source(s.width, s.train_len),
            encode=_one_hot,
            max_position=lambda s: min(s.width, s.train_len),
            discrete=True,
        ),
        Scheme(
            "sinusoidal",
            "sinusoidal (paper)",
            "sinusoidal",
            ADDED,
            "The Transformer paper's sines and cosines of geometric frequencies.",
            WIDTH | BASE,
            lambda s: sinusoidal.source(s.width, s.train_len, s.base),
            encode=lambda p, s: sinusoidal.sinusoidal_encoding(1, s.width, s.base, positions=p),
            pair_columns=lambda s: (np.arange(0, s.width, 2), np.arange(1, s.width, 2)),  # sin 2i, cos 2i+1
        ),
        Scheme(
            "t2t",
            "sinusoidal (tensor2tensor)",
            "sinusoidal",
            ADDED,
            "The sinusoid as popular code writes it: sines then cosines, frequencies spaced over n − 1.",
            WIDTH | BASE,
            lambda s: sinusoidal.t2t_source(s.width, s.train_len, s.base),
            encode=lambda p, s: sinusoidal.t2t_timing_signal(0, s.width, max_timescale=s.base, positions=p),
            pair_columns=lambda s: (np.arange(s.width // 2), s.width // 2 + np.arange(s.width // 2)),  # sines, then cosines
        ),
        Scheme(
            "learned",
            "learned absolute table",
            "learned",
            ADDED,
            "A trainable row per position (shown at its initialisation, normal with std 0.02).",
            WIDTH | LENGTH | SEED,
            lambda s: learned.source(s.width, s.train_len, s.seed),
            encode=lambda p, s: learned.learned_rows(p, s.width, seed=s.seed),
            max_position=lambda s: s.train_len,
            count=lambda s: s.train_len * s.width,
        ),
        Scheme(
            "rope",
            "rotary (RoPE)",
            "rotary",
            ROTARY,
            "Rotates each pair of query and key dimensions by an angle proportional to the position.",
            WIDTH | BASE | ROPE,
            lambda s: rope.source(s.width, s.base, s.layout, s.scaling),
            rotation=_rope,
            pair_columns=lambda s: rope.pair_members(np.arange(s.width), s.layout),  # (i, i + d/2) or (2i, 2i + 1)
        ),
        Scheme(
            "alibi",
            "ALiBi",
            "relative bias",
            BIAS,
            "Subtracts slope × distance from each score, one slope per head.",
            HEADS,
            lambda s: alibi.source(s.n_heads),
            bias=_alibi,
        ),
        Scheme(
            "t5",
            "T5 relative buckets",
            "relative bias",
            BIAS,
            "One learned scalar per head and distance bucket: exact for short distances, log-spaced beyond (shown with illustrative values).",
            HEADS | SEED,
            lambda s: relative.t5_source(s.n_heads, T5_BUCKETS, T5_MAX_DISTANCE, s.seed),
            bias=_t5,
            count=lambda s: T5_BUCKETS * s.n_heads,
            # a decoder's T5 (causal buckets), its scalars starting small, as models learn them
            trainable=lambda s, g: torch_twin("T5RelativeBias", s.n_heads, T5_BUCKETS, T5_MAX_DISTANCE, bidirectional=False, std=T5_STD, generator=g),
        ),
        Scheme(
            "shaw",
            f"Shaw relative (clip {SHAW_CLIP})",
            "relative bias",
            BIAS,
            f"A learned vector per distance, clipped at ±{SHAW_CLIP}, scored against the query (shown at its initialisation).",
            WIDTH | HEADS | SEED,
            lambda s: relative.shaw_source(s.n_heads, s.head_width, SHAW_CLIP, s.seed),
            bias=_shaw,
            count=lambda s: (2 * SHAW_CLIP + 1) * s.head_width,
            trainable=lambda s, g: torch_twin("ShawRelativeKeys", SHAW_CLIP, s.head_width, seed=s.seed),
        ),
        Scheme(
            "kerple",
            "KERPLE (log)",
            "relative bias",
            BIAS,
            "Subtracts r₁·log(1 + r₂·distance) from each score, two learned numbers per head (shown at their initialisation).",
            HEADS | SEED,
            lambda s: kerple.source(s.n_heads, s.seed),
            bias=_kerple,
            count=lambda s: 2 * s.n_heads,
            trainable=lambda s, g: torch_twin("FormulaBias", kerple.kerple_parameters(s.n_heads, seed=s.seed), kerple.kerple_log_bias),
        ),
    )
}


def positional_schemes() -> list[str]:
    """Names of the schemes that carry position (the baseline 'none' left out)."""
    return [name for name, scheme in SCHEMES.items() if scheme.carries_position]


def with_length(setting: Setting, train_len: int) -> Setting:
    """The same setting built for another length."""
    return replace(setting, train_len=train_len)
