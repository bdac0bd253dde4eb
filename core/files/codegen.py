r"""The code behind a view: a NumPy function and a PyTorch module that reproduce a scheme at the
app's settings, as source text a page shows for copying.

`generate(name, setting, ...)` returns both sources. Each is self-contained (it imports math,
numpy and torch only, never this app), readable (a docstring with the formula, the settings
written in as constants), and has one entry point:

- added schemes (and "none", which adds zeros): `positional_encoding(positions) -> (L, d)` and
  a module whose `forward(positions)` returns the same, to be added to the token vectors;
- RoPE: `rotate(x, positions) -> x'` for queries or keys (..., L, head_dim), with the chosen
  pair layout and scaling rule; the module's `forward(x, positions)`;
- bias schemes: `attention_bias(q_positions, k_positions) -> (H, Lq, Lk)`, added to the
  attention scores (Shaw's also takes the queries `q`); the module's `forward` the same.

The sources are assembled from one template per way a scheme is applied (registry.ADDED,
ROTARY, BIAS) and a small formula snippet per scheme (`_ADDED`, `_ROPE_RULES`, `_BIAS`), each
written with the same floating-point operations as the core function it mirrors.
tests/core/test_codegen.py executes every generated source and compares it with core, so the
code a page shows cannot drift from what the page draws.

Tables a model learns (learned, T5, Shaw) are written at the values the app draws: their
initialisation (learned, Shaw), or the illustrative values (T5). Both sources draw them with
numpy, so the torch module starts from exactly the same numbers.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from core.schemes import rope
from core.schemes.registry import ADDED, BIAS, NOTHING, ROTARY, SCHEMES, SHAW_CLIP, T5_BUCKETS, T5_MAX_DISTANCE, Setting

LEARNED_STD = 0.02  # core.schemes.learned's default: Hugging Face's initializer_range for BERT and GPT-2
SHAW_STD = 0.02  # core.schemes.relative.shaw_table's default
T5_NOISE = 0.1  # core.schemes.relative.t5_demo_bucket_values's default


@dataclass(frozen=True)
class GeneratedCode:
    """Two sources for one scheme and its settings, and a sentence saying what they compute.
    `numpy_entry` is the function the NumPy source defines, `torch_entry` the nn.Module class."""

    numpy_source: str
    torch_source: str
    what: str
    numpy_entry: str
    torch_entry: str
    applied: str


class Expr(str):
    """A constant's value written as an expression (`BASE * FACTOR ** ...`), not a literal."""


def literal(value: object) -> str:
    """A number as Python source that reads back to the same value: 128, 10000.0, 0.02."""
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return repr(float(value))


@dataclass(frozen=True)
class _Formula:
    """What one scheme puts into a template. Code blocks are written unindented; the template
    indents them. `shared` (pure Python or NumPy helpers) goes into both sources."""

    title: str
    formula: str
    constants: tuple[tuple[str, object, str], ...]
    numpy_body: str
    torch_body: str
    torch_class: str
    shared: str = ""
    numpy_helpers: str = ""
    torch_helpers: str = ""
    torch_init: str = ""
    numpy_checks: str = ""
    torch_checks: str = ""


def _code(*pieces: str) -> str:
    """Pieces of code, each dedented on its own, one after the other."""
    return "\n".join(textwrap.dedent(piece).strip("\n") for piece in pieces)


def _block(code: str, indent: int) -> str:
    code = textwrap.dedent(code).strip("\n")
    return textwrap.indent(code, " " * indent) if code else ""


def _join(*parts: str) -> str:
    """Source parts separated by blank lines (two before a def or class), empty parts left out."""
    out, after_def = "", False
    for part in parts:
        part = part.strip("\n")
        if not part:
            continue
        if out:
            out += "\n\n\n" if after_def or part.startswith(("def ", "class ", "@")) else "\n\n"
        out += part
        top_level = [line for line in part.splitlines() if line and not line[0].isspace()]
        after_def = top_level[-1].startswith(("def ", "class ", "@"))
    return out + "\n"


def _constants(constants: tuple[tuple[str, object, str], ...]) -> str:
    lines = []
    for name, value, comment in constants:
        line = f"{name} = {literal(value)}"
        lines.append(f"{line}  # {comment}" if comment else line)
    return "\n".join(lines)


def _imports(code: str, *, torch: bool) -> str:
    lines = ["import math"] if "math." in code else []
    if "np." in code:
        lines.append("import numpy as np")
    if torch:
        lines += ["import torch", "from torch import nn"]
    return "\n".join(lines)


def _wrap(line: str, width: int = 108) -> str:
    """A long line of prose wrapped to `width`, continuation lines indented like the first."""
    indent = line[: len(line) - len(line.lstrip())]
    return textwrap.fill(line, width, initial_indent="", subsequent_indent=indent + "  ", break_long_words=False, break_on_hyphens=False) if len(line) > width else line


def _docstring(title: str, formula: str, settings: str, usage: str) -> str:
    body = "\n".join(_wrap("    " + line) for line in textwrap.dedent(formula).strip("\n").splitlines())
    return f'"""{title}, as the Positional Encoding Explorer draws it.\n\n{body}\n\n{_wrap(f"Settings: {settings}.")}\nUsage: {usage}\n"""'


def _source(doc: str, body: str, *, torch: bool) -> str:
    """A module: docstring, the imports the body uses, the body."""
    return _join(doc, _imports(body, torch=torch), body)


# ============================================================================================
# Added schemes (and "none"): positional_encoding(positions) -> (L, d)
# ============================================================================================

_TABLE_CHECKS_NP = """
if p.size and (np.any(p < 0) or np.any(p != np.round(p))):
    raise ValueError("{label} codes exist only for whole positions 0, 1, 2, ...")
if p.size and p.max() >= TABLE_ROWS:
    raise ValueError(f"{label} has codes for positions 0 to {{TABLE_ROWS - 1:,}} only; position {{int(p.max()):,}} has none: a table cannot extrapolate.")
"""
_TABLE_CHECKS_TORCH = """
if p.numel() and (bool((p < 0).any()) or bool((p != p.round()).any())):
    raise ValueError("{label} codes exist only for whole positions 0, 1, 2, ...")
if p.numel() and p.max() >= TABLE_ROWS:
    raise ValueError(f"{label} has codes for positions 0 to {{TABLE_ROWS - 1:,}} only; position {{int(p.max()):,}} has none: a table cannot extrapolate.")
"""


def _table_checks(label: str) -> dict[str, str]:
    return {"numpy_checks": _TABLE_CHECKS_NP.format(label=label), "torch_checks": _TABLE_CHECKS_TORCH.format(label=label)}


def _none(s: Setting) -> _Formula:
    return _Formula(
        "No positional encoding (NoPE)",
        "PE(p) = 0: nothing is added, so attention sees a bag of words (a causal mask aside).\nThe function returns zeros so that code written for an added encoding still runs.",
        (("D_MODEL", s.width, "width of each token vector"),),
        "code = np.zeros((p.size, D_MODEL))",
        "code = torch.zeros(p.numel(), D_MODEL, dtype=torch.float64)",
        "NoPositionalEncoding",
    )


def _integer(s: Setting) -> _Formula:
    return _Formula(
        "Integer positions",
        "PE(p)_j = p in every dimension j: unbounded, it grows with the position.",
        (("D_MODEL", s.width, "width of each token vector"),),
        "code = np.repeat(p[:, None], D_MODEL, axis=1)  # (L, D_MODEL)",
        "code = p[:, None].repeat(1, D_MODEL)  # (L, D_MODEL)",
        "IntegerPositions",
    )


def _fraction(s: Setting) -> _Formula:
    return _Formula(
        "Fraction of the length",
        "PE(p)_j = p / MAX_LEN in every dimension j: bounded, but a position's code depends on the length.",
        (("D_MODEL", s.width, "width of each token vector"), ("MAX_LEN", s.train_len, "the sequence length L")),
        "code = np.repeat((p / MAX_LEN)[:, None], D_MODEL, axis=1)  # (L, D_MODEL)",
        "code = (p / MAX_LEN)[:, None].repeat(1, D_MODEL)  # (L, D_MODEL)",
        "FractionPositions",
    )


def _binary(s: Setting) -> _Formula:
    return _Formula(
        "Binary positions",
        "PE(p)_b = bit b of p, least significant first, in the first n_bits columns; zeros after.\nn_bits = min(D_MODEL, bits needed to count to max(MAX_LEN, largest position + 1) - 1).",
        (("D_MODEL", s.width, "width of each token vector"), ("MAX_LEN", s.train_len, "positions 0 .. MAX_LEN-1 set the number of bits")),
        """
        last = int(p.max(initial=0))
        n_bits = min(D_MODEL, max(1, (max(last + 1, MAX_LEN) - 1).bit_length()))
        code = np.zeros((p.size, D_MODEL))
        code[:, :n_bits] = (p.astype(np.int64)[:, None] >> np.arange(n_bits)[None, :]) & 1  # (L, n_bits)
        """,
        """
        last = max(int(p.max()), 0) if p.numel() else 0
        n_bits = min(D_MODEL, max(1, (max(last + 1, MAX_LEN) - 1).bit_length()))
        code = torch.zeros(p.numel(), D_MODEL, dtype=torch.float64)
        code[:, :n_bits] = ((p.long()[:, None] >> torch.arange(n_bits)[None, :]) & 1).double()  # (L, n_bits)
        """,
        "BinaryPositions",
    )


def _onehot(s: Setting) -> _Formula:
    return _Formula(
        "One-hot positions",
        "PE(p) = e_p, 1 in column p and 0 elsewhere: no two positions are nearer than any other,\nand positions from TABLE_ROWS = min(D_MODEL, MAX_LEN) on have no code.",
        (
            ("D_MODEL", s.width, "width of each token vector"),
            ("MAX_LEN", s.train_len, "positions the table was built for"),
            ("TABLE_ROWS", Expr("min(D_MODEL, MAX_LEN)"), "first position without a code"),
        ),
        """
        code = np.zeros((p.size, D_MODEL))
        code[np.arange(p.size), p.astype(np.int64)] = 1.0
        """,
        """
        code = torch.zeros(p.numel(), D_MODEL, dtype=torch.float64)
        code[torch.arange(p.numel()), p.long()] = 1.0
        """,
        "OneHotPositions",
        **_table_checks("one-hot"),
    )


def _sinusoidal(s: Setting) -> _Formula:
    return _Formula(
        "Sinusoidal positional encoding (Vaswani et al., 2017)",
        """
        PE(p)_2i   = sin(p * w_i),   w_i = BASE^(-2i / D_MODEL)
        PE(p)_2i+1 = cos(p * w_i)
        Column j uses w_(j // 2); with an odd D_MODEL the last column is a sine alone.
        """,
        (
            ("D_MODEL", s.width, "width of each token vector"),
            ("MAX_LEN", s.train_len, "the app draws positions 0 .. MAX_LEN-1; the formula takes any position"),
            ("BASE", float(s.base), "sets the slowest wavelength, 2 pi BASE"),
        ),
        """
        i = np.arange((D_MODEL + 1) // 2, dtype=np.float64)  # pair index
        omega = np.power(BASE, -2.0 * i / D_MODEL)  # radians per position, fastest first
        j = np.arange(D_MODEL)
        angle = p[:, None] * omega[j // 2][None, :]  # (L, D_MODEL)
        code = np.where(j % 2 == 1, np.cos(angle), np.sin(angle))  # sin in even columns, cos in odd
        """,
        """
        angle = p[:, None] * self.omega[None, :]  # (L, D_MODEL)
        code = torch.where(self.is_cos, torch.cos(angle), torch.sin(angle))
        """,
        "SinusoidalEncoding",
        torch_init="""
        i = torch.arange((D_MODEL + 1) // 2, dtype=torch.float64)  # pair index
        j = torch.arange(D_MODEL)
        self.register_buffer("omega", torch.pow(BASE, -2.0 * i / D_MODEL)[j // 2])  # (D_MODEL,) radians per position
        self.register_buffer("is_cos", j % 2 == 1)  # sin in even columns, cos in odd
        """,
    )


def _t2t(s: Setting) -> _Formula:
    return _Formula(
        "Sinusoidal encoding as tensor2tensor and fairseq write it",
        """
        n = D_MODEL // 2 frequencies from 1/MIN_TIMESCALE down to exactly 1/MAX_TIMESCALE, spaced over n - 1:
        inv_k = MIN_TIMESCALE * exp(-k * log(MAX_TIMESCALE / MIN_TIMESCALE) / (n - 1))
        PE(p) = [sin(p * inv_0) .. sin(p * inv_n-1), cos(p * inv_0) .. cos(p * inv_n-1)] (+ a zero column if D_MODEL is odd)
        """,
        (
            ("D_MODEL", s.width, "width of each token vector"),
            ("MAX_LEN", s.train_len, "the app draws positions 0 .. MAX_LEN-1; the formula takes any position"),
            ("MIN_TIMESCALE", 1.0, ""),
            ("MAX_TIMESCALE", float(s.base), "the app's base"),
        ),
        """
        n = D_MODEL // 2
        log_increment = np.log(MAX_TIMESCALE / MIN_TIMESCALE) / max(n - 1, 1)
        inv_timescales = MIN_TIMESCALE * np.exp(-log_increment * np.arange(n, dtype=np.float64))  # (n,)
        scaled = p[:, None] * inv_timescales[None, :]  # (L, n)
        code = np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)
        if D_MODEL % 2:
            code = np.pad(code, ((0, 0), (0, 1)))  # a zero column for an odd width
        """,
        """
        scaled = p[:, None] * self.inv_timescales[None, :]  # (L, D_MODEL // 2)
        code = torch.cat([torch.sin(scaled), torch.cos(scaled)], dim=1)
        if D_MODEL % 2:
            code = nn.functional.pad(code, (0, 1))  # a zero column for an odd width
        """,
        "TimingSignal",
        torch_init="""
        n = D_MODEL // 2
        log_increment = math.log(MAX_TIMESCALE / MIN_TIMESCALE) / max(n - 1, 1)
        self.register_buffer("inv_timescales", MIN_TIMESCALE * torch.exp(-log_increment * torch.arange(n, dtype=torch.float64)))  # (n,)
        """,
    )


def _learned(s: Setting) -> _Formula:
    return _Formula(
        "A learned absolute position table at its initialisation",
        """
        PE(p) = row p of a trainable (MAX_LEN, D_MODEL) table, drawn normal(0, STD) before training.
        Row p is drawn by its own generator, np.random.default_rng([SEED, p]), so any row can be drawn
        alone and the PyTorch module starts from exactly the same numbers. Training changes the rows;
        positions from MAX_LEN on have no row: a table cannot extrapolate.
        """,
        (
            ("D_MODEL", s.width, "width of each token vector"),
            ("MAX_LEN", s.train_len, "rows of the table: positions 0 .. MAX_LEN-1"),
            ("TABLE_ROWS", Expr("MAX_LEN"), "first position without a row"),
            ("SEED", int(s.seed), ""),
            ("STD", LEARNED_STD, "Hugging Face's initializer_range for BERT and GPT-2"),
        ),
        """
        code = np.empty((p.size, D_MODEL))
        for row, position in enumerate(p.astype(np.int64).tolist()):
            code[row] = table_row(position)
        """,
        "code = self.embedding(p.long())  # (L, D_MODEL)",
        "LearnedPositionEmbedding",
        shared='''
        def table_row(position):
            """Row `position` of the table at initialisation: its own generator, seeded by (SEED, position). Returns (D_MODEL,)."""
            return np.random.default_rng([SEED, position]).normal(0.0, STD, size=D_MODEL)
        ''',
        torch_init="""
        self.embedding = nn.Embedding(MAX_LEN, D_MODEL, dtype=torch.float64)
        with torch.no_grad():  # the same draw as the NumPy version: MAX_LEN x D_MODEL numbers
            self.embedding.weight.copy_(torch.from_numpy(np.stack([table_row(q) for q in range(MAX_LEN)])))
        """,
        **_table_checks("learned absolute table"),
    )


_ADDED: dict[str, Callable[[Setting], _Formula]] = {
    "none": _none,
    "integer": _integer,
    "fraction": _fraction,
    "binary": _binary,
    "onehot": _onehot,
    "sinusoidal": _sinusoidal,
    "t2t": _t2t,
    "learned": _learned,
}


def _settings_line(f: _Formula) -> str:
    return ", ".join(f"{name} = {literal(value)}" for name, value, _ in f.constants if not isinstance(value, Expr))


def _lines(*parts: str) -> str:
    """Lines of code in order, empty (optional) blocks left out."""
    return "\n".join(part for part in parts if part)


def _added(name: str, s: Setting) -> GeneratedCode:
    f = _ADDED[name](s)
    d, rows = s.width, SCHEMES[name].max_position(s)
    n = min(s.train_len, rows) if rows is not None else s.train_len
    shared = _join(_constants(f.constants), _block(f.shared, 0))
    numpy_fn = _lines(
        "def positional_encoding(positions):",
        '    """The code added to the token vector at each position.\n\n    positions: (L,) position numbers. Returns (L, D_MODEL) float64.\n    """',
        "    p = np.asarray(positions, dtype=np.float64).reshape(-1)  # (L,)",
        _block(f.numpy_checks, 4),
        _block(f.numpy_body, 4),
        "    return code  # (L, D_MODEL)",
    )
    usage = f"pe = positional_encoding(np.arange({n}))  # ({n}, {d})"
    numpy_source = _source(_docstring(f.title, f.formula, _settings_line(f), usage), _join(shared, _block(f.numpy_helpers, 0), numpy_fn), torch=False)

    torch_cls = _lines(
        f"class {f.torch_class}(nn.Module):",
        f'    """{f.title}.\n\n    forward(positions) returns the (L, D_MODEL) code of each position; add it to the\n    token vectors: x = token_embedding(ids) + pe(torch.arange(T)).\n    """',
        "\n    def __init__(self) -> None:",
        "        super().__init__()",
        _block(f.torch_init, 8),
        "\n    def forward(self, positions) -> torch.Tensor:",
        '        """positions (L,) -> (L, D_MODEL) float64."""',
        "        p = torch.as_tensor(positions, dtype=torch.float64).reshape(-1)  # (L,)",
        _block(f.torch_checks, 8),
        _block(f.torch_body, 8),
        "        return code  # (L, D_MODEL)",
    )
    torch_usage = f"pe = {f.torch_class}(); x = x + pe(torch.arange(x.shape[-2]))  # x: (B, T, {d})"
    torch_source = _source(_docstring(f.title, f.formula, _settings_line(f), torch_usage), _join(shared, _block(f.torch_helpers, 0), torch_cls), torch=True)
    what = (
        f"{SCHEMES[name].label}: the code added to the token vector of each position, d_model = {d:,}"
        + (f"; positions 0 to {rows - 1:,} have one" if rows is not None else "; any position has one")
        + f". NumPy: `positional_encoding(positions)` → (L, {d}); PyTorch: `{f.torch_class}()(positions)`, the same."
    )
    if name == "none":
        what = f"{SCHEMES[name].label}: nothing is added; the code returns zeros of width d_model = {d:,}, so a model written for an added encoding runs without one."
    return GeneratedCode(numpy_source, torch_source, what, "positional_encoding", f.torch_class, SCHEMES[name].applied)


# ============================================================================================
# RoPE: rotate(x, positions)
# ============================================================================================

_THETA = "theta = 1.0 / {base} ** (np.arange(0, HEAD_DIM, 2, dtype=np.float64) / HEAD_DIM)  # theta_i = base^(-2i / HEAD_DIM)"


@dataclass(frozen=True)
class _Rule:
    """A frequency rule: its words, its constants and the body of `frequencies()`."""

    words: str
    constants: tuple[tuple[str, object, str], ...]
    body: str
    takes_seq_len: bool = False


def _rule_none(head_dim: int, scaling: rope.RopeScaling | None, ntk_factor: float | None) -> _Rule:
    return _Rule("no scaling", (), _THETA.format(base="BASE") + "\nreturn theta, 1.0")


def _rule_ntk(head_dim: int, scaling: rope.RopeScaling | None, ntk_factor: float | None) -> _Rule:
    return _Rule(
        "NTK-aware base change: base' = BASE * FACTOR^(HEAD_DIM / (HEAD_DIM - 2)); the slowest pair is divided by FACTOR, the fastest kept",
        (("FACTOR", float(ntk_factor), "s: new context over original context"), ("NTK_BASE", Expr("BASE * FACTOR ** (HEAD_DIM / (HEAD_DIM - 2))"), "the enlarged base")),
        _THETA.format(base="NTK_BASE") + "\nreturn theta, 1.0",
    )


def _rule_linear(head_dim: int, scaling: rope.RopeScaling, ntk_factor: float | None) -> _Rule:
    return _Rule(
        "linear (position interpolation): theta_i' = theta_i / FACTOR",
        (("FACTOR", scaling.factor, "s: new context over original context"),),
        _THETA.format(base="BASE") + "\nreturn theta / FACTOR, 1.0",
    )


def _rule_dynamic(head_dim: int, scaling: rope.RopeScaling, ntk_factor: float | None) -> _Rule:
    constants = (("FACTOR", scaling.factor, "s"), ("ORIGINAL_MAX_LEN", scaling.original_max_len, "L: the context the model was trained on"))
    if head_dim == 2:
        body = "# a single pair turns at 1 radian per position whatever the base: nothing to rescale\n" + _THETA.format(base="BASE") + "\nreturn theta, 1.0"
    else:
        body = """
        n = ORIGINAL_MAX_LEN if seq_len is None else max(seq_len, ORIGINAL_MAX_LEN)
        base = BASE * ((FACTOR * n / ORIGINAL_MAX_LEN) - (FACTOR - 1)) ** (HEAD_DIM / (HEAD_DIM - 2))  # grows past L
        """
        body = textwrap.dedent(body).strip("\n") + "\n" + _THETA.format(base="base") + "\nreturn theta, 1.0"
    return _Rule(
        "dynamic NTK: for a sequence of n = max(seq_len, L) positions, base' = BASE * (s n / L - (s - 1))^(HEAD_DIM / (HEAD_DIM - 2))",
        constants,
        body,
        takes_seq_len=True,
    )


def _rule_yarn(head_dim: int, scaling: rope.RopeScaling, ntk_factor: float | None) -> _Rule:
    attention = (
        literal(scaling.attention_factor) if scaling.attention_factor is not None else ("1.0" if scaling.factor <= 1 else "0.1 * math.log(FACTOR) + 1.0")
    )
    rounding = "low, high = math.floor(low), math.ceil(high)  # whole pairs\n    " if scaling.truncate else ""
    body = f'''
    def correction_dim(rotations):
        """The pair index that turns `rotations` times over ORIGINAL_MAX_LEN positions."""
        return HEAD_DIM * math.log(ORIGINAL_MAX_LEN / (rotations * 2 * math.pi)) / (2 * math.log(BASE))

    {_THETA.format(base="BASE")}
    low, high = correction_dim(BETA_FAST), correction_dim(BETA_SLOW)
    {rounding}low, high = max(low, 0), min(high, HEAD_DIM - 1)
    if low == high:
        high += 0.001  # no division by zero
    ramp = np.clip((np.arange(HEAD_DIM // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)  # gamma_i
    keep = 1.0 - ramp
    return (theta / FACTOR) * (1.0 - keep) + theta * keep, ATTENTION_FACTOR
    '''
    return _Rule(
        "YaRN: pairs turning more than BETA_FAST times over L keep theta_i, fewer than BETA_SLOW times get theta_i / s, a linear ramp between; cos and sin are multiplied by ATTENTION_FACTOR",
        (
            ("FACTOR", scaling.factor, "s"),
            ("ORIGINAL_MAX_LEN", scaling.original_max_len, "L: the context the model was trained on"),
            ("BETA_FAST", scaling.beta_fast, ""),
            ("BETA_SLOW", scaling.beta_slow, ""),
            ("ATTENTION_FACTOR", Expr(attention), "on cos and sin"),
        ),
        textwrap.dedent(body).replace("\n    \n", "\n\n").strip("\n"),
    )


def _rule_llama3(head_dim: int, scaling: rope.RopeScaling, ntk_factor: float | None) -> _Rule:
    body = f"""
    {_THETA.format(base="BASE")}
    wavelen = 2 * np.pi / theta
    low_freq_wavelen, high_freq_wavelen = ORIGINAL_MAX_LEN / LOW_FREQ_FACTOR, ORIGINAL_MAX_LEN / HIGH_FREQ_FACTOR
    smooth = (ORIGINAL_MAX_LEN / wavelen - LOW_FREQ_FACTOR) / (HIGH_FREQ_FACTOR - LOW_FREQ_FACTOR)
    inv_freq = np.where(wavelen > low_freq_wavelen, theta / FACTOR, theta)  # long wavelengths interpolated
    is_medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    inv_freq = np.where(is_medium, (1 - smooth) * theta / FACTOR + smooth * theta, inv_freq)  # blended between
    return inv_freq, 1.0
    """
    return _Rule(
        "Llama 3: wavelengths below L / HIGH_FREQ_FACTOR keep theta_i, above L / LOW_FREQ_FACTOR get theta_i / s, blended smoothly between",
        (
            ("FACTOR", scaling.factor, "s"),
            ("ORIGINAL_MAX_LEN", scaling.original_max_len, "L: the context the model was trained on"),
            ("LOW_FREQ_FACTOR", scaling.low_freq_factor, ""),
            ("HIGH_FREQ_FACTOR", scaling.high_freq_factor, ""),
        ),
        textwrap.dedent(body).strip("\n"),
    )


_ROPE_RULES = {"none": _rule_none, "ntk": _rule_ntk, "linear": _rule_linear, "dynamic": _rule_dynamic, "yarn": _rule_yarn, "llama3": _rule_llama3}
_PAIRS = {"half": ("x[..., : HEAD_DIM // 2], x[..., HEAD_DIM // 2 :]", "dimension i with i + HEAD_DIM/2 (rotate_half: Hugging Face Llama, GPT-NeoX)"), "interleaved": ("x[..., 0::2], x[..., 1::2]", "dimension 2i with 2i+1 (RoFormer, Meta's Llama, GPT-J)")}


def _rope(s: Setting, layout: str, scaling: rope.RopeScaling | None, ntk_factor: float | None) -> GeneratedCode:
    head_dim = s.width
    rope.rope_frequencies(head_dim, s.base, scaling)  # the same checks and messages as core
    if ntk_factor is not None:
        rope.ntk_aware_base(s.base, ntk_factor, head_dim)
    kind = "ntk" if ntk_factor is not None else (scaling.kind if scaling is not None else "none")
    rule = _ROPE_RULES[kind](head_dim, scaling, ntk_factor)
    constants = (("HEAD_DIM", head_dim, "width of one head's queries and keys"), ("BASE", float(s.base), ""), ("LAYOUT", layout, _PAIRS[layout][1])) + rule.constants
    arg, call = ("seq_len=None", "frequencies(seq_len=int(pos.max(initial=0)) + 1)") if rule.takes_seq_len else ("", "frequencies()")
    frequencies = f'def frequencies({arg}):\n    """theta_i of each pair, (HEAD_DIM // 2,), and the factor on cos and sin."""\n' + _block(rule.body, 4)
    pairs = _PAIRS[layout][0]
    numpy_fn = f'''
    def rotate(x, positions):
        """Queries or keys x (..., L, HEAD_DIM) at `positions` (L,), rotated: pair (a, b) of the row at
        position m becomes c * (a cos m theta_i - b sin m theta_i, a sin m theta_i + b cos m theta_i)."""
        x = np.asarray(x, dtype=np.float64)
        pos = np.asarray(positions, dtype=np.float64).reshape(-1)  # (L,)
        if x.shape[-1] != HEAD_DIM or x.shape[-2] != pos.size:
            raise ValueError(f"x must be (..., {{pos.size}}, {{HEAD_DIM}}), got {{x.shape}}.")
        inv_freq, c = {call}
        angle = pos[:, None] * inv_freq[None, :]  # (L, HEAD_DIM // 2)
        cos, sin = c * np.cos(angle), c * np.sin(angle)
        a, b = {pairs}  # the two members of every pair
        out = np.empty_like(x)
        out_a, out_b = {pairs.replace("x[", "out[")}
        out_a[...] = a * cos - b * sin
        out_b[...] = a * sin + b * cos
        return out
    '''
    if layout == "half":
        torch_pairs = "a, b = x.chunk(2, dim=-1)  # (..., L, HEAD_DIM // 2) each\n        return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)"
    else:
        torch_pairs = "a, b = x[..., 0::2], x[..., 1::2]  # (..., L, HEAD_DIM // 2) each\n        return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)  # (..., L, HEAD_DIM)"
    per_call = (
        f"        inv_freq, c = {call.replace('pos.max(initial=0)', 'pos.max()')}  # the base grows with the sequence length\n        inv_freq = torch.from_numpy(inv_freq)\n"
        if rule.takes_seq_len
        else "        inv_freq, c = self.inv_freq, self.attention_factor\n"
    )
    torch_cls = f'''class RotaryEmbedding(nn.Module):
    """Rotary position embedding: forward(x, positions) rotates queries or keys x (..., L, HEAD_DIM);
    apply it to q and k of every head before q @ k.transpose(-2, -1)."""

    def __init__(self) -> None:
        super().__init__()
        inv_freq, self.attention_factor = frequencies()
        self.register_buffer("inv_freq", torch.from_numpy(inv_freq))  # (HEAD_DIM // 2,)

    def forward(self, x: torch.Tensor, positions=None) -> torch.Tensor:
        """x (..., L, HEAD_DIM), positions (L,) (0 .. L-1 when None) -> the rotated x."""
        pos = torch.arange(x.shape[-2], dtype=torch.float64) if positions is None else torch.as_tensor(positions, dtype=torch.float64).reshape(-1)
{per_call}        angle = pos[:, None] * inv_freq[None, :]  # (L, HEAD_DIM // 2)
        cos, sin = c * torch.cos(angle), c * torch.sin(angle)
        {torch_pairs}
'''
    formula = f"""
    Pair i of a query or key at position m turns by the angle m * theta_i, theta_i = BASE^(-2i / HEAD_DIM):
        a' = c (a cos(m theta_i) - b sin(m theta_i)),   b' = c (a sin(m theta_i) + b cos(m theta_i))
    so q.k after rotation depends on the offset between the positions only.
    Pairs: {_PAIRS[layout][1]}.
    Frequencies: {rule.words}.
    """
    title = "Rotary position embedding (RoPE, Su et al. 2021)"
    settings = ", ".join(f"{n} = {literal(v)}" for n, v, _ in constants if not isinstance(v, Expr))
    shared = _join(_constants(constants), frequencies)
    numpy_source = _source(_docstring(title, formula, settings, f"q = rotate(q, np.arange(L)); k = rotate(k, np.arange(L))  # q, k: (..., L, {head_dim})"), _join(shared, _block(numpy_fn, 0)), torch=False)
    torch_source = _source(_docstring(title, formula, settings, "rope = RotaryEmbedding(); q, k = rope(q), rope(k)  # q, k: (B, H, T, HEAD_DIM)"), _join(shared, torch_cls), torch=True)
    what = (
        f"RoPE on a head of width {head_dim:,}, {layout} pair layout, {rule.words.split(':')[0]}. "
        f"NumPy: `rotate(x, positions)` for queries or keys (..., L, {head_dim}); PyTorch: `RotaryEmbedding()(x, positions)`, the same."
    )
    return GeneratedCode(numpy_source, torch_source, what, "rotate", "RotaryEmbedding", ROTARY)


# ============================================================================================
# Bias schemes: attention_bias(q_positions, k_positions) -> (H, Lq, Lk)
# ============================================================================================

_WHOLE_NP = """
qp = np.asarray(q_positions, dtype=np.float64).reshape(-1)  # (Lq,)
kp = np.asarray(k_positions, dtype=np.float64).reshape(-1)  # (Lk,)
if np.any(qp != np.round(qp)) or np.any(kp != np.round(kp)):
    raise ValueError("positions must be whole numbers.")
qp, kp = qp.astype(np.int64), kp.astype(np.int64)
"""
_WHOLE_TORCH = """
qp = torch.as_tensor(q_positions, dtype=torch.float64).reshape(-1)  # (Lq,)
kp = torch.as_tensor(k_positions, dtype=torch.float64).reshape(-1)  # (Lk,)
if bool((qp != qp.round()).any()) or bool((kp != kp.round()).any()):
    raise ValueError("positions must be whole numbers.")
qp, kp = qp.long(), kp.long()
"""


def _alibi(s: Setting) -> _Formula:
    return _Formula(
        "ALiBi, attention with linear biases (Press et al., 2022)",
        """
        bias[h, i, j] = -m_h |i - j|, one slope m_h per head: 2^(-8h / N_HEADS) for h = 1 .. N_HEADS when
        N_HEADS is a power of two (otherwise as in the paper's get_slopes). A causal model masks j > i
        anyway, where the paper's form is -m_h (i - j); without a mask the penalty is symmetric.
        """,
        (("N_HEADS", s.n_heads, ""),),
        """
        qp = np.asarray(q_positions, dtype=np.float64).reshape(-1)  # (Lq,)
        kp = np.asarray(k_positions, dtype=np.float64).reshape(-1)  # (Lk,)
        bias = -SLOPES[:, None, None] * np.abs(qp[None, :, None] - kp[None, None, :])  # (H, Lq, Lk)
        """,
        """
        qp = torch.as_tensor(q_positions, dtype=torch.float64).reshape(-1)  # (Lq,)
        kp = torch.as_tensor(k_positions, dtype=torch.float64).reshape(-1)  # (Lk,)
        bias = -self.slopes[:, None, None] * (qp[None, :, None] - kp[None, None, :]).abs()  # (H, Lq, Lk)
        """,
        "ALiBiBias",
        shared='''
        def get_slopes(n):
            """The head slopes of the ALiBi reference code (ofirpress/attention_with_linear_biases)."""

            def power_of_2(n):
                start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))  # 2^(-8/n)
                return [start * start**i for i in range(n)]

            closest = 1 << (n.bit_length() - 1)  # the largest power of two <= n
            if closest == n:
                return power_of_2(n)
            return power_of_2(closest) + power_of_2(2 * closest)[0::2][: n - closest]
        ''',
        numpy_helpers="SLOPES = np.array(get_slopes(N_HEADS))  # (H,)",
        torch_init='self.register_buffer("slopes", torch.tensor(get_slopes(N_HEADS), dtype=torch.float64))  # (H,)',
    )


_T5_VALUES = '''
def bucket_values():
    """The (N_HEADS, NUM_BUCKETS) bias values the app draws. NOT trained: head h penalises bucket b by
    -2^(-h/2) log(1 + nominal distance of b) plus normal noise of std NOISE, a shape trained T5 tables
    tend to have. Put a trained model's values here (in Hugging Face: the first layer's
    relative_attention_bias.weight.T)."""
    per_side = NUM_BUCKETS // 2
    max_exact = per_side // 2
    b = np.arange(per_side, dtype=np.float64)
    nominal = np.where(b < max_exact, b, max_exact * (MAX_DISTANCE / max_exact) ** ((b - max_exact) / (per_side - max_exact)))
    nominal = np.concatenate([nominal, nominal])  # keys before, then after the query
    strength = 2.0 ** (-np.arange(N_HEADS) / 2.0)  # (H,)
    values = -strength[:, None] * np.log1p(nominal)[None, :]  # (H, NUM_BUCKETS)
    return values + np.random.default_rng(SEED).normal(0.0, NOISE, size=values.shape)
'''
_T5_BUCKET_NP = '''
def relative_position_bucket(relative_position):
    """T5's bucket of r = key position - query position (bidirectional, Hugging Face
    T5Attention._relative_position_bucket, in float64). Returns an int array of r's shape."""
    per_side = NUM_BUCKETS // 2  # keys after the query use buckets per_side .. NUM_BUCKETS-1
    max_exact = per_side // 2  # distances below this get a bucket each
    offset = np.where(relative_position > 0, per_side, 0)
    n = np.abs(relative_position)
    scaled = np.log(np.maximum(n, max_exact) / max_exact) / math.log(MAX_DISTANCE / max_exact) * (per_side - max_exact)
    large = np.minimum(max_exact + scaled.astype(np.int64), per_side - 1)  # log-spaced up to MAX_DISTANCE
    return offset + np.where(n < max_exact, n, large)
'''
_T5_BUCKET_TORCH = '''
def relative_position_bucket(relative_position):
    """T5's bucket of r = key position - query position (bidirectional, Hugging Face
    T5Attention._relative_position_bucket, in float64). Returns a long tensor of r's shape."""
    per_side = NUM_BUCKETS // 2  # keys after the query use buckets per_side .. NUM_BUCKETS-1
    max_exact = per_side // 2  # distances below this get a bucket each
    offset = (relative_position > 0).long() * per_side
    n = relative_position.abs()
    scaled = torch.log(n.clamp(min=max_exact).double() / max_exact) / math.log(MAX_DISTANCE / max_exact) * (per_side - max_exact)
    large = (max_exact + scaled.long()).clamp(max=per_side - 1)  # log-spaced up to MAX_DISTANCE
    return offset + torch.where(n < max_exact, n, large)
'''


def _t5(s: Setting) -> _Formula:
    return _Formula(
        "T5 relative position buckets (Raffel et al., 2020)",
        """
        bias[h, i, j] = v[h, bucket(j - i)]: one learned scalar per head and bucket. Distances below
        NUM_BUCKETS / 4 get a bucket each, larger ones share log-spaced buckets up to MAX_DISTANCE, and
        keys after the query use the second half of the buckets. The values here are illustrative.
        """,
        (
            ("N_HEADS", s.n_heads, ""),
            ("NUM_BUCKETS", T5_BUCKETS, "T5's default"),
            ("MAX_DISTANCE", T5_MAX_DISTANCE, "T5's default"),
            ("SEED", int(s.seed), ""),
            ("NOISE", T5_NOISE, ""),
        ),
        _code(_WHOLE_NP) + "\nbias = BUCKET_VALUES[:, relative_position_bucket(kp[None, :] - qp[:, None])]  # (H, Lq, Lk)",
        _code(_WHOLE_TORCH)
        + "\nbuckets = relative_position_bucket(kp[None, :] - qp[:, None])  # (Lq, Lk)\nbias = self.relative_attention_bias(buckets).permute(2, 0, 1)  # (H, Lq, Lk)",
        "T5RelativeBias",
        shared=_T5_VALUES,
        numpy_helpers=_T5_BUCKET_NP + "\n\nBUCKET_VALUES = bucket_values()  # (H, NUM_BUCKETS)",
        torch_helpers=_T5_BUCKET_TORCH,
        torch_init="""
        self.relative_attention_bias = nn.Embedding(NUM_BUCKETS, N_HEADS, dtype=torch.float64)  # as Hugging Face's T5Attention
        with torch.no_grad():  # the same values as the NumPy version
            self.relative_attention_bias.weight.copy_(torch.from_numpy(bucket_values().T))
        """,
    )


def _shaw(s: Setting) -> _Formula:
    return _Formula(
        "Shaw et al.'s relative position keys (2018)",
        """
        bias[h, i, j] = q_i . a_clip(j - i, K) / sqrt(HEAD_DIM), from 2K+1 trainable vectors a_-K .. a_K of head
        width (row r + K of TABLE holds a_r), the part of e_ij = q_i . (k_j + a_ij) / sqrt(HEAD_DIM) that
        positions add (their eq. 5). Each vector is scored against the query once, then indexed by
        clipped distance. Without q, a fixed unit query of entries 1/sqrt(HEAD_DIM) stands in. TABLE holds
        the vectors at their initialisation.
        """,
        (
            ("N_HEADS", s.n_heads, ""),
            ("HEAD_DIM", s.head_width, "d_model // N_HEADS"),
            ("K", SHAW_CLIP, "distances are clipped to -K .. K"),
            ("SEED", int(s.seed), ""),
            ("STD", SHAW_STD, ""),
        ),
        _code(
            _WHOLE_NP,
            """
        ids = np.clip(kp[None, :] - qp[:, None], -K, K) + K  # (Lq, Lk): row of TABLE
        if q is None:
            q = np.full((N_HEADS, qp.size, HEAD_DIM), 1.0 / np.sqrt(HEAD_DIM))  # a fixed unit query
        per_id = q @ TABLE.T / np.sqrt(HEAD_DIM)  # (H, Lq, 2K+1)
        bias = np.take_along_axis(per_id, np.broadcast_to(ids, per_id.shape[:-1] + ids.shape[-1:]), axis=-1)  # (H, Lq, Lk)
        """,
        ),
        _code(
            _WHOLE_TORCH,
            """
        ids = (kp[None, :] - qp[:, None]).clamp(-K, K) + K  # (Lq, Lk): row of the table
        if q is None:
            q = torch.full((N_HEADS, qp.numel(), HEAD_DIM), 1.0 / math.sqrt(HEAD_DIM), dtype=torch.float64)  # a fixed unit query
        per_id = q @ self.table.weight.T / math.sqrt(HEAD_DIM)  # (H, Lq, 2K+1)
        bias = torch.gather(per_id, -1, ids.expand(*per_id.shape[:-1], ids.shape[-1]))  # (H, Lq, Lk)
        """,
        ),
        "ShawRelativeKeys",
        shared="TABLE = np.random.default_rng(SEED).normal(0.0, STD, size=(2 * K + 1, HEAD_DIM))  # a_-K .. a_K at initialisation",
        torch_init="""
        self.table = nn.Embedding(2 * K + 1, HEAD_DIM, dtype=torch.float64)
        with torch.no_grad():  # the same draw as the NumPy version
            self.table.weight.copy_(torch.from_numpy(TABLE))
        """,
    )


_BIAS: dict[str, Callable[[Setting], _Formula]] = {"alibi": _alibi, "t5": _t5, "shaw": _shaw}


def _bias(name: str, s: Setting) -> GeneratedCode:
    f = _BIAS[name](s)
    q_arg = ", q=None" if name == "shaw" else ""
    q_doc = "\n    q: the queries (H, Lq, HEAD_DIM), or None for a fixed unit query." if name == "shaw" else ""
    shared = _join(_constants(f.constants), _block(f.shared, 0))
    numpy_fn = (
        f'def attention_bias(q_positions, k_positions{q_arg}):\n    """What is added to the attention scores of queries at q_positions and keys at k_positions.{q_doc}\n    Returns (N_HEADS, Lq, Lk) float64."""\n'
        + _block(f.numpy_body, 4)
        + "\n    return bias"
    )
    init = _block(f.torch_init, 8)
    torch_cls = (
        f'class {f.torch_class}(nn.Module):\n    """{f.title}.\n\n    forward(q_positions, k_positions{q_arg}) returns the (N_HEADS, Lq, Lk) bias; add it to the\n    scores: q @ k.transpose(-2, -1) / math.sqrt(head_dim) + bias.\n    """\n\n'
        "    def __init__(self) -> None:\n        super().__init__()\n"
        + (init + "\n" if init else "")
        + f'\n    def forward(self, q_positions, k_positions{q_arg}) -> torch.Tensor:\n        """Queries at q_positions (Lq,), keys at k_positions (Lk,) -> (N_HEADS, Lq, Lk).{q_doc.replace(chr(10) + "    ", chr(10) + "        ")}"""\n'
        + _block(f.torch_body, 8)
        + "\n        return bias\n"
    )
    settings = _settings_line(f)
    usage = f"bias = attention_bias(np.arange(L), np.arange(L))  # ({s.n_heads}, L, L)"
    numpy_source = _source(_docstring(f.title, f.formula, settings, usage), _join(shared, _block(f.numpy_helpers, 0), numpy_fn), torch=False)
    torch_usage = f"scores = scores + {f.torch_class}()(torch.arange(T), torch.arange(T))  # scores: (B, {s.n_heads}, T, T)"
    torch_source = _source(_docstring(f.title, f.formula, settings, torch_usage), _join(shared, _block(f.torch_helpers, 0), torch_cls), torch=True)
    what = (
        f"{SCHEMES[name].label} with {s.n_heads} heads: the bias added to the attention scores. "
        f"NumPy: `attention_bias(q_positions, k_positions{q_arg})` → (H, Lq, Lk); PyTorch: `{f.torch_class}()(q_positions, k_positions{q_arg})`, the same."
    )
    return GeneratedCode(numpy_source, torch_source, what, "attention_bias", f.torch_class, BIAS)


# ============================================================================================


def generate(
    scheme_name: str,
    setting: Setting,
    *,
    layout: str = "half",
    scaling: rope.RopeScaling | None = None,
    ntk_factor: float | None = None,
    table_len: int | None = None,
) -> GeneratedCode:
    """The NumPy and PyTorch code that reproduce `scheme_name` (a key of registry.SCHEMES) at
    `setting`, as the registry's hooks compute it (width = d_model for added schemes and the head
    width for RoPE; n_heads and seed for bias schemes; train_len is MAX_LEN, the rows of a table).

    RoPE only: `layout` ("half" or "interleaved"), and either `scaling` (a core.schemes.rope.RopeScaling)
    or `ntk_factor` (the NTK-aware base change, core.schemes.rope.ntk_aware_base). `table_len`, when
    given, replaces setting.train_len. Settings that core refuses raise its ValueError.
    Returns a GeneratedCode.
    """
    if scheme_name not in SCHEMES:
        raise ValueError(f"Unknown scheme {scheme_name!r}; choose one of {', '.join(SCHEMES)}.")
    if table_len is not None:
        setting = replace(setting, train_len=table_len)
    applied = SCHEMES[scheme_name].applied
    if scaling is not None and ntk_factor is not None:
        raise ValueError("Give a RopeScaling or an NTK factor, not both.")
    if (scaling is not None or ntk_factor is not None or layout != "half") and applied != ROTARY:
        raise ValueError(f"A pair layout or a scaling applies to RoPE only, not to {SCHEMES[scheme_name].label}.")
    if applied == ROTARY:
        rope._check_layout(layout)  # noqa: SLF001 (core's own message)
        return _rope(setting, layout, scaling, ntk_factor)
    if applied == BIAS:
        return _bias(scheme_name, setting)
    assert applied in (ADDED, NOTHING)
    return _added(scheme_name, setting)
