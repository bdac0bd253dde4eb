"""`python -m bench.lab_sliding`: sliding-window against non-overlapping evaluation. The shipped results.

Every shipped Austen model (data/lab_models) scored on the same 32,768 held-out characters with
windows of 64, 128, 256 and 512 characters moving by 16 (core.lab.sliding: every character after
the first window is predicted from window − 15 to window characters), beside its non-overlapping
perplexity at the same lengths (data/lab_lm_results.json, the same models). The learned table has
no code past 64 characters: only its window of 64 is run. Writes data/lab_sliding_results.json.

    python -m bench.lab_sliding            # run and write
    python -m bench.lab_sliding --check    # rerun ALiBi at 512 through the runner and compare
"""

from __future__ import annotations

import sys

from bench import lab_experiments
from core.lab.experiment import Bench
from core.lab import lm, sliding


def configs() -> list[sliding.SlidingConfig]:
    return [sliding.SlidingConfig(s, w) for s in lm.DEFAULT_SCHEMES for w in sliding.WINDOWS if s != "learned" or w == 64]


def results(outcomes) -> dict:
    plain = lm.load_shipped()
    return {
        "rows": [
            {
                "scheme": o.config.scheme,
                "window": o.config.window,
                "stride": o.config.stride,
                "sliding": o.values["perplexity"],
                "nonoverlapping": plain.perplexity[o.config.scheme][o.config.window],
            }
            for o in outcomes
        ]
    }


def check(shipped):
    ref = {(r["scheme"], r["window"]): r for r in shipped.results["rows"]}
    again = [sliding.SlidingConfig("alibi", 512)]

    def compare(outcomes):
        return [(o.config.label, o.values["perplexity"], ref[(o.config.scheme, o.config.window)]["sliding"]) for o in outcomes]

    return again, compare


RECORD = {
    "models": "the shipped Austen models (data/lab_models): core.lab.lm.LMConfig defaults, seed 0, L = 64",
    "windows": list(sliding.WINDOWS),
    "stride": sliding.STRIDE,
    "eval_chars": 32768,
    "nonoverlapping": "from data/lab_lm_results.json (python -m bench.lab_lm), the same models and characters",
}

BENCH = Bench(configs, results, RECORD, check, seed=0)

if __name__ == "__main__":
    sys.exit(lab_experiments.main("sliding"))
