"""Numbers the model page quotes about a position table, from its
core.analysis.position_analysis.TableAnalysis: where its largest value is, how many principal
components hold most of the variance, which dominant frequencies its dimensions share, and what
a learned table's path looks like (a fast ring around a slowly bending axis).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.analysis.position_analysis import TableAnalysis, step_angle


def largest_value(A: TableAnalysis) -> tuple[float, int, int]:
    """max |value| of the analysed table, and the position and dimension (original indices) where it is."""
    magnitude = np.abs(A.values)  # (n, d')
    row, col = np.unravel_index(int(np.argmax(magnitude)), magnitude.shape)
    return float(magnitude[row, col]), int(A.rows.indices[row]), int(A.cols.indices[col])


def components_for(explained: np.ndarray, share: float = 0.9) -> int:
    """The fewest leading principal components whose explained-variance ratios add up to `share`."""
    return int(np.searchsorted(np.cumsum(explained), share) + 1)


def far_offset(A: TableAnalysis, positions: int = 100) -> int:
    """The offset index (in analysed rows) about `positions` positions apart, at least 1 and
    within the table; 0 when the table has a single analysed row."""
    return min(A.offset_mean.size - 1, max(1, positions // A.rows.step))


def common_frequencies(dominant: np.ndarray, top: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """The `top` dominant frequencies (cycles per position, rounded to 6 decimals) most
    dimensions share, most shared first, and how many dimensions have each: ((k,), (k,))."""
    values, counts = np.unique(np.round(dominant, 6), return_counts=True)
    order = np.argsort(counts, kind="stable")[::-1][:top]
    return values[order], counts[order]


def times_median(norm: float, median: float) -> str:
    """How a row's norm compares with the median row norm, as the page writes it: '1.3× the median'. A
    median of 0 (at least half the rows are all zeros, as in a table of zeros) has no ratio: what is
    true is said instead."""
    if median > 0:
        return f"{norm / median:.2g}× the median"
    return "all zeros, as the median row is" if norm == 0 else "the median row is all zeros"


def period(frequency: float) -> str:
    """A period in positions, 1 / frequency, as the page writes it; '–' for frequency 0."""
    return f"{1 / frequency:,.1f}" if frequency > 0 else "–"


@dataclass(frozen=True)
class Ring:
    """The shape of a learned table's path over L positions: the angle PC 1-2 turns per position
    (degrees), how many dimensions peak within three frequency bins of PC 1's frequency, the
    cycles over the table of PCs 3 to 8, the cycle counts (below 0.1 cycles per position) most
    single dimensions are dominated by, and the share of dimensions dominated by one of them."""

    angle: float
    near_ring: int
    pc_cycles: list[int]
    slow_cycles: list[int]
    slow_share: float


def ring(A: TableAnalysis, L: int) -> Ring:
    """`Ring` of the analysed table A of L positions (the whole table: A.rows.step == 1)."""
    cycles = np.round(A.dominant * L).astype(int)  # (d',) dominant cycles over the table
    slow_cycles, counts = np.unique(np.round(A.dominant[A.dominant < 0.1] * L).astype(int), return_counts=True)
    slow = slow_cycles[np.argsort(counts, kind="stable")[::-1][:4]]
    return Ring(
        angle=step_angle(A.scores[:, :2]),
        near_ring=int(sum(abs(A.dominant * L - A.pc_dominant[0] * L) <= 3)),
        pc_cycles=sorted({int(round(f * L)) for f in A.pc_dominant[2:8]}),
        slow_cycles=sorted(int(c) for c in slow),
        slow_share=float(np.isin(cycles, slow).mean()),
    )


def component_columns(A: TableAnalysis, S: TableAnalysis) -> dict[str, list[str]]:
    """The page's table of the kept principal components of A beside the sinusoid S: variance
    (share, 1 decimal %), dominant frequency (4 decimals) and period, by column."""
    kept = A.scores.shape[1]
    return {
        "component": [f"PC {i + 1}" for i in range(kept)],
        "variance": [f"{v:.1%}" for v in A.explained[:kept]],
        "dominant frequency (cycles/position)": [f"{f:.4f}" for f in A.pc_dominant],
        "period (positions)": [period(f) for f in A.pc_dominant],
        "sinusoid: variance": [f"{v:.1%}" for v in S.explained[:kept]],
        "sinusoid: period (positions)": [period(f) for f in S.pc_dominant],
    }


def frequency_columns(frequencies: np.ndarray, counts: np.ndarray, L: int) -> dict[str, list]:
    """The page's table of shared dominant frequencies (from `common_frequencies`) over a table
    of L positions: frequency, cycles over the table, period, and how many dimensions, by column."""
    return {
        "dominant frequency (cycles/position)": [f"{f:.4f}" for f in frequencies],
        "cycles over the table": [f"{f * L:,.1f}" for f in frequencies],
        "period (positions)": [period(f) for f in frequencies],
        "dimensions": [int(n) for n in counts],
    }
