"""The experiment benches' CPU record: one figure per run, under a label no other run of the bench shares."""

from __future__ import annotations

import pytest

from bench import lab_experiments, lab_passkey
from core.lab import experiment
from core.lab.registry import EXPERIMENTS


def test_a_repeated_label_is_refused_rather_than_overwritten():
    # the shipped passkey record once held the tiny test run's 0.05 s under the full ALiBi run's label
    assert lab_experiments.cpu_by_label([("ALiBi (passkey)", 27.618), ("NoPE (passkey)", 31.3)]) == {"ALiBi (passkey)": 27.62, "NoPE (passkey)": 31.3}
    with pytest.raises(ValueError, match=r"two runs are labelled 'ALiBi \(passkey\)'"):
        lab_experiments.cpu_by_label([("ALiBi (passkey)", 27.62), ("ALiBi (passkey)", 0.05)])


def test_a_passkey_run_is_labelled_by_what_it_sets_otherwise_and_the_tiny_run_writes_a_file_of_its_own():
    full = next(c for c in lab_passkey.configs() if c.scheme == lab_passkey.TINY.scheme)
    assert full.label == "ALiBi (passkey)" and lab_passkey.TINY.label == "ALiBi (passkey), 3 steps, batches of 4, distances 4, 100, 8 sequences per distance"
    assert lab_passkey.TINY not in lab_passkey.configs() and lab_passkey.TINY_PATH != experiment.results_path("passkey")
    assert [c.label for c in lab_passkey.configs(2)][-1] == "ALiBi (passkey), seed 2"


def test_a_rerun_is_checked_against_the_seeds_spread():
    seeds = [4.67, 4.80, 4.71]  # range 0.13, widened by it on each side: 4.54 to 4.93
    assert lab_experiments.within_spread(4.55, seeds) and lab_experiments.within_spread(4.92, seeds)
    assert not lab_experiments.within_spread(4.53, seeds) and not lab_experiments.within_spread(4.94, seeds)
    assert lab_experiments.within_spread(1.0, [1.0, 1.0, 1.0]) and not lab_experiments.within_spread(0.98, [1.0, 1.0, 1.0])  # at least 1 %
    assert lab_experiments.within_spread(None, [None, None]) and not lab_experiments.within_spread(None, [1.0, None])


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_run_of_a_bench_has_its_own_cpu_figure_in_the_shipped_record(name):
    bench = lab_experiments.bench_of(EXPERIMENTS[name])
    labels = [bench.label(c) for seed in lab_experiments.SEEDS for c in bench.configs(seed)]
    assert len(lab_experiments.cpu_by_label((x, 0.0) for x in labels)) == len(labels)
    shipped = EXPERIMENTS[name].load()
    assert list(shipped.meta["cpu_seconds"]) == labels and shipped.results["seeds"] == list(lab_experiments.SEEDS)
    assert all(isinstance(v, float) for v in shipped.meta["cpu_seconds"].values())


def test_running_some_seeds_keeps_the_others_shipped_results_and_their_cpu_record(tmp_path, monkeypatch):
    from core.lab import lm

    monkeypatch.setattr(lm, "DATA", tmp_path)
    old_meta = {"cpu_seconds": {"run A": 1.5, "run A, tiny test run": 0.05}, "total_seconds": 3.0, "total_cpu_seconds": 1.6, "date": "then"}
    experiment.write("x", "the first command", {}, 0, {"rows": [0], "tiny": {"old": True}}, old_meta)  # a file made before seeds
    meta = {"cpu_seconds": {"1": {"run A, seed 1": 2.0}, "2": {"run A, seed 2": 2.5}}, "total_seconds": 9.0, "total_cpu_seconds": 4.5, "date": "now"}
    results, out = lab_experiments.merged("x", [1, 2], {1: {"rows": [1]}, 2: {"rows": [2]}}, meta, "the command of seeds 1 and 2")
    assert results["rows"] == [0] and results["seeds"] == [0, 1, 2] and "tiny" not in results  # seed 0's layout on top, a key no longer written gone
    assert results["by_seed"] == {"0": {"rows": [0]}, "1": {"rows": [1]}, "2": {"rows": [2]}}
    assert list(out["cpu_seconds"]) == ["run A", "run A, tiny test run", "run A, seed 1", "run A, seed 2"]  # seed 0's record as it was made
    assert [r["seeds"] for r in out["runs"]] == [[0], [1, 2]] and out["total_cpu_seconds"] == 6.1


def test_the_austen_comparisons_other_seeds_go_under_by_seed_and_another_configuration_is_refused(tmp_path):
    import json

    from bench import lab_lm

    path = tmp_path / "lm.json"
    config = {"steps": 750, "seed": 0}
    path.write_text(json.dumps({"command": "python -m bench.lab_lm", "config": config, "results": {"rope": 1}, "date": "then"}))
    lab_lm.add_seeds(path, {1: {"command": "c1", "config": {**config, "seed": 1}, "results": {"rope": 2}, "date": "now"}})
    data = json.loads(path.read_text())
    assert data["results"] == {"rope": 1} and data["seeds"] == [0, 1]  # the top level stays seed 0's
    assert data["by_seed"] == {
        "0": {"command": "python -m bench.lab_lm", "results": {"rope": 1}, "date": "then"},
        "1": {"command": "c1", "results": {"rope": 2}, "date": "now"},
    }
    with pytest.raises(ValueError, match="seed 2's comparison was made with another configuration"):
        lab_lm.add_seeds(path, {2: {"config": {"steps": 10, "seed": 2}, "results": {}}})
