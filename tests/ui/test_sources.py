"""ui.sources: every page has a Sources expander, and every paper a page's words cite by author is in that page's list.
The check reads the page scripts (and the text modules they draw from) as text, so a new citation without a source fails."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ui.path import STEPS
from ui.sources import SOURCES

ROOT = Path(__file__).resolve().parents[2]
TEXT_MODULES = {  # modules whose sentences a page shows
    "practice": ["ui/practice_text.py"],
    "lab": ["ui/lab/lm.py", "ui/lab/lm_text.py", "ui/lab/trained.py", "core/lab/findings.py"],
    "context": ["ui/context_models.py", "core/analysis/context.py"],
    "rope": ["ui/rope_scaling.py", "ui/rope_controls.py", "ui/rope_text.py", "core/schemes/rope.py"],  # the scaling kinds' words are in their records
    "": ["core/analysis/raw_positions.py"],
}
AUTHORS = "Vaswani|Press|Su|Peng|Chen|Dai|Chi|Shaw|Raffel|Haviv|Kazemnejad|Devlin|Llama Team|Gemma Team|Wang|Barbero|Liu|Mohtashami"
CITED = re.compile(rf"\b({AUTHORS})( et al\.| \(| 20\d\d|,| &)")
KEYWORDS = {"Devlin": "BERT", "Raffel": "Raffel", "Shaw": "Shaw"}


def page_text(step) -> str:
    text = (ROOT / step.script).read_text()
    for module in TEXT_MODULES.get(step.url_path, []):
        text += (ROOT / module).read_text()
    return text


@pytest.mark.parametrize("step", STEPS, ids=[s.url_path or "problem" for s in STEPS])
def test_every_page_draws_its_sources(step):
    tree = ast.parse((ROOT / step.script).read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "sources_expander"]
    assert [c.args[0].value for c in calls] == [step.url_path]
    entries = SOURCES[step.url_path]
    assert entries and all(e.claim.strip() and e.where.strip() for e in entries)


@pytest.mark.parametrize("step", STEPS, ids=[s.url_path or "problem" for s in STEPS])
def test_every_author_a_page_cites_is_in_its_sources(step):
    sources = " ".join(e.where for e in SOURCES[step.url_path])
    for author in {m.group(1) for m in CITED.finditer(page_text(step))}:
        assert KEYWORDS.get(author, author) in sources, f"/{step.url_path} cites {author} without a source entry"


def test_sources_cover_exactly_the_pages():
    assert set(SOURCES) == {s.url_path for s in STEPS}


# the app's own folders and commands (another project's file, a paper's code, is a source and is named): a Sources entry
# says in words where the app's number comes from
CODE_NAME = re.compile(r"(?<![\w/.@-])(app_pages|bench|core|data|harness|scripts|tests|ui)/|python -m")
# what an entry's words promise, and the file of the repository that keeps the promise (the provenance the words replace)
KEPT_BY = {
    "the app's tests compare every preset's": ("tests/core/schemes/test_rope_presets.py", "def test_preset_frequencies_are_transformers_own"),
    "the app's tests compare the app's with them": ("tests/core/schemes/test_rope.py", "modeling_rope_utils.py"),
    "the app's tests compare that forward pass with transformers' LlamaForCausalLM": ("tests/core/llm/test_llm.py", "def test_logits_equal_transformers"),
    "the app's tests run it for every scheme": ("tests/core/files/test_codegen.py", "def test_added_code_equals_the_registry"),
    "the janeaustenr corpus, shipped with the app beside its licence": ("data/LICENSE-janeaustenr.txt", ""),
    "the table ships with the app beside its licence": ("data/LICENSE-all-MiniLM-L6-v2.txt", ""),
}


def test_sources_name_no_file_or_command_of_the_app_and_their_words_are_kept():
    said = " ".join(f"{e.claim} {e.where}" for entries in SOURCES.values() for e in entries)
    assert CODE_NAME.search("see core/lab/config.py") and CODE_NAME.search("python -m bench.llm")  # the pattern finds a code name
    assert not CODE_NAME.search(said), CODE_NAME.search(said)
    assert "too large to fetch" not in said
    for words, (path, backing) in KEPT_BY.items():
        assert words in said, words
        assert backing in (ROOT / path).read_text(errors="replace"), (words, path)
