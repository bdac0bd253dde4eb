"""`python -m bench.lab_lm`: the real-text comparison, and the results the lab ships.

Trains the lab's tiny model once per scheme on 64-character windows of Jane Austen
(core.lab.lm.LMConfig's defaults, seed 0), the way the page's "Run it yourself" does (one
background core.lab.labrun.LabRun of the page's Job, core.lab.labrun.LM, no cache), then prints the
held-out perplexity at L, 2L, 4L, 8L, the ratio ppl(4L) / ppl(L) per scheme, the seconds of each
scheme and of the whole comparison, and the peak memory (RSS of this process), against the
targets: one scheme at most 60 s, the whole comparison at most 6 minutes, under 1.5 GB.

    python -m bench.lab_lm                          # the comparison; writes data/lab_lm_results.json and the models
    python -m bench.lab_lm --out /tmp/x.json --models /tmp/models   # somewhere else
    python -m bench.lab_lm --check alibi            # retrain one scheme live, compare with the shipped numbers and model
    python -m bench.lab_lm --seeds 1 2              # train with seeds 1 and 2 too: data/lab_models/seed<k>, `by_seed` of the results

The trained models are written too, one safetensors file per scheme with a manifest
(core.lab.weights, data/lab_models/, and data/lab_models/seed<k>/ for the other training seeds):
the experiments on trained models read them, each seed's, so their findings can tell a difference
from seed noise.

Times depend on what else the machine runs: the load average and CPU seconds are recorded too.
Exits with status 1 when a target (or a --check) fails.
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
from dataclasses import replace
from pathlib import Path

import numpy as np

from core.lab import lm, weights
from core.lab.labrun import LM, LabRun

ONE_SCHEME_S = 60.0
ALL_SCHEMES_S = 360.0
PEAK_RSS_MB = 1536.0
CHECK_RTOL = 1e-6  # a live retrain with the same seed on the same machine and torch agrees to the last digits


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports kB


def run(configs: list[lm.LMConfig]) -> tuple[LabRun, float, float]:
    """One background LabRun of `configs`, as the page runs it: (run, wall seconds, CPU seconds)."""
    start, cpu = time.perf_counter(), time.process_time()
    job = replace(LM, wall_seconds=float("inf")).start(configs)
    job.wait()
    return job, time.perf_counter() - start, time.process_time() - cpu


def _ppl(value: float | None) -> str:
    return "no code" if value is None else f"{value:8.3f}"


def compare(configs: list[lm.LMConfig], out: Path | None, command: str, models: Path | None = None) -> int:
    load_before = os.getloadavg()
    print(f"load average {load_before[0]:.1f} on {os.cpu_count()} CPUs; {len(configs)} schemes, {configs[0].steps} steps each", file=sys.stderr, flush=True)
    job, wall, cpu = run(configs)
    failed = [p for p in job.progress if p.state != "done"]
    for p in failed:
        print(f"{p.scheme}: {p.state} {p.message}")
    results = {}
    for i, c in enumerate(configs):
        r = job.results.get(i)
        if r is None:
            continue
        results[c.scheme] = {
            "perplexity": {str(n): r.perplexity[n] for n in c.eval_lens},
            "ratio_4L": r.ratio(4),
            "ratio_8L": r.ratio(8),
            "notes": {str(n): note for n, note in r.notes.items()},
            "train_seconds": round(r.seconds, 2),
            "eval_seconds": round(r.eval_seconds, 2),
            "cpu_seconds": round(r.cpu_seconds, 2),
            "final_train_loss": round(float(r.losses[-20:].mean()), 4),
            "steps": r.steps_done,
        }
        print(
            f"{c.scheme:11s} train {r.seconds:5.1f} s eval {r.eval_seconds:4.1f} s (CPU {r.cpu_seconds:5.1f} s)  "
            + " ".join(f"{n}: {_ppl(r.perplexity[n])}" for n in c.eval_lens)
            + f"  4L/L {'-' if r.ratio(4) is None else f'{r.ratio(4):.3f}'}",
            flush=True,
        )
    slowest = max((v["train_seconds"] + v["eval_seconds"] for v in results.values()), default=float("nan"))
    rss = peak_rss_mb()
    ok_one, ok_all, ok_rss = slowest <= ONE_SCHEME_S, wall <= ALL_SCHEMES_S, rss <= PEAK_RSS_MB
    print(f"slowest scheme {slowest:.1f} s  [target {ONE_SCHEME_S:.0f} s: {'ok' if ok_one else 'FAIL'}]")
    print(f"whole comparison {wall:.1f} s (CPU {cpu:.1f} s)  [target {ALL_SCHEMES_S:.0f} s: {'ok' if ok_all else 'FAIL'}]")
    print(f"peak RSS {rss:.0f} MB  [target {PEAK_RSS_MB:.0f} MB: {'ok' if ok_rss else 'FAIL'}]")
    if out is not None and not failed:
        import torch

        corpus = lm.load_corpus(configs[0].corpus)
        data = {
            "command": command,
            "schemes": [c.scheme for c in configs],
            "config": configs[0].fields(),
            "corpus": {"file": lm.CORPUS_PATH.name if not configs[0].corpus else configs[0].corpus, "text_sha256": corpus.sha256,
                       "train_chars": len(corpus.train), "held_out_chars": len(corpus.held), "vocabulary": corpus.tokens},
            "results": results,
            "total_seconds": round(wall, 1),
            "total_cpu_seconds": round(cpu, 1),
            "peak_rss_mb": round(rss),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "torch": torch.__version__, "platform": platform.platform()},
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        }  # fmt: skip
        out.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {out}")
        if models is not None:
            states = {c.scheme: job.results[i].state for i, c in enumerate(configs)}
            manifest = weights.write(states, configs[0], command, models)
            print(f"wrote {len(manifest.models)} models to {models} ({', '.join(f'{m.file} {m.bytes:,} B' for m in manifest.models.values())})")
    return 0 if ok_one and ok_all and ok_rss and not failed else 1


def check(scheme: str, shipped_path: Path | None) -> int:
    """Retrain `scheme` from the shipped configuration through a LabRun and compare its perplexities."""
    shipped = lm.load_shipped(shipped_path)
    if scheme not in shipped.perplexity:
        print(f"{scheme} is not in the shipped results ({', '.join(shipped.perplexity)}).")
        return 1
    config = shipped.config_for(scheme)
    job, wall, _ = run([config])
    result = job.results.get(0)
    if result is None:
        print(f"{scheme}: {job.progress[0].state} {job.progress[0].message}")
        return 1
    worst = 0.0
    for n in config.eval_lens:
        live, ref = result.perplexity[n], shipped.perplexity[scheme][n]
        if (live is None) != (ref is None):
            print(f"{n}: live {live} shipped {ref}: one has no value")
            return 1
        if live is not None:
            worst = max(worst, abs(live - ref) / ref)
        print(f"{n:5d}: live {_ppl(live)}  shipped {_ppl(ref)}")
    ok = worst <= CHECK_RTOL
    print(f"{scheme}: live retrain in {wall:.1f} s; largest relative difference {worst:.2e}  [at most {CHECK_RTOL:g}: {'ok' if ok else 'FAIL'}]")
    try:
        _, shipped_state = weights.read_state(scheme)
    except ValueError as err:
        print(f"the shipped model: {err}")
        return 1
    same = (
        result.state is not None and set(result.state) == set(shipped_state) and all(np.array_equal(result.state[k], shipped_state[k]) for k in shipped_state)
    )
    print(f"{scheme}: the retrained weights {'equal' if same else 'DIFFER from'} the shipped model's, bit for bit")
    return 0 if ok and same else 1


SEED_KEYS = ("command", "results", "total_seconds", "total_cpu_seconds", "peak_rss_mb", "load_average_before", "load_average_after", "machine", "date")


def add_seeds(path: Path, comparisons: dict[int, dict]) -> None:
    """Put each training seed's comparison (as `compare` writes it) under `by_seed` of the shipped results at `path`,
    seed 0's being the file's own top level; the top level stays seed 0's."""
    data = json.loads(path.read_text(encoding="utf-8"))
    by_seed = data.get("by_seed") or {str(data["config"]["seed"]): {k: data[k] for k in SEED_KEYS if k in data}}
    for seed, comparison in comparisons.items():
        if comparison["config"] != {**data["config"], "seed": seed}:
            raise ValueError(f"seed {seed}'s comparison was made with another configuration than the shipped one")
        by_seed[str(seed)] = {k: comparison[k] for k in SEED_KEYS if k in comparison}
    data["seeds"] = sorted(int(s) for s in by_seed)
    data["by_seed"] = {str(s): by_seed[str(s)] for s in data["seeds"]}
    path.write_text(json.dumps(data, indent=1) + "\n")


def more_seeds(seeds: list[int], schemes: list[str], steps: int, command: str) -> int:
    """Train the comparison again with each of `seeds` (not 0, the shipped one): its models into data/lab_models/seed<k>,
    its results under `by_seed` of the shipped results."""
    status, done = 0, {}
    for seed in seeds:
        out = lm.RESULTS_PATH.with_name(f".lab_lm_seed{seed}.json")
        status |= compare([lm.LMConfig(scheme=s, steps=steps, seed=seed) for s in schemes], out, command, weights.directory(seed))
        done[seed] = json.loads(out.read_text(encoding="utf-8"))
        out.unlink()
    add_seeds(lm.RESULTS_PATH, done)
    print(f"added seeds {', '.join(map(str, seeds))} to {lm.RESULTS_PATH}")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lab_lm", description=__doc__.splitlines()[0])
    parser.add_argument("--schemes", nargs="+", default=list(lm.DEFAULT_SCHEMES), help="registry names (default: the six the page shows)")
    parser.add_argument("--steps", type=int, default=lm.LMConfig().steps)
    parser.add_argument("--seed", type=int, default=lm.LMConfig().seed)
    parser.add_argument("--out", type=Path, default=lm.RESULTS_PATH, help="where to write the results (default: the shipped file)")
    parser.add_argument("--models", type=Path, default=weights.MODELS_DIR, help="where to write the trained models (default: data/lab_models)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--check", metavar="SCHEME", help="retrain one scheme with the shipped configuration and compare")
    parser.add_argument("--seeds", type=int, nargs="+", choices=[s for s in weights.SEEDS if s], help="train the comparison with these other seeds too")
    args = parser.parse_args(argv)
    if args.check:
        return check(args.check, None)
    if args.seeds:
        return more_seeds(
            sorted(set(args.seeds)), args.schemes, args.steps, "python -m bench.lab_lm" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
        )
    try:
        configs = [lm.LMConfig(scheme=s, steps=args.steps, seed=args.seed) for s in args.schemes]
    except ValueError as err:
        parser.error(str(err))
    command = "python -m bench.lab_lm" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    return compare(configs, None if args.no_write else args.out, command, None if args.no_write else args.models)


if __name__ == "__main__":
    sys.exit(main())
