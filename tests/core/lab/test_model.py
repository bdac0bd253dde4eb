"""core.lab and core.lab.model: the tasks by hand, the config's refusals, training that learns and
repeats itself exactly, every registry scheme running past its training length (tables refuse or
are marked), the model's hooks against the numpy core, the bounded cache and the background run."""

import time
from pathlib import Path

import numpy as np
import pytest
import torch

from core.lab import config as lab_config
from core.lab import entry
from core.lab import model as lab_model
from core.lab.config import IGNORE, LabConfig, make_batch, parse_lengths
from core.lab.cache import ResultCache
from core.lab.labrun import LabRun
from core.schemes.torch import RotaryEmbedding
from core.schemes.registry import SCHEMES
from tests.helpers import assert_close

ROOT = Path(__file__).resolve().parents[3]
TINY = dict(d_model=16, n_heads=2, train_len=8, eval_lens=(8, 16, 32), batch=8, steps=30)


def test_kback_targets_are_the_tokens_k_back():
    config = LabConfig(offset=3)
    x, y = make_batch(config, np.random.default_rng(0), 5, 12)
    assert x.shape == y.shape == (5, 12) and x.max() < config.vocab
    assert np.all(y[:, :3] == IGNORE)
    np.testing.assert_array_equal(y[:, 3:], x[:, :-3])


@pytest.mark.parametrize("task", ["copy", "reverse"])
@pytest.mark.parametrize("length", [9, 10])
def test_copy_and_reverse_by_hand(task, length):
    config = LabConfig(task=task, vocab=10)
    x, y = make_batch(config, np.random.default_rng(1), 3, length)
    n, fill = length // 2, length % 2
    sep, filler = 10, 11
    symbols = x[:, fill : fill + n]
    answer = symbols if task == "copy" else symbols[:, ::-1]
    assert np.all(x[:, :fill] == filler) and np.all(x[:, fill + n] == sep)
    np.testing.assert_array_equal(x[:, fill + n + 1 :], answer[:, :-1])  # the answer so far is the input
    np.testing.assert_array_equal(y[:, fill + n :], answer)  # the separator predicts the first answer token
    assert np.all(y[:, : fill + n] == IGNORE)


@pytest.mark.parametrize("task", ["kback", "copy", "reverse"])
@pytest.mark.parametrize("length", [7, 8, 13])
def test_each_target_is_the_token_at_the_tasks_source_position(task, length):
    config = LabConfig(task=task, offset=2)
    x, y = make_batch(config, np.random.default_rng(2), 6, length)
    source = lab_config.TASKS[task].source(length, 2)
    scored = source >= 0
    np.testing.assert_array_equal(scored, np.any(y != IGNORE, axis=0))
    np.testing.assert_array_equal(y[:, scored], x[:, source[scored]])
    assert np.all(source < np.arange(length))  # a causal model can see the answer


def test_same_seed_same_data_other_seed_other_data():
    c = LabConfig()
    a = make_batch(c, np.random.default_rng([0, 1]), 4, 16)[0]
    assert np.array_equal(a, make_batch(c, np.random.default_rng([0, 1]), 4, 16)[0])
    assert not np.array_equal(a, make_batch(c, np.random.default_rng([1, 1]), 4, 16)[0])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (dict(steps=0), "at least 1 step, got 0"),
        (dict(eval_lens=(32, 0)), "Evaluation lengths must be at least 1 token, got 0"),
        (dict(eval_lens=()), "at least one evaluation length"),
        (dict(eval_lens=(129,)), r"more than 4 x the training length 32 \(at most 128\)"),
        (dict(scheme="learned", train_len=64, table_len=32), "training length 64 is above the table size 32 of the learned absolute table"),
        (dict(scheme="onehot", train_len=100, eval_lens=(100,)), "codes for positions 0 to 63 only at width 64"),
        (dict(scheme="fancy"), "Unknown scheme 'fancy'"),
        (dict(task="sort"), "Unknown task 'sort'"),
        (dict(offset=5, train_len=5, eval_lens=(5,)), "training length must be between 6 and 256"),
        (dict(n_heads=3), "split into 3 heads of an even width"),
        # two problems the page's controls allow at once: steps named first, then the task's, then the model's
        (dict(steps=0, offset=40, train_len=32), "at least 1 step, got 0"),
        (dict(d_model=16, n_heads=16, offset=40, train_len=32), "training length must be between 41 and 256"),
        (dict(lr=0.0), "learning rate must be a number above 0"),
        (dict(steps=2.5), "number of training steps must be a whole number"),
        (dict(train_len=1000), "training length must be between 2 and 256"),
        (dict(batch=256, n_heads=16, train_len=256, eval_lens=(256,)), "holds 268,435,456 attention scores per step"),
    ],
)
def test_bad_configs_say_what_to_change(changes, message):
    with pytest.raises(ValueError, match=message):
        LabConfig(**changes)


def test_config_sorts_lengths_and_knows_its_table():
    c = LabConfig(scheme="learned", eval_lens=(64, 32, 64))
    assert c.eval_lens == (32, 64) and c.rows == 32 and c.setting.train_len == 32
    assert LabConfig(scheme="learned", table_len=128).setting.train_len == 128
    assert hash(c) == hash(LabConfig(scheme="learned", eval_lens=(32, 64)))  # a cache key


def test_parse_lengths():
    assert parse_lengths("32, 64 128,") == (32, 64, 128)
    with pytest.raises(ValueError, match="`x` is not a whole number"):
        parse_lengths("32, x")
    with pytest.raises(ValueError, match="at least one evaluation length"):
        parse_lengths(" , ")


def test_a_short_run_learns():
    result = entry.train(LabConfig(scheme="rope", train_len=16, eval_lens=(16,), batch=16, steps=50))  # the default model, shorter
    assert result.steps_done == 50 and not result.stopped
    assert result.losses[-10:].mean() < 0.2 * result.losses[:10].mean()
    assert result.accuracy[16] > 0.9  # chance is 1/16
    assert result.tokens_per_s > 0 and result.table is None


def test_two_runs_with_the_same_seed_agree_exactly():
    config = LabConfig(scheme="learned", table_len=16, **TINY)
    a, b = entry.train(config), entry.train(config)
    np.testing.assert_array_equal(a.losses, b.losses)
    assert a.accuracy == b.accuracy
    np.testing.assert_array_equal(a.table, b.table)
    np.testing.assert_array_equal(a.position_accuracy, b.position_accuracy)
    other = entry.train(LabConfig(scheme="learned", table_len=16, seed=1, **TINY))
    assert not np.array_equal(a.losses, other.losses)


@pytest.mark.parametrize("name", list(SCHEMES))
def test_every_scheme_runs_past_its_training_length_or_refuses_clearly(name):
    config = LabConfig(scheme=name, **{**TINY, "steps": 2})
    result = entry.train(config)
    scheme = SCHEMES[name]
    table = scheme.max_position(config.setting)
    for length in config.eval_lens:
        if table is not None and length > table:
            assert result.accuracy[length] is None
            assert "only" in result.notes[length] or "cannot extrapolate" in result.notes[length]
        else:
            assert 0.0 <= result.accuracy[length] <= 1.0 and length not in result.notes
    runs_at = [n for n in config.eval_lens if result.accuracy[n] is not None]
    assert result.position_accuracy.shape == (max(runs_at),)  # the longest length it runs at


def test_a_learned_table_longer_than_training_runs_on_untrained_rows_and_says_so():
    config = LabConfig(scheme="learned", table_len=32, **TINY)
    result = entry.train(config)
    assert all(result.accuracy[n] is not None for n in config.eval_lens)
    assert "never reached" in result.notes[16] and 8 not in result.notes
    initial = SCHEMES["learned"].input_code(np.arange(32), config.setting)
    np.testing.assert_array_equal(result.table[8:].astype(np.float32), initial[8:].astype(np.float32))  # no gradient reaches rows 8+
    assert not np.allclose(result.table[:8], initial[:8])  # the trained rows moved
    learned_refuses = entry.train(LabConfig(scheme="learned", **TINY))
    assert learned_refuses.accuracy[16] is None
    assert learned_refuses.notes[16] == "this learned table has 8 rows (positions 0 to 7); position 8 has no embedding — a learned table cannot extrapolate"


def test_model_hooks_are_the_registry_hooks():
    gen = torch.Generator().manual_seed(0)
    c = LabConfig(scheme="rope", d_model=32, n_heads=2)
    hooks = lab_model.position_hooks(SCHEMES["rope"], c.setting, gen)
    x = torch.randn(2, 2, 100, 16, generator=gen)  # 100 positions: far past the training length
    assert_close(hooks.rotate(x).numpy(), RotaryEmbedding(16)(x.double()).numpy(), atol=1e-5, rtol=1e-5)
    alibi = lab_model.position_hooks(SCHEMES["alibi"], LabConfig(scheme="alibi").setting, gen)
    assert_close(alibi.bias(torch.zeros(1, 4, 40, 16)).numpy(), SCHEMES["alibi"].score_bias(np.arange(40), np.arange(40), LabConfig().setting), atol=1e-6)
    sin = lab_model.position_hooks(SCHEMES["sinusoidal"], c.setting, gen)
    assert_close(sin.added(50).numpy(), SCHEMES["sinusoidal"].input_code(np.arange(50), c.setting), atol=1e-6)
    for name, kind in (("none", lab_model.FixedPositions), ("learned", lab_model.TrainedTable), ("t5", lab_model.TrainedBias), ("shaw", lab_model.TrainedBias)):
        hooks = lab_model.position_hooks(SCHEMES[name], LabConfig(scheme=name).setting, gen)
        assert isinstance(hooks, kind)
        assert sum(p.numel() for p in hooks.parameters()) == SCHEMES[name].parameters(LabConfig(scheme=name).setting)


def test_cache_is_bounded_and_skips_stopped_runs():
    cache = ResultCache(max_entries=2)
    results = [lab_config.LabResult(LabConfig(seed=s), np.zeros(1), {}, {}, np.zeros(1), None, 0.0, 0.0, False) for s in range(3)]
    for r in results:
        cache.put(r)
    assert len(cache) == 2 and cache.get(LabConfig(seed=0)) is None and cache.get(LabConfig(seed=2)) is results[2]
    cache.put(lab_config.LabResult(LabConfig(seed=9), np.zeros(1), {}, {}, np.zeros(1), None, 0.0, 0.0, True))
    assert cache.get(LabConfig(seed=9)) is None


def test_cache_is_bounded_by_the_bytes_its_results_hold_and_keeps_the_newest():
    big = lambda s, n: lab_config.LabResult(LabConfig(seed=s), np.zeros(n), {}, {}, np.zeros(1), None, 0.0, 0.0, False)  # noqa: E731
    cache = ResultCache(max_entries=10, max_bytes=3 * 8 * 1000 + 4000)  # three results of 1,000 float64s and their small parts fit
    for s in range(4):
        cache.put(big(s, 1000))
    assert len(cache) == 3 and cache.get(LabConfig(seed=0)) is None and cache.get(LabConfig(seed=3)) is not None
    cache.put(big(7, 100_000))  # larger than the whole budget alone: kept, and everything older dropped
    assert len(cache) == 1 and cache.get(LabConfig(seed=7)) is not None


def test_background_run_trains_each_config_caches_and_stops():
    cache = ResultCache()
    configs = [LabConfig(scheme=s, **{**TINY, "steps": 5}) for s in ("none", "alibi")]
    run = LabRun(configs, cache=cache).start()
    assert run.wait(60) and [p.state for p in run.progress] == ["done", "done"]
    assert run.progress[1].step == 5 and set(run.results) == {0, 1}
    again = LabRun(configs, cache=cache).start()
    assert again.done  # everything cached: done at start(), no thread to wait for
    assert again.wait(60) and [p.state for p in again.progress] == ["cached", "cached"] and again.results[0] is run.results[0]
    slow = LabRun([LabConfig(scheme="none", **{**TINY, "steps": 20_000})]).start()
    time.sleep(0.3)
    slow.stop()
    assert slow.wait(30) and slow.progress[0].state == "stopped" and slow.results[0].stopped
    assert 0 < slow.results[0].steps_done < 20_000 and slow.results[0].accuracy[8] is not None  # evaluated where it stopped


def test_a_run_whose_watcher_goes_away_stops():
    gone = LabRun([LabConfig(scheme="none", **{**TINY, "steps": 20_000})], alive=lambda: False, alive_every=0.0).start()
    assert gone.wait(30) and gone.stopped and gone.progress[0].state == "stopped"
