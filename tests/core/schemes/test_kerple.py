r"""core.schemes.kerple: KERPLE's logarithmic bias -r1 log(1 + r2 |i - j|) by hand, against the
reference implementation's causal form (NeMo's `kerple_log_forward`: diff = tril(i - j), both
parameters clamped at 0.01), its initialisation, the registry entry, and the torch twin the lab
trains (float64 parity, gradients reach r1 and r2)."""

import math

import numpy as np
import pytest
import torch

from core.schemes import kerple
from core.schemes.registry import SCHEMES, Setting
from tests.helpers import assert_close


def test_hand_worked_values():
    r1, r2 = np.array([1.0, 2.0]), np.array([1.0, 0.5])
    bias = kerple.kerple_log_bias(r1, r2, np.arange(4.0), np.arange(4.0))  # (2, 4, 4)
    # head 0: -log(1 + d); head 1: -2 log(1 + d / 2), at distances d = |i - j|
    assert bias[0, 3, 0] == pytest.approx(-math.log(4.0), abs=1e-15)
    assert bias[0, 1, 2] == pytest.approx(-math.log(2.0), abs=1e-15)
    assert bias[1, 2, 0] == pytest.approx(-2.0 * math.log(2.0), abs=1e-15)
    assert bias[1, 0, 3] == pytest.approx(-2.0 * math.log(2.5), abs=1e-15)
    assert np.all(np.diagonal(bias, axis1=1, axis2=2) == 0.0)  # log(1) at distance 0


def test_parameters_are_floored_at_eps():
    bias = kerple.kerple_log_bias(np.array([-3.0, 0.0]), np.array([0.0, -1.0]), np.array([5.0]), np.array([0.0]))  # distance 5
    assert_close(bias[:, 0, 0], np.full(2, -kerple.EPS * math.log1p(kerple.EPS * 5)))


def reference_causal(bias_p: np.ndarray, bias_a: np.ndarray, length: int) -> np.ndarray:
    """NeMo's kerple_log_forward written out: diff = tril(i - j) (zero above the diagonal, where a
    causal mask hides the keys), parameters clamped at 0.01, bias = -p log(1 + a diff). (H, L, L)."""
    i = np.arange(length)[:, None]
    j = np.arange(length)[None, :]
    diff = np.tril(i - j).astype(np.float64)
    p = np.maximum(bias_p, 1e-2)[:, None, None]
    a = np.maximum(bias_a, 1e-2)[:, None, None]
    return -p * np.log(1 + a * diff)


@pytest.mark.parametrize("heads", [1, 4, 12])
def test_equals_the_reference_on_and_below_the_diagonal(heads):
    params = kerple.kerple_parameters(heads, seed=5)
    ours = kerple.kerple_log_bias(params["r1"], params["r2"], np.arange(40.0), np.arange(40.0))
    theirs = reference_causal(params["r1"], params["r2"], 40)
    lower = np.tril(np.ones((40, 40), dtype=bool))
    assert_close(ours[:, lower], theirs[:, lower], atol=1e-14)
    assert_close(ours, ours.transpose(0, 2, 1), atol=0, rtol=0)  # the symmetric form above it


def test_initialisation_ranges_and_seed():
    params = kerple.kerple_parameters(4096, seed=0)
    assert params["r1"].shape == params["r2"].shape == (4096,)
    assert 0 <= params["r1"].min() and params["r1"].max() < 2 and 0 <= params["r2"].min() and params["r2"].max() < 1
    assert params["r1"].mean() == pytest.approx(1.0, abs=0.05) and params["r2"].mean() == pytest.approx(0.5, abs=0.03)  # uniform means
    again = kerple.kerple_parameters(4096, seed=0)
    assert np.array_equal(params["r1"], again["r1"]) and not np.array_equal(params["r1"], kerple.kerple_parameters(4096, seed=1)["r1"])


@pytest.mark.parametrize("bad", [0, -1, 2.5, "8"])
def test_bad_head_counts_are_refused_in_words(bad):
    with pytest.raises(ValueError, match="number of heads must be a whole number"):
        kerple.kerple_parameters(bad)


def test_registry_entry_is_the_module_and_depends_on_distance_only():
    s = Setting(width=32, n_heads=6, seed=2)
    params = kerple.kerple_parameters(6, seed=2)
    scheme = SCHEMES["kerple"]
    rows, cols = np.array([0.0, 7.0, 100.0]), np.array([3.0, 7.0, 50.0, 100.0])
    assert_close(scheme.score_bias(rows, cols, s), kerple.kerple_log_bias(params["r1"], params["r2"], rows, cols), atol=0, rtol=0)
    shifted = scheme.score_bias(rows + 1000, cols + 1000, s)
    assert_close(shifted, scheme.score_bias(rows, cols, s), atol=1e-12)
    assert scheme.parameters(s) == 12 and scheme.max_position(s) is None
    profile = scheme.codes(np.arange(50), s)  # (n, H): the bias at each distance
    assert np.all(np.diff(profile, axis=0) < 0)  # the penalty grows with the distance in every head
    assert np.all(np.diff(profile, n=2, axis=0) > 0)  # ever more slowly: a logarithm, not ALiBi's line


def test_torch_twin_equals_numpy_and_learns():
    s = Setting(width=32, n_heads=4, seed=3)
    twin = SCHEMES["kerple"].trainable(s, torch.Generator().manual_seed(0))
    assert_close(twin(30).detach().numpy(), SCHEMES["kerple"].score_bias(np.arange(30), np.arange(30), s), atol=1e-14)
    q = torch.zeros(2, 4, 30, 8)
    assert twin.from_queries(q).shape == (4, 30, 30)
    twin.from_queries(q).sum().backward()
    assert all(p.grad is not None and torch.all(p.grad != 0) for p in twin.parameters())
