"""core.schemes.learned: the initial table (normal, std 0.02, as Hugging Face initialises BERT's and GPT-2's
position embeddings), its determinism, row draws, and the refusals of bad arguments."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.schemes import learned as lr
from tests.helpers import assert_close

ROOT = Path(__file__).resolve().parents[3]


def test_initial_table_has_mean_0_and_std_0_02():
    table = lr.learned_table(2048, 512)  # about 1M draws: the sample std is within ~1.4e-5 of 0.02
    assert table.shape == (2048, 512) and table.dtype == np.float64
    assert abs(table.std() - 0.02) < 1e-4
    assert abs(table.mean()) < 1e-4
    assert abs(lr.learned_table(512, 512, std=0.01).std() - 0.01) < 1e-4  # original GPT-2's wpe


def test_table_is_the_seeded_pcg64_normal_draw():
    # row p comes from its own generator seeded by (seed, p)
    assert np.array_equal(lr.learned_table(7, 5, seed=42), np.stack([np.random.default_rng([42, p]).normal(0.0, 0.02, size=5) for p in range(7)]))
    assert np.array_equal(lr.learned_table(7, 5, seed=3), lr.learned_table(7, 5, seed=3))
    assert not np.allclose(lr.learned_table(7, 5, seed=3), lr.learned_table(7, 5, seed=4))
    assert np.array_equal(lr.learned_table(40, 6, seed=9)[:13], lr.learned_table(13, 6, seed=9))  # shorter = first rows
    assert np.all(lr.learned_table(3, 4, std=0.0) == 0.0)


@given(st.lists(st.integers(0, 700), min_size=0, max_size=30), st.sampled_from([1, 3, 64, 5000]), st.integers(0, 5))
@settings(max_examples=40, deadline=None)
def test_learned_rows_equal_the_rows_of_the_full_table(positions, d_model, seed):
    # d_model 5000 draws 209 rows per block, so wanted rows fall in several blocks
    rows = lr.learned_rows(np.array(positions, dtype=np.int64), d_model, seed=seed)
    assert rows.shape == (len(positions), d_model)
    if positions:
        assert np.array_equal(rows, lr.learned_table(max(positions) + 1, d_model, seed=seed)[positions])


def test_learned_rows_accepts_whole_floats_and_keeps_the_shape():
    grid = np.array([[0.0, 5.0], [5.0, 2.0]])
    rows = lr.learned_rows(grid, 4, seed=1)
    assert rows.shape == (2, 2, 4)
    table = lr.learned_table(6, 4, seed=1)
    assert_close(rows, table[grid.astype(int)], atol=0)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: lr.learned_table(0, 8), "max_len"),
        (lambda: lr.learned_table(8, 0), "d_model"),
        (lambda: lr.learned_table(8, 2.5), "d_model"),
        (lambda: lr.learned_table(8, 8, seed=-1), "seed"),
        (lambda: lr.learned_table(8, 8, std=-0.02), "std"),
        (lambda: lr.learned_table(8, 8, std=float("inf")), "std"),
        (lambda: lr.learned_table(131072, 8192), "too large"),
        (lambda: lr.learned_rows([-2], 8), "positions start at 0"),
        (lambda: lr.learned_rows([0.5], 8), "whole numbers"),
    ],
)
def test_bad_arguments_raise_value_error_with_a_sentence(call, words):
    with pytest.raises(ValueError, match=words):
        call()
