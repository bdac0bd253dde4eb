"""AppTest of the lab page: nothing trains on load; a tiny configuration is driven to the end (the
test waits for the background run, then reruns as the page's poller would) and the plots carry
its numbers; a repeated run comes from the cache at once; Stop stops; a run past the server's cap
on runs training at once waits in line, says so, and leaves the line on Stop; bad settings give
clear messages."""

from __future__ import annotations

import html
import json
import re
import time
from collections import deque

import numpy as np
import pytest

from core.lab import labrun
from core.lab import trainers as line
from core.lab.config import SURVEY, LabConfig
from core.lab.figures import example_text, survey_reading, survey_table
from core.lab.lm_figures import short_label
from core.lab.registry import EXPERIMENTS
from tests.app.conftest import assert_clean, chart_keys, decode, figure, figures, grid, grids, open_page, plain_table, title_text

TINY = {"lab_train_len": 8, "lab_steps": 30}


def tiny_page(schemes: list[str], **numbers: int):
    at = open_page("lab")
    for key, value in {**TINY, **numbers}.items():
        at.number_input(key=key).set_value(value)
    at.multiselect(key="lab_schemes").set_value(schemes)
    return at.run()


def train_to_the_end(at):
    at.button(key="lab_train").click().run()
    assert at.button(key="lab_train").disabled or at.session_state["lab_run"].done  # one run per session
    assert at.session_state["lab_run"].wait(120)
    return at.run()


def test_nothing_trains_on_load():
    at = open_page("lab")
    assert_clean(at)
    assert "lab_run" not in at.session_state
    # one chart, the precomputed curves the page opens with (the paper's are in a closed tab): no training; the task's picture
    # waits in its closed box, built only when opened, and a link opens it; the trained models' section opens on its questions
    assert chart_keys(at) == ["lab_lm_shipped"] and "lab_map" not in at.query_params
    assert at.query_params["lab_trained_view"] == "questions"
    assert all(f"**{r.title}**: {r.question}" in " ".join(m.value for m in at.markdown) for r in EXPERIMENTS.values())
    at = open_page("lab", lab_map="true")
    assert_clean(at)
    assert chart_keys(at) == ["lab_lm_shipped", "lab_task_map"]
    task_map = figure(at, "lab_task_map")
    tested, trained, diagonal = task_map["data"]
    assert "diagonal" in diagonal["name"]  # the line the caption measures from is drawn
    np.testing.assert_array_equal(decode(trained["x"]), np.arange(1, 32))  # kback, k = 1: every position from 1 on
    np.testing.assert_array_equal(decode(tested["y"]), np.arange(127))  # reads the one before it
    assert any("Nothing trained yet" in i.value for i in at.info)
    assert not at.button(key="lab_train").disabled and at.button(key="lab_stop").disabled
    assert at.text_input(key="lab_eval_lens").value == "32, 64, 96, 128"
    shown = [html.unescape(re.sub(r"<[^>]+>", "", h.value)) for h in at.html]  # ui.display.text_block: the text escaped inside a <pre>
    example = next(text for text in shown if text.startswith("input"))  # (the first figure's text alternative stands before it)
    assert example == example_text(LabConfig())  # the defaults' first training sequence, seed 0
    inputs, targets = (line.split(": ", 1)[1].split() for line in example.split("\n"))
    assert len(inputs) == len(targets) == 24  # the first 24 tokens, aligned
    assert targets[0] == "·" and targets[1:] == inputs[:-1]  # kback, k = 1: each token names the one before it


def _walk(node, folded: bool = False):
    """Every element under `node` in page order, with whether it sits in an expander (folded until a click)."""
    for child in getattr(node, "children", {}).values():
        inside = folded or child.type == "expander"
        if getattr(child, "children", None):
            yield from _walk(child, inside)
        else:
            yield child, inside


WORD = re.compile(r"[^\W_][\w'’.,-]*")


def test_the_page_opens_with_its_lesson_under_a_few_words_and_keeps_commands_folded():
    at = open_page("lab")
    assert_clean(at)
    elements = [(el, folded) for el, folded in _walk(at.main)]
    first = next(i for i, (el, _) in enumerate(elements) if el.type == "plotly_chart")
    assert chart_keys(at)[0] == "lab_lm_shipped"  # the precomputed curves: the lesson, drawn before any control
    read = [el.value for el, folded in elements[:first] if el.type in ("title", "markdown", "caption") and not folded]
    assert read[0] == "The lab: train short, test long" and len(read) >= 3  # the title, the opening sentence, the chart's reading
    tabs = [tab.label for tab in at.tabs]
    assert sum(len(WORD.findall(text)) for text in read + tabs[:2]) <= 60, read  # a title and a sentence or two above the figure
    assert not any(el.type in ("selectbox", "multiselect", "number_input", "text_input") for el, _ in elements[:first])
    shown = [el.value for el, folded in elements if el.type in ("markdown", "caption") and not folded]
    for text in shown:  # a command or a file of the repository is for those who open an expander to rerun
        assert "python -m" not in text and "data/lab" not in text and "core." not in text, text


def test_a_tiny_configuration_runs_to_the_end_and_draws_its_results():
    at = tiny_page(["none", "rope", "learned"])
    assert at.text_input(key="lab_eval_lens").value == "8, 16, 24, 32"  # follows the training length
    at = train_to_the_end(at)
    assert_clean(at)
    run = at.session_state["lab_run"]
    assert [p.state for p in run.progress] == ["done", "done", "done"]
    figs = figures(at)
    titles = [title_text(f) for f in figs]
    assert len(figs) == 4 and all(titles)  # after the precomputed curves the page opens with
    figs, titles = figs[1:], titles[1:]  # after the precomputed curves (the task's picture waits in its closed box)
    assert titles[0].startswith("Accuracy against evaluation length: trained on 8 tokens")
    accuracy = {t["name"]: (decode(t["x"]), decode(t["y"]).astype(float)) for t in figs[0]["data"]}
    assert set(accuracy) == {"none (NoPE)", "rotary (RoPE)", "learned absolute table (no code from position 8)"}
    np.testing.assert_array_equal(accuracy["rotary (RoPE)"][0], [8, 16, 24, 32])
    np.testing.assert_allclose(accuracy["rotary (RoPE)"][1], [run.results[1].accuracy[n] for n in (8, 16, 24, 32)], rtol=1e-6)
    learned = accuracy["learned absolute table (no code from position 8)"][1]
    assert np.isfinite(learned[0]) and np.all(np.isnan(learned[1:]))  # no code past the table
    by_position = {t["name"]: decode(t["y"]) for t in figs[1]["data"]}
    assert by_position["rotary (RoPE)"].size == 32 and by_position["learned absolute table (no code from position 8)"].size == 8  # stops where the table ends
    assert figs[2]["layout"]["yaxis"]["type"] == "log" and len(figs[2]["data"]) == 3  # one loss curve per scheme
    table_map, similarity_map = (grid(at, key) for key in ("lab_table_heatmap", "lab_table_similarity"))  # painted by the browser
    assert all(p["zmin"] == -p["zmax"] for spec in (table_map, similarity_map) for p in spec["panels"])  # signed: centred on zero
    assert table_map["scales"][0]["colours"] == similarity_map["scales"][0]["colours"]
    assert "learned absolute table after 30 steps" in table_map["title"] and "Cosine similarity" in similarity_map["title"]
    table = next(plain_table(t) for t in at.table if "notes" in plain_table(t).columns)
    assert list(table["scheme"]) == ["NoPE", "RoPE", "learned"]  # the short names, in a table of many columns
    assert "at 16, 24, 32: this learned table has 8 rows (positions 0 to 7)" in table["notes"][2] and "cannot extrapolate" in table["notes"][2]
    # accuracies in words: the run's own to 3 decimals, "no code" past the table's 8 rows (the legend's number), never "None"
    assert list(table["acc @ 8"]) == [f"{run.results[i].accuracy[8]:.3f}" for i in range(3)]
    assert list(table.iloc[2][["acc @ 16", "acc @ 24", "acc @ 32"]]) == ["no code"] * 3
    assert not any(str(cell) in ("None", "nan") for cell in table.to_numpy().ravel())
    captions = " ".join(c.value for c in at.caption)
    assert "the learned absolute table has codes for positions 0 to 7 only (8 rows, the training length)" in captions
    assert not at.button(key="lab_train").disabled and at.button(key="lab_stop").disabled


def test_the_same_configuration_again_comes_from_the_cache():
    at = train_to_the_end(tiny_page(["alibi"], lab_seed=5))
    first = at.session_state["lab_run"].results[0]
    at.button(key="lab_train").click().run()
    again = at.session_state["lab_run"]
    assert again.done and again.progress[0].state == "cached" and again.results[0] is first  # no thread, no wait
    assert_clean(at)
    # the results drawn by the click's own run (and the two precomputed figures)
    assert len(figures(at)) == 4 and any("notes" in plain_table(t).columns for t in at.table)


def test_stop_ends_a_long_run_and_shows_where_it_stopped():
    at = tiny_page(["none"], lab_steps=20_000)
    at.button(key="lab_train").click().run()
    assert not at.button(key="lab_stop").disabled and at.button(key="lab_train").disabled
    run = at.session_state["lab_run"]
    end = time.monotonic() + 60
    while run.progress[0].step < 1 and time.monotonic() < end:  # Stop once it has trained a step: there is a place to stop at
        time.sleep(0.05)
    at.button(key="lab_stop").click().run()
    assert run.wait(60) and run.progress[0].state == "stopped"
    at.run()
    assert_clean(at)
    assert "stopped at step" in title_text(figures(at)[1])  # after the precomputed curves


@pytest.fixture()
def trainers_busy():
    """Every slot of the server's cap on runs training at once held by a fake run (through the
    core API), released at the end; yields the process-wide Trainers and the held tickets."""
    slots = line.trainers()
    held = [slots.acquire() for _ in range(slots.max_runs)]
    try:
        yield slots, held
    finally:
        for ticket in held:
            slots.release(ticket)


def test_a_run_past_the_cap_waits_in_line_and_stop_takes_it_out(trainers_busy):
    slots, _ = trainers_busy
    at = tiny_page(["none"], lab_seed=101)
    at.button(key="lab_train").click().run()
    assert_clean(at)
    run = at.session_state["lab_run"]
    assert run.running and run.queued() == (0, slots.max_runs) and run.progress[0].state == "waiting"
    expected = f"Waiting for a free trainer: {slots.max_runs} runs in progress, you are 1st in line"
    assert any(expected in i.value for i in at.info), [i.value for i in at.info]
    assert at.button(key="lab_train").disabled and not at.button(key="lab_stop").disabled
    at.button(key="lab_stop").click().run()
    assert run.wait(10) and slots.waiting == 0 and run.progress[0].state == "stopped"
    at.run()
    assert_clean(at)
    assert not any("Waiting for a free trainer" in i.value for i in at.info)
    assert any("stopped before any scheme finished" in i.value for i in at.info)
    assert not at.button(key="lab_train").disabled


def test_a_waiting_run_trains_once_a_trainer_frees_up(trainers_busy):
    slots, held = trainers_busy
    at = tiny_page(["none"], lab_seed=102)
    at.button(key="lab_train").click().run()
    run = at.session_state["lab_run"]
    assert run.queued() == (0, slots.max_runs)
    slots.release(held[0])
    assert run.wait(120) and run.progress[0].state == "done"
    at.run()
    assert_clean(at)
    assert len(figures(at)) == 4 and not any("Waiting" in i.value for i in at.info)


@pytest.fixture()
def own_browsers(monkeypatch):
    """Each AppTest session a browser of its own (AppTest sends no cookies, and every session has one id):
    the visitor is what the session's `as_browser` says."""
    import streamlit as st

    import ui.visitor

    monkeypatch.setattr(ui.visitor, "visitor_id", lambda: st.session_state.get("as_browser", "browser"))


def test_two_sessions_in_line_each_see_their_place(trainers_busy, own_browsers):
    slots, held = trainers_busy
    first, second = tiny_page(["none"], lab_seed=103), tiny_page(["none"], lab_seed=104)
    first.session_state["as_browser"], second.session_state["as_browser"] = "browser-1", "browser-2"
    first.button(key="lab_train").click().run()
    second.button(key="lab_train").click().run()
    assert any(f"{slots.max_runs} runs in progress, you are 2nd in line" in i.value for i in second.info), [i.value for i in second.info]
    first.button(key="lab_stop").click().run()  # the first leaves the line: the second moves up
    assert first.session_state["lab_run"].wait(10)
    second.run()
    assert any("you are 1st in line" in i.value for i in second.info), [i.value for i in second.info]
    second.button(key="lab_stop").click().run()
    assert second.session_state["lab_run"].wait(10) and slots.waiting == 0


def test_one_address_holds_two_places_and_a_third_browser_is_told_why(trainers_busy, own_browsers):
    # three browsers on this machine (AppTest's address: 127.0.0.1), each its own visitor: the address holds two places
    slots, _ = trainers_busy
    tabs = [tiny_page(["none"], lab_seed=110 + i) for i in range(3)]
    for i, at in enumerate(tabs):
        at.session_state["as_browser"] = f"browser-{i}"
        at.button(key="lab_train").click().run()
        assert_clean(at)
    assert [at.session_state["lab_run"].queued() for at in tabs[:2]] == [(0, slots.max_runs), (1, slots.max_runs)]
    refused = tabs[2].session_state["lab_run"]
    assert refused.done and refused.queued() is None and slots.waiting == 2, [at.session_state["lab_run"].address for at in tabs]
    shown = [w.value for w in tabs[2].warning]
    assert any(w.startswith("Your network address already has 2 runs training or waiting here") for w in shown), shown
    assert not tabs[2].get("progress") and not tabs[2].error  # the one sentence, no bars, no per-scheme failures
    for at in tabs[:2]:
        at.button(key="lab_stop").click().run()
        assert at.session_state["lab_run"].wait(10)
    assert slots.waiting == 0


def test_a_visitor_training_in_one_tab_waits_in_another_with_an_estimated_wait(trainers_busy, monkeypatch):
    """One trainer per visitor: the same browser (ui.internals.session.visitor_id, stubbed: AppTest sends no
    cookies) holds a trainer already, so its other tab waits behind it, and says so with a wait."""
    import ui.lab.run
    import ui.visitor

    slots, held = trainers_busy
    monkeypatch.setattr(slots, "_paces", deque(maxlen=slots.PACE_RUNS))  # no pace from the runs of earlier tests in this process: waits as estimated
    started = time.monotonic()
    for ticket in held:  # the visitor's first tab holds one trainer (40 s estimated), somebody else the others
        ticket.seconds, ticket.cap, ticket.started = 40.0, 120.0, started
    held[0].visitor = "browser-1"
    monkeypatch.setattr(ui.visitor, "visitor_id", lambda: "browser-1")
    at = tiny_page(["none"], lab_seed=105)
    at.button(key="lab_train").click().run()
    spent = time.monotonic() - started  # the first tab's run has this much less left by the time the page says it
    run = at.session_state["lab_run"]
    assert run.visitor == "browser-1" and run.cap == labrun.CAP_FLOOR_S and run.outlook().behind_own
    text = " ".join(i.value for i in at.info)
    assert "Waiting for your run in another tab to end (one trainer per visitor)" in text, text
    shown = re.search(r"should start in about (\d+ s) \(at most (\d+ min|\d+ s)", text)
    assert shown, text
    assert shown.group(1) in {ui.lab.run.duration(40 - spent * k / 20) for k in range(21)}, (text, spent)  # what is left of its 40 s
    assert shown.group(2) in {ui.lab.run.duration(120 - spent * k / 20) for k in range(21)}, (text, spent)  # of its 120 s limit
    at.button(key="lab_stop").click().run()
    assert run.wait(10) and slots.waiting == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"lab_steps": 0}, "Training needs at least 1 step, got 0."),
        ({"lab_eval_lens": "0, 8"}, "Evaluation lengths must be at least 1 token, got 0."),
        ({"lab_eval_lens": "8, 40"}, "more than 4 x the training length 8 (at most 32)"),
        ({"lab_eval_lens": "8, x"}, "`x` is not a whole number"),
        ({"lab_table_len": 4}, "The training length 8 is above the table size 4 of the learned absolute table"),
    ],
)
def test_bad_settings_get_a_clear_message_and_no_training(change, message):
    at = tiny_page(["rope", "learned"])
    for key, value in change.items():
        (at.text_input if isinstance(value, str) else at.number_input)(key=key).set_value(value)
    at.run()
    assert not at.exception
    assert any(message in e.value for e in at.error), [e.value for e in at.error]
    assert at.button(key="lab_train").disabled


def test_no_scheme_picked_is_a_notice():
    at = open_page("lab")
    at.multiselect(key="lab_schemes").set_value([]).run()
    assert_clean(at)
    assert any("Pick at least one scheme" in i.value for i in at.info)


def test_a_lab_link_reopens_the_same_settings():
    at = open_page("lab", lab_schemes="rope,alibi", lab_task="copy", lab_train_len="16", lab_steps="40", lab_seed="7")
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    assert at.multiselect(key="lab_schemes").value == ["rope", "alibi"]
    assert at.selectbox(key="lab_task").value == "copy"
    assert (at.number_input(key="lab_train_len").value, at.number_input(key="lab_steps").value, at.number_input(key="lab_seed").value) == (16, 40, 7)
    assert at.query_params["lab_schemes"] == "rope,alibi" and at.query_params["lab_task"] == "copy"


def test_a_bad_lab_link_says_so():
    at = open_page("lab", lab_schemes="rope,warp", lab_task="juggle", lab_steps="-3")
    assert_clean(at)
    text = " ".join(w.value for w in at.warning)
    assert "lab_schemes" in text and "lab_task" in text and "lab_steps" in text
    assert at.multiselect(key="lab_schemes").value == ["rope"]


# --- the real-text section ---------------------------------------------------------------------


def test_the_real_text_section_shows_the_shipped_curves_on_load_and_the_papers_claims_in_its_tab_without_training():
    from core.lab import lm

    at = open_page("lab")
    assert_clean(at)
    assert "lab_lm_run" not in at.session_state and "lab_run" not in at.session_state  # nothing trains on load
    assert "lab_lm_paper" not in chart_keys(at)  # its tab is closed: not drawn on load
    ship = lm.load_shipped()
    shipped = figure(at, "lab_lm_shipped")
    assert "precomputed, mean of 3 training seeds, band: lowest to highest" in title_text(shipped) and "trained on 64 characters" in title_text(shipped)
    lines = {t["name"]: (decode(t["x"]), decode(t["y"]).astype(float)) for t in shipped["data"] if not t.get("fill")}
    bands = {t["name"]: decode(t["y"]).astype(float) for t in shipped["data"] if t.get("fill") == "toself"}
    assert len(lines) == 6 and len(bands) == 6
    alibi = lines["ALiBi"] if "ALiBi" in lines else next(v for k, v in lines.items() if k.startswith("ALiBi"))
    np.testing.assert_array_equal(alibi[0], [64, 128, 256, 512])
    seeds = np.array([[by_seed["results"]["alibi"]["perplexity"][str(n)] for n in (64, 128, 256, 512)] for by_seed in ship.meta["by_seed"].values()])
    assert seeds.shape == (3, 4)
    np.testing.assert_allclose(alibi[1], seeds.mean(axis=0), rtol=1e-9)  # the line at the seeds' mean
    alibi_band = next(v for k, v in bands.items() if k.startswith("ALiBi"))  # the band: highest out, lowest back
    np.testing.assert_allclose(alibi_band, np.concatenate([seeds.max(axis=0), seeds.min(axis=0)[::-1]]), rtol=1e-9)
    learned = next(v for k, v in lines.items() if "no code past 64" in k)
    assert np.isfinite(learned[1][0]) and np.all(np.isnan(learned[1][1:]))  # the line stops at L
    assert shipped["layout"]["yaxis"]["type"] == "log" and shipped["layout"]["shapes"][0]["x0"] == 64  # training length marked
    captions = " ".join(c.value for c in at.caption)
    assert "**Precomputed** by `python -m bench.lab_lm" in captions
    for scheme in ("sinusoidal", "alibi"):
        assert f"{lm.ratio(ship.perplexity[scheme], 64, 4):.3f}" in captions  # the ratio ppl(4L)/ppl(L) on the page
    table = next(plain_table(t) for t in at.table if "4L / L" in plain_table(t).columns)
    assert list(table.columns) == ["scheme", "ppl @ 64", "ppl @ 128", "ppl @ 256", "ppl @ 512", "4L / L", "8L / L", "seconds"]
    alibi_row = table[table["scheme"] == short_label("alibi")].iloc[0]
    assert [alibi_row[f"ppl @ {n}"] for n in (64, 128, 256, 512)] == [f"{ship.perplexity['alibi'][n]:.3f}" for n in (64, 128, 256, 512)]
    assert alibi_row["4L / L"] == f"{lm.ratio(ship.perplexity['alibi'], 64, 4):.3f}"
    learned_row = table[table["scheme"] == short_label("learned")].iloc[0]  # the narrow column's short name: "learned"
    assert learned_row["ppl @ 64"] != "" and learned_row["ppl @ 128"] == "" and learned_row["4L / L"] == ""  # no code past L: empty cells
    assert not at.button(key="lab_lm_train").disabled and at.button(key="lab_lm_stop").disabled

    at = open_page("lab", lab_lm_view="In the paper")
    assert_clean(at)
    assert "lab_lm_shipped" not in chart_keys(at) and "lab_lm_paper" not in chart_keys(at)  # no figure of the paper's table: not quoted
    claims = next(plain_table(t) for t in at.table if "the paper says" in plain_table(t).columns)
    assert list(claims["where"]) == [c.where for c in lm.PAPER_CLAIMS]
    captions = " ".join(c.value for c in at.caption)
    assert "Table 2" in captions and "image" in captions  # why its cells are not shown, said


def test_why_this_task_is_built_only_when_open_and_its_link_opens_it():
    at = open_page("lab")
    why = next(e for e in at.expander if e.label == "Why this task")
    assert not why.children and "lab_why" not in at.query_params  # closed: nothing built
    at = open_page("lab", lab_why="true")
    assert_clean(at)
    why = next(e for e in at.expander if e.label == "Why this task")
    assert why.proto.expanded and survey_table() in why.markdown[0].value
    # the reading is core's, from the shipped survey (its words chosen by the seeds' ranges: tests/core/lab/test_findings.py)
    assert why.markdown[1].value.endswith(survey_reading())
    assert f"gets {np.mean(SURVEY['none']['kback1'][1]):.2f}" in why.markdown[1].value
    at = open_page("lab", lab_why="TRUE")  # Streamlit reads a bound expander's value whatever its case
    assert_clean(at)
    assert not at.warning
    assert next(e for e in at.expander if e.label == "Why this task").children
    at = open_page("lab", lab_why="yes")
    assert not next(e for e in at.expander if e.label == "Why this task").children
    assert any("lab_why" in w.value and "true" in w.value for w in at.warning)


def test_run_it_yourself_trains_live_and_draws_its_run():
    at = open_page("lab")
    at.multiselect(key="lab_lm_schemes").set_value(["learned"])
    at.number_input(key="lab_lm_steps").set_value(2).run()
    at.button(key="lab_lm_train").click().run()
    run = at.session_state["lab_lm_run"]
    assert run.wait(120) and run.progress[0].state == "done"
    at.run()
    assert_clean(at)
    live = figure(at, "lab_lm_live")
    assert "your run, seed 0, 2 steps" in title_text(live)
    (trace,) = live["data"]
    assert decode(trace["y"]).astype(float)[0] == pytest.approx(run.results[0].perplexity[64], rel=1e-9)
    assert not at.button(key="lab_lm_train").disabled


def test_a_bad_real_text_link_says_so_and_no_scheme_is_a_message():
    at = open_page("lab", lab_lm_steps="lots", lab_lm_schemes="rope,warp")
    assert_clean(at)
    text = " ".join(w.value for w in at.warning)
    assert "lab_lm_steps" in text and "lab_lm_schemes" in text
    assert at.multiselect(key="lab_lm_schemes").value == ["rope"]
    at.multiselect(key="lab_lm_schemes").set_value([]).run()
    assert any("Pick at least one scheme to train" in e.value for e in at.error)
    assert at.button(key="lab_lm_train").disabled


# --- the experiments on the trained models -------------------------------------------------------------


def test_the_trained_model_experiments_show_their_shipped_numbers_and_wire_a_live_run():
    from core.lab import experiment, findings

    at = open_page("lab", lab_trained_view="probe")  # the first experiment: the position probe, precomputed, nothing trained
    assert_clean(at)
    assert "lab_probe_run" not in at.session_state
    ship = experiment.load("probe")
    lines = {t["name"]: decode(t["y"]).astype(float) for t in figure(at, "lab_probe_shipped")["data"] if t.get("name")}
    captions = " ".join(c.value for c in at.caption)
    nope4_seeds = [next(m for m in lay["models"] if (m["scheme"], m["n_layers"]) == ("none", 4)) for lay in findings.layouts(ship.results)]
    np.testing.assert_allclose(lines["none (NoPE), 4 layers"], np.mean([m["r2"] for m in nope4_seeds], axis=0), rtol=1e-12)  # the seeds' mean
    said = findings.spread([m["r2"][-1] for m in nope4_seeds]).text()  # the mean over the training seeds, their range in brackets
    assert "**Precomputed** by `python -m bench.lab_probe`" in captions and f"{said} (4 layers)" in captions
    assert "Haviv, Ram, Press, Izsak & Levy (2022)" in " ".join(m.value for m in at.markdown)
    assert grids(at) == []  # the attention maps are folded, built only when opened
    (maps,) = [g for g in grids(open_page("lab", lab_probe_map_layer="1"))]  # a link that names their layer opens them
    assert [p["title"] for p in maps["panels"]][:5] == ["NoPE, head 1", "NoPE, head 2", "NoPE, head 3", "NoPE, head 4", "T5, head 1"]

    at = open_page("lab", lab_trained_view="pairs")  # evaluate an ablation live through the runner, as the page's button does
    assert_clean(at)
    at.multiselect(key="lab_pairs_removed").set_value(["0"]).run()
    at.button(key="lab_pairs_go").click().run()
    run = at.session_state["lab_pairs_run"]
    assert run.wait(120) and run.progress[0].state in ("done", "cached")
    at.run()
    assert_clean(at)
    shipped_ppl = next(v for v in experiment.load("pairs").results["variants"] if v["removed"] == [0])["perplexity"]
    assert any(f"{shipped_ppl['64']:.3f} at 64" in m.value for m in at.markdown)  # the live number is the shipped one
    assert any("largest relative difference 0" in c.value for c in at.caption)


def test_a_damaged_shipped_model_is_a_sentence_on_the_page(tmp_path, monkeypatch):
    import shutil

    from core.lab import weights

    folder = tmp_path / "models"
    shutil.copytree(weights.MODELS_DIR, folder)
    data = bytearray((folder / "austen_rope.safetensors").read_bytes())
    data[1000] ^= 0xFF
    (folder / "austen_rope.safetensors").write_bytes(bytes(data))
    monkeypatch.setattr(weights, "MODELS_DIR", folder)
    at = open_page("lab", lab_trained_view="extend")
    assert not at.exception
    assert any("austen_rope.safetensors is damaged or was changed" in e.value for e in at.error)
    assert at.button(key="lab_ext_go").disabled  # nothing to run it on
    at = open_page("lab", lab_trained_view="warp")
    assert not at.exception and any("lab_trained_view" in w.value for w in at.warning)


def test_shipped_results_that_parse_but_lack_what_a_view_reads_are_a_sentence(tmp_path, monkeypatch):
    from core.lab import experiment
    from ui.lab import trained as lab_trained

    path = tmp_path / "lab_probe_results.json"
    path.write_text(json.dumps({"command": "python -m bench.lab_probe", "config": {}, "seed": 0, "results": {"models": [{"scheme": "none"}]}}))
    monkeypatch.setattr(experiment, "results_path", lambda name: path)
    lab_trained.shipped.clear()  # the page caches what it loaded: this test's file, then the real one again
    try:
        at = open_page("lab", lab_trained_view="probe")
        assert not at.exception
        assert any("could not be drawn from its precomputed results" in e.value and "python -m bench.lab_probe" in e.value for e in at.error)
    finally:
        lab_trained.shipped.clear()


SETTINGS = [  # views at settings beyond their defaults; every other experiment of the registry is opened at its defaults
    {"lab_trained_view": "extend", "lab_ext_s": "2"},
    {"lab_trained_view": "extend", "lab_ext_s": "8", "lab_ext_tuned": "true"},
    {"lab_trained_view": "sliding", "lab_slide_schemes": "rope,alibi"},
    {"lab_trained_view": "pairs", "lab_pairs_removed": "0,7"},
]


def _views():
    from core.lab.registry import EXPERIMENTS

    set_apart = {p["lab_trained_view"] for p in SETTINGS}
    return SETTINGS + [{"lab_trained_view": name} for name in EXPERIMENTS if name not in set_apart]


@pytest.mark.parametrize("params", _views())
def test_every_experiment_draws_its_shipped_numbers_with_titles_and_axes(params):
    import json as _json

    from core.lab import experiment, findings
    from core.lab.registry import EXPERIMENTS

    at = open_page("lab", **params)
    assert_clean(at)
    keys = [k for k in chart_keys(at) if k.startswith("lab_") and k not in ("lab_task_map", "lab_lm_shipped")]
    assert keys, "the experiment drew nothing"
    for key in keys:
        fig = figure(at, key)
        assert title_text(fig) and fig["layout"]["xaxis"]["title"]["text"] and fig["layout"]["yaxis"]["title"]["text"], key
    view = params["lab_trained_view"]
    ship = experiment.load(view)
    captions = " ".join(c.value for c in at.caption)
    assert f"**Precomputed** by `{EXPERIMENTS[view].command}`" in captions
    if view == "extend":  # the caption's numbers are the figure's
        s, tuned = int(params["lab_ext_s"]), "lab_ext_tuned" in params
        key = ("yarn", s, tuned)
        same = [next(r for r in lay["rows"] if (r["method"], r["factor"], bool(r["fine_tune"])) == key) for lay in findings.layouts(ship.results)]
        line = next(t for t in figure(at, "lab_ext_ppl")["data"] if t["name"] == "YaRN")  # the mean over the training seeds
        mean = [np.mean([r["perplexity"][n] for r in same]) for n in ("64", "128", "256", "512")]
        np.testing.assert_allclose(decode(line["y"]).astype(float), mean, rtol=1e-12)
        assert "mean of 3 training seeds, band: lowest to highest" in title_text(figure(at, "lab_ext_ppl"))
        longer = [next(r for r in lay["budgets"] if r["method"] == "linear") for lay in findings.layouts(ship.results)]
        budget = next(t for t in figure(at, "lab_ext_budgets")["data"] if t["name"] == "linear (position interpolation)")
        assert decode(budget["x"]).tolist() == [0, 38, 152]  # perplexity at s·L against fine-tune steps, the mean over the seeds
        np.testing.assert_allclose(decode(budget["y"]).astype(float)[-1], np.mean([r["perplexity"]["256"] for r in longer]), rtol=1e-12)
        from ui.lab import lm_text

        assert lm_text.extension_lead(EXPERIMENTS[view].load().data.runs("rows"), s, tuned) in captions  # under the one figure shown
        more = next(e for e in at.expander if e.label.startswith("More: attention"))  # the other two figures, folded
        assert len(more.get("plotly_chart")) == 2
        far = str(min(s, 8) * 64)  # ranked at s·L, over the training seeds
        at_far = [r["perplexity"][far] for r in same]
        assert f"YaRN {findings.spread(at_far).text()}" in captions
    if view == "pairs":  # the chosen pairs are crossed on the wavelength picture
        crossed = next(t for t in figure(at, "lab_pairs_wavelengths")["data"] if t["name"] == "removed (frequency 0)")
        assert list(decode(crossed["x"])) == [0, 7]
    if view == "passkey":
        alibi = next(t for t in figure(at, "lab_key_shipped")["data"] if t["name"] == "ALiBi")
        accs = [lay["schemes"]["alibi"]["accuracy"] for lay in findings.layouts(ship.results)]
        np.testing.assert_allclose(decode(alibi["y"]).astype(float), [np.mean([a[d] for a in accs]) for d in sorted(accs[0], key=int)], rtol=1e-12)
        every = findings.layouts(ship.results)
        same = [s for s in ship.results["schemes"] if all(lay["schemes"][s]["accuracy"] == lay["schemes"]["t5"]["accuracy"] for lay in every)]
        if len(same) > 1:  # lines drawn on each other are named
            assert "lie on each other" in captions
    text = " ".join(m.value for m in at.markdown) + captions
    if view == "sliding":  # the early-token curse is the ALiBi paper's appendix B, not its §5 (related work)
        assert "appendix B" in text and "Figure 11" in text and "§5" not in text
    assert _json.dumps(params)  # the settings travel in the link
