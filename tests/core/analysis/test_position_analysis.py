"""core.analysis.position_analysis: hand-worked cases (a circle, a line, a helix, a pure cosine),
the sinusoid's known properties (cosine similarity a function of the offset only, as
core.analysis.similarity computes it in closed form), and the bookkeeping of a sampled analysis."""

from __future__ import annotations

import numpy as np
import pytest

from core.analysis import position_analysis as pa
from core.analysis.similarity import similarity_matrix
from core.schemes.sinusoidal import sinusoidal_encoding
from tests.helpers import assert_close


def circle(n: int, turns: float = 1.0) -> np.ndarray:
    theta = 2 * np.pi * turns * np.arange(n) / n
    return np.column_stack([np.cos(theta), np.sin(theta)])  # (n, 2)


def random_rotation(d: int, seed: int = 0) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, d)))
    return q


# --- PCA -------------------------------------------------------------------------------

def test_pca_of_a_circle_splits_the_variance_evenly():
    coords, ratio = pa.pca(circle(360))
    assert_close(ratio, [0.5, 0.5])
    assert_close(np.linalg.norm(coords, axis=1), np.ones(360))  # the circle, rotated at most


def test_pca_finds_a_circle_hidden_in_many_dimensions():
    embedded = np.pad(circle(200), ((0, 0), (0, 14))) @ random_rotation(16) + 3.0  # rotated and shifted
    coords, ratio = pa.pca(embedded)
    assert_close(ratio, [0.5, 0.5] + [0.0] * 14, atol=1e-12)
    assert_close(np.linalg.norm(coords[:, :2], axis=1), np.ones(200), atol=1e-12)
    assert pa.path_turns(coords[:, :2]) == pytest.approx(199 / 200)


def test_pca_of_points_on_a_line_has_one_component():
    t = np.linspace(-1, 1, 50)
    coords, ratio = pa.pca(np.outer(t, [3.0, 4.0, 0.0]))
    assert_close(ratio, [1.0, 0.0, 0.0])
    assert_close(np.abs(coords[:, 0]), np.abs(5.0 * t), atol=1e-12)


def test_pca_is_deterministic_in_sign():
    table = np.random.default_rng(3).standard_normal((40, 6))
    s1, r1 = pa.pca(table)
    s2, r2 = pa.pca(-table)  # the same cloud reflected: same components up to sign, fixed by the rule
    assert_close(s1, s2, atol=1e-12)
    assert_close(r1, r2)
    assert np.all(s1[np.argmax(np.abs(s1), axis=0), np.arange(s1.shape[1])] > 0)


def test_pca_of_identical_rows_explains_nothing():
    coords, ratio = pa.pca(np.ones((5, 3)))
    assert coords.shape == (5, 3) and np.all(coords == 0)
    assert np.all(ratio == 0)


def test_a_helix_winds_in_its_first_two_components_and_drifts_in_the_third():
    n, turns = 600, 7
    theta = 2 * np.pi * turns * np.arange(n) / n
    helix = np.column_stack([2 * np.cos(theta), 2 * np.sin(theta), np.linspace(0, 1, n)])
    a = pa.analyse(helix @ random_rotation(3, 1))
    assert a.turns == pytest.approx(turns * (n - 1) / n, rel=1e-3)  # the drift is not quite orthogonal to the turns
    assert_close(a.pc_dominant[:2], [turns / n, turns / n])
    assert a.pc_dominant[2] == pytest.approx(1 / n)  # a drift over the whole table: the lowest bin


# --- spectrum --------------------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 5, 37, 64])
def test_the_spectrum_of_a_pure_cosine_peaks_at_its_frequency(k):
    n = 128
    p = np.arange(n)
    table = np.column_stack([np.cos(2 * np.pi * k * p / n), 5 + np.sin(2 * np.pi * 3 * p / n)])
    freqs, power = pa.dimension_spectrum(table)
    assert freqs.shape == (n // 2 + 1,) and power.shape == (2, n // 2 + 1)
    assert_close(freqs[1], 1 / n)
    assert_close(pa.dominant_frequency(freqs, power), [k / n, 3 / n])
    assert_close(pa.peak_share(power, width=0), [1.0, 1.0], atol=1e-12)
    assert power[1, 0] == pytest.approx(0, abs=1e-18)  # the mean (5) is removed
    assert_close(power[0].sum(), n**2 if 2 * k == n else n**2 / 4)  # |rfft| at the bin: n/2 for a cosine, n at Nyquist


def test_a_sampled_table_reports_frequencies_per_position_not_per_row():
    p = np.arange(0, 512, 4)  # every 4th position
    table = np.cos(2 * np.pi * (10 / 512) * p)[:, None]
    freqs, power = pa.dimension_spectrum(table, step=4)
    assert pa.dominant_frequency(freqs, power)[0] == pytest.approx(10 / 512)
    assert freqs[-1] == pytest.approx(1 / 8)  # the Nyquist limit of a 4-position stride


def test_noise_spreads_its_power_and_constants_have_no_frequency():
    rng = np.random.default_rng(1)
    table = np.column_stack([rng.standard_normal(1000), np.full(1000, 2.5)])
    freqs, power = pa.dimension_spectrum(table)
    share = pa.peak_share(power)
    assert share[0] < 0.05
    assert pa.dominant_frequency(freqs, power)[1] == 0.0 and share[1] == 0.0


def test_fit_sinusoid_recovers_an_exact_wave():
    p = np.arange(300)
    y = 0.3 * np.cos(2 * np.pi * 0.05 * p) - 0.2 * np.sin(2 * np.pi * 0.05 * p) + 1.5
    fitted, r2 = pa.fit_sinusoid(y, 0.05, p)
    assert_close(fitted, y, atol=1e-12)
    assert r2 == pytest.approx(1.0)


def test_best_sinusoid_finds_a_frequency_between_bins():
    n = 256
    p = np.arange(n)
    f = 10.5 / n  # half-way between two FFT bins
    y = np.sin(2 * np.pi * f * p + 0.3)
    freqs, power = pa.dimension_spectrum(y[:, None])
    peak = pa.dominant_frequency(freqs, power)[0]
    _, r2_at_peak = pa.fit_sinusoid(y, peak, p)
    found, fitted, r2 = pa.best_sinusoid(y, p, peak, 1 / n)
    assert found == pytest.approx(f, abs=0.05 / n)
    assert r2 > 0.999 > r2_at_peak


# --- similarity ------------------------------------------------------------------------

def test_cosine_similarity_hand_case():
    table = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, -2.0], [0.0, 0.0]])
    c = pa.cosine_similarity(table)
    r = 1 / np.sqrt(2)
    expected = np.array([[1, r, 0, 0], [r, 1, -r, 0], [0, -r, 1, 0], [0, 0, 0, 0]])
    assert_close(c, expected)
    assert_close(pa.neighbour_cosine(table), [r, -r, 0.0])
    assert_close(pa.neighbour_cosine(table, 2), [0.0, 0.0])
    assert list(pa.nearest_other(c[:3, :3])) == [1, 0, 0]  # row 2: both others are <= 0, the first wins


@pytest.mark.parametrize("d_model", [16, 64, 384])
def test_the_sinusoids_cosine_similarity_is_a_function_of_the_offset(d_model):
    table = sinusoidal_encoding(200, d_model, 10_000.0)
    c = pa.cosine_similarity(table)
    assert_close(c, similarity_matrix(0, 1, 200, d_model, 10_000.0, kind="cosine"), atol=1e-12)
    mean, std = pa.cosine_by_offset(c)
    assert np.all(std < 1e-12)  # every diagonal is constant
    assert_close(mean, c[0], atol=1e-12)
    assert_close(pa.neighbour_cosine(table), np.full(199, c[0, 1]), atol=1e-12)


def test_cosine_by_offset_hand_case():
    m = np.array([[1.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 1.0]])
    mean, std = pa.cosine_by_offset(m)
    assert_close(mean, [1.0, 0.4, 0.1])
    assert_close(std, [0.0, 0.1, 0.0])


# --- the whole analysis ----------------------------------------------------------------

def test_analyse_the_sinusoid_of_minilms_shape():
    a = pa.analyse(sinusoidal_encoding(512, 384, 10_000.0))
    assert a.values.shape == (512, 384) and not a.rows.is_sample and not a.cols.is_sample
    assert np.all(a.offset_std < 1e-12)
    assert a.nearest_is_adjacent == 1.0
    assert_close(a.explained.sum(), 1.0)
    # the fastest pair turns 1 radian per position: 1/(2π) cycles, the nearest bin of 1/512
    assert a.dominant[0] == pytest.approx(round(512 / (2 * np.pi)) / 512)
    assert np.median(a.peak) > 0.8


def test_analyse_samples_long_and_wide_tables_and_says_so():
    table = np.random.default_rng(2).standard_normal((30, 50)).astype(np.float32)  # three times what may be drawn either way
    a = pa.analyse(table, max_rows=10, max_cols=20)
    assert a.rows.step == 3 and a.rows.count == 10 and a.cols.step == 3 and a.cols.count == 17
    assert a.rows.note("position").startswith("every 3rd position")
    np.testing.assert_array_equal(a.values, table[::3, ::3])
    assert a.freqs[-1] == pytest.approx(1 / 6)  # the sample's Nyquist frequency, in cycles per position
    assert a.power_share.shape == (a.cols.count, 6)


def test_analysis_arrays_are_read_only_and_do_not_alias_the_input():
    table = np.random.default_rng(4).standard_normal((20, 4))
    a = pa.analyse(table)
    with pytest.raises(ValueError):
        a.cosine[0, 0] = 5.0
    table[0, 0] = 99.0
    assert a.values[0, 0] != 99.0


def test_tiny_tables_do_not_break_the_analysis():
    for shape in ((1, 1), (1, 5), (2, 1), (3, 2)):
        a = pa.analyse(np.arange(np.prod(shape), dtype=float).reshape(shape) + 1.0)
        assert a.scores.shape == (shape[0], 3)
        assert a.neighbour.shape == (max(shape[0] - 1, 0),)


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="2-D"):
        pa.analyse(np.ones(5))
    with pytest.raises(ValueError, match="non-empty"):
        pa.cosine_similarity(np.ones((0, 3)))


def test_step_angle_of_a_steady_rotation():
    theta = np.radians(62.0) * np.arange(100)
    assert pa.step_angle(np.column_stack([np.cos(theta), np.sin(theta)])) == pytest.approx(62.0)
    assert pa.step_angle(np.zeros((1, 2))) == 0.0


def test_outliers_are_the_values_far_below_the_rest():
    values = np.full(50, 0.85) + np.linspace(-0.01, 0.01, 50)
    values[[0, 20]] = [0.3, 0.5]
    assert list(pa.outliers(values)) == [0, 20]
    assert list(pa.outliers(np.ones(5))) == []
