"""`python -m bench.lab_sliding`: sliding-window against non-overlapping evaluation. The shipped results.

Every shipped Austen model of each training seed (data/lab_models, core.lab.weights.SEEDS) scored on the same 32,768 held-out characters with
windows of 64, 128, 256 and 512 characters moving by 16 (core.lab.sliding: every character after
the first window is predicted from window − 15 to window characters), beside its non-overlapping
perplexity at the same lengths (data/lab_lm_results.json, the same models). The learned table has
no code past 64 characters: only its window of 64 is run. Writes data/lab_sliding_results.json:
seed 0's results at the top level and every seed's under `by_seed`.

    python -m bench.lab_sliding                # run every seed and write
    python -m bench.lab_sliding --seeds 1 2    # run these seeds, keep the others' shipped results
    python -m bench.lab_sliding --check        # rerun ALiBi at 512 (seed 0) through the runner and compare
"""

from __future__ import annotations

import json
import sys

from bench import lab_experiments
from core.lab.experiment import Bench
from core.lab import lm, sliding


def configs(seed: int = 0) -> list[sliding.SlidingConfig]:
    return [sliding.SlidingConfig(s, w, seed=seed) for s in lm.DEFAULT_SCHEMES for w in sliding.WINDOWS if s != "learned" or w == 64]


def nonoverlapping(seed: int) -> dict[str, dict[str, float | None]]:
    """The shipped comparison's non-overlapping perplexities of training seed `seed` (python -m bench.lab_lm, its `by_seed`)."""
    data = json.loads(lm.RESULTS_PATH.read_text(encoding="utf-8"))
    by_seed = data.get("by_seed") or {"0": data}
    return {scheme: r["perplexity"] for scheme, r in by_seed[str(seed)]["results"].items()}


def results(outcomes) -> dict:
    plain = nonoverlapping(outcomes[0].config.seed)
    return {
        "rows": [
            {
                "scheme": o.config.scheme,
                "window": o.config.window,
                "stride": o.config.stride,
                "sliding": o.values["perplexity"],
                "nonoverlapping": plain[o.config.scheme][str(o.config.window)],
            }
            for o in outcomes
        ]
    }


def check(shipped):
    ref = {(r["scheme"], r["window"]): r for r in shipped.results["rows"]}
    again = [sliding.SlidingConfig("alibi", 512)]

    def compare(outcomes):
        return [
            (
                o.config.label,
                o.values["perplexity"],
                ref[(o.config.scheme, o.config.window)]["sliding"],
                lab_experiments.seed_values(
                    shipped, lambda r, o=o: next(x for x in r["rows"] if (x["scheme"], x["window"]) == (o.config.scheme, o.config.window))["sliding"]
                ),
            )
            for o in outcomes
        ]

    return again, compare


RECORD = {
    "models": "the shipped Austen models of each training seed (data/lab_models, data/lab_models/seed<k>): core.lab.lm.LMConfig defaults, L = 64",
    "seeds": list(lab_experiments.SEEDS),
    "windows": list(sliding.WINDOWS),
    "stride": sliding.STRIDE,
    "eval_chars": 32768,
    "nonoverlapping": "from data/lab_lm_results.json (python -m bench.lab_lm), the same models and characters",
}

BENCH = Bench(configs, results, RECORD, check)

if __name__ == "__main__":
    sys.exit(lab_experiments.main("sliding"))
