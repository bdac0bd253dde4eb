r"""The lab's tiny transformer and its training loop (torch; imported only when a run starts). A pre-norm decoder whose
attention applies a scheme only through the scheme's registry hooks,
$\text{scores}_h = R(q_h)\,R(k_h)^\top / \sqrt{d_h} + B_h(q_h) + M$ on $x = E[\text{tokens}] + A$ (A added, R rotation,
B bias, M the causal mask); parameters and data come from generators seeded by the config and a run uses one thread, so
two runs with the same seed agree exactly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from core.lab import lm
from core.lab.config import EVAL_BATCH, EVAL_SCORES, IGNORE, LabConfig, LabResult, estimate, make_batch
from core.lab.lm import LMConfig, LMResult
from core.schemes.registry import SCHEMES, T5_BUCKETS, T5_STD, Scheme, Setting
from core.schemes.torch import LearnedPositionEmbedding, T5RelativeBias

EMBED_STD = 0.3  # token vectors of norm ~0.3 sqrt(d): near the sinusoid's size (sqrt(d/2)), yet small enough that a learned
# table starting at std 0.02 catches up within a few hundred steps (at std 1 it was still at 71 % after 400 steps)
WEIGHT_STD = 0.02  # linear layers, as GPT-2


def _tensor(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32))


class PositionHooks(nn.Module):
    """How positions enter the model: `added(T)` (T, d) or None, `rotate(x)` on (B, H, T, hd),
    `bias(q)` from the unrotated queries (B, H, T, hd) -> broadcastable to (B, H, T, T), or None."""

    rows: int | None = None  # rows of a trainable table, where there is one

    def added(self, length: int) -> torch.Tensor | None:
        return None

    def rotate(self, x: torch.Tensor) -> torch.Tensor:
        return x

    def bias(self, q: torch.Tensor) -> torch.Tensor | None:
        return None


class FixedPositions(PositionHooks):
    """A scheme with nothing to learn, from its numpy registry hooks, cached per length."""

    def __init__(self, scheme: Scheme, setting: Setting) -> None:
        super().__init__()
        self.scheme, self.setting = scheme, setting
        self._cache: dict[int, tuple] = {}

    def _hooks(self, length: int) -> tuple[torch.Tensor | None, torch.Tensor | None, torch.Tensor | None]:
        if length not in self._cache:
            pos = self.scheme.attention_positions(length, self.setting)  # refuses positions past a table
            hd, heads = self.setting.width // self.setting.n_heads, self.setting.n_heads
            added = None if pos.added is None else _tensor(pos.added)  # (T, d)
            rotation = None
            if pos.rotate is not None:
                units = np.broadcast_to(np.eye(hd)[:, None, :], (hd, length, hd))  # unit vector e_i at every position
                rotation = _tensor(pos.rotate(units).transpose(1, 0, 2))  # (T, hd_in, hd_out): row i is R_t e_i
            bias = None if pos.bias is None else _tensor(pos.bias(np.zeros((heads, length, hd))))  # (H, T, T)
            self._cache[length] = (added, rotation, bias)
        return self._cache[length]

    def added(self, length: int) -> torch.Tensor | None:
        return self._hooks(length)[0]

    def rotate(self, x: torch.Tensor) -> torch.Tensor:
        rotation = self._hooks(x.shape[-2])[1]
        return x if rotation is None else torch.einsum("bhti,tio->bhto", x, rotation)

    def bias(self, q: torch.Tensor) -> torch.Tensor | None:
        return self._hooks(q.shape[-2])[2]


class TrainedTable(PositionHooks):
    """A trainable added table, starting at the registry's code for rows 0 .. rows-1."""

    def __init__(self, scheme: Scheme, setting: Setting, generator: torch.Generator) -> None:
        super().__init__()
        self.rows = scheme.max_position(setting)
        self.table = LearnedPositionEmbedding.from_table(scheme.input_code(np.arange(self.rows), setting))

    def added(self, length: int) -> torch.Tensor:
        return self.table(torch.arange(length))  # (T, d); refuses positions past the table


class TrainedBias(PositionHooks):
    """A trainable bias on the scores: the scheme's torch twin (`Scheme.trainable`), whose
    `from_queries` maps the queries (B, H, T, hd) to a bias broadcastable to (B, H, T, T)."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def bias(self, q: torch.Tensor) -> torch.Tensor:
        return self.module.from_queries(q)


def position_hooks(scheme: Scheme, setting: Setting, generator: torch.Generator) -> PositionHooks:
    """The hooks of any registry scheme: fixed from its numpy hooks, or trainable (an added table
    from its initial code, a bias from its torch twin) when it learns position parameters."""
    if scheme.parameters(setting) == 0:
        return FixedPositions(scheme, setting)
    if scheme.max_position(setting) is not None and scheme.encode is not None:
        return TrainedTable(scheme, setting, generator)
    if scheme.trainable is not None:
        return TrainedBias(scheme.trainable(setting, generator))
    raise ValueError(f"{scheme.label} learns its positions, but the lab has no trainable version of it yet.")


class Block(nn.Module):
    """Pre-norm causal self-attention with the scheme's hooks, then an MLP; both residual.
    While `keep` is set, every forward pass hands it its attention weights (B, H, T, T): a list
    gets them appended, a function is called with them (core.lab.trained reads attention maps and
    their entropy that way; a function can reduce them at once instead of holding every layer's)."""

    keep: list[torch.Tensor] | Callable[[torch.Tensor], None] | None = None

    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor, positions: PositionHooks) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = (a.view(b, t, self.heads, d // self.heads).transpose(1, 2) for a in self.qkv(self.norm1(x)).split(d, dim=2))  # (B, H, T, hd)
        bias = positions.bias(q)  # from the unrotated queries, as the registry's Shaw hook
        q, k = positions.rotate(q), positions.rotate(k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)  # (B, H, T, T)
        if bias is not None:
            scores = scores + bias
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        weights = scores.softmax(dim=-1)  # (B, H, T, T)
        if isinstance(self.keep, list):
            self.keep.append(weights.detach())
        elif self.keep is not None:
            self.keep(weights.detach())
        y = (weights @ v).transpose(1, 2).reshape(b, t, d)  # (B, T, d)
        x = x + self.out(y)
        return x + self.mlp(self.norm2(x))


class Halted(Exception):
    """Raised inside a forward or backward pass when the model's `halt()` says stop."""


class TinyTransformer(nn.Module):
    """Token embedding (+ the scheme's added code), `n_layers` blocks, a final norm and a
    linear read-out over the vocabulary. forward: tokens (B, T) -> logits (B, T, tokens).

    `halt`, when set, is asked before every block of a forward pass and, in training, as the
    gradient reaches every block's output in the backward pass: when it says stop, `Halted` is
    raised there, so a stop is noticed within one layer's work, not one whole step or pass."""

    halt: Callable[[], bool] | None = None

    def __init__(self, config: LabConfig, generator: torch.Generator, positions: Callable[[torch.Generator], PositionHooks] | None = None) -> None:
        super().__init__()
        d = config.d_model
        self.embed = nn.Embedding(config.tokens, d)
        self.blocks = nn.ModuleList(Block(d, config.n_heads) for _ in range(config.n_layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, config.tokens)
        with torch.no_grad():  # the seeded generator, not torch's global one: runs in parallel threads stay reproducible
            for module in self.modules():
                if isinstance(module, nn.Linear):
                    nn.init.normal_(module.weight, 0.0, WEIGHT_STD, generator=generator)
                    nn.init.zeros_(module.bias)
            nn.init.normal_(self.embed.weight, 0.0, EMBED_STD, generator=generator)
        hooks = positions(generator) if positions is not None else position_hooks(SCHEMES[config.scheme], config.setting, generator)
        self.positions = hooks.float()  # built last, from the same generator: a `positions` override draws where the registry's would

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)  # (B, T, d)
        added = self.positions.added(tokens.shape[1])
        if added is not None:
            x = x + added
        for block in self.blocks:
            self._check()
            x = block(x, self.positions)
            if self.halt is not None and x.requires_grad:
                x.register_hook(self._check)  # asked again when backward reaches this block
        return self.head(self.norm(x))  # (B, T, tokens)

    def _check(self, grad: torch.Tensor | None = None) -> None:
        if self.halt is not None and self.halt():
            raise Halted


def _learning_rate(config: LabConfig, step: int) -> float:
    """Linear warm-up over the first 5 % of the steps, then cosine decay to a tenth."""
    warm = max(1, config.steps // 20)
    if step < warm:
        return config.lr * (step + 1) / warm
    progress = (step - warm) / max(1, config.steps - warm)
    return config.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def fit(
    model: nn.Module,
    schedule,
    loss: Callable[[], torch.Tensor],
    tokens_per_step: int,
    on_step: Callable[[int, float, float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[list[float], bool]:
    """The lab's one training loop: schedule.steps steps of AdamW (betas 0.9, 0.98, no weight decay) on `loss()` (a fresh
    batch each call) at the lab's warm-up and cosine decay of schedule.lr, gradients clipped to norm 1. should_stop() is
    asked before each step; a `Halted` raised inside a step (the model's `halt`) leaves that step untaken.
    on_step(step, loss, tokens_per_s) after each. Returns (losses, stopped)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=schedule.lr, betas=(0.9, 0.98), weight_decay=0.0)
    losses: list[float] = []
    start = time.perf_counter()
    try:
        for step in range(schedule.steps):
            if should_stop is not None and should_stop():
                return losses, True
            value = loss()
            for group in optimizer.param_groups:
                group["lr"] = _learning_rate(schedule, step)
            optimizer.zero_grad(set_to_none=True)
            value.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses.append(float(value.detach()))
            if on_step is not None:
                on_step(step + 1, losses[-1], (step + 1) * tokens_per_step / (time.perf_counter() - start))
    except Halted:
        return losses, True
    return losses, False


NOT_EVALUATED = "not evaluated: the run was stopped"
QUICK_EVAL_S = 0.25  # a run stopped while training is still evaluated, if that is estimated to take at most this long (a stop ends within 2 s)


@torch.no_grad()
def evaluate(model: TinyTransformer, config: LabConfig, length: int, should_stop: Callable[[], bool] | None = None) -> tuple[float | None, np.ndarray, str]:
    """Accuracy on EVAL_BATCH fresh sequences of `length` (data seeded by the config's seed and
    the length). Returns (accuracy or None when the scheme has no code there, accuracy per
    position (T,) with NaN where nothing is scored, a note: why there is no accuracy, or that
    untrained table rows were used). should_stop() is asked before every forward pass (a few
    sequences at a time: at most EVAL_SCORES attention scores per layer, a pass the lab's budget keeps
    short), and when it says stop the result is (None, NaN, NOT_EVALUATED)."""
    inputs, targets = make_batch(config, np.random.default_rng([config.seed, 2, length]), EVAL_BATCH, length)
    chunk = max(1, EVAL_SCORES // (config.n_heads * length**2))  # sequences per forward pass: long ones a few at a time
    model.eval()
    model.halt = should_stop  # asked between layers too
    parts = []
    try:
        for i in range(0, EVAL_BATCH, chunk):
            if should_stop is not None and should_stop():
                return None, np.full(length, np.nan), NOT_EVALUATED
            parts.append(model(torch.from_numpy(inputs[i : i + chunk])).argmax(dim=-1).numpy())  # (chunk, T)
    except Halted:
        return None, np.full(length, np.nan), NOT_EVALUATED
    except ValueError as err:  # a table with no row past its end
        return None, np.full(length, np.nan), str(err)
    finally:
        model.train()
        model.halt = None
    predicted = np.concatenate(parts)  # (B, T)
    scored = targets != IGNORE
    right = (predicted == targets) & scored  # (B, T)
    per_position = np.where(scored.any(axis=0), right.sum(axis=0) / np.maximum(scored.sum(axis=0), 1), np.nan)
    rows = model.positions.rows
    note = f"positions {config.train_len} to {length - 1} use table rows that training never reached" if rows is not None and length > config.train_len else ""
    return float(right.sum() / scored.sum()), per_position, note


def train(config: LabConfig, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None) -> LabResult:
    """Train the config's model (one CPU thread) and evaluate it at every evaluation length; on_step(step, loss,
    tokens_per_s) after each step, should_stop() before each. Deterministic for a seed."""
    torch.set_num_threads(1)  # process-wide: several sessions' runs share the cores fairly
    model = TinyTransformer(config, torch.Generator().manual_seed(config.seed))
    model.halt = should_stop  # a stop is noticed between layers, forward and backward (a step may take a second on a busy server)
    rng = np.random.default_rng([config.seed, 1])  # the training data
    tokens_per_step = config.batch * config.train_len

    def loss() -> torch.Tensor:
        inputs, targets = make_batch(config, rng, config.batch, config.train_len)
        logits = model(torch.from_numpy(inputs))
        return F.cross_entropy(logits.reshape(-1, config.tokens), torch.from_numpy(targets).reshape(-1), ignore_index=IGNORE)

    start = time.perf_counter()
    losses, stopped = fit(model, config, loss, tokens_per_step, on_step, should_stop)
    model.halt = None
    seconds = time.perf_counter() - start
    # Evaluation is stoppable too, between forward passes. A run stopped while training (Stop pressed,
    # the tab closed, the time limit) is evaluated where it stopped only when that is quick; its
    # stop has already been asked for, so a quick evaluation runs to its end, a long one not at all.
    quick = estimate(config).eval_s <= QUICK_EVAL_S
    halt = should_stop if not stopped else None
    halted = stopped and (not quick or not losses)  # stopped before its first step: nothing to evaluate
    accuracy, notes, per_position = {}, {}, np.zeros(0)
    for length in config.eval_lens:  # shortest first
        if halted:
            accuracy[length], positions, note = None, np.full(length, np.nan), NOT_EVALUATED
        else:
            accuracy[length], positions, note = evaluate(model, config, length, halt)
        if note == NOT_EVALUATED:
            stopped = halted = True
        if note:
            notes[length] = note
        if accuracy[length] is not None:
            per_position = positions  # the longest length the scheme runs at
    table = model.positions.table.embedding.weight.detach().double().numpy().copy() if isinstance(model.positions, TrainedTable) else None
    return LabResult(config, np.asarray(losses), accuracy, notes, per_position, table, seconds, len(losses) * tokens_per_step / max(seconds, 1e-9), stopped)


# --- language modelling on real text (core.lab.lm) ---------------------------------------------


def lm_positions(config: LMConfig) -> Callable[[torch.Generator], PositionHooks] | None:
    """The LM task's one departure from the registry: T5's causal buckets with max_distance
    config.t5_max_distance (L/2 by default) instead of T5's 128, so that every bucket is reached by
    training on L characters (see LMConfig). None (the registry's hooks) for every other scheme."""
    if config.scheme != "t5":
        return None
    return lambda g: TrainedBias(T5RelativeBias(config.n_heads, T5_BUCKETS, config.t5_max_distance, bidirectional=False, std=T5_STD, generator=g))


@torch.no_grad()
def perplexity(
    model: TinyTransformer, config: LMConfig, held: np.ndarray, length: int, should_stop: Callable[[], bool] | None = None
) -> tuple[float | None, str]:
    """exp(mean negative log-likelihood) of the first config.eval_chars held-out characters, in
    non-overlapping windows of `length` run whole (core.lab.lm.eval_windows), a few windows per
    forward pass (at most EVAL_SCORES attention scores per layer), should_stop asked between layers too. Returns
    (perplexity, ''), or (None, why): no code at this length (a table's end), or the run was stopped."""
    data = torch.from_numpy(lm.eval_windows(held, length, config.eval_chars))  # (N, length + 1)
    chunk = max(1, EVAL_SCORES // (config.n_heads * length**2))
    total = 0.0
    model.eval()
    model.halt = should_stop
    try:
        for i in range(0, data.shape[0], chunk):
            if should_stop is not None and should_stop():
                return None, NOT_EVALUATED
            x = data[i : i + chunk]
            logits = model(x[:, :-1])  # (n, length, tokens)
            total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1), reduction="sum").item()
    except Halted:
        return None, NOT_EVALUATED
    except ValueError as err:  # a table with no row past its end
        return None, str(err)
    finally:
        model.train()
        model.halt = None
    return math.exp(total / (data.shape[0] * length)), ""


def train_lm(config: LMConfig, on_step: Callable[[int, float, float], None] | None = None, should_stop: Callable[[], bool] | None = None) -> LMResult:
    """Train the config's model on random windows of config.train_len + 1 training characters
    (numpy Generator seeded [seed, 1]; parameters from a torch Generator seeded by the seed; one
    thread: the same seed gives the same numbers), then its perplexity at every evaluation length.
    on_step(step, loss, characters_per_s) after each step; should_stop() before each step and each
    evaluation pass. A stopped run is not evaluated (its perplexities are None)."""
    corpus = lm.load_corpus(config.corpus)
    if len(corpus.train) < config.train_len + 2:
        raise ValueError(f"The training text ({len(corpus.train):,} characters) is shorter than one training window of {config.train_len + 1}.")
    lm.eval_windows(corpus.held, max(config.eval_lens), config.eval_chars)  # refuses a held-out part too short, before training
    torch.set_num_threads(1)
    model = TinyTransformer(config, torch.Generator().manual_seed(config.seed), positions=lm_positions(config))
    rng = np.random.default_rng([config.seed, 1])

    def loss() -> torch.Tensor:
        x = torch.from_numpy(lm.train_batch(corpus.train, rng, config.batch, config.train_len))  # (B, L + 1)
        logits = model(x[:, :-1])  # (B, L, tokens)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))

    start, cpu = time.perf_counter(), time.thread_time()
    losses, stopped = fit(model, config, loss, config.batch * config.train_len, on_step, should_stop)
    seconds = time.perf_counter() - start
    ppl: dict[int, float | None] = {}
    notes: dict[int, str] = {}
    evaluating = time.perf_counter()
    for length in config.eval_lens:
        if stopped:
            ppl[length], note = None, NOT_EVALUATED
        else:
            ppl[length], note = perplexity(model, config, corpus.held, length, should_stop)
            stopped = note == NOT_EVALUATED
        if note:
            notes[length] = note
    rate = len(losses) * config.batch * config.train_len / max(seconds, 1e-9)
    cpu = time.thread_time() - cpu  # this thread's CPU seconds, training and evaluation: what a busy machine does not inflate
    state = None if stopped else {name: value.detach().to(torch.float32).numpy().copy() for name, value in model.state_dict().items()}  # for core.lab.weights
    return LMResult(config, np.asarray(losses), ppl, notes, seconds, time.perf_counter() - evaluating, rate, stopped, cpu, state)


def _warm_up() -> None:
    """What torch loads lazily the first time a process builds an optimiser (AdamW pulls in ~800
    modules) and runs a forward and a backward pass: 15 s on a busy 2-core machine. Done once,
    here, at import (which a run waits for anyway, before it can be stopped), so that a run's
    first step is not held up by it and a stop is noticed as quickly there as anywhere."""
    layer = nn.Sequential(nn.LayerNorm(4), nn.Linear(4, 4), nn.GELU())
    optimizer = torch.optim.AdamW(layer.parameters())
    x = layer(torch.zeros(2, 3, 4))  # (B, T, d)
    F.cross_entropy((x @ x.transpose(-2, -1)).softmax(dim=-1).reshape(-1, 3), torch.zeros(6, dtype=torch.long)).backward()
    optimizer.step()


_warm_up()
