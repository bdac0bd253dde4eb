"""core.schemes.rope_presets: every preset builds and cites a source for each field, its values are the ones the
research record holds (tests/core/schemes/data/rope_presets.json), and its frequencies are the ones transformers 5.23.0
computes for that model with the model's own config class and rotary module (rope_reference.json, `model_cases`, made by
scripts/make_rope_reference.py). Tolerance: rtol 1e-6 on frequencies (transformers computes them in float32), 1e-12 on
attention factors (Python floats on both sides)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.schemes import rope
from core.schemes.rope_presets import PRESETS, PRESETS_LIST, STATUSES, UNVERIFIED, LayerRope, RopePreset
from tests.helpers import assert_close

DATA = Path(__file__).parent / "data"
MODEL_CASES = {case["name"]: case for case in json.loads((DATA / "rope_reference.json").read_text())["model_cases"]}
RESEARCH = {p["name"]: p["fields"] for p in json.loads((DATA / "rope_presets.json").read_text())["presets"]}
HF_RTOL = 1e-6
HF_LAYER = {"sliding_attention": "local (sliding window)", "full_attention": "global (full attention)"}
REQUIRED = [
    "llama-2-7b", "llama-3.1-8b", "mistral-7b-v0.1", "mistral-7b-v0.3", "qwen2.5-7b-instruct", "phi-3-mini-128k-instruct-2404",
    "gpt-oss-20b", "deepseek-v3", "gpt-neox-20b", "pythia-6.9b", "phi-2", "gemma-3-4b",
]  # fmt: skip


def test_the_presets_the_issue_asks_for_exist_and_every_model_case_has_one():
    assert set(REQUIRED) <= set(PRESETS)
    assert set(MODEL_CASES) <= set(PRESETS)
    assert len(PRESETS) == len(PRESETS_LIST)  # names are unique


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds_and_cites_every_field(name):
    preset = PRESETS[name]
    assert isinstance(preset, RopePreset) and preset.label and preset.hf_id
    for layer in preset.layers:
        assert isinstance(layer, LayerRope)
        inv_freq, factor = layer.frequencies(seq_len=preset.extended_context)
        assert inv_freq.ndim == 1 and np.all(np.isfinite(inv_freq)) and np.all(inv_freq >= 0) and factor > 0
    for key in ("head_dim", "base", "trained_context", "extended_context"):
        assert key in preset.sources, key
    assert all(preset.status(key) in STATUSES for key in preset.sources)
    assert all(("unverified" in preset.sources[key]) for key in preset.unverified if preset.status(key) == UNVERIFIED)
    hash(preset)  # usable as a cache key


def hf_layers(case: dict) -> list[tuple[str, dict]]:
    """(our layer name, the case's frequencies) for each layer type transformers built."""
    if "layers" in case:
        return [(HF_LAYER[t], v) for t, v in case["layers"].items()]
    return [("all layers", {"inv_freq": case["inv_freq"], "attention_factor": case["attention_factor"]})]


@pytest.mark.parametrize("name", list(MODEL_CASES))
def test_preset_frequencies_are_transformers_own(name):
    preset, case = PRESETS[name], MODEL_CASES[name]
    layers = {layer.name: layer for layer in preset.layers}
    for layer_name, expected in hf_layers(case):
        inv_freq, factor = layers[layer_name].frequencies()
        assert inv_freq.shape == (len(expected["inv_freq"]),)
        assert np.array_equal(inv_freq == 0, np.array(expected["inv_freq"]) == 0)
        assert_close(inv_freq, expected["inv_freq"], atol=0, rtol=HF_RTOL)
        assert factor == pytest.approx(expected["attention_factor"], rel=1e-12)
    if "long_inv_freq" in case:  # longrope: the set transformers swaps in once the sequence is longer than the original context
        inv_freq, factor = preset.layers[0].frequencies(seq_len=case["long_seq_len"])
        assert_close(inv_freq, case["long_inv_freq"], atol=0, rtol=HF_RTOL)
        assert factor == pytest.approx(case["long_attention_factor"], rel=1e-12)
        assert case["long_seq_len"] == preset.trained_context + 1
    head_dims = case["head_dim"] if isinstance(case["head_dim"], dict) else {"": case["head_dim"]}
    assert {layer.head_dim for layer in preset.layers} == set(head_dims.values())
    assert preset.extended_context == case["max_position_embeddings"] or preset.name == "llama-2-7b"


def test_preset_values_are_the_research_record():
    def value(name, key):
        return RESEARCH[name][key]["value"]

    for name in ("llama-2-7b", "llama-3.1-8b", "mistral-7b-v0.1", "mistral-7b-v0.3", "qwen2.5-7b-instruct", "phi-2", "gemma-2-9b"):
        assert PRESETS[name].base == value(name, "rope_theta") and PRESETS[name].extended_context == value(name, "max_position_embeddings")
    llama3 = value("llama-3.1-8b", "rope_scaling")
    s = PRESETS["llama-3.1-8b"].scaling
    assert (s.kind, s.factor, s.original_max_len, s.low_freq_factor, s.high_freq_factor) == (
        "llama3", llama3["factor"], llama3["original_max_position_embeddings"], llama3["low_freq_factor"], llama3["high_freq_factor"]
    )
    for name in ("phi-3-mini-128k-instruct-2404", "phi-3-mini-128k-instruct"):
        lists = value(name, "rope_scaling")
        s = PRESETS[name].scaling
        assert list(s.short_factor) == lists["short_factor"] and list(s.long_factor) == lists["long_factor"]
        assert s.original_max_len == value(name, "original_max_position_embeddings") == PRESETS[name].trained_context
        assert s.factor == value(name, "max_position_embeddings") / s.original_max_len
    oss, s = value("gpt-oss-20b", "rope_scaling"), PRESETS["gpt-oss-20b"].scaling
    assert (s.factor, s.beta_fast, s.beta_slow, s.truncate, s.original_max_len) == (oss["factor"], oss["beta_fast"], oss["beta_slow"], False, 4096)
    ds, s = value("deepseek-v3", "rope_scaling"), PRESETS["deepseek-v3"].scaling
    expected = (ds["factor"], ds["mscale"], ds["mscale_all_dim"], ds["original_max_position_embeddings"])
    assert (s.factor, s.mscale, s.mscale_all_dim, s.original_max_len) == expected
    assert PRESETS["deepseek-v3"].head_dim == value("deepseek-v3", "qk_rope_head_dim") and PRESETS["deepseek-v3"].layout == "interleaved"
    for name in ("gpt-neox-20b", "pythia-6.9b"):
        assert PRESETS[name].partial_rotary_factor == value(name, "rotary_pct") and PRESETS[name].base == value(name, "rotary_emb_base")
    assert PRESETS["phi-2"].partial_rotary_factor == value("phi-2", "partial_rotary_factor")
    assert PRESETS["qwen2-vl-7b-instruct"].mrope_section == tuple(value("qwen2-vl-7b-instruct", "rope_scaling")["mrope_section"])
    g3 = PRESETS["gemma-3-4b"].layers
    assert (g3[0].base, g3[1].base) == (value("gemma-3-4b", "rope_local_base_freq"), value("gemma-3-4b", "rope_theta"))
    assert g3[1].scaling.factor == value("gemma-3-4b", "rope_scaling_global")["factor"] and g3[0].scaling is None


def test_deepseek_softmax_multiplier_and_attention_factors():
    case = MODEL_CASES["deepseek-v3"]
    s = PRESETS["deepseek-v3"].scaling
    assert rope.yarn_mscale(s.factor, s.mscale_all_dim) ** 2 == pytest.approx(case["softmax_scale_multiplier_vs_1_over_sqrt_qk_head_dim"], rel=1e-12)
    assert rope.yarn_attention_factor(PRESETS["gpt-oss-20b"].scaling) == pytest.approx(0.1 * np.log(32) + 1, rel=1e-15)
    assert rope.longrope_attention_factor(PRESETS["phi-3-mini-128k-instruct-2404"].scaling) == pytest.approx(1.1902380714238083, rel=1e-12)


def test_unverified_values_are_named():
    assert PRESETS["phi-3-mini-128k-instruct"].unverified == ("scaling",)
    assert "unverified" in PRESETS["phi-3-mini-128k-instruct"].sources["scaling"]
    assert PRESETS["phi-3-mini-128k-instruct-2404"].unverified == ()
    assert "head_dim" in PRESETS["qwen2-vl-7b-instruct"].unverified
    assert "checkpoint" in PRESETS["gemma-4-default"].unverified


def test_bad_preset_raises():
    with pytest.raises(ValueError, match="must start with a status"):
        RopePreset("x", "X", "x", 8, 1e4, None, 1.0, 8, 8, {"base": "from somewhere"})
    with pytest.raises(ValueError, match="extended context at least the trained one"):
        RopePreset("x", "X", "x", 8, 1e4, None, 1.0, 16, 8, {})
    with pytest.raises(ValueError, match="partial_rotary_factor"):
        RopePreset("x", "X", "x", 8, 1e4, None, 0.0, 8, 8, {})
