"""Regenerate the language model's shipped results (data/llm_<name>_results.json), measure its budgets,
and check a rerun against what is shipped.

    python -m bench.llm attention frequencies          # the cheap ones (a few CPU-minutes)
    python -m bench.llm perplexity --length 8192 --kinds none,linear,ntk,yarn --factors 2
    python -m bench.llm passkey --lengths 1024,2048,4096 --depths 0,0.25,0.5,0.75,1 --kinds none
    python -m bench.llm attention --check              # rerun and compare with the shipped numbers
    python -m bench.llm --measure                      # first load, RSS added, attention of 64 tokens, perplexity of 2,048

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
        left_out += f" Not run yet, and drawn as not run: {len(not_run)} of the command's {len(not_run) + len(values)} cells."
    out = {"command": command, "config": record.bench.describe(args), "results": values, "left_out": left_out, "meta": run_meta}
    if not_run:
        out["not_run"] = list(not_run)
    file.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {file} ({file.stat().st_size:,} bytes)")


def merge(name: str, args, folder: Path) -> int:
    """Write `name`'s results from pieces in `folder` ({"config", "values", "cpu", "wall"}: what one run of a part of
    the command's configs returned), as one run of the command would: its rows in the command's order, the CPU seconds
    of every piece. Rows of the command that no piece holds are left out of the file, and its left_out sentence names them."""
    record = RECORDS[name]
    rows, cpu, wall = {}, {}, 0.0
    for piece in sorted(folder.glob(f"{PIECES[name]}_*.json")):
        got = json.loads(piece.read_text())
        rows.update(got["values"])
        cpu.update(got["cpu"])
        wall += float(got.get("wall", 0.0))
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

    run_meta = {
        "total_seconds": round(wall, 1), "total_cpu_seconds": round(sum(cpu[k] for k in values if k in cpu), 1),
        "cpu_seconds": {k: round(cpu[k], 2) for k in values if k in cpu},
        "merged_from": f"{len(values)} pieces, each one run of a part of the command in a process of its own (wall: their sum; no peak RSS recorded)",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__, "platform": platform.platform()},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }  # fmt: skip
    write(record, args, values, run_meta, missing)
    if missing:
        print(f"{name}: {len(missing)} of the command's rows have no piece yet: {', '.join(missing)}")
    return 0


PIECES = {"perplexity": "ppl", "passkey": "pk"}  # the file names of the pieces (ppl_*.json, pk_*.json) a merge reads


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


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.llm", description=__doc__.splitlines()[0], parents=[registry.OPTIONS])
    parser.add_argument("names", nargs="*", help=f"which results to regenerate: {', '.join(RECORDS)}")
    parser.add_argument("--check", action="store_true", help="rerun the shipped configuration of each name and compare (nothing is written)")
    parser.add_argument("--measure", action="store_true", help="measure the budgets")
    parser.add_argument("--merge", type=Path, help="write each name's results from the pieces in this folder, as one run of the command would")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.measure:
        return measure()
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
