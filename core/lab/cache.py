"""Finished lab runs kept by configuration, shared by every session of a server (`ResultCache`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class ResultCache:
    """Finished results by configuration, at most `max_entries` (the oldest used goes first);
    safe to share between sessions' threads."""

    def __init__(self, max_entries: int = 48) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict[Any, Any] = OrderedDict()
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
        with self._lock:
            self._items[result.config] = result
            self._items.move_to_end(result.config)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
