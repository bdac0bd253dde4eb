r"""The lab's configuration and data, torch-free: what a run is, the synthetic tasks, the batches
they are drawn as, and what a run gives back.

`LabConfig` is one training run (a registry scheme on a task, and the tiny model that learns
it), validated with sentences a user understands; `make_batch` draws a task's sequences from a
numpy generator seeded per run, so a seed fixes the data; `LabResult` is what a run gives. The
torch model and its training loop are in `core.lab.model`; running runs in the background, the
cache of finished ones and the cap on runs training at once are in `core.lab.runner`.

The default task is "kback": at every position i >= k, name the token that stood k places back,

$$y_i = x_{i-k}.$$

Tokens are uniform random, so content is no help: the model has to find the key exactly k
positions before the query, at every length. A relative scheme that can point at one exact
offset (RoPE, T5's exact buckets) solves it at any length; ALiBi only knows "nearer is better";
a learned table has no row past its end; without positions the model cannot tell offsets apart.
`bench/lab.py` and the lab page quote the measured numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from core.schemes.checks import whole_number
from core.schemes.registry import SCHEMES, Setting

IGNORE = -100  # target of positions that are not scored (torch's cross_entropy ignore_index)
MAX_EVAL_FACTOR = 4  # evaluation lengths go up to 4 x the training length
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
        if self.scheme not in SCHEMES:
            raise ValueError(f"Unknown scheme {self.scheme!r}; choose one of {', '.join(SCHEMES)}.")
        if self.task not in TASKS:
            raise ValueError(f"Unknown task {self.task!r}; choose one of {', '.join(TASKS)}.")
        if isinstance(self.steps, (int, np.integer)) and not isinstance(self.steps, bool) and self.steps < 1:
            raise ValueError(f"Training needs at least 1 step, got {self.steps}.")
        whole_number(self.steps, "The number of training steps", 1, LIMITS["steps"])
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
        object.__setattr__(self, "eval_lens", tuple(sorted({int(n) for n in lens})))
        whole_number(self.batch, "The batch size", 1, LIMITS["batch"])
        whole_number(self.seed, "The seed", 0, 2**31 - 1)
        whole_number(self.vocab, "The vocabulary size", 2, LIMITS["vocab"])
        d = whole_number(self.d_model, "The model width", 2, LIMITS["d_model"])
        heads = whole_number(self.n_heads, "The number of heads", 1, LIMITS["n_heads"])
        if d % heads or (d // heads) % 2:
            raise ValueError(f"A width of {d} must split into {heads} heads of an even width (rotary embeddings turn pairs of dimensions).")
        whole_number(self.n_layers, "The number of layers", 1, LIMITS["n_layers"])
        scores = self.batch * heads * train_len**2
        if scores > MAX_SCORES:
            raise ValueError(
                f"A batch of {self.batch} sequences of {train_len} tokens with {heads} heads holds {scores:,} attention scores per step, "
                f"more than the lab allows ({MAX_SCORES:,}): use a smaller batch, fewer heads or a shorter training length."
            )
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float, np.integer, np.floating)) or not math.isfinite(self.lr) or not 0 < self.lr <= 1:
            raise ValueError(f"The learning rate must be a number above 0 and at most 1, got {self.lr!r}.")
        if not math.isfinite(self.base) or self.base <= 1:
            raise ValueError(f"The base must be a finite number above 1, got {self.base!r}.")
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

    def with_scheme(self, scheme: str) -> LabConfig:
        return replace(self, scheme=scheme)


def parse_lengths(text: str) -> tuple[int, ...]:
    """'32, 64 128' -> (32, 64, 128). Raises ValueError naming the first entry that is not a whole number."""
    parts = [p for p in text.replace(",", " ").split() if p]
    if not parts:
        raise ValueError("Give at least one evaluation length, e.g. 32, 64, 128.")
    lengths = []
    for part in parts:
        try:
            lengths.append(int(part))
        except ValueError:
            raise ValueError(f"'{part[:20]}' is not a whole number: write evaluation lengths like 32, 64, 128.") from None
    return tuple(lengths)


# --- the tasks ------------------------------------------------------------------------------


def make_batch(config: LabConfig, rng: np.random.Generator, batch: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """`batch` sequences of `length` tokens of the config's task, drawn from `rng`.
    Symbols are 0 .. vocab-1; vocab is the separator, vocab + 1 a filler at the start (copy and
    reverse use 2n tokens: n symbols, the separator, n - 1 symbols of the answer, the last one
    predicted from the one before; an odd length starts with one filler). Targets are IGNORE
    where a position is not scored. Returns (inputs (B, T), targets (B, T)) int64."""
    v = config.vocab
    targets = np.full((batch, length), IGNORE, dtype=np.int64)
    if config.task == "kback":
        x = rng.integers(0, v, size=(batch, length))  # (B, T)
        k = config.offset
        targets[:, k:] = x[:, :-k]
        return x, targets
    n = length // 2  # n symbols, the separator, the first n - 1 symbols of the answer: 2n tokens
    fill = length - 2 * n
    x = rng.integers(0, v, size=(batch, n))  # (B, n)
    answer = x if config.task == "copy" else x[:, ::-1]
    inputs = np.concatenate([np.full((batch, fill), v + 1), x, np.full((batch, 1), v), answer[:, :-1]], axis=1)  # (B, T)
    targets[:, fill + n :] = answer  # the separator predicts the first answer token, and so on
    return inputs.astype(np.int64), targets


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
