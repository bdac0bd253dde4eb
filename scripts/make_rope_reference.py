"""Generate tests/core/schemes/data/rope_reference.json from Hugging Face transformers' own RoPE code.

The values the RoPE tests compare against (tests/core/schemes/test_rope.py, tests/core/schemes/test_rope_presets.py,
tests/core/analysis/test_context.py). transformers is not a dependency of the app: run this in a throwaway venv,

    python3.11 -m venv /tmp/hfvenv
    /tmp/hfvenv/bin/pip install torch==2.13.0 "transformers>=5"   # used: transformers 5.23.0, torch 2.13.0+cpu
    /tmp/hfvenv/bin/python scripts/make_rope_reference.py

Everything numeric in the output comes from transformers itself:
  * "cases", scaled kinds: transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS[kind](config, seq_len=...)
  * "cases", "default": transformers 5.x has no "default" entry in ROPE_INIT_FUNCTIONS; every model class
    carries its own `compute_default_rope_parameters`. LlamaRotaryEmbedding's ignores
    partial_rotary_factor, GPTNeoXRotaryEmbedding's honours it; both are recorded (see "impl").
  * "model_cases": the model's own *RotaryEmbedding module, built from the model's own config class
    with the published preset values of tests/core/schemes/data/rope_presets.json (values, sources, status).
  * "apply_cases": GPT-NeoX's apply_rotary_pos_emb with a partial rotary width (float64 cos/sin), and the
    cos of Qwen2-VL's M-RoPE (Qwen2VLRotaryEmbedding) and of its vision encoder's axial 2-D RoPE.

inv_freq values are float32 tensors converted to Python floats (exact float64 images of the float32s).
"""

from __future__ import annotations

import json
import platform
import sys
import warnings
from pathlib import Path

import torch
import transformers
from transformers import GPTNeoXConfig, LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
warnings.filterwarnings("ignore")

DATA = Path(__file__).resolve().parents[1] / "tests" / "core" / "schemes" / "data"
OUT = DATA / "rope_reference.json"
PRESETS = DATA / "rope_presets.json"
NUM_HEADS = 4  # irrelevant to inv_freq as long as head_dim is given explicitly


def floats(t: torch.Tensor) -> list[float]:
    assert t.dtype == torch.float32, t.dtype
    return [float(x) for x in t.detach().cpu().tolist()]


def llama_cfg(head_dim, base, rope, partial=None, mpe=4096):
    params = {"rope_theta": float(base), **rope}
    if partial is not None:
        params["partial_rotary_factor"] = partial
    return LlamaConfig(
        hidden_size=head_dim * NUM_HEADS,
        num_attention_heads=NUM_HEADS,
        num_key_value_heads=NUM_HEADS,
        head_dim=head_dim,
        max_position_embeddings=mpe,
        rope_parameters=params,
    )


def public_params(cfg) -> dict:
    """The standardized rope_parameters dict transformers actually read (after defaults were filled)."""
    p = dict(cfg.rope_parameters)
    return {k: p[k] for k in sorted(p)}


CASES: list[dict] = []
SKIPPED: list[dict] = []


def add(kind, head_dim, base, partial, rope, *, seq_len=None, mpe=4096, note=None):
    """Call transformers for one case and record it."""
    rope = dict(rope)
    rope.setdefault("rope_type", kind)
    cfg = llama_cfg(head_dim, base, rope, partial, mpe)
    try:
        if kind == "default":
            if partial in (None, 1.0):
                impl = "LlamaRotaryEmbedding.compute_default_rope_parameters"
                inv, att = LlamaRotaryEmbedding.compute_default_rope_parameters(cfg)
            else:
                impl = "GPTNeoXRotaryEmbedding.compute_default_rope_parameters"
                ncfg = GPTNeoXConfig(
                    hidden_size=head_dim * NUM_HEADS,
                    num_attention_heads=NUM_HEADS,
                    max_position_embeddings=mpe,
                    rotary_pct=partial,
                    rotary_emb_base=base,
                )
                assert ncfg.hidden_size // ncfg.num_attention_heads == head_dim
                cfg = ncfg
                inv, att = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(ncfg)
        else:
            impl = f"ROPE_INIT_FUNCTIONS[{kind!r}]"
            inv, att = ROPE_INIT_FUNCTIONS[kind](cfg, None, seq_len=seq_len)
    except Exception as exc:  # noqa: BLE001 - record it in failed_cases, do not hide it
        SKIPPED.append(
            {"kind": kind, "head_dim": head_dim, "base": base, "partial_rotary_factor": partial, "rope": rope,
             "seq_len": seq_len, "error": f"{type(exc).__name__}: {exc}"}
        )
        return
    pp = public_params(cfg)
    case = {
        "id": len(CASES),
        "kind": kind,
        "impl": impl,
        "head_dim": head_dim,
        "base": float(base),
        "partial_rotary_factor": float(pp.get("partial_rotary_factor", 1.0)),
        "rotary_dim": int(head_dim * float(pp.get("partial_rotary_factor", 1.0))),
        "max_position_embeddings": mpe,
        "scaling": {k: v for k, v in pp.items()
                    if k not in ("rope_theta", "partial_rotary_factor", "rope_type", "type")},
        "seq_len": seq_len,
        "n_freqs": int(inv.numel()),
        "inv_freq": floats(inv),
        "attention_factor": float(att),
    }
    if note:
        case["note"] = note
    CASES.append(case)


HD = [16, 64, 128]
P = [1.0, 0.5, 0.25, 0.4]

# ---- default -------------------------------------------------------------------------------
for hd in HD:
    for base in (10000.0, 500000.0):
        add("default", hd, base, None, {})
    for p in (0.5, 0.25, 0.4):
        add("default", hd, 10000.0, p, {})

# ---- linear --------------------------------------------------------------------------------
for hd in HD:
    for p in P:
        add("linear", hd, 10000.0, p, {"factor": 4.0})
    add("linear", hd, 10000.0, None, {"factor": 2.0})
    add("linear", hd, 10000.0, None, {"factor": 8.0})

# ---- dynamic (NTK) ---------------------------------------------------------------------------
for hd in HD:
    for sl in (None, 2048, 4096, 8192, 16384):
        add("dynamic", hd, 10000.0, None, {"factor": 2.0}, seq_len=sl, mpe=4096)
for p in (0.5, 0.25, 0.4):
    add("dynamic", 64, 10000.0, p, {"factor": 2.0}, seq_len=16384, mpe=4096)
add("dynamic", 128, 10000.0, None, {"factor": 4.0}, seq_len=65536, mpe=4096)

# ---- yarn ----------------------------------------------------------------------------------
Y = {"factor": 4.0, "original_max_position_embeddings": 4096}
for hd in HD:
    add("yarn", hd, 10000.0, None, dict(Y), mpe=16384, note="beta_fast/beta_slow absent (32/1), truncate absent (True)")
    add("yarn", hd, 10000.0, None, dict(Y, beta_fast=32.0, beta_slow=1.0, truncate=False), mpe=16384)
    add("yarn", hd, 10000.0, None, dict(Y, beta_fast=8.0, beta_slow=2.0), mpe=16384)
    add("yarn", hd, 10000.0, None, dict(Y, mscale=1.0, mscale_all_dim=1.0), mpe=16384,
        note="mscale == mscale_all_dim -> attention_factor 1.0")
    add("yarn", hd, 10000.0, None, dict(Y, mscale=1.0, mscale_all_dim=0.5), mpe=16384)
    add("yarn", hd, 10000.0, None, dict(Y, mscale=0.707), mpe=16384,
        note="mscale without mscale_all_dim is ignored -> get_mscale(factor)")
    add("yarn", hd, 10000.0, None, dict(Y, attention_factor=1.5), mpe=16384)
for hd in (64, 128):
    for p in (0.5, 0.25, 0.4):
        add("yarn", hd, 10000.0, p, dict(Y), mpe=16384)
add("yarn", 64, 10000.0, None, {"factor": None, "original_max_position_embeddings": 4096}, mpe=131072,
    note="factor None -> max_position_embeddings / original_max_position_embeddings = 32")
add("yarn", 64, 150000.0, None, {"factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0, "truncate": False,
                                 "original_max_position_embeddings": 4096}, mpe=131072, note="gpt-oss-like")
add("yarn", 64, 150000.0, None, {"factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0, "truncate": True,
                                 "original_max_position_embeddings": 4096}, mpe=131072,
    note="gpt-oss-like but truncate True")
add("yarn", 64, 10000.0, None, {"factor": 40.0, "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0,
                                "original_max_position_embeddings": 4096}, mpe=163840, note="DeepSeek-V3-like")

# ---- longrope ------------------------------------------------------------------------------
for hd in HD:
    for p in (1.0, 0.5, 0.25):
        dim = int(hd * p)
        n = dim // 2
        lr = {"short_factor": [round(1.0 + 0.05 * i, 4) for i in range(n)],
              "long_factor": [round(1.0 + 1.5 * i, 4) for i in range(n)],
              "original_max_position_embeddings": 4096}
        for sl in (None, 2048, 4096, 4097, 16384):
            add("longrope", hd, 10000.0, p, lr, seq_len=sl, mpe=131072,
                note="seq_len None/<=4096 -> short_factor, >4096 -> long_factor; factor absent -> 131072/4096")
lr64 = {"short_factor": [round(1.0 + 0.05 * i, 4) for i in range(32)],
        "long_factor": [round(1.0 + 1.5 * i, 4) for i in range(32)]}
add("longrope", 64, 10000.0, None, dict(lr64, original_max_position_embeddings=4096, factor=8.0), seq_len=8192,
    mpe=131072, note="explicit factor overrides max_position_embeddings/original for attention_factor")
add("longrope", 64, 10000.0, None, dict(lr64, original_max_position_embeddings=4096, attention_factor=1.25),
    seq_len=8192, mpe=131072)
for sl in (4096, 8192, 8193):
    add("longrope", 64, 10000.0, None, dict(lr64), seq_len=sl, mpe=8192,
        note="original_max_position_embeddings absent -> set to max_position_embeddings (8192); factor 1 -> attention 1")
lr40 = {"short_factor": [round(1.0 + 0.05 * i, 4) for i in range(16)],
        "long_factor": [round(1.0 + 1.5 * i, 4) for i in range(16)],
        "original_max_position_embeddings": 4096}
for sl in (2048, 8192):
    add("longrope", 80, 10000.0, 0.4, lr40, seq_len=sl, mpe=131072, note="head_dim 80, p 0.4 -> rotary_dim 32")
# odd rotary dim: int(64*0.4)=25 -> 13 frequencies but dim//2 = 12 factors -> transformers fails
add("longrope", 64, 10000.0, 0.4, {"short_factor": [1.0] * 12, "long_factor": [2.0] * 12,
                                     "original_max_position_embeddings": 4096}, seq_len=8192, mpe=131072)

# ---- llama3 --------------------------------------------------------------------------------
L3 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
for hd in HD:
    for p in P:
        add("llama3", hd, 500000.0, p, dict(L3), mpe=131072)
for hd in (64, 128):
    add("llama3", hd, 500000.0, None, dict(L3, factor=32.0), mpe=131072, note="Llama-3.2-1B/3B-like factor 32")
add("llama3", 128, 10000.0, None, dict(L3), mpe=131072)

# ---- proportional --------------------------------------------------------------------------
for hd in HD:
    for p in P:
        add("proportional", hd, 1000000.0, p, {})
add("proportional", 64, 1000000.0, 0.25, {"factor": 8.0})
add("proportional", 256, 1000000.0, 0.25, {})
add("proportional", 512, 1000000.0, 0.25, {}, note="Gemma 4 full_attention default: global_head_dim 512, p 0.25, theta 1e6")


# ---- model cases: real configs through each model's own RotaryEmbedding ---------------------
MODEL_CASES: list[dict] = []


def _head_dim(config):
    try:
        hd = getattr(config, "head_dim", None)
    except Exception:  # noqa: BLE001 - Gemma 4: head_dim is per layer type
        return {lt: getattr(config.per_layer_config[lt], "head_dim", None) for lt in sorted(set(config.layer_types))}
    return hd or config.hidden_size // config.num_attention_heads


def model_case(name, rotary_cls, config, *, layer_types=None, extra=None, long_seq=None):
    emb = rotary_cls(config)
    entry = {"name": name, "config_class": type(config).__name__, "rotary_class": rotary_cls.__name__,
             "rope_parameters": json.loads(json.dumps(config.rope_parameters, default=str)),
             "head_dim": _head_dim(config),
             "max_position_embeddings": config.max_position_embeddings}
    if layer_types:
        entry["layers"] = {}
        for lt in layer_types:
            entry["layers"][lt] = {"inv_freq": floats(getattr(emb, f"{lt}_inv_freq")),
                                   "attention_factor": float(getattr(emb, f"{lt}_attention_scaling"))}
    else:
        entry["inv_freq"] = floats(emb.inv_freq)
        entry["attention_factor"] = float(emb.attention_scaling)
    if long_seq is not None:  # longrope: the set the forward wrapper swaps in once seq_len > original
        inv, att = ROPE_INIT_FUNCTIONS["longrope"](config, None, seq_len=long_seq)
        entry["long_seq_len"] = long_seq
        entry["long_inv_freq"] = floats(inv)
        entry["long_attention_factor"] = float(att)
    if extra:
        entry.update(extra)
    MODEL_CASES.append(entry)


def build_model_cases():
    from transformers import DeepseekV3Config, Gemma2Config, GptOssConfig, MistralConfig, Phi3Config, PhiConfig, Qwen2Config
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3RotaryEmbedding, yarn_apply_mscale
    from transformers.models.gemma2.modeling_gemma2 import Gemma2RotaryEmbedding
    from transformers.models.gemma3.configuration_gemma3 import Gemma3TextConfig
    from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding
    from transformers.models.gemma4.configuration_gemma4 import Gemma4TextConfig
    from transformers.models.gemma4.modeling_gemma4 import Gemma4TextRotaryEmbedding
    from transformers.models.gpt_oss.modeling_gpt_oss import GptOssRotaryEmbedding
    from transformers.models.mistral.modeling_mistral import MistralRotaryEmbedding
    from transformers.models.phi.modeling_phi import PhiRotaryEmbedding
    from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding
    from transformers.models.qwen2.modeling_qwen2 import Qwen2RotaryEmbedding
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding

    presets = json.loads(PRESETS.read_text())
    P_ = {p["name"]: p["fields"] for p in presets["presets"]}

    def v(name, field):
        return P_[name][field]["value"]

    model_case("llama-2-7b", LlamaRotaryEmbedding, LlamaConfig(
        hidden_size=4096, num_attention_heads=32, num_key_value_heads=32,
        max_position_embeddings=v("llama-2-7b", "max_position_embeddings"),
        rope_theta=v("llama-2-7b", "rope_theta")))
    r = v("llama-3.1-8b", "rope_scaling")
    model_case("llama-3.1-8b", LlamaRotaryEmbedding, LlamaConfig(
        hidden_size=4096, num_attention_heads=32, num_key_value_heads=8,
        max_position_embeddings=v("llama-3.1-8b", "max_position_embeddings"),
        rope_theta=v("llama-3.1-8b", "rope_theta"), rope_scaling=dict(r)))
    for n in ("mistral-7b-v0.1", "mistral-7b-v0.3"):
        model_case(n, MistralRotaryEmbedding, MistralConfig(
            hidden_size=4096, num_attention_heads=32, num_key_value_heads=8,
            max_position_embeddings=v(n, "max_position_embeddings"), rope_theta=v(n, "rope_theta"),
            sliding_window=v(n, "sliding_window")))
    model_case("qwen2.5-7b-instruct", Qwen2RotaryEmbedding, Qwen2Config(
        hidden_size=3584, num_attention_heads=28, num_key_value_heads=4,
        max_position_embeddings=v("qwen2.5-7b-instruct", "max_position_embeddings"),
        rope_theta=v("qwen2.5-7b-instruct", "rope_theta")))
    for n in ("phi-3-mini-128k-instruct", "phi-3-mini-128k-instruct-2404"):
        rs = dict(v(n, "rope_scaling"))
        su_note = ""
        if rs.get("type") == "su":
            # transformers 5.23.0 raises KeyError(original_max_position_embeddings) for a legacy "su" block:
            # Phi3Config.convert_rope_params_to_dict runs standardize_rope_params *before* renaming su->longrope,
            # so original_max_position_embeddings is never copied in. Rename first, as a loader would have to.
            rs["type"] = "longrope"
            su_note = " Legacy type 'su' renamed to 'longrope' before building Phi3Config (5.23.0 fails on 'su')."
        cfg = Phi3Config(hidden_size=3072, num_attention_heads=32, num_key_value_heads=32,
                         max_position_embeddings=v(n, "max_position_embeddings"),
                         original_max_position_embeddings=v(n, "original_max_position_embeddings"),
                         rope_theta=v(n, "rope_theta"), rope_scaling=dict(rs))
        model_case(n, Phi3RotaryEmbedding, cfg, long_seq=v(n, "original_max_position_embeddings") + 1,
                   extra={"note": "inv_freq = short set (used while seq_len <= 4096); long_inv_freq used once seq_len > 4096. "
                                  + su_note})
    n = "gpt-oss-20b"
    model_case(n, GptOssRotaryEmbedding, GptOssConfig(
        head_dim=v(n, "head_dim"), rope_theta=v(n, "rope_theta"),
        max_position_embeddings=v(n, "max_position_embeddings"), rope_scaling=dict(v(n, "rope_scaling"))))
    n = "deepseek-v3"
    dcfg = DeepseekV3Config(qk_rope_head_dim=v(n, "qk_rope_head_dim"), rope_theta=v(n, "rope_theta"),
                            max_position_embeddings=v(n, "max_position_embeddings"),
                            rope_scaling=dict(v(n, "rope_scaling")))
    qk_head_dim = 128 + v(n, "qk_rope_head_dim")
    model_case(n, DeepseekV3RotaryEmbedding, dcfg, extra={
        "softmax_scale": yarn_apply_mscale(dcfg.rope_parameters, qk_head_dim ** -0.5),
        "softmax_scale_multiplier_vs_1_over_sqrt_qk_head_dim": yarn_apply_mscale(dcfg.rope_parameters, 1.0),
        "note": "DeepseekV3Attention multiplies the softmax scale by get_mscale(factor, mscale_all_dim)**2 "
                "(modeling_deepseek_v3.yarn_apply_mscale); cos/sin attention_factor itself is 1.0."})
    n = "gpt-neox-20b"
    model_case(n, GPTNeoXRotaryEmbedding, GPTNeoXConfig(
        hidden_size=6144, num_attention_heads=64, rotary_pct=v(n, "rotary_pct"),
        rotary_emb_base=v(n, "rotary_emb_base"), max_position_embeddings=v(n, "max_position_embeddings")))
    n = "pythia-6.9b"
    model_case(n, GPTNeoXRotaryEmbedding, GPTNeoXConfig(
        hidden_size=4096, num_attention_heads=32, rotary_pct=v(n, "rotary_pct"),
        rotary_emb_base=v(n, "rotary_emb_base"), max_position_embeddings=v(n, "max_position_embeddings")))
    n = "phi-2"
    model_case(n, PhiRotaryEmbedding, PhiConfig(
        hidden_size=2560, num_attention_heads=32, partial_rotary_factor=v(n, "partial_rotary_factor"),
        rope_theta=v(n, "rope_theta"), max_position_embeddings=v(n, "max_position_embeddings")))
    n = "gemma-2-9b"
    model_case(n, Gemma2RotaryEmbedding, Gemma2Config(
        hidden_size=3584, num_attention_heads=16, num_key_value_heads=8, head_dim=v(n, "head_dim"),
        rope_theta=v(n, "rope_theta"), sliding_window=v(n, "sliding_window"),
        max_position_embeddings=v(n, "max_position_embeddings")))
    n = "gemma-3-4b"
    g3 = Gemma3TextConfig(hidden_size=2560, num_attention_heads=8, num_key_value_heads=4, head_dim=v(n, "head_dim"),
                          num_hidden_layers=34, sliding_window=v(n, "sliding_window"),
                          rope_theta=v(n, "rope_theta"), rope_local_base_freq=v(n, "rope_local_base_freq"),
                          rope_scaling=dict(v(n, "rope_scaling_global")))
    model_case(n, Gemma3RotaryEmbedding, g3, layer_types=["full_attention", "sliding_attention"],
               extra={"layer_types_first_12": list(g3.layer_types[:12])})
    n = "gemma-4-default"
    g4 = Gemma4TextConfig()
    try:
        model_case(n, Gemma4TextRotaryEmbedding, g4, layer_types=["full_attention", "sliding_attention"],
                   extra={"note": "transformers Gemma4TextConfig() defaults (no published checkpoint values used)"})
    except Exception as exc:  # noqa: BLE001 - recorded in failed_cases
        SKIPPED.append({"model_case": n, "error": f"{type(exc).__name__}: {exc}"})
    n = "qwen2-vl-7b-instruct"
    qcfg = Qwen2VLTextConfig(hidden_size=3584, num_attention_heads=28, num_key_value_heads=4,
                             max_position_embeddings=v(n, "max_position_embeddings"),
                             rope_theta=v(n, "rope_theta"), rope_scaling=dict(v(n, "rope_scaling")))
    emb = Qwen2VLRotaryEmbedding(qcfg)
    sec = list(emb.mrope_section)
    axis = []
    for i, s in enumerate(sec):
        axis += [["temporal", "height", "width"][i % 3]] * s
    model_case(n, Qwen2VLRotaryEmbedding, qcfg, extra={
        "mrope_section": sec, "axis_of_frequency_index": axis,
        "note": "inv_freq (head_dim/2 entries) is split into contiguous chunks of mrope_section; chunk i uses "
                "position-id stream i%3 (temporal, height, width); then cat(freq, freq) as usual."})


# ---- apply cases: how the rotation itself treats partial rotary, M-RoPE and axial 2-D RoPE ----------
APPLY_CASES: list[dict] = []


def build_apply_cases():
    from transformers.models.gpt_neox.modeling_gpt_neox import apply_rotary_pos_emb as neox_apply
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig, Qwen2VLVisionConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding, Qwen2VLVisionRotaryEmbedding

    gen = torch.Generator().manual_seed(18)
    # GPT-NeoX: rotary_dim = cos.shape[-1]; q[..., :rotary_dim] rotated with rotate_half, the rest passed through.
    # cos/sin built in float64 from GPTNeoXRotaryEmbedding's own inv_freq (cast to float64), so only the rotation is compared.
    for head_dim, partial in ((16, 0.25), (16, 0.4), (16, 0.3125), (10, 0.4), (64, 0.4)):
        cfg = GPTNeoXConfig(hidden_size=head_dim * NUM_HEADS, num_attention_heads=NUM_HEADS, rotary_pct=partial, rotary_emb_base=100.0)
        inv, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(cfg)
        inv = inv.to(torch.float64)
        positions = torch.tensor([0.0, 1.0, 7.0, 1000.0], dtype=torch.float64)
        freqs = positions[:, None] * inv[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        x = torch.randn(4, head_dim, dtype=torch.float64, generator=gen)
        out, _ = neox_apply(x[None, None], x[None, None], emb.cos()[None], emb.sin()[None], unsqueeze_dim=1)
        APPLY_CASES.append({"kind": "gpt-neox-partial", "head_dim": head_dim, "partial_rotary_factor": partial, "base": 100.0,
                            "inv_freq": inv.tolist(), "positions": positions.tolist(), "x": x.tolist(), "out": out[0, 0].tolist()})
    # Qwen2-VL text M-RoPE: positions (3, batch, T) = temporal, height, width streams.
    qcfg = Qwen2VLTextConfig(hidden_size=64, num_attention_heads=4, num_key_value_heads=4, rope_theta=10000.0,
                             rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]})
    emb = Qwen2VLRotaryEmbedding(qcfg)
    ids = torch.tensor([[[0, 1, 2, 2, 2, 2, 2, 2, 5]], [[0, 1, 2, 2, 2, 3, 3, 3, 5]], [[0, 1, 2, 3, 4, 2, 3, 4, 5]]])
    cos, sin = emb(torch.zeros(1, dtype=torch.float64), ids)
    APPLY_CASES.append({"kind": "qwen2-vl-mrope", "head_dim": 16, "base": 10000.0, "mrope_section": list(emb.mrope_section),
                        "position_ids": ids[:, 0].tolist(), "cos": cos[0].tolist(), "sin": sin[0].tolist(),
                        "note": "two text tokens, a 2 x 3 image (t 2, h 2..3, w 2..4), one text token; cos/sin float32 cast to float64"})
    # Qwen2-VL vision encoder: axial 2-D RoPE, position_ids (N, 2) = (row, column).
    vcfg = Qwen2VLVisionConfig(embed_dim=64, num_heads=4)
    vemb = Qwen2VLVisionRotaryEmbedding(vcfg)
    grid = torch.tensor([[r, c] for r in range(3) for c in range(4)])
    cos, sin = vemb(torch.zeros(1), grid)
    APPLY_CASES.append({"kind": "qwen2-vl-vision-axial", "head_dim": 16, "base": float(vcfg.rope_parameters["rope_theta"]),
                        "positions": grid.tolist(), "inv_freq": floats(vemb.inv_freq), "cos": cos.tolist(), "sin": sin.tolist()})


def main():
    try:
        build_model_cases()
    except FileNotFoundError:
        print(f"{PRESETS} not found; model_cases skipped", file=sys.stderr)
    build_apply_cases()
    doc = {
        "generated_by": "scripts/make_rope_reference.py",
        "command": "python scripts/make_rope_reference.py",
        "transformers_version": transformers.__version__,
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "dtype_note": "inv_freq computed by transformers in float32 on CPU; stored as float64 images of the float32 values",
        "kinds_in_ROPE_INIT_FUNCTIONS": sorted(ROPE_INIT_FUNCTIONS),
        "n_cases": len(CASES),
        "cases": CASES,
        "model_cases": MODEL_CASES,
        "apply_cases": APPLY_CASES,
        "failed_cases": SKIPPED,
    }
    OUT.write_text(json.dumps(doc, separators=(",", ":")))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes): {len(CASES)} cases, {len(MODEL_CASES)} model cases, "
          f"{len(APPLY_CASES)} apply cases, {len(SKIPPED)} failed")


if __name__ == "__main__":
    main()
