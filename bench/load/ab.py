"""Server CPU per action of this tree against another commit, in one run: the two alternated.

    python -m bench.load.ab --ref 9050b89 [--rounds 2] [--sessions 20] [--seconds 20] [--per-page 8]

This machine is shared and noisy, so a speed figure is a ratio against a reference measured in
the same run. The reference commit is exported (`git archive`) into a temporary folder; then, for
each round, a server of each tree (this checkout, the reference; the order swapped every round)
gets the websocket load of bench.load.ws (`--sessions` sessions on all pages for `--seconds`,
then `--per-page` seconds on each page alone) and is stopped. Reported: CPU-ms per action over
all actions and page by page, for each tree and round, and this tree's over the reference's
summed over the rounds, and each run's redraw p95 under the whole load. Both servers run this checkout's load client.

    python -m bench.load.ab --settings [--patches "theme,heap"] [--rounds 2] [--sessions 20] [--seconds 20] [--per-page 0]

measures this tree's HEAD commit alone at several settings of PEE_STOCK_STREAMLIT (ui/internals) and PEE_GC_UNFROZEN
(ui/heap.py) instead: every speed patch in place, none (stock Streamlit, the collector as CPython ships it), and each
patch left out in turn ("heap": the heap's freeze), every setting once per round in
an order reversed every other round. Reported: CPU-ms per action of each run, and per setting its
rounds' spread (the noise of the same tree, run twice), its CPU per action over all patches' and each round's redraw p95 (a
patch's gain is that ratio of the setting that leaves it out, worth keeping only when it exceeds the noise).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from bench.load.browser import percentile
from harness.pages import ROOT
from harness.server import Server, load_average


def export(ref: str, into: Path) -> str:
    """The tree of `ref` under `into`; returns its short hash."""
    short = subprocess.run(["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    data = subprocess.run(["git", "archive", "--format=tar", ref], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return short


def one_run(tree: Path, label: str, args: argparse.Namespace, out: Path, env: dict[str, str] | None = None) -> dict:
    """A server of `tree` (with `env` added to its environment) under the websocket load; the figures of its report."""
    server = Server(root=tree, log=out / f"server-{label}.log", env=env).start()
    report = out / f"{label}.json"
    report.unlink(missing_ok=True)  # never a previous run's figures
    try:
        cmd = [sys.executable, "-m", "bench.load.ws", "--url", server.url, "--server-pid", str(server.pid), "--sessions", str(args.sessions),
               "--seconds", str(args.seconds), "--per-page", str(args.per_page), "--json", str(report)]  # fmt: skip
        if args.pages:
            cmd += ["--pages", args.pages]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    finally:
        server.stop()
    if not report.exists():
        raise SystemExit(f"bench.load.ws wrote no report for {label} (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    data = json.loads(report.read_text())
    actions = sum(len(s["redraws_s"]) + len(s["switches_s"]) for s in data["sessions"])
    errors = sum(len(s["errors"]) for s in data["sessions"]) + sum(r["errors"] for r in data["per_page"])
    cpu_s = data["cpu"]["server_cores"] * data["cpu"]["wall_s"]
    redraws = [x for s in data["sessions"] for x in s["redraws_s"]]
    return {
        "all": {"actions": actions, "cpu_s": cpu_s},
        "p95": percentile(redraws, 95),
        "pages": {r["page"]: {"actions": r["actions"], "cpu_s": r["cpu_s"]} for r in data["per_page"]},
        "errors": errors,
    }


def ms(cell: dict) -> float | None:
    return 1000 * cell["cpu_s"] / cell["actions"] if cell["actions"] else None


def said(run: dict) -> str:
    """A run's redraw p95 and errors, for its progress line."""
    p95 = f"{run['p95']:.2f} s" if run["p95"] is not None else "-"
    return f"redraw p95 {p95}, {run['errors']} errors"


def table(runs: list[tuple[str, int, dict]]) -> list[str]:
    """Rows: all actions, each page; columns: every run, then this tree over the reference (sums of CPU over sums of actions)."""
    rows = ["all"] + list(runs[0][2]["pages"])
    head = " | ".join(f"{tree} {i + 1}" for tree, i, _ in runs)
    lines = [f"| CPU-ms per action | {head} | this / ref |", "|---" * (len(runs) + 2) + "|"]
    for row in rows:
        cells, totals = [], {"this": [0.0, 0], "ref": [0.0, 0]}
        for tree, _, run in runs:
            cell = run["all"] if row == "all" else run["pages"].get(row, {"actions": 0, "cpu_s": 0.0})
            value = ms(cell)
            cells.append(f"{value:.1f}" if value is not None else "-")
            totals[tree][0] += cell["cpu_s"]
            totals[tree][1] += cell["actions"]
        this, ref = (1000 * s / n if n else None for s, n in totals.values())
        ratio = f"**{this / ref:.2f}**" if this and ref else "-"
        lines.append(f"| {row} | {' | '.join(cells)} | {ratio} |")
    tails = {tree: [run["p95"] for t, _, run in runs if t == tree and run["p95"] is not None] for tree in ("this", "ref")}
    means = {tree: sum(v) / len(v) if v else None for tree, v in tails.items()}
    ratio = f"**{means['this'] / means['ref']:.2f}**" if means["this"] and means["ref"] else "-"
    cells = [f"{run['p95']:.2f}" if run["p95"] is not None else "-" for *_, run in runs]
    lines.append(f"| redraw p95 (s), whole load | {' | '.join(cells)} | {ratio} (of the means) |")
    return lines


def settings(only: str = "") -> list[tuple[str, dict[str, str]]]:
    """(name, environment) of each setting `--settings` runs: all patches, stock Streamlit, each patch left out
    (those named in `only`, comma-separated, when given)."""
    from ui.internals import STOCK_ENV
    from ui.internals.speed import PATCHES

    from ui.heap import OFF_ENV

    named = {n.strip() for n in only.split(",")}
    left_out = [name for name in PATCHES if not only or name in named]
    runs = [("all", {STOCK_ENV: ""}), ("stock", {STOCK_ENV: "1", OFF_ENV: "1"})] + [(f"no {name}", {STOCK_ENV: name}) for name in left_out]
    return runs + ([("no heap freeze", {OFF_ENV: "1"})] if not only or "heap" in named else [])


def settings_table(runs: list[tuple[str, int, dict]]) -> list[str]:
    """Per setting: CPU-ms per action of each round, the rounds' spread ((max - min) / mean), the setting's CPU
    per action over all patches' (sums of CPU over sums of actions) and the redraw p95 of each round."""
    by: dict[str, list[dict]] = {}
    p95: dict[str, list] = {}
    for name, _, run in runs:
        by.setdefault(name, []).append(run["all"])
        p95.setdefault(name, []).append(run.get("p95"))

    def per_action(cells: list[dict]) -> float:
        return 1000 * sum(c["cpu_s"] for c in cells) / max(1, sum(c["actions"] for c in cells))

    base = per_action(by["all"])
    rounds = max(len(cells) for cells in by.values())
    head = " | ".join(f"round {i + 1}" for i in range(rounds))
    lines = [f"| setting | {head} | spread of its rounds | CPU per action / all patches' | redraw p95 (s) of each round |", "|---" * (rounds + 4) + "|"]
    for name, cells in by.items():
        values = [ms(c) or 0.0 for c in cells]
        spread = (max(values) - min(values)) / (sum(values) / len(values)) if sum(values) else 0.0
        tails = " / ".join(f"{t:.2f}" if t is not None else "-" for t in p95[name])
        lines.append(f"| {name} | {' | '.join(f'{v:.1f}' for v in values)} | {100 * spread:.0f} % | **{per_action(cells) / base:.2f}** | {tails} |")
    return lines


def main_settings(args: argparse.Namespace) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="pee-ab-"))
    try:
        here = export("HEAD", tmp)  # the commit, as the ref mode serves its reference: edits made while it runs are not measured
        return settings_runs(tmp, here, args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def settings_runs(tree: Path, here: str, args: argparse.Namespace) -> int:
    chosen = settings(args.patches)
    print(f"this tree {here} at {len(chosen)} settings of PEE_STOCK_STREAMLIT; load before: {load_average()}", flush=True)
    runs = []
    for i in range(args.rounds):
        order = chosen if i % 2 == 0 else chosen[::-1]
        for name, env in order:
            run = one_run(tree, f"{name.replace(' ', '-')}-{i + 1}", args, args.out, env=env)
            print(f"round {i + 1} {name}: {ms(run['all']):.1f} CPU-ms per action over {run['all']['actions']} actions, {said(run)}", flush=True)
            runs.append((name, i, run))
    print(f"load at the end: {load_average()}\n")
    print("\n".join(settings_table(runs)))
    return 0 if all(run["errors"] == 0 for *_, run in runs) else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ref", default="9050b89", help="the commit to compare with")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--sessions", type=int, default=20)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--per-page", type=float, default=8)
    p.add_argument("--pages", default="", help="comma-separated page names (default: every page)")
    p.add_argument("--out", type=Path, default=ROOT / "artifacts" / "ab")
    p.add_argument("--settings", action="store_true", help="HEAD at each setting of PEE_STOCK_STREAMLIT instead of against --ref")
    p.add_argument("--patches", default="", help="with --settings: the patches to leave out one at a time (default: every one)")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.settings:
        return main_settings(args)
    here = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="pee-ab-"))
    try:
        ref = export(args.ref, tmp)
        print(f"this tree {here}{' with uncommitted changes' if dirty else ''} against {ref}; load before: {load_average()}", flush=True)
        runs = []
        for i in range(args.rounds):
            order = [("this", ROOT), ("ref", tmp)] if i % 2 == 0 else [("ref", tmp), ("this", ROOT)]
            for tree, root in order:
                run = one_run(root, f"{tree}-{i + 1}", args, args.out)
                print(f"round {i + 1} {tree}: {ms(run['all']):.1f} CPU-ms per action over {run['all']['actions']} actions, {said(run)}", flush=True)
                runs.append((tree, i, run))
        runs.sort(key=lambda r: (r[0] != "this", r[1]))
        print(f"load at the end: {load_average()}\n")
        print("\n".join(table(runs)))
        return 0 if all(run["errors"] == 0 for *_, run in runs) else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
