"""The sentences of the lab's real-text section (ui.lab.lm) that quote numbers: what to look for in the
precomputed results, where they differ from the paper, and what the paper says of each method. Every
number is read from the results or from core.lab.lm.PAPER_CLAIMS, never typed. Pure functions, so tests
read every sentence. `lead` cuts any of the lab's findings into what shows under a figure and what folds below it."""

from __future__ import annotations

import functools
import re

import numpy as np

from core.lab import extend, findings, lm
from core.lab.lm_figures import short_label
from core.schemes import relative
from core.schemes.registry import SCHEMES, T5_BUCKETS

Perplexity = dict[str, dict[int, float | None]]
T5_USUAL_MAX_DISTANCE = 128  # T5's own max_distance (Raffel et al. 2020, §2.1)
FAR = 1 << 20  # a distance past every bucket's edge: the buckets any distance reaches


SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z“\"(])")  # a full stop, a space, and a capital or an opening mark
NOT_AN_END = ("al.", "e.g.", "i.e.", "cf.", "vs.")  # a stop that ends an abbreviation ("Haviv et al. (2022)"), not a sentence


def sentences(text: str) -> list[str]:
    """`text` cut into its sentences (a decimal point has no space after it; an abbreviation's stop is not an end)."""
    out: list[str] = []
    for piece in SENTENCE_BREAK.split(text.strip()):
        if out and out[-1].endswith(NOT_AN_END):
            out[-1] += " " + piece
        elif piece:
            out.append(piece)
    return out


def lead(text: str, most: int = 3, words: int = 60) -> tuple[str, str]:
    """`text` as (what is shown under a figure, what is folded below it): its first sentences, at most `most` of them and
    `words` words, and the rest. A first sentence already longer than `words` is all folded (the lead is then empty), so
    what shows is always whole sentences; the two parts joined by a space are the text."""
    parts = sentences(text)
    shown = 0
    while shown < min(most, len(parts)) and len(" ".join(parts[: shown + 1]).split()) <= words:
        shown += 1
    return " ".join(parts[:shown]), " ".join(parts[shown:])


def extension_lead(runs: list[list[dict]], factor: int, tuned: bool, train_len: int = 64) -> str:
    """Under the context-extension figure, two short sentences from its numbers (the mean over the training seeds): at s·L,
    which scaling is lowest and which highest, and the model as trained there; '' when a scaling has no value there."""
    far = min(factor, 8) * train_len
    picks = [{r["method"]: r for r in run if r["factor"] == factor and bool(r["fine_tune"]) == tuned} for run in runs]
    got = {m: findings.spread([p[m]["perplexity"].get(str(far)) if m in p else None for p in picks]) for m in extend.SCALED}
    trained = findings.spread([next(r for r in run if r["method"] == "none" and not r["fine_tune"])["perplexity"].get(str(far)) for run in runs])
    if trained is None or any(v is None for v in got.values()):
        return ""
    state = f"after {next(iter(picks[0].values()))['fine_tune']} fine-tuning steps" if tuned else "without fine-tuning"
    seeds = f" (means over {len(runs)} training seeds)" if len(runs) > 1 else ""

    def ends(best: bool) -> str:  # the lowest (or highest) by its mean, with every other scaling whose seeds' range reaches into it
        tied = findings.extreme(got, highest=not best)  # type: ignore[arg-type]
        if len(tied) == 1:
            return f"{extend.LABELS[tied[0]]}, {got[tied[0]].mean:.2f}"  # type: ignore[union-attr]
        tied.sort(key=lambda m: got[m].mean, reverse=not best)  # type: ignore[union-attr]
        named = [f"{extend.LABELS[m]} ({got[m].mean:.2f})" for m in tied]  # type: ignore[union-attr]
        return ", ".join(named[:-1]) + " and " + named[-1] + ", within the seeds' spread"

    return (
        f"At s = {factor}, {state}, perplexity at s·L = {far} is lowest with {ends(True)}, and highest with {ends(False)}{seeds}. "
        f"The model as trained, not stretched, has {trained.mean:.2f} there."
    )

def _label(scheme: str) -> str:
    return SCHEMES[scheme].label


def paper_rows(claims: tuple[lm.PaperClaim, ...]) -> dict[str, list[str]]:
    """The paper's claims as a table: per method, how far past L it keeps improving, what it says, and where."""
    L = lm.PAPER_TRAIN_LEN
    return {
        "method": [short_label(c.scheme) for c in claims],
        f"improves up to, past L = {L}": [f"{c.extra:,} tokens (L + {c.extra / L:.0%})" if c.extra is not None else "" for c in claims],
        "the paper says": [c.says for c in claims],
        "where": [c.where for c in claims],
    }


def _claims_sentence(claims: tuple[lm.PaperClaim, ...]) -> str:
    L = lm.PAPER_TRAIN_LEN
    told = [f"{_label(c.scheme)} {c.extra:,} tokens (L + {c.extra / L:.0%})" for c in claims if c.extra is not None]
    return f"the paper's word-level models, trained on L = {L} tokens, keep improving past L up to: {', '.join(told)}"


def start_shares(train_len: int, factors: tuple[int, ...] = (1, 8), context: int | None = None) -> list[tuple[int, float]]:
    """For whole non-overlapping windows of f·L characters, the share of scored characters that have fewer than
    `context` (L/4 by default) characters before them in their window: context / (f·L). Returns (window, share) pairs."""
    k = context if context is not None else max(1, train_len // 4)
    return [(f * train_len, k / (f * train_len)) for f in factors]


def _ratios(runs: list[Perplexity], scheme: str, train_len: int, factor: int) -> findings.Spread | None:
    """ppl(factor·L) / ppl(L) of one scheme in every seed's run, or None where a run has no number there."""
    values = [lm.ratio(run.get(scheme, {}), train_len, factor) for run in runs]
    return findings.spread(values)


def reading(runs: list[Perplexity], train_len: int, claims: tuple[lm.PaperClaim, ...]) -> str:
    """'What to look for' in the precomputed results (`runs`: each training seed's perplexities): the perplexities at L, the
    ratio ppl(4L) / ppl(L) of each scheme with how far past L the paper's models improve, and why ALiBi gains (the paper's
    early-token curse). Values are means over the seeds; NoPE is called worse or better, and ALiBi's perplexity said to fall,
    only beyond the seeds' spread (core.lab.findings)."""
    at_l = {s: findings.spread([run[s].get(train_len) for run in runs]) for s in runs[0]}
    at_l = {s: v for s, v in at_l.items() if v is not None}
    with_pos = {s: v for s, v in at_l.items() if s != "none"}
    over = f" (means over {len(runs)} training seeds)" if len(runs) > 1 else ""
    parts = []
    if "none" in at_l and with_pos:
        nope = at_l["none"]
        sides = {findings.compare(nope, x) for x in with_pos.values()}
        if sides == {"higher"}:
            than = "scores worse than every scheme with positions" + findings.beyond(nope)
        elif sides == {"lower"}:
            than = "scores better than every scheme with positions" + findings.beyond(nope)
        elif {"higher", "lower"} <= sides:
            than = "scores worse than some schemes with positions and better than others"
        else:
            than = "scores within the seeds' spread of some schemes with positions"
        best, worst = min(x.mean for x in with_pos.values()), max(x.mean for x in with_pos.values())
        parts.append(
            f"At L = {train_len} the schemes with positions score {best:.2f} to {worst:.2f} and NoPE {nope.mean:.2f}{over}: without positions, "
            "order reaches the model only through the causal mask (each character sees only those before it). Language models trained that "
            f"way still carry absolute position in their hidden states (Haviv et al. 2022); this small one {than}."
        )
    ratios = [f"{_label(s)} ×{r.mean:.3g}" for s in runs[0] if (r := _ratios(runs, s, train_len, 4)) is not None]
    if ratios:
        parts.append(f"Past L, ppl(4L) / ppl(L) here: {', '.join(ratios)}; {_claims_sentence(claims)} (§2.2; the ‘In the paper’ tab).")
    gain = _ratios(runs, "alibi", train_len, 8) if "alibi" in runs[0] else None
    if gain is not None and findings.direction(gain) == "falls":
        (short, a), (long, b) = start_shares(train_len)
        said = next((c for c in claims if c.scheme == "alibi"), None)
        also = f"; the paper says its ALiBi model {said.says} ({said.where})" if said else ""
        at = {n: float(np.mean([run["alibi"][n] for run in runs])) for n in (train_len, 8 * train_len)}
        parts.append(
            f"ALiBi's perplexity falls with longer windows ({at[train_len]:.3f} at {train_len} → {at[8 * train_len]:.3f} at "
            f"{8 * train_len}{', in every seed' if len(runs) > 1 else ''}){also}. Press et al. attribute that gain to the early-token curse "
            "of non-overlapping evaluation (Appendix B): the first characters of each window are predicted with little or no context, and "
            f"longer windows have fewer of them. This lab evaluates the same way: {a:.1%} of the characters scored in windows of {short} "
            f"have fewer than {max(1, train_len // 4)} before them, {b:.1%} in windows of {long}."
        )
    return " ".join(parts)


@functools.lru_cache(maxsize=16)
def t5_buckets_reached(train_len: int, max_distance: int) -> int:
    """How many of T5's causal buckets the distances 0 .. L − 1 of training windows reach (core.schemes.relative).
    Kept per arguments for the process: /lab's text asks it on every run, twice for FAR distances (about 20 ms each)."""
    buckets = relative.t5_relative_bucket(-np.arange(train_len), bidirectional=False, num_buckets=T5_BUCKETS, max_distance=max_distance)
    return int(np.unique(buckets).size)


PAPER_MODEL = (16, 1024)  # layers and width of the paper's WikiText-103 model (Baevski & Auli's, §2.1)


def differences(
    runs: list[Perplexity],
    train_len: int,
    t5_max_distance: int,
    claims: tuple[lm.PaperClaim, ...],
    seconds: dict[str, float] | None = None,
    model: tuple[int, int] | None = None,
) -> str:
    """Where the lab's setting departs from the paper's: the unit, the model (`model`: this run's layers and width), the run times,
    the training length; RoPE's ratio beside the paper's rotary claim and T5's buckets, computed."""
    if seconds:
        took = f"trained and evaluated in {min(seconds.values()):.0f} to {max(seconds.values()):.0f} s per scheme here"
    else:
        took = "trained briefly on a CPU"
    size = f"{model[0]} layers of width {model[1]} against the paper's {PAPER_MODEL[0]} of width {PAPER_MODEL[1]} (§2.1)" if model else "a far smaller model"
    parts = [f"Where this differs from the paper: characters, not words; {size}, {took}; L = {train_len} instead of {lm.PAPER_TRAIN_LEN}."]
    rope_here = _ratios(runs, "rope", train_len, 4) if "rope" in runs[0] else None
    rotary = next((c for c in claims if c.scheme == "rope" and c.extra is not None), None)
    if rope_here is not None and rotary is not None:
        parts.append(
            f"Here RoPE's perplexity is ×{rope_here.mean:.3g} by 4L{' (the seeds’ mean)' if len(runs) > 1 else ''}; the paper's rotary model "
            f"{rotary.says}: {rotary.extra:,} tokens is "
            f"L + {rotary.extra / lm.PAPER_TRAIN_LEN:.0%} ({rotary.where})."
        )
    reach, usable = t5_buckets_reached(train_len, t5_max_distance), t5_buckets_reached(FAR, t5_max_distance)
    usual, usual_usable = t5_buckets_reached(train_len, T5_USUAL_MAX_DISTANCE), t5_buckets_reached(FAR, T5_USUAL_MAX_DISTANCE)
    parts.append(
        f"T5's buckets here stop at distance {t5_max_distance}, so training windows of {train_len} reach {reach} of the {usable} buckets any "
        f"distance can reach; with T5's usual {T5_USUAL_MAX_DISTANCE} they would reach {usual} of {usual_usable}, and the others would get "
        "no gradient and stay as initialised."
    )
    return " ".join(parts)
