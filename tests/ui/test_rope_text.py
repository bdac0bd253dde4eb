"""ui.rope_text: /rope's decay sentence at head_dim 2, 4 and 64 and the base slider's ends, against the all-ones
score worked by hand, Σᵢ 2cos(δθᵢ) / d with θᵢ = base^(−2i/d)."""

from __future__ import annotations

import numpy as np
import pytest

from ui.rope_text import rope_decay_text

OFFSETS = np.unique(np.geomspace(1, 4096, 600).round())


def by_hand(head_dim: int, base: float) -> np.ndarray:
    theta = base ** (-2 * np.arange(head_dim // 2) / head_dim)
    return 2 * np.cos(OFFSETS[:, None] * theta[None, :]).sum(axis=1) / head_dim


def text(head_dim: int, bases: tuple[float, ...]) -> str:
    return rope_decay_text(OFFSETS, [by_hand(head_dim, b) for b in bases], bases, head_dim)


def test_one_pair_does_not_decay_and_every_base_draws_one_curve():
    bases = (2.0, 10_000.0, 500_000.0)
    np.testing.assert_allclose(by_hand(2, 2.0), np.cos(OFFSETS), atol=1e-15)  # θ₀ = 1 whatever the base
    t = text(2, bases)
    assert "The 3 bases draw one curve" in t and "never decays" in t
    back = OFFSETS[np.argmax(np.where(OFFSETS > 2, np.cos(OFFSETS), -2))]
    assert f"back to {np.cos(back):.3g} at offset {back:,.0f}, so it does not decay" in t
    assert "far-apart tokens score lower on average" not in t


@pytest.mark.parametrize("base", [10_000.0, 500_000.0])
def test_a_wide_head_falls_below_half_and_says_how_high_it_comes_back(base):
    curve = by_hand(64, base)
    first = OFFSETS[np.flatnonzero(curve < 0.5)[0]]
    after = curve[OFFSETS > first].max()
    assert after < 0.9
    t = text(64, (base,))
    assert f"base {base:,.6g}: first below half at offset {first:,.0f}, and no higher than {after:.3g} after it" in t
    assert "does not decay" not in t and "draw one curve" not in t


def test_the_sentence_says_what_it_does_not_show():
    t = text(64, (10_000.0, 500_000.0))
    assert "for a query and key drawn independently at random the expected score is 0 at every offset" in t
    assert "RoFormer (Su et al. 2021, §3.3)" in t and "Barbero et al. 2024" in t


def test_four_dimensions_come_back_near_one():
    t = text(4, (10_000.0,))
    assert "so it does not decay" in t  # two pairs: θ = 1 and 0.01 line up again within 4,096 offsets
