"""Where a lab run enters torch: `core.lab.model` (and so torch) is imported once per process in a thread of its own
(`warm_model`, `load_model`), so that the lab stays torch-free until a run starts and a run waiting for the import can
be stopped; `train`, `train_lm` and `run_experiment` are what a run's thread calls."""

from __future__ import annotations

import threading
from collections.abc import Callable

from core.lab.config import LabConfig, LabResult

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
    """core.lab.model.train, torch imported here when a run starts: the toy tasks' LabRun's `train_fn`."""
    from core.lab import model  # torch is imported here, when a run starts

    return model.train(config, on_step=on_step, should_stop=should_stop)


def train_lm(config, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None):
    """core.lab.model.train_lm, torch imported here when a run starts: the real-text LabRun's `train_fn`."""
    from core.lab import model

    return model.train_lm(config, on_step=on_step, should_stop=should_stop)


def run_experiment(config, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None):
    """An experiment's config run by its record (core.lab.registry.run, torch imported when it runs): its LabRun's `train_fn`."""
    from core.lab import registry

    return registry.run(config, on_step=on_step, should_stop=should_stop)


def uses_torch(train_fn: Callable[..., object]) -> bool:
    """Whether `train_fn` is one of the entry points, which need torch loaded first (a test's fake does not)."""
    return train_fn in (train, train_lm, run_experiment)
