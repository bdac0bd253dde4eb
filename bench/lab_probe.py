"""`python -m bench.lab_probe`: does a model know where it is? The shipped probe results.

Probes every shipped Austen model (NoPE, sinusoidal, learned, RoPE, T5, ALiBi; 2 layers) and NoPE
trained at depth 1 and 4 (the same configuration otherwise, trained here through the runner), for
each training seed (core.lab.weights.SEEDS: the shipped models of that seed, the deeper and shallower
NoPE trained with it): a closed-form ridge probe of the absolute position from the residual stream at every
layer boundary, fitted on the first 256 held-out windows of 64 characters and scored on the next
256 (core.lab.probe); the attention maps of NoPE and T5 (2 layers) averaged over 64 windows, seed 0's written
whole and every seed's distance of NoPE's from T5's and from even attention (`maps`). Writes
data/lab_probe_results.json (seed 0's results at the top level, every seed's under `by_seed`) and
data/lab_probe_attention.npz.

    python -m bench.lab_probe                # run every seed and write
    python -m bench.lab_probe --seeds 1 2    # run these seeds, keep the others' shipped results (and seed 0's maps)
    python -m bench.lab_probe --check        # retrain NoPE at depth 1 (seed 0) through the runner and compare with the shipped numbers
"""

from __future__ import annotations

import sys

import numpy as np

from bench import lab_experiments
from core.lab.experiment import Bench
from core.lab import probe

MAPS = {"none": probe.DEPTHS, "t5": (2,)}  # whose attention maps ship: NoPE at every depth, T5 beside it


def configs(seed: int = 0) -> list[probe.ProbeConfig]:
    shipped = [probe.ProbeConfig(scheme, seed=seed) for scheme in probe.COMPARED]
    return shipped + [probe.ProbeConfig("none", n_layers=n, seed=seed) for n in probe.DEPTHS if n != 2]


def results(outcomes) -> dict:
    att = {(o.config.scheme, o.config.n_layers): o.values["attention"] for o in outcomes}
    return {
        "maps": probe.map_distances(att["none", 2], att["t5", 2]),  # every seed's, so the caption compares beyond the spread
        "models": [
            {
                "scheme": o.config.scheme,
                "n_layers": o.config.n_layers,
                "shipped_model": o.config.shipped,
                "r2": o.values["r2"],
                "mae": o.values["mae"],
                "entropy": o.values["entropy"],
                **({"perplexity": o.values["perplexity"], "final_train_loss": round(float(o.losses[-20:].mean()), 4)} if "perplexity" in o.values else {}),
            }
            for o in outcomes
        ]
    }


def write_maps(outcomes) -> None:
    if not outcomes:
        return  # seed 0 was not run: its shipped maps stay
    maps = {
        f"{o.config.scheme}_{o.config.n_layers}": o.values["attention"].astype(np.float16)
        for o in outcomes
        if o.config.n_layers in MAPS.get(o.config.scheme, ())
    }
    np.savez_compressed(probe.ATTENTION_PATH, **maps)
    print(f"wrote {probe.ATTENTION_PATH} ({', '.join(maps)})")


def check(shipped):
    config = probe.ProbeConfig("none", n_layers=1)
    row = next(m for m in shipped.results["models"] if m["scheme"] == "none" and m["n_layers"] == 1)

    def compare(outcomes):
        (o,) = outcomes

        def seeds(what, i):
            return lab_experiments.seed_values(shipped, lambda r: next(m for m in r["models"] if (m["scheme"], m["n_layers"]) == ("none", 1))[what][i])

        return [(f"NoPE depth 1, R² layer {i}", o.values["r2"][i], row["r2"][i], seeds("r2", i)) for i in range(len(row["r2"]))] + [
            (f"NoPE depth 1, ppl @ {n}", o.values["perplexity"][n], row["perplexity"][n], seeds("perplexity", n)) for n in row["perplexity"]
        ]

    return [config], compare


RECORD = {
    "model": "core.lab.lm.LMConfig defaults (2 layers; NoPE also 1 and 4), 750 steps, each training seed",
    "seeds": list(lab_experiments.SEEDS),
    "probe": {"windows": probe.PROBE_WINDOWS, "window_len": 64, "fit": "windows 0-255", "score": "windows 256-511", "ridge": probe.RIDGE},
    "attention_maps": "mean over the first 64 held-out windows, data/lab_probe_attention.npz (float16), keys scheme_layers",
}

BENCH = Bench(configs, results, RECORD, check, after=write_maps)

if __name__ == "__main__":
    sys.exit(lab_experiments.main("probe"))
