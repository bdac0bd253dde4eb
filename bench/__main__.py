"""`python -m bench [--runs N] [--pages a,b] [--settings a,b] [--json PATH] [--profile]`

Prints the benchmark report on stdout (progress goes to stderr) and exits with status 1
when a target fails, 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.app_run import measure_page, open_page, warm_up
from bench.config import DEFAULT_RUNS, PAGES, WARM_UP, Page, by_name
from harness.settings import SETTINGS, Setting
from bench.naive import measure_naive
from bench.profiling import Profile, profile_rerun
from bench.report import Row, load_average, machine, report, to_json, write_json
from bench.targets import RUN_ANY, RUN_DEFAULTS, check, failures


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Time the app's pages and size their figures; compare with a naive Plotly rendering.")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help=f"timed reruns per page and setting (default {DEFAULT_RUNS})")
    parser.add_argument("--pages", type=_names, help=f"comma-separated pages to measure (default all: {','.join(p.name for p in PAGES)})")
    parser.add_argument("--settings", type=_names, help=f"comma-separated settings (default all: {','.join(s.name for s in SETTINGS)})")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON to PATH")
    parser.add_argument("--profile", action="store_true", help="profile one more rerun of each page/setting that fails a run-time target")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    try:
        args.pages = by_name(PAGES, args.pages, "page")
        args.settings = by_name(SETTINGS, args.settings, "setting")
    except ValueError as err:
        parser.error(str(err))
    return args


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def measure(pages: list[Page], settings: list[Setting], runs: int) -> list[Row]:
    """Every page at every setting: the app, then the naive rendering."""
    rows = []
    for setting in settings:
        for page in pages:
            progress(f"measuring {page.name} at {setting.name} ({setting.describe()}) ...")
            app = measure_page(page, setting, runs)
            naive = measure_naive(page.name, setting, runs)
            rows.append(Row(app, naive, check(app)))
    return rows


def profile_slow(rows: list[Row], pages: list[Page], settings: list[Setting]) -> dict[str, Profile]:
    """A profile of one rerun for every page/setting that failed a run-time target."""
    slow = {(c.page, c.setting) for row in rows for c in failures(row.checks) if c.target in (RUN_DEFAULTS, RUN_ANY)}
    profiles = {}
    for setting in settings:
        for page in pages:
            if (page.name, setting.name) in slow:
                progress(f"profiling {page.name} at {setting.name} ...")
                at, _ = open_page(page, setting)
                profiles[f"{page.name}/{setting.name}"] = profile_rerun(at)
    return profiles


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    info = machine()
    progress("warming up (imports, first use) ...")
    warm_up(args.pages, WARM_UP)
    for page in args.pages:
        measure_naive(page.name, WARM_UP, 1)
    rows = measure(args.pages, args.settings, args.runs)
    profiles = profile_slow(rows, args.pages, args.settings) if args.profile else {}
    info["load_at_end"] = load_average()
    print(report(info, args.settings, args.runs, rows, profiles))
    if args.json:
        write_json(args.json, to_json(info, args.settings, args.runs, rows, profiles))
        print(f"\nJSON written to {args.json}")
    return 1 if any(failures(row.checks) for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
