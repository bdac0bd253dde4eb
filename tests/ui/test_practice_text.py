"""ui.practice_text: every number in /practice's answers is the arrays', worked by hand where that is short. Each test is
a rule a sentence stands on, so a changed formula or a typed number fails it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.analysis import similarity
from core.schemes import alibi, rope
from core.schemes.rope_presets import PRESETS
from ui import practice_text as pt


def test_d2_near_misses_are_gaps_close_to_whole_turns():
    """One pair turning 1 rad per position: D(δ) = 2|sin(δ/2)|. The record gaps are 1, 6, 19, 25, 44, 333, 710, and 710 is
    113 turns to 5e-6 of a turn; a gap of 6 (nearest 2π) is 0.28 apart, not close."""
    offsets, dists = similarity.distance_records(10_000, 2, 10_000.0)
    assert list(offsets) == [1, 6, 19, 25, 44, 333, 710]
    np.testing.assert_allclose(dists, 2 * np.abs(np.sin(offsets / 2)), rtol=1e-12)
    assert abs(710 / (2 * math.pi) - 113) < 1e-5
    text = pt.uniqueness_answer()
    assert f"6 apart, the distance is {2 * abs(math.sin(3)):.2f}" in text
    assert "710 apart, at distance 6e-05" in text and "44 (7.003 turns, 0.018)" in text
    assert "2π apart nearly coincide" not in text


def test_distance_records_for_wider_codes_are_monotone_and_odd_d_is_refused():
    offsets, dists = similarity.distance_records(512, 16, 100.0)
    assert offsets[0] == 1 and np.all(np.diff(offsets) > 0) and np.all(np.diff(dists) < 0)
    best = similarity.closest_pair(512, 16, 100.0)
    assert offsets[-1] == best.q - best.p and dists[-1] == pytest.approx(best.distance, rel=1e-9)
    with pytest.raises(ValueError, match="even d_model"):
        similarity.distance_records(10, 3)


def test_llama3_exercise_uses_the_configs_own_numbers():
    """Llama 3.1: factor 8, original 8,192, max_position_embeddings 131,072 (16x, not 8x). Bands at 8192/4 and 8192/1:
    29 kept, 6 blended, 29 divided by 8; the slowest pair reaches twice its trained angle."""
    preset = PRESETS["llama-3.1-8b"]
    assert (preset.scaling.factor, preset.scaling.original_max_len, preset.extended_context) == (8.0, 8192, 131_072)
    link = pt.llama3_link()
    assert "factor=8&original_len=8192&max_len=131072" in link and "base=500000" in link and "head_dim=128" in link
    text = pt.llama3_answer()
    labels = rope.scaling_regions(128, 500_000.0, preset.scaling, seq_len=131_072).label
    assert [int((labels == k).sum()) for k in ("kept", "blended", "interpolated")] == [29, 6, 29]
    assert "29 of 64 pairs" in text and "below 8,192 / 4 = 2,048" in text and "the 29 with a wavelength above 8,192 are divided by 8" in text
    assert "(131,072 / 8,192 = 16)" in text and "2 times as far" in text
    question = next(e.question for e in pt.exercises() if "Llama" in e.question)
    assert "65,536" not in question and "131,072" in question and "factor 8" in question


def test_alibi_spans_do_not_grow_with_the_context():
    slopes = alibi.alibi_slopes(8)
    span = alibi.alibi_attention_span(slopes, 4096, 0.9)
    assert span[0] == math.ceil(math.log(10) / 0.5) == 5  # slope 1/2: 1 - e^(-n/2) >= 0.9
    assert span[-1] == math.ceil(math.log(10) * 256) == 590  # slope 1/256
    assert "nearest 5 keys, the last head on the nearest 590" in pt.alibi_answer() and "the spans are 5 and 590" in pt.alibi_answer()


def test_sum_is_not_a_rotation_and_noise_has_no_structure():
    gap_sum, gap_rot, row = pt.sum_versus_rotation()
    assert gap_sum > row > 5 and gap_rot < 1e-12 and row == pytest.approx(math.sqrt(32), rel=1e-12)
    cos_pe, spread_pe, cos_noise, spread_noise = pt.neighbour_cosines()
    omega = 10_000.0 ** (-np.arange(32) * 2 / 64)
    assert cos_pe == pytest.approx(np.cos(omega).sum() / 32, rel=1e-12)  # cos(PE(p), PE(p+1)) = mean_i cos(ω_i), any p
    assert spread_pe < 1e-12 and abs(cos_noise) < 0.05 and spread_noise > 0.3
    assert pt.concat_is_projected_sum() < 1e-12


def test_misconceptions_answer_the_seeds_list_each_with_what_the_app_shows():
    claims = {m.claim: m.answer for m in pt.misconceptions()}
    assert len(claims) == 13
    assert any("noise" in c for c in claims) and any("Concatenating" in c for c in claims) and any("learned position table" in c for c in claims)
    perception = next(m for m in pt.misconceptions() if "person" in m.claim)
    _, _, without, with_pe = pt.forgot_positions()  # the shuffle test's two numbers, checked by hand in test_forgot_positions_numbers_by_hand
    assert f"differ by {without:.0e} (rounding) without positions and by {with_pe:.3g} with the sinusoid" in perception.answer
    assert without < 1e-12 < 0.1 < with_pe and perception.link[0] == "app_pages/problem.py"  # answered by a view, not "cannot answer"
    learned = next(a for c, a in claims.items() if "learned position table" in c)
    assert "Table 3, row E" in learned and "4.92" in learned and "25.7 against 25.8" in learned
    decoder = next(a for c, a in claims.items() if "causal mask" in c)
    assert "Haviv et al. 2022, who call them NoPos" in decoder and "Kazemnejad et al. (2023, who call the same setup NoPE)" in decoder
    assert "NoPE; Haviv" not in decoder  # NoPE is Kazemnejad et al.'s name, not Haviv et al.'s


def test_the_lab_numbers_are_the_labs_survey(monkeypatch):
    """The answers quote core.lab.config.SURVEY, the record the lab's 'Why this task' table is drawn from (the mean over its
    training seeds): change a cell and the sentence follows."""
    from core.lab import config

    def answers() -> str:
        return " ".join(m.answer for m in pt.misconceptions())

    sin_short, sin_long = (np.mean(v) for v in config.SURVEY["sinusoidal"]["kback1"])
    assert f"answers {sin_short:.0%} of the questions at 32 tokens and {sin_long:.0%} at 128" in answers()
    assert f"without positions gets {np.mean(config.SURVEY['none']['kback1'][0]):.0%} of the answers" in answers()
    monkeypatch.setitem(config.SURVEY, "rope", dict(config.SURVEY["rope"], kback1=((0.9, 0.88, 0.92), (0.4, 0.4, 0.4))))
    monkeypatch.setitem(config.SURVEY, "sinusoidal", dict(config.SURVEY["sinusoidal"], kback1=((0.97, 0.97, 0.97), (0.2, 0.1, 0.3))))
    assert "each get at least 90%" in answers() and "answers 97% of the questions at 32 tokens and 20% at 128" in answers()


def test_forgot_positions_numbers_by_hand():
    """The cosine of ‘cat’ with the sinusoid added, and the shuffle test, worked without core.analysis.attention's helpers
    (its word vectors only): a high cosine with positions, a residual of rounding without them and of order 1 with them."""
    from core.analysis import attention
    from core.schemes.sinusoidal import sinusoidal_encoding

    near, far, without, with_pe = pt.forgot_positions()
    d = 128
    x = attention.embed(["cat"], d)[0] * np.sqrt(d)
    pe = sinusoidal_encoding(11, d, 10_000.0)
    cos = [(x + pe[0]) @ (x + pe[k]) / np.linalg.norm(x + pe[0]) / np.linalg.norm(x + pe[k]) for k in (1, 10)]
    np.testing.assert_allclose([near, far], cos, rtol=1e-12)
    assert near > far > 0.9  # above 0.9 with positions: not a test of their absence

    def attend(v: np.ndarray) -> np.ndarray:  # one head, Q = K = V = v, softmax over keys
        s = v @ v.T / np.sqrt(d)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        return (w / w.sum(axis=1, keepdims=True)) @ v

    words = ["the", "cat", "sat", "on", "the", "mat"]
    v = attention.embed(words, d) * np.sqrt(d)
    perm = attention.shuffle_perm(6, 0)
    back = np.argsort(perm)
    code = sinusoidal_encoding(6, d, 10_000.0)
    np.testing.assert_allclose(without, np.abs(attend(v[perm])[back] - attend(v)).max(), atol=1e-12)
    np.testing.assert_allclose(with_pe, np.abs(attend(v[perm] + code)[back] - attend(v + code)).max(), rtol=1e-9)
    assert without < 1e-12 < 1 < with_pe
    answer = next(m.answer for m in pt.misconceptions() if "cosine above 0.9" in m.claim)
    assert f"has cosine {near:.3f}" in answer and f"they are not ({with_pe:.3g})" in answer


def test_the_advice_follows_the_survey(monkeypatch):
    """A scheme is said to do best only where its range over the seeds is clear of every other's; overlapping ranges are
    named together, "within the seeds' spread"."""
    from core.lab import config

    def advice() -> str:
        return next(m.answer for m in pt.misconceptions() if "one best positional encoding" in m.claim)

    survey = {s: dict(config.SURVEY[s]) for s in config.SURVEY}
    for scheme, short, long in [
        ("none", (0.25, 0.24, 0.26), (0.15, 0.14, 0.15)),
        ("sinusoidal", (1.0, 1.0, 1.0), (0.31, 0.30, 0.33)),
        ("learned", (1.0, 1.0, 1.0), None),
        ("rope", (1.0, 1.0, 1.0), (0.42, 0.44, 0.40)),
        ("t5", (1.0, 1.0, 1.0), (0.58, 0.57, 0.60)),
        ("alibi", (0.88, 0.87, 0.89), (0.81, 0.80, 0.82)),
    ]:
        survey[scheme]["kback1"] = (short, long)
    monkeypatch.setattr(config, "SURVEY", survey)
    assert "at the training length the sinusoid, RoPE, the learned table and T5 do best (equally) here" in advice()  # 1.00 on every seed
    survey["rope"]["kback1"] = ((1.0, 0.97, 1.0), (0.42, 0.44, 0.40))
    assert "at the training length the sinusoid, RoPE, the learned table and T5 do best (within the seeds' spread) here" in advice()
    assert "past it ALiBi holds up best." in advice() and "ALiBi 88%" in advice()
    survey["t5"]["kback1"] = ((1.0, 1.0, 1.0), (0.95, 0.90, 1.0))  # T5 clear of ALiBi's range: T5 alone
    assert "past it T5 holds up best." in advice()
    survey["t5"]["kback1"] = ((1.0, 1.0, 1.0), (0.79, 0.70, 0.84))  # T5's mean below ALiBi's, its range into ALiBi's: both, no winner
    assert "past it T5 and ALiBi hold up best (within the seeds' spread). These are" in advice()
