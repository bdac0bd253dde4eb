"""The real-text lab (core.lab.lm, core.lab.model.train_lm): the shipped corpus and its hashes,
the split (no held-out text in training), the evaluation windows and lengths, determinism for a
seed, bad corpus files, the budget, the shipped results, and a live retrain through the runner
matching the bench's path for the same seed."""

from __future__ import annotations

import gzip
import hashlib
import json
import math

import numpy as np
import pytest

from core.lab import lm
from core.lab.cache import ResultCache
from core.lab.entry import train_lm as run_lm
from core.lab.labrun import LabRun

SHIPPED_GZ_SHA256 = "d1ea56496b1194d865644877606bc6ad4637eb6732c2668db4d7da06ee1cc796"  # data/README.md
TINY = dict(train_len=8, steps=12, batch=4, d_model=16, n_heads=2, n_layers=1, eval_chars=256)


def write_gz(path, text: str | bytes) -> str:
    path.write_bytes(gzip.compress(text.encode("ascii") if isinstance(text, str) else text, mtime=0))
    return str(path)


@pytest.fixture()
def two_alphabets(tmp_path):
    """A corpus whose first 90 % uses only a-m and whose last 10 % only n-z (and spaces)."""
    rng = np.random.default_rng(3)
    train = "".join(rng.choice(list("abcdefghijklm "), size=9_000))
    held = "".join(rng.choice(list("nopqrstuvwxyz "), size=1_000))
    return write_gz(tmp_path / "two.txt.gz", train + held)


# --- the shipped corpus ---------------------------------------------------------------------


def test_the_shipped_corpus_is_the_documented_text():
    assert hashlib.sha256(lm.CORPUS_PATH.read_bytes()).hexdigest() == SHIPPED_GZ_SHA256
    corpus = lm.load_corpus()
    assert corpus.sha256 == lm.CORPUS_SHA256
    assert corpus.tokens == 76 and corpus.chars[0] == "\n" and corpus.chars[1] == " "
    assert (len(corpus.train), len(corpus.held)) == (3_603_752, 400_417)  # data/README.md
    text = gzip.decompress(lm.CORPUS_PATH.read_bytes()).decode("ascii")
    decoded = "".join(corpus.chars[i] for i in corpus.held[:40])
    assert decoded == text[3_603_752 : 3_603_752 + 40]


# --- the split --------------------------------------------------------------------------------


def test_split_is_the_first_ninety_percent_and_the_rest():
    train, held = lm.split(np.arange(1000))
    np.testing.assert_array_equal(train, np.arange(900))
    np.testing.assert_array_equal(held, np.arange(900, 1000))
    train, held = lm.split(np.arange(1001))  # int(1001 * 0.9) = 900
    assert len(train) == 900 and len(held) == 101


def test_no_held_out_text_is_ever_trained_on(two_alphabets):
    corpus = lm.load_corpus(two_alphabets)
    held_ids = {corpus.chars.index(c) for c in "nopqrstuvwxyz"}
    assert set(np.unique(corpus.train).tolist()).isdisjoint(held_ids)  # the split falls exactly at the alphabet change
    rng = np.random.default_rng(0)
    seen = np.concatenate([lm.train_batch(corpus.train, rng, 64, 32).ravel() for _ in range(200)])
    assert set(np.unique(seen).tolist()).isdisjoint(held_ids)
    windows = lm.eval_windows(corpus.held, 32, 512)
    train_only = {corpus.chars.index(c) for c in "abcdefghijklm"}
    assert set(np.unique(windows).tolist()).isdisjoint(train_only)


def test_training_windows_are_consecutive_text_and_reach_the_end():
    train = np.arange(100)
    batch = lm.train_batch(train, np.random.default_rng(1), 500, 10)
    assert batch.shape == (500, 11)
    np.testing.assert_array_equal(np.diff(batch, axis=1), 1)  # consecutive characters
    assert batch.min() >= 0 and batch.max() <= 98  # offsets below len - L - 1: inside the training part


# --- the evaluation lengths and windows -------------------------------------------------------


def test_evaluation_lengths_are_l_2l_4l_8l():
    assert lm.LMConfig().eval_lens == (64, 128, 256, 512)
    assert lm.LMConfig(train_len=16, factors=(1, 2, 4, 8), eval_chars=256).eval_lens == (16, 32, 64, 128)
    assert lm.LMConfig(train_len=10, factors=(1, 3), eval_chars=60).eval_lens == (10, 30)


def test_eval_windows_are_whole_non_overlapping_and_score_the_same_characters_at_every_length():
    held = np.arange(1000)
    for length in (8, 16, 32, 64):
        w = lm.eval_windows(held, length, 256)
        assert w.shape == (256 // length, length + 1)
        np.testing.assert_array_equal(w[:, 0], np.arange(0, 256, length))  # starts one window apart: no overlap, no sliding
        np.testing.assert_array_equal(w[:, 1:].ravel(), np.arange(1, 257))  # the scored targets: characters 1 .. 256, each once
    with pytest.raises(ValueError, match="too short"):
        lm.eval_windows(np.arange(100), 64, 128)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"factors": (2, 4)}, "must start with 1"),
        ({"factors": (1, 4, 2)}, "must increase"),
        ({"factors": (1, 16)}, "An evaluation factor"),
        ({"eval_chars": 1000}, "must fill whole windows of the longest evaluation length 512"),
        ({"scheme": "warp"}, "Unknown scheme"),
        ({"d_model": 30, "n_heads": 4}, "even width"),
        ({"lr": float("nan")}, "learning rate"),
    ],
)
def test_bad_configs_say_what_is_wrong(change, message):
    with pytest.raises(ValueError, match=message):
        lm.LMConfig(**change)


# --- bad corpus files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "is missing"),
        (b"this is not gzip at all" * 100, "is not a readable gzip file"),
        ("gz-truncated", "is not a readable gzip file"),
        ("caf\u00e9 ".encode("utf-8") * 500, "is not plain ASCII text: byte 3 is 0xc3"),
        ("short text", "holds 10 characters; the lab needs at least 1,000"),
        ("a" * 5000, "a single character"),
    ],
)
def test_a_bad_corpus_file_gets_a_clear_message(tmp_path, content, message):
    path = tmp_path / "corpus.txt.gz"
    if content == "gz-truncated":
        path.write_bytes(gzip.compress(b"abc " * 1000)[:30])
    elif isinstance(content, bytes) and content.startswith(b"this is not"):
        path.write_bytes(content)
    elif content is not None:
        write_gz(path, content)
    with pytest.raises(ValueError, match=message) as err:
        lm.load_corpus(path)
    assert "Traceback" not in str(err.value) and "corpus.txt.gz" in str(err.value)


def test_a_bad_corpus_fails_the_run_with_its_message_not_a_crash(tmp_path):
    path = tmp_path / "bad.txt.gz"
    path.write_bytes(b"\x1f\x8b garbage")
    run = LabRun([lm.LMConfig(scheme="alibi", corpus=str(path), **TINY)], train_fn=run_lm, budget=lm.over_budget).start()
    assert run.wait(60)
    assert run.progress[0].state == "failed" and "is not a readable gzip file" in run.progress[0].message


def test_a_plain_text_corpus_is_read_too(tmp_path):
    path = tmp_path / "plain.txt"
    path.write_text("ab\n" * 400, encoding="ascii")
    corpus = lm.load_corpus(path)
    assert corpus.chars == "\nab" and len(corpus.train) == 1080 and corpus.train[:3].tolist() == [1, 2, 0]


# --- training: determinism, the runner's path, what a run gives -------------------------------


def test_the_same_seed_gives_the_same_numbers_and_another_seed_does_not(two_alphabets):
    from core.lab.model import train_lm

    config = lm.LMConfig(scheme="rope", corpus=two_alphabets, **TINY)
    a, b = train_lm(config), train_lm(config)
    np.testing.assert_array_equal(a.losses, b.losses)
    assert a.perplexity == b.perplexity and a.steps_done == 12
    c = train_lm(lm.LMConfig(scheme="rope", corpus=two_alphabets, **{**TINY, "seed": 1}))
    assert not np.array_equal(a.losses, c.losses)


def test_a_live_run_through_the_runner_gives_the_bench_numbers(two_alphabets):
    """The page's path (a LabRun with train_lm, a cache, a budget) and the bench's direct call agree
    exactly for the same seed; the cache then serves the same result."""
    from core.lab.model import train_lm

    configs = [lm.LMConfig(scheme=s, corpus=two_alphabets, **TINY) for s in ("alibi", "learned", "t5")]
    cache = ResultCache()
    run = LabRun(configs, cache=cache, train_fn=run_lm, budget=lm.over_budget, wall_seconds=lm.LM_WALL_SECONDS).start()
    assert run.wait(120) and [p.state for p in run.progress] == ["done"] * 3
    for i, config in enumerate(configs):
        direct = train_lm(config)
        assert run.results[i].perplexity == direct.perplexity
        np.testing.assert_array_equal(run.results[i].losses, direct.losses)
    again = LabRun(configs, cache=cache, train_fn=run_lm, budget=lm.over_budget).start()
    assert again.done and [p.state for p in again.progress] == ["cached"] * 3


def test_perplexity_is_per_character_and_the_learned_table_stops_at_its_end(two_alphabets):
    from core.lab.model import train_lm

    result = train_lm(lm.LMConfig(scheme="learned", corpus=two_alphabets, **TINY))
    assert set(result.perplexity) == {8, 16, 32, 64}
    base = result.perplexity[8]
    assert 1.0 < base < 2 * lm.load_corpus(two_alphabets).tokens  # near the vocabulary size after a few steps, never below 1
    assert all(result.perplexity[n] is None for n in (16, 32, 64))
    assert "cannot extrapolate" in result.notes[16] and result.ratio(4) is None
    alibi = train_lm(lm.LMConfig(scheme="alibi", corpus=two_alphabets, **TINY))
    assert all(v is not None and math.isfinite(v) for v in alibi.perplexity.values())
    assert alibi.ratio(4) == pytest.approx(alibi.perplexity[32] / alibi.perplexity[8], rel=1e-12)


def test_a_stopped_run_is_not_evaluated(two_alphabets):
    from core.lab.model import NOT_EVALUATED, train_lm

    calls = iter([False] * 5 + [True] * 100)
    result = train_lm(lm.LMConfig(scheme="none", corpus=two_alphabets, **TINY), should_stop=lambda: next(calls))
    assert result.stopped and result.steps_done == 5
    assert all(v is None for v in result.perplexity.values()) and set(result.notes.values()) == {NOT_EVALUATED}


# --- the budget ---------------------------------------------------------------------------------


def test_the_budget_admits_one_scheme_and_the_whole_default_comparison_and_refuses_more():
    defaults = [lm.LMConfig(scheme=s) for s in lm.DEFAULT_SCHEMES]
    assert lm.over_budget(defaults[:1]) is None
    assert lm.over_budget(defaults) is None
    total = sum(lm.estimate(c).seconds for c in defaults)
    assert 200 < total <= lm.LM_RUN_SECONDS  # about a minute per scheme (measured: bench.lab_lm)
    message = lm.over_budget([c.with_scheme(c.scheme) for c in defaults for _ in range(2)])
    assert message is not None and f"allows about {lm.LM_RUN_SECONDS:,.0f} s per run" in message


# --- the shipped results and the paper's numbers ------------------------------------------------


def test_the_shipped_results_are_the_default_configuration_and_show_the_papers_shape():
    ship = lm.load_shipped()
    assert ship.command.startswith("python -m bench.lab_lm")
    assert set(ship.perplexity) == set(lm.DEFAULT_SCHEMES)
    for scheme in lm.DEFAULT_SCHEMES:
        assert ship.config_for(scheme) == lm.LMConfig(scheme=scheme)  # the page's defaults reproduce them
        assert set(ship.perplexity[scheme]) == {64, 128, 256, 512}
    assert all(ship.perplexity["learned"][n] is None for n in (128, 256, 512))
    ratio = {s: lm.ratio(ship.perplexity[s], 64, 4) for s in lm.DEFAULT_SCHEMES}
    assert ratio["sinusoidal"] > 2 and ratio["rope"] > 2  # they break past L, as in the paper
    assert ratio["alibi"] < 1.05 and ratio["t5"] < 1.1  # they hold
    raw = json.loads(lm.RESULTS_PATH.read_text())
    for scheme, row in raw["results"].items():
        assert row["ratio_4L"] == ratio[scheme] or (row["ratio_4L"] is None and ratio[scheme] is None)


def test_a_damaged_results_file_gets_a_clear_message(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match=r"The precomputed results \(r.json\) cannot be read"):
        lm.load_shipped(path)
    with pytest.raises(ValueError, match="are missing: run python -m bench.lab_lm"):
        lm.load_shipped(tmp_path / "none.json")


def test_the_papers_claims_are_its_methods_and_no_cell_of_its_table_is_quoted():
    """What Press et al.'s text says (§1, §2.2), one claim per method the lab trains too, each with its section; Table 2's
    cells are not quoted, and the page says why."""
    assert [c.scheme for c in lm.PAPER_CLAIMS] == ["sinusoidal", "rope", "t5", "alibi"] and set(lm.DEFAULT_SCHEMES) >= {c.scheme for c in lm.PAPER_CLAIMS}
    extra = {c.scheme: c.extra for c in lm.PAPER_CLAIMS}
    assert extra["sinusoidal"] < extra["rope"] < extra["t5"] and extra["alibi"] is None  # the order §2.2 finds; ALiBi's is said as ~2L
    assert all(c.where.startswith("§") and c.says for c in lm.PAPER_CLAIMS)
    assert "Table 2" in lm.PAPER_NOT_QUOTED and "image" in lm.PAPER_NOT_QUOTED and not hasattr(lm, "PAPER")


def test_a_line_of_one_point_is_drawn_larger_than_the_points_it_sits_among():
    from core.lab import lm_figures

    fig = lm_figures.perplexity_by_length([("learned", {64: 5.0, 128: None}), ("rope", {64: 5.0, 128: 6.0})], 64, what="test")
    learned, rope = fig.data
    assert (learned.marker.size, learned.marker.symbol) == (13, lm_figures.SCHEME_SYMBOLS["learned"]) and (rope.marker.size or 0) < 13


def test_lines_on_one_another_are_told_apart_by_their_schemes_dots_in_their_schemes_colours():
    from core.lab import lm_figures
    from core.schemes.registry import SCHEMES
    from core.viz import palette

    same = {64: 5.0, 128: 5.1}  # every line on one another, as T5's and ALiBi's lie near perplexity 5
    fig = lm_figures.perplexity_by_length([(s, same) for s in SCHEMES], 64, what="test")
    assert [t.marker.color for t in fig.data] == [t.line.color for t in fig.data] == [palette.scheme_colour(s) for s in SCHEMES]
    shapes = [t.marker.symbol for t in fig.data]
    assert len(set(shapes)) == len(SCHEMES) and all(t.mode == "lines+markers" and t.marker.size >= 8 for t in fig.data)
    t5, alibi = (fig.data[list(SCHEMES).index(s)].marker.symbol for s in ("t5", "alibi"))
    assert {t5, alibi} == {"square", "triangle-up"}


def test_a_narrow_tables_scheme_name_is_its_labels_acronym_or_first_word_and_never_shared():
    from core.lab.lm_figures import short_label
    from core.schemes.registry import SCHEMES

    assert [short_label(s) for s in ("none", "rope", "t5", "learned", "alibi", "kerple")] == ["NoPE", "RoPE", "T5", "learned", "ALiBi", "KERPLE"]
    assert short_label("sinusoidal") == SCHEMES["sinusoidal"].label  # 'sinusoidal' alone would name the tensor2tensor one too
    assert len({short_label(s) for s in SCHEMES}) == len(SCHEMES)  # no two schemes share one
    assert all(short_label(s) in SCHEMES[s].label for s in SCHEMES)  # read from the label, not written anew
