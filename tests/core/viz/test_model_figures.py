"""The model page's spectrum figure: each dimension's share of power per frequency, on a log scale its key names."""

from __future__ import annotations

import numpy as np

from core.analysis import position_analysis as pa
from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz import model_figures as mf
from tests.app.conftest import decode


def test_the_spectrum_paints_log10_of_each_dimensions_share_of_power_from_a_floor_and_says_so():
    p = np.arange(64)
    noise = np.random.default_rng(0).standard_normal(64)
    table = np.stack([np.cos(2 * np.pi * 8 * p / 64), noise], axis=1)  # a pure wave of exactly 8 cycles over the table, and noise
    A, S = pa.analyse(table), pa.analyse(sinusoidal_encoding(64, 2, 10_000.0))
    spec = mf.table_figures(A, S, "t", "s")["model_spectrum"]
    (scale,) = spec["scales"]
    assert "log₁₀" in scale["value"] and scale["clipped"] and (spec["panels"][0]["zmin"], spec["panels"][0]["zmax"]) == (-4.0, 0.0)
    z = decode(spec["panels"][0]["z"]).astype(np.float64)
    order = np.argsort(A.dominant, kind="stable")
    np.testing.assert_allclose(z, np.log10(np.maximum(A.power_share[order], 1e-4)), atol=1e-6)
    wave = z[list(order).index(0)]
    assert wave.max() > -1e-6 and np.argmax(wave) == np.argmin(np.abs(A.freqs - 8 / 64))  # all its power in one bin: log₁₀ 1 = 0
    assert (wave < -3.99).sum() == wave.size - 1  # and none elsewhere: every other bin at the floor
    assert ((z[list(order).index(1)] > -4) & (z[list(order).index(1)] < -1)).sum() > 5  # noise: faint power in many bins, now seen
