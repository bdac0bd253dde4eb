"""The experiments on trained models (core.lab.probe, pairs, extend, sliding, passkey and their
torch side core.lab.trained): the probe on hand cases with a known linear answer, the ablation's
identities (removing no pair changes nothing, removing all is the model without positions),
YaRN's temperature, the passkey generator, the sliding windows, the budgets' sentences, and a run
through the page's runner equal to the shipped numbers (tiny or cheap configurations)."""

from __future__ import annotations

import json
import math
from dataclasses import fields, is_dataclass, replace

import numpy as np
import pytest

from core.lab import experiment, extend, findings, lm, pairs, passkey, probe, registry, sliding
from core.lab.registry import EXPERIMENTS
from core.lab.cache import ResultCache
from core.lab.labrun import experiment_job
from core.llm import registry as llm_registry


def through_runner(config):
    """One config through a LabRun as the page starts it (its record's job, no budget), its Outcome."""
    run = replace(experiment_job(registry.of(config)), budget=lambda configs: None).start([config], cache=ResultCache())
    assert run.wait(120) and run.progress[0].state == "done", run.progress[0].message
    return run.results[0]


# --- the probe ------------------------------------------------------------------------------------


def test_the_ridge_probe_recovers_an_exact_linear_answer():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 5))
    x[:, 3] = 7.0  # a constant column carries nothing and must not break the fit
    w = np.array([2.0, -1.0, 0.5, 0.0, 3.0])
    y = x @ w + 4.0
    fit = probe.ridge_fit(x, y, lam=0.0)
    np.testing.assert_allclose(fit.predict(x), y, atol=1e-9)
    np.testing.assert_allclose(fit.w / fit.std, [2.0, -1.0, 0.5, 0.0, 3.0], atol=1e-9)  # back in the raw features' units
    assert probe.r_squared(y, fit.predict(x)) == pytest.approx(1.0)
    assert probe.r_squared(y, np.full_like(y, y.mean())) == pytest.approx(0.0)  # guessing the mean
    shrunk = probe.ridge_fit(x, y, lam=1e6)  # a huge penalty: back to the mean
    assert np.abs(shrunk.predict(x) - y.mean()).max() < 0.05 * np.abs(y - y.mean()).max()


def test_the_layer_probe_reads_position_where_it_is_written_and_not_where_it_is_not():
    n, t, d = 20, 16, 6
    rng = np.random.default_rng(1)
    hidden = rng.standard_normal((2, n, t, d))  # layer 0: noise, no position
    hidden[1, :, :, 2] = np.arange(t) * 0.5 - 1.0  # layer 1: dimension 2 is a linear function of the position
    r2, mae = probe.probe_layers(hidden, lam=1e-6)
    assert r2[1] == pytest.approx(1.0, abs=1e-9) and mae[1] == pytest.approx(0.0, abs=1e-6)
    assert r2[0] < 0.1 and mae[0] > 3.0
    with pytest.raises(ValueError, match="at least two windows"):
        probe.probe_layers(hidden[:, :1])


def test_entropy_of_uniform_and_one_hot_rows():
    t = 4
    uniform = np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]  # causal rows spread evenly
    assert probe.mean_entropy(uniform) == pytest.approx(np.mean(np.log(np.arange(1, t + 1))))
    assert probe.mean_entropy(np.eye(t)) == 0.0


# --- the pair ablation -------------------------------------------------------------------------------


def test_removing_no_pair_changes_nothing_and_removing_all_is_the_model_without_positions():
    import torch

    from core.lab import trained, weights
    from core.lab.model import PositionHooks

    config, state = weights.read_state("rope")  # the shipped RoPE model
    windows = lm.eval_windows(lm.load_corpus().held, 64, 128)[:, :-1]  # (2, 64)
    tokens = torch.from_numpy(windows)
    n = pairs.frequencies(config).size
    as_trained = trained.build(config, state)  # the registry's RoPE, as trained
    nothing_removed = trained.build(config, state, trained.ablated(config, ()))
    all_removed = trained.build(config, state, trained.ablated(config, tuple(range(n))))
    no_positions = trained.build(config, state, PositionHooks())
    with torch.no_grad():
        torch.testing.assert_close(nothing_removed(tokens), as_trained(tokens), rtol=0, atol=1e-5)
        torch.testing.assert_close(all_removed(tokens), no_positions(tokens), rtol=0, atol=1e-5)
        assert (all_removed(tokens) - as_trained(tokens)).abs().max() > 1.0  # positions did matter
    for a, b in zip(trained.attention_weights(all_removed, windows), trained.attention_weights(no_positions, windows)):
        np.testing.assert_allclose(a, b, atol=1e-6)  # NoPE's attention, weight for weight


def test_zeroing_every_pairs_query_and_key_dimensions_leaves_even_attention():
    # with every pair's q and k dimensions at 0 every score is 0, so each query spreads evenly over its keys; one pair zeroed
    # leaves the others' dimensions as they were turned
    from core.lab import trained, weights

    config, state = weights.read_state("rope")
    windows = lm.eval_windows(lm.load_corpus().held, 16, 32)[:, :-1]  # (2, 16)
    blank = trained.build(config, state, trained.ablated(config, (), zeroed=tuple(range(8))))
    even = np.tril(np.ones((16, 16))) / np.arange(1, 17)[:, None]
    for layer in trained.attention_weights(blank, windows):
        np.testing.assert_allclose(layer, np.broadcast_to(even, layer.shape), atol=1e-6)
    one, full = trained.ablated(config, (), zeroed=(7,)).matrices(16).numpy(), trained.ablated(config, ()).matrices(16).numpy()
    assert np.all(one[..., [7, 15]] == 0) and np.array_equal(np.delete(one, [7, 15], axis=-1), np.delete(full, [7, 15], axis=-1))
    assert pairs.PairsConfig(zeroed=(4, 5, 6, 7), seed=1).label == "RoPE with pairs 4, 5, 6, 7' query and key dimensions zeroed, seed 1"


def test_the_pairs_that_never_turn_within_l_and_the_ablation_lists():
    inv = pairs.frequencies()
    assert inv.size == 8 and inv[0] == 1.0
    assert pairs.never_turn(inv, 64) == (3, 4, 5, 6, 7)  # 2π / θ₂ = 62.8 < 64: pair 2 just completes a turn
    assert pairs.fastest(3, 8) == (0, 1, 2) and pairs.slowest(3, 8) == (5, 6, 7)
    np.testing.assert_array_equal(pairs.ablated_frequencies(inv, (0, 7)) == 0, [True] + [False] * 6 + [True])
    assert pairs.PairsConfig((7, 0, 0)).removed == (0, 7)
    with pytest.raises(ValueError, match="A pair index must be"):
        pairs.PairsConfig((8,))
    with pytest.raises(ValueError, match="Evaluation lengths are 64, 128, 256, 512"):
        pairs.PairsConfig((), lengths=(100,))


# --- context extension -----------------------------------------------------------------------------


@pytest.mark.parametrize("s", [1, 2, 4, 8, 16])
def test_yarns_temperature_is_one_tenth_ln_s_plus_one_and_scales_every_score_by_its_square(s):
    from core.lab import trained
    from core.schemes import rope

    factor = extend.temperature_factor(s)
    assert factor == pytest.approx(0.1 * math.log(s) + 1.0)  # √(1/t) = 0.1 ln s + 1 (YaRN eq. 22)
    config = lm.LMConfig(scheme="rope")
    if s == 1:
        assert extend.ExtendConfig("yarn", 1).rope_scaling is None
        return
    with_t, without_t = extend.scaling("yarn", s), extend.scaling("yarn_no_t", s)
    assert rope.rope_frequencies(16, 1e4, with_t)[1] == pytest.approx(factor) and rope.rope_frequencies(16, 1e4, without_t)[1] == 1.0
    np.testing.assert_array_equal(rope.rope_frequencies(16, 1e4, with_t)[0], rope.rope_frequencies(16, 1e4, without_t)[0])  # same frequencies
    import torch

    q = torch.randn(1, 1, 5, 16, generator=torch.Generator().manual_seed(3))
    k = torch.randn(1, 1, 5, 16, generator=torch.Generator().manual_seed(4))
    hot, plain = trained.scaled_rope(config, with_t), trained.scaled_rope(config, without_t)
    scores_t = hot.rotate(q) @ hot.rotate(k).transpose(-2, -1)
    scores = plain.rotate(q) @ plain.rotate(k).transpose(-2, -1)
    torch.testing.assert_close(scores_t, scores * factor**2, rtol=1e-5, atol=1e-5)


def test_extension_configs_are_the_registry_scalings_and_bad_ones_are_sentences():
    c = extend.ExtendConfig("linear", 4, fine_tune=38)
    assert c.rope_scaling.kind == "linear" and c.rope_scaling.factor == 4 and c.rope_scaling.original_max_len == 64
    assert (c.tune_len, c.tune_batch, registry.EXTEND.steps(c)) == (256, 8, 38 + 4)
    assert extend.ExtendConfig("ntk", 16).tune_len == 512  # fine-tuning stops at 8L
    with pytest.raises(ValueError, match="Unknown method 'warp'"):
        extend.ExtendConfig("warp", 2)
    with pytest.raises(ValueError, match="The scaling factor s must be"):
        extend.ExtendConfig("yarn", 17)
    assert "allows about 10 s" in registry.over_budget([extend.ExtendConfig("yarn", 4)] * 3)
    assert registry.over_budget([extend.ExtendConfig("yarn", 4)]) is None
    assert "allows about 120 s" in registry.over_budget([extend.ExtendConfig("yarn", 8, fine_tune=400)])


# --- the passkey generator --------------------------------------------------------------------------


def test_the_passkey_is_where_it_says_and_only_the_question_is_scored():
    tokens = passkey.Tokens(fillers=16, keys=16)
    x, y, d = passkey.batch(tokens, np.random.default_rng(5), 200, 64)
    rows = np.arange(200)
    assert x.shape == y.shape == (200, 64) and np.all((1 <= d) & (d <= 62))
    key_at = 63 - d
    assert np.all(x[rows, key_at - 1] == tokens.marker) and np.all(x[:, -1] == tokens.query)
    assert np.all((x[rows, key_at] >= 16) & (x[rows, key_at] < 32))  # a key token, never a filler
    np.testing.assert_array_equal(y[:, -1], x[rows, key_at])  # the answer is the key
    assert np.all(y[:, :-1] == passkey.IGNORE)
    others = np.ones_like(x, dtype=bool)
    others[rows, key_at], others[rows, key_at - 1], others[:, -1] = False, False, False
    assert np.all(x[others] < 16)  # everything else is filler
    x, y, d = passkey.batch(tokens, np.random.default_rng(6), 10, 512, distance=510)
    assert np.all(x[:, 0] == tokens.marker) and np.all(d == 510)  # the farthest key: the marker opens the sequence
    with pytest.raises(ValueError, match="does not fit a sequence of 64 tokens"):
        passkey.batch(tokens, np.random.default_rng(7), 2, 64, distance=63)
    x, y, _ = passkey.batch(tokens, np.random.default_rng(8), 50, 64, queries=6)  # more questions, each after the key
    asked = y != passkey.IGNORE
    assert np.all(x[asked] == tokens.query) and np.all(y[asked] == np.repeat(y[:, -1], asked.sum(axis=1)))
    assert passkey.eval_length(62, 64) == 64 and passkey.eval_length(63, 64) == 128 and passkey.eval_length(510, 64) == 512


def test_keys_drawn_from_the_fillers_differ_from_the_filler_only_by_standing_after_the_marker():
    shared = passkey.Tokens(fillers=16, keys=8, shared=True)
    assert (shared.marker, shared.query, shared.size) == (16, 17, 18)  # no token of its own for a key
    x, y, d = passkey.batch(shared, np.random.default_rng(5), 400, 64)
    rows = np.arange(400)
    key_at = 63 - d
    assert np.all(x[rows, key_at - 1] == shared.marker) and np.all(y[:, -1] == x[rows, key_at])
    assert set(np.unique(y[:, -1])) == set(range(8))  # the first 8 fillers, each of them
    assert np.all(x[:, :-1][x[:, :-1] != shared.marker] < 16)  # every other token is a filler too
    own = passkey.batch(passkey.Tokens(16, 16), np.random.default_rng(5), 400, 64)[0]
    np.testing.assert_array_equal(np.where(own >= 16, -1, own)[own < 16], np.where(x >= 16, -1, x)[own < 16])  # the same draws
    config = passkey.PositionalConfig("rope")
    assert config.tokens == 18 and config.label == "rotary (RoPE) (passkey), keys drawn from the fillers"
    assert registry.of(config) is registry.EXPERIMENTS["positional_passkey"] and registry.of(passkey.PasskeyConfig()).name == "passkey"
    with pytest.raises(ValueError, match="at least as many fillers"):
        passkey.PositionalConfig(fillers=4, keys=8)


def test_a_figure_over_seeds_draws_each_line_at_its_mean_over_a_band_from_the_lowest_to_the_highest_seed():
    from core.lab import trained_figures as figs

    def draw(r2: list[float], what: str):
        return figs.probe_figure([("rope", 2, r2)], what=what)

    fig = figs.over_seeds(draw, [[0.1, 0.5, 0.9], [0.3, 0.4, 0.8], [0.2, 0.6, 0.7]], "precomputed")
    band, line = fig.data
    np.testing.assert_allclose(line.y, [0.2, 0.5, 0.8])
    np.testing.assert_allclose(band.y, [0.3, 0.6, 0.9, 0.7, 0.4, 0.1])  # the highest out, the lowest back
    assert band.fill == "toself" and not band.showlegend and "(precomputed, mean of 3 training seeds, band: lowest to highest)" in fig.layout.title.text
    one = figs.over_seeds(draw, [[0.1, 0.5, 0.9]], "precomputed")
    assert len(one.data) == 1 and "seeds" not in one.layout.title.text
    gap = figs.over_seeds(lambda acc, w: figs.passkey_figure([("learned", acc)], 16, 64, what=w), [{"4": 1.0, "100": None}, {"4": 0.5, "100": None}], "x")
    assert np.isnan(gap.data[1].y[1]) and list(gap.data[0].x) == [4, 4]  # no code in any seed: no mean, no band


# --- sliding windows ---------------------------------------------------------------------------------


def test_sliding_windows_score_every_character_once_with_enough_before_it():
    held = np.arange(1000)
    inputs, targets, first = lm.sliding_windows(held, 64, 16, 256)
    scored = np.concatenate([targets[w, first[w] :] for w in range(len(first))])
    np.testing.assert_array_equal(scored, held[1:257])  # the same characters as the non-overlapping windows, once each
    np.testing.assert_array_equal(targets, inputs + 1)  # each target is the next character
    assert first[0] == 0 and np.all(first[1:] == 48)  # after the first window, at least 64 - 16 characters before
    with pytest.raises(ValueError, match="must be a multiple of the stride"):
        lm.sliding_windows(held, 64, 40, 256)
    with pytest.raises(ValueError, match="a multiple of the stride"):
        sliding.SlidingConfig("alibi", 64, 24)
    with pytest.raises(ValueError, match="There is no shipped model for 'kerple'|There is no shipped model for `kerple`"):
        sliding.SlidingConfig("kerple", 64)
    assert "allows about 10 s" in registry.over_budget([sliding.SlidingConfig("alibi", 512, 1)])


def test_a_sliding_window_as_long_as_its_stride_is_the_non_overlapping_evaluation():
    from core.lab import trained

    config, model = trained.shipped("none")
    held = lm.load_corpus().held
    slid, _ = trained.sliding_perplexity(model, config, held, 64, 64)
    whole, _ = trained.perplexity(model, config, held, 64)
    assert slid == pytest.approx(whole, rel=1e-6)  # the same characters, each with the same context


# --- the findings' sentences, chosen by the numbers ----------------------------------------------------


def test_coinciding_passkey_lines_are_named_and_the_attention_maps_compared_with_even_attention():
    from core.lab import trained_figures as figs

    acc = [("none", {"4": 1.0, "96": 1.0}), ("t5", {"4": 1.0, "96": 1.0}), ("alibi", {"4": 1.0, "96": 0.9})]
    assert figs.coinciding(acc) == [["none", "t5"]]
    fig = figs.passkey_figure(acc, 16, 64, what="test")
    assert len({(t.line.dash, t.marker.symbol) for t in fig.data[:3]}) == 3  # lines on each other stay told apart
    t = 8
    even = np.tril(np.ones((t, t))) / np.arange(1, t + 1)[:, None]
    diagonal = np.eye(t)
    as_even, as_diagonal = even[None, None], diagonal[None, None]  # (layers, H, T, T)
    from core.lab import probe

    assert probe.map_distances(as_even, as_diagonal) == {"to_t5": [pytest.approx(1 - np.mean(1 / np.arange(1, t + 1)), abs=1e-6)], "to_even": [0.0]}
    assert probe.map_distances(as_diagonal, as_diagonal)["to_t5"] == [0.0]
    models = [[{"scheme": s, "n_layers": 2, "entropy": [e]} for s, e in (("none", 1.0), ("t5", 0.5))]] * 3
    near_even = [probe.map_distances(as_even, as_diagonal)] * 3
    assert "closer to even attention than to T5's beyond the spread" in findings.attention_maps(1, models, near_even, t)
    near_t5 = [probe.map_distances(as_diagonal, as_diagonal)] * 3
    assert "closer to T5's than to even attention beyond the spread" in findings.attention_maps(1, models, near_t5, t)
    # the seeds disagree: one nearer T5, one nearer even attention -> no side taken
    mixed = [{"to_t5": [0.2], "to_even": [0.3]}, {"to_t5": [0.4], "to_even": [0.25]}, {"to_t5": [0.3], "to_even": [0.3]}]
    said = findings.attention_maps(1, models, mixed, t)
    assert "as near to T5's as to even attention, within the spread" in said and "0.300 (0.200–0.400) from T5's" in said
    assert "NoPE 1.000 (every seed), T5 0.500 (every seed)" in said and "The maps drawn are seed 0's models'." in said


# --- shipped results, and the runner reproducing them ------------------------------------------------


def test_a_missing_or_damaged_results_file_is_a_sentence(tmp_path):
    with pytest.raises(ValueError, match=r"The precomputed results \(none.json\) are missing: run python -m bench.lab_probe"):
        experiment.load("probe", tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ValueError, match=r"\(bad.json\) cannot be read"):
        experiment.load("probe", tmp_path / "bad.json")
    (tmp_path / "maps.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"attention maps \(maps.npz\) cannot be read"):
        probe.load_maps(tmp_path / "maps.npz")


def test_the_shipped_results_say_what_made_them():
    for record in EXPERIMENTS.values():
        ship = record.load()
        assert ship.command == record.command and ship.seed == 0 and isinstance(ship.data, record.results)
        assert ship.meta["total_cpu_seconds"] <= 15 * 60 and ship.meta["peak_rss_mb"] <= 1024
    models = {(m["scheme"], m["n_layers"]): m for m in experiment.load("probe").results["models"]}
    assert set(models) >= {("none", 1), ("none", 2), ("none", 4), ("sinusoidal", 2), ("rope", 2), ("t5", 2)}
    assert all(len(m["r2"]) == n + 1 for (_, n), m in models.items())
    maps = probe.load_maps()
    assert maps["none_2"].shape == (2, 4, 64, 64) and maps["t5_2"].shape == (2, 4, 64, 64)
    np.testing.assert_allclose(maps["none_2"].sum(axis=-1), 1.0, atol=5e-3)  # attention rows (float16) sum to 1


def test_the_runner_reproduces_the_shipped_ablation_extension_probe_and_sliding_window():
    ship = {tuple(v["removed"]): v for v in experiment.load("pairs").results["variants"]}
    live = through_runner(pairs.PairsConfig((0,), lengths=(64,)))
    assert live.values["perplexity"]["64"] == pytest.approx(ship[(0,)]["perplexity"]["64"], rel=1e-6)
    rows = {(r["method"], r["factor"], r["fine_tune"]): r for r in experiment.load("extend").results["rows"]}
    live = through_runner(extend.ExtendConfig("yarn", 4, lengths=(64,)))
    assert live.values["perplexity"]["64"] == pytest.approx(rows[("yarn", 4, 0)]["perplexity"]["64"], rel=1e-6)
    assert live.values["entropy"]["64"] == pytest.approx(rows[("yarn", 4, 0)]["entropy"]["64"], rel=1e-6)
    nope = next(m for m in experiment.load("probe").results["models"] if (m["scheme"], m["n_layers"]) == ("none", 2))
    shipped_probe = probe.ProbeConfig("none")
    assert shipped_probe.shipped and registry.PROBE.steps(shipped_probe) == 1
    live = through_runner(shipped_probe)
    np.testing.assert_allclose(live.values["r2"], nope["r2"], rtol=1e-9)
    assert live.values["attention"].shape == (2, 4, 64, 64) and live.steps_done == 0  # nothing trained
    rows = {(r["scheme"], r["window"], r["stride"]): r for r in experiment.load("sliding").results["rows"]}
    live = through_runner(sliding.SlidingConfig("alibi", 64))
    assert live.values["perplexity"] == pytest.approx(rows[("alibi", 64, sliding.STRIDE)]["sliding"], rel=1e-6)


def test_the_runner_retrains_the_shipped_tiny_passkey_run_to_its_numbers():
    # bench.lab_passkey --tiny writes a tiny run in a file of its own: trained and asked again through the page's runner, the same
    # seed gives the same losses and answers (the bench's --check retrains a full one)
    import json

    tiny = json.loads((lm.DATA / "lab_passkey_tiny.json").read_text())
    config = passkey.PasskeyConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in tiny["config"].items()})
    live = through_runner(config)
    assert live.values["accuracy"] == tiny["accuracy"]
    np.testing.assert_allclose(live.losses, tiny["losses"], rtol=1e-6)


def test_a_tiny_passkey_run_is_deterministic_and_a_learned_table_has_no_answer_past_its_end():
    config = passkey.PasskeyConfig("learned", steps=3, batch=4, distances=(4, 100), eval_count=8)
    a, b = through_runner(config), registry.run(config)
    assert a.values == b.values and np.array_equal(a.losses, b.losses)
    assert a.values["accuracy"]["100"] is None and "64 rows" in a.values["notes"]["100"]
    assert 0.0 <= a.values["accuracy"]["4"] <= 1.0
    assert "allows about 120 s" in registry.over_budget([passkey.PasskeyConfig(steps=2000)])


# --- the registry: every experiment has every part ----------------------------------------------------


@pytest.mark.parametrize("name", [*EXPERIMENTS, *(f"llm:{n}" for n in llm_registry.RECORDS)])
def test_every_experiment_has_every_part(name):
    # /llm's records are the same Experiment type in a registry of their own (core.llm.registry)
    from bench.lab_experiments import bench_of

    owner, records = (llm_registry, llm_registry.RECORDS) if name.startswith("llm:") else (registry, EXPERIMENTS)
    name = name.removeprefix("llm:")
    assert name in records
    record = records[name]
    assert record.name == name and record.title and record.question.endswith("?")
    assert is_dataclass(record.config) and record.config.__dataclass_params__.frozen
    config = record.default()
    assert type(config) is record.config and owner.of(config) is record and config.label and config.scheme
    assert record.estimate(config) > 0 and record.steps(config) >= 1 and record.trains(config) in (True, False)
    assert record.over_budget([config]) is None  # its default runs live
    assert "would take about" in record.over_budget([config] * 1000)  # and one rule refuses what is too much
    assert callable(record.run) and record.unit in ("characters", "tokens")
    ship = record.load()
    named = {f.name for f in fields(record.results)} - {"extra"}
    assert isinstance(ship.data, record.results)
    assert named <= set(ship.results) or (named == {"rows"} and ship.data.rows == ship.results)  # a file of rows, each keyed by its run
    said = record.findings(ship.data)
    assert isinstance(said, str) and len(said) > 40 and "{" not in said
    figure = record.figure(ship.data, "precomputed")
    if isinstance(figure, dict):  # a heatmap's spec, for the browser component to paint
        assert figure["panels"] and "precomputed" in figure["title"]
    else:
        assert figure.data and "precomputed" in figure.layout.title.text
        assert figure.layout.title.text.count("<sup>") <= 1  # its small print on one line, not wrapped with a few words alone under it
    bench = bench_of(record)
    configs = bench.configs()
    assert configs and all(type(c) is record.config for c in configs) and json.dumps(bench.record)
    again, compare = bench.check(ship)
    assert again and all(type(c) is record.config for c in again) and callable(compare) and callable(bench.results)


def test_a_config_no_experiment_runs_is_a_sentence():
    with pytest.raises(ValueError, match="No experiment runs a LMConfig"):
        registry.of(lm.LMConfig())
    assert registry.over_budget([]) is None


def test_the_schema_check_names_the_file_and_the_command_and_keeps_what_it_does_not_read(tmp_path):
    record = registry.PAIRS
    real = json.loads(experiment.results_path("pairs").read_text())
    path = tmp_path / "lab_pairs_results.json"
    read = {"frequencies", "wavelengths", "never_turn", "variants"}
    real["results"]["newer"] = [0, 1, 2]  # a newer bench writes more than the page reads: kept
    real["results"]["variants"][0]["spread"] = {"64": 0.01}
    path.write_text(json.dumps(real))
    data = record.load(path).data
    assert set(data.extra) == set(real["results"]) - read and data.extra["newer"] == [0, 1, 2] and data.variants[0]["spread"] == {"64": 0.01}
    assert [lay["variants"] for lay in data.layouts()] == [real["results"]["by_seed"][s]["variants"] for s in ("0", "1", "2")]
    del real["results"]["by_seed"]["2"]["variants"][1]["perplexity"]  # every seed's results are checked as the top level's
    path.write_text(json.dumps(real))
    with pytest.raises(ValueError, match=r"\(lab_pairs_results.json: seed 2's results: variants\[1\] lacks 'perplexity'\): run python -m bench.lab_pairs"):
        record.load(path)
    del real["results"]["by_seed"]
    path.write_text(json.dumps(real))
    assert record.load(path).data.runs("never_turn") == [real["results"]["never_turn"]]  # a file of one seed: its top level
    del real["results"]["variants"][3]["perplexity"]
    path.write_text(json.dumps(real))
    with pytest.raises(ValueError, match=r"\(lab_pairs_results.json: variants\[3\] lacks 'perplexity'\): run python -m bench.lab_pairs to make them again"):
        record.load(path)
    real["results"]["variants"] = {"not": "a list"}
    path.write_text(json.dumps(real))
    with pytest.raises(ValueError, match=r"'variants' is not a list\): run python -m bench.lab_pairs"):
        record.load(path)
    del real["results"]["never_turn"]
    path.write_text(json.dumps(real))
    with pytest.raises(ValueError, match=r"no 'never_turn'"):
        record.load(path)
