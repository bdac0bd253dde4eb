"""Measure one page of the app at one setting with Streamlit's AppTest.

A fresh AppTest session is opened with the setting in its URL, so the sidebar reads it on
the first run, exactly as a visitor following a link. The first run lands on the default
page; other pages are then reached with `switch_page`. That arrival run is the page's
first visit (cache misses included); the timed runs are the reruns after it, one
`at.run()` each, i.e. one script run of app.py plus the page, as on every widget change.
The wall time of `at.run()` is the measure the targets use; the time inside the script
thread is recorded beside it, to show how much of it is AppTest parsing the output.
"""

from __future__ import annotations

import logging
import statistics
import time
from dataclasses import dataclass, field

from streamlit.testing.v1 import AppTest

from bench.config import APP, APP_TIMEOUT_S, Page
from harness.app_run import component_data
from harness.settings import Setting
from bench.script_thread import ScriptClock
from ui.heatmap import NAME as HEATMAP  # the heatmaps the browser paints (ui/heatmap.py) count as figures


class _NoBareModeWarning(logging.Filter):
    """Drop Streamlit's 'missing ScriptRunContext' warning: AppTest runs without a server,
    and Streamlit says so on every new session. (A filter, because Streamlit resets its
    loggers' levels when it loads its config.)"""

    def filter(self, record: logging.LogRecord) -> bool:
        return "missing ScriptRunContext" not in record.getMessage()


logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_NoBareModeWarning())


@dataclass(frozen=True)
class ChartSize:
    """One Plotly chart of a page: its widget key and the size of the JSON sent for it."""

    key: str
    bytes: int


@dataclass
class AppResult:
    """The measurements of one page at one setting."""

    page: str
    setting: str
    first_visit_ms: float
    run_ms: list[float]  # wall time of each timed at.run()
    script_ms: list[float]  # time inside the script thread during each of them
    figures: list[ChartSize]
    errors: list[str] = field(default_factory=list)  # exceptions, wrong page or wrong settings

    @property
    def median_ms(self) -> float:
        return statistics.median(self.run_ms)

    @property
    def median_script_ms(self) -> float:
        return statistics.median(self.script_ms)

    @property
    def largest_bytes(self) -> int:
        return max((f.bytes for f in self.figures), default=0)

    @property
    def total_bytes(self) -> int:
        return sum(f.bytes for f in self.figures)


def open_page(page: Page, setting: Setting) -> tuple[AppTest, float]:
    """A new session opened with `setting` in the URL and showing `page`, and how long the
    run that brought the page up took, in ms."""
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT_S)
    for key, value in (*setting.query_params().items(), *page.params):
        at.query_params[key] = value
    start = time.perf_counter()
    at.run()
    if not page.default:
        start = time.perf_counter()
        at.switch_page(page.script).run()
    return at, (time.perf_counter() - start) * 1000.0


def timed_run(at: AppTest) -> tuple[float, float]:
    """Rerun the current page once: (wall time of at.run(), time in the script thread), in ms."""
    clock = ScriptClock()
    with clock.running():
        start = time.perf_counter()
        at.run()
        wall = (time.perf_counter() - start) * 1000.0
    return wall, sum(clock.durations_ms)


def figures(at: AppTest) -> list[ChartSize]:
    """The figures of the last run with the byte size of each one's JSON: the Plotly charts' specs,
    and the data of the heatmaps the browser paints (ui/heatmap.py)."""
    charts = [ChartSize(el.key or el.proto.id, len(el.proto.spec.encode())) for el in at.get("plotly_chart")]
    grids = [ChartSize(el.proto.id, len(component_data(el.proto))) for el in at.get("bidi_component") if el.proto.component_name == HEATMAP]
    return charts + grids


def problems(at: AppTest, page: Page, setting: Setting) -> list[str]:
    """What is wrong with the last run: an exception, another page shown, or settings that
    the app did not take as given (the URL value was clamped or refused)."""
    found = [f"exception: {exc.message}" for exc in at.exception]
    titles = [t.value for t in at.title]
    if titles[:1] != [page.title]:
        found.append(f"expected page title {page.title!r}, got {titles[:1]!r}")
    given = {"d_model": setting.d_model, "max_len": setting.max_len, "base": setting.base}
    for key, value in given.items():
        if key in at.session_state and at.session_state[key] != value:
            found.append(f"{key} is {at.session_state[key]!r} in the app, not {value!r}")
    return found


def measure_page(page: Page, setting: Setting, runs: int) -> AppResult:
    """Open `page` at `setting`, then time `runs` reruns and size the figures of the last one."""
    at, first_ms = open_page(page, setting)
    errors = problems(at, page, setting)
    timings = [timed_run(at) for _ in range(runs)]
    errors += [e for e in problems(at, page, setting) if e not in errors]
    return AppResult(page.name, setting.name, first_ms, [w for w, _ in timings], [s for _, s in timings], figures(at), errors)


def warm_up(pages: list[Page], setting: Setting) -> None:
    """Run every page once so that imports and first-use costs are not measured."""
    for page in pages:
        at, _ = open_page(page, setting)
        at.run()
