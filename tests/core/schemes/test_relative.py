r"""core.schemes.relative against T5's reference bucketing (Hugging Face transformers' T5Attention, as
mesh_tensorflow's original), hand-worked Shaw et al. clipping, and the properties of both.

The bucket strings below were produced by running the reference itself (transformers 5.23.0,
torch 2.13.0 CPU, in a throwaway venv; the tests do not need transformers):

    python -m venv --system-site-packages /tmp/refvenv && /tmp/refvenv/bin/pip install transformers
    /tmp/refvenv/bin/python gen_t5_refs.py   # the script below; paste its output here

```
import torch
from transformers.models.t5.modeling_t5 import T5Attention

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"  # bucket b is written ALPHABET[b]
for name, lo, hi, kw in [
    ("T5_BIDIRECTIONAL_32_128", -300, 300, dict(bidirectional=True, num_buckets=32, max_distance=128)),
    ("T5_CAUSAL_32_128", -300, 300, dict(bidirectional=False, num_buckets=32, max_distance=128)),
    ("T5_BIDIRECTIONAL_10_20", -40, 40, dict(bidirectional=True, num_buckets=10, max_distance=20)),
    ("T5_CAUSAL_36_20", -40, 40, dict(bidirectional=False, num_buckets=36, max_distance=20)),
]:
    buckets = T5Attention._relative_position_bucket(torch.arange(lo, hi + 1), **kw).tolist()
    text = "".join(ALPHABET[b] for b in buckets)
    print(f"{name} = (  # relative positions {lo} .. {hi}")
    for i in range(0, len(text), 100):
        print(f'    "{text[i:i + 100]}"')
    print(")")
```
"""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.schemes import relative as rel
from tests.helpers import assert_close

ROOT = Path(__file__).resolve().parents[3]
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"  # bucket b is written ALPHABET[b]

# T5Attention._relative_position_bucket(torch.arange(lo, hi + 1), **config), one character per position
T5_BIDIRECTIONAL_32_128 = (  # relative positions -300 .. 300
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
    "ffffffffffeeeeeeeeeeeeeeeeeeeeeeeeeeeddddddddddddddddddccccccccccccccbbbbbbbbbaaaaaaa999988887654321"
    "0hijklmnooooppppqqqqqqqrrrrrrrrrssssssssssssssttttttttttttttttttuuuuuuuuuuuuuuuuuuuuuuuuuuuvvvvvvvvv"
    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
    "v"
)
T5_CAUSAL_32_128 = (  # relative positions -300 .. 300
    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
    "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvuuuuuuuuuuuu"
    "uuttttttttttttssssssssssrrrrrrrrrrqqqqqqqqpppppppoooooonnnnnnmmmmmllllkkkkjjjiiihhgggfedcba987654321"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "0"
)
T5_BIDIRECTIONAL_10_20 = (  # relative positions -40 .. 40
    "444444444444444444444444444444433333222106777888889999999999999999999999999999999"
)
T5_CAUSAL_36_20 = (  # relative positions -40 .. 40
    "zzzzzzzzzzzzzzzzzzzzzrihgfedcba98765432100000000000000000000000000000000000000000"
)

REFERENCE_CASES = [
    (T5_BIDIRECTIONAL_32_128, -300, dict(bidirectional=True, num_buckets=32, max_distance=128)),
    (T5_CAUSAL_32_128, -300, dict(bidirectional=False, num_buckets=32, max_distance=128)),
    (T5_BIDIRECTIONAL_10_20, -40, dict(bidirectional=True, num_buckets=10, max_distance=20)),
    (T5_CAUSAL_36_20, -40, dict(bidirectional=False, num_buckets=36, max_distance=20)),
]


def decode(text: str) -> np.ndarray:
    return np.array([ALPHABET.index(c) for c in text])


@st.composite
def t5_configs(draw):
    """A valid (bidirectional, num_buckets, max_distance)."""
    bidirectional = draw(st.booleans())
    num_buckets = draw(st.integers(2, 64)) * 2 if bidirectional else draw(st.integers(2, 128))
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    return dict(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=draw(st.integers(max_exact + 1, 2000)))


# --- T5 buckets -----------------------------------------------------------------------------


@pytest.mark.parametrize("text, lo, config", REFERENCE_CASES, ids=["bidirectional-32-128", "causal-32-128", "bidirectional-10-20", "causal-36-20"])
def test_buckets_equal_the_hugging_face_t5_reference(text, lo, config):
    expected = decode(text)
    r = np.arange(lo, lo + expected.size)
    assert rel.t5_relative_bucket(r, **config).tolist() == expected.tolist()
    assert rel.t5_relative_bucket(r.astype(float), **config).tolist() == expected.tolist()  # whole-number floats too


def test_default_buckets_by_hand():
    b = lambda r, **kw: int(rel.t5_relative_bucket(r, **kw))  # noqa: E731
    # bidirectional: 16 per direction, 8 exact; keys after the query use 16 .. 31
    assert [b(r) for r in (0, -1, -7, -8, -11, -12, -90, -91, -10_000)] == [0, 1, 7, 8, 8, 9, 14, 15, 15]
    assert [b(r) for r in (1, 7, 8, 91, 10**12)] == [17, 23, 24, 31, 31]
    # causal: 32 buckets for the past, 16 exact; every future key is bucket 0
    assert [b(r, bidirectional=False) for r in (0, 5, 10**9, -15, -16, -112, -113)] == [0, 0, 0, 15, 16, 30, 31]
    assert rel.t5_relative_bucket(np.array([[0, 1], [-1, 2]])).shape == (2, 2)


@given(t5_configs(), st.lists(st.integers(-(10**7), 10**7), min_size=1, max_size=60))
@settings(max_examples=200, deadline=None)
def test_bucket_properties(config, positions):
    r = np.array(sorted(set(positions) | {0}))
    b = rel.t5_relative_bucket(r, **config)
    nb = config["num_buckets"]
    per_side = nb // 2 if config["bidirectional"] else nb
    max_exact = per_side // 2
    assert np.all((b >= 0) & (b < nb))
    assert b[r == 0].tolist() == [0]
    past, future = b[r <= 0][::-1], b[r > 0]  # each in order of growing distance
    assert np.all(np.diff(past) >= 0) and np.all(np.diff(future) >= 0)  # monotone in |r| on each side
    assert np.all(past < per_side)
    close = (np.abs(r) < max_exact) & (r <= 0)
    assert np.array_equal(b[close], -r[close])  # exact buckets
    assert np.all(b[(r <= -config["max_distance"])] == per_side - 1)  # everything far away shares the last bucket
    if config["bidirectional"]:
        assert np.all(future >= per_side)
        assert np.all(b[r >= config["max_distance"]] == nb - 1)
    else:
        assert np.all(future == 0)  # future keys: bucket 0, hidden by the decoder's mask


# --- bucket ranges --------------------------------------------------------------------------


def test_default_bucket_ranges_by_hand():
    ranges = rel.t5_bucket_ranges()
    assert len(ranges) == 32 and [x.bucket for x in ranges] == list(range(32))
    assert [(x.kind, x.low, x.high) for x in ranges[:3]] == [("exact", 0, 0), ("exact", -1, -1), ("exact", -2, -2)]
    assert (ranges[8].kind, ranges[8].low, ranges[8].high, ranges[8].label) == ("log", -11, -8, "-11 to -8")
    assert (ranges[15].low, ranges[15].high, ranges[15].label) == (None, -91, "-91 or less")
    assert (ranges[16].kind, ranges[16].label) == ("unused", "unused")  # r > 0 and distance 0 cannot happen
    assert (ranges[17].kind, ranges[17].label) == ("exact", "1")
    assert (ranges[31].kind, ranges[31].low, ranges[31].high, ranges[31].label) == ("log", 91, None, "91 or more")
    causal = rel.t5_bucket_ranges(bidirectional=False)
    assert (causal[0].kind, causal[0].low, causal[0].high, causal[0].label) == ("exact", 0, None, "0 or more")
    assert [x.kind for x in causal].count("exact") == 16
    assert causal[31].label == "-113 or less"


def test_fine_log_spacing_leaves_buckets_unused():
    ranges = rel.t5_bucket_ranges(bidirectional=False, num_buckets=36, max_distance=20)
    used_log = [(x.bucket, x.label) for x in ranges if x.kind == "log"]
    assert used_log == [(18, "-18"), (27, "-19"), (35, "-20 or less")]  # as the reference string shows
    assert sum(x.kind == "unused" for x in ranges) == 15


@given(t5_configs())
@settings(max_examples=60, deadline=None)
def test_ranges_partition_the_relative_positions_as_the_buckets_do(config):
    ranges = rel.t5_bucket_ranges(**config)
    d = config["max_distance"]
    r = np.arange(-3 * d - 5, 3 * d + 6)
    b = rel.t5_relative_bucket(r, **config)
    for x in ranges:
        # the range as bounds over every offset at once
        inside = (x.kind != "unused") & (r >= (r[0] if x.low is None else x.low)) & (r <= (r[-1] if x.high is None else x.high))
        assert np.array_equal(inside, b == x.bucket), x
        assert (x.kind == "unused") == (not inside.any())
    max_exact = (config["num_buckets"] // 2 if config["bidirectional"] else config["num_buckets"]) // 2
    assert all(x.low == x.high for x in ranges if x.kind == "exact" and x.low is not None and x.high is not None)
    assert sum(x.kind == "exact" for x in ranges) == (2 * max_exact - 1 if config["bidirectional"] else max_exact)


# --- T5 bias --------------------------------------------------------------------------------


def test_t5_bias_looks_up_each_pairs_bucket():
    values = np.arange(64, dtype=float).reshape(2, 32)  # head h, bucket b -> 32 h + b
    q, k = np.array([0, 5, 200]), np.array([0, 3, 5, 9, 400])
    bias = rel.t5_bias(values, q, k)
    assert bias.shape == (2, 3, 5)
    expected = np.array([[[values[h, int(rel.t5_relative_bucket(kj - qi))] for kj in k] for qi in q] for h in range(2)])
    assert_close(bias, expected, atol=0)
    assert_close(bias[0, 1], [5, 2, 0, 20, 31], atol=0)  # r = -5, -2, 0, 4, 395 from query 5
    one_head = rel.t5_bias(values[1], q, k)
    assert one_head.shape == (1, 3, 5)
    assert_close(one_head[0], bias[1], atol=0)


def test_t5_bias_depends_on_relative_position_only():
    values = rel.t5_demo_bucket_values(32, 4, seed=3)
    q, k = np.arange(0, 300, 7), np.arange(0, 300, 5)
    assert_close(rel.t5_bias(values, q, k), rel.t5_bias(values, q + 10_000, k + 10_000), atol=0)
    causal = rel.t5_demo_bucket_values(32, 4, bidirectional=False)
    assert rel.t5_bias(causal, q, k, bidirectional=False).shape == (4, q.size, k.size)


def test_demo_values_are_deterministic_and_decay_with_distance():
    a = rel.t5_demo_bucket_values(32, 6, seed=1)
    assert a.shape == (6, 32)
    assert np.array_equal(a, rel.t5_demo_bucket_values(32, 6, seed=1))
    assert not np.allclose(a, rel.t5_demo_bucket_values(32, 6, seed=2))
    smooth = rel.t5_demo_bucket_values(32, 6, noise=0.0)
    assert np.all(np.diff(smooth[:, :16], axis=1) < 0) and np.all(np.diff(smooth[:, 17:], axis=1) < 0)  # farther: lower
    assert np.all(np.diff(smooth[:, 15], axis=0) > 0)  # head 0 forgets fastest
    assert_close(smooth[:, 0], 0.0, atol=0)  # distance 0: no penalty
    assert_close(smooth[0, 1], -np.log(2))


# --- Shaw et al. ----------------------------------------------------------------------------


def test_shaw_clipping_by_hand():
    got = rel.shaw_relative_positions(np.arange(5), np.arange(5), 2)
    expected = [
        [0, 1, 2, 2, 2],
        [-1, 0, 1, 2, 2],
        [-2, -1, 0, 1, 2],
        [-2, -2, -1, 0, 1],
        [-2, -2, -2, -1, 0],
    ]  # row i = query, column j = key, entry clip(j - i, 2): keys after the query are positive
    assert got.tolist() == expected
    assert rel.shaw_relative_positions([10], [0, 9, 10, 11, 50], 3).tolist() == [[-3, -1, 0, 1, 3]]
    assert rel.shaw_relative_positions([1.0, 2.0], [0.0], 0).tolist() == [[0], [0]]


def test_shaw_table():
    table = rel.shaw_table(2, 3, seed=7)
    assert table.shape == (5, 3)
    assert np.array_equal(table, np.random.default_rng(7).normal(0.0, 0.02, size=(5, 3)))
    emb = table[rel.shaw_relative_positions(np.arange(4), np.arange(6), 2) + 2]  # w of clip(j - i, 2) for every pair
    assert_close(emb[3, 0], table[0], atol=0)  # j - i = -3, clipped to -2: row 0
    assert_close(emb[1, 2], table[3], atol=0)  # j - i = +1: row 3
    assert_close(emb[0, 5], table[4], atol=0)


@given(st.integers(1, 60), st.integers(1, 60), st.integers(0, 40))
@settings(max_examples=80, deadline=None)
def test_shaw_distinct_ids_closed_form(query_len, key_len, k):
    ids = rel.shaw_relative_positions(np.arange(query_len), np.arange(key_len), k)
    assert rel.shaw_distinct_ids(query_len, key_len, k) == len(np.unique(ids))
    assert rel.shaw_distinct_ids(query_len, key_len, k) <= 2 * k + 1


# --- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: rel.t5_relative_bucket(0, num_buckets=33), "must be even"),
        (lambda: rel.t5_relative_bucket(0, num_buckets=2), "at least 4"),
        (lambda: rel.t5_relative_bucket(0, bidirectional=False, num_buckets=1), "at least 2"),
        (lambda: rel.t5_relative_bucket(0, max_distance=8), "larger than the 8 distances"),
        (lambda: rel.t5_relative_bucket(0, max_distance=12.5), "whole number"),
        (lambda: rel.t5_relative_bucket([0.5]), "whole numbers"),
        (lambda: rel.t5_relative_bucket(["a"]), "whole numbers"),
        (lambda: rel.t5_bucket_ranges(num_buckets=0), "at least 4"),
        (lambda: rel.t5_bias(np.zeros((2, 32)), [0], [0], num_buckets=16), "16"),
        (lambda: rel.t5_bias(np.zeros((2, 3, 32)), [0], [0]), "num_buckets"),
        (lambda: rel.t5_bias(np.zeros(32), [[0, 1]], [0]), "1-D"),
        (lambda: rel.t5_demo_bucket_values(32, 0), "n_heads"),
        (lambda: rel.t5_demo_bucket_values(32, 2, noise=-1.0), "noise"),
        (lambda: rel.shaw_relative_positions([0], [0], -1), "max_relative_position"),
        (lambda: rel.shaw_relative_positions([0.5], [0], 2), "whole numbers"),
        (lambda: rel.shaw_table(2, 0), "d_model"),
        (lambda: rel.shaw_table(2, 4, std=float("nan")), "std"),
        (lambda: rel.shaw_distinct_ids(0, 4, 2), "query_len"),
    ],
)
def test_bad_arguments_raise_value_error_with_a_sentence(call, words):
    with pytest.raises(ValueError, match=words):
        call()
