"""The /llm page's pictures of a real language model (SmolLM2-135M) reading a sentence: one head's
attention under each way of giving it positions (as trained, rotation removed, positions shuffled),
and a summary of every head of every layer (how far back each looks on average, and how much it
attends to the first token). Built from plain arrays as core.llm returns them; what the numbers
show is said by the sentence functions beside them, from the same arrays.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from core.schemes import rope
from core.viz import charts, palette
from core.viz.grid import ordinal, strided
from core.viz.heatmap import Named, ScaleGroup, grouped_heatmap

TICK_LIMIT = 40  # above this many tokens the axes show positions instead of tokens
X_LABELS = 10  # key tokens named under each panel at most
ROW_PX = 14  # the height of a row with a token label


SPACE = "·"  # a space made visible: a raised dot reads at caption size, where ␣ looked like a comma


def shown_token(token: str) -> str:
    """A token as a label: its leading space as SPACE (the model's tokens carry the space before a word), newlines as ⏎."""
    return token.replace(" ", SPACE).replace("\n", "⏎").replace("\t", "⇥") or "∅"


def slot_names(tokens: Sequence[str]) -> list[str]:
    """'position:token' for each token: unique even where a token repeats, so a hover names one cell."""
    return [f"{i}:{shown_token(t)}" for i, t in enumerate(tokens)]


def causal(weights: np.ndarray) -> np.ndarray:
    """(T, T) weights with the cells above the diagonal (a later key, which a causal model never
    sees) set to NaN, which the heatmap leaves blank. float64."""
    w = np.array(weights, dtype=np.float64)
    w[np.triu_indices(w.shape[0], k=1)] = np.nan
    return w


def attention_figure(
    tokens: Sequence[str], maps: Sequence[tuple[str, np.ndarray]], layer: int, head: int, dealt: Mapping[str, Sequence[int]] | None = None
) -> dict:
    """One head's (T, T) attention weights under each way of giving positions, `maps` as (name,
    weights) in drawing order, side by side on one sequential colour range from 0 to the largest
    weight: a core.viz.heatmap spec. `layer` and `head` count from 1, as the page's controls do.
    Axes name the tokens up to TICK_LIMIT tokens, positions beyond. `dealt`: per map name, the
    position each token was given (rows and columns stay in the text's order); that panel names each
    token by the position it was given, so a reader sees where each was placed."""
    n = len(tokens)
    if not maps or any(np.shape(w) != (n, n) for _, w in maps):
        raise ValueError(f"every attention map must be {n} x {n}, one row and column per token")
    dealt = dealt or {}
    if any(len(given) != n for given in dealt.values()):
        raise ValueError(f"every token takes one position: {n} positions for {n} tokens")
    ax = strided(n, max(n, 1))
    every = max(1, -(-n // X_LABELS))

    def axes(name: str) -> tuple:
        given = dealt.get(name)
        if n <= TICK_LIMIT:
            names = slot_names(tokens) if given is None else [f"{int(k)}:{shown_token(t)}" for k, t in zip(given, tokens)]
            return Named(ax, names, every), Named(ax, names)
        if given is None:
            return ax, ax
        at = [f"{int(k):,}" for k in given]  # past TICK_LIMIT the other panels count positions; this one the positions given
        return Named(ax, at, every), Named(ax, at, every)

    axis_title = "key token (position:token)" if n <= TICK_LIMIT else "key position"
    panels = [(name, causal(w), *axes(name)) for name, w in maps]
    top = max(float(np.nanmax(z)) for _, z, _, _ in panels)
    return grouped_heatmap(
        [ScaleGroup(panels, signed=False, zmin=0.0, zmax=top, colorbar_title="attention weight", hover="weight")],
        title=f"Layer {layer}, head {head}: attention weights (row: the token attending, column: the token attended to)",
        x_title=axis_title,
        y_title=axis_title.replace("key", "query"),
        note="; ".join(
            part
            for part in (
                f"key tokens named on every {ordinal(every)} column" if every > 1 and n <= TICK_LIMIT else "",
                "blank: later tokens, which the model never attends to",
                f"{', '.join(dealt)}: each token named by the position it was given" if dealt else "",
                f"{SPACE}: the space a token carries before its word" if any(" " in t for t in tokens) else "",
            )
            if part
        ),
        panel_height=max(220, ROW_PX * n) if n <= TICK_LIMIT else 300,
        columns=len(panels),
    )


def previous_share(weights: np.ndarray) -> float:
    """The mean share of a token's attention on the token just before it in the text: the mean of
    w[i, i - 1] over the queries i = 1 .. T-1 of a (T, T) map (T >= 2)."""
    w = np.asarray(weights, dtype=np.float64)
    t = w.shape[0]
    if t < 2:
        raise ValueError("a share on the token before needs at least two tokens")
    return float(w[np.arange(1, t), np.arange(t - 1)].mean())


def position_before_share(weights: np.ndarray, positions: Sequence[int]) -> float | None:
    """With token t rotated as if at positions[t]: the mean share of a token's attention on the token
    placed one position before it, over the queries whose such token comes earlier in the text (a later
    one is hidden by the causal mask); None when no query has one."""
    w = np.asarray(weights, dtype=np.float64)
    at = {int(p): t for t, p in enumerate(positions)}
    pairs = [(i, at[int(p) - 1]) for i, p in enumerate(positions) if int(p) - 1 in at and at[int(p) - 1] < i]
    return float(np.mean([w[i, j] for i, j in pairs])) if pairs else None


SHUFFLED = "Shuffled: the positions are dealt out at random; the words keep their order."


def shuffled_sentence(weights: np.ndarray, positions: Sequence[int]) -> str:
    """What the shuffled map shows about the token placed one position before, from its numbers, said after SHUFFLED
    ('there'); '' when no token has such a token earlier in the text."""
    by_position, in_text = position_before_share(weights, positions), previous_share(weights)
    if by_position is None:
        return ""
    follows = ": the head follows the positions, not the word order" if by_position > max(2 * in_text, 0.3) else ""
    return f"There {by_position:.0%} goes to the token given the position just before (where it is earlier in the text){follows}."


def attention_lead(maps: Sequence[tuple[str, np.ndarray]], shuffled: np.ndarray, positions: Sequence[int] | None) -> list[str]:
    """What to look for under attention_figure's maps, in at most three short sentences from their numbers: the share
    on the token just before under each way, then (when positions were dealt, `shuffled` the map under them) what the
    shuffle is and where the shuffled map's attention goes."""
    out = [head_sentence(maps)]
    if positions:
        out += [SHUFFLED, shuffled_sentence(shuffled, positions)]
    return [sentence for sentence in out if sentence]


def shuffled_cells(weights: np.ndarray, positions: Sequence[int]) -> str:
    """Where the bright cells of the shuffled map are, row by row from its numbers: in how many rows whose token given
    the position just before comes earlier in the text the brightest cell is that token, and in how many of the other
    rows (that token later in the text, hidden by the causal mask, or none: the token was given position 0) it is the
    token itself, on the diagonal. '' for a map of fewer than two tokens."""
    w = causal(np.asarray(weights, dtype=np.float64))
    n = w.shape[0]
    if n < 2:
        return ""
    at = {int(p): t for t, p in enumerate(positions)}
    brightest = [int(np.nanargmax(w[i, : i + 1])) for i in range(n)]
    before = [at.get(int(p) - 1) for p in positions]
    seen = [i for i in range(n) if before[i] is not None and before[i] < i]
    hidden = [i for i in range(n) if i not in seen]
    hits = sum(brightest[i] == before[i] for i in seen)
    itself = sum(brightest[i] == i for i in hidden)
    out = []
    if seen:
        out.append(
            f"In {_of(hits, len(seen))} whose token given the position just before comes earlier in the text, the brightest cell is "
            f"{'that token, off the diagonal' if hits else 'not that token' if len(seen) == 1 else 'that token'}."
        )
    if hidden:
        rows = "row has" if len(hidden) == 1 else f"{len(hidden)} rows have"
        one = "its brightest cell is" if itself else "its brightest cell is not"
        which = one if len(hidden) == 1 else f"in {_of(itself, len(hidden), 'of them')} the brightest cell is"
        out.append(
            f"The {'other ' if seen else ''}{rows} no such token to attend to (it comes later in the text, hidden by the causal mask, or the token was "
            f"given position 0): {which} on the diagonal, the token itself."
        )
    return " ".join(out)


def _of(k: int, n: int, noun: str = "rows") -> str:
    """'k of the n rows' as a reader says it: 'all n rows' when k is n (two: 'both rows'), 'the one row' of one row; with
    noun 'of them', 'k of them', 'all of them', 'both of them'."""
    every = "both" if n == 2 else "all"
    if noun == "of them":
        return f"{every} of them" if k == n else f"{k} of them"
    return "the one row" if n == 1 else ("both rows" if n == 2 else f"all {n} rows") if k == n else f"{k} of the {n} rows"


def head_sentence(maps: Sequence[tuple[str, np.ndarray]]) -> str:
    """What one head's maps show, from their numbers: the mean share of attention it puts on the token
    just before, under each way of giving positions (`maps` as attention_figure takes them; the figure's title names the head)."""
    shares = [f"{previous_share(w):.0%} ({name})" for name, w in maps]
    listed = shares[0] if len(shares) == 1 else f"{', '.join(shares[:-1])} and {shares[-1]}"
    return f"Mean share of attention on the token just before in the text: {listed}."


def _titled(title: str, what: str) -> str:
    return f"{title} ({what})" if what else title


def heads_figure(distance: np.ndarray, first: np.ndarray, what: str = "") -> dict:
    """Every head of every layer: its mean attention distance in tokens (L, H) and the share of its
    attention on the first token (L, H), side by side, each on its own sequential scale (distance
    from 0 to the largest; the share from 0 to 1). Rows are layers, columns heads, counted from 1."""
    distance, first = np.asarray(distance, dtype=np.float64), np.asarray(first, dtype=np.float64)
    if distance.shape != first.shape or distance.ndim != 2:
        raise ValueError(f"the two summaries must be (layers, heads) of one shape, not {distance.shape} and {first.shape}")
    layers, heads = distance.shape
    cols = Named(strided(heads, heads), [str(h + 1) for h in range(heads)])
    rows = Named(strided(layers, layers), [str(layer + 1) for layer in range(layers)])
    return grouped_heatmap(
        [
            ScaleGroup([("mean attention distance", distance, cols, rows)], signed=False, zmin=0.0, colorbar_title="tokens back", hover="tokens back"),
            ScaleGroup([("attention to the first token", first, cols, rows)], signed=False, zmin=0.0, zmax=1.0, colorbar_title="share", hover="share"),
        ],
        title=_titled(f"Every head of all {layers} layers on this text", what),
        x_title="head",
        y_title="layer",
        panel_height=max(260, 12 * layers),
    )


def heads_sentences(distance: np.ndarray, first: np.ndarray, n_tokens: int) -> list[str]:
    """What the summary shows for these numbers: where attention sinks are (heads putting at least
    half their attention on the first token), and the head that looks furthest back."""
    distance, first = np.asarray(distance, dtype=np.float64), np.asarray(first, dtype=np.float64)
    layers, heads = distance.shape
    if n_tokens < 2:
        return ["With one token every head can only attend to it: type a longer text to see how far heads look."]
    sinks = int((first >= 0.5).sum())
    l_far, h_far = np.unravel_index(int(np.argmax(distance)), distance.shape)
    out = [
        f"{sinks} of the {layers * heads} heads put, on average over the tokens after it, at least half of a token's attention on the first token"
        + (
            " (an attention sink: a head with nothing useful to attend to parks its weight there)."
            if sinks
            else "; none acts as an attention sink on this text."
        ),
        f"The head that looks furthest back is layer {l_far + 1}, head {h_far + 1}: on average {distance[l_far, h_far]:.1f} tokens back "
        f"(the most possible on {n_tokens} tokens is {(n_tokens - 1) / 2:.1f}, every query looking at the first token).",
    ]
    return out


# --- which frequencies the model uses (core.llm.results "frequencies") ----------------------------


def pair_sizes_figure(q: np.ndarray, k: np.ndarray) -> dict:
    """Per layer, the size of q (mean over the query heads) and of k (mean over the key/value heads)
    in each RoPE pair, q (L, H, P) and k (L, KV, P): two panels, each on its own sequential scale from
    its least to its largest value. Columns are pairs (0 turns fastest), rows layers counted from 1."""
    q, k = np.asarray(q, dtype=np.float64).mean(1), np.asarray(k, dtype=np.float64).mean(1)
    if q.shape != k.shape:
        raise ValueError(f"q and k sizes must cover the same layers and pairs, not {q.shape} and {k.shape}")
    layers, pairs = q.shape
    cols = strided(pairs, pairs)
    rows = Named(strided(layers, layers), [str(layer + 1) for layer in range(layers)])
    return grouped_heatmap(
        [
            ScaleGroup([("queries: size per pair", q, cols, rows)], signed=False, colorbar_title="q size", hover="q size"),
            ScaleGroup([("keys: size per pair", k, cols, rows)], signed=False, colorbar_title="k size", hover="k size"),
        ],
        title="How large each rotating pair of the queries and keys is, layer by layer",
        x_title="pair (0 turns fastest, the last slowest)",
        y_title="layer",
        note="mean over the heads of a layer",
        panel_height=max(260, 12 * layers),
    )


def ablation_series(ablation: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The shipped pair ablation as lines: for "fastest" and "slowest", the counts of unrotated pairs
    (ascending) and the perplexity at each."""
    out = {}
    for which in ("fastest", "slowest"):
        rows = sorted((r["count"], r["perplexity"]) for r in ablation.values() if r["which"] == which)
        out[which] = (np.array([c for c, _ in rows], dtype=np.float64), np.array([p for _, p in rows], dtype=np.float64))
    return out


def ablation_figure(ablation: dict, tokens: int, what: str = "") -> go.Figure:
    """Perplexity against the number of pairs left unrotated, the fastest ones or the slowest ones."""
    series = ablation_series(ablation)
    return charts.lines(
        [(f"the {which} pairs unrotated", *series[which]) for which in ("fastest", "slowest")],
        title=_titled(f"Perplexity on {tokens:,} tokens when some pairs stop turning", what),
        x_title="pairs left unrotated",
        y_title="perplexity (log)",
        log_y=True,
        markers=True,
        integer_x=True,
    )


def frequency_sentences(ablation: dict, wavelength: np.ndarray, tokens: int) -> list[str]:
    """What the ablation's numbers show: the perplexity with no pair unrotated, and with the same
    number of fastest or slowest pairs unrotated at the largest count where the slowest cost under 1%."""
    series = ablation_series(ablation)
    (fast_n, fast_p), (slow_n, slow_p) = series["fastest"], series["slowest"]
    base = float(slow_p[slow_n == 0][0]) if (slow_n == 0).any() else None
    if base is None:
        return []
    common = [n for n in slow_n if n > 0 and n in fast_n]
    cheap = [n for n in common if slow_p[slow_n == n][0] <= base * 1.01]
    n = int(max(cheap)) if cheap else int(min(common)) if common else 0
    if not n:
        return []
    slow, fast = float(slow_p[slow_n == n][0]), float(fast_p[fast_n == n][0])
    w = np.asarray(wavelength, dtype=np.float64)
    pairs = w.size
    return [
        f"With every pair turning, perplexity on these {tokens:,} tokens is {base:.2f}. Stopping the {n} slowest pairs "
        f"(wavelengths from {w[pairs - n]:,.0f} to {w[-1]:,.0f} tokens) gives {slow:.2f}; stopping the {n} fastest "
        f"(wavelengths {w[0]:.1f} to {w[n - 1]:,.1f} tokens) gives {fast:.2f}.",
    ]


def sizes_sentence(q: np.ndarray, k: np.ndarray, wavelength: np.ndarray) -> str:
    """Which pair is largest in the queries and in the keys, averaged over heads and layers, with its wavelength."""
    q_mean, k_mean = np.asarray(q, dtype=np.float64).mean((0, 1)), np.asarray(k, dtype=np.float64).mean((0, 1))
    i, j = int(np.argmax(q_mean)), int(np.argmax(k_mean))
    w = np.asarray(wavelength, dtype=np.float64)
    return (
        f"Averaged over heads and layers, the queries' largest pair is pair {i} (one turn every {w[i]:,.1f} tokens) and the keys' is "
        f"pair {j} (one turn every {w[j]:,.1f} tokens)."
    )


# --- past the trained context (core.llm.results "perplexity") --------------------------------------

# each line of a figure its own dash, in the order drawn (a kind's factors are drawn side by side, so they differ too):
# lines that lie on one another stay told apart where their colours cannot be
LINE_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot", "2px,6px,8px,6px")
COINCIDE = 0.02  # lines never further apart than this share of the log axis's height are said to lie on one another


KIND_LABELS = (
    {"none": "no scaling"}
    | {name: kind.label for name, kind in rope.SCALING_KINDS.items()}
    | {"yarn-no-temperature": f"{rope.SCALING_KINDS['yarn'].label} without its temperature"}
)  # the names a learner reads, by the palette's key of a scaling: the RoPE scaling records' labels


def scaling_name(entry: dict) -> str:
    """A shipped scaling in words: its kind's name and its factor ("YaRN ×2"; "no scaling")."""
    key = scaling_key(entry)
    return KIND_LABELS[key] if key == "none" else f"{KIND_LABELS.get(key, key)} ×{float(entry['factor']):g}"


def label_name(label: str) -> str:
    """A scaling as the bench labels it ("yarn ×2, no temperature", "none") in words ("YaRN without its temperature ×2")."""
    found = re.fullmatch(r"(\w+) ×([0-9.]+)(, no temperature)?", label)
    if label == "none" or not found:
        return KIND_LABELS["none"] if label == "none" else label
    kind = "yarn-no-temperature" if found.group(3) else found.group(1)
    return f"{KIND_LABELS.get(kind, found.group(1))} ×{found.group(2)}"


def scaling_key(entry: dict) -> str:
    """The palette's name for a shipped scaling: its kind, or "yarn-no-temperature" for YaRN with its attention factor at 1."""
    return "yarn-no-temperature" if entry["kind"] == "yarn" and entry.get("attention_factor") == 1.0 else entry["kind"]


def window_ends(n_windows: int, window: int, length: int) -> np.ndarray:
    """The position of the last token each window of losses predicts: loss t scores token t + 1, and
    window w holds losses w·window .. (w + 1)·window − 1, so it ends at token min((w + 1)·window, length − 1)."""
    return np.minimum(np.arange(1, n_windows + 1) * window, length - 1)


def enclosing_log_ticks(lo: float, hi: float) -> list[float]:
    """Ticks for a log axis that show every value of [lo, hi] (0 < lo <= hi) between two labels: the 1-2-3-5 ticks of
    charts.log_ticks from the last one at or below lo to the first one at or above hi (coarser ones, as log_ticks
    chooses, when those are too many), so a curve that reaches 90 ends under a labelled 100 rather than past a last 50."""
    first, last = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1
    for mantissas in ((1, 2, 3, 5), (1, 2, 5), (1, 3), (1,)):
        every = [float(f"{m * 10.0**k:.12g}") for k in range(first, last + 1) for m in mantissas]
        below, above = max(t for t in every if t <= lo), min(t for t in every if t >= hi)
        ticks = [t for t in every if below <= t <= above]
        if len(ticks) <= charts.TICKS + 2:
            break
    return ticks


def perplexity_figure(entries: dict[str, dict], window: int, length: int, context: int, what: str = "") -> go.Figure:
    """Perplexity per window of `window` predicted tokens along `length` tokens, one line per shipped
    scaling (name -> entry as the bench writes it): one colour per kind (core.viz.palette), a dash per
    factor; a mark at the trained context when the text reaches past it."""
    names = sorted(entries, key=lambda n: (list(palette.KIND_COLOURS).index(scaling_key(entries[n])), entries[n]["factor"]))
    series = [
        (scaling_name(entries[name]), window_ends(len(entries[name]["by_window"]), window, length), np.asarray(entries[name]["by_window"], dtype=np.float64))
        for name in names
    ]
    ticks = perplexity_ticks(entries)
    fig = charts.lines(
        series,
        title=_titled(f"Perplexity along {length:,} tokens of a novel, per RoPE scaling, each point the mean over {window} tokens", what),
        x_title="position (the last token of each window)",
        y_title="perplexity (log)",
        log_y=True,
        markers=True,
        colours=[palette.KIND_COLOURS[scaling_key(entries[n])] for n in names],
        dashes=[LINE_DASHES[k % len(LINE_DASHES)] for k in range(len(names))],
        x_marks=[(context, f"trained context, {context:,}")] if length > context else [],
        y_range=(np.log10(ticks[0]) - 0.02, np.log10(ticks[-1]) + 0.02) if len(ticks) >= 2 else None,
    )
    if len(ticks) >= 2:  # the axis runs from a labelled tick below the lowest value to one above the highest
        fig.update_yaxes(tickmode="array", tickvals=ticks, ticktext=charts.log_labels(ticks))
    return fig


def perplexity_ticks(entries: dict[str, dict]) -> list[float]:
    """The perplexity axis's labelled ticks: from one below the lowest window of every line to one above the highest."""
    values = np.concatenate([np.asarray(e["by_window"], dtype=np.float64) for e in entries.values()])
    values = values[np.isfinite(values) & (values > 0)]
    return enclosing_log_ticks(float(values.min()), float(values.max())) if values.size else []


def coinciding(entries: dict[str, dict]) -> list[list[str]]:
    """The groups of two or more scalings (names, lowest perplexity first) whose lines in perplexity_figure are at no window
    further apart than COINCIDE of the axis's height: every two of a group, so the figure cannot tell them apart by place."""
    ticks = perplexity_ticks(entries)
    if len(ticks) < 2:
        return []
    height = np.log10(ticks[-1]) - np.log10(ticks[0]) + 0.04  # the figure's y range, its ticks and a margin each side
    logs = {name: np.log10(np.asarray(e["by_window"], dtype=np.float64)) for name, e in entries.items()}

    def near(a: str, b: str) -> bool:
        return logs[a].shape == logs[b].shape and bool(np.max(np.abs(logs[a] - logs[b])) <= COINCIDE * height)

    groups: list[list[str]] = []
    for name in sorted(entries, key=lambda n: entries[n]["perplexity"]):
        home = next((g for g in groups if all(near(name, other) for other in g)), None)
        if home is None:
            groups.append([name])
        else:
            home.append(name)
    return [g for g in groups if len(g) > 1]


def past_and_before(entry: dict, window: int, length: int, context: int) -> tuple[float, float]:
    """The geometric mean of a scaling's window perplexities (as drawn) over the windows that end past `context`, and over the others."""
    y = np.asarray(entry["by_window"], dtype=np.float64)
    past = window_ends(y.size, window, length) > context
    return float(np.exp(np.log(y[past]).mean())), float(np.exp(np.log(y[~past]).mean()))


def perplexity_sentences(entries: dict[str, dict], length: int, context: int, window: int = 256) -> list[str]:
    """What the curves show at these numbers: every scaling's perplexity over the whole text, lowest
    first; past the trained context, every scaling's windows there against its windows before, lowest first;
    where the text stays inside the trained context, that it says nothing of what lies past it."""
    ranked = sorted(entries.items(), key=lambda item: item[1]["perplexity"])
    listed = ", ".join(f"{scaling_name(entry)} {entry['perplexity']:.2f}" for _, entry in ranked)
    out = [f"Over all {length:,} tokens, perplexity by scaling, lowest first: {listed}."]
    if length <= context:
        out.append(
            f"These {length:,} tokens stay inside the {context:,} the model was trained on: the curves show what each scaling costs there, "
            "not whether it helps past the trained context."
        )
    else:
        out.append(f"Positions past the mark at {context:,} are further than the model was trained to read.")
        sides = {name: past_and_before(entry, window, length, context) for name, entry in entries.items()}
        ranked = sorted(entries, key=lambda name: sides[name][0])
        listed = ", ".join(f"{scaling_name(entries[n])} {sides[n][0]:,.2f} (before it {sides[n][1]:,.2f})" for n in ranked)
        out.append(f"Past the mark, the windows' perplexities (their geometric mean), lowest first: {listed}.")
    for group in coinciding(entries):
        named = [scaling_name(entries[n]) for n in group]
        named[0] = named[0][:1].upper() + named[0][1:]  # it opens the sentence ("No scaling")
        out.append(
            f"{', '.join(named[:-1])} and {named[-1]} lie on one another: at no window are their lines further apart than {COINCIDE:.0%} of "
            "the axis's height, so tell them apart by their dashes, and by their numbers above."
        )
    out.append(
        "The novel is public domain and may be in the model's training data: compare the scalings with each other, not the perplexity with a held-out score."
    )
    return out


CLOSE = 1.5  # the chart of the text read so far draws the lines never more than this many times the lowest there


def read_so_far(entry: dict, window: int, length: int) -> np.ndarray:
    """A scaling's perplexity over every token up to the end of each window: e to the mean loss of those tokens, from the
    windows' perplexities weighted by their tokens (window_ends), so the last value is the whole text's perplexity."""
    y = np.asarray(entry["by_window"], dtype=np.float64)
    tokens = np.diff(np.concatenate([[0], window_ends(y.size, window, length)]))
    return np.exp(np.cumsum(tokens * np.log(y)) / np.cumsum(tokens))


def above_lowest(entries: dict[str, dict], window: int, length: int) -> dict[str, np.ndarray]:
    """Per scaling, how far its perplexity of the text read so far (read_so_far) is above the lowest of every scaling at the
    same point, in percent: 100·(y / min − 1), 0 where it is the lowest. Every entry must have as many windows."""
    ys = {name: read_so_far(e, window, length) for name, e in entries.items()}
    lowest = np.min(np.stack(list(ys.values())), axis=0)
    return {name: 100.0 * (y / lowest - 1.0) for name, y in ys.items()}


def _drawing_order(entries: dict[str, dict]) -> list[str]:
    """perplexity_figure's order of lines: the palette's order of kinds, then the factor."""
    return sorted(entries, key=lambda n: (list(palette.KIND_COLOURS).index(scaling_key(entries[n])), entries[n]["factor"]))


def close_to_lowest(entries: dict[str, dict], window: int, length: int) -> tuple[list[str], list[str]]:
    """The scalings (in perplexity_figure's order) whose text read so far is never more than CLOSE times the lowest, and the others."""
    gaps = above_lowest(entries, window, length)
    near = [n for n in _drawing_order(entries) if gaps[n].max() <= 100.0 * (CLOSE - 1.0)]
    return near, [n for n in _drawing_order(entries) if n not in near]


def above_lowest_figure(entries: dict[str, dict], window: int, length: int, context: int) -> go.Figure | None:
    """The lines of perplexity_figure whose perplexity of the text read so far stays within CLOSE times the lowest, each
    drawn as its percentage above the lowest of them at each window's end (not of every line: the lowest would jump to a line
    left out, no scaling inside the trained context), on a linear axis from just below 0: lines that lie on one
    another in perplexity_figure come apart here. Colours and dashes as there; None when fewer than two lines stay that close."""
    near, far = close_to_lowest(entries, window, length)
    if len(near) < 2:
        return None
    gaps, order = above_lowest({n: entries[n] for n in near}, window, length), _drawing_order(entries)  # 0: the lowest drawn line
    span = max(float(gaps[n].max()) for n in near) or 1.0
    return charts.lines(
        [(scaling_name(entries[n]), window_ends(gaps[n].size, window, length), gaps[n]) for n in near],
        title="Perplexity of the text read so far: each line's percentage above the lowest line there",
        x_title="position (tokens read)",
        y_title="above the lowest (%)",
        note=f"left out, more than {CLOSE:g} times the lowest somewhere: {', '.join(scaling_name(entries[n]) for n in far)}" if far else "",
        colours=[palette.KIND_COLOURS[scaling_key(entries[n])] for n in near],
        dashes=[LINE_DASHES[order.index(n) % len(LINE_DASHES)] for n in near],
        x_marks=[(context, f"trained context, {context:,}")] if length > context else [],
        y_range=(-0.04 * span, 1.05 * span),  # the lowest line lies on 0: lifted off the axis line, which hid it
    )


def perplexity_lead(entries: dict[str, dict], length: int, context: int, window: int = 256) -> list[str]:
    """At most three short sentences under perplexity_figure, from its numbers: where the trained context ends and which
    scaling is highest and lowest past it (or over the whole text, when it stays inside), and whether lines lie on one
    another that the chart of distances from the lowest (above_lowest_figure) draws apart."""
    if length > context:
        past = {name: past_and_before(e, window, length, context)[0] for name, e in entries.items()}
        lo, hi = min(past, key=past.get), max(past, key=past.get)
        out = [
            f"Right of the dashed line the text is longer than the {context:,} tokens the model was trained on.",
            f"There, the windows' perplexity (their geometric mean) is highest with {scaling_name(entries[hi])}, {past[hi]:,.1f}, "
            f"and lowest with {scaling_name(entries[lo])}, {past[lo]:,.1f}.",
        ]
    else:
        lo, hi = min(entries, key=lambda n: entries[n]["perplexity"]), max(entries, key=lambda n: entries[n]["perplexity"])
        out = [
            f"These {length:,} tokens stay inside the {context:,} the model was trained on: the lines show what each scaling costs there.",
            f"Over the whole text perplexity is highest with {scaling_name(entries[hi])}, {entries[hi]['perplexity']:,.1f}, and lowest "
            f"with {scaling_name(entries[lo])}, {entries[lo]['perplexity']:,.1f}.",
        ]
    drawn = close_to_lowest(entries, window, length)[0]
    near = set(drawn) if len(drawn) >= 2 else set()
    apart = [g for g in coinciding(entries) if set(g) <= near]
    if apart:
        n = sum(len(g) for g in apart)
        out.append(f"Here {n} lines lie on one another; the chart below draws them apart.")
    return out


def above_lowest_sentences(entries: dict[str, dict], window: int, length: int) -> list[str]:
    """Under above_lowest_figure (at least two lines close to the lowest), from its numbers: what a point is, which drawn line
    is lowest at the end and how far above it the farthest one ends, and which lines were left out."""
    near, far = close_to_lowest(entries, window, length)
    gaps = above_lowest({n: entries[n] for n in near}, window, length)
    lowest = min(near, key=lambda n: gaps[n][-1])
    worst = max(near, key=lambda n: gaps[n][-1])
    out = [
        "Each point is the perplexity of every token up to it; the last is the whole text's.",
        f"At the end the lowest is {scaling_name(entries[lowest])}, and {scaling_name(entries[worst])} is {gaps[worst][-1]:.1f}% above it.",
    ]
    if far:
        names = [scaling_name(entries[n]) for n in far]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        out.append(f"Left out: {listed}, more than {CLOSE:g} times the lowest at some point.")
    return out


# --- passkey retrieval (core.llm.results "passkey") -----------------------------------------------


def not_run_cells(not_run: Sequence[str]) -> list[tuple[str, int, float]]:
    """The (scaling, length, depth) of each cell a results file names as not run yet ("yarn ×2|8192|0.5|0")."""
    cells = []
    for key in not_run:
        scaling, length, depth, _ = key.split("|")
        cells.append((scaling, int(length), float(depth)))
    return cells


def passkey_grid(trials: dict[str, dict], not_run: Sequence[str] = ()) -> tuple[list[str], list[int], list[float], dict[str, np.ndarray]]:
    """The shipped trials as grids: the scalings (in the order first met, then those only not run), lengths and depths
    (ascending, with the cells not run yet), and per scaling the share of trials in each (depth, length) cell that found
    the key, NaN where no trial ran."""
    pending = not_run_cells(not_run)
    scalings = list(dict.fromkeys([*(t["scaling"] for t in trials.values()), *(c[0] for c in pending)]))
    lengths = sorted({int(t["length"]) for t in trials.values()} | {c[1] for c in pending})
    depths = sorted({float(t["depth"]) for t in trials.values()} | {c[2] for c in pending})
    grids = {}
    for name in scalings:
        right, total = np.zeros((len(depths), len(lengths))), np.zeros((len(depths), len(lengths)))
        for t in trials.values():
            if t["scaling"] == name:
                cell = depths.index(float(t["depth"])), lengths.index(int(t["length"]))
                right[cell] += bool(t["correct"])
                total[cell] += 1
        grids[name] = np.where(total > 0, right / np.maximum(total, 1), np.nan)
    return scalings, lengths, depths, grids


def passkey_figure(trials: dict[str, dict], what: str = "", not_run: Sequence[str] = ()) -> dict:
    """The needle grid: per scaling, the share of trials that found the key at each prompt length
    (columns) and depth of the key (rows), on one scale from 0 to 1; a blank cell was not run."""
    scalings, lengths, depths, grids = passkey_grid(trials, not_run)
    cols = Named(strided(len(lengths), len(lengths)), [f"{n:,}" for n in lengths])
    rows = Named(strided(len(depths), len(depths)), [f"{d:.0%}" for d in depths])
    return grouped_heatmap(
        [
            ScaleGroup(
                [(label_name(name), grids[name], cols, rows) for name in scalings],
                signed=False,
                zmin=0.0,
                zmax=1.0,
                colorbar_title="share found",
                hover="found",
            )
        ],
        title=_titled("Passkey retrieval: the share of hidden keys the model gives back, by prompt length and the key's depth", what),
        x_title="prompt length (tokens asked for)",
        y_title="depth of the key (0%: the start)",
        note="blank: not run",
        panel_height=max(160, 28 * len(depths)),
        columns=min(len(scalings), 3),
    )


def passkey_sentences(trials: dict[str, dict], not_run: Sequence[str] = ()) -> list[str]:
    """Per scaling, how many trials found the key, the longest length up to which every trial did, and
    the depths at which none did (when some were found elsewhere); a scaling whose cells were none of them run, in a
    sentence of its own; the number of cells not run yet."""
    scalings, lengths, depths, grids = passkey_grid(trials, not_run)
    out = []
    for name in scalings:
        ours = [t for t in trials.values() if t["scaling"] == name]
        if not ours:
            out.append(f"{label_name(name)}: not run yet.")
            continue
        found = sum(bool(t["correct"]) for t in ours)
        reached = 0  # the longest length up to which every trial, at every shorter length too, found its key
        for k, n in enumerate(lengths):
            column = grids[name][:, k]
            if not np.isfinite(column).any() or not np.all(column[np.isfinite(column)] == 1.0):
                break
            reached = n
        longest = f"; every key at every length up to {reached:,} tokens" if reached else ""
        never = [d for k, d in enumerate(depths) if np.isfinite(grids[name][k]).any() and np.nansum(grids[name][k]) == 0]
        lost = f"; none at depth {', '.join(f'{d:.0%}' for d in never)}" if never and found else ""
        counted = f"{found} of {len(ours)} key{'s' if len(ours) != 1 else ''}"
        if found == len(ours) > 1:
            counted = "both keys" if found == 2 else f"all {found} keys"
        out.append(f"{label_name(name)}: {counted} found{longest}{lost}.")
    if not_run:
        out.append(f"{len(not_run)} cell{'s' if len(not_run) != 1 else ''} not run yet (blank).")
    return out


# --- one model, two layouts -------------------------------------------------------------------------


def layout_figure(permutation: np.ndarray) -> go.Figure:
    """The permutation between the two layouts of a head's rows: row r of the half-split layout is row
    permutation[r] of the file's adjacent-pair layout, one dot per row."""
    perm = np.asarray(permutation)
    rows = np.arange(perm.size)
    return charts.lines(
        [("file row", rows, perm)],
        title=f"Where each of a head's {perm.size} query and key rows comes from: the half-split layout against the file's",
        x_title="row in the half-split layout (pairs i and i + half)",
        y_title="row in the file (pairs 2i, 2i + 1)",
        points=True,
        integer_y=True,
    )


def layout_sentences(permutation: np.ndarray, rows_match: bool, max_relative_difference: float, tokens: int) -> list[str]:
    """What the two layouts' numbers show: the permutation's two runs, whether every layer's weights follow it, the logits' difference."""
    perm = np.asarray(permutation)
    half = perm.size // 2
    evens_then_odds = np.array_equal(perm, np.concatenate([np.arange(0, perm.size, 2), np.arange(1, perm.size, 2)]))
    out = [
        f"The first {half} rows of the half-split layout are the file's even rows 0, 2, …, {perm[half - 1]}, and the last {half} its odd rows "
        f"1, 3, …, {perm[-1]}: the first number of each pair, then the second."
        if evens_then_odds
        else "The half-split layout takes the file's rows in the order drawn."
    ]
    out.append(
        "Every layer's un-permuted query and key weights are the file's rows in this order."
        if rows_match
        else "Some layer's un-permuted weights are not the file's rows in this order."
    )
    out.append(
        f"Read both ways, the model's next-token scores on these {tokens} tokens differ by at most {max_relative_difference:.1e} of the largest score: "
        + ("rounding, so one rotation in two layouts." if max_relative_difference < 1e-4 else "more than rounding.")
    )
    return out
