"""Properties of a positional scheme, measured from the arrays it produces (never typed in).

Every scheme in the registry gets the same questions, asked of its codes (`Scheme.codes`: what
position p, or for a bias distance k, turns into) and its pair scores (`Scheme.pair_scores`). From
these: bounded (max |code|), unique (smallest distance between the codes of distinct
positions), smooth (mean neighbour distance over mean distance), relative (how much S at a
fixed offset varies with the absolute start, relative to how much S varies at all),
extrapolation (what the code does on [L, 2L) compared with [0, L)), parameters.

Bounded asks whether max |value| ever stops growing, so it is measured far out (`far_growth`): a
table that saturates (T5's last bucket, Shaw's clip) can reach larger values on [L, 2L) than on
[0, L) and still be bounded, and a rotation keeps every code's length (`steady_norm`), so its
sampled maximum only creeps towards that length.

Long contexts are measured on a sample of positions (the first ones consecutively plus a
strided rest); `Properties.sample_note` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.schemes.registry import Scheme, Setting, with_length

CONSECUTIVE = 128  # positions measured one after another (neighbour distances)
STRIDED = 128  # further positions strided over the rest of the context
STARTS, OFFSETS = 24, 24  # the grid of (start, offset) pairs for the relative measure
FAR = 2**24  # bounded is judged by the doubling that ends here (or at 128·L, if that is further)
FAR_SAMPLES = 32  # positions sampled in each doubling window on the way out
EXACT = 1e-9  # relative: float rounding of a max |value| or a length, far above float64's 1e-16


def sample_positions(length: int) -> np.ndarray:
    """All positions when length <= CONSECUTIVE + STRIDED, else the first CONSECUTIVE plus
    STRIDED evenly strided over the rest. Returns (n,) int64, sorted, distinct."""
    if length <= CONSECUTIVE + STRIDED:
        return np.arange(length, dtype=np.int64)
    rest = np.linspace(CONSECUTIVE, length - 1, STRIDED).round().astype(np.int64)
    return np.unique(np.concatenate([np.arange(CONSECUTIVE), rest]))


def _distances(codes: np.ndarray) -> np.ndarray:
    """Euclidean distances between all rows, from the Gram matrix. Returns (n, n)."""
    sq = np.einsum("ij,ij->i", codes, codes)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (codes @ codes.T)
    return np.sqrt(np.maximum(d2, 0.0))


def relative_departure(scheme: Scheme, setting: Setting, length: int) -> float:
    r"""How far S(s, s + o) is from a function of the offset o alone:
    $\operatorname{mean}_o \operatorname{std}_s S(s, s+o) / \operatorname{std}_{s,o} S$ over a grid of
    starts s and offsets o inside [0, length). 0 for a purely relative scheme; near 1 when the
    absolute start matters as much as the offset. NaN when S is constant (nothing to measure)."""
    if length < 3:
        return float("nan")
    max_offset = max(1, (length - 1) // 2)
    offsets = np.unique(np.linspace(0, max_offset, OFFSETS).round().astype(np.int64))
    starts = np.unique(np.linspace(0, length - 1 - offsets[-1], STARTS).round().astype(np.int64))
    keys = np.unique((starts[:, None] + offsets[None, :]).ravel())
    s = scheme.pair_scores(starts, keys, setting)  # (A, K)
    grid = s[np.arange(starts.size)[:, None], np.searchsorted(keys, starts[:, None] + offsets[None, :])]  # (A, B)
    spread = grid.std()
    scale = max(np.abs(grid).max(), 1e-300)
    if spread <= 1e-12 * scale:
        return float("nan")
    return float(grid.std(axis=0).mean() / spread)


@dataclass(frozen=True)
class Properties:
    """One row of the properties table. Floats are NaN where a question does not apply."""

    name: str
    measured_over: str  # "positions" or "distances"
    bounded: float  # max |code| over [0, L)
    unique: float  # smallest distance between codes of distinct positions
    smooth: float  # mean neighbour distance / mean pairwise distance
    relative: float  # relative_departure
    extrapolation: str
    parameters: int
    sample_note: str
    growth: float = float("nan")  # max |code| over [L, 2L) / max |code| over [0, L); NaN where there is no code past L
    defined_past: bool = False  # a code exists for every position of [L, 2L) and does not depend on the length it was built for
    length: int = 0  # the context measured, [0, length)
    beyond: float = float("nan")  # max |code| over [L, 2L)
    far_growth: float = float("nan")  # max |code| over the last doubling up to `horizon` / max |code| before it
    horizon: int = 0  # the far end of the bounded measure
    steady_norm: bool = False  # every code sampled out to `horizon` has the same length (a rotation)


MARKS = {True: "✓", False: "✗", None: "–"}  # holds, does not hold, does not apply
CHECKLIST = (
    ("unique", "distinct positions get distinct codes"),
    ("bounded", "codes stay in one range as the context grows"),
    ("smooth", "neighbouring positions get similar codes"),
    ("relative", "the positions' own term of the score (code against code, rotated query against rotated key, or the bias) depends on "
     "their offset only; the words and the learned projections are left out"),
    ("code past max_len", "positions max_len to 2·max_len − 1 get a code that does not change with the length (how well a trained model "
     "reads it, the lab measures)"),
    ("cheap", "nothing to learn"),
)
SMOOTH_BELOW = 0.5  # neighbour distance / mean distance: nearer positions look alike below this
RELATIVE_BELOW = 0.01  # relative departure: 0 for a purely relative scheme, about 1 when the start matters as much


def bounded_mark(p: Properties) -> tuple[bool | None, str]:
    """Bounded: max |value| stops growing. Holds when every code has one length (a rotation: no value
    can exceed it) or when the last doubling up to `p.horizon` raises max |value| by no more than
    float rounding; the words give the growth on [L, 2L), the doubling the reader can picture."""
    if np.isnan(p.growth):
        return None, "no code past max_len"
    near = f"max |value| ×{p.growth:.4g} on [L, 2L)" if p.bounded > 0 else f"max |value| 0 within max_len, {p.beyond:.4g} on [L, 2L)"
    if not p.defined_past:  # rebuilt for each length, it stays in range only up to the length it is built for
        return False, f"in range only up to the length it is built for: {near}"
    holds = bool(p.steady_norm or p.far_growth <= 1 + EXACT)
    if not holds:
        return False, f"{near}, still rising at position {p.horizon - 1:,}"
    if f"{p.growth:.4g}" == "1":
        return True, near
    return True, f"{near}, no higher up to position {p.horizon - 1:,}"


def checklist(p: Properties) -> dict[str, tuple[bool | None, str]]:
    """The checklist a good encoding should meet, scored from the measured numbers: per property
    (CHECKLIST), whether it holds (None: does not apply) and the number it rests on, in words."""
    if p.extrapolation == "nothing to extrapolate":  # no position at all
        return {name: (None, "no position") for name, _ in CHECKLIST[:-1]} | {"cheap": (True, "0 parameters")}
    scale = max(abs(p.bounded), 1e-300)
    one = "one position: no pair to compare"
    return {
        "unique": (None, one) if np.isnan(p.unique) else (bool(p.unique > EXACT * scale), f"closest codes {p.unique:.4g} apart"),
        "bounded": bounded_mark(p),
        "smooth": (None, one if np.isnan(p.unique) else "two positions: nothing to compare neighbours with" if p.length == 2 else "all codes alike")
        if np.isnan(p.smooth) else (bool(p.smooth < SMOOTH_BELOW), f"neighbour / mean distance {p.smooth:.4g}"),
        "relative": (None, "fewer than 3 positions: no offset to compare" if 0 < p.length < 3 else "nothing varies")
        if np.isnan(p.relative)
        else (bool(p.relative < RELATIVE_BELOW), f"departure {p.relative:.3g}"),
        "code past max_len": (p.defined_past, p.extrapolation.split(";")[0]),
        "cheap": (p.parameters == 0, f"{p.parameters:,} parameters"),
    }


def far_windows(length: int) -> list[np.ndarray]:
    """The doublings [L, 2L), [2L, 4L), ... up to max(FAR, 128·L), FAR_SAMPLES positions each
    (all of a short one). Returns a list of (n,) int64 arrays, sorted, distinct."""
    out, lo = [], max(length, 1)
    top = max(FAR, 128 * lo)
    while lo < top:
        out.append(np.unique(np.linspace(lo, 2 * lo - 1, min(lo, FAR_SAMPLES)).round().astype(np.int64)))
        lo *= 2
    return out


def _far(scheme: Scheme, setting: Setting, within: np.ndarray, length: int) -> tuple[float, int, bool]:
    """How max |code| grows out to the horizon (a table's last row, if it ends first): (max over the
    last doubling / max over everything before it, the horizon, whether every code sampled has the
    same length)."""
    rows = scheme.max_position(setting)
    windows = [w[w < rows] for w in far_windows(length)] if rows is not None else far_windows(length)
    windows = [w for w in windows if w.size]
    peak = float(np.abs(within).max()) if within.size else 0.0
    norms = [np.linalg.norm(within, axis=1)] if within.size else []
    last = peak
    for k, pos in enumerate(windows):
        codes = scheme.codes(pos, setting)
        norms.append(np.linalg.norm(codes, axis=1))
        last = float(np.abs(codes).max())
        if k < len(windows) - 1:
            peak = max(peak, last)
    lengths = np.concatenate(norms)
    steady = bool(lengths.size and lengths.max() > 0 and np.ptp(lengths) <= EXACT * lengths.max())
    growth = last / peak if peak > 0 else float("inf") if last > 0 else 1.0
    return growth, int(windows[-1][-1]) + 1, steady


def _extrapolation(scheme: Scheme, setting: Setting, within: np.ndarray, length: int) -> tuple[str, float, bool, float]:
    """What happens on [L, 2L): no code; codes that depend on the length; values never seen
    inside [0, L) (how many of the code's features, and how much max |value| grows).
    Returns (the sentence, the growth of max |value|, whether a fixed code exists there, max |value| there)."""
    rows = scheme.max_position(setting)
    if rows is not None and rows < 2 * length:
        return f"no code past position {rows - 1:,}", float("nan"), False, float("nan")
    beyond_pos = length + sample_positions(length)
    beyond = scheme.codes(beyond_pos, setting)
    inside, peak = float(np.abs(within).max()), float(np.abs(beyond).max())
    growth = peak / inside if inside > 0 else float("inf") if peak > 0 else 1.0
    if scheme.encode is not None:  # an added code may depend on the length it was built for
        middle = max(length // 2, 1)  # position 0 is 0 in every length-scaled code: it cannot show the change
        probe = np.array([middle])
        before, after = scheme.codes(probe, setting), scheme.codes(probe, with_length(setting, 2 * length))
        if not np.allclose(before, after):
            return f"the code of position {middle:,} changes when the length doubles", growth, False, peak
    lo, hi = within.min(axis=0), within.max(axis=0)
    tol = 1e-9 * max(np.abs(within).max(), 1.0)
    unseen = ((beyond < lo - tol) | (beyond > hi + tol)).any(axis=0)
    feature = "heads" if scheme.per == "pair" else "dimensions"
    if not unseen.any():
        return f"defined; no {feature[:-1]} leaves the range seen within max_len", growth, True, peak
    grown = f"max |value| ×{growth:.3g}" if inside > 0 else f"max |value| {np.abs(beyond).max():.3g} (0 within max_len)"
    return f"defined; {int(unseen.sum()):,} of {unseen.size:,} {feature} take values not seen within max_len; {grown}", growth, True, peak


def measure(scheme: Scheme, setting: Setting, length: int) -> Properties:
    """All properties of `scheme` at `setting` over positions [0, length)."""
    pos = sample_positions(length)
    over = "distances" if scheme.per == "pair" else "positions"
    note = "" if pos.size == length else f"{pos.size:,} of {length:,} {over} (the first {CONSECUTIVE} and {STRIDED} strided)"
    params = scheme.parameters(setting)
    rows = scheme.max_position(setting)
    if rows is not None and rows < length:
        # a table shorter than the context: measure what exists, say what does not
        pos = pos[pos < rows]
        note = f"codes exist for positions 0 to {rows - 1:,} only"
    if not scheme.carries_position:
        return Properties(scheme.name, over, 0.0, 0.0, float("nan"), float("nan"), "nothing to extrapolate", params, note, length=length)
    codes = scheme.codes(pos, setting)
    bounded = float(np.abs(codes).max()) if codes.size else float("nan")
    if pos.size >= 2:
        dist = _distances(codes)
        upper = dist[np.triu_indices(pos.size, 1)]
        unique = float(upper.min())
        consecutive = np.flatnonzero(np.diff(pos) == 1)
        neighbour = float(dist[consecutive, consecutive + 1].mean()) if consecutive.size else float("nan")
        # two positions are one pair, the neighbours and the mean alike: a ratio of 1 that says nothing
        smooth = neighbour / upper.mean() if upper.mean() > 0 and pos.size >= 3 else float("nan")
    else:
        unique = smooth = float("nan")
    relative = relative_departure(scheme, setting, min(length, rows) if rows is not None else length)
    extrapolation, growth, defined, beyond = _extrapolation(scheme, setting, codes, length)
    far_growth, horizon, steady = (float("nan"), 0, False) if np.isnan(growth) else _far(scheme, setting, codes, length)
    return Properties(
        scheme.name, over, bounded, unique, float(smooth), relative, extrapolation, params, note, growth, defined, length, beyond, far_growth, horizon, steady
    )


def measure_all(names: list[str], schemes: dict[str, Scheme], setting: Setting, length: int) -> dict[str, Properties | str]:
    """`measure` for each named scheme; a scheme that cannot run at this setting (RoPE at an
    odd width, say) gets the sentence that says why instead of a row of numbers."""
    out: dict[str, Properties | str] = {}
    for name in names:
        try:
            out[name] = measure(schemes[name], setting, length)
        except ValueError as err:
            out[name] = str(err)
    return out
