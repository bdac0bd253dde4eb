"""ui/heap.py: the heap is collected, then frozen, once per batch of imports; garbage is never frozen."""

import gc
import sys
import types
import weakref

from ui import heap


class Node:
    pass


def test_the_heap_is_collected_then_frozen_once_per_import_and_not_when_switched_off(monkeypatch):
    monkeypatch.setattr(heap, "_modules_seen", 0)
    monkeypatch.delenv(heap.OFF_ENV, raising=False)
    cycle = Node()
    cycle.me = cycle  # garbage only the collector can free: it must be freed, not frozen
    dead = weakref.ref(cycle)
    del cycle
    try:
        assert heap.settle() is True
        assert dead() is None
        assert gc.get_freeze_count() > 0
        assert heap.settle() is False  # nothing imported since
        sys.modules["_pee_heap_probe"] = types.ModuleType("_pee_heap_probe")
        monkeypatch.setenv(heap.OFF_ENV, "1")
        assert heap.settle() is False
        monkeypatch.delenv(heap.OFF_ENV)
        assert heap.settle() is True
        assert heap.settle() is False
    finally:
        sys.modules.pop("_pee_heap_probe", None)
        gc.unfreeze()
