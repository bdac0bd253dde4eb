"""The server's trainers (`Trainers`): a cap on the lab runs that train at once (PEE_LAB_MAX_RUNS), the first-come line the
others wait in, the limits per visitor and per network address (PEE_LAB_PLACES_PER_ADDRESS; `AddressLocks` across the
processes of a machine), and the waits shown, scaled by the pace the server's recent runs kept against their estimates."""

from __future__ import annotations

import hashlib
import heapq
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path

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
    The others wait in line, first come first served (`join`, then `wait_turn`). Thread-safe."""

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
