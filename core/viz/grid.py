"""Display grids: which rows and columns a figure draws, and the sentence that says so.

A view costs what the screen shows: a figure draws at most a few hundred to a thousand
positions or dimensions, evenly strided, and says when it shows a sample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sample:
    """Evenly strided indices start, start+step, ... below stop, at most `limit` of them."""

    start: int
    stop: int
    step: int

    @property
    def indices(self) -> np.ndarray:
        """The sampled indices, (n,) int64."""
        return np.arange(self.start, self.stop, self.step, dtype=np.int64)

    @property
    def count(self) -> int:
        return len(range(self.start, self.stop, self.step))

    @property
    def total(self) -> int:
        return self.stop - self.start

    @property
    def is_sample(self) -> bool:
        return self.step > 1

    def note(self, noun: str) -> str:
        """'every 16th position (512 of 8,192 shown)', or '' when everything is shown."""
        if not self.is_sample:
            return ""
        return f"every {ordinal(self.step)} {noun} ({self.count:,} of {self.total:,} shown)"


def strided(stop: int, limit: int, *, start: int = 0) -> Sample:
    """At most `limit` evenly strided indices covering [start, stop)."""
    if limit < 1:
        raise ValueError("limit must be at least 1.")
    n = max(stop - start, 0)
    step = max(1, -(-n // limit))
    return Sample(start, max(stop, start), step)


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th', 23 -> '23rd', 1000 -> '1,000th'."""
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def envelope(y: np.ndarray, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Shrink a long series for drawing without losing its extremes: split it into
    max_points // 2 buckets and keep each bucket's minimum and maximum, in index order.
    Returns (indices, values), both at most max_points long; short series come back whole."""
    y = np.asarray(y)
    n = y.size
    if n <= max_points:
        return np.arange(n), y
    buckets = max(1, max_points // 2)
    edges = np.linspace(0, n, buckets + 1).astype(np.int64)
    idx: list[int] = []
    for b in range(buckets):
        seg = y[edges[b] : edges[b + 1]]
        i_lo, i_hi = edges[b] + int(np.argmin(seg)), edges[b] + int(np.argmax(seg))
        idx.extend(sorted({i_lo, i_hi}))
    keep = np.asarray(idx, dtype=np.int64)
    return keep, y[keep]
