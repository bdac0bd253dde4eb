"""The garbage collector kept off what the process keeps for good: after imports, the heap is collected once and
what survives frozen (`gc.freeze`), so a full collection walks only what runs made since. Why (a 0.2 s pause over
~400,000 import-time objects, every few seconds under load) and why it stays bounded: docs/architecture.md, ui.
"""

from __future__ import annotations

import gc
import os
import sys
import threading

OFF_ENV = "PEE_GC_UNFROZEN"  # "1": the collector as CPython ships it, for the A/B (bench.load.ab --settings)

_lock = threading.Lock()
_modules_seen = 0


def settle() -> bool:
    """Collect and freeze the heap if modules were imported since the last call; True if it did."""
    global _modules_seen
    if os.environ.get(OFF_ENV) == "1" or len(sys.modules) == _modules_seen:
        return False
    with _lock:
        if len(sys.modules) == _modules_seen:
            return False
        _modules_seen = len(sys.modules)
        gc.collect()
        gc.freeze()
        return True
