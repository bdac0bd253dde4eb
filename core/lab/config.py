r"""What a toy lab run is, torch-free: `LabConfig` (a registry scheme on a synthetic task, and the tiny model that learns
it), the tasks and their seeded batches, the budget every live run of the lab is held to, and `LabResult`.

The default task is "kback": at every position i >= k, name the token that stood k places back, $y_i = x_{i-k}$.
Tokens are uniform random, so content is no help: the model has to find the key exactly k positions before the query.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.schemes.checks import quoted, shown, whole_number
from core.schemes.registry import SCHEMES, Setting

IGNORE = -100  # target of positions that are not scored (torch's cross_entropy ignore_index)
MAX_EVAL_FACTOR = 4  # evaluation lengths go up to 4 x the training length
MAX_EVAL_LENS = 12  # evaluation lengths in one run
EVAL_BATCH = 64  # sequences per evaluation length
LIMITS = dict(train_len=256, steps=20_000, batch=256, d_model=256, n_heads=16, n_layers=4, vocab=256)  # a hosted demo's CPU and memory stay bounded
MAX_SCORES = 2**24  # attention scores held at once (batch x heads x length²): 64 MB in float32, a few times that with gradients


@dataclass(frozen=True)
class Task:
    """A synthetic task: `name` (the config's key), a label and one sentence for pages, the
    shortest length it is defined for (`min_len(offset)`), and `source(length, offset)`: for
    each position, the position of the token it must name, or -1 where nothing is scored."""

    name: str
    label: str
    summary: str
    min_len: Callable[[int], int]
    source: Callable[[int, int], np.ndarray]


def _kback_source(length: int, k: int) -> np.ndarray:
    q = np.arange(length)
    return np.where(q >= k, q - k, -1)  # (T,)


def _after_separator(length: int, reverse: bool) -> np.ndarray:
    """Copy or reverse of n = length // 2 symbols after an optional filler (see make_batch)."""
    n, q = length // 2, np.arange(length)
    start = length - n  # the first scored position: the separator
    j = q - start  # index into the answer
    return np.where(q >= start, (start - 1 - j if reverse else start - n + j), -1)  # (T,)


TASKS: dict[str, Task] = {
    task.name: task
    for task in (
        Task(
            "kback",
            "the token k places back",
            "At every position, name the token that stood k places earlier: a fixed relative offset.",
            lambda k: k + 1,
            _kback_source,
        ),
        Task(
            "copy",
            "copy after a separator",
            "A random sequence, a separator, then the same sequence again: position n + j must fetch token j.",
            lambda k: 2,
            lambda length, k: _after_separator(length, False),
        ),
        Task(
            "reverse",
            "reverse after a separator",
            "A random sequence, a separator, then the sequence backwards: position n + j must fetch token n − 1 − j.",
            lambda k: 2,
            lambda length, k: _after_separator(length, True),
        ),
    )
}


# Accuracy of each default scheme on each task at the training length and at 4x it, measured with the defaults (300 steps,
# trained on 32 tokens; one layer for kback, two for copy and reverse) with several training seeds by
# `python -m bench.lab --tasks --write`, which writes SURVEY_PATH. SURVEY[scheme][task] holds every seed's accuracy at
# each length (None at 4x: the scheme has no code there); the lab's "Why this task" and /practice's answers read it through
# core.lab.findings.survey, which calls one cell higher than another only beyond the seeds' spread.
SURVEY_LENGTHS = (32, 128)
SURVEY_PATH = Path(__file__).resolve().parents[2] / "data" / "lab_tasks_results.json"
SURVEY_COLUMNS = {"kback1": "k places back, k = 1", "kback3": "k places back, k = 3", "copy": "copy (2 layers)", "reverse": "reverse (2 layers)"}
Seeds = tuple[float, ...]  # one accuracy per training seed


def _read_survey(path: Path) -> tuple[list[int], int, dict[str, dict[str, tuple[Seeds, Seeds | None]]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["config"]["lengths"]) != SURVEY_LENGTHS:
        raise ValueError(f"{path.name} was measured at {data['config']['lengths']} tokens, not {list(SURVEY_LENGTHS)}: run python -m bench.lab --tasks")
    seeds = [str(s) for s in data["seeds"]]
    by_seed = data["by_seed"]
    survey: dict[str, dict[str, tuple[Seeds, Seeds | None]]] = {}
    for scheme in by_seed[seeds[0]][next(iter(SURVEY_COLUMNS))]:
        survey[scheme] = {}
        for task in SURVEY_COLUMNS:
            cells = [by_seed[seed][task][scheme] for seed in seeds]  # [short, long] per seed
            long = tuple(c[1] for c in cells)
            survey[scheme][task] = (tuple(c[0] for c in cells), None if None in long else long)
    return data["seeds"], int(data["config"]["steps"]), survey


SURVEY_SEEDS, SURVEY_STEPS, SURVEY = _read_survey(SURVEY_PATH)  # the seeds, the training steps, every seed's cells


def check_run(config) -> None:
    """A training config's scheme and number of steps (the first thing `check_model` checks)."""
    if config.scheme not in SCHEMES:
        raise ValueError(f"Unknown scheme {shown(config.scheme)}; choose one of {', '.join(SCHEMES)}.")
    if isinstance(config.steps, (int, np.integer)) and not isinstance(config.steps, bool) and config.steps < 1:
        raise ValueError(f"Training needs at least 1 step, got {config.steps}.")
    whole_number(config.steps, "The number of training steps", 1, LIMITS["steps"])


def check_model(config) -> None:
    """What every config that trains the lab's tiny model checks alike (LabConfig, core.lab.lm.LMConfig,
    core.lab.passkey.PasskeyConfig): its scheme, steps (`check_run`), batch, seed, width, heads, layers and learning rate."""
    check_run(config)
    check_network(config)


def check_network(config) -> None:
    """The rest of `check_model`: batch, seed, width, heads, layers and learning rate."""
    whole_number(config.batch, "The batch size", 1, LIMITS["batch"])
    whole_number(config.seed, "The seed", 0, 2**31 - 1)
    d = whole_number(config.d_model, "The model width", 2, LIMITS["d_model"])
    heads = whole_number(config.n_heads, "The number of heads", 1, LIMITS["n_heads"])
    if d % heads or (d // heads) % 2:
        raise ValueError(f"A width of {d} must split into {heads} heads of an even width (rotary embeddings turn pairs of dimensions).")
    whole_number(config.n_layers, "The number of layers", 1, LIMITS["n_layers"])
    lr = config.lr
    if isinstance(lr, bool) or not isinstance(lr, (int, float, np.integer, np.floating)) or not math.isfinite(lr) or not 0 < lr <= 1:
        raise ValueError(f"The learning rate must be a number above 0 and at most 1, got {shown(lr)}.")


@dataclass(frozen=True)
class LabConfig:
    """One training run: a scheme from the registry on a task, and the tiny model that learns it.

    The model is small on purpose (64 wide, 4 heads, 1 layer: one attention layer is all the
    kback task needs, and a run takes seconds on one core; bench/lab.py times it). `table_len`
    is the number of rows of a position table (a learned table, one-hot);
    None means the training length, so the table ends where training did. `offset` is the k
    of the kback task. Bad values raise ValueError with a sentence saying what to change."""

    scheme: str = "rope"
    task: str = "kback"
    train_len: int = 32
    eval_lens: tuple[int, ...] = (32, 64, 96, 128)
    steps: int = 300
    batch: int = 32
    lr: float = 1e-2
    seed: int = 0
    vocab: int = 16
    offset: int = 1
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 1
    table_len: int | None = None
    base: float = 10_000.0

    def __post_init__(self) -> None:
        # of two problems at once the page names the one it always named first: scheme and steps, the task's, then the model's
        check_run(self)
        if self.task not in TASKS:
            raise ValueError(f"Unknown task {shown(self.task)}; choose one of {', '.join(TASKS)}.")
        offset = whole_number(self.offset, "The offset k", 1, LIMITS["train_len"] - 1)
        task = TASKS[self.task]
        train_len = whole_number(self.train_len, "The training length", task.min_len(offset), LIMITS["train_len"])
        lens = tuple(self.eval_lens)
        if not lens:
            raise ValueError("Give at least one evaluation length.")
        for length in lens:
            if isinstance(length, (int, np.integer)) and not isinstance(length, bool) and length < 1:
                raise ValueError(f"Evaluation lengths must be at least 1 token, got {length}.")
            whole_number(length, "An evaluation length", 1)
            if length > MAX_EVAL_FACTOR * train_len:
                raise ValueError(
                    f"The evaluation length {length:,} is more than {MAX_EVAL_FACTOR} x the training length {train_len} "
                    f"(at most {MAX_EVAL_FACTOR * train_len:,})."
                )
            if length < task.min_len(offset):
                raise ValueError(f"The evaluation length {length} is too short for the task '{task.label}': it needs at least {task.min_len(offset)} tokens.")
        check_network(self)  # check_run came first
        object.__setattr__(self, "eval_lens", tuple(sorted({int(n) for n in lens})))
        whole_number(self.vocab, "The vocabulary size", 2, LIMITS["vocab"])
        d, heads = int(self.d_model), int(self.n_heads)
        scores = self.batch * heads * train_len**2
        if scores > MAX_SCORES:
            raise ValueError(
                f"A batch of {self.batch} sequences of {train_len} tokens with {heads} heads holds {scores:,} attention scores per step, "
                f"more than the lab allows ({MAX_SCORES:,}): use a smaller batch, fewer heads or a shorter training length."
            )
        if isinstance(self.base, bool) or not isinstance(self.base, (int, float, np.integer, np.floating)) or not math.isfinite(self.base) or self.base <= 1:
            raise ValueError(f"The base must be a finite number above 1, got {shown(self.base)}.")
        if self.table_len is not None:
            rows = whole_number(self.table_len, "The table size", 1, MAX_EVAL_FACTOR * LIMITS["train_len"])
            if rows < train_len and SCHEMES[self.scheme].max_position(self.setting) is not None:
                raise ValueError(
                    f"The training length {train_len} is above the table size {rows} of the {SCHEMES[self.scheme].label}: "
                    f"positions {rows} to {train_len - 1} would have no row. Make the table at least {train_len} rows, or train shorter."
                )
        rows = SCHEMES[self.scheme].max_position(self.setting)
        if rows is not None and rows < train_len:  # a table that ends for another reason (one-hot: at the width)
            raise ValueError(f"{SCHEMES[self.scheme].label} has codes for positions 0 to {rows - 1} only at width {d}, below the training length {train_len}.")

    @property
    def rows(self) -> int:
        """Rows of a position table: table_len, or the training length."""
        return self.train_len if self.table_len is None else int(self.table_len)

    @property
    def setting(self) -> Setting:
        """The registry setting of this model: model width, heads, table rows, base, seed."""
        return Setting(width=self.d_model, base=self.base, train_len=self.rows, n_heads=self.n_heads, seed=self.seed)

    @property
    def tokens(self) -> int:
        """Size of the model's vocabulary: the task's symbols plus a separator and a filler."""
        return self.vocab + 2


def training_twin(config, vocab: int) -> LabConfig:
    """A toy-task config of the same model, batch, length and steps as `config` (an LMConfig, a PasskeyConfig): its
    training costs what theirs does, so the lab's fitted constants estimate it."""
    return LabConfig(
        scheme=config.scheme, train_len=config.train_len, eval_lens=(config.train_len,), steps=config.steps, batch=config.batch,
        lr=config.lr, seed=config.seed, vocab=vocab, d_model=config.d_model, n_heads=config.n_heads, n_layers=config.n_layers,
    )  # fmt: skip


def parse_lengths(text: str) -> tuple[int, ...]:
    """'32, 64 128' -> (32, 64, 128). Raises ValueError naming the first entry that is not a whole
    number (plain ASCII digits, at most 7 of them: int() would take '١٢' and choke on 5,000
    digits), or when there are more than MAX_EVAL_LENS entries; the text is read only that far."""
    parts = [p for p in text[: 16 * MAX_EVAL_LENS].replace(",", " ").split() if p]
    if not parts:
        raise ValueError("Give at least one evaluation length, e.g. 32, 64, 128.")
    if len(parts) > MAX_EVAL_LENS or len(text) > 16 * MAX_EVAL_LENS:
        raise ValueError(f"Give at most {MAX_EVAL_LENS} evaluation lengths, e.g. 32, 64, 128.")
    lengths = []
    for part in parts:
        digits = part.removeprefix("+")
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 7):
            raise ValueError(f"{quoted(part, 20)} is not a whole number: write evaluation lengths like 32, 64, 128.")
        lengths.append(int(digits))
    return tuple(lengths)


# --- the budget: what a run costs, estimated from its whole configuration ---------------------
# A hosted demo trains in its server process, so a link must not be able to start a run that holds
# a core for hours or the memory of several runs. `estimate` says, before anything trains, how long a
# config takes and how much memory it adds, from the sizes that drive them (the constants below were
# fitted to runs timed and measured on the development machine: scripts/lab_budget.py repeats that);
# `refuse` is the one rule every live run of the lab is held to (the toy tasks', the Austen models', the
# experiments'): a run (every scheme of it) above its seconds, a config above RUN_BYTES, or one whose single
# training step or evaluation pass would outlast STEP_SECONDS (Stop and a closed tab are noticed between
# two of them) is refused in a sentence. The runner also stops any run at WALL_SECONDS.

RUN_SECONDS = 180.0  # estimated seconds of training and evaluation for all the schemes of one run
WALL_SECONDS = 300.0  # a run still going this long after it started training is stopped (a loaded machine runs slower than estimated)
RUN_BYTES = 400 * 2**20  # estimated memory one config adds while it trains or is evaluated (two runs train at once)
STEP_SECONDS = 0.5  # estimated seconds of one training step, or of one evaluation pass (Stop is noticed between two)
EVAL_SCORES = 2**22  # attention scores per layer in one evaluation pass (sequences are evaluated a few at a time)
FLOP_S = 2.3e-11  # seconds per floating-point operation of the model's matrix products (one thread, ~22 GFLOP/s)
SCORE_S = 2.6e-8  # seconds per attention score per layer for a training step (forward and backward: scale, mask, softmax, bias)
FORMULA_S = 1.0e-7  # seconds per (H, T, T) entry of a learned bias computed at every pass (T5, KERPLE), forward and backward
EVAL_FLOP_S = 2.3e-11  # as FLOP_S, for an evaluation pass
EVAL_SCORE_S = 1.3e-8  # seconds per attention score per layer in an evaluation pass (forward only)
EVAL_FORMULA_S = 1.1e-8  # as FORMULA_S, forward only
STEP_OVERHEAD_S = 4.6e-3  # seconds of every training step beyond its arithmetic (Python, the optimiser)
BASE_BYTES = 120 * 2**20  # what the first run of a process adds however small it is (torch's buffers and thread pools)
SCORE_BYTES = 17  # bytes per attention score per layer held for the backward pass
ACTIVATION_BYTES = 135  # bytes per number of width d per token per layer held for the backward pass
EVAL_ACTIVATION_BYTES = 60  # bytes per number of width d per token in one evaluation pass
EVAL_SCORE_BYTES = 20  # bytes per attention score of one evaluation pass (a few float32 copies of one layer's scores)


@dataclass(frozen=True)
class Estimate:
    """What one config costs, estimated: seconds of training (`train_s`) and of evaluation
    (`eval_s`), the longest single step or evaluation pass (`step_s`, `pass_s`), and the memory it
    adds at its peak (`peak_bytes`)."""

    train_s: float
    eval_s: float
    step_s: float
    pass_s: float
    peak_bytes: int

    @property
    def seconds(self) -> float:
        return self.train_s + self.eval_s


def _flops(config: LabConfig, batch: int, length: int) -> float:
    """Multiply-adds x 2 of one forward pass of `batch` sequences of `length`: per layer the four d x d
    projections and the 4d MLP (24 d² per token), scores and weighted values (4 T d per token), a
    rotation of queries and keys by (hd x hd) matrices where the scheme rotates; then the read-out."""
    d, hd, tokens = config.d_model, config.d_model // config.n_heads, batch * length
    rotate = 4 * d * hd if SCHEMES[config.scheme].rotation is not None else 0
    return config.n_layers * tokens * (24 * d * d + 4 * length * d + rotate) + 2 * tokens * d * config.tokens


def _bias_passes(config: LabConfig) -> float:
    """Extra passes over the (B, H, T, T) scores a scheme's bias costs: none without a bias, one to add a
    fixed or formula bias, three for Shaw's, gathered per query in float64."""
    scheme = SCHEMES[config.scheme]
    if scheme.bias is None:
        return 0.0
    return 3.0 if scheme.name == "shaw" else 1.0


def _formula_bias(config: LabConfig) -> float:
    """1 for a learned bias computed afresh, (H, T, T), at every forward pass whatever the batch
    (T5's buckets, KERPLE's logarithm), else 0; Shaw's is per query, counted in `_bias_passes`."""
    scheme = SCHEMES[config.scheme]
    return 1.0 if scheme.bias is not None and scheme.parameters(config.setting) and scheme.name != "shaw" else 0.0


def _hook_bytes(config: LabConfig, length: int) -> tuple[int, int]:
    """Memory of a fixed scheme's hooks at `length`: (kept, while built). They are made once per
    length and kept, float32: the rotation as a matrix per position (T x hd x hd), the bias
    (H x T x T), the added code (T x d); while being built from the numpy hooks in float64 they take
    several times that (the rotation of every unit vector at every position, its temporaries)."""
    scheme, hd = SCHEMES[config.scheme], config.d_model // config.n_heads
    if scheme.parameters(config.setting) != 0:
        return 0, 0
    if scheme.rotation is not None:
        return 4 * length * hd * hd, 16 * length * hd * hd
    if scheme.bias is not None:
        return 4 * config.n_heads * length * length, 20 * config.n_heads * length * length
    return 4 * length * config.d_model, 20 * length * config.d_model


def eval_pass(config: LabConfig, chunk: int, length: int) -> tuple[float, int]:
    """Seconds and bytes of one evaluation pass over `chunk` sequences of `length` (forward only)."""
    layers, heads, bias = config.n_layers, config.n_heads, _bias_passes(config)
    seconds = (
        EVAL_FLOP_S * _flops(config, chunk, length)
        + EVAL_SCORE_S * layers * chunk * heads * length**2 * (1 + bias / 2)
        + EVAL_FORMULA_S * layers * heads * length**2 * _formula_bias(config)
    )
    held = EVAL_SCORE_BYTES * chunk * heads * length**2 * (1 + bias / 3) + EVAL_ACTIVATION_BYTES * chunk * length * config.d_model
    return seconds, int(held)


def estimate(config: LabConfig) -> Estimate:
    """How long the config trains and is evaluated, its longest step or pass, and the memory it adds."""
    layers, heads, bias, formula = config.n_layers, config.n_heads, _bias_passes(config), _formula_bias(config)
    scores = layers * config.batch * heads * config.train_len**2  # per step, all layers
    step_s = (
        3 * FLOP_S * _flops(config, config.batch, config.train_len)
        + SCORE_S * scores * (1 + bias / 2)
        + FORMULA_S * layers * heads * config.train_len**2 * formula
        + STEP_OVERHEAD_S
    )
    acts = layers * config.batch * config.train_len * config.d_model
    kept, building = _hook_bytes(config, config.train_len)
    train_bytes = SCORE_BYTES * scores * (1 + bias / 3) + ACTIVATION_BYTES * acts + max(kept, building)
    eval_s, pass_s, eval_bytes = 0.0, 0.0, 0
    for length in config.eval_lens:
        chunk = max(1, min(EVAL_BATCH, EVAL_SCORES // (heads * length**2)))
        one, one_pass = eval_pass(config, chunk, length)
        eval_s += -(-EVAL_BATCH // chunk) * one
        pass_s = max(pass_s, one)
        hooks, building = _hook_bytes(config, length)
        eval_bytes = max(eval_bytes, kept + building, kept + hooks + one_pass)
        kept += hooks  # the hooks of every length evaluated so far stay cached
    # what training took is not all given back before evaluation allocates: the peak is near the sum
    return Estimate(config.steps * step_s, eval_s, step_s, pass_s, BASE_BYTES + int(train_bytes + eval_bytes))


def _unit(seconds: float) -> tuple[str, float, int]:
    """Seconds up to 10 min (so that 198 s and the 180 s allowed do not both read "3 min"), then minutes, then hours:
    the unit's name, its seconds and the decimals it is written with."""
    return ("s", 1.0, 0) if seconds < 600 else ("min", 60.0, 0) if seconds < 7200 else ("h", 3600.0, 1)


def _duration(seconds: float, unit: tuple[str, float, int] | None = None) -> str:
    """`seconds` in `unit`, by default its own (_unit)."""
    name, scale, decimals = unit or _unit(seconds)
    return f"{seconds / scale:,.{decimals}f} {name}"


def refuse(costs: Sequence[Estimate], limit: float, what: str, change: str) -> str | None:
    """The lab's one budget rule, for every live run: a config's memory within RUN_BYTES, its longest
    training step or evaluation pass within STEP_SECONDS (Stop is noticed between two), and the
    configs' estimated seconds together within `limit` (the run's own: RUN_SECONDS for the toy tasks).
    None when they are; else a sentence about `what` (the run, named by its size) and what to `change`."""
    if not costs:
        return None
    peak = max(c.peak_bytes for c in costs)
    slowest = max(max(c.step_s, c.pass_s) for c in costs)
    total = sum(c.seconds for c in costs)
    if peak > RUN_BYTES:
        return f"{what} would need about {peak / 2**20:,.0f} MB of memory; the lab allows {RUN_BYTES / 2**20:,.0f} MB per run on this server. {change}"
    if slowest > STEP_SECONDS:
        return (
            f"One training step or evaluation pass of {what[0].lower()}{what[1:]} would take about {slowest:.1f} s; the lab allows {STEP_SECONDS:g} s, "
            f"so that Stop, or closing the tab, is noticed at once. {change}"
        )
    if total > limit:
        unit = _unit(limit)  # both in the limit's unit, so they read side by side
        return (
            f"{what} would take about {_duration(total, unit)} of CPU (estimated); the lab allows about "
            f"{_duration(limit)} per run on this server. {change}"
        )
    return None


def over_budget(configs: Sequence[LabConfig]) -> str | None:
    """Why this run (its configs, one per scheme) is not allowed, in a sentence with what to change;
    None when it is within the budget."""
    if not configs:
        return None
    first, n = configs[0], len(configs)
    size = f"width {first.d_model}, {first.n_heads} head{'s' if first.n_heads > 1 else ''}, {first.n_layers} layer{'s' if first.n_layers > 1 else ''}"
    what = (
        f"This run ({n} scheme{'s' if n > 1 else ''} × {first.steps:,} steps, {size}, batch {first.batch} at length {first.train_len}, "
        f"evaluated up to {max(first.eval_lens):,} tokens)"
    )
    change = "Use fewer steps or schemes, a smaller batch, fewer heads or layers, a narrower model, or shorter lengths."
    return refuse([estimate(c) for c in configs], RUN_SECONDS, what, change)


# --- the tasks ------------------------------------------------------------------------------


def make_batch(config: LabConfig, rng: np.random.Generator, batch: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """`batch` sequences of `length` tokens of the config's task, drawn from `rng`.
    Symbols are 0 .. vocab-1; vocab is the separator, vocab + 1 a filler at the start (copy and
    reverse use 2n tokens: n symbols, the separator, n - 1 symbols of the answer, the last one
    predicted from the one before; an odd length starts with one filler). Targets are IGNORE
    where a position is not scored. Returns (inputs (B, T), targets (B, T)) int64."""
    v = config.vocab
    if config.task == "kback":
        inputs = rng.integers(0, v, size=(batch, length))  # (B, T)
    else:
        n = length // 2  # n symbols, the separator, the first n - 1 symbols of the answer: 2n tokens
        x = rng.integers(0, v, size=(batch, n))  # (B, n)
        answer = x if config.task == "copy" else x[:, ::-1]
        inputs = np.concatenate([np.full((batch, length - 2 * n), v + 1), x, np.full((batch, 1), v), answer[:, :-1]], axis=1)  # (B, T)
    source = TASKS[config.task].source(length, config.offset)  # (T,): the position each target is fetched from, the task's one rule
    targets = np.where(source >= 0, inputs[:, np.maximum(source, 0)], IGNORE)
    return inputs.astype(np.int64), targets.astype(np.int64)


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LabResult:
    """What one run gives. accuracy[L]: share of scored tokens right at evaluation length L, or
    None where the scheme has no code (notes[L] says why; notes also mark untrained rows).
    position_accuracy: accuracy per position at the longest evaluation length the scheme runs
    at, (that length,), NaN where nothing is scored. table: the trained added table (rows, d) of a scheme
    that learns one, else None. losses: (steps run,) training loss per step."""

    config: LabConfig
    losses: np.ndarray
    accuracy: dict[int, float | None]
    notes: dict[int, str]
    position_accuracy: np.ndarray
    table: np.ndarray | None
    seconds: float
    tokens_per_s: float
    stopped: bool

    @property
    def steps_done(self) -> int:
        return int(self.losses.size)


def configs_for(schemes: Sequence[str], eval_text: str, **fields: object) -> tuple[list[LabConfig], list[str]]:
    """One LabConfig per scheme, with the evaluation lengths read from `eval_text`
    (`parse_lengths`) and the same other `fields`, and the problems found, each sentence once.
    A bad field usually fails every scheme alike; a scheme-specific one (a table shorter than
    the training length) fails only the schemes it concerns. Returns (configs, problems)."""
    try:
        lengths = parse_lengths(eval_text)
    except ValueError as err:
        return [], [str(err)]
    configs, problems = [], []
    for scheme in schemes:
        try:
            configs.append(LabConfig(scheme=scheme, eval_lens=lengths, **fields))
        except ValueError as err:
            if str(err) not in problems:
                problems.append(str(err))
    return configs, problems
