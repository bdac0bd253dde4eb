"""The experiments the language-model page runs, torch-free at import (core.llm.forward, which imports torch, is imported
when one runs), each with a CPU estimate: attention on a text (as trained, rotation removed, positions shuffled; the first
token's share is the "attention sink" of Xiao et al. 2023), perplexity under a RoPE scaling, the passkey of Mohtashami &
Jaggi 2023, the size of each RoPE pair (Barbero et al. 2024) and pair ablation, and the two weight layouts."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from core.lab import lm
from core.llm import model as llm_model
from core.schemes import rope

Stop = Callable[[], bool] | None  # asked often while a run computes; True stops it with core.llm.model.Stopped

MODES = {"trained": "positions as trained", "none": "rotation removed", "shuffled": "positions shuffled"}
PRESETS = {
    "dog bites man": "The dog bites the man. Who was bitten? The",
    "man bites dog": "The man bites the dog. Who was bitten? The",
    "repeated word": "The cat sat. The cat sat. The cat sat. The cat",
}
MAX_ATTENTION_TOKENS = 128  # attention maps: 30 x 9 x T x T floats (T = 128: 18 MB)
MAX_TOKENS = 16_384  # the longest input any experiment runs (twice the trained context)
LIVE_CPU_S = 30.0  # a live run on the page may cost this much (a 2,048-token perplexity fits)
SHUFFLE_SEED = 0

# CPU seconds of one forward pass of T tokens on this project's machines, a·T + b·T², fitted to
# `python -m bench.llm --measure` (one thread): 64 tokens about 0.2 s, 2,048 about 10 s, 4,096 about 29 s.
COST_PER_TOKEN = 2.9e-3
COST_PER_TOKEN_PAIR = 1.04e-6


def estimate_cpu_seconds(tokens: int, passes: int = 1) -> float:
    """The CPU seconds `passes` forward passes of `tokens` tokens are expected to cost (one thread)."""
    return passes * (COST_PER_TOKEN * tokens + COST_PER_TOKEN_PAIR * tokens * tokens)


def _forward():
    from core.llm import forward

    return forward


SCALINGS = ("none", "linear", "ntk", "dynamic", "yarn", "yarn-no-temperature", "llama3")  # what the page and the bench offer
NO_TEMPERATURE = "yarn-no-temperature"  # YaRN with its attention factor set to 1


def scaling(kind: str, factor: float, *, temperature: bool = True, original_max_len: int | None = None) -> rope.RopeScaling | None:
    """The app's RopeScaling for a kind (one of SCALINGS or of the registry's kinds; "none" gives None) at
    `factor`, against the model's trained context (8,192, from the file's metadata, when original_max_len
    is None). "yarn-no-temperature", or temperature=False, sets YaRN's attention factor to 1 (its
    temperature off). ValueError with a sentence for a bad kind or factor."""
    if kind == "none":
        return None
    if kind == NO_TEMPERATURE:
        kind, temperature = "yarn", False
    if kind not in rope.SCALING_KINDS:
        raise ValueError(f"The scaling must be one of {', '.join(SCALINGS)}.")
    if not isinstance(factor, (int, float)) or not math.isfinite(factor) or factor < 1 or factor > 1e6:
        raise ValueError(f"The scaling factor must be a number from 1 to 1,000,000; {factor!r:.20} is not.")
    original = original_max_len or llm_model.load().config.context_length
    extra = {} if temperature or kind != "yarn" else {"attention_factor": 1.0}
    return rope.RopeScaling(kind, float(factor), original, **extra)


# ----------------------------------------------------------------------------------------------
# 1. Attention on a text


@dataclass(frozen=True, eq=False)
class AttentionResult:
    """tokens: the text's tokens as text; weights (30, 9, T, T) float32, row i the attention of token i;
    top5: the five likeliest next tokens and their probabilities; mean_distance (30, 9): per head the
    mean over queries of sum_j a_ij (i - j), in tokens; first_token (30, 9): per head the mean over
    queries 1 .. T-1 of a_i0 (query 0 can only attend to itself); positions: the position each token
    was rotated by (None with the rotation removed); cpu_seconds: this run's CPU time."""

    text: str
    mode: str
    tokens: tuple[str, ...]
    weights: np.ndarray
    top5: tuple[tuple[str, float], ...]
    mean_distance: np.ndarray
    first_token: np.ndarray
    positions: tuple[int, ...] | None
    cpu_seconds: float


def shuffled_positions(length: int, seed: int = SHUFFLE_SEED) -> tuple[int, ...]:
    """A fixed permutation of 0 .. length-1 (the same for the same length and seed), never the identity when length > 1."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(length)
    if length > 1 and np.array_equal(perm, np.arange(length)):
        perm = np.roll(perm, 1)
    return tuple(int(p) for p in perm)


def head_summary(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean attention distance, attention to the first token), each (..., heads) from weights (..., T, T)."""
    length = weights.shape[-1]
    offset = np.arange(length)[:, None] - np.arange(length)[None, :]  # i - j
    distance = (weights * offset).sum(-1).mean(-1)
    first = weights[..., 1:, 0].mean(-1) if length > 1 else np.full(weights.shape[:-2], np.nan)
    return distance.astype(np.float64), first.astype(np.float64)


def top_tokens(logits: np.ndarray, pieces, k: int = 5) -> tuple[tuple[str, float], ...]:
    """The k likeliest next tokens (their text) with their softmax probabilities, likeliest first."""
    z = logits.astype(np.float64) - logits.max()
    p = np.exp(z) / np.exp(z).sum()
    best = np.argsort(-p, kind="stable")[:k]
    return tuple((pieces[i], float(p[i])) for i in best)


def tokenize(text: str, limit: int) -> np.ndarray:
    """The text's ids, or ValueError with a sentence when it is empty or longer than `limit` tokens."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("Type a sentence first: the text is empty.")
    ids = llm_model.load().tokenizer.encode(text)
    if len(ids) > limit:
        raise ValueError(f"The text is {len(ids):,} tokens long; attention maps are drawn for at most {limit:,}.")
    if len(ids) < 2:
        raise ValueError("The text needs at least two tokens for attention between them.")
    return ids


def attention(text: str, mode: str = "trained", should_stop: Stop = None) -> AttentionResult:
    """Every layer's and head's attention on `text` (2 to MAX_ATTENTION_TOKENS tokens) with positions
    as `mode` says (a key of MODES). ValueError with a sentence for bad input or a missing model."""
    if mode not in MODES:
        raise ValueError(f"The mode must be one of {', '.join(MODES)}.")
    m = llm_model.load()
    ids = tokenize(text, MAX_ATTENTION_TOKENS)
    forward = _forward()
    perm = shuffled_positions(len(ids)) if mode == "shuffled" else None
    start = time.thread_time()
    weights, last = forward.attention_and_logits(m, ids, forward.Options(positions=mode, permutation=perm), should_stop)
    distance, first = head_summary(weights)
    positions = None if mode == "none" else (perm or tuple(range(len(ids))))
    pieces = tuple(m.tokenizer.pieces[i] for i in ids)
    return AttentionResult(text, mode, pieces, weights, top_tokens(last, m.tokenizer.pieces), distance, first, positions, time.thread_time() - start)


# ----------------------------------------------------------------------------------------------
# 2. Perplexity on the shipped text


def held_out_text() -> str:
    """The held-out tenth of the shipped Austen corpus (the lab's split, core.lab.lm)."""
    return lm.split(lm.read_text(lm.CORPUS_PATH))[1]


_IDS: dict[str, np.ndarray] = {}


def held_out_ids(tokens: int) -> np.ndarray:
    """The first `tokens` token ids of the held-out text (2 to MAX_TOKENS: core.llm.registry's configs check it)."""
    if "held" not in _IDS:
        _IDS["held"] = llm_model.load().tokenizer.encode(held_out_text()[:120_000])
    ids = _IDS["held"]
    if tokens > ids.size:
        raise ValueError(f"The held-out text has {ids.size:,} tokens; {tokens:,} were asked for.")
    return ids[:tokens]


def position_bins(length: int) -> np.ndarray:
    """Edges of the position bins perplexity is reported in: 0, 64, 128, 256, ... doubling up to `length`."""
    edges = [0, 64]
    while edges[-1] < length - 1:
        edges.append(min(edges[-1] * 2, length - 1))
    return np.asarray(edges)


@dataclass(frozen=True, eq=False)
class PerplexityResult:
    """length: tokens read; label: the scaling as a short text; nll (length - 1,): the loss of token t + 1
    given tokens 0 .. t, nats; perplexity: exp of its mean; bins: edges over the predicted position
    (1 .. length-1) and by_bin their perplexities."""

    length: int
    label: str
    nll: np.ndarray
    perplexity: float
    bins: np.ndarray
    by_bin: np.ndarray
    cpu_seconds: float


def label(scaling_record: rope.RopeScaling | None) -> str:
    """A short name for a scaling ("none", "yarn ×2", "yarn ×2, no temperature")."""
    if scaling_record is None:
        return "none"
    text = f"{scaling_record.kind} ×{scaling_record.factor:g}"
    if scaling_record.kind == "yarn" and scaling_record.attention_factor == 1.0:
        text += ", no temperature"
    return text


def summarise(nll: np.ndarray, length: int, name: str, cpu: float) -> PerplexityResult:
    edges = position_bins(length)
    predicted = np.arange(1, length)  # the position of the token each loss scores
    by_bin = np.array([math.exp(nll[(predicted > lo) & (predicted <= hi)].mean()) for lo, hi in zip(edges[:-1], edges[1:])])
    return PerplexityResult(length, name, nll, float(math.exp(nll.mean())), edges, by_bin, cpu)


def perplexity(
    length: int, scaling_record: rope.RopeScaling | None = None, *, unrotated: tuple[int, ...] = (), should_stop: Stop = None
) -> PerplexityResult:
    """Per-token loss of the first `length` held-out tokens read in one pass with `scaling_record`
    (None: as trained) and the pairs in `unrotated` left unturned."""
    m = llm_model.load()
    ids = held_out_ids(length)
    forward = _forward()
    start = time.thread_time()
    nll = forward.token_nll(m, ids, forward.Options(scaling=scaling_record, unrotated=unrotated), should_stop=should_stop)
    return summarise(nll, length, label(scaling_record), time.thread_time() - start)


# ----------------------------------------------------------------------------------------------
# 3. Passkey retrieval

PASSKEY_INTRO = (
    "There is an important info hidden inside a lot of irrelevant text. Find it and memorize it. I will quiz you about the important information there."
)
PASSKEY_FILLER = " The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
PASSKEY_NEEDLE = " The pass key is {key}. Remember it. {key} is the pass key."
PASSKEY_QUESTION = " What is the pass key? The pass key is"


@dataclass(frozen=True, eq=False)
class PasskeyResult:
    """length: tokens in the prompt with the answer; depth: where the key sits (0 start, 1 end of the
    filler); key; correct: at each of the key's digits the model's likeliest next token is that digit,
    the text before it given (the prompt, the space after "is" and the digits before: greedy decoding
    of the key once the space is written); probability: of the key's digits together; answer: the
    digit it predicted at each."""

    length: int
    depth: float
    key: str
    correct: bool
    probability: float
    answer: str
    cpu_seconds: float


def passkey_prompt(length: int, depth: float, key: str) -> tuple[str, np.ndarray, int]:
    """The prompt of about `length` tokens (filler repeated around the needle) with the answer " key"
    appended: (prompt text, ids of prompt + answer, number of the key's tokens: one per digit, the
    tokenizer splitting every digit on its own, so the space before the key is a token of its own)."""
    tok = llm_model.load().tokenizer
    fixed = len(tok.encode(PASSKEY_INTRO + PASSKEY_NEEDLE.format(key=key) + PASSKEY_QUESTION + " " + key))
    per = len(tok.encode(PASSKEY_FILLER))
    repeats = max(1, (length - fixed) // per)
    before = round(depth * repeats)
    prompt = PASSKEY_INTRO + PASSKEY_FILLER * before + PASSKEY_NEEDLE.format(key=key) + PASSKEY_FILLER * (repeats - before) + PASSKEY_QUESTION
    ids = tok.encode(prompt + " " + key)
    if tok.decode(ids[-len(key) :]) != key:
        raise ValueError("The tokenizer does not give each digit of the key a token of its own: the passkey cannot be scored digit by digit.")
    return prompt, ids, len(key)


def passkey(length: int, depth: float, scaling_record: rope.RopeScaling | None = None, seed: int = 0, should_stop: Stop = None) -> PasskeyResult:
    """One passkey trial: a seeded five-digit key hidden at `depth` in a prompt of about `length`
    tokens (64 to MAX_TOKENS, depth 0 to 1: core.llm.registry.Passkey checks them), read with `scaling_record`."""
    m = llm_model.load()
    key = str(np.random.default_rng(seed).integers(10_000, 100_000))
    _, ids, n_answer = passkey_prompt(length, depth, key)
    forward = _forward()
    start = time.thread_time()
    rows = np.arange(len(ids) - n_answer - 1, len(ids) - 1)
    logits = forward.logits(m, ids, forward.Options(scaling=scaling_record), rows=rows, should_stop=should_stop).astype(np.float64)
    target = ids[-n_answer:]
    logp = logits - logits.max(-1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(-1, keepdims=True))
    predicted = logits.argmax(-1)
    probability = float(np.exp(logp[np.arange(n_answer), target].sum()))
    correct = bool(np.array_equal(predicted, target))
    answer = "".join(m.tokenizer.pieces[i] for i in predicted)
    return PasskeyResult(len(ids), float(depth), key, correct, probability, answer, time.thread_time() - start)


# ----------------------------------------------------------------------------------------------
# 4. Which frequencies the model uses


@dataclass(frozen=True, eq=False)
class PairSizes:
    """q (30, 9, 32) and k (30, 3, 32): per layer and head, the RMS size of each RoPE pair over the
    text's tokens; frequency (32,) radians per token and wavelength (32,) tokens of each pair, fastest first."""

    tokens: int
    q: np.ndarray
    k: np.ndarray
    frequency: np.ndarray
    wavelength: np.ndarray
    cpu_seconds: float


def frequencies() -> np.ndarray:
    """The model's 32 RoPE frequencies, fastest first (the registry's rule with the file's base)."""
    config = llm_model.load().config
    return rope.rope_frequencies(config.head_dim, config.rope_base)[0]


def pair_sizes(tokens: int = 1024, should_stop: Stop = None) -> PairSizes:
    """The size of q and k in each pair, over the first `tokens` held-out tokens."""
    m = llm_model.load()
    ids = held_out_ids(tokens)
    forward = _forward()
    start = time.thread_time()
    q, k = forward.pair_norms(m, ids, should_stop)
    freq = frequencies()
    return PairSizes(tokens, q, k, freq, rope.rope_wavelengths(freq), time.thread_time() - start)


def ablated_pairs(which: str, count: int) -> tuple[int, ...]:
    """The `count` fastest (pairs 0, 1, ...) or slowest (31, 30, ...) pairs."""
    pairs = llm_model.load().config.pairs
    if which not in ("fastest", "slowest") or not 0 <= count <= pairs:
        raise ValueError(f"Choose the fastest or the slowest pairs, 0 to {pairs} of them.")
    return tuple(range(count)) if which == "fastest" else tuple(range(pairs - count, pairs))


def pair_ablation(length: int, which: str, count: int, should_stop: Stop = None) -> PerplexityResult:
    """Perplexity of `length` held-out tokens with the `count` fastest or slowest pairs unrotated."""
    return replace(perplexity(length, None, unrotated=ablated_pairs(which, count), should_stop=should_stop), label=f"{count} {which} unrotated")


# ----------------------------------------------------------------------------------------------
# 5. One model, two layouts


@dataclass(frozen=True, eq=False)
class LayoutsResult:
    """permutation (64,): row r of a head in the half layout is row permutation[r] of the GGUF head;
    rows_match: the un-permuted q and k weights of every layer are the GGUF rows in that order;
    max_relative_difference: max |logit difference| / max |logit| between the two layouts over the text;
    top5 in each layout."""

    tokens: int
    permutation: np.ndarray
    rows_match: bool
    max_relative_difference: float
    top5_adjacent: tuple[tuple[str, float], ...]
    top5_half: tuple[tuple[str, float], ...]
    cpu_seconds: float


def layouts(text: str, should_stop: Stop = None) -> LayoutsResult:
    """The same text through the GGUF layout and the un-permuted (Hugging Face) layout."""
    m = llm_model.load()
    ids = tokenize(text, MAX_ATTENTION_TOKENS)
    config = m.config
    perm = rope.layout_permutation(config.head_dim)
    rows_match = True
    for layer in range(config.n_layer):
        for name, heads in (("attn_q", config.n_head), ("attn_k", config.n_kv_head)):
            w = m.weights[f"blk.{layer}.{name}.weight"]
            by_head = w.reshape(heads, config.head_dim, -1)[:, perm].reshape(w.shape)
            rows_match &= bool(np.array_equal(llm_model.unpermute(w, heads), by_head))
    forward = _forward()
    start = time.thread_time()
    adjacent = forward.logits(m, ids, forward.Options(layout="adjacent"), should_stop=should_stop)
    half = forward.logits(m, ids, forward.Options(layout="half"), should_stop=should_stop)
    difference = float(np.abs(adjacent - half).max() / np.abs(adjacent).max())
    pieces = m.tokenizer.pieces
    return LayoutsResult(len(ids), perm, rows_match, difference, top_tokens(adjacent[-1], pieces), top_tokens(half[-1], pieces), time.thread_time() - start)
