"""The findings' sentences over several training seeds (core.lab.findings): a value is called higher or lower than
another only where the seeds' ranges separate, a change within one model only where every seed's ratio is on one side
of 1; hand-made results with separated and overlapping ranges."""

from __future__ import annotations

import pytest

from core.lab import extend, findings
from core.lab.findings import Spread


def test_a_spread_is_the_mean_with_the_lowest_and_highest_seed():
    s = Spread((4.67, 4.80, 4.71))
    assert s.mean == pytest.approx(4.7266666) and (s.lo, s.hi) == (4.67, 4.80)
    assert s.text() == "4.727 (4.670–4.800)" and Spread((0.5,)).text(2) == "0.50" and Spread((1.0, 0.999)).text(2) == "1.00 (every seed)"
    assert Spread((-0.005, -0.003)).text() == "-0.004 (-0.005 to -0.003)"
    assert findings.spread([1.0, None, 2.0]) is None  # a seed with no value: no spread
    with pytest.raises(ValueError):
        Spread(())


def test_higher_and_lower_only_where_the_ranges_separate():
    rope, t5 = Spread((4.67, 4.80, 4.71)), Spread((4.69, 4.86, 4.76))  # the seeds: which is lower flips
    assert findings.compare(rope, t5) == findings.compare(t5, rope) == "within the spread"
    sinusoidal = Spread((5.56, 5.91, 5.70))
    assert findings.compare(sinusoidal, rope) == "higher" and findings.compare(rope, sinusoidal) == "lower"
    touching = Spread((4.80, 4.90))
    assert findings.compare(touching, rope) == "within the spread"  # sharing an end is overlapping


def test_the_extreme_is_named_alone_only_beyond_the_spread():
    named = {"A": Spread((4.7, 4.8)), "B": Spread((4.75, 4.9)), "C": Spread((6.0, 6.2))}
    assert findings.extreme(named) == ["A", "B"] and findings.extreme(named, highest=True) == ["C"]  # A's range reaches into B's
    assert findings.extreme({"A": Spread((4.7, 4.8)), "B": Spread((4.81, 4.9))}) == ["A"]


def test_an_ordering_marks_each_entry_against_the_one_before():
    said = findings.ordered({"C": Spread((6.0, 6.2)), "A": Spread((4.7, 4.8)), "B": Spread((4.75, 4.9))})
    assert said == "A 4.750 (4.700–4.800), B 4.825 (4.750–4.900) (within the spread of A), C 6.100 (6.000–6.200) (higher beyond the spread)"


def test_a_change_within_one_model_is_read_per_seed():
    falls = findings.ratio([5.41, 5.40, 5.38], [5.32, 5.31, 5.30])
    assert findings.direction(falls) == "falls"
    mixed = findings.ratio([4.0, 4.0, 4.0], [3.9, 4.1, 4.0])
    assert findings.direction(mixed) == "stays within the spread" and mixed.text(3) == "1.000 (0.975–1.025)"
    assert findings.direction(findings.ratio([1.0], [2.0])) == "rises"
    assert findings.ratio([1.0, None], [1.0, 2.0]) is None


def _extend_runs(linear_far: list[float]) -> list[list[dict]]:
    """Three seeds of extension rows at s = 2: the model as trained, linear and NTK-aware untuned."""
    out = []
    for seed, lin in enumerate(linear_far):
        trained = {"method": "none", "factor": 1, "fine_tune": 0, "perplexity": {"64": 4.7, "128": 5.8}, "entropy": {"64": 1.0, "128": 1.2}}
        linear = {"method": "linear", "factor": 2, "fine_tune": 0, "perplexity": {"64": 9.0 + seed, "128": lin}, "entropy": {"64": 1.0, "128": 1.1}}
        ntk = {"method": "ntk", "factor": 2, "fine_tune": 0, "perplexity": {"64": 4.8, "128": 4.72 + 0.01 * seed}, "entropy": {"64": 1.0, "128": 1.1}}
        out.append([trained, linear, ntk])
    return out


def test_the_extension_ranks_at_l_and_at_s_l_and_calls_linear_worst_only_beyond_the_spread():
    apart = findings.extension(_extend_runs([6.0, 6.3, 6.1]), 2, False)
    assert "perplexity at 64 (L) from lowest to highest: NTK-aware base change 4.800 (every seed), linear (position interpolation) 10.000" in apart
    assert "perplexity at 128 (s·L) from lowest to highest: NTK-aware base change 4.730 (4.720–4.740), linear (position interpolation)" in apart
    assert "(higher beyond the spread)" in apart and "Linear interpolation is the worst of them untuned at 128, beyond the spread" in apart
    overlapping = findings.extension(_extend_runs([4.72, 4.78, 4.76]), 2, False)
    assert "within the spread of NTK-aware base change" in overlapping and "Linear interpolation is the worst" not in overlapping


def test_the_probe_says_nope_rises_with_depth_only_when_each_depth_is_above_the_last_beyond_the_spread():
    def seed(r2_1, r2_2, r2_4, rope_top=0.05):
        return [
            {"scheme": "none", "n_layers": 1, "r2": [0.0, r2_1]},
            {"scheme": "none", "n_layers": 2, "r2": [0.0, 0.1, r2_2]},
            {"scheme": "none", "n_layers": 4, "r2": [0.0, 0.1, 0.2, 0.3, r2_4]},
            {"scheme": "rope", "n_layers": 2, "r2": [0.0, rope_top, 0.01]},
        ]

    rising = findings.probe([seed(0.3, 0.6, 0.9), seed(0.35, 0.65, 0.92)])
    assert "rises with depth beyond the spread" in rising and "a linear probe reads almost no absolute position" in rising
    assert "0.325 (0.300–0.350) (1 layer)" in rising
    level = findings.probe([seed(0.3, 0.6, 0.9), seed(0.7, 0.65, 0.92, rope_top=0.2)])
    assert "rises with depth" not in level and "reads some absolute position" in level


def test_passkey_sentences_take_the_worst_seed_and_nope_is_said_to_need_no_position_only_when_it_answers_everywhere():
    seed = {"none": {"accuracy": {"4": 1.0, "510": 1.0}}, "alibi": {"accuracy": {"4": 1.0, "510": 0.89}}}
    other = {"none": {"accuracy": {"4": 1.0, "510": 1.0}}, "alibi": {"accuracy": {"4": 1.0, "510": 1.0}}}
    said = findings.passkey([seed, other, other])
    assert "ALiBi: 1.00 (every seed) at worst within L, 0.96 (0.89–1.00) at worst beyond it, 0.96 (0.89–1.00) at 510" in said
    nope = findings.without_positions([seed, other, other])
    assert nope.startswith("NoPE, which has no positions, names every key at every distance in 3 seeds") and "needs no position at all" in nope
    partly = {"none": {"accuracy": {"4": 1.0, "510": 0.6, "600": None}}}
    assert findings.without_positions([seed, partly]) == "NoPE, which has no positions, names 0.60 of the keys at worst in 2 seeds."
    assert findings.without_positions([{"rope": seed["alibi"]}]) == ""


def test_the_pair_findings_freeze_and_zero_per_seed_with_the_angle_turned():
    inv = [10000 ** (-i / 8) for i in range(8)]

    def seed(base, slow7, zero4):
        variants = [{"kind": "none", "k": 0, "perplexity": {"64": base, "256": 20.0}}, {"kind": "fastest", "k": 1, "perplexity": {"64": 2 * base, "256": 30.0}}]
        variants += [{"kind": "slowest", "k": k, "perplexity": {"64": base * (slow7 if k == 1 else 1.5), "256": 19.0}} for k in range(1, 8)]
        return {"variants": variants, "zeroed": [{"kind": "zeroed", "k": 4, "perplexity": {"64": base * zero4, "256": 25.0}}]}

    said = findings.pairs([seed(4.7, 1.005, 1.18), seed(4.8, 0.998, 1.2)], never=(3, 4, 5, 6, 7), inv_freq=inv)
    assert "Removing the fastest pair alone (its frequency set to 0: it stops turning) multiplies perplexity at 64 by 2.00 (every seed)" in said
    assert "The 1 slowest pair can be removed with perplexity at 64 within 1 % of the full model's in every seed" in said
    assert f"(within 64 positions the fastest of them turns {63 * inv[7]:.2f} rad" in said
    assert "the 4 slowest raise it (× 1.190 (1.180–1.200) per seed; the fastest of them turns" in said
    wide = findings.pairs([seed(4.7, 1.02, 1.18), seed(4.8, 0.998, 0.99)], never=(3, 4, 5, 6, 7), inv_freq=inv)
    assert "Even the slowest pair cannot be removed" in wide and "the 4 slowest leave it within the spread" in wide


def test_the_yarn_ramp_named_is_the_registrys():
    said = findings.yarn_ramp(64, 16, 10000.0)
    # i(32) = 16 ln(64 / 64π) / (2 ln 10⁴) < 0 → 0; i(1) = 16 ln(64 / 2π) / (2 ln 10⁴) = 2.02 → 3: pair 0 kept, 1-2 ramped, 3-7 divided
    assert "keeps pair 0 as trained, moves pairs 1 to 2 part of the way to θ/s and divides pairs 3 to 7 by s" in said
    assert "on the 10.2 turns pair 0 makes within L (kept only above 32), would move pair 0 70% of the way" in said  # (10.19 − 1) / 31 = 0.30 kept


def test_runs_read_every_seed_or_the_one_there_is():
    one = {"rows": [1]}
    assert findings.runs(one, "rows") == [[1]] and findings.layouts(one) == [one]
    many = {"rows": [0], "by_seed": {"10": {"rows": [10]}, "2": {"rows": [2]}, "0": {"rows": [0]}}}
    assert findings.runs(many, "rows") == [[0], [2], [10]]
    assert "mean over 3 training seeds" in findings.seeds_note(3) and "one training seed" in findings.seeds_note(1)


# perplexity at 256 per method: untuned ("no scaling" untuned is the model as trained), after the short and the longer fine-tune
BUDGET_PPL = {"none": (30.0, 6.0, 5.5), "linear": (40.0, 5.5, None), "ntk": (5.0, 5.4, 4.5), "yarn": (6.0, 5.0, 4.0), "yarn_no_t": (7.0, 6.5, 6.0)}


def _budget_runs(linear_longer: list[float]) -> tuple[list[list[dict]], list[list[dict]]]:
    """One seed per value of `linear_longer` at s = 4, seed k's perplexities BUDGET_PPL + 0.01 k, linear's after the longer
    fine-tune `linear_longer` (its shipped `rows` and its `budgets`)."""
    rows_runs, budget_runs = [], []
    for seed, lin in enumerate(linear_longer):

        def row(method: str, steps: int, ppl: float) -> dict:
            factor = 1 if (method, steps) == ("none", 0) else 4
            return {"method": method, "factor": factor, "fine_tune": steps, "perplexity": {"64": 4.7, "256": ppl + 0.01 * seed}, "entropy": {}}

        rows = [row(m, 0, v[0]) for m, v in BUDGET_PPL.items()] + [row(m, extend.FINE_TUNE_STEPS, v[1]) for m, v in BUDGET_PPL.items()]
        more = [row(m, extend.LONGER_FINE_TUNE, lin if v[2] is None else v[2]) for m, v in BUDGET_PPL.items()]
        rows_runs.append(rows)
        budget_runs.append(more)
    return rows_runs, budget_runs


def test_the_fine_tune_budgets_are_ranked_each_beyond_the_spread_and_say_whom_linear_trails():
    said = findings.budgets(*_budget_runs([3.0, 3.05]), 4)
    steps, longer = extend.FINE_TUNE_STEPS, extend.LONGER_FINE_TUNE
    none, linear, ntk, yarn, yarn_no_t = (extend.LABELS[m] for m in extend.METHODS)
    assert said.startswith("Perplexity at 256 (s·L, s = 4)")
    assert f"without fine-tuning, {ntk} 5.005 (5.000–5.010), {yarn} 6.005 (6.000–6.010) (higher beyond the spread), " in said
    assert f"after {longer} fine-tuning steps, {linear} 3.030 (3.000–3.060), {yarn} 4.005" in said
    assert (
        f"Lowest, or within the spread of the lowest: without fine-tuning {ntk}; after {steps} fine-tuning steps {yarn}; "
        f"after {longer} fine-tuning steps {linear}." in said
    )
    assert (
        f"is beaten beyond the spread without fine-tuning by {none}, {ntk}, {yarn}, {yarn_no_t}; after {steps} fine-tuning steps by {ntk}, "
        f"{yarn}; after {longer} fine-tuning steps by no method." in said
    )
    # linear's mean over the lowest: 40.005 / 5.005, 5.505 / 5.005, 3.03 / 3.03
    gap = f"× 7.99 without fine-tuning, × 1.10 after {steps} fine-tuning steps, × 1.00 after {longer} fine-tuning steps"
    assert said.endswith(f"{gap}; the gap shrinks with the fine-tune.")
    close = findings.budgets(*_budget_runs([4.0, 4.2]), 4)  # linear's range 4.00-4.21 holds YaRN's 4.00-4.01
    assert f"after {longer} fine-tuning steps {linear}, {yarn}." in close and f"after {longer} fine-tuning steps by no method." in close
    assert findings.budgets([[]], [[]], 4) == ""  # nothing measured: nothing said


def test_a_passkey_without_its_own_keys_is_above_chance_only_beyond_three_standard_errors_and_set_against_counting():
    def seed(alibi_near: float, rope_near: float) -> dict:
        return {
            "alibi": {"accuracy": {"4": alibi_near, "32": alibi_near, "128": 0.5}},
            "rope": {"accuracy": {"4": rope_near, "32": rope_near, "128": 0.0625}},
            "learned": {"accuracy": {"4": 0.0625, "32": 0.0625, "128": None}},
        }

    counting = [{"4": 0.12, "32": 0.10, "128": 0.09}, {"4": 0.14, "32": 0.12, "128": 0.11}]
    # chance 1/16 over 2 distances x 256 questions: three standard errors are 3 * sqrt(0.0625 * 0.9375 / 512) = 0.0321
    said = findings.positional_passkey([seed(1.0, 0.0625 + 0.030), seed(0.98, 0.0625 + 0.034)], 16, 256, counting)
    assert "ALiBi 0.99 (0.98–1.00) within L, above chance in every seed; 0.50 (every seed) beyond it, above chance in every seed" in said
    assert "rotary (RoPE) 0.09 (0.09–0.10) within L, above chance in 1 of 2 seeds; 0.06 (every seed) beyond it, at chance in every seed" in said
    assert "learned absolute table 0.06 (every seed) within L, at chance in every seed; no code beyond L" in said
    assert "names 0.12 (0.11–0.13) of the keys within L and 0.10 (0.09–0.11) beyond it" in said  # the counting reader's seed means
    assert said.endswith("Above that reader within L beyond the spread: ALiBi.")  # RoPE's 0.09-0.10 lies under counting's 0.11-0.13
    assert said.startswith("ALiBi names more keys within L than a reader with no positions that only counts tokens")  # the answer first
    alone = findings.positional_passkey([seed(0.0625, 0.0625)], 16, 256, counting[:1])
    assert "at chance;" in alone and alone.endswith("Above that reader within L: no scheme.")
    assert alone.startswith("No scheme names more keys within L than a reader with no positions")


def test_the_counting_reader_names_the_filler_seen_most_often_on_the_runs_own_questions():
    import numpy as np

    from core.lab import passkey

    config = passkey.PositionalConfig(distances=(4, 100), eval_count=64, seed=3)
    got = passkey.counting_accuracy(config)
    for d in (4, 100):
        x, y, _ = passkey.batch(config.alphabet, np.random.default_rng([3, 2, d]), 64, passkey.eval_length(d, 64), d)
        right = [max(range(16), key=lambda t: (list(row).count(t), -t)) == answer for row, answer in zip(x, y[:, -1])]  # most often, lowest first
        assert got[str(d)] == np.mean(right)
    assert 0 < got["4"] < 1
    assert set(passkey.counting_accuracy(passkey.PasskeyConfig(distances=(4,), eval_count=32)).values()) == {0.0}  # its own keys: never a filler


# --- the lab's task survey (core.lab.config.SURVEY: every seed's accuracy at 32 and 128 tokens) -------------------------


def _survey(**cells):
    """A hand-made survey: every default scheme on every task at 1.00 -> 0.06 on three seeds, then `cells`' kback1 rows."""
    from core.lab.config import SURVEY_COLUMNS

    flat = ((1.0, 1.0, 1.0), (0.06, 0.06, 0.06))
    survey = {s: {task: flat for task in SURVEY_COLUMNS} for s in ("none", "sinusoidal", "learned", "rope", "t5", "alibi")}
    for scheme, row in cells.items():
        survey[scheme]["kback1"] = row
    return survey


def test_the_survey_reading_says_a_fall_or_a_best_only_beyond_the_seeds_spread(monkeypatch):
    from core.lab import config
    from core.lab.figures import survey_reading, survey_table

    survey = _survey(
        none=((0.25, 0.24, 0.26), (0.15, 0.14, 0.16)),
        sinusoidal=((1.0, 1.0, 1.0), (0.31, 0.30, 0.32)),
        learned=((1.0, 1.0, 1.0), None),
        rope=((1.0, 1.0, 1.0), (0.42, 0.40, 0.44)),
        t5=((1.0, 1.0, 1.0), (0.58, 0.57, 0.59)),
        alibi=((0.88, 0.87, 0.89), (0.81, 0.80, 0.82)),
    )
    survey["alibi"]["kback3"] = ((0.65, 0.60, 0.70), (0.55, 0.55, 0.55))
    monkeypatch.setattr(config, "SURVEY", survey)
    said = survey_reading()
    assert "RoPE and the sinusoid meet angles they never saw and fall, from 1.00 and 1.00 to 0.42 and 0.31 at 128 tokens" in said
    assert "(NoPE, which has no position to go on, gets 0.15)" in said and "so it falls too, to 0.58." in said
    assert "ALiBi, a fixed penalty on distance, holds up best at 128 tokens (0.88 → 0.81)" in said
    assert "at k = 3 it reaches 0.65 at 32 tokens, where the others with positions reach 1.00." in said
    assert "on copy every scheme falls to between 0.06 and 0.06 at 128 tokens, near a random guess (1 in 16, 0.06)" in said
    table = survey_table()
    assert "| ALiBi | 0.88 (0.87–0.89) → 0.81 (0.80–0.82) | 0.65 (0.60–0.70) → 0.55 |" in table  # brackets only where seeds differ
    assert "| learned | 1.00 → no code |" in table
    # the columns in the task picker's words ("the token k places back"), not the survey's keys
    assert table.splitlines()[0] == "| scheme | k places back, k = 1 | k places back, k = 3 | copy (2 layers) | reverse (2 layers) |"
    # RoPE's 128-token range reaching its 32-token one, T5's into ALiBi's: no fall said for RoPE, no best for ALiBi
    survey["rope"]["kback1"] = ((1.0, 0.5, 1.0), (0.42, 0.40, 0.60))
    survey["t5"]["kback1"] = ((1.0, 1.0, 1.0), (0.78, 0.70, 0.85))
    said = survey_reading()
    assert "RoPE" not in said.split(".")[0] and "The sinusoid meets angles it never saw and falls, from 1.00 to 0.31" in said
    assert "holds up best" not in said and "cannot point exactly" not in said


def test_the_shipped_survey_is_three_seeds_of_the_labs_defaults():
    import json

    from core.lab import config, lm

    data = json.loads(config.SURVEY_PATH.read_text(encoding="utf-8"))
    assert data["seeds"] == config.SURVEY_SEEDS and len(data["seeds"]) >= 3
    assert data["config"]["steps"] == config.LabConfig().steps and data["config"]["train_len"] == config.SURVEY_LENGTHS[0] == config.LabConfig().train_len
    assert data["config"]["lengths"] == list(config.SURVEY_LENGTHS) and data["command"].startswith("python -m bench.lab --tasks --write")
    for seed in map(str, data["seeds"]):
        assert set(data["by_seed"][seed]) == set(config.SURVEY_COLUMNS)
        assert all(list(cells) == list(lm.DEFAULT_SCHEMES) for cells in data["by_seed"][seed].values())
    # SURVEY is the file, seed by seed: a cell's values are the seeds' in order
    assert config.SURVEY["rope"]["kback1"][0] == tuple(data["by_seed"][str(s)]["kback1"]["rope"][0] for s in data["seeds"])
    assert config.SURVEY["learned"]["kback1"][1] is None  # no code past the table's end


def test_the_answer_map_draws_the_diagonal_and_sets_the_training_length_apart():
    import numpy as np

    from core.lab.config import LabConfig
    from core.lab.figures import answer_map

    # k = 3, trained on 32, tested on 64: every answer stands 3 below the diagonal y = x, at every length
    tested, trained, diagonal = answer_map(LabConfig(offset=3, train_len=32, eval_lens=(32, 64))).data
    assert list(diagonal.x) == list(diagonal.y) == [0, 63] and diagonal.mode == "lines" and "diagonal" in diagonal.name
    for dots, length in ((tested, 64), (trained, 32)):
        np.testing.assert_array_equal(dots.x, np.arange(3, length))
        np.testing.assert_array_equal(np.asarray(dots.x) - np.asarray(dots.y), 3)
    # the trained points sit on tested ones: rings wider than the dots, so both show
    assert trained.marker.symbol == "circle-open" and trained.marker.size > tested.marker.size and tested.marker.symbol is None
    # copy: every answer below the diagonal, 16 below at 32 tokens and 32 below at 64 (the offset moves with the length)
    tested, trained, _ = answer_map(LabConfig(task="copy", train_len=32, eval_lens=(32, 64))).data
    assert set(np.asarray(trained.x) - np.asarray(trained.y)) == {16} and set(np.asarray(tested.x) - np.asarray(tested.y)) == {32}
