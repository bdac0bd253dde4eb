r"""Torch modules for the schemes a model trains or runs: thin wrappers around the numpy core.

Each module computes its fixed values once with the numpy function that the rest of the app
(and the tests) use, and registers them as buffers (labml style), so a module and the page that
draws the same scheme cannot disagree. Trainable values (a learned table, T5's bucket scalars,
Shaw's relative vectors) are parameters initialised from the same numpy functions. Everything
is float64, like the numpy core; call `.float()` on a model to train in float32.

The only module of core.schemes that imports torch (tests/test_layers.py checks it).

Shapes: B batch, H heads, T (or L) positions, d width, hd head width.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from core.schemes import learned, relative, rope


def _tensor(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float64))


def _positions(positions, length: int) -> np.ndarray:
    """positions as a 1-D float64 numpy array; 0 .. length-1 when None."""
    if positions is None:
        return np.arange(length, dtype=np.float64)
    if isinstance(positions, torch.Tensor):
        positions = positions.detach().cpu().numpy()
    return np.asarray(positions, dtype=np.float64).reshape(-1)


class LearnedPositionEmbedding(nn.Module):
    r"""A trainable row per position, $x_p \leftarrow x_p + P_p$: nn.Embedding(max_len, d) initialised
    from `core.schemes.learned.learned_table` (normal, std 0.02, seeded per row). Positions at or beyond
    max_len are refused: a table cannot extrapolate."""

    def __init__(self, max_len: int, d_model: int, *, std: float = 0.02, seed: int = 0) -> None:
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model, dtype=torch.float64)
        with torch.no_grad():
            self.embedding.weight.copy_(_tensor(learned.learned_table(max_len, d_model, seed=seed, std=std)))

    @classmethod
    def from_table(cls, table: np.ndarray) -> LearnedPositionEmbedding:
        """A module whose initial rows are `table` (rows, d), e.g. a registry scheme's code."""
        rows, d = np.shape(table)
        module = cls(rows, d, std=0.0)
        with torch.no_grad():
            module.embedding.weight.copy_(_tensor(table))
        return module

    @property
    def rows(self) -> int:
        return self.embedding.num_embeddings

    def forward(self, positions) -> torch.Tensor:
        """positions (any shape, whole numbers) -> positions.shape + (d,)."""
        p = positions if isinstance(positions, torch.Tensor) else torch.as_tensor(np.asarray(positions, dtype=np.int64))
        beyond = p[p >= self.rows]
        if beyond.numel():
            raise ValueError(
                f"this learned table has {self.rows} rows (positions 0 to {self.rows - 1}); position {int(beyond.flatten()[0])} has no embedding — "
                "a learned table cannot extrapolate"
            )
        return self.embedding(p.long())


class RotaryEmbedding(nn.Module):
    r"""Rotates queries and keys, pair i of position m by $m\theta_i$ (`core.schemes.rope.apply_rope`), with
    $\theta$ and the attention factor from `core.schemes.rope.rope_frequencies` (the buffer `inv_freq`). A
    scaling kind whose record is `length_dependent` (dynamic NTK, LongRoPE) gets them again on every call,
    for the sequence's length max(positions) + 1, as core and Hugging Face's forward do.
    partial_rotary_factor as in rope_frequencies: only the first 2 len(inv_freq) dimensions turn, the others
    pass through (a kind whose record has `turning_proportion` reads it as its proportion of turning pairs)."""

    def __init__(
        self, head_dim: int, base: float = 10_000.0, scaling: rope.RopeScaling | None = None, layout: str = "half", partial_rotary_factor: float = 1.0
    ) -> None:
        super().__init__()
        rope._check_layout(layout)
        inv_freq, self.attention_factor = rope.rope_frequencies(head_dim, base, scaling, partial_rotary_factor=partial_rotary_factor)
        self.register_buffer("inv_freq", _tensor(inv_freq))
        self.head_dim, self.base, self.scaling, self.layout, self.partial_rotary_factor = head_dim, base, scaling, layout, partial_rotary_factor
        self.per_length = scaling is not None and scaling.record.length_dependent

    def forward(self, x: torch.Tensor, positions=None) -> torch.Tensor:
        """x (..., T, hd), positions (T,) (0 .. T-1 when None) -> the rotated x, same shape."""
        pos = _positions(positions, x.shape[-2])
        inv_freq, factor = self.inv_freq, self.attention_factor
        if self.per_length:
            seq_len = int(pos.max(initial=0)) + 1
            freqs, factor = rope.rope_frequencies(self.head_dim, self.base, self.scaling, seq_len=seq_len, partial_rotary_factor=self.partial_rotary_factor)
            inv_freq = _tensor(freqs)
        n = inv_freq.shape[0]  # turning pairs: the first 2n dimensions rotate
        angle = _tensor(pos)[:, None] * inv_freq[None, :]  # (T, n)
        cos, sin = (factor * torch.cos(angle)).to(x.dtype), (factor * torch.sin(angle)).to(x.dtype)
        if self.layout == "half":
            a, b = x[..., :n], x[..., n : 2 * n]  # (..., T, n) each
            return torch.cat([a * cos - b * sin, a * sin + b * cos, x[..., 2 * n :]], dim=-1)
        a, b = x[..., 0 : 2 * n : 2], x[..., 1 : 2 * n : 2]  # (..., T, n) each
        turned = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)  # (..., T, 2n)
        return torch.cat([turned, x[..., 2 * n :]], dim=-1)


class T5RelativeBias(nn.Module):
    r"""T5's bias $B_{h,i,j} = v_{h,\,b(j - i)}$: one learned scalar per head and bucket, in an
    nn.Embedding(num_buckets, H) as Hugging Face's `T5Attention.relative_attention_bias`; buckets
    from `core.schemes.relative.t5_relative_bucket`. The values start normal with std `std`."""

    def __init__(
        self,
        n_heads: int,
        num_buckets: int = 32,
        max_distance: int = 128,
        *,
        bidirectional: bool = True,
        std: float = 0.02,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        relative.t5_relative_bucket(0, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)  # validates the settings
        self.bias = nn.Embedding(num_buckets, n_heads, dtype=torch.float64)
        nn.init.normal_(self.bias.weight, 0.0, std, generator=generator)
        self.num_buckets, self.max_distance, self.bidirectional = num_buckets, max_distance, bidirectional
        self._buckets: dict[tuple[int, int], torch.Tensor] = {}

    def buckets(self, q_len: int, k_len: int) -> torch.Tensor:
        """The bucket of every (query, key) pair, (Lq, Lk) int64, cached per size."""
        if (q_len, k_len) not in self._buckets:
            r = np.arange(k_len)[None, :] - np.arange(q_len)[:, None]  # key - query, (Lq, Lk)
            b = relative.t5_relative_bucket(r, bidirectional=self.bidirectional, num_buckets=self.num_buckets, max_distance=self.max_distance)
            self._buckets[(q_len, k_len)] = torch.from_numpy(b)
        return self._buckets[(q_len, k_len)]

    def forward(self, q_len: int, k_len: int | None = None) -> torch.Tensor:
        """Queries at 0 .. q_len-1, keys at 0 .. k_len-1 -> (H, Lq, Lk)."""
        k_len = q_len if k_len is None else k_len
        return self.bias(self.buckets(q_len, k_len)).permute(2, 0, 1)  # (H, Lq, Lk)

    def from_queries(self, q: torch.Tensor) -> torch.Tensor:
        """The self-attention bias for queries q (..., T, hd) at 0 .. T-1 (the values do not
        depend on q): (H, T, T)."""
        return self(q.shape[-2])


class ShawRelativeKeys(nn.Module):
    r"""Shaw et al.'s key term $q_i \cdot a^K_{\mathrm{clip}(j - i, k)} / \sqrt{d_h}$ (their eq. 5, the
    part of $e_{ij} = q_i \cdot (k_j + a^K_{ij}) / \sqrt{d_h}$ that positions add): 2k+1 trainable
    vectors of head width (nn.Embedding, initialised from `core.schemes.relative.shaw_table`), each scored
    against the query once and then gathered by clipped distance (no (Lq, Lk, hd) array), as the
    registry's Shaw hook does."""

    def __init__(self, max_relative_position: int, head_dim: int, *, seed: int = 0, std: float = 0.02) -> None:
        super().__init__()
        table = relative.shaw_table(max_relative_position, head_dim, seed=seed, std=std)
        self.k = max_relative_position
        self.table = nn.Embedding(table.shape[0], head_dim, dtype=torch.float64)
        with torch.no_grad():
            self.table.weight.copy_(_tensor(table))

    def forward(self, q: torch.Tensor, k_len: int | None = None) -> torch.Tensor:
        """q (..., Lq, hd) -> (..., Lq, Lk), for queries at 0 .. Lq-1 and keys at 0 .. Lk-1."""
        lq = q.shape[-2]
        k_len = lq if k_len is None else k_len
        ids = torch.from_numpy(relative.shaw_relative_positions(np.arange(lq), np.arange(k_len), self.k) + self.k)  # (Lq, Lk)
        per_id = q @ self.table.weight.to(q.dtype).T / math.sqrt(q.shape[-1])  # (..., Lq, 2k+1)
        return torch.gather(per_id, -1, ids.expand(*per_id.shape[:-1], k_len))  # (..., Lq, Lk)

    def from_queries(self, q: torch.Tensor) -> torch.Tensor:
        """The self-attention bias for queries q (..., T, hd) at 0 .. T-1: (..., T, T)."""
        return self(q)


class FormulaBias(nn.Module):
    r"""A bias written once for numpy and torch, `formula(**params, q_positions, k_positions, xp)`
    -> (H, Lq, Lk) (e.g. `core.schemes.kerple.kerple_log_bias`), with its parameters trainable:
    they start at `params` (the values the numpy hook draws), so the module starts where the
    registry's picture is. A scheme whose bias is such a formula needs no module of its own."""

    def __init__(self, params: dict[str, np.ndarray], formula) -> None:
        super().__init__()
        self.params = nn.ParameterDict({name: nn.Parameter(_tensor(value)) for name, value in params.items()})
        self.formula = formula

    def forward(self, q_len: int, k_len: int | None = None) -> torch.Tensor:
        """Queries at 0 .. q_len-1, keys at 0 .. k_len-1 -> (H, Lq, Lk)."""
        k_len = q_len if k_len is None else k_len
        dtype = next(iter(self.params.values())).dtype
        qp, kp = torch.arange(q_len, dtype=dtype), torch.arange(k_len, dtype=dtype)
        return self.formula(**dict(self.params.items()), q_positions=qp, k_positions=kp, xp=torch)

    def from_queries(self, q: torch.Tensor) -> torch.Tensor:
        """The self-attention bias for queries q (..., T, hd) at 0 .. T-1: (H, T, T)."""
        return self(q.shape[-2])
