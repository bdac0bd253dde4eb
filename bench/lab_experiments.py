"""What the benches of the lab's experiments on trained models share (bench.lab_probe, lab_pairs,
lab_extend, lab_sliding, lab_passkey): run their configurations the way the page does (one
background core.lab.runner.LabRun with train_fn core.lab.runner.run_experiment, no cache, no
budget), time them (wall and CPU seconds, peak memory of this process), write the shipped results
with their exact configuration, seed, command and machine, and check a rerun against them.

Targets, measured here: the whole shipped experiment regenerates in at most
15 CPU-minutes on one core; peak RSS at most 1 GB.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from core.lab import experiment
from core.lab.runner import LabRun, run_experiment

WHOLE_CPU_S = 15 * 60.0
PEAK_RSS_MB = 1024.0
CHECK_RTOL = 1e-6  # a rerun with the same seed on the same machine and torch agrees to the last digits


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports kB


def run(configs: Sequence[Any]) -> tuple[LabRun, float, float]:
    """One background LabRun of `configs`, as the page runs them: (run, wall seconds, CPU seconds of the process)."""
    start, cpu = time.perf_counter(), time.process_time()
    job = LabRun(list(configs), train_fn=run_experiment, budget=lambda configs: None, wall_seconds=float("inf")).start()
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


def main(
    name: str,
    doc: str,
    configs: Callable[[], list[Any]],
    results: Callable[[list[Any]], dict[str, Any]],
    config_record: dict[str, Any],
    seed: int,
    check: Callable[[experiment.Shipped], tuple[list[Any], Callable[[list[Any]], list[tuple[str, float | None, float | None]]]]],
    argv: list[str] | None = None,
    after: Callable[[list[Any]], None] | None = None,
    label: Callable[[Any], str] = lambda config: config.label,
) -> int:
    """The command line every experiment bench has: run and write (default), --no-write, --check. `label`
    names a configuration's run in the CPU record (the page's label unless a bench runs one the page never does)."""
    parser = argparse.ArgumentParser(prog=f"python -m bench.lab_{name}", description=doc.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--check", action="store_true", help="rerun a part of the shipped experiment through the runner and compare")
    args = parser.parse_args(argv)
    command = f"python -m bench.lab_{name}" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    if args.check:
        shipped = experiment.load(name)
        again, compare = check(shipped)
        got, meta = outcomes(again, label)
        rows = compare(got)
        ok = all(close(live, ref) for _, live, ref in rows)
        for what, live, ref in rows:
            print(f"{what}: live {live} shipped {ref}  [{'ok' if close(live, ref) else 'DIFFERENT'}]")
        cost = f"{meta['total_cpu_seconds']:.1f} s CPU, peak RSS {meta['peak_rss_mb']} MB"
        print(f"rerun matches the shipped numbers to {CHECK_RTOL:g}: {'ok' if ok else 'FAIL'}  ({cost})")
        return 0 if ok else 1
    got, meta = outcomes(configs(), label)
    status = report(meta)
    if not args.no_write:
        path = experiment.write(name, command, config_record, seed, results(got), meta)
        print(f"wrote {path}")
        if after is not None:
            after(got)
    return status
