"""The lab page's pictures: one training example, where each answer stands, and the results of
finished runs (accuracy by length and by position, the loss, the results table, a learned
table beside the sinusoid). Each function takes configurations and results from core.lab.config
and returns a core.viz.charts figure, text or plain rows; the page only places them.

`done` is a run's finished schemes in the order chosen: a sequence of (LabConfig, LabResult).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from core.lab import findings
from core.lab.config import SURVEY_COLUMNS, SURVEY_LENGTHS, TASKS, LabConfig, LabResult, make_batch
from core.lab.findings import Spread
from core.lab.lm_figures import short_label
from core.schemes.registry import SCHEMES
from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz import charts, palette
from core.viz.grid import strided
from core.viz.heatmap import heatmap

GRID = 128  # positions and dimensions drawn of a learned table
PAIR_PX = 300  # each panel's height on screen (two side by side)
EXAMPLE_TOKENS = 24  # tokens of the training example shown
Done = Sequence[tuple[LabConfig, LabResult]]


def label(name: str) -> str:
    """A scheme's name as the page shows it."""
    return SCHEMES[name].label


# --- before training -------------------------------------------------------------------


def _cell(x: Spread) -> str:
    return f"{x.mean:.2f}" if f"{x.lo:.2f}" == f"{x.hi:.2f}" else x.text(2)


def survey_table() -> str:
    """core.lab.config.SURVEY as a Markdown table: accuracy at the training length → 4x it, per scheme and task, the mean
    over the training seeds with the lowest and highest seed's in brackets where they differ."""
    cells = {task: findings.survey(task) for task in SURVEY_COLUMNS}
    lines = ["| scheme | " + " | ".join(SURVEY_COLUMNS.values()) + " |", "|---" * (len(SURVEY_COLUMNS) + 1) + "|"]
    for scheme in cells["kback1"]:
        row = [cells[task][scheme] for task in SURVEY_COLUMNS]
        shown = (_cell(short) + " → " + ("no code" if long is None else _cell(long)) for short, long in row)
        lines.append(f"| {short_label(scheme)} | " + " | ".join(shown) + " |")
    return "\n".join(lines)


def survey_reading() -> str:
    """What the survey shows, in sentences chosen by its numbers: a fall, a best or a worst is said only where the seeds'
    ranges do not overlap (findings.compare), so the reading stays true when the survey is measured again."""
    short_len, long_len = SURVEY_LENGTHS
    chance = 1 / LabConfig().vocab  # a random guess among the task's symbols
    k1, k3 = findings.survey("kback1"), findings.survey("kback3")
    said = []
    named = {"rope": "RoPE", "sinusoidal": "the sinusoid"}
    fell = [s for s in named if k1[s][1] is not None and findings.compare(k1[s][1], k1[s][0]) == "lower"]
    if fell:
        said.append(
            (lambda who: who[0].upper() + who[1:])(" and ".join(named[s] for s in fell))
            + f" {'meet' if len(fell) > 1 else 'meets'} angles {'they' if len(fell) > 1 else 'it'} never saw and {'fall' if len(fell) > 1 else 'falls'}, from "
            + " and ".join(f"{k1[s][0].mean:.2f}" for s in fell)
            + " to "
            + " and ".join(f"{k1[s][1].mean:.2f}" for s in fell)
            + f" at {long_len} tokens (NoPE, which has no position to go on, gets {k1['none'][1].mean:.2f})."
        )
    if k1["t5"][1] is not None and findings.compare(k1["t5"][1], k1["t5"][0]) == "lower":
        said.append(f"T5's far buckets were never trained, so it falls too, to {k1['t5'][1].mean:.2f}.")
    at_long = {s: k1[s][1] for s in k1 if k1[s][1] is not None}
    if "alibi" in at_long and findings.extreme(at_long, highest=True) == ["alibi"]:
        said.append(
            f"ALiBi, a fixed penalty on distance, holds up best at {long_len} tokens ({k1['alibi'][0].mean:.2f} → {k1['alibi'][1].mean:.2f}), "
            "beyond every seed of the others"
        )
        pointers = ("sinusoidal", "learned", "rope", "t5")
        low = min(k3[s][0].mean for s in pointers)
        if findings.extreme({s: k3[s][0] for s in ("alibi", *pointers)}) == ["alibi"]:
            said[-1] += (
                f'; but it can only say "nearer is better", so it cannot point exactly: at k = 3 it reaches {k3["alibi"][0].mean:.2f} at '
                f"{short_len} tokens, where the others with positions reach {low:.2f}" + ("" if low >= 0.995 else " or more")
            )
        said[-1] += "."
    said.append("A learned table has no row at all past its end.")
    copies = [long for _, long in findings.survey("copy").values() if long is not None]
    if max(x.hi for x in copies) < 2 * chance:
        said.append(
            "Copy and reverse need the offset to the separator, which changes with the length: on copy every scheme falls to between "
            f"{min(x.lo for x in copies):.2f} and {max(x.hi for x in copies):.2f} at {long_len} tokens, near a random guess "
            f"(1 in {LabConfig().vocab}, {chance:.2f}), so they separate nothing out there."
        )
    return " ".join(said)


def example_text(config: LabConfig) -> str:
    """The first tokens (EXAMPLE_TOKENS at most) of one training sequence, drawn with the
    config's seed, and its targets, as two aligned lines: `|` the separator, `_` a filler, `·`
    a position that is not scored."""
    x, y = make_batch(config, np.random.default_rng(config.seed), 1, min(config.train_len, EXAMPLE_TOKENS))  # (1, T) each
    v = config.vocab
    shown = " ".join(f"{'|' if t == v else '_' if t == v + 1 else t:>2}" for t in x[0])
    scored = " ".join(f"{'·' if t < 0 else str(t):>2}" for t in y[0])
    return f"input : {shown}\ntarget: {scored}"


def answer_map(config: LabConfig) -> go.Figure:
    """For each query position, the position of the token it must name, at the longest evaluation length (small dots)
    and at the training length (rings drawn on top, so the dots they share still show), with the diagonal y = x (the
    query's own position) the caption measures a fixed offset from."""
    task, longest = TASKS[config.task], max(config.eval_lens)
    series = []
    for name, length in ((f"tested on {longest} tokens", longest), (f"trained on {config.train_len} tokens", config.train_len)):
        source = task.source(length, config.offset)  # (length,)
        scored = np.flatnonzero(source >= 0)
        series.append((name, scored, source[scored]))
    fig = charts.lines.fresh(  # its own copy: the diagonal is added to it below
        series,
        colours=[palette.TESTED, palette.TRAINED],
        symbols=[None, ("circle-open", 9)],
        title=f"Where each answer stands, task '{task.label}': the position a query has to read",
        x_title="query position (where the answer is predicted)",
        y_title="position of the answer token",
        integer_y=True,
        points=True,
        x_marks=[(config.train_len - 0.5, "end of training length")],
    )
    ends = [0, longest - 1]
    diagonal = dict(color=palette.FAINT_MARK, dash="dot", width=1)
    fig.add_trace(go.Scatter(x=ends, y=ends, mode="lines", name="diagonal: the query's own position", line=diagonal, hoverinfo="skip"))
    return fig


# --- results ---------------------------------------------------------------------------


def no_code_from(config: LabConfig) -> int | None:
    """The first position the scheme has no code for (a table's rows: the training length or the table size set),
    when the longest evaluation reaches it; else None. The legend and the caption both say this one number."""
    first = SCHEMES[config.scheme].max_position(config.setting)
    return first if first is not None and first < max(config.eval_lens) else None


def named(config: LabConfig, result: LabResult) -> str:
    """The scheme's label, saying from which position on it has no code."""
    first = no_code_from(config)
    return label(config.scheme) + (f" (no code from position {first})" if first is not None else "")


def missing_text(done: Done) -> str:
    """Where each scheme's codes end, from the number the legend names (no_code_from): '' when every scheme has a
    code at every length evaluated."""
    said = []
    for c, _ in done:
        first = no_code_from(c)
        if first is not None:
            why = ("the training length" if c.table_len is None else "the table size set") if first == c.rows else f"at width {c.d_model}"
            said.append(f"the {label(c.scheme)} has codes for positions 0 to {first - 1} only ({first} rows, {why})")
    return f"Missing points: {'; '.join(said)}; a longer sequence has no code for its later positions, so it is not scored." if said else ""


def stopped_note(done: Done) -> str:
    """'ALiBi stopped at step 1,234; …' for the schemes that were stopped, else ''."""
    return "; ".join(f"{label(c.scheme)} stopped at step {r.steps_done:,}" for c, r in done if r.stopped)


def missing_codes(done: Done) -> dict[tuple[str, int], str]:
    """Why a scheme has no accuracy at a length: (label, length) -> note."""
    return {(label(c.scheme), n): r.notes[n] for c, r in done for n in c.eval_lens if r.accuracy[n] is None}


def inks(done: Done) -> dict[str, list[str]]:
    """Each scheme's colour and dash (core.viz.palette), in the order drawn: the keyword arguments of charts.lines."""
    return dict(colours=[palette.scheme_colour(c.scheme) for c, _ in done], dashes=[palette.scheme_dash(c.scheme) for c, _ in done])


def accuracy_by_length(done: Done) -> go.Figure:
    """Accuracy against evaluation length, one line per scheme (NaN where it has no code)."""
    first = done[0][0]
    acc = [(named(c, r), np.array(c.eval_lens), np.array([np.nan if r.accuracy[n] is None else r.accuracy[n] for n in c.eval_lens])) for c, r in done]
    return charts.lines(
        acc,
        **inks(done),
        title=f"Accuracy against evaluation length: trained on {first.train_len} tokens, task '{TASKS[first.task].label}'",
        x_title="evaluation length (tokens)",
        y_title="accuracy (share of scored tokens right)",
        note=stopped_note(done),
        markers=True,
        y_range=(0.0, 1.05),
        x_marks=[(first.train_len, "training length")],
        y_marks=[(1.0 / first.vocab, f"chance 1/{first.vocab}")],
    )


def accuracy_by_position(done: Done) -> go.Figure:
    """Accuracy at each position of the longest sequence each scheme has codes for."""
    first = done[0][0]
    return charts.lines(
        [(named(c, r), np.arange(r.position_accuracy.size), r.position_accuracy) for c, r in done],
        **inks(done),
        title=f"Where it breaks: accuracy at each position of a {max(first.eval_lens)}-token sequence",
        note="a scheme whose table ends is shown at the longest length it has codes for" if missing_codes(done) else "",
        x_title="position in the sequence",
        y_title="accuracy at that position",
        y_range=(0.0, 1.05),
        x_marks=[(first.train_len - 0.5, "end of training length")],
        y_marks=[(1.0 / first.vocab, "chance")],
    )


def loss_curves(done: Done) -> go.Figure:
    """Training loss per step, log scale, with the loss of guessing (ln vocab)."""
    first = done[0][0]
    return charts.lines(
        [(label(c.scheme), np.arange(1, r.steps_done + 1), r.losses) for c, r in done],
        **inks(done),
        title="Training loss per step",
        x_title="training step",
        y_title="cross-entropy loss (log scale)",
        log_y=True,
        y_marks=[(float(np.log(first.vocab)), "guessing")],
        note=stopped_note(done),
    )


def accuracy_cell(config: LabConfig, result: LabResult, length: int) -> str:
    """An accuracy of the results table in words: to 3 decimals, 'no code' where the sequence reaches past the
    scheme's last code, or 'not evaluated' (the run was stopped first)."""
    acc = result.accuracy[length]
    if acc is not None:
        return f"{acc:.3f}"
    first = no_code_from(config)
    return "no code" if first is not None and length > first else "not evaluated"


def results_rows(done: Done) -> dict[str, list[str]]:
    """The results table as columns of text: per scheme how it is applied, steps, seconds, tokens/s, the accuracy per
    evaluation length (accuracy_cell) and the notes, every cell whole."""
    rows = []
    for c, r in done:
        row = {"scheme": short_label(c.scheme), "applied": SCHEMES[c.scheme].applied, "steps": f"{r.steps_done:,}", "seconds": f"{r.seconds:.1f}",
               "tokens/s": f"{r.tokens_per_s:,.0f}"}  # fmt: skip
        row.update({f"acc @ {n}": accuracy_cell(c, r, n) for n in c.eval_lens})
        lengths: dict[str, list[int]] = {}  # one note once, with every length it is about
        for n, note in r.notes.items():
            lengths.setdefault(note, []).append(n)
        row["notes"] = "; ".join(f"at {', '.join(map(str, ns))}: {note}" for note, ns in lengths.items()) or "none"
        rows.append(row)
    columns = list(dict.fromkeys(k for row in rows for k in row))  # schemes of one run share their lengths
    return {k: [row.get(k, "") for row in rows] for k in columns}


def _cosine(a: np.ndarray) -> np.ndarray:
    """Cosine similarity between the rows of a (L, d): (L, L)."""
    unit = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    return unit @ unit.T  # (L, L)


def learned_table(config: LabConfig, result: LabResult) -> tuple[dict, dict]:
    """The rows of a trained position table that training reached, beside the sinusoid of the
    same shape: the values (the table scaled to ±1 by its largest |value|) and the cosine
    similarity between positions, both on at most GRID positions and dimensions."""
    trained = result.table[: config.train_len]  # (train_len, d): the rows training reached
    sin = sinusoidal_encoding(config.train_len, config.d_model, config.base)  # (train_len, d)
    pos, dims = strided(config.train_len, GRID), strided(config.d_model, GRID)
    bound = float(np.abs(trained).max()) or 1.0
    cells, pairs = np.ix_(pos.indices, dims.indices), np.ix_(pos.indices, pos.indices)
    values = heatmap(
        [(f"learned table after training (÷ {bound:.3g})", (trained / bound)[cells], dims, pos), ("sinusoid of the same width", sin[cells], dims, pos)],
        title=f"{label(config.scheme)} after {result.steps_done:,} steps beside the sinusoid: {config.train_len} positions × {config.d_model} dimensions",
        x_title="dimension",
        y_title="position",
        shared_range=True,
        zmax=1.0,
        note="; ".join(n for n in (pos.note("position"), dims.note("dimension")) if n),
        panel_height=PAIR_PX,
    )
    similarity = heatmap(
        [("learned table", _cosine(trained)[pairs], pos, pos), ("sinusoid", _cosine(sin)[pairs], pos, pos)],
        title="Cosine similarity between the codes of two positions",
        x_title="position",
        y_title="position",
        shared_range=True,
        zmax=1.0,
        value_title="cosine",
        note=pos.note("position"),
        panel_height=PAIR_PX,
    )
    return values, similarity
