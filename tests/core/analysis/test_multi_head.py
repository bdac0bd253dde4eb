"""core.analysis.attention, multi-head part: torch against numpy, the causal mask, the permutation
properties per scheme, and the exact split of the scores into content and position terms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis import attention as at
from core.schemes.registry import SCHEMES, Setting, positional_schemes
from core.schemes.sinusoidal import sinusoidal_encoding
from tests.helpers import assert_close


@pytest.mark.parametrize("heads", [1, 2, 4])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("project", [False, True])
def test_torch_matches_numpy(heads, causal, project):
    x = np.random.default_rng(heads).normal(size=(9, 16)) * 3
    proj = at.random_projections(16, 5) if project else None
    out_np, w_np = at.multi_head_attention(x, heads, proj, causal=causal)
    out_t, w_t = at.multi_head_attention_torch(x, heads, proj, causal=causal)
    assert w_np.shape == (heads, 9, 9)
    assert_close(out_t, out_np, atol=1e-12)
    assert_close(w_t, w_np, atol=1e-12)


def test_one_head_matches_the_single_head_formula_by_hand():
    # self_attention is now built on multi_head_attention, so compare against the formula itself
    x = np.random.default_rng(1).normal(size=(6, 8))
    wq, wk, wv = at.random_projections(8)
    scores = (x @ wq) @ (x @ wk).T / np.sqrt(8)
    ref_w = np.exp(scores - scores.max(axis=1, keepdims=True))
    ref_w /= ref_w.sum(axis=1, keepdims=True)
    out, w = at.multi_head_attention(x, 1, (wq, wk, wv))
    assert_close(w[0], ref_w)
    assert_close(out, ref_w @ (x @ wv))
    assert_close(at.self_attention(x, (wq, wk, wv))[0], out, atol=0)


def test_heads_attend_within_their_own_slice():
    # head h only sees dimensions h*hd .. (h+1)*hd - 1: zeroing the others leaves its weights unchanged
    x = np.random.default_rng(2).normal(size=(5, 8))
    _, w = at.multi_head_attention(x, 2)
    masked = x.copy()
    masked[:, 4:] = 0.0
    _, w_masked = at.multi_head_attention(masked, 2)
    assert_close(w_masked[0], w[0])
    assert not np.allclose(w_masked[1], w[1])


def test_causal_mask_by_hand():
    x = np.ones((3, 2))  # all scores equal: each query spreads evenly over the keys it may see
    _, w = at.multi_head_attention(x, 1, causal=True)
    assert_close(w[0], [[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]], atol=1e-15)


def test_heads_must_divide_the_width():
    with pytest.raises(ValueError, match="does not split into 3 equal heads"):
        at.multi_head_attention(np.zeros((2, 8)), 3)
    with pytest.raises(ValueError, match="at least 1"):
        at.multi_head_attention_torch(np.zeros((2, 8)), 0)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(3, 10), seed=st.integers(0, 10_000), heads=st.sampled_from([1, 2, 4]))
def test_without_positions_equivariant_with_each_scheme_not(n, seed, heads):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in rng.permutation(n)]
    setting = Setting(32, 1e4, train_len=n, n_heads=heads)
    none = at.attention_study(words, SCHEMES["none"].attention_positions(n, setting), n_heads=heads, seed=seed, backend=at.multi_head_attention, width=32)
    assert none.residual_plain < 1e-12 and none.residual_pe < 1e-12  # 'none' carries no position
    for name in positional_schemes():  # added, rotary and bias schemes alike, each applied its own way
        study = at.attention_study(words, SCHEMES[name].attention_positions(n, setting), n_heads=heads, seed=seed, backend=at.multi_head_attention, width=32)
        assert study.residual_plain < 1e-12
        assert_close(study.weights_plain_shuffled, study.weights_plain, atol=1e-12)
        bias = SCHEMES[name].score_bias(np.arange(n), np.arange(n), setting)  # (H, n, n)
        if bias.any() and np.array_equal(bias, bias.transpose(0, 2, 1)) and np.array_equal(study.perm, np.arange(n)[::-1]):
            # a symmetric distance penalty (ALiBi's -m|i - j|, KERPLE's -r1 log(1 + r2|i - j|)) is unchanged by
            # reversing the sentence, so the reversed sentence is attended to exactly like the original, mirrored
            assert study.residual_pe < 1e-12
        else:
            assert study.residual_pe > 1e-6, name


def test_causal_mask_alone_breaks_equivariance():
    words = ["dog", "bites", "man"]
    study = at.attention_study(words, sinusoidal_encoding(3, 16), causal=True, backend=at.multi_head_attention)
    assert study.residual_plain > 1e-3


def test_repeated_words_identical_rows_without_positions():
    words = ["the"] * 5
    study = at.attention_study(words, sinusoidal_encoding(5, 32), n_heads=2)
    assert study.repeat_spread_plain < 1e-15
    assert study.repeat_spread_pe > 1e-3
    assert study.residual_plain < 1e-14  # the shuffled sentence is the same sentence
    assert_close(study.position_norm, np.full(5, 4.0))  # sqrt(32 / 2)
    assert np.all(study.word_norm > 2.0)  # scaled by sqrt(32)


def test_score_shares_are_an_exact_split():
    words = ["a", "b", "c", "d"]
    pe = sinusoidal_encoding(4, 16)
    shares = at.score_shares(words, pe, np.array([0.0, 1.0, 3.0]), project=False)
    assert_close(shares.sum(axis=1), np.ones(3))
    assert_close(shares[0], [1.0, 0.0, 0.0])
    # by hand, without projections: the terms are x x^T, x p^T + p x^T, p p^T
    x = at.embed(words, 16) * 4.0
    terms = np.array([np.linalg.norm(x @ x.T), 3 * np.linalg.norm(x @ pe.T + pe @ x.T), 9 * np.linalg.norm(pe @ pe.T)])
    assert_close(shares[2], terms / terms.sum())
    # and the three terms really add up to the scores
    assert_close((x + 3 * pe) @ (x + 3 * pe).T, x @ x.T + 3 * (x @ pe.T + pe @ x.T) + 9 * pe @ pe.T, atol=1e-9)


def test_unscaled_words_let_positions_dominate():
    words = "the cat sat on the mat".split()
    pe = sinusoidal_encoding(6, 128)
    scaled = at.score_shares(words, pe, np.array([1.0]), scale_words=True)[0]
    unscaled = at.score_shares(words, pe, np.array([1.0]), scale_words=False)[0]
    assert unscaled[2] > 0.5 > scaled[2]


def test_add_versus_concat_costs_and_order():
    result = at.add_versus_concat(["dog", "bites", "man"], sinusoidal_encoding(3, 32))
    assert (result.width_add, result.width_concat) == (32, 64)
    assert (result.params_add, result.params_concat) == (3 * 32 * 32, 3 * 64 * 64)
    assert result.residual_add > 1e-3 and result.residual_concat > 1e-3
    pe, x = sinusoidal_encoding(3, 32), at.sentence_inputs(["dog", "bites", "man"], 32)  # the overlap of each word and its code, by hand
    np.testing.assert_allclose(result.overlap, np.abs((x * pe).sum(axis=1)) / (np.linalg.norm(x, axis=1) * np.linalg.norm(pe, axis=1)), rtol=1e-12)


def test_torch_and_numpy_agree_with_rotary_and_bias_hooks():
    words = ["the", "cat", "sat", "on", "the", "mat"]
    setting = Setting(16, 1e4, train_len=6, n_heads=2)
    for name in ("rope", "alibi", "t5", "shaw"):
        pos = SCHEMES[name].attention_positions(6, setting)
        x = at.sentence_inputs(words, 16)
        proj = at.random_projections(16)
        out_np, w_np = at.multi_head_attention(x, 2, proj, causal=True, rotate=pos.rotate, bias=pos.bias)
        out_t, w_t = at.multi_head_attention_torch(x, 2, proj, causal=True, rotate=pos.rotate, bias=pos.bias)
        assert_close(out_t, out_np, atol=1e-12)
        assert_close(w_t, w_np, atol=1e-12)


def test_bias_hook_adds_to_the_scores_by_hand():
    """ALiBi with one head and Q = K = V = x: weights = softmax(x x^T / sqrt(d) - m |i - j|)."""
    x = at.sentence_inputs(["a", "b", "c", "d"], 8)
    pos = SCHEMES["alibi"].attention_positions(4, Setting(8, n_heads=1, train_len=4))
    _, w = at.multi_head_attention(x, 1, None, bias=pos.bias)
    i = np.arange(4)
    expected = at.softmax(x @ x.T / np.sqrt(8) - (1 / 256) * np.abs(i[:, None] - i[None, :]))  # one head: slope 2^-8
    assert_close(w[0], expected, atol=1e-14)
