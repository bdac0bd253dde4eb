r"""Measuring a table of position vectors P (L positions x d dimensions), learned or closed-form.

The same functions measure a trained model's table and the sinusoid of the same width, so the
two can be compared number for number.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.viz.grid import Sample, strided

_TINY = 1e-300
PCS_KEPT = 10  # principal components whose path an analysis keeps


def _table(table: np.ndarray) -> np.ndarray:
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2 or table.size == 0:
        raise ValueError(f"A position table must be 2-D and non-empty (positions × width), got shape {table.shape}.")
    return table


def unit_rows(table: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (an all-zero row stays zero). Returns (L, d)."""
    table = _table(table)
    norm = np.linalg.norm(table, axis=1, keepdims=True)
    return table / np.maximum(norm, _TINY)


def cosine_similarity(table: np.ndarray) -> np.ndarray:
    """Cosine similarity between every two positions' vectors, C[p, q]; 0 where a row is all
    zeros. Returns (L, L), symmetric, 1 on the diagonal for non-zero rows."""
    unit = unit_rows(table)
    return np.clip(unit @ unit.T, -1.0, 1.0)  # (L, L)


def neighbour_cosine(table: np.ndarray, offset: int = 1) -> np.ndarray:
    """cos(P_p, P_{p+offset}) for p = 0 .. L-1-offset: how alike each position is to the one
    `offset` rows later. Returns (max(L - offset, 0),)."""
    unit = unit_rows(table)
    if offset < 1:
        raise ValueError(f"offset must be at least 1, got {offset}.")
    return np.einsum("pd,pd->p", unit[:-offset], unit[offset:]) if offset < unit.shape[0] else np.zeros(0)


def cosine_by_offset(similarity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation of C[p, p+k] over p, for k = 0 .. L-1: the k-th diagonal of
    a similarity matrix. For the sinusoid each diagonal is constant (std 0), since its
    similarity depends on the offset only. Returns two (L,) arrays."""
    n = similarity.shape[0]
    mean, std = np.empty(n), np.empty(n)
    for k in range(n):
        diagonal = np.diagonal(similarity, offset=k)
        mean[k], std[k] = diagonal.mean(), diagonal.std()
    return mean, std


def nearest_other(similarity: np.ndarray) -> np.ndarray:
    """For each row p, the other row q != p with the largest similarity. Returns (L,) int
    (all zeros when L = 1)."""
    s = np.array(similarity, dtype=np.float64, copy=True)
    if s.shape[0] < 2:
        return np.zeros(s.shape[0], dtype=np.int64)
    np.fill_diagonal(s, -np.inf)
    return np.argmax(s, axis=1)


def pca(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Principal components of the rows: scores $U\Sigma$ (L, r) and explained-variance
    ratios (r,), r = min(L, d), largest first. Each component's sign is fixed so that its
    largest-magnitude score is positive (as scikit-learn's svd_flip does for U), so the result
    is deterministic. A table whose rows are all equal explains nothing: ratios are 0."""
    x = _table(table)
    x = x - x.mean(axis=0)  # (L, d)
    u, sigma, _ = np.linalg.svd(x, full_matrices=False)  # u (L, r), sigma (r,)
    biggest = np.argmax(np.abs(u), axis=0)
    signs = np.sign(u[biggest, np.arange(u.shape[1])])
    signs[signs == 0] = 1.0
    scores = u * signs * sigma  # (L, r)
    var = sigma**2
    total = var.sum()
    return scores, (var / total if total > 0 else np.zeros_like(var))


def path_turns(coords: np.ndarray) -> float:
    """How many times a 2-D path winds around the origin (the centroid, for PCA scores): the
    unwrapped angle swept from the first point to the last over 2π, unsigned. A circle
    traced once gives 1; a path that goes out and comes back gives about 0."""
    coords = np.asarray(coords, dtype=np.float64)
    if coords.shape[0] < 2:
        return 0.0
    angle = np.unwrap(np.arctan2(coords[:, 1], coords[:, 0]))
    return float(abs(angle[-1] - angle[0]) / (2 * np.pi))


def step_angle(coords: np.ndarray) -> float:
    """Median angle, in degrees, that a 2-D path turns around the origin from one point to the
    next (0 .. 180): 360 / this is the period in rows of a steady rotation."""
    coords = np.asarray(coords, dtype=np.float64)
    if coords.shape[0] < 2:
        return 0.0
    turn = np.diff(np.unwrap(np.arctan2(coords[:, 1], coords[:, 0])))
    return float(np.degrees(np.median(np.abs(turn))))


def outliers(values: np.ndarray, *, below: float = 4.0) -> np.ndarray:
    """Indices whose value lies more than `below` median absolute deviations under the median
    (robust: a few odd values do not move the threshold). Returns (k,) int."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return np.zeros(0, dtype=np.int64)
    median = np.median(values)
    mad = np.median(np.abs(values - median))
    return np.flatnonzero(values < median - below * max(mad, 1e-12))


def dimension_spectrum(table: np.ndarray, step: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    r"""Power spectrum of each dimension over position, mean removed: power[j, k] =
    $|\text{rfft}(P_{:,j} - \bar P_j)_k|^2$, at k / (L·step) cycles per position (rows `step`
    positions apart, as when a long table is sampled). Returns (freqs (L//2 + 1,), power (d, L//2 + 1))."""
    x = _table(table)
    x = x - x.mean(axis=0)
    spec = np.fft.rfft(x, axis=0)  # (L//2 + 1, d)
    return np.fft.rfftfreq(x.shape[0], d=step), (spec.real**2 + spec.imag**2).T


def dominant_frequency(freqs: np.ndarray, power: np.ndarray) -> np.ndarray:
    """The frequency with the most power in each dimension, ignoring f = 0 (the mean, already
    removed). A dimension that does not vary at all, or a table of one or two positions, gives 0.
    Returns (d,) in the units of `freqs` (cycles per position)."""
    if freqs.size < 2:
        return np.zeros(power.shape[0])
    k = np.argmax(power[:, 1:], axis=1) + 1
    return np.where(power[:, 1:].max(axis=1) > 0, freqs[k], 0.0)


def peak_share(power: np.ndarray, *, width: int = 1) -> np.ndarray:
    """Share of each dimension's power within `width` bins of its strongest frequency (f > 0):
    near 1 for a pure sinusoid (a little less when its frequency falls between bins), small
    for noise, which spreads its power over all bins. Returns (d,) in [0, 1]."""
    if power.shape[1] < 2:
        return np.zeros(power.shape[0])
    ac = power[:, 1:]
    k = np.argmax(ac, axis=1)
    bins = np.arange(ac.shape[1])
    near = np.abs(bins[None, :] - k[:, None]) <= width  # (d, n_freq - 1)
    total = ac.sum(axis=1)
    return np.where(total > 0, (ac * near).sum(axis=1) / np.maximum(total, _TINY), 0.0)


def fit_sinusoid(values: np.ndarray, frequency: float, positions: np.ndarray) -> tuple[np.ndarray, float]:
    r"""Least-squares $a\cos(2\pi f p) + b\sin(2\pi f p) + c$ through one dimension's values,
    and the share of its variance the fit explains ($R^2$; 1 = exactly a sinusoid at f).
    Returns (fitted (L,), r2)."""
    y = np.asarray(values, dtype=np.float64)
    p = np.asarray(positions, dtype=np.float64)
    basis = np.column_stack([np.cos(2 * np.pi * frequency * p), np.sin(2 * np.pi * frequency * p), np.ones_like(p)])  # (L, 3)
    coef, *_ = np.linalg.lstsq(basis, y, rcond=None)
    fitted = basis @ coef
    spread = ((y - y.mean()) ** 2).sum()
    return fitted, (1.0 - float(((y - fitted) ** 2).sum() / spread) if spread > 0 else 1.0)


def best_sinusoid(values: np.ndarray, positions: np.ndarray, frequency: float, spacing: float, *, tries: int = 41) -> tuple[float, np.ndarray, float]:
    """`fit_sinusoid` at the best of `tries` frequencies within one bin `spacing` of
    `frequency` (an FFT peak only locates a frequency to within a bin, 1/L cycles per position).
    Returns (frequency, fitted (L,), r2)."""
    candidates = np.linspace(max(frequency - spacing, 0.0), frequency + spacing, tries)
    fits = [fit_sinusoid(values, f, positions) for f in candidates]
    k = int(np.argmax([r2 for _, r2 in fits]))
    return float(candidates[k]), fits[k][0], fits[k][1]


@dataclass(frozen=True)
class TableAnalysis:
    """Everything the model page draws about one table, measured once on `rows` (all
    positions, or an even sample of a long table) and `cols` (all dimensions, or a sample)."""

    rows: Sample  # the positions analysed
    cols: Sample  # the dimensions analysed
    values: np.ndarray  # (n, d') the analysed rows and columns of the table
    norms: np.ndarray  # (n,) length of each analysed row
    cosine: np.ndarray  # (n, n)
    neighbour: np.ndarray  # (n - 1,) cosine between consecutive analysed rows
    offset_mean: np.ndarray  # (n,) mean cosine at offset k * rows.step
    offset_std: np.ndarray  # (n,)
    nearest: np.ndarray  # (n,) index (into rows) of the most similar other row
    scores: np.ndarray  # (n, k) the path in the first k = max(3, min(r, PCS_KEPT)) principal directions
    explained: np.ndarray  # (r,) explained-variance ratio of every component
    pc_dominant: np.ndarray  # (k,) dominant frequency of each kept component over position
    freqs: np.ndarray  # (n_freq,) cycles per position
    power_share: np.ndarray  # (d', n_freq) each dimension's power as a share of its total
    dominant: np.ndarray  # (d',) cycles per position
    peak: np.ndarray  # (d',) share of power at the dominant frequency (+-1 bin)

    @property
    def turns(self) -> float:
        """Windings of the PC1-PC2 path around its centre."""
        return path_turns(self.scores[:, :2])

    @property
    def nearest_is_adjacent(self) -> float:
        """Share of analysed positions whose most similar other position is a neighbour row."""
        n = self.nearest.size
        if n < 2:
            return 0.0
        return float(np.mean(np.abs(self.nearest - np.arange(n)) == 1))


def analyse(table: np.ndarray, *, max_rows: int = 1024, max_cols: int = 2048) -> TableAnalysis:
    """Measure a table: at most `max_rows` evenly strided positions and `max_cols` dimensions
    (a long or wide upload is analysed on a sample; `rows.note`/`cols.note` say so).
    Returned arrays are read-only, so a cached analysis cannot be changed by a caller."""
    table = _table(table)
    rows, cols = strided(table.shape[0], max_rows), strided(table.shape[1], max_cols)
    x = table[rows.start : rows.stop : rows.step, cols.start : cols.stop : cols.step].copy()  # (n, d'), our own copy
    cos = cosine_similarity(x)
    mean, std = cosine_by_offset(cos)
    scores, explained = pca(x)
    kept = max(3, min(scores.shape[1], PCS_KEPT))
    scores = np.pad(scores, ((0, 0), (0, max(0, kept - scores.shape[1]))))[:, :kept]  # (n, kept)
    pc_freqs, pc_power = dimension_spectrum(scores, step=rows.step)
    freqs, power = dimension_spectrum(x, step=rows.step)
    totals = power[:, 1:].sum(axis=1, keepdims=True)
    result = TableAnalysis(
        rows=rows,
        cols=cols,
        values=x,
        norms=np.linalg.norm(x, axis=1),
        cosine=cos,
        neighbour=neighbour_cosine(x),
        offset_mean=mean,
        offset_std=std,
        nearest=nearest_other(cos),
        scores=scores,
        explained=explained,
        pc_dominant=dominant_frequency(pc_freqs, pc_power),
        freqs=freqs,
        power_share=power / np.maximum(totals, _TINY),
        dominant=dominant_frequency(freqs, power),
        peak=peak_share(power),
    )
    for value in vars(result).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return result
