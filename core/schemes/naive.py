"""The naive position codes a learner tries first, each with the flaw the app draws.

- integer: PE(p) = p, unbounded: at position 500 it drowns a word vector of norm ~1.
- fraction: PE(p) = p / L, bounded, but the same position gets a different code in
  sentences of different lengths.
- binary: the bits of p, bounded and unique, but neighbours can differ in many bits at once
  (7 -> 8 flips four), so distance jumps instead of growing smoothly.
- one-hot: a separate axis per position: every pair of distinct positions is equally far
  apart (no nearness), and there is no code at all past the table size.
"""

from __future__ import annotations

import numpy as np


def _positions(max_len: int) -> np.ndarray:
    if int(max_len) != max_len or max_len < 1:
        raise ValueError(f"max_len must be a whole number of at least 1, got {max_len!r}.")
    return np.arange(max_len, dtype=np.float64)


def integer_positions(max_len: int) -> np.ndarray:
    """PE(p) = p as a single feature. Returns (L, 1)."""
    return _positions(max_len)[:, None]


def fraction_positions(max_len: int) -> np.ndarray:
    """PE(p) = p / L for a sentence of length L (so the last word gets (L-1)/L). Returns (L, 1)."""
    return (_positions(max_len) / max_len)[:, None]


def binary_width(max_len: int) -> int:
    """Bits needed to write positions 0 .. max_len-1 (at least 1)."""
    return max(1, int(max_len - 1).bit_length())


def binary_positions(max_len: int, n_bits: int | None = None) -> np.ndarray:
    """Bit b of p in column b, least significant first (the fastest-flipping column first,
    as in the sinusoid). Returns (L, n_bits) of 0.0/1.0."""
    pos = _positions(max_len).astype(np.int64)
    n_bits = binary_width(max_len) if n_bits is None else n_bits
    if n_bits < binary_width(max_len):
        raise ValueError(f"{n_bits} bits cannot count to {max_len - 1}.")
    return ((pos[:, None] >> np.arange(n_bits)[None, :]) & 1).astype(np.float64)


def one_hot_positions(max_len: int, table_size: int | None = None) -> np.ndarray:
    """Row p is the unit vector e_p of a table with `table_size` rows (default max_len).
    A position at or past the table size has no code: ValueError. Returns (L, table_size)."""
    size = max_len if table_size is None else table_size
    if max_len > size:
        raise ValueError(f"a one-hot table of {size} positions has no code for position {size} or later.")
    return np.eye(max_len, size)


def neighbour_distances(codes: np.ndarray) -> np.ndarray:
    """Euclidean distance between the codes of positions p and p+1. Returns (L-1,)."""
    return np.linalg.norm(np.diff(codes, axis=0), axis=1)
