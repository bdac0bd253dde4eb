"""core.schemes.naive: each naive code has exactly the flaw the first page draws."""

import numpy as np
import pytest

from core.schemes import naive
from tests.helpers import assert_close


def test_integer_positions_are_unbounded():
    codes = naive.integer_positions(1000)
    assert codes.shape == (1000, 1)
    assert codes[999, 0] == 999.0


def test_fraction_codes_the_same_position_differently_by_length():
    assert naive.fraction_positions(4)[3, 0] == 0.75
    assert naive.fraction_positions(8)[3, 0] == 0.375
    assert naive.fraction_positions(4).max() < 1.0


def test_binary_codes_by_hand():
    bits = naive.binary_positions(9)
    assert bits.shape == (9, 4)
    assert_close(bits[6], [0, 1, 1, 0], atol=0)  # 6 = 0b0110, lowest bit first
    assert_close(bits[8], [0, 0, 0, 1], atol=0)


def test_binary_neighbour_distance_jumps():
    dist = naive.neighbour_distances(naive.binary_positions(16))
    assert dist[0] == 1.0  # 0 -> 1 flips one bit
    assert_close(dist[7], 2.0)  # 7 -> 8 flips four bits: sqrt(4)
    assert np.ptp(dist) > 0.9


def test_binary_width():
    assert [naive.binary_width(n) for n in (1, 2, 3, 4, 5, 256, 257)] == [1, 1, 2, 2, 3, 8, 9]


def test_one_hot_has_no_nearness_and_no_extrapolation():
    codes = naive.one_hot_positions(10)
    assert_close(codes @ codes.T, np.eye(10), atol=0)
    dist = np.linalg.norm(codes[:, None] - codes[None], axis=2)
    off_diagonal = dist[~np.eye(10, dtype=bool)]
    assert_close(off_diagonal, np.full(off_diagonal.shape, np.sqrt(2)))


def test_bad_length_raises():
    with pytest.raises(ValueError):
        naive.integer_positions(0)
