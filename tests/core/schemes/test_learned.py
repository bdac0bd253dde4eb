"""core.schemes.learned: the initial table (normal, std 0.02, as Hugging Face initialises BERT's and GPT-2's
position embeddings), its determinism, row lookups, and the refusals of a table that has run out."""

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


def test_lookup_returns_rows_and_refuses_to_extrapolate():
    table = lr.LearnedTable(lr.learned_table(512, 8), "random init, seed 0")
    assert (table.rows, table.d_model) == (512, 8)
    assert_close(table.lookup([0, 511, 3]), table.weights[[0, 511, 3]], atol=0)
    assert table.lookup(7).shape == (8,)
    expected = "this learned table has 512 rows (positions 0 to 511); position 600 has no embedding — a learned table cannot extrapolate"
    with pytest.raises(ValueError) as err:
        table.lookup([3, 600, 700])
    assert str(err.value) == expected
    with pytest.raises(ValueError, match="position 512 has no embedding"):
        table.lookup(np.arange(1024))
    with pytest.raises(ValueError, match="positions start at 0; got -1"):
        table.lookup([-1])
    with pytest.raises(ValueError, match="whole numbers"):
        table.lookup([1.5])


def test_load_table_keeps_a_read_only_copy():
    trained = np.arange(12, dtype=np.float32).reshape(4, 3)
    table = lr.load_table(trained, "my checkpoint")
    trained[0, 0] = 99.0
    assert table.weights[0, 0] == 0.0 and table.weights.dtype == np.float64
    assert table.source == "my checkpoint"
    with pytest.raises(ValueError):
        table.weights[0, 0] = 1.0  # numpy refuses to write a read-only array
    assert lr.load_table([[1, 2]], "ints").lookup(0).tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "array, words",
    [
        (np.zeros(768), "must be 2-D \\(positions x dimensions\\), got a 1-D array of shape \\(768,\\)"),
        (np.zeros((2, 3, 4)), "must be 2-D"),
        (np.zeros((0, 768)), "empty"),
        (np.zeros((512, 0)), "empty"),
        (np.array([[0.0, np.nan], [np.inf, 1.0]]), "1 NaN and 1 infinite values \\(the first at position 0, dimension 1\\); a trained table must be finite"),
        (np.array([["a", "b"]]), "real numbers"),
        (np.array([[1 + 2j]]), "real numbers"),
    ],
)
def test_load_table_refuses_what_is_not_a_table(array, words):
    with pytest.raises(ValueError, match=words):
        lr.load_table(array, "somewhere")


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: lr.load_table(np.zeros((2, 2)), ""), "source"),
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
