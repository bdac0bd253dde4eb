"""The pages as a path for a learner: their order in the navigation, what each is for, which
shared settings each one uses, and the "Next" link at the end of each page.

app.py builds the navigation from `STEPS`; the roadmap on `/` lists them; the sidebar shows only
the shared settings a page uses. URL paths never change (handouts link to them); the order may.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st


ALL = frozenset({"d_model", "max_len", "base"})


@dataclass(frozen=True)
class Step:
    """One page: its script, stable URL path ("" for `/`), title, icon, what a learner finds
    there (one sentence for the roadmap), the shared settings it uses, and which of those it
    reads only in its live parts (`live`: its open tab, or a part drawn by
    `ui.tabs.live_part`), so that a move reruns those parts and not the page (`ui.sidebar`), and
    how many figures it draws at the defaults over all its tabs (`charts`: Plotly charts and painted
    panel grids; the tests hold every page-wide run to it)."""

    script: str
    url_path: str
    title: str
    icon: str
    pitch: str
    uses: frozenset[str] = ALL
    live: frozenset[str] = frozenset()
    charts: int = field(kw_only=True)


STEPS: tuple[Step, ...] = (
    Step(
        "app_pages/problem.py", "", "The position problem", ":material/help:", "why attention needs positions at all, and why the obvious fixes fail", charts=5
    ),
    Step(
        "app_pages/sinusoidal.py",
        "sinusoidal",
        "Sinusoidal encoding",
        ":material/waves:",
        "the Transformer paper's sines and cosines, and a learned table",
        live=frozenset({"d_model", "base"}),  # a move of max_len reruns the page
        charts=8,
    ),
    Step(
        "app_pages/similarity.py",
        "similarity",
        "Similarity between positions",
        ":material/grid_on:",
        "why the sinusoid's similarity depends on distance",
        live=ALL,
        charts=5,
    ),
    Step(
        "app_pages/rope.py",
        "rope",
        "Rotary embeddings (RoPE)",
        ":material/rotate_right:",
        "the same rotation applied to queries and keys",
        frozenset({"max_len", "base"}),
        charts=5,
    ),
    Step(
        "app_pages/context.py",
        "context",
        "Long context in real models",
        ":material/width_full:",
        "what real models' RoPE settings do to long inputs",
        frozenset(),
        charts=5,
    ),
    Step(
        "app_pages/relative.py",
        "relative",
        "Relative biases",
        ":material/linear_scale:",
        "biases on the scores instead of codes",
        frozenset({"max_len"}),
        charts=8,
    ),
    Step(
        "app_pages/compare.py",
        "compare",
        "Every scheme compared",
        ":material/view_module:",
        "every scheme side by side, its properties measured",
        live=frozenset({"d_model", "base"}),  # max_len sets the first-position control above the tabs
        charts=2,
    ),
    Step(
        "app_pages/attention.py",
        "attention",
        "Attention with and without positions",
        ":material/visibility:",
        "what attention sees with each scheme",
        frozenset({"d_model", "base"}),
        live=frozenset({"d_model", "base"}),
        charts=4,
    ),
    Step(
        "app_pages/lab.py",
        "lab",
        "The lab: train and extrapolate",
        ":material/science:",
        "train tiny models, then test them on longer inputs",
        frozenset(),
        charts=3,
    ),
    Step(
        "app_pages/model.py",
        "model",
        "A real model's positions",
        ":material/model_training:",
        "a trained model's learned table",
        frozenset({"base"}),
        charts=11,
    ),
    Step(
        "app_pages/llm.py",
        "llm",
        "A real language model's positions",
        ":material/psychology:",
        "a small real language model reading your text with its rotary positions, without them, and shuffled",
        frozenset(),
        charts=6,
    ),
    Step(
        "app_pages/practice.py",
        "practice",
        "Misconceptions and practice",
        ":material/quiz:",
        "common mistakes, and exercises to predict then check",
        frozenset(),
        charts=1,
    ),
    Step("app_pages/code.py", "code", "Code for these settings", ":material/code:", "NumPy and PyTorch code for what you saw, and the numbers", charts=1),
)
BY_PATH = {step.url_path: step for step in STEPS}


def pages() -> list:
    """The st.Page of every step, in path order; `/` is the default."""
    return [st.Page(s.script, title=s.title, icon=s.icon, **({"default": True} if s.url_path == "" else {"url_path": s.url_path})) for s in STEPS]


def next_link(current: str) -> None:
    """At the end of a page: a link to the next page on the path (none after the last)."""
    index = [s.url_path for s in STEPS].index(current)
    if index + 1 < len(STEPS):
        step = STEPS[index + 1]
        st.divider()
        link(step, f"Next: {step.title}, {step.pitch}", ":material/arrow_forward:")


def link(step: Step, label: str, icon: str) -> None:
    """A link to a step's page."""
    st.page_link(step.script, label=label, icon=icon)
