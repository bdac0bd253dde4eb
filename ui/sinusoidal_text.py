"""The words of /sinusoidal that state what a figure shows, built from the arrays drawn so they hold at the
settings on screen. Pure functions: no Streamlit, so tests can read every sentence."""

from __future__ import annotations

import numpy as np


def spectrum_text(wavelengths: np.ndarray, length: int) -> str:
    """The wavelength chart's caption: the step between pairs (where there are two or more), and what the pairs
    above the max_len line do across the context. wavelengths: (n,), fastest first, in positions."""
    n = wavelengths.size
    positions = f"{length:,} position{'s' if length != 1 else ''}"
    if n == 1:
        lead = f"With one pair there is one wavelength, 2π ≈ {wavelengths[0]:.4g} positions: no line of pairs to step along. "
    elif n == 2:
        lead = f"The second pair is {wavelengths[1] / wavelengths[0]:.4g}× slower than the first. "
    else:
        lead = f"The wavelengths form a straight line on this log scale: each pair is {wavelengths[1] / wavelengths[0]:.4g}× slower than the one before. "
    n_long = int((wavelengths > length).sum())
    if n_long == 0:
        body = (
            f"The pair lies below the max_len line: it completes a cycle every {wavelengths[0]:.4g} positions, so it repeats inside the context."
            if n == 1
            else f"No pair lies above the max_len line: every pair completes a cycle within {positions}, the slowest after {wavelengths[-1]:,.0f}, "
            "so every pair repeats inside the context."
        )
    elif n_long == n:
        body = (
            f"{'The pair lies' if n == 1 else 'Every pair lies'} above the max_len line: the context, {positions}, is shorter than the fastest "
            "wavelength, so no pair completes a cycle and none repeats inside the context, though the fastest still turns 1 radian (57°) per position."
        )
    else:
        body = (
            f"{n_long:,} of {n:,} pairs {'lies' if n_long == 1 else 'lie'} above the max_len line: across {positions} "
            f"{'it covers' if n_long == 1 else 'they cover'} less than one cycle, turning less than {360.0 / length:.3g}° per position, so "
            f"{'it acts as a coarse position signal that never repeats' if n_long == 1 else 'they act as coarse position signals that never repeat'} inside "
            "the context."
        )
    chord = (
        " Picture a set of tuning forks, one pitch per pair, each position striking them all: the chord they sound together is that position's code."
        if n > 1
        else ""
    )
    return lead + body + chord
