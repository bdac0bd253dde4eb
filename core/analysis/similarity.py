r"""Similarity and distance between sinusoidal position vectors, computed as functions of the offset.

For the paper's encoding each (sin, cos) pair contributes
$\sin p\omega \sin q\omega + \cos p\omega \cos q\omega = \cos((p-q)\omega)$ to the dot product,
so with n = floor(d/2) full pairs

$$PE(p)\cdot PE(q) = S(p-q) + [d\ \text{odd}]\,\sin p\omega_m \sin q\omega_m,\qquad S(\delta) = \sum_{i<n} \cos(\delta\,\omega_i).$$

S is evaluated for many offsets at once without an L x L product: writing the offset as
a*B + b, $e^{i(aB+b)\omega} = e^{iaB\omega}\,e^{ib\omega}$, so S over all offsets is the real part
of one (L/B x n) @ (n x B) matrix product.
All functions are layout-free: the layouts only permute columns, which changes no dot
product, norm or distance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.schemes.sinusoidal import pair_frequencies, sinusoidal_encoding


def cos_sum_arith(start: float, step: float, count: int, omega: np.ndarray) -> np.ndarray:
    r"""$\sum_i \cos((\text{start} + m\,\text{step})\,\omega_i)$ for m = 0 .. count-1.

    Cost is about (count/B + B) * n cosines plus one matrix product, B = ceil(sqrt(count)),
    instead of count * n cosines. Returns (count,) float64.
    """
    omega = np.asarray(omega, dtype=np.float64)
    if count <= 0:
        return np.zeros(0)
    if omega.size == 0:
        return np.zeros(count)
    block = int(np.ceil(np.sqrt(count)))
    n_blocks = -(-count // block)
    coarse = (start + np.arange(n_blocks) * block * step)[:, None] * omega[None, :]  # (A, n)
    fine = (np.arange(block) * step)[:, None] * omega[None, :]  # (B, n)
    # Re(e^{ia} e^{ib}) = cos a cos b - sin a sin b
    total = np.cos(coarse) @ np.cos(fine).T - np.sin(coarse) @ np.sin(fine).T  # (A, B)
    return total.reshape(-1)[:count]


def _split(d_model: int, base: float) -> tuple[np.ndarray, float | None]:
    """Frequencies of the full pairs, and the lone sine's frequency when d is odd."""
    omega = pair_frequencies(d_model, base)
    if d_model % 2:
        return omega[:-1], float(omega[-1])
    return omega, None


def pair_dot_by_offset(max_offset: int, d_model: int, base: float = 10_000.0, *, step: int = 1) -> np.ndarray:
    r"""$S(\delta)$ for $\delta = 0, \text{step}, 2\,\text{step}, \dots$ up to max_offset: the dot product
    of two positions delta apart over the full pairs only (all of it when d is even).
    Returns (max_offset // step + 1,)."""
    omega, _ = _split(d_model, base)
    return cos_sum_arith(0.0, float(step), max_offset // step + 1, omega)


def pair_distance_sq(offsets: np.ndarray, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""$\sum_i 4\sin^2(\delta\,\omega_i/2)$ over the full (sin, cos) pairs for each offset δ: the squared distance
    $\lVert PE(p + \delta) - PE(p) \rVert^2$ for even d, whatever p (for odd d, its pairs' part). No cancellation,
    unlike $d - 2S(\delta)$. Returns (n,)."""
    omega, _ = _split(d_model, base)
    return (4.0 * np.sin(np.outer(np.asarray(offsets, dtype=np.float64), omega) / 2.0) ** 2).sum(axis=1)


def row_norm(positions: np.ndarray, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Closed-form norm of PE(p): $\sqrt{d/2}$ for even d; for odd d,
    $\sqrt{(d-1)/2 + \sin^2(p\,\omega_m)}$, between $\sqrt{(d-1)/2}$ and $\sqrt{(d+1)/2}$. Returns (n,)."""
    pos = np.asarray(positions, dtype=np.float64)
    _, lone = _split(d_model, base)
    sq = np.full(pos.shape, (d_model // 2) * 1.0)
    if lone is not None:
        sq = sq + np.sin(pos * lone) ** 2
    return np.sqrt(sq)


def similarity_matrix(sample_start: int, sample_step: int, count: int, d_model: int, base: float = 10_000.0, *, kind: str = "dot") -> np.ndarray:
    """Dot-product ("dot") or cosine ("cosine") similarity between the positions
    start, start+step, ..., taken from the offset function, not from an L x d product.
    Returns (count, count)."""
    if kind not in ("dot", "cosine"):
        raise ValueError(f"kind must be 'dot' or 'cosine', got {kind!r}.")
    pos = sample_start + sample_step * np.arange(count, dtype=np.float64)
    s = pair_dot_by_offset((count - 1) * sample_step, d_model, base, step=sample_step)  # (count,)
    k = np.arange(count)
    sim = s[np.abs(k[:, None] - k[None, :])]  # (count, count), Toeplitz
    _, lone = _split(d_model, base)
    if lone is not None:
        sim = sim + np.outer(np.sin(pos * lone), np.sin(pos * lone))
    if kind == "cosine":
        norm = row_norm(pos, d_model, base)
        sim = sim / np.outer(norm, norm)
    return sim


def sines_only_cosine(positions: np.ndarray, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""The counter-example: cosine similarity between positions when every pair keeps only its
    sine, $v(p) = (\sin p\omega_0, \sin p\omega_1, \dots)$ with the sinusoid's frequencies. Then
    $v(p)\cdot v(q) = \sum_i \sin p\omega_i \sin q\omega_i = \tfrac12\sum_i [\cos (p-q)\omega_i - \cos (p+q)\omega_i]$:
    the second sum depends on where the positions are, so the matrix is no longer constant along
    its diagonals, and no matrix maps v(p) to v(p + k) for every p. Position 0 is the zero vector:
    its row and column are NaN. Returns (n, n)."""
    pos = np.asarray(positions, dtype=np.float64)
    v = np.sin(pos[:, None] * pair_frequencies(d_model, base)[None, :])  # (n, ceil(d/2))
    norm = np.linalg.norm(v, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (v @ v.T) / np.outer(norm, norm)


def dot_profile(reference: int, max_len: int, d_model: int, base: float = 10_000.0) -> np.ndarray:
    """PE(reference) . PE(p) for every p in 0 .. max_len-1, exact, from the offset function.
    Returns (max_len,)."""
    if not 0 <= reference < max_len:
        raise ValueError(f"reference position must lie in 0 .. {max_len - 1}, got {reference}.")
    p = np.arange(max_len)
    s = pair_dot_by_offset(max(reference, max_len - 1 - reference), d_model, base)
    prof = s[np.abs(p - reference)]
    _, lone = _split(d_model, base)
    if lone is not None:
        prof = prof + np.sin(reference * lone) * np.sin(p * lone)
    return prof


def consecutive_distances(positions: np.ndarray, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Measured $\lVert PE(p+1) - PE(p) \rVert$ at the given positions, from the encoding rows.
    For even d it equals $2\sqrt{\sum_i \sin^2(\omega_i/2)}$ whatever p is. Returns (n,)."""
    pos = np.asarray(positions, dtype=np.float64)
    a = sinusoidal_encoding(0, d_model, base, positions=pos)
    b = sinusoidal_encoding(0, d_model, base, positions=pos + 1)
    return np.linalg.norm(b - a, axis=1)


def rotation_residual(offset: int, positions: np.ndarray, d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Measured $\max_j |PE(p+k)_j - (M_k PE(p))_j|$ for each given p, applying $M_k$ pair by
    pair (the same product as the block-diagonal matrix, without its zeros).
    Near machine precision for even d; for odd d the lone sine column cannot be rotated
    and the residual there is $|\sin((p+k)\omega_m) - \cos(k\omega_m)\sin(p\omega_m)|$. Returns (n,)."""
    pos = np.asarray(positions, dtype=np.float64)
    now = sinusoidal_encoding(0, d_model, base, positions=pos)  # (n, d) interleaved
    later = sinusoidal_encoding(0, d_model, base, positions=pos + offset)
    omega = pair_frequencies(d_model, base)
    c, s = np.cos(offset * omega), np.sin(offset * omega)
    n_full = d_model // 2
    pred = np.empty_like(now)
    sin_p, cos_p = now[:, 0 : 2 * n_full : 2], now[:, 1 : 2 * n_full : 2]
    pred[:, 0 : 2 * n_full : 2] = c[:n_full] * sin_p + s[:n_full] * cos_p
    pred[:, 1 : 2 * n_full : 2] = -s[:n_full] * sin_p + c[:n_full] * cos_p
    if d_model % 2:
        pred[:, -1] = c[-1] * now[:, -1]
    return np.abs(later - pred).max(axis=1)


@dataclass(frozen=True)
class Closest:
    """The two distinct positions p < q below max_len whose encodings are nearest."""

    distance: float
    p: int
    q: int
    exact: bool  # False only when an odd-d search had to stop at its candidate limit


def closest_pair(max_len: int, d_model: int, base: float = 10_000.0, *, candidates: int = 64) -> Closest | None:
    r"""Smallest $\lVert PE(p) - PE(q) \rVert$ over $0 \le p < q <$ max_len (None if max_len < 2).

    Even d: the distance depends on the offset only, $D^2(\delta) = d - 2S(\delta)$; all offsets are
    scanned with `pair_dot_by_offset` and the best few re-evaluated as
    $\sum_i 4\sin^2(\delta\omega_i/2)$, which has no cancellation.
    Odd d: the lone sine adds $(\sin q\omega_m - \sin p\omega_m)^2 \ge 0$, so offsets whose pair part
    already exceeds the best value found at p = 0 are ruled out; the rest (up to
    `candidates`) are searched over every p.
    """
    if max_len < 2:
        return None
    omega, lone = _split(d_model, base)
    offsets = np.arange(1, max_len)
    pair_sq = np.maximum(2.0 * omega.size - 2.0 * pair_dot_by_offset(max_len - 1, d_model, base)[1:], 0.0)

    if lone is None:
        best = offsets[np.argsort(pair_sq, kind="stable")[:candidates]]
        sq = pair_distance_sq(best, d_model, base)
        i = int(np.argmin(sq))
        return Closest(float(np.sqrt(sq[i])), 0, int(best[i]), True)

    bound = pair_sq + np.sin(offsets * lone) ** 2  # value at p = 0, an upper bound per offset
    ceiling = bound.min()
    possible = offsets[pair_sq <= ceiling + 1e-12]
    exact = possible.size <= candidates
    order = np.argsort(pair_sq[possible - 1], kind="stable")[:candidates]
    best_sq, best_p, best_q = np.inf, 0, 1
    for delta, psq in zip(possible[order], pair_distance_sq(possible[order], d_model, base)):
        p = np.arange(0, max_len - delta)
        lone_sq = (np.sin((p + delta) * lone) - np.sin(p * lone)) ** 2
        j = int(np.argmin(lone_sq))
        if psq + lone_sq[j] < best_sq:
            best_sq, best_p, best_q = psq + lone_sq[j], int(p[j]), int(p[j] + delta)
    return Closest(float(np.sqrt(best_sq)), best_p, best_q, exact)


def distance_records(max_len: int, d_model: int, base: float = 10_000.0) -> tuple[np.ndarray, np.ndarray]:
    r"""The offsets δ = 1 .. max_len − 1 at which $\lVert PE(p + \delta) - PE(p) \rVert$ reaches a new
    minimum, scanning δ upwards, and those distances: the near misses that make two far-apart positions
    look alike. Even d only (there the distance depends on δ alone):
    $D(\delta) = \sqrt{\sum_i 4\sin^2(\delta\omega_i/2)}$, which has no cancellation.
    Returns (offsets, distances), (k,) each; empty for max_len < 2."""
    if d_model % 2:
        raise ValueError("Record distances are defined for an even d_model, where the distance depends on the offset alone.")
    if max_len < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    delta = np.arange(1, max_len)
    dist = np.sqrt(pair_distance_sq(delta, d_model, base))  # (max_len - 1,)
    best_so_far = np.minimum.accumulate(dist)
    record = np.concatenate([[True], dist[1:] < best_so_far[:-1]])
    return delta[record], dist[record]


# --- the sentences of the similarity page, from the arrays it draws -----------------------------

TOEPLITZ_TOL = 1e-9  # cosines in [-1, 1]: a diagonal whose values differ by less is one value to float rounding


def diagonal_spread(matrix: np.ndarray) -> float:
    """The largest max − min along one diagonal of a square matrix (NaN cells ignored); 0 for a Toeplitz matrix."""
    n = matrix.shape[0]
    spread = 0.0
    for k in range(-(n - 1), n):
        diag = np.diagonal(matrix, k)
        diag = diag[np.isfinite(diag)]
        if diag.size > 1:
            spread = max(spread, float(diag.max() - diag.min()))
    return spread


def toeplitz_text(cosine: np.ndarray, d_model: int) -> str:
    """What the drawn cosine matrix's diagonals do: one colour each only where they are constant to rounding."""
    spread = diagonal_spread(cosine)
    low = f"{float(np.nanmin(cosine)):.4g}"
    if spread <= TOEPLITZ_TOL:
        return (
            "What to look for, left: a dark red diagonal (every position is most like itself, cosine 1) and bands parallel to it. Each diagonal has "
            f"one colour along its whole length, because the value depends only on p − q (a Toeplitz matrix); here it runs from {low} to 1."
        )
    return (
        "What to look for, left: a dark red diagonal (every position is most like itself, cosine 1) and bands parallel to it; here it runs from "
        f"{low} to 1. With d_model = {d_model:,} (odd) the last sine has no cosine partner, so the value depends on where the positions are, not only "
        f"on p − q: along one diagonal it varies by up to {spread:.2g}, and the matrix is not exactly constant along its diagonals (not Toeplitz)."
    )


def matrices_text(cosine: np.ndarray, sines: np.ndarray, d_model: int) -> str:
    """The caption of the two matrices drawn, the sinusoid's cosine (n, n) and the sines-only one (n, n), saying only what
    these arrays show: one cell when one position is drawn; the sines-only diagonals changing colour only where they do."""
    n = cosine.shape[0]
    blank = bool(np.isnan(sines).all(axis=1).any())  # a position whose sines are all 0 (position 0): no cosine to draw
    if n == 1:
        right = "blank (its sines are all 0, a zero vector, which has no cosine)" if blank else f"{float(sines[0, 0]):.4g}"
        return (
            f"One position is drawn, so each matrix is a single cell: the position against itself, cosine {float(cosine[0, 0]):.4g} on the "
            f"left and {right} on the right. Diagonals, and how they change, need two positions or more."
        )
    text = toeplitz_text(cosine, d_model)
    text += f" For even d the dot product PE(p)·PE(q) is this cosine times d/2 = {d_model / 2:g}: the same picture. " if d_model % 2 == 0 else " "
    formula = "sin pω·sin qω = ½[cos (p−q)ω − cos (p+q)ω] depends on where the positions are, not only on their distance"
    spread = diagonal_spread(sines)
    if spread > TOEPLITZ_TOL:
        text += f"Right: keep only the sines and the diagonals change colour along their length (by up to {spread:.2g}): {formula}"
    else:
        text += f"Right: keep only the sines: {formula}, though no diagonal of the few cells drawn here shows it"
    text += " (position 0 is the zero vector: its row and column are blank)." if blank else "."
    return text + " The cosine of each pair is what makes a shift by k the same for every position."


def profile_text(cosine: np.ndarray, reference: int) -> str:
    """What the cosine of every position to the reference does with the distance, from the profile drawn.
    cosine: (L,), cosine of position p to the reference."""
    n = cosine.size
    if n < 2:
        return "With one position there is only the reference: cosine 1."
    offset = np.abs(np.arange(n) - reference)
    nearest = float(cosine[offset == 1].max())
    text = f"Similarity is 1 at the reference; the next position has {nearest:.4g}."
    far = offset >= 2
    if not far.any():
        return text
    back = int(np.argmax(np.where(far, cosine, -np.inf)))
    if cosine[back] >= nearest:
        return text + (
            f" It does not fall off with distance: position {back:,}, {offset[back]:,} away, is at least as alike as the next one ({cosine[back]:.4g}), "
            "because at that offset the pairs have turned back close to where they started."
        )
    text += " It falls off with distance: no position two or more away is as alike as the next one"
    top = int(offset.max())
    tail = offset >= max(2, top // 2)
    lo, hi = float(cosine[tail].min()), float(cosine[tail].max())
    if top >= 8 and hi - lo < 1 - hi:
        return text + (
            f". It does not keep falling: from {max(2, top // 2):,} positions away it stays between {lo:.4g} and {hi:.4g}, so the sinusoid tells "
            "near from far much better than far from farther."
        )
    return text + "."


def uniqueness_text(best: Closest) -> str:
    """What the closest pair says, and when it can shrink."""
    gap = best.q - best.p
    where = "neighbours" if gap == 1 else f"{gap:,} apart: at that offset every pair comes back close to where it started at once"
    return (
        f"If this number were 0, two positions would share a vector and the model could not tell them apart. Here the closest positions are {where}. "
        "Two far-apart positions come close only at an offset where every pair nearly returns to its start at once, which a practical "
        "context reaches only when d_model is tiny (at base 10,000 and d_model = 16 the closest pair is still two neighbours at max_len "
        "131,072): try d_model = 2 with a long context."
    )
