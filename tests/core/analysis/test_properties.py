r"""core.analysis.properties: the sample of positions, and every measured property on schemes whose
answer can be worked out by hand (integer, one-hot, ALiBi, none), checked against brute force
(sinusoidal), or fixed by a mathematical property (relative schemes depart by 0; tables end)."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from core.analysis import properties as P
from core.schemes import kerple, relative
from core.schemes.registry import PROBE_SEED, SCHEMES, Setting
from tests.helpers import assert_close


def measure(name: str, length: int, **setting) -> P.Properties:
    return P.measure(SCHEMES[name], Setting(**{"train_len": length, **setting}), length)


# --- sample_positions --------------------------------------------------------------------------


@pytest.mark.parametrize("length", [0, 1, 2, 100, 255, 256])
def test_short_contexts_are_measured_whole(length):
    assert np.array_equal(P.sample_positions(length), np.arange(length))
    assert P.sample_positions(length).dtype == np.int64


@pytest.mark.parametrize("length", [257, 300, 1000, 131072])
def test_long_contexts_are_the_first_128_then_strided(length):
    p = P.sample_positions(length)
    assert np.array_equal(p[:128], np.arange(128))
    assert np.all(np.diff(p) > 0)  # sorted, distinct
    assert p[-1] == length - 1 and p.size <= 256
    rest = p[128:]
    assert set(rest) == set(np.round(np.linspace(128, length - 1, 128)).astype(int))
    if length >= 1000:  # strided evenly: every gap within one position of (L - 129) / 127
        assert np.ptp(np.diff(rest)) <= 1
        assert abs(np.diff(rest).mean() - (length - 1 - 128) / 127) < 1


# --- integer: every number by hand --------------------------------------------------------------


@pytest.mark.parametrize(("width", "length"), [(4, 50), (9, 20), (3, 400)])
def test_integer_code_by_hand(width, length):
    r = measure("integer", length, width=width)
    pos = P.sample_positions(length)
    assert r.bounded == length - 1
    assert_close(r.unique, np.sqrt(width))  # neighbours differ by 1 in every dimension
    # distance between p and q is sqrt(d)|p - q|: the ratio is 1 / mean |p - q| over sampled pairs
    gaps = [abs(a - b) for a, b in itertools.combinations(pos.tolist(), 2)]
    assert_close(r.smooth, 1.0 / np.mean(gaps), rtol=1e-9)
    if length == 20:
        assert_close(r.smooth, 1 / 7)  # mean |p - q| over 0..19 is (L + 1) / 3 = 7
    assert r.relative > 0.5  # S = d m n depends on where the pair sits
    assert r.measured_over == "positions" and r.parameters == 0
    growth = (2 * length - 1) / (length - 1)  # max |code| on [L, 2L) over max on [0, L)
    assert r.extrapolation == f"defined; {width} of {width} dimensions take values not seen within max_len; max |value| ×{growth:.3g}"
    assert r.sample_note == ("" if length <= 256 else f"256 of {length} positions (the first 128 and 128 strided)")


def test_integer_score_matrix_is_d_m_n():
    s = Setting(width=5)
    m, n = np.array([0, 1, 4, 9]), np.array([2, 3])
    assert_close(SCHEMES["integer"].pair_scores(m, n, s), 5.0 * np.outer(m, n))


# --- sinusoidal ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("width", "length"), [(16, 30), (8, 64), (7, 25)])
def test_sinusoidal_bounded_relative_and_unique_by_brute_force(width, length):
    r = measure("sinusoidal", length, width=width, base=100.0)
    assert 0.99 < r.bounded <= 1.0
    if width % 2 == 0:
        assert r.relative < 1e-9  # PE(m)·PE(n) = sum of cos((m - n)ω): a function of m - n only
    else:
        assert r.relative > 1e-3  # the last column is a sine without its cosine: sin(mω)sin(nω) is not
    codes = SCHEMES["sinusoidal"].input_code(np.arange(length), Setting(width=width, base=100.0))
    brute = min(np.linalg.norm(codes[a] - codes[b]) for a, b in itertools.combinations(range(length), 2))
    assert_close(r.unique, brute, atol=1e-7)  # the measure goes through a Gram matrix: sqrt of a difference
    assert r.unique > 0.1


# --- one-hot, none, tables -----------------------------------------------------------------------


def test_onehot_codes_are_sqrt2_apart_and_end_at_the_width():
    r = measure("onehot", 20, width=8)
    assert r.bounded == 1.0
    assert_close(r.unique, np.sqrt(2))
    assert_close(r.smooth, 1.0)  # every pair equally far: no nearness
    assert r.relative == 0.0  # S(m, n) = [m = n]: a function of the offset
    assert r.extrapolation == "no code past position 7"
    assert r.sample_note == "codes exist for positions 0 to 7 only"


def test_none_measures_zeros_and_nan():
    r = measure("none", 40, width=8)
    assert (r.bounded, r.unique, r.parameters) == (0.0, 0.0, 0)
    assert np.isnan(r.smooth) and np.isnan(r.relative)
    assert r.extrapolation == "nothing to extrapolate"
    assert np.array_equal(SCHEMES["none"].pair_scores(np.arange(4), np.arange(3), Setting(width=8)), np.zeros((4, 3)))
    assert np.isnan(P.relative_departure(SCHEMES["none"], Setting(width=8), 40))


def test_learned_has_no_code_past_the_table():
    r = measure("learned", 40, width=8)
    assert r.extrapolation == "no code past position 39"
    assert r.parameters == 40 * 8
    assert r.relative > 0.1  # random rows: the score depends on both positions


def test_a_table_longer_than_twice_the_context_extrapolates():
    # the learned table is built for 100 positions; measured over 30 of them, [30, 60) has codes
    r = P.measure(SCHEMES["learned"], Setting(width=8, train_len=100), 30)
    assert r.extrapolation.startswith("defined;")


def test_fraction_code_changes_with_the_length():
    r = measure("fraction", 50, width=4)
    assert r.extrapolation == "the code of position 25 changes when the length doubles"
    assert_close(r.bounded, 49 / 50)
    assert_close(r.unique, np.sqrt(4) / 50)  # neighbours differ by 1/L in each of d dimensions


def test_binary_is_unique_only_with_enough_bits():
    assert measure("binary", 64, width=8).unique == 1.0  # 6 bits: distinct codes differ in at least one bit
    assert measure("binary", 64, width=4).unique == 0.0  # 4 bits: p and p + 16 look the same


# --- bias schemes: measured over distances --------------------------------------------------------


@pytest.mark.parametrize("length", [20, 300])
def test_alibi_over_distances(length):
    r = measure("alibi", length, width=64, n_heads=8)
    slopes = 2.0 ** -np.arange(1, 9)
    assert r.measured_over == "distances"
    assert_close(r.bounded, 0.5 * (length - 1))  # slope_0 = 1/2 at the longest distance
    assert_close(r.unique, np.linalg.norm(slopes), rtol=1e-9)  # distances k and k + 1 differ by the slope vector
    assert r.relative == 0.0


def test_alibi_code_is_minus_slope_times_distance():
    code = SCHEMES["alibi"].codes(np.arange(5), Setting(width=64, n_heads=8))
    assert_close(code, -np.arange(5)[:, None] * 2.0 ** -np.arange(1, 9)[None, :])


def test_t5_buckets_merge_distances():
    # 32 buckets, 16 per direction, 8 exact: distances 0..7 each have a bucket, 8 and 9 share one
    assert measure("t5", 8, width=32, n_heads=4).unique > 0
    assert measure("t5", 40, width=32, n_heads=4).unique == 0.0
    assert measure("t5", 40, width=32, n_heads=4).relative < 1e-9


def test_shaw_is_relative_and_clipped():
    r = measure("shaw", 40, width=32, n_heads=4)
    assert r.relative < 1e-9
    assert r.unique == 0.0  # distances 16 and beyond share a vector
    assert measure("shaw", 10, width=32, n_heads=4).unique > 0
    assert r.parameters == 33 * 8


# --- RoPE -----------------------------------------------------------------------------------------


def test_rope_at_an_odd_width_gets_the_sentence_in_measure_all():
    out = P.measure_all(["rope", "integer", "alibi"], SCHEMES, Setting(width=7, train_len=20), 20)
    assert isinstance(out["rope"], str) and "head_dim must be even, got 7" in out["rope"]
    assert isinstance(out["integer"], P.Properties) and out["integer"].bounded == 19
    assert isinstance(out["alibi"], P.Properties)
    assert list(out) == ["rope", "integer", "alibi"]


def _rotate_by_hand(v: np.ndarray, p: float, base: float) -> np.ndarray:
    """Pair i = (v[i], v[i + d/2]) turned by p·base^(-2i/d), one 2 x 2 rotation at a time."""
    d = v.size
    out = v.copy()
    for i in range(d // 2):
        angle = p * base ** (-2 * i / d)
        c, s = np.cos(angle), np.sin(angle)
        out[i], out[i + d // 2] = c * v[i] - s * v[i + d // 2], s * v[i] + c * v[i + d // 2]
    return out


def test_rope_score_matrix_is_the_rotated_probe_dot_product():
    width, base = 8, 100.0
    rng = np.random.default_rng(PROBE_SEED)
    q, k = rng.standard_normal((2, width))
    q, k = q / np.linalg.norm(q), k / np.linalg.norm(k)
    rows, cols = np.array([0, 1, 5, 40]), np.array([0, 3, 17])
    expected = np.array([[_rotate_by_hand(q, m, base) @ _rotate_by_hand(k, n, base) for n in cols] for m in rows])
    got = SCHEMES["rope"].pair_scores(rows, cols, Setting(width=width, base=base))
    assert_close(got, expected, atol=1e-14)


def test_rope_code_and_properties():
    width = 8
    r = measure("rope", 60, width=width, base=100.0)
    code = SCHEMES["rope"].codes(np.array([0.0, 3.0]), Setting(width=width, base=100.0))
    unit = np.full(width, 1 / np.sqrt(width))
    assert_close(code[0], unit)
    assert_close(code[1], _rotate_by_hand(unit, 3.0, 100.0))
    assert r.relative < 1e-9
    assert r.bounded <= np.sqrt(2 / width) + 1e-12  # a pair (a, a) turned: at most a√2
    assert_close(np.linalg.norm(SCHEMES["rope"].codes(np.arange(60.0), Setting(width=width, base=100.0)), axis=1), np.ones(60))


# --- relative_departure itself --------------------------------------------------------------------


def test_relative_departure_edge_cases():
    s = Setting(width=8)
    assert np.isnan(P.relative_departure(SCHEMES["integer"], s, 2))  # too short for a grid
    assert P.relative_departure(SCHEMES["alibi"], s, 100) == 0.0
    assert P.relative_departure(SCHEMES["integer"], s, 100) > 0.5


class _Projected:
    """A scheme's pair score as a model sees it: the added code through a query and a key projection,
    (PE(m) W_q)·(PE(n) W_k), or the rotation of projected vectors, for the measure the checklist uses."""

    def __init__(self, name: str, wq: np.ndarray, wk: np.ndarray):
        self.scheme, self.wq, self.wk = SCHEMES[name], wq, wk

    def pair_scores(self, rows, cols, setting):
        if self.scheme.name != "rope":
            code = self.scheme.input_code
            return (code(rows, setting) @ self.wq) @ (code(cols, setting) @ self.wk).T
        q, k = self.wq[0], self.wk[0]  # any query and key, rotated to their positions
        return np.array([[_rotate_by_hand(q, m, setting.base) @ _rotate_by_hand(k, n, setting.base) for n in cols] for m in rows])


def test_the_sinusoid_is_relative_only_code_against_code_rope_with_any_vectors():
    # what the checklist's "relative" and the glossary's "departure" say: the sinusoid's ✓ is measured on PE(m)·PE(n)
    # alone; through the learned projections of a model its score depends on where the pair sits, while a rotation
    # keeps any query and key relative
    s, length = Setting(width=16, base=100.0), 60
    rng = np.random.default_rng(0)
    wq, wk = rng.standard_normal((2, 16, 16))
    assert P.relative_departure(SCHEMES["sinusoidal"], s, length) < P.RELATIVE_BELOW
    assert P.relative_departure(_Projected("sinusoidal", wq, wk), s, length) > 10 * P.RELATIVE_BELOW
    assert P.relative_departure(_Projected("rope", wq, wk), s, length) < 1e-12
    assert "learned projections" in dict(P.CHECKLIST)["relative"]


def test_score_matrix_of_added_and_bias_schemes():
    s = Setting(width=16, n_heads=4)
    m, n = np.arange(6), np.arange(0, 20, 4)
    pe = SCHEMES["sinusoidal"].input_code
    assert_close(SCHEMES["sinusoidal"].pair_scores(m, n, s), pe(m, s) @ pe(n, s).T)
    mean_slope = (2.0 ** -np.arange(2, 10, 2)).mean()  # 4 heads: 1/4, 1/16, 1/64, 1/256
    assert_close(SCHEMES["alibi"].pair_scores(m, n, s), -mean_slope * np.abs(m[:, None] - n[None, :]))


@pytest.mark.parametrize("name", list(SCHEMES))
def test_every_scheme_measures_without_surprises_smoke(name):
    # smoke: a short and a long context give finite numbers where they apply
    for length in (5, 1000):
        r = measure(name, length, width=16, n_heads=4)
        assert r.name == name
        assert np.isfinite(r.bounded) and np.isfinite(r.unique)
        assert r.parameters == SCHEMES[name].parameters(Setting(width=16, train_len=length, n_heads=4))


@pytest.mark.parametrize("name", ["integer", "fraction", "binary", "alibi"])
def test_extrapolation_sentence_has_no_absurd_growth_at_length_one(name):
    sentence = measure(name, 1, width=4).extrapolation
    ratios = [float(x) for x in re.findall(r"×([0-9.e+-]+)", sentence)]
    assert all(r < 1e6 for r in ratios), sentence


# --- the checklist's marks at the ends of the sliders -------------------------------------------


def marks(name: str, length: int, **setting) -> dict[str, tuple[bool | None, str]]:
    return P.checklist(measure(name, length, **setting))


@pytest.mark.parametrize(("head_dim", "length"), [(2, 4), (64, 4), (64, 64), (64, 256), (64, 1000), (64, 4096), (128, 256), (128, 131072)])
def test_rope_is_bounded_at_every_length(head_dim, length):
    # a rotation keeps the length: every code is the unit vector turned, so no value can pass 1
    pos = np.concatenate([P.sample_positions(length), length + P.sample_positions(length), [2.0**24 - 1]])
    unit = np.full(head_dim, 1 / np.sqrt(head_dim))
    by_hand = np.array([np.linalg.norm(_rotate_by_hand(unit, p, 10_000.0)) for p in pos[:: max(1, pos.size // 40)]])
    assert_close(by_hand, np.ones_like(by_hand), atol=1e-12)
    mark, words = marks("rope", length, width=head_dim, layout="half")["bounded"]
    assert mark is True, words
    assert words.startswith("max |value| ×")


@pytest.mark.parametrize("length", [16, 32, 64])
def test_t5_is_bounded_though_its_max_grows_on_the_next_doubling(length):
    # one scalar per head and bucket: no distance can reach past the largest |scalar| of the table
    setting = Setting(width=64, train_len=length, n_heads=8)
    table = relative.t5_demo_bucket_values(32, 8, seed=setting.seed)
    r = measure("t5", length, width=64, n_heads=8)
    assert r.growth > 1.0  # [L, 2L) reaches buckets [0, L) did not: a one-doubling test would say unbounded
    far = SCHEMES["t5"].codes(np.array([length, 10 * length, 2**20, 2**24 - 1]), setting)
    assert np.abs(far).max() <= np.abs(table).max()
    mark, words = P.checklist(r)["bounded"]
    assert mark is True and words.endswith("no higher up to position 16,777,215"), words


@pytest.mark.parametrize(("width", "length"), [(2, 4), (64, 4), (64, 16)])
def test_shaw_is_bounded_by_its_clipped_table(width, length):
    r = measure("shaw", length, width=width, n_heads=8)
    if width == 2:
        assert_close(r.growth, 1.866, atol=1e-3)  # d_model 2, max_len 4: [L, 2L) reaches table rows [0, L) did not
    assert P.checklist(r)["bounded"][0] is True
    # distances from the clip on share the clip's vector: the code stops changing
    setting = Setting(width=width, train_len=length, n_heads=8)
    codes = SCHEMES["shaw"].codes(np.array([16, 17, 1000, 2**24 - 1]), setting)
    assert np.array_equal(codes, np.repeat(codes[:1], 4, axis=0))


@pytest.mark.parametrize("length", [1, 2, 4, 256, 131072])
@pytest.mark.parametrize("name", ["integer", "alibi", "kerple"])
def test_growing_codes_are_not_bounded_at_any_length(name, length):
    mark, words = marks(name, length, width=4, n_heads=8)["bounded"]
    assert mark is False and "still rising" in words, words


def test_kerple_far_growth_is_its_logarithm():
    # -r1 log(1 + r2 k): the largest |value| in a doubling [a, 2a) is at its end, in the head with the largest r1 log(1 + r2 k)
    r = measure("kerple", 256, width=4, n_heads=8)
    p = kerple.kerple_parameters(8, seed=Setting(width=4).seed)
    top = P.far_windows(256)[-1]
    before = np.concatenate([P.sample_positions(256)] + P.far_windows(256)[:-1])
    peak = lambda k: (p["r1"] * np.log1p(p["r2"] * k.max())).max()  # noqa: E731
    assert_close(r.far_growth, peak(top) / peak(before), rtol=1e-12)
    assert r.horizon == 2**24


@pytest.mark.parametrize("length", [1, 2])
@pytest.mark.parametrize("name", [n for n in SCHEMES if n != "none"])
def test_no_nan_or_inf_in_the_words_at_the_shortest_contexts(name, length):
    scored = marks(name, length, width=3 if name != "rope" else 2, n_heads=6)
    for label, (mark, words) in scored.items():
        assert "nan" not in words and "inf" not in words, (label, words)
    if length == 1:  # one position: no pair, so unique and smooth do not apply
        assert scored["unique"] == (None, "one position: no pair to compare")
        assert scored["smooth"][0] is None
    assert scored["relative"] == (None, "fewer than 3 positions: no offset to compare")
    if length == 2:
        assert scored["smooth"] == (None, "two positions: nothing to compare neighbours with")


def test_fraction_is_in_range_only_for_the_length_it_is_built_for():
    mark, words = marks("fraction", 256, width=4)["bounded"]
    assert mark is False and words == "in range only up to the length it is built for: max |value| ×2.004 on [L, 2L)"
    assert_close((2 * 256 - 1) / 255, 2.0039, atol=1e-4)  # (2L − 1)/L over (L − 1)/L
    # at max_len 1 position 0 is 0 whatever the length: position 1 shows the change
    assert measure("fraction", 1, width=4).extrapolation == "the code of position 1 changes when the length doubles"


@pytest.mark.parametrize("width", [2, 3, 5, 64])
def test_sinusoids_are_bounded_at_small_and_odd_widths(width):
    for name in ("sinusoidal", "t2t"):
        for length in (1, 4, 6, 256):
            assert marks(name, length, width=width)["bounded"][0] is True
