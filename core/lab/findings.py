"""What the experiments on trained models found, in sentences chosen by their numbers, torch-free, so a sentence stays
true when the results are made again. A value over several training seeds is its mean with the lowest and highest seed's
in brackets (`Spread`); one value is called higher or lower than another only where those ranges do not overlap, else
"within the spread"; a change within one model is read per seed, as the ratio after / before, and called a rise or a
fall only when every seed's ratio is on the same side of 1."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core.lab import config, extend
from core.lab.experiment import layouts as layouts, runs as runs  # the pages read a shipped file's seeds through findings
from core.lab.probe import MAP_WINDOWS
from core.schemes import rope
from core.schemes.registry import SCHEMES

WITHIN = "within the spread"


@dataclass(frozen=True)
class Spread:
    """One measured value over several seeds: its mean, lowest and highest."""

    values: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.values or not all(math.isfinite(v) for v in self.values):
            raise ValueError("A spread needs at least one finite value.")

    @property
    def mean(self) -> float:
        return float(np.mean(self.values))

    @property
    def lo(self) -> float:
        return min(self.values)

    @property
    def hi(self) -> float:
        return max(self.values)

    def text(self, digits: int = 3) -> str:
        """'4.745 (4.690–4.800)': the mean, and the lowest to highest seed's ('(every seed)' when they read the same); one seed: its value."""
        if len(self.values) == 1:
            return f"{self.values[0]:.{digits}f}"
        if f"{self.lo:.{digits}f}" == f"{self.hi:.{digits}f}":
            return f"{self.mean:.{digits}f} (every seed)"
        between = " to " if self.lo < 0 else "–"  # a dash between negative numbers reads as a minus
        return f"{self.mean:.{digits}f} ({self.lo:.{digits}f}{between}{self.hi:.{digits}f})"


def spread(values: Sequence[float | None]) -> Spread | None:
    """The Spread of `values`, or None when any seed has no value (no code there)."""
    if not values or any(v is None for v in values):
        return None
    return Spread(tuple(float(v) for v in values))  # type: ignore[arg-type]


def beyond(*spreads: Spread) -> str:
    """' beyond the spread' where the values come from several seeds; '' from one (there is no spread to be beyond)."""
    return " beyond the spread" if any(len(x.values) > 1 for x in spreads) else ""


def per_seed(*spreads: Spread) -> str:
    """' per seed' after a ratio read in each of several seeds; '' for one."""
    return " per seed" if any(len(x.values) > 1 for x in spreads) else ""


def compare(a: Spread, b: Spread) -> str:
    """'higher' or 'lower' (a against b) only where their ranges do not overlap, else 'within the spread'."""
    if a.lo > b.hi:
        return "higher"
    if a.hi < b.lo:
        return "lower"
    return WITHIN


def survey(task: str) -> dict[str, tuple[Spread, Spread | None]]:
    """The lab's task survey (core.lab.config.SURVEY) for one task: per scheme, its accuracy over the seeds at the training
    length and at 4x it (None: no code there)."""
    return {s: (Spread(row[task][0]), None if row[task][1] is None else Spread(row[task][1])) for s, row in config.SURVEY.items()}


def ratio(before: Sequence[float | None], after: Sequence[float | None]) -> Spread | None:
    """The per-seed ratio after / before of one model's value (seeds paired), or None where a value is missing."""
    if len(before) != len(after) or any(v is None for v in (*before, *after)):
        return None
    return Spread(tuple(float(b) / float(a) for a, b in zip(before, after)))  # type: ignore[arg-type]


def direction(change: Spread, rises: str = "rises", falls: str = "falls") -> str:
    """`rises` when every seed's ratio is above 1, `falls` when every one is below, else 'stays within the spread'."""
    if change.lo > 1:
        return rises
    if change.hi < 1:
        return falls
    return "stays " + WITHIN


def seeds_note(n: int, what: str = "training seeds") -> str:
    """What every bracket in a caption means."""
    if n < 2:
        return "From one training seed: no spread between seeds is measured here."
    return (
        f"Every value is the mean over {n} {what}, with the lowest and highest seed's in brackets; one value is called higher or lower "
        f"than another only where those ranges do not overlap, and “{WITHIN}” where they do."
    )


def extreme(named: Mapping[str, Spread], highest: bool = False) -> list[str]:
    """The entry with the lowest (or highest) mean and every other whose range reaches into its range, in the mapping's
    order: one name only where it is clear of the rest beyond the spread."""
    pick = (max if highest else min)(named, key=lambda k: named[k].mean)
    return [k for k in named if k == pick or compare(named[k], named[pick]) == WITHIN]


def ordered(named: Mapping[str, Spread], digits: int = 3) -> str:
    """The entries from the lowest mean to the highest, each after the first marked against the one before it:
    higher beyond the spread, or within the spread of it."""
    order = sorted(named, key=lambda k: named[k].mean)
    out = [f"{order[0]} {named[order[0]].text(digits)}"]
    for before, name in zip(order, order[1:]):
        higher = compare(named[name], named[before]) == "higher"
        mark = f"higher{beyond(named[name], named[before])}" if higher else f"{WITHIN} of {before}"
        out.append(f"{name} {named[name].text(digits)} ({mark})")
    return ", ".join(out)


def probe(runs: Sequence[Sequence[dict]]) -> str:
    """The probe's findings over every seed's models: NoPE by depth, the input, the relative schemes, the absolute ones."""
    seeds = [{(m["scheme"], m["n_layers"]): m for m in run} for run in runs]
    depths = sorted(n for s, n in seeds[0] if s == "none")
    last = {n: spread([m[("none", n)]["r2"][-1] for m in seeds]) for n in depths}
    said = ", ".join(f"{last[n].text()} ({n} layer{'s' if n > 1 else ''})" for n in depths)
    rising = len(depths) > 1 and all(compare(last[b], last[a]) == "higher" for a, b in zip(depths, depths[1:]))
    out = [f"NoPE's position can be read after its last block with R² {said}" + (f"; it rises with depth{beyond(*last.values())}." if rising else ".")]
    at_input = max(m[key]["r2"][0] for m in seeds for key in m if key[0] == "none")
    out.append(
        f"At the input (layer 0) R² is {at_input:.3f} at most: without positions a character's embedding is the same wherever it stands, "
        "so whatever NoPE knows of position it builds in its blocks (through the causal mask, Haviv et al. conjecture)."
    )
    relative = [m[key] for m in seeds for key in m if key[0] in ("rope", "t5", "alibi") and key[1] == 2]
    if relative:
        top = max(max(m["r2"]) for m in relative)
        out.append(
            f"RoPE, T5 and ALiBi reach R² {top:.3f} at most at any layer in any seed: "
            + (
                "a linear probe reads almost no absolute position from their residual stream (what a non-linear reader could find is not "
                "measured here); their positions enter the attention scores, not the stream."
                if top < 0.1
                else "a linear probe reads some absolute position from their residual stream."
            )
        )
    for scheme, name in (("sinusoidal", "The sinusoid's added code"), ("learned", "The learned table's")):
        if all((scheme, 2) in m for m in seeds):
            first, end = (spread([m[(scheme, 2)]["r2"][i] for m in seeds]) for i in (0, -1))
            out.append(f"{name} is read at R² {first.text()} at the input and {end.text()} after block 2.")
    return " ".join(out)


def attention_maps(layer: int, models: Sequence[Sequence[Mapping]], distances: Sequence[Mapping[str, list[float]]], t: int) -> str:
    """Layer `layer` (from 1) of NoPE's and T5's mean attention maps over every training seed: their entropies (`models`, each
    seed's probe rows) beside even attention's over `t` keys, and whether NoPE's map, averaged over heads, is closer to T5's or
    to even attention (`distances`, each seed's probe.map_distances), said only beyond the seeds' spread."""

    def entropy(scheme: str) -> Spread:
        return Spread(tuple(next(m for m in ms if (m["scheme"], m["n_layers"]) == (scheme, 2))["entropy"][layer - 1] for ms in models))

    to_t5, to_even = (Spread(tuple(d[key][layer - 1] for d in distances)) for key in ("to_t5", "to_even"))
    past = beyond(to_t5, to_even)
    nearer = {"lower": f"closer to T5's than to even attention{past}", "higher": f"closer to even attention than to T5's{past}"}
    tied = "as near to T5's as to even attention, within the spread"
    seeds = len(distances)
    return (
        f"Mean attention entropy of layer {layer} (nats, over every query of {MAP_WINDOWS} windows"
        + (f", the mean over {seeds} training seeds' models with the lowest and highest in brackets" if seeds > 1 else "")
        + f"): NoPE {entropy('none').text()}, T5 {entropy('t5').text()}; attention spread evenly over every query's keys would have "
        f"{float(np.log(np.arange(1, t + 1)).mean()):.3f}. Kazemnejad et al. (2023, abstract) find that NoPE trained with SGD “mostly "
        f"resembles T5's relative PE attention patterns”. Here NoPE's layer {layer}, averaged over {MAP_WINDOWS} windows and over heads, is "
        f"{nearer.get(compare(to_t5, to_even), tied)}: a mean total-variation distance "
        f"per query of {to_t5.text()} from T5's and {to_even.text()} from even attention (0: the same weights, 1: no key in common). "
        + ("The maps drawn are seed 0's models'. " if seeds > 1 else "")
        + "This compares the averaged maps only: averaging smooths, so one window's or one head's attention is not measured by it."
    )


def yarn_ramp(train_len: int, head_dim: int, base: float) -> str:
    """Which pairs YaRN keeps, ramps and interpolates here (Hugging Face's ramp on the pair index, its ends rounded outwards
    to whole pairs), and what the paper's ramp (on the turns L/λ a pair makes within L, α = 1, β = 32) would do to pair 0.
    Neither ramp depends on s."""
    scaling = rope.RopeScaling("yarn", 2.0, train_len)  # any s: the ramp's ends depend on L, the base and the betas only
    low, high = rope.yarn_correction_range(head_dim, base, scaling)
    pairs = head_dim // 2
    kept = [i for i in range(pairs) if i <= low]
    ramped = [i for i in range(pairs) if low < i < high]
    divided = [i for i in range(pairs) if i >= high]

    def named(idx: list[int]) -> str:
        return "none" if not idx else f"pair {idx[0]}" if len(idx) == 1 else f"pairs {idx[0]} to {idx[-1]}"

    theta0 = rope.rope_frequencies(head_dim, base)[0][0]
    turns = train_len * theta0 / (2 * math.pi)
    gamma = min(max((turns - scaling.beta_slow) / (scaling.beta_fast - scaling.beta_slow), 0.0), 1.0)
    return (
        f"YaRN here uses Hugging Face's ramp: on the pair index, its ends rounded outwards to whole pairs. With L = {train_len} and "
        f"{pairs} pairs per head that keeps {named(kept)} as trained, moves {named(ramped)} part of the way to θ/s and divides "
        f"{named(divided)} by s. The paper's ramp, on the {turns:.1f} turns pair 0 makes within L (kept only above "
        f"{scaling.beta_fast:g}), would move pair 0 {1 - gamma:.0%} of the way to θ/s too."
    )


def _rows(run: Sequence[dict], factor: int, tuned: bool) -> dict[str, dict]:
    return {r["method"]: r for r in run if r["factor"] == factor and bool(r["fine_tune"]) == tuned}


def extension(runs: Sequence[Sequence[dict]], factor: int, tuned: bool, train_len: int = 64) -> str:
    """At factor s (fine-tuned or not), over every seed: the ranking of the scalings at L and at s·L, linear's place,
    what the temperature did, against the model as trained."""
    picks = [_rows(run, factor, tuned) for run in runs]
    trained = [next(r for r in run if r["method"] == "none" and not r["fine_tune"]) for run in runs]
    scaled = [m for m in extend.SCALED if all(m in p for p in picks)]
    if not scaled:
        return ""
    far = min(factor, 8) * train_len

    def at(method: str, length: int, what: str = "perplexity") -> Spread | None:
        return spread([p[method][what].get(str(length)) for p in picks])

    steps = picks[0][scaled[0]]["fine_tune"]
    state = f"after {steps} fine-tuning steps" if tuned else "without fine-tuning"
    out = []
    for length, name in ((train_len, "L"), (far, "s·L")):
        got = {extend.LABELS[m]: at(m, length) for m in scaled}
        if all(v is not None for v in got.values()):
            out.append(f"At s = {factor}, {state}, perplexity at {length} ({name}) from lowest to highest: {ordered(got)}.")  # type: ignore[arg-type]
    base = {n: spread([r["perplexity"].get(str(n)) for r in trained]) for n in (train_len, far)}
    if all(base.values()):
        out.append(f"The model as trained has {base[train_len].text()} at {train_len} and {base[far].text()} at {far}.")  # type: ignore[union-attr]
    far_ppl = {m: at(m, far) for m in scaled}
    if "linear" in far_ppl and not tuned and all(far_ppl.values()):
        others = [m for m in scaled if m != "linear"]
        if others and all(compare(far_ppl["linear"], far_ppl[m]) == "higher" for m in others):  # type: ignore[arg-type]
            margin = beyond(far_ppl["linear"]).replace(" ", ", ", 1)  # type: ignore[arg-type]
            out.append(
                f"Linear interpolation is the worst of them untuned at {far}{margin}: it divides every frequency by s, the fastest "
                "pairs' too, and this model reads its neighbours with those (see “RoPE's frequencies”); NTK-aware and YaRN leave the fastest "
                "pair as it was."
            )
    if tuned and all("none" in p for p in picks):
        alone = at("none", far)
        if alone is not None:
            out.append(f"Fine-tuning as long at {far} without any scaling gives {alone.text()} at {far}.")
    if tuned:
        out.append(
            f"This ranking is after {steps} steps; Chen et al. fine-tune position interpolation for up to 1,000, and how the ranking "
            f"moves with a fine-tune {extend.LONGER_FINE_TUNE // extend.FINE_TUNE_STEPS} times as long is measured at s = {extend.SHOWN_FACTOR} "
            "(perplexity against fine-tuning steps)."
        )
    if "yarn" in scaled and "yarn_no_t" in scaled:
        y, y0 = at("yarn", far), at("yarn_no_t", far)
        e, e0 = at("yarn", far, "entropy"), at("yarn_no_t", far, "entropy")
        if y and y0 and e and e0:
            sharp = {"lower": "sharper", "higher": "broader", WITHIN: f"about as sharp ({WITHIN})"}[compare(e, e0)]
            does = {"higher": f"raises perplexity at {far}{beyond(y, y0)}", "lower": f"lowers perplexity at {far}{beyond(y, y0)}"}
            out.append(
                f"YaRN's temperature {does.get(compare(y, y0), f'leaves perplexity at {far} {WITHIN}')} ({y.text()} with it, "
                f"{y0.text()} without) and makes attention {sharp} (entropy {e.text()} against {e0.text()} nats)."
            )
    return " ".join(out)


def budget_table(rows: Sequence[dict], budgets: Sequence[dict], factor: int, length: int, train_len: int = 64) -> dict[str, dict[int, float | None]]:
    """One seed's perplexity at `length` per method (extend.METHODS) and fine-tune steps (extend.BUDGETS) at factor s: no
    fine-tune ("no scaling" is then the model as trained), the short one (`rows`) and the longer one (`budgets`)."""
    table: dict[str, dict[int, float | None]] = {m: {} for m in extend.METHODS}
    for r in [*rows, *budgets]:
        steps = int(r["fine_tune"])
        if r["method"] in table and steps in extend.BUDGETS and (r["factor"] == factor or (r["method"] == "none" and not steps and r["factor"] == 1)):
            table[r["method"]][steps] = r["perplexity"].get(str(length))
    return table


def budgets(runs: Sequence[Sequence[dict]], budget_runs: Sequence[Sequence[dict]], factor: int, train_len: int = 64) -> str:
    """Over every seed, at factor s: each method's perplexity at s·L ranked per fine-tune budget (no fine-tune, the short and
    the longer one), which methods are lowest or within the spread of the lowest at each, and which beat position
    interpolation beyond the spread at each: how the ranking moves with the fine-tune's length."""
    far = min(factor, 8) * train_len
    tables = [budget_table(rows, more, factor, far, train_len) for rows, more in zip(runs, budget_runs)]
    steps = [b for b in extend.BUDGETS if all(all(t[m].get(b) is not None for m in extend.METHODS) for t in tables)]
    if len(steps) < 2:
        return ""

    def when(b: int) -> str:
        return "without fine-tuning" if not b else f"after {b} fine-tuning steps"

    at = {b: {m: spread([t[m][b] for t in tables]) for m in extend.METHODS} for b in steps}
    out = [
        f"Perplexity at {far} (s·L, s = {factor}), each method fine-tuned on windows of {far} characters (“no scaling” untuned is the "
        "model as trained), from lowest to highest: "
        + "; ".join(f"{when(b)}, {ordered({extend.LABELS[m]: v for m, v in at[b].items()})}" for b in steps)  # type: ignore[misc]
        + "."
    ]

    def names(methods: Sequence[str]) -> str:
        return ", ".join(extend.LABELS[m] for m in methods) or "no method"

    lowest = []
    for b in steps:
        first = min(extend.METHODS, key=lambda m: at[b][m].mean)  # type: ignore[union-attr]
        lowest.append(f"{when(b)} {names([m for m in extend.METHODS if compare(at[b][m], at[b][first]) != 'higher'])}")  # type: ignore[arg-type]
    out.append("Lowest, or within the spread of the lowest: " + "; ".join(lowest) + ".")
    beaten = [f"{when(b)} by {names([m for m in extend.METHODS if m != 'linear' and compare(at[b][m], at[b]['linear']) == 'lower'])}" for b in steps]  # type: ignore[arg-type]
    out.append("Linear interpolation (position interpolation, which Chen et al. fine-tune) is beaten beyond the spread " + "; ".join(beaten) + ".")
    gap = [at[b]["linear"].mean / min(v.mean for v in at[b].values()) for b in steps]  # type: ignore[union-attr]
    moves = "shrinks" if all(y < x for x, y in zip(gap, gap[1:])) else "grows" if all(y > x for x, y in zip(gap, gap[1:])) else "has no one direction"
    out.append(f"Its mean over the lowest mean: {', '.join(f'× {g:.2f} {when(b)}' for g, b in zip(gap, steps))}; the gap {moves} with the fine-tune.")
    return " ".join(out)


def _angle(inv_freq: Sequence[float], idx: Sequence[int], train_len: int) -> float:
    return float(max((train_len - 1) * inv_freq[i] for i in idx))


def pairs(runs: Sequence[Mapping], never: Sequence[int], inv_freq: Sequence[float] | None = None, train_len: int = 64) -> str:
    """What freezing the fastest, the slowest and the never-turning pairs does at L and 4L, per seed; and beside it what
    zeroing the slowest pairs' query and key dimensions (their content) does; with the angle such pairs turn within L.
    `runs`: every seed's results (`layouts`), their "variants" and "zeroed"."""
    seeds = [{(v["kind"], v["k"]): v["perplexity"] for v in [*run["variants"], *run.get("zeroed", [])]} for run in runs]
    base = [s[("none", 0)] for s in seeds]
    key = str(train_len)
    fast1 = ratio([b[key] for b in base], [s[("fastest", 1)][key] for s in seeds])
    out = [
        f"Removing the fastest pair alone (its frequency set to 0: it stops turning) multiplies perplexity at {train_len} by {fast1.text(2)} "  # type: ignore[union-attr]
        f"({spread([b[key] for b in base]).text()} → {spread([s[('fastest', 1)][key] for s in seeds]).text()})."  # type: ignore[union-attr]
    ]
    n_slow = max(k for kind, k in seeds[0] if kind == "slowest")

    def change(kind: str, k: int, length: str = key) -> Spread | None:
        return ratio([b[length] for b in base], [s[(kind, k)][length] for s in seeds])

    spare = max([k for k in range(1, n_slow + 1) if (c := change("slowest", k)) is not None and abs(c.lo - 1) <= 0.01 and abs(c.hi - 1) <= 0.01], default=0)
    angle = ""
    if inv_freq is not None and spare:
        turned = _angle(inv_freq, range(len(inv_freq) - spare, len(inv_freq)), train_len)
        angle = f" (within {train_len} positions the fastest of them turns {turned:.2f} rad at most, so stopping them turns no query against a key by more)"
    out.append(
        f"The {spare} slowest pair{'s' if spare != 1 else ''} can be removed with perplexity at {train_len} within 1 % of the full model's "
        f"in every seed{angle}."
        if spare
        else f"Even the slowest pair cannot be removed without changing perplexity at {train_len} by more than 1 % in some seed."
    )
    k = len(never)
    if k and ("slowest", k) in seeds[0]:
        far = str(4 * train_len)
        c4 = change("slowest", k, far)
        if c4 is not None:
            out.append(
                f"With the {k} pairs that never turn within L removed, perplexity at {far} {direction(c4)} (× {c4.text(3)}{per_seed(c4)}), "
                f"and at {train_len} it is × {change('slowest', k).text(3)}."  # type: ignore[union-attr]
            )
    zeroed = sorted(k for kind, k in seeds[0] if kind == "zeroed")
    if zeroed:
        said = []
        for z in zeroed:
            c = change("zeroed", z)
            if c is not None:
                one = z == 1
                angle = f"{_angle(inv_freq, range(len(inv_freq) - z, len(inv_freq)), train_len):.2f} rad within L" if inv_freq is not None else ""
                turned = (f"; it turns {angle}" if one else f"; the fastest of them turns {angle}") if angle else ""
                does = direction(c, "raises it" if one else "raise it", "lowers it" if one else "lower it").replace("stays", "leaves it" if one else "leave it")
                said.append(f"{'the slowest pair' if one else f'the {z} slowest'} {does} (× {c.text(3)}{per_seed(c)}{turned})")
        if said:
            out.append(
                f"Zeroing the slowest pairs' query and key dimensions instead, which removes what they carry whatever their angle, perplexity at {train_len}: "
                + "; ".join(said)
                + "."
            )
    return " ".join(out)


def sliding(runs: Sequence[Sequence[dict]], train_len: int = 64) -> str:
    """Per scheme, over every seed: non-overlapping and sliding perplexity at L and at the longest window."""
    seeds = [{(r["scheme"], r["window"]): r for r in run} for run in runs]
    out = []
    for scheme in dict.fromkeys(r["scheme"] for r in runs[0]):
        windows = sorted(w for s, w in seeds[0] if s == scheme)
        if train_len not in windows:
            continue

        def at(window: int, what: str) -> str:
            s = spread([m[(scheme, window)][what] for m in seeds])
            return "no value" if s is None else s.text()

        longest = max(windows)
        if longest == train_len:
            out.append(f"{SCHEMES[scheme].label}: {at(train_len, 'nonoverlapping')} non-overlapping and {at(train_len, 'sliding')} sliding at {train_len}")
            continue
        out.append(
            f"{SCHEMES[scheme].label}: non-overlapping {at(train_len, 'nonoverlapping')} at {train_len} → {at(longest, 'nonoverlapping')} at {longest}, "
            f"sliding {at(train_len, 'sliding')} → {at(longest, 'sliding')}"
        )
    return "; ".join(out) + "."


def early_tokens(runs: Sequence[Sequence[dict]], scheme: str = "alibi", train_len: int = 64) -> str:
    """Whether `scheme`'s gain on longer non-overlapping windows survives a sliding window, in every seed."""
    seeds = [{r["window"]: r for r in run if r["scheme"] == scheme} for run in runs]
    if train_len not in seeds[0] or len(seeds[0]) < 2:
        return ""
    longest = max(seeds[0])
    plain = ratio([m[train_len]["nonoverlapping"] for m in seeds], [m[longest]["nonoverlapping"] for m in seeds])
    slide = ratio([m[train_len]["sliding"] for m in seeds], [m[longest]["sliding"] for m in seeds])
    if plain is None or slide is None:
        return ""
    name = SCHEMES[scheme].label
    plain_says, slide_says = direction(plain), direction(slide)
    said = (
        f"{name}'s non-overlapping perplexity {plain_says} from {train_len} to {longest} (× {plain.text(3)}{per_seed(plain)}), "
        f"and its sliding one {slide_says} (× {slide.text(3)})"
    )
    if plain_says == "falls" and slide_says != "falls":
        return said + (
            ": as Press et al. read their own sliding-window results (appendix B.2), the gain comes from fewer characters near a "
            "window's start, not from using more than L of context."
        )
    return said + "."


def passkey(runs: Sequence[Mapping[str, dict]], train_len: int = 64) -> str:
    """Per scheme, over every seed: the worst accuracy within L and beyond it, and the farthest distance's."""
    parts = []
    for scheme in runs[0]:
        accs = [{int(d): v for d, v in run[scheme]["accuracy"].items()} for run in runs]
        inside = [min([v for d, v in acc.items() if d < train_len and v is not None], default=None) for acc in accs]
        outside = [min([v for d, v in acc.items() if d >= train_len and v is not None], default=None) for acc in accs]
        far = max(accs[0])
        label = SCHEMES[scheme].label
        text = f"{label}: {spread(inside).text(2)} at worst within L" if spread(inside) else f"{label}: no answer within L"  # type: ignore[union-attr]
        at_far = spread([acc.get(far) for acc in accs])
        text += (
            f", {spread(outside).text(2)} at worst beyond it, {at_far.text(2) if at_far else 'no answer'} at {far}" if spread(outside) else ", no code beyond L"
        )  # type: ignore[union-attr]
        parts.append(text)
    return "; ".join(parts) + "."


def positional_passkey(
    runs: Sequence[Mapping[str, dict]], keys: int, asked: int, counting: Sequence[Mapping[str, float]], train_len: int = 64
) -> str:
    """The passkey whose keys are fillers, per scheme over every seed: the mean accuracy over the distances within L and
    over those beyond it, in how many seeds each is above chance (1 / `keys`) by more than three binomial standard errors
    of chance over the questions it averages (`asked` a distance), and against a reader without positions that names the
    filler seen most often (`counting`: its accuracy per distance on each seed's questions, core.lab.passkey.counting_accuracy)."""
    chance = 1 / keys
    n = len(runs)

    def part(accs: Sequence[Mapping[int, float | None]], inside: bool) -> tuple[Spread | None, int]:
        means, above = [], 0
        for acc in accs:
            got = [v for d, v in acc.items() if (d < train_len) == inside and v is not None]
            if not got:
                return None, 0
            m = float(np.mean(got))
            means.append(m)
            above += m > chance + 3 * math.sqrt(chance * (1 - chance) / (asked * len(got)))
        return Spread(tuple(means)), above

    def said(above: int) -> str:
        if above == n:
            return "above chance" + (" in every seed" if n > 1 else "")
        if not above:
            return "at chance" + (" in every seed" if n > 1 else "")
        return f"above chance in {above} of {n} seeds"

    counter = [{int(d): v for d, v in c.items()} for c in counting]
    near_count, far_count = part(counter, True)[0], part(counter, False)[0]
    parts, beats = [], []
    for scheme in runs[0]:
        accs = [{int(d): v for d, v in run[scheme]["accuracy"].items()} for run in runs]
        (near, near_above), (far, far_above) = part(accs, True), part(accs, False)
        if near is None:
            continue
        text = f"{SCHEMES[scheme].label} {near.text(2)} within L, {said(near_above)}"
        text += f"; {far.text(2)} beyond it, {said(far_above)}" if far is not None else "; no code beyond L"
        parts.append(text)
        if near_count is not None and compare(near, near_count) == "higher":
            beats.append(SCHEMES[scheme].label)
    out = (
        "A key here is one of the filler tokens: only its place right after the marker marks it (and the one it adds to its token's "
        f"count). Mean accuracy over the "
        f"distances asked, chance 1 in {keys} ({chance:.2f}); a seed counts as above chance where its mean is more than three binomial "
        "standard errors above it: " + "; ".join(parts) + "."
    )
    if near_count is not None and far_count is not None:
        out += (
            " A reader with no positions that names the filler seen most often in the sequence names "
            f"{near_count.text(2)} of the keys within L and {far_count.text(2)} beyond it, on the same questions. Above that reader within L"
            + f"{beyond(near_count)}: {', '.join(beats) if beats else 'no scheme'}."
        )
        said = f"{', '.join(beats)} name{'s' if len(beats) == 1 else ''} more" if beats else "No scheme names more"
        out = f"{said} keys within L than a reader with no positions that only counts tokens (the comparison at the end). " + out  # the answer first
    return out


def without_positions(runs: Sequence[Mapping[str, dict]]) -> str:
    """NoPE's worst passkey accuracy over every distance and seed; when it answers (nearly) everywhere, what that shows: the key
    can be found by what it is, so this version of the task needs no position, and what the schemes with positions lose past L
    comes from their positions."""
    if not all("none" in run for run in runs):
        return ""
    answered = [v for run in runs for v in run["none"]["accuracy"].values() if v is not None]
    if not answered:
        return ""
    worst = min(answered)
    seeds = f" in {len(runs)} seeds" if len(runs) > 1 else ""
    if worst < 0.99:
        return f"NoPE, which has no positions, names {worst:.2f} of the keys at worst{seeds}."
    share = "every key" if worst == 1.0 else f"{worst:.2f} of the keys or more"
    return (
        f"NoPE, which has no positions, names {share} at every distance{seeds}: the key's tokens occur nowhere else, so "
        "attention can find them by what they are, wherever they are. This version of the task needs no position at all; "
        "what a scheme with positions loses beyond L comes from its positions getting in the way."
    )


def lm_table(runs: Sequence[Mapping[str, dict]], train_len: int = 64) -> str:
    """The Austen comparison over every seed: perplexity at L from lowest to highest, and each scheme's ppl(8L) / ppl(L) per seed."""
    at_l = {SCHEMES[s].label: spread([run[s]["perplexity"].get(str(train_len)) for run in runs]) for s in runs[0]}
    got = {k: v for k, v in at_l.items() if v is not None}
    out = [f"Perplexity at L = {train_len}, lowest to highest: {ordered(got)}."] if got else []
    growth = []
    for s in runs[0]:
        c = ratio([run[s]["perplexity"].get(str(train_len)) for run in runs], [run[s]["perplexity"].get(str(8 * train_len)) for run in runs])
        if c is not None:
            growth.append(f"{SCHEMES[s].label} × {c.text(2)}")
    if growth:
        out.append(f"From {train_len} to {8 * train_len}, per seed: " + ", ".join(growth) + ".")
    return " ".join(out)
