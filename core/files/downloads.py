"""The numbers behind a view as files: the current matrix of a scheme (what the code page draws
and offers), bounded to what a file may hold, written as .npy or .csv."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from core.schemes.registry import SCHEMES, Setting

MAX_NPY_VALUES = 4_000_000  # 32 MB of float64
MAX_CSV_VALUES = 1_000_000  # about 20 MB of text


@dataclass(frozen=True)
class Extent:
    """How much of the current matrix a file holds: positions 0 .. positions-1 (rows, or queries
    and keys of a bias) out of `total`, and how many numbers that is out of `full_values`."""

    positions: int
    total: int
    values: int
    full_values: int

    @property
    def complete(self) -> bool:
        return self.positions == self.total


def extent(scheme_name: str, setting: Setting, limit: int) -> Extent:
    """The first positions of the current matrix (see `current_matrix`) that fit in `limit`
    numbers: (n, width) per position, n at most the rows a table has; (H, n, n) for a picture
    per pair (a bias). At least one position. Returns an Extent."""
    scheme = SCHEMES[scheme_name]
    if scheme.per == "pair":
        total = setting.train_len
        per = setting.n_heads  # numbers per (query, key) pair
        n = max(1, min(total, int((limit // per) ** 0.5)))
        return Extent(n, total, per * n * n, per * total * total)
    rows = scheme.max_position(setting)
    total = min(setting.train_len, rows) if rows is not None else setting.train_len
    n = max(1, min(total, limit // setting.width))
    return Extent(n, total, n * setting.width, total * setting.width)


def current_matrix(scheme_name: str, setting: Setting, positions) -> np.ndarray:
    """What the page draws and offers as a file at whole `positions` (1-D): the scheme's
    `picture` (`Scheme.picture`): the code of each position, or for RoPE the unit vector of
    equal entries 1/sqrt(width) rotated to each position with the setting's layout and scaling
    (dynamic at seq_len = setting.train_len, the whole context; the generated
    `rotate(x, np.arange(train_len))` gives the same rows), (n, width); for a bias the bias
    between every query and key, (H, n, n). Settings that core refuses raise its ValueError.
    Returns a float64 numpy array."""
    return SCHEMES[scheme_name].picture(positions, setting).values


def to_npy(array) -> bytes:
    """The array as a .npy file (np.save), ready for np.load."""
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array))
    return buffer.getvalue()


def to_csv(array) -> str:
    """A .csv of the array, each value written exactly (Python's shortest round-trip repr), one
    row per position. A 2-D (positions, width) matrix: position, dim_0 .. dim_{d-1}. A 3-D
    (H, Lq, Lk) bias: head, query, key_0 .. key_{Lk-1}, one row per head and query."""
    a = np.asarray(array, dtype=np.float64) + 0.0  # + 0.0 writes -0.0 as 0.0
    if a.ndim == 3:
        header = ["head", "query"] + [f"key_{j}" for j in range(a.shape[2])]
        labels = [f"{h},{i}" for h in range(a.shape[0]) for i in range(a.shape[1])]
        rows = a.reshape(-1, a.shape[2])  # (H * Lq, Lk)
    else:
        header = ["position"] + [f"dim_{j}" for j in range(a.shape[1])]
        labels = [str(i) for i in range(a.shape[0])]
        rows = a
    lines = [",".join(header)]
    lines += [label + "," + ",".join(map(repr, row)) for label, row in zip(labels, rows.tolist())]
    return "\n".join(lines) + "\n"
