"""The registry of positional-encoding schemes: the single source of truth for pickers.

A page builds its scheme picker from SCHEMES and applies a scheme through its fields, never
through if/elif chains over names, so a new scheme is one module plus one line here.
So far the registry holds the schemes that are added to the input; rotary and bias schemes
join with the scheme-zoo issue (with a field saying how they are applied).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.sinusoidal import sinusoidal_encoding, t2t_timing_signal


@dataclass(frozen=True)
class Scheme:
    """One positional encoding: its name (URL value), a label for pickers, how a model applies
    it, and `encode(length, width, base) -> (length, width)` for the additive ones."""

    name: str
    label: str
    applied: str
    encode: Callable[[int, int, float], np.ndarray]
    carries_position: bool = True


SCHEMES: dict[str, Scheme] = {
    scheme.name: scheme
    for scheme in (
        Scheme("none", "none (NoPE)", "nothing is added", lambda n, d, base: np.zeros((n, d)), carries_position=False),
        Scheme("sinusoidal", "sinusoidal (paper)", "added to the input", lambda n, d, base: sinusoidal_encoding(n, d, base)),
        Scheme("t2t", "sinusoidal (tensor2tensor / fairseq)", "added to the input", lambda n, d, base: t2t_timing_signal(n, d, max_timescale=base)),
    )
}


def positional_schemes() -> list[str]:
    """Names of the schemes that carry position (the baseline 'none' left out)."""
    return [name for name, scheme in SCHEMES.items() if scheme.carries_position]
