r"""Does a model know where it is? A linear probe of absolute position, torch-free (Haviv et al. 2022 probe position out
of models trained without positions; Kazemnejad et al. 2023 compare NoPE's attention with T5's). Closed-form ridge
regression on the standardised residual stream at each layer boundary, $w = (Z^\top Z + \lambda I)^{-1} Z^\top (p - \bar p)$,
fitted on the first half of the held-out windows and scored on the second ($R^2$, and the mean absolute error in positions).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core import bibliography
from core.lab import lm, weights
from core.schemes.registry import SCHEMES

DEPTHS = (1, 2, 4)  # NoPE's depths in the shipped results
COMPARED = lm.DEFAULT_SCHEMES  # the shipped models probed beside NoPE
RIDGE = 1.0
PROBE_WINDOWS = 512  # windows of L held-out characters: the 32,768 the perplexities are measured on
MAP_WINDOWS = 64  # the attention maps are the mean over the first 64 of them
ATTENTION_PATH = lm.DATA / "lab_probe_attention.npz"  # the shipped attention maps (bench.lab_probe)


def load_maps(path=None) -> dict[str, np.ndarray]:
    """The shipped attention maps {"none_2": (layers, H, L, L), ...} as float64, or ValueError with a sentence."""
    p = path or ATTENTION_PATH
    try:
        with np.load(p, allow_pickle=False) as data:
            maps = {k: data[k].astype(np.float64) for k in data.files}
    except FileNotFoundError:
        raise ValueError(f"The precomputed attention maps ({p.name}) are missing: run python -m bench.lab_probe to make them.") from None
    except (OSError, ValueError, KeyError) as err:
        raise ValueError(f"The precomputed attention maps ({p.name}) cannot be read ({type(err).__name__}): run python -m bench.lab_probe again.") from None
    if not maps or any(m.ndim != 4 or m.shape[-1] != m.shape[-2] for m in maps.values()):
        raise ValueError(f"The precomputed attention maps ({p.name}) are not (layers, heads, L, L) arrays: run python -m bench.lab_probe again.")
    return maps


def map_distances(nope: np.ndarray, t5: np.ndarray) -> dict[str, list[float]]:
    """Per layer, how far NoPE's mean attention map (layers, H, T, T), averaged over heads, is from T5's and from even
    attention (every query spread evenly over its keys): the mean over queries of the total-variation distance
    ½ Σ_j |a_ij − b_ij| (0: the same weights, 1: no key in common)."""
    t = nope.shape[-1]
    even = np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]
    a, b = nope.mean(axis=1), t5.mean(axis=1)  # (layers, T, T)
    return {
        "to_t5": [round(float(0.5 * np.abs(a[i] - b[i]).sum(axis=-1).mean()), 6) for i in range(len(a))],
        "to_even": [round(float(0.5 * np.abs(a[i] - even).sum(axis=-1).mean()), 6) for i in range(len(a))],
    }


@dataclass(frozen=True)
class Ridge:
    """A fitted linear probe: feature means and scales, weights (d,), intercept."""

    mean: np.ndarray
    std: np.ndarray
    w: np.ndarray
    b: float

    def predict(self, x: np.ndarray) -> np.ndarray:
        """x (n, d) -> (n,)."""
        return (x - self.mean) / self.std @ self.w + self.b


def ridge_fit(x: np.ndarray, y: np.ndarray, lam: float = RIDGE) -> Ridge:
    """Closed-form ridge regression of y (n,) on the standardised columns of x (n, d), with an
    intercept that is not penalised: w = (ZᵀZ + λI)⁻¹ Zᵀ(y − ȳ). A constant column gets scale 1
    (it carries nothing and stays 0 after centring)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)  # probe_layers gives (n, d) and (n,), n >= 1, λ >= 0
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std = np.where(std > 1e-12, std, 1.0)
    z = (x - mean) / std
    gram = z.T @ z + lam * np.eye(x.shape[1])  # (d, d)
    w = np.linalg.lstsq(gram, z.T @ (y - y.mean()), rcond=None)[0]  # lstsq: a singular gram at λ = 0 still gives the least-squares answer
    return Ridge(mean, std, w, float(y.mean()))


def r_squared(y: np.ndarray, predicted: np.ndarray) -> float:
    """1 − Σ(y − ŷ)² / Σ(y − ȳ)²."""
    y = np.asarray(y, dtype=np.float64)
    total = float(((y - y.mean()) ** 2).sum())
    return 1.0 - float(((y - predicted) ** 2).sum()) / total if total > 0 else math.nan


def probe_layers(hidden: np.ndarray, lam: float = RIDGE) -> tuple[list[float], list[float]]:
    """hidden (layers, N, T, d): a probe per layer, fitted on windows 0 .. N/2 - 1 and scored on the
    rest, target the position 0 .. T - 1 in its window. Returns (R² per layer, mean absolute error
    per layer in positions)."""
    layers, n, t, d = hidden.shape
    if n < 2:
        raise ValueError("The probe needs at least two windows: one half to fit, the other to score.")
    half = n // 2
    positions = np.tile(np.arange(t, dtype=np.float64), n)  # (N T,)
    fit, score = slice(0, half * t), slice(half * t, n * t)
    r2, mae = [], []
    for layer in range(layers):
        x = hidden[layer].reshape(n * t, d).astype(np.float64)
        probe = ridge_fit(x[fit], positions[fit], lam)
        predicted = probe.predict(x[score])
        r2.append(r_squared(positions[score], predicted))
        mae.append(float(np.abs(positions[score] - predicted).mean()))
    return r2, mae


def mean_entropy(weights: np.ndarray) -> float:
    """Mean Shannon entropy (nats) of causal attention rows: weights (..., T, T), rows summing to 1."""
    w = np.asarray(weights, dtype=np.float64)
    logs = np.log(np.where(w > 0, w, 1.0))
    return float(-(w * logs).sum(axis=-1).mean())


@dataclass(frozen=True)
class ProbeConfig:
    """A probe of one model: the Austen model of `scheme` with `n_layers` layers (seed, steps as
    LMConfig's; a shipped model when they are the shipped comparison's at one of its seeds, else trained first), probed
    on the first 32,768 held-out characters in windows of L."""

    scheme: str = "none"
    n_layers: int = 2
    seed: int = 0
    steps: int = 750

    def __post_init__(self) -> None:
        self.lm_config  # validates the scheme, layers, seed and steps with LMConfig's sentences

    @property
    def lm_config(self) -> lm.LMConfig:
        return lm.LMConfig(scheme=self.scheme, n_layers=self.n_layers, seed=self.seed, steps=self.steps)

    @property
    def shipped(self) -> bool:
        """Whether this is a shipped model (data/lab_models): nothing to train."""
        return self.scheme in lm.DEFAULT_SCHEMES and self.seed in weights.SEEDS and self.lm_config == lm.LMConfig(scheme=self.scheme, seed=self.seed)

    @property
    def label(self) -> str:
        return f"{SCHEMES[self.scheme].label}, {self.n_layers} layer{'s' if self.n_layers > 1 else ''}" + (f", seed {self.seed}" if self.seed else "")


def estimate_seconds(config: ProbeConfig) -> float:
    """CPU seconds: training (when not shipped) by the lab's fitted constants, plus the probe (~1 s)."""
    train = 0.0 if config.shipped else lm.estimate(config.lm_config).seconds
    return train + 0.5 * config.n_layers + 0.5


# The sources, as quoted on the page (sections checked where the stored copies allowed it).
HAVIV = bibliography.HAVIV.cited
KAZEMNEJAD = bibliography.KAZEMNEJAD.cited
