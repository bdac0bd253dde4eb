"""The pictures of the experiments on trained models (core.lab.probe, pairs, extend, sliding,
passkey), torch-free. Each function takes plain numbers, as the shipped results hold them and as
a live run gives them, so both draw the same way; every title says what is shown and whose
numbers they are (`what`: "precomputed, seed 0", "your run").
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from core.lab import extend, lm, passkey, probe
from core.lab.lm_figures import _colour_by_scheme, short_label
from core.schemes.registry import SCHEMES
from core.viz import charts, palette
from core.viz.grid import Sample
from core.viz.heatmap import ScaleGroup, grouped_heatmap
from core.viz.memo import shared

L = lm.LMConfig().train_len  # the shipped models' training length
FIRST_QUERY = 4  # the attention maps start at query 4: queries 0 to 3 have 1 to 4 keys, and their weights near 1 would dim every other cell


def seeds_said(n: int) -> str:
    """What a figure drawn over `n` training seeds shows, in its title's brackets."""
    return f"mean of {n} training seeds, band: lowest to highest"


def over_seeds(draw: Callable[[Any, str], go.Figure], runs: Sequence[Any], what: str) -> go.Figure:
    """`draw(run, what)` over every training seed's numbers (`runs`) as one figure: every line at its mean over the seeds
    (missing where any seed has no value), under it a band of its colour from the lowest to the highest seed's, and the
    title's brackets saying so (`seeds_said`). One run is drawn as it is."""
    if len(runs) == 1:
        return draw(runs[0], what)
    figures = [draw(run, f"{what}, {seeds_said(len(runs))}") for run in runs]
    out = copy.deepcopy(figures[0])
    lines = [k for k, t in enumerate(out.data) if t.type == "scatter" and t.y is not None and t.fill is None]
    bands = []
    for k in lines:
        if any(len(f.data) != len(out.data) or f.data[k].name != out.data[k].name for f in figures):
            raise ValueError("Figures drawn over several seeds must draw the same lines.")
        ys = np.array([np.asarray(f.data[k].y, dtype=float) for f in figures])  # (seeds, points)
        x = np.asarray(out.data[k].x, dtype=float)
        lo, hi = ys.min(axis=0), ys.max(axis=0)
        out.data[k].y = ys.mean(axis=0)
        keep = np.isfinite(lo) & np.isfinite(hi)
        colour = out.data[k].line.color
        bands.append(
            go.Scatter(
                x=np.concatenate([x[keep], x[keep][::-1]]),
                y=np.concatenate([hi[keep], lo[keep][::-1]]),
                name=f"{out.data[k].name}: lowest to highest seed",
                mode="lines",
                fill="toself",
                fillcolor=palette.tint(colour, 0.18) if isinstance(colour, str) and colour.startswith("#") else None,
                line=dict(width=0, color=colour),
                hoverinfo="skip",
                showlegend=False,
            )
        )
    out.add_traces(bands)
    out.data = out.data[-len(bands) :] + out.data[: -len(bands)]  # the bands under the lines
    return out


def _ppl(values: dict[str, float | None], lengths: Sequence[int]) -> np.ndarray:
    return np.array([np.nan if values.get(str(n)) is None else values[str(n)] for n in lengths], dtype=float)


# --- the probe ------------------------------------------------------------------------------


def probe_label(scheme: str, n_layers: int, short: bool = False) -> str:
    return f"{short_label(scheme) if short else SCHEMES[scheme].label}, {n_layers} layer{'s' if n_layers > 1 else ''}"


@shared
def probe_figure(models: Sequence[tuple[str, int, Sequence[float]]], *, what: str) -> go.Figure:
    """R² of the linear position probe at every layer boundary, one line per (scheme, layers, R²s)."""
    lines = [(probe_label(s, n), np.arange(len(r2)), np.asarray(r2, dtype=float)) for s, n, r2 in models]
    fig = charts.lines.fresh(
        lines,
        title=f"How well a linear probe reads each character's position (0 to {L - 1}) from the residual stream, per layer ({what})",
        x_title="layer boundary (0: input; k: after block k)",  # short enough for a phone's column
        y_title="R² of the position probe",
        markers=True,
        integer_x=True,
        y_marks=[(0.0, "0: the mean")],
        # one line of small print (charts.NOTE_CHARS): a longer note wraps with its last words alone on a half-empty line
        note=f"fitted on {probe.PROBE_WINDOWS // 2} held-out windows of {L} characters, scored on "
        f"{probe.PROBE_WINDOWS - probe.PROBE_WINDOWS // 2} others; R² 0: no better than guessing the mean",
    )
    fig = _colour_by_scheme(fig, [s for s, _, _ in models])
    for trace, (_, n, _) in zip(fig.data, models):
        trace.line.dash = {1: "dot", 2: "solid", 3: "dashdot", 4: "dash"}.get(n, "solid")  # one scheme's depths: one colour, a dash each
    return fig


def attention_grid(maps: Sequence[tuple[str, np.ndarray]], layer: int) -> dict:
    """Layer `layer`'s mean attention, one panel per head, for each (model name, (layers, H, T, T))
    map: a panel grid on one sequential colour range from 0 (every panel's weights are comparable)."""
    panels = []
    for name, arr in maps:
        t = arr.shape[-1]
        keys, queries = Sample(0, t, 1), Sample(FIRST_QUERY, t, 1, full=t)
        panels += [(f"{name}, head {h + 1}", arr[layer, h, FIRST_QUERY:], keys, queries) for h in range(arr.shape[1])]
    top = float(max(np.nanmax(arr[layer, :, FIRST_QUERY:]) for _, arr in maps))
    group = ScaleGroup(panels, signed=False, zmin=0.0, zmax=top, colorbar_title="mean attention weight", hover="weight")
    spec = grouped_heatmap(
        [group],
        title=f"Mean attention of layer {layer + 1} over {probe.MAP_WINDOWS} held-out windows of {L} characters "
        f"(row: query position, from {FIRST_QUERY}; column: key position)",
        x_title="key position",
        y_title="query position",
        note=f"one colour range for every panel, 0 to {charts.number(top, 3)}; each row sums to 1 (a causal row i spreads over keys 0 to i)",
        panel_height=200,
        columns=max(arr.shape[1] for _, arr in maps),  # one row of heads per model
    )
    return spec


# --- the frequency ablation -------------------------------------------------------------------


@shared
def pairs_figure(variants: Sequence[dict], *, what: str) -> go.Figure:
    """Perplexity at L and 4L against the number of pairs removed, fastest first or slowest first."""
    base = next(v for v in variants if v["kind"] == "none")
    lines = []
    n = max(v["k"] for v in variants)
    for kind, word in (("fastest", "fastest"), ("slowest", "slowest")):
        rows = [base] + sorted((v for v in variants if v["kind"] == kind), key=lambda v: v["k"])
        if kind == "slowest":
            rows.append(next(v for v in variants if v["kind"] == "fastest" and v["k"] == n))  # all pairs removed: the same model either way
        ks = np.array([v["k"] for v in rows])
        for length in (L, 4 * L):
            lines.append((f"the k {word} removed, at {length}", ks, np.array([_ppl(r["perplexity"], [length])[0] for r in rows])))
    colours = (palette.FAST, palette.FAST, palette.SLOW, palette.SLOW)  # the fast pairs' colour and the slow ones', as on the wavelength chart
    fig = charts.lines.fresh(
        lines,
        title=f"The trained RoPE model with k of its {n} pairs removed (no longer turning): held-out perplexity at L = {L} and 4L = {4 * L} ({what})",
        x_title=f"pairs removed, k (k = {n}: no pair turns, the model has no positions)",
        y_title="perplexity per character (log)",
        log_y=True,
        markers=True,
        integer_x=True,
    )
    for trace, colour in zip(fig.data, colours):
        trace.line.color = trace.marker.color = colour
    for trace in fig.data[1::2]:
        trace.line.dash = "dash"  # 4L dashed, L solid
    return fig


@shared
def wavelength_figure(wavelengths: Sequence[float], removed: Sequence[int]) -> go.Figure:
    """/rope's wavelength picture of the model's 8 pairs, L marked, the removed pairs crossed."""
    w = np.asarray(wavelengths, dtype=float)
    fig = charts.spectrum.fresh(w, L, title=f"The RoPE model's pairs: wavelength 2π/θᵢ against the training length L = {L}", note="crossed: the pairs removed")
    if removed:
        idx = np.asarray(sorted(removed))
        fig.add_trace(
            go.Scatter(
                x=idx, y=w[idx], mode="markers", name="removed (frequency 0)", marker=dict(symbol="x", size=12, color=palette.region_colour("not rotated"))
            )
        )
    fig.update_layout(
        xaxis=dict(title=dict(text=f"pair index i (dimensions i and i + {w.size} of each {2 * w.size}-wide head)")),
        yaxis=dict(title=dict(text="wavelength 2π/θᵢ (characters, log scale)")),
    )
    for note in fig.layout.annotations:
        if note.text and note.text.startswith("max_len"):
            note.text = f"training length L = {L}"
    fig.data[0].name = "completes a turn within L"
    if len(fig.data) > 1 and fig.data[1].name.startswith("wavelength"):
        fig.data[1].name = "never completes a turn within L"
    return fig


# --- context extension -------------------------------------------------------------------------


@shared
def extend_figure(rows: Sequence[dict], factor: int, fine_tune: bool, *, what: str, quantity: str = "perplexity") -> go.Figure:
    """Perplexity (or attention entropy) against evaluation length for every method at factor s,
    without or with the fine-tune; the unscaled model as it was trained beside them."""
    lengths = list(extend.LENGTHS)
    lines, drawn, methods = [], [], []
    for method in extend.METHODS:
        for r in rows:
            same = r["method"] == method and bool(r["fine_tune"]) == fine_tune and (r["factor"] == factor or (method == "none" and not fine_tune))
            if same:
                name = extend.LABELS[method] + (" (as trained)" if method == "none" and not fine_tune else "")
                lines.append((name, np.array(lengths), _ppl(r[quantity], lengths)))
                drawn.append(r)
                methods.append(method)
                break
    steps = sorted({int(r["fine_tune"]) for r in drawn if r["fine_tune"]})
    tuned = f", after {' or '.join(map(str, steps))} fine-tuning steps at {min(factor, 8) * L}" if fine_tune and steps else ", no fine-tuning"
    if quantity == "perplexity":
        title = f"The trained RoPE model stretched by s = {factor}: held-out perplexity against length{tuned} ({what})"
        y_title, log_y = "perplexity per character (log)", True
    else:
        title = f"Mean attention entropy against length, s = {factor}{tuned} ({what})"
        y_title, log_y = "attention entropy (nats)", False
    fig = charts.lines.fresh(
        lines,
        title=title,
        x_title="evaluation length (characters, whole windows)",
        y_title=y_title,
        log_y=log_y,
        markers=True,
        x_marks=[(L, f"trained on L = {L}"), (min(factor, 8) * L, f"s × L = {factor * L}")]
        if factor * L <= 8 * L and factor > 1
        else [(L, f"trained on L = {L}")],
    )
    return _in_kind_colours(fig, methods)


@shared
def budget_figure(rows: Sequence[dict], budgets: Sequence[dict], factor: int, *, what: str) -> go.Figure:
    """Perplexity at s·L against the fine-tune's steps (core.lab.extend.BUDGETS), one line per method."""
    from core.lab.findings import budget_table

    far = min(factor, 8) * L
    steps = np.array(extend.BUDGETS)
    table = budget_table(rows, budgets, factor, far)
    lines = [(extend.LABELS[m], steps, np.array([np.nan if (v := table[m].get(int(b))) is None else v for b in steps], dtype=float)) for m in extend.METHODS]
    fig = charts.lines.fresh(
        lines,
        title=f"The trained RoPE model stretched by s = {factor}, fine-tuned on windows of {far}: held-out perplexity at s·L = {far} against "
        f"fine-tuning steps ({what})",
        x_title=f"fine-tuning steps on windows of {far} characters (the model was trained {lm.LMConfig().steps} steps at {L}; at 0, no scaling is the "
        "model as trained)",
        y_title="perplexity per character (log)",
        log_y=True,
        markers=True,
    )
    return _in_kind_colours(fig, extend.METHODS)


def _in_kind_colours(fig: go.Figure, methods: Sequence[str]) -> go.Figure:
    """The lines of `methods` (one each, in order) in their scaling kind's colour (core.viz.palette.KIND_COLOURS), the
    colour /llm gives the same kind. YaRN and YaRN without its temperature share their frequencies, so their lines can
    lie on each other: YaRN, drawn first, is wide and pale beneath, the other a dotted line on top, and both show."""
    for trace, method in zip(fig.data, methods):
        trace.line.color = trace.marker.color = palette.KIND_COLOURS["yarn-no-temperature" if method == "yarn_no_t" else method]
        if method == "yarn":
            trace.line.width, trace.marker.size, trace.opacity = 6, 9, 0.6
        elif method == "yarn_no_t":
            trace.line.dash = "dot"
    return fig


def extend_rows(rows: Sequence[dict], factor: int, fine_tune: bool) -> list[dict[str, object]]:
    """A table row per method at factor s: perplexity and entropy by length."""
    out = []
    for r in rows:
        if bool(r["fine_tune"]) != fine_tune or (r["factor"] != factor and not (r["method"] == "none" and not fine_tune)):
            continue
        row: dict[str, object] = {"method": extend.LABELS[r["method"]]}
        row.update({f"ppl @ {n}": r["perplexity"].get(str(n)) for n in extend.LENGTHS})
        row.update({f"entropy @ {n}": r["entropy"].get(str(n)) for n in extend.LENGTHS})
        out.append(row)
    return out


# --- sliding window ---------------------------------------------------------------------------


@shared
def sliding_figure(rows: Sequence[dict], schemes: Sequence[str], *, what: str) -> go.Figure:
    """For each scheme, non-overlapping (dashed) and sliding-window (solid) perplexity against the window length."""
    lines, order = [], []
    for scheme in schemes:
        mine = sorted((r for r in rows if r["scheme"] == scheme), key=lambda r: r["window"])
        if not mine:
            continue
        x = np.array([r["window"] for r in mine])
        stride = mine[0]["stride"]
        lines.append((f"{SCHEMES[scheme].label}, sliding (stride {stride})", x, np.array([r["sliding"] for r in mine], dtype=float)))
        lines.append(
            (
                f"{SCHEMES[scheme].label}, non-overlapping",
                x,
                np.array([np.nan if r["nonoverlapping"] is None else r["nonoverlapping"] for r in mine], dtype=float),
            )
        )
        order += [scheme, scheme]
    fig = charts.lines.fresh(
        lines,
        title=f"Held-out perplexity against window length: sliding window (solid) and whole non-overlapping windows (dashed) ({what})",
        x_title="window length (characters)",
        y_title="perplexity per character (log)",
        log_y=True,
        markers=True,
        x_marks=[(L, f"training length L = {L}")],
    )
    fig = _colour_by_scheme(fig, order)
    for trace in fig.data[1::2]:
        trace.line.dash = "dash"
    return fig


# --- passkey ---------------------------------------------------------------------------------


@shared
def passkey_figure(accuracy: Sequence[tuple[str, dict[str, float | None]]], keys: int, train_len: int, *, what: str) -> go.Figure:
    """Accuracy of the passkey answer against the key's distance, one line per scheme, chance and L marked."""
    lines = []
    for scheme, acc in accuracy:
        ds = sorted(int(d) for d in acc)
        lines.append((SCHEMES[scheme].label, np.array(ds), np.array([np.nan if acc[str(d)] is None else acc[str(d)] for d in ds], dtype=float)))
    fig = charts.lines.fresh(
        lines,
        title=f"Passkey retrieval: share of keys named right against the key's distance from the question, trained on {train_len} tokens ({what})",
        x_title="distance from the key to the question (tokens; the sequence is the shortest multiple of L that holds it)",
        y_title="accuracy",
        markers=True,
        y_range=(-0.03, 1.03),
        x_marks=[(train_len, f"training length L = {train_len}")],
        y_marks=[(1 / keys, f"chance: 1 in {keys}")],
        log_x=True,
    )
    fig = _colour_by_scheme(fig, [s for s, _ in accuracy])
    for k, trace in enumerate(fig.data[: len(accuracy)]):  # lines at the same accuracies lie on each other: a dash and a marker each
        trace.line.dash = DASHES[k % len(DASHES)]
        trace.marker.symbol = SYMBOLS[k % len(SYMBOLS)]
        trace.marker.size = 9 - k % 3
    return fig


DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross")


def coinciding(accuracy: Sequence[tuple[str, dict[str, float | None]]]) -> list[list[str]]:
    """Groups of two or more schemes whose accuracies are equal at every distance drawn (their
    lines lie on each other), in the order given."""
    groups: dict[tuple, list[str]] = {}
    for scheme, acc in accuracy:
        groups.setdefault(tuple(acc[d] for d in sorted(acc, key=int)), []).append(scheme)
    return [g for g in groups.values() if len(g) > 1]


def passkey_text(config: passkey.PasskeyConfig, seed: int = 0, shown: int = 24) -> str:
    """One training sequence of the task, as tokens: f3 filler, M the marker, K7 a key, ? the query."""
    tokens = config.alphabet
    x, y, d = passkey.batch(tokens, np.random.default_rng([seed, 9]), 1, config.train_len, distance=min(12, config.train_len - 2))
    names = []
    for t in x[0][-shown:]:
        t = int(t)
        names.append("M" if t == tokens.marker else "?" if t == tokens.query else f"K{t - tokens.fillers}" if t >= tokens.fillers else f"f{t}")
    answer = f"K{int(y[0, -1]) - tokens.fillers}"
    return f"input (last {shown} of {config.train_len}): {' '.join(names)}\nanswer at ?: {answer} (the key {int(d[0])} tokens back)"


# --- tables over the training seeds ------------------------------------------------------------


def spread_cell(values: Sequence[float | None], digits: int = 3) -> str:
    """A table cell of one value over the seeds: its mean with the lowest and highest seed's (findings.Spread), or empty
    when a seed has no value there."""
    from core.lab.findings import spread

    s = spread(values)
    return "" if s is None else s.text(digits)


def lm_seed_table(layouts: Sequence[dict], lengths: Sequence[int]) -> dict[str, list[str]]:
    """The Austen comparison's perplexity per scheme and length over every seed's results ({"results": {scheme: ...}})."""
    schemes = list(layouts[0]["results"])
    table = {"scheme": [short_label(s) for s in schemes]}
    for n in lengths:
        table[f"ppl @ {n}"] = [spread_cell([lay["results"][s]["perplexity"].get(str(n)) for lay in layouts]) for s in schemes]
    return table


def probe_table(layouts: Sequence[dict]) -> dict[str, list[str]]:
    """Per model (seed 0's order) and layer boundary: R² over the seeds, and in square brackets the mean absolute error in
    positions (mean over the seeds)."""
    models = layouts[0]["models"]
    keyed = [{(m["scheme"], m["n_layers"]): m for m in lay["models"]} for lay in layouts]
    depth = max(len(m["r2"]) for m in models)
    table = {"model": [probe_label(m["scheme"], m["n_layers"], short=True) for m in models]}
    for i in range(depth):
        cells = []
        for m in models:
            same = [k[(m["scheme"], m["n_layers"])] for k in keyed]
            cells.append(f"{spread_cell([s['r2'][i] for s in same])} [{np.mean([s['mae'][i] for s in same]):.1f}]" if i < len(m["r2"]) else "")
        table[f"layer {i}"] = cells
    return table


def extend_table(layouts: Sequence[dict], factor: int, fine_tune: bool) -> dict[str, list[str]]:
    """A row per method at factor s (extend_rows' choice): perplexity and entropy by length over the seeds."""
    rows = [extend_rows(lay["rows"], factor, fine_tune) for lay in layouts]
    if not rows[0]:
        return {}
    table: dict[str, list[str]] = {"method": [r["method"] for r in rows[0]]}  # type: ignore[misc]
    for key in rows[0][0]:
        if key != "method":
            table[key] = [spread_cell([seed[i][key] for seed in rows]) for i in range(len(rows[0]))]  # type: ignore[misc]
    return table


def sliding_table(layouts: Sequence[dict]) -> dict[str, list[str]]:
    """Per scheme and window (seed 0's rows): non-overlapping and sliding perplexity over the seeds."""
    keyed = [{(r["scheme"], r["window"]): r for r in lay["rows"]} for lay in layouts]
    rows = layouts[0]["rows"]
    return {
        "scheme": [short_label(r["scheme"]) for r in rows],
        "window": [str(r["window"]) for r in rows],
        "non-overlapping": [spread_cell([k[(r["scheme"], r["window"])]["nonoverlapping"] for k in keyed]) for r in rows],
        "sliding": [spread_cell([k[(r["scheme"], r["window"])]["sliding"] for k in keyed]) for r in rows],
    }


def pairs_table(layouts: Sequence[dict]) -> dict[str, list[str]]:
    """Every frequency removal and content ablation (seed 0's order): perplexity at L and 4L over the seeds."""
    runs = [[*lay["variants"], *lay.get("zeroed", [])] for lay in layouts]
    keyed = [{(v["kind"], v["k"]): v for v in run} for run in runs]
    first = runs[0]

    def said(v: dict) -> str:
        if v["kind"] == "zeroed":
            return f"{v['k']} slowest: query and key dimensions zeroed"
        return v["name"] + (" (frequency 0)" if v["kind"] != "none" else "")

    return {
        "changed": [said(v) for v in first],
        "pairs": [", ".join(map(str, v.get("removed") or v.get("zeroed") or [])) or "none" for v in first],
        **{f"ppl @ {n}": [spread_cell([k[(v["kind"], v["k"])]["perplexity"].get(str(n)) for k in keyed]) for v in first] for n in (L, 4 * L)},
    }


def passkey_table(layouts: Sequence[dict], schemes: Sequence[str]) -> dict[str, list[str]]:
    """Per scheme and distance: passkey accuracy over the seeds."""
    ds = sorted(int(d) for d in layouts[0]["schemes"][schemes[0]]["accuracy"])
    return {
        "scheme": [short_label(s) for s in schemes],
        **{f"d = {d}": [spread_cell([lay["schemes"][s]["accuracy"].get(str(d)) for lay in layouts], 2) for s in schemes] for d in ds},
    }
