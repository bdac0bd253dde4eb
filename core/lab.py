r"""The lab: train a tiny transformer per scheme on short sequences, test it on long ones.

Everything here is plain Python and numpy, so `import core.lab` stays torch-free: the
configuration (`LabConfig`, validated with sentences a user understands), the synthetic tasks
(`make_batch`, numpy generators seeded per run, so a seed fixes the data), the result
(`LabResult`), a bounded cache of finished results, the background runner (`LabRun`) that a
page starts, polls and stops, and the server-wide cap on runs training at once (`Trainers`:
at most `PEE_LAB_MAX_RUNS`, default 2, train; the others wait in line, first come first
served). The model and the training loop are in `core.lab_model`, imported when a run starts.

The default task is "kback": at every position i >= k, name the token that stood k places back,

$$y_i = x_{i-k}.$$

Tokens are uniform random, so content is no help: the model has to find the key exactly k
positions before the query, at every length. A relative scheme that can point at one exact
offset (RoPE, T5's exact buckets) solves it at any length; ALiBi only knows "nearer is better";
a learned table has no row past its end; without positions the model cannot tell offsets apart.
`bench/lab.py` and the lab page quote the measured numbers.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Mapping
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from core.registry import SCHEMES, Setting

IGNORE = -100  # target of positions that are not scored (torch's cross_entropy ignore_index)
MAX_EVAL_FACTOR = 4  # evaluation lengths go up to 4 x the training length
EVAL_BATCH = 64  # sequences per evaluation length
LIMITS = dict(train_len=256, steps=20_000, batch=256, d_model=256, n_heads=16, n_layers=4, vocab=256)  # a hosted demo's CPU and memory stay bounded
MAX_RUNS_ENV = "PEE_LAB_MAX_RUNS"  # how many runs may train at once in one server process
DEFAULT_MAX_RUNS = 2  # the hosted demo's two cores: one run each (a run uses one torch thread)
MAX_SCORES = 2**24  # attention scores held at once (batch x heads x length²): 64 MB in float32, a few times that with gradients


@dataclass(frozen=True)
class Task:
    """A synthetic task: `name` (the config's key), a label and one sentence for pages, the
    shortest length it is defined for (`min_len(offset)`), and `source(length, offset)`: for
    each position, the position of the token it must name, or -1 where nothing is scored."""

    name: str
    label: str
    summary: str
    min_len: Callable[[int], int]
    source: Callable[[int, int], np.ndarray]


def _kback_source(length: int, k: int) -> np.ndarray:
    q = np.arange(length)
    return np.where(q >= k, q - k, -1)  # (T,)


def _after_separator(length: int, reverse: bool) -> np.ndarray:
    """Copy or reverse of n = length // 2 symbols after an optional filler (see make_batch)."""
    n, q = length // 2, np.arange(length)
    start = length - n  # the first scored position: the separator
    j = q - start  # index into the answer
    return np.where(q >= start, (start - 1 - j if reverse else start - n + j), -1)  # (T,)


TASKS: dict[str, Task] = {
    task.name: task
    for task in (
        Task("kback", "the token k places back", "At every position, name the token that stood k places earlier: a fixed relative offset.", lambda k: k + 1, _kback_source),
        Task(
            "copy",
            "copy after a separator",
            "A random sequence, a separator, then the same sequence again: position n + j must fetch token j.",
            lambda k: 2,
            lambda length, k: _after_separator(length, False),
        ),
        Task(
            "reverse",
            "reverse after a separator",
            "A random sequence, a separator, then the sequence backwards: position n + j must fetch token n − 1 − j.",
            lambda k: 2,
            lambda length, k: _after_separator(length, True),
        ),
    )
}


def _whole(value, name: str, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) and not (isinstance(value, (float, np.floating)) and float(value).is_integer()):
        raise ValueError(f"{name} must be a whole number, got {value!r}.")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name} must be between {lo:,} and {hi:,}, got {int(value):,}." if hi is not None else f"{name} must be at least {lo:,}, got {int(value):,}.")
    return int(value)


@dataclass(frozen=True)
class LabConfig:
    """One training run: a scheme from the registry on a task, and the tiny model that learns it.

    The model is small on purpose (64 wide, 4 heads, 1 layer: one attention layer is all the
    kback task needs, and a run takes seconds on one core; bench/lab.py times it). `table_len` is the number of rows of a position table (a learned table, one-hot);
    None means the training length, so the table ends where training did. `offset` is the k
    of the kback task. Bad values raise ValueError with a sentence saying what to change."""

    scheme: str = "rope"
    task: str = "kback"
    train_len: int = 32
    eval_lens: tuple[int, ...] = (32, 64, 96, 128)
    steps: int = 300
    batch: int = 32
    lr: float = 1e-2
    seed: int = 0
    vocab: int = 16
    offset: int = 1
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 1
    table_len: int | None = None
    base: float = 10_000.0

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ValueError(f"Unknown scheme {self.scheme!r}; choose one of {', '.join(SCHEMES)}.")
        if self.task not in TASKS:
            raise ValueError(f"Unknown task {self.task!r}; choose one of {', '.join(TASKS)}.")
        if isinstance(self.steps, (int, np.integer)) and not isinstance(self.steps, bool) and self.steps < 1:
            raise ValueError(f"Training needs at least 1 step, got {self.steps}.")
        _whole(self.steps, "The number of training steps", 1, LIMITS["steps"])
        offset = _whole(self.offset, "The offset k", 1, LIMITS["train_len"] - 1)
        task = TASKS[self.task]
        train_len = _whole(self.train_len, "The training length", task.min_len(offset), LIMITS["train_len"])
        lens = tuple(self.eval_lens)
        if not lens:
            raise ValueError("Give at least one evaluation length.")
        for length in lens:
            if isinstance(length, (int, np.integer)) and not isinstance(length, bool) and length < 1:
                raise ValueError(f"Evaluation lengths must be at least 1 token, got {length}.")
            _whole(length, "An evaluation length", 1)
            if length > MAX_EVAL_FACTOR * train_len:
                raise ValueError(f"The evaluation length {length:,} is more than {MAX_EVAL_FACTOR} x the training length {train_len} (at most {MAX_EVAL_FACTOR * train_len:,}).")
            if length < task.min_len(offset):
                raise ValueError(f"The evaluation length {length} is too short for the task '{task.label}': it needs at least {task.min_len(offset)} tokens.")
        object.__setattr__(self, "eval_lens", tuple(sorted({int(n) for n in lens})))
        _whole(self.batch, "The batch size", 1, LIMITS["batch"])
        _whole(self.seed, "The seed", 0, 2**31 - 1)
        _whole(self.vocab, "The vocabulary size", 2, LIMITS["vocab"])
        d = _whole(self.d_model, "The model width", 2, LIMITS["d_model"])
        heads = _whole(self.n_heads, "The number of heads", 1, LIMITS["n_heads"])
        if d % heads or (d // heads) % 2:
            raise ValueError(f"A width of {d} must split into {heads} heads of an even width (rotary embeddings turn pairs of dimensions).")
        _whole(self.n_layers, "The number of layers", 1, LIMITS["n_layers"])
        scores = self.batch * heads * train_len**2
        if scores > MAX_SCORES:
            raise ValueError(
                f"A batch of {self.batch} sequences of {train_len} tokens with {heads} heads holds {scores:,} attention scores per step, "
                f"more than the lab allows ({MAX_SCORES:,}): use a smaller batch, fewer heads or a shorter training length."
            )
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float, np.integer, np.floating)) or not math.isfinite(self.lr) or not 0 < self.lr <= 1:
            raise ValueError(f"The learning rate must be a number above 0 and at most 1, got {self.lr!r}.")
        if not math.isfinite(self.base) or self.base <= 1:
            raise ValueError(f"The base must be a finite number above 1, got {self.base!r}.")
        if self.table_len is not None:
            rows = _whole(self.table_len, "The table size", 1, MAX_EVAL_FACTOR * LIMITS["train_len"])
            if rows < train_len and SCHEMES[self.scheme].max_position(self.setting) is not None:
                raise ValueError(
                    f"The training length {train_len} is above the table size {rows} of the {SCHEMES[self.scheme].label}: "
                    f"positions {rows} to {train_len - 1} would have no row. Make the table at least {train_len} rows, or train shorter."
                )
        rows = SCHEMES[self.scheme].max_position(self.setting)
        if rows is not None and rows < train_len:  # a table that ends for another reason (one-hot: at the width)
            raise ValueError(f"{SCHEMES[self.scheme].label} has codes for positions 0 to {rows - 1} only at width {d}, below the training length {train_len}.")

    @property
    def rows(self) -> int:
        """Rows of a position table: table_len, or the training length."""
        return self.train_len if self.table_len is None else int(self.table_len)

    @property
    def setting(self) -> Setting:
        """The registry setting of this model: model width, heads, table rows, base, seed."""
        return Setting(width=self.d_model, base=self.base, train_len=self.rows, n_heads=self.n_heads, seed=self.seed)

    @property
    def tokens(self) -> int:
        """Size of the model's vocabulary: the task's symbols plus a separator and a filler."""
        return self.vocab + 2

    def with_scheme(self, scheme: str) -> LabConfig:
        return replace(self, scheme=scheme)


def parse_lengths(text: str) -> tuple[int, ...]:
    """'32, 64 128' -> (32, 64, 128). Raises ValueError naming the first entry that is not a whole number."""
    parts = [p for p in text.replace(",", " ").split() if p]
    if not parts:
        raise ValueError("Give at least one evaluation length, e.g. 32, 64, 128.")
    lengths = []
    for part in parts:
        try:
            lengths.append(int(part))
        except ValueError:
            raise ValueError(f"'{part[:20]}' is not a whole number: write evaluation lengths like 32, 64, 128.") from None
    return tuple(lengths)


# --- the tasks ------------------------------------------------------------------------------


def make_batch(config: LabConfig, rng: np.random.Generator, batch: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """`batch` sequences of `length` tokens of the config's task, drawn from `rng`.
    Symbols are 0 .. vocab-1; vocab is the separator, vocab + 1 a filler at the start (copy and
    reverse use 2n tokens: n symbols, the separator, n - 1 symbols of the answer, the last one
    predicted from the one before; an odd length starts with one filler). Targets are IGNORE
    where a position is not scored. Returns (inputs (B, T), targets (B, T)) int64."""
    v = config.vocab
    targets = np.full((batch, length), IGNORE, dtype=np.int64)
    if config.task == "kback":
        x = rng.integers(0, v, size=(batch, length))  # (B, T)
        k = config.offset
        targets[:, k:] = x[:, :-k]
        return x, targets
    n = length // 2  # n symbols, the separator, the first n - 1 symbols of the answer: 2n tokens
    fill = length - 2 * n
    x = rng.integers(0, v, size=(batch, n))  # (B, n)
    answer = x if config.task == "copy" else x[:, ::-1]
    inputs = np.concatenate([np.full((batch, fill), v + 1), x, np.full((batch, 1), v), answer[:, :-1]], axis=1)  # (B, T)
    targets[:, fill + n :] = answer  # the separator predicts the first answer token, and so on
    return inputs.astype(np.int64), targets


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LabResult:
    """What one run gives. accuracy[L]: share of scored tokens right at evaluation length L, or
    None where the scheme has no code (notes[L] says why; notes also mark untrained rows).
    position_accuracy: accuracy per position at the longest evaluation length the scheme runs
    at, (that length,), NaN where nothing is scored. table: the trained added table (rows, d) of a scheme
    that learns one, else None. losses: (steps run,) training loss per step."""

    config: LabConfig
    losses: np.ndarray
    accuracy: dict[int, float | None]
    notes: dict[int, str]
    position_accuracy: np.ndarray
    table: np.ndarray | None
    seconds: float
    tokens_per_s: float
    stopped: bool

    @property
    def steps_done(self) -> int:
        return int(self.losses.size)


def train(config: LabConfig, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None) -> LabResult:
    """Train the config's model (torch, one CPU thread) and evaluate it at every evaluation length.
    on_step(step, loss, tokens_per_s) is called after each step; should_stop() is asked before
    each step, and a stopped run is still evaluated (stopped=True). Deterministic for a seed."""
    from core import lab_model  # torch is imported here, when a run starts

    return lab_model.train(config, on_step=on_step, should_stop=should_stop)


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
    step: int = 0
    loss: float = float("nan")
    tokens_per_s: float = 0.0
    state: str = "waiting"  # waiting, training, done, cached, stopped, failed
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
    when `alive()` turns False while it waits. `train_fn` replaces `train` (tests)."""

    configs: list[LabConfig]
    cache: ResultCache | None = None
    alive: Callable[[], bool] = lambda: True
    alive_every: float = 1.0  # seconds between two asks of alive()
    slots: Trainers | None = None
    train_fn: Callable[..., LabResult] | None = None
    progress: list[Progress] = field(default_factory=list)
    results: dict[int, LabResult] = field(default_factory=dict)
    started: float = 0.0
    finished: float = 0.0

    def __post_init__(self) -> None:
        self.progress = [Progress(c.scheme, c.steps) for c in self.configs]
        self._stop = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._ticket: Ticket | None = None
        self._checked, self._alive = 0.0, True

    def start(self) -> LabRun:
        if self.started:
            raise RuntimeError("A LabRun starts once.")
        self.started = time.monotonic()
        for i, config in enumerate(self.configs):
            self._take_cached(i, config)
        if len(self.results) == len(self.configs):  # everything cached: nothing to train, nothing to wait for
            self._finish()
            return self
        if self.slots is not None:
            self._ticket = self.slots.join()  # in line now, in the order Train was pressed
        self._thread = threading.Thread(target=self._work, name="lab-run", daemon=True)
        try:
            self._thread.start()
        except BaseException:
            if self._ticket is not None:
                self.slots.release(self._ticket)
            raise
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
            self._train_all()
        except Exception as err:  # a failure is shown, never raised into the server  # noqa: BLE001
            for p in self.progress:
                if p.state in ("waiting", "training"):
                    p.state, p.message = "failed", f"{type(err).__name__}: {err}"
        finally:
            if self._ticket is not None:
                self.slots.release(self._ticket)  # even after an exception: the next in line goes on
            self._finish()

    def _train_all(self) -> None:
        train_fn = self.train_fn or train
        for i, config in enumerate(self.configs):
            if i in self.results:
                continue  # taken from the cache by start()
            p = self.progress[i]
            if self._should_stop():
                p.state = "stopped"
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
            if self.cache is not None:
                self.cache.put(result)
