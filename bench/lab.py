"""`python -m bench.lab [--tasks [--seeds N ...] [--write]] [--json PATH]`: the lab's targets.

- one scheme (the default config: RoPE on "the token k places back") reaches >= 95 % accuracy
  at the training length within 20 s;
- the default comparison of all schemes (the page's default selection, run the way the page
  runs it: one background LabRun, no cache) finishes within 2 minutes;
- peak memory (RSS of this process, torch included) stays under 1 GB.

`--tasks` also trains every default scheme on each candidate task with each training seed of `--seeds`
(0, 1 and 2 unless given) and prints accuracy at the training length and at 4x, the numbers behind the
page's choice of task; `--write` puts them, every seed's, in data/lab_tasks_results.json, which the lab's
"Why this task" and /practice's answers read (core.lab.config.survey). Prints a report on
stdout and exits with status 1 when a target fails. Times depend on what else the machine runs:
the load average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

from core.lab.config import SURVEY_LENGTHS, SURVEY_PATH, LabConfig
from core.lab.entry import train
from core.lab.labrun import LabRun
from core.lab.lm import DEFAULT_SCHEMES  # the lab page's default selection

ONE_SCHEME_S = 20.0
ALL_SCHEMES_S = 120.0
PEAK_RSS_MB = 1024.0
TARGET_ACCURACY = 0.95
TASK_CASES = {  # the survey's column (core.lab.config.SURVEY_COLUMNS): config changes
    "kback1": {},
    "kback3": {"offset": 3},
    "copy": {"task": "copy", "n_layers": 2},
    "reverse": {"task": "reverse", "n_layers": 2},
}
SEEDS = (0, 1, 2)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports kB


def one_scheme() -> dict:
    config = LabConfig()
    start = time.perf_counter()
    result = train(config)
    seconds = time.perf_counter() - start
    accuracy = result.accuracy[config.train_len]
    return {
        "scheme": config.scheme,
        "steps": config.steps,
        "seconds": seconds,
        "accuracy_at_train_len": accuracy,
        "ok": accuracy >= TARGET_ACCURACY and seconds <= ONE_SCHEME_S,
    }


def all_schemes(changes: dict | None = None) -> dict:
    configs = [LabConfig(scheme=name, **(changes or {})) for name in DEFAULT_SCHEMES]
    cpu = time.process_time()
    start = time.perf_counter()
    run = LabRun(configs).start()
    run.wait()
    seconds = time.perf_counter() - start
    rows = {c.scheme: {"seconds": run.results[i].seconds, "accuracy": {str(n): a for n, a in run.results[i].accuracy.items()}} for i, c in enumerate(configs)}
    cpu = time.process_time() - cpu  # the runs' threads are this process's
    return {"seconds": seconds, "cpu_seconds": cpu, "schemes": rows, "ok": seconds <= ALL_SCHEMES_S and len(run.results) == len(configs)}


def survey(seeds: list[int]) -> dict:
    """Every default scheme on every task of TASK_CASES with each training seed: accuracy at the survey's lengths."""
    short, long = SURVEY_LENGTHS
    by_seed: dict[str, dict] = {}
    cpu = 0.0
    for seed in seeds:
        by_seed[str(seed)] = cells = {}
        for task, changes in TASK_CASES.items():
            result = all_schemes({**changes, "seed": seed})  # the default lengths: the evaluation draws its sequences in their order
            cpu += result["cpu_seconds"]
            cells[task] = {s: [r["accuracy"][str(short)], r["accuracy"][str(long)]] for s, r in result["schemes"].items()}
            line = "  ".join(f"{s}: {_acc(a)} -> {_acc(b)}" for s, (a, b) in cells[task].items())
            print(f"  seed {seed} {task:8s} {line}", flush=True)
    return {
        "config": {"steps": LabConfig().steps, "train_len": LabConfig().train_len, "lengths": [short, long], "tasks": TASK_CASES},
        "seeds": sorted(seeds),
        "by_seed": by_seed,
        "cpu_seconds": round(cpu, 1),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "date": time.strftime("%Y-%m-%d"),
    }


def _acc(value: float | None) -> str:
    return "no code" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lab", description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", action="store_true", help="also compare the candidate tasks (about 4x the comparison's time per seed)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), help="the training seeds of --tasks (default: 0 1 2)")
    parser.add_argument("--write", action="store_true", help=f"write --tasks' results to {SURVEY_PATH.relative_to(SURVEY_PATH.parents[1])}")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON to PATH")
    args = parser.parse_args(argv)
    out: dict = {"load_average_before": os.getloadavg(), "cpus": os.cpu_count()}
    print(f"load average {out['load_average_before'][0]:.1f} on {out['cpus']} CPUs", file=sys.stderr, flush=True)
    out["one_scheme"] = one = one_scheme()
    print(
        f"one scheme ({one['scheme']}, {one['steps']} steps): {one['seconds']:.1f} s, accuracy at the training length {one['accuracy_at_train_len']:.3f}  "
        f"[target >= {TARGET_ACCURACY:.0%} within {ONE_SCHEME_S:.0f} s: {'ok' if one['ok'] else 'FAIL'}]"
    )
    out["all_schemes"] = every = all_schemes()
    print(f"all schemes ({', '.join(DEFAULT_SCHEMES)}): {every['seconds']:.1f} s  [target {ALL_SCHEMES_S:.0f} s: {'ok' if every['ok'] else 'FAIL'}]")
    lens = LabConfig().eval_lens
    for name, row in every["schemes"].items():
        print(f"  {name:11s} {row['seconds']:5.1f} s  " + "  ".join(f"@{n}: {_acc(row['accuracy'][str(n)])}" for n in lens))
    if args.tasks:
        print(f"\ntasks: accuracy at {' -> '.join(map(str, SURVEY_LENGTHS))} tokens ({LabConfig().steps} steps), seeds {', '.join(map(str, args.seeds))}")
        out["tasks"] = survey(args.seeds)
        if args.write:
            command = "python -m bench.lab --tasks --write" + ("" if tuple(args.seeds) == SEEDS else " --seeds " + " ".join(map(str, args.seeds)))
            SURVEY_PATH.write_text(json.dumps({"command": command, **out["tasks"]}, indent=1) + "\n", encoding="utf-8")
            print(f"wrote {SURVEY_PATH} ({out['tasks']['cpu_seconds']:.0f} CPU-s)")
    out["peak_rss_mb"] = rss = peak_rss_mb()
    print(f"peak RSS {rss:.0f} MB  [target {PEAK_RSS_MB:.0f} MB: {'ok' if rss <= PEAK_RSS_MB else 'FAIL'}]")
    out["load_average_after"] = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0 if one["ok"] and every["ok"] and rss <= PEAK_RSS_MB else 1


if __name__ == "__main__":
    sys.exit(main())
