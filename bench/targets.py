"""The performance targets from the issue, checked against the measurements."""

from __future__ import annotations

from dataclasses import dataclass

from bench.app_run import AppResult
from bench.config import ANY_RUN_MS, DEFAULTS_RUN_MS, FIGURE_BYTES
from harness.settings import DEFAULTS


@dataclass(frozen=True)
class Check:
    """One target for one page at one setting."""

    page: str
    setting: str
    target: str  # short name, used as a table column
    passed: bool
    detail: str


RUN_DEFAULTS = f"run<{DEFAULTS_RUN_MS:g}ms@defaults"
RUN_ANY = f"run<{ANY_RUN_MS:g}ms"
FIGURE = f"figure<{FIGURE_BYTES / 1e6:g}MB"
CLEAN = "no error"
TARGETS = (RUN_DEFAULTS, RUN_ANY, FIGURE, CLEAN)


def check(result: AppResult) -> list[Check]:
    """Every target that applies to this page and setting (the 150 ms one at the defaults only)."""
    page, setting = result.page, result.setting
    median, largest = result.median_ms, result.largest_bytes
    checks = []
    if setting == DEFAULTS.name:
        checks.append(Check(page, setting, RUN_DEFAULTS, median < DEFAULTS_RUN_MS, f"median script run {median:.1f} ms (target < {DEFAULTS_RUN_MS:g} ms)"))
    checks.append(Check(page, setting, RUN_ANY, median < ANY_RUN_MS, f"median script run {median:.1f} ms (target < {ANY_RUN_MS:g} ms)"))
    biggest = max(result.figures, key=lambda f: f.bytes, default=None)
    where = f" ({biggest.key})" if biggest else ""
    checks.append(Check(page, setting, FIGURE, largest < FIGURE_BYTES, f"largest figure {largest:,} bytes{where} (target < {FIGURE_BYTES:,})"))
    checks.append(Check(page, setting, CLEAN, not result.errors, "; ".join(result.errors) or "no exception"))
    return checks


def failures(checks: list[Check]) -> list[Check]:
    return [c for c in checks if not c.passed]
