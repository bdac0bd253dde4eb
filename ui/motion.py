"""Hands that turn with the position, drawn in the browser (an `st.components.v2` component; its files
are in ui/components/motion/): /sinusoidal's clock, one dial per sin/cos pair, and /rope's query and key pairs.

Play, Step and the position slider move the position in the browser, a frame per screen refresh, with
no round trip to the server. What the component draws is decided here and sent: which pairs, each
pair's frequency (core's own: `sinusoidal.pair_frequencies`, the page's RoPE θ), its vector at
position 0 (and on /rope the key's, a fixed offset behind the query) and its turning sense, every word under a dial, the speeds, how many whole positions the
trail keeps and how long a step glides. The browser turns each pair's vector by p·ω (ui/components/motion/
index.js `point`); tests/ui/test_motion.py runs that function on what is sent here and compares it with
core's encoding and rotation. Nothing a visitor types reaches it.
"""

from __future__ import annotations


import numpy as np

from core.schemes import sinusoidal
from core.viz.charts import number, subscript
from ui.components import component

NAME = "pee.motion"
MAX_DIALS = 6  # pairs drawn, spread evenly over the pair index (so geometrically over the frequency)
TRAIL = 8  # the whole positions a dial keeps marked behind its hand
GLIDE_MS = 250  # how long the Step button's move from one position to the next takes
# (label, milliseconds per position): slow enough to follow pair 0's turn of 1 radian per position
SPEEDS = (("1 position a second", 1000), ("3 positions a second", 1000 / 3), ("10 positions a second", 100), ("30 positions a second", 1000 / 30))
SPEED = 1  # the speed a dial starts at


def sampled_pairs(n_pairs: int) -> list[int]:
    """At most MAX_DIALS pair indices from 0 to n_pairs - 1, evenly spread, the first and last included."""
    return sorted({int(i) for i in np.round(np.linspace(0, n_pairs - 1, min(n_pairs, MAX_DIALS)))}) if n_pairs > 0 else []


def _of(drawn: int, total: int, what: str) -> str:
    """'3 of the 32 pairs', 'both pairs', 'the one pair'."""
    if drawn == total:
        return {1: f"the one {what}", 2: f"both {what}s"}.get(total, f"all {total:,} {what}s")
    return f"{drawn} of the {total:,} {what}s"


def _rate(name: str, i: int, omega: float) -> str:
    """The two lines under a dial: its angle per position and the positions one turn takes."""
    return f"{name}{subscript(i)} = {number(omega)} rad/position\none turn: {number(2 * np.pi / omega)} positions"


def _common(title: str, description: str, dials: list[dict], max_position: int, radius_scale: float) -> dict:
    return {
        "title": title,
        "description": description,
        "dials": dials,
        "max_position": int(max_position),
        "radius_scale": float(radius_scale),
        "trail": TRAIL,
        "glide_ms": GLIDE_MS,
        "speeds": [{"label": label, "ms": float(ms)} for label, ms in SPEEDS],
        "speed_index": SPEED,
    }


def _positions(max_len: int) -> str:
    return "position 0" if max_len == 1 else f"positions 0 to {max_len - 1:,}"


def clock_data(d_model: int, max_len: int, base: float) -> dict:
    """The sinusoid as a clock: a dial per sampled complete sin/cos pair (a lone sine of an odd width
    has no circle), its hand at (sin pω, cos pω): (0, 1) turned clockwise by p·ω. d_model is at
    least 2 (the app's smallest), so there is a pair."""
    pairs = sampled_pairs(d_model // 2)
    omega = sinusoidal.pair_frequencies(d_model, base)[pairs]
    dials = [
        {"label": f"pair {i}", "sub": _rate("ω", i, w), "omega": float(w), "turn": -1, "x0": 0.0, "y0": 1.0,
         "x_name": "sin", "y_name": "cos"}
        for i, w in zip(pairs, omega)
    ]
    slowest = f", pair {pairs[-1]} once every {number(2 * np.pi / omega[-1])} positions" if len(pairs) > 1 else ""
    lone = f" Column {d_model - 1} is a lone sine with no cosine partner, so it has no dial." if d_model % 2 else ""
    return _common(
        f"The clock: {_of(len(pairs), d_model // 2, 'sin/cos pair')} (d_model = {d_model:,}, base {base:,.6g}), {_positions(max_len)}",
        f"{'A clock face' if len(pairs) == 1 else 'Clock faces'} for {_of(len(pairs), d_model // 2, 'pair')}. "
        "Each hand points at (sin pω, cos pω) of its pair: straight up at position 0, then clockwise "
        f"by ω radians per position. Pair 0 turns once every {number(2 * np.pi)} positions{slowest}.{lone}",
        dials,
        max_len - 1,
        1.0,
    )


def rope_data(q: np.ndarray, k: np.ndarray, theta: np.ndarray, layout: str, max_len: int, offset: int) -> dict:
    """RoPE's query and key turning together: a dial per sampled pair, the key's two numbers at position n and the
    query's at m = n + offset, each its vector at 0 turned counter-clockwise by its position times θᵢ
    (core.schemes.rope.apply_rope's rotation), on one scale (the longest pair drawn fills its dial). The slider moves
    n from 0 to max_len − 1 − offset, so both hands; the angle between them is that at 0 plus offset·θᵢ. Every head
    width the page offers has a pair, and its slider keeps the offset within 0 .. max_len − 1."""
    half = q.size // 2
    pairs = sampled_pairs(min(half, theta.size))
    dims = [(i, i + half) if layout == "half" else (2 * i, 2 * i + 1) for i in pairs]
    longest = max(float(np.hypot(v[a], v[b])) for a, b in dims for v in (q, k)) or 1.0
    dials = [
        {"label": f"pair {i} (dimensions {a} and {b})", "sub": _rate("θ", i, theta[i]), "omega": float(theta[i]), "turn": 1,
         "x0": float(q[a]), "y0": float(q[b]), "key": {"x0": float(k[a]), "y0": float(k[b])}}
        for i, (a, b) in zip(pairs, dims)
    ]
    data = _common(
        f"A query q at m = n + {offset:,} and a key k at n, turned together: {_of(len(pairs), half, 'pair')} of their dimensions",
        f"{'A dial' if len(pairs) == 1 else 'Dials'} for {_of(len(pairs), half, 'pair')} of a random query's and key's dimensions. "
        f"Each dial has two hands, that pair of the key rotated to its position n and of the query to m = n + {offset:,}; both turn "
        "counter-clockwise by θ radians per position, their lengths unchanged, and the arc marks the angle from the key's hand to the query's.",
        dials,
        max_len - 1 - offset,
        1.0 / longest,
    )
    # large dials where the column has room: the angle between two hands, and its arc, must be seen (the clock keeps one row of small ones)
    return data | {"offset": int(offset), "pairs": half, "large": True}


def look_for(data: dict, hand: str) -> str:
    """What to look for while the dials turn, by their numbers: the angle the first and the last turn
    per position (the last 'barely moves' under 1° a position), or, with one dial, its angle."""
    degrees = [float(np.degrees(dial["omega"])) for dial in data["dials"]]
    start = "What to look for: press Play or Step. "
    if len(degrees) == 1:
        return start + f"The {hand} turns by the same angle, {number(degrees[0])}°, at every step."
    first, last = data["dials"][0]["label"], data["dials"][-1]["label"]
    slow = ", so it barely moves" if degrees[-1] < 1 else ""
    return start + f"Each {hand} turns by its own fixed angle per position: {first} by {number(degrees[0])}°, {last} by {number(degrees[-1])}°{slow}."


def motion(data: dict, key: str) -> None:
    """Mount the dials with their Play, Step and position controls."""
    component(NAME, "motion")(data=data, key=key, height="content")
