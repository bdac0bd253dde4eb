"""The shared settings (d_model, max_len, base): their ranges and how a raw URL value is read.

A query parameter arrives as an arbitrary string. `parse_param` turns it into a value inside
the parameter's range, or falls back, and always says in a sentence what it did, so a page can
show a short notice instead of an exception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.schemes.checks import inert


@dataclass(frozen=True)
class ParamSpec:
    """One shared setting: its URL name, inclusive range, default, and whether it is an integer."""

    name: str
    lo: float
    hi: float
    default: float
    integer: bool = True

    def format(self, value: float) -> str:
        """The value as it is written in a URL: integers without a decimal point."""
        if self.integer or float(value).is_integer():
            return str(int(value))
        return repr(float(value))


D_MODEL = ParamSpec("d_model", 2, 8192, 128)
MAX_LEN = ParamSpec("max_len", 1, 131072, 256)
BASE = ParamSpec("base", 2.0, 1e8, 10_000.0, integer=False)
SHARED_PARAMS: tuple[ParamSpec, ...] = (D_MODEL, MAX_LEN, BASE)


@dataclass(frozen=True)
class Parsed:
    """The outcome of reading one raw value: the value to use and, if it was not usable as is, why."""

    value: float
    notice: str | None = None


def link_value(key: str, raw: str, limit: int = 40) -> str:
    """How a notice names a link's value: `key='value'` (`'value'` without a key) as a code span, at most `limit`
    characters of the value, every character that could form Markdown, LaTeX, a link, an image,
    an icon or HTML written as an escape (core.schemes.checks.inert), so the value reads as the
    text it is and nothing else."""
    return f"`{key + '=' if key else ''}'{inert(raw[:limit], in_code=True)}{'…' if len(raw) > limit else ''}'`"


def parse_param(raw: str | None, spec: ParamSpec) -> Parsed:
    """Read `raw` (a query-parameter string, or None when absent) as a value of `spec`.

    Absent -> default, no notice. Not a number, nan, inf, or a fraction for an integer
    setting -> default, with a notice. A number outside [lo, hi] (also one like 1e400 that
    overflows a float) -> clamped to the nearest end, with a notice. Never raises.
    """
    if raw is None:
        return Parsed(spec.default)
    text = str(raw).strip()
    shown = link_value(spec.name, text)
    default = spec.format(spec.default)
    kind = "a whole number" if spec.integer else "a number"
    rng = f"{spec.format(spec.lo)} to {spec.format(spec.hi)}"
    try:
        number = float(text)
    except (ValueError, OverflowError):
        return Parsed(spec.default, f"{shown} in the link is not {kind}; using {default}.")
    if math.isinf(number) and text.lower().lstrip("+-") not in ("inf", "infinity"):
        number = math.copysign(spec.hi * 2, number)  # a finite number too big for a float: out of range
    if not math.isfinite(number):
        return Parsed(spec.default, f"{shown} in the link is not a finite number; using {default}.")
    if spec.integer and not number.is_integer():
        return Parsed(spec.default, f"{shown} in the link is not a whole number; using {default}.")
    if number < spec.lo or number > spec.hi:
        clamped = min(max(number, spec.lo), spec.hi)
        value = int(clamped) if spec.integer else float(clamped)
        return Parsed(value, f"{shown} is outside {rng}; using {spec.format(value)}.")
    return Parsed(int(number) if spec.integer else number)


def log_ticks(spec: ParamSpec) -> list[float]:
    """Log-spaced stops for the coarse slider: powers of two for integer settings,
    1-2-5 steps per decade for `base`; always both ends of the range and the default."""
    stops: set[float] = {spec.lo, spec.hi, spec.default}
    if spec.integer:
        k = 0
        while 2**k <= spec.hi:
            if 2**k >= spec.lo:
                stops.add(2**k)
            k += 1
        return sorted(int(s) for s in stops)
    decade = 10 ** math.floor(math.log10(spec.lo))
    while decade <= spec.hi:
        for m in (1, 2, 5):
            if spec.lo <= m * decade <= spec.hi:
                stops.add(float(m * decade))
        decade *= 10
    return sorted(float(s) for s in stops)
