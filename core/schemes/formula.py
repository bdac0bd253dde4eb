"""The piece of generated code a scheme contributes: its `Formula`, written in the scheme's module
beside the math it mirrors; `core.files.codegen` puts it into the template of how the scheme is
applied, so adding a scheme touches no table in codegen.

Code blocks are written unindented (the template indents them) with the same floating-point
operations as the core function they mirror: tests/core/files/test_codegen.py executes every
generated source and compares it with core.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np

Constant = tuple[str, object, str]  # (NAME, value, comment): a line NAME = value  # comment


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
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return repr(float(value))


@dataclass(frozen=True)
class Formula:
    """What one scheme puts into its template.

    title, formula: the docstring's first line and the formula under it (plain text).
    constants: the settings written in as NAME = value lines, shared by both sources.
    numpy_body, torch_body: the lines that compute the result (`code` for added schemes, `bias`
        for bias schemes; rotary schemes put their `frequencies()` function in `shared`).
    torch_class: the nn.Module's name.
    shared: helpers written into both sources (pure Python or NumPy).
    numpy_helpers, torch_helpers: helpers for one source only; torch_init: lines of __init__.
    numpy_checks, torch_checks: input checks before the body.
    takes_queries: a bias that depends on the queries (Shaw's): the entry point takes q=None.
    takes_seq_len: rotary frequencies that depend on the sequence length (dynamic scaling).
    rule: rotary only, the frequency rule in words; what: replaces the template's sentence.
    """

    title: str
    formula: str
    constants: tuple[Constant, ...]
    numpy_body: str = ""
    torch_body: str = ""
    torch_class: str = ""
    shared: str = ""
    numpy_helpers: str = ""
    torch_helpers: str = ""
    torch_init: str = ""
    numpy_checks: str = ""
    torch_checks: str = ""
    takes_queries: bool = False
    takes_seq_len: bool = False
    rule: str = ""
    what: str = ""


def code(*pieces: str) -> str:
    """Pieces of code, each dedented on its own, one after the other."""
    return "\n".join(textwrap.dedent(piece).strip("\n") for piece in pieces)


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


def table_checks(label: str) -> dict[str, str]:
    """The checks of a scheme whose codes end at TABLE_ROWS (a one-hot or learned table), as
    Formula keyword arguments: whole positions from 0, none at or past the table's end."""
    return {"numpy_checks": _TABLE_CHECKS_NP.format(label=label), "torch_checks": _TABLE_CHECKS_TORCH.format(label=label)}


WHOLE_POSITIONS_NP = """
qp = np.asarray(q_positions, dtype=np.float64).reshape(-1)  # (Lq,)
kp = np.asarray(k_positions, dtype=np.float64).reshape(-1)  # (Lk,)
if np.any(qp != np.round(qp)) or np.any(kp != np.round(kp)):
    raise ValueError("positions must be whole numbers.")
qp, kp = qp.astype(np.int64), kp.astype(np.int64)
"""
WHOLE_POSITIONS_TORCH = """
qp = torch.as_tensor(q_positions, dtype=torch.float64).reshape(-1)  # (Lq,)
kp = torch.as_tensor(k_positions, dtype=torch.float64).reshape(-1)  # (Lk,)
if bool((qp != qp.round()).any()) or bool((kp != kp.round()).any()):
    raise ValueError("positions must be whole numbers.")
qp, kp = qp.long(), kp.long()
"""
