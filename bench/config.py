"""What the benchmark measures: the pages, the settings and the targets."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from harness.pages import app_pages
from harness.settings import Setting
from core.schemes.rope_presets import PRESETS

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app.py"
APP_TIMEOUT_S = 120.0  # AppTest's limit for one script run

DEFAULT_RUNS = 5

# Targets (from the issue).
DEFAULTS_RUN_MS = 150.0  # script run at the default setting
ANY_RUN_MS = 1000.0  # script run at every setting
FIGURE_BYTES = 1_000_000  # each figure's JSON, at every setting

# A naive rendering is built for real only if none of its matrices exceeds this many cells.
NAIVE_CELL_LIMIT = 4_000_000


@dataclass(frozen=True)
class Page:
    """One page of the app: its short name, its script, and the title it shows."""

    name: str
    script: str  # path relative to ROOT, as st.Page and AppTest.switch_page take it
    title: str
    default: bool = False  # served at `/`: reached by the first run, no switch needed
    params: tuple[tuple[str, str], ...] = ()  # page controls set through the URL


def heading(script: str) -> str:
    """The title a page script draws (its `st.title("...")`), read from its source: what a run of that page shows first."""
    tree = ast.parse((ROOT / script).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "title" and node.args:
            if isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                return node.args[0].value
    raise ValueError(f"{script} draws no st.title with a literal text")


VARIANTS = {  # base page -> (variant name, page controls in the URL): the heavy settings of some pages' own controls
    "attention": [("attention-256", (("sentence", "your own sentence"), ("text", " ".join(f"w{i}" for i in range(256))), ("heads", "8")))],
    "rope": [("rope-256", (("head_dim", "256"), ("scaling", "llama3"), ("factor", "8")))],
    # every model in the table, the largest pitfall and grid
    "context": [("context-all", (("presets", ",".join(PRESETS)), ("ntk_growth", "8"), ("grid", "32")))],
    "relative": [("relative-64", (("alibi_heads", "64"), ("t5_buckets", "256"), ("t5_max_distance", "131072"), ("shaw_k", "64")))],
}


def _pages() -> tuple[Page, ...]:
    """Every page of the app's navigation (ui/path.py), each followed by its variants."""
    pages = []
    for app_page in app_pages():
        page = Page(app_page.name, app_page.script, heading(app_page.script), default=app_page.default)
        pages += [page, *(Page(name, page.script, page.title, params=params) for name, params in VARIANTS.get(page.name, []))]
    return tuple(pages)


PAGES = _pages()

# Run once before measuring so that imports are not counted; small, so it warms no cache
# entry a measured setting would use.
WARM_UP = Setting("warm-up", 8, 16, 100.0)  # d_model divisible by the 8 heads of attention-256


Named = TypeVar("Named", Page, Setting)


def by_name(items: tuple[Named, ...], names: list[str] | None, kind: str) -> list[Named]:
    """The items (pages or settings) whose names are listed, in the listed order; all when
    names is None. Raises ValueError on an unknown name."""
    if names is None:
        return list(items)
    known = {item.name: item for item in items}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown {kind} {', '.join(unknown)}; choose from {', '.join(known)}")
    return [known[n] for n in names]
