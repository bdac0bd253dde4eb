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
from core.schemes.formula import Expr, Formula, table_checks


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


def binary_positions(max_len: int) -> np.ndarray:
    """Bit b of p in column b, least significant first (the fastest-flipping column first,
    as in the sinusoid). Returns (L, binary_width(L)) of 0.0/1.0."""
    pos = _positions(max_len).astype(np.int64)
    return ((pos[:, None] >> np.arange(binary_width(max_len))[None, :]) & 1).astype(np.float64)


def one_hot_positions(max_len: int) -> np.ndarray:
    """Row p is the unit vector e_p of a table of max_len rows. Returns (L, L)."""
    return np.eye(max_len)


def neighbour_distances(codes: np.ndarray) -> np.ndarray:
    """Euclidean distance between the codes of positions p and p+1. Returns (L-1,)."""
    return np.linalg.norm(np.diff(codes, axis=0), axis=1)


# --- generated code (core.files.codegen puts it into its template) -------------------------------


def none_source(d_model: int) -> Formula:
    """NoPE: zeros, so code written for an added encoding still runs."""
    return Formula(
        "No positional encoding (NoPE)",
        "PE(p) = 0: nothing is added, so attention sees a bag of words (a causal mask aside).\nThe function returns zeros so that code written for "
        "an added encoding still runs.",
        (("D_MODEL", d_model, "width of each token vector"),),
        "code = np.zeros((p.size, D_MODEL))",
        "code = torch.zeros(p.numel(), D_MODEL, dtype=torch.float64)",
        "NoPositionalEncoding",
        what="{label}: nothing is added; the code returns zeros of width d_model = {d:,}, so a model written for an added encoding runs without one.",
    )


def integer_source(d_model: int) -> Formula:
    """The integer code p in every dimension, as generated code."""
    return Formula(
        "Integer positions",
        "PE(p)_j = p in every dimension j: unbounded, it grows with the position.",
        (("D_MODEL", d_model, "width of each token vector"),),
        "code = np.repeat(p[:, None], D_MODEL, axis=1)  # (L, D_MODEL)",
        "code = p[:, None].repeat(1, D_MODEL)  # (L, D_MODEL)",
        "IntegerPositions",
    )


def fraction_source(d_model: int, max_len: int) -> Formula:
    """The fraction p / L in every dimension, as generated code."""
    return Formula(
        "Fraction of the length",
        "PE(p)_j = p / MAX_LEN in every dimension j: bounded, but a position's code depends on the length.",
        (("D_MODEL", d_model, "width of each token vector"), ("MAX_LEN", max_len, "the sequence length L")),
        "code = np.repeat((p / MAX_LEN)[:, None], D_MODEL, axis=1)  # (L, D_MODEL)",
        "code = (p / MAX_LEN)[:, None].repeat(1, D_MODEL)  # (L, D_MODEL)",
        "FractionPositions",
    )


def binary_source(d_model: int, max_len: int) -> Formula:
    """The bits of p (as the registry's binary hook), as generated code."""
    return Formula(
        "Binary positions",
        "PE(p)_b = bit b of p, least significant first, in the first n_bits columns; zeros after.\nn_bits = min(D_MODEL, bits needed to count to "
        "max(MAX_LEN, largest position + 1) - 1).",
        (("D_MODEL", d_model, "width of each token vector"), ("MAX_LEN", max_len, "positions 0 .. MAX_LEN-1 set the number of bits")),
        """
        last = int(p.max(initial=0))
        n_bits = min(D_MODEL, max(1, (max(last + 1, MAX_LEN) - 1).bit_length()))
        code = np.zeros((p.size, D_MODEL))
        code[:, :n_bits] = (p.astype(np.int64)[:, None] >> np.arange(n_bits)[None, :]) & 1  # (L, n_bits)
        """,
        """
        last = max(int(p.max()), 0) if p.numel() else 0
        n_bits = min(D_MODEL, max(1, (max(last + 1, MAX_LEN) - 1).bit_length()))
        code = torch.zeros(p.numel(), D_MODEL, dtype=torch.float64)
        code[:, :n_bits] = ((p.long()[:, None] >> torch.arange(n_bits)[None, :]) & 1).double()  # (L, n_bits)
        """,
        "BinaryPositions",
    )


def one_hot_source(d_model: int, max_len: int) -> Formula:
    """One-hot rows e_p of a table of min(d_model, max_len) rows, as generated code."""
    return Formula(
        "One-hot positions",
        "PE(p) = e_p, 1 in column p and 0 elsewhere: no two positions are nearer than any other,\nand positions from TABLE_ROWS = min(D_MODEL, "
        "MAX_LEN) on have no code.",
        (
            ("D_MODEL", d_model, "width of each token vector"),
            ("MAX_LEN", max_len, "positions the table was built for"),
            ("TABLE_ROWS", Expr("min(D_MODEL, MAX_LEN)"), "first position without a code"),
        ),
        """
        code = np.zeros((p.size, D_MODEL))
        code[np.arange(p.size), p.astype(np.int64)] = 1.0
        """,
        """
        code = torch.zeros(p.numel(), D_MODEL, dtype=torch.float64)
        code[torch.arange(p.numel()), p.long()] = 1.0
        """,
        "OneHotPositions",
        **table_checks("one-hot"),
    )
