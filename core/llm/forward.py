r"""The language model's forward pass in torch: a Llama block as Hugging Face's `LlamaForCausalLM` computes it, 30 times
(RMS norm, 9 query heads sharing 3 key/value heads, scores over $\sqrt{64}$, causal mask, tied output head), with the
app's own rotation (`core.schemes.torch.RotaryEmbedding` for a `RopeScaling`), so every scaling kind is the record /rope
and /context explain. Attention is computed a block of queries at a time, so memory grows as T·block, not T²."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import torch
import torch.nn.functional as F

from core.llm.model import Model, Stopped, unpermute
from core.schemes import rope
from core.schemes.torch import RotaryEmbedding

LAYOUTS = {"adjacent": "interleaved", "half": "half"}  # this module's names -> the registry's
SCORE_BYTES = 64 << 20  # a block of attention scores holds at most this much
MAX_ATTENTION_TOKENS = 512  # attention weights are returned for inputs up to this long (30·9·T² floats)


@dataclass(frozen=True)
class Options:
    """How the forward pass places its tokens.

    layout: "adjacent" (the GGUF rows, pairs 2i and 2i+1) or "half" (un-permuted rows, pairs i and i + 32).
    positions: "trained" (token t at position t), "none" (no rotation at all) or "shuffled" (token t
        at position permutation[t]).
    permutation: for "shuffled", a permutation of 0 .. T-1.
    scaling: a core.schemes.rope.RopeScaling (its kind's frequencies and attention factor), or None.
    unrotated: pairs (0 = fastest, frequency 1; 31 = slowest) given frequency 0: they do not turn.
    """

    layout: str = "adjacent"
    positions: str = "trained"
    permutation: tuple[int, ...] | None = None
    scaling: rope.RopeScaling | None = None
    unrotated: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:  # the values come from core.llm.experiments, never from a visitor
        if (self.positions == "shuffled") != (self.permutation is not None):
            raise ValueError("A permutation is given with shuffled positions, and only with them.")
        object.__setattr__(self, "unrotated", tuple(sorted({int(i) for i in self.unrotated})))
        if self.permutation is not None:
            object.__setattr__(self, "permutation", tuple(int(i) for i in self.permutation))


@dataclass(frozen=True, eq=False)
class Pass:
    """What one forward pass gives: the final hidden states (T, d) after the last norm, and every
    layer's attention weights (L, H, T, T) float32 when they were asked for."""

    hidden: torch.Tensor
    attention: np.ndarray | None


@lru_cache(maxsize=1)
def _tensors(model: Model) -> dict[str, torch.Tensor]:
    """The model's weights as torch tensors sharing the numpy arrays' memory (no copy)."""
    return {name: torch.from_numpy(array) for name, array in model.weights.items()}


def _rms(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    # $x / \sqrt{\text{mean}(x^2) + \epsilon} \cdot w$, as Hugging Face's LlamaRMSNorm (float32 throughout here)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotary(model: Model, options: Options) -> RotaryEmbedding | None:
    """The app's RoPE module for these options (None when positions are removed): the scaling
    kind's frequencies for this head, the unrotated pairs given frequency 0."""
    if options.positions == "none":
        return None
    config = model.config
    module = RotaryEmbedding(config.head_dim, config.rope_base, options.scaling, layout=LAYOUTS[options.layout])
    if options.unrotated:
        if module.per_length:
            raise ValueError("Pairs can be left unrotated only under a scaling whose frequencies do not change with the length.")
        module.inv_freq[list(options.unrotated)] = 0.0
    return module


def positions_of(options: Options, length: int) -> np.ndarray:
    """The position each token is rotated by: 0 .. T-1, or the permutation (checked)."""
    if options.permutation is None:
        return np.arange(length, dtype=np.float64)
    perm = np.asarray(options.permutation)
    if perm.size != length or not np.array_equal(np.sort(perm), np.arange(length)):
        raise ValueError(f"The shuffled positions must be a permutation of 0 to {length - 1}.")
    return perm.astype(np.float64)


def _block(length: int, heads: int) -> int:
    """Queries per block of attention scores: the scores (heads x block x T float32) stay within SCORE_BYTES."""
    return int(max(16, min(length, SCORE_BYTES // (4 * heads * max(length, 1)))))


Stop = Callable[[], bool] | None


def _check(should_stop: Stop) -> None:
    if should_stop is not None and should_stop():
        raise Stopped("stopped")


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, keep: bool, should_stop: Stop = None) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Causal grouped-query attention. q (H, T, hd), k and v (KV, T, hd) -> (H, T, hd), and the
    weights (H, T, T) when `keep`."""
    heads, length, hd = q.shape
    kv = k.shape[0]
    group = heads // kv
    qg = q.view(kv, group, length, hd) * hd**-0.5
    out = torch.empty(kv, group, length, hd)
    weights = torch.zeros(kv, group, length, length) if keep else None
    step = length if keep else _block(length, heads)
    for start in range(0, length, step):
        _check(should_stop)
        end = min(start + step, length)
        scores = qg[:, :, start:end] @ k[:, None, :end].transpose(-1, -2)  # (KV, g, block, end)
        future = torch.arange(end)[None, :] > torch.arange(start, end)[:, None]
        scores.masked_fill_(future, float("-inf"))
        p = scores.softmax(-1)
        out[:, :, start:end] = p @ v[:, None, :end]
        if weights is not None:
            weights[:, :, start:end, :end] = p
    return out.view(heads, length, hd), None if weights is None else weights.view(heads, length, length)


QKHook = Callable[[int, torch.Tensor, torch.Tensor], None]


@torch.no_grad()
def run(model: Model, ids, options: Options = Options(), *, attention: bool = False, qk: QKHook | None = None, should_stop: Stop = None) -> Pass:
    """The 30 blocks on token ids (T,) -> Pass. attention=True keeps every layer's weights (T at most
    MAX_ATTENTION_TOKENS); qk(layer, q, k) sees each layer's queries (H, T, hd) and keys (KV, T, hd)
    before they are rotated, in the options' layout. should_stop() is asked before every layer and
    every block of attention scores; True raises core.llm.model.Stopped."""
    torch.set_num_threads(1)
    config, w = model.config, _tensors(model)
    ids = torch.as_tensor(np.asarray(ids, dtype=np.int64))
    length = int(ids.shape[0])
    if ids.ndim != 1 or length < 1:
        raise ValueError("The model needs at least one token.")
    if int(ids.min()) < 0 or int(ids.max()) >= w["token_embd.weight"].shape[0]:
        raise ValueError("A token id is outside the model's vocabulary.")
    if attention and length > MAX_ATTENTION_TOKENS:
        raise ValueError(f"Attention maps are kept for at most {MAX_ATTENTION_TOKENS} tokens; this text has {length}.")
    turn = rotary(model, options)
    pos = positions_of(options, length)
    H, KV, hd, eps = config.n_head, config.n_kv_head, config.head_dim, config.rms_eps
    maps = np.empty((config.n_layer, H, length, length), dtype=np.float32) if attention else None
    x = w["token_embd.weight"][ids]
    for layer in range(config.n_layer):
        _check(should_stop)
        p = f"blk.{layer}."
        wq, wk = w[p + "attn_q.weight"], w[p + "attn_k.weight"]
        if options.layout == "half":
            wq, wk = torch.from_numpy(unpermute(wq.numpy(), H)), torch.from_numpy(unpermute(wk.numpy(), KV))
        h = _rms(x, w[p + "attn_norm.weight"], eps)
        q = (h @ wq.T).view(length, H, hd).transpose(0, 1)
        k = (h @ wk.T).view(length, KV, hd).transpose(0, 1)
        v = (h @ w[p + "attn_v.weight"].T).view(length, KV, hd).transpose(0, 1)
        if qk is not None:
            qk(layer, q, k)
        if turn is not None:
            q, k = turn(q, pos), turn(k, pos)
        a, weights = _attend(q.contiguous(), k.contiguous(), v.contiguous(), attention, should_stop)
        if maps is not None:
            maps[layer] = weights.numpy()
        x = x + a.transpose(0, 1).reshape(length, config.d_model) @ w[p + "attn_output.weight"].T
        h = _rms(x, w[p + "ffn_norm.weight"], eps)
        x = x + (F.silu(h @ w[p + "ffn_gate.weight"].T) * (h @ w[p + "ffn_up.weight"].T)) @ w[p + "ffn_down.weight"].T
    return Pass(_rms(x, w["output_norm.weight"], eps), maps)


def _head(model: Model) -> torch.Tensor:
    return _tensors(model)["token_embd.weight"]  # tied: the file has no output.weight


def logits(model: Model, ids, options: Options = Options(), rows=None, should_stop: Stop = None) -> np.ndarray:
    """Next-token logits at the given rows (all T when None): float32 (len(rows), vocab)."""
    hidden = run(model, ids, options, should_stop=should_stop).hidden
    if rows is not None:
        hidden = hidden[torch.as_tensor(np.asarray(rows, dtype=np.int64))]
    return (hidden @ _head(model).T).numpy()


@torch.no_grad()
def token_nll(model: Model, ids, options: Options = Options(), *, block: int = 512, should_stop: Stop = None) -> np.ndarray:
    """The negative log-likelihood (nats) of every token after the first given those before it:
    float64 (T-1,). The output head is applied a block of rows at a time (no T x vocab array)."""
    hidden = run(model, ids, options, should_stop=should_stop).hidden
    target = torch.as_tensor(np.asarray(ids, dtype=np.int64))[1:]
    head = _head(model)
    out = np.empty(target.shape[0], dtype=np.float64)
    for start in range(0, target.shape[0], block):
        end = min(start + block, target.shape[0])
        out[start:end] = F.cross_entropy(hidden[start:end] @ head.T, target[start:end], reduction="none").double().numpy()
    return out


def attention_and_logits(model: Model, ids, options: Options = Options(), should_stop: Stop = None) -> tuple[np.ndarray, np.ndarray]:
    """Every layer's attention weights (L, H, T, T) float32 and the last position's logits (vocab,) float32."""
    result = run(model, ids, options, attention=True, should_stop=should_stop)
    return result.attention, (result.hidden[-1] @ _head(model).T).numpy()


def pair_norms(model: Model, ids, should_stop: Stop = None) -> tuple[np.ndarray, np.ndarray]:
    r"""The size of each RoPE pair of q and k, per layer and head: the root mean square over the
    tokens of $\sqrt{a^2 + b^2}$ for pair i's two members (a rotation does not change it, so before or
    after the rotation is the same). Pair i is dimensions (2i, 2i+1) of the GGUF rows, which turn with
    frequency base^(-2i/64). Returns (q (L, H, 32), k (L, KV, 32)) float64."""
    config = model.config
    q_out = np.empty((config.n_layer, config.n_head, config.pairs))
    k_out = np.empty((config.n_layer, config.n_kv_head, config.pairs))

    def record(layer: int, q: torch.Tensor, k: torch.Tensor) -> None:
        for x, out in ((q, q_out), (k, k_out)):
            squared = x.double().pow(2)
            pairs = squared[..., 0::2] + squared[..., 1::2]  # (heads, T, 32): |pair|^2 per token
            out[layer] = pairs.mean(1).sqrt().numpy()

    run(model, ids, Options(), qk=record, should_stop=should_stop)
    return q_out, k_out
