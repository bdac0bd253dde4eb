r"""KERPLE's logarithmic bias (Chi, Fan, Ramadge and Rudnicky, 2022, "KERPLE: Kernelized Relative
Positional Embedding for Length Extrapolation").

Like ALiBi, nothing is added to the tokens: head h adds to the score of query i and key j a
penalty that depends on their distance only,

$$b_h(i, j) = -r_{1,h}\,\log\!\big(1 + r_{2,h}\,|i - j|\big), \qquad r_{1,h},\ r_{2,h} > 0,$$

a conditionally positive definite kernel of the distance with two learned numbers per head.
Where ALiBi's penalty is a straight line, this one is a logarithm: it keeps growing with the
distance, ever more slowly, so far keys are never shut out as completely as under a steep
ALiBi head. The paper's log variant extrapolated best of its kernels.

The parameters start as in the reference implementation (NeMo's `get_kerple_log_params`):
$r_1 \sim U(0, 2)$, $r_2 \sim U(0, 1)$ per head, and both are held at 0.01 or more
(`kerple_log_forward` clamps them before every use). Here they are drawn from
np.random.default_rng(seed), so a page shows the same values every time.

`kerple_log_bias` is written once for numpy and torch (`xp` is the array module): the app's
pages call it with numpy arrays, and the lab trains r₁ and r₂ through the same function with
torch tensors (core.schemes.torch.FormulaBias).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from core.schemes.checks import whole_number
from core.schemes.formula import Formula

EPS = 1e-2  # the reference's floor on r1 and r2


def kerple_parameters(n_heads: int, *, seed: int = 0) -> dict[str, np.ndarray]:
    """r1 and r2 of every head at initialisation: uniform on (0, 2) and (0, 1), drawn in that
    order from np.random.default_rng(seed). Returns {"r1": (H,), "r2": (H,)} float64."""
    heads = whole_number(n_heads, "The number of heads", 1)
    rng = np.random.default_rng(whole_number(seed, "The seed", 0))
    return {"r1": rng.uniform(0.0, 2.0, heads), "r2": rng.uniform(0.0, 1.0, heads)}


def kerple_log_bias(r1, r2, q_positions, k_positions, *, xp: ModuleType = np):
    r"""$B_{h,a,c} = -\max(r_{1,h}, \epsilon)\,\log(1 + \max(r_{2,h}, \epsilon)\,|q_a - k_c|)$ for queries
    at q_positions and keys at k_positions (the symmetric form: a causal model masks keys after
    the query anyway, as NeMo's lower-triangular distance does). r1, r2: (H,); positions (Lq,)
    and (Lk,), arrays of `xp` (numpy, or torch for the trainable twin).
    Returns (H, Lq, Lk) of xp."""
    p = xp.clip(r1, EPS, None)[:, None, None]  # (H, 1, 1)
    a = xp.clip(r2, EPS, None)[:, None, None]
    distance = xp.abs(q_positions[None, :, None] - k_positions[None, None, :])  # (1, Lq, Lk)
    return -p * xp.log1p(a * distance)  # (H, Lq, Lk)


def source(n_heads: int, seed: int) -> Formula:
    """The bias at `kerple_parameters(n_heads, seed=seed)`, as generated code."""
    return Formula(
        "KERPLE's logarithmic bias (Chi et al., 2022)",
        """
        bias[h, i, j] = -r1_h log(1 + r2_h |i - j|), two learned numbers per head (held at EPS or more), shown at their
        initialisation: r1 ~ U(0, 2), r2 ~ U(0, 1) as the reference implementation draws them, from SEED.
        A causal model masks keys after the query anyway; without a mask the penalty is symmetric.
        """,
        (("N_HEADS", n_heads, ""), ("SEED", int(seed), ""), ("EPS", EPS, "the floor on r1 and r2")),
        """
        qp = np.asarray(q_positions, dtype=np.float64).reshape(-1)  # (Lq,)
        kp = np.asarray(k_positions, dtype=np.float64).reshape(-1)  # (Lk,)
        p, a = np.clip(R1, EPS, None)[:, None, None], np.clip(R2, EPS, None)[:, None, None]  # (H, 1, 1)
        bias = -p * np.log1p(a * np.abs(qp[None, :, None] - kp[None, None, :]))  # (H, Lq, Lk)
        """,
        """
        qp = torch.as_tensor(q_positions, dtype=torch.float64).reshape(-1)  # (Lq,)
        kp = torch.as_tensor(k_positions, dtype=torch.float64).reshape(-1)  # (Lk,)
        p, a = self.r1.clamp(min=EPS)[:, None, None], self.r2.clamp(min=EPS)[:, None, None]  # (H, 1, 1)
        bias = -p * torch.log1p(a * (qp[None, :, None] - kp[None, None, :]).abs())  # (H, Lq, Lk)
        """,
        "KerpleLogBias",
        shared="""
        rng = np.random.default_rng(SEED)
        R1, R2 = rng.uniform(0.0, 2.0, N_HEADS), rng.uniform(0.0, 1.0, N_HEADS)  # (H,) each, at initialisation
        """,
        torch_init="""
        self.r1 = nn.Parameter(torch.from_numpy(R1.copy()))  # (H,), learned
        self.r2 = nn.Parameter(torch.from_numpy(R2.copy()))
        """,
    )
