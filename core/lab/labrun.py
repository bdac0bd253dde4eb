"""A lab run on the page: `LabRun`, the configs of one run trained one after the other in a
background thread (progress, Stop, the watcher gone, the server's line, the time limit, the cache),
and `Job`, what one kind of run needs to start (the synthetic tasks' `SYNTHETIC`, the real text's
`LM`, `experiment_job(record)`). Torch-free: it enters torch through core.lab.entry.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.lab import entry, lm
from core.lab.cache import ResultCache
from core.lab.config import WALL_SECONDS, estimate, over_budget
from core.lab.experiment import LIVE_WALL_S, Experiment
from core.lab.trainers import Outlook, Refused, Ticket, Trainers


class RunConfig(Protocol):
    """What a LabRun needs of a config (LabConfig, LMConfig, an experiment's): hashable and equal by
    value (the cache's key), and the scheme its progress bar is named by. What a bar counts and its
    other name are the Job's (`steps`, `label`), not the config's."""

    @property
    def scheme(self) -> str: ...

    def __hash__(self) -> int: ...


class RunResult(Protocol):
    """What a LabRun and the cache need of what a run gives (LabResult, LMResult, an experiment's
    Outcome): its config, whether it was stopped, its training losses (empty when nothing trained)
    and the pace it went at."""

    config: Any
    stopped: bool
    losses: Any
    tokens_per_s: float

    @property
    def steps_done(self) -> int: ...

# A run's time limit follows its own estimate: CAP_FACTOR times what it is estimated to take, times how
# much slower than estimated this server's recent runs were (Trainers.pace, when above 1), at least
# CAP_FLOOR_S, at most the limit its page sets (LabRun.wall_seconds). The estimates are for one free
# core and came out 0.5 to 0.8 of the measured time on an idle machine (the shipped real-text runs);
# a server busy with a room's redraws and a second trainer runs slower, so three times the estimate
# leaves a run that is merely slow time to finish, and a run that hangs holds its trainer minutes, not
# the page's whole limit (900 s for the real-text comparison). On a server several times slower than
# the estimates (a saturated one: docs/deploy.md measured 6 times), three times the estimate alone
# stopped most runs short; the pace, learnt from the runs that ended and those stopped at their limit,
# lets the next ones finish.
CAP_FACTOR = 3.0
CAP_FLOOR_S = 30.0


@dataclass
class Progress:
    """The live state of one scheme's run, for a progress bar."""

    scheme: str
    steps: int
    label: str = ""  # what the bar names, when not the scheme's label (an experiment's config)
    step: int = 0
    loss: float = float("nan")
    tokens_per_s: float = 0.0
    state: str = "waiting"  # waiting, loading (torch, once per server), training, done, cached, stopped, failed
    message: str = ""


@dataclass
class LabRun:
    """A comparison: the configs trained one after the other in one background thread.

    When `alive()` (a page passes a check of its session) turns False, or `stop()` is called, the current run stops at
    its next step and the rest are skipped. Finished results go into `cache` and are taken from it. With `slots` (a
    `Trainers`), the thread waits in line for a slot before it trains and holds it until it ends. A run with nothing left
    to train, one over the lab's `budget` and one the trainers refuse are done at once by `start()`, without a thread or
    a slot (the last two with every scheme "failed" and the sentence why).

    A run still going `cap` seconds after it started training (torch loaded, its slot taken) is stopped (`timed_out`),
    whatever it is doing: training and evaluation both ask `should_stop` at least once a second. The cap follows the
    estimate of the configs left to train: CAP_FACTOR times it, times the pace of `slots` when above 1 (set when the run
    joins the line and again when it starts training), at least CAP_FLOOR_S, at most `wall_seconds`."""

    configs: list[RunConfig]
    cache: ResultCache | None = None
    alive: Callable[[], bool] = lambda: True
    alive_every: float = 1.0  # seconds between two asks of alive()
    slots: Trainers | None = None
    train_fn: Callable[..., RunResult] | None = None  # None: entry.train (the toy tasks)
    wall_seconds: float = WALL_SECONDS
    budget: Callable[[list], str | None] = over_budget  # why a run is refused, or None (the real-text task has its own)
    steps: Callable[[Any], int] = lambda config: config.steps  # the steps a config's progress bar counts (LabConfig's and LMConfig's training steps)
    label: Callable[[Any], str] = lambda config: ""  # what a config's bar is named, when not its scheme's label
    estimate: Callable[[Any], float] | None = None  # estimated seconds of one config, for the time limit and the waits shown
    visitor: Hashable | None = None  # who asked (a browser across its tabs): one trainer at a time each
    address: Hashable | None = None  # the network address they asked from: a few places each
    progress: list[Progress] = field(default_factory=list)
    results: dict[int, RunResult] = field(default_factory=dict)
    started: float = 0.0
    finished: float = 0.0

    def __post_init__(self) -> None:
        self.progress = [Progress(c.scheme, self.steps(c), self.label(c)) for c in self.configs]
        self._stop = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._ticket: Ticket | None = None
        self._checked, self._alive = 0.0, True
        self._deadline = float("inf")  # set when training starts
        self._train_start = 0.0
        self._trained: list[int] = []  # configs this run trained to the end (for its pace)
        self.timed_out = False
        self.refused = self.budget(self.configs)
        self.estimated_s = 0.0  # estimated seconds of the configs left to train once the cache has given what it has
        self.cap = self.wall_seconds
        self.pace = 1.0  # the server's pace the time limit was set with (1 or more)

    def start(self) -> LabRun:
        if self.started:
            raise RuntimeError("A LabRun starts once.")
        self.started = time.monotonic()
        if self.refused:  # over budget: refused before anything trains
            self._set("failed", self.refused)
            self._finish()
            return self
        for i, config in enumerate(self.configs):
            self._take_cached(i, config)
        if len(self.results) == len(self.configs):  # everything cached: nothing to train, nothing to wait for
            self._finish()
            return self
        if self.estimate is not None:
            self.estimated_s = sum(float(self.estimate(c)) for i, c in enumerate(self.configs) if i not in self.results)
            self._set_cap()
        if entry.uses_torch(self.train_fn or entry.train):
            entry.warm_model()  # torch loads while the run waits in line
        if self.slots is not None:
            try:
                self._ticket = self.slots.join(self.visitor, self.estimated_s, self.cap, self.address)  # in line now, in the order Train was pressed
            except Refused as refusal:
                self.refused = str(refusal)
                self._set("failed", self.refused)
                self._finish()
                return self
        self._thread = threading.Thread(target=self._work, name="lab-run", daemon=True)
        try:
            self._thread.start()
        except BaseException:
            if self._ticket is not None:
                self.slots.release(self._ticket)
            raise
        _LIVE[id(self)] = self
        return self

    def stop(self) -> None:
        """Stop training at the next step, or leave the line at once if still waiting for a slot."""
        self._stop.set()
        if self._ticket is not None:
            self.slots.cancel(self._ticket)

    @property
    def running(self) -> bool:
        """Started and not finished: training, or waiting for a slot."""
        return bool(self.started) and not self._done.is_set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def queued(self) -> tuple[int, int] | None:
        """While waiting for a slot: (place in line, 0 = next; runs training now); else None."""
        outlook = self.outlook()
        return None if outlook is None else (outlook.place, outlook.in_progress)

    def outlook(self) -> Outlook | None:
        """While waiting for a slot: its place, the runs training, the estimated wait; else None."""
        if self._ticket is None or self._done.is_set():
            return None
        return self.slots.outlook(self._ticket)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the run to end; True when it has finished."""
        if not self.started:
            return False
        return self._done.wait(timeout)

    def _should_stop(self) -> bool:
        if self._stop.is_set():
            return True
        now = time.monotonic()
        if now > self._deadline:
            self.timed_out = True
            self._stop.set()
            return True
        if now - self._checked >= self.alive_every:
            self._checked, self._alive = now, bool(self.alive())
            if not self._alive:
                self._stop.set()
        return self._stop.is_set()

    def _take_cached(self, i: int, config: RunConfig) -> bool:
        cached = self.cache.get(config) if self.cache is not None else None
        if cached is None:
            return False
        p = self.progress[i]
        self.results[i] = cached
        last = float(cached.losses[-1]) if cached.losses.size else float("nan")
        p.step, p.loss, p.tokens_per_s, p.state = cached.steps_done, last, cached.tokens_per_s, "cached"
        return True

    def _finish(self) -> None:
        self.finished = time.monotonic()
        self._done.set()

    def _work(self) -> None:
        try:
            if self._ticket is not None and not self.slots.wait_turn(self._ticket, self._should_stop, every=min(max(self.alive_every, 0.05), 1.0)):
                for i, p in enumerate(self.progress):
                    if i not in self.results:
                        p.state = "stopped"  # left the line: stopped, or nobody watching
                return
            self._train_all()
        except Exception as err:  # a failure is shown, never raised into the server  # noqa: BLE001
            for p in self.progress:
                if p.state in ("waiting", "loading", "training"):
                    p.state, p.message = "failed", f"{type(err).__name__}: {err}"
        finally:
            if self._ticket is not None:
                self.slots.release(self._ticket, self._pace())  # even after an exception: the next in line goes on
            self._finish()

    def _pace(self) -> float | None:
        """Measured / estimated seconds of this run's training: when it trained every config it had
        to (not stopped, nothing failed, none taken from the cache meanwhile), or when its time limit
        stopped it (the estimate then counts the configs it finished and the part of the one it was
        training that it got through, by steps); else None (stopped by hand or by a closed tab: its time says nothing)."""
        if self.estimate is None or not self._train_start:
            return None
        estimated = sum(float(self.estimate(self.configs[i])) for i in self._trained)
        if self.timed_out:
            cut = [(i, p) for i, p in enumerate(self.progress) if i not in self._trained and i in self.results and p.steps and p.step]
            estimated += sum(float(self.estimate(self.configs[i])) * min(1.0, p.step / p.steps) for i, p in cut)
        elif not self._trained or self.stopped or any(p.state not in ("done", "cached") for p in self.progress):
            return None
        return (time.monotonic() - self._train_start) / estimated if estimated > 0 else None

    def _set_cap(self) -> None:
        """The time limit from the estimate and the server's pace now (set when the run joins the line,
        and again when it starts training: the runs ahead of it may have shown the server slower)."""
        self.pace = max(1.0, self.slots.pace) if self.slots is not None else 1.0
        self.cap = min(self.wall_seconds, max(CAP_FLOOR_S, CAP_FACTOR * self.estimated_s * self.pace))
        if self._ticket is not None:
            self._ticket.cap = self.cap

    def _limit(self) -> str:
        """The run's time limit, in words."""
        if self.estimate is None or self.cap >= self.wall_seconds:
            return f"this server's time limit of {self.cap:,.0f} s per run"
        slower = f" × {self.pace:.1f}, as much slower as this server's recent runs were" if self.pace > 1.0 else ""
        return f"this run's time limit of {self.cap:,.0f} s ({CAP_FACTOR:g} × its estimated {self.estimated_s:,.0f} s{slower})"

    def _set(self, state: str, message: str) -> None:
        for i, p in enumerate(self.progress):
            if i not in self.results:
                p.state, p.message = state, message

    def _train_all(self) -> None:
        train_fn = self.train_fn or entry.train
        if entry.uses_torch(train_fn) and not entry.model_loaded():
            self._set("loading", "loading torch, once per server: about 20 s")
            if not entry.load_model(self._should_stop):  # stopped while torch loads: ends now, the import goes on
                self._set("stopped", "")
                return
            self._set("waiting", "")
        self._train_start = time.monotonic()
        if self.estimate is not None:
            self._set_cap()
        self._deadline = self._train_start + self.cap  # the time limit counts from the start of training
        for i, config in enumerate(self.configs):
            if i in self.results:
                continue  # taken from the cache by start()
            p = self.progress[i]
            if self._should_stop():
                p.state = "stopped"
                if self.timed_out:
                    p.message = f"not started: {self._limit()} was reached"
                continue
            if self._take_cached(i, config):  # another session may have finished it meanwhile
                continue
            p.state = "training"

            def on_step(step: int, loss: float, rate: float, p: Progress = p) -> None:
                p.step, p.loss, p.tokens_per_s = step, loss, rate

            try:
                result = train_fn(config, on_step=on_step, should_stop=self._should_stop)
            except Exception as err:  # a failed run is shown, never raised into the server  # noqa: BLE001
                p.state, p.message = "failed", f"{type(err).__name__}: {err}"
                continue
            self.results[i] = result
            p.state = "stopped" if result.stopped else "done"
            if not result.stopped:
                self._trained.append(i)
            if self.timed_out:
                p.message = f"stopped at {self._limit()}"
            if self.cache is not None:
                self.cache.put(result)


@dataclass(frozen=True)
class Job:
    """What one kind of lab run is, all a page needs to start one: its `train_fn` (config,
    on_step, should_stop) -> result, its `budget` (why configs are refused, or None), `estimate`
    (seconds of one config: its time limit and the waits shown), `steps` (what a config's progress
    bar counts), `label` (a bar's name when not the scheme's), `wall_seconds` (the most a run may
    take) and `unit` (what its progress counts per second)."""

    train_fn: Callable[..., Any]
    budget: Callable[[list], str | None]
    estimate: Callable[[Any], float]
    steps: Callable[[Any], int]
    label: Callable[[Any], str]
    wall_seconds: float
    unit: str

    def start(self, configs: list, **where: Any) -> LabRun:
        """A started LabRun of `configs`; `where` holds the rest (cache, alive, slots, visitor, address)."""
        return LabRun(
            configs, train_fn=self.train_fn, budget=self.budget, estimate=self.estimate, steps=self.steps, label=self.label,
            wall_seconds=self.wall_seconds, **where,
        ).start()  # fmt: skip


SYNTHETIC = Job(entry.train, over_budget, lambda c: estimate(c).seconds, lambda c: c.steps, lambda c: "", WALL_SECONDS, "tokens")  # the toy tasks
LM = Job(entry.train_lm, lm.over_budget, lambda c: lm.estimate(c).seconds, lambda c: c.steps, lambda c: "", lm.LM_WALL_SECONDS, "characters")


def experiment_job(experiment: Experiment, run: Callable[..., Any] = entry.run_experiment) -> Job:
    """An experiment's live run: by default through entry.run_experiment (an experiment on trained models, torch loaded
    first), or `run` (the language model's records, which load their own)."""
    return Job(run, experiment.over_budget, experiment.estimate, experiment.steps, lambda c: c.label, LIVE_WALL_S, experiment.unit)


_LIVE: weakref.WeakValueDictionary[int, LabRun] = weakref.WeakValueDictionary()  # runs started in this process (LabRun.start)


def stop_live_runs(wait: float = 5.0) -> None:
    """Stop every run still training in this process and give them `wait` seconds to end (after a
    test that may have started one: a run left training holds a trainer and a core)."""
    runs = [run for run in list(_LIVE.values()) if run.running]
    for run in runs:
        run.stop()
    end = time.monotonic() + wait
    for run in runs:
        run.wait(max(0.0, end - time.monotonic()))


@atexit.register
def _at_exit(wait: float = 5.0) -> None:
    """When the process exits (a server shut down, a test session ending) with runs still training
    in their daemon threads: stop them and give them `wait` seconds to end. A thread still inside
    torch while the interpreter finalises aborts the process ("terminate called without an active
    exception"), and the exit status with it."""
    stop_live_runs(wait)
    if entry._MODEL_LOADER is not None:  # an import of torch cut off by the interpreter's end can abort it the same way
        entry._MODEL_LOADER.join(30.0)

