"""The lab's budget: a run is estimated from its whole configuration and refused, in a
sentence, before anything trains when it is over the budget; an allowed run stops on Stop, on its
tab closing, or at its time limit, in every phase: waiting for a trainer, training, evaluating; and
where a stop is noticed (between layers, forward and backward) is counted. How fast it stops
(within 2 s) is measured by `python -m bench.lab_limits stops`, not timed here."""

from __future__ import annotations

import re
import threading
import time

import numpy as np
import pytest

from core.lab import labrun
from core.lab.config import LIMITS, RUN_BYTES, RUN_SECONDS, STEP_SECONDS, LabConfig, estimate, over_budget
from core.lab.model import NOT_EVALUATED
from core.lab.labrun import LabRun
from core.lab.trainers import Trainers

DEFAULT_SCHEMES = ("none", "sinusoidal", "learned", "rope", "alibi", "t5")
# the largest link the lab once accepted: about 5 s a step, 2.3 GB, hours per scheme
LARGEST_LINK = dict(train_len=256, steps=20_000, d_model=256, n_layers=4, n_heads=16, eval_lens=(1024,), batch=16)
# evaluation well over a second, training steps of a fraction of one: each phase lasts long enough to stop it in
SLOW_EVAL = dict(scheme="alibi", d_model=64, n_heads=4, n_layers=2, train_len=128, batch=16, eval_lens=(128, 256, 512))


def test_the_defaults_are_within_the_budget():
    configs = [LabConfig(scheme=s) for s in DEFAULT_SCHEMES]
    assert over_budget(configs) is None
    cost = estimate(LabConfig())
    assert 0.5 < cost.seconds < 60 and cost.peak_bytes < RUN_BYTES / 1.5


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        (LARGEST_LINK, "MB of memory"),  # 4 layers x 16 heads x 256²: far over the memory budget
        (dict(train_len=256, d_model=256, n_heads=2, n_layers=1, batch=64, eval_lens=(256,)), "MB of memory"),
        (dict(d_model=256, n_heads=1, n_layers=4, train_len=8, batch=192, eval_lens=(8,)), "One training step"),
        (dict(steps=20_000, d_model=128, n_heads=4, n_layers=2, train_len=64), "s of CPU (estimated); the lab allows about 180 s per run"),  # hours, in s
    ],
)
def test_over_budget_runs_are_refused_in_a_sentence(fields, words):
    configs = [LabConfig(scheme=s, **{**fields, "steps": fields.get("steps", 10)}) for s in DEFAULT_SCHEMES]
    problem = over_budget(configs)
    assert problem and words in problem and "the lab allows" in problem and problem.endswith(".")
    assert len(problem) < 400


def test_the_budget_bounds_what_one_run_can_cost():
    # whatever over_budget lets through is bounded: time, memory, and the longest single step or pass
    for fields in (dict(), dict(d_model=128, n_heads=8, n_layers=2, train_len=128, batch=32, eval_lens=(128, 256, 512), steps=200)):
        configs = [LabConfig(scheme=s, **fields) for s in DEFAULT_SCHEMES]
        if over_budget(configs) is None:
            costs = [estimate(c) for c in configs]
            assert sum(c.seconds for c in costs) <= RUN_SECONDS
            assert max(c.peak_bytes for c in costs) <= RUN_BYTES
            assert max(max(c.step_s, c.pass_s) for c in costs) <= STEP_SECONDS


def test_an_over_budget_run_is_refused_before_it_starts():
    slots = Trainers(1)
    called = []
    run = LabRun([LabConfig(scheme=s, **LARGEST_LINK) for s in DEFAULT_SCHEMES], slots=slots, train_fn=lambda *a, **k: called.append(1)).start()
    assert run.done and run.refused and not run.results and not called
    assert slots.in_progress == 0 and slots.waiting == 0 and run._thread is None  # noqa: SLF001
    assert all(p.state == "failed" and p.message == run.refused for p in run.progress)


def _started(run: LabRun, phase: str, timeout: float = 120.0) -> None:
    """Wait until the run's first scheme is in `phase`: "training" (a step done) or "evaluating" (every step done)."""
    p, deadline = run.progress[0], time.monotonic() + timeout
    while time.monotonic() < deadline:
        if p.state == "training" and (p.step >= 1 if phase == "training" else p.step >= p.steps):
            if phase == "evaluating":
                time.sleep(0.3)  # into the evaluation passes
            return
        time.sleep(0.02)
    raise AssertionError(f"never reached {phase}: {p}")


def _stopped(run: LabRun, stop) -> None:
    """Ask the run to stop; it must end (how fast is measured by `python -m bench.lab_limits stops`, not here: no timed tests)."""
    stop()
    assert run.wait(60), "the run did not end after a stop"


@pytest.mark.parametrize("how", ["stop", "tab closed"])
@pytest.mark.parametrize("phase", ["training", "evaluating"])
def test_a_run_stops_in_every_phase(phase, how):
    steps = 2 if phase == "evaluating" else 1_000  # 1,000 steps: within the budget, minutes of training
    config = LabConfig(**{**SLOW_EVAL, "steps": steps})
    assert over_budget([config]) is None and estimate(config).eval_s > 1.0  # allowed, and long enough to stop in
    watching = threading.Event()
    watching.set()
    run = LabRun([config], alive=watching.is_set, alive_every=0.2).start()
    _started(run, phase)
    _stopped(run, run.stop if how == "stop" else watching.clear)
    result = run.results[0]
    assert result.stopped and run.progress[0].state == "stopped"
    assert NOT_EVALUATED in result.notes.values()  # what was not evaluated says so
    if phase == "training":
        assert 0 < result.steps_done < steps


def test_a_run_waiting_for_a_trainer_leaves_the_line():
    slots = Trainers(0)  # nobody trains: the run waits
    watching = threading.Event()
    watching.set()
    run = LabRun([LabConfig(**{**SLOW_EVAL, "steps": 5})], alive=watching.is_set, alive_every=0.2, slots=slots).start()
    time.sleep(0.5)
    assert run.queued() is not None
    _stopped(run, watching.clear)
    assert slots.waiting == 0 and run.progress[0].state == "stopped"


def test_a_run_is_stopped_at_its_time_limit():
    run = LabRun([LabConfig(**{**SLOW_EVAL, "steps": 1_000})], wall_seconds=1.0).start()  # minutes of training without the limit
    assert run.wait(60)
    assert run.timed_out and run.results[0].stopped and "time limit" in run.progress[0].message


def test_the_server_wide_runner_uses_the_budget():
    # the page starts runs through LabRun with the process's trainers: the same refusal applies there
    assert labrun.WALL_SECONDS > 0 and LabRun([LabConfig(scheme="rope", **LARGEST_LINK)]).refused


# --- where a stop is noticed: inside a step, between layers (counted, not timed) -------------------


class StopAt:
    """should_stop() that answers True from its `n`-th call on, counting its calls."""

    def __init__(self, n: int) -> None:
        self.n, self.calls = n, 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.calls >= self.n


@pytest.mark.parametrize("layers", [1, 3])
def test_training_asks_between_layers_forward_and_backward_and_drops_the_halted_step(layers):
    from core.lab import model

    config = LabConfig(scheme="rope", n_layers=layers, steps=5, eval_lens=(32,))
    asked = StopAt(10**9)
    model.train(config, should_stop=asked)
    # per step: once before it, once before each block's forward, once as the gradient reaches each block in backward;
    # then once per evaluation pass
    passes = -(-model.EVAL_BATCH // max(1, model.EVAL_SCORES // (config.n_heads * 32**2)))
    assert asked.calls == config.steps * (1 + 2 * layers) + passes * (1 + layers)
    for k in range(2, 2 + 2 * layers):  # stop asked inside step 1: in a forward (k <= 1 + layers) or a backward pass
        result = model.train(config, should_stop=StopAt(k))
        assert result.stopped and result.steps_done == 0
    result = model.train(config, should_stop=StopAt(1 + 2 * layers + 2))  # inside step 2
    assert result.stopped and result.steps_done == 1


def test_evaluation_asks_between_layers_and_says_what_it_did_not_evaluate():
    from core.lab import model

    config = LabConfig(scheme="alibi", n_layers=2, steps=1, eval_lens=(32,))
    net = model.TinyTransformer(config, model.torch.Generator().manual_seed(0))
    accuracy, per_position, note = model.evaluate(net, config, 32, StopAt(2))  # the pass starts, its first block is not run
    assert accuracy is None and note == model.NOT_EVALUATED and np.isnan(per_position).all()
    assert net.halt is None and net.training  # left as found


def test_a_run_just_over_the_budget_reads_as_more_than_the_allowance():
    # the smallest step count refused for time: "about 3 min ... allows about 3 min" would tell the visitor nothing
    def configs(steps: int) -> list[LabConfig]:
        return [LabConfig(scheme=s, steps=steps) for s in DEFAULT_SCHEMES]

    steps = next(n for n in range(100, LIMITS["steps"], 100) if over_budget(configs(n)))
    problem = over_budget(configs(steps))
    took, allowed = re.findall(r"about ([\d,.]+ (?:s|min|h))", problem)
    assert took != allowed and allowed == f"{RUN_SECONDS:,.0f} s", problem
