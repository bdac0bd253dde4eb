"""core.bibliography: each paper written once, in the two forms the app shows it; no other module of the lab or
of the Sources lists writes a paper's reference itself."""

from __future__ import annotations

import ast
from pathlib import Path

from core import bibliography

ROOT = Path(__file__).resolve().parents[2]


def test_a_paper_is_listed_and_cited_in_the_forms_the_pages_show():
    assert bibliography.HAVIV.listed == (
        "Haviv et al. 2022, Transformer Language Models without Positional Encodings Still Learn Positional Information (Findings of EMNLP; arXiv:2203.16634)"
    )
    assert bibliography.HAVIV.cited == (
        "Haviv, Ram, Press, Izsak & Levy (2022), Transformer Language Models without Positional Encodings Still Learn Positional "
        "Information, Findings of EMNLP 2022, arXiv:2203.16634"
    )
    assert bibliography.LIU.listed == "Liu et al. 2023, Scaling Laws of RoPE-based Extrapolation (arXiv:2310.05209)"  # a preprint: no venue
    assert bibliography.LIU.cited == "Liu, Yan, Zhang, An, Qiu & Lin (2023), Scaling Laws of RoPE-based Extrapolation, arXiv:2310.05209"
    assert bibliography.ALIBI.listed == "Press, Smith & Lewis 2022, Train Short, Test Long (ICLR; arXiv:2108.12409)"  # the short title
    assert bibliography.VASWANI.cited == "Vaswani et al. (2017), Attention Is All You Need, NeurIPS 2017, arXiv:1706.03762"  # no list of authors


def test_no_other_module_of_the_lab_or_the_sources_writes_a_reference():
    files = [*sorted((ROOT / "core" / "lab").glob("*.py")), ROOT / "ui" / "path.py"]  # the pages' Sources are declared in their Steps
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert "arXiv:" not in node.value, f"{path.relative_to(ROOT)} writes a reference: it belongs in core/bibliography.py"
