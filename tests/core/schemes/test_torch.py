"""core.schemes.torch: each torch module equals the numpy function it wraps (float64, to 1e-12), keeps
its fixed values as buffers, and importing core stays torch-free."""

from pathlib import Path

import numpy as np
import pytest
import torch

from core.schemes import learned, torch as modules, relative, rope
from core.schemes.registry import SCHEMES, SHAW_CLIP, Setting
from tests.core.schemes.test_rope import SAMPLE_ORIGINAL, sample_scaling
from tests.helpers import assert_close

ROOT = Path(__file__).resolve().parents[3]


def test_learned_embedding_starts_at_core_learned_and_refuses_like_it():
    module = modules.LearnedPositionEmbedding(12, 6, std=0.05, seed=3)
    assert isinstance(module.embedding, torch.nn.Embedding)
    assert_close(module(torch.arange(12)).detach().numpy(), learned.learned_table(12, 6, seed=3, std=0.05), atol=0)
    assert_close(module([[1, 4], [0, 11]]).detach().numpy(), learned.learned_table(12, 6, seed=3, std=0.05)[[[1, 4], [0, 11]]], atol=0)
    with pytest.raises(ValueError):
        module(torch.arange(20))
    assert list(dict(module.named_parameters())) == ["embedding.weight"]


def test_learned_embedding_from_a_registry_table():
    setting = Setting(width=8, train_len=16, seed=2)
    table = SCHEMES["learned"].input_code(np.arange(16), setting)
    module = modules.LearnedPositionEmbedding.from_table(table)
    assert module.rows == 16
    assert_close(module(torch.arange(16)).detach().numpy(), table, atol=0)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("scaling", [None, rope.RopeScaling("yarn", 4.0, 32), rope.RopeScaling("dynamic", 2.0, 16)])
def test_rotary_equals_apply_rope(layout, scaling):
    hd = 16
    module = modules.RotaryEmbedding(hd, 500.0, scaling, layout=layout)
    assert "inv_freq" in dict(module.named_buffers())
    x = np.random.default_rng(1).normal(size=(2, 3, 40, hd))
    positions = np.arange(40) * 1.5 + 2
    inv_freq, factor = rope.rope_frequencies(hd, 500.0, scaling, seq_len=int(positions.max()) + 1)
    expected = rope.apply_rope(x, positions, inv_freq, layout=layout, attention_factor=factor)
    assert_close(module(torch.from_numpy(x), torch.from_numpy(positions)).numpy(), expected)
    inv40, factor40 = rope.rope_frequencies(hd, 500.0, scaling, seq_len=40)  # positions 0 .. 39 by default
    assert_close(module(torch.from_numpy(x)).numpy(), rope.apply_rope(x, np.arange(40), inv40, layout=layout, attention_factor=factor40))


@pytest.mark.parametrize("p", [1.0, 0.5])
@pytest.mark.parametrize("length", [SAMPLE_ORIGINAL - 8, 3 * SAMPLE_ORIGINAL], ids=["inside", "beyond"])
@pytest.mark.parametrize("layout", rope.LAYOUTS)
@pytest.mark.parametrize("kind", [None, *rope.SCALING_KINDS])
def test_the_twin_rotates_as_core_for_every_kind(kind, layout, length, p):
    # a sequence of `length` positions, as Hugging Face's forward and core's rope_frequencies(seq_len=length) see it;
    # p: partial rotary (the first int(hd p) dimensions turn), or the proportion of turning pairs for "proportional"
    hd, base = 16, 500.0
    scaling = None if kind is None else sample_scaling(kind, rope.rotary_dim(hd, p) // 2)
    twin = modules.RotaryEmbedding(hd, base, scaling, layout=layout, partial_rotary_factor=p)
    x = np.random.default_rng(5).normal(size=(2, length, hd))
    inv_freq, factor = rope.rope_frequencies(hd, base, scaling, seq_len=length, partial_rotary_factor=p)
    expected = rope.apply_rope(x, np.arange(length), inv_freq, layout=layout, attention_factor=factor)
    assert_close(twin(torch.from_numpy(x)).numpy(), expected)
    assert_close(twin(torch.from_numpy(x), torch.arange(length)).numpy(), expected)


def test_rotary_is_the_registry_rope_hook():
    setting = Setting(width=64, n_heads=4, base=10_000.0)
    q = np.random.default_rng(2).normal(size=(4, 30, 16))
    assert_close(modules.RotaryEmbedding(16)(torch.from_numpy(q)).numpy(), SCHEMES["rope"].rotate(q, np.arange(30), setting))


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_is_an_embedding_over_core_buckets(bidirectional):
    module = modules.T5RelativeBias(4, 16, 40, bidirectional=bidirectional)
    assert isinstance(module.bias, torch.nn.Embedding) and tuple(module.bias.weight.shape) == (16, 4)
    values = np.random.default_rng(5).normal(size=(4, 16))
    with torch.no_grad():
        module.bias.weight.copy_(torch.from_numpy(values.T))
    expected = relative.t5_bias(values, np.arange(70), np.arange(90), bidirectional=bidirectional, num_buckets=16, max_distance=40)
    assert_close(module(70, 90).detach().numpy(), expected, atol=0, rtol=0)
    r = np.arange(90)[None] - np.arange(70)[:, None]
    np.testing.assert_array_equal(module.buckets(70, 90).numpy(), relative.t5_relative_bucket(r, bidirectional=bidirectional, num_buckets=16, max_distance=40))


def test_t5_refuses_bad_settings_like_core():
    with pytest.raises(ValueError, match="num_buckets must be even"):
        modules.T5RelativeBias(2, 15)


def test_t5_initial_values_follow_the_generator():
    a = modules.T5RelativeBias(4, generator=torch.Generator().manual_seed(7)).bias.weight
    b = modules.T5RelativeBias(4, generator=torch.Generator().manual_seed(7)).bias.weight
    assert torch.equal(a, b) and abs(float(a.detach().std()) - 0.02) < 0.01


def test_shaw_keys_equal_the_registry_hook():
    setting = Setting(width=32, n_heads=4, seed=3)
    module = modules.ShawRelativeKeys(SHAW_CLIP, setting.head_width, seed=3)
    q = np.random.default_rng(4).normal(size=(4, 40, 8))
    expected = SCHEMES["shaw"].score_bias(np.arange(40), np.arange(40), setting, q)
    assert_close(module(torch.from_numpy(q)).detach().numpy(), expected)
    emb = relative.shaw_table(SHAW_CLIP, 8, seed=3)[relative.shaw_relative_positions(np.arange(40), np.arange(25), SHAW_CLIP) + SHAW_CLIP]  # (Lq, Lk, hd)
    assert_close(module(torch.from_numpy(q), 25).detach().numpy(), np.einsum("hqd,qkd->hqk", q, emb) / np.sqrt(8))  # Shaw et al. eq. 5
