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
class Profile:
    """The profile of one script run."""

    total_ms: float  # profiled time inside the script thread's run
    own_code: list[Line]  # the project's functions, by cumulative time
    hot_spots: list[Line]  # any function, by own time


def _where(filename: str, line: int, name: str) -> str:
    """'core/charts.py:61 heatmap_trace' for the project's files, the full path otherwise."""
    path = Path(filename)
    shown = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else filename
    return f"{shown}:{line} {name}"


def _is_own(filename: str) -> bool:
    path = Path(filename)
    return path == ROOT / "app.py" or any(path.is_relative_to(ROOT / folder) for folder in OWN_CODE)


def profile_rerun(at: AppTest, top: int = 8) -> Profile:
    """Rerun the current page of `at` once under cProfile."""
    profiler = cProfile.Profile()
    with around_script_runs(profiler.enable, profiler.disable):
        at.run()
    raw = pstats.Stats(profiler).stats  # (file, line, name) -> (primitive calls, calls, own s, cumulative s, callers)
    lines = [(key, Line(_where(*key), calls, own * 1000.0, cum * 1000.0)) for key, (_, calls, own, cum, _) in raw.items()]
    own_code = sorted((line for key, line in lines if _is_own(key[0])), key=lambda l: l.cumulative_ms, reverse=True)
    hot = sorted((line for _, line in lines), key=lambda l: l.own_ms, reverse=True)
    total = sum(line.own_ms for _, line in lines)
    return Profile(total, own_code[:top], hot[:top])
