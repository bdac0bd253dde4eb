"""A live perplexity run of the language model on /llm, through the lab's runner: the same trainers, line,
budget, time limit, Stop and result cache as every lab run (`JOB`, a core.lab.labrun.Job, drawn by
ui.lab.run.live_run). A run is one `Perplexity` config; `run` reads it with core.llm.experiments and
returns a `LiveResult`, which has what the runner reads of a result (its config, whether it stopped, its
losses, steps done and rate, for the cache and the progress bar).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from core.lab.experiment import LIVE_WALL_S
from core.lab.labrun import Job
from core.llm import experiments, model
from core.viz.llm_figures import KIND_LABELS

LENGTHS = (512, 1024, 2048, 4096, 8192, 16384)  # tokens a live run may ask for; the budget refuses what costs too much


@dataclass(frozen=True)
class Perplexity:
    """One live run: perplexity of the first `length` held-out tokens under a scaling (a name of
    experiments.SCALINGS) at `factor`. `scheme` and `label` name it on the progress bar."""

    scaling: str
    factor: float
    length: int
    scheme: str = "rope"

    @property
    def label(self) -> str:
        return f"perplexity of {self.length:,} tokens, {self.name}"

    @property
    def name(self) -> str:
        return KIND_LABELS["none"] if self.scaling == "none" else f"{KIND_LABELS.get(self.scaling, self.scaling)} ×{self.factor:g}"


@dataclass(frozen=True, eq=False)
class LiveResult:
    config: Perplexity
    result: experiments.PerplexityResult | None
    stopped: bool
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the runner's progress bar reads the last: the mean loss
    steps_done: int = 0
    tokens_per_s: float = 0.0


def budget(configs: list[Perplexity]) -> str | None:
    """Why these runs would be refused (too long, too costly for a live run), or None."""
    for c in configs:
        problem = experiments.over_budget(c.length)
        if problem:
            return problem
    return None


def estimate(config: Perplexity) -> float:
    """Seconds one run is expected to take (one thread), for its time limit and the waits shown in line."""
    return experiments.estimate_cpu_seconds(config.length)


def run(config: Perplexity, on_step: Callable | None = None, should_stop: Callable[[], bool] | None = None) -> LiveResult:
    """Read the text under the config's scaling; a stop asked for ends it with a stopped result."""
    start = time.perf_counter()
    try:
        record = experiments.scaling(config.scaling, config.factor)
        got = experiments.perplexity(config.length, record, should_stop=should_stop)
    except model.Stopped:
        return LiveResult(config, None, True)
    rate = config.length / max(time.perf_counter() - start, 1e-9)  # tokens per second of the one pass, as the bar says
    mean = float(got.nll.mean())
    if on_step is not None:
        on_step(1, mean, rate)  # the one step: the bar full, its mean loss and rate
    return LiveResult(config, got, False, losses=np.array([mean]), steps_done=1, tokens_per_s=rate)  # a run from the cache shows the same


JOB = Job(run, budget, estimate, lambda c: 1, lambda c: c.label, LIVE_WALL_S, "tokens")  # one pass a run: its bar counts one step
