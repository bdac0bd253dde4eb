"""The garbage collector kept off what the process keeps for good.

A warm server holds about 400,000 container objects that live as long as the process: numpy,
plotly's figure classes, torch once /lab has run, every page's modules. CPython's full collection
walks all of them, about 0.2 s with the interpreter held, every few seconds under load, and every
visitor's redraw in that moment waits: under 40 sessions those pauses made the slowest redraws.
Whenever the process has imported modules since the last time, the heap is collected once and what
survives is frozen (`gc.freeze`: moved where the collector no longer looks), so a full collection
walks only what runs made since. Imports stop once every page has run, so freezes stop too, and what a
freeze keeps that later becomes garbage is bounded by the number of times it happened.
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
