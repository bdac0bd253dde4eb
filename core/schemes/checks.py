"""Input checks shared by the scheme modules. Each raises ValueError with a sentence a user
understands (pages show it as it is), never a bare TypeError from deep inside numpy."""

from __future__ import annotations

import math

import numpy as np


def is_finite_number(value: object) -> bool:
    """A real, finite int or float (numpy scalars included); bools and strings are not numbers
    here. Python ints are finite however large (numpy cannot even take 10**400)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, (float, np.floating)) and math.isfinite(value)


def shown(value: object, limit: int = 40) -> str:
    """repr(value), cut to `limit` characters for a message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def whole_number(value: object, name: str, minimum: int, maximum: int | None = None) -> int:
    """`value` as an int, if it is a whole number (3 or 3.0) of at least `minimum` (and at most
    `maximum`, when given). The one whole-number check of the app: scheme settings, widths,
    lengths and the lab's configuration all ask it, so a refusal reads the same everywhere."""
    if maximum is None:
        if not is_finite_number(value) or int(value) != value or value < minimum:
            raise ValueError(f"{name} must be a whole number of at least {minimum}, got {shown(value)}.")
        return int(value)
    if not is_finite_number(value) or int(value) != value:
        raise ValueError(f"{name} must be a whole number between {minimum:,} and {maximum:,}, got {shown(value)}.")
    if not minimum <= value <= maximum:
        raise ValueError(f"{name} must be between {minimum:,} and {maximum:,}, got {shown(int(value))}.")
    return int(value)
