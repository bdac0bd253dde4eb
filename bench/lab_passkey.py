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
from core.lab.experiment import Bench
from core.lab import passkey


# A run small enough for a test (a fraction of a second) that the test retrains through the page's runner and compares
# with what this bench shipped for it: the training and asking path, seeded, reproduced end to end.
TINY = passkey.PasskeyConfig("alibi", steps=3, batch=4, distances=(4, 100), eval_count=8)


def label(config: passkey.PasskeyConfig) -> str:
    """A run's name in the CPU record: the tiny run's own, since its page label is the full ALiBi run's."""
    return f"{config.label}, tiny test run" if config == TINY else config.label


def configs() -> list[passkey.PasskeyConfig]:
    return [passkey.PasskeyConfig(scheme) for scheme in passkey.SCHEMES_SHOWN] + [TINY]


def results(outcomes) -> dict:
    tiny = next(o for o in outcomes if o.config == TINY)
    return {
        "schemes": {
            o.config.scheme: {"accuracy": o.values["accuracy"], "notes": o.values["notes"], "final_train_loss": round(float(o.losses[-20:].mean()), 4)}
            for o in outcomes
            if o.config != TINY
        },
        "tiny": {"config": {"scheme": TINY.scheme, **TINY.fields()}, "accuracy": tiny.values["accuracy"], "losses": [float(x) for x in tiny.losses]},
    }


def check(shipped):
    ref = shipped.results["schemes"]["alibi"]["accuracy"]

    def compare(outcomes):
        (o,) = outcomes
        return [(f"ALiBi, accuracy at distance {d}", o.values["accuracy"][d], ref[d]) for d in ref]

    return [passkey.PasskeyConfig("alibi")], compare


RECORD = passkey.PasskeyConfig().fields()

BENCH = Bench(configs, results, RECORD, check, seed=0, label=label)

if __name__ == "__main__":
    sys.exit(lab_experiments.main("passkey"))
