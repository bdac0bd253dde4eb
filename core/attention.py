r"""Self-attention on word vectors, in numpy, to show what it does and does not see.

$$\text{Attn}(X) = \text{softmax}\!\left(\frac{(XW_Q)(XW_K)^\top}{\sqrt d}\right) XW_V$$

with fixed, seeded random projections standing in for trained ones (or none: Q = K = V = X).
Either way attention is permutation-equivariant, Attn(PX) = P Attn(X): without positions a
sentence and its shuffle give the same outputs in a different order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
import re

import numpy as np


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
    q, k, v = (x, x, x) if projections is None else (x @ projections[0], x @ projections[1], x @ projections[2])
    weights = softmax(q @ k.T / np.sqrt(x.shape[1]))  # (T, T)
    return weights @ v, weights


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine of the angle between two vectors."""
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def permutation_residual(x: np.ndarray, perm: np.ndarray, pe: np.ndarray | None = None, projections: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> float:
    r"""$\max |Attn(x_{perm} + PE)[\text{unshuffled}] - Attn(x + PE)|$: how far attention on the
    shuffled sentence is from the original outputs once they are put back in order.
    Without positions (pe None) this is rounding error (~1e-16): only the order changed."""
    pe = np.zeros_like(x) if pe is None else pe
    out, _ = self_attention(x + pe, projections)
    out_shuffled, _ = self_attention(x[perm] + pe, projections)
    inverse = np.argsort(perm)
    return float(np.abs(out_shuffled[inverse] - out).max())


def pooled_output(x: np.ndarray, pe: np.ndarray | None = None, projections: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Mean over tokens of the self-attention outputs of x (+ pe): a bag-of-words sentence
    vector when pe is None. Returns (d,)."""
    out, _ = self_attention(x if pe is None else x + pe, projections)
    return out.mean(axis=0)


def sentence_inputs(words: list[str], d_model: int) -> np.ndarray:
    """Word vectors scaled by sqrt(d_model), as the Transformer paper scales its embeddings,
    so words (norm ~ sqrt(d)) and the sinusoid (norm sqrt(d/2)) are of similar size. Returns (T, d)."""
    return embed(words, d_model) * np.sqrt(d_model)


@dataclass(frozen=True)
class ShuffleDemo:
    """Attention on a sentence and on a shuffle of it, without and with the sinusoid added.

    weights_* are (T, T) attention matrices in the original token order: the shuffled run's
    rows and columns are put back (un-permuted) so the two can be compared cell by cell.
    residual_* are max |output difference| after un-permuting.
    """

    words: list[str]
    perm: np.ndarray  # (T,) shuffled position k holds original token perm[k]
    weights_plain: np.ndarray
    weights_plain_shuffled: np.ndarray
    weights_pe: np.ndarray
    weights_pe_shuffled: np.ndarray
    residual_plain: float
    residual_pe: float


def shuffle_perm(n: int, seed: int) -> np.ndarray:
    """A seeded permutation of n tokens that moves at least one token when n > 1. Returns (n,)."""
    rng = np.random.default_rng(seed)
    for _ in range(100):
        perm = rng.permutation(n)
        if n < 2 or not np.array_equal(perm, np.arange(n)):
            return perm
    return np.roll(np.arange(n), 1)


def shuffle_demo(words: list[str], d_model: int, pe: np.ndarray, seed: int = 0) -> ShuffleDemo:
    """Run self-attention (seeded projections) on `words` and on a seeded shuffle, without and
    with `pe` (T, d) added, and measure how far the shuffled outputs are from the originals."""
    x = sentence_inputs(words, d_model)
    proj = random_projections(d_model)
    perm = shuffle_perm(len(words), seed)
    inverse = np.argsort(perm)
    results = {}
    for name, pos in (("plain", np.zeros_like(x)), ("pe", pe)):
        out, w = self_attention(x + pos, proj)
        out_s, w_s = self_attention(x[perm] + pos, proj)
        results[name] = (w, w_s[np.ix_(inverse, inverse)], float(np.abs(out_s[inverse] - out).max()))
    return ShuffleDemo(words, perm, results["plain"][0], results["plain"][1], results["pe"][0], results["pe"][1], results["plain"][2], results["pe"][2])


@dataclass(frozen=True)
class BagOfWords:
    """Mean-pooled self-attention outputs of two sentences with the same words in another order."""

    cosine_plain: float
    cosine_pe: float
    distance_plain: float  # ||a - b|| / ||a||
    distance_pe: float


def bag_of_words(words_a: list[str], words_b: list[str], d_model: int, pe: np.ndarray) -> BagOfWords:
    """Compare the pooled sentence vectors of two word orders, without and with `pe` (T, d)."""
    if sorted(words_a) != sorted(words_b):
        raise ValueError("The two sentences must use the same words in a different order.")
    proj = random_projections(d_model)
    a, b = sentence_inputs(words_a, d_model), sentence_inputs(words_b, d_model)
    pa, pb = pooled_output(a, None, proj), pooled_output(b, None, proj)
    qa, qb = pooled_output(a, pe, proj), pooled_output(b, pe, proj)
    rel = lambda u, v: float(np.linalg.norm(u - v) / np.linalg.norm(u))  # noqa: E731
    return BagOfWords(cosine(pa, pb), cosine(qa, qb), rel(pa, pb), rel(qa, qb))
