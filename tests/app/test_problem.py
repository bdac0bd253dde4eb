"""AppTest of the `problem` page (`/`): the roadmap, the bag-of-words numbers, the naive codes
scored against the checklist, and the width cap."""

from __future__ import annotations

from core.analysis import properties
from tests.app.conftest import assert_clean, open_page, plain_table
from ui.path import STEPS


def test_the_roadmap_lists_the_checklist_and_every_page_in_path_order():
    at = open_page("problem")
    assert_clean(at)
    links = [el for el in at.get("page_link")]
    labels = [el.proto.label for el in links]
    assert labels[: len(STEPS)] == [f"{k}. {step.title}: {step.pitch}" for k, step in enumerate(STEPS, 1)]
    assert labels[-1].startswith(f"Next: {STEPS[1].title}")
    checklist = next(m.value for m in at.markdown if m.value.startswith("- **unique**"))
    assert [line.split("**")[1] for line in checklist.splitlines()] == [name for name, _ in properties.CHECKLIST]


def test_problem_shows_the_bag_of_words_numbers():
    at = open_page("problem")
    assert len(at.dataframe) == 0  # small tables that follow the sidebar are static: shown whole, cheap to redraw
    table = plain_table(at.table[0])
    assert table.iloc[0, 1] == "1.000"  # cosine without positions, 4 significant digits
    assert float(table.iloc[0, 2]) < 1e-12  # distance at rounding level
    assert float(table.iloc[1, 1]) < 1.0


def test_the_naive_codes_are_scored_from_their_measurements():
    at = open_page("problem", max_len="256")
    card = plain_table(at.table[-1])  # the scorecard closes the page
    rows = {row["property"].split(":")[0]: row for _, row in card.iterrows()}
    assert rows["bounded"]["integer p"].startswith("✗") and rows["bounded"]["binary bits of p"].startswith("✓")
    assert rows["smooth"]["binary bits of p"].startswith("✗") and rows["smooth"]["integer p"].startswith("✓")
    assert rows["extrapolates"]["one-hot"].startswith("✗") and rows["extrapolates"]["fraction p / L"].startswith("✗")
    assert all(cell.startswith("✓") for cell in list(rows["cheap"])[1:])


def test_problem_caps_the_demo_width_with_a_notice():
    at = open_page("problem", d_model="8192")
    assert_clean(at)
    assert any("width 512" in i.value for i in at.info)
