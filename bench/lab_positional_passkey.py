"""`python -m bench.lab_positional_passkey`: the passkey task with its keys drawn from the filler tokens. The shipped results.

The same task, model, training and questions as bench.lab_passkey (core.lab.passkey), except that a key is one of the
first 16 fillers rather than a token of its own (core.lab.passkey.PositionalConfig): only its place right after the
marker tells it apart, so the task needs position. Writes data/lab_positional_passkey_results.json: seed 0's results
at the top level and every seed's under `by_seed`.

    python -m bench.lab_positional_passkey                # run every seed and write
    python -m bench.lab_positional_passkey --seeds 1 2    # run these seeds, keep the others' shipped results
    python -m bench.lab_positional_passkey --check        # retrain ALiBi (seed 0) through the runner and compare
"""

from __future__ import annotations

import functools
import sys

from bench import lab_experiments
from bench.lab_passkey import check, results
from core.lab import passkey
from core.lab.experiment import Bench


def configs(seed: int = 0) -> list[passkey.PositionalConfig]:
    return [passkey.PositionalConfig(scheme, seed=seed) for scheme in passkey.SCHEMES_SHOWN]


RECORD = passkey.PositionalConfig().fields()
RECORD["seeds"] = list(lab_experiments.SEEDS)  # the top-level results are seed 0's, every seed's are under by_seed

BENCH = Bench(configs, results, RECORD, functools.partial(check, config=passkey.PositionalConfig("alibi")))

if __name__ == "__main__":
    sys.exit(lab_experiments.main("positional_passkey"))
