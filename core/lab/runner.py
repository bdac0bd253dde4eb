"""Running lab runs: in a background thread per session, with a cache of finished results and a
server-wide cap on runs training at once. Torch-free: `core.lab.model` (and so torch) is imported
by `load_model`, in a thread of its own, once per process: when the lab page is first opened
(`warm_model`) or at the latest when a run starts; a run waiting for it can be stopped.

`LabRun` is what a page starts, polls and stops; `ResultCache` keeps finished results by
configuration; `Trainers` is the cap (at most `PEE_LAB_MAX_RUNS`, default 2, train; the others
wait in line, first come first served; a visitor holds at most one trainer and one place in line
however many tabs they train from, and one network address at most `PEE_LAB_PLACES_PER_ADDRESS`,
default 2, of either, and never every trainer of a process that has two or more), and says where a
run stands in line with an estimated wait (`Outlook`).
"""

from __future__ import annotations

import atexit
import hashlib
import heapq
import logging
import os
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.lab.config import WALL_SECONDS, LabConfig, LabResult, over_budget

MAX_RUNS_ENV = "PEE_LAB_MAX_RUNS"  # how many runs may train at once in one server process
DEFAULT_MAX_RUNS = 2  # the hosted demo's two cores: one run each (a run uses one torch thread)
# How many runs (training or waiting) the visitors of one network address may hold in one process. A visitor
# is a browser as its cookies say, and a client makes as many of those as it likes (a websocket without
# cookies, a forged one); its address it cannot choose, so the address bounds what one client can hold.
# A room behind one NAT shares it too: an operator serving a class from one address raises it.
PLACES_ENV = "PEE_LAB_PLACES_PER_ADDRESS"
DEFAULT_PLACES_PER_ADDRESS = 2
# Several processes on one machine (the image: one per core, one trainer each) share what one address may hold
# through lock files in one folder: at most PEE_LAB_TRAINERS_PER_ADDRESS trainers in all of them (AddressLocks).
LOCK_DIR_ENV = "PEE_LAB_LOCK_DIR"
TRAINERS_PER_ADDRESS_ENV = "PEE_LAB_TRAINERS_PER_ADDRESS"
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
    """Run one experiment on trained models (a config of an experiment in core.lab.registry; torch,
    imported when a run starts): its record's run. Its LabRun's `train_fn`."""
    from core.lab import registry

    return registry.run(config, on_step=on_step, should_stop=should_stop)


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
    return _whole_from_env(MAX_RUNS_ENV, DEFAULT_MAX_RUNS, environ)


def places_from_env(environ: Mapping[str, str] | None = None) -> int:
    """The runs one address may hold: PEE_LAB_PLACES_PER_ADDRESS (at least 1), read as PEE_LAB_MAX_RUNS is."""
    return _whole_from_env(PLACES_ENV, DEFAULT_PLACES_PER_ADDRESS, environ)


def _whole_from_env(name: str, default: int, environ: Mapping[str, str] | None) -> int:
    raw = (os.environ if environ is None else environ).get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        logging.getLogger(__name__).warning("%s=%r is not a whole number of at least 1; using %d.", name, raw[:40], default)
        return default
    return value


class AddressLocks:
    """The trainers one address holds in all the processes of a machine that share `folder`: each
    trainer held is an exclusive lock (flock) on one of `per_address` files named after the
    address, so at most that many are held at once, whichever processes hold them. The kernel drops
    a lock when the file is closed or its process ends (a crash included): nothing is left held.
    Addresses are hashed into `buckets` files each, so that however many addresses come, the folder
    holds at most buckets x per_address empty files (two addresses sharing a bucket share its limit)."""

    def __init__(self, folder: Path | str, per_address: int = 1, buckets: int = 4096) -> None:
        self.folder, self.per_address, self.buckets = Path(folder), per_address, buckets
        self.folder.mkdir(parents=True, exist_ok=True)

    def take(self, address: Hashable) -> int | None:
        """A lock for one more trainer of `address` (an open file; `give_back` it), or None when it holds all it may."""
        import fcntl

        bucket = int.from_bytes(hashlib.sha256(str(address).encode()).digest()[:4], "big") % self.buckets
        for k in range(self.per_address):
            fd = os.open(self.folder / f"{bucket:04x}.{k}", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except OSError:
                os.close(fd)
        return None

    @staticmethod
    def give_back(lock: int) -> None:
        os.close(lock)  # closing the file drops its lock

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> AddressLocks | None:
        """The locks in PEE_LAB_LOCK_DIR, PEE_LAB_TRAINERS_PER_ADDRESS (default 1) each; None without
        a folder (one process: its own limit is enough), or when it cannot be made (logged)."""
        environ = os.environ if environ is None else environ
        folder = environ.get(LOCK_DIR_ENV, "").strip()
        if not folder:
            return None
        try:
            return cls(folder, _whole_from_env(TRAINERS_PER_ADDRESS_ENV, 1, environ))
        except OSError as err:
            logging.getLogger(__name__).warning("%s=%r cannot be used (%s); each process limits addresses alone.", LOCK_DIR_ENV, folder[:80], err)
            return None


class Refused(Exception):
    """A run the trainers will not take into their line; its message is the sentence shown."""


class Ticket:
    """One run's place in a `Trainers` line, then its slot: who asked (`visitor`, None for nobody in
    particular) from which network address (`address`, None for none known), its estimated seconds
    of work and its time limit (for the waits others are shown), and when it took a slot."""

    __slots__ = ("visitor", "address", "seconds", "cap", "started", "lock")

    def __init__(self, visitor: Hashable | None = None, seconds: float = 0.0, cap: float = float("inf"), address: Hashable | None = None) -> None:
        self.visitor, self.address, self.seconds, self.cap, self.started = visitor, address, max(0.0, float(seconds)), max(0.0, float(cap)), 0.0
        self.lock: int | None = None  # its address's lock among the processes (AddressLocks), once it may take a slot


@dataclass(frozen=True)
class Outlook:
    """Where a waiting run stands: `place` (0 = the next to start), the runs holding a trainer now
    (`in_progress`), the estimated seconds until it starts (`wait_s`, from the estimates of the runs
    ahead of it and of those training, scaled by how this server's recent runs compared with their
    estimates; None when no trainer may run at all), the most it can wait if every run ahead takes
    its whole time limit (`at_most_s`), and whether it waits for the same visitor's run in another
    tab (`behind_own`)."""

    place: int
    in_progress: int
    wait_s: float | None
    at_most_s: float | None
    behind_own: bool


class Trainers:
    """A cap on the runs that train at once, shared by every session of a server.

    At most `max_runs` tickets hold a slot, and at most one per visitor: a visitor's second run (from
    another tab) waits until the first has ended, and others behind it in line go first meanwhile.
    A visitor has at most one place in line (a third tab's run is refused), the tickets of one
    address at most `places_per_address` places and slots together (more are refused), and at most
    `runs_per_address` slots: one fewer than `max_runs` (at least 1), so that one address, whatever
    cookies it sends, never holds every trainer of a process that has two. With `locks` (processes
    sharing a machine), an address also holds at most `locks.per_address` trainers in all of them.
    The others wait in line, first come first served: `join()` takes a place at the end (or raises
    `Refused` with the sentence why not),
    `wait_turn()` blocks until the ticket is the first in line whose visitor holds no slot and a slot
    is free (then it holds the slot) or until `should_stop()` says the run is not wanted any more
    (then it leaves the line). `cancel()` takes a ticket out of the line at once, `release()` frees
    its slot; both may be called more than once. `outlook()` says where a waiting ticket stands and
    how long it may wait. Thread-safe."""

    PACE_RUNS = 8  # how many recent runs' measured / estimated time the waits are scaled by

    def __init__(self, max_runs: int = DEFAULT_MAX_RUNS, places_per_address: int = DEFAULT_PLACES_PER_ADDRESS, locks: AddressLocks | None = None) -> None:
        for name, value, least in (("max_runs", max_runs, 0), ("places_per_address", places_per_address, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{name} must be a whole number of at least {least}, got {value!r}.")
        self.max_runs, self.places_per_address = max_runs, places_per_address
        self.runs_per_address = min(places_per_address, max(1, max_runs - 1))
        self.locks = locks
        self.peak = 0  # most slots ever held at once
        self.served: list[Hashable | None] = []  # visitors in the order their runs took a slot (the last 1000)
        self._cond = threading.Condition()
        self._line: deque[Ticket] = deque()
        self._active: set[Ticket] = set()
        self._paces: deque[float] = deque(maxlen=self.PACE_RUNS)

    def join(self, visitor: Hashable | None = None, seconds: float = 0.0, cap: float = float("inf"), address: Hashable | None = None) -> Ticket:
        """A place at the end of the line; `Refused` (with the sentence) past a visitor's one place or its address's places."""
        ticket = Ticket(visitor, seconds, cap, address)
        with self._cond:
            if visitor is not None and any(t.visitor == visitor for t in self._line):
                raise Refused("You already have a run waiting for a trainer (in another tab): one place in line per visitor. Stop that one first.")
            held = 0 if address is None else sum(t.address == address for t in (*self._active, *self._line))
            if held >= self.places_per_address:
                runs = f"{self.places_per_address} run{'s' if self.places_per_address != 1 else ''}"
                raise Refused(
                    f"Your network address already has {runs} training or waiting here, the most one address may have, "
                    f"so that everybody gets a turn. Press Train again once {'it has' if self.places_per_address == 1 else 'one of them has'} ended."
                )
            self._line.append(ticket)
        return ticket

    def _busy(self, visitor: Hashable | None) -> bool:
        return visitor is not None and any(t.visitor == visitor for t in self._active)

    def _blocked(self, ticket: Ticket) -> bool:
        """The ticket may not take a slot now: its visitor holds one, or its address holds all it may."""
        if self._busy(ticket.visitor):
            return True
        return ticket.address is not None and sum(t.address == ticket.address for t in self._active) >= self.runs_per_address

    def _next(self) -> Ticket | None:
        """The ticket that takes the next free slot: the first in line neither its visitor nor its address
        holds back, here or (with `locks`) in the other processes; it takes its address's lock now."""
        for t in self._line:
            if self._blocked(t):
                continue
            if self.locks is not None and t.address is not None and t.lock is None:
                t.lock = self.locks.take(t.address)
                if t.lock is None:
                    continue  # its address holds all it may in the other processes
            return t
        return None

    def _give_back(self, ticket: Ticket) -> None:
        if ticket.lock is not None:
            AddressLocks.give_back(ticket.lock)
            ticket.lock = None

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
                following = self._next() if len(self._active) < self.max_runs else None
                if following is ticket:
                    self._line.remove(ticket)
                    self._active.add(ticket)
                    ticket.started = time.monotonic()
                    self.peak = max(self.peak, len(self._active))
                    self.served = [*self.served[-999:], ticket.visitor]
                    self._cond.notify_all()  # the next in line may have a free slot too
                    return True
                if following is not None:
                    self._cond.notify_all()  # another ticket may take the free slot: wake it
                self._cond.wait(every)

    def acquire(self, should_stop: Callable[[], bool] = lambda: False, every: float = 0.5, visitor: Hashable | None = None) -> Ticket | None:
        """join() then wait_turn(): a ticket holding a slot, or None."""
        ticket = self.join(visitor)
        return ticket if self.wait_turn(ticket, should_stop, every) else None

    def cancel(self, ticket: Ticket) -> bool:
        """Take a waiting ticket out of the line; True if it was waiting (a ticket holding a slot keeps it)."""
        with self._cond:
            if ticket not in self._line:
                return False
            self._line.remove(ticket)
            self._give_back(ticket)
            self._cond.notify_all()
            return True

    def release(self, ticket: Ticket, pace: float | None = None) -> None:
        """Free the ticket's slot (or its place in line) for the next in line. `pace`: how the run's
        measured time compared with its estimate (measured / estimated), for the waits shown next."""
        with self._cond:
            self._active.discard(ticket)
            if ticket in self._line:
                self._line.remove(ticket)
            self._give_back(ticket)
            if pace is not None and pace == pace and pace > 0:
                self._paces.append(pace)
            self._cond.notify_all()

    @property
    def pace(self) -> float:
        """Measured / estimated time of this server's recent runs (their median; 1 before any),
        kept within 0.5 and 10 so that one odd run does not make every wait absurd."""
        with self._cond:
            paces = sorted(self._paces)
        return 1.0 if not paces else min(10.0, max(0.5, paces[len(paces) // 2]))

    def status(self, ticket: Ticket) -> tuple[int, int] | None:
        """(place in line, 0 = next; runs holding a slot) while the ticket waits, else None."""
        outlook = self.outlook(ticket)
        return None if outlook is None else (outlook.place, outlook.in_progress)

    def outlook(self, ticket: Ticket) -> Outlook | None:
        """Where a waiting ticket stands, and its estimated wait; None when it is not waiting."""
        pace = self.pace
        with self._cond:
            if ticket not in self._line:
                return None
            now = time.monotonic()
            active, line = list(self._active), list(self._line)
            behind_own = self._busy(ticket.visitor)
            starts = _schedule(active, line, self.max_runs, now, lambda t: t.seconds * pace, self.runs_per_address)
            worst = _schedule(active, line, self.max_runs, now, lambda t: t.cap, self.runs_per_address)
        order = sorted(range(len(line)), key=lambda i: (starts.get(line[i], float("inf")), i))  # who starts first; in line order on a tie
        place = [line[i] for i in order].index(ticket)
        return Outlook(place, len(active), starts.get(ticket), worst.get(ticket), behind_own)

    @property
    def in_progress(self) -> int:
        with self._cond:
            return len(self._active)

    @property
    def waiting(self) -> int:
        with self._cond:
            return len(self._line)


def _schedule(
    active: list[Ticket], line: list[Ticket], max_runs: int, now: float, length: Callable[[Ticket], float], runs_per_address: int | float = float("inf")
) -> dict[Ticket, float]:
    """Seconds from `now` until each ticket in `line` would take a slot, if every run took
    `length(ticket)` seconds (a run training now: what is left of it, never past its time limit):
    the rule of `Trainers.wait_turn` played forward (a visitor's one slot, an address's
    `runs_per_address`). Tickets that never start (no slot at all) are left out."""
    if max_runs <= 0:
        return {}
    free = [min(max(0.0, length(t) - (now - t.started)), max(0.0, t.cap - (now - t.started))) for t in active]
    visitor_free: dict[Hashable, float] = {}
    address_ends: dict[Hashable, list[float]] = {}
    for t, end in zip(active, free):
        if t.visitor is not None:
            visitor_free[t.visitor] = max(visitor_free.get(t.visitor, 0.0), end)
        if t.address is not None:
            address_ends.setdefault(t.address, []).append(end)

    def free_at(t: Ticket) -> float:
        """When the ticket's visitor and address would let it start."""
        at = visitor_free.get(t.visitor, 0.0) if t.visitor is not None else 0.0
        ends = sorted(address_ends.get(t.address, ())) if t.address is not None else []
        if len(ends) >= runs_per_address:  # when enough of the address's runs have ended to leave it one
            at = max(at, ends[len(ends) - int(runs_per_address)])
        return at

    slots = sorted(free) + [0.0] * max(0, max_runs - len(active))
    heapq.heapify(slots)
    pending, starts = list(line), {}
    while pending:
        at = heapq.heappop(slots)
        ready = [t for t in pending if free_at(t) <= at]
        if not ready:  # everyone waiting is held back by their own runs: the slot waits for the first of those to end
            at = min(free_at(t) for t in pending)
            ready = [t for t in pending if free_at(t) <= at]
        t = ready[0]
        starts[t] = at
        end = at + max(0.0, min(length(t), t.cap))
        if t.visitor is not None:
            visitor_free[t.visitor] = end
        if t.address is not None:
            address_ends.setdefault(t.address, []).append(end)
        heapq.heappush(slots, end)
        pending.remove(t)
    return starts


_trainers: Trainers | None = None
_trainers_lock = threading.Lock()


def trainers() -> Trainers:
    """The process-wide cap on runs training at once (PEE_LAB_MAX_RUNS and PEE_LAB_PLACES_PER_ADDRESS, read once)."""
    global _trainers
    with _trainers_lock:
        if _trainers is None:
            _trainers = Trainers(max_runs_from_env(), places_from_env(), AddressLocks.from_env())
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
    at once, every scheme "failed" with the sentence saying why, without a thread or a slot.

    A run has a time limit (`cap`) that follows its own estimate (`estimate(config)`, seconds for
    one config; the runs it leaves to the cache are not counted): CAP_FACTOR times the estimate, times
    the pace of `slots` when above 1 (`pace`: set when it joins the line and again when it starts
    training), at least CAP_FLOOR_S, at most `wall_seconds`; `wall_seconds` alone without an estimate. A run still
    going `cap` seconds after it started training (torch loaded, its slot taken) is stopped
    (`timed_out`), whatever it is doing: training and evaluation both ask `should_stop` at least
    once a second. `visitor` names who pressed Train (a browser, across its tabs), `address` where
    from (the client's network address): the trainers give one visitor at most one slot and one
    place in line, and one address a few (`Trainers`); a run they refuse is done at once, every
    scheme "failed" with their sentence, as a run over budget is."""

    configs: list[LabConfig]
    cache: ResultCache | None = None
    alive: Callable[[], bool] = lambda: True
    alive_every: float = 1.0  # seconds between two asks of alive()
    slots: Trainers | None = None
    train_fn: Callable[..., LabResult] | None = None
    wall_seconds: float = WALL_SECONDS
    budget: Callable[[list], str | None] = over_budget  # why a run is refused, or None (the real-text task has its own)
    steps: Callable[[Any], int] = lambda config: config.steps  # the steps a config's progress bar counts (LabConfig's and LMConfig's training steps)
    label: Callable[[Any], str] = lambda config: ""  # what a config's bar is named, when not its scheme's label
    estimate: Callable[[Any], float] | None = None  # estimated seconds of one config, for the time limit and the waits shown
    visitor: Hashable | None = None  # who asked (a browser across its tabs): one trainer at a time each
    address: Hashable | None = None  # the network address they asked from: a few places each
    progress: list[Progress] = field(default_factory=list)
    results: dict[int, LabResult] = field(default_factory=dict)
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
            for p in self.progress:
                p.state, p.message = "failed", self.refused
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
        if _uses_torch(self.train_fn or train):
            warm_model()  # torch loads while the run waits in line
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
        train_fn = self.train_fn or train
        if _uses_torch(train_fn) and not model_loaded():
            self._set("loading", "loading torch, once per server: about 20 s")
            if not load_model(self._should_stop):  # stopped while torch loads: ends now, the import goes on
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


def _synthetic_seconds(config: LabConfig) -> float:
    from core.lab.config import estimate

    return estimate(config).seconds


def _lm_seconds(config) -> float:
    from core.lab import lm

    return lm.estimate(config).seconds


def _no_label(config: Any) -> str:
    return ""


def _training_steps(config: Any) -> int:
    return config.steps


SYNTHETIC = Job(train, over_budget, _synthetic_seconds, _training_steps, _no_label, WALL_SECONDS, "tokens")  # the lab's synthetic tasks


def lm_job() -> Job:
    """The real-text comparison's runs (core.lab.lm)."""
    from core.lab import lm

    return Job(train_lm, lm.over_budget, _lm_seconds, _training_steps, _no_label, lm.LM_WALL_SECONDS, "characters")


def experiment_job(experiment) -> Job:
    """An experiment on trained models (a core.lab.experiment.Experiment), run through run_experiment."""
    from core.lab.experiment import LIVE_WALL_S

    return Job(run_experiment, experiment.over_budget, experiment.estimate, experiment.steps, lambda config: config.label, LIVE_WALL_S, experiment.unit)


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
