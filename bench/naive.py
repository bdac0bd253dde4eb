"""The naive rendering of each page's main view, drawn directly with Plotly (no Streamlit).

The naive way draws every value: the full max_len x d_model encoding, the full L x L
similarity matrix, every position in the line charts and the full L x L one-hot matrix.
Each is built, serialised with `plotly.io.to_json` and timed when its matrices are small
enough (`NAIVE_CELL_LIMIT`); otherwise its size is estimated from the arrays it would
send. Plotly 7 sends a numpy array as base64 of its raw bytes (float64: 8 bytes a value;
int64 downcast to the smallest signed integer type that holds it), so a payload of n raw
bytes costs 4n/3 bytes of base64. Plotly's JSON then writes every '/' of that base64 as
the six characters \\u002f; how often '/' occurs depends on the values (about 1 in 64
characters for random bytes, more for values near 1.0), so the estimate measures it on a
small sample of the same data.
"""

from __future__ import annotations

import base64
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from bench.config import NAIVE_CELL_LIMIT
from harness.settings import Setting
from core.schemes import naive as naive_codes
from core.viz.grid import strided
from core.schemes.sinusoidal import sinusoidal_encoding

FLOAT_BYTES = 8  # float64
SAMPLE_CELLS = 1_000_000  # at most this many values in the sample that measures escaping
ESCAPED_SLASH = len("\\u002f")  # what one '/' of base64 becomes in Plotly's JSON


def escape_factor(sample: np.ndarray) -> float:
    """JSON characters per base64 character for data like `sample` (float64)."""
    text = base64.b64encode(np.ascontiguousarray(sample, dtype=np.float64).tobytes())
    return 1.0 + (ESCAPED_SLASH - 1) * text.count(b"/") / max(len(text), 1)


@dataclass(frozen=True)
class Payload:
    """The data a naive rendering holds and sends."""

    matrices: tuple[int, ...]  # cells of each float64 matrix held in memory at once
    sent: tuple[tuple[int, int], ...]  # (values, bytes per value) of each array sent
    sample: np.ndarray  # a small sample of the largest array sent, to measure JSON escaping

    @property
    def largest_matrix(self) -> int:
        return max(self.matrices)

    @property
    def memory_gb(self) -> float:
        """Memory the float64 matrices need, in GB (1e9 bytes)."""
        return sum(self.matrices) * FLOAT_BYTES / 1e9

    def json_bytes(self, figures: int) -> int:
        """Estimated JSON size: base64 of every array, escaped as in the sample, plus one
        empty figure per figure."""
        base64_chars = sum(4 * -(-(values * size) // 3) for values, size in self.sent)
        return round(base64_chars * escape_factor(self.sample)) + figures * len(pio.to_json(go.Figure()))


@dataclass
class NaiveResult:
    """The naive rendering of one page's main view at one setting."""

    page: str
    setting: str
    built: bool
    bytes: int  # measured when built, else estimated
    estimated_bytes: int  # always computed, to check the estimate against the built size
    memory_gb: float
    build_ms: list[float]  # build + serialise, one per run; empty when not built

    @property
    def median_ms(self) -> float | None:
        return statistics.median(self.build_ms) if self.build_ms else None


def _int_bytes(largest: int) -> int:
    """Bytes per value Plotly sends for int64 positions 0 .. largest."""
    if largest <= 127:
        return 1
    if largest <= 32_767:
        return 2
    return 4


def _fraction_lengths(max_len: int) -> list[int]:
    """The sentence lengths the app draws for the position / length code."""
    return sorted({n for n in (4, 8, 16, max(max_len, 2)) if n <= max(max_len, 16)})


def _heatmap(z: np.ndarray, title: str) -> go.Figure:
    return go.Figure(go.Heatmap(z=z, colorscale="RdBu_r"), layout=dict(title=title))


def _line(series: list[tuple[str, np.ndarray, np.ndarray]], title: str) -> go.Figure:
    return go.Figure([go.Scatter(x=x, y=y, name=name, mode="lines") for name, x, y in series], layout=dict(title=title))


def problem_figures(s: Setting) -> list[go.Figure]:
    """Integer and position / length codes at every position, and the full one-hot L x L matrix."""
    L = s.max_len
    integer = _line([("position code p", np.arange(L), naive_codes.integer_positions(L)[:, 0])], "integer positions")
    fraction = _line([(f"L={n}", np.arange(n), naive_codes.fraction_positions(n)[:, 0]) for n in _fraction_lengths(L)], "position / length")
    one_hot = _heatmap(naive_codes.one_hot_positions(L), "one-hot similarity")  # e_p . e_q: the identity
    return [integer, fraction, one_hot]


def problem_payload(s: Setting) -> Payload:
    L = s.max_len
    lines = [(L, _int_bytes(L - 1)), (L, FLOAT_BYTES)]
    lines += [pair for n in _fraction_lengths(L) for pair in ((n, _int_bytes(n - 1)), (n, FLOAT_BYTES))]
    sample = naive_codes.one_hot_positions(min(L, 1000))  # identity: zeros but for the diagonal
    return Payload(matrices=(L * L,), sent=(*lines, (L * L, FLOAT_BYTES)), sample=sample)


def sinusoidal_figures(s: Setting) -> list[go.Figure]:
    """The full max_len x d_model encoding in one heatmap."""
    return [_heatmap(sinusoidal_encoding(s.max_len, s.d_model, s.base), "PE(p, j)")]


def sinusoidal_payload(s: Setting) -> Payload:
    cells = s.max_len * s.d_model
    rows = strided(s.max_len, max(1, SAMPLE_CELLS // s.d_model))
    sample = sinusoidal_encoding(s.max_len, s.d_model, s.base, positions=rows.indices)  # every column, strided rows
    return Payload(matrices=(cells,), sent=((cells, FLOAT_BYTES),), sample=sample)


def similarity_figures(s: Setting) -> list[go.Figure]:
    """The full L x L dot-product similarity P @ P.T in one heatmap."""
    p = sinusoidal_encoding(s.max_len, s.d_model, s.base)
    return [_heatmap(p @ p.T, "PE(p) . PE(q)")]


def similarity_payload(s: Setting) -> Payload:
    L = s.max_len
    rows = sinusoidal_encoding(L, s.d_model, s.base, positions=strided(L, 250).indices)
    sample = rows @ rows.T  # the full matrix's entries on a strided sub-grid of positions
    return Payload(matrices=(L * s.d_model, L * L), sent=((L * L, FLOAT_BYTES),), sample=sample)


def _attention_study(s: Setting, words: list[str], heads: int):
    from core.analysis.attention import attention_study

    return attention_study(words, sinusoidal_encoding(len(words), min(s.d_model, 512), s.base), n_heads=heads)


def attention_views(words: list[str], heads: int) -> tuple[Callable[[Setting], list[go.Figure]], Callable[[Setting], Payload]]:
    """Every head's weights without positions, with them, and their difference, each as a full
    T x T heatmap: 3 x heads figures."""

    def figures(s: Setting) -> list[go.Figure]:
        study = _attention_study(s, words, heads)
        return [
            _heatmap(m, "attention") for h in range(heads) for m in (study.weights_plain[h], study.weights_pe[h], study.weights_pe[h] - study.weights_plain[h])
        ]

    def payload(s: Setting) -> Payload:
        t = len(words)
        return Payload(matrices=(t * t,), sent=((t * t, FLOAT_BYTES),) * (3 * heads), sample=_attention_study(s, words, heads).weights_pe[0])

    return figures, payload


@dataclass(frozen=True)
class NaiveView:
    """How to build a page's naive rendering, and what it holds."""

    figures: Callable[[Setting], list[go.Figure]]
    payload: Callable[[Setting], Payload]
    count: int  # figures it draws


NAIVE_VIEWS: dict[str, NaiveView] = {
    "problem": NaiveView(problem_figures, problem_payload, 3),
    "sinusoidal": NaiveView(sinusoidal_figures, sinusoidal_payload, 1),
    "similarity": NaiveView(similarity_figures, similarity_payload, 1),
    "attention": NaiveView(*attention_views(["dog", "bites", "man"], 1), 3),
    "attention-256": NaiveView(*attention_views([f"w{i}" for i in range(256)], 8), 24),
}


def build_and_serialise(view: NaiveView, s: Setting) -> tuple[float, int]:
    """Compute the data, build the figures and serialise them: (ms, JSON bytes)."""
    start = time.perf_counter()
    size = sum(len(pio.to_json(fig).encode()) for fig in view.figures(s))
    return (time.perf_counter() - start) * 1000.0, size


def measure_naive(page: str, s: Setting, runs: int) -> NaiveResult | None:
    """Build and time the naive rendering `runs` times if it is small enough; else estimate it.
    None for pages without a naive counterpart (the scheme-zoo pages: their naive form would
    be the same full-matrix heatmaps the foundation pages already compare against)."""
    view = NAIVE_VIEWS.get(page)
    if view is None:
        return None
    payload = view.payload(s)
    estimate = payload.json_bytes(view.count)
    if payload.largest_matrix > NAIVE_CELL_LIMIT:
        return NaiveResult(page, s.name, False, estimate, estimate, payload.memory_gb, [])
    timings = [build_and_serialise(view, s) for _ in range(runs)]
    return NaiveResult(page, s.name, True, timings[-1][1], estimate, payload.memory_gb, [ms for ms, _ in timings])
