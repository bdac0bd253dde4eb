"""The lab's experiments on trained models, one `Experiment` record each (core.lab.experiment), torch-free: the only
place that says which experiments exist; the runner, the page, the benches and the tests go over `EXPERIMENTS`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.lab import extend, findings, pairs, passkey, probe, sliding
from core.lab import trained_figures as figs
from core.lab.experiment import Experiment, Outcome, Results
from core.schemes.registry import SCHEMES


def _torch_side(name: str) -> Callable[..., Outcome]:
    """core.lab.trained's `name`, imported (with torch) when a run starts, not when the registry is read."""

    def run(config: Any, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None) -> Outcome:
        from core.lab import trained

        return getattr(trained, name)(config, on_step, should_stop)

    run.__name__ = run.__qualname__ = name
    return run


def _ppl(values: dict[str, float | None]) -> str:
    return ", ".join(f"{v:.3f} at {n}" for n, v in values.items() if v is not None)


# --- does it know where it is? -------------------------------------------------------------------


@dataclass(frozen=True)
class ProbeResults(Results):
    models: list[dict]
    maps: dict
    ROWS = {"models": ("scheme", "n_layers", "r2", "mae", "entropy")}
    KEYS = {"maps": ("to_t5", "to_even")}


PROBE = Experiment(
    "probe", "Does it know where it is?", "How well does a linear probe read each character's position from a model's residual stream?",
    probe.ProbeConfig, probe.ProbeConfig, _torch_side("run_probe"),
    estimate=probe.estimate_seconds,
    trains=lambda c: not c.shipped,
    doing=lambda cs: f"Training and probing the {max(cs, key=probe.estimate_seconds).label} model",
    steps=lambda c: 1 if c.shipped else c.steps,
    results=ProbeResults,
    findings=lambda r: findings.probe(r.runs("models")),
    figure=lambda r, what: figs.over_seeds(lambda ms, w: figs.probe_figure([(m["scheme"], m["n_layers"], m["r2"]) for m in ms], what=w), r.runs("models"),
                                           what),
    said=lambda c, o: f"{c.label}: R² per layer {', '.join(f'{v:.3f}' for v in o.values['r2'])}.",
)  # fmt: skip


# --- context extension ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ExtendResults(Results):
    rows: list[dict]
    budgets: list[dict]  # the longer fine-tune at extend.SHOWN_FACTOR, beside `rows`' untuned and short-tuned runs
    ROWS = {"rows": ("method", "factor", "fine_tune", "perplexity", "entropy"), "budgets": ("method", "factor", "fine_tune", "perplexity")}


EXTEND = Experiment(
    "extend", "Context extension", "How does the trained RoPE model read past its training length when its RoPE is scaled?",
    extend.ExtendConfig, extend.ExtendConfig, _torch_side("run_extend"),
    estimate=extend.estimate_seconds,
    trains=lambda c: bool(c.fine_tune),
    doing=lambda cs: "Fine-tuning and evaluating this" if any(c.fine_tune for c in cs) else "Evaluating this",
    steps=lambda c: c.fine_tune + len(c.lengths),
    results=ExtendResults,
    findings=lambda r: " ".join((findings.extension(r.runs("rows"), extend.SHOWN_FACTOR, False),
                                 findings.budgets(r.runs("rows"), r.runs("budgets"), extend.SHOWN_FACTOR))),
    figure=lambda r, what: figs.over_seeds(lambda rows, w: figs.extend_figure(rows, extend.SHOWN_FACTOR, False, what=w), r.runs("rows"), what),
    said=lambda c, o: f"{c.label}: perplexity {_ppl(o.values['perplexity'])}.",
)  # fmt: skip


# --- sliding window --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SlidingResults(Results):
    rows: list[dict]
    ROWS = {"rows": ("scheme", "window", "stride", "sliding", "nonoverlapping")}


SLIDING = Experiment(
    "sliding", "Sliding window", "Does a longer window lower perplexity because more context is used, or because fewer characters start a window?",
    sliding.SlidingConfig, sliding.SlidingConfig, _torch_side("run_sliding"),
    estimate=sliding.estimate_seconds,
    trains=lambda c: False,
    doing=lambda cs: "This sliding-window evaluation",
    steps=lambda c: 1,
    results=SlidingResults,
    findings=lambda r: findings.sliding(r.runs("rows")),
    figure=lambda r, what: figs.over_seeds(lambda rows, w: figs.sliding_figure(rows, list(dict.fromkeys(row["scheme"] for row in rows)), what=w),
                                           r.runs("rows"), what),
    said=lambda c, o: f"{c.label}: perplexity {o.values['perplexity']:.3f}." if o.values["perplexity"] is not None else f"{c.label}: {o.values['note']}",
)  # fmt: skip


# --- RoPE's frequencies ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PairsResults(Results):
    frequencies: list[float]
    wavelengths: list[float]
    never_turn: list[int]
    variants: list[dict]
    ROWS = {"variants": ("name", "kind", "k", "removed", "perplexity")}


PAIRS = Experiment(
    "pairs", "RoPE's frequencies", "Which of its RoPE frequencies does the trained model use?",
    pairs.PairsConfig, pairs.PairsConfig, _torch_side("run_pairs"),
    estimate=pairs.estimate_seconds,
    trains=lambda c: False,
    doing=lambda cs: "Evaluating these ablations",
    steps=lambda c: len(c.lengths),
    results=PairsResults,
    findings=lambda r: findings.pairs(r.layouts(), r.never_turn, r.frequencies),
    figure=lambda r, what: figs.over_seeds(lambda variants, w: figs.pairs_figure(variants, what=w), r.runs("variants"), what),
    said=lambda c, o: f"{c.label}: perplexity {_ppl(o.values['perplexity'])}.",
)  # fmt: skip


# --- passkey ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PasskeyResults(Results):
    schemes: dict[str, dict]
    ROWS = {"schemes": ("accuracy",)}


def _passkey_figure(r: PasskeyResults, what: str, default: passkey.PasskeyConfig = passkey.PasskeyConfig()):
    def draw(schemes: dict, what: str):
        return figs.passkey_figure([(s, schemes[s]["accuracy"]) for s in schemes if s in SCHEMES], default.keys, default.train_len, what=what)

    return figs.over_seeds(draw, r.runs("schemes"), what)


# what the two passkey experiments share: the runner, the budget, the progress, the results' type and the sentence of a run
_PASSKEY_PARTS = dict(
    run=_torch_side("run_passkey"),
    estimate=passkey.estimate_seconds,
    trains=lambda c: True,
    doing=lambda cs: "Training one scheme on the passkey task",
    steps=lambda c: c.steps,
    results=PasskeyResults,
    said=lambda c, o: f"{c.label}: accuracy " + ", ".join(f"{v:.2f} at {d}" for d, v in o.values["accuracy"].items() if v is not None) + ".",
    unit="tokens",
)

PASSKEY = Experiment(
    "passkey", "Passkey at a distance", "Can a model trained on short sequences fetch a key hidden far back in a longer one?",
    passkey.PasskeyConfig, passkey.PasskeyConfig,
    findings=lambda r: findings.passkey(r.runs("schemes")),
    figure=_passkey_figure,
    **_PASSKEY_PARTS,
)  # fmt: skip


POSITIONAL_PASSKEY = Experiment(
    "positional_passkey", "Passkey that needs position",
    "When the key is drawn from the filler tokens, so that only its place right after the marker tells it apart, which models learn to fetch it?",
    passkey.PositionalConfig, passkey.PositionalConfig,
    findings=lambda r: findings.positional_passkey(r.runs("schemes"), passkey.PositionalConfig().keys, passkey.PositionalConfig().eval_count,
                                                   [passkey.counting_accuracy(passkey.PositionalConfig(seed=s)) for s in r.extra.get("seeds", [0])]),
    figure=lambda r, what: _passkey_figure(r, what, passkey.PositionalConfig()),
    **_PASSKEY_PARTS,
)  # fmt: skip


EXPERIMENTS: dict[str, Experiment] = {e.name: e for e in (PROBE, EXTEND, SLIDING, PAIRS, PASSKEY, POSITIONAL_PASSKEY)}  # the page's order


def of(config: Any) -> Experiment:
    """The experiment whose config `config` is, or ValueError with a sentence."""
    return Experiment.of(EXPERIMENTS, config)


def run(config: Any, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None) -> Outcome:
    """Run any experiment's config through its record and give its Outcome (torch is imported here)."""
    return of(config).run(config, on_step, should_stop)


def over_budget(configs: Sequence[Any]) -> str | None:
    """The budget of one experiment's configs (`Experiment.over_budget`), from the first config's record."""
    return of(configs[0]).over_budget(configs) if configs else None
