"""core.schemes.sinusoidal against hand-worked values, the paper's formula, the tensor2tensor/fairseq
reference, and the encoding's properties (bounded, rotation by a fixed matrix)."""

import math

import numpy as np
import pytest

from core.schemes import sinusoidal as sn
from tests.helpers import assert_close


def paper_formula(max_len: int, d_model: int, base: float) -> np.ndarray:
    """Vaswani et al. (2017), section 3.5, written out element by element with math.sin/cos."""
    pe = np.zeros((max_len, d_model))
    for p in range(max_len):
        for j in range(d_model):
            angle = p / base ** (2 * (j // 2) / d_model)
            pe[p, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe


def test_row_zero_is_sin0_cos0_repeated():
    assert_close(sn.sinusoidal_encoding(1, 8)[0], [0, 1, 0, 1, 0, 1, 0, 1], atol=0)
    assert_close(sn.sinusoidal_encoding(1, 7)[0], [0, 1, 0, 1, 0, 1, 0], atol=0)


def test_position_one_by_hand_for_d4():
    # d = 4, base 1e4: omega_0 = 1, omega_1 = 10000^(-2/4) = 0.01
    expected = [0.8414709848078965, 0.5403023058681398, 0.009999833334166664, 0.9999500004166653]
    assert_close(sn.sinusoidal_encoding(2, 4)[1], expected, atol=1e-15)


@pytest.mark.parametrize("d_model", [2, 3, 7, 16, 33])
@pytest.mark.parametrize("base", [2.0, 10_000.0, 5e5])
def test_matches_paper_formula_including_odd_width(d_model, base):
    assert_close(sn.sinusoidal_encoding(40, d_model, base), paper_formula(40, d_model, base))


def test_concat_layout_is_a_column_permutation_of_interleaved():
    inter = sn.sinusoidal_encoding(30, 9, 100.0)
    concat = sn.sinusoidal_encoding(30, 9, 100.0, layout="concat")
    perm = sn.layout_permutation(9, "concat")
    assert list(perm) == [0, 2, 4, 6, 8, 1, 3, 5, 7]
    assert_close(concat, inter[:, perm], atol=0)
    assert_close(concat[:, :5], np.sin(np.outer(np.arange(30), sn.pair_frequencies(9, 100.0))), atol=1e-15)


def test_huge_and_fractional_positions_evaluated_alone():
    positions = np.array([1e12, 123456789012.0, 2.5])
    rows = sn.sinusoidal_encoding(0, 6, positions=positions)
    assert rows.shape == (3, 6)
    omega = [1.0, 1e4 ** (-2 / 6), 1e4 ** (-4 / 6)]
    for r, p in enumerate(positions):
        expected = [f(p * w) for w in omega for f in (math.sin, math.cos)]
        assert_close(rows[r], expected, atol=1e-9)  # numpy and libm reduce a 1e12-rad angle independently
    # a row at position p equals that row of the full table
    assert_close(sn.sinusoidal_encoding(0, 6, positions=[17])[0], sn.sinusoidal_encoding(18, 6)[17], atol=0)


def test_dims_selects_columns():
    full = sn.sinusoidal_encoding(20, 11, 50.0, layout="concat")
    part = sn.sinusoidal_encoding(20, 11, 50.0, layout="concat", dims=np.array([10, 0, 5]))
    assert_close(part, full[:, [10, 0, 5]], atol=0)


@pytest.mark.parametrize("d_model", [2, 5, 64])
def test_bounded_by_one(d_model):
    pe = sn.sinusoidal_encoding(2000, d_model, 10.0)
    assert np.abs(pe).max() <= 1.0
    assert np.abs(pe).max() > 0.999  # the fast sine really reaches its peaks


@pytest.mark.parametrize("layout", sn.LAYOUTS)
@pytest.mark.parametrize("offset", [1, 7, -3, 0.5, 1000])
def test_rotation_identity_even_width(layout, offset):
    d = 12
    positions = np.arange(-50, 200, dtype=float)
    now = sn.sinusoidal_encoding(0, d, 300.0, layout=layout, positions=positions)
    later = sn.sinusoidal_encoding(0, d, 300.0, layout=layout, positions=positions + offset)
    m = sn.rotation_matrix(offset, d, 300.0, layout=layout)
    assert_close(now @ m.T, later, atol=1e-12)
    assert_close(m @ m.T, np.eye(d), atol=1e-14)  # a rotation: orthogonal


def test_rotation_blocks_by_hand():
    m = sn.rotation_matrix(1, 4)
    c0, s0, c1, s1 = math.cos(1), math.sin(1), math.cos(0.01), math.sin(0.01)
    assert_close(m, [[c0, s0, 0, 0], [-s0, c0, 0, 0], [0, 0, c1, s1], [0, 0, -s1, c1]], atol=1e-15)


def test_rotation_sub_block_matches_full_matrix():
    full = sn.rotation_matrix(3, 10, 77.0, layout="concat")
    dims = np.array([0, 1, 5, 6])
    assert_close(sn.rotation_matrix(3, 10, 77.0, layout="concat", dims=dims), full[np.ix_(dims, dims)], atol=0)


def test_rotation_odd_width_fails_only_in_the_lone_sine():
    d, k = 7, 5
    pe = sn.sinusoidal_encoding(100, d, 10.0)
    residual = np.abs(pe[k:] - pe[:-k] @ sn.rotation_matrix(k, d, 10.0).T)
    assert residual[:, :-1].max() < 1e-12
    assert residual[:, -1].max() > 1e-3


def test_wavelengths_span_2pi_to_nearly_2pi_base():
    wl = sn.wavelengths(128, 1e4)
    assert_close(wl[0], 2 * math.pi)
    assert_close(wl[-1], 2 * math.pi * 1e4 ** (126 / 128))
    assert np.all(np.diff(np.log(wl)) > 0)
    assert_close(np.diff(np.log(wl)), np.full(63, 2 * math.log(1e4) / 128))


def test_t2t_timing_signal_reference_values():
    # tensor2tensor common_attention.get_timing_signal_1d (and fairseq SinusoidalPositionalEmbedding):
    # n = channels // 2, inv_timescales = min * exp(-arange(n) * log(max/min) / max(n - 1, 1)),
    # signal = concat([sin(pos * inv), cos(pos * inv)], axis=1), zero-padded when channels is odd.
    sig = sn.t2t_timing_signal(3, 4)
    inv = [1.0, 1e-4]  # log(1e4) / (2 - 1) step: the last frequency is exactly 1/max_timescale
    for p in range(3):
        assert_close(sig[p], [math.sin(p * inv[0]), math.sin(p * inv[1]), math.cos(p * inv[0]), math.cos(p * inv[1])], atol=1e-15)
    odd = sn.t2t_timing_signal(3, 5)
    assert odd.shape == (3, 5)
    assert_close(odd[:, :4], sig, atol=0)
    assert np.all(odd[:, 4] == 0)
    assert_close(sn.t2t_timing_signal(2, 4, start_index=5), sn.t2t_timing_signal(7, 4)[5:], atol=0)


def test_t2t_frequency_spacing_differs_from_paper():
    t2t = sn.t2t_frequencies(128, max_timescale=1e4)
    paper = sn.pair_frequencies(128, 1e4)
    assert_close(t2t[-1], 1e-4)
    assert paper[-1] > 1e-4  # the paper stops short of 1/base
    assert_close(t2t[0], paper[0])
    assert_close(np.diff(np.log(t2t)), np.full(63, -math.log(1e4) / 63))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(max_len=10, d_model=0),
        dict(max_len=-1, d_model=4),
        dict(max_len=10, d_model=4, base=0.0),
        dict(max_len=10, d_model=4, base=float("nan")),
        dict(max_len=10, d_model=4, layout="diagonal"),
        dict(max_len=10, d_model=2.5),
    ],
)
def test_bad_arguments_raise_value_error_with_a_sentence(kwargs):
    with pytest.raises(ValueError, match=r"\w+ \w+"):
        sn.sinusoidal_encoding(**kwargs)
