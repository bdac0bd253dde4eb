"""The words of /rope that state what a figure shows, built from the arrays drawn so they hold at the
settings on screen. Pure functions: no Streamlit, so tests can read every sentence."""

from __future__ import annotations

import numpy as np


def rope_decay_text(offsets: np.ndarray, curves: list[np.ndarray], bases: tuple[float, ...], head_dim: int) -> str:
    """The sentence under /rope's decay figure: what the curves of an all-ones query and key (score / head_dim,
    1 at offset 0) do over the offsets drawn, per base, and what they do not say about tokens in general."""
    pairs = head_dim // 2

    def course(curve: np.ndarray) -> tuple[float | None, float, float]:
        below = np.flatnonzero(curve < 0.5)
        if not below.size:
            return None, float("nan"), float("nan")
        after = np.arange(curve.size) > below[0]
        back = int(np.argmax(np.where(after, curve, -np.inf))) if after.any() else below[0]
        return float(offsets[below[0]]), float(curve[back]), float(offsets[back])

    lead = (
        "What to look for: for this query and key of all ones the score is Σᵢ 2cos(δθᵢ) / d (for any query and key equal to one vector v it "
        "is Σᵢ ‖vᵢ‖² cos(δθᵢ), vᵢ its i-th pair). "
    )
    shown = list(zip(bases, curves, strict=True))
    if len(curves) > 1 and all(np.allclose(c, curves[0], rtol=0, atol=1e-12) for c in curves[1:]):
        lead += f"The {len(curves)} bases draw one curve: {'the one pair turns' if pairs == 1 else 'the pairs turn'} alike whatever the base. "
        shown = shown[:1]
    words = []
    for b, curve in shown:
        half, back, at = course(curve)
        if half is None:
            words.append(f"base {b:,.6g}: never below half up to offset {offsets[-1]:,.0f}")
        elif back >= 0.9:
            words.append(f"base {b:,.6g}: first below half at offset {half:,.0f}, then back to {back:.3g} at offset {at:,.0f}, so it does not decay")
        else:
            words.append(f"base {b:,.6g}: first below half at offset {half:,.0f}, and no higher than {back:.3g} after it")
    one_pair = " With one pair the score is cos δ, which swings between −1 and 1 and never decays." if pairs == 1 else ""
    return (
        lead
        + ("Over the offsets drawn, " if len(shown) > 1 else "Over the offsets drawn, at ")
        + "; ".join(words)
        + "."
        + one_pair
        + " This is the curve of one vector with itself: for a query and key drawn independently at random the expected score is 0 at every "
        "offset, so it does not say that far-apart tokens score lower. RoFormer (Su et al. 2021, §3.3) bounds the score by a sum that falls "
        "with the offset rather than averaging it, and Barbero et al. 2024 argue that this decay is unlikely to be the core reason RoPE is useful. "
        "Llama 3 raised its base to 500,000 to support longer contexts (Llama Team 2024, §3.2)."
    )
