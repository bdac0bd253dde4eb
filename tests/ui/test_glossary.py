"""ui.glossary: every term the scorecards and the lab's probe results use is defined once, in ui.glossary, and
shown beside them: read from the words they print at the ends of the sliders and from the lab's text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.analysis import properties as P
from core.schemes.registry import SCHEMES, Setting
from ui import glossary

ROOT = Path(__file__).resolve().parents[2]
NUMBER = re.compile(r"[0-9][0-9,]*(\.[0-9]+)?(e[+-]?[0-9]+)?")
PLAIN = {  # the scorecard's words that use no term: plain sentences, numbers taken out
    "no position", "# parameters", "no code past max_len", "one position: no pair to compare", "two positions: nothing to compare neighbours with",
    "fewer than # positions: no offset to compare", "nothing varies", "all codes alike", "defined", "no code past position #",
    "the code of position # changes when the length doubles",
}  # fmt: skip


def evidence() -> set[str]:
    """Every piece of evidence the checklist prints, for every scheme, at the ends of the sliders."""
    out = set()
    for length in (1, 2, 7, 300):  # one position, two, a few, a sampled context
        for width in (2, 3, 64):
            setting = Setting(width=width, train_len=length, n_heads=6)
            for measured in P.measure_all(list(SCHEMES), SCHEMES, setting, length).values():
                if isinstance(measured, P.Properties):
                    out |= {words for _, words in P.checklist(measured).values()}
    return out


def test_the_scorecard_terms_are_defined_once():
    for term in ("departure", "×growth on [L, 2L)", "neighbour / mean distance", "R²", "total variation distance", "ridge regression", "Toeplitz",
                 "permutation-equivariant", "residual stream"):  # fmt: skip
        assert term in glossary.TERMS and glossary.TERMS[term][1].strip()
    definitions = [d for _, d in glossary.TERMS.values()]
    assert len(set(definitions)) == len(definitions)


def test_every_term_the_scorecard_prints_is_defined_beside_it():
    seen = evidence()
    assert len(seen) > 30  # the sweep reached the scorecard's many sentences
    for words in seen:
        used = glossary.used_in(words)
        assert set(used) <= set(glossary.SCORECARD), (words, used)
        assert used or NUMBER.sub("#", words).replace("#.#", "#") in PLAIN, f"a scorecard sentence with no defined term and not plain: {words!r}"
    # every term the scorecard's expander shows is one it uses
    assert set(glossary.SCORECARD) == {t for words in seen for t in glossary.used_in(words)} | {"max |value|"}


def test_the_lab_results_terms_are_defined_beside_them():
    # the trained-model experiments' words (ui/lab/trained.py) with their findings and figures: every term they use is in the expander
    # the section draws above them
    texts = [(ROOT / path).read_text() for path in ("ui/lab/trained.py", "core/lab/findings.py", "core/lab/trained_figures.py")]
    assert {t for text in texts for t in glossary.used_in(text)} == set(glossary.TRAINED)
    assert "glossary.terms_expander(glossary.TRAINED" in texts[0]


def test_the_words_against_positions_terms_are_defined_beside_them():
    # /attention's "Words against positions" tab (its drawer) with its two figures and the caption under the second: every term
    # they use is in the expander the tab draws under its header, and no other
    page = (ROOT / "app_pages/attention.py").read_text()
    tab = page[page.index("def _magnitudes") : page.index("def _add_concat")]
    figures = (ROOT / "core/viz/attention_figures.py").read_text()
    drawn = figures[figures.index("def norms_figure") :]
    assert {t for text in (tab, drawn) for t in glossary.used_in(text)} == set(glossary.WORDS_AND_POSITIONS)
    assert "glossary.terms_expander(glossary.WORDS_AND_POSITIONS" in tab


@pytest.mark.parametrize(("text", "terms"), [
    ("✓ max |value| ×1.198 on [L, 2L), no higher up to position 16,777,215", ["max |value|", "×growth on [L, 2L)"]),
    ("✗ departure 0.957", ["departure"]),
    ("a mean total-variation distance per query of 0.3", ["total variation distance"]),
    ("the value depends only on p − q (a Toeplitz matrix)", ["Toeplitz"]),
])  # fmt: skip
def test_used_in_finds_each_term(text, terms):
    assert glossary.used_in(text) == terms
