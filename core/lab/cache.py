"""Finished lab runs kept by configuration, shared by every session of a server (`ResultCache`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from core.viz.memo import size


MAX_BYTES = 256 * 2**20  # a language model's reading is about 13 MB: entries alone would not bound a process's memory


class ResultCache:
    """Finished results by configuration, at most `max_entries` and about `max_bytes` of arrays (the oldest
    used goes first, the newest is always kept); safe to share between sessions' threads."""

    def __init__(self, max_entries: int = 48, max_bytes: int = MAX_BYTES) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._sizes: dict[Any, int] = {}
        self._lock = threading.Lock()

    def get(self, config: Any) -> Any | None:
        with self._lock:
            result = self._items.get(config)
            if result is not None:
                self._items.move_to_end(config)
            return result

    def put(self, result: Any) -> None:
        if result.stopped:
            return  # only finished runs are worth keeping
        held = size(result)
        with self._lock:
            self._items[result.config] = result
            self._sizes[result.config] = held
            self._items.move_to_end(result.config)
            while len(self._items) > 1 and (len(self._items) > self.max_entries or sum(self._sizes.values()) > self.max_bytes):
                old, _ = self._items.popitem(last=False)
                del self._sizes[old]

    def __len__(self) -> int:
        return len(self._items)
