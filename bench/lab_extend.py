"""`python -m bench.lab_extend`: context extension on the trained RoPE model. The shipped results.

The shipped Austen RoPE model (trained on L = 64) with position interpolation ("linear"), NTK-aware
scaling, YaRN and YaRN without its temperature at s = 2, 4 and 8 (core.lab.extend: the registry's
RoPE with a core.schemes.rope.RopeScaling), evaluated from L to 8L without fine-tuning, and after a
short fine-tune (38 steps, 5 % of the original 750, on windows of s × L characters, lr 1e-3, seed 0);
fine-tuning at the longer length without any scaling too. Perplexity and the mean attention
entropy at every length. Writes data/lab_extend_results.json.

    python -m bench.lab_extend            # run and write
    python -m bench.lab_extend --check    # rerun YaRN at s = 4 with and without the fine-tune and compare
"""

from __future__ import annotations

import sys

from bench import lab_experiments
from core.lab.experiment import Bench
from core.lab import extend


def configs() -> list[extend.ExtendConfig]:
    plain = [extend.ExtendConfig("none", 1)] + [extend.ExtendConfig(m, s) for m in extend.SCALED for s in extend.FACTORS]
    tuned = [extend.ExtendConfig(m, s, fine_tune=extend.FINE_TUNE_STEPS) for m in ("none",) + extend.SCALED for s in extend.FACTORS]
    return plain + tuned


def row(o) -> dict:
    c = o.config
    out = {"method": c.method, "factor": c.factor, "fine_tune": c.fine_tune, "perplexity": o.values["perplexity"], "entropy": o.values["entropy"]}
    if c.fine_tune:
        out.update(tune_len=c.tune_len, tune_batch=c.tune_batch, final_tune_loss=round(float(o.losses[-5:].mean()), 4))
    return out


def results(outcomes) -> dict:
    return {"rows": [row(o) for o in outcomes]}


def check(shipped):
    rows = {(r["method"], r["factor"], r["fine_tune"]): r for r in shipped.results["rows"]}
    again = [extend.ExtendConfig("yarn", 4), extend.ExtendConfig("yarn", 4, fine_tune=extend.FINE_TUNE_STEPS)]

    def compare(outcomes):
        out = []
        for o in outcomes:
            ref = rows[(o.config.method, o.config.factor, o.config.fine_tune)]
            out += [(f"{o.config.label}, {what} @ {n}", o.values[what][n], ref[what][n]) for what in ("perplexity", "entropy") for n in ref[what]]
        return out

    return again, compare


RECORD = {
    "model": "the shipped RoPE model (data/lab_models/austen_rope.safetensors): core.lab.lm.LMConfig(scheme='rope'), seed 0, L = 64",
    "scaling": "core.schemes.rope.RopeScaling(kind, s, original_max_len=64); yarn_no_t: attention_factor=1.0",
    "factors": list(extend.FACTORS),
    "lengths": list(extend.LENGTHS),
    "fine_tune": {
        "steps": extend.FINE_TUNE_STEPS,
        "lr": extend.FINE_TUNE_LR,
        "length": "min(s, 8) x 64",
        "batch": "32 // min(s, 8)",
        "data_seed": "[0, 3, length]",
    },
    "entropy": "mean over every query, head and layer of -sum_j a_ij ln a_ij (nats), same windows as the perplexity",
    "eval_chars": 32768,
}

BENCH = Bench(configs, results, RECORD, check, seed=0)

if __name__ == "__main__":
    sys.exit(lab_experiments.main("extend"))
