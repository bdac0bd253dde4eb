"""Which columns of a scheme's picture a figure draws without changing what it shows.

Whole (sin, cos) pairs of a sinusoid-like picture (`Scheme.pair_columns`), the first columns of a
discrete code (`Scheme.discrete`: its bits, or its one-hot positions, which a stride would
skip), evenly strided columns otherwise (integer, fraction, a learned table: any column is
like any other)."""

from __future__ import annotations

from core.schemes.registry import Scheme, Setting
from core.viz.grid import Picked, Sample, pairs, strided, window


def columns(scheme: Scheme, setting: Setting, limit: int, *, start: int = 0) -> Sample | Picked:
    """At most `limit` columns of `scheme`'s picture at `setting` (width columns); `start` is where
    a discrete code's window begins (a one-hot code's columns are its positions)."""
    if scheme.pair_columns is not None:
        return pairs(*scheme.pair_columns(setting), limit)
    if scheme.discrete:
        return window(setting.width, limit, start=start)
    return strided(setting.width, limit)
