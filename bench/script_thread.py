"""Hooks around the script runs that AppTest makes.

AppTest runs the app in a script thread of its own, then parses the messages the run sent
into an element tree. To tell the script's own time from that parsing, and to profile the
script (cProfile only sees the thread it is enabled in), Streamlit's
`LocalScriptRunner._run_script` is wrapped while the hook is active: `before` is called in
the script thread as a run starts and `after` as it ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from unittest import mock

from streamlit.runtime.scriptrunner_utils.script_requests import RerunData
from streamlit.testing.v1.local_script_runner import LocalScriptRunner


@contextmanager
def around_script_runs(before: Callable[[], None], after: Callable[[], None]) -> Iterator[None]:
    """Call `before` and `after` in the script thread around every script run inside the block."""
    original = LocalScriptRunner._run_script

    def run_script(self: LocalScriptRunner, rerun_data: RerunData) -> None:
        before()
        try:
            original(self, rerun_data)
        finally:
            after()

    with mock.patch.object(LocalScriptRunner, "_run_script", run_script):
        yield


class ScriptClock:
    """Collects the duration of every script run, in ms, while `running()` is active."""

    def __init__(self) -> None:
        self.durations_ms: list[float] = []
        self._start = 0.0

    def _before(self) -> None:
        self._start = time.perf_counter()

    def _after(self) -> None:
        self.durations_ms.append((time.perf_counter() - self._start) * 1000.0)

    @contextmanager
    def running(self) -> Iterator[None]:
        with around_script_runs(self._before, self._after):
            yield
