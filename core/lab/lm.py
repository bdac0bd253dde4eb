r"""The lab's language-modelling task on real text, torch-free: the ALiBi paper's experiment (Press, Smith & Lewis,
2022) at laptop scale. Train the tiny transformer per scheme on windows of L characters of Jane Austen's novels
(`data/austen.txt.gz`, provenance in data/README.md), then score the same N held-out characters in non-overlapping
windows of L, 2L, 4L and 8L, each run whole (the paper's nonoverlapping evaluation),
$\text{ppl}(n) = \exp\big(-\frac{1}{N}\sum_{w}\sum_{t=1}^{n} \log p(c_{w,t} \mid c_{w,<t})\big)$.
"""

from __future__ import annotations

import binascii
import functools
import gzip
import hashlib
import json
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from core import bibliography
from core.lab import config as lab
from core.schemes.checks import whole_number
from core.schemes.registry import Setting

DATA = Path(__file__).resolve().parents[2] / "data"
CORPUS_PATH = DATA / "austen.txt.gz"
CORPUS_SHA256 = "2b73f19547cf50a52d10f9d153288467e7447849ff29999673abf6dd27f4ac7d"  # the decompressed text (data/README.md)
RESULTS_PATH = DATA / "lab_lm_results.json"
HELD_OUT = 0.10  # the last 10 % of the text, contiguous, is never trained on
MIN_CHARS = 1_000  # a corpus shorter than this cannot feed a run
MAX_BYTES = 64 * 2**20  # a corpus (decompressed) larger than this is refused: the lab keeps it in memory
MAX_FACTOR = 8  # evaluation lengths go up to 8 x the training length
DEFAULT_SCHEMES = ("none", "sinusoidal", "learned", "rope", "t5", "alibi")


# --- the corpus -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Corpus:
    """A text as character ids: `chars` the vocabulary (sorted, id i is chars[i]), `train` the
    first 90 % and `held` the last 10 % (int64 arrays of ids), `sha256` of the whole text."""

    chars: str
    train: np.ndarray
    held: np.ndarray
    sha256: str

    @property
    def tokens(self) -> int:
        return len(self.chars)


def split(ids):
    """(training part, held-out part): the first int(n (1 - HELD_OUT)) ids (or characters) and the rest."""
    cut = int(len(ids) * (1 - HELD_OUT))
    return ids[:cut], ids[cut:]


def read_text(path: Path) -> str:
    """The ASCII text of a .gz or plain text file, or ValueError saying what is wrong with it."""
    name = path.name
    try:
        raw = path.read_bytes() if path.suffix != ".gz" else gzip.decompress(path.read_bytes())
    except FileNotFoundError:
        raise ValueError(f"The corpus file {name} is missing: the lab's real-text task needs it (see data/README.md).") from None
    except (OSError, EOFError, zlib.error, binascii.Error) as err:
        raise ValueError(f"The corpus file {name} is not a readable gzip file ({type(err).__name__}): it may be damaged or truncated.") from None
    if len(raw) > MAX_BYTES:
        raise ValueError(f"The corpus file {name} holds {len(raw):,} bytes of text; the lab reads at most {MAX_BYTES:,}.")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as err:
        raise ValueError(f"The corpus file {name} is not plain ASCII text: byte {err.start:,} is {raw[err.start]:#04x}.") from None
    if len(text) < MIN_CHARS:
        raise ValueError(f"The corpus file {name} holds {len(text):,} characters; the lab needs at least {MIN_CHARS:,}.")
    if len(set(text)) < 2:
        raise ValueError(f"The corpus file {name} uses a single character: there is nothing to predict.")
    return text


@functools.lru_cache(maxsize=4)
def _load(path: str, mtime_ns: int, size: int) -> Corpus:
    text = read_text(Path(path))
    chars = "".join(sorted(set(text)))
    lookup = np.zeros(128, dtype=np.int64)
    lookup[[ord(c) for c in chars]] = np.arange(len(chars))
    ids = lookup[np.frombuffer(text.encode("ascii"), dtype=np.uint8)]  # (n,)
    train, held = split(ids)
    return Corpus(chars, train, held, hashlib.sha256(text.encode("ascii")).hexdigest())


def load_corpus(path: str | Path | None = None) -> Corpus:
    """The corpus at `path` (default: the shipped Austen text), read once per file version.
    A missing, damaged, non-ASCII or too short file raises ValueError with a sentence."""
    p = Path(path) if path else CORPUS_PATH
    try:
        stat = p.stat()
    except OSError:
        raise ValueError(f"The corpus file {p.name} is missing: the lab's real-text task needs it (see data/README.md).") from None
    return _load(str(p), stat.st_mtime_ns, stat.st_size)


# --- the windows ------------------------------------------------------------------------------


def train_batch(train: np.ndarray, rng: np.random.Generator, batch: int, length: int) -> np.ndarray:
    """`batch` windows of length + 1 consecutive training ids at random offsets (inputs are
    [:, :-1], targets [:, 1:]): (B, length + 1). Only `train` is read: no held-out text."""
    offsets = rng.integers(0, len(train) - length - 1, size=batch)  # (B,)
    return train[offsets[:, None] + np.arange(length + 1)[None, :]]  # (B, length + 1)


def eval_windows(held: np.ndarray, length: int, eval_chars: int) -> np.ndarray:
    """The first `eval_chars` held-out characters as eval_chars // length non-overlapping windows,
    each with the character after it: window w is held[w L : w L + L + 1], (N, length + 1). The
    targets [:, 1:] are held[1 : N L + 1]: the same characters at every length dividing eval_chars."""
    n = eval_chars // length
    if n < 1 or n * length + 1 > len(held):
        raise ValueError(f"The held-out text ({len(held):,} characters) is too short for {eval_chars:,} characters in windows of {length:,}.")
    return held[np.arange(n)[:, None] * length + np.arange(length + 1)[None, :]]  # (N, length + 1)


def sliding_windows(held: np.ndarray, window: int, stride: int, eval_chars: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same eval_chars characters `eval_windows` scores (targets held[1 : eval_chars + 1]),
    each scored once, in windows of `window` characters that move by `stride`: window w reads
    held[w S : w S + window] and scores its last S targets (the first window scores all of its
    own), so every character after the first window is predicted from window - S + 1 to window
    characters before it, whatever its place (the sliding window of Press et al. 2022, appendix B.1,
    at stride S; with S = window it is `eval_windows`' non-overlapping evaluation).
    Returns (inputs (N, window), targets (N, window), first (N,): the index of the first scored
    target in each window), N = 1 + (eval_chars - window) / S."""
    window = whole_number(window, "The window", 1)
    stride = whole_number(stride, "The stride", 1, window)
    if eval_chars < window or (eval_chars - window) % stride:
        raise ValueError(
            f"A window of {window:,} moving by {stride:,} does not end exactly at the {eval_chars:,} characters scored: "
            f"{eval_chars:,} − {window:,} must be a multiple of the stride."
        )
    if eval_chars + 1 > len(held):
        raise ValueError(f"The held-out text ({len(held):,} characters) is too short for {eval_chars:,} characters.")
    n = 1 + (eval_chars - window) // stride
    starts = np.arange(n) * stride  # (N,)
    index = starts[:, None] + np.arange(window)[None, :]  # (N, window)
    first = np.full(n, window - stride)
    first[0] = 0
    return held[index], held[index + 1], first


# --- a run ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LMConfig:
    """One language-modelling run: a registry scheme in the lab's tiny model, trained on windows
    of `train_len` characters and scored at train_len x `factors`.

    The defaults are the configuration measured in the prototype: 2 layers of
    width 64 with 4 heads (~110k parameters), batch 32, 750 steps (1.5 M characters seen), AdamW
    at lr 1e-2 with the lab's warm-up and cosine decay; a learned table has L rows (no code past
    L); T5's causal buckets use max_distance = L/2 (`t5_max_distance`), so that every bucket is
    reached in training (with T5's 128 and L = 64 the far buckets stay untrained and its
    perplexity doubles by 4L: a different experiment). `corpus` "" is the shipped text."""

    scheme: str = "alibi"
    train_len: int = 64
    factors: tuple[int, ...] = (1, 2, 4, 8)
    steps: int = 750
    batch: int = 32
    lr: float = 1e-2
    seed: int = 0
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    eval_chars: int = 32_768
    t5_max_distance: int = 32
    corpus: str = ""

    def __post_init__(self) -> None:
        lab.check_model(self)
        length = whole_number(self.train_len, "The training length", 2, lab.LIMITS["train_len"])
        factors = tuple(self.factors)
        if not factors or factors[0] != 1:
            raise ValueError("The evaluation lengths start at the training length: the factors must start with 1.")
        for f in factors:
            whole_number(f, "An evaluation factor", 1, MAX_FACTOR)
        if list(factors) != sorted(set(factors)):
            raise ValueError(f"The evaluation factors must increase, got {', '.join(str(f) for f in factors)}.")
        object.__setattr__(self, "factors", tuple(int(f) for f in factors))
        longest = length * factors[-1]
        chars = whole_number(self.eval_chars, "The held-out characters scored", longest, 1_000_000)
        if chars % longest:
            raise ValueError(
                f"The held-out characters scored ({chars:,}) must fill whole windows of the longest evaluation length {longest:,}, "
                "so that every length is scored on the same characters."
            )
        whole_number(self.t5_max_distance, "T5's max_distance", 2, 4096)

    @property
    def eval_lens(self) -> tuple[int, ...]:
        """The evaluation lengths, train_len x factors: (L, 2L, 4L, 8L) by default."""
        return tuple(self.train_len * f for f in self.factors)

    @property
    def setting(self) -> Setting:
        """The registry setting of the model: a table of train_len rows, heads, seed."""
        return Setting(width=self.d_model, train_len=self.train_len, n_heads=self.n_heads, seed=self.seed)

    @property
    def tokens(self) -> int:
        """Size of the vocabulary: the corpus's distinct characters."""
        return load_corpus(self.corpus).tokens

    def with_scheme(self, scheme: str) -> LMConfig:
        return replace(self, scheme=scheme)

    def fields(self) -> dict[str, object]:
        """The configuration as plain values (JSON), without the scheme."""
        out = asdict(self)
        out.pop("scheme")
        out["factors"] = list(self.factors)
        return out


def config_from(values: dict[str, object], scheme: str) -> LMConfig:
    """An LMConfig from `LMConfig.fields()` as written to JSON, for `scheme`; unknown keys are ignored."""
    known = {f.name for f in fields(LMConfig)} - {"scheme"}
    kept = {k: (tuple(v) if k == "factors" else v) for k, v in values.items() if k in known}
    return LMConfig(scheme=scheme, **kept)


@dataclass(frozen=True, eq=False)
class LMResult:
    """What one run gives: perplexity[n] on held-out windows of n characters, or None where the
    scheme has no code (notes[n] says why) or the run was stopped; losses (steps run,) the
    training loss per step; wall seconds of training and of evaluation, and CPU seconds of both
    (the run's thread: what other work on the machine does not inflate); `state` the trained
    weights by parameter name (float32 numpy arrays, what core.lab.weights writes), None when
    the run was stopped."""

    config: LMConfig
    losses: np.ndarray
    perplexity: dict[int, float | None]
    notes: dict[int, str]
    seconds: float
    eval_seconds: float
    tokens_per_s: float
    stopped: bool
    cpu_seconds: float = float("nan")
    state: dict[str, np.ndarray] | None = field(default=None, repr=False)

    @property
    def steps_done(self) -> int:
        return int(self.losses.size)

    def ratio(self, factor: int = 4) -> float | None:
        """ppl(factor x L) / ppl(L), or None where either is missing."""
        return ratio(self.perplexity, self.config.train_len, factor)


def ratio(perplexity: dict[int, float | None], train_len: int, factor: int = 4) -> float | None:
    """ppl(factor x L) / ppl(L) from a {length: perplexity} dict, None where either is missing."""
    base, far = perplexity.get(train_len), perplexity.get(factor * train_len)
    return None if base is None or far is None else far / base


# --- the budget -------------------------------------------------------------------------------
# The real-text comparison is longer than the synthetic lab allows (about a minute per scheme, six
# minutes for six), so it has its own limits, and its time is estimated with the lab's fitted
# constants (core.lab.config: the same model, the same kind of step) and its evaluation passes.

LM_RUN_SECONDS = 480.0  # estimated seconds for all the schemes of one run (six schemes at the defaults: about 6 minutes)
LM_WALL_SECONDS = 900.0  # a run still going this long after it started training is stopped (a loaded machine runs slower)


def estimate(config: LMConfig) -> lab.Estimate:
    """Seconds of training and evaluation, the longest step or pass, and the memory one scheme adds."""
    twin = lab.training_twin(config, 74)  # 74 symbols and the toy tasks' two extra tokens: the Austen text's 76 characters
    train = lab.estimate(twin)
    eval_s, pass_s, eval_bytes = 0.0, 0.0, 0
    for length in config.eval_lens:
        windows = config.eval_chars // length
        chunk = max(1, min(windows, lab.EVAL_SCORES // (config.n_heads * length**2)))
        one, held = lab.eval_pass(twin, chunk, length)
        eval_s += -(-windows // chunk) * one
        pass_s = max(pass_s, one)
        eval_bytes = max(eval_bytes, held)
    return lab.Estimate(train.train_s, eval_s, train.step_s, pass_s, train.peak_bytes + eval_bytes)


def over_budget(configs: Sequence[LMConfig]) -> str | None:
    """Why this run (its configs, one per scheme) is not allowed, in a sentence (the lab's one rule,
    `core.lab.config.refuse`, with the real-text run's own time); None when it is."""
    if not configs:
        return None
    n = len(configs)
    what = f"This run ({n} scheme{'s' if n > 1 else ''} × {configs[0].steps:,} steps on real text)"
    return lab.refuse([estimate(c) for c in configs], LM_RUN_SECONDS, what, "Use fewer steps or schemes, a smaller batch or model.")


# --- shipped results and the paper's numbers --------------------------------------------------


@dataclass(frozen=True)
class Shipped:
    """The results `python -m bench.lab_lm` wrote: the exact `command`, the shared `config`
    (LMConfig fields but the scheme), and per scheme its perplexity by length, train and eval
    seconds; `meta` is the rest (machine, versions, totals)."""

    command: str
    config: dict[str, object]
    perplexity: dict[str, dict[int, float | None]]
    seconds: dict[str, float]
    meta: dict[str, object]

    def config_for(self, scheme: str) -> LMConfig:
        return config_from(self.config, scheme)


def load_shipped(path: str | Path | None = None) -> Shipped:
    """The shipped results (data/lab_lm_results.json), or ValueError with a sentence."""
    p = Path(path) if path else RESULTS_PATH
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
        results = data["results"]
        perplexity = {s: {int(n): (None if v is None else float(v)) for n, v in r["perplexity"].items()} for s, r in results.items()}
        seconds = {s: float(r["train_seconds"]) + float(r["eval_seconds"]) for s, r in results.items()}
        shipped = Shipped(str(data["command"]), dict(data["config"]), perplexity, seconds, {k: v for k, v in data.items() if k not in ("results", "config")})
        for scheme in perplexity:
            shipped.config_for(scheme)  # every scheme's config is a valid one
    except FileNotFoundError:
        raise ValueError(f"The precomputed results ({p.name}) are missing: run python -m bench.lab_lm to make them.") from None
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"The precomputed results ({p.name}) cannot be read ({type(err).__name__}: {err}).") from None
    return shipped


# Press, Smith & Lewis, "Train Short, Test Long: Attention with Linear Biases Enables Input Length
# Extrapolation", ICLR 2022, arXiv:2108.12409. Its Table 2 (perplexity per evaluation length, L = 512)
# is an image in every stored copy of the paper reachable here, so no cell of it is quoted; what its
# text says of each method's extrapolation is (§1, §2.2: read in a stored full text of the paper).
PAPER_CITATION = bibliography.ALIBI.cited
PAPER_TRAIN_LEN = 512
PAPER_NOT_QUOTED = (
    "The paper's Table 2 gives each method's perplexity at every evaluation length, but in every stored copy of the paper that "
    "could be read here the table is an image, so none of its cells is quoted on this page."
)


@dataclass(frozen=True)
class PaperClaim:
    """What the paper's text says of one method trained on PAPER_TRAIN_LEN tokens: up to how many tokens past it the
    perplexity still improves (None when the text gives no such number), in our words, and where it says so."""

    scheme: str
    extra: int | None
    says: str
    where: str


PAPER_CLAIMS = (
    PaperClaim("sinusoidal", 20, "improves up to 20 tokens past L, stays steady to 50 past it, then degrades", "§2.2"),
    PaperClaim("rope", 200, "improves with up to 200 more tokens than it saw in training", "§2.2"),
    PaperClaim("t5", 600, "improves with up to 600 extra tokens", "§2.2"),
    PaperClaim("alibi", None, "peaks at around twice the training length and stays strong on inputs of 10,000 tokens", "§1"),
)
