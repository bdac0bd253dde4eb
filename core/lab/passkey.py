"""Passkey retrieval at a distance (Mohtashami & Jaggi 2023) at the lab's scale, torch-free: filler tokens with one key
announced by a marker and a query at the end, `f f M k f ... f Q -> k`, only the answer at the query scored (chance 1 in
`keys`). Trained on `train_len` tokens, tested at distances up to 8 x that. With `shared_keys` the keys are fillers, so
only the key's place right after the marker tells it apart and the task needs position."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import numpy as np

from core import bibliography
from core.lab import config as lab
from core.lab import lm
from core.schemes.checks import shown, whole_number
from core.schemes.registry import SCHEMES, Setting

IGNORE = lab.IGNORE
MAX_FACTOR = 8  # distances up to 8 x the training length
DEFAULT_DISTANCES = (4, 16, 32, 62, 96, 126, 192, 254, 380, 510)
SCHEMES_SHOWN = lm.DEFAULT_SCHEMES


@dataclass(frozen=True)
class Tokens:
    """The task's alphabet: fillers 0 .. F-1, keys F .. F+K-1, then the marker and the query. With `shared`, the keys are
    the first K fillers and have no tokens of their own (fillers 0 .. F-1, then the marker and the query): a key is then
    told apart from the filler around it only by where it stands, right after the marker."""

    fillers: int
    keys: int
    shared: bool = False

    @property
    def first_key(self) -> int:
        return 0 if self.shared else self.fillers

    @property
    def marker(self) -> int:
        return self.fillers + (0 if self.shared else self.keys)

    @property
    def query(self) -> int:
        return self.marker + 1

    @property
    def size(self) -> int:
        return self.marker + 2


def batch(
    tokens: Tokens, rng: np.random.Generator, n: int, length: int, distance: int | np.ndarray | None = None, queries: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`n` sequences of `length` tokens: filler, the marker, the key at `distance` before the
    final query (one distance for all, one per sequence, or None: uniform in 1 .. length - 2).
    With `queries` > 1, up to queries - 1 more queries stand at random places after the key
    (training: more answers per sequence); each query's target is the key.
    Returns (inputs (n, length), targets (n, length): IGNORE but the key at every query,
    distances (n,): the last query's distance to the key)."""
    length = whole_number(length, "The sequence length", 3)
    x = rng.integers(0, tokens.fillers, size=(n, length))  # (n, T)
    d = rng.integers(1, length - 1, size=n) if distance is None else np.broadcast_to(np.asarray(distance, dtype=np.int64), (n,)).copy()
    if np.any(d < 1) or np.any(d > length - 2):
        raise ValueError(
            f"A key at distance {int(d.max() if np.any(d > length - 2) else d.min())} does not fit a sequence of {length} tokens (1 to {length - 2})."
        )
    keys = tokens.first_key + rng.integers(0, tokens.keys, size=n)  # (n,)
    rows = np.arange(n)
    where = length - 1 - d  # the key's position
    x[rows, where] = keys
    x[rows, where - 1] = tokens.marker
    x[:, -1] = tokens.query
    targets = np.full((n, length), IGNORE, dtype=np.int64)
    targets[:, -1] = keys
    if queries > 1:
        extra = rng.integers(0, length, size=(n, queries - 1))  # (n, q - 1): kept where they fall after the key
        after = extra > where[:, None]
        r, c = np.nonzero(after)
        x[r, extra[r, c]] = tokens.query
        targets[r, extra[r, c]] = keys[r]
    return x.astype(np.int64), targets, d


def eval_length(distance: int, train_len: int) -> int:
    """The shortest whole number of training lengths that holds a key at `distance` (and its marker)."""
    return train_len * max(1, math.ceil((distance + 2) / train_len))


@dataclass(frozen=True)
class PasskeyConfig:
    """One passkey run: the lab's tiny model (2 layers, width 64, 4 heads, as on Austen) with
    `scheme`, trained `steps` steps of `batch` sequences of `train_len` tokens, then asked
    `eval_count` fresh sequences at every distance in `distances`. T5's causal buckets stop at
    `t5_max_distance` (L/2), as in the real-text lab."""

    scheme: str = "alibi"
    train_len: int = 64
    steps: int = 300
    batch: int = 64
    lr: float = 3e-3
    seed: int = 0
    fillers: int = 16
    keys: int = 16
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    distances: tuple[int, ...] = DEFAULT_DISTANCES
    eval_count: int = 256
    t5_max_distance: int = 32
    shared_keys: bool = False

    def __post_init__(self) -> None:
        lab.check_model(self)
        length = whole_number(self.train_len, "The training length", 8, lab.LIMITS["train_len"])
        whole_number(self.fillers, "The filler alphabet", 2, 200)
        whole_number(self.keys, "The number of keys", 2, 200)
        if not isinstance(self.shared_keys, bool):
            raise ValueError(f"Whether the keys are fillers must be true or false, got {shown(self.shared_keys)}.")
        if self.shared_keys and self.keys > self.fillers:
            raise ValueError(f"Keys drawn from the fillers need at least as many fillers ({self.fillers}) as keys ({self.keys}).")
        whole_number(self.eval_count, "The sequences per distance", 1, 4096)
        whole_number(self.t5_max_distance, "T5's max_distance", 2, 4096)
        distances = tuple(sorted({whole_number(x, "A distance", 1, MAX_FACTOR * length - 2) for x in self.distances}))
        if not distances:
            raise ValueError("Give at least one distance.")
        object.__setattr__(self, "distances", distances)

    @property
    def tokens(self) -> int:
        return self.alphabet.size

    @property
    def alphabet(self) -> Tokens:
        return Tokens(self.fillers, self.keys, self.shared_keys)

    @property
    def setting(self) -> Setting:
        return Setting(width=self.d_model, train_len=self.train_len, n_heads=self.n_heads, seed=self.seed)

    @property
    def label(self) -> str:
        return f"{SCHEMES[self.scheme].label} (passkey)" + "".join(f", {what}" for what in self.departures())

    def departures(self) -> list[str]:
        """What this run sets otherwise than the shipped one of its scheme, in words: a run's label names it, so two runs
        of one scheme never share a label (a CPU record kept by label would lose one)."""
        default = PasskeyConfig(self.scheme)
        return [
            words.format(", ".join(map(str, value)) if isinstance(value, tuple) else value)
            for name, words in DEPARTURES.items()
            if (value := getattr(self, name)) != getattr(default, name)
        ]

    def fields(self) -> dict[str, object]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items() if k != "scheme"}


@dataclass(frozen=True)
class PositionalConfig(PasskeyConfig):
    """The passkey run whose keys are drawn from the fillers (its own type: the lab's registry runs a config by its type)."""

    shared_keys: bool = True


DEPARTURES = {
    "train_len": "trained on {}",
    "steps": "{} steps",
    "batch": "batches of {}",
    "lr": "learning rate {}",
    "seed": "seed {}",
    "fillers": "{} fillers",
    "keys": "{} keys",
    "d_model": "width {}",
    "n_heads": "{} heads",
    "n_layers": "{} layers",
    "distances": "distances {}",
    "eval_count": "{} sequences per distance",
    "t5_max_distance": "T5's buckets to {}",
    "shared_keys": "keys drawn from the fillers",
}


def questions(config: PasskeyConfig, distance: int) -> tuple[np.ndarray, np.ndarray]:
    """The eval_count sequences a run is asked at `distance` (seeded [seed, 2, distance]): (inputs, targets)."""
    x, y, _ = batch(config.alphabet, np.random.default_rng([config.seed, 2, distance]), config.eval_count, eval_length(distance, config.train_len), distance)
    return x, y


@functools.lru_cache(maxsize=16)
def counting_accuracy(config: PasskeyConfig) -> dict[str, float]:
    """Per distance, the share of a run's own `questions` that a reader without positions names right by naming the filler seen most often
    in the sequence (ties: the lowest). With keys drawn from the fillers the key adds one to its own count, so this beats
    chance with no position at all; with keys of their own it names none."""
    out = {}
    for d in config.distances:
        x, y = questions(config, d)
        fillers = np.where(x < config.fillers, x, config.fillers)  # (count, n): the marker and the query counted apart
        counts = np.stack([np.bincount(row, minlength=config.fillers + 1)[: config.fillers] for row in fillers])  # (count, fillers)
        out[str(d)] = float((counts.argmax(axis=1) == y[:, -1]).mean())
    return out


def estimate_seconds(config: PasskeyConfig) -> float:
    """CPU seconds of a run: training as the lab's fitted constants say, and evaluation."""
    twin = lab.training_twin(config, config.tokens)
    evals = sum(
        lab.estimate(replace(twin, eval_lens=(eval_length(d, config.train_len),), steps=1)).eval_s * config.eval_count / lab.EVAL_BATCH
        for d in config.distances
        if eval_length(d, config.train_len) <= lab.MAX_EVAL_FACTOR * config.train_len
    )
    far = sum(eval_length(d, config.train_len) ** 2 for d in config.distances if eval_length(d, config.train_len) > lab.MAX_EVAL_FACTOR * config.train_len)
    return lab.estimate(twin).train_s + evals + far * config.eval_count * config.n_layers * config.n_heads * lab.EVAL_SCORE_S


# Mohtashami & Jaggi, "Landmark Attention: Random-Access Infinite Context Length for Transformers",
# NeurIPS 2023, arXiv:2305.16300: the passkey retrieval task hides a random number in repeated
# filler text and asks for it at the end; the paper uses it to test retrieval far past the
# training context.
PAPER_SOURCE = bibliography.PASSKEY.cited
