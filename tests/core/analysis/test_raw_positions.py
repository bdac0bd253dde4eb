"""core.analysis.raw_positions: the scale of raw integer positions against a word, and one gradient step on a linear
layer, against the closed forms worked by hand (‖p·1‖ = p√d; loss × (1 − η‖x‖²)²) and a literal matrix update."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.analysis import raw_positions as rp
from core.analysis.attention import sentence_inputs
from core.schemes.sinusoidal import sinusoidal_encoding


def test_scale_by_hand():
    d = 64
    study = rp.raw_scale(np.array([1, 2, 10, 100]), d)
    w = sentence_inputs([rp.WORD], d)[0]
    assert study.word_norm == pytest.approx(np.linalg.norm(w), rel=1e-15)
    np.testing.assert_allclose(study.integer_ratio, np.array([1, 2, 10, 100]) * math.sqrt(d) / study.word_norm, rtol=1e-12)
    np.testing.assert_allclose(study.sinusoid_ratio, math.sqrt(d / 2) / study.word_norm, rtol=1e-12)  # even d: √(d/2) at every p


def test_one_step_is_a_literal_gradient_step_and_the_closed_form():
    d, positions = 16, np.array([1, 3, 50])
    study = rp.raw_scale(positions, d, seed=3)
    rng = np.random.default_rng(3)  # the layer and target raw_scale draws
    w_layer, target = rng.normal(0.0, 1.0 / math.sqrt(d), (d, d)), rng.normal(0.0, 1.0, d)
    w = sentence_inputs([rp.WORD], d)[0]
    eta = 1 / np.linalg.norm(w) ** 2
    assert study.step == pytest.approx(eta, rel=1e-15) and study.word_loss < 1e-25  # η fits the word alone in one step
    for k, p in enumerate(positions):
        for code, measured in ((np.full(d, float(p)), study.integer_loss[k]), (sinusoidal_encoding(p + 1, d)[p], study.sinusoid_loss[k])):
            x = w + code
            error = w_layer @ x - target
            updated = w_layer - eta * np.outer(error, x)  # ∂/∂W ½‖Wx − t‖² = e xᵀ
            literal = np.sum((updated @ x - target) ** 2) / np.sum(error**2)
            assert measured == pytest.approx(literal, rel=1e-9)
            assert measured == pytest.approx((1 - eta * x @ x) ** 2, rel=1e-9)


def test_the_largest_step_is_where_the_loss_stops_falling():
    """Just below 2/‖x‖² a literal step lowers the loss, just above it raises it; raw positions shrink that step as 1/p²."""
    d, positions = 32, np.array([1, 7, 300])
    study = rp.raw_scale(positions, d, seed=2)
    rng = np.random.default_rng(2)
    w_layer, target = rng.normal(0.0, 1.0 / math.sqrt(d), (d, d)), rng.normal(0.0, 1.0, d)
    w = sentence_inputs([rp.WORD], d)[0]
    for k, p in enumerate(positions):
        x = w + np.full(d, float(p))
        largest = study.integer_max_step[k] * study.step
        for factor, better in ((0.999, True), (1.001, False)):
            error = w_layer @ x - target
            after = (w_layer - factor * largest * np.outer(error, x)) @ x - target
            assert bool(np.sum(after**2) < np.sum(error**2)) is better
    big = rp.raw_scale(np.array([1000, 2000]), d)
    assert big.integer_max_step[0] / big.integer_max_step[1] == pytest.approx(4, rel=1e-3)  # 1/p²
    assert np.all(big.sinusoid_max_step > 1)  # the word's own step still works with the sinusoid at this width


def test_integer_steps_explode_as_p_to_the_fourth_while_the_sinusoids_stay_bounded():
    study = rp.raw_scale(rp.measured_positions(4096), 128)
    big = study.positions > 100
    x2 = (study.integer_ratio[big] ** 2) * study.word_norm**2  # ‖p·1‖², the word's part negligible this far
    np.testing.assert_allclose(study.integer_loss[big], (x2 / study.word_norm**2) ** 2, rtol=0.05)
    assert study.integer_loss[-1] > 1e12 and study.sinusoid_loss.max() < 1
    text = "".join(rp.raw_scale_parts(study, 128))
    assert f"{study.integer_loss[-1]:.3g} times at position 4,095" in text and f"at most {study.sinusoid_loss.max():.3g}" in text
    assert f"from position {rp.first_position_above(study.positions, study.integer_loss, 1.0):,} on the step makes the loss worse" in text


def test_measured_positions_and_tiny_widths():
    assert rp.measured_positions(1).size == 0 and list(rp.measured_positions(2)) == [1] and list(rp.measured_positions(5)) == [1, 2, 3, 4]
    positions = rp.measured_positions(131_072)
    assert positions[0] == 1 and positions[-1] == 131_071 and np.all(np.diff(positions) > 0)
    tiny = rp.raw_scale(np.array([1]), 2)
    text = "".join(rp.raw_scale_parts(tiny, 2))
    assert ("still makes progress" in text) == (tiny.sinusoid_loss.max() < 1) and "position 1" in text


@pytest.mark.parametrize(("d", "max_len"), [(2, 2), (2, 100), (3, 50), (128, 512)])
def test_the_words_follow_the_numbers(d, max_len):
    """'Suits the first positions' only where the word's step lowers the loss at the first one and raises it later; a range of
    the sinusoid's sizes only where they differ in the digits shown."""
    study = rp.raw_scale(rp.measured_positions(max_len), d)
    text = "".join(rp.raw_scale_parts(study, d))
    suits = study.integer_loss[0] < 1 and rp.first_position_above(study.positions, study.integer_loss, 1.0) is not None
    assert ("suits the first positions" in text) == suits
    lo, hi = f"{study.sinusoid_ratio.min():.4g}", f"{study.sinusoid_ratio.max():.4g}"
    assert (f"{lo} to {hi} times the word" in text) == (lo != hi) and f"{lo} to {lo} " not in text
