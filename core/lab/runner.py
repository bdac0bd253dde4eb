"""Running lab runs: in a background thread per session, with a cache of finished results and a
server-wide cap on runs training at once. Torch-free: `core.lab.model` (and so torch) is imported
by `load_model`, in a thread of its own, once per process: when the lab page is first opened
(`warm_model`) or at the latest when a run starts; a run waiting for it can be stopped.

`LabRun` is what a page starts, polls and stops; `ResultCache` keeps finished results by
configuration; `Trainers` is the cap (at most `PEE_LAB_MAX_RUNS`, default 2, train; the others
wait in line, first come first served).
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from core.lab.config import WALL_SECONDS, LabConfig, LabResult, over_budget

MAX_RUNS_ENV = "PEE_LAB_MAX_RUNS"  # how many runs may train at once in one server process
DEFAULT_MAX_RUNS = 2  # the hosted demo's two cores: one run each (a run uses one torch thread)


_MODEL_READY = threading.Event()  # set when the import of core.lab.model has ended (well or not)
_MODEL_LOCK = threading.Lock()
_MODEL_LOADER: threading.Thread | None = None
_MODEL_ERROR: list[BaseException] = []


def _import_model(ready: threading.Event, errors: list[BaseException]) -> None:
    """The import thread's body. It is handed the event and error list it reports to when it
    starts, not looked up when it ends: an import still running must not mark a later one done."""
    try:
        import core.lab.model  # noqa: F401  torch, and model's warm-up at import
    except BaseException as err:  # noqa: BLE001  kept for the runs that wait for it, which report it
        errors.append(err)
    finally:
        ready.set()


def warm_model() -> threading.Event:
    """Start importing `core.lab.model` (torch and its warm-up: 10-20 s on a busy 2-core machine,
    once per process) in a background thread, unless it has started already; the event is set when
    it has ended. Cheap and idempotent: the lab page calls it on every run, so torch is usually
    loaded by the time someone presses Train, and a server nobody trains on never loads it."""
    global _MODEL_LOADER
    with _MODEL_LOCK:
        if _MODEL_LOADER is None:
            _MODEL_LOADER = threading.Thread(target=_import_model, args=(_MODEL_READY, _MODEL_ERROR), name="lab-model-import", daemon=True)
            _MODEL_LOADER.start()
    return _MODEL_READY


def model_loaded() -> bool:
    return _MODEL_READY.is_set() and not _MODEL_ERROR


def load_model(should_stop: Callable[[], bool] = lambda: False, every: float = 0.2) -> bool:
    """Wait for `core.lab.model` to be imported (starting the import if need be), asking
    `should_stop()` every `every` seconds: True when it is ready, False when stopped first (the
    import goes on in its own thread, for the next run). An import that failed is raised."""
    ready = warm_model()
    while not ready.wait(every):
        if should_stop():
            return False
    if _MODEL_ERROR:
        raise _MODEL_ERROR[0]
    return True


def train(config: LabConfig, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None) -> LabResult:
    """Train the config's model (torch, one CPU thread) and evaluate it at every evaluation length.
    on_step(step, loss, tokens_per_s) is called after each step; should_stop() is asked before
    each step, and a stopped run is still evaluated (stopped=True). Deterministic for a seed."""
    from core.lab import model  # torch is imported here, when a run starts

    return model.train(config, on_step=on_step, should_stop=should_stop)


def train_lm(config, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None):
    """Train and evaluate one real-text run (a core.lab.lm.LMConfig; torch, one thread, imported
    here when a run starts): see core.lab.model.train_lm. The real-text LabRun's `train_fn`."""
    from core.lab import model

    return model.train_lm(config, on_step=on_step, should_stop=should_stop)


def run_experiment(config, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None):
    """Run one experiment on trained models (a config of core.lab.probe, pairs, extend, sliding or
    passkey; torch, imported here when a run starts): see core.lab.trained.run. Its LabRun's `train_fn`."""
    from core.lab import trained

    return trained.run(config, on_step=on_step, should_stop=should_stop)


def _uses_torch(train_fn: Callable[..., object]) -> bool:
    return train_fn in (train, train_lm, run_experiment)


class ResultCache:
    """Finished results by configuration, at most `max_entries` (the oldest used goes first);
    safe to share between sessions' threads."""

    def __init__(self, max_entries: int = 48) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict[LabConfig, LabResult] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, config: LabConfig) -> LabResult | None:
        with self._lock:
            result = self._items.get(config)
            if result is not None:
                self._items.move_to_end(config)
            return result

    def put(self, result: LabResult) -> None:
        if result.stopped:
            return  # only finished runs are worth keeping
        with self._lock:
            self._items[result.config] = result
            self._items.move_to_end(result.config)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


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


def max_runs_from_env(environ: Mapping[str, str] | None = None) -> int:
    """The cap on runs training at once: the whole number in PEE_LAB_MAX_RUNS (at least 1), or
    DEFAULT_MAX_RUNS when it is unset; a value that is not a whole number of at least 1 is logged
    and the default used (a typo in a deployment must not break the page)."""
    raw = (os.environ if environ is None else environ).get(MAX_RUNS_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_RUNS
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        logging.getLogger(__name__).warning("%s=%r is not a whole number of at least 1; using %d.", MAX_RUNS_ENV, raw[:40], DEFAULT_MAX_RUNS)
        return DEFAULT_MAX_RUNS
    return value


class Ticket:
    """One run's place in a `Trainers` line, then its slot."""

    __slots__ = ()


class Trainers:
    """A cap on the runs that train at once, shared by every session of a server.

    At most `max_runs` tickets hold a slot; the others wait in line, first come first served:
    `join()` takes a place at the end, `wait_turn()` blocks until the ticket is first in line and
    a slot is free (then it holds the slot) or until `should_stop()` says the run is not wanted
    any more (then it leaves the line). `cancel()` takes a ticket out of the line at once,
    `release()` frees its slot; both may be called more than once. Thread-safe."""

    def __init__(self, max_runs: int = DEFAULT_MAX_RUNS) -> None:
        if isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 0:
            raise ValueError(f"max_runs must be a whole number of at least 0, got {max_runs!r}.")
        self.max_runs = max_runs
        self.peak = 0  # most slots ever held at once
        self._cond = threading.Condition()
        self._line: deque[Ticket] = deque()
        self._active: set[Ticket] = set()

    def join(self) -> Ticket:
        ticket = Ticket()
        with self._cond:
            self._line.append(ticket)
        return ticket

    def wait_turn(self, ticket: Ticket, should_stop: Callable[[], bool] = lambda: False, every: float = 0.5) -> bool:
        """Block until `ticket` holds a slot (True), or until it is cancelled or should_stop()
        turns True (False, out of the line). should_stop is asked every `every` seconds and
        outside the lock (it may ask a server whether a session is still there)."""
        while True:
            if should_stop():
                self.cancel(ticket)
                return False
            with self._cond:
                if ticket in self._active:
                    return True
                if ticket not in self._line:
                    return False  # cancelled
                if self._line[0] is ticket and len(self._active) < self.max_runs:
                    self._line.popleft()
                    self._active.add(ticket)
                    self.peak = max(self.peak, len(self._active))
                    self._cond.notify_all()  # the next in line may have a free slot too
                    return True
                self._cond.wait(every)

    def acquire(self, should_stop: Callable[[], bool] = lambda: False, every: float = 0.5) -> Ticket | None:
        """join() then wait_turn(): a ticket holding a slot, or None."""
        ticket = self.join()
        return ticket if self.wait_turn(ticket, should_stop, every) else None

    def cancel(self, ticket: Ticket) -> bool:
        """Take a waiting ticket out of the line; True if it was waiting (a ticket holding a slot keeps it)."""
        with self._cond:
            if ticket not in self._line:
                return False
            self._line.remove(ticket)
            self._cond.notify_all()
            return True

    def release(self, ticket: Ticket) -> None:
        """Free the ticket's slot (or its place in line) for the next in line."""
        with self._cond:
            self._active.discard(ticket)
            if ticket in self._line:
                self._line.remove(ticket)
            self._cond.notify_all()

    def status(self, ticket: Ticket) -> tuple[int, int] | None:
        """(place in line, 0 = next; runs holding a slot) while the ticket waits, else None."""
        with self._cond:
            if ticket not in self._line:
                return None
            return self._line.index(ticket), len(self._active)

    @property
    def in_progress(self) -> int:
        with self._cond:
            return len(self._active)

    @property
    def waiting(self) -> int:
        with self._cond:
            return len(self._line)


_trainers: Trainers | None = None
_trainers_lock = threading.Lock()


def trainers() -> Trainers:
    """The process-wide cap on runs training at once (PEE_LAB_MAX_RUNS, read once)."""
    global _trainers
    with _trainers_lock:
        if _trainers is None:
            _trainers = Trainers(max_runs_from_env())
        return _trainers


@dataclass
class LabRun:
    """A comparison: the configs trained one after the other in one background thread.

    `alive()` says whether whoever watches the run is still there (a page passes a check of its
    session); when it turns False, or `stop()` is called, the current run stops at its next step
    and the rest are skipped. Finished results go into `cache` and are taken from it: configs
    already there are taken by `start()` itself, and a run with nothing left to train is done
    at once, without a thread or a slot. With `slots` (a `Trainers`), the thread waits in line
    for a slot before it trains, holds it until it ends, and leaves the line when stopped or
    when `alive()` turns False while it waits. `train_fn` replaces `train` (tests).

    A run over the lab's budget (`budget`, by default `core.lab.config.over_budget`) is refused by `start()`: it is done
    at once, every scheme "failed" with the sentence saying why, without a thread or a slot. A run
    still going `wall_seconds` after it started training is stopped (`timed_out`), whatever it
    is doing: training and evaluation both ask `should_stop` at least once a second."""

    configs: list[LabConfig]
    cache: ResultCache | None = None
    alive: Callable[[], bool] = lambda: True
    alive_every: float = 1.0  # seconds between two asks of alive()
    slots: Trainers | None = None
    train_fn: Callable[..., LabResult] | None = None
    wall_seconds: float = WALL_SECONDS
    budget: Callable[[list], str | None] = over_budget  # why a run is refused, or None (the real-text task has its own)
    progress: list[Progress] = field(default_factory=list)
    results: dict[int, LabResult] = field(default_factory=dict)
    started: float = 0.0
    finished: float = 0.0

    def __post_init__(self) -> None:
        self.progress = [Progress(c.scheme, getattr(c, "progress_steps", c.steps), getattr(c, "label", "")) for c in self.configs]
        self._stop = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._ticket: Ticket | None = None
        self._checked, self._alive = 0.0, True
        self._deadline = float("inf")  # set when training starts
        self.timed_out = False
        self.refused = self.budget(self.configs)

    def start(self) -> LabRun:
        if self.started:
            raise RuntimeError("A LabRun starts once.")
        self.started = time.monotonic()
        if self.refused:  # over budget: refused before anything trains
            for p in self.progress:
                p.state, p.message = "failed", self.refused
            self._finish()
            return self
        for i, config in enumerate(self.configs):
            self._take_cached(i, config)
        if len(self.results) == len(self.configs):  # everything cached: nothing to train, nothing to wait for
            self._finish()
            return self
        if _uses_torch(self.train_fn or train):
            warm_model()  # torch loads while the run waits in line
        if self.slots is not None:
            self._ticket = self.slots.join()  # in line now, in the order Train was pressed
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
        if self._ticket is None or self._done.is_set():
            return None
        return self.slots.status(self._ticket)

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

    def _take_cached(self, i: int, config: LabConfig) -> bool:
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
            self._deadline = time.monotonic() + self.wall_seconds  # the time limit counts from the start of training
            self._train_all()
        except Exception as err:  # a failure is shown, never raised into the server  # noqa: BLE001
            for p in self.progress:
                if p.state in ("waiting", "loading", "training"):
                    p.state, p.message = "failed", f"{type(err).__name__}: {err}"
        finally:
            if self._ticket is not None:
                self.slots.release(self._ticket)  # even after an exception: the next in line goes on
            self._finish()

    def _set(self, state: str, message: str) -> None:
        for i, p in enumerate(self.progress):
            if i not in self.results:
                p.state, p.message = state, message

    def _train_all(self) -> None:
        train_fn = self.train_fn or train
        if _uses_torch(train_fn) and not model_loaded():
            self._set("loading", "loading torch, once per server: about 20 s")
            if not load_model(self._should_stop):  # stopped while torch loads: ends now, the import goes on
                self._set("stopped", "")
                return
            self._set("waiting", "")
        for i, config in enumerate(self.configs):
            if i in self.results:
                continue  # taken from the cache by start()
            p = self.progress[i]
            if self._should_stop():
                p.state = "stopped"
                if self.timed_out:
                    p.message = f"not started: this server's time limit of {self.wall_seconds:,.0f} s per run was reached"
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
            if self.timed_out:
                p.message = f"stopped at this server's time limit of {self.wall_seconds:,.0f} s per run"
            if self.cache is not None:
                self.cache.put(result)


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
    if _MODEL_LOADER is not None:  # an import of torch cut off by the interpreter's end can abort it the same way
        _MODEL_LOADER.join(30.0)
