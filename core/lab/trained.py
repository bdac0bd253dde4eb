r"""Experiments on trained models (torch): what the lab's Austen models know and do, measured.

The models are the lab's `TinyTransformer` (core.lab.model) with the weights that
`python -m bench.lab_lm` trained and shipped (core.lab.weights), or a model trained here the same
way. Everything below runs them forward (a fine-tune also backward) with the positions
replaced where an experiment says so:

- `RotaryHooks`: RoPE from explicit frequencies, applied by `core.schemes.rope.apply_rope` (the
  registry's own function): a pair given frequency 0 no longer turns (the frequency ablation);
- `scaled_rope`: RoPE through the registry with a `core.schemes.rope.RopeScaling` (linear, NTK,
  YaRN): the code /context explains is the code the experiment runs;
- `hidden_states`: the residual stream before the first block and after every block (the probe);
- `attention_weights`: every layer's attention (the maps, and their entropy);
- `sliding_perplexity`: every character scored with up to `window` characters before it;
- `fine_tune`: a few steps more at a longer length.

Like core.lab.model, one thread and seeded generators: the same inputs give the same numbers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from core.lab import lm, weights
from core.lab.config import EVAL_SCORES
from core.lab.model import NOT_EVALUATED, FixedPositions, Halted, PositionHooks, TinyTransformer, _learning_rate, lm_positions, weights_of
from core.schemes import rope
from core.schemes.registry import SCHEMES

Stop = Callable[[], bool] | None


def build(config, state: dict[str, np.ndarray] | None = None, positions: PositionHooks | None = None) -> TinyTransformer:
    """The config's model (an LMConfig, or any config TinyTransformer takes) with `state`'s
    weights when given (else its seeded initialisation), and `positions` instead of the
    scheme's own hooks when given (they must hold no trained parameters of their own)."""
    torch.set_num_threads(1)
    if positions is not None:
        model = TinyTransformer(config, torch.Generator().manual_seed(config.seed), positions=lambda g: positions)
    else:
        model = TinyTransformer(config, torch.Generator().manual_seed(config.seed), positions=lm_positions(config) if isinstance(config, lm.LMConfig) else None)
    if state is not None:
        own = model.state_dict()
        if set(own) != set(state) or any(tuple(own[k].shape) != tuple(v.shape) for k, v in state.items()):
            raise ValueError("These weights do not fit this model (their names or shapes differ): they were trained with another configuration.")
        model.load_state_dict({k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in state.items()})
    model.eval()
    return model


def shipped(scheme: str, positions: PositionHooks | None = None) -> tuple[lm.LMConfig, TinyTransformer]:
    """The shipped Austen model of `scheme` (data/lab_models), with other positions if given."""
    config, state = weights.read_state(scheme)
    return config, build(config, state, positions)


class RotaryHooks(PositionHooks):
    """RoPE with explicit frequencies `inv_freq` (hd / 2,) and attention factor, in the registry's
    "half" layout, as one (hd x hd) matrix per position (rotating the unit vectors gives it, as
    core.lab.model.FixedPositions does): a frequency of 0 leaves its pair unturned."""

    def __init__(self, inv_freq: np.ndarray, attention_factor: float = 1.0, layout: str = "half") -> None:
        super().__init__()
        self.inv_freq, self.factor, self.layout = np.asarray(inv_freq, dtype=np.float64), float(attention_factor), layout
        self._cache: dict[int, torch.Tensor] = {}

    def matrices(self, length: int) -> torch.Tensor:
        if length not in self._cache:
            hd = 2 * self.inv_freq.size
            units = np.broadcast_to(np.eye(hd)[:, None, :], (hd, length, hd))  # unit vector e_i at every position
            turned = rope.apply_rope(units, np.arange(length), self.inv_freq, layout=self.layout, attention_factor=self.factor)
            self._cache[length] = torch.from_numpy(np.ascontiguousarray(turned.transpose(1, 0, 2), dtype=np.float32))  # (T, hd_in, hd_out)
        return self._cache[length]

    def rotate(self, x: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bhti,tio->bhto", x, self.matrices(x.shape[-2]))


def trained_frequencies(config: lm.LMConfig) -> np.ndarray:
    """The frequencies the RoPE models were trained with: θ_i = base^(-2i/hd), (hd / 2,)."""
    return rope.rope_frequencies(config.d_model // config.n_heads, config.setting.base)[0]


def ablated(config: lm.LMConfig, removed: tuple[int, ...]) -> RotaryHooks:
    """The trained RoPE with the pairs in `removed` given frequency 0 (they carry content, no position)."""
    inv_freq = trained_frequencies(config).copy()
    inv_freq[list(removed)] = 0.0
    return RotaryHooks(inv_freq)


def scaled_rope(config: lm.LMConfig, scaling: rope.RopeScaling | None) -> PositionHooks:
    """The registry's RoPE hooks with `scaling` (None: as trained): the same path as training."""
    return FixedPositions(SCHEMES["rope"], replace(config.setting, scaling=scaling))


def _chunks(n_windows: int, heads: int, length: int) -> int:
    return max(1, min(n_windows, EVAL_SCORES // (heads * length**2)))


@torch.no_grad()
def hidden_states(model: TinyTransformer, windows: np.ndarray, should_stop: Stop = None) -> np.ndarray | None:
    """The residual stream at every layer boundary: index 0 before the first block (token
    embedding plus any added code), index l after block l. windows (N, T) ids.
    Returns float32 (layers + 1, N, T, d), or None when stopped."""
    n, t = windows.shape
    d = model.embed.weight.shape[1]
    out = np.empty((len(model.blocks) + 1, n, t, d), dtype=np.float32)
    step = _chunks(n, model.blocks[0].heads, t)
    for i in range(0, n, step):
        if should_stop is not None and should_stop():
            return None
        tokens = torch.from_numpy(windows[i : i + step])
        x = model.embed(tokens)
        added = model.positions.added(t)
        if added is not None:
            x = x + added
        out[0, i : i + step] = x.numpy()
        for layer, block in enumerate(model.blocks, start=1):
            x = block(x, model.positions)
            out[layer, i : i + step] = x.numpy()
    return out


@torch.no_grad()
def attention_weights(model: TinyTransformer, windows: np.ndarray, should_stop: Stop = None) -> list[np.ndarray] | None:
    """Every layer's attention on `windows` (N, T): a list of float32 (N, H, T, T), or None when stopped."""
    n, t = windows.shape
    step = _chunks(n, model.blocks[0].heads, t)
    kept: list[list[torch.Tensor]] = [[] for _ in model.blocks]
    try:
        for block, store in zip(model.blocks, kept):
            block.keep = store
        for i in range(0, n, step):
            if should_stop is not None and should_stop():
                return None
            model(torch.from_numpy(windows[i : i + step]))
    finally:
        for block in model.blocks:
            block.keep = None
    return [torch.cat(store).numpy() for store in kept]


@torch.no_grad()
def sliding_perplexity(
    model: TinyTransformer, config: lm.LMConfig, held: np.ndarray, window: int, stride: int, should_stop: Stop = None
) -> tuple[float | None, str]:
    """Perplexity of the first config.eval_chars held-out characters, each scored once, with
    `window` characters of input per forward pass moving by `stride` (core.lab.lm's
    sliding_windows: every character but the first window's has at least window - stride
    characters before it). Returns (perplexity, '') or (None, why)."""
    inputs, targets, first = lm.sliding_windows(held, window, stride, config.eval_chars)
    step = _chunks(inputs.shape[0], config.n_heads, window)
    total, count = 0.0, 0
    try:
        for i in range(0, inputs.shape[0], step):
            if should_stop is not None and should_stop():
                return None, NOT_EVALUATED
            logits = model(torch.from_numpy(inputs[i : i + step]))  # (n, window, tokens)
            losses = F.cross_entropy(logits.transpose(1, 2), torch.from_numpy(targets[i : i + step]), reduction="none")  # (n, window)
            keep = torch.from_numpy(np.arange(window)[None, :] >= first[i : i + step, None])  # the scored characters of each window
            total += float(losses[keep].sum())
            count += int(keep.sum())
    except ValueError as err:  # a table with no row past its end
        return None, str(err)
    return math.exp(total / count), ""


@torch.no_grad()
def perplexity(model: TinyTransformer, config: lm.LMConfig, held: np.ndarray, length: int, should_stop: Stop = None) -> tuple[float | None, str]:
    """core.lab.model.perplexity (whole non-overlapping windows of `length`), stoppable between layers."""
    from core.lab.model import perplexity as whole_windows

    model.halt = should_stop
    try:
        return whole_windows(model, config, held, length, should_stop)
    except Halted:
        return None, NOT_EVALUATED
    finally:
        model.halt = None


def fine_tune(
    model: TinyTransformer,
    config: lm.LMConfig,
    length: int,
    steps: int,
    batch: int,
    lr: float,
    seed: int,
    on_step: Callable[[int, float, float], None] | None = None,
    should_stop: Stop = None,
) -> tuple[np.ndarray, bool]:
    """Train `model` (in place) `steps` more steps on random training windows of `length`
    characters, `batch` at a time, at learning rate `lr` with the lab's warm-up and cosine decay
    (data seeded [seed, 3, length]). Returns (losses (steps run,), stopped)."""  # fmt: skip
    torch.set_num_threads(1)
    corpus = lm.load_corpus(config.corpus)
    schedule = replace(config, steps=steps, lr=lr)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.98), weight_decay=0.0)
    rng = np.random.default_rng([seed, 3, length])
    losses: list[float] = []
    model.train()
    model.halt = should_stop
    start, stopped = time.perf_counter(), False
    try:
        for step in range(steps):
            if should_stop is not None and should_stop():
                stopped = True
                break
            x = torch.from_numpy(lm.train_batch(corpus.train, rng, batch, length))  # (B, length + 1)
            logits = model(x[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
            for group in optimizer.param_groups:
                group["lr"] = _learning_rate(schedule, step)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses.append(float(loss.detach()))
            if on_step is not None:
                on_step(step + 1, losses[-1], (step + 1) * batch * length / (time.perf_counter() - start))
    except Halted:
        stopped = True
    finally:
        model.halt = None
        model.eval()
    return np.asarray(losses), stopped


__all__ = [
    "RotaryHooks", "ablated", "attention_weights", "build", "fine_tune", "hidden_states", "perplexity", "scaled_rope",
    "shipped", "sliding_perplexity", "trained_frequencies", "weights_of",
]  # fmt: skip
