r"""The sinusoidal encoding of Vaswani et al. (2017), and the tensor2tensor/fairseq variant.

The paper defines, for position $p$ and pair index $i$,

$$PE_{p,2i} = \sin(p\,\omega_i), \qquad PE_{p,2i+1} = \cos(p\,\omega_i), \qquad
\omega_i = \text{base}^{-2i/d}.$$

Column $j$ therefore uses the angular frequency $\text{base}^{-2\lfloor j/2\rfloor/d}$, which is
also how an odd `d_model` is handled: the last column is a sine with no cosine partner.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from core.schemes.formula import Formula

Layout = Literal["interleaved", "concat"]
LAYOUTS: tuple[str, ...] = ("interleaved", "concat")


def _check(max_len: int, d_model: int, base: float) -> None:
    if int(d_model) != d_model or d_model < 1:
        raise ValueError(f"d_model must be a whole number of at least 1, got {d_model!r}.")
    if int(max_len) != max_len or max_len < 0:
        raise ValueError(f"max_len must be a whole number of at least 0, got {max_len!r}.")
    if not np.isfinite(base) or base <= 0:
        raise ValueError(f"base must be a positive finite number, got {base!r}.")


def pair_frequencies(d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Angular frequency of each sin/cos pair, $\omega_i = \text{base}^{-2i/d}$ for
    $i = 0 \dots \lceil d/2 \rceil - 1$ (the last "pair" is a lone sine when d is odd).

    Returns (ceil(d/2),), fastest first: omega_0 = 1 rad per position.
    """
    _check(0, d_model, base)
    i = np.arange((d_model + 1) // 2, dtype=np.float64)
    return np.power(float(base), -2.0 * i / d_model)


def wavelengths(d_model: int, base: float = 10_000.0) -> np.ndarray:
    r"""Wavelength in positions of each pair, $\lambda_i = 2\pi / \omega_i$: from $2\pi$ up to
    nearly $2\pi \cdot \text{base}$. Returns (ceil(d/2),)."""
    return 2.0 * np.pi / pair_frequencies(d_model, base)


def layout_permutation(d_model: int, layout: Layout = "interleaved") -> np.ndarray:
    """Column order of `layout` in terms of the interleaved (paper) columns.

    "interleaved" is the identity; "concat" lists the sine columns 0, 2, 4, ... first and
    then the cosine columns 1, 3, 5, ...; so enc(layout) = enc("interleaved")[:, perm].
    Returns (d,) int.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}.")
    j = np.arange(d_model)
    if layout == "interleaved":
        return j
    return np.concatenate([j[0::2], j[1::2]])


def column_info(d_model: int, base: float = 10_000.0, layout: Layout = "interleaved") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each column of the encoding in `layout`: its pair index i, its angular frequency,
    and whether it is a cosine. Returns three (d,) arrays (int, float64, bool)."""
    paper_col = layout_permutation(d_model, layout)  # (d,)
    pair = paper_col // 2
    return pair, pair_frequencies(d_model, base)[pair], paper_col % 2 == 1


def sinusoidal_encoding(
    max_len: int,
    d_model: int,
    base: float = 10_000.0,
    *,
    layout: Layout = "interleaved",
    positions: np.ndarray | None = None,
    dims: np.ndarray | None = None,
) -> np.ndarray:
    r"""The paper's encoding, $PE_{p,j} = \sin(p\,\omega_{\lfloor j/2 \rfloor} + \tfrac{\pi}{2}[j \text{ odd}])$.

    Rows are positions 0 .. max_len-1, or exactly `positions` when given (any 1-D array: huge
    or fractional positions are evaluated alone, nothing else is built). Columns are all
    d_model dimensions in `layout`, or only `dims` (indices in that layout) when given.
    Returns (L, d) float64, or (len(positions), len(dims)).
    """
    _check(max_len, d_model, base)
    if positions is None:
        pos = np.arange(max_len, dtype=np.float64)
    else:
        pos = np.asarray(positions, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(pos)):
            raise ValueError("positions must be finite numbers.")
    pair, omega, is_cos = column_info(d_model, base, layout)
    if dims is not None:
        dims = np.asarray(dims, dtype=np.int64).reshape(-1)
        if dims.size and (dims.min() < 0 or dims.max() >= d_model):
            raise ValueError(f"dims must lie in 0 .. {d_model - 1}.")
        omega, is_cos = omega[dims], is_cos[dims]
    angle = pos[:, None] * omega[None, :]  # (L, d)
    return np.where(is_cos[None, :], np.cos(angle), np.sin(angle))


def rotation_matrix(offset: float, d_model: int, base: float = 10_000.0, *, layout: Layout = "interleaved", dims: np.ndarray | None = None) -> np.ndarray:
    r"""The matrix $M_k$ with $PE(p + k) = M_k\,PE(p)$ for every p: one 2x2 rotation per
    (sin, cos) pair, zero elsewhere,

    $$\begin{pmatrix}\sin((p+k)\omega)\\ \cos((p+k)\omega)\end{pmatrix} =
    \begin{pmatrix}\cos k\omega & \sin k\omega\\ -\sin k\omega & \cos k\omega\end{pmatrix}
    \begin{pmatrix}\sin p\omega\\ \cos p\omega\end{pmatrix}.$$

    It depends on k only, not on p. For odd d_model the lone last sine has no cosine to
    rotate with; its diagonal entry is cos(k omega), so the identity holds only approximately
    in that column. Rows and columns are in `layout`; `dims` (indices in that layout)
    restricts both to a sub-block, so a large d never builds the full matrix.
    Returns (d, d), or (len(dims), len(dims)).
    """
    _check(0, d_model, base)
    cols = layout_permutation(d_model, layout)
    if dims is not None:
        cols = cols[np.asarray(dims, dtype=np.int64)]
    pair, is_cos = cols // 2, cols % 2 == 1
    angle = offset * pair_frequencies(d_model, base)[pair]
    c, s = np.cos(angle), np.sin(angle)  # (n,) per row
    same_pair = pair[:, None] == pair[None, :]  # (n, n)
    value = np.where(is_cos[:, None] == is_cos[None, :], c[:, None], np.where(is_cos[:, None], -s[:, None], s[:, None]))
    return np.where(same_pair, value, 0.0)


def t2t_frequencies(channels: int, *, max_timescale: float = 1.0e4) -> np.ndarray:
    r"""Inverse timescales of tensor2tensor's `get_timing_signal_1d` (and fairseq's
    `SinusoidalPositionalEmbedding`) at their min_timescale 1: n = channels // 2 frequencies spaced
    geometrically from 1 down to exactly 1/max_timescale, i.e. exponent step log(max)/(n-1),
    where the paper steps by log(base)*2/d and never reaches 1/base. Returns (channels // 2,)."""
    if int(channels) != channels or channels < 1:
        raise ValueError(f"channels must be a whole number of at least 1, got {channels!r}.")
    if not np.isfinite(max_timescale) or max_timescale < 1:
        raise ValueError("timescales must satisfy 1 <= max_timescale < inf.")
    n = channels // 2
    log_increment = np.log(max_timescale) / max(n - 1, 1)
    return np.exp(-log_increment * np.arange(n, dtype=np.float64))


def t2t_timing_signal(
    length: int,
    channels: int,
    *,
    max_timescale: float = 1.0e4,
    start_index: int = 0,
    positions: np.ndarray | None = None,
) -> np.ndarray:
    """tensor2tensor's `get_timing_signal_1d` / fairseq's sinusoidal table: all sines, then
    all cosines of the `t2t_frequencies`, and a zero column appended when channels is odd.
    Position p is start_index + row, or exactly `positions` when given (then length is
    ignored). Returns (length, channels) float64, or (len(positions), channels)."""
    if int(length) != length or length < 0:
        raise ValueError(f"length must be a whole number of at least 0, got {length!r}.")
    inv = t2t_frequencies(channels, max_timescale=max_timescale)
    if positions is None:
        pos = np.arange(start_index, start_index + length, dtype=np.float64)
    else:
        pos = np.asarray(positions, dtype=np.float64).reshape(-1)
    scaled = pos[:, None] * inv[None, :]  # (L, channels // 2)
    signal = np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)
    if channels % 2:
        signal = np.pad(signal, ((0, 0), (0, 1)))
    return signal

# --- generated code (core.files.codegen puts it into its template) -------------------------------


def source(d_model: int, max_len: int, base: float) -> Formula:
    """`sinusoidal_encoding` as generated code."""
    return Formula(
        "Sinusoidal positional encoding (Vaswani et al., 2017)",
        """
        PE(p)_2i   = sin(p * w_i),   w_i = BASE^(-2i / D_MODEL)
        PE(p)_2i+1 = cos(p * w_i)
        Column j uses w_(j // 2); with an odd D_MODEL the last column is a sine alone.
        """,
        (
            ("D_MODEL", d_model, "width of each token vector"),
            ("MAX_LEN", max_len, "the app draws positions 0 .. MAX_LEN-1; the formula takes any position"),
            ("BASE", float(base), "sets the slowest wavelength, 2 pi BASE"),
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


def t2t_source(d_model: int, max_len: int, base: float) -> Formula:
    """`t2t_timing_signal` (max_timescale = base) as generated code."""
    return Formula(
        "Sinusoidal encoding as tensor2tensor and fairseq write it",
        """
        n = D_MODEL // 2 frequencies from 1/MIN_TIMESCALE down to exactly 1/MAX_TIMESCALE, spaced over n - 1:
        inv_k = MIN_TIMESCALE * exp(-k * log(MAX_TIMESCALE / MIN_TIMESCALE) / (n - 1))
        PE(p) = [sin(p * inv_0) .. sin(p * inv_n-1), cos(p * inv_0) .. cos(p * inv_n-1)] (+ a zero column if D_MODEL is odd)
        """,
        (
            ("D_MODEL", d_model, "width of each token vector"),
            ("MAX_LEN", max_len, "the app draws positions 0 .. MAX_LEN-1; the formula takes any position"),
            ("MIN_TIMESCALE", 1.0, ""),
            ("MAX_TIMESCALE", float(base), "the app's base"),
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
