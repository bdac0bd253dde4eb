"""ui.lab.trained.record_view: an experiment drawn from its record alone (as a new experiment without
a view of its own is) shows its record's question, its shipped figure and findings, and a live run
said in the record's words. Run over every experiment of the registry."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.lab.registry import EXPERIMENTS
from tests.app.conftest import figure


def _record_app() -> None:
    import streamlit as st

    from ui.lab.trained import record_view

    record_view(st.query_params["name"])


def _open(name: str) -> AppTest:
    at = AppTest.from_function(_record_app, default_timeout=120)
    at.query_params["name"] = name
    return at.run()


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_an_experiment_drawn_from_its_record_shows_its_shipped_numbers(name):
    record = EXPERIMENTS[name]
    at = _open(name)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.markdown[0].value == record.question
    ship = record.load()
    expected = record.figure(ship.data, "precomputed")  # every training seed's numbers: the mean, a band from the lowest to the highest
    drawn = figure(at, f"lab_{name}_shipped")
    assert drawn["layout"]["title"]["text"] == expected.layout.title.text and len(drawn["data"]) == len(expected.data)
    captions = " ".join(c.value for c in at.caption)
    assert f"**Precomputed** by `{record.command}`" in captions and record.findings(ship.data) in captions
    assert not at.button(key=f"lab_{name}_go").disabled  # its default runs live, within the budget


def test_a_live_run_from_the_record_is_said_in_its_words():
    record = EXPERIMENTS["pairs"]  # the cheapest default: the shipped RoPE model evaluated at 64 and 256
    at = _open("pairs")
    at.button(key="lab_pairs_go").click().run()
    run = at.session_state["lab_pairs_run"]
    assert run.wait(120) and run.progress[0].state in ("done", "cached"), run.progress[0].message
    at.run()
    assert not at.exception
    said = record.said(run.configs[0], run.results[0])
    assert any(m.value.startswith(said) for m in at.markdown), [m.value for m in at.markdown]
    ship = {tuple(v["removed"]): v for v in record.load().data.variants}
    assert f"{ship[()]['perplexity']['64']:.3f} at 64" in said  # the live number is the shipped one


def test_a_shipped_models_problem_is_read_from_the_folder_of_its_own_seed(tmp_path, monkeypatch):
    # the probe lets a learner pick seed 1 or 2 of a shipped model: the models of that seed are the ones checked
    import shutil

    from core.lab import weights
    from ui.lab.trained import model_problem

    for name in (weights.MANIFEST_NAME, weights.file_name("rope")):
        shutil.copy(weights.MODELS_DIR / name, tmp_path / name)  # seed 0's RoPE model alone; no seed1/ folder
    monkeypatch.setattr(weights, "MODELS_DIR", tmp_path)
    assert model_problem("rope") is None and model_problem("rope", seed=0) is None
    assert model_problem("rope", seed=1).startswith("The list of shipped models")  # seed 1's folder is not there: a sentence
