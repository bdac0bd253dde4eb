"""The experiment benches' CPU record: one figure per run, under a label no other run of the bench shares."""

from __future__ import annotations

import pytest

from bench import lab_experiments, lab_passkey
from core.lab.registry import EXPERIMENTS


def test_a_repeated_label_is_refused_rather_than_overwritten():
    # the shipped passkey record once held the tiny test run's 0.05 s under the full ALiBi run's label
    assert lab_experiments.cpu_by_label([("ALiBi (passkey)", 27.618), ("NoPE (passkey)", 31.3)]) == {"ALiBi (passkey)": 27.62, "NoPE (passkey)": 31.3}
    with pytest.raises(ValueError, match=r"two runs are labelled 'ALiBi \(passkey\)'"):
        lab_experiments.cpu_by_label([("ALiBi (passkey)", 27.62), ("ALiBi (passkey)", 0.05)])


def test_the_passkey_bench_names_its_tiny_run_apart_from_the_full_one():
    full = next(c for c in lab_passkey.configs() if c != lab_passkey.TINY and c.scheme == lab_passkey.TINY.scheme)
    assert full.label == lab_passkey.TINY.label  # the page's labels alone collide
    assert lab_passkey.label(full) == "ALiBi (passkey)" and lab_passkey.label(lab_passkey.TINY) == "ALiBi (passkey), tiny test run"


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_run_of_a_bench_has_its_own_cpu_figure_in_the_shipped_record(name):
    bench = lab_experiments.bench_of(EXPERIMENTS[name])
    labels = [bench.label(c) for c in bench.configs()]
    assert len(lab_experiments.cpu_by_label((x, 0.0) for x in labels)) == len(labels)
    assert list(EXPERIMENTS[name].load().meta["cpu_seconds"]) == labels
