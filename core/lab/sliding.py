"""Sliding-window against non-overlapping evaluation of the shipped Austen models, torch-free. In whole windows the first
characters of each window see little context, so a longer window lowers perplexity partly because fewer characters start
one: the "early token curse" (Press et al. 2022, appendix B). A window moving by stride S scores only its last S
characters, so each sees n − S + 1 to n before it; both score the same 32,768 characters."""

from __future__ import annotations

from dataclasses import dataclass

from core.lab import experiment, lm
from core.lab.pairs import multiples
from core.schemes.checks import shown, whole_number
from core.schemes.registry import SCHEMES

STRIDE = 16  # the shipped results' stride: every character after the first window sees n − 15 to n before it
WINDOWS = (64, 128, 256, 512)


@dataclass(frozen=True)
class SlidingConfig:
    """The shipped model of `scheme` and training seed `seed`, every held-out character scored once with windows of
    `window` characters moving by `stride`."""

    scheme: str = "alibi"
    window: int = 64
    stride: int = STRIDE
    seed: int = 0

    def __post_init__(self) -> None:
        if self.scheme not in lm.DEFAULT_SCHEMES:
            raise ValueError(f"There is no shipped model for {shown(self.scheme)}; choose one of {', '.join(lm.DEFAULT_SCHEMES)}.")
        (window,) = multiples((self.window,))
        stride = whole_number(self.stride, "The stride", 1, window)
        whole_number(self.seed, "The seed", 0, 2**31 - 1)
        chars = lm.LMConfig().eval_chars
        if (chars - window) % stride:
            raise ValueError(
                f"A window of {window} moving by {stride} does not end exactly on the {chars:,}th character scored: "
                f"{chars:,} − {window} must be a multiple of the stride (a power of 2 up to {window} is)."
            )

    @property
    def label(self) -> str:
        return f"{SCHEMES[self.scheme].label}, window {self.window}, stride {self.stride}" + (f", seed {self.seed}" if self.seed else "")


def estimate_seconds(config: SlidingConfig) -> float:
    """A sliding pass costs window / stride non-overlapping passes at that length."""
    base = lm.LMConfig(scheme=config.scheme)
    return experiment.eval_seconds(base, (config.window,)) * config.window / config.stride

