r"""ALiBi, attention with linear biases (Press, Smith and Lewis, 2022, "Train Short, Test Long").

No position is added to the tokens. Instead head h adds a penalty proportional to the distance
between query i and key j to the attention score,

$$\text{score}_{h,i,j} = q_i \cdot k_j - m_h\,(i - j), \qquad j \le i,$$

with one fixed slope $m_h$ per head (`alibi_slopes`; 8 heads: 1/2, 1/4, ..., 1/256).

Because softmax ignores a constant added to a whole row, the bias only needs the offset
$i - j$; the helpers below evaluate it for chosen offsets, rows or columns, so a page at a
context of 131072 never builds an L x L matrix. Offsets here are always query index minus key
index: how many positions back the key lies (0 is the query's own position).
"""

from __future__ import annotations

import math

import numpy as np

from core.schemes.checks import whole_number
from core.schemes.formula import Formula

# A dense (H, L, L) float64 bias above this many values (1 GiB) is refused with a pointer to
# `alibi_bias_window`, instead of exhausting a hosted demo's memory.
MAX_DENSE_VALUES = 2**27


def _check_heads(n_heads: int) -> int:
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer, float, np.floating)) or not float(n_heads).is_integer():
        raise ValueError(f"The number of heads must be a whole number, got {n_heads!r}.")
    if n_heads < 1:
        raise ValueError(f"ALiBi needs at least one head, got {int(n_heads)}.")
    return int(n_heads)


def _check_slopes(slopes: np.ndarray) -> np.ndarray:
    m = np.asarray(slopes, dtype=np.float64)
    if m.ndim != 1 or m.size == 0:
        raise ValueError(f"slopes must be a 1-D array with one slope per head, got shape {m.shape}.")
    if not np.all(np.isfinite(m)) or np.any(m < 0):
        raise ValueError("ALiBi slopes must be finite and not negative (a slope of 0 means no distance penalty).")
    return m


def _check_positions(positions: np.ndarray, name: str) -> np.ndarray:
    p = np.asarray(positions, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(p)) or np.any(p != np.round(p)):
        raise ValueError(f"{name} must be whole-number positions.")
    if np.any(p < 0):
        raise ValueError(f"{name} must be positions of at least 0.")
    return p


def _power_of_2_slopes(n: int) -> np.ndarray:
    r"""`get_slopes_power_of_2(n)` of the reference code: start = $2^{-2^{-(\log_2 n - 3)}} = 2^{-8/n}$,
    slope h = start * start^h for h = 0 .. n-1, the same float operations in the same order
    (so the values agree to the last bit). Returns (n,)."""
    start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))  # Python floats: numpy's vectorised pow can differ by an ulp
    return np.array([start * start**i for i in range(n)], dtype=np.float64)


def alibi_slopes(n_heads: int) -> np.ndarray:
    r"""The head slopes $m_h$ of the ALiBi reference code (ofirpress/attention_with_linear_biases,
    fairseq/models/transformer.py, `get_slopes`):

    - n a power of two: $m_h = 2^{-8h/n}$ for h = 1 .. n, i.e. start = ratio = $2^{-8/n}$;
    - otherwise, with c the largest power of two below n: the c slopes of `get_slopes(c)`,
      then slopes 1, 3, 5, ... (every other one, from the first) of `get_slopes(2c)`, up to n.

    Hugging Face's BLOOM (`_get_alibi_slopes`, used by `build_alibi_tensor`) computes the same
    numbers as base ** arange(1, c+1) and extra_base ** arange(1, 2(n-c), 2), in float32.
    One head gets 2^-8 (the reference's formula with n = 1), not 1/2. The slopes decrease only
    for a power of two: otherwise the extra slopes come last and lie between the first ones
    (3 heads: 1/16, 1/256, 1/4); all n are slopes of the 2c-head model.
    Returns (H,) float64.
    """
    n = _check_heads(n_heads)
    closest = 1 << (n.bit_length() - 1)  # 2 ** floor(log2(n))
    if closest == n:
        return _power_of_2_slopes(n)
    extra = _power_of_2_slopes(2 * closest)[0::2][: n - closest]
    return np.concatenate([_power_of_2_slopes(closest), extra])


def alibi_bias_by_offset(slopes: np.ndarray, offsets: np.ndarray, *, causal: bool = True) -> np.ndarray:
    r"""The bias as a function of the offset $k = i - j$ (query index minus key index) alone:
    $-m_h k$ for $k \ge 0$; for a key after the query ($k < 0$) $-\infty$ when `causal`, and
    $-m_h |k|$ when not. `slopes` (H,) are the head slopes, e.g. `alibi_slopes(H)`; `offsets`
    any whole numbers (huge ones are fine: nothing else is built).
    Returns (H, n_offsets) float64.
    """
    m = _check_slopes(slopes)
    k = np.asarray(offsets, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(k)) or np.any(k != np.round(k)):
        raise ValueError("offsets must be whole numbers (query index minus key index).")
    bias = -m[:, None] * np.abs(k)[None, :]  # (H, n_offsets)
    if causal:
        bias = np.where(k[None, :] < 0, -np.inf, bias)
    return bias


def alibi_bias_window(n_heads: int, rows: np.ndarray, cols: np.ndarray, *, causal: bool = True) -> np.ndarray:
    r"""Only the chosen query rows and key columns of the full ALiBi bias over positions 0 .. L-1:
    entry [h, a, b] is the bias of query position rows[a] for key position cols[b],
    $-m_h\,(\text{rows}_a - \text{cols}_b)$ (or its causal/symmetric form, see
    `alibi_bias_by_offset`). A page draws, e.g., a 1000 x 1000 sample of a 131072 context
    with rows = cols = every 131st position. Positions are whole numbers >= 0.
    Returns (H, len(rows), len(cols)) float64.
    """
    slopes = alibi_slopes(n_heads)
    r = _check_positions(rows, "rows")
    c = _check_positions(cols, "cols")
    if slopes.size * r.size * c.size > MAX_DENSE_VALUES:
        raise ValueError(f"A window of {slopes.size} x {r.size:,} x {c.size:,} bias values is too large to build: choose fewer rows or columns.")
    offsets = r[:, None] - c[None, :]  # (Lq, Lk)
    bias = alibi_bias_by_offset(slopes, offsets.reshape(-1), causal=causal)  # (H, Lq * Lk)
    return bias.reshape(slopes.size, r.size, c.size)  # (H, Lq, Lk)


def alibi_attention_weights(slopes: np.ndarray, seq_len: int, *, distances: np.ndarray | None = None) -> np.ndarray:
    r"""Attention of the last query over a sequence of L keys when every content score is
    equal, so only the bias counts: key at distance k gets

    $$w_k = \frac{e^{-m k}}{\sum_{k'=0}^{L-1} e^{-m k'}} = e^{-m k}\,\frac{1 - e^{-m}}{1 - e^{-m L}},
    \qquad k = 0 \dots L-1,$$

    computed with expm1 so tiny slopes stay accurate (m = 0 gives the uniform 1/L). `distances`
    (whole numbers in 0 .. L-1) evaluates only those k, so a chart at L = 131072 samples it.
    Returns (H, L) float64, or (H, len(distances)); each full row sums to 1.
    """
    m = _check_slopes(slopes)
    length = whole_number(seq_len, "seq_len", 1)
    if distances is None:
        k = np.arange(length, dtype=np.float64)
    else:
        k = np.asarray(distances, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(k)) or np.any(k != np.round(k)) or np.any(k < 0) or np.any(k >= length):
            raise ValueError(f"distances must be whole numbers from 0 to {length - 1}.")
    with np.errstate(invalid="ignore", divide="ignore"):
        norm = np.where(m > 0, np.expm1(-m) / np.expm1(-m * length), 1.0 / length)  # (H,) = (1 - e^-m) / (1 - e^-mL)
    return np.exp(-m[:, None] * k[None, :]) * norm[:, None]  # (H, n_distances)


def alibi_attention_span(slopes: np.ndarray, seq_len: int, mass: float = 0.9) -> np.ndarray:
    r"""How many of the nearest keys hold at least `mass` of the attention of the last query
    in a sequence of L keys, with equal content scores (weights as in `alibi_attention_weights`).

    The nearest n keys hold the geometric-series share $(1 - e^{-mn}) / (1 - e^{-mL})$, so the
    span is the smallest n with that share >= mass:

    $$n = \left\lceil \frac{-\log\!\left(1 + \text{mass}\cdot\operatorname{expm1}(-mL)\right)}{m} \right\rceil,$$

    written with log1p/expm1 so huge L (131072) and tiny slopes are accurate. A slope of 0 (or
    one so small the bias hardly decays within L) gives ceil(mass * L): nearly the whole
    sequence; mass = 1 gives L. One integer step of correction removes the rounding of the closed form; shares
    that tie with `mass` to float precision may land on either side.
    Returns (H,) int64, each in 1 .. L.
    """
    m = _check_slopes(slopes)
    length = whole_number(seq_len, "seq_len", 1)
    if not np.isfinite(mass) or not 0.0 < mass <= 1.0:
        raise ValueError(f"mass must be a share of the attention above 0 and at most 1, got {mass!r}.")

    def share(n: np.ndarray) -> np.ndarray:  # attention held by the nearest n keys, (H,)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(m > 0, np.expm1(-m * n) / np.expm1(-m * length), n / length)

    with np.errstate(invalid="ignore", divide="ignore"):
        closed = np.where(m > 0, -np.log1p(mass * np.expm1(-m * length)) / m, mass * length)  # (H,)
    if mass == 1.0:  # every key holds some weight, however small its share looks in floats
        return np.full(m.shape, length, dtype=np.int64)
    n = np.clip(np.ceil(closed), 1, length)
    n = np.where((n > 1) & (share(n - 1) >= mass), n - 1, n)
    n = np.where((n < length) & (share(n) < mass), n + 1, n)
    return n.astype(np.int64)

# --- generated code (core.files.codegen puts it into its template) -------------------------------


def source(n_heads: int) -> Formula:
    """`alibi_slopes` and the symmetric bias -m_h |i - j| of the registry's hook, as generated code."""
    return Formula(
        "ALiBi, attention with linear biases (Press et al., 2022)",
        """
        bias[h, i, j] = -m_h |i - j|, one slope m_h per head: 2^(-8h / N_HEADS) for h = 1 .. N_HEADS when
        N_HEADS is a power of two (otherwise as in the paper's get_slopes). A causal model masks j > i
        anyway, where the paper's form is -m_h (i - j); without a mask the penalty is symmetric.
        """,
        (("N_HEADS", n_heads, ""),),
        """
        qp = np.asarray(q_positions, dtype=np.float64).reshape(-1)  # (Lq,)
        kp = np.asarray(k_positions, dtype=np.float64).reshape(-1)  # (Lk,)
        bias = -SLOPES[:, None, None] * np.abs(qp[None, :, None] - kp[None, None, :])  # (H, Lq, Lk)
        """,
        """
        qp = torch.as_tensor(q_positions, dtype=torch.float64).reshape(-1)  # (Lq,)
        kp = torch.as_tensor(k_positions, dtype=torch.float64).reshape(-1)  # (Lk,)
        bias = -self.slopes[:, None, None] * (qp[None, :, None] - kp[None, None, :]).abs()  # (H, Lq, Lk)
        """,
        "ALiBiBias",
        shared='''
        def get_slopes(n):
            """The head slopes of the ALiBi reference code (ofirpress/attention_with_linear_biases)."""

            def power_of_2(n):
                start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))  # 2^(-8/n)
                return [start * start**i for i in range(n)]

            closest = 1 << (n.bit_length() - 1)  # the largest power of two <= n
            if closest == n:
                return power_of_2(n)
            return power_of_2(closest) + power_of_2(2 * closest)[0::2][: n - closest]
        ''',
        numpy_helpers="SLOPES = np.array(get_slopes(N_HEADS))  # (H,)",
        torch_init='self.register_buffer("slopes", torch.tensor(get_slopes(N_HEADS), dtype=torch.float64))  # (H,)',
    )
