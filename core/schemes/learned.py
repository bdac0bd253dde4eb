r"""A learned absolute position table (BERT, GPT-2): one trainable vector per position.

The model adds row p of a (max_len, d) table to the token at position p,

$$x_p \leftarrow x_p + P_p, \qquad P \in \mathbb{R}^{L \times d}.$$

Before training the rows are random: Hugging Face transformers initialises BERT's and GPT-2's
position embeddings normal(0, initializer_range = 0.02) (`_init_weights`); the original BERT
used a truncated normal of std 0.02, and the original GPT-2 code std 0.01 for `wpe`. Training
gives the rows structure. A table has exactly L rows: there is no vector for position L or
later, which is why a learned table cannot extrapolate to longer inputs.
"""

from __future__ import annotations

import numpy as np

from core.schemes.checks import whole_number
from core.schemes.formula import Expr, Formula, table_checks

# A random table above this many float64 values (1 GiB) is refused instead of exhausting memory.
MAX_TABLE_VALUES = 2**27


def learned_table(max_len: int, d_model: int, *, seed: int = 0, std: float = 0.02) -> np.ndarray:
    r"""A freshly initialised position table, $P_{p,j} \sim \mathcal{N}(0, \text{std}^2)$ i.i.d.
    Row p is drawn by its own generator, np.random.default_rng([seed, p]) (PCG64 seeded by the
    pair), so any row can be drawn alone (`learned_rows`), the same seed gives the same table,
    and a shorter table is the first rows of a longer one with the same seed and width.
    Returns (L, d) float64.
    """
    length = whole_number(max_len, "max_len", 1)
    d = whole_number(d_model, "d_model", 1)
    if length * d > MAX_TABLE_VALUES:
        raise ValueError(f"A table of {length:,} positions x {d:,} dimensions is too large to build here; use learned_rows for the rows you draw.")
    return learned_rows(np.arange(length), d, seed=seed, std=std)


def learned_rows(positions, d_model: int, *, seed: int = 0, std: float = 0.02) -> np.ndarray:
    """Rows `positions` of `learned_table(max(positions) + 1, d_model, seed=seed, std=std)`,
    without building the table: each row has its own seeded generator, so a row far down
    (position 131071 at width 8192) costs what a row near the top costs. It does not refuse
    large positions: a table's size limit is its caller's business.
    Returns positions.shape + (d,) float64.
    """
    d = whole_number(d_model, "d_model", 1)
    seed = whole_number(seed, "seed", 0)
    if isinstance(std, bool) or not isinstance(std, (int, float, np.integer, np.floating)) or not np.isfinite(std) or std < 0:
        raise ValueError(f"std must be a finite standard deviation of at least 0, got {std!r}.")
    p = np.asarray(positions)
    if p.dtype.kind not in "iuf":
        raise ValueError(f"positions must be whole numbers, got values of type {p.dtype}.")
    f = p.astype(np.float64)
    if not np.all(np.isfinite(f)) or np.any(f != np.round(f)):
        raise ValueError("positions must be whole numbers (a table has one row per position 0, 1, 2, ...).")
    if np.any(f < 0):
        raise ValueError(f"positions start at 0; got {int(f[f < 0].flat[0])}.")
    flat = f.astype(np.int64).reshape(-1)
    out = np.empty((flat.size, d))
    for i, position in enumerate(flat.tolist()):
        out[i] = np.random.default_rng([seed, position]).normal(0.0, std, size=d)  # the row's own generator
    return out.reshape(p.shape + (d,))  # (..., d)


# --- generated code (core.files.codegen puts it into its template) -------------------------------


def source(d_model: int, max_len: int, seed: int, std: float = 0.02) -> Formula:
    """`learned_rows` at initialisation, as generated code."""
    return Formula(
        "A learned absolute position table at its initialisation",
        """
        PE(p) = row p of a trainable (MAX_LEN, D_MODEL) table, drawn normal(0, STD) before training.
        Row p is drawn by its own generator, np.random.default_rng([SEED, p]), so any row can be drawn
        alone and the PyTorch module starts from exactly the same numbers. Training changes the rows;
        positions from MAX_LEN on have no row: a table cannot extrapolate.
        """,
        (
            ("D_MODEL", d_model, "width of each token vector"),
            ("MAX_LEN", max_len, "rows of the table: positions 0 .. MAX_LEN-1"),
            ("TABLE_ROWS", Expr("MAX_LEN"), "first position without a row"),
            ("SEED", int(seed), ""),
            ("STD", std, "Hugging Face's initializer_range for BERT and GPT-2"),
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
        **table_checks("learned absolute table"),
    )
