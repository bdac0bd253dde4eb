"""Experiments on trained models (torch): the lab's `TinyTransformer` with the shipped Austen weights (core.lab.weights)
or weights trained here, run with positions replaced where an experiment says so (RoPE from explicit frequencies, or
through the registry with a `RopeScaling`), read for hidden states, attention, perplexity, or fine-tuned; one thread and
seeded generators, so the same inputs give the same numbers."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import torch
import torch.nn.functional as F

from core.lab import lm, pairs, weights
from core.lab.config import EVAL_SCORES
from core.lab.experiment import Outcome
from core.lab.model import NOT_EVALUATED, FixedPositions, PositionHooks, TinyTransformer, fit, lm_positions, perplexity
from core.schemes import rope
from core.schemes.registry import SCHEMES

Stop = Callable[[], bool] | None


def build(config, state: dict[str, np.ndarray] | None = None, positions: PositionHooks | None = None) -> TinyTransformer:
    """The config's model (an LMConfig, or any config TinyTransformer takes) with `state`'s
    weights when given (else its seeded initialisation), and `positions` instead of the
    scheme's own hooks when given (they must hold no trained parameters of their own)."""
    torch.set_num_threads(1)
    hooks = (lambda g: positions) if positions is not None else lm_positions(config) if isinstance(config, lm.LMConfig) else None
    model = TinyTransformer(config, torch.Generator().manual_seed(config.seed), positions=hooks)
    if state is not None:
        own = model.state_dict()
        if set(own) != set(state) or any(tuple(own[k].shape) != tuple(v.shape) for k, v in state.items()):
            raise ValueError("These weights do not fit this model (their names or shapes differ): they were trained with another configuration.")
        model.load_state_dict({k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in state.items()})
    model.eval()
    return model


def shipped(scheme: str, positions: PositionHooks | None = None, seed: int = 0) -> tuple[lm.LMConfig, TinyTransformer]:
    """The shipped Austen model of `scheme` and training seed `seed` (core.lab.weights.directory), with other positions if given."""
    config, state = weights.read_state(scheme, weights.directory(seed))
    return config, build(config, state, positions)


class RotaryHooks(PositionHooks):
    """RoPE with explicit frequencies `inv_freq` (hd / 2,) and attention factor, in the registry's
    "half" layout, as one (hd x hd) matrix per position (rotating the unit vectors gives it, as
    core.lab.model.FixedPositions does): a frequency of 0 leaves its pair unturned."""

    def __init__(self, inv_freq: np.ndarray, attention_factor: float = 1.0, layout: str = "half", zeroed: tuple[int, ...] = ()) -> None:
        super().__init__()
        self.inv_freq, self.factor, self.layout = np.asarray(inv_freq, dtype=np.float64), float(attention_factor), layout
        self.zeroed = tuple(zeroed)
        self._cache: dict[int, torch.Tensor] = {}

    def matrices(self, length: int) -> torch.Tensor:
        if length not in self._cache:
            hd = 2 * self.inv_freq.size
            units = np.broadcast_to(np.eye(hd)[:, None, :], (hd, length, hd))  # unit vector e_i at every position
            turned = rope.apply_rope(units, np.arange(length), self.inv_freq, layout=self.layout, attention_factor=self.factor)
            if self.zeroed:  # the pairs' query and key dimensions set to 0 after turning: their share of every score is gone
                turned[..., pairs.pair_dimensions(self.zeroed, self.inv_freq.size, self.layout)] = 0.0
            self._cache[length] = torch.from_numpy(np.ascontiguousarray(turned.transpose(1, 0, 2), dtype=np.float32))  # (T, hd_in, hd_out)
        return self._cache[length]

    def rotate(self, x: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bhti,tio->bhto", x, self.matrices(x.shape[-2]))


def ablated(config: lm.LMConfig, removed: tuple[int, ...], zeroed: tuple[int, ...] = ()) -> RotaryHooks:
    """The trained RoPE with the pairs in `removed` given frequency 0 (they carry content, no position) and the pairs in
    `zeroed` with their query and key dimensions set to 0 (they carry neither)."""
    return RotaryHooks(pairs.ablated_frequencies(pairs.frequencies(config), removed), layout=config.setting.layout, zeroed=zeroed)


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
    sliding_windows: every character but the first window's has window - stride + 1 to window
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
    rng = np.random.default_rng([seed, 3, length])

    def loss() -> torch.Tensor:
        x = torch.from_numpy(lm.train_batch(corpus.train, rng, batch, length))  # (B, length + 1)
        logits = model(x[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))

    model.train()
    model.halt = should_stop
    try:
        losses, stopped = fit(model, replace(config, steps=steps, lr=lr), loss, batch * length, on_step, should_stop)
    finally:
        model.halt = None
        model.eval()
    return np.asarray(losses), stopped


# --- the experiments: one run each, named by its record in core.lab.registry -------------------


def _entropy_sum(weights: torch.Tensor) -> tuple[float, int]:
    """Σ over rows of −Σ_j a_ij ln a_ij, and the number of rows, of attention weights (..., T, T)."""
    rows = -torch.xlogy(weights, weights).sum(dim=-1)  # (..., T); 0 ln 0 = 0
    return float(rows.sum()), int(rows.numel())


def perplexity_and_entropy(
    model: TinyTransformer, config: lm.LMConfig, held: np.ndarray, length: int, should_stop: Stop = None
) -> tuple[float | None, float | None]:
    """`perplexity` on whole windows of `length` and the mean attention entropy (nats) over every query, head and layer
    of the same windows."""
    total = [0.0, 0]  # entropy summed over rows, rows

    def reduce(weights: torch.Tensor) -> None:  # each layer's weights reduced as they come: none is held
        s, n = _entropy_sum(weights)
        total[0] += s
        total[1] += n

    try:
        for block in model.blocks:
            block.keep = reduce
        ppl, _ = perplexity(model, config, held, length, should_stop)
    finally:
        for block in model.blocks:
            block.keep = None
    return (None, None) if ppl is None else (ppl, total[0] / total[1])


def _outcome(config, values: dict, losses: np.ndarray, stopped: bool, start: float, cpu: float, chars: int = 0) -> Outcome:
    seconds = time.perf_counter() - start
    return Outcome(config, values, losses, stopped, seconds, time.thread_time() - cpu, chars / max(seconds, 1e-9))


def run_probe(config, on_step=None, should_stop: Stop = None):
    """Probe a model (core.lab.probe.ProbeConfig): the shipped one, or one trained first like the
    real-text lab's (core.lab.model.train_lm). Values: R² and mean absolute error per layer,
    perplexity by length (trained models), attention maps (layers, H, L, L) averaged over the
    first probe.MAP_WINDOWS windows and their mean entropy per layer."""
    from core.lab import probe
    from core.lab.model import train_lm

    start, cpu = time.perf_counter(), time.thread_time()
    lm_config = config.lm_config
    values: dict = {}
    losses = np.zeros(0)
    if config.shipped:
        lm_config, state = weights.read_state(config.scheme, weights.directory(config.seed))
    else:
        result = train_lm(lm_config, on_step=on_step, should_stop=should_stop)
        losses = result.losses
        if result.stopped:
            return _outcome(config, values, losses, True, start, cpu)
        state = result.state
        values["perplexity"] = {str(n): v for n, v in result.perplexity.items()}
    model = build(lm_config, state)
    windows = lm.eval_windows(lm.load_corpus(lm_config.corpus).held, lm_config.train_len, lm_config.eval_chars)[: probe.PROBE_WINDOWS, :-1]  # (N, L)
    hidden = hidden_states(model, windows, should_stop)
    maps = attention_weights(model, windows[: probe.MAP_WINDOWS], should_stop) if hidden is not None else None
    if hidden is None or maps is None:
        return _outcome(config, values, losses, True, start, cpu)
    values["r2"], values["mae"] = probe.probe_layers(hidden)
    values["attention"] = np.stack([m.mean(axis=0) for m in maps])  # (layers, H, L, L)
    values["entropy"] = [probe.mean_entropy(m) for m in maps]
    if on_step is not None and config.shipped:
        on_step(1, math.nan, windows.size / max(time.perf_counter() - start, 1e-9))
    return _outcome(config, values, losses, False, start, cpu, windows.size)


def _evaluate_each(config, model, lm_config, lengths, on_step, should_stop, done: int = 0, entropy: bool = False):
    """Perplexity (and entropy) at every length, on_step after each; (values, stopped)."""
    held = lm.load_corpus(lm_config.corpus).held
    ppl, ent = {}, {}
    start = time.perf_counter()
    for i, n in enumerate(lengths):
        if entropy:
            p, e = perplexity_and_entropy(model, lm_config, held, n, should_stop)
            ent[str(n)] = e
        else:
            p, note = perplexity(model, lm_config, held, n, should_stop)
        if p is None:
            return {"perplexity": ppl, "entropy": ent}, True
        ppl[str(n)] = p
        if on_step is not None:
            on_step(done + i + 1, math.nan, (i + 1) * lm_config.eval_chars / max(time.perf_counter() - start, 1e-9))
    return ({"perplexity": ppl, "entropy": ent} if entropy else {"perplexity": ppl}), False


def run_pairs(config, on_step=None, should_stop: Stop = None):
    """The shipped RoPE model of config.seed with config.removed pairs at frequency 0 and config.zeroed pairs' query and key
    dimensions at 0 (core.lab.pairs): perplexity by length."""
    start, cpu = time.perf_counter(), time.thread_time()
    lm_config, state = weights.read_state("rope", weights.directory(config.seed))
    model = build(lm_config, state, ablated(lm_config, config.removed, config.zeroed))
    values, stopped = _evaluate_each(config, model, lm_config, config.lengths, on_step, should_stop)
    return _outcome(config, values, np.zeros(0), stopped, start, cpu, lm_config.eval_chars * len(values["perplexity"]))


def run_extend(config, on_step=None, should_stop: Stop = None):
    """The shipped RoPE model of training seed config.seed with config's RopeScaling (core.lab.extend), fine-tuned first
    when asked (its data seeded by config.seed too): perplexity and attention entropy by length, the fine-tune's losses."""
    start, cpu = time.perf_counter(), time.thread_time()
    lm_config, state = weights.read_state("rope", weights.directory(config.seed))
    model = build(lm_config, state, scaled_rope(lm_config, config.rope_scaling))
    losses = np.zeros(0)
    if config.fine_tune:
        from core.lab import extend

        losses, stopped = fine_tune(
            model, lm_config, config.tune_len, config.fine_tune, config.tune_batch, extend.FINE_TUNE_LR, config.seed, on_step, should_stop
        )
        if stopped:
            return _outcome(config, {}, losses, True, start, cpu)
    values, stopped = _evaluate_each(config, model, lm_config, config.lengths, on_step, should_stop, done=config.fine_tune, entropy=True)
    return _outcome(config, values, losses, stopped, start, cpu, lm_config.eval_chars * len(values["perplexity"]))


def run_sliding(config, on_step=None, should_stop: Stop = None):
    """A shipped model's sliding-window perplexity (core.lab.sliding), the model of training seed config.seed."""
    start, cpu = time.perf_counter(), time.thread_time()
    lm_config, model = shipped(config.scheme, seed=config.seed)
    ppl, note = sliding_perplexity(model, lm_config, lm.load_corpus(lm_config.corpus).held, config.window, config.stride, should_stop)
    stopped = note == NOT_EVALUATED
    if on_step is not None and not stopped:
        on_step(1, math.nan, lm_config.eval_chars / max(time.perf_counter() - start, 1e-9))
    return _outcome(config, {"perplexity": ppl, "note": note}, np.zeros(0), stopped, start, cpu, lm_config.eval_chars)


def run_passkey(config, on_step=None, should_stop: Stop = None):
    """Train the config's model on the passkey task (core.lab.passkey), then its accuracy on its `questions` at every
    distance; None where the scheme has no code (a learned table past its rows)."""
    from core.lab import passkey

    torch.set_num_threads(1)
    start, cpu = time.perf_counter(), time.thread_time()
    model = TinyTransformer(config, torch.Generator().manual_seed(config.seed), positions=lm_positions(config))
    rng = np.random.default_rng([config.seed, 1])

    def loss() -> torch.Tensor:
        x, y, _ = passkey.batch(config.alphabet, rng, config.batch, config.train_len)
        return F.cross_entropy(model(torch.from_numpy(x))[:, -1], torch.from_numpy(y[:, -1]))

    model.halt = should_stop
    losses, stopped = fit(model, config, loss, config.batch * config.train_len, on_step, should_stop)
    model.halt = None
    if stopped:
        return _outcome(config, {}, np.asarray(losses), True, start, cpu)
    model.eval()
    accuracy, notes = {}, {}
    with torch.no_grad():
        for d in config.distances:
            if should_stop is not None and should_stop():
                return _outcome(config, {}, np.asarray(losses), True, start, cpu)
            x, y = passkey.questions(config, d)
            step = _chunks(config.eval_count, config.n_heads, x.shape[1])
            try:
                right = sum(
                    int((model(torch.from_numpy(x[i : i + step]))[:, -1].argmax(-1).numpy() == y[i : i + step, -1]).sum()) for i in range(0, len(x), step)
                )
            except ValueError as err:  # a learned table has no row there
                accuracy[str(d)], notes[str(d)] = None, str(err)
                continue
            accuracy[str(d)] = right / config.eval_count
    return _outcome(config, {"accuracy": accuracy, "notes": notes}, np.asarray(losses), False, start, cpu, config.steps * config.batch * config.train_len)

