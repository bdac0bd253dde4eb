"""What the lab's experiments on trained models share, torch-free: the record that declares one (`Experiment`), what a
run gives (`Outcome`), the one budget rule, and their typed shipped results (`data/lab_<name>_results.json`, each written
by its bench with its exact configuration, seed, command, machine and times, read into the experiment's `Results`)."""

from __future__ import annotations

import json
import math
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from core.lab import lm
from core.lab.config import Estimate, refuse

# Budgets for live runs, in CPU seconds as the lab's fitted constants estimate them (core.lab.config; fitted on a
# slower machine than the one the shipped results were made on, where the bench commands measured about half as much)
EVAL_CPU_S = 10.0  # a live action that only evaluates trained models
TRAIN_CPU_S = 120.0  # a live action that trains (a NoPE depth, a fine-tune, a passkey model): measured here within 90 s
LIVE_WALL_S = 300.0  # a live run still going this long after it started is stopped (a loaded server runs slower)


@dataclass(frozen=True, eq=False)
class Outcome:
    """What one run of an experiment gives: `values`, its numbers (plain lists, dicts and floats,
    as the shipped JSON holds them; an experiment may add arrays for its figures), `losses` the
    training loss per step (empty when nothing trains), whether it was `stopped`, and its wall
    and CPU seconds (this thread's)."""

    config: Any
    values: dict[str, Any]
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0))
    stopped: bool = False
    seconds: float = 0.0
    cpu_seconds: float = math.nan
    tokens_per_s: float = 0.0

    @property
    def steps_done(self) -> int:
        return int(self.losses.size)


def results_path(name: str) -> Path:
    return lm.DATA / f"lab_{name}_results.json"


@dataclass(frozen=True, kw_only=True)
class Results:
    """An experiment's shipped numbers, typed: a frozen dataclass whose fields are the top-level keys
    of the JSON's "results" (each a list or a dict, as its annotation says), read by `read`, which
    checks what the page reads and names the file and the command that makes it again when
    something is missing. `ROWS` names the keys every row of a field must have (a list's items, or
    a dict's values); `KEYS` the keys a dict field must have itself. Keys the class does not name
    (at the top, or in a row) are kept, not refused: a newer bench may write more than a page reads
    (top-level ones in `extra`). The top level is training seed 0's results; a file of several seeds
    holds every seed's under `by_seed`, each checked as the top level is (`layouts`, `runs`)."""

    ROWS: ClassVar[dict[str, tuple[str, ...]]] = {}
    KEYS: ClassVar[dict[str, tuple[str, ...]]] = {}
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def read(cls, results: dict[str, Any], file: str, command: str):
        def refuse(what: str) -> ValueError:
            return ValueError(f"This experiment could not be drawn from its precomputed results ({file}: {what}): run {command} to make them again.")

        hints = typing.get_type_hints(cls)

        def checked(layout: Any, where: str) -> dict[str, Any]:
            if not isinstance(layout, dict):
                raise refuse(f"{where}not a dict")
            values: dict[str, Any] = {}
            for f in fields(cls):
                if f.name == "extra":
                    continue
                if f.name not in layout:
                    raise refuse(f"{where}no {f.name!r}")
                kind = typing.get_origin(hints[f.name]) or hints[f.name]
                value = layout[f.name]
                if not isinstance(value, kind):
                    raise refuse(f"{where}{f.name!r} is not a {kind.__name__}")
                rows = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []  # a number has no rows
                for i, row in enumerate(rows if f.name in cls.ROWS else ()):
                    missing = [k for k in cls.ROWS[f.name] if not isinstance(row, dict) or k not in row]
                    if missing:
                        raise refuse(f"{where}{f.name}[{i}] lacks {', '.join(map(repr, missing))}")
                missing = [k for k in cls.KEYS.get(f.name, ()) if k not in value]
                if missing:
                    raise refuse(f"{where}{f.name!r} lacks {', '.join(map(repr, missing))}")
                values[f.name] = value
            return values

        values = checked(results, "")
        by_seed = results.get("by_seed")
        if by_seed is not None:  # every seed's results are read as the top level's (seed 0's) are
            if not isinstance(by_seed, dict) or not by_seed or not all(str(s).isdigit() for s in by_seed):
                raise refuse("'by_seed' is not a dict of training seeds")
            for seed, layout in by_seed.items():
                checked(layout, f"seed {seed}'s results: ")
        return cls(**values, extra={k: v for k, v in results.items() if k not in values})

    def layouts(self) -> list[dict[str, Any]]:
        """Every training seed's results in seed order (`layouts`)."""
        return layouts({**self.extra, **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}})

    def runs(self, key: str) -> list:
        """`key` of every training seed's results, what core.lab.findings reads."""
        return [layout[key] for layout in self.layouts()]


def layouts(results: Mapping) -> list[Mapping]:
    """Every seed's results as a shipped file holds them (`by_seed`, in seed order), or the one layout there is."""
    by_seed = results.get("by_seed")
    return [by_seed[s] for s in sorted(by_seed, key=int)] if by_seed else [results]


def runs(results: Mapping, key: str) -> list:
    """`results[key]` for every seed the shipped results hold (`layouts`)."""
    return [layout[key] for layout in layouts(results)]


@dataclass(frozen=True)
class Shipped:
    """An experiment's shipped results: the exact `command`, its `config` and `seed`, the
    `results` (the experiment's own layout, as the JSON holds it), `meta` (machine, versions, CPU
    seconds, peak memory, date) and `data`, the results read into the experiment's `Results`
    dataclass (None when read without one)."""

    name: str
    command: str
    config: dict[str, Any]
    seed: int
    results: dict[str, Any]
    meta: dict[str, Any]
    data: Any = None
    left_out: str = ""  # what the bench's grid left out, in a sentence, where its file says (the language model's do)


def load(name: str, path: Path | None = None, results: type[Results] | None = None, command: str | None = None) -> Shipped:
    """The shipped results of experiment `name` (data/lab_<name>_results.json), read into
    `results` when given, or ValueError with a sentence naming the file and `command` (by default
    python -m bench.lab_<name>), which makes them again."""
    p = Path(path) if path else results_path(name)
    command = command or f"python -m bench.lab_{name}"
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        # a file of runs that train nothing (the language model's) has no training seed: seed 0
        shipped = Shipped(
            name, str(data["command"]), dict(data["config"]), int(data.get("seed", 0)), dict(data["results"]), dict(data.get("meta", {})),
            left_out=str(data.get("left_out", "")),
        )  # fmt: skip
    except FileNotFoundError:
        raise ValueError(f"The precomputed results ({p.name}) are missing: run {command} to make them.") from None
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as err:
        raise ValueError(f"The precomputed results ({p.name}) cannot be read ({type(err).__name__}): run {command} to make them again.") from None
    if results is not None:
        shipped = replace(shipped, data=results.read(shipped.results, p.name, command))
    return shipped


def write(name: str, command: str, config: dict[str, Any], seed: int, results: dict[str, Any], meta: dict[str, Any], path: Path | None = None) -> Path:
    """Write an experiment's results as `load` reads them."""
    p = Path(path) if path else results_path(name)
    p.write_text(json.dumps({"command": command, "config": config, "seed": seed, "results": results, "meta": meta}, indent=1) + "\n")
    return p


def eval_seconds(config: lm.LMConfig, lengths: tuple[int, ...]) -> float:
    """Estimated CPU seconds of perplexity at each of `lengths` (whole multiples 1, 2, 4 or 8 of
    config.train_len) on config.eval_chars characters, by the real-text lab's fitted constants."""
    one = lm.estimate(replace(config, factors=(1,))).eval_s
    total = 0.0
    for n in lengths:
        f = n // config.train_len
        total += one if f == 1 else lm.estimate(replace(config, factors=(1, f))).eval_s - one
    return total


# --- the record -----------------------------------------------------------------------------------

Check = Callable[[Shipped], tuple[list[Any], Callable[[list[Outcome]], list[tuple[str, float | None, float | None, list[float | None]]]]]]


@dataclass(frozen=True)
class Bench:
    """How an experiment's bench makes its shipped results: `configs(seed)`, the configs it runs on the
    models of one training seed (core.lab.weights.SEEDS; called with none, seed 0's), the `results` it
    writes from one seed's Outcomes (a seed's layout of the JSON's "results": seed 0's at the top, every
    seed's under `by_seed`), the `record` of its configuration written beside them, and `check`: from the
    shipped results, the configs a rerun runs and how to compare its Outcomes with them, as (what, live,
    shipped seed 0's, every shipped seed's) numbers. `after` writes what ships beside the JSON from seed
    0's Outcomes (the probe's attention maps); `label` names a run in the CPU record; `extra` the
    bench's own runs, each a command-line flag (the passkey's --tiny)."""

    configs: Callable[..., list[Any]]
    results: Callable[[list[Outcome]], dict[str, Any]]
    record: dict[str, Any]
    check: Check
    after: Callable[[list[Outcome]], None] | None = None
    label: Callable[[Any], str] = lambda config: config.label
    extra: dict[str, Callable[[], int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    """One experiment on trained models: everything the lab needs of it, in one place.

    - `name`: its key (the view in the URL, data/lab_<name>_results.json); `title`: the picker's words;
      `question`: what it asks, in one sentence (the page's words above a view drawn from the record alone);
    - `config`: its config type (frozen; its fields checked in __post_init__, with `scheme` and `label`);
      `default`: the config a live run of the record alone starts;
    - `run(config, on_step, should_stop) -> Outcome`: the run (torch imported when it runs);
    - the budget: `estimate(config)` in CPU seconds, `trains(config)` whether it trains (else it only
      evaluates), `doing(configs)` the budget sentence's subject; `over_budget` is the one rule;
      `steps(config)`: the steps its progress bar counts;
    - `results`: its `Results` dataclass; `findings(results) -> str`, what the numbers show;
      `figure(results, what) -> Figure`, its picture; `said(config, outcome) -> str`, a live run's numbers in words;
    - `command`: what makes its shipped results (the bench); `bench`: the bench's parts (`Bench`),
      or None when its bench module (bench.lab_<name>) holds them as BENCH;
    - `unit`: what its progress counts per second; `limit` and `file` as their comments say (the language model's
      records, core.llm.registry, set both)."""

    name: str
    title: str
    question: str
    config: type
    default: Callable[[], Any]
    run: Callable[..., Outcome]
    estimate: Callable[[Any], float]
    trains: Callable[[Any], bool]
    doing: Callable[[Sequence[Any]], str]
    steps: Callable[[Any], int]
    results: type[Results]
    findings: Callable[[Any], str]
    figure: Callable[..., Any]
    said: Callable[[Any, Outcome], str]
    command: str = ""
    bench: Bench | None = None
    unit: str = "characters"
    limit: float | None = None  # its live budget in CPU seconds, when not the lab's (the language model's runs are costed on their own fit)
    file: Path | None = None  # its results file, when not data/lab_<name>_results.json

    def __post_init__(self) -> None:
        if not self.command:
            object.__setattr__(self, "command", f"python -m bench.lab_{self.name}")

    def load(self, path: Path | None = None) -> Shipped:
        """Its shipped results, typed (`Shipped.data`), or ValueError with a sentence naming the file and the command."""
        return load(self.name, path or self.file, self.results, self.command)

    @staticmethod
    def of(records: Mapping[str, Experiment], config: Any, what: str = "experiment") -> Experiment:
        """The record among `records` whose config `config` is, or ValueError with a sentence."""
        for record in records.values():
            if type(config) is record.config:
                return record
        raise ValueError(f"No {what} runs a {type(config).__name__}.")

    def over_budget(self, configs: Sequence[Any]) -> str | None:
        """The lab's one budget rule: the configs' estimated CPU seconds together, within the record's `limit`
        when it has one, else TRAIN_CPU_S when any of them trains and EVAL_CPU_S when they only evaluate; else the sentence why not."""
        if not configs:
            return None
        limit = self.limit or (TRAIN_CPU_S if any(self.trains(c) for c in configs) else EVAL_CPU_S)
        costs = [Estimate(self.estimate(c), 0.0, 0.0, 0.0, 0) for c in configs]  # CPU seconds only: experiments run in small steps
        return refuse(costs, limit, self.doing(configs), "Choose smaller settings, or read the precomputed results above.")
