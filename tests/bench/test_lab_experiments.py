"""The experiment benches' CPU record: one figure per run, under a label no other run of the bench shares."""

from __future__ import annotations

import importlib

import pytest

from bench import lab_experiments, lab_passkey
from core.lab import experiment

BENCHES = ("probe", "pairs", "extend", "sliding", "passkey")


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


@pytest.mark.parametrize("name", BENCHES)
def test_every_run_of_a_bench_has_its_own_cpu_figure_in_the_shipped_record(name):
    bench = importlib.import_module(f"bench.lab_{name}")
    label = getattr(bench, "label", lambda config: config.label)
    labels = [label(c) for seed in lab_experiments.SEEDS for c in bench.configs(seed)]
    assert len(lab_experiments.cpu_by_label((x, 0.0) for x in labels)) == len(labels)
    shipped = experiment.load(name)
    assert list(shipped.meta["cpu_seconds"]) == labels and shipped.results["seeds"] == list(lab_experiments.SEEDS)
    assert all(isinstance(v, float) for v in shipped.meta["cpu_seconds"].values())
