"""The benches of the lab's experiments on trained models, one command for every experiment of
core.lab.registry: run its bench's configurations (core.lab.experiment.Bench: its record's `bench`,
or BENCH in bench.lab_<name>) the way the page does (one background core.lab.labrun.LabRun of
its record's core.lab.labrun.Job, no cache, no budget), time them (wall and CPU seconds, peak
memory of this process), write the shipped results with their exact configuration, seed, command
and machine, and check a rerun against them.

    python -m bench.lab_experiments NAME [--no-write | --check]   # NAME probe: the same as python -m bench.lab_probe

Targets, measured here: the whole shipped experiment regenerates in at most
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


def bench_of(record: Experiment) -> Bench:
    """An experiment's bench: its record's, or BENCH of its bench module (bench.lab_<name>)."""
    if record.bench is not None:
        return record.bench
    return importlib.import_module(f"bench.lab_{record.name}").BENCH


def main(name: str, argv: list[str] | None = None) -> int:
    """The command line every experiment bench has: run and write (default), --no-write, --check."""
    record = EXPERIMENTS[name]
    bench = bench_of(record)
    parser = argparse.ArgumentParser(prog=record.command, description=f"{record.title}: {record.question}")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--check", action="store_true", help="rerun a part of the shipped experiment through the runner and compare")
    args = parser.parse_args(argv)
    command = record.command + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    if args.check:
        shipped = record.load()
        again, compare = bench.check(shipped)
        got, meta = outcomes(again, bench.label)
        rows = compare(got)
        ok = all(close(live, ref) for _, live, ref in rows)
        for what, live, ref in rows:
            print(f"{what}: live {live} shipped {ref}  [{'ok' if close(live, ref) else 'DIFFERENT'}]")
        cost = f"{meta['total_cpu_seconds']:.1f} s CPU, peak RSS {meta['peak_rss_mb']} MB"
        print(f"rerun matches the shipped numbers to {CHECK_RTOL:g}: {'ok' if ok else 'FAIL'}  ({cost})")
        return 0 if ok else 1
    got, meta = outcomes(bench.configs(), bench.label)
    status = report(meta)
    if not args.no_write:
        path = experiment.write(name, command, bench.record, bench.seed, bench.results(got), meta)
        print(f"wrote {path}")
        if bench.after is not None:
            bench.after(got)
    return status


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in EXPERIMENTS:
        sys.exit(f"usage: python -m bench.lab_experiments NAME [--no-write | --check], NAME one of {', '.join(EXPERIMENTS)}")
    sys.exit(main(sys.argv[1], sys.argv[2:]))
