"""A number beside its reference: st.metric's delta draws an arrow and a colour that read as a
change, which a reference value (the sinusoid of the same shape) is not, so the reference goes
under the number as plain text."""

from __future__ import annotations

from typing import Any


def metric(where: Any, label: str, value: str, reference: str | None = None, *, help: str | None = None) -> None:
    """`value` under `label` in `where`; `reference` (say "sinusoid 0.97") as a plain caption under it."""
    where.metric(label, value, help=help)
    if reference:
        where.caption(reference)
