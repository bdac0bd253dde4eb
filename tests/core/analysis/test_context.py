"""core.analysis.context: pair views, decay, links, the dynamic-NTK cache pitfall and RoPE in 2-D, against hand-worked
values, core.schemes.rope, and transformers 5.23.0's own Qwen2-VL M-RoPE and axial 2-D RoPE (cos of the angles, made by
scripts/make_rope_reference.py: float32 there, so compared at 1e-6)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.analysis import context as cx
from core.schemes import rope
from core.schemes.rope_presets import PRESETS, LayerRope
from tests.helpers import assert_close

APPLY = {c["kind"]: c for c in json.loads((Path(__file__).parents[1] / "schemes" / "data" / "rope_reference.json").read_text())["apply_cases"]}


def test_pair_view_of_partial_rotary_by_hand():
    preset = PRESETS["gpt-neox-20b"]  # head_dim 96, p 0.25: 24 dimensions, 12 pairs turn with base^(-2i/24)
    view = cx.pair_view(preset.layers[0], preset.extended_context)
    assert view.index.size == 48 and view.rotating == 24
    assert_close(view.before[:12], 2 * np.pi * 1e4 ** (np.arange(12) * 2 / 24), rtol=1e-12)
    assert np.all(np.isinf(view.before[12:])) and np.all(np.isinf(view.after[12:]))
    assert list(view.label) == ["kept"] * 12 + [cx.NOT_ROTATED] * 36 and view.short is None
    counts = cx.counts(view, 2048, 2048)
    assert counts["turn within trained"] == int(np.sum(2 * np.pi * 1e4 ** (np.arange(12) / 12) <= 2048)) == 8
    assert counts[cx.NOT_ROTATED] == 36 and counts["kept"] == 12


def test_pair_view_of_scaled_kinds():
    llama = PRESETS["llama-3.1-8b"]
    view = cx.pair_view(llama.layers[0], llama.extended_context)
    assert list(view.label) == ["kept"] * 29 + ["blended"] * 6 + ["interpolated"] * 29  # as core.schemes.rope.scaling_regions
    assert_close(view.after[35:], 8 * view.before[35:], rtol=1e-12)
    phi3 = PRESETS["phi-3-mini-128k-instruct-2404"]
    view = cx.pair_view(phi3.layers[0], phi3.extended_context)
    long_freq, c = rope.rope_frequencies(96, 1e4, phi3.scaling, seq_len=4097)
    short_freq, _ = rope.rope_frequencies(96, 1e4, phi3.scaling)
    assert_close(view.after, 2 * np.pi / long_freq, rtol=1e-12) and assert_close(view.short, 2 * np.pi / short_freq, rtol=1e-12)
    assert view.attention_factor == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15) == c
    gemma4 = PRESETS["gemma-4-default"].layers[1]  # proportional: 64 of 256 pairs turn, with a full head's exponents
    view = cx.pair_view(gemma4, 131_072)
    assert view.rotating == 128 and list(view.label) == ["kept"] * 64 + [cx.NOT_ROTATED] * 192
    assert_close(view.before[:64], 2 * np.pi * 1e6 ** (np.arange(64) * 2 / 512), rtol=1e-12)
    assert cx.unscaled(gemma4).scaling.kind == "proportional" and cx.unscaled(PRESETS["gpt-oss-20b"].layers[0]).scaling is None


@pytest.mark.parametrize("name", ["llama-2-7b", "gpt-neox-20b", "gpt-oss-20b", "deepseek-v3", "gemma-4-default"])
def test_decay_curves_by_hand_at_offset_zero_and_against_relative_score(name):
    preset = PRESETS[name]
    for layer in preset.layers:
        offsets = cx.decay_offsets(preset.extended_context, points=50)
        assert offsets[0] == 0 and offsets[-1] == preset.extended_context and np.all(np.diff(offsets) > 0)
        before, after = cx.decay_curves(layer, preset.extended_context, offsets)
        inv_freq, c = layer.frequencies(seq_len=preset.extended_context)
        turning = 2 * inv_freq.size  # every all-ones pair scores 2 cos(0) = 2, each resting dimension 1
        assert before[0] == pytest.approx(1.0, rel=1e-12)
        assert after[0] == pytest.approx((c**2 * turning + layer.head_dim - turning) / layer.head_dim, rel=1e-12)
        ones = np.ones(layer.head_dim)
        assert_close(after, rope.relative_score(ones, ones, inv_freq, offsets, attention_factor=c) / layer.head_dim, rtol=1e-12, atol=1e-12)


def test_summary_rows():
    rows = cx.summary_rows([PRESETS["llama-3.1-8b"], PRESETS["gemma-3-4b"]])
    assert [r["layers"] for r in rows] == ["all layers", "local (sliding window)", "global (full attention)"]
    first = rows[0]
    assert (first["kept"], first["blended"], first["interpolated"], first["not rotated"], first["pairs"]) == (29, 6, 29, 0, 64)
    assert first["scaling"] == "llama3 ×8" and first["attention factor"] == 1.0 and first["unverified"] == "none"
    assert first["slowest wavelength after"] == pytest.approx(8 * first["slowest wavelength before"], rel=1e-12)
    assert rows[2]["scaling"] == "linear ×8" and rows[2]["interpolated"] == 128 and rows[1]["scaling"] == "none"
    assert rows[1]["trained context"] == 32_768 and rows[1]["unverified"] == "none"  # the Gemma 3 report's 32K pre-training


def test_link_params():
    llama = PRESETS["llama-3.1-8b"]
    plan = cx.link_params(llama, llama.layers[0])
    expected = {"head_dim": "128", "rope_layout": "half", "scaling": "llama3", "base": "500000", "max_len": "131072", "factor": "8", "original_len": "8192"}
    assert plan.rope == expected and plan.code == {"scheme": "rope"} | expected | {"preset": "llama-3.1-8b"} and plan.dropped == ()
    phi3 = PRESETS["phi-3-mini-128k-instruct-2404"]
    plan = cx.link_params(phi3, phi3.layers[0])
    assert plan.rope is None and plan.code["head_dim"] == "96" and plan.code["scaling"] == "none" and "longrope" in plan.dropped[0]
    deepseek = PRESETS["deepseek-v3"]
    plan = cx.link_params(deepseek, deepseek.layers[0])
    assert plan.rope["max_len"] == "131072" and plan.rope["rope_layout"] == "interleaved" and plan.rope["factor"] == "40"
    assert any("163,840" in d for d in plan.dropped) and any("attention factor 1" in d for d in plan.dropped)
    assert any("truncate=False" in d for d in cx.link_params(PRESETS["gpt-oss-20b"], PRESETS["gpt-oss-20b"].layers[0]).dropped)
    assert any("24 of 96" in d for d in cx.link_params(PRESETS["gpt-neox-20b"], PRESETS["gpt-neox-20b"].layers[0]).dropped)
    gemma3 = PRESETS["gemma-3-4b"]
    assert cx.link_params(gemma3, gemma3.layers[1]).rope == {
        "head_dim": "256", "rope_layout": "half", "scaling": "linear", "base": "1000000", "max_len": "131072", "factor": "8", "original_len": "32768"
    }  # fmt: skip


def test_dynamic_cache_error_by_hand():
    scaling = rope.RopeScaling("dynamic", 2.0, 64)
    result = cx.dynamic_cache_error(4, 100.0, scaling, 64, 128, keys=64)
    assert_close(result.key_positions, np.arange(64.0), atol=0)
    theta = rope.default_frequencies(4, 100.0)  # the cache's base is the original one: 64 <= L
    new = rope.default_frequencies(4, rope.dynamic_base(4, 100.0, scaling, 128))
    m, n = 127, np.arange(64.0)
    assert result.base_cache == 100.0 and result.base_query == rope.dynamic_base(4, 100.0, scaling, 128) > 100.0
    stale = sum(2 * np.cos(m * new[i] - n * theta[i]) for i in range(2)) / 4
    fresh = sum(2 * np.cos((m - n) * new[i]) for i in range(2)) / 4
    assert_close(result.stale, stale, atol=1e-12) and assert_close(result.consistent, fresh, atol=1e-12)
    assert result.stale[0] == pytest.approx(result.consistent[0], abs=1e-12)  # the first key has angle 0 under any base
    assert np.abs(result.stale - result.consistent).max() > 0.1
    same = cx.dynamic_cache_error(16, 1e4, scaling, 32, 64)  # both within L: one base, no error
    assert_close(same.stale, same.consistent, atol=0, rtol=0)
    partial = cx.dynamic_cache_error(96, 1e4, rope.RopeScaling("dynamic", 2.0, 2048), 2048, 4096, partial_rotary_factor=0.25)
    assert partial.consistent[-1] == pytest.approx(cx.decay_curves(LayerRope("x", 96, partial.base_query, None, 0.25), 1, np.array([2048.0]))[0][0], rel=1e-9)
    assert partial.key_positions.size == 512 and partial.key_positions[-1] == 2047
    with pytest.raises(ValueError, match="dynamic NTK"):
        cx.dynamic_cache_error(8, 1e4, rope.RopeScaling("linear", 2.0, 8), 8, 16)
    with pytest.raises(ValueError, match="cached length"):
        cx.dynamic_cache_error(8, 1e4, scaling, 32, 16)


def test_mrope_and_axial_angles_match_transformers_qwen2_vl():
    case = APPLY["qwen2-vl-mrope"]  # head_dim 16, base 1e4, sections [2, 3, 3]
    t, h, w = (np.array(s, dtype=np.float64) for s in case["position_ids"])
    angles = cx.mrope_angles(t, h, w, case["head_dim"], case["base"], tuple(case["mrope_section"]))
    assert_close(np.cos(np.concatenate([angles, angles], axis=1)), case["cos"], atol=1e-6)
    assert_close(np.sin(np.concatenate([angles, angles], axis=1)), case["sin"], atol=1e-6)
    assert list(cx.mrope_axes([2, 3, 3])) == [0, 0, 1, 1, 1, 2, 2, 2] and list(cx.mrope_axes([16, 24, 24])[[0, 15, 16, 39, 40, 63]]) == [0, 0, 1, 1, 2, 2]
    axial = APPLY["qwen2-vl-vision-axial"]  # head_dim 16: 4 frequencies for rows, the same 4 for columns
    pos = np.array(axial["positions"], dtype=np.float64)
    assert_close(cx.axial_frequencies(16, axial["base"]), axial["inv_freq"], rtol=1e-6)
    angles = cx.axial_angles(pos[:, 0], pos[:, 1], 16, axial["base"])
    assert_close(np.cos(np.concatenate([angles, angles], axis=1)), axial["cos"], atol=1e-6)


def test_2d_properties():
    rows, cols = cx.grid_positions(5, 7)
    assert (rows[8], cols[8]) == (1, 1) and rows.size == 35
    text = np.arange(10.0)  # for text t = h = w: M-RoPE is plain RoPE
    assert_close(cx.mrope_angles(text, text, text, 128, 1e6, (16, 24, 24)), rope.rope_angles(text, rope.default_frequencies(128, 1e6)), atol=0)
    assert_close(cx.flat_angles(rows, cols, 7, 8, 100.0), rope.rope_angles(rows * 7 + cols, rope.default_frequencies(8, 100.0)), atol=0)
    query = 2 * 7 + 3
    for angles in (cx.axial_angles(rows, cols, 16, 1e4), cx.mrope_angles(0 * rows, rows, cols, 16, 1e4, (2, 3, 3))):
        sim = cx.patch_similarity(angles, query).reshape(5, 7)
        assert sim[2, 3] == pytest.approx(1.0) and np.all(np.abs(sim) <= 1 + 1e-12)
        assert_close(sim[1, 3], sim[3, 3], atol=1e-12) and assert_close(sim[2, 2], sim[2, 4], atol=1e-12)  # depends on the offsets only
    z, mean = cx.centred_grid(cx.axial_angles(rows, cols, 16, 1e4), query, 5, 7)
    assert z.shape == (5, 7) and abs(z.mean()) < 1e-12 and z[2, 3] == pytest.approx(1 - mean) and z.max() == z[2, 3]
    with pytest.raises(ValueError, match="multiple of 4"):
        cx.axial_frequencies(6, 1e4)
    with pytest.raises(ValueError, match="add up to head_dim / 2 = 8"):
        cx.mrope_angles(rows, rows, cols, 16, 1e4, (2, 2, 2))
    with pytest.raises(ValueError, match="at least 0"):
        cx.mrope_axes([2, -1, 3])


def test_angle_reach_by_hand_llama3():
    """Llama 3.1: 35 pairs have a wavelength within 8,192 (29 kept, 6 blended); the other 29 are divided by 8 while the context grows
    16-fold, so the slowest reaches twice its trained angle: (131,071 / 8) θ against 8,191 θ, θ = 500,000^(-126/128)."""
    llama = PRESETS["llama-3.1-8b"]
    view = cx.pair_view(llama.layers[0], llama.extended_context)
    reach = cx.angle_reach(view, llama.trained_context, llama.extended_context)
    theta = 500_000.0 ** (-126 / 128)
    assert (reach.turning, reach.turned, reach.turned_kept, reach.unturned, reach.unturned_inside) == (64, 35, 29, 29, 0)
    assert (reach.trained_offset, reach.extended_offset) == (8191, 131_071)
    assert reach.slowest_trained == pytest.approx(8191 * theta, rel=1e-12) and reach.slowest_extended == pytest.approx(131_071 / 8 * theta, rel=1e-12)
    assert reach.overshoot == pytest.approx(131_071 / 8 / 8191, rel=1e-12)
    text = cx.reach_text(reach, scaled=True)
    assert "35 of the 64 turning pairs" in text and "keeps 29 of them and changes the other 6" in text
    assert "none of them stays within" in text and f"{100 * (131_071 / 8 / 8191 - 1):.4g} %" in text
    assert f"{131_071 / 8 * theta:.4g} rad at offset 131,071, against {8191 * theta:.4g} rad at offset 8,191" in text


def test_angle_reach_inside_when_the_factor_covers_the_growth():
    """Linear scaling divides every offset by s: the longest, E - 1, lands on (E - 1) / s, inside the trained T - 1 only when
    s >= (E - 1) / (T - 1). At s = E / T = 4 it lands a quarter position past: every slow pair overshoots by (4095 / 4) / 1023 - 1."""
    inside = LayerRope("x", 64, 10_000.0, rope.RopeScaling("linear", 4095 / 1023, 1024))
    reach = cx.angle_reach(cx.pair_view(inside, 4096), 1024, 4096)
    assert reach.unturned > 0 and reach.unturned_inside == reach.unturned and reach.turned_kept == 0
    assert "all of them stay within the arc" in cx.reach_text(reach, scaled=True)
    four = LayerRope("x", 64, 10_000.0, rope.RopeScaling("linear", 4.0, 1024))
    reach = cx.angle_reach(cx.pair_view(four, 4096), 1024, 4096)
    assert reach.unturned_inside == 0 and reach.overshoot == pytest.approx(4095 / 4 / 1023, rel=1e-12)
    assert f"by up to {100 * (4095 / 4 / 1023 - 1):.4g} %" in cx.reach_text(reach, scaled=True)
    # the same head unscaled at four times the context: every unturned pair goes past, by 4095/1023 - 1
    plain = LayerRope("x", 64, 10_000.0)
    reach = cx.angle_reach(cx.pair_view(plain, 4096), 1024, 4096)
    assert reach.unturned_inside == 0 and reach.overshoot == pytest.approx(4095 / 1023, rel=1e-12)
    assert "without scaling, RoPE keeps" in cx.reach_text(reach, scaled=False)


def test_angle_reach_stops_at_the_sliding_window():
    """Gemma 3's local layers attend within 1,024 positions: the longest offset is 1,023 in training and at 128K alike."""
    gemma = PRESETS["gemma-3-4b"]
    local = gemma.layers[0]
    assert local.window == 1024
    reach = cx.angle_reach(cx.pair_view(local, gemma.extended_context), gemma.trained_context, gemma.extended_context, local.window)
    assert reach.trained_offset == reach.extended_offset == 1023 and reach.turned_kept == reach.turned
    wavelengths = 2 * np.pi * 1e4 ** (np.arange(128) * 2 / 256)
    assert reach.turned == int((wavelengths <= 1024).sum())
    assert "never complete a turn" in cx.reach_text(reach, scaled=False)
    glob = gemma.layers[1]  # linear x8 from 32K pre-training: (131,071 / 8) < 32,767, every slow pair stays inside
    reach = cx.angle_reach(cx.pair_view(glob, gemma.extended_context), gemma.trained_context, gemma.extended_context)
    assert reach.unturned > 0 and reach.unturned_inside == reach.unturned


def test_half_offset_and_decay_text_by_hand():
    offsets = np.array([0.0, 1.0, 2.0, 4.0, 8.0])
    assert cx.half_offset(offsets, np.array([2.0, 1.5, 1.01, 0.99, 0.5])) == 4.0  # 1.01 is not below 1
    assert cx.half_offset(offsets, np.ones(5)) is None
    text = cx.decay_text(offsets, np.array([2.0, 1.5, 1.01, 0.99, 0.5]), np.ones(5), scaled=True)
    assert text.endswith(": offset 4 before scaling, none up to 8 after.")
    llama = PRESETS["llama-3.1-8b"]  # Llama 3 keeps its fast pairs: the near fall of the score does not move
    offsets = cx.decay_offsets(llama.extended_context)
    before, after = cx.decay_curves(llama.layers[0], llama.extended_context, offsets)
    assert cx.half_offset(offsets, before) == cx.half_offset(offsets, after)
    phi = PRESETS["phi-3-mini-128k-instruct-2404"]  # LongRoPE divides every pair: its fall moves out
    offsets = cx.decay_offsets(phi.extended_context)
    before, after = cx.decay_curves(phi.layers[0], phi.extended_context, offsets)
    assert cx.half_offset(offsets, after) > 4 * cx.half_offset(offsets, before)


def test_sliding_windows_of_one_row_presets_bound_the_offsets():
    """Mistral 7B v0.1 attends within 4,096 positions in every layer: its one row's offsets stop at 4,095, though its context is
    32,768. Gemma 2 and gpt-oss window every other layer with the same RoPE: the sentence counts the pairs that go round there."""
    mistral = PRESETS["mistral-7b-v0.1"]
    (layer,) = mistral.layers
    assert layer.window == 4096 and mistral.windowed == "every layer"
    reach = cx.angle_reach(cx.pair_view(layer, mistral.extended_context), mistral.trained_context, mistral.extended_context, layer.window)
    assert reach.trained_offset == reach.extended_offset == 4095
    assert reach.turned == int((2 * np.pi * 1e4 ** (np.arange(64) * 2 / 128) <= 4096).sum())
    oss = PRESETS["gpt-oss-20b"]
    assert oss.layers[0].window is None and (oss.window, oss.windowed) == (128, "every other layer")
    view = cx.pair_view(oss.layers[0], oss.extended_context)
    windowed = cx.angle_reach(view, oss.trained_context, oss.extended_context, oss.window)
    by_hand = int((2 * np.pi * 150_000.0 ** (np.arange(32) * 2 / 64) <= 128).sum())
    text = cx.window_text(oss.window, oss.windowed, windowed)
    assert text == f" Every other layer attends within a window of 128 positions, so its offsets stop at 127: there {by_hand} of the 32 turning " \
        f"pairs go round, the other {32 - by_hand} never do."
    assert cx.window_text(1024, "This layer") == " This layer attends within a window of 1,024 positions, so its offsets stop at 1,023."
    with pytest.raises(ValueError, match="window"):
        replace(mistral, windowed="")


def test_reach_text_when_training_saw_only_offset_0():
    """A trained context of one position: its longest offset is 0, every pair's angle there is 0, so any later angle
    is past it by no finite ratio; the sentence says so instead of printing one."""
    plain = LayerRope("x", 64, 10_000.0)
    reach = cx.angle_reach(cx.pair_view(plain, 2), 1, 2)
    assert reach.trained_offset == 0 and reach.extended_offset == 1 and np.isnan(reach.overshoot)
    text = cx.reach_text(reach, scaled=False)
    assert "nan" not in text and "(training gave them only angle 0)." in text
