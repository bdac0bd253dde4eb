r"""Relative position schemes: T5's bucketed bias and Shaw et al.'s clipped relative vectors.

Both depend only on the relative position of a key to its query,

$$r = j - i \quad (\text{key index minus query index}),$$

negative for keys before the query. This is the convention of T5 (Raffel et al., 2020;
"memory_position - query_position" in mesh_tensorflow and Hugging Face) and of Shaw, Uszkoreit
and Vaswani (2018), who write $\mathrm{clip}(j - i, k)$.

**T5** adds one learned scalar per head and *bucket* to the score. Distances below
`max_exact` (half the buckets of a direction) get a bucket each; larger ones share
log-spaced buckets up to `max_distance`, beyond which all distances share the last bucket:

$$b(n) = \begin{cases} n & n < e \\ \min\left(N - 1,\; e + \left\lfloor \dfrac{\log(n / e)}{\log(D / e)}\,(N - e) \right\rfloor\right) & n \ge e \end{cases}$$

with N buckets per direction, e = N // 2 exact ones, D = max_distance, n = |r| (bidirectional,
keys after the query use buckets N .. 2N-1) or n = max(-r, 0) (causal, every future key falls
in bucket 0, which the decoder's mask hides anyway).

**Shaw et al.** learn 2k+1 vectors $w_{-k} \dots w_k$ and give the pair (i, j) the vector
$w_{\mathrm{clip}(j-i, k)}$, $\mathrm{clip}(x, k) = \max(-k, \min(k, x))$.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.schemes.checks import whole_number
from core.schemes.formula import Formula, WHOLE_POSITIONS_NP, WHOLE_POSITIONS_TORCH, code

def _whole_array(values, name: str) -> np.ndarray:
    """Any array-like of whole numbers (ints, or floats holding whole numbers) as int64."""
    a = np.asarray(values)
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    if a.dtype.kind not in "f" and a.dtype.kind != "b":
        raise ValueError(f"{name} must be whole numbers, got values of type {a.dtype}.")
    f = a.astype(np.float64)
    if not np.all(np.isfinite(f)) or np.any(f != np.round(f)):
        raise ValueError(f"{name} must be whole numbers.")
    return f.astype(np.int64)


def _positions(values, name: str) -> np.ndarray:
    p = _whole_array(values, name)
    if p.ndim > 1:
        raise ValueError(f"{name} must be a 1-D list of positions, got shape {p.shape}.")
    return p.reshape(-1)


# --- T5 ------------------------------------------------------------------------------------


def _t5_config(bidirectional: bool, num_buckets: int, max_distance: int) -> tuple[int, int, int]:
    """Validate T5's settings; return (buckets per direction N, exact buckets e, max_distance)."""
    if bidirectional:
        num_buckets = whole_number(num_buckets, "num_buckets", 4)
        if num_buckets % 2:
            raise ValueError(
                f"Bidirectional T5 splits its buckets evenly between keys before and after the query, so num_buckets must be even, got {num_buckets} "
                "(the reference code would silently leave the last bucket unused)."
            )
        per_side = num_buckets // 2
    else:
        per_side = whole_number(num_buckets, "num_buckets", 2)
    max_exact = per_side // 2
    max_distance = whole_number(max_distance, "max_distance", 1)
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance must be larger than the {max_exact} distances that get a bucket each (half the buckets of a direction), got {max_distance}."
        )
    return per_side, max_exact, max_distance


def _t5_distance_bucket(n: np.ndarray, per_side: int, max_exact: int, max_distance: int) -> np.ndarray:
    """b(n) of the module docstring for distances n >= 0 (int64 array), in float64 like the
    reference's float32, truncated toward zero. Returns the same shape as n."""
    scaled = np.log(np.maximum(n, max_exact) / max_exact) / math.log(max_distance / max_exact) * (per_side - max_exact)
    large = np.minimum(max_exact + scaled.astype(np.int64), per_side - 1)
    return np.where(n < max_exact, n, large)


def t5_relative_bucket(relative_position, *, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> np.ndarray:
    r"""T5's bucket of each relative position r = key index - query index, exactly as
    `T5Attention._relative_position_bucket` (Hugging Face transformers, models/t5/modeling_t5.py)
    and mesh_tensorflow's `_relative_position_bucket` before it:

    - bidirectional: N = num_buckets // 2 buckets per direction; keys after the query (r > 0)
      add N; n = |r|. (So bucket N itself is never used: r > 0 means n >= 1.)
    - causal: N = num_buckets, n = -min(r, 0): every key after the query is bucket 0.
    - b(n) = n below e = N // 2; log-spaced from e up to max_distance; clamped to N - 1.

    The reference computes the logarithm in float32; this uses float64 and agrees with it on
    every case the tests compare. Validation beyond the reference: num_buckets >= 4 and even
    when bidirectional (>= 2 when causal), max_distance > e (else the log spacing is undefined).
    Returns an int64 array of r's shape, values in [0, num_buckets).
    """
    per_side, max_exact, max_distance = _t5_config(bidirectional, num_buckets, max_distance)
    r = _whole_array(relative_position, "relative positions")
    if bidirectional:
        offset = np.where(r > 0, per_side, 0)
        n = np.abs(r)
    else:
        offset = np.zeros_like(r)
        n = -np.minimum(r, 0)
    return offset + _t5_distance_bucket(n, per_side, max_exact, max_distance)


@dataclass(frozen=True)
class BucketRange:
    """The relative positions r (key - query) that fall in one T5 bucket: low .. high inclusive.

    kind is "exact" (one distance), "log" (a log-spaced range) or "unused" (no relative
    position maps here; low and high are then None). For a used bucket, low None means
    unbounded below (every r <= high) and high None unbounded above.
    """

    bucket: int
    kind: str
    low: int | None
    high: int | None

    @property
    def label(self) -> str:
        """The range in words, for a hover or an axis: '-3', '-22 to -16', '-91 or less', '1 or more'."""
        if self.kind == "unused":
            return "unused"
        if self.low is None:
            return f"{self.high} or less"
        if self.high is None:
            return f"{self.low} or more"
        return str(self.low) if self.low == self.high else f"{self.low} to {self.high}"


def t5_bucket_ranges(*, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> list[BucketRange]:
    """For each bucket 0 .. num_buckets-1, the range of relative positions (key - query) that
    `t5_relative_bucket` maps to it, and whether it is "exact", "log" or "unused".

    Found by evaluating b(n) at every distance n = 0 .. max_distance: b is non-decreasing in n
    and reaches the last bucket of a direction at or before max_distance (T5's defaults: at 91,
    where the log formula passes N - 1), and that bucket is open-ended. Keys before the query (r = -n) fill buckets 0 .. N-1 with ranges [-max n, -min n];
    bidirectional keys after it fill N .. 2N-1 with [min n, max n], bucket N unused; causal
    bucket 0 also takes every r > 0. Buckets of the log region can be unused too, when the log
    spacing is finer than one position (many buckets, small max_distance).
    Returns a list of num_buckets BucketRange, in bucket order.
    """
    per_side, max_exact, max_distance = _t5_config(bidirectional, num_buckets, max_distance)
    n = np.arange(max_distance + 1, dtype=np.int64)
    b = _t5_distance_bucket(n, per_side, max_exact, max_distance)  # (max_distance + 1,)
    last = per_side - 1  # the bucket that holds max_distance and everything beyond
    side: list[tuple[int, int | None] | None] = []
    for bucket in range(per_side):
        hit = n[b == bucket]
        if hit.size == 0:
            side.append(None)
        else:
            side.append((int(hit.min()), None if bucket == last else int(hit.max())))

    def kind(bucket: int) -> str:
        return "exact" if bucket < max_exact else "log"

    ranges = []
    for bucket, span in enumerate(side):  # keys at or before the query: r = -n
        if span is None:
            ranges.append(BucketRange(bucket, "unused", None, None))
            continue
        lo_n, hi_n = span
        high = None if (bucket == 0 and not bidirectional) else -lo_n
        ranges.append(BucketRange(bucket, kind(bucket), None if hi_n is None else -hi_n, high))
    if bidirectional:
        for bucket, span in enumerate(side):  # keys after the query: r = +n, n >= 1
            if span is None or span[1] == 0:
                ranges.append(BucketRange(per_side + bucket, "unused", None, None))
                continue
            lo_n, hi_n = max(span[0], 1), span[1]
            ranges.append(BucketRange(per_side + bucket, kind(bucket), lo_n, hi_n))
    return ranges


def t5_demo_bucket_values(
    num_buckets: int = 32, n_heads: int = 8, *, bidirectional: bool = True, max_distance: int = 128, seed: int = 0, noise: float = 0.1
) -> np.ndarray:
    r"""An illustrative (H, num_buckets) table of T5 bias values: NOT from a trained model.

    T5 learns these scalars; trained tables tend to favour nearby keys, with heads differing in
    how fast they forget. This draws that shape so a page shows something meaningful without a
    checkpoint: head h penalises bucket b by

    $$v_{h,b} = -s_h \log(1 + \bar n_b) + \varepsilon_{h,b}, \qquad s_h = 2^{-h/2}\ (h = 0 \dots H-1),$$

    where $\bar n_b$ is the bucket's nominal distance (n itself for exact buckets,
    $e\,(D/e)^{(b - e)/(N - e)}$ at the start of a log bucket) and ε is normal noise of std
    `noise` from np.random.default_rng(seed), so the table is the same for the same arguments.
    Returns (H, num_buckets) float64.
    """
    per_side, max_exact, max_distance = _t5_config(bidirectional, num_buckets, max_distance)
    heads = whole_number(n_heads, "n_heads", 1)
    seed = whole_number(seed, "seed", 0)
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite standard deviation of at least 0, got {noise!r}.")
    b = np.arange(per_side, dtype=np.float64)
    nominal = np.where(b < max_exact, b, max_exact * (max_distance / max_exact) ** ((b - max_exact) / (per_side - max_exact)))  # (N,)
    if bidirectional:
        nominal = np.concatenate([nominal, nominal])  # (2N,) keys before, then after the query
    strength = 2.0 ** (-np.arange(heads) / 2.0)  # (H,)
    values = -strength[:, None] * np.log1p(nominal)[None, :]  # (H, num_buckets)
    return values + np.random.default_rng(seed).normal(0.0, noise, size=values.shape)


def t5_bias(
    bucket_values: np.ndarray, query_positions, key_positions, *, bidirectional: bool = True, num_buckets: int | None = None, max_distance: int = 128
) -> np.ndarray:
    r"""T5's additive attention bias: $B_{h,a,c} = v_{h,\,b(\text{key}_c - \text{query}_a)}$,
    the learned scalar of head h for the bucket of the pair's relative position (as
    `T5Attention.compute_bias`, which looks the buckets up in an nn.Embedding(num_buckets, H)).

    `bucket_values` is (num_buckets,) for one head or (H, num_buckets), trained or from
    `t5_demo_bucket_values`; num_buckets, when given, must match its last axis. Positions are
    whole numbers; only the given query rows and key columns are evaluated, so a sample of a
    long context is cheap. Bias against relative position alone: query_positions=[0].
    Returns (H, Lq, Lk) float64.
    """
    values = np.asarray(bucket_values, dtype=np.float64)
    if values.ndim == 1:
        values = values[None, :]  # (1, num_buckets)
    if values.ndim != 2 or values.shape[1] == 0:
        raise ValueError(f"bucket_values must be (num_buckets,) or (heads, num_buckets), got shape {np.shape(bucket_values)}.")
    if num_buckets is not None and values.shape[1] != num_buckets:
        raise ValueError(f"bucket_values has {values.shape[1]} buckets per head, but num_buckets is {num_buckets}.")
    q = _positions(query_positions, "query positions")
    k = _positions(key_positions, "key positions")
    buckets = t5_relative_bucket(k[None, :] - q[:, None], bidirectional=bidirectional, num_buckets=values.shape[1], max_distance=max_distance)  # (Lq, Lk)
    return values[:, buckets]  # (H, Lq, Lk)


# --- Shaw et al. (2018) --------------------------------------------------------------------


def shaw_relative_positions(query_positions, key_positions, max_relative_position: int) -> np.ndarray:
    r"""Shaw et al.'s clipped relative position $\mathrm{clip}(j - i, k) = \max(-k, \min(k, j - i))$
    for query i and key j (their eq. 3-4, and tensor2tensor's `_generate_relative_positions_matrix`,
    whose distance_mat[i, j] = j - i). The same key-minus-query sign as T5: -k means "k or more
    positions before the query". Add k for a row index 0 .. 2k into the table of `shaw_table`.
    Returns (Lq, Lk) int64 in [-k, k].
    """
    k = whole_number(max_relative_position, "max_relative_position", 0)
    q = _positions(query_positions, "query positions")
    j = _positions(key_positions, "key positions")
    return np.clip(j[None, :] - q[:, None], -k, k)  # (Lq, Lk)


def shaw_table(max_relative_position: int, d_model: int, *, seed: int = 0, std: float = 0.02) -> np.ndarray:
    r"""The 2k+1 relative-position vectors $w_{-k} \dots w_k$ at initialisation, one per row
    (row r + k holds $w_r$), drawn normal(0, std) from np.random.default_rng(seed).
    Untrained, so illustrative: Shaw et al. learn them (tensor2tensor uses its default initializer).
    Returns (2k+1, d) float64.
    """
    k = whole_number(max_relative_position, "max_relative_position", 0)
    d = whole_number(d_model, "d_model", 1)
    seed = whole_number(seed, "seed", 0)
    if not np.isfinite(std) or std < 0:
        raise ValueError(f"std must be a finite standard deviation of at least 0, got {std!r}.")
    return np.random.default_rng(seed).normal(0.0, std, size=(2 * k + 1, d))


def shaw_distinct_ids(query_len: int, key_len: int, max_relative_position: int) -> int:
    r"""How many different clipped relative positions occur between queries 0 .. Lq-1 and keys
    0 .. Lk-1: j - i runs from -(Lq-1) to Lk-1, clipped to [-k, k], so

    $$\min(k, L_q - 1) + \min(k, L_k - 1) + 1 \quad (\le 2k + 1, \text{ the table size}).$$

    Returns an int.
    """
    lq = whole_number(query_len, "query_len", 1)
    lk = whole_number(key_len, "key_len", 1)
    k = whole_number(max_relative_position, "max_relative_position", 0)
    return min(k, lq - 1) + min(k, lk - 1) + 1


# --- generated code (core.files.codegen puts it into its template) -------------------------------


_T5_VALUES = '''
def bucket_values():
    """The (N_HEADS, NUM_BUCKETS) bias values the app draws. NOT trained: head h penalises bucket b by
    -2^(-h/2) log(1 + nominal distance of b) plus normal noise of std NOISE, a shape trained T5 tables
    tend to have. Put a trained model's values here (in Hugging Face: the first layer's
    relative_attention_bias.weight.T)."""
    per_side = NUM_BUCKETS // 2
    max_exact = per_side // 2
    b = np.arange(per_side, dtype=np.float64)
    nominal = np.where(b < max_exact, b, max_exact * (MAX_DISTANCE / max_exact) ** ((b - max_exact) / (per_side - max_exact)))
    nominal = np.concatenate([nominal, nominal])  # keys before, then after the query
    strength = 2.0 ** (-np.arange(N_HEADS) / 2.0)  # (H,)
    values = -strength[:, None] * np.log1p(nominal)[None, :]  # (H, NUM_BUCKETS)
    return values + np.random.default_rng(SEED).normal(0.0, NOISE, size=values.shape)
'''
_T5_BUCKET_NP = '''
def relative_position_bucket(relative_position):
    """T5's bucket of r = key position - query position (bidirectional, Hugging Face
    T5Attention._relative_position_bucket, in float64). Returns an int array of r's shape."""
    per_side = NUM_BUCKETS // 2  # keys after the query use buckets per_side .. NUM_BUCKETS-1
    max_exact = per_side // 2  # distances below this get a bucket each
    offset = np.where(relative_position > 0, per_side, 0)
    n = np.abs(relative_position)
    scaled = np.log(np.maximum(n, max_exact) / max_exact) / math.log(MAX_DISTANCE / max_exact) * (per_side - max_exact)
    large = np.minimum(max_exact + scaled.astype(np.int64), per_side - 1)  # log-spaced up to MAX_DISTANCE
    return offset + np.where(n < max_exact, n, large)
'''
_T5_BUCKET_TORCH = '''
def relative_position_bucket(relative_position):
    """T5's bucket of r = key position - query position (bidirectional, Hugging Face
    T5Attention._relative_position_bucket, in float64). Returns a long tensor of r's shape."""
    per_side = NUM_BUCKETS // 2  # keys after the query use buckets per_side .. NUM_BUCKETS-1
    max_exact = per_side // 2  # distances below this get a bucket each
    offset = (relative_position > 0).long() * per_side
    n = relative_position.abs()
    scaled = torch.log(n.clamp(min=max_exact).double() / max_exact) / math.log(MAX_DISTANCE / max_exact) * (per_side - max_exact)
    large = (max_exact + scaled.long()).clamp(max=per_side - 1)  # log-spaced up to MAX_DISTANCE
    return offset + torch.where(n < max_exact, n, large)
'''


def t5_source(n_heads: int, num_buckets: int, max_distance: int, seed: int, noise: float = 0.1) -> Formula:
    """T5's bidirectional bias at `t5_demo_bucket_values`, as generated code."""
    return Formula(
        "T5 relative position buckets (Raffel et al., 2020)",
        """
        bias[h, i, j] = v[h, bucket(j - i)]: one learned scalar per head and bucket. Distances below
        NUM_BUCKETS / 4 get a bucket each, larger ones share log-spaced buckets up to MAX_DISTANCE, and
        keys after the query use the second half of the buckets. The values here are illustrative.
        """,
        (
            ("N_HEADS", n_heads, ""),
            ("NUM_BUCKETS", num_buckets, "T5's default"),
            ("MAX_DISTANCE", max_distance, "T5's default"),
            ("SEED", int(seed), ""),
            ("NOISE", noise, ""),
        ),
        code(WHOLE_POSITIONS_NP) + "\nbias = BUCKET_VALUES[:, relative_position_bucket(kp[None, :] - qp[:, None])]  # (H, Lq, Lk)",
        code(WHOLE_POSITIONS_TORCH)
        + "\nbuckets = relative_position_bucket(kp[None, :] - qp[:, None])  # (Lq, Lk)"
        + "\nbias = self.relative_attention_bias(buckets).permute(2, 0, 1)  # (H, Lq, Lk)",
        "T5RelativeBias",
        shared=_T5_VALUES,
        numpy_helpers=_T5_BUCKET_NP + "\n\nBUCKET_VALUES = bucket_values()  # (H, NUM_BUCKETS)",
        torch_helpers=_T5_BUCKET_TORCH,
        torch_init="""
        self.relative_attention_bias = nn.Embedding(NUM_BUCKETS, N_HEADS, dtype=torch.float64)  # as Hugging Face's T5Attention
        with torch.no_grad():  # the same values as the NumPy version
            self.relative_attention_bias.weight.copy_(torch.from_numpy(bucket_values().T))
        """,
    )


def shaw_source(n_heads: int, head_dim: int, k: int, seed: int, std: float = 0.02) -> Formula:
    """Shaw et al.'s key term at `shaw_table`'s initial values, as generated code."""
    return Formula(
        "Shaw et al.'s relative position keys (2018)",
        """
        bias[h, i, j] = q_i . a_clip(j - i, K) / sqrt(HEAD_DIM), from 2K+1 trainable vectors a_-K .. a_K of head
        width (row r + K of TABLE holds a_r), the part of e_ij = q_i . (k_j + a_ij) / sqrt(HEAD_DIM) that
        positions add (their eq. 5). Each vector is scored against the query once, then indexed by
        clipped distance. Without q, a fixed unit query of entries 1/sqrt(HEAD_DIM) stands in. TABLE holds
        the vectors at their initialisation.
        """,
        (
            ("N_HEADS", n_heads, ""),
            ("HEAD_DIM", head_dim, "d_model // N_HEADS"),
            ("K", k, "distances are clipped to -K .. K"),
            ("SEED", int(seed), ""),
            ("STD", std, ""),
        ),
        code(
            WHOLE_POSITIONS_NP,
            """
        ids = np.clip(kp[None, :] - qp[:, None], -K, K) + K  # (Lq, Lk): row of TABLE
        if q is None:
            q = np.full((N_HEADS, qp.size, HEAD_DIM), 1.0 / np.sqrt(HEAD_DIM))  # a fixed unit query
        per_id = q @ TABLE.T / np.sqrt(HEAD_DIM)  # (H, Lq, 2K+1)
        bias = np.take_along_axis(per_id, np.broadcast_to(ids, per_id.shape[:-1] + ids.shape[-1:]), axis=-1)  # (H, Lq, Lk)
        """,
        ),
        code(
            WHOLE_POSITIONS_TORCH,
            """
        ids = (kp[None, :] - qp[:, None]).clamp(-K, K) + K  # (Lq, Lk): row of the table
        if q is None:
            q = torch.full((N_HEADS, qp.numel(), HEAD_DIM), 1.0 / math.sqrt(HEAD_DIM), dtype=torch.float64)  # a fixed unit query
        per_id = q @ self.table.weight.T / math.sqrt(HEAD_DIM)  # (H, Lq, 2K+1)
        bias = torch.gather(per_id, -1, ids.expand(*per_id.shape[:-1], ids.shape[-1]))  # (H, Lq, Lk)
        """,
        ),
        "ShawRelativeKeys",
        takes_queries=True,
        shared="TABLE = np.random.default_rng(SEED).normal(0.0, STD, size=(2 * K + 1, HEAD_DIM))  # a_-K .. a_K at initialisation",
        torch_init="""
        self.table = nn.Embedding(2 * K + 1, HEAD_DIM, dtype=torch.float64)
        with torch.no_grad():  # the same draw as the NumPy version
            self.table.weight.copy_(torch.from_numpy(TABLE))
        """,
    )
