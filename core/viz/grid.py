"""Display grids: which rows and columns a figure draws, and the sentence that says so.

A view costs what the screen shows: a figure draws at most a few hundred to a thousand
positions or dimensions, and says when it shows a sample. A sample must not change what the
figure shows, so there are three ways to pick:

- `strided`: evenly spaced indices, for smooth things drawn over a long range;
- `pairs`: whole (sin, cos) pairs, evenly spaced, for the columns of a sinusoid (a stride of
  2 over the interleaved columns would keep every sine and drop every cosine);
- `window`: consecutive indices from a start, for discrete codes (binary, one-hot), where a
  stride would skip the very flips the picture is about.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sample:
    """Evenly strided indices start, start+step, ... below stop. `full`, when given, is the
    length of the range a window was cut from (positions 0 .. full-1), so the note can say the
    figure shows part of it."""

    start: int
    stop: int
    step: int
    full: int | None = None

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
        return self.step > 1 or (self.full is not None and self.count < self.full)

    uniform = True  # evenly spaced: a heatmap draws it on the indices themselves

    def note(self, noun: str) -> str:
        """'every 16th position (512 of 8,192 shown)', 'positions 0 to 63 of 8,192', or '' when everything is shown."""
        if self.step > 1:
            return f"every {ordinal(self.step)} {noun} ({self.count:,} of {self.total:,} shown)"
        if self.is_sample and self.count:
            return f"{noun}s {self.start:,} to {self.stop - 1:,} of {self.full:,}"
        return ""


@dataclass(frozen=True, eq=False)
class Picked:
    """Chosen indices that need not be evenly spaced (whole pairs of columns), in drawing order,
    of `total`; `phrase` names what was kept ('every 8th (sin, cos) pair'). A heatmap draws
    them side by side, one slot each, with the true index on the ticks and in the hover."""

    chosen: tuple[int, ...]
    total: int
    phrase: str = ""

    uniform = False

    @property
    def indices(self) -> np.ndarray:
        return np.asarray(self.chosen, dtype=np.int64)

    @property
    def count(self) -> int:
        return len(self.chosen)

    @property
    def is_sample(self) -> bool:
        return self.count < self.total

    def note(self, noun: str) -> str:
        """'every 8th (sin, cos) pair (512 of 8,192 dimensions shown)', or '' when all are shown."""
        if not self.is_sample:
            return ""
        return f"{self.phrase} ({self.count:,} of {self.total:,} {noun}s shown)"


def strided(stop: int, limit: int, *, start: int = 0) -> Sample:
    """At most `limit` evenly strided indices covering [start, stop)."""
    if limit < 1:
        raise ValueError("limit must be at least 1.")
    n = max(stop - start, 0)
    step = max(1, -(-n // limit))
    return Sample(start, max(stop, start), step)


def window(stop: int, limit: int, *, start: int = 0) -> Sample:
    """At most `limit` consecutive indices from `start` (clamped so the window fits in
    [0, stop)), remembering that they are part of 0 .. stop-1."""
    if limit < 1:
        raise ValueError("limit must be at least 1.")
    start = max(0, min(start, stop - limit))
    return Sample(start, min(stop, start + limit), 1, full=stop)


def pairs(sin_columns: np.ndarray, cos_columns: np.ndarray, limit: int) -> Sample | Picked:
    """Whole (sin, cos) pairs of a sinusoidal table, at most `limit` columns: pair i is the two
    columns sin_columns[i] and cos_columns[i] (a lone last sine has no cosine: cos_columns may be
    one shorter). Every column when they fit; else pairs 0, s, 2s, ... with both members, in the
    table's own column order (interleaved: s0 c0 s8 c8 ...; sines first: s0 s8 ... c0 c8 ...).
    Returns a Sample of all columns, or a Picked."""
    sin_columns, cos_columns = np.asarray(sin_columns, dtype=np.int64), np.asarray(cos_columns, dtype=np.int64)
    total = sin_columns.size + cos_columns.size
    if total <= limit:
        return Sample(0, total, 1)
    step = max(1, -(-sin_columns.size // max(1, limit // 2)))
    kept = np.arange(0, sin_columns.size, step)
    chosen = np.sort(np.concatenate([sin_columns[kept], cos_columns[kept[kept < cos_columns.size]]]))
    return Picked(tuple(int(c) for c in chosen), total, f"every {ordinal(step)} (sin, cos) pair")


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
