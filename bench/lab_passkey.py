"""`python -m bench.lab_passkey`: passkey retrieval at a distance. The shipped results.

Trains the lab's tiny model (2 layers, width 64, 4 heads) once per scheme and training seed
(core.lab.weights.SEEDS) on the passkey task (core.lab.passkey: 16 filler tokens, 16 keys, a marker
and a query; sequences of L = 64 with the key anywhere; 300 steps of 64 sequences), then asks 256
fresh sequences at every distance from 4 to 510 (8L), each in the shortest whole number of training
lengths that holds it. Writes data/lab_passkey_results.json: seed 0's results at the top level and
every seed's under `by_seed`.

    python -m bench.lab_passkey                # run every seed and write
    python -m bench.lab_passkey --seeds 1 2    # run these seeds, keep the others' shipped results
    python -m bench.lab_passkey --check        # retrain ALiBi (seed 0) through the runner and compare
    python -m bench.lab_passkey --tiny         # write the tiny run the tests retrain (data/lab_passkey_tiny.json)
"""

from __future__ import annotations

import json
import sys

from bench import lab_experiments
from core.lab.experiment import Bench
from core.lab import lm, passkey

# A run small enough for a test (a fraction of a second) that the test retrains through the page's runner and compares with
# what this bench wrote for it: the training and asking path, seeded, reproduced end to end. Kept in a file of its own, so a
# test's run never writes, or shares a label with, the shipped results.
TINY = passkey.PasskeyConfig("alibi", steps=3, batch=4, distances=(4, 100), eval_count=8)
TINY_PATH = lm.DATA / "lab_passkey_tiny.json"


def configs(seed: int = 0) -> list[passkey.PasskeyConfig]:
    return [passkey.PasskeyConfig(scheme, seed=seed) for scheme in passkey.SCHEMES_SHOWN]


def results(outcomes) -> dict:
    return {
        "schemes": {
            o.config.scheme: {"accuracy": o.values["accuracy"], "notes": o.values["notes"], "final_train_loss": round(float(o.losses[-20:].mean()), 4)}
            for o in outcomes
        }
    }


def check(shipped, config: passkey.PasskeyConfig = passkey.PasskeyConfig("alibi")):
    """Retrain `config` (seed 0) and compare its accuracy at every distance with the shipped file's."""
    ref = shipped.results["schemes"][config.scheme]["accuracy"]

    def compare(outcomes):
        (o,) = outcomes
        return [
            (
                f"{config.label}, accuracy at distance {d}",
                o.values["accuracy"][d],
                ref[d],
                lab_experiments.seed_values(shipped, lambda r: r["schemes"][config.scheme]["accuracy"][d]),
            )
            for d in ref
        ]

    return [config], compare


def tiny() -> int:
    """write the tiny run the tests retrain (data/lab_passkey_tiny.json), instead of the shipped results"""
    (o,), meta = lab_experiments.outcomes([TINY])
    record = {"command": "python -m bench.lab_passkey --tiny", "config": {"scheme": TINY.scheme, **TINY.fields()}, "accuracy": o.values["accuracy"]}
    record.update(losses=[float(x) for x in o.losses], meta=meta)
    TINY_PATH.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {TINY_PATH}")
    return 0


RECORD = passkey.PasskeyConfig().fields()
RECORD["seeds"] = list(lab_experiments.SEEDS)  # the top-level results are seed 0's, every seed's are under by_seed

BENCH = Bench(configs, results, RECORD, check, extra={"tiny": tiny})

if __name__ == "__main__":
    sys.exit(lab_experiments.main("passkey"))
