r"""The code behind a view: a NumPy function and a PyTorch module that reproduce a scheme at the
app's settings, as source text a page shows for copying, and for the added schemes and RoPE a Keras 3 layer.

`generate(name, setting, ...)` returns the sources. Each is self-contained (it imports math,
numpy and torch only, never this app), readable (a docstring with the formula, the settings
written in as constants), and has one entry point:

- added schemes (and "none", which adds zeros): `positional_encoding(positions) -> (L, d)` and
  a module whose `forward(positions)` returns the same, to be added to the token vectors;
- RoPE: `rotate(x, positions) -> x'` for queries or keys (..., L, head_dim), with the chosen
  pair layout and scaling rule; the module's `forward(x, positions)`;
- bias schemes: `attention_bias(q_positions, k_positions) -> (H, Lq, Lk)`, added to the
  attention scores (Shaw's also takes the queries `q`); the module's `forward` the same.

The sources are assembled from one template per way a scheme is applied around the scheme's own
`Formula` (core.schemes.formula), so a new scheme needs nothing here. tests/core/files/test_codegen.py
executes every generated source and compares it with core, so the code a page shows cannot drift
from what the page draws (the Keras layers, on Keras's torch backend: test_codegen_keras.py).

The Keras 3 layer (`keras_source`) carries the NumPy source it is built from and works through
keras.ops, so it runs on any Keras backend: `AddPositions` holds the code of positions 0 .. max_len - 1
as a weight (trainable for a table a model learns) and adds it; `RotaryEmbedding` turns pairs by the
NumPy source's frequencies. Bias schemes, and a partial rotary factor (/context's presets), have none.

Tables a model learns (learned, T5, Shaw) are written at the values the app draws: their
initialisation (learned, Shaw), or the illustrative values (T5). Both sources draw them with
numpy, so the torch module starts from exactly the same numbers.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from core.schemes import rope
from core.schemes.formula import Constant, Expr, Formula, literal
from core.schemes.registry import ADDED, BIAS, NOTHING, ROTARY, SCHEMES, Scheme, Setting


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
    keras_source: str | None = None  # a Keras 3 layer, keras_entry its class; None where none is written
    keras_entry: str | None = None


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


def _constants(constants: tuple[Constant, ...]) -> str:
    lines = []
    for name, value, comment in constants:
        line = f"{name} = {literal(value)}"
        lines.append(f"{line}  # {comment}" if comment else line)
    return "\n".join(lines)


def _imports(code: str, *, torch: bool, keras: bool = False) -> str:
    lines = ["import math"] if "math." in code else []
    if "np." in code:
        lines.append("import numpy as np")
    if torch:
        lines += ["import torch", "from torch import nn"]
    if keras:
        lines.append("import keras  # Keras 3, on the backend KERAS_BACKEND names (jax, tensorflow or torch)")
    return "\n".join(lines)


def _wrap(line: str, width: int = 108) -> str:
    """A long line of prose wrapped to `width`, continuation lines indented like the first."""
    indent = line[: len(line) - len(line.lstrip())]
    return (
        textwrap.fill(line, width, initial_indent="", subsequent_indent=indent + "  ", break_long_words=False, break_on_hyphens=False)
        if len(line) > width
        else line
    )


def _docstring(title: str, formula: str, settings: str, usage: str) -> str:
    body = "\n".join(_wrap("    " + line) for line in textwrap.dedent(formula).strip("\n").splitlines())
    return f'"""{title}, as the Positional Encoding Explorer draws it.\n\n{body}\n\n{_wrap(f"Settings: {settings}.")}\nUsage: {usage}\n"""'


def _source(doc: str, body: str, *, torch: bool, keras: bool = False) -> str:
    """A module: docstring, the imports the body uses, the body."""
    return _join(doc, _imports(body, torch=torch, keras=keras), body)


# ============================================================================================
# Added schemes (and "none"): positional_encoding(positions) -> (L, d)
# ============================================================================================


def _settings_line(f: Formula) -> str:
    return ", ".join(f"{name} = {literal(value)}" for name, value, _ in f.constants if not isinstance(value, Expr))


def _lines(*parts: str) -> str:
    """Lines of code in order, empty (optional) blocks left out."""
    return "\n".join(part for part in parts if part)


def _added(scheme: Scheme, s: Setting, f: Formula) -> GeneratedCode:
    d, rows = s.width, scheme.max_position(s)
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
        f'    """{f.title}.\n'
        '\n'
        '    forward(positions) returns the (L, D_MODEL) code of each position; add it to the\n'
        '    token vectors: x = token_embedding(ids) + pe(torch.arange(T)).\n'
        '    """',
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
    layer_cls = _lines(
        "class AddPositions(nn.Module):",
        '    """The layer a model puts right after its token embedding: x + PE, then dropout, as the\n'
        "    Transformer paper applies dropout (0.1 in its base model) to the sums of the embeddings and the\n"
        "    positional encodings (Vaswani et al. 2017, section 5.4).\n"
        "\n"
        "    forward(x): x holds a batch of B sequences of T token vectors, (B, T, D_MODEL); the (T, D_MODEL)\n"
        "    code of positions 0 .. T-1 is added to every sequence of the batch (broadcast), so the shape stays.\n"
        '    """',
        "\n    def __init__(self, dropout: float = 0.1) -> None:",
        "        super().__init__()",
        f"        self.pe = {f.torch_class}()",
        "        self.dropout = nn.Dropout(dropout)",
        "\n    def forward(self, x: torch.Tensor) -> torch.Tensor:",
        '        """x (B, T, D_MODEL) -> (B, T, D_MODEL), in x\'s dtype and device."""',
        "        code = self.pe(torch.arange(x.shape[-2], device=x.device)).to(device=x.device, dtype=x.dtype)  # (T, D_MODEL)",
        "        return self.dropout(x + code[None, :, :])  # (1, T, D_MODEL) broadcast over the batch -> (B, T, D_MODEL)",
    )
    torch_usage = f"layer = AddPositions(dropout=0.1); x = layer(token_embedding(ids))  # ids: (B, T) -> x: (B, T, {d})"
    torch_source = _source(
        _docstring(f.title, f.formula, _settings_line(f), torch_usage), _join(shared, _block(f.torch_helpers, 0), torch_cls, layer_cls), torch=True
    )
    learns = scheme.parameters(s) > 0
    keras_cls = _lines(
        "class AddPositions(keras.layers.Layer):",
        '    """The layer a model puts right after its token embedding, as a Keras 3 layer: x + PE, then dropout.\n'
        "\n"
        "    It holds the code of positions 0 .. POSITIONS-1 as a weight, "
        + (
            "trainable (the table a model learns), starting from\n    positional_encoding's values. "
            if learns
            else "fixed: positional_encoding's values.\n    "
        )
        + "call(x): x holds B sequences of T <= POSITIONS token vectors, (B, T, D_MODEL);\n"
        "    the code of positions 0 .. T-1 is added to every sequence, so the shape stays.\n"
        '    """',
        "\n    def __init__(self, dropout=0.1, **kwargs):",
        "        super().__init__(**kwargs)",
        "        self.dropout = keras.layers.Dropout(dropout, dtype=self.dtype_policy)  # computes in the layer's dtype",
        f'        self.code = self.add_weight(shape=(POSITIONS, D_MODEL), initializer="zeros", trainable={learns}, name="position_code")',
        "        self.code.assign(positional_encoding(np.arange(POSITIONS)))  # (POSITIONS, D_MODEL)",
        "\n    def call(self, x, training=None):",
        '        """x (B, T, D_MODEL) -> (B, T, D_MODEL), in the layer\'s compute dtype."""',
        "        length = x.shape[-2]",
        "        if length is not None and length > POSITIONS:",
        '            raise ValueError(f"This layer holds the code of positions 0 to {POSITIONS - 1}; a sequence of {length} is longer.")',
        "        code = keras.ops.cast(self.code[: keras.ops.shape(x)[-2]], x.dtype)  # (T, D_MODEL)",
        "        return self.dropout(x + code[None, :, :], training=training)  # (1, T, D_MODEL) broadcast over the batch",
    )
    keras_usage = f"layer = AddPositions(dropout=0.1); x = layer(token_embedding(ids))  # ids: (B, T), T <= {n} -> x: (B, T, {d})"
    positions = f"POSITIONS = {n}  # the layer holds the code of positions 0 .. POSITIONS-1: the settings' max_len"
    keras_source = _source(
        _docstring(f.title, f.formula, _settings_line(f), keras_usage),
        _join(_constants(f.constants) + "\n" + positions, _block(f.shared, 0), _block(f.numpy_helpers, 0), numpy_fn, keras_cls),
        torch=False,
        keras=True,
    )
    what = (
        f"{scheme.label}: the code added to the token vector of each position, d_model = {d:,}"
        + (f"; positions 0 to {rows - 1:,} have one" if rows is not None else "; any position has one")
        + f". NumPy: `positional_encoding(positions)` → (L, {d}); PyTorch: `{f.torch_class}()(positions)`, the same."
    )
    if f.what:
        what = f.what.format(label=scheme.label, d=d)
    return GeneratedCode(numpy_source, torch_source, what, "positional_encoding", f.torch_class, scheme.applied, keras_source, "AddPositions")


# ============================================================================================
# RoPE: rotate(x, positions)
# ============================================================================================

_PAIRS = {"half": "x[..., : HEAD_DIM // 2], x[..., HEAD_DIM // 2 :]", "interleaved": "x[..., 0::2], x[..., 1::2]"}


_PARTIAL_PAIRS = {"half": "x[..., :n], x[..., n : 2 * n]", "interleaved": "x[..., 0 : 2 * n : 2], x[..., 1 : 2 * n : 2]"}


def _rotary(scheme: Scheme, s: Setting, f: Formula) -> GeneratedCode:
    """rotate() and RotaryEmbedding around the scheme's frequencies(). When the formula has a
    ROTARY_DIM constant (partial rotary, `core.schemes.rope.source`), only the first 2 n dimensions
    turn (n = the number of frequencies) and the others are copied through unchanged."""
    head_dim, layout = s.width, s.layout
    call = "frequencies(seq_len=int(pos.max(initial=0)) + 1)" if f.takes_seq_len else "frequencies()"
    partial = any(name == "ROTARY_DIM" for name, _, _ in f.constants)
    pairs = _PARTIAL_PAIRS[layout] if partial else _PAIRS[layout]
    width = "n" if partial else "HEAD_DIM // 2"
    count = "\n        n = inv_freq.size  # turning pairs: the first 2n dimensions rotate, the rest pass through" if partial else ""
    numpy_fn = f'''
    def rotate(x, positions):
        """Queries or keys x (..., L, HEAD_DIM) at `positions` (L,), rotated: pair (a, b) of the row at
        position m becomes c * (a cos m theta_i - b sin m theta_i, a sin m theta_i + b cos m theta_i)."""
        x = np.asarray(x, dtype=np.float64)
        pos = np.asarray(positions, dtype=np.float64).reshape(-1)  # (L,)
        if x.shape[-1] != HEAD_DIM or x.shape[-2] != pos.size:
            raise ValueError(f"x must be (..., {{pos.size}}, {{HEAD_DIM}}), got {{x.shape}}.")
        inv_freq, c = {call}{count}
        angle = pos[:, None] * inv_freq[None, :]  # (L, {width})
        cos, sin = c * np.cos(angle), c * np.sin(angle)
        a, b = {pairs}  # the two members of every pair
        out = {"x.copy()  # the dimensions that do not rotate keep their values" if partial else "np.empty_like(x)"}
        out_a, out_b = {pairs.replace("x[", "out[")}
        out_a[...] = a * cos - b * sin
        out_b[...] = a * sin + b * cos
        return out
    '''
    if partial and layout == "half":
        torch_pairs = (
            "n = inv_freq.shape[0]  # turning pairs: the first 2n dimensions rotate, the rest pass through\n"
            "        a, b = x[..., :n], x[..., n : 2 * n]  # (..., L, n) each\n"
            "        return torch.cat([a * cos - b * sin, a * sin + b * cos, x[..., 2 * n :]], dim=-1)"
        )
    elif partial:
        torch_pairs = (
            "n = inv_freq.shape[0]  # turning pairs: the first 2n dimensions rotate, the rest pass through\n"
            "        a, b = x[..., 0 : 2 * n : 2], x[..., 1 : 2 * n : 2]  # (..., L, n) each\n"
            "        turned = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)  # (..., L, 2n)\n"
            "        return torch.cat([turned, x[..., 2 * n :]], dim=-1)"
        )
    elif layout == "half":
        torch_pairs = "a, b = x.chunk(2, dim=-1)  # (..., L, HEAD_DIM // 2) each\n        return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)"
    else:
        torch_pairs = (
            "a, b = x[..., 0::2], x[..., 1::2]  # (..., L, HEAD_DIM // 2) each\n"
            "        return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)  # (..., L, HEAD_DIM)"
        )
    per_call = (
        f"        inv_freq, c = {call.replace('pos.max(initial=0)', 'pos.max()')}  # they depend on the sequence length\n"
        "        inv_freq = torch.from_numpy(inv_freq)\n"
        if f.takes_seq_len
        else "        inv_freq, c = self.inv_freq, self.attention_factor\n"
    )
    torch_cls = f'''class RotaryEmbedding(nn.Module):
    """Rotary position embedding: forward(x, positions) rotates queries or keys x (..., L, HEAD_DIM);
    apply it to q and k of every head before q @ k.transpose(-2, -1)."""

    def __init__(self) -> None:
        super().__init__()
        inv_freq, self.attention_factor = frequencies()
        self.register_buffer("inv_freq", torch.from_numpy(inv_freq))  # (turning pairs,)

    def forward(self, x: torch.Tensor, positions=None) -> torch.Tensor:
        """x (..., L, HEAD_DIM), positions (L,) (0 .. L-1 when None) -> the rotated x."""
        pos = torch.arange(x.shape[-2], dtype=torch.float64) if positions is None else torch.as_tensor(positions, dtype=torch.float64).reshape(-1)
{per_call}        angle = pos[:, None] * inv_freq[None, :]  # (L, turning pairs)
        cos, sin = c * torch.cos(angle), c * torch.sin(angle)
        {torch_pairs}
'''
    settings = _settings_line(f)
    shared = _join(_constants(f.constants), f.shared)
    numpy_source = _source(
        _docstring(f.title, f.formula, settings, f"q = rotate(q, np.arange(L)); k = rotate(k, np.arange(L))  # q, k: (..., L, {head_dim})"),
        _join(shared, _block(numpy_fn, 0)),
        torch=False,
    )
    torch_source = _source(
        _docstring(f.title, f.formula, settings, "rope = RotaryEmbedding(); q, k = rope(q), rope(k)  # q, k: (B, H, T, HEAD_DIM)"),
        _join(shared, torch_cls),
        torch=True,
    )
    keras_source = None
    if not partial:  # /code's settings: every pair turns (a partial factor is /context's, which shows no Keras)
        keras_pairs = (
            "a, b = x[..., : HEAD_DIM // 2], x[..., HEAD_DIM // 2 :]  # (..., L, HEAD_DIM // 2) each\n"
            "        return keras.ops.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)"
            if layout == "half"
            else "a, b = x[..., 0::2], x[..., 1::2]  # (..., L, HEAD_DIM // 2) each\n"
            "        return keras.ops.reshape(keras.ops.stack([a * cos - b * sin, a * sin + b * cos], axis=-1), keras.ops.shape(x))"
        )
        keras_per_call = (
            "        # the frequencies depend on the sequence length: read from the positions, so the layer runs eagerly\n"
            "        inv_freq, c = frequencies(seq_len=int(keras.ops.max(pos)) + 1)\n"
            if f.takes_seq_len
            else "        inv_freq, c = self.inv_freq, self.attention_factor\n"
        )
        keras_cls = f'''class RotaryEmbedding(keras.layers.Layer):
    """Rotary position embedding as a Keras 3 layer: call(x, positions) rotates queries or keys x (..., L, HEAD_DIM);
    apply it to q and k of every head before q @ k.transpose(-2, -1)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.inv_freq, self.attention_factor = frequencies()  # NumPy: theta_i of each pair, and the factor on cos and sin

    def call(self, x, positions=None):
        """x (..., L, HEAD_DIM), positions (L,) (0 .. L-1 when None) -> the rotated x, in the layer\'s compute dtype."""
        dtype = self.compute_dtype
        pos = keras.ops.arange(keras.ops.shape(x)[-2], dtype=dtype) if positions is None else keras.ops.reshape(keras.ops.cast(positions, dtype), (-1,))
{keras_per_call}        angle = pos[:, None] * keras.ops.convert_to_tensor(inv_freq, dtype=dtype)[None, :]  # (L, HEAD_DIM // 2)
        cos, sin = float(c) * keras.ops.cos(angle), float(c) * keras.ops.sin(angle)  # c as a Python number: a tensor times a NumPy one warns
        {keras_pairs}
'''
        keras_source = _source(
            _docstring(f.title, f.formula, settings, "rope = RotaryEmbedding(); q, k = rope(q), rope(k)  # q, k: (B, H, T, HEAD_DIM)"),
            _join(shared, keras_cls),
            torch=False,
            keras=True,
        )
    what = (
        f"RoPE on a head of width {head_dim:,}, {layout} pair layout, {f.rule.split(':')[0]}. "
        f"NumPy: `rotate(x, positions)` for queries or keys (..., L, {head_dim}); PyTorch: `RotaryEmbedding()(x, positions)`, the same."
    )
    keras_entry = None if keras_source is None else "RotaryEmbedding"
    return GeneratedCode(numpy_source, torch_source, what, "rotate", "RotaryEmbedding", ROTARY, keras_source, keras_entry)


# ============================================================================================
# Bias schemes: attention_bias(q_positions, k_positions) -> (H, Lq, Lk)
# ============================================================================================


def _bias(scheme: Scheme, s: Setting, f: Formula) -> GeneratedCode:
    q_arg = ", q=None" if f.takes_queries else ""
    q_doc = "\n    q: the queries (H, Lq, HEAD_DIM), or None for a fixed unit query." if f.takes_queries else ""
    q_doc_torch = q_doc.replace("\n    ", "\n        ")
    shared = _join(_constants(f.constants), _block(f.shared, 0))
    numpy_fn = (
        f'def attention_bias(q_positions, k_positions{q_arg}):\n'
        f'    """What is added to the attention scores of queries at q_positions and keys at k_positions.{q_doc}\n'
        '    Returns (N_HEADS, Lq, Lk) float64."""\n'
        + _block(f.numpy_body, 4)
        + "\n    return bias"
    )
    init = _block(f.torch_init, 8)
    torch_cls = (
        f'class {f.torch_class}(nn.Module):\n'
        f'    """{f.title}.\n'
        '\n'
        f'    forward(q_positions, k_positions{q_arg}) returns the (N_HEADS, Lq, Lk) bias; add it to the\n'
        '    scores: q @ k.transpose(-2, -1) / math.sqrt(head_dim) + bias.\n'
        '    """\n'
        '\n'
        "    def __init__(self) -> None:\n        super().__init__()\n"
        + (init + "\n" if init else "")
        + "\n"
        + f"    def forward(self, q_positions, k_positions{q_arg}) -> torch.Tensor:\n"
        + f'        """Queries at q_positions (Lq,), keys at k_positions (Lk,) -> (N_HEADS, Lq, Lk).{q_doc_torch}"""\n'
        + _block(f.torch_body, 8)
        + "\n        return bias\n"
    )
    settings = _settings_line(f)
    usage = f"bias = attention_bias(np.arange(L), np.arange(L))  # ({s.n_heads}, L, L)"
    numpy_source = _source(_docstring(f.title, f.formula, settings, usage), _join(shared, _block(f.numpy_helpers, 0), numpy_fn), torch=False)
    torch_usage = f"scores = scores + {f.torch_class}()(torch.arange(T), torch.arange(T))  # scores: (B, {s.n_heads}, T, T)"
    torch_source = _source(_docstring(f.title, f.formula, settings, torch_usage), _join(shared, _block(f.torch_helpers, 0), torch_cls), torch=True)
    what = (
        f"{scheme.label} with {s.n_heads} heads: the bias added to the attention scores. "
        f"NumPy: `attention_bias(q_positions, k_positions{q_arg})` → (H, Lq, Lk); PyTorch: `{f.torch_class}()(q_positions, k_positions{q_arg})`, the same."
    )
    return GeneratedCode(numpy_source, torch_source, what, "attention_bias", f.torch_class, BIAS)


# ============================================================================================


TEMPLATES: dict[str, Callable[[Scheme, Setting, Formula], GeneratedCode]] = {ADDED: _added, NOTHING: _added, ROTARY: _rotary, BIAS: _bias}


def generate(scheme_name: str, setting: Setting) -> GeneratedCode:
    """The NumPy and PyTorch code that reproduce `scheme_name` (a key of registry.SCHEMES) at
    `setting`, as the registry's hooks compute it (width = d_model for added schemes and the head
    width for RoPE, whose pair layout and scaling are setting.layout and setting.scaling; n_heads
    and seed for bias schemes; train_len is MAX_LEN, the rows of a table). Settings that core
    refuses raise its ValueError.
    """
    if scheme_name not in SCHEMES:
        raise ValueError(f"Unknown scheme {scheme_name!r}; choose one of {', '.join(SCHEMES)}.")
    scheme = SCHEMES[scheme_name]
    if (setting.scaling is not None or setting.layout != "half") and not {"layout", "scaling"} <= scheme.reads:
        raise ValueError(f"A pair layout or a scaling applies to RoPE only, not to {scheme.label}.")
    return TEMPLATES[scheme.applied](scheme, setting, scheme.formula(setting))


def rope_code(head_dim: int, base: float, layout: str = "half", scaling: rope.RopeScaling | None = None, partial_rotary_factor: float = 1.0) -> GeneratedCode:
    """The rotary template around `rope.source` for what a `Setting` cannot hold, a partial rotary factor
    (GPT-NeoX, Phi-2) or a preset's scaling (LongRoPE's lists, proportional RoPE, YaRN's mscale), as
    /context and /code export a model preset: the same code /code shows for the settings they share.
    Settings core refuses raise its ValueError."""
    formula = rope.source(head_dim, base, layout, scaling, partial_rotary_factor)
    return _rotary(SCHEMES["rope"], Setting(width=head_dim, base=base, layout=layout, scaling=scaling), formula)
