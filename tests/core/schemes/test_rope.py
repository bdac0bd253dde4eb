"""core.schemes.rope against the real Hugging Face transformers code (constants below, with the script that
made them), hand-worked cases, and the properties that make RoPE what it is: rotations keep norms,
scores depend only on the offset, the two layouts are one fixed permutation apart.

Tolerances: frequencies from Hugging Face were computed in float32 (its `torch.arange(...).float()`),
ours in float64, so they are compared with rtol 1e-6 (a few float32 ulps; the largest gap seen is
3.2e-7, in Llama 3's blended band). The apply_rope references were computed in float64 from the same
cos/sin, so they are compared at 1e-12.
"""

import dataclasses
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.schemes import rope
from core.schemes.rope import RopeScaling
from tests.helpers import assert_close
from tests.references import ntk_aware_base

HF_RTOL = 1e-6  # float32 reference vs float64 implementation

# ------------------------------------------------------------------------------------------------
# Reference values from Hugging Face transformers 5.23.0 (torch 2.13.0 CPU), made by REGENERATE at
# the bottom of this file. Frequencies: src/transformers/modeling_rope_utils.py (ROPE_INIT_FUNCTIONS)
# and models/llama/modeling_llama.py (LlamaRotaryEmbedding.compute_default_rope_parameters, which is
# where the old `_compute_default_rope_parameters` lives in transformers 5), called on a LlamaConfig
# with head_dim and rope_parameters set. Each entry:
# (id, head_dim, base, scaling, seq_len, attention_factor, {pair index: inv_freq}).
# fmt: off
HF_FREQUENCIES = [
    # LlamaRotaryEmbedding.compute_default_rope_parameters
    ("default-8-1e4", 8, 1e4, None, None, 1.0,
        {0: 1.0, 1: 0.10000000149011612, 2: 0.009999999776482582, 3: 0.0010000000474974513}),
    ("default-8-5e5", 8, 5e5, None, None, 1.0,
        {0: 1.0, 1: 0.03760603070259094, 2: 0.001414213445968926, 3: 5.3182957344688475e-05}),
    ("default-64-1e4", 64, 1e4, None, None, 1.0,
        {0: 1.0, 1: 0.7498942017555237, 8: 0.10000000149011612, 16: 0.009999999776482582, 31: 0.0001333521504420787}),
    ("default-64-5e5", 64, 5e5, None, None, 1.0,
        {0: 1.0, 1: 0.663601279258728, 8: 0.03760603070259094, 16: 0.001414213445968926, 31: 3.01385807688348e-06}),
    # _compute_linear_scaling_rope_parameters
    ("linear-16-x4", 16, 1e4, RopeScaling("linear", 4.0, 2048), None, 1.0,
        {0: 0.25, 1: 0.07905694097280502, 2: 0.02500000037252903, 3: 0.007905694656074047, 4: 0.0024999999441206455, 5: 0.0007905694656074047,
         6: 0.0002500000118743628, 7: 7.905694656074047e-05}),
    # _compute_dynamic_ntk_parameters(config, seq_len=...), max_position_embeddings=2048
    ("dynamic-16-x2-seq-none", 16, 1e4, RopeScaling("dynamic", 2.0, 2048), None, 1.0,
        {0: 1.0, 1: 0.3162277638912201, 2: 0.10000000149011612, 3: 0.03162277862429619, 4: 0.009999999776482582, 5: 0.003162277862429619,
         6: 0.0010000000474974513, 7: 0.0003162277862429619}),
    ("dynamic-16-x2-seq-1000", 16, 1e4, RopeScaling("dynamic", 2.0, 2048), 1000, 1.0,
        {0: 1.0, 1: 0.3162277638912201, 2: 0.10000000149011612, 3: 0.03162277862429619, 4: 0.009999999776482582, 5: 0.003162277862429619,
         6: 0.0010000000474974513, 7: 0.0003162277862429619}),
    ("dynamic-16-x2-seq-2048", 16, 1e4, RopeScaling("dynamic", 2.0, 2048), 2048, 1.0,
        {0: 1.0, 1: 0.3162277638912201, 2: 0.10000000149011612, 3: 0.03162277862429619, 4: 0.009999999776482582, 5: 0.003162277862429619,
         6: 0.0010000000474974513, 7: 0.0003162277862429619}),
    ("dynamic-16-x2-seq-3000", 16, 1e4, RopeScaling("dynamic", 2.0, 2048), 3000, 1.0,
        {0: 1.0, 1: 0.28788307309150696, 2: 0.08287666738033295, 3: 0.02385879121720791, 4: 0.006868542637676001, 5: 0.001977337058633566,
         6: 0.0005692418781109154, 7: 0.00016387512732762843}),
    ("dynamic-16-x2-seq-8192", 16, 1e4, RopeScaling("dynamic", 2.0, 2048), 8192, 1.0,
        {0: 1.0, 1: 0.2394813746213913, 2: 0.05735132098197937, 3: 0.013734571635723114, 4: 0.003289173822849989, 5: 0.0007876958698034286,
         6: 0.00018863847071770579, 7: 4.517539491644129e-05}),
    # _compute_yarn_parameters, max_position_embeddings = factor * original_max_position_embeddings
    ("yarn-16-x4", 16, 1e4, RopeScaling("yarn", 4.0, 2048), None, 1.138629436111989,
        {0: 1.0, 1: 0.3162277638912201, 2: 0.10000000149011612, 3: 0.025693506002426147, 4: 0.00624999962747097, 5: 0.0013834965648129582,
         6: 0.0002500000118743628, 7: 7.905694656074047e-05}),
    ("yarn-16-x4-no-truncate", 16, 1e4, RopeScaling("yarn", 4.0, 2048, truncate=False), None, 1.138629436111989,
        {0: 1.0, 1: 0.3162277638912201, 2: 0.10000000149011612, 3: 0.02387019619345665, 4: 0.005056971684098244, 5: 0.0008112904615700245,
         6: 0.0002500000118743628, 7: 7.905694656074047e-05}),
    ("yarn-16-x4-beta-8-2-attention-1.5", 16, 1e4, RopeScaling("yarn", 4.0, 2048, beta_fast=8.0, beta_slow=2.0, attention_factor=1.5), None, 1.5,
        {0: 1.0, 1: 0.3162277638912201, 2: 0.10000000149011612, 3: 0.03162277862429619, 4: 0.00624999962747097, 5: 0.0007905694656074047,
         6: 0.0002500000118743628, 7: 7.905694656074047e-05}),
    ("yarn-64-x8", 64, 1e4, RopeScaling("yarn", 8.0, 4096), None, 1.2079441541679836,
        {0: 1.0, 10: 0.05623412877321243, 11: 0.039331309497356415, 12: 0.02736586518585682, 16: 0.0059615387581288815, 22: 0.0003419768181629479,
         23: 0.00016669018077664077, 24: 0.0001250000059371814, 31: 1.666901880525984e-05}),
    ("yarn-128-5e5-x4", 128, 5e5, RopeScaling("yarn", 4.0, 4096), None, 1.138629436111989,
        {0: 1.0, 14: 0.05666961893439293, 15: 0.044240545481443405, 16: 0.03447219729423523, 24: 0.004254054743796587, 31: 0.0005063469870947301,
         32: 0.0003535533614922315, 33: 0.0002880106621887535, 63: 6.137851755738666e-07}),
    # _compute_llama3_parameters; the first case is Llama 3.1's own setting
    ("llama3-128-5e5-x8", 128, 5e5, RopeScaling("llama3", 8.0, 8192, low_freq_factor=1.0, high_freq_factor=4.0), None, 1.0,
        {0: 1.0, 28: 0.0032114461064338684, 29: 0.0021665706299245358, 30: 0.0013718936825171113, 31: 0.0008567514596506953,
         32: 0.0005248460220173001, 33: 0.0003126936499029398, 34: 0.0001785077911335975, 35: 9.556212171446532e-05, 63: 3.068925877869333e-07}),
    ("llama3-16-x8", 16, 1e4, RopeScaling("llama3", 8.0, 2048, low_freq_factor=1.0, high_freq_factor=4.0), None, 1.0,
        {0: 1.0, 1: 0.3162277638912201, 2: 0.10000000149011612, 3: 0.03162277862429619, 4: 0.007840188220143318, 5: 0.0004236393142491579,
         6: 0.0001250000059371814, 7: 3.9528473280370235e-05}),
]

APPLY_X = [
    [-2.310411800234176, -0.3732508612577643, -1.0608166785462863, 0.9995093547811761,
     -0.8840250045832653, -1.2755469302148053, -0.623224579866079, -0.8664416019125772],
    [-1.2956271403277857, 1.52363162310635, 0.3236605664983738, 2.0177260314861085,
     1.1357423400213507, -1.226881339001083, 0.07138847120511693, 0.3380174030507378],
    [0.15351883531544036, -0.6332746088675096, -1.2609246557194385, -0.726951062065411,
     -0.019964750907762653, 0.2102998901016947, 0.17718935139366584, -0.830510051008449],
    [1.0111892074660187, -0.2426793824588577, -0.7730112772958181, -1.5951814880783068,
     -0.6870036940435463, 1.4880743158106724, -0.4484158047114511, -0.8910030351707375],
]
APPLY_HALF = [
    [-2.310411800234176, -0.3732508612577643, -1.0608166785462863, 0.9995093547811761,
     -0.8840250045832653, -1.2755469302148053, -0.623224579866079, -0.8664416019125772],
    [-1.6557245568102372, 1.8296227429536165, 0.3149166568125269, 2.0060299851343903,
     -0.47658844052984795, -0.6922223352259484, 0.10334396638930234, 0.40164387415167063],
    [0.024402804052290394, -0.20373911462894684, -1.1915145899438386, -0.5871143830070286,
     -0.15287618267671335, -0.6354157278375276, -0.4490211972718642, -0.9346130176336953],
    [-0.9859833065816549, 0.4934024481614442, 0.598984515277247, 1.2772415956773047,
     0.7227133650815794, 1.424714875402902, 0.6632048847826828, -1.3065773206599296],
]
APPLY_INTERLEAVED = [
    [-2.310411800234176, -0.3732508612577643, -1.0608166785462863, 0.9995093547811761,
     -0.8840250045832653, -1.2755469302148053, -0.623224579866079, -0.8664416019125772],
    [-1.9821221338442006, -0.2670109664574831, -0.3198677427578042, 2.018330777545087,
     1.2525521148965693, -1.107367004373164, 0.06066551253884415, 0.3401055338781892],
    [-0.5637149066355125, -0.326848997351716, 0.739953067293703, -1.2533388577084228,
     -0.11834385532954718, 0.17498390486365623, 0.3057478009947314, -0.7922507767495408],
    [-1.0018673666305513, 0.278673062291877, -1.438038583600421, -1.0364340050436058,
     1.108911177944119, -1.2069197340484021, 0.9772756175390497, -0.19973860408582483],
]
APPLY_HALF_SCALED = [
    [-3.465617700351264, -0.5598762918866464, -1.5912250178194294, 1.499264032171764,
     -1.326037506874898, -1.913320395322208, -0.9348368697991185, -1.299662402868866],
    [-2.483586835215356, 2.7444341144304247, 0.47237498521879034, 3.0090449777015857,
     -0.7148826607947719, -1.0383335028389227, 0.1550159495839535, 0.602465811227506],
    [0.03660420607843559, -0.30560867194342023, -1.787271884915758, -0.8806715745105427,
     -0.22931427401506999, -0.9531235917562916, -0.6735317959077964, -1.4019195264505429],
    [-1.4789749598724822, 0.7401036722421661, 0.8984767729158708, 1.915862393515957,
     1.0840700476223688, 2.137072313104353, 0.9948073271740243, -1.9598659809898948],
]
APPLY_INTERLEAVED_SCALED = [
    [-3.465617700351264, -0.5598762918866464, -1.5912250178194294, 1.499264032171764,
     -1.326037506874898, -1.913320395322208, -0.9348368697991185, -1.299662402868866],
    [-2.973183200766301, -0.4005164496862248, -0.4798016141367063, 3.0274961663176305,
     1.878828172344854, -1.6610505065597463, 0.09099826880826622, 0.5101583008172837],
    [-0.8455723599532687, -0.49027349602757403, 1.1099296009405546, -1.8800082865626342,
     -0.17751578299432075, 0.2624758572954843, 0.458621701492097, -1.188376165124311],
    [-1.5028010499458266, 0.41800959343781546, -2.157057875400631, -1.5546510075654085,
     1.6633667669161785, -1.8103796010726034, 1.4659134263085747, -0.2996079061287372],
]
# fmt: on


@pytest.mark.parametrize("case", HF_FREQUENCIES, ids=[c[0] for c in HF_FREQUENCIES])
def test_frequencies_match_hugging_face(case):
    _, head_dim, base, scaling, seq_len, attention_factor, expected = case
    inv_freq, factor = rope.rope_frequencies(head_dim, base, scaling, seq_len=seq_len)
    assert inv_freq.shape == (head_dim // 2,)
    pairs = list(expected)
    assert_close(inv_freq[pairs], [expected[i] for i in pairs], atol=0, rtol=HF_RTOL)
    assert factor == pytest.approx(attention_factor, rel=1e-15)  # Python floats on both sides


@pytest.mark.parametrize(
    "layout, scale, expected",
    [("half", 1.0, APPLY_HALF), ("interleaved", 1.0, APPLY_INTERLEAVED), ("half", 1.5, APPLY_HALF_SCALED), ("interleaved", 1.5, APPLY_INTERLEAVED_SCALED)],
)
def test_apply_rope_matches_hugging_face_llama_and_gptj(layout, scale, expected):
    # half: transformers' Llama apply_rotary_pos_emb (rotate_half); interleaved: GPT-J's (rotate_every_two).
    out = rope.apply_rope(np.array(APPLY_X), [0, 1, 5, 100000], rope.default_frequencies(8, 100.0), layout=layout, attention_factor=scale)
    assert_close(out, expected, atol=1e-12)


# ------------------------------------------------------------------------------------------------
# Hand-worked cases


def test_frequencies_by_hand_head_dim_4_base_100():
    # theta_i = 100^(-2i/4): [100^0, 100^-0.5] = [1, 0.1]
    inv_freq, factor = rope.rope_frequencies(4, 100.0)
    assert_close(inv_freq, [1.0, 0.1], atol=0, rtol=1e-15)
    assert factor == 1.0
    assert_close(rope.rope_wavelengths(inv_freq), [2 * math.pi, 20 * math.pi])
    assert_close(rope.rope_angles([0, 3, 2.5], inv_freq), [[0, 0], [3, 0.3], [2.5, 0.25]], atol=1e-15)
    assert_close(rope.rope_frequencies(2)[0], [1.0], atol=0)  # one pair: theta_0 = 1 whatever the base


def test_apply_rope_by_hand_head_dim_4():
    inv_freq = rope.default_frequencies(4, 100.0)  # [1, 0.1]
    # half layout pairs (0, 2) and (1, 3); e_0 at position 3 turns by 3 rad inside pair 0
    out = rope.apply_rope(np.eye(4), [3, 3, 3, 3], inv_freq)
    c0, s0, c1, s1 = math.cos(3), math.sin(3), math.cos(0.3), math.sin(0.3)
    expected_half = [[c0, 0, s0, 0], [0, c1, 0, s1], [-s0, 0, c0, 0], [0, -s1, 0, c1]]
    assert_close(out, expected_half, atol=1e-15)
    # interleaved pairs (0, 1) and (2, 3)
    out = rope.apply_rope(np.eye(4), [3, 3, 3, 3], inv_freq, layout="interleaved")
    assert_close(out, [[c0, s0, 0, 0], [-s0, c0, 0, 0], [0, 0, c1, s1], [0, 0, -s1, c1]], atol=1e-15)


@pytest.mark.parametrize("position, theta", [(2, 1.0), (2, 0.25), (-7, 0.5), (1e6 + 0.5, 1e-3)])
def test_interleaved_at_d2_is_the_2x2_rotation_matrix(position, theta):
    x = np.array([[3.0, 4.0]])
    angle = position * theta
    rotation = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    for layout in rope.LAYOUTS:  # at d = 2 both layouts pair dimension 0 with 1
        assert_close(rope.apply_rope(x, [position], [theta], layout=layout)[0], rotation @ x[0], atol=1e-12)


def test_linear_by_hand():
    inv_freq, factor = rope.rope_frequencies(4, 100.0, RopeScaling("linear", 4.0, 512))
    assert_close(inv_freq, [0.25, 0.025], atol=0, rtol=1e-15)
    assert factor == 1.0


def test_ntk_aware_base_by_hand_and_its_purpose():
    assert ntk_aware_base(1e4, 4.0, 4) == pytest.approx(1e4 * 4.0**2)  # exponent d/(d-2) = 2
    assert ntk_aware_base(1e4, 1.0, 64) == 1e4
    # the slowest pair is divided by exactly the factor, the fastest is untouched
    d, s = 64, 8.0
    before, after = rope.default_frequencies(d, 1e4), rope.default_frequencies(d, ntk_aware_base(1e4, s, d))
    assert after[0] == before[0] == 1.0
    assert_close(after[-1], before[-1] / s)


def test_dynamic_is_the_ntk_base_of_a_growing_factor_and_unchanged_before_the_original_length():
    scaling = RopeScaling("dynamic", 4.0, 1024)
    # n = 4096 = 4 L: s n / L - (s - 1) = 16 - 3 = 13 = 1 + s (n/L - 1)
    assert rope.dynamic_base(32, 1e4, scaling, 4096) == pytest.approx(ntk_aware_base(1e4, 13.0, 32), rel=1e-15)
    assert rope.dynamic_base(32, 1e4, scaling, 1280) == pytest.approx(ntk_aware_base(1e4, 2.0, 32), rel=1e-15)  # 1 + 4 * 0.25
    for seq_len in (None, 1, 1000, 1024):
        assert rope.dynamic_base(32, 1e4, scaling, seq_len) == 1e4
        assert_close(rope.rope_frequencies(32, 1e4, scaling, seq_len=seq_len)[0], rope.default_frequencies(32, 1e4), atol=0)
    assert rope.dynamic_base(32, 1e4, scaling, 1025) > 1e4
    # head_dim 2: one pair at frequency 1 whatever the base (Hugging Face divides by zero here)
    assert_close(rope.rope_frequencies(2, 1e4, scaling, seq_len=10_000)[0], [1.0], atol=0)


def test_yarn_by_hand_head_dim_16():
    # find_correction_dim: i(r) = 16 ln(2048 / (2 pi r)) / (2 ln 1e4); i(32) = 2.016 -> floor 2, i(1) = 5.026 -> ceil 6
    scaling = RopeScaling("yarn", 4.0, 2048)
    assert rope.yarn_correction_range(16, 1e4, scaling) == (2.0, 6.0)
    low = 16 * math.log(2048 / (2 * math.pi * 32)) / (2 * math.log(1e4))
    high = 16 * math.log(2048 / (2 * math.pi)) / (2 * math.log(1e4))
    assert rope.yarn_correction_range(16, 1e4, RopeScaling("yarn", 4.0, 2048, truncate=False)) == pytest.approx((low, high), rel=1e-15)
    # ramp (i - 2) / 4 over pairs 0..7, ratio = 1 - ramp * (1 - 1/4)
    ramp = np.clip((np.arange(8) - 2) / 4, 0, 1)
    inv_freq, factor = rope.rope_frequencies(16, 1e4, scaling)
    assert_close(inv_freq / rope.default_frequencies(16, 1e4), 1 - ramp * 0.75)
    assert factor == pytest.approx(0.1 * math.log(4.0) + 1)
    assert rope.rope_frequencies(16, 1e4, RopeScaling("yarn", 1.0, 2048))[1] == 1.0  # get_mscale(1) = 1


def test_llama3_by_hand_head_dim_16():
    # wavelengths 2 pi 10^(i/2); bands: below 2048/4 = 512 kept, above 2048/1 interpolated
    scaling = RopeScaling("llama3", 8.0, 2048)
    theta = rope.default_frequencies(16, 1e4)
    wavelength = 2 * math.pi * 10 ** (np.arange(8) / 2)
    assert_close(rope.rope_wavelengths(theta), wavelength)
    g = (2048 / wavelength[4:6] - 1.0) / (4.0 - 1.0)  # pairs 4 and 5 lie between 512 and 2048
    expected = np.concatenate([theta[:4], (1 - g) * theta[4:6] / 8 + g * theta[4:6], theta[6:] / 8])
    inv_freq, factor = rope.rope_frequencies(16, 1e4, scaling)
    assert_close(inv_freq, expected)
    assert factor == 1.0


# ------------------------------------------------------------------------------------------------
# Properties


rope_settings = st.tuples(st.sampled_from([2, 4, 8, 16, 64, 128, 256]), st.sampled_from([10.0, 1e4, 5e5, 1e8]))


@settings(max_examples=60, deadline=None)
@given(dims=rope_settings, layout=st.sampled_from(rope.LAYOUTS), seed=st.integers(0, 10_000), far=st.floats(0, 1e9))
def test_rotation_preserves_every_row_norm(dims, layout, seed, far):
    head_dim, base = dims
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(5, head_dim))
    positions = np.array([0.0, 1.0, 0.5, -3.0, far])
    out = rope.apply_rope(x, positions, rope.default_frequencies(head_dim, base), layout=layout)
    assert_close(np.linalg.norm(out, axis=1), np.linalg.norm(x, axis=1))


@settings(max_examples=40, deadline=None)
@given(dims=rope_settings, layout=st.sampled_from(rope.LAYOUTS), seed=st.integers(0, 10_000))
def test_score_depends_only_on_the_offset(dims, layout, seed):
    # q at m + s against k at n + s for shifts s up to 100000. Angles of ~1e5 rad carry ~1e-11 rad of
    # float64 rounding, so scores agree to 1e-9 * |q| |k|.
    head_dim, base = dims
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, head_dim))
    inv_freq = rope.default_frequencies(head_dim, base)
    m, n = rng.integers(0, 50, size=(2, 8)).astype(float)
    tol = 1e-9 * np.linalg.norm(q) * np.linalg.norm(k)

    def scores(shift):
        qm = rope.apply_rope(np.tile(q, (8, 1)), m + shift, inv_freq, layout=layout)
        kn = rope.apply_rope(np.tile(k, (8, 1)), n + shift, inv_freq, layout=layout)
        return np.sum(qm * kn, axis=1)

    reference = scores(0.0)
    for shift in (1.0, 7.5, 1234.0, 100_000.0):
        assert_close(scores(shift), reference, atol=tol, rtol=0)
    assert_close(reference, [rope.relative_score(q, k, inv_freq, [mi - ni], layout=layout)[0] for mi, ni in zip(m, n, strict=True)], atol=tol, rtol=0)


@pytest.mark.parametrize("layout", rope.LAYOUTS)
def test_score_by_offset_is_the_same_curve_from_any_start(layout):
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=(2, 64))
    inv_freq = rope.default_frequencies(64, 1e4)
    offsets = np.arange(-300, 3000)
    closed_form = rope.relative_score(q, k, inv_freq, offsets, layout=layout)
    tol = 1e-9 * np.linalg.norm(q) * np.linalg.norm(k)  # as above: float64 rounding of angles near 1e5
    for start in (0.0, 17.0, 100_000.0):
        assert_close(rope.score_by_offset(q, k, inv_freq, offsets, start=start, layout=layout), closed_form, atol=tol, rtol=0)
    # offset = query position - key position, with the key at start
    by_hand = rope.apply_rope(q[None], [505.0], inv_freq, layout=layout)[0] @ rope.apply_rope(k[None], [500.0], inv_freq, layout=layout)[0]
    assert_close(rope.score_by_offset(q, k, inv_freq, [5], start=500, layout=layout)[0], by_hand)


def test_all_ones_decay_is_a_sum_of_cosines():
    inv_freq = rope.default_frequencies(128, 1e4)
    offsets = np.arange(0, 5000, 7.0)
    ones = np.ones(128)
    expected = 2 * np.cos(offsets[:, None] * inv_freq[None, :]).sum(axis=1)
    for layout in rope.LAYOUTS:
        assert_close(rope.relative_score(ones, ones, inv_freq, offsets, layout=layout), expected, atol=1e-10)
    assert rope.relative_score(ones, ones, inv_freq, [0])[0] == pytest.approx(128)


def test_relative_score_of_a_batch_is_the_mean_of_its_rows():
    rng = np.random.default_rng(5)
    q = rng.normal(size=(10, 32))
    inv_freq = rope.default_frequencies(32, 500.0)
    offsets = np.array([0.0, 1.0, 10.0, 1000.0])
    rows = [rope.score_by_offset(q[b], q[b], inv_freq, offsets, start=40.0) for b in range(10)]
    assert_close(rope.relative_score(q, q, inv_freq, offsets), np.mean(rows, axis=0), atol=1e-10)
    assert_close(rope.relative_score(q, q, inv_freq, [0.0])[0], np.mean(np.sum(q * q, axis=1)))  # offset 0: mean |q|^2


@settings(max_examples=40, deadline=None)
@given(head_dim=st.sampled_from([2, 4, 6, 16, 64]), seed=st.integers(0, 10_000))
def test_layouts_differ_by_the_fixed_permutation(head_dim, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(6, head_dim))
    positions = rng.normal(scale=1000, size=6)
    inv_freq = rope.default_frequencies(head_dim, 1e4)
    perm = rope.layout_permutation(head_dim)
    interleaved = rope.apply_rope(x, positions, inv_freq, layout="interleaved")
    assert_close(rope.apply_rope(x[:, perm], positions, inv_freq, layout="half"), interleaved[:, perm], atol=0, rtol=0)
    back = np.argsort(perm)
    assert_close(rope.apply_rope(x[:, perm], positions, inv_freq, layout="half")[:, back], interleaved, atol=0, rtol=0)


def test_layout_permutation_values():
    assert list(rope.layout_permutation(8)) == [0, 2, 4, 6, 1, 3, 5, 7]
    assert list(rope.layout_permutation(2)) == [0, 1]


@pytest.mark.parametrize("layout", rope.LAYOUTS)
def test_attention_factor_scales_outputs_and_scores(layout):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(7, 16))
    positions = np.arange(7) * 300.0
    inv_freq, c = rope.rope_frequencies(16, 1e4, RopeScaling("yarn", 16.0, 256))
    assert c == pytest.approx(0.1 * math.log(16) + 1)
    assert_close(rope.apply_rope(x, positions, inv_freq, layout=layout, attention_factor=c), c * rope.apply_rope(x, positions, inv_freq, layout=layout))
    offsets = np.arange(50.0)
    assert_close(
        rope.relative_score(x[0], x[1], inv_freq, offsets, layout=layout, attention_factor=c),
        c**2 * rope.relative_score(x[0], x[1], inv_freq, offsets, layout=layout),
        atol=1e-12,
    )


@pytest.mark.parametrize("factor", [1.0, 2.0, 4.0, 40.0])
def test_linear_scaling_equals_dividing_positions(factor):
    # angles p * (theta / s) vs (p / s) * theta differ by rounding only: ~1e-16 * 1e4 rad
    rng = np.random.default_rng(2)
    x = rng.normal(size=(50, 32))
    positions = rng.uniform(0, 1e4, size=50)
    scaled, _ = rope.rope_frequencies(32, 1e4, RopeScaling("linear", factor, 2048))
    for layout in rope.LAYOUTS:
        assert_close(
            rope.apply_rope(x, positions, scaled, layout=layout),
            rope.apply_rope(x, positions / factor, rope.default_frequencies(32, 1e4), layout=layout),
            atol=1e-10,
        )


def test_batched_input_is_each_slice_rotated():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 5, 8))  # (B, H, L, d)
    positions = [0, 1, 2, 100, 1e5]
    inv_freq = rope.default_frequencies(8, 1e4)
    out = rope.apply_rope(x, positions, inv_freq, layout="interleaved")
    assert out.shape == x.shape
    assert_close(out[1, 2], rope.apply_rope(x[1, 2], positions, inv_freq, layout="interleaved"), atol=0)


def test_long_input_is_stitched_exactly_across_blocks():
    # head_dim 256 and 131072 positions: computed a block of positions at a time; rows at block edges
    # and far positions equal the row rotated on its own.
    rng = np.random.default_rng(6)
    x = rng.normal(size=(131072, 256))
    inv_freq = rope.default_frequencies(256, 1e4)
    out = rope.apply_rope(x, np.arange(131072), inv_freq)
    for row in (0, 1023, 1024, 65537, 131071):
        assert_close(out[row], rope.apply_rope(x[row : row + 1], [row], inv_freq)[0], atol=0)
    assert_close(np.linalg.norm(out[-3:], axis=1), np.linalg.norm(x[-3:], axis=1))


# ------------------------------------------------------------------------------------------------
# Scaling regions


def test_scaling_regions_llama3_bands():
    regions = rope.scaling_regions(128, 5e5, RopeScaling("llama3", 8.0, 8192))
    assert regions.edges == (2048.0, 8192.0)  # L / high_freq_factor, L / low_freq_factor
    labels = list(regions.label)
    assert labels == ["kept"] * 29 + ["blended"] * 6 + ["interpolated"] * 29
    assert np.all(regions.wavelength[:29] < 2048) and np.all(regions.wavelength[35:] > 8192)
    assert_close(regions.ratio[35:], 1 / 8)
    assert np.all((regions.ratio[29:35] > 1 / 8) & (regions.ratio[29:35] < 1))


def test_scaling_regions_yarn_by_hand():
    regions = rope.scaling_regions(16, 1e4, RopeScaling("yarn", 4.0, 2048))
    assert list(regions.label) == ["kept"] * 3 + ["blended"] * 3 + ["interpolated"] * 2
    assert_close(regions.ratio, [1, 1, 1, 0.8125, 0.625, 0.4375, 0.25, 0.25])
    assert_close(regions.edges, [2 * math.pi * 10, 2 * math.pi * 1000])  # wavelengths of pairs 2 and 6
    # without truncation the ends are where a pair turns beta_fast and beta_slow times over L
    untruncated = rope.scaling_regions(16, 1e4, RopeScaling("yarn", 4.0, 2048, truncate=False))
    assert_close(untruncated.edges, [2048 / 32, 2048 / 1])


def test_scaling_regions_other_kinds():
    none = rope.scaling_regions(16, 1e4)
    assert set(none.label) == {"kept"} and none.edges == ()
    assert_close(none.ratio, np.ones(8), atol=0)
    linear = rope.scaling_regions(16, 1e4, RopeScaling("linear", 4.0, 2048))
    assert set(linear.label) == {"interpolated"}
    assert set(rope.scaling_regions(16, 1e4, RopeScaling("dynamic", 2.0, 2048)).label) == {"kept"}
    # n = 3072: effective factor 1 + 2 (3072/2048 - 1) = 2, the NTK-aware base of factor 2
    dynamic = rope.scaling_regions(16, 1e4, RopeScaling("dynamic", 2.0, 2048), seq_len=3072)
    assert list(dynamic.label) == ["kept"] + ["blended"] * 6 + ["interpolated"]
    assert_close(dynamic.ratio[-1], 0.5)
    longer = rope.scaling_regions(16, 1e4, RopeScaling("dynamic", 2.0, 2048), seq_len=8192)  # factor 7: slow pairs / more than 2
    assert list(longer.label) == ["kept"] + ["blended"] * 2 + ["interpolated"] * 5 and longer.ratio[-1] < 0.5
    assert set(rope.scaling_regions(16, 1e4, RopeScaling("linear", 1.0, 2048)).label) == {"kept"}


# ------------------------------------------------------------------------------------------------
# Bad input: ValueError with a sentence


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(kind="xpos"), "choose one of linear, ntk, dynamic, yarn, llama3"),
        (dict(kind="linear", factor=0.5), "would shrink the context"),
        (dict(kind="linear", factor=float("nan")), "finite number"),
        (dict(kind="yarn", factor=float("inf")), "finite number"),
        (dict(kind="linear", original_max_len=0), "original_max_len must be a whole number of at least 1"),
        (dict(kind="linear", original_max_len=100.5), "original_max_len must be a whole number"),
        (dict(kind="yarn", beta_fast=1.0, beta_slow=1.0), "beta_fast must be greater than beta_slow"),
        (dict(kind="yarn", beta_fast=1.0, beta_slow=32.0), "beta_fast must be greater than beta_slow"),
        (dict(kind="yarn", beta_fast=32.0, beta_slow=0.0), "beta_slow must be above 0"),
        (dict(kind="yarn", beta_fast=float("inf")), "beta_fast must be a finite number"),
        (dict(kind="yarn", attention_factor=0.0), "attention_factor must be above 0"),
        (dict(kind="yarn", attention_factor=float("nan")), "attention_factor must be a finite number"),
        (dict(kind="llama3", low_freq_factor=4.0, high_freq_factor=4.0), "low_freq_factor must be below high_freq_factor"),
        (dict(kind="llama3", low_freq_factor=5.0, high_freq_factor=4.0), "low_freq_factor must be below high_freq_factor"),
        (dict(kind="llama3", low_freq_factor=0.0), "low_freq_factor must be above 0"),
        (dict(kind="llama3", high_freq_factor=float("nan")), "high_freq_factor must be a finite number"),
    ],
)
def test_bad_scaling_raises_value_error_with_a_sentence(kwargs, message):
    full = dict(factor=4.0, original_max_len=2048) | kwargs
    with pytest.raises(ValueError, match=message):
        RopeScaling(**full)


def test_scaling_checks_only_what_the_kind_uses():
    RopeScaling("linear", 2.0, 100, beta_fast=1.0, beta_slow=2.0, low_freq_factor=9.0)  # yarn/llama3 fields unused
    assert RopeScaling("linear", 2, 100.0).original_max_len == 100


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(head_dim=7), "RoPE rotates pairs of dimensions"),
        (dict(head_dim=0), "head_dim must be a whole number of at least 2"),
        (dict(head_dim=8.5), "head_dim must be a whole number"),
        (dict(base=1.0), "base must be a finite number above 1"),
        (dict(base=0.5), "base must be a finite number above 1"),
        (dict(base=float("nan")), "base must be a finite number above 1"),
        (dict(seq_len=0), "seq_len must be a whole number of at least 1"),
        (dict(seq_len=2.5), "seq_len must be a whole number"),
        (dict(scaling={"rope_type": "yarn"}), "scaling must be a RopeScaling or None"),
    ],
)
def test_bad_frequency_arguments_raise_value_error_with_a_sentence(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rope.rope_frequencies(**(dict(head_dim=8) | kwargs))


def test_bad_ntk_and_layout_arguments():
    with pytest.raises(ValueError, match="at least 4"):
        ntk_aware_base(1e4, 2.0, 2)
    with pytest.raises(ValueError, match="shrink the context"):
        ntk_aware_base(1e4, 0.5, 8)
    with pytest.raises(ValueError, match="pairs of dimensions"):
        rope.layout_permutation(5)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda f: rope.apply_rope(np.ones((3, 8)), [0, 1, 2], f, layout="diagonal"), "layout must be one of"),
        (lambda f: rope.apply_rope(np.ones((3, 6)), [0, 1, 2], f), "RoPE needs d = 2 \\* len\\(inv_freq\\)"),
        (lambda f: rope.apply_rope(np.ones((3, 8)), [0, 1], f), "3 positions \\(rows\\) but 2 positions"),
        (lambda f: rope.apply_rope(np.ones(8), [0], f), "shape \\(L, d\\)"),
        (lambda f: rope.apply_rope(np.ones((2, 8)), [0, np.inf], f), "positions must be finite"),
        (lambda f: rope.apply_rope(np.ones((2, 8)), [0, 1], f, attention_factor=float("nan")), "attention_factor must be a finite number"),
        (lambda f: rope.score_by_offset(np.ones(8), np.ones(6), f, [0]), "same width"),
        (lambda f: rope.relative_score(np.ones(6), np.ones(6), f, [0]), "d = 2 \\* len\\(inv_freq\\)"),
        (lambda f: rope.rope_wavelengths([1.0, 0.0]), "positive"),
    ],
)
def test_bad_apply_arguments_raise_value_error_with_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call(rope.default_frequencies(8, 1e4))


# ------------------------------------------------------------------------------------------------
# Every Hugging Face kind, with partial rotary: the grid of tests/core/schemes/data/rope_reference.json
#
# 163 cases made by scripts/make_rope_reference.py with transformers 5.23.0's own ROPE_INIT_FUNCTIONS (and the
# default of LlamaRotaryEmbedding / GPTNeoXRotaryEmbedding): linear, dynamic, yarn (betas, truncate, mscale,
# attention_factor), longrope (short / long switch, factor, attention_factor), llama3, proportional, each at
# partial_rotary_factor 1, 0.5, 0.25 and 0.4 where transformers accepts it. The frequencies were computed in float32,
# ours in float64: compared at rtol HF_RTOL (1e-6; the largest gap seen is 9.5e-7, case 144, a blended Llama 3 pair at
# p = 0.4). Attention factors are Python floats on
# both sides: rel 1e-12. The cases transformers fails on (an odd rotary width for yarn and longrope) must raise here.

REFERENCE = json.loads((Path(__file__).parent / "data" / "rope_reference.json").read_text())
GRID = REFERENCE["cases"]


def scaling_of(case: dict) -> RopeScaling | None:
    """The RopeScaling for a reference case: transformers' config keys, with the defaults it fills in
    (factor = max_position_embeddings / original for yarn and longrope, original = max_position_embeddings)."""
    kind, s, mpe = case["kind"], case["scaling"], case["max_position_embeddings"]
    if kind == "default":
        return None
    original = s.get("original_max_position_embeddings", mpe)
    factor = s.get("factor") or (mpe / original if kind in ("yarn", "longrope") else 1.0)
    keys = ("beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor", "attention_factor", "truncate", "mscale", "mscale_all_dim")
    keys += ("short_factor", "long_factor")
    extra = {k: s[k] for k in keys if k in s}
    return RopeScaling(kind, factor, original, **extra)


@pytest.mark.parametrize("case", GRID, ids=[f"{c['id']}-{c['kind']}-hd{c['head_dim']}-p{c['partial_rotary_factor']}-seq{c['seq_len']}" for c in GRID])
def test_every_kind_and_partial_factor_matches_hugging_face(case):
    inv_freq, factor = rope.rope_frequencies(
        case["head_dim"], case["base"], scaling_of(case), seq_len=case["seq_len"], partial_rotary_factor=case["partial_rotary_factor"]
    )
    expected = np.array(case["inv_freq"])
    assert inv_freq.shape == expected.shape == (case["n_freqs"],)
    assert np.array_equal(inv_freq == 0, expected == 0)  # proportional: the same pairs never turn
    assert_close(inv_freq, expected, atol=0, rtol=HF_RTOL)
    assert factor == pytest.approx(case["attention_factor"], rel=1e-12)


def test_the_reference_grid_covers_every_kind_with_partial_factors():
    # a kind whose record names a Hugging Face function is one of transformers' rope types, and the grid tries it
    covered = {(c["kind"], c["partial_rotary_factor"]) for c in GRID}
    referenced = {name for name, record in rope.SCALING_KINDS.items() if record.reference}
    for kind in (*referenced, "default"):
        assert {(kind, 1.0), (kind, 0.5), (kind, 0.25)} <= covered, kind
    assert REFERENCE["transformers_version"] == "5.23.0" and len(GRID) == 163
    assert set(REFERENCE["kinds_in_ROPE_INIT_FUNCTIONS"]) == referenced  # "ntk" names none: a fixed base change, no rope type of theirs


@pytest.mark.parametrize("case", REFERENCE["failed_cases"], ids=lambda c: f"{c['kind']}-hd{c['head_dim']}-p{c['partial_rotary_factor']}")
def test_what_hugging_face_fails_on_is_a_value_error(case):
    rope_params = {k: v for k, v in case["rope"].items() if k != "rope_type"}
    mpe = 131_072
    scaling = scaling_of({"kind": case["kind"], "scaling": rope_params, "max_position_embeddings": mpe})
    with pytest.raises(ValueError, match="even number of rotating dimensions.*is odd"):
        rope.rope_frequencies(case["head_dim"], case["base"], scaling, seq_len=case["seq_len"], partial_rotary_factor=case["partial_rotary_factor"])


NEOX_APPLY = [c for c in REFERENCE["apply_cases"] if c["kind"] == "gpt-neox-partial"]


@pytest.mark.parametrize("case", NEOX_APPLY, ids=lambda c: f"hd{c['head_dim']}-p{c['partial_rotary_factor']}")
def test_partial_rotation_matches_gpt_neox(case):
    # GPT-NeoX's apply_rotary_pos_emb, fed float64 cos/sin: only the rotation is compared (1e-12). Its
    # rotary_dim = cos.shape[-1] = 2 * len(inv_freq): with an odd int(head_dim * p) one more dimension turns.
    head_dim, p = case["head_dim"], case["partial_rotary_factor"]
    ours, _ = rope.rope_frequencies(head_dim, case["base"], partial_rotary_factor=p)
    assert_close(ours, case["inv_freq"], atol=0, rtol=HF_RTOL)
    out = rope.apply_rope(np.array(case["x"]), case["positions"], case["inv_freq"], layout="half")
    assert_close(out, case["out"], atol=1e-12)
    turned = 2 * len(case["inv_freq"])
    assert_close(out[:, turned:], np.array(case["x"])[:, turned:], atol=0, rtol=0)


# ------------------------------------------------------------------------------------------------
# New kinds and partial rotary by hand


def test_partial_rotary_by_hand_head_dim_8():
    # p = 0.5: r = 4 dimensions rotate with theta_i = 100^(-2i/4) = [1, 0.1]; dimensions 4..7 pass through
    inv_freq, factor = rope.rope_frequencies(8, 100.0, partial_rotary_factor=0.5)
    assert_close(inv_freq, [1.0, 0.1], atol=0, rtol=1e-15) and factor == 1.0
    assert rope.rotary_dim(8, 0.5) == 4 and rope.rotary_dim(80, 0.4) == 32 and rope.rotary_dim(64, 0.4) == 25
    c0, s0, c1, s1 = math.cos(3), math.sin(3), math.cos(0.3), math.sin(0.3)
    x = np.eye(8)
    half = rope.apply_rope(x, [3] * 8, inv_freq)  # pairs (0, 2), (1, 3)
    assert_close(half[:4, :4], [[c0, 0, s0, 0], [0, c1, 0, s1], [-s0, 0, c0, 0], [0, -s1, 0, c1]], atol=1e-15)
    inter = rope.apply_rope(x, [3] * 8, inv_freq, layout="interleaved")  # pairs (0, 1), (2, 3)
    assert_close(inter[:4, :4], [[c0, s0, 0, 0], [-s0, c0, 0, 0], [0, 0, c1, s1], [0, 0, -s1, c1]], atol=1e-15)
    for out in (half, inter):
        assert_close(out[4:], x[4:], atol=0, rtol=0) and assert_close(out[:, 4:], x[:, 4:], atol=0, rtol=0)
    scaled = rope.apply_rope(x, [3] * 8, inv_freq, attention_factor=2.0)  # c scales the turning part only
    assert_close(scaled[:4], 2 * half[:4], atol=1e-15) and assert_close(scaled[4:], x[4:], atol=0, rtol=0)


def test_partial_rotary_applies_to_every_kind():
    # every rule works over r = int(d p): linear at p = 0.5 on d = 8 is the default of r = 4 divided by s
    inv_freq, _ = rope.rope_frequencies(8, 100.0, RopeScaling("linear", 4.0, 16), partial_rotary_factor=0.5)
    assert_close(inv_freq, [0.25, 0.025], atol=0, rtol=1e-15)
    ntk, _ = rope.rope_frequencies(16, 1e4, RopeScaling("ntk", 4.0, 16), partial_rotary_factor=0.5)
    assert_close(ntk, rope.default_frequencies(8, ntk_aware_base(1e4, 4.0, 8)), atol=0, rtol=1e-15)
    assert rope.dynamic_base(16, 1e4, RopeScaling("dynamic", 2.0, 100), 300, 0.5) == pytest.approx(1e4 * 5 ** (8 / 6), rel=1e-15)
    assert rope.yarn_correction_range(128, 1e4, RopeScaling("yarn", 4.0, 4096), 0.25) == rope.yarn_correction_range(32, 1e4, RopeScaling("yarn", 4.0, 4096))


def test_proportional_by_hand():
    # d = 8, p = 0.5: k = int(0.5 * 8 // 2) = 2 pairs turn with 100^(-2i/8), divided by s = 2; pairs 2, 3 never turn
    scaling = RopeScaling("proportional", 2.0, 1)
    inv_freq, factor = rope.rope_frequencies(8, 100.0, scaling, partial_rotary_factor=0.5)
    assert_close(inv_freq, [0.5, 100 ** -0.25 / 2, 0.0, 0.0], atol=0, rtol=1e-15) and factor == 1.0
    # the turning pairs keep a full head's exponents, unlike partial rotary over r = 4
    partial, _ = rope.rope_frequencies(8, 100.0, partial_rotary_factor=0.5)
    assert inv_freq[1] * 2 > partial[1]
    x = np.random.default_rng(4).standard_normal((5, 8))
    out = rope.apply_rope(x, [0, 1, 2, 50, 1e5], inv_freq)
    for d in (2, 3, 6, 7):  # pairs 2 and 3 of the half layout: dimensions 2, 3 and 6, 7 stay put
        assert_close(out[:, d], x[:, d], atol=0, rtol=0)
    assert_close(rope.rope_frequencies(8, 100.0, RopeScaling("proportional", 1.0, 1))[0], rope.default_frequencies(8, 100.0), atol=0)  # p = 1
    regions = rope.scaling_regions(8, 100.0, scaling, partial_rotary_factor=0.5)
    assert list(regions.label) == ["interpolated", "interpolated", "not rotated", "not rotated"]
    assert_close(regions.ratio, [0.5, 0.5, 0, 0])


def test_longrope_by_hand_and_its_switch_at_original_plus_one():
    # d = 4, base 100: theta = [1, 0.1]; short factors [1, 2], long [3, 4]; L = 64, s = 16
    scaling = RopeScaling("longrope", 16.0, 64, short_factor=[1.0, 2.0], long_factor=[3.0, 4.0])
    c = math.sqrt(1 + math.log(16) / math.log(64))  # sqrt(1 + 4/6)
    for seq_len in (None, 1, 63, 64):
        inv_freq, factor = rope.rope_frequencies(4, 100.0, scaling, seq_len=seq_len)
        assert_close(inv_freq, [1.0, 0.05], atol=0, rtol=1e-15) and factor == pytest.approx(c, rel=1e-15)
    for seq_len in (65, 10_000):
        inv_freq, factor = rope.rope_frequencies(4, 100.0, scaling, seq_len=seq_len)
        assert_close(inv_freq, [1 / 3, 0.025], atol=0, rtol=1e-15) and factor == pytest.approx(c, rel=1e-15)
    assert rope.longrope_attention_factor(RopeScaling("longrope", 1.0, 64, short_factor=[1.0], long_factor=[1.0])) == 1.0
    given = RopeScaling("longrope", 16.0, 64, short_factor=[1.0, 2.0], long_factor=[3.0, 4.0], attention_factor=1.25)
    assert rope.rope_frequencies(4, 100.0, given)[1] == 1.25
    regions = rope.scaling_regions(4, 100.0, scaling, seq_len=65)
    assert list(regions.label) == ["blended", "blended"] and regions.edges == ()
    assert list(rope.scaling_regions(4, 100.0, RopeScaling("longrope", 2.0, 64, short_factor=[1.0, 4.0], long_factor=[1, 4])).label) == ["kept", "interpolated"]


def test_yarn_mscale_and_mscale_all_dim():
    s = 40.0
    both = RopeScaling("yarn", s, 4096, mscale=1.0, mscale_all_dim=0.5)
    assert rope.yarn_attention_factor(both) == pytest.approx((0.1 * math.log(s) + 1) / (0.05 * math.log(s) + 1), rel=1e-15)
    assert rope.yarn_attention_factor(RopeScaling("yarn", s, 4096, mscale=1.0, mscale_all_dim=1.0)) == 1.0  # DeepSeek-V3
    assert rope.yarn_attention_factor(RopeScaling("yarn", s, 4096, mscale=0.707)) == pytest.approx(0.1 * math.log(s) + 1, rel=1e-15)  # alone: ignored
    assert rope.yarn_attention_factor(RopeScaling("yarn", s, 4096, mscale_all_dim=0.707)) == pytest.approx(0.1 * math.log(s) + 1, rel=1e-15)
    assert rope.yarn_attention_factor(RopeScaling("yarn", s, 4096, mscale=1.0, mscale_all_dim=0.5, attention_factor=1.1)) == 1.1  # given wins
    assert rope.yarn_mscale(40.0, 1.0) ** 2 == pytest.approx(1.8738542070926265, rel=1e-12)  # DeepSeek's softmax multiplier
    assert rope.yarn_mscale(1.0, 5.0) == 1.0
    # the frequencies do not depend on mscale
    assert_close(rope.rope_frequencies(64, 1e4, both)[0], rope.rope_frequencies(64, 1e4, RopeScaling("yarn", s, 4096))[0], atol=0, rtol=0)


def test_scaling_is_hashable_with_factor_lists():
    a = RopeScaling("longrope", 2.0, 64, short_factor=[1, 2], long_factor=[3.0, 4.0])
    b = RopeScaling("longrope", 2.0, 64, short_factor=(1.0, 2.0), long_factor=np.array([3.0, 4.0]))
    assert a == b and hash(a) == hash(b) and a.short_factor == (1.0, 2.0) and type(a.long_factor[0]) is float
    assert len({a, b, RopeScaling("yarn", 2.0, 64, mscale=1.0)}) == 2


@settings(max_examples=40, deadline=None)
@given(
    head_dim=st.sampled_from([4, 8, 16, 64, 80, 96]),
    p=st.sampled_from([0.25, 0.4, 0.5, 0.75, 1.0]),
    layout=st.sampled_from(rope.LAYOUTS),
    kind=st.sampled_from(["default", "linear", "dynamic", "llama3"]),
    seed=st.integers(0, 1000),
)
def test_partial_rotary_properties(head_dim, p, layout, kind, seed):
    if int(head_dim * p) < 2:
        return
    scaling = None if kind == "default" else RopeScaling(kind, 4.0, 32)
    inv_freq, c = rope.rope_frequencies(head_dim, 1e4, scaling, seq_len=500, partial_rotary_factor=p)
    n = inv_freq.size
    assert n == -(-int(head_dim * p) // 2)  # ceil(r / 2), as Hugging Face
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((6, head_dim))
    pos = rng.uniform(-1000, 1000, 6)
    out = rope.apply_rope(x, pos, inv_freq, layout=layout, attention_factor=c)
    turning = np.arange(2 * n)  # the first 2n dimensions, in both layouts
    still = np.setdiff1d(np.arange(head_dim), turning)
    assert_close(out[:, still], x[:, still], atol=0, rtol=0)  # untouched dims equal the input
    assert_close(np.linalg.norm(out[:, turning], axis=1), c * np.linalg.norm(x[:, turning], axis=1), atol=1e-9)
    # the score still depends on the offset only, the resting dimensions adding a constant
    q, k = rng.standard_normal((2, head_dim))
    offsets = np.array([0.0, 1.0, 17.0, 250.0])
    direct = rope.score_by_offset(q, k, inv_freq, offsets, start=123.0, layout=layout, attention_factor=c)
    assert_close(direct, rope.relative_score(q, k, inv_freq, offsets, layout=layout, attention_factor=c), atol=1e-9)


def test_relative_score_of_resting_dimensions_is_a_constant():
    ones = np.ones(8)
    inv_freq, _ = rope.rope_frequencies(8, 100.0, partial_rotary_factor=0.5)  # 2 pairs turn, 4 dimensions rest
    offsets = np.array([0.0, 1.0, 10.0])
    assert_close(rope.relative_score(ones, ones, inv_freq, offsets), 4 + 2 * (np.cos(offsets * 1.0) + np.cos(offsets * 0.1)), atol=1e-12)
    assert_close(rope.relative_score(ones, ones, inv_freq, offsets, attention_factor=2.0), 4 + 8 * (np.cos(offsets) + np.cos(offsets * 0.1)), atol=1e-12)


LONG_8 = RopeScaling("longrope", 2.0, 8, short_factor=[1.0] * 8, long_factor=[1.0] * 8)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rope.rope_frequencies(64, 1e4, RopeScaling("yarn", 4.0, 4096), partial_rotary_factor=0.4), "rotating dimensions, but int\\(64 × 0.4\\)"),
        (lambda: rope.rope_frequencies(8, 1e4, RopeScaling("longrope", 2.0, 8, short_factor=[1.0] * 3, long_factor=[1.0] * 3)), "one factor per rotating pair"),
        (lambda: rope.rope_frequencies(16, 1e4, LONG_8, partial_rotary_factor=0.5), "4 for a rotary width of 8"),
        (lambda: rope.rope_frequencies(8, partial_rotary_factor=0.0), "partial_rotary_factor must be a number above 0 and at most 1"),
        (lambda: rope.rope_frequencies(8, partial_rotary_factor=1.5), "partial_rotary_factor must be a number above 0 and at most 1"),
        (lambda: rope.rope_frequencies(8, partial_rotary_factor=-0.25), "partial_rotary_factor must be a number above 0 and at most 1"),
        (lambda: rope.rope_frequencies(8, partial_rotary_factor=float("nan")), "partial_rotary_factor must be a number above 0 and at most 1"),
        (lambda: rope.rope_frequencies(8, partial_rotary_factor="half"), "partial_rotary_factor must be a number"),
        (lambda: rope.rope_frequencies(8, partial_rotary_factor=0.2), "only int\\(8 × 0.2\\) = 1 dimension"),
        (lambda: RopeScaling("longrope", 2.0, 8), "longrope needs both short_factor and long_factor"),
        (lambda: RopeScaling("longrope", 2.0, 8, short_factor=[1.0]), "longrope needs both short_factor and long_factor"),
        (lambda: RopeScaling("longrope", 2.0, 8, short_factor=[1.0], long_factor=[1.0, 2.0]), "same length"),
        (lambda: RopeScaling("longrope", 2.0, 8, short_factor=[1.0, -1.0], long_factor=[1.0, 2.0]), "finite numbers above 0"),
        (lambda: RopeScaling("longrope", 2.0, 8, short_factor=[1.0, float("inf")], long_factor=[1.0, 2.0]), "finite numbers above 0"),
        (lambda: RopeScaling("longrope", 2.0, 8, short_factor="1, 2", long_factor=[1.0, 2.0]), "short_factor must be a list of numbers"),
        (lambda: RopeScaling("longrope", 2.0, 8, short_factor=[], long_factor=[]), "got an empty list"),
        (lambda: RopeScaling("longrope", 2.0, 8, short_factor=[1.0], long_factor=[1.0], attention_factor=0.0), "attention_factor must be above 0"),
        (lambda: RopeScaling("yarn", 2.0, 8, mscale=0.0, mscale_all_dim=1.0), "mscale must be above 0"),
        (lambda: RopeScaling("yarn", 2.0, 8, mscale=1.0, mscale_all_dim=float("nan")), "mscale_all_dim must be a finite number"),
        (lambda: RopeScaling("proportional", 0.5, 8), "would shrink the context"),
        (lambda: rope.apply_rope(np.ones((2, 3)), [0, 1], [1.0, 0.1]), "RoPE needs d = 2 \\* len\\(inv_freq\\) or more"),
    ],
)
def test_bad_new_input_raises_value_error_with_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ------------------------------------------------------------------------------------------------
# The record of each kind (rope.SCALING_KINDS): every test here runs over the registry, so a new kind is
# tried by them as soon as it is registered; its numbers against Hugging Face are the reference grid above.

SAMPLE_ORIGINAL = 32  # the original context of every kind's sample


def sample_scaling(kind: str, rotary_pairs: int, **fields) -> RopeScaling:
    """A scaling of `kind` at factor 4 over SAMPLE_ORIGINAL positions: LongRoPE's two lists (every kind takes
    them, and reads them only if its record says so) differ pair by pair and from 1."""
    short = 1.0 + 0.25 * np.arange(rotary_pairs)
    return RopeScaling(kind, 4.0, SAMPLE_ORIGINAL, short_factor=short, long_factor=2 * short + 1, **fields)


OTHER_VALUES = {  # a valid other value for every field a kind may read
    "factor": 2.5,
    "original_max_len": 48,
    "beta_fast": 16.0,
    "beta_slow": 2.0,
    "low_freq_factor": 2.0,
    "high_freq_factor": 8.0,
    "attention_factor": 1.5,
    "truncate": False,
    "mscale": 0.5,
    "mscale_all_dim": 0.7,
    "short_factor": tuple(3.0 - 0.25 * np.arange(8)),
    "long_factor": tuple(5.0 + np.arange(8)),
}


def test_every_field_a_record_may_read_has_another_value_here():
    fields = {f.name for f in dataclasses.fields(RopeScaling)} - {"kind"}
    assert set(OTHER_VALUES) == fields
    for name, record in rope.SCALING_KINDS.items():
        assert record.name == name and record.label and set(record.reads) <= fields and "factor" in record.reads, name


@pytest.mark.parametrize("kind", list(rope.SCALING_KINDS))
def test_a_kind_reads_only_the_fields_its_record_names(kind):
    # every field it does not read changed, alone and all at once: the frequencies and the attention factor stay, bit for bit
    base = sample_scaling(kind, 8)
    others = {name: value for name, value in OTHER_VALUES.items() if name not in rope.SCALING_KINDS[kind].reads}
    for changed in [{name: value} for name, value in others.items()] + [others]:
        for seq_len in (None, SAMPLE_ORIGINAL, 3 * SAMPLE_ORIGINAL):
            expected, c = rope.rope_frequencies(16, 500.0, base, seq_len=seq_len)
            got, c_got = rope.rope_frequencies(16, 500.0, dataclasses.replace(base, **changed), seq_len=seq_len)
            assert_close(got, expected, atol=0, rtol=0) and c_got == c, (changed, seq_len)


@pytest.mark.parametrize("kind", list(rope.SCALING_KINDS))
def test_a_kind_depends_on_the_length_exactly_when_its_record_says_so(kind):
    scaling, record = sample_scaling(kind, 8), rope.SCALING_KINDS[kind]
    inside = [rope.rope_frequencies(16, 500.0, scaling, seq_len=n)[0] for n in (None, 1, SAMPLE_ORIGINAL)]
    beyond = rope.rope_frequencies(16, 500.0, scaling, seq_len=SAMPLE_ORIGINAL + 1)[0]
    assert all(np.array_equal(f, inside[0]) for f in inside)  # up to the original context: as trained (dynamic) or the short list
    assert (not np.array_equal(beyond, inside[0])) == record.length_dependent


@pytest.mark.parametrize("kind", list(rope.SCALING_KINDS))
def test_an_odd_rotary_width_is_refused_exactly_when_the_record_needs_an_even_one(kind):
    record = rope.SCALING_KINDS[kind]
    scaling = sample_scaling(kind, 12)  # int(64 * 0.4) = 25 rotating dimensions: 12 whole pairs
    if record.even_rotary:
        with pytest.raises(ValueError, match="even number of rotating dimensions"):
            rope.rope_frequencies(64, 1e4, scaling, partial_rotary_factor=0.4)
    else:
        inv_freq, _ = rope.rope_frequencies(64, 1e4, scaling, partial_rotary_factor=0.4)
        assert inv_freq.size == (32 if record.turning_proportion else 13)  # a whole head's pairs, or ceil(25 / 2)


@pytest.mark.parametrize("kind", list(rope.SCALING_KINDS))
def test_a_kind_on_the_controls_is_set_by_a_factor_and_an_original_context_alone(kind):
    # the pages' controls build RopeScaling(kind, s, L) and leave every other field at its default
    record = rope.SCALING_KINDS[kind]
    if record.controls is None:
        return
    scaling = RopeScaling(kind, 4.0, 64)
    inv_freq, _ = rope.rope_frequencies(16, 1e4, scaling, seq_len=256)
    words = record.controls.words(16, 1e4, scaling, 256)
    assert inv_freq.size == 8 and words and not words.endswith(".") and record.controls.factor
    assert record.controls.left_out(scaling) == ()  # at the defaults, nothing is left out


# The script that made the constants above (run it with transformers installed, e.g. in a throwaway venv:
#   python -m venv --system-site-packages /tmp/hfvenv && /tmp/hfvenv/bin/pip install transformers
#   /tmp/hfvenv/bin/python -c "from tests.core.schemes.test_rope import REGENERATE; exec(REGENERATE)"
# ). It prints the same numbers as flat lists per case; the tables above key them by pair index.


def test_the_regenerate_command_imports_this_module():
    # the command above once named the module before it moved: it must import the file it sits in
    command = re.search(r"from (\S+) import REGENERATE", Path(__file__).read_text())
    assert command is not None and command.group(1) == __name__ == "tests.core.schemes.test_rope"


REGENERATE = r"""
import torch
import transformers
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gptj.modeling_gptj import apply_rotary_pos_emb as gptj_apply
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

def config(head_dim, base, max_pos=2048, rope_type="default", **params):
    return LlamaConfig(hidden_size=2 * head_dim, num_attention_heads=2, head_dim=head_dim, max_position_embeddings=max_pos,
                       rope_parameters={"rope_type": rope_type, "rope_theta": base, **params})

def emit(name, inv_freq, attention_factor, keep=None):
    values = [float(v) for v in inv_freq]
    if keep is not None:
        values = {i: values[i] for i in keep}
    print(f"{name} = ({values!r}, {float(attention_factor)!r})")

print("# transformers", transformers.__version__, "torch", torch.__version__)
few = [0, 1, 8, 16, 31]
for hd, base, keep in [(8, 1e4, None), (8, 5e5, None), (64, 1e4, few), (64, 5e5, few)]:
    emit(f"DEFAULT_{hd}_{'5E5' if base == 5e5 else '1E4'}", *LlamaRotaryEmbedding.compute_default_rope_parameters(config(hd, base)), keep)
emit("LINEAR_16_F4", *ROPE_INIT_FUNCTIONS["linear"](config(16, 1e4, rope_type="linear", factor=4.0)))
for seq_len in [None, 1000, 2048, 3000, 8192]:
    emit(f"DYNAMIC_16_F2_L2048_SEQ_{str(seq_len).upper()}", *ROPE_INIT_FUNCTIONS["dynamic"](config(16, 1e4, 2048, "dynamic", factor=2.0), seq_len=seq_len))
for name, hd, base, f, orig, keep, extra in [
    ("YARN_16_F4_L2048", 16, 1e4, 4.0, 2048, None, {}),
    ("YARN_16_F4_L2048_NO_TRUNCATE", 16, 1e4, 4.0, 2048, None, {"truncate": False}),
    ("YARN_16_F4_L2048_BETA_8_2_ATTN_1_5", 16, 1e4, 4.0, 2048, None, {"beta_fast": 8.0, "beta_slow": 2.0, "attention_factor": 1.5}),
    ("YARN_64_F8_L4096", 64, 1e4, 8.0, 4096, [0, 10, 11, 12, 16, 22, 23, 24, 31], {}),
    ("YARN_128_5E5_F4_L4096", 128, 5e5, 4.0, 4096, [0, 14, 15, 16, 24, 31, 32, 33, 63], {}),
]:
    emit(name,
         *ROPE_INIT_FUNCTIONS["yarn"](config(hd, base, int(f * orig), "yarn", factor=f, original_max_position_embeddings=orig, **extra)), keep)
for hd, base, orig, keep in [(128, 5e5, 8192, [0, 28, 29, 30, 31, 32, 33, 34, 35, 63]), (16, 1e4, 2048, None)]:
    llama3 = config(hd, base, 16 * orig, "llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=orig)
    emit(f"LLAMA3_{hd}_{'5E5' if base == 5e5 else '1E4'}_F8_L{orig}", *ROPE_INIT_FUNCTIONS["llama3"](llama3), keep)

# apply_rotary_pos_emb (Llama, half layout) and GPT-J's (interleaved), fed float64 cos/sin built as
# LlamaRotaryEmbedding.forward and GPT-J's create_sinusoidal_positions do, so only the rotation is compared.
torch.manual_seed(0)
x = torch.randn(4, 8, dtype=torch.float64)
positions = torch.tensor([0.0, 1.0, 5.0, 100000.0], dtype=torch.float64)
inv_freq = 1.0 / 100.0 ** (torch.arange(0, 8, 2, dtype=torch.float64) / 8)
freqs = positions[:, None] * inv_freq[None, :]
print("APPLY_X =", x.tolist())
for c, suffix in [(1.0, ""), (1.5, "_SCALED")]:
    emb = torch.cat((freqs, freqs), dim=-1)
    half, _ = apply_rotary_pos_emb(x[None, None], x[None, None], (emb.cos() * c)[None], (emb.sin() * c)[None], unsqueeze_dim=1)  # cos, sin: (batch, seq, dim)
    print(f"APPLY_HALF{suffix} =", half[0, 0].tolist())
    inter = gptj_apply(x[None, :, None, :], (freqs.sin() * c)[None], (freqs.cos() * c)[None])
    print(f"APPLY_INTERLEAVED{suffix} =", inter[0, :, 0, :].tolist())
"""
