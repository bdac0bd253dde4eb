"""The app's pages as the tests see them, from its navigation (ui/path.py STEPS): a page added to
the path is opened by every page-wide test (AppTest and browser) without an edit here, but for
its number of figures, which `CHARTS` must name (test_every_page_has_a_chart_count says so)."""

from __future__ import annotations

from ui.lab.trained import VIEW as LAB_TRAINED_VIEW
from ui.path import STEPS

NAMES = {step.url_path: step.url_path or "problem" for step in STEPS}  # url path -> short name ("" is /, the position problem)
PAGE_FILES = {NAMES[step.url_path]: None if step.url_path == "" else step.script for step in STEPS}  # None: the default page, no switch

# Figures a page draws at the defaults over all its tabs (only the open tab's are drawn at a time): Plotly
# charts and painted panel grids. The AppTests count what the server sends, the browser tests what is drawn.
CHARTS = {
    "problem": 5, "sinusoidal": 8, "similarity": 5, "attention": 4, "compare": 2, "rope": 5,
    "context": 5, "relative": 8, "model": 11, "lab": 3, "llm": 6, "practice": 1, "code": 1,
}  # fmt: skip

# Views chosen by a segmented control rather than tabs (the URL carries the option's name, the control shows its label): the
# truth harness opens each at the defaults; test_truth fails on a page whose "_view" control is not listed here.
VIEW_SWITCHES = {"lab": [LAB_TRAINED_VIEW]}
