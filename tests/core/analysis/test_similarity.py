"""core.analysis.similarity: the offset-function shortcuts against direct products on small L,
and the properties they expose (Toeplitz, constant steps, constant norms, unique rows)."""

import math

import numpy as np
import pytest

from core.analysis import similarity as sim
from core.schemes.sinusoidal import pair_frequencies, sinusoidal_encoding
from tests.helpers import assert_close


@pytest.mark.parametrize("count", [1, 2, 10, 97, 1000])
def test_cos_sum_arith_matches_direct_sum(count):
    rng = np.random.default_rng(count)
    omega = rng.uniform(0, 2, 17)
    start, step = 3.5, 2.25
    m = np.arange(count)
    direct = np.cos(np.outer(start + m * step, omega)).sum(axis=1)
    assert_close(sim.cos_sum_arith(start, step, count, omega), direct, atol=1e-11)


@pytest.mark.parametrize("d_model", [2, 7, 16, 33])
@pytest.mark.parametrize("kind", ["dot", "cosine"])
def test_toeplitz_similarity_matches_direct_product(d_model, kind):
    pe = sinusoidal_encoding(120, d_model, 50.0)
    if kind == "cosine":
        pe = pe / np.linalg.norm(pe, axis=1, keepdims=True)
    direct = pe @ pe.T
    assert_close(sim.similarity_matrix(0, 1, 120, d_model, 50.0, kind=kind), direct, atol=1e-12)
    sampled = direct[5::7, 5::7]
    assert_close(sim.similarity_matrix(5, 7, sampled.shape[0], d_model, 50.0, kind=kind), sampled, atol=1e-12)


def test_even_width_similarity_depends_only_on_offset():
    s = sim.similarity_matrix(0, 1, 60, 32, 1e4)
    for k in range(-59, 60):
        diagonal = np.diagonal(s, offset=k)
        assert np.ptp(diagonal) < 1e-12


@pytest.mark.parametrize("d_model", [6, 9])
@pytest.mark.parametrize("reference", [0, 17, 79])
def test_dot_profile_matches_direct(d_model, reference):
    pe = sinusoidal_encoding(80, d_model, 30.0)
    assert_close(sim.dot_profile(reference, 80, d_model, 30.0), pe @ pe[reference], atol=1e-12)


def test_dot_profile_rejects_reference_outside_context():
    with pytest.raises(ValueError, match="reference position"):
        sim.dot_profile(80, 80, 8)


@pytest.mark.parametrize("d_model", [4, 5, 64])
def test_row_norm_closed_form_matches_measured(d_model):
    pe = sinusoidal_encoding(300, d_model, 10.0)
    assert_close(sim.row_norm(np.arange(300), d_model, 10.0), np.linalg.norm(pe, axis=1))
    if d_model % 2 == 0:
        assert_close(np.linalg.norm(pe, axis=1), np.full(300, math.sqrt(d_model / 2)))


def test_consecutive_distance_is_constant_for_even_width():
    d = 64
    dist = sim.consecutive_distances(np.arange(0, 100_000, 997), d, 1e4)
    omega = pair_frequencies(d, 1e4)
    assert_close(dist, np.full(dist.shape, 2 * math.sqrt(np.sum(np.sin(omega / 2) ** 2))), atol=1e-10)


def test_rotation_residual_is_rounding_for_even_width_and_exact_formula_for_odd():
    pos = np.arange(0, 5000, 13, dtype=float)
    assert sim.rotation_residual(7, pos, 32, 1e4).max() < 1e-11
    omega_m = pair_frequencies(5, 10.0)[-1]
    expected = np.abs(np.sin((pos + 7) * omega_m) - math.cos(7 * omega_m) * np.sin(pos * omega_m))
    assert_close(sim.rotation_residual(7, pos, 5, 10.0), expected, atol=1e-12)


def brute_force_closest(max_len: int, d_model: int, base: float) -> float:
    pe = sinusoidal_encoding(max_len, d_model, base)
    dist = np.linalg.norm(pe[:, None, :] - pe[None, :, :], axis=2)
    dist[np.eye(max_len, dtype=bool)] = np.inf
    return float(dist.min())


@pytest.mark.parametrize(("max_len", "d_model", "base"), [(2, 2, 2.0), (300, 2, 2.0), (300, 3, 2.0), (200, 8, 1e4), (150, 9, 7.0), (400, 4, 3.0), (1, 4, 1e4)])
def test_closest_pair_matches_brute_force(max_len, d_model, base):
    found = sim.closest_pair(max_len, d_model, base)
    if max_len < 2:
        assert found is None
        return
    expected = brute_force_closest(max_len, d_model, base)
    assert found.exact
    assert_close(found.distance, expected, atol=1e-9)
    pe = sinusoidal_encoding(max_len, d_model, base)
    assert 0 <= found.p < found.q < max_len
    assert_close(np.linalg.norm(pe[found.p] - pe[found.q]), found.distance, atol=1e-9)


def test_aliasing_makes_tiny_widths_nearly_repeat():
    # d = 2 has one pair with a 2*pi wavelength: positions 0 and 44 are 44 / (2 pi) = 7.003 turns apart
    found = sim.closest_pair(300, 2, 2.0)
    assert (found.q - found.p) == 44
    assert found.distance < 0.02


def test_pair_distance_sq_is_the_measured_distance_whatever_p():
    offsets = np.array([1, 6, 44, 710])
    np.testing.assert_allclose(sim.pair_distance_sq(offsets, 2), 4 * np.sin(offsets / 2) ** 2, rtol=1e-12)  # one pair, ω = 1
    pe = sinusoidal_encoding(800, 16, 100.0)
    for p in (0, 7, 50):
        measured = ((pe[p + offsets] - pe[p]) ** 2).sum(axis=1)
        np.testing.assert_allclose(sim.pair_distance_sq(offsets, 16, 100.0), measured, rtol=1e-9, atol=1e-12)


# --- the page's sentences, at the ends of the sliders -------------------------------------------


def _cosine(n: int, d: int, base: float = 10_000.0) -> np.ndarray:
    pe = sinusoidal_encoding(n, d, base)
    pe = pe / np.linalg.norm(pe, axis=1, keepdims=True)
    return pe @ pe.T


@pytest.mark.parametrize(("d_model", "toeplitz"), [(2, True), (3, False), (5, False), (6, True), (128, True)])
def test_toeplitz_is_said_only_where_the_diagonals_are_constant(d_model, toeplitz):
    direct = _cosine(60, d_model)
    brute = max(np.ptp(np.diagonal(direct, k)) for k in range(-59, 60))  # along every diagonal, by direct products
    assert bool(brute < 1e-9) is toeplitz
    cos = sim.similarity_matrix(0, 1, 60, d_model, 10_000.0, kind="cosine")
    assert_close(sim.diagonal_spread(cos), brute, atol=1e-12)
    text = sim.toeplitz_text(cos, d_model)
    assert ("(a Toeplitz matrix)" in text) is toeplitz
    assert ("Each diagonal has one colour" in text) is toeplitz
    if not toeplitz:
        assert f"varies by up to {brute:.2g}" in text


@pytest.mark.parametrize(("start", "count"), [(0, 1), (5, 1), (0, 2), (3, 2), (0, 40)])
def test_the_matrices_caption_says_only_what_the_cells_drawn_show(start, count):
    d = 16
    positions = start + np.arange(count)
    cos = sim.similarity_matrix(start, 1, count, d, 10_000.0, kind="cosine")
    v = np.sin(positions[:, None] * pair_frequencies(d, 10_000.0)[None, :])  # the sines-only code, by hand
    with np.errstate(invalid="ignore"):
        sines = (v @ v.T) / np.outer(np.linalg.norm(v, axis=1), np.linalg.norm(v, axis=1))
    text = sim.matrices_text(cos, sines, d)
    if count == 1:  # one cell: no diagonal, no band, no Toeplitz
        assert "single cell" in text and not any(w in text for w in ("bands", "Toeplitz", "change colour along"))
        assert ("blank" in text) is (start == 0) and (start == 0 or "1 on the right" in text)
        return
    spreads = [np.ptp(np.diagonal(sines, k)[np.isfinite(np.diagonal(sines, k))]) for k in range(1 - count, count)
               if np.isfinite(np.diagonal(sines, k)).sum() > 1]  # fmt: skip
    brute = max(spreads, default=0.0)
    assert ("change colour along their length" in text) is bool(brute > 1e-9)  # two positions: every diagonal is one cell, or 1 and 1
    if brute > 1e-9:
        assert f"(by up to {brute:.2g})" in text
    assert ("position 0 is the zero vector" in text) is (start == 0)


def _profile(length: int, ref: int, d: int) -> np.ndarray:
    return _cosine(length, d)[ref]


def test_the_distance_sentence_at_d_model_2_does_not_say_falls_off():
    # one pair: the cosine is cos(p − ref) exactly, back to 0.9998 at 44 positions (44 ≈ 7·2π)
    c = _profile(256, 128, 2)
    assert_close(c, np.cos(np.arange(256) - 128.0), atol=1e-12)
    text = sim.profile_text(c, 128)
    assert "falls off" not in text and "floor" not in text
    assert "It does not fall off with distance: position 84, 44 away" in text
    assert_close(math.cos(44), 0.99984, atol=1e-5)


@pytest.mark.parametrize(("length", "ref"), [(256, 128), (1024, 512)])
def test_the_distance_sentence_at_d_model_128_falls_off_to_a_band(length, ref):
    c = _profile(length, ref, 128)
    offset = np.abs(np.arange(length) - ref)
    assert c[offset >= 2].max() < c[offset == 1].max()  # by direct products: nothing further is as alike as the next position
    text = sim.profile_text(c, ref)
    assert "It falls off with distance" in text
    far = c[offset >= ref // 2]
    assert f"stays between {far.min():.4g} and {far.max():.4g}" in text


def test_the_distance_sentence_at_one_and_two_positions():
    assert sim.profile_text(np.ones(1), 0) == "With one position there is only the reference: cosine 1."
    c = _profile(2, 1, 2)
    assert sim.profile_text(c, 1) == f"Similarity is 1 at the reference; the next position has {math.cos(1):.4g}."


@pytest.mark.parametrize(("length", "d_model", "adjacent"), [(131072, 16, True), (256, 128, True), (2048, 2, False)])
def test_the_uniqueness_sentence_names_the_closest_offset(length, d_model, adjacent):
    best = sim.closest_pair(length, d_model)
    if length <= 4096:  # brute force over every pair
        pe = sinusoidal_encoding(length, d_model, 10_000.0)
        dist = np.sqrt(np.maximum((pe**2).sum(1)[:, None] + (pe**2).sum(1)[None, :] - 2 * pe @ pe.T, 0))
        dist[np.tril_indices(length)] = np.inf
        p, q = np.unravel_index(np.argmin(dist), dist.shape)
        assert q - p == best.q - best.p
    text = sim.uniqueness_text(best)
    assert ("closest positions are neighbours" in text) is adjacent
    if (length, d_model) == (131072, 16):  # the sentence's own example
        assert "d_model = 16 the closest pair is still two neighbours at max_len 131,072" in text and best.q - best.p == 1
    assert "shrinks when max_len grows past the slowest wavelength" not in text
