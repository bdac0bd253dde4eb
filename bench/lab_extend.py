"""`python -m bench.lab_extend`: context extension on the trained RoPE model. The shipped results.

The shipped Austen RoPE model of each training seed (core.lab.weights.SEEDS; trained on L = 64) with
position interpolation ("linear"), NTK-aware scaling, YaRN and YaRN without its temperature at
s = 2, 4 and 8 (core.lab.extend: the registry's RoPE with a core.schemes.rope.RopeScaling),
evaluated from L to 8L without fine-tuning, and after a short fine-tune (38 steps, 5 % of the
original 750, on windows of s × L characters, lr 1e-3, its data drawn with the model's seed);
fine-tuning at the longer length without any scaling too; and every method at s = 4 after a fine-tune four
times as long, at L and s·L (`budgets`). Perplexity and the mean attention
entropy at every length. Writes data/lab_extend_results.json: seed 0's results at the top level
and every seed's under `by_seed`.

    python -m bench.lab_extend                # run every seed and write
    python -m bench.lab_extend --seeds 1 2    # run these seeds, keep the others' shipped results
    python -m bench.lab_extend --budgets      # run only the longer fine-tunes (every seed) and add them to the shipped file
    python -m bench.lab_extend --check        # rerun YaRN at s = 4 (seed 0) untuned and after either fine-tune and compare
"""

from __future__ import annotations

import sys

from bench import lab_experiments
from core.lab import experiment, extend
from core.lab.experiment import Bench


def budget_configs(seed: int = 0) -> list[extend.ExtendConfig]:
    """The longer fine-tune of every method at extend.SHOWN_FACTOR, measured at L and s·L only."""
    return [extend.ExtendConfig(m, extend.SHOWN_FACTOR, fine_tune=extend.LONGER_FINE_TUNE, lengths=extend.BUDGET_LENGTHS, seed=seed) for m in extend.METHODS]


def configs(seed: int = 0) -> list[extend.ExtendConfig]:
    plain = [extend.ExtendConfig("none", 1, seed=seed)] + [extend.ExtendConfig(m, s, seed=seed) for m in extend.SCALED for s in extend.FACTORS]
    tuned = [extend.ExtendConfig(m, s, fine_tune=extend.FINE_TUNE_STEPS, seed=seed) for m in ("none",) + extend.SCALED for s in extend.FACTORS]
    return plain + tuned + budget_configs(seed)


def row(o) -> dict:
    c = o.config
    out = {"method": c.method, "factor": c.factor, "fine_tune": c.fine_tune, "perplexity": o.values["perplexity"], "entropy": o.values["entropy"]}
    if c.fine_tune:
        out.update(tune_len=c.tune_len, tune_batch=c.tune_batch, final_tune_loss=round(float(o.losses[-5:].mean()), 4))
    return out


def results(outcomes) -> dict:
    longer = [o.config.fine_tune == extend.LONGER_FINE_TUNE for o in outcomes]
    return {"rows": [row(o) for o, x in zip(outcomes, longer) if not x], "budgets": [row(o) for o, x in zip(outcomes, longer) if x]}


def budgets() -> int:
    """run only the longer fine-tunes (every training seed) and add them to the shipped results, the rest kept as shipped"""
    ship = experiment.load("extend")
    plan = [c for s in lab_experiments.SEEDS for c in budget_configs(s)]
    got, meta = lab_experiments.outcomes(plan)
    by_seed = ship.results["by_seed"]
    for s in lab_experiments.SEEDS:
        by_seed[str(s)]["budgets"] = [row(o) for o in got if o.config.seed == s]
        ship.meta["cpu_seconds_by_seed"][str(s)].update({o.config.label: meta["cpu_seconds"][o.config.label] for o in got if o.config.seed == s})
    ship.results["budgets"] = by_seed["0"]["budgets"]
    ship.meta["cpu_seconds"] = {label: cpu for s in sorted(by_seed, key=int) for label, cpu in ship.meta["cpu_seconds_by_seed"][s].items()}  # configs' order
    run = {"seeds": list(lab_experiments.SEEDS), "command": "python -m bench.lab_extend --budgets"}
    run.update({k: meta[k] for k in ("total_seconds", "total_cpu_seconds", "date")})
    ship.meta["runs"] = [*ship.meta["runs"], run]
    for k in ("total_seconds", "total_cpu_seconds"):
        ship.meta[k] = round(sum(r[k] for r in ship.meta["runs"]), 1)
    path = experiment.write("extend", ship.command, RECORD, ship.seed, ship.results, ship.meta)
    print(f"wrote {path}; the longer fine-tunes took {meta['total_cpu_seconds']:.1f} s CPU, peak RSS {meta['peak_rss_mb']} MB")
    return lab_experiments.report(meta)


def _every_row(layout: dict) -> list[dict]:
    return [*layout["rows"], *layout.get("budgets", [])]


def check(shipped):
    rows = {(r["method"], r["factor"], r["fine_tune"]): r for r in _every_row(shipped.results)}
    again = [extend.ExtendConfig("yarn", 4), extend.ExtendConfig("yarn", 4, fine_tune=extend.FINE_TUNE_STEPS)]
    again.append(extend.ExtendConfig("yarn", 4, fine_tune=extend.LONGER_FINE_TUNE, lengths=extend.BUDGET_LENGTHS))

    def compare(outcomes):
        out = []
        for o in outcomes:
            key = (o.config.method, o.config.factor, o.config.fine_tune)
            ref = rows[key]
            for what in ("perplexity", "entropy"):
                for n in ref[what]:
                    seeds = lab_experiments.seed_values(
                        shipped, lambda r, what=what, n=n: next(x for x in _every_row(r) if (x["method"], x["factor"], x["fine_tune"]) == key)[what][n]
                    )
                    out.append((f"{o.config.label}, {what} @ {n}", o.values[what][n], ref[what][n], seeds))
        return out

    return again, compare


RECORD = {
    "model": "the shipped RoPE model of each training seed (data/lab_models/austen_rope.safetensors for seed 0, data/lab_models/seed<k>/ for the "
    "others): core.lab.lm.LMConfig(scheme='rope'), L = 64",
    "scaling": "core.schemes.rope.RopeScaling(kind, s, original_max_len=64); yarn_no_t: attention_factor=1.0",
    "factors": list(extend.FACTORS),
    "lengths": list(extend.LENGTHS),
    "fine_tune": {
        "steps": extend.FINE_TUNE_STEPS,
        "lr": extend.FINE_TUNE_LR,
        "length": "min(s, 8) x 64",
        "batch": "32 // min(s, 8)",
        "data_seed": "[seed, 3, length], seed the model's training seed",
        "longer": f"{extend.LONGER_FINE_TUNE} steps, every method at s = {extend.SHOWN_FACTOR}, measured at {list(extend.BUDGET_LENGTHS)} ('budgets')",
    },
    "seeds": list(lab_experiments.SEEDS),
    "entropy": "mean over every query, head and layer of -sum_j a_ij ln a_ij (nats), same windows as the perplexity",
    "eval_chars": 32768,
}

BENCH = Bench(configs, results, RECORD, check, extra={"budgets": budgets})

if __name__ == "__main__":
    sys.exit(lab_experiments.main("extend"))
