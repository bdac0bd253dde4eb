"""core.analysis.attention: attention without positions is permutation-equivariant, with them it is not."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis import attention as at
from core.schemes.sinusoidal import sinusoidal_encoding
from tests.helpers import assert_close

ROOT = Path(__file__).resolve().parents[3]


def test_tokenize_handles_scripts_punctuation_and_emoji():
    assert at.tokenize("The dog, the MAN!") == ["the", "dog", "the", "man"]
    assert at.tokenize("don't stop") == ["don't", "stop"]
    assert at.tokenize("Привет мир 世界") == ["привет", "мир", "世界"]
    assert at.tokenize("... !!! ??? 😀🎉") == []


def test_word_vectors_are_fixed_across_calls():
    a, b = at.word_vector("dog", 16), at.word_vector("dog", 16)
    assert np.array_equal(a, b)
    assert not np.allclose(a, at.word_vector("cat", 16))
    assert 0.3 < np.linalg.norm(at.word_vector("dog", 256)) < 1.7


def test_word_vectors_are_the_same_in_another_process():
    # the seed comes from SHA-256 of the word, not from Python's per-process salted hash()
    code = "from core.analysis.attention import word_vector; print(repr(float(word_vector('dog', 8)[3])))"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=ROOT)
    assert float(out.stdout) == float(at.word_vector("dog", 8)[3])


def test_empty_sentence_is_refused():
    with pytest.raises(ValueError, match="no words"):
        at.embed([], 8)


def test_softmax_rows_sum_to_one_even_for_large_scores():
    w = at.softmax(np.array([[1000.0, 0.0], [3.0, 3.0]]))
    assert_close(w.sum(axis=1), [1.0, 1.0])
    assert_close(w[1], [0.5, 0.5])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 12), seed=st.integers(0, 10_000), projected=st.booleans())
def test_attention_without_positions_is_permutation_equivariant(n, seed, projected):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 16))
    perm = rng.permutation(n)
    proj = at.random_projections(16, seed) if projected else None
    out, w = at.self_attention(x, proj)
    out_p, w_p = at.self_attention(x[perm], proj)
    assert_close(out_p, out[perm], atol=1e-12)
    assert_close(w_p, w[np.ix_(perm, perm)], atol=1e-12)
    assert at.permutation_residual(x, perm, projections=proj) < 1e-12


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 12), seed=st.integers(0, 10_000))
def test_attention_with_sinusoid_is_not_permutation_equivariant(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 16)) * 4.0
    perm = at.shuffle_perm(n, seed)
    pe = sinusoidal_encoding(n, 16)
    assert at.permutation_residual(x, perm, pe, at.random_projections(16)) > 1e-6


def test_shuffle_perm_always_moves_something():
    for seed in range(50):
        perm = at.shuffle_perm(2, seed)
        assert list(perm) == [1, 0]


def test_shuffle_study_numbers():
    words = at.tokenize("the cat sat on the mat")
    demo = at.attention_study(words, sinusoidal_encoding(len(words), 64), seed=3, backend=at.multi_head_attention)
    assert demo.residual_plain < 1e-13
    assert demo.residual_pe > 1e-3
    assert_close(demo.weights_plain_shuffled, demo.weights_plain, atol=1e-14)
    assert np.abs(demo.weights_pe_shuffled - demo.weights_pe).max() > 1e-3


def test_repeated_word_rows_identical_without_positions_distinct_with():
    words = ["the"] * 4
    x = at.sentence_inputs(words, 32)
    _, w = at.self_attention(x, at.random_projections(32))
    assert np.ptp(w, axis=0).max() < 1e-15
    _, w_pe = at.self_attention(x + sinusoidal_encoding(4, 32), at.random_projections(32))
    assert np.ptp(w_pe, axis=0).max() > 1e-3


def test_bag_of_words_dog_bites_man():
    bag = at.bag_of_words(["dog", "bites", "man"], ["man", "bites", "dog"], 128, sinusoidal_encoding(3, 128))
    assert abs(bag.cosine_plain - 1.0) < 1e-12
    assert bag.distance_plain < 1e-12
    assert bag.cosine_pe < 1.0 - 1e-5
    assert bag.distance_pe > 1e-3
    with pytest.raises(ValueError, match="same words"):
        at.bag_of_words(["a"], ["b"], 8, sinusoidal_encoding(1, 8))


def test_word_code_cosines_by_hand():
    from core.analysis.attention import sentence_inputs, word_code_cosines

    words = ["dog", "bites", "man"]
    x = sentence_inputs(words, 8)
    codes = np.stack([x[0], -2 * x[1], np.zeros(8)])  # along the word, against it (|cos| 1), nothing (0 by convention)
    np.testing.assert_allclose(word_code_cosines(words, codes), [1.0, 1.0, 0.0], atol=1e-12)
    e = np.eye(8)[:3]
    expected = np.abs((x * e).sum(axis=1)) / np.linalg.norm(x, axis=1)
    np.testing.assert_allclose(word_code_cosines(words, e), expected, rtol=1e-12)
