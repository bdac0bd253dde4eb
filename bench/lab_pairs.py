"""`python -m bench.lab_pairs`: which RoPE frequencies does the trained model use? The shipped ablation.

The shipped Austen RoPE model (data/lab_models, 2 layers, heads of 16: 8 pairs) evaluated at
L = 64 and 4L = 256 on the 32,768 held-out characters, with nothing removed, with the k fastest
pairs removed (k = 1 .. 8) and with the k slowest removed (k = 1 .. 7; 8 is all of them, as for
the fastest), a removed pair given frequency 0 (core.lab.pairs, core.lab.trained.ablated). The
pairs that never complete a turn within L are the 5 slowest (pairs 3 to 7). Beside that frequency
freeze, the content ablation (`zeroed`): the k slowest pairs' query and key dimensions set to 0
(k = 1, 2, 4), which removes what they carry whatever their angle. Every training seed's model
(core.lab.weights.SEEDS). Writes data/lab_pairs_results.json: seed 0's results at the top level and
every seed's under `by_seed`.

    python -m bench.lab_pairs                # run every seed and write
    python -m bench.lab_pairs --seeds 1 2    # run these seeds, keep the others' shipped results
    python -m bench.lab_pairs --check        # rerun two ablations (seed 0) through the runner and compare
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


ZEROED = (1, 2, 4)  # the k slowest pairs' query and key dimensions zeroed


def configs(seed: int = 0) -> list[pairs.PairsConfig]:
    frozen = [pairs.PairsConfig(removed, seed=seed) for _, _, _, removed in variants()]
    return frozen + [pairs.PairsConfig(zeroed=pairs.slowest(k, N), seed=seed) for k in ZEROED]


def results(outcomes) -> dict:
    inv = pairs.frequencies()
    frozen, zeroed = outcomes[: len(variants())], outcomes[len(variants()) :]
    return {
        "frequencies": inv.tolist(),
        "wavelengths": pairs.wavelengths().tolist(),
        "never_turn": list(pairs.never_turn(inv, 64)),
        "variants": [
            {"name": name, "kind": kind, "k": k, "removed": list(removed), "perplexity": o.values["perplexity"]}
            for (name, kind, k, removed), o in zip(variants(), frozen)
        ],
        "zeroed": [
            {"name": f"{k} slowest zeroed", "kind": "zeroed", "k": k, "zeroed": list(o.config.zeroed), "perplexity": o.values["perplexity"]}
            for k, o in zip(ZEROED, zeroed)
        ],
    }


def check(shipped):
    rows = {tuple(v["removed"]): v for v in shipped.results["variants"]}
    again = [pairs.PairsConfig(()), pairs.PairsConfig(pairs.slowest(5, N))]

    def compare(outcomes):
        return [
            (
                f"{o.config.label}, ppl @ {n}",
                o.values["perplexity"][n],
                rows[o.config.removed]["perplexity"][n],
                lab_experiments.seed_values(
                    shipped, lambda r, o=o, n=n: next(v for v in r["variants"] if tuple(v["removed"]) == o.config.removed)["perplexity"][n]
                ),
            )
            for o in outcomes
            for n in o.values["perplexity"]
        ]

    return again, compare


RECORD = {
    "model": "the shipped RoPE model of each training seed (data/lab_models/austen_rope.safetensors for seed 0, data/lab_models/seed<k>/ for "
    "the others): core.lab.lm.LMConfig(scheme='rope')",
    "removal": "a removed pair's frequency is set to 0 in every head and both layers (it stops turning, its content stays)",
    "zeroed": "a zeroed pair's query and key dimensions are set to 0 after turning, in every head and both layers (its content and position go)",
    "seeds": list(lab_experiments.SEEDS),
    "lengths": list(pairs.LENGTHS),
    "eval_chars": 32768,
}

BENCH = Bench(configs, results, RECORD, check)

if __name__ == "__main__":
    sys.exit(lab_experiments.main("pairs"))
