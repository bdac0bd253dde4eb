"""The benches of the lab's experiments on trained models, one command for every experiment of
core.lab.registry: run its bench's configurations (core.lab.experiment.Bench: its record's `bench`,
or BENCH in bench.lab_<name>) the way the page does (one background core.lab.labrun.LabRun of
its record's core.lab.labrun.Job, no cache, no budget), time them (wall and CPU seconds, peak
memory of this process), write the shipped results with their exact configuration, seed, command
and machine, and check a rerun against them.

    python -m bench.lab_experiments NAME [--no-write | --check | --seeds S ...]   # NAME probe: the same as python -m bench.lab_probe

Every experiment is run on the models of each training seed (core.lab.weights.SEEDS), so the
findings can tell a difference from seed noise; `--check` reruns a part and compares it with the
shipped seed 0 to the last digits (the same machine) and with the seeds' spread (any machine).

Targets, measured here: the whole shipped experiment, every seed, regenerates in at most
15 CPU-minutes on one core; peak RSS at most 1 GB.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import platform
import resource
import sys
import time
from dataclasses import replace
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from core.lab import experiment
from core.lab.experiment import Bench, Experiment
from core.lab.registry import EXPERIMENTS, of
from core.lab.labrun import LabRun, experiment_job
from core.lab.weights import SEEDS

WHOLE_CPU_S = 15 * 60.0
PEAK_RSS_MB = 1024.0
CHECK_RTOL = 1e-6  # a rerun with the same seed on the same machine and torch agrees to the last digits


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports kB


def run(configs: Sequence[Any]) -> tuple[LabRun, float, float]:
    """One background LabRun of `configs`, as the page runs them: (run, wall seconds, CPU seconds of the process)."""
    start, cpu = time.perf_counter(), time.process_time()
    job = replace(experiment_job(of(configs[0])), budget=lambda configs: None, wall_seconds=float("inf")).start(list(configs))
    job.wait()
    return job, time.perf_counter() - start, time.process_time() - cpu


def cpu_by_label(labelled: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Each run's CPU seconds under its label. Two runs under one label would leave only the later
    one's figure under it, so a repeated label is refused, naming it."""
    found: dict[str, float] = {}
    for label, seconds in labelled:
        if label in found:
            raise ValueError(f"two runs are labelled {label!r}: give each configuration a label of its own (the bench's `label`)")
        found[label] = round(seconds, 2)
    return found


def outcomes(configs: Sequence[Any], label: Callable[[Any], str] = lambda config: config.label) -> tuple[list[Any], dict[str, Any]]:
    """Run `configs`; (their Outcomes in order, the timing and machine record, each run's CPU time under
    `label` of its configuration). Exits on a failure."""
    labels = [label(c) for c in configs]
    cpu_by_label((name, 0.0) for name in labels)  # refused before anything is trained
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} on {os.cpu_count()} CPUs; {len(configs)} runs", file=sys.stderr, flush=True)
    job, wall, cpu = run(configs)
    failed = [p for p in job.progress if p.state != "done"]
    for p in failed:
        print(f"{p.label or p.scheme}: {p.state} {p.message}")
    if failed:
        sys.exit(1)
    results = [job.results[i] for i in range(len(configs))]
    for r in results:
        print(f"  {label(r.config)}: {r.cpu_seconds:.1f} s CPU", flush=True)
    import torch

    meta = {
        "total_seconds": round(wall, 1),
        "total_cpu_seconds": round(cpu, 1),
        "cpu_seconds": cpu_by_label(zip(labels, (r.cpu_seconds for r in results))),
        "peak_rss_mb": round(peak_rss_mb()),
        "load_average_before": [round(x, 2) for x in load],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__, "platform": platform.platform()},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    return results, meta


def report(meta: dict[str, Any]) -> int:
    """Print the targets; 0 when both hold."""
    cpu, rss = meta["total_cpu_seconds"], meta["peak_rss_mb"]
    ok_cpu, ok_rss = cpu <= WHOLE_CPU_S, rss <= PEAK_RSS_MB
    print(f"whole experiment {meta['total_seconds']:.1f} s wall, {cpu:.1f} s CPU  [target {WHOLE_CPU_S:.0f} s CPU: {'ok' if ok_cpu else 'FAIL'}]")
    print(f"peak RSS {rss:.0f} MB  [target {PEAK_RSS_MB:.0f} MB: {'ok' if ok_rss else 'FAIL'}]")
    return 0 if ok_cpu and ok_rss else 1


def close(live: float | None, shipped: float | None) -> bool:
    if live is None or shipped is None:
        return live is None and shipped is None
    return abs(live - shipped) <= CHECK_RTOL * abs(shipped)


def within_spread(live: float | None, seeds: Sequence[float | None]) -> bool:
    """Whether a rerun's value lies among the shipped seeds' values, widened on each side by their range (at least 1 % of
    their mean): another CPU's rounding moves a trained model about as far as another seed does, and three seeds' range
    is narrower than the spread of a fourth."""
    if live is None or any(v is None for v in seeds):
        return live is None and all(v is None for v in seeds)
    lo, hi = min(seeds), max(seeds)  # type: ignore[type-var]
    margin = max(hi - lo, 0.01 * abs(sum(seeds) / len(seeds)))  # type: ignore[arg-type,operator]
    return lo - margin <= live <= hi + margin


def seed_values(shipped: experiment.Shipped, pick: Callable[[dict[str, Any]], float | None]) -> list[float | None]:
    """`pick` applied to every seed's results of the shipped file (the one layout there is when it has no `by_seed`)."""
    by_seed = shipped.results.get("by_seed") or {str(shipped.seed): shipped.results}
    return [pick(by_seed[s]) for s in sorted(by_seed, key=int)]


def merged(name: str, seeds: Sequence[int], per_seed: dict[int, dict[str, Any]], meta: dict[str, Any], command: str) -> tuple[dict, dict]:
    """The results and meta to write when only `seeds` were run: the other seeds' results and CPU record are kept from the
    shipped file, when there is one (a file without `by_seed` holds seed 0), and the runs that made them are listed in meta["runs"]."""
    by_seed = {str(s): r for s, r in per_seed.items()}
    cpu_by_seed = {str(s): meta["cpu_seconds"][str(s)] for s in seeds}
    runs = [{"seeds": list(seeds), "command": command, **{k: meta[k] for k in ("total_seconds", "total_cpu_seconds", "date")}}]
    if set(seeds) != set(SEEDS) and experiment.results_path(name).exists():  # a first run of some seeds keeps nothing
        old = experiment.load(name)
        kept = set().union(*(r.keys() for r in per_seed.values()))  # what the bench writes now: a key it no longer writes is not kept
        old_by_seed = old.results.get("by_seed") or {str(old.seed): {k: v for k, v in old.results.items() if k in kept}}
        old_cpu = old.meta.get("cpu_seconds_by_seed") or {str(old.seed): old.meta.get("cpu_seconds", {})}
        old_runs = old.meta.get("runs") or [
            {"seeds": [old.seed], "command": old.command, **{k: old.meta.get(k) for k in ("total_seconds", "total_cpu_seconds", "date")}}
        ]
        for s in SEEDS:
            if str(s) not in by_seed and str(s) in old_by_seed:
                by_seed[str(s)], cpu_by_seed[str(s)] = old_by_seed[str(s)], old_cpu.get(str(s), {})
        runs = [r for r in old_runs if not set(r["seeds"]) <= set(seeds)] + runs
    order = sorted(by_seed, key=int)
    results = {**by_seed[order[0]], "seeds": [int(s) for s in order], "by_seed": {s: by_seed[s] for s in order}}
    out = dict(meta)
    out["cpu_seconds"] = {label: cpu for s in order for label, cpu in cpu_by_seed[s].items()}
    out["cpu_seconds_by_seed"] = {s: cpu_by_seed[s] for s in order}
    out["runs"] = runs
    out["total_cpu_seconds"] = round(sum(r["total_cpu_seconds"] or 0.0 for r in runs), 1)
    out["total_seconds"] = round(sum(r["total_seconds"] or 0.0 for r in runs), 1)
    return results, out


Row = tuple[str, float | None, float | None, list[float | None]]


def bench_of(record: Experiment) -> Bench:
    """An experiment's bench: its record's, or BENCH of its bench module (bench.lab_<name>)."""
    if record.bench is not None:
        return record.bench
    return importlib.import_module(f"bench.lab_{record.name}").BENCH


def main(name: str, argv: list[str] | None = None) -> int:
    """The command line every experiment bench has: run every training seed and write (default; `--seeds` runs some and
    keeps the others' shipped results), --no-write, --check, and the bench's own runs (`Bench.extra`, each a flag).
    `bench.configs(seed)` are one seed's runs, `bench.results` makes one seed's layout from their Outcomes; the file holds
    seed 0's layout at its top level (as before seeds were added) and every seed's under `by_seed`."""
    record = EXPERIMENTS[name]
    bench = bench_of(record)
    parser = argparse.ArgumentParser(prog=record.command, description=f"{record.title}: {record.question}")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--check", action="store_true", help="rerun a part of the shipped experiment through the runner and compare")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), choices=SEEDS, help="the training seeds to run (default: all)")
    for flag, run_extra in bench.extra.items():
        parser.add_argument(f"--{flag}", action="store_true", help=(run_extra.__doc__ or flag).strip().splitlines()[0])
    args = parser.parse_args(argv)
    for flag, run_extra in bench.extra.items():
        if getattr(args, flag.replace("-", "_")):
            return run_extra()
    command = record.command + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    if args.check:
        shipped = record.load()
        again, compare = bench.check(shipped)
        got, meta = outcomes(again, bench.label)
        rows = compare(got)
        for what, live, ref, seeds in rows:
            print(
                f"{what}: live {live} shipped {ref}  [{'same' if close(live, ref) else 'DIFFERENT'}]; seeds {seeds}  "
                f"[{'within the spread' if within_spread(live, seeds) else 'OUTSIDE the spread'}]"
            )
        exact = all(close(live, ref) for _, live, ref, _ in rows)
        spread = all(within_spread(live, seeds) for _, live, _, seeds in rows)
        cost = f"{meta['total_cpu_seconds']:.1f} s CPU, peak RSS {meta['peak_rss_mb']} MB"
        print(f"rerun matches the shipped numbers to {CHECK_RTOL:g} (the same machine and torch): {'ok' if exact else 'no'}  ({cost})")
        print(f"rerun lies within the shipped seeds' spread (holds on another CPU): {'ok' if spread else 'FAIL'}")
        return 0 if spread else 1
    seeds = sorted(set(args.seeds))
    plan = [(s, c) for s in seeds for c in bench.configs(s)]
    got, meta = outcomes([c for _, c in plan], bench.label)
    per_seed = {s: bench.results([o for (t, _), o in zip(plan, got) if t == s]) for s in seeds}
    labels = [bench.label(c) for _, c in plan]
    meta["cpu_seconds"] = {str(s): {lab: meta["cpu_seconds"][lab] for (t, _), lab in zip(plan, labels) if t == s} for s in seeds}
    status = report(meta)
    if not args.no_write:
        written, meta = merged(name, seeds, per_seed, meta, command)
        path = experiment.write(name, record.command, bench.record, int(written["seeds"][0]), written, meta)
        print(f"wrote {path} (seeds {', '.join(map(str, written['seeds']))}; {meta['total_cpu_seconds']:.1f} s CPU over every seed's run)")
        if bench.after is not None:
            bench.after([o for (t, _), o in zip(plan, got) if t == 0])
    return status


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in EXPERIMENTS:
        sys.exit(f"usage: python -m bench.lab_experiments NAME [--no-write | --check | --seeds S ...], NAME one of {', '.join(EXPERIMENTS)}")
    sys.exit(main(sys.argv[1], sys.argv[2:]))
