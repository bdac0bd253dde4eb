"""The benchmark's output: a header about the machine, plain text tables, and a JSON document."""

from __future__ import annotations

import datetime
import json
import os
import platform
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import plotly
import streamlit

from bench.app_run import AppResult
from bench.config import NAIVE_CELL_LIMIT
from harness.settings import Setting
from bench.naive import NaiveResult
from bench.profiling import Profile
from bench.targets import TARGETS, Check


@dataclass(frozen=True)
class Row:
    """Everything measured for one page at one setting."""

    app: AppResult
    naive: NaiveResult | None
    checks: list[Check]


# --- header ----------------------------------------------------------------------------


def _cpu_model() -> str:
    """The CPU model from /proc/cpuinfo, or the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages: other work on the machine skews the timings."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def machine() -> dict[str, str | int]:
    """The machine and versions the numbers were measured with; call it as the benchmark starts."""
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "platform": f"{platform.system()} {platform.machine()}",
        "cpu": _cpu_model(),
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0,
        "python": platform.python_version(),
        "streamlit": streamlit.__version__,
        "plotly": plotly.__version__,
        "numpy": np.__version__,
        "load_at_start": load_average(),
    }


def header(info: dict[str, str | int], settings: list[Setting], runs: int) -> str:
    lines = [
        "Positional Encoding Explorer: performance benchmark",
        f"date:     {info['date']}",
        f"machine:  {info['platform']}, nproc {info['nproc']}, {info['cpu']}",
        f"load:     {info['load_at_start']} at start, {info.get('load_at_end', 'n/a')} at end (1, 5, 15 min averages)",
        f"versions: Python {info['python']}, streamlit {info['streamlit']}, plotly {info['plotly']}, numpy {info['numpy']}",
        f"method:   AppTest; per page and setting a fresh session opened from the URL, then the median of {runs} reruns",
        "settings: " + "; ".join(f"{s.name} ({s.describe()})" for s in settings),
    ]
    return "\n".join(lines)


# --- tables ----------------------------------------------------------------------------


def table(headers: list[str], rows: list[list[str]], left: int = 2) -> str:
    """A plain text table; the first `left` columns aligned left, the others right."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows)]

    def line(cells: list[str]) -> str:
        return "  ".join(cell.ljust(w) if i < left else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, widths))).rstrip()

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *(line(r) for r in rows)])


def si_bytes(n: float) -> str:
    """1234567 -> '1.23 MB'."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def _status(row: Row, target: str) -> str:
    found = [c for c in row.checks if c.target == target]
    if not found:
        return "-"
    return "PASS" if found[0].passed else "FAIL"


def app_table(rows: list[Row]) -> str:
    headers = ["page", "setting", "run ms (median)", "min-max", "in script", "first visit ms", "figs", "largest fig B", "total fig B", *TARGETS]
    body = []
    for row in rows:
        a = row.app
        body.append(
            [
                a.page,
                a.setting,
                f"{a.median_ms:.1f}",
                f"{min(a.run_ms):.0f}-{max(a.run_ms):.0f}",
                f"{a.median_script_ms:.1f}",
                f"{a.first_visit_ms:.0f}",
                str(len(a.figures)),
                f"{a.largest_bytes:,}",
                f"{a.total_bytes:,}",
                *(_status(row, t) for t in TARGETS),
            ]
        )
    return table(headers, body)


def naive_table(rows: list[Row]) -> str:
    headers = ["page", "setting", "naive", "build+serialise ms", "naive JSON", "time naive/app", "bytes naive/app"]
    body = []
    for row in rows:
        a, n = row.app, row.naive
        if n is None:
            continue
        time_ms = f"{n.median_ms:.1f}" if n.median_ms is not None else f"n/a (would need {n.memory_gb:,.1f} GB)"
        time_ratio = f"{n.median_ms / a.median_ms:.2f}x" if n.median_ms is not None else "n/a"
        approx = "" if n.built else "~"
        byte_ratio = f"{approx}{n.bytes / a.total_bytes:,.3g}x" if a.total_bytes else "n/a"
        body.append([a.page, a.setting, "built" if n.built else "estimated, not built", time_ms, f"{approx}{si_bytes(n.bytes)}", time_ratio, byte_ratio])
    return table(headers, body, left=3)


def estimate_check(rows: list[Row]) -> list[str]:
    """For the naive renderings that were built, how far the analytic estimate is from the
    measured size: the accuracy of the estimates used where nothing could be built."""
    lines = []
    for row in rows:
        n = row.naive
        if n is not None and n.built:
            lines.append(f"  {n.page}/{n.setting}: estimated {n.estimated_bytes:,} B, built {n.bytes:,} B ({(n.estimated_bytes - n.bytes) / n.bytes:+.1%})")
    return lines


def profile_text(name: str, profile: Profile) -> str:
    """The project's functions by cumulative time, then its costliest calls into libraries."""
    text = [f"profile of one rerun of {name}: {profile.total_ms:.0f} ms profiled in the script thread (cProfile inflates times; read the shares)"]
    text.append("  our code (core/, app_pages/, ui/, app.py), by cumulative time:")
    text += [f"    {e.cumulative_ms:8.1f} ms {e.cumulative_ms / profile.total_ms:4.0%}  {e.calls:5d} calls  {e.where}" for e in profile.own_code]
    text.append("  our calls into libraries, by cumulative time:")
    for c in profile.calls_out:
        text.append(f"    {c.cumulative_ms:8.1f} ms {c.cumulative_ms / profile.total_ms:4.0%}  {c.calls:5d} calls  {c.caller} -> {c.callee}")
    return "\n".join(text)


def report(info: dict[str, str | int], settings: list[Setting], runs: int, rows: list[Row], profiles: dict[str, Profile]) -> str:
    failed = [c for row in rows for c in row.checks if not c.passed]
    parts = [
        header(info, settings, runs),
        "",
        "App: server script run per rerun (app.py + page), and the Plotly figures sent (JSON bytes)",
        "(run ms: wall time of one at.run(), the measure the targets use; in script: median time inside the script",
        " thread, the rest being AppTest parsing the output; first visit: the run that opened the page, st.cache_data",
        " misses included, not a target)",
        app_table(rows),
        "",
        "Naive rendering of the same main view in plain Plotly (full matrices, float64), against the app",
        f"(built for real when no matrix exceeds {NAIVE_CELL_LIMIT:,} cells, else sized analytically: base64 of the raw",
        " float64 data, 8 bytes x cells x 4/3, times the share of '/' that Plotly's JSON escapes as \\u002f, measured on a",
        " sample of the data; ratios divide by the app's median script run and by its total figure bytes)",
        naive_table(rows),
    ]
    check_lines = estimate_check(rows)
    if check_lines:
        parts += ["", "Estimate check where the naive rendering was built:", *check_lines]
    errors = [f"ERROR {row.app.page}/{row.app.setting}: {e}" for row in rows for e in row.app.errors]
    if errors:
        parts += ["", *errors]
    for name, profile in profiles.items():
        parts += ["", profile_text(name, profile)]
    parts += [""]
    if failed:
        parts += [f"FAILED {len(failed)} target(s):", *(f"  FAIL {c.page}/{c.setting} {c.target}: {c.detail}" for c in failed)]
    else:
        parts += [f"All {sum(len(row.checks) for row in rows)} target checks passed."]
    return "\n".join(parts)


def _result(row: Row) -> dict[str, object]:
    """One page at one setting as JSON: the raw measurements plus the derived numbers."""
    app: dict[str, object] = asdict(row.app)
    app.update(median_ms=row.app.median_ms, median_script_ms=row.app.median_script_ms, largest_bytes=row.app.largest_bytes, total_bytes=row.app.total_bytes)
    naive: dict[str, object] | None = None
    if row.naive is not None:
        naive = asdict(row.naive)
        naive.update(median_ms=row.naive.median_ms)
    return {"page": row.app.page, "setting": row.app.setting, "app": app, "naive": naive, "checks": [asdict(c) for c in row.checks]}


def to_json(info: dict[str, str | int], settings: list[Setting], runs: int, rows: list[Row], profiles: dict[str, Profile]) -> str:
    """The results as one JSON document."""
    document = {
        "machine": info,
        "runs": runs,
        "settings": [asdict(s) for s in settings],
        "results": [_result(row) for row in rows],
        "failures": [asdict(c) for row in rows for c in row.checks if not c.passed],
        "profiles": {name: asdict(p) for name, p in profiles.items()},
    }
    return json.dumps(document, indent=2)


def write_json(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")
