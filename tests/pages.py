"""The app's pages as the tests see them, from its navigation (ui/path.py STEPS): a page added to
the path is opened by every page-wide test (AppTest and browser) without an edit here, its number of
figures included (its `charts` in STEPS)."""

from __future__ import annotations

from ui.lab.trained import VIEW as LAB_TRAINED_VIEW
from ui.path import STEPS

NAMES = {step.url_path: step.url_path or "problem" for step in STEPS}  # url path -> short name ("" is /, the position problem)
PAGE_FILES = {NAMES[step.url_path]: None if step.url_path == "" else step.script for step in STEPS}  # None: the default page, no switch

# Figures a page draws at the defaults over all its tabs (only the open tab's are drawn at a time): Plotly
# charts and painted panel grids. The AppTests count what the server sends, the browser tests what is drawn.
CHARTS = {NAMES[step.url_path]: step.charts for step in STEPS}

# Views chosen by a segmented control rather than tabs (the URL carries the option's name, the control shows its label): the
# truth harness opens each at the defaults; test_truth fails on a page whose "_view" control is not listed here.
VIEW_SWITCHES = {"lab": [LAB_TRAINED_VIEW]}
