"""Where a page's script run spends its time: cProfile around one rerun.

AppTest runs the script in a thread of its own, and cProfile only sees the thread it was
enabled in, so the profiler is switched on inside that thread (bench.script_thread).
cProfile's own cost is charged to every call, so the profiled times are larger than the
measured ones: read the shares, not the absolute numbers.
"""

from __future__ import annotations

import cProfile
import pstats
from dataclasses import dataclass
from pathlib import Path

from streamlit.testing.v1 import AppTest

from bench.config import ROOT
from bench.script_thread import around_script_runs

OWN_CODE = ("core", "app_pages", "ui")  # folders under ROOT whose functions are listed


@dataclass(frozen=True)
class Line:
    """One function of a profile: where it is, its calls, and its own and cumulative time."""

    where: str
    calls: int
    own_ms: float
    cumulative_ms: float


@dataclass(frozen=True)
class Call:
    """Calls from one of the project's functions into a library function, with their cumulative time."""

    caller: str
    callee: str
    calls: int
    cumulative_ms: float


@dataclass(frozen=True)
class Profile:
    """The profile of one script run."""

    total_ms: float  # profiled time inside the script thread's run
    own_code: list[Line]  # the project's functions, by cumulative time
    calls_out: list[Call]  # the project's calls into libraries (plotly, streamlit, numpy), by cumulative time


def _where(filename: str, line: int, name: str) -> str:
    """'core/charts.py:61 heatmap_trace' for the project's files, 'plotly/...' for installed
    packages, the full path otherwise."""
    path = Path(filename)
    if path.is_relative_to(ROOT):
        return f"{path.relative_to(ROOT)}:{line} {name}"
    parts = path.parts
    if "site-packages" in parts:
        return f"{Path(*parts[parts.index('site-packages') + 1 :])}:{line} {name}"
    return f"{filename}:{line} {name}"


def _is_own(filename: str) -> bool:
    path = Path(filename)
    return path == ROOT / "app.py" or any(path.is_relative_to(ROOT / folder) for folder in OWN_CODE)


def _calls_out(raw: dict) -> list[Call]:
    """Every (project function -> library function) edge of the call graph, skipping the
    page runs that Streamlit makes on app.py's behalf (they contain the whole page)."""
    calls = []
    for callee, (_, _, _, _, callers) in raw.items():
        if _is_own(callee[0]):
            continue
        for caller, (_, n_calls, _, cumulative) in callers.items():
            if _is_own(caller[0]) and not (caller[0].endswith("app.py") and callee[2] == "run"):
                calls.append(Call(_where(*caller), _where(*callee), n_calls, cumulative * 1000.0))
    return sorted(calls, key=lambda c: c.cumulative_ms, reverse=True)


def profile_rerun(at: AppTest, top: int = 8) -> Profile:
    """Rerun the current page of `at` once under cProfile."""
    profiler = cProfile.Profile()
    with around_script_runs(profiler.enable, profiler.disable):
        at.run()
    # Stats.stats (not in the type stubs): (file, line, name) -> (primitive calls, calls, own s, cumulative s, callers)
    raw = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    own_code = [Line(_where(*key), calls, own * 1000.0, cum * 1000.0) for key, (_, calls, own, cum, _) in raw.items() if _is_own(key[0])]
    own_code.sort(key=lambda line: line.cumulative_ms, reverse=True)
    total = sum(own for _, _, own, _, _ in raw.values()) * 1000.0
    return Profile(total, own_code[:top], _calls_out(raw)[:top])
