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
from typing import Any

import numpy as np

from core.llm import experiments, results

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


def rounded(a, digits: int = 6) -> Any:
    """Plain lists of floats with `digits` significant digits (the JSON stays small; checks use CHECK_RTOL)."""
    return np.vectorize(lambda x: float(f"{x:.{digits}g}"), otypes=[float])(np.asarray(a, dtype=np.float64)).tolist()


# --- the experiments ---------------------------------------------------------------------------


def attention(args) -> tuple[dict, dict, dict[str, float], dict[str, np.ndarray]]:
    out, cpu, maps = {}, {}, {}
    for preset, text in experiments.PRESETS.items():
        for mode in experiments.MODES:
            r = experiments.attention(text, mode)
            key = results.map_key(preset, mode)
            maps[key] = r.weights
            cpu[key] = r.cpu_seconds
            out[key] = {
                "preset": preset,
                "text": text,
                "mode": mode,
                "tokens": list(r.tokens),
                "positions": None if r.positions is None else list(r.positions),
                "top5": [[piece, round(p, 6)] for piece, p in r.top5],
                "mean_distance": rounded(r.mean_distance),
                "first_token": rounded(r.first_token),
            }
            print(f"  {key}: {len(r.tokens)} tokens, top {r.top5[0]}, {r.cpu_seconds:.2f} s CPU", flush=True)
    config = {"presets": experiments.PRESETS, "modes": experiments.MODES, "shuffle_seed": experiments.SHUFFLE_SEED}
    return config, out, cpu, maps


def frequencies(args) -> tuple[dict, dict, dict[str, float], None]:
    sizes = experiments.pair_sizes(args.tokens)
    cpu = {"pair sizes": sizes.cpu_seconds}
    ablation = {}
    for which in ("fastest", "slowest"):
        for count in args.counts:
            r = experiments.pair_ablation(args.tokens, which, count)
            pairs = list(experiments.ablated_pairs(which, count))
            ablation[f"{which} {count}"] = {"which": which, "count": count, "pairs": pairs, "perplexity": round(r.perplexity, 6)}
            cpu[r.label] = r.cpu_seconds
            print(f"  {r.label}: perplexity {r.perplexity:.3f}, {r.cpu_seconds:.1f} s CPU", flush=True)
    out = {
        "tokens": sizes.tokens,
        "frequency": rounded(sizes.frequency, 8),
        "wavelength": rounded(sizes.wavelength, 8),
        "q": rounded(sizes.q, 5),
        "k": rounded(sizes.k, 5),
        "ablation": ablation,
    }
    config = {
        "text": f"the first {args.tokens} tokens of the held-out tenth of data/austen.txt.gz",
        "size": "per layer and head, the root mean square over the tokens of each pair's length sqrt(a^2 + b^2)",
        "counts": list(args.counts),
        "removal": "an unrotated pair's frequency is set to 0 in every layer and head (it keeps its content, loses its position)",
    }
    return config, out, cpu, None


def _scalings(args) -> list[tuple[str, Any]]:
    found = []
    for kind in args.kinds:
        if kind == "none":
            found.append(("none", None))
            continue
        for factor in args.factors:
            record = experiments.scaling(kind, factor)
            found.append((experiments.label(record), record))
    return found


WINDOW = 256  # perplexity is also reported per window of this many positions


def perplexity(args) -> tuple[dict, dict, dict[str, float], None]:
    out, cpu = {}, {}
    for name, record in _scalings(args):
        r = experiments.perplexity(args.length, record)
        windows = [float(np.exp(r.nll[s : s + WINDOW].mean())) for s in range(0, r.nll.size, WINDOW)]
        out[name] = {
            "kind": "none" if record is None else record.kind,
            "factor": 1.0 if record is None else record.factor,
            "attention_factor": None if record is None else record.attention_factor,
            "perplexity": round(r.perplexity, 6),
            "bins": r.bins.tolist(),
            "by_bin": rounded(r.by_bin),
            "by_window": rounded(windows),
        }
        cpu[name] = r.cpu_seconds
        print(f"  {name}: perplexity {r.perplexity:.3f}, {r.cpu_seconds:.1f} s CPU", flush=True)
    config = {
        "text": f"the first {args.length} tokens of the held-out tenth of data/austen.txt.gz, read in one pass",
        "length": args.length,
        "window": WINDOW,
        "original_max_len": "the model's trained context, 8,192 (the file's llama.context_length)",
        "note": "a public-domain novel may be in the model's training data: the comparison across scalings holds, "
        "the absolute perplexity is not a held-out score",
    }
    return config, out, cpu, None


def passkey(args) -> tuple[dict, dict, dict[str, float], None]:
    out, cpu = {}, {}
    for name, record in _scalings(args):
        for length in args.lengths:
            for depth in args.depths:
                for seed in range(args.seeds):
                    r = experiments.passkey(length, depth, record, seed=seed)
                    key = f"{name}|{length}|{depth:g}|{seed}"
                    out[key] = {
                        "scaling": name,
                        "length": length,
                        "tokens": r.length,
                        "depth": depth,
                        "seed": seed,
                        "key": r.key,
                        "correct": r.correct,
                        "probability": float(f"{r.probability:.6g}"),
                        "answer": r.answer,
                    }
                    cpu[key] = r.cpu_seconds
                    print(f"  {key}: {'right' if r.correct else 'wrong'} ({r.answer!r}, p {r.probability:.3g}), {r.cpu_seconds:.1f} s CPU", flush=True)
    config = {
        "lengths": list(args.lengths),
        "depths": list(args.depths),
        "seeds": args.seeds,
        "prompt": {
            "intro": experiments.PASSKEY_INTRO,
            "filler": experiments.PASSKEY_FILLER,
            "needle": experiments.PASSKEY_NEEDLE,
            "question": experiments.PASSKEY_QUESTION,
        },
        "scored": "right when the model's likeliest next token is the key's next digit at every digit, the text before it given "
        "(greedy decoding of the key once the space after 'is' is written)",
    }
    return config, out, cpu, None


RUNNERS = {"attention": attention, "frequencies": frequencies, "perplexity": perplexity, "passkey": passkey}


def left_out(name: str, args) -> str:
    if name == "perplexity":
        return (
            f"Read to {args.length:,} tokens with kinds {', '.join(args.kinds)} at factors {', '.join(f'{f:g}' for f in args.factors)}; "
            "longer inputs (to 16,384) and the other kinds and factors are left out of this run for its CPU time."
        )
    if name == "passkey":
        depths = ", ".join(f"{d:g}" for d in args.depths)
        return f"Lengths {', '.join(map(str, args.lengths))}, depths {depths}, {args.seeds} key(s) per cell, kinds {', '.join(args.kinds)}."
    return ""


def write(name: str, command: str, config: dict, values: dict, run_meta: dict, maps: dict | None, args) -> None:
    record = {"command": command, "config": config, "results": values, "left_out": left_out(name, args), "meta": run_meta}
    file = results.path(name)
    file.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {file} ({file.stat().st_size:,} bytes)")
    if maps is not None:
        np.savez_compressed(results.MAPS_PATH, **maps)
        print(f"wrote {results.MAPS_PATH} ({results.MAPS_PATH.stat().st_size:,} bytes)")


def compare(name: str, live: dict, shipped: dict) -> list[str]:
    """Where a rerun differs from the shipped numbers (beyond CHECK_RTOL), as sentences."""
    problems = []

    def walk(a, b, where):
        if isinstance(b, dict):
            for k in b:
                if k not in ("cpu",):
                    walk(a.get(k) if isinstance(a, dict) else None, b[k], f"{where}/{k}")
        elif isinstance(b, list):
            if not isinstance(a, list) or len(a) != len(b):
                problems.append(f"{where}: lengths differ")
            else:
                for i, (x, y) in enumerate(zip(a, b)):
                    walk(x, y, f"{where}[{i}]")
        elif isinstance(b, float) and isinstance(a, (int, float)):
            if abs(a - b) > CHECK_RTOL * max(abs(b), 1e-12) + 1e-9:
                problems.append(f"{where}: live {a} shipped {b}")
        elif a != b:
            problems.append(f"{where}: live {a!r} shipped {b!r}")

    walk(live, shipped, name)
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
    parser = argparse.ArgumentParser(prog="python -m bench.llm", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"which results to regenerate: {', '.join(RUNNERS)}")
    parser.add_argument("--check", action="store_true", help="rerun the shipped configuration of each name and compare (nothing is written)")
    parser.add_argument("--measure", action="store_true", help="measure the budgets")
    parser.add_argument("--tokens", type=int, default=1024, help="frequencies: tokens of text (default 1024)")
    parser.add_argument("--counts", type=lambda s: [int(x) for x in s.split(",")], default=[0, 2, 4, 8, 16, 24, 32])
    parser.add_argument("--length", type=int, default=8192, help="perplexity: tokens read in one pass (default 8192)")
    parser.add_argument("--kinds", type=lambda s: s.split(","), default=["none", "linear", "ntk", "yarn"])
    parser.add_argument("--factors", type=lambda s: [float(x) for x in s.split(",")], default=[2.0])
    parser.add_argument("--lengths", type=lambda s: [int(x) for x in s.split(",")], default=[1024, 2048, 4096])
    parser.add_argument("--depths", type=lambda s: [float(x) for x in s.split(",")], default=[0.0, 0.25, 0.5, 0.75, 1.0])
    parser.add_argument("--seeds", type=int, default=1)
    return parser.parse_args(argv)


def command_for(name: str, args: argparse.Namespace) -> str:
    """The command that regenerates `name` alone with these arguments (what its file records)."""
    options = {
        "frequencies": f" --tokens {args.tokens} --counts {','.join(map(str, args.counts))}",
        "perplexity": f" --length {args.length} --kinds {','.join(args.kinds)} --factors {','.join(f'{f:g}' for f in args.factors)}",
        "passkey": f" --lengths {','.join(map(str, args.lengths))} --depths {','.join(f'{d:g}' for d in args.depths)} --kinds {','.join(args.kinds)}"
        f" --factors {','.join(f'{f:g}' for f in args.factors)} --seeds {args.seeds}",
    }
    return f"python -m bench.llm {name}" + options.get(name, "")


def shipped_args(name: str, args: argparse.Namespace) -> argparse.Namespace:
    """The arguments the shipped file `name` was made with (from its recorded command)."""
    command = results.load(name)["command"].split()[3:]
    return parse([name, *[c for c in command if c not in RUNNERS]])


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.measure:
        return measure()
    if not args.names:
        print("name at least one of: " + ", ".join(RUNNERS), file=sys.stderr)
        return 2
    status = 0
    unknown = [n for n in args.names if n not in RUNNERS]
    if unknown:
        print(f"unknown results {', '.join(unknown)}: name some of {', '.join(RUNNERS)}", file=sys.stderr)
        return 2
    for name in args.names:
        run_args = shipped_args(name, args) if args.check else args
        load, wall, cpu = os.getloadavg(), time.perf_counter(), time.process_time()
        print(f"{name}: load average {load[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
        config, values, cpu_items, maps = RUNNERS[name](run_args)
        run_meta = meta(cpu_items, cpu, wall, load)
        total = run_meta["total_cpu_seconds"]
        ok = total <= WHOLE_CPU_S
        verdict = "ok" if ok else "FAIL"
        print(f"{name}: {run_meta['total_seconds']:.0f} s wall, {total:.0f} s CPU [target {WHOLE_CPU_S:.0f}: {verdict}], peak RSS {run_meta['peak_rss_mb']} MB")
        status |= not ok
        if args.check:
            problems = compare(name, json.loads(json.dumps(values)), results.load(name)["results"])
            for line in problems[:20]:
                print("  DIFFERENT " + line)
            print(f"{name}: rerun matches the shipped numbers to {CHECK_RTOL:g}: {'ok' if not problems else 'FAIL'}")
            status |= bool(problems)
        else:
            write(name, command_for(name, args), config, values, run_meta, maps, args)
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
