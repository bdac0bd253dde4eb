r"""core.schemes.alibi against the ALiBi reference code and Hugging Face BLOOM, hand-worked biases, and the
properties of the bias (depends on the offset only) and of the attention it produces (span, weights).

The slope constants below were produced by running the reference implementations (transformers
5.23.0, torch 2.13.0 CPU, in a throwaway venv; the tests do not need transformers). The script
takes get_slopes from the ALiBi repository's own file; this machine had no network, so the stored
values came from that function transcribed from a stored copy of the file at the same commit.

    python -m venv --system-site-packages /tmp/refvenv && /tmp/refvenv/bin/pip install transformers
    /tmp/refvenv/bin/python gen_alibi_refs.py transformer.py   # the script below; paste its output here

```
import ast
import math
import sys
import textwrap

import numpy as np
import torch
from transformers.models.bloom.modeling_bloom import build_alibi_tensor


# get_slopes, run from the reference file itself (ofirpress/attention_with_linear_biases at commit
# 3b7c2eca8397d27be08c6dffad9b60855507f9b7, fairseq/models/transformer.py, inside TransformerDecoder.__init__):
#   curl -LO https://raw.githubusercontent.com/ofirpress/attention_with_linear_biases/3b7c2eca8397d27be08c6dffad9b60855507f9b7/fairseq/models/transformer.py
#   python gen_alibi_refs.py transformer.py
tree = ast.parse(open(sys.argv[1]).read())
node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "get_slopes")
namespace = {"math": math}
exec(compile(ast.Module(body=[node], type_ignores=[]), "get_slopes", "exec"), namespace)
get_slopes = namespace["get_slopes"]


def emit(name, entries):
    print(f"{name} = {{")
    for n, vals in entries:
        line = f"    {n}: (" + ", ".join(vals) + ("," if len(vals) == 1 else "") + "),"
        if len(line) <= 158:
            print(line)
        else:
            print(f"    {n}: (\n" + textwrap.fill(", ".join(vals) + ",", width=150, initial_indent=" " * 8, subsequent_indent=" " * 8) + "\n    ),")
    print("}")


HEADS = [*range(1, 17), 24, 32, 64]
emit("REFERENCE_SLOPES", [(n, [repr(s) for s in get_slopes(n)]) for n in HEADS])
# build_alibi_tensor over one sequence of two tokens is slope_h * [0, 1] in row h (float32)
emit("BLOOM_SLOPES", [(n, [str(np.float32(s)) for s in build_alibi_tensor(torch.ones(1, 2), n, torch.float32)[:, 0, 1].numpy()]) for n in HEADS])
```
"""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.schemes import alibi as al
from tests.helpers import assert_close
from tests.references import alibi_bias

ROOT = Path(__file__).resolve().parents[3]

# get_slopes(n) of ofirpress/attention_with_linear_biases (fairseq/models/transformer.py), float64
REFERENCE_SLOPES = {
    1: (0.00390625,),
    2: (0.0625, 0.00390625),
    3: (0.0625, 0.00390625, 0.25),
    4: (0.25, 0.0625, 0.015625, 0.00390625),
    5: (0.25, 0.0625, 0.015625, 0.00390625, 0.5),
    6: (0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125),
    7: (0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125, 0.03125),
    8: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625),
    9: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.7071067811865476),
    10: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.7071067811865476, 0.35355339059327384),
    11: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.7071067811865476, 0.35355339059327384, 0.17677669529663692),
    12: (
        0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.7071067811865476, 0.35355339059327384, 0.17677669529663692,
        0.08838834764831849,
    ),
    13: (
        0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.7071067811865476, 0.35355339059327384, 0.17677669529663692,
        0.08838834764831849, 0.044194173824159244,
    ),
    14: (
        0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.7071067811865476, 0.35355339059327384, 0.17677669529663692,
        0.08838834764831849, 0.044194173824159244, 0.022097086912079626,
    ),
    15: (
        0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.7071067811865476, 0.35355339059327384, 0.17677669529663692,
        0.08838834764831849, 0.044194173824159244, 0.022097086912079626, 0.011048543456039816,
    ),
    16: (
        0.7071067811865476, 0.5000000000000001, 0.35355339059327384, 0.25000000000000006, 0.17677669529663692, 0.12500000000000006,
        0.08838834764831849, 0.06250000000000004, 0.044194173824159244, 0.03125000000000002, 0.022097086912079626, 0.01562500000000001,
        0.011048543456039816, 0.007812500000000007, 0.005524271728019908, 0.003906250000000004,
    ),
    24: (
        0.7071067811865476, 0.5000000000000001, 0.35355339059327384, 0.25000000000000006, 0.17677669529663692, 0.12500000000000006,
        0.08838834764831849, 0.06250000000000004, 0.044194173824159244, 0.03125000000000002, 0.022097086912079626, 0.01562500000000001,
        0.011048543456039816, 0.007812500000000007, 0.005524271728019908, 0.003906250000000004, 0.8408964152537145, 0.5946035575013604,
        0.42044820762685714, 0.2973017787506802, 0.21022410381342854, 0.14865088937534005, 0.10511205190671426, 0.07432544468767001,
    ),
    32: (
        0.8408964152537145, 0.7071067811865475, 0.5946035575013604, 0.4999999999999999, 0.42044820762685714, 0.3535533905932737, 0.2973017787506802,
        0.2499999999999999, 0.21022410381342854, 0.17677669529663678, 0.14865088937534005, 0.12499999999999992, 0.10511205190671426,
        0.08838834764831839, 0.07432544468767001, 0.06249999999999995, 0.052556025953357115, 0.04419417382415918, 0.037162722343835,
        0.03124999999999997, 0.02627801297667855, 0.022097086912079587, 0.018581361171917495, 0.015624999999999981, 0.013139006488339273,
        0.01104854345603979, 0.009290680585958746, 0.007812499999999989, 0.006569503244169636, 0.005524271728019895, 0.004645340292979372,
        0.003906249999999994,
    ),
    64: (
        0.9170040432046712, 0.8408964152537145, 0.7711054127039704, 0.7071067811865475, 0.6484197773255047, 0.5946035575013605, 0.5452538663326288,
        0.4999999999999999, 0.45850202160233555, 0.4204482076268572, 0.38555270635198513, 0.3535533905932737, 0.32420988866275235, 0.2973017787506802,
        0.27262693316631437, 0.24999999999999994, 0.22925101080116772, 0.21022410381342857, 0.19277635317599254, 0.1767766952966368,
        0.16210494433137615, 0.14865088937534007, 0.13631346658315716, 0.12499999999999994, 0.11462550540058385, 0.10511205190671426,
        0.09638817658799625, 0.08838834764831839, 0.08105247216568806, 0.07432544468767002, 0.06815673329157856, 0.062499999999999965,
        0.057312752700291916, 0.05255602595335713, 0.04819408829399812, 0.04419417382415919, 0.040526236082844024, 0.037162722343835004,
        0.03407836664578928, 0.031249999999999976, 0.028656376350145955, 0.02627801297667856, 0.024097044146999057, 0.022097086912079594,
        0.020263118041422012, 0.0185813611719175, 0.017039183322894638, 0.015624999999999988, 0.014328188175072976, 0.013139006488339279,
        0.012048522073499527, 0.011048543456039795, 0.010131559020711004, 0.00929068058595875, 0.008519591661447317, 0.007812499999999992,
        0.007164094087536487, 0.0065695032441696385, 0.0060242610367497625, 0.005524271728019897, 0.005065779510355501, 0.004645340292979374,
        0.004259795830723658, 0.0039062499999999952,
    ),
}

# transformers.models.bloom.modeling_bloom.build_alibi_tensor(torch.ones(1, 2), n, torch.float32)[:, 0, 1]: the same slopes in float32
BLOOM_SLOPES = {
    1: (0.00390625,),
    2: (0.0625, 0.00390625),
    3: (0.0625, 0.00390625, 0.25),
    4: (0.25, 0.0625, 0.015625, 0.00390625),
    5: (0.25, 0.0625, 0.015625, 0.00390625, 0.5),
    6: (0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125),
    7: (0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125, 0.03125),
    8: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625),
    9: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.70710677),
    10: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.70710677, 0.35355338),
    11: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.70710677, 0.35355338, 0.17677668),
    12: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.70710677, 0.35355338, 0.17677668, 0.08838834),
    13: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.70710677, 0.35355338, 0.17677668, 0.08838834, 0.044194166),
    14: (0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.70710677, 0.35355338, 0.17677668, 0.08838834, 0.044194166, 0.022097083),
    15: (
        0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.70710677, 0.35355338, 0.17677668, 0.08838834, 0.044194166, 0.022097083,
        0.011048541,
    ),
    16: (
        0.70710677, 0.49999997, 0.35355338, 0.24999999, 0.17677668, 0.124999985, 0.08838834, 0.062499993, 0.044194166, 0.031249994, 0.022097083,
        0.015624997, 0.011048541, 0.007812498, 0.0055242702, 0.0039062488,
    ),
    24: (
        0.70710677, 0.49999997, 0.35355338, 0.24999999, 0.17677668, 0.124999985, 0.08838834, 0.062499993, 0.044194166, 0.031249994, 0.022097083,
        0.015624997, 0.011048541, 0.007812498, 0.0055242702, 0.0039062488, 0.8408964, 0.5946036, 0.42044824, 0.2973018, 0.21022414, 0.14865091,
        0.10511207, 0.074325465,
    ),
    32: (
        0.8408964, 0.7071068, 0.5946036, 0.5, 0.42044824, 0.3535534, 0.2973018, 0.25000003, 0.21022414, 0.17677672, 0.14865091, 0.12500001,
        0.10511207, 0.08838837, 0.07432546, 0.062500015, 0.052556038, 0.044194184, 0.037162732, 0.031250007, 0.02627802, 0.022097094, 0.018581368,
        0.015625006, 0.013139011, 0.011048548, 0.009290684, 0.007812503, 0.006569506, 0.005524274, 0.0046453425, 0.003906252,
    ),
    64: (
        0.91700405, 0.8408964, 0.7711054, 0.70710677, 0.6484198, 0.5946036, 0.5452539, 0.5, 0.45850205, 0.42044824, 0.38555273, 0.3535534, 0.32420993,
        0.2973018, 0.27262697, 0.25000003, 0.22925104, 0.21022412, 0.19277638, 0.17677672, 0.16210496, 0.14865091, 0.13631348, 0.12500001, 0.11462552,
        0.10511207, 0.09638819, 0.08838836, 0.08105249, 0.07432546, 0.06815675, 0.062500015, 0.057312764, 0.052556038, 0.0481941, 0.044194184,
        0.040526245, 0.037162732, 0.034078375, 0.031250007, 0.028656384, 0.026278019, 0.02409705, 0.022097092, 0.020263124, 0.018581366, 0.01703919,
        0.015625004, 0.014328193, 0.01313901, 0.012048526, 0.011048547, 0.010131562, 0.009290684, 0.008519595, 0.007812503, 0.0071640965,
        0.0065695057, 0.0060242633, 0.005524274, 0.0050657815, 0.004645342, 0.0042597973, 0.0039062514,
    ),
}

HEAD_COUNTS = sorted(REFERENCE_SLOPES)


def brute_force_span(slopes: np.ndarray, seq_len: int, mass: float) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative attention of the nearest keys, summed key by key; returns (cumulative (H, L), span (H,))."""
    k = np.arange(seq_len)
    w = np.exp(-np.outer(slopes, k))
    cum = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)  # (H, L)
    return cum, 1 + np.argmax(cum >= mass, axis=1)


# --- slopes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n_heads", HEAD_COUNTS)
def test_slopes_equal_the_reference_code_to_the_last_bit(n_heads):
    assert_close(al.alibi_slopes(n_heads), REFERENCE_SLOPES[n_heads], atol=0, rtol=0)


@pytest.mark.parametrize("n_heads", HEAD_COUNTS)
def test_slopes_match_bloom_build_alibi_tensor_to_float32_precision(n_heads):
    # BLOOM raises a float32 base to integer powers: about 5e-7 relative error at 64 heads
    assert_close(al.alibi_slopes(n_heads), BLOOM_SLOPES[n_heads], atol=0, rtol=1e-6)


def test_eight_heads_by_hand():
    assert_close(al.alibi_slopes(8), [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256], atol=0, rtol=0)
    assert_close(al.alibi_slopes(1), [1 / 256], atol=0, rtol=0)  # the formula with n = 1, not 1/2
    assert_close(al.alibi_slopes(3), [1 / 16, 1 / 256, 1 / 4], atol=0, rtol=0)  # 2 heads' slopes, then 4 heads' first


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8, 16, 32, 64, 128, 256])
def test_power_of_two_slopes_are_geometric_from_2_to_the_minus_8_over_n(n_heads):
    m = al.alibi_slopes(n_heads)
    assert np.all(np.diff(m) < 0)
    assert_close(m, 2.0 ** (-8.0 * np.arange(1, n_heads + 1) / n_heads), atol=0, rtol=1e-13)
    assert_close(m[-1], 2.0**-8, atol=0, rtol=1e-13)


@given(st.integers(min_value=1, max_value=600))
@settings(max_examples=60, deadline=None)
def test_any_head_count_uses_distinct_slopes_of_the_doubled_power_of_two(n_heads):
    m = al.alibi_slopes(n_heads)
    closest = 1 << (n_heads.bit_length() - 1)
    assert m.shape == (n_heads,)
    assert np.all((m > 0) & (m < 1))
    assert np.all(np.diff(m[:closest]) < 0) and np.all(np.diff(m[closest:]) < 0)  # each part decreases
    doubled = al.alibi_slopes(2 * closest)
    nearest = np.abs(m[:, None] / doubled[None, :] - 1).min(axis=1)
    assert nearest.max() < 1e-12  # every slope is one of the doubled model's
    assert len(np.unique(np.round(np.log2(m) * 2 * closest / 8))) == n_heads  # and no two are the same


# --- the bias -------------------------------------------------------------------------------


def test_bias_by_hand_causal_and_symmetric():
    inf = np.inf
    causal = alibi_bias(2, 3)
    assert causal.shape == (2, 3, 3)
    # 2 heads: slopes 1/16 and 1/256; row i is the query, column j the key
    assert_close(causal[0], [[0, -inf, -inf], [-1 / 16, 0, -inf], [-2 / 16, -1 / 16, 0]], atol=0)
    assert_close(causal[1], [[0, -inf, -inf], [-1 / 256, 0, -inf], [-2 / 256, -1 / 256, 0]], atol=0)
    both = alibi_bias(2, 3, causal=False)
    assert_close(both[0], [[0, -1 / 16, -2 / 16], [-1 / 16, 0, -1 / 16], [-2 / 16, -1 / 16, 0]], atol=0)
    assert np.isfinite(both).all()


def test_bias_rows_differ_from_the_reference_code_only_by_a_constant():
    # the reference adds +m*j to every row (softmax ignores the per-row constant m*i)
    m = al.alibi_slopes(4)
    reference = m[:, None, None] * np.arange(6)[None, None, :]  # (H, 1, L) broadcast over rows
    ours = alibi_bias(4, 6)
    lower = np.tril(np.ones((6, 6), dtype=bool))
    diff = np.where(lower, ours - reference, 0.0)  # (H, L, L)
    assert_close(diff, np.where(lower, -m[:, None, None] * np.arange(6)[None, :, None], 0.0))


@given(st.integers(1, 12), st.integers(1, 40), st.booleans())
@settings(max_examples=40, deadline=None)
def test_dense_bias_matches_the_offset_and_window_forms(n_heads, seq_len, causal):
    dense = alibi_bias(n_heads, seq_len, causal=causal)
    pos = np.arange(seq_len)
    by_offset = al.alibi_bias_by_offset(al.alibi_slopes(n_heads), (pos[:, None] - pos[None, :]).ravel(), causal=causal)
    assert_close(dense, by_offset.reshape(n_heads, seq_len, seq_len), atol=0)
    rows, cols = pos[::3], pos[seq_len // 2 :]
    assert_close(al.alibi_bias_window(n_heads, rows, cols, causal=causal), dense[:, rows][:, :, cols], atol=0)


def test_window_samples_a_131072_context_without_the_full_matrix():
    length = 131072
    sample = np.linspace(0, length - 1, 1000).round().astype(np.int64)
    window = al.alibi_bias_window(8, sample, sample)
    assert window.shape == (8, 1000, 1000)
    m = al.alibi_slopes(8)
    assert_close(window[:, -1, 0], -m * (length - 1), atol=0)  # the last query against the first key
    assert np.isneginf(window[:, 0, -1]).all()  # the first query cannot see the last key
    assert_close(np.diagonal(window, axis1=1, axis2=2), 0.0, atol=0)
    with pytest.raises(ValueError, match="alibi_bias_window"):
        alibi_bias(8, length)


def test_bias_depends_on_the_offset_only():
    w = al.alibi_bias_window(6, [100, 5000], [90, 4990], causal=False)
    assert_close(w[:, 0, 0], w[:, 1, 1], atol=0)  # both offset 10
    assert_close(al.alibi_bias_by_offset([0.5, 0.25], [0, 3, -3], causal=False), [[0, -1.5, -1.5], [0, -0.75, -0.75]], atol=0)
    assert np.isneginf(al.alibi_bias_by_offset([0.5], [-1])).all()


# --- attention weights and span -------------------------------------------------------------


@pytest.mark.parametrize("n_heads", [1, 8, 12])
def test_weights_are_the_softmax_of_the_last_bias_row(n_heads):
    length = 50
    last_row = alibi_bias(n_heads, length)[:, -1, ::-1]  # (H, L): distance 0 first
    expected = np.exp(last_row - last_row.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    assert_close(al.alibi_attention_weights(al.alibi_slopes(n_heads), length), expected, atol=1e-15)


def test_weights_stay_accurate_for_tiny_zero_and_huge_slopes():
    length = 131072
    w = al.alibi_attention_weights([1e-12, 0.0, 60.0], length)
    assert_close(w.sum(axis=1), [1, 1, 1], atol=1e-9)
    assert_close(w[0], 1 / length, atol=0, rtol=2e-7)  # almost uniform: a decay of 1e-12 * 131072
    assert_close(w[1], 1 / length, atol=0, rtol=1e-15)
    assert_close(w[2, 0], 1.0, atol=0, rtol=1e-15)
    assert np.all(w[2, 1:] < 1e-26)
    part = al.alibi_attention_weights(al.alibi_slopes(8), length, distances=[0, 7, length - 1])
    assert_close(part, al.alibi_attention_weights(al.alibi_slopes(8), length)[:, [0, 7, length - 1]], atol=0)


def test_span_by_hand_for_slope_ln2():
    # weights halve with each step back: the nearest n keys hold 1 - 2^-n of a long sequence
    assert al.alibi_attention_span([np.log(2)], 1000, 0.9).tolist() == [4]  # 0.9375 >= 0.9 > 0.875
    assert al.alibi_attention_span([np.log(2)], 1000, 0.5).tolist() == [1]
    assert al.alibi_attention_span([np.log(2)], 1000, 0.99).tolist() == [7]


@pytest.mark.parametrize("n_heads", [8, 12])
@pytest.mark.parametrize("seq_len", [1, 2, 17, 512, 131072])
@pytest.mark.parametrize("mass", [0.5, 0.9, 0.99])
def test_span_matches_a_brute_force_cumulative_sum_for_the_real_slopes(n_heads, seq_len, mass):
    slopes = al.alibi_slopes(n_heads)
    _, expected = brute_force_span(slopes, seq_len, mass)
    assert al.alibi_attention_span(slopes, seq_len, mass).tolist() == expected.tolist()


@given(
    st.lists(st.floats(0, 3) | st.floats(1e-9, 1e-3) | st.just(0.0), min_size=1, max_size=4),
    st.integers(1, 3000),
    st.floats(0.01, 1.0),
)
@settings(max_examples=150, deadline=None)
def test_span_is_the_smallest_count_reaching_the_mass(slopes, seq_len, mass):
    span = al.alibi_attention_span(slopes, seq_len, mass)
    cum, _ = brute_force_span(np.array(slopes), seq_len, mass)
    held = cum[np.arange(len(slopes)), span - 1]
    before = np.where(span > 1, cum[np.arange(len(slopes)), np.maximum(span - 2, 0)], 0.0)
    tol = 1e-12 * seq_len  # the key-by-key sum rounds; shares tying with mass may go either way
    assert np.all((span >= 1) & (span <= seq_len))
    assert np.all(held >= mass - tol)
    assert np.all(before < mass + tol)


def test_span_of_tiny_and_zero_slopes_is_nearly_the_whole_sequence():
    length = 131072
    span = al.alibi_attention_span([0.0, 1e-12, 1e-300], length, 0.9)
    assert span.tolist() == [117965, 117965, 117965]  # ceil(0.9 * 131072)
    assert al.alibi_attention_span([0.0, 0.01, 5.0], length, 1.0).tolist() == [length] * 3


# --- refusals -------------------------------------------------------------------------------


def test_zero_heads_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="ALiBi needs at least one head"):
        al.alibi_slopes(0)
    with pytest.raises(ValueError, match="ALiBi needs at least one head"):
        al.alibi_slopes(-3)


@pytest.mark.parametrize(
    "call",
    [
        lambda: al.alibi_slopes(2.5),
        lambda: al.alibi_slopes("8"),
        lambda: al.alibi_slopes(True),
        lambda: alibi_bias(8, 0),
        lambda: alibi_bias(8, 3.5),
        lambda: alibi_bias(0, 8),
        lambda: al.alibi_bias_window(8, [-1, 0], [0]),
        lambda: al.alibi_bias_window(8, [0], [0.5]),
        lambda: al.alibi_bias_window(64, np.arange(20000), np.arange(20000)),
        lambda: al.alibi_bias_by_offset([0.5], [1.5]),
        lambda: al.alibi_bias_by_offset([[0.5]], [1]),
        lambda: al.alibi_bias_by_offset([], [1]),
        lambda: al.alibi_bias_by_offset([-0.5], [1]),
        lambda: al.alibi_bias_by_offset([np.nan], [1]),
        lambda: al.alibi_attention_span([0.5], 100, 0.0),
        lambda: al.alibi_attention_span([0.5], 100, 1.5),
        lambda: al.alibi_attention_span([0.5], 100, float("nan")),
        lambda: al.alibi_attention_span([0.5], 0),
        lambda: al.alibi_attention_weights([0.5], 10, distances=[10]),
        lambda: al.alibi_attention_weights([0.5], 10, distances=[-1]),
    ],
)
def test_bad_arguments_raise_value_error_with_a_sentence(call):
    with pytest.raises(ValueError, match=r"\w+ \w+ \w+"):
        call()
