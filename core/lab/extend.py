r"""Context extension on the shipped Austen RoPE model (trained on L = 64 characters), torch-free: each method is a
`core.schemes.rope.RopeScaling` with original_max_len = L and factor s, run through the registry's RoPE as training ran
it (core.lab.trained.scaled_rope), with and without a short fine-tune at the longer length: "linear" (Chen et al. 2023,
position interpolation), "ntk" (NTK-aware), "yarn" (Peng et al. 2023, with its attention factor √(1/t) = 0.1 ln s + 1,
§3.4 eq. 22) and "yarn_no_t" (YaRN's frequencies with the factor 1, to see what the temperature does).
"""

from __future__ import annotations

from dataclasses import dataclass

from core import bibliography
from core.lab import experiment, lm
from core.lab.pairs import multiples
from core.schemes import rope
from core.schemes.checks import shown, whole_number

# Each scaled method and the RoPE scaling kind it applies (core.schemes.rope.SCALING_KINDS, whose records
# give the rule and the name on screen); "yarn_no_t" is YaRN's frequencies with its attention factor 1.
KIND_OF = {"linear": "linear", "ntk": "ntk", "yarn": "yarn", "yarn_no_t": "yarn"}
SCALED = tuple(KIND_OF)
METHODS = ("none", *SCALED)
LABELS = {
    "none": "no scaling",
    **{method: rope.SCALING_KINDS[kind].label for method, kind in KIND_OF.items() if method == kind},
    "yarn_no_t": f"{rope.SCALING_KINDS['yarn'].label} without its temperature",
}
FACTORS = (2, 4, 8)
LENGTHS = (64, 128, 256, 512)
FINE_TUNE_STEPS = 38  # 5 % of the 750 steps the model was trained
# Perplexity against the fine-tune's length, as position interpolation's paper intends it to be read (Chen et al. fine-tune
# for up to 1,000 steps): no fine-tune, the short one, and four times as long (20 % of the model's training steps), at one
# factor, measured at L and s·L
SHOWN_FACTOR = 4
LONGER_FINE_TUNE = 4 * FINE_TUNE_STEPS
BUDGETS = (0, FINE_TUNE_STEPS, LONGER_FINE_TUNE)
BUDGET_LENGTHS = (64, 64 * SHOWN_FACTOR)
FINE_TUNE_LR = 1e-3
MAX_FINE_TUNE = 400


def scaling(method: str, factor: float, train_len: int = 64) -> rope.RopeScaling | None:
    """The RopeScaling a method applies (None: the model as trained)."""
    if method not in METHODS:
        raise ValueError(f"Unknown method {shown(method)}; choose one of {', '.join(METHODS)}.")
    if method == "none":
        return None
    return rope.RopeScaling(KIND_OF[method], float(factor), train_len, attention_factor=1.0 if method == "yarn_no_t" else None)


def temperature_factor(factor: float) -> float:
    """YaRN's √(1/t) = 0.1 ln s + 1 (1 for s ≤ 1), as its record computes it: what multiplies cos and sin, so scores by its square."""
    return rope.yarn_mscale(factor)


@dataclass(frozen=True)
class ExtendConfig:
    """The shipped RoPE model of training seed `seed` (core.lab.weights.directory) with `method` at factor s, optionally
    fine-tuned `fine_tune` steps on training windows of min(s, 8) × L characters (batch 32 / that multiple: the same
    characters per step as training; the windows drawn with `seed` too), then evaluated at `lengths`."""

    method: str = "yarn"
    factor: int = 4
    fine_tune: int = 0
    lengths: tuple[int, ...] = LENGTHS
    seed: int = 0

    def __post_init__(self) -> None:
        scaling(self.method, 1.0)
        whole_number(self.factor, "The scaling factor s", 1, 16)
        whole_number(self.fine_tune, "The fine-tuning steps", 0, MAX_FINE_TUNE)
        whole_number(self.seed, "The seed", 0, 2**31 - 1)
        object.__setattr__(self, "lengths", multiples(self.lengths))

    scheme = "rope"

    @property
    def rope_scaling(self) -> rope.RopeScaling | None:
        return scaling(self.method, self.factor) if self.factor > 1 else None

    @property
    def tune_multiple(self) -> int:
        return min(self.factor, 8)

    @property
    def tune_len(self) -> int:
        return 64 * self.tune_multiple

    @property
    def tune_batch(self) -> int:
        return max(1, 32 // self.tune_multiple)

    @property
    def label(self) -> str:
        what = LABELS[self.method] + ("" if self.method == "none" else f", s = {self.factor}")
        return what + (f", fine-tuned {self.fine_tune} steps at {self.tune_len}" if self.fine_tune else "") + (f", seed {self.seed}" if self.seed else "")


def estimate_seconds(config: ExtendConfig) -> float:
    base = lm.LMConfig(scheme="rope")
    tune = 0.0
    if config.fine_tune:
        # the lab's fitted constants stop at 256 characters: a longer window is estimated as that many, scaled up (an overestimate)
        length = min(config.tune_len, 256)
        twin = lm.LMConfig(
            scheme="rope", train_len=length, batch=config.tune_batch * config.tune_len // length, steps=config.fine_tune, factors=(1,), eval_chars=length
        )
        tune = lm.estimate(twin).train_s * config.tune_len / length
    return tune + 1.3 * experiment.eval_seconds(base, config.lengths)  # entropy beside perplexity: a third more


CHEN = bibliography.PI.cited
PENG = bibliography.YARN.cited
