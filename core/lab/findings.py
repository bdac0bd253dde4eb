"""What the experiments on trained models found, in sentences built from their numbers, torch-free.

Each function reads the results as the shipped JSON holds them (core.lab.experiment.Shipped
.results) and says what they show, choosing its words by the numbers (rises or falls, helps or
hurts), so a sentence on the page stays true when the results are made again on another machine
or with other settings. The papers' claims beside them are quoted by the page (ui.lab_trained).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.lab import extend
from core.lab.probe import MAP_WINDOWS
from core.schemes.registry import SCHEMES


def _compare(a: float, b: float, rel: float = 5e-3) -> str:
    """'higher', 'lower' or 'about the same' (within `rel`, 0.5 %): a against b."""
    if abs(a - b) <= rel * abs(b):
        return "about the same"
    return "higher" if a > b else "lower"


def probe(models: Sequence[dict]) -> str:
    """The probe's findings: NoPE by depth, the input, the relative schemes, the absolute ones."""
    nope = {m["n_layers"]: m["r2"] for m in models if m["scheme"] == "none"}
    depths = sorted(nope)
    last = [nope[n][-1] for n in depths]
    rising = all(b > a for a, b in zip(last, last[1:]))
    said = ", ".join(f"{v:.3f} ({n} layer{'s' if n > 1 else ''})" for n, v in zip(depths, last))
    out = [f"NoPE's position can be read after its last block with R² {said}" + ("; it rises with depth." if rising and len(depths) > 1 else ".")]
    at_input = max(r[0] for r in nope.values())
    out.append(
        f"At the input (layer 0) R² is {at_input:.3f} at most: without positions a character's embedding is the same wherever it stands, "
        "so whatever NoPE knows of position it builds in its blocks (through the causal mask, Haviv et al. conjecture)."
    )
    relative = [m for m in models if m["scheme"] in ("rope", "t5", "alibi") and m["n_layers"] == 2]
    if relative:
        top = max(max(m["r2"]) for m in relative)
        out.append(
            f"RoPE, T5 and ALiBi reach R² {top:.3f} at most at any layer: "
            + (
                "they keep almost no absolute position in the residual stream, putting position into the attention scores instead."
                if top < 0.1
                else "they keep some."
            )
        )
    for scheme, name in (("sinusoidal", "The sinusoid's added code"), ("learned", "The learned table's")):
        m = next((m for m in models if m["scheme"] == scheme and m["n_layers"] == 2), None)
        if m:
            out.append(f"{name} is read at R² {m['r2'][0]:.3f} at the input and {m['r2'][-1]:.3f} after block 2.")
    return " ".join(out)


def attention_maps(nope: np.ndarray, t5: np.ndarray, layer: int, nope_entropy: float, t5_entropy: float) -> str:
    """Layer `layer` (from 1) of NoPE's and T5's mean attention maps (layers, H, T, T): their
    entropies beside even attention's, and whether NoPE's map, averaged over heads, is closer to
    T5's or to even attention (mean total-variation distance per query row, ½ Σ_j |a_ij − b_ij|)."""
    t = nope.shape[-1]
    even = np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]  # every query spread evenly over its keys
    a, b = nope[layer - 1].mean(axis=0), t5[layer - 1].mean(axis=0)  # (T, T)
    to_t5, to_even = (float(0.5 * np.abs(a - other).sum(axis=-1).mean()) for other in (b, even))
    nearer = "to T5's than to even attention" if to_t5 < to_even else "to even attention than to T5's"
    return (
        f"Mean attention entropy of layer {layer} (nats, over every query of {MAP_WINDOWS} windows): NoPE {nope_entropy:.3f}, "
        f"T5 {t5_entropy:.3f}; attention spread evenly over every query's keys would have {float(np.log(np.arange(1, t + 1)).mean()):.3f}. "
        "Kazemnejad et al. (2023, abstract) find that NoPE trained with SGD “mostly resembles T5's relative PE attention patterns”. "
        f"Here NoPE's layer {layer}, averaged over heads, is closer {nearer}: a mean total-variation distance per query of "
        f"{to_t5:.3f} from T5's and {to_even:.3f} from even attention (0: the same weights, 1: no key in common)."
    )


def extension(rows: Sequence[dict], factor: int, tuned: bool, length: int = 512) -> str:
    """At factor s (fine-tuned or not): the ranking of the scalings at `length`, linear's place,
    what the temperature did, against the model as trained."""
    key = str(length)
    pick = {r["method"]: r for r in rows if r["factor"] == factor and bool(r["fine_tune"]) == tuned}
    trained = next(r for r in rows if r["method"] == "none" and not r["fine_tune"])
    scaled = [m for m in extend.SCALED if m in pick]
    if not scaled:
        return ""
    ranked = sorted(scaled, key=lambda m: pick[m]["perplexity"][key])
    state = f"after {pick[ranked[0]]['fine_tune']} fine-tuning steps" if tuned else "without fine-tuning"
    out = [
        f"At s = {factor}, {state}, perplexity at {length} from lowest to highest: "
        + ", ".join(f"{extend.LABELS[m]} {pick[m]['perplexity'][key]:.3f}" for m in ranked)
        + f"; the model as trained has {trained['perplexity'][key]:.3f} there and {trained['perplexity']['64']:.3f} at 64."
    ]
    if ranked[-1] == "linear" and not tuned:
        out.append(
            "Linear interpolation is the worst of them untuned: it divides every frequency by s, the fastest pairs' too, and this model "
            "reads its neighbours with those (see “RoPE's frequencies”); NTK-aware and YaRN leave the fastest pair as it was."
        )
    if tuned and "none" in pick:
        alone = pick["none"]["perplexity"][key]
        out.append(f"Fine-tuning as long at {min(factor, 8) * 64} without any scaling gives {alone:.3f} at {length}.")
    if "yarn" in pick and "yarn_no_t" in pick:
        y, y0 = pick["yarn"]["perplexity"][key], pick["yarn_no_t"]["perplexity"][key]
        e, e0 = pick["yarn"]["entropy"][key], pick["yarn_no_t"]["entropy"][key]
        out.append(
            f"YaRN's temperature leaves perplexity at {length} {_compare(y, y0)} ({y:.3f} with it, {y0:.3f} without) and makes attention "
            f"{'sharper' if e < e0 else 'broader'} (entropy {e:.3f} against {e0:.3f} nats; the model as trained has "
            f"{trained['entropy']['64']:.3f} at 64 and {trained['entropy'][key]:.3f} at {length})."
        )
    return " ".join(out)


def pairs(variants: Sequence[dict], never: Sequence[int]) -> str:
    """What removing the fastest, the slowest and the never-turning pairs does at L and 4L."""
    by = {(v["kind"], v["k"]): v["perplexity"] for v in variants}
    base = by[("none", 0)]
    fast1 = by[("fastest", 1)]
    n_slow = max(k for kind, k in by if kind == "slowest")
    spare = max([k for k in range(1, n_slow + 1) if abs(by[("slowest", k)]["64"] - base["64"]) <= 0.01 * base["64"]], default=0)
    out = [f"Removing the fastest pair alone multiplies perplexity at 64 by {fast1['64'] / base['64']:.2f} ({base['64']:.3f} → {fast1['64']:.3f})."]
    out.append(
        f"The {spare} slowest pair{'s' if spare != 1 else ''} can go with perplexity at 64 within 1 % of the full model's."
        if spare
        else "Even the slowest pair cannot go without changing perplexity at 64 by more than 1 %."
    )
    k = len(never)
    if k and ("slowest", k) in by:
        after = by[("slowest", k)]
        verb = "falls" if after["256"] < base["256"] else "does not fall"
        out.append(
            f"Without the {k} pairs that never turn within L, perplexity at 256 {verb} ({base['256']:.3f} → {after['256']:.3f}), "
            f"and at 64 it goes from {base['64']:.3f} to {after['64']:.3f}."
        )
    return " ".join(out)


def sliding(rows: Sequence[dict], train_len: int = 64) -> str:
    """Per scheme: non-overlapping and sliding perplexity at L and at the longest window."""
    out = []
    for scheme in dict.fromkeys(r["scheme"] for r in rows):
        mine = {r["window"]: r for r in rows if r["scheme"] == scheme}
        first = mine.get(train_len)
        if first is None:
            continue
        longest = max(mine)
        if longest == train_len:
            out.append(f"{SCHEMES[scheme].label}: {first['nonoverlapping']:.3f} non-overlapping and {first['sliding']:.3f} sliding at {train_len}")
            continue
        far = mine[longest]
        out.append(
            f"{SCHEMES[scheme].label}: non-overlapping {first['nonoverlapping']:.3f} at {train_len} → {far['nonoverlapping']:.3f} at {longest}, "
            f"sliding {first['sliding']:.3f} → {far['sliding']:.3f}"
        )
    return "; ".join(out) + "."


def early_tokens(rows: Sequence[dict], scheme: str = "alibi", train_len: int = 64) -> str:
    """Whether `scheme`'s gain on longer non-overlapping windows survives a sliding window."""
    mine = {r["window"]: r for r in rows if r["scheme"] == scheme}
    if train_len not in mine or len(mine) < 2:
        return ""
    first, far = mine[train_len], mine[max(mine)]
    plain_falls = far["nonoverlapping"] < first["nonoverlapping"]
    slide_falls = far["sliding"] < first["sliding"] * (1 - 5e-3)
    name, longest = SCHEMES[scheme].label, max(mine)
    said = (
        f"{name}'s non-overlapping perplexity {'falls' if plain_falls else 'does not fall'} from {train_len} to {longest} "
        f"({first['nonoverlapping']:.3f} → {far['nonoverlapping']:.3f}), and its sliding one "
        f"{'falls too' if slide_falls else 'does not'} ({first['sliding']:.3f} → {far['sliding']:.3f})"
    )
    if plain_falls and not slide_falls:
        return said + (
            ": as Press et al. read their own sliding-window results (appendix B.2), the gain comes from fewer characters near a "
            "window's start, not from using more than L of context."
        )
    return said + "."


def passkey(results: dict[str, dict], train_len: int = 64) -> str:
    """Per scheme: the worst accuracy within L and beyond it, and the farthest distance's."""
    parts = []
    for scheme, res in results.items():
        acc = {int(d): v for d, v in res["accuracy"].items()}
        inside = [v for d, v in acc.items() if d < train_len and v is not None]
        outside = [v for d, v in acc.items() if d >= train_len and v is not None]
        far = max(acc)
        text = f"{SCHEMES[scheme].label}: {min(inside):.2f} at worst within L" if inside else f"{SCHEMES[scheme].label}: no answer within L"
        text += f", {min(outside):.2f} at worst beyond it, {acc[far]:.2f} at {far}" if outside else ", no code beyond L"
        parts.append(text)
    return "; ".join(parts) + "."


def without_positions(results: dict[str, dict]) -> str:
    """NoPE's worst passkey accuracy over every distance; when it answers (nearly) everywhere, what that shows: the key
    can be found by what it is, so what the schemes with positions lose past L comes from their positions."""
    if "none" not in results:
        return ""
    answered = [v for v in results["none"]["accuracy"].values() if v is not None]
    if not answered:
        return ""
    worst = min(answered)
    if worst < 0.99:
        return f"NoPE, which has no positions, names {worst:.2f} of the keys at worst."
    share = "every key" if worst == 1.0 else f"{worst:.2f} of the keys or more"
    return (
        f"NoPE, which has no positions, names {share} at every distance: the key's tokens occur nowhere else, so "
        "attention can find them by what they are, wherever they are; what a scheme with positions loses beyond L comes from its positions."
    )


def flat(perplexity: dict[str, dict[int, float | None]], train_len: int = 64, within: float = 0.1) -> list[str]:
    """The schemes whose non-overlapping perplexity at their longest length stays within `within`
    (10 %) of their perplexity at `train_len`: those whose perplexity "stays flat" past L."""
    out = []
    for scheme, ppl in perplexity.items():
        longest = max(ppl)
        at_l, far = ppl.get(train_len), ppl[longest]
        if longest > train_len and at_l is not None and far is not None and abs(far / at_l - 1) <= within:
            out.append(scheme)
    return out


def flat_but_retrieving(results: dict[str, dict], perplexity: dict[str, dict[int, float | None]], train_len: int = 64, within: float = 0.1) -> str:
    """For the schemes whose real-text perplexity stays flat past L (`flat`, on the shipped
    comparison's `perplexity`): their worst passkey accuracy beyond L."""
    chosen = [s for s in flat(perplexity, train_len, within) if s in results]
    out = []
    for scheme in chosen:
        beyond = [v for d, v in results[scheme]["accuracy"].items() if int(d) >= train_len and v is not None]
        if beyond:
            worst = min(beyond)
            out.append(
                f"{SCHEMES[scheme].label} names {worst:.0%} of the keys or more at every distance beyond L"
                if worst < 1
                else f"{SCHEMES[scheme].label} names every key at every distance"
            )
    if not out:
        return ""
    longest = max(max(p) for p in perplexity.values())
    return (
        f"Of the schemes whose perplexity on Austen at {longest} stays within {within:.0%} of their perplexity at {train_len} "
        f"({', '.join(SCHEMES[s].label for s in chosen)}): " + "; ".join(out) + "."
    )
