"""The citations of core.schemes.rope_presets: commits on each repository's default branch (the research record lists the
ones checked in fetched snapshots and the ones they replaced), statements that agree with each other, and the values
the primary sources give where a field was corrected."""

from __future__ import annotations

import json
import re
from pathlib import Path

from core.schemes import rope_presets
from core.schemes.rope_presets import PRESETS, VERIFIED

RECORD = json.loads((Path(__file__).parent / "data" / "rope_presets.json").read_text())
CITED = re.compile(r"([\w.-]+/[\w.-]+)@([0-9a-f]{12,40})")


def cited_commits() -> set[tuple[str, str]]:
    """Every owner/repo@commit the presets' sources name, as (repo, commit prefix)."""
    text = " ".join(text for preset in PRESETS.values() for text in preset.sources.values())
    return set(CITED.findall(text))


def test_no_citation_names_a_commit_off_the_default_branch():
    replaced = RECORD["citations_on_default_branch"]["replaced"]
    checked = RECORD["citations_on_default_branch"]["checked"]
    cited = cited_commits()
    assert cited, "the pattern finds the citations"
    for old in replaced:  # pull-request merge refs and side branches
        repo, commit = old.split("@")
        assert (repo, commit[:12]) not in cited, old
    for full in checked:  # a repository whose default branch was checked is cited at that commit only
        repo, commit = full.split("@")
        assert {c for r, c in cited if r == repo} == {commit[:12]}, repo


def test_the_research_record_cites_the_same_commits():
    text = json.dumps(RECORD["presets"])
    for old in RECORD["citations_on_default_branch"]["replaced"]:
        assert old not in text
    for new in RECORD["citations_on_default_branch"]["checked"]:
        assert new in text


def test_phi3_excerpt_is_described_one_way():
    """The stored Phi-3 excerpt holds long_factor[0:30] whole and a prefix of [30]: no source may say [0:31]."""
    texts = [rope_presets.HF_PHI3_EXCERPT] + [t for p in PRESETS.values() for t in p.sources.values()]
    assert not any("[0:31]" in t for t in texts)
    assert "long_factor[0:30] whole" in rope_presets.HF_PHI3_EXCERPT
    current = PRESETS["phi-3-mini-128k-instruct"].sources["scaling"]
    assert "long_factor[0:30] match" in current and "long_factor[30] matches its first 12 digits" in current
    assert str(PRESETS["phi-3-mini-128k-instruct"].scaling.long_factor[30]).startswith("60.8873863220")


def test_gemma3_trained_context_is_the_reports_32k():
    gemma = PRESETS["gemma-3-4b"]
    assert gemma.trained_context == 32_768 and gemma.status("trained_context") == VERIFIED
    assert "arXiv:2503.19786" in gemma.sources["trained_context"] and "§5.3" in gemma.sources["trained_context"]
    assert RECORD_FIELDS["gemma-3-4b"]["trained_context"]["value"] == gemma.trained_context
    assert gemma.extended_context / gemma.layers[1].scaling.factor <= gemma.trained_context  # the factor 8 brings 128K within the 32K trained


def test_qwen2_vl_head_dim_is_not_called_a_transformers_default():
    source = PRESETS["qwen2-vl-7b-instruct"].sources["head_dim"]
    assert "3584 / num_attention_heads 28" in source and "Qwen2-VL-7B-Instruct-GPTQ-Int8" in source
    assert "defaults are hidden_size 8192 / 64 heads" in source and "from the transformers default" not in source
    assert 3584 // 28 == 8192 // 64 == PRESETS["qwen2-vl-7b-instruct"].head_dim == 2 * sum(PRESETS["qwen2-vl-7b-instruct"].mrope_section)


def test_deepseek_note_names_the_official_floor_and_ceiling():
    notes = PRESETS["deepseek-v3"].notes
    assert "floor and ceiling" in notes and "rounds" not in notes
    assert "math.floor" in RECORD_FIELDS_NOTES["deepseek-v3"] and "torch.round appears only in an unmerged pull request" in RECORD_FIELDS_NOTES["deepseek-v3"]


RECORD_FIELDS = {p["name"]: p["fields"] for p in RECORD["presets"]}
RECORD_FIELDS_NOTES = {p["name"]: p.get("notes", "") for p in RECORD["presets"]}
