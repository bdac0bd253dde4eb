r"""Why adding the raw integer p to every feature makes training unstable, measured.

Two measurements at each position p, for a word vector w (the app's fixed pseudo-random vector, scaled by
$\sqrt{d}$ as the Transformer paper scales its embeddings, §3.4) plus a position code c(p):

- scale: $\lVert c(p) \rVert / \lVert w \rVert$. The raw integer adds p to each of d features, so
  $\lVert c(p) \rVert = p\sqrt{d}$; the sinusoid's row has norm $\sqrt{d/2}$ at every p.
- one gradient step: a linear layer y = W x (a query projection, say) fitted to a target t by squared error
  $\tfrac12\lVert W x - t\rVert^2$. Its gradient is $e\,x^\top$ with $e = W x - t$, so one step of size η gives
  $W' = W - \eta\, e\, x^\top$ and the new error $W' x - t = (1 - \eta \lVert x\rVert^2)\, e$: the loss is
  multiplied by $(1 - \eta\lVert x\rVert^2)^2$. With the step size that fits the word alone in one step,
  $\eta = 1/\lVert w\rVert^2$, an input much longer than the word makes the same step overshoot and the loss grow
  by about $(\lVert x\rVert / \lVert w\rVert)^4$. The step is taken on the arrays, W and t drawn from a seeded
  generator, not read from the closed form (the tests compare the two). The loss falls only while
  $\eta < 2/\lVert x\rVert^2$: the largest usable step, which raw positions shrink as $1/p^2$.

Imports core.schemes and core.analysis.attention only; arrays are numpy float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.analysis.attention import sentence_inputs
from core.schemes import naive
from core.schemes.sinusoidal import sinusoidal_encoding

WORD = "dog"  # the word whose vector the positions are added to (any word gives the same picture)


@dataclass(frozen=True)
class RawScale:
    positions: np.ndarray  # (n,) the positions measured
    word_norm: float  # ‖w‖
    integer_ratio: np.ndarray  # (n,) ‖p·1‖ / ‖w‖
    sinusoid_ratio: np.ndarray  # (n,) ‖PE(p)‖ / ‖w‖
    step: float  # η = 1 / ‖w‖², the step that fits the word alone
    integer_loss: np.ndarray  # (n,) loss after one step / loss before, input w + p·1
    sinusoid_loss: np.ndarray  # (n,) the same, input w + PE(p)
    word_loss: float  # the same for the word alone: 0 up to rounding
    integer_max_step: np.ndarray  # (n,) the largest step that still lowers the loss, 2 / ‖w + p·1‖², over η
    sinusoid_max_step: np.ndarray  # (n,) the same for w + PE(p)


def _one_step(x: np.ndarray, w_layer: np.ndarray, target: np.ndarray, eta: float) -> np.ndarray:
    """Loss after one gradient step on each row of x over the loss before it. x (n, d), w_layer (d, d), target (d,).
    Returns (n,)."""
    error = x @ w_layer.T - target  # (n, d): W x - t for each input
    grad_dot_x = error * (x * x).sum(axis=1, keepdims=True)  # (e xᵀ) x = e ‖x‖², the gradient applied to the same input
    after = (x @ w_layer.T - eta * grad_dot_x) - target  # (W - η e xᵀ) x - t
    return (after * after).sum(axis=1) / (error * error).sum(axis=1)


def raw_scale(positions: np.ndarray, d_model: int, base: float = 10_000.0, *, seed: int = 0) -> RawScale:
    """The scale of the raw integer code and of the sinusoid against a word vector, and what one gradient step does
    to a linear layer's loss at each position (see the module's docstring). Returns a RawScale of (n,) arrays."""
    positions = np.asarray(positions)
    w = sentence_inputs([WORD], d_model)[0]  # (d,), norm about √d
    w_norm = float(np.linalg.norm(w))
    integer = naive.integer_positions(int(positions.max()) + 1)[positions, 0][:, None] * np.ones(d_model)  # (n, d): p in every feature
    sinusoid = sinusoidal_encoding(int(positions.max()) + 1, d_model, base, positions=positions)  # (n, d)
    rng = np.random.default_rng(seed)
    w_layer = rng.normal(0.0, 1.0 / np.sqrt(d_model), (d_model, d_model))
    target = rng.normal(0.0, 1.0, d_model)
    eta = 1.0 / w_norm**2
    return RawScale(
        positions,
        w_norm,
        np.linalg.norm(integer, axis=1) / w_norm,
        np.linalg.norm(sinusoid, axis=1) / w_norm,
        eta,
        _one_step(w + integer, w_layer, target, eta),
        _one_step(w + sinusoid, w_layer, target, eta),
        float(_one_step(w[None, :], w_layer, target, eta)[0]),
        2.0 / ((w + integer) ** 2).sum(axis=1) / eta,
        2.0 / ((w + sinusoid) ** 2).sum(axis=1) / eta,
    )


def first_position_above(positions: np.ndarray, values: np.ndarray, level: float) -> int | None:
    """The first measured position whose value exceeds `level`, or None."""
    above = np.flatnonzero(values > level)
    return int(positions[above[0]]) if above.size else None


def measured_positions(max_len: int, points: int = 300) -> np.ndarray:
    """Whole positions from 1 to max_len − 1, log-spaced (every one while there are few). Empty when max_len < 2. Returns (n,) int64."""
    if max_len < 2:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.geomspace(1, max_len - 1, points).round().astype(np.int64))


def _span(values: np.ndarray, spec: str) -> str:
    """'a to b' for the smallest and largest value, or one number where they agree to the digits shown."""
    lo, hi = format(float(values.min()), spec), format(float(values.max()), spec)
    return lo if lo == hi else f"{lo} to {hi}"


def raw_scale_parts(study: RawScale, d_model: int) -> tuple[str, str]:
    """The sentences under the two figures, every number (and every comparison word) from `study`, in two parts: the
    code's size against the word (the left figure), and what that does to a gradient step (the right one), which the
    page keeps a click away."""
    p, last = study.positions, int(study.positions[-1])
    equal = first_position_above(p, study.integer_ratio, 1.0)
    grows = first_position_above(p, study.integer_loss, 1.0)
    sin_size = f"{_span(study.sinusoid_ratio, '.4g')} times the word"
    lead = (
        f"Measured at width d = {d_model:,} on the word ‘{WORD}’ (its vector scaled by √d, as the Transformer paper scales embeddings: "
        f"norm {study.word_norm:.4g}). The integer code adds p to all {d_model:,} features, so it is p√d long: "
        + (f"longer than the word from position {equal:,} on and " if equal is not None else "")
        + f"{study.integer_ratio[-1]:.4g} times the word at position {last:,}"
        + (", where the word is lost in it" if study.integer_ratio[-1] > 10 else "")
        + f". The sinusoid's code is {sin_size} at every position measured: it does not grow with p."
    )
    step = (
        f" One gradient step on a linear layer fitted by squared error multiplies its loss by (1 − η‖x‖²)². With the step size that "
        f"fits the word alone (η = 1/‖w‖² = {study.step:.3g}), one step on word + p leaves {study.integer_loss[0]:.3g} times the loss at "
        f"position {int(p[0]):,}"
        + (f" and {study.integer_loss[-1]:.3g} times at position {last:,}" if p.size > 1 else "")
        + (f"; from position {grows:,} on the step makes the loss worse" if grows is not None else "")
        + (". A step size that suits the first positions blows up at later ones" if grows is not None and study.integer_loss[0] < 1 else "")
        + ". The loss falls only for steps below 2/‖x‖², which at position "
        f"{last:,} is {study.integer_max_step[-1]:.3g} times the step that fits the word (right-hand figure): with raw positions the usable step "
        "shrinks as 1/p², and the size of every gradient depends on where the word stands."
    )
    worst = float(study.sinusoid_loss.max())
    if worst < 1:
        step += f" With the sinusoid the same step leaves at most {worst:.3g} of the loss at every position: it still makes progress."
    else:
        step += (
            f" At this width the same step overshoots with the sinusoid too ({_span(study.sinusoid_loss, '.3g')} times the loss), but within "
            "those bounds at every position, since its code does not grow with p: a smaller step fixes it once for all."
        )
    return lead, step
