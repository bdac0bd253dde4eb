r"""core.schemes.registry: every scheme's three hooks, against the reference functions they stand for
(core.schemes.sinusoidal, core.schemes.rope, core.schemes.alibi, core.schemes.relative, core.schemes.learned), hand-worked codes, the
properties that define each family (RoPE scores depend on the offset only; biases on the
distance only), parameter counts by hand, and the validation of Setting."""

from __future__ import annotations

import numpy as np
import pytest

from core.schemes import alibi, learned, relative, rope
from core.analysis.attention import multi_head_attention, softmax
from core.schemes.registry import (
    ADDED,
    BIAS,
    NOTHING,
    ROTARY,
    SCHEMES,
    SHAW_CLIP,
    T5_BUCKETS,
    T5_MAX_DISTANCE,
    Setting,
    positional_schemes,
    with_length,
)
from core.schemes.sinusoidal import sinusoidal_encoding, t2t_timing_signal
from tests.helpers import assert_close
from tests.references import alibi_bias

S = Setting(width=16, base=10_000.0, train_len=40, n_heads=4, seed=3)
POS = np.arange(12)
KPOS = np.arange(5, 14)  # keys at other positions than the queries: Lq != Lk


# --- shapes and the families --------------------------------------------------------------


@pytest.mark.parametrize("name", list(SCHEMES))
def test_hook_shapes(name):
    scheme = SCHEMES[name]
    assert scheme.input_code(POS, S).shape == (POS.size, S.width)
    for x_shape in ((POS.size, 8), (S.n_heads, POS.size, 8)):  # (L, hd) and (H, L, hd)
        x = np.random.default_rng(0).standard_normal(x_shape)
        assert scheme.rotate(x, POS, S).shape == x_shape
    assert scheme.score_bias(POS, KPOS, S).shape == (S.n_heads, POS.size, KPOS.size)
    q = np.random.default_rng(1).standard_normal((S.n_heads, POS.size, S.head_width))
    assert scheme.score_bias(POS, KPOS, S, q).shape == (S.n_heads, POS.size, KPOS.size)


@pytest.mark.parametrize("name", list(SCHEMES))
def test_hooks_a_scheme_does_not_use_are_neutral(name):
    scheme = SCHEMES[name]
    x = np.random.default_rng(0).standard_normal((POS.size, 8))
    if scheme.applied != ADDED:
        assert np.array_equal(scheme.input_code(POS, S), np.zeros((POS.size, S.width)))
    if scheme.applied != ROTARY:
        assert scheme.rotate(x, POS, S) is x  # the identity, not a copy
    if scheme.applied != BIAS:
        assert np.array_equal(scheme.score_bias(POS, KPOS, S), np.zeros((S.n_heads, POS.size, KPOS.size)))


def test_positional_schemes_leave_out_only_none():
    assert "none" not in positional_schemes()
    assert set(positional_schemes()) == set(SCHEMES) - {"none"}
    assert not SCHEMES["none"].carries_position


def test_the_ways_of_applying_partition_the_registry():
    groups = {how: [name for name, scheme in SCHEMES.items() if scheme.applied == how] for how in (ADDED, ROTARY, BIAS, NOTHING)}
    assert groups[ADDED] == ["integer", "fraction", "binary", "onehot", "sinusoidal", "t2t", "learned"]
    assert groups[ROTARY] == ["rope"]
    assert groups[BIAS] == ["alibi", "t5", "shaw", "kerple"]
    assert groups[NOTHING] == ["none"]
    assert sorted(sum(groups.values(), [])) == sorted(SCHEMES)


def test_every_scheme_is_registered_under_its_own_name():
    assert all(name == scheme.name and scheme.label and scheme.summary for name, scheme in SCHEMES.items())


# --- added schemes: input_code against references ------------------------------------------


@pytest.mark.parametrize("width", [16, 7, 1])
def test_sinusoidal_is_the_papers_table(width):
    s = Setting(width=width, base=500.0, train_len=40)
    assert_close(SCHEMES["sinusoidal"].input_code(np.arange(40), s), sinusoidal_encoding(40, width, 500.0))
    # any positions, fractional or far out, are the rows of the formula
    p = np.array([0.5, 1000.0, 123456.0])
    assert_close(SCHEMES["sinusoidal"].input_code(p, s), sinusoidal_encoding(1, width, 500.0, positions=p))


@pytest.mark.parametrize("width", [16, 7])
def test_t2t_is_the_timing_signal_with_max_timescale_base(width):
    s = Setting(width=width, base=500.0, train_len=40)
    assert_close(SCHEMES["t2t"].input_code(np.arange(40), s), t2t_timing_signal(40, width, max_timescale=500.0))
    assert_close(SCHEMES["t2t"].input_code([7.0], s), t2t_timing_signal(1, width, max_timescale=500.0, start_index=7))


def test_integer_and_fraction_broadcast_p():
    s = Setting(width=5, train_len=8)
    p = np.array([0, 1, 3, 7, 20])
    assert np.array_equal(SCHEMES["integer"].input_code(p, s), np.repeat(p[:, None], 5, axis=1).astype(float))
    assert_close(SCHEMES["fraction"].input_code(p, s), np.repeat(p[:, None] / 8, 5, axis=1))
    assert_close(SCHEMES["fraction"].input_code(p, with_length(s, 16)), np.repeat(p[:, None] / 16, 5, axis=1))


def test_binary_bits_by_hand():
    s = Setting(width=5, train_len=8)  # 8 positions need 3 bits: columns 3 and 4 stay 0
    code = SCHEMES["binary"].input_code([0, 1, 2, 5, 6, 7], s)
    expected = [
        [0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [0, 1, 0, 0, 0],
        [1, 0, 1, 0, 0],
        [0, 1, 1, 0, 0],
        [1, 1, 1, 0, 0],
    ]
    assert np.array_equal(code, expected)
    # a position past the table needs one more bit, which the code then uses
    assert np.array_equal(SCHEMES["binary"].input_code([13], s), [[1, 0, 1, 1, 0]])
    # a narrow code keeps the low bits only: 9 = 1001b and 1 share their first three bits
    narrow = Setting(width=3, train_len=16)
    assert np.array_equal(SCHEMES["binary"].input_code([9, 1], narrow), [[1, 0, 0], [1, 0, 0]])


@pytest.mark.parametrize(("width", "train_len"), [(6, 10), (10, 6), (4, 4)])
def test_onehot_identity_rows_and_its_end(width, train_len):
    s = Setting(width=width, train_len=train_len)
    rows = min(width, train_len)
    assert SCHEMES["onehot"].max_position(s) == rows
    code = SCHEMES["onehot"].input_code(np.arange(rows), s)
    assert np.array_equal(code, np.eye(rows, width))
    with pytest.raises(ValueError, match=rf"positions 0 to {rows - 1} only; position {rows} has none: a table cannot extrapolate"):
        SCHEMES["onehot"].input_code([0, rows], s)


@pytest.mark.parametrize("bad", [-1, 1.5])
def test_onehot_refuses_positions_that_are_not_whole_numbers_from_zero(bad):
    with pytest.raises(ValueError):
        SCHEMES["onehot"].input_code([bad], Setting(width=4, train_len=8))


def test_learned_is_the_learned_rows_and_ends_at_train_len():
    s = Setting(width=6, train_len=30, seed=5)
    p = np.array([0, 1, 17, 29])
    assert np.array_equal(SCHEMES["learned"].input_code(p, s), learned.learned_rows(p, 6, seed=5))
    assert_close(SCHEMES["learned"].input_code(np.arange(30), s), learned.learned_table(30, 6, seed=5))
    assert SCHEMES["learned"].max_position(s) == 30
    with pytest.raises(ValueError, match="positions 0 to 29 only; position 30 has none"):
        SCHEMES["learned"].input_code([3, 30], s)


def test_an_empty_position_list_gives_an_empty_code():
    for name in ("onehot", "learned", "integer", "binary"):
        assert SCHEMES[name].input_code([], S).shape == (0, S.width)


# --- RoPE ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(12, 8), (3, 12, 8), (12, 2)])
def test_rope_rotate_is_apply_rope_with_default_frequencies_half_layout(shape):
    x = np.random.default_rng(2).standard_normal(shape)
    s = Setting(width=64, base=500.0)  # the rotation reads the head width from x, not the setting
    theta = rope.default_frequencies(shape[-1], 500.0)
    assert_close(SCHEMES["rope"].rotate(x, POS, s), rope.apply_rope(x, POS, theta, layout="half"))


def test_rope_rotation_by_hand_for_one_pair():
    # head_dim 2: one pair at frequency 1; (1, 0) at position p becomes (cos p, sin p)
    out = SCHEMES["rope"].rotate(np.tile([1.0, 0.0], (4, 1)), [0, 1, 2, 3], S)
    p = np.arange(4.0)
    assert_close(out, np.stack([np.cos(p), np.sin(p)], axis=1))


def test_rope_scores_depend_only_on_the_offset_and_norms_are_kept():
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((2, 32))
    s = Setting(width=32)
    m = np.arange(0, 200, 7.0)

    def score(qpos, kpos):
        rq = SCHEMES["rope"].rotate(np.tile(q, (qpos.size, 1)), qpos, s)
        rk = SCHEMES["rope"].rotate(np.tile(k, (kpos.size, 1)), kpos, s)
        return np.einsum("ij,ij->i", rq, rk)

    for offset in (0.0, 1.0, 5.0, 63.0):
        base_curve = score(m + offset, m)  # the same offset at 29 absolute positions
        assert np.ptp(base_curve) < 1e-10
        assert_close(base_curve, score(m + offset + 10_000.0, m + 10_000.0), atol=1e-9)
    rotated = SCHEMES["rope"].rotate(np.tile(q, (m.size, 1)), m, s)
    assert_close(np.linalg.norm(rotated, axis=1), np.full(m.size, np.linalg.norm(q)))


def test_rope_refuses_an_odd_head_width():
    with pytest.raises(ValueError, match="head_dim must be even"):
        SCHEMES["rope"].rotate(np.ones((3, 7)), [0, 1, 2], S)


# --- bias schemes --------------------------------------------------------------------------


def test_alibi_bias_with_eight_heads_by_hand():
    s = Setting(width=64, n_heads=8)
    slopes = 2.0 ** -np.arange(1, 9)  # 1/2, 1/4, ..., 1/256
    assert_close(alibi.alibi_slopes(8), slopes)
    qp, kp = np.arange(6), np.arange(10)
    expected = -slopes[:, None, None] * np.abs(qp[:, None] - kp[None, :])[None]
    assert_close(SCHEMES["alibi"].score_bias(qp, kp, s), expected)
    # on and below the diagonal it is the causal alibi_bias of the reference
    causal = alibi_bias(8, 6, causal=True)
    lower = np.tril(np.ones((6, 6), dtype=bool))
    assert_close(SCHEMES["alibi"].score_bias(qp, qp, s)[:, lower], causal[:, lower])
    assert_close(SCHEMES["alibi"].score_bias(qp, qp, s), alibi_bias(8, 6, causal=False))


@pytest.mark.parametrize("heads", [1, 3, 12])
def test_alibi_uses_the_reference_slopes_for_any_head_count(heads):
    s = Setting(width=48, n_heads=heads)
    bias = SCHEMES["alibi"].score_bias([5], [0], s)[:, 0, 0]  # distance 5
    assert_close(bias, -5 * alibi.alibi_slopes(heads))


def test_t5_bias_is_t5_bias_with_the_demo_bucket_values():
    s = Setting(width=32, n_heads=4, seed=2)
    qp, kp = np.arange(0, 300, 7), np.arange(0, 300, 5)
    values = relative.t5_demo_bucket_values(T5_BUCKETS, 4, seed=2)
    expected = relative.t5_bias(values, qp, kp, bidirectional=True, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)
    got = SCHEMES["t5"].score_bias(qp, kp, s)
    assert_close(got, expected)
    # by hand: each entry is its head's value at the bucket of key - query
    buckets = relative.t5_relative_bucket(kp[None, :] - qp[:, None], bidirectional=True, num_buckets=32, max_distance=128)
    assert_close(got[2], values[2][buckets])
    assert (T5_BUCKETS, T5_MAX_DISTANCE) == (32, 128)  # T5's own defaults


def test_biases_depend_only_on_key_minus_query():
    s = Setting(width=32, n_heads=4)
    for name in ("alibi", "t5", "shaw"):
        a = SCHEMES[name].score_bias(np.arange(10), np.arange(10), s)
        b = SCHEMES[name].score_bias(np.arange(10) + 977, np.arange(10) + 977, s)
        assert_close(a, b)


def _shaw_reference(q, qp, kp, s):
    r"""$q_{h,i} \cdot w_{\mathrm{clip}(j - i, 16)} / \sqrt{d_h}$ from the full (Lq, Lk, hd) table of
    vectors (Shaw et al. eq. 5 divide q·(k + a) by the square root of the head width)."""
    table = relative.shaw_table(SHAW_CLIP, s.head_width, seed=s.seed)
    a = table[relative.shaw_relative_positions(qp, kp, SHAW_CLIP) + SHAW_CLIP]  # (Lq, Lk, hd): w of clip(j - i), looked up
    return np.einsum("hid,ijd->hij", q, a) / np.sqrt(s.head_width)


def test_shaw_bias_with_a_query_is_q_dot_the_clipped_vector():
    s = Setting(width=32, n_heads=4, seed=1)  # head width 8
    qp, kp = np.arange(0, 60, 3), np.arange(0, 50, 2)
    q = np.random.default_rng(4).standard_normal((4, qp.size, 8))
    assert_close(SCHEMES["shaw"].score_bias(qp, kp, s, q), _shaw_reference(q, qp, kp, s), atol=1e-14)


def test_shaw_bias_without_a_query_uses_a_fixed_unit_query():
    s = Setting(width=32, n_heads=4, seed=1)
    qp, kp = np.arange(0, 60, 3), np.arange(0, 50, 2)
    unit = np.full((4, qp.size, 8), 1 / np.sqrt(8))
    assert_close(np.linalg.norm(unit[0, 0]), 1.0)
    assert_close(SCHEMES["shaw"].score_bias(qp, kp, s), _shaw_reference(unit, qp, kp, s), atol=1e-14)


def test_shaw_is_flat_beyond_the_clipping_distance():
    s = Setting(width=32, n_heads=4)
    row = SCHEMES["shaw"].score_bias([100], np.arange(201), s)[:, 0, :]  # key - query from -100 to 100
    assert np.all(row[:, : 100 - SHAW_CLIP] == row[:, [0]])
    assert np.all(row[:, 100 + SHAW_CLIP :] == row[:, [-1]])
    assert np.unique(row[0]).size == 2 * SHAW_CLIP + 1


def test_shaw_term_enters_attention_as_in_shaw_et_al():
    s = Setting(width=16, n_heads=2)  # head width 8
    t = 6
    x = np.random.default_rng(5).standard_normal((t, 16))
    pos = SCHEMES["shaw"].attention_positions(t, s)
    _, weights = multi_head_attention(x, 2, bias=pos.bias)
    q = x.reshape(t, 2, 8).transpose(1, 0, 2)  # (H, T, hd); Q = K = x without projections
    a = relative.shaw_table(SHAW_CLIP, 8, seed=s.seed)[relative.shaw_relative_positions(np.arange(t), np.arange(t), SHAW_CLIP) + SHAW_CLIP]  # (T, T, hd)
    scores = np.einsum("hid,hjd->hij", q, q)[:, :, :] + np.einsum("hid,ijd->hij", q, a)
    assert_close(weights, softmax(scores / np.sqrt(8)), atol=1e-12)


# --- parameters and table ends ---------------------------------------------------------------


@pytest.mark.parametrize(("width", "train_len", "heads"), [(16, 40, 4), (128, 256, 8), (6, 3, 4)])
def test_parameters_by_hand(width, train_len, heads):
    s = Setting(width=width, train_len=train_len, n_heads=heads)
    head_width = max(1, width // heads)
    expected = {"learned": train_len * width, "t5": 32 * heads, "shaw": (2 * 16 + 1) * head_width, "kerple": 2 * heads}  # KERPLE: r1 and r2 per head
    for name, scheme in SCHEMES.items():
        assert scheme.parameters(s) == expected.get(name, 0), name
    assert SCHEMES["shaw"].parameters(Setting(width=128, n_heads=8)) == 33 * 16 == 528


def test_max_position_only_for_tables():
    s = Setting(width=16, train_len=40)
    assert {n: sc.max_position(s) for n, sc in SCHEMES.items() if sc.max_position(s) is not None} == {"onehot": 16, "learned": 40}


# --- attention_positions: what core.analysis.attention applies ----------------------------------------


@pytest.mark.parametrize("factor", [1.0, 0.5, 3.0, 0.0])
def test_attention_positions_scale_the_added_code(factor):
    for name in ("sinusoidal", "integer", "learned"):
        hooks = SCHEMES[name].attention_positions(10, S, factor)
        assert hooks.rotate is None and hooks.bias is None
        assert_close(hooks.added, factor * SCHEMES[name].input_code(np.arange(10), S))


@pytest.mark.parametrize("factor", [1.0, 0.5, 3.0])
def test_attention_positions_scale_the_rotation_angles(factor):
    hooks = SCHEMES["rope"].attention_positions(10, S, factor)
    assert hooks.added is None and hooks.bias is None
    x = np.random.default_rng(6).standard_normal((S.n_heads, 10, 8))
    # angles p·θᵢ·f: the same as frequencies multiplied by f
    expected = rope.apply_rope(x, np.arange(10), factor * rope.default_frequencies(8, S.base), layout="half")
    assert_close(hooks.rotate(x), expected, atol=1e-14)


@pytest.mark.parametrize("factor", [1.0, 0.5, 3.0])
@pytest.mark.parametrize("name", ["alibi", "t5", "shaw"])
def test_attention_positions_scale_the_bias(name, factor):
    hooks = SCHEMES[name].attention_positions(10, S, factor)
    assert hooks.added is None and hooks.rotate is None
    q = np.random.default_rng(7).standard_normal((S.n_heads, 10, S.head_width))
    assert_close(hooks.bias(q), factor * SCHEMES[name].score_bias(np.arange(10), np.arange(10), S, q), atol=1e-15)


def test_attention_positions_of_none_use_nothing():
    hooks = SCHEMES["none"].attention_positions(10, S)
    assert hooks.added is None and hooks.rotate is None and hooks.bias is None


# --- Setting ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(width=0), "width must be a whole number of at least 1, got 0"),
        (dict(width=-3), "width must be a whole number"),
        (dict(width=2.5), "width must be a whole number of at least 1, got 2.5"),
        (dict(width=8, train_len=0), "training length must be a whole number of at least 1, got 0"),
        (dict(width=8, train_len=10.5), "training length must be a whole number"),
        (dict(width=8, n_heads=0), "number of heads must be a whole number of at least 1, got 0"),
        (dict(width=8, n_heads=1.5), "number of heads must be a whole number"),
    ],
)
def test_setting_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Setting(**kwargs)


@pytest.mark.parametrize("bad", [float("inf"), float("nan")])
def test_setting_refuses_non_finite_width_with_its_sentence(bad):
    with pytest.raises(ValueError, match="width must be a whole number"):
        Setting(width=bad)


def test_setting_accepts_whole_floats_and_splits_heads():
    s = Setting(width=8.0, train_len=16.0, n_heads=2.0)
    assert s.head_width == 4
    assert Setting(width=3, n_heads=8).head_width == 1  # at least 1
    assert with_length(s, 99).train_len == 99 and with_length(s, 99).width == s.width
