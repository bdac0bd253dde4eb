"""`python -m bench.lab_passkey`: passkey retrieval at a distance. The shipped results.

Trains the lab's tiny model (2 layers, width 64, 4 heads) once per scheme on the passkey task
(core.lab.passkey: 16 filler tokens, 16 keys, a marker and a query; sequences of L = 64 with the
key anywhere; 300 steps of 64 sequences, seed 0), then asks 256 fresh sequences at every distance
from 4 to 510 (8L), each in the shortest whole number of training lengths that holds it. Writes
data/lab_passkey_results.json.

    python -m bench.lab_passkey            # run and write
    python -m bench.lab_passkey --check    # retrain ALiBi through the runner and compare
"""

from __future__ import annotations

import sys

from bench import lab_experiments
from core.lab import passkey


def configs() -> list[passkey.PasskeyConfig]:
    return [passkey.PasskeyConfig(scheme) for scheme in passkey.SCHEMES_SHOWN]


def results(outcomes) -> dict:
    return {
        "schemes": {
            o.config.scheme: {"accuracy": o.values["accuracy"], "notes": o.values["notes"], "final_train_loss": round(float(o.losses[-20:].mean()), 4)}
            for o in outcomes
        }
    }


def check(shipped):
    ref = shipped.results["schemes"]["alibi"]["accuracy"]

    def compare(outcomes):
        (o,) = outcomes
        return [(f"ALiBi, accuracy at distance {d}", o.values["accuracy"][d], ref[d]) for d in ref]

    return [passkey.PasskeyConfig("alibi")], compare


RECORD = passkey.PasskeyConfig().fields()

if __name__ == "__main__":
    sys.exit(lab_experiments.main("passkey", __doc__, configs, results, RECORD, 0, check))
