"""/llm's experiments as records of the lab's `Experiment` type (core.lab.experiment), torch-free: the only place that
says which experiments the language-model page runs. A registry apart from the lab's, because the lab lists every record
of core.lab.registry as a run on its Austen models, while these need the 98 MB model file and cost on another fit."""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.lab.experiment import Bench, Experiment, Outcome, Results, Shipped
from core.lab.labrun import Job, experiment_job
from core.llm import experiments, results
from core.llm import model as llm_model
from core.viz import llm_figures as lf

TRAINED_CONTEXT = 8_192  # the model file's llama.context_length (tests/app/test_llm.py reads the file)
ATTENTION_CPU_S = 3.0  # a live reading of a text (three passes of at most 64 tokens) may cost this much
MAX_CHARS = 1_000  # a text to read; the token limit is what bounds the work
WINDOW = 256  # perplexity is also reported per window of this many positions


# --- the bench's arguments (core, so that a record's `--check` reads the command its file records) ---------------


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def _grid(text: str) -> tuple[list[str], list[float], list[int], list[float]]:
    """KINDS:FACTORS:LENGTHS:DEPTHS, each a comma list (a passkey grid: every kind at every factor, length and depth)."""
    parts = text.split(":")
    if len(parts) != 4:
        raise argparse.ArgumentTypeError("a grid is KINDS:FACTORS:LENGTHS:DEPTHS, e.g. none:2:8192,16384:0,0.5,1")
    return parts[0].split(","), _floats(parts[1]), _ints(parts[2]), _floats(parts[3])


OPTIONS = argparse.ArgumentParser(add_help=False)
OPTIONS.add_argument("--tokens", type=int, default=1024, help="frequencies: tokens of text (default 1024)")
OPTIONS.add_argument("--counts", type=_ints, default=[0, 2, 4, 8, 16, 24, 32])
OPTIONS.add_argument("--length", type=int, default=8192, help="perplexity: tokens read in one pass (default 8192)")
OPTIONS.add_argument("--kinds", type=lambda s: s.split(","), default=["none", "linear", "ntk", "yarn"])
OPTIONS.add_argument("--factors", type=_floats, default=[2.0])
OPTIONS.add_argument("--lengths", type=_ints, default=[1024, 2048, 4096])
OPTIONS.add_argument("--depths", type=_floats, default=[0.0, 0.25, 0.5, 0.75, 1.0])
OPTIONS.add_argument("--seeds", type=int, default=1)
OPTIONS.add_argument("--grid", type=_grid, action="append", help="passkey: KINDS:FACTORS:LENGTHS:DEPTHS, repeatable (a union of grids)")


def arguments(command: str) -> argparse.Namespace:
    """The options of a recorded command ("python -m bench.llm NAME --opt ..."), as the bench parsed them."""
    words = command.split()
    return OPTIONS.parse_args(words[4:] if words[:3] == ["python", "-m", "bench.llm"] else words)


def _joined(values, fmt: str = "g") -> str:
    return ",".join(format(v, fmt) for v in values)


def _scaled(kinds: list[str], factors: list[float]) -> list[tuple[str, float]]:
    """(kind, factor) pairs in the bench's order: "none" once, every other kind at every factor."""
    return [("none", 1.0) if kind == "none" else (kind, f) for kind in kinds for f in (factors[:1] if kind == "none" else factors)]


def kind_label(kind: str) -> str:
    return lf.KIND_LABELS.get(kind, kind)


def scaling_name(scaling: str, factor: float) -> str:
    """A scaling as the page names it ("no scaling", "YaRN ×2")."""
    return kind_label("none") if scaling == "none" else f"{kind_label(scaling)} ×{factor:g}"


@dataclass(frozen=True)
class ModelBench(Bench):
    """A Bench whose configs come from the command's options (`configs(args)`, the shipped command's when None), with
    the options' part of the command (`options(args)`), what the file's "config" holds (`describe(args)`) and what the
    grid left out in a sentence (`left_out(args)`)."""

    options: Callable[[argparse.Namespace], str] = lambda args: ""
    describe: Callable[[argparse.Namespace], dict] = lambda args: {}
    left_out: Callable[[argparse.Namespace], str] = lambda args: ""


def _check(name: str) -> Callable[[Shipped], tuple[list, Callable]]:
    """A record's check: the shipped command's configs again, and each shipped number beside the rerun's."""

    def check(shipped: Shipped):
        bench = RECORDS[name].bench
        configs = bench.configs(arguments(shipped.command))

        def compare(outcomes: list[Outcome]) -> list[tuple[str, float | None, float | None, list[float | None]]]:
            rows: list = []

            def walk(live, ship, where):
                if isinstance(ship, dict):
                    for k in ship:
                        walk(live.get(k) if isinstance(live, dict) else None, ship[k], f"{where}/{k}")
                elif isinstance(ship, list):
                    for i, y in enumerate(ship):
                        walk(live[i] if isinstance(live, list) and i < len(live) else None, y, f"{where}[{i}]")
                elif isinstance(ship, (int, float)) and not isinstance(ship, bool):
                    got = live if isinstance(live, (int, float)) and not isinstance(live, bool) else None
                    rows.append((where, got, float(ship), [float(ship)]))
                else:
                    rows.append((f"{where} = {ship!r}", 1.0 if live == ship else 0.0, 1.0, [1.0]))

            walk(bench.results(outcomes), shipped.results, name)
            return rows

        return configs, compare

    return check


def _rows_of(outcomes: list[Outcome]) -> dict:
    """The shipped "results" of outcomes that each give rows keyed by their label."""
    return {k: v for o in outcomes for k, v in o.values["rows"].items()}


def _stopped(config) -> Outcome:
    return Outcome(config, {}, stopped=True)


def _rate(tokens: int, start: float) -> float:
    return tokens / max(time.perf_counter() - start, 1e-9)


# --- 1. attention on a text ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """Every layer's and head's attention on `text` under each way of giving positions (experiments.MODES);
    `preset`: the preset's name when the text is one (the bench's rows are keyed by it)."""

    text: str
    preset: str = ""
    scheme: str = "rope"

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError("Type a sentence first: the text is empty.")
        if len(self.text) > MAX_CHARS:
            raise ValueError(f"The text can be up to {MAX_CHARS:,} characters.")

    @property
    def label(self) -> str:
        return f"attention on the preset ‘{self.preset}’" if self.preset else "attention on your text"


def reading_estimate(config: Reading) -> float:
    """Three passes of the text: a byte-level tokenizer gives at most a token per byte."""
    tokens = min(len(config.text.encode("utf-8")), experiments.MAX_ATTENTION_TOKENS)
    return experiments.estimate_cpu_seconds(tokens, passes=len(experiments.MODES))


def run_reading(config: Reading, on_step=None, should_stop=None) -> Outcome:
    start, cpu = time.perf_counter(), time.thread_time()
    got = {}
    try:
        for i, mode in enumerate(experiments.MODES):
            got[mode] = experiments.attention(config.text, mode, should_stop)
            if on_step is not None:
                on_step(i + 1, math.nan, _rate(len(got[mode].tokens) * (i + 1), start))
    except llm_model.Stopped:
        return _stopped(config)
    rows = {
        results.map_key(config.preset, mode): {
            "preset": config.preset, "text": config.text, "mode": mode, "tokens": list(r.tokens),
            "positions": None if r.positions is None else list(r.positions),
            "top5": [[piece, round(p, 6)] for piece, p in r.top5],
            "mean_distance": _rounded(r.mean_distance), "first_token": _rounded(r.first_token),
        }
        for mode, r in got.items()
    }  # fmt: skip
    cpu_items = {results.map_key(config.preset, mode): r.cpu_seconds for mode, r in got.items()}
    tokens = len(got["trained"].tokens)
    return Outcome(
        config, {"rows": rows, "cpu": cpu_items, "readings": got}, seconds=time.perf_counter() - start, cpu_seconds=time.thread_time() - cpu,
        tokens_per_s=_rate(tokens * len(got), start),
    )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Rows(Results):
    """Results whose JSON "results" is a dict of rows, one per run keyed by its label (as python -m bench.llm writes them)."""

    rows: dict

    @classmethod
    def read(cls, values: dict[str, Any], file: str, command: str):
        return super().read({"rows": values}, file, command)


@dataclass(frozen=True, kw_only=True)
class AttentionResults(Rows):
    ROWS = {"rows": ("preset", "text", "mode", "tokens", "positions", "top5", "mean_distance", "first_token")}

    def first(self) -> dict:
        """The first preset's row with positions as trained (the record's figure and findings)."""
        return next(row for row in self.rows.values() if row["mode"] == "trained")


def _rounded(a, digits: int = 6) -> list:
    """Plain lists of floats with `digits` significant digits (the JSON stays small; --check compares to 1e-5)."""
    return np.vectorize(lambda x: float(f"{x:.{digits}g}"), otypes=[float])(np.asarray(a, dtype=np.float64)).tolist()


def _write_maps(outcomes: list[Outcome]) -> None:
    maps = {results.map_key(o.config.preset, mode): r.weights for o in outcomes for mode, r in o.values["readings"].items()}
    np.savez_compressed(results.MAPS_PATH, **maps)


ATTENTION_CONFIG = {"presets": experiments.PRESETS, "modes": experiments.MODES, "shuffle_seed": experiments.SHUFFLE_SEED}  # what its file records

ATTENTION = Experiment(
    "attention", "Attention on a text", "Where does each head of the model look, with its positions as trained, removed and shuffled?",
    Reading, lambda: Reading(*next(iter(experiments.PRESETS.items()))[::-1]), run_reading,
    estimate=reading_estimate, trains=lambda c: False, doing=lambda cs: "Reading this text", steps=lambda c: len(experiments.MODES),
    results=AttentionResults,
    findings=lambda r: " ".join(lf.heads_sentences(np.asarray(r.first()["mean_distance"]), np.asarray(r.first()["first_token"]), len(r.first()["tokens"]))),
    figure=lambda r, what: lf.heads_figure(np.asarray(r.first()["mean_distance"]), np.asarray(r.first()["first_token"]), what=what),
    said=lambda c, o: f"{c.label}: the likeliest next token as trained is {o.values['readings']['trained'].top5[0][0]!r}.",
    command="python -m bench.llm attention", unit="tokens", limit=ATTENTION_CPU_S, file=results.path("attention"),
    bench=ModelBench(
        lambda args=None: [Reading(text, preset) for preset, text in experiments.PRESETS.items()],
        _rows_of,
        ATTENTION_CONFIG, _check("attention"), after=_write_maps, describe=lambda args: ATTENTION_CONFIG,
    ),
)  # fmt: skip


# --- 2. perplexity past the trained context ------------------------------------------------------------------


def _check_scaling(scaling: str, factor: float) -> None:
    if scaling not in experiments.SCALINGS:
        raise ValueError(f"The scaling must be one of {', '.join(map(kind_label, experiments.SCALINGS))}.")
    if not isinstance(factor, (int, float)) or not math.isfinite(factor) or factor < 1 or factor > 1e6:
        raise ValueError(f"The scaling factor must be a number from 1 to 1,000,000; {factor!r:.20} is not.")


def scaling_key(scaling: str, factor: float) -> str:
    """The bench's key of a scaling ("none", "yarn ×2", "yarn ×2, no temperature"): experiments.label of its record."""
    return experiments.label(experiments.scaling(scaling, factor, original_max_len=TRAINED_CONTEXT))


@dataclass(frozen=True)
class Perplexity:
    """Perplexity of the first `length` held-out tokens under a scaling (a name of experiments.SCALINGS) at `factor`."""

    scaling: str
    factor: float
    length: int
    scheme: str = "rope"

    def __post_init__(self) -> None:
        _check_scaling(self.scaling, self.factor)
        if not isinstance(self.length, int) or not 2 <= self.length <= experiments.MAX_TOKENS:
            raise ValueError(f"The length must be from 2 to {experiments.MAX_TOKENS:,} tokens.")

    @property
    def label(self) -> str:
        return f"perplexity of {self.length:,} tokens, {scaling_name(self.scaling, self.factor)}"


def run_perplexity(config: Perplexity, on_step=None, should_stop=None) -> Outcome:
    start = time.perf_counter()
    try:
        record = experiments.scaling(config.scaling, config.factor)
        r = experiments.perplexity(config.length, record, should_stop=should_stop)
    except llm_model.Stopped:
        return _stopped(config)
    windows = [float(np.exp(r.nll[s : s + WINDOW].mean())) for s in range(0, r.nll.size, WINDOW)]
    mean, rate = float(r.nll.mean()), _rate(config.length, start)
    if on_step is not None:
        on_step(1, mean, rate)  # the one step: the bar full, its mean loss and rate
    row = {
        "kind": "none" if record is None else record.kind, "factor": 1.0 if record is None else record.factor,
        "attention_factor": None if record is None else record.attention_factor, "perplexity": round(r.perplexity, 6),
        "bins": r.bins.tolist(), "by_bin": _rounded(r.by_bin), "by_window": _rounded(windows),
    }  # fmt: skip
    key = experiments.label(record)
    return Outcome(
        config, {"rows": {key: row}, "cpu": {key: r.cpu_seconds}, "result": r}, losses=np.array([mean]), seconds=time.perf_counter() - start,
        cpu_seconds=r.cpu_seconds, tokens_per_s=rate,
    )  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class PerplexityResults(Rows):
    ROWS = {"rows": ("kind", "factor", "attention_factor", "perplexity", "bins", "by_bin", "by_window")}

    @property
    def length(self) -> int:
        """Tokens read: the last bin edge is the last predicted position."""
        return int(next(iter(self.rows.values()))["bins"][-1]) + 1

    def factors(self) -> list[float]:
        return sorted({float(row["factor"]) for row in self.rows.values() if row["kind"] != "none"})

    def at(self, factor: float | None) -> dict[str, dict]:
        """The rows drawn together: no scaling and every kind at `factor` (every row when None)."""
        return {k: row for k, row in self.rows.items() if factor is None or row["kind"] == "none" or float(row["factor"]) == factor}


def _perplexity_left_out(args) -> str:
    kinds = ", ".join(kind_label(k) for k in args.kinds)
    past = "" if args.length > TRAINED_CONTEXT else "; nothing past the trained context was read"
    return (
        f"The command reads {args.length:,} tokens in one pass for each of {kinds} at factors {', '.join(f'{f:g}' for f in args.factors)}{past}; "
        "other kinds and factors, and longer texts, are left out for its CPU time."
    )


def _perplexity_configs(args=None) -> list[Perplexity]:
    args = args or _shipped_args("perplexity")
    return [Perplexity(kind, factor, args.length) for kind, factor in _scaled(args.kinds, args.factors)]


def _shipped_args(name: str) -> argparse.Namespace:
    """The options the shipped file `name` was made with (its recorded command)."""
    return arguments(RECORDS[name].load().command)


PERPLEXITY = Experiment(
    "perplexity", "Past the trained context", "How surprised is the model by a novel's next tokens along 16,384 of them, under each RoPE scaling?",
    Perplexity, lambda: Perplexity("none", 1.0, 2048), run_perplexity,
    estimate=lambda c: experiments.estimate_cpu_seconds(c.length), trains=lambda c: False, doing=lambda cs: "This perplexity run",
    steps=lambda c: 1, results=PerplexityResults,
    findings=lambda r: " ".join(lf.perplexity_sentences(r.rows, r.length, TRAINED_CONTEXT)),
    figure=lambda r, what: lf.perplexity_figure(r.rows, WINDOW, r.length, TRAINED_CONTEXT, what=what),
    said=lambda c, o: f"{c.label}: perplexity {o.values['result'].perplexity:.2f}.",
    command="python -m bench.llm perplexity", unit="tokens", limit=experiments.LIVE_CPU_S, file=results.path("perplexity"),
    bench=ModelBench(
        _perplexity_configs,
        _rows_of,
        {"window": WINDOW}, _check("perplexity"),
        options=lambda a: f" --length {a.length} --kinds {','.join(a.kinds)} --factors {_joined(a.factors)}",
        describe=lambda a: {
            "text": f"the first {a.length} tokens of the held-out tenth of data/austen.txt.gz, read in one pass", "length": a.length, "window": WINDOW,
            "original_max_len": "the model's trained context, 8,192 (the file's llama.context_length)",
            "note": "a public-domain novel may be in the model's training data: the comparison across scalings holds, "
            "the absolute perplexity is not a held-out score",
        },
        left_out=_perplexity_left_out,
    ),
)  # fmt: skip


# --- 3. passkey retrieval ------------------------------------------------------------------------------------

PASSKEY_PROMPT = {"intro": experiments.PASSKEY_INTRO, "filler": experiments.PASSKEY_FILLER, "needle": experiments.PASSKEY_NEEDLE,
                  "question": experiments.PASSKEY_QUESTION}  # what the file records of the prompt, in its config and its check's fields


@dataclass(frozen=True)
class Passkey:
    """One passkey cell: a seeded key at `depth` in a prompt of about `length` tokens, read under a scaling at `factor`."""

    scaling: str
    factor: float
    length: int
    depth: float
    seed: int = 0
    scheme: str = "rope"

    def __post_init__(self) -> None:
        _check_scaling(self.scaling, self.factor)
        if not isinstance(self.length, int) or not 64 <= self.length <= experiments.MAX_TOKENS:
            raise ValueError(f"The passkey prompt must be from 64 to {experiments.MAX_TOKENS:,} tokens long.")
        if not isinstance(self.depth, (int, float)) or not 0 <= self.depth <= 1:
            raise ValueError("The depth must be from 0 (the start) to 1 (the end).")

    @property
    def key(self) -> str:
        return f"{scaling_key(self.scaling, self.factor)}|{self.length}|{self.depth:g}|{self.seed}"

    @property
    def label(self) -> str:
        return f"a key at depth {self.depth:.0%} of {self.length:,} tokens, {scaling_name(self.scaling, self.factor)}"


def run_passkey(config: Passkey, on_step=None, should_stop=None) -> Outcome:
    start = time.perf_counter()
    try:
        record = experiments.scaling(config.scaling, config.factor)
        r = experiments.passkey(config.length, config.depth, record, seed=config.seed, should_stop=should_stop)
    except llm_model.Stopped:
        return _stopped(config)
    rate = _rate(r.length, start)
    if on_step is not None:
        on_step(1, math.nan, rate)
    row = {
        "scaling": experiments.label(record), "length": config.length, "tokens": r.length, "depth": config.depth, "seed": config.seed,
        "key": r.key, "correct": r.correct, "probability": float(f"{r.probability:.6g}"), "answer": r.answer,
    }  # fmt: skip
    return Outcome(
        config, {"rows": {config.key: row}, "cpu": {config.key: r.cpu_seconds}, "result": r}, seconds=time.perf_counter() - start,
        cpu_seconds=r.cpu_seconds, tokens_per_s=rate,
    )  # fmt: skip


def grids(args) -> list[tuple[list[str], list[float], list[int], list[float]]]:
    """The passkey grids of a command: its --grid options, or the one grid of --kinds, --factors, --lengths, --depths."""
    return args.grid or [(args.kinds, args.factors, args.lengths, args.depths)]


def passkey_configs(args=None) -> list[Passkey]:
    """Every cell of the command's grids once, in their order."""
    args = args or _shipped_args("passkey")
    cells = [
        Passkey(kind, factor, length, depth, seed)
        for kinds, factors, lengths, depths in grids(args)
        for kind, factor in _scaled(kinds, factors)
        for length in lengths
        for depth in depths
        for seed in range(args.seeds)
    ]
    return list(dict.fromkeys(cells))


def _passkey_options(args) -> str:
    return f" --seeds {args.seeds}" + "".join(f" --grid {','.join(k)}:{_joined(f)}:{','.join(map(str, n))}:{_joined(d)}" for k, f, n, d in grids(args))


def _passkey_left_out(args) -> str:
    parts = []
    for kinds, factors, lengths, depths in grids(args):
        names = ", ".join(kind_label(k) if k == "none" else f"{kind_label(k)} ×{'/'.join(f'{f:g}' for f in factors)}" for k in kinds)
        parts.append(f"{names} at lengths {', '.join(f'{n:,}' for n in lengths)} and depths {', '.join(f'{d:.0%}' for d in depths)}")
    keys = "key" if args.seeds == 1 else "keys"
    return f"Run: {'; '.join(parts)}; {args.seeds} {keys} per cell. Every other cell of the grid is not run: a pass past 8,192 tokens costs minutes here."


@dataclass(frozen=True, kw_only=True)
class PasskeyResults(Rows):
    ROWS = {"rows": ("scaling", "length", "tokens", "depth", "seed", "key", "correct", "probability", "answer")}


PASSKEY = Experiment(
    "passkey", "Passkey", "Can the model give back a five-digit key hidden at a depth in filler text, inside and past its trained context?",
    Passkey, lambda: Passkey("none", 1.0, 1024, 0.5), run_passkey,
    estimate=lambda c: experiments.estimate_cpu_seconds(c.length), trains=lambda c: False, doing=lambda cs: "This passkey cell",
    steps=lambda c: 1, results=PasskeyResults,
    findings=lambda r: " ".join(lf.passkey_sentences(r.rows)),
    figure=lambda r, what: lf.passkey_figure(r.rows, what=what),
    said=lambda c, o: f"{c.label}: {'found' if o.values['result'].correct else 'not found'} (answer {o.values['result'].answer!r}).",
    command="python -m bench.llm passkey", unit="tokens", limit=experiments.LIVE_CPU_S, file=results.path("passkey"),
    bench=ModelBench(
        passkey_configs, _rows_of,
        {"prompt": PASSKEY_PROMPT},
        _check("passkey"), options=_passkey_options,
        describe=lambda a: {
            "lengths": sorted({n for g in grids(a) for n in g[2]}), "depths": sorted({d for g in grids(a) for d in g[3]}), "seeds": a.seeds,
            "prompt": PASSKEY_PROMPT,
            "scored": "right when the model's likeliest next token is the key's next digit at every digit, the text before it given "
            "(greedy decoding of the key once the space after 'is' is written)",
        },
        left_out=_passkey_left_out,
    ),
)  # fmt: skip


# --- 4. which frequencies the model uses ---------------------------------------------------------------------


@dataclass(frozen=True)
class Ablation:
    """Perplexity of the first `tokens` held-out tokens with the `count` fastest or slowest pairs unrotated; with `sizes`,
    also the size of q and k in every pair on the same tokens."""

    which: str
    count: int
    tokens: int = 1024
    sizes: bool = False
    scheme: str = "rope"

    def __post_init__(self) -> None:
        if self.which not in ("fastest", "slowest") or not isinstance(self.count, int) or not 0 <= self.count <= 32:
            raise ValueError("Choose the fastest or the slowest pairs, 0 to 32 of them.")
        if not isinstance(self.tokens, int) or not 2 <= self.tokens <= experiments.MAX_TOKENS:
            raise ValueError(f"The length must be from 2 to {experiments.MAX_TOKENS:,} tokens.")

    @property
    def label(self) -> str:
        return f"{self.count} {self.which} pairs unrotated over {self.tokens:,} tokens"


def run_ablation(config: Ablation, on_step=None, should_stop=None) -> Outcome:
    start = time.perf_counter()
    try:
        sizes = experiments.pair_sizes(config.tokens, should_stop) if config.sizes else None
        r = experiments.pair_ablation(config.tokens, config.which, config.count, should_stop)
    except llm_model.Stopped:
        return _stopped(config)
    rate = _rate(config.tokens, start)
    if on_step is not None:
        on_step(1, float(r.nll.mean()), rate)
    pairs = list(experiments.ablated_pairs(config.which, config.count))
    row = {"which": config.which, "count": config.count, "pairs": pairs, "perplexity": round(r.perplexity, 6)}
    cpu = {r.label: r.cpu_seconds} | ({"pair sizes": sizes.cpu_seconds} if sizes else {})
    return Outcome(
        config, {"row": row, "cpu": cpu, "sizes": sizes, "result": r}, losses=np.array([float(r.nll.mean())]),
        seconds=time.perf_counter() - start, cpu_seconds=sum(cpu.values()), tokens_per_s=rate,
    )  # fmt: skip


def _frequency_results(outcomes: list[Outcome]) -> dict:
    sizes = next(o.values["sizes"] for o in outcomes if o.values["sizes"] is not None)
    return {
        "tokens": sizes.tokens, "frequency": _rounded(sizes.frequency, 8), "wavelength": _rounded(sizes.wavelength, 8),
        "q": _rounded(sizes.q, 5), "k": _rounded(sizes.k, 5),
        "ablation": {f"{o.config.which} {o.config.count}": o.values["row"] for o in outcomes},
    }  # fmt: skip


def _ablation_configs(args=None) -> list[Ablation]:
    args = args or _shipped_args("frequencies")
    configs = [Ablation(which, count, args.tokens) for which in ("fastest", "slowest") for count in args.counts]
    return [Ablation(configs[0].which, configs[0].count, args.tokens, sizes=True), *configs[1:]]


@dataclass(frozen=True, kw_only=True)
class FrequenciesResults(Results):
    tokens: int
    frequency: list
    wavelength: list
    q: list
    k: list
    ablation: dict
    ROWS = {"ablation": ("which", "count", "pairs", "perplexity")}


FREQUENCIES = Experiment(
    "frequencies", "Which rotation speeds it uses", "How large is each RoPE pair of q and k, and what does stopping the fastest or slowest pairs cost?",
    Ablation, lambda: Ablation("fastest", 2), run_ablation,
    estimate=lambda c: experiments.estimate_cpu_seconds(c.tokens, passes=1 + c.sizes), trains=lambda c: False,
    doing=lambda cs: "This ablation", steps=lambda c: 1, results=FrequenciesResults,
    findings=lambda r: " ".join(lf.frequency_sentences(r.ablation, np.asarray(r.wavelength), r.tokens)),
    figure=lambda r, what: lf.ablation_figure(r.ablation, r.tokens, what=what),
    said=lambda c, o: f"{c.label}: perplexity {o.values['result'].perplexity:.2f}.",
    command="python -m bench.llm frequencies", unit="tokens", limit=experiments.LIVE_CPU_S, file=results.path("frequencies"),
    bench=ModelBench(
        _ablation_configs, _frequency_results, {}, _check("frequencies"),
        options=lambda a: f" --tokens {a.tokens} --counts {','.join(map(str, a.counts))}",
        describe=lambda a: {
            "text": f"the first {a.tokens} tokens of the held-out tenth of data/austen.txt.gz",
            "size": "per layer and head, the root mean square over the tokens of each pair's length sqrt(a^2 + b^2)",
            "counts": list(a.counts),
            "removal": "an unrotated pair's frequency is set to 0 in every layer and head (it keeps its content, loses its position)",
        },
    ),
)  # fmt: skip


RECORDS: dict[str, Experiment] = {e.name: e for e in (ATTENTION, PERPLEXITY, PASSKEY, FREQUENCIES)}  # the page's order


def of(config: Any) -> Experiment:
    """The record whose config `config` is, or ValueError with a sentence."""
    return Experiment.of(RECORDS, config, "language-model experiment")


def job(record: Experiment) -> Job:
    """A live run of `record` through the lab's trainers, line, time limit and budget (ui.lab.run.live_run draws it)."""
    return experiment_job(record, record.run)
