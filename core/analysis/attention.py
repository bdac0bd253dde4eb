r"""Self-attention on word vectors, in numpy, to show what it does and does not see.

$$\text{Attn}(X) = \text{softmax}\!\left(\frac{(XW_Q)(XW_K)^\top}{\sqrt d}\right) XW_V$$

with fixed, seeded random projections standing in for trained ones (or none: Q = K = V = X).
Either way attention is permutation-equivariant, Attn(PX) = P Attn(X): without positions a
sentence and its shuffle give the same outputs in a different order.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from core.schemes.registry import Positions


NO_POSITIONS = Positions()


def as_positions(pe: np.ndarray | Positions | None) -> Positions:
    """An added (T, d) array, a Positions, or None (no positions) as a Positions."""
    if pe is None:
        return NO_POSITIONS
    return pe if isinstance(pe, Positions) else Positions(added=np.asarray(pe, dtype=np.float64))


def tokenize(text: str) -> list[str]:
    """Lower-cased words: runs of letters, digits or apostrophes, in any script."""
    return re.findall(r"[^\W_]+(?:'[^\W_]+)*", text.lower())


def word_vector(word: str, d_model: int) -> np.ndarray:
    """A fixed pseudo-random embedding: seeded by the word's SHA-256, so the same word gives
    the same vector in every session and process; entries N(0, 1/d), norm about 1. Returns (d,)."""
    seed = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).normal(0.0, 1.0 / np.sqrt(d_model), d_model)


def embed(words: list[str], d_model: int) -> np.ndarray:
    """Stack the word vectors. Returns (T, d)."""
    if not words:
        raise ValueError("There are no words to embed: type at least one word.")
    return np.stack([word_vector(w, d_model) for w in words])


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along `axis`; same shape."""
    z = scores - scores.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def random_projections(d_model: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_Q, W_K, W_V with N(0, 1/d) entries from `seed`: untrained but fixed. Returns three (d, d)."""
    rng = np.random.default_rng(seed)
    w_q, w_k, w_v = rng.normal(0.0, 1.0 / np.sqrt(d_model), (3, d_model, d_model))
    return w_q, w_k, w_v


def self_attention(x: np.ndarray, projections: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Scaled dot-product self-attention, one head; Q = K = V = x when `projections` is None.
    Returns (outputs (T, d), weights (T, T))."""
    out, weights = multi_head_attention(x, 1, projections)
    return out, weights[0]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine of the angle between two vectors."""
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def permutation_residual(
    x: np.ndarray, perm: np.ndarray, pe: np.ndarray | None = None, projections: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
) -> float:
    r"""$\max |Attn(x_{perm} + PE)[\text{unshuffled}] - Attn(x + PE)|$: how far attention on the
    shuffled sentence is from the original outputs once they are put back in order.
    Without positions (pe None) this is rounding error (~1e-16): only the order changed."""
    pe = np.zeros_like(x) if pe is None else pe
    out, _ = self_attention(x + pe, projections)
    out_shuffled, _ = self_attention(x[perm] + pe, projections)
    inverse = np.argsort(perm)
    return float(np.abs(out_shuffled[inverse] - out).max())


def pooled_output(x: np.ndarray, pe: np.ndarray | Positions | None = None, projections: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Mean over tokens of the one-head self-attention outputs of x with positions `pe`
    (added array or Positions): a bag-of-words sentence vector when pe is None. Returns (d,)."""
    pos = as_positions(pe)
    out, _ = multi_head_attention(pos.inputs(x), 1, projections, rotate=pos.rotate, bias=pos.bias)
    return out.mean(axis=0)


def sentence_inputs(words: list[str], d_model: int, *, scale: bool = True) -> np.ndarray:
    """Word vectors scaled by sqrt(d_model), as the Transformer paper scales its embeddings,
    so words (norm ~ sqrt(d)) and the sinusoid (norm sqrt(d/2)) are of similar size; unscaled
    (norm ~ 1) when `scale` is False. Returns (T, d)."""
    return embed(words, d_model) * (np.sqrt(d_model) if scale else 1.0)


def same_word_cosine(word: str, d_model: int, positions: np.ndarray, *, scale: bool = True) -> np.ndarray:
    """How alike one word looks at different positions once a code is added: the cosine between
    x + positions[0] and x + positions[k] for each k, x the word's vector (scaled as
    `sentence_inputs`) and `positions` (n, d) the codes added at the positions compared.
    1 for every k when nothing is added. Returns (n,)."""
    x = sentence_inputs([word], d_model, scale=scale)[0]  # (d,)
    v = x[None, :] + np.asarray(positions, dtype=np.float64)  # (n, d)
    return (v @ v[0]) / (np.linalg.norm(v, axis=1) * np.linalg.norm(v[0]))


def shuffle_perm(n: int, seed: int) -> np.ndarray:
    """A seeded permutation of n tokens that moves at least one token when n > 1. Returns (n,)."""
    rng = np.random.default_rng(seed)
    for _ in range(100):
        perm = rng.permutation(n)
        if n < 2 or not np.array_equal(perm, np.arange(n)):
            return perm
    return np.roll(np.arange(n), 1)


def same_words_in_order(words, order) -> np.ndarray:
    """`order` with repeated words taken in their original order (slot k still holds the word words[order[k]]): two copies
    of a word are one token, so which copy stands where is no change a model could see. (n,) int64."""
    unused: dict[str, list[int]] = {}
    for k, word in enumerate(words):
        unused.setdefault(word, []).append(k)
    return np.array([unused[words[k]].pop(0) for k in order], dtype=np.int64)


def check_order(order, n: int) -> np.ndarray:
    """`order` as a permutation of 0 .. n-1 (int64, (n,)), or a ValueError that says what is wrong."""
    arr = np.asarray(order)
    if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer) or not np.array_equal(np.sort(arr), np.arange(n)):
        raise ValueError(f"A word order must name each of the {n} words once.")
    return arr.astype(np.int64)


def reordered_weights(weights_back: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """Weights of the reordered sentence in its own order, from weights put back in the original order
    (`AttentionStudy.weights_*_shuffled`): row and column k are slot k's, the word perm[k]. (H, T, T)."""
    return weights_back[:, perm][:, :, perm]


@dataclass(frozen=True)
class BagOfWords:
    """Mean-pooled self-attention outputs of two sentences with the same words in another order."""

    cosine_plain: float
    cosine_pe: float
    distance_plain: float  # ||a - b|| / ||a||
    distance_pe: float


def bag_of_words(words_a: list[str], words_b: list[str], d_model: int, pe: np.ndarray | Positions) -> BagOfWords:
    """Compare the pooled sentence vectors of two word orders, without and with positions `pe`
    (an added (T, d) array, or a one-head Positions)."""
    if sorted(words_a) != sorted(words_b):
        raise ValueError("The two sentences must use the same words in a different order.")
    proj = random_projections(d_model)
    a, b = sentence_inputs(words_a, d_model), sentence_inputs(words_b, d_model)
    pa, pb = pooled_output(a, None, proj), pooled_output(b, None, proj)
    qa, qb = pooled_output(a, pe, proj), pooled_output(b, pe, proj)
    rel = lambda u, v: float(np.linalg.norm(u - v) / np.linalg.norm(u))  # noqa: E731
    return BagOfWords(cosine(pa, pb), cosine(qa, qb), rel(pa, pb), rel(qa, qb))


# --- multi-head attention (the `attention` page) ----------------------------------------


def _check_heads(width: int, n_heads: int) -> int:
    if int(n_heads) != n_heads or n_heads < 1:
        raise ValueError(f"The number of heads must be a whole number of at least 1, got {n_heads!r}.")
    if width % n_heads:
        raise ValueError(f"A width of {width} does not split into {n_heads} equal heads: pick a head count that divides it.")
    return width // n_heads


def multi_head_attention(
    x: np.ndarray,
    n_heads: int = 1,
    projections: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    *,
    causal: bool = False,
    rotate: Callable[[np.ndarray], np.ndarray] | None = None,
    bias: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Scaled dot-product self-attention with H heads of width d/H, in numpy:
    $\text{softmax}(R(Q_h) R(K_h)^\top / \sqrt{d/H} + B(Q_h) + M)\,V_h$ per head, heads
    concatenated. Q = K = V = x when `projections` is None. `rotate` (R, e.g. RoPE) turns the
    queries and keys (H, T, hd); `bias` (B, e.g. ALiBi) maps the queries to (H, T, T) added to
    the scores. A causal mask M puts -inf above the diagonal (key after query).
    Returns (outputs (T, d), weights (H, T, T))."""
    t, d = x.shape
    hd = _check_heads(d, n_heads)
    q, k, v = (x, x, x) if projections is None else (x @ projections[0], x @ projections[1], x @ projections[2])
    q, k, v = (a.reshape(t, n_heads, hd).transpose(1, 0, 2) for a in (q, k, v))  # (H, T, hd)
    added = 0.0 if bias is None else bias(q)  # (H, T, T), from the unrotated queries
    if rotate is not None:
        q, k = rotate(q), rotate(k)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(hd) + added  # (H, T, T)
    if causal:
        scores = np.where(np.triu(np.ones((t, t), dtype=bool), 1), -np.inf, scores)
    weights = softmax(scores)
    out = (weights @ v).transpose(1, 0, 2).reshape(t, d)  # (T, d)
    return out, weights


def multi_head_attention_torch(
    x: np.ndarray,
    n_heads: int = 1,
    projections: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    *,
    causal: bool = False,
    rotate: Callable[[np.ndarray], np.ndarray] | None = None,
    bias: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The same computation as `multi_head_attention`, in torch (float64, CPU), the way a
    model runs it; numpy in and out so callers and caches stay torch-free (`rotate` and `bias`
    are core's numpy functions, applied to the heads' queries and keys). torch is imported
    here, on first use, not when core is imported. Returns (outputs (T, d), weights (H, T, T))."""
    import torch

    t, d = x.shape
    hd = _check_heads(d, n_heads)
    xt = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64))
    if projections is None:
        q = k = v = xt
    else:
        q, k, v = (xt @ torch.from_numpy(np.ascontiguousarray(w)) for w in projections)
    q, k, v = (a.view(t, n_heads, hd).transpose(0, 1) for a in (q, k, v))  # (H, T, hd)
    added = 0.0 if bias is None else torch.from_numpy(np.ascontiguousarray(bias(q.numpy())))  # (H, T, T)
    if rotate is not None:
        q, k = (torch.from_numpy(np.ascontiguousarray(rotate(a.numpy()))) for a in (q, k))
    scores = q @ k.transpose(1, 2) / hd**0.5 + added  # (H, T, T)
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(t, t, dtype=torch.bool), 1), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = (weights @ v).transpose(0, 1).reshape(t, d)  # (T, d)
    return out.numpy(), weights.numpy()


@dataclass(frozen=True)
class AttentionStudy:
    """Everything the `attention` page shows for one sentence and one setting.

    weights_* are (H, T, T); the *_shuffled ones are put back in the original order.
    residual_*: max |output difference| between the shuffled run, put back, and the original.
    repeat_spread_*: largest difference between attention rows of identical tokens (0 when
    the sentence has no repeated word). word_norm, position_norm: (T,) per token.
    """

    words: list[str]
    perm: np.ndarray
    weights_plain: np.ndarray
    weights_pe: np.ndarray
    weights_plain_shuffled: np.ndarray
    weights_pe_shuffled: np.ndarray
    residual_plain: float
    residual_pe: float
    repeat_spread_plain: float
    repeat_spread_pe: float
    word_norm: np.ndarray
    position_norm: np.ndarray


def _repeat_spread(words: list[str], weights: np.ndarray) -> float:
    """Max over pairs of identical words of max |row_i - row_j| in any head."""
    spread = 0.0
    for word in set(words):
        rows = [i for i, w in enumerate(words) if w == word]
        if len(rows) > 1:
            block = weights[:, rows, :]  # (H, r, T)
            spread = max(spread, float(np.ptp(block, axis=1).max()))
    return spread


def attention_study(
    words: list[str],
    pe: np.ndarray | Positions,
    *,
    n_heads: int = 1,
    project: bool = True,
    causal: bool = False,
    scale_words: bool = True,
    seed: int = 0,
    backend=multi_head_attention_torch,
    width: int | None = None,
    perm: np.ndarray | None = None,
) -> AttentionStudy:
    """Attention on `words` without and with positions (an added (T, d) array, or a Positions
    that may rotate queries and keys or bias the scores), and on the words reordered by `perm`
    (slot k of the reordered sentence holds word perm[k]; a seeded shuffle when None). Positions
    stay where they are: position k is still position k. `d_model` is the width of `pe` when it
    is an array, else of `width`."""
    positions = as_positions(pe)
    d = width if positions.added is None else positions.added.shape[1]
    if d is None:
        raise ValueError("attention_study needs the width when nothing is added to the inputs.")
    x = sentence_inputs(words, d, scale=scale_words)
    proj = random_projections(d) if project else None
    perm = shuffle_perm(len(words), seed) if perm is None else check_order(perm, len(words))
    inverse = np.argsort(perm)
    runs = {}
    for name, pos in (("plain", NO_POSITIONS), ("pe", positions)):
        out, w = backend(pos.inputs(x), n_heads, proj, causal=causal, rotate=pos.rotate, bias=pos.bias)
        out_s, w_s = backend(pos.inputs(x[perm]), n_heads, proj, causal=causal, rotate=pos.rotate, bias=pos.bias)
        runs[name] = (w, w_s[:, inverse][:, :, inverse], float(np.abs(out_s[inverse] - out).max()))
    return AttentionStudy(
        words,
        perm,
        runs["plain"][0],
        runs["pe"][0],
        runs["plain"][1],
        runs["pe"][1],
        runs["plain"][2],
        runs["pe"][2],
        _repeat_spread(words, runs["plain"][0]),
        _repeat_spread(words, runs["pe"][0]),
        np.linalg.norm(x, axis=1),
        np.zeros(len(words)) if positions.added is None else positions.added_norm,
    )


def score_shares(
    words: list[str],
    pe: np.ndarray,
    factors: np.ndarray,
    *,
    project: bool = True,
    scale_words: bool = True,
) -> np.ndarray:
    r"""Where the attention scores come from, as the position part is scaled by f.

    With inputs x + f·p the scores split exactly into four terms,
    $(x + fp)W_QW_K^\top(x + fp)^\top = xAx^\top + f\,(xAp^\top + pAx^\top) + f^2\,pAp^\top$
    with $A = W_QW_K^\top$ (the identity without projections): content with content, the
    cross terms, position with position. Returns (F, 3): each term's Frobenius norm as a
    share of their sum, columns (content, cross, position)."""
    d = pe.shape[1]
    x = sentence_inputs(words, d, scale=scale_words)
    if project:
        w_q, w_k, _ = random_projections(d)
        a = w_q @ w_k.T
    else:
        a = np.eye(d)
    content = np.linalg.norm(x @ a @ x.T)
    cross = np.linalg.norm(x @ a @ pe.T + pe @ a @ x.T)
    position = np.linalg.norm(pe @ a @ pe.T)
    f = np.asarray(factors, dtype=np.float64)
    terms = np.stack([np.full(f.shape, content), f * cross, f**2 * position], axis=1)  # (F, 3)
    return terms / terms.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class AddVersusConcat:
    """Both ways of combining words and positions: does the shuffle change the outputs, what does the
    wider input cost (parameters of the Q, K, V projections), and how much each word overlaps the code
    added to it (|cos|, `word_code_cosines`: what addition could lose, (T,))."""

    residual_add: float
    residual_concat: float
    width_add: int
    width_concat: int
    params_add: int
    params_concat: int
    overlap: np.ndarray = field(compare=False)


def add_versus_concat(words: list[str], pe: np.ndarray, *, seed: int = 0, perm: np.ndarray | None = None) -> AddVersusConcat:
    """Shuffle test for x + pe (width d) and for [x, pe] (width 2d), with seeded projections; the words
    reordered by `perm` (a seeded shuffle when None)."""
    d = pe.shape[1]
    x = sentence_inputs(words, d)
    perm = shuffle_perm(len(words), seed) if perm is None else check_order(perm, len(words))
    added = permutation_residual(x, perm, pe, random_projections(d))
    # [x, PE] with the words shuffled is [x, 0][perm] + [0, PE]: the same test at width 2d
    zeros = np.zeros_like(x)
    concat = permutation_residual(np.concatenate([x, zeros], axis=1), perm, np.concatenate([zeros, pe], axis=1), random_projections(2 * d))  # (T, 2d)
    return AddVersusConcat(added, concat, d, 2 * d, 3 * d * d, 3 * (2 * d) ** 2, word_code_cosines(words, pe))


def word_code_cosines(words: list[str], codes: np.ndarray, *, scale: bool = True) -> np.ndarray:
    """|cos| between each word's input vector (`sentence_inputs`) and the code added at its position: 0 when the two
    are orthogonal, so that adding them loses nothing of either to the other. codes (T, d). Returns (T,)."""
    x = sentence_inputs(words, codes.shape[1], scale=scale)  # (T, d)
    norms = np.linalg.norm(x, axis=1) * np.linalg.norm(codes, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(norms > 0, np.abs((x * codes).sum(axis=1)) / np.where(norms > 0, norms, 1.0), 0.0)
