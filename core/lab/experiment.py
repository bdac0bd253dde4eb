"""What the lab's experiments on trained models share, torch-free: what a run of one gives back
(`Outcome`, run through core.lab.runner.LabRun like a training run: progress, Stop, the line, the
cache), their CPU budgets, and their shipped results (`data/lab_<name>_results.json`, each written
by `python -m bench.lab_<name>` with its exact configuration, seed, command, machine and times).

The experiments themselves are one module each: `probe` (does a model know where it is?),
`pairs` (which RoPE frequencies does it use?), `extend` (RoPE scaling on a trained model),
`passkey` (retrieval at a distance) and `sliding` (sliding-window against non-overlapping
evaluation); their torch side is core.lab.trained.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from core.lab import lm

# Budgets for live runs, in CPU seconds as the lab's fitted constants estimate them (core.lab.config; fitted on a
# slower machine than the one the shipped results were made on, where the bench commands measured about half as much)
EVAL_CPU_S = 10.0  # a live action that only evaluates trained models
TRAIN_CPU_S = 120.0  # a live action that trains (a NoPE depth, a fine-tune, a passkey model): measured here within 90 s
LIVE_WALL_S = 300.0  # a live run still going this long after it started is stopped (a loaded server runs slower)


@dataclass(frozen=True, eq=False)
class Outcome:
    """What one run of an experiment gives: `values`, its numbers (plain lists, dicts and floats,
    as the shipped JSON holds them; an experiment may add arrays for its figures), `losses` the
    training loss per step (empty when nothing trains), whether it was `stopped`, and its wall
    and CPU seconds (this thread's)."""

    config: Any
    values: dict[str, Any]
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0))
    stopped: bool = False
    seconds: float = 0.0
    cpu_seconds: float = math.nan
    tokens_per_s: float = 0.0

    @property
    def steps_done(self) -> int:
        return int(self.losses.size)


def results_path(name: str) -> Path:
    return lm.DATA / f"lab_{name}_results.json"


@dataclass(frozen=True)
class Shipped:
    """An experiment's shipped results: the exact `command`, its `config` and `seed`, the
    `results` (the experiment's own layout) and `meta` (machine, versions, CPU seconds, peak
    memory, date)."""

    name: str
    command: str
    config: dict[str, Any]
    seed: int
    results: dict[str, Any]
    meta: dict[str, Any]


def load(name: str, path: Path | None = None) -> Shipped:
    """The shipped results of experiment `name` (data/lab_<name>_results.json), or ValueError with a sentence."""
    p = Path(path) if path else results_path(name)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        shipped = Shipped(name, str(data["command"]), dict(data["config"]), int(data["seed"]), dict(data["results"]), dict(data.get("meta", {})))
    except FileNotFoundError:
        raise ValueError(f"The precomputed results ({p.name}) are missing: run python -m bench.lab_{name} to make them.") from None
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as err:
        raise ValueError(
            f"The precomputed results ({p.name}) cannot be read ({type(err).__name__}): run python -m bench.lab_{name} to make them again."
        ) from None
    return shipped


def write(name: str, command: str, config: dict[str, Any], seed: int, results: dict[str, Any], meta: dict[str, Any], path: Path | None = None) -> Path:
    """Write an experiment's results as `load` reads them."""
    p = Path(path) if path else results_path(name)
    p.write_text(json.dumps({"command": command, "config": config, "seed": seed, "results": results, "meta": meta}, indent=1) + "\n")
    return p


def eval_seconds(config: lm.LMConfig, lengths: tuple[int, ...]) -> float:
    """Estimated CPU seconds of perplexity at each of `lengths` (whole multiples 1, 2, 4 or 8 of
    config.train_len) on config.eval_chars characters, by the real-text lab's fitted constants."""
    one = lm.estimate(replace(config, factors=(1,))).eval_s
    total = 0.0
    for n in lengths:
        f = n // config.train_len
        total += one if f == 1 else lm.estimate(replace(config, factors=(1, f))).eval_s - one
    return total


def refuse_over(seconds: float, limit: float, what: str) -> str | None:
    """A budget's sentence: None when `seconds` (estimated CPU) is within `limit`."""
    if seconds <= limit:
        return None
    return (
        f"{what} would take about {seconds:,.0f} s of CPU (estimated); a live run here is allowed about {limit:,.0f} s on this server. "
        "Choose smaller settings, or read the precomputed results above."
    )
