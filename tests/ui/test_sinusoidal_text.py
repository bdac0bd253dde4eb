"""ui.sinusoidal_text: the Spectrum caption at d_model 2, 3 and 128 and at max_len 1, 6, 7 (around 2π) and the
largest, against wavelengths worked by hand, λᵢ = 2π·base^(2i/d)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.schemes import sinusoidal
from ui.sinusoidal_text import spectrum_text


def by_hand(d: int, base: float = 10_000.0) -> np.ndarray:
    return np.array([2 * math.pi * base ** (2 * i / d) for i in range((d + 1) // 2)])


@pytest.mark.parametrize("d", [2, 3, 5, 128])
def test_the_wavelengths_by_hand(d):
    np.testing.assert_allclose(sinusoidal.wavelengths(d, 10_000.0), by_hand(d), rtol=1e-12)


def test_one_pair_has_no_step_to_state():
    for length in (1, 256):
        text = spectrum_text(by_hand(2), length)
        assert "slower than the one before" not in text and "1e+04" not in text
        assert text.startswith("With one pair there is one wavelength, 2π ≈ 6.283 positions")
    assert "it completes a cycle every 6.283 positions" in spectrum_text(by_hand(2), 256)


@pytest.mark.parametrize("length", [1, 2, 4, 6])
def test_below_2pi_no_pair_is_called_slowly_drifting(length):
    assert length < 2 * math.pi  # shorter than the fastest wavelength: every pair is above the line
    text = spectrum_text(by_hand(128), length)
    assert "slowly drifting" not in text
    assert "Every pair lies above the max_len line" in text and "the fastest still turns 1 radian (57°) per position" in text


@pytest.mark.parametrize(("d", "length"), [(128, 7), (128, 256), (3, 7)])
def test_the_count_above_the_line_and_their_turn(d, length):
    wl = by_hand(d)
    above = int((wl > length).sum())
    assert 0 < above < wl.size
    text = spectrum_text(wl, length)
    assert f"{above:,} of {wl.size:,} pairs {'lies' if above == 1 else 'lie'} above the max_len line" in text
    assert f"turning less than {360 / length:.3g}° per position" in text
    if d == 128:  # one step of base^(2/d) between pairs
        assert f"each pair is {10_000 ** (2 / 128):.4g}× slower than the one before" in text


def test_at_the_longest_context_every_pair_repeats():
    text = spectrum_text(by_hand(128), 131072)
    assert by_hand(128)[-1] < 131072
    assert f"No pair lies above the max_len line: every pair completes a cycle within 131,072 positions, the slowest after {by_hand(128)[-1]:,.0f}" in text
