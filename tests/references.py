"""Reference functions the tests compare the app against: no page uses them, so they are kept here, not in the app."""

import numpy as np

from core.schemes.alibi import MAX_DENSE_VALUES, _check_heads, alibi_bias_window
from core.schemes.checks import whole_number
from core.schemes.rope import _check_base, _check_finite, _check_head_dim, _ntk_base


def alibi_bias(n_heads: int, seq_len: int, *, causal: bool = True) -> np.ndarray:
    r"""The full ALiBi bias for self-attention over positions 0 .. L-1:

    $$B_{h,i,j} = -m_h\,(i - j) \text{ for } j \le i, \qquad
    B_{h,i,j} = -\infty \text{ (causal) or } -m_h\,|i - j| \text{ (not causal) for } j > i.$$

    The reference code adds $m_h \cdot j$ instead (the same in every row up to a constant,
    which softmax ignores); this is the paper's Figure 3 form. Beyond MAX_DENSE_VALUES values this refuses.
    Returns (H, L, L) float64.
    """
    n = _check_heads(n_heads)
    length = whole_number(seq_len, "seq_len", 1)
    if n * length * length > MAX_DENSE_VALUES:
        raise ValueError(
            f"A full ALiBi bias of {n} heads x {length:,} x {length:,} positions is too large to build; "
            "evaluate only the rows and columns you draw with alibi_bias_window."
        )
    pos = np.arange(length)
    return alibi_bias_window(n, pos, pos, causal=causal)


def ntk_aware_base(base: float, factor: float, head_dim: int) -> float:
    r"""The "NTK-aware" base change (bloc97, 2023): $b' = b\,s^{d/(d-2)}$, checked as a setting is.

    The exponent is chosen so that the slowest pair, $\theta_{d/2-1} = b^{-(d-2)/d}$, is divided
    by exactly s (interpolated) while the fastest, $\theta_0 = 1$, is untouched (extrapolated).
    Needs head_dim >= 4: with a single pair its frequency is 1 whatever the base. Returns a float.
    """
    base = _check_base(base)
    factor = _check_finite("factor", factor)
    if factor < 1:
        raise ValueError(f"factor must be at least 1, got {factor!r}: a scaling factor below 1 would shrink the context.")
    return _ntk_base(base, factor, _check_head_dim(head_dim))
