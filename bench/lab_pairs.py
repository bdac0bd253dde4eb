"""`python -m bench.lab_pairs`: which RoPE frequencies does the trained model use? The shipped ablation.

The shipped Austen RoPE model (data/lab_models, 2 layers, heads of 16: 8 pairs) evaluated at
L = 64 and 4L = 256 on the 32,768 held-out characters, with nothing removed, with the k fastest
pairs removed (k = 1 .. 8) and with the k slowest removed (k = 1 .. 7; 8 is all of them, as for
the fastest), a removed pair given frequency 0 (core.lab.pairs, core.lab.trained.ablated). The
pairs that never complete a turn within L are the 5 slowest (pairs 3 to 7). Writes
data/lab_pairs_results.json.

    python -m bench.lab_pairs            # run and write
    python -m bench.lab_pairs --check    # rerun two ablations through the runner and compare
"""

from __future__ import annotations

import sys

from bench import lab_experiments
from core.lab.experiment import Bench
from core.lab import pairs

N = pairs.frequencies().size


def variants() -> list[tuple[str, str, int, tuple[int, ...]]]:
    """(name, kind, k, removed) of every shipped ablation, nothing removed first."""
    out = [("nothing removed", "none", 0, ())]
    out += [(f"{k} fastest removed", "fastest", k, pairs.fastest(k, N)) for k in range(1, N + 1)]
    out += [(f"{k} slowest removed", "slowest", k, pairs.slowest(k, N)) for k in range(1, N)]
    return out


def configs() -> list[pairs.PairsConfig]:
    return [pairs.PairsConfig(removed) for _, _, _, removed in variants()]


def results(outcomes) -> dict:
    inv = pairs.frequencies()
    return {
        "frequencies": inv.tolist(),
        "wavelengths": pairs.wavelengths().tolist(),
        "never_turn": list(pairs.never_turn(inv, 64)),
        "variants": [
            {"name": name, "kind": kind, "k": k, "removed": list(removed), "perplexity": o.values["perplexity"]}
            for (name, kind, k, removed), o in zip(variants(), outcomes)
        ],
    }


def check(shipped):
    rows = {tuple(v["removed"]): v for v in shipped.results["variants"]}
    again = [pairs.PairsConfig(()), pairs.PairsConfig(pairs.slowest(5, N))]

    def compare(outcomes):
        return [
            (f"{o.config.label}, ppl @ {n}", o.values["perplexity"][n], rows[o.config.removed]["perplexity"][n])
            for o in outcomes
            for n in o.values["perplexity"]
        ]

    return again, compare


RECORD = {
    "model": "the shipped RoPE model (data/lab_models/austen_rope.safetensors): core.lab.lm.LMConfig(scheme='rope'), seed 0",
    "removal": "a removed pair's frequency is set to 0 in every head and both layers (it stops turning, its content stays)",
    "lengths": list(pairs.LENGTHS),
    "eval_chars": 32768,
}

BENCH = Bench(configs, results, RECORD, check, seed=0)

if __name__ == "__main__":
    sys.exit(lab_experiments.main("pairs"))
