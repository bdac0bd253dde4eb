"""Files a download button makes only when it is pressed (Streamlit's deferred `data=`), made once
per setting and kept, with the work they cost bounded.

Streamlit runs a button's callable in a worker thread on every press (its deferred_file request),
as many at once as its thread pool holds, and a client can send the request as often as it likes:
at /code's largest settings each press wrote a 32 MB .npy or a 20 MB .csv again. Here a file is
made once per key (the page's scheme, settings and extent) and kept in a least-recently-used store
of at most BUDGET_BYTES; a press while it is being made waits for that one making; and at most
POOL files are made at once in the process, at most one for any one session (so one session
pressing again and again waits for itself, not the others)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from core.viz import memo
from ui.internals.session import session_id

BUDGET_BYTES = 64 * 2**20  # the kept files of the process together: /code's largest .npy (32 MB) and .csv (about 20 MB)
POOL = 2  # files made at once in the process (a file takes a core while it is made)


class Files:
    """Made files by key (bytes), least recently used dropped past `budget` bytes; see the module docstring."""

    def __init__(self, budget: int = BUDGET_BYTES, pool: int = POOL) -> None:
        self._budget = budget
        self._kept: OrderedDict[bytes, bytes] = OrderedDict()
        self._held = 0
        self._changed = threading.Condition()  # a file kept, a making ended, a session's slot freed
        self._making: set[bytes] = set()
        self._busy: set[str] = set()  # sessions making a file now
        self._pool = threading.BoundedSemaphore(pool)

    def get(self, key: bytes | None, make: Callable[[], bytes | str], session: str = "") -> bytes:
        """The file under `key`, made by `make` (text is encoded as UTF-8) if no one has made it yet;
        with no key, made every time (within the same limits) and not kept."""
        with self._changed:
            while True:
                found = self._kept.get(key) if key is not None else None
                if found is not None:
                    self._kept.move_to_end(key)
                    return found
                if key not in self._making and session not in self._busy:
                    if key is not None:
                        self._making.add(key)
                    self._busy.add(session)
                    break
                self._changed.wait()  # made by another press, or this session's other file first
        try:
            with self._pool:
                made = make()
            data = made.encode() if isinstance(made, str) else bytes(made)
        finally:
            with self._changed:
                self._making.discard(key)
                self._busy.discard(session)
                self._changed.notify_all()
        if key is not None:
            with self._changed:
                self._keep(key, data)
                self._changed.notify_all()
        return data

    def _keep(self, key: bytes, data: bytes) -> None:
        if len(data) > self._budget or key in self._kept:
            return
        self._kept[key] = data
        self._held += len(data)
        while self._held > self._budget:
            _, dropped = self._kept.popitem(last=False)
            self._held -= len(dropped)


FILES = Files()


def deferred(make: Callable[[], bytes | str], *key: object) -> Callable[[], bytes]:
    """A download button's `data`: `make()`, made at most once for this `key` (everything the file
    depends on: the digest of core.viz.memo tells settings apart) while it stays kept, under this
    session's and the process's limits. A key the digest cannot read in full: made on every press,
    within the same limits."""
    try:
        digest = memo.digest(*key)
    except memo.Unkeyed:
        digest = None
    session = session_id()
    return lambda: FILES.get(digest, make, session)
