r"""Which of RoPE's frequencies does the trained Austen model use? Pair ablation, torch-free. Its 8 pairs per 16-wide
head turn by $m\,\theta_i$, $\theta_i = 10000^{-2i/16}$ (wavelengths 6.3 to about 19,900 characters); trained on L = 64,
pairs 3 to 7 never complete a turn (Liu et al. 2023 trace RoPE's failure to extrapolate to such a "critical dimension";
Barbero et al. 2024 study which frequencies a trained Gemma uses; only their abstracts were checked here). A pair
"removed" gets frequency 0: it keeps its content but no position; a pair "zeroed" loses both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import bibliography
from core.lab import experiment, lm
from core.schemes import rope
from core.schemes.checks import whole_number

LENGTHS = (64, 256)  # L and 4L


def frequencies(config: lm.LMConfig | None = None) -> np.ndarray:
    """θ_i of the shipped RoPE model's heads (hd / 2,)."""
    config = config or lm.LMConfig(scheme="rope")
    return rope.rope_frequencies(config.d_model // config.n_heads, config.setting.base)[0]


def wavelengths(config: lm.LMConfig | None = None) -> np.ndarray:
    """2π / θ_i in characters (hd / 2,)."""
    return rope.rope_wavelengths(frequencies(config))


def never_turn(inv_freq: np.ndarray, train_len: int) -> tuple[int, ...]:
    """The pairs that do not complete one turn within `train_len` positions: (train_len − 1) θ_i < 2π."""
    return tuple(int(i) for i in np.nonzero((train_len - 1) * np.asarray(inv_freq) < 2 * np.pi)[0])


def fastest(k: int, n: int) -> tuple[int, ...]:
    return tuple(range(min(k, n)))


def slowest(k: int, n: int) -> tuple[int, ...]:
    return tuple(range(max(0, n - k), n))


def ablated_frequencies(inv_freq: np.ndarray, removed: tuple[int, ...]) -> np.ndarray:
    """inv_freq with the removed pairs' frequencies set to 0."""
    out = np.array(inv_freq, dtype=np.float64)
    out[list(removed)] = 0.0
    return out


def pair_dimensions(idx: tuple[int, ...], n_pairs: int, layout: str = "half") -> list[int]:
    """The head dimensions of the pairs in `idx`: i and i + n_pairs in the "half" layout, 2i and 2i + 1 interleaved."""
    if layout == "half":
        return sorted([i for i in idx] + [i + n_pairs for i in idx])
    return sorted([2 * i for i in idx] + [2 * i + 1 for i in idx])


def multiples(lengths: tuple[int, ...], train_len: int = 64) -> tuple[int, ...]:
    """The evaluation lengths, sorted, each L, 2L, 4L or 8L (ValueError otherwise)."""
    allowed = tuple(train_len * f for f in (1, 2, 4, 8))
    out = tuple(sorted({whole_number(x, "An evaluation length", 1) for x in lengths}))
    if not out or any(x not in allowed for x in out):
        raise ValueError(f"Evaluation lengths are {', '.join(map(str, allowed))} (L to 8L), got {', '.join(map(str, lengths)) or 'none'}.")
    return out


@dataclass(frozen=True)
class PairsConfig:
    """The shipped RoPE model of training seed `seed` with the pairs `removed` given frequency 0 (frozen: content kept,
    position gone) and the pairs `zeroed` with their query and key dimensions set to 0 (content and position gone),
    evaluated at `lengths`."""

    removed: tuple[int, ...] = ()
    lengths: tuple[int, ...] = LENGTHS
    zeroed: tuple[int, ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        n = frequencies().size
        for name in ("removed", "zeroed"):
            object.__setattr__(self, name, tuple(sorted({whole_number(i, "A pair index", 0, n - 1) for i in getattr(self, name)})))
        object.__setattr__(self, "lengths", multiples(self.lengths))
        whole_number(self.seed, "The seed", 0, 2**31 - 1)

    scheme = "rope"

    @property
    def label(self) -> str:
        def pairs(idx: tuple[int, ...]) -> str:
            return f"pair{'s' if len(idx) > 1 else ''} {', '.join(map(str, idx))}"

        what = f"RoPE without {pairs(self.removed)}" if self.removed else "RoPE, all pairs turning"
        if self.zeroed:
            whose = pairs(self.zeroed) + ("'" if len(self.zeroed) > 1 else "'s")
            what = f"RoPE with {whose} query and key dimensions zeroed" + (f", {what[5:]}" if self.removed else "")
        return what + (f", seed {self.seed}" if self.seed else "")


def estimate_seconds(config: PairsConfig) -> float:
    """CPU seconds: the evaluation passes, by the real-text lab's fitted constants."""
    return experiment.eval_seconds(lm.LMConfig(scheme="rope"), config.lengths)


BARBERO = bibliography.BARBERO.cited
LIU = bibliography.LIU.cited
