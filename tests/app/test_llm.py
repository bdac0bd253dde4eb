"""AppTest of the `llm` page: without the model file (PEE_LLM_MODEL naming a missing or damaged file) it says
in one sentence how to get the model, and the rest of the page (its sources, the next page) is there."""

from __future__ import annotations

import pytest

from core.llm import model
from tests.app.conftest import assert_clean, grid_keys, open_page


@pytest.mark.parametrize("content", [None, b"not a model"])
def test_without_the_model_the_page_says_how_to_get_it(monkeypatch, tmp_path, content):
    path = tmp_path / "absent.gguf"
    if content is not None:
        path.write_bytes(content)
    monkeypatch.setenv(model.ENV, str(path))
    at = open_page("llm")
    assert_clean(at)
    [notice] = at.info
    assert notice.value == model.missing() and model.ENV in notice.value
    assert grid_keys(at) == [] and not at.exception
    assert [e.label for e in at.expander] == ["Sources"]
