"""core.lab.extend's methods come from the RoPE scaling records: each applies its kind, is named as the kind
is on /rope and /context, and YaRN's temperature is the record's attention factor, not a second formula."""

from __future__ import annotations

import math

import pytest

from core.lab import extend
from core.schemes import rope


@pytest.mark.parametrize("method", extend.SCALED)
def test_a_method_applies_its_kind_and_carries_its_name(method):
    scaling = extend.scaling(method, 4.0)
    kind = rope.SCALING_KINDS[extend.KIND_OF[method]]
    assert scaling.kind == kind.name and scaling.factor == 4.0 and scaling.original_max_len == 64
    assert extend.LABELS[method].startswith(kind.label)
    assert extend.METHODS == ("none", *extend.SCALED) and set(extend.LABELS) == set(extend.METHODS)


@pytest.mark.parametrize("s", [1, 2, 4, 8, 16])
def test_the_temperature_is_the_yarn_records_attention_factor(s):
    _, factor = rope.rope_frequencies(16, 10_000.0, extend.scaling("yarn", s))
    assert extend.temperature_factor(s) == pytest.approx(factor, rel=1e-15)
    assert factor == pytest.approx(0.1 * math.log(s) + 1.0, rel=1e-15)  # YaRN eq. 22 by hand: √(1/t) = 0.1 ln s + 1
    _, without = rope.rope_frequencies(16, 10_000.0, extend.scaling("yarn_no_t", s))
    assert without == 1.0
