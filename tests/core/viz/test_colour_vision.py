"""The app's two colour scales (core.viz.charts: DIVERGING for signed values, SEQUENTIAL for the rest), as
someone with a red, green or blue cone missing sees them.

Method: Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for Simulation of Color Vision
Deficiency", IEEE TVCG 15(6): the 3x3 matrices of their Table (severity 1.0: protanopia, deuteranopia,
tritanopia), applied to linear sRGB; the result clipped to the gamut, then CIELAB (D65) and the CIE 1976 colour
difference ΔE*ab. The colours are the ones the app paints (core.viz.wire.colour_lut, 255 levels per scale).

What must hold for every vision: a scale's two ends stay far apart (ΔE*ab of at least 30, thirteen times the 2.3 of
a just noticeable difference, the gap categorical palettes are commonly asked to keep), and its order survives in
lightness alone, which no missing cone takes away: L* rises from one end to the other along the sequential scale,
and from each end to the white middle along the diverging one, so equal distances from zero look equally light on
both sides and the sign is the hue. "Rises" allows the rounding of 8-bit colours between neighbouring levels (L*
may fall by 0.1, a twentieth of a noticeable step) and asks for a rise of at least 1 over every sixteenth of the scale.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.viz import wire
from core.viz.charts import DIVERGING, SEQUENTIAL

MACHADO_2009 = {  # severity 1.0, linear sRGB in, linear sRGB out
    "protan": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deutan": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritan": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}
VISIONS = [None, *MACHADO_2009]
SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]])
WHITE_D65 = np.array([0.95047, 1.0, 1.08883])
LEVELS = 255
ROUNDING = 0.1  # the L* an 8-bit rounding may take back between neighbouring levels


def rises(lightness: np.ndarray) -> bool:
    """L* rises along `lightness`: by at least 1 over every sixteenth of it, and never falls by more than ROUNDING."""
    step = max(len(lightness) // 16, 1)
    return bool(np.all(np.diff(lightness) > -ROUNDING) and np.all(np.diff(lightness[::step]) >= 1))


def linear(rgb8: np.ndarray) -> np.ndarray:
    c = np.asarray(rgb8, dtype=float) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(rgb8: np.ndarray, vision: str | None) -> np.ndarray:
    """CIELAB (D65) of 8-bit sRGB colours (n, 3) as seen with `vision` (None: typical vision)."""
    rgb = linear(rgb8)
    if vision is not None:
        rgb = np.clip(rgb @ np.array(MACHADO_2009[vision]).T, 0.0, 1.0)
    t = (rgb @ SRGB_TO_XYZ.T) / WHITE_D65
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def test_the_colour_science_matches_published_values():
    # sRGB white and black are L* 100 and 0; pure sRGB red is L*a*b* (53.24, 80.09, 67.20) (CIE 15:2004 with the sRGB primaries)
    assert lab(np.array([[255, 255, 255], [0, 0, 0]]), None)[:, 0] == pytest.approx([100.0, 0.0], abs=1e-3)
    assert lab(np.array([[255, 0, 0]]), None)[0] == pytest.approx([53.24, 80.09, 67.20], abs=0.02)
    # each of Machado's matrices keeps grey grey (its rows sum to 1): white stays white for every vision
    for vision in MACHADO_2009:
        assert np.array(MACHADO_2009[vision]).sum(axis=1) == pytest.approx(np.ones(3), abs=1e-5)
        assert lab(np.array([[255, 255, 255]]), vision)[0] == pytest.approx([100.0, 0.0, 0.0], abs=1e-3)
    # protan and deutan vision lose the red-green axis: the red and green primaries, a* +80 and -86 in typical vision,
    # keep |a*| under 10; tritan vision loses the blue-yellow one: blue and yellow, b* -108 and +95, end up 42 apart
    primaries = np.array([[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]])
    assert lab(primaries, None)[:, 1:] == pytest.approx(np.array([[80.09, 67.20], [-86.18, 83.18], [79.19, -107.86], [-21.55, 94.48]]), abs=0.03)
    for vision in ("protan", "deutan"):
        assert np.abs(lab(primaries, vision)[:2, 1]).max() < 10
    blue, yellow = lab(primaries, "tritan")[2:, 2]
    assert yellow - blue < 45


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "typical")
def test_the_sequential_scale_keeps_its_ends_apart_and_its_order_in_lightness(vision):
    seen = lab(wire.colour_lut(SEQUENTIAL, LEVELS), vision)
    assert np.linalg.norm(seen[-1] - seen[0]) >= 30
    assert rises(seen[:, 0]), "low values darker, high values lighter, all the way"
    assert seen[-1, 0] - seen[0, 0] >= 60


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "typical")
def test_the_diverging_scale_keeps_its_ends_apart_and_its_order_in_lightness(vision):
    seen = lab(wire.colour_lut(DIVERGING, LEVELS), vision)
    middle = LEVELS // 2
    assert np.linalg.norm(seen[-1] - seen[0]) >= 30, "the most negative and the most positive value must not look alike"
    for end in (seen[0], seen[-1]):
        assert np.linalg.norm(end - seen[middle]) >= 40, "an end must not look like zero"
    assert rises(seen[: middle + 1, 0]), "L* rises from the negative end to zero"
    assert rises(seen[middle:, 0][::-1]), "L* rises from the positive end to zero"
    assert seen[middle, 0] == pytest.approx(100, abs=3)  # zero is white (charts: white at zero)
