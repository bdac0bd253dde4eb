"""Regenerate the language model's shipped results (data/llm_<name>_results.json), measure its budgets,
and check a rerun against what is shipped.

    python -m bench.llm attention frequencies          # the cheap ones (a few CPU-minutes)
    python -m bench.llm perplexity --length 8192 --kinds none,linear,ntk,yarn --factors 2
    python -m bench.llm passkey --lengths 1024,2048,4096 --depths 0,0.25,0.5,0.75,1 --kinds none
    python -m bench.llm attention --check              # rerun and compare with the shipped numbers
    python -m bench.llm --measure                      # first load, RSS added, attention of 64 tokens, perplexity of 2,048
    python -m bench.llm --during-live --sessions 10    # other visitors' slider steps, without and then during a live /llm run

Each file records its exact configuration, the command, the CPU seconds of every item and of the whole
(this process, one thread), the peak RSS, the machine and the date, and what its grid leaves out.
Targets: each experiment's shipped results regenerate in at most 90 CPU-minutes; first load <= 15 s,
RSS added by the model <= 600 MB, attention for 64 tokens <= 3 CPU-s, perplexity of 2,048 tokens <= 30 CPU-s.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path
from typing import Any

from core.llm import experiments, registry
from core.llm.registry import RECORDS
from core.viz.llm_figures import label_name

WHOLE_CPU_S = 90 * 60.0
CHECK_RTOL = 1e-5
TARGETS = {"first_load_s": 15.0, "rss_added_mb": 600.0, "attention_64_cpu_s": 3.0, "perplexity_2048_cpu_s": 30.0}


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def meta(cpu: dict[str, float], start_cpu: float, start_wall: float, load: tuple[float, ...]) -> dict[str, Any]:
    import gguf  # noqa: F401 - present whenever the model ran
    import torch

    return {
        "total_seconds": round(time.perf_counter() - start_wall, 1),
        "total_cpu_seconds": round(time.process_time() - start_cpu, 1),
        "cpu_seconds": {k: round(v, 2) for k, v in cpu.items()},
        "peak_rss_mb": round(peak_rss_mb()),
        "load_average_before": [round(x, 2) for x in load],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__, "platform": platform.platform()},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def run(record, args) -> tuple[dict, dict[str, float], list]:
    """Every config of the record's bench for these options, one after the other: the results, CPU seconds by item, the Outcomes."""
    outcomes, cpu = [], {}
    for config in record.bench.configs(args):
        outcome = record.run(config)
        outcomes.append(outcome)
        cpu.update(outcome.values["cpu"])
        print(f"  {record.said(config, outcome)} {outcome.cpu_seconds:.1f} s CPU", flush=True)
    return record.bench.results(outcomes), cpu, outcomes


def write(record, args, values: dict, run_meta: dict, not_run: list[str] = ()) -> None:
    """The record's results file as every run of its command writes it (and --merge of its pieces, naming the
    command's rows no piece holds yet: `not_run`)."""
    command = record.command + record.bench.options(args)
    file = record.file
    left_out = record.bench.left_out(args)
    if not_run:
        named = "" if any("|" in row for row in not_run) else f" ({'; '.join(label_name(row) for row in not_run)})"  # a grid's cells: too many
        left_out += f" Not run yet: {len(not_run)} of the command's {len(not_run) + len(values)} runs{named}."
        run_meta = run_meta | {"not_run": list(not_run)}  # the page draws a grid's cells not run as such, never as wrong
    out = {"command": command, "config": record.bench.describe(args), "results": values, "left_out": left_out, "meta": run_meta}
    file.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {file} ({file.stat().st_size:,} bytes)")


def merge(name: str, args, folder: Path) -> int:
    """Write `name`'s results from pieces in `folder` ({"config", "values", "cpu", "wall"}: what one run of a part of
    the command's configs returned), as one run of the command would: its rows in the command's order, the CPU seconds
    of every piece. The rows the shipped file already holds of a config the new command runs too (the same config,
    length and all) are kept, with their CPU and wall seconds. Rows of the command that nothing holds are left out of
    the file, and its left_out sentence says how many. Wall time is kept per row (meta "wall_seconds"), so each row's
    is counted once however often the file is merged again."""
    record = RECORDS[name]
    rows, cpu, wall = {}, {}, {}
    try:
        old = record.load()
    except ValueError:
        old = None  # no shipped file yet: the pieces alone
    if old is not None:
        same = set(record.bench.configs(registry.arguments(old.command))) & set(record.bench.configs(args))
        keys = {key for config in same for key in _keys(record, config)}
        rows = {key: row for key, row in old.results.items() if key in keys}
        cpu = {key: seconds for key, seconds in old.meta.get("cpu_seconds", {}).items() if key in rows}
        wall = _kept_walls(old.meta, len(old.results), rows)
    from_file, pieces = set(rows), 0
    for piece in sorted(folder.glob(f"{PIECES[name]}_*.json")):
        try:
            got = json.loads(piece.read_text())
        except ValueError:  # a piece still being written: it is left for the next merge
            print(f"{name}: {piece.name} cannot be read yet, left out", file=sys.stderr)
            continue
        rows.update(got["values"])
        cpu.update(got["cpu"])
        from_file -= set(got["values"])
        pieces += 1
        share = round(float(got.get("wall", 0.0)) / max(len(got["values"]), 1), 2)  # a piece's wall, split over its rows
        wall.update(dict.fromkeys(got["values"], share))
    wanted = [key for config in record.bench.configs(args) for key in _keys(record, config)]
    values = {key: rows[key] for key in wanted if key in rows}
    missing = [key for key in wanted if key not in rows]
    unasked = sorted(set(rows) - set(wanted))
    if unasked:
        print(f"{name}: pieces hold rows the command does not ask for, not written: {', '.join(unasked)}", file=sys.stderr)
    if not values:
        print(f"{name}: no pieces in {folder}", file=sys.stderr)
        return 1
    import torch

    own = len(from_file & set(values))  # the file's rows no piece replaced
    run_meta = {
        "total_seconds": round(sum(wall.get(k, 0.0) for k in values), 1),
        "total_cpu_seconds": round(sum(cpu[k] for k in values if k in cpu), 1),
        "cpu_seconds": {k: round(cpu[k], 2) for k in values if k in cpu},
        "wall_seconds": {k: wall[k] for k in values if k in wall},
        "merged_from": f"{pieces} piece{'s' if pieces != 1 else ''}, each one run of a part of the command in a process of its own, and {own} rows of the "
        "file before (wall: each row's once, its piece's or its share of the run that wrote it; no peak RSS recorded)",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__, "platform": platform.platform()},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }  # fmt: skip
    write(record, args, values, run_meta, missing)
    if missing:
        print(f"{name}: {len(missing)} of the command's rows have no piece yet: {', '.join(missing)}")
    return 0


PIECES = {"perplexity": "ppl", "passkey": "pk"}  # the file names of the pieces (ppl_*.json, pk_*.json) a merge reads


def _kept_walls(meta: dict, rows_before: int, kept: dict) -> dict[str, float]:
    """The wall seconds of each kept row: as a merge recorded them, or else (a file one run of the whole command wrote)
    an equal share of that run's wall."""
    if "wall_seconds" in meta:
        return {key: seconds for key, seconds in meta["wall_seconds"].items() if key in kept}
    share = round(float(meta.get("total_seconds", 0.0)) / max(rows_before, 1), 2)
    return dict.fromkeys(kept, share)


def _keys(record, config) -> list[str]:
    """The rows of the results file that `config` writes (a passkey cell's key; a scaling's label)."""
    return [config.key] if hasattr(config, "key") else [registry.scaling_key(config.scaling, config.factor)]


def compare(name: str, rows: list) -> list[str]:
    """Where a rerun differs from the shipped numbers (beyond CHECK_RTOL), as sentences."""
    problems = []
    for what, live, shipped, _ in rows:
        if live is None or abs(live - shipped) > CHECK_RTOL * max(abs(shipped), 1e-12) + 1e-9:
            problems.append(f"{what}: live {live} shipped {shipped}")
    return problems


def measure() -> int:
    """The budgets: first load (wall and CPU, RSS added), attention of 64 tokens, perplexity of 2,048 tokens."""
    import gguf  # noqa: F401 - imported before the baseline, as the page has it imported
    import tokenizers  # noqa: F401

    from core.llm import model

    base, wall, cpu = rss_mb(), time.perf_counter(), time.process_time()
    m = model.load()
    figures = {"first_load_s": time.perf_counter() - wall, "first_load_cpu_s": time.process_time() - cpu, "rss_added_mb": rss_mb() - base}
    import torch  # noqa: F401 - the forward's import, not counted in the model's load

    text = experiments.held_out_text()[:2000]
    ids = m.tokenizer.encode(text)[:64]
    experiments.attention(m.tokenizer.decode(ids[:8]), "trained")  # warm-up: torch's first call
    r = experiments.attention(m.tokenizer.decode(ids), "trained")
    figures["attention_64_tokens"] = len(r.tokens)
    figures["attention_64_cpu_s"] = r.cpu_seconds
    p = experiments.perplexity(2048)
    figures["perplexity_2048_cpu_s"] = p.cpu_seconds
    figures["perplexity_2048"] = p.perplexity
    figures["peak_rss_mb"] = peak_rss_mb()
    status = 0
    for key, value in figures.items():
        target = TARGETS.get(key)
        verdict = "" if target is None else f"  [target {target:g}: {'ok' if value <= target else 'FAIL'}]"
        status |= bool(target is not None and value > target)
        print(f"{key}: {value:.2f}{verdict}")
    return status


def during_live(sessions: int, length: int, think: float, quiet_s: float) -> int:
    """Other visitors' slider steps on one server (python -m streamlit run app.py): first `quiet_s` seconds with no live run,
    then while one /llm session runs a live perplexity of `length` tokens through the lab's line; p50 and p95 of each phase
    and their ratio (the machine is shared: the quiet phase is the reference). Target: p95 during the run < 1 s."""
    import asyncio

    from bench.load.browser import fmt, percentile
    from bench.load.lab_line import LabTab, Trainee
    from harness.pages import app_pages
    from harness.server import Server, load_average
    from harness.ws import WsVisitor, warm_up

    class LlmTab(LabTab):
        """The /llm tab: its Run button and the progress bar of its live perplexity (LabTab's poll, on another page)."""

        BUTTON = "-llm_live_go"

    async def phases(base_url: str) -> tuple[list[float], list[float], Trainee]:
        await warm_up(base_url, app_pages())
        pages = [p for p in app_pages() if p.name not in ("llm", "lab")]

        async def room(until: list[float]) -> list[float]:
            visitors = [WsVisitor(i, base_url, pages, think) for i in range(sessions)]
            results = await asyncio.gather(*(v.run(until) for v in visitors))
            return [x for r in results for x in r.redraws_s]

        quiet = await room([time.monotonic() + quiet_s])
        t0, trainee = [time.monotonic()], Trainee("live /llm run")
        query = f"llm_view=Past+the+trained+context&llm_scaling=none&llm_length={length}"
        tab = LlmTab(base_url, "st_route=llm-live", query, trainee, t0, timeout=600.0, address="198.51.100.7")
        tab.page = next(p for p in app_pages() if p.name == "llm")
        press = asyncio.Event()
        live = asyncio.create_task(tab.run(press, 0.0, 1.0, 900.0))  # opens /llm (the model is read once), presses Run, polls until done
        await tab.opened.wait()
        until = [float("inf")]
        busy = asyncio.create_task(room(until))
        await asyncio.sleep(3.0)  # the visitors' first page runs
        t0[0] = time.monotonic()
        press.set()
        await live
        until[0] = time.monotonic()
        return quiet, await busy, trainee

    server = Server(log=Path("artifacts") / "llm-live-server.log").start()
    load_before = load_average()
    try:
        quiet, busy, trainee = asyncio.run(phases(server.url))
    finally:
        server.stop()
    p95_quiet, p95_busy = percentile(quiet, 95), percentile(busy, 95)
    print(f"machine load (1/5/15 min): before {load_before}; at the end {load_average()}")
    print(f"{sessions} visitors moving sliders (think {think:g} s) on every page but /llm and /lab")
    print(f"no live run ({quiet_s:g} s): {len(quiet)} steps, p50 {fmt(percentile(quiet, 50))}, p95 {fmt(p95_quiet)}")
    print(f"during a live perplexity of {length:,} tokens ({trainee.states}, {trainee.errors or 'no errors'}): {len(busy)} steps, "
          f"p50 {fmt(percentile(busy, 50))}, p95 {fmt(p95_busy)}")  # fmt: skip
    ratio = p95_busy / p95_quiet if p95_quiet and p95_busy else float("nan")
    ok = bool(busy) and p95_busy is not None and p95_busy < 1.0 and not trainee.errors
    print(f"p95 during / without: {ratio:.2f}; target p95 during the run < 1 s: {'ok' if ok else 'FAIL'}")
    return 0 if ok else 1


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.llm", description=__doc__.splitlines()[0], parents=[registry.OPTIONS])
    parser.add_argument("names", nargs="*", help=f"which results to regenerate: {', '.join(RECORDS)}")
    parser.add_argument("--check", action="store_true", help="rerun the shipped configuration of each name and compare (nothing is written)")
    parser.add_argument("--measure", action="store_true", help="measure the budgets")
    parser.add_argument("--during-live", action="store_true", help="other visitors' slider steps without and during a live /llm run")
    parser.add_argument("--sessions", type=int, default=10, help="--during-live: visitors moving sliders (default 10)")
    parser.add_argument("--live-length", type=int, default=2048, help="--during-live: tokens the live perplexity reads (default 2048)")
    parser.add_argument("--merge", type=Path, help="write each name's results from the pieces in this folder, as one run of the command would")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.measure:
        return measure()
    if args.during_live:
        return during_live(args.sessions, args.live_length, 1.0, 30.0)
    if not args.names:
        print("name at least one of: " + ", ".join(RECORDS), file=sys.stderr)
        return 2
    status = 0
    unknown = [n for n in args.names if n not in RECORDS]
    if unknown:
        print(f"unknown results {', '.join(unknown)}: name some of {', '.join(RECORDS)}", file=sys.stderr)
        return 2
    for name in args.names:
        record = RECORDS[name]
        if args.merge:
            status |= merge(name, args, args.merge)
            continue
        shipped = record.load() if args.check else None
        run_args = registry.arguments(shipped.command) if shipped else args
        load, wall, cpu = os.getloadavg(), time.perf_counter(), time.process_time()
        print(f"{name}: load average {load[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
        values, cpu_items, outcomes = run(record, run_args)
        run_meta = meta(cpu_items, cpu, wall, load)
        total = run_meta["total_cpu_seconds"]
        ok = total <= WHOLE_CPU_S
        verdict = f"[target {WHOLE_CPU_S:.0f}: {'ok' if ok else 'FAIL'}]"
        print(f"{name}: {run_meta['total_seconds']:.0f} s wall, {total:.0f} s CPU {verdict}, peak RSS {run_meta['peak_rss_mb']} MB")
        status |= not ok
        if shipped:
            _, against = record.bench.check(shipped)
            problems = compare(name, against(outcomes))
            for line in problems[:20]:
                print("  DIFFERENT " + line)
            print(f"{name}: rerun matches the shipped numbers to {CHECK_RTOL:g}: {'ok' if not problems else 'FAIL'}")
            status |= bool(problems)
        else:
            write(record, args, values, run_meta)
            if record.bench.after is not None:
                record.bench.after(outcomes)
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
