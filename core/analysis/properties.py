"""Properties of a positional scheme, measured from the arrays it produces (never typed in).

Every scheme in the registry gets the same questions, asked of the same kind of array:

- its *code*, `Scheme.codes`: what position p (or, for bias schemes, distance k) turns into.
  Added schemes: the row PE(p) (width values); rotary: a fixed unit vector after rotation to
  position p (width values); bias schemes: the bias at distance k in every head (H values),
  because they store no absolute position at all, only distances;
- its *pair score* S(m, n), `Scheme.pair_scores`: what the scheme contributes to the attention
  score between a query at m and a key at n. Added: PE(m)·PE(n); rotary: (R_m q)·(R_n k) for
  fixed random unit q, k; bias: the bias averaged over heads; none: 0.

From these: bounded (max |code|), unique (smallest distance between the codes of distinct
positions), smooth (mean neighbour distance over mean distance), relative (how much S at a
fixed offset varies with the absolute start, relative to how much S varies at all),
extrapolation (what the code does on [L, 2L) compared with [0, L)), parameters.

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


MARKS = {True: "✓", False: "✗", None: "–"}  # holds, does not hold, does not apply
CHECKLIST = (
    ("unique", "distinct positions get distinct codes"),
    ("bounded", "codes stay in one range as the context grows"),
    ("smooth", "neighbouring positions get similar codes"),
    ("relative", "the score of two positions depends on their offset only"),
    ("extrapolates", "a fixed code exists past max_len (how well a trained model uses it, the lab measures)"),
    ("cheap", "nothing to learn"),
)
SMOOTH_BELOW = 0.5  # neighbour distance / mean distance: nearer positions look alike below this
RELATIVE_BELOW = 0.01  # relative departure: 0 for a purely relative scheme, about 1 when the start matters as much


def checklist(p: Properties) -> dict[str, tuple[bool | None, str]]:
    """The checklist a good encoding should meet, scored from the measured numbers: per property
    (CHECKLIST), whether it holds (None: does not apply) and the number it rests on, in words."""
    if p.extrapolation == "nothing to extrapolate":  # no position at all
        return {name: (None, "no position") for name, _ in CHECKLIST[:-1]} | {"cheap": (True, "0 parameters")}
    scale = max(abs(p.bounded), 1e-300)
    growth = p.growth
    return {
        "unique": (bool(p.unique > 1e-9 * scale), f"closest codes {p.unique:.4g} apart"),
        "bounded": (None, "no code past max_len") if np.isnan(growth) else (bool(growth <= 1 + 1e-9), f"max |value| ×{growth:.4g} on [L, 2L)"),
        "smooth": (None, "–") if np.isnan(p.smooth) else (bool(p.smooth < SMOOTH_BELOW), f"neighbour / mean distance {p.smooth:.4g}"),
        "relative": (None, "nothing varies") if np.isnan(p.relative) else (bool(p.relative < RELATIVE_BELOW), f"departure {p.relative:.3g}"),
        "extrapolates": (p.defined_past, p.extrapolation.split(";")[0]),
        "cheap": (p.parameters == 0, f"{p.parameters:,} parameters"),
    }


def _extrapolation(scheme: Scheme, setting: Setting, within: np.ndarray, length: int) -> tuple[str, float, bool]:
    """What happens on [L, 2L): no code; codes that depend on the length; values never seen
    inside [0, L) (how many of the code's features, and how much max |value| grows).
    Returns (the sentence, the growth of max |value|, whether a fixed code exists there)."""
    rows = scheme.max_position(setting)
    if rows is not None and rows < 2 * length:
        return f"no code past position {rows - 1:,}", float("nan"), False
    beyond_pos = length + sample_positions(length)
    beyond = scheme.codes(beyond_pos, setting)
    inside = float(np.abs(within).max())
    growth = float(np.abs(beyond).max() / inside) if inside > 0 else float("inf") if np.abs(beyond).max() > 0 else 1.0
    if scheme.encode is not None:  # an added code may depend on the length it was built for
        probe = np.array([length // 2])
        before, after = scheme.codes(probe, setting), scheme.codes(probe, with_length(setting, 2 * length))
        if not np.allclose(before, after):
            return f"the code of position {length // 2:,} changes when the length doubles", growth, False
    lo, hi = within.min(axis=0), within.max(axis=0)
    tol = 1e-9 * max(np.abs(within).max(), 1.0)
    unseen = ((beyond < lo - tol) | (beyond > hi + tol)).any(axis=0)
    feature = "heads" if scheme.per == "pair" else "dimensions"
    if not unseen.any():
        return f"defined; no {feature[:-1]} leaves the range seen within max_len", growth, True
    grown = f"max |value| ×{growth:.3g}" if inside > 0 else f"max |value| {np.abs(beyond).max():.3g} (0 within max_len)"
    return f"defined; {int(unseen.sum()):,} of {unseen.size:,} {feature} take values not seen within max_len; {grown}", growth, True


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
        return Properties(scheme.name, over, 0.0, 0.0, float("nan"), float("nan"), "nothing to extrapolate", params, note)
    codes = scheme.codes(pos, setting)
    bounded = float(np.abs(codes).max()) if codes.size else float("nan")
    if pos.size >= 2:
        dist = _distances(codes)
        upper = dist[np.triu_indices(pos.size, 1)]
        unique = float(upper.min())
        consecutive = np.flatnonzero(np.diff(pos) == 1)
        neighbour = float(dist[consecutive, consecutive + 1].mean()) if consecutive.size else float("nan")
        smooth = neighbour / upper.mean() if upper.mean() > 0 else float("nan")
    else:
        unique = smooth = float("nan")
    relative = relative_departure(scheme, setting, min(length, rows) if rows is not None else length)
    extrapolation, growth, defined = _extrapolation(scheme, setting, codes, length)
    return Properties(scheme.name, over, bounded, unique, float(smooth), relative, extrapolation, params, note, growth, defined)


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
