"""AppTest of the scheme-zoo pages `compare`, `rope` and `relative`: the numbers each page shows
(tables, metrics, figure data) are the numbers of core at the same settings, worked by hand where
that is short; bad settings give a message and no exception."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.analysis import properties
from core.schemes import alibi, relative, rope
from core.viz.grid import strided
from core.schemes.registry import SCHEMES, Setting
from core.schemes.sinusoidal import sinusoidal_encoding
from tests.app.conftest import assert_clean, decode, figures, open_page, title_text

# ======================================================================================
# compare
# ======================================================================================

TABLE_COLUMNS = {"max |value|": "bounded", "min distance": "unique", "neighbour / mean": "smooth", "relative departure": "relative"}


def table_rows(at) -> dict[str, dict]:
    """The properties table keyed by scheme label."""
    frame = at.dataframe[0].value
    return {row["scheme"]: row for row in frame.to_dict("records")}


def check_table(at, names, d, L, base, heads):
    rows = table_rows(at)
    assert list(rows) == [SCHEMES[n].label for n in names]  # one row per selected scheme, in order
    setting = Setting(width=d, base=base, train_len=L, n_heads=heads)
    for n in names:
        row = rows[SCHEMES[n].label]
        try:
            expected = properties.measure(SCHEMES[n], setting, L)
        except ValueError as err:
            assert row["past max_len"] == str(err)
            continue
        for column, field in TABLE_COLUMNS.items():
            want = getattr(expected, field)
            if math.isnan(want):
                assert math.isnan(row[column]), (n, column)
            else:
                assert row[column] == pytest.approx(want, rel=1e-12, abs=1e-15), (n, column)
        assert row["past max_len"] == expected.extrapolation
        assert row["over"] == expected.measured_over
        assert row["params"] == expected.parameters


def test_compare_table_is_measure_at_the_same_settings():
    at = open_page("compare", d_model="32", max_len="300", base="500")
    assert_clean(at)
    check_table(at, list(SCHEMES), 32, 300, 500.0, 8)
    rows = table_rows(at)
    assert rows["integer p"]["max |value|"] == 299  # by hand: the largest position
    assert rows["ALiBi"]["max |value|"] == pytest.approx(0.5 * 299)  # slope 1/2 at distance 299
    assert rows["learned absolute table"]["params"] == 300 * 32
    assert any("256 of 300 positions" in c.value for c in at.caption)  # says it measured a sample


def test_compare_table_follows_the_selection_and_the_heads():
    at = open_page("compare", d_model="16", max_len="40")
    at.multiselect(key="schemes").set_value(["shaw", "integer", "alibi", "t5"]).run()
    assert_clean(at)
    check_table(at, ["shaw", "integer", "alibi", "t5"], 16, 40, 10_000.0, 8)
    at.selectbox(key="heads").set_value(2).run()
    check_table(at, ["shaw", "integer", "alibi", "t5"], 16, 40, 10_000.0, 2)
    rows = table_rows(at)
    assert rows["T5 relative buckets"]["params"] == 32 * 2
    assert rows["Shaw relative (clip 16)"]["params"] == 33 * 8  # head width 16 / 2
    assert rows["ALiBi"]["min distance"] == pytest.approx(math.hypot(1 / 16, 1 / 256))  # 2 heads: slopes 2^-4, 2^-8


def test_compare_schemes_from_the_link():
    at = open_page("compare", d_model="16", max_len="40", schemes="integer,alibi")
    assert_clean(at)
    assert at.multiselect(key="schemes").value == ["integer", "alibi"]
    assert list(table_rows(at)) == ["integer p", "ALiBi"]
    assert len(figures(at)[0]["data"]) == 2


def test_compare_at_an_odd_width_says_why_rope_cannot_run():
    at = open_page("compare", d_model="7", max_len="40")
    assert_clean(at)
    check_table(at, list(SCHEMES), 7, 40, 10_000.0, 8)
    assert "head_dim must be even, got 7" in table_rows(at)["rotary (RoPE)"]["past max_len"]
    assert any(c.value.startswith("**rotary (RoPE)**: head_dim must be even") for c in at.caption)
    rope_panel = figures(at)[0]["data"][list(SCHEMES).index("rope")]
    assert np.isnan(decode(rope_panel["z"]).astype(float)).all()  # blank panel


def test_compare_with_nothing_selected_says_so():
    at = open_page("compare")
    at.multiselect(key="schemes").set_value([]).run()
    assert not at.exception
    assert [i.value for i in at.info] == ["Pick at least one scheme to compare."]
    assert figures(at) == [] and len(at.dataframe) == 0


def panel(at, fig_index, name, names=tuple(SCHEMES)) -> dict:
    return figures(at)[fig_index]["data"][list(names).index(name)]


def test_compare_code_panel_of_the_sinusoid_is_its_sampled_table():
    d, L = 128, 256
    at = open_page("compare")
    pos, dims = strided(L, 40), strided(d, 40)  # the page's GRID
    trace = panel(at, 0, "sinusoidal")
    assert np.array_equal(decode(trace["y"]), pos.indices) and np.array_equal(decode(trace["x"]), dims.indices)
    expected = sinusoidal_encoding(L, d, 10_000.0)[np.ix_(pos.indices, dims.indices)]
    np.testing.assert_allclose(decode(trace["z"]), expected, atol=1e-6)
    # its score panel: PE(m)·PE(n), a function of m - n only
    score = decode(panel(at, 1, "sinusoidal")["z"]).astype(np.float64)
    pe = sinusoidal_encoding(L, d, 10_000.0)[pos.indices]
    np.testing.assert_allclose(score, pe @ pe.T, atol=1e-4, rtol=1e-6)
    np.testing.assert_allclose(score[0, 3], score[10, 13], atol=1e-4)


def test_compare_integer_and_onehot_panels_by_hand():
    d, L = 16, 40
    at = open_page("compare", d_model=str(d), max_len=str(L))
    pos, dims = strided(L, 40), strided(d, 40)
    integer = decode(panel(at, 0, "integer")["z"])
    assert np.array_equal(integer, np.repeat(pos.indices[:, None], dims.count, axis=1))
    np.testing.assert_allclose(decode(panel(at, 1, "integer")["z"]), d * np.outer(pos.indices, pos.indices), rtol=1e-6)  # S = d m n
    onehot = decode(panel(at, 0, "onehot")["z"]).astype(np.float64)
    assert np.array_equal(onehot[:d], np.eye(d))  # identity rows up to the width
    assert np.isnan(onehot[d:]).all()  # no code past position d - 1: blank
    assert any(c.value == f"**one-hot**: no code past position {d - 1}" for c in at.caption)


def test_compare_heads_change_the_bias_panels():
    L = 40
    at = open_page("compare", d_model="16", max_len=str(L))
    i = np.arange(L)
    dist = np.abs(i[:, None] - i[None, :])
    before = decode(panel(at, 0, "alibi")["z"])
    np.testing.assert_allclose(before, -np.mean(2.0 ** -np.arange(1, 9)) * dist, rtol=1e-6)
    at.selectbox(key="heads").set_value(1).run()
    assert_clean(at)
    after = decode(panel(at, 0, "alibi")["z"])
    np.testing.assert_allclose(after, -(2.0**-8) * dist, rtol=1e-6)  # one head: slope 2^-8
    t5 = decode(panel(at, 0, "t5")["z"]).astype(np.float64)
    values = relative.t5_demo_bucket_values(32, 1)
    np.testing.assert_allclose(t5, relative.t5_bias(values, i, i)[0], atol=1e-6)
    assert any("averaged over the 1 heads" in c.value for c in at.caption)


def test_compare_rope_panel_is_the_rotated_constant_vector():
    d, L = 32, 40
    at = open_page("compare", d_model=str(d), max_len=str(L))
    pos, dims = strided(L, 40), strided(d, 40)
    got = decode(panel(at, 0, "rope")["z"]).astype(np.float64)
    unit = np.full((pos.count, d), 1 / np.sqrt(d))
    expected = rope.apply_rope(unit, pos.indices, rope.default_frequencies(d, 10_000.0))[:, dims.indices]
    np.testing.assert_allclose(got, expected, atol=1e-6)


# ======================================================================================
# rope
# ======================================================================================


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_rope_offset_curves_coincide_and_are_the_closed_form():
    at = open_page("rope")
    assert_clean(at)
    fig = figures(at)[1]
    x0, y0 = decode(fig["data"][0]["x"]), decode(fig["data"][0]["y"]).astype(np.float64)
    x1, y1 = decode(fig["data"][1]["x"]), decode(fig["data"][1]["y"]).astype(np.float64)
    assert np.array_equal(x0, x1) and np.array_equal(x0, np.arange(256))  # every offset 0 .. max_len - 1
    assert np.abs(y0 - y1).max() < 1e-6
    assert fig["data"][1]["name"] == "key at position 2,560"  # default second start: 10 · max_len
    q, k = np.random.default_rng(7).standard_normal((2, 64))  # the page's probe
    closed = rope.relative_score(q, k, rope.default_frequencies(64, 10_000.0), x0)
    np.testing.assert_allclose(y0, closed, atol=1e-5)


def test_rope_offset_curves_at_a_far_start_and_long_context():
    at = open_page("rope", max_len="4096")
    at.number_input(key="rope_start").set_value(1_000_000).run()
    fig = figures(at)[1]
    y0, y1 = decode(fig["data"][0]["y"]).astype(np.float64), decode(fig["data"][1]["y"]).astype(np.float64)
    assert np.abs(y0 - y1).max() < 1e-6
    x = decode(fig["data"][0]["x"])
    assert x[-1] == 4095 and x.size < 4096  # log-spaced past 512
    assert fig["layout"]["xaxis"]["type"] == "log"


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_rope_pair_circle_by_hand(layout):
    at = open_page("rope")
    if layout == "interleaved":
        at.button_group(key="rope_layout").set_value("interleaved").run()
    at.slider(key="rope_pair").set_value(3).run()
    assert_clean(at)
    trace = figures(at)[0]["data"][0]
    p = np.arange(64)
    theta = 10_000.0 ** (-2 * 3 / 64)
    np.testing.assert_allclose(decode(trace["x"]), np.cos(p * theta), atol=1e-6)
    np.testing.assert_allclose(decode(trace["y"]), np.sin(p * theta), atol=1e-6)
    dims = (3, 35) if layout == "half" else (6, 7)
    assert f"dimensions {dims[0]} and {dims[1]}" in title_text(figures(at)[0])


def test_rope_yarn_attention_factor_is_core_and_by_hand():
    at = open_page("rope")  # yarn, factor 4, original 256 // 4 = 64
    assert at.selectbox(key="scaling").value == "yarn" and at.number_input(key="original_len").value == 64
    _, factor = rope.rope_frequencies(64, 10_000.0, rope.RopeScaling("yarn", 4.0, 64), seq_len=256)
    assert metrics(at)["attention factor (cos, sin ×)"] == f"{factor:.4f}" == f"{0.1 * math.log(4) + 1:.4f}" == "1.1386"


def test_rope_factor_below_one_is_refused():
    at = open_page("rope")
    at.number_input(key="factor").set_value(0.5).run()
    assert not at.exception
    assert len(at.error) == 1 and "below 1" in at.error[0].value
    assert len(figures(at)) == 3  # the page stops at the scaling section


@pytest.mark.parametrize("kind", ["ntk", "linear"])
def test_rope_factor_below_one_is_refused_for_every_kind(kind):
    at = open_page("rope")
    at.selectbox(key="scaling").set_value(kind).run()
    at.number_input(key="factor").set_value(0.5).run()
    assert not at.exception and any("below 1" in e.value for e in at.error)


def test_rope_original_context_longer_than_target_is_refused():
    at = open_page("rope")
    at.number_input(key="original_len").set_value(300).run()
    assert not at.exception
    assert len(at.error) == 1 and "longer than the target" in at.error[0].value and "300" in at.error[0].value
    assert not at.metric


@pytest.mark.parametrize("raw", ["63", "abc", "512"])
def test_rope_bad_head_dim_in_the_link(raw):
    at = open_page("rope", head_dim=raw)
    assert_clean(at)
    assert len(at.warning) == 1 and "head_dim" in at.warning[0].value
    assert at.select_slider(key="head_dim").value == 64


@pytest.mark.parametrize("head_dim", [2, 4, 8, 16, 32, 64, 128, 256])
def test_rope_every_offered_head_width_renders(head_dim):
    at = open_page("rope", head_dim=str(head_dim))
    assert_clean(at)
    assert at.select_slider(key="head_dim").value == head_dim
    assert len(figures(at)) == 5
    assert sum(int(metrics(at)[f"pairs {name}"]) for name in ("kept", "blended", "interpolated")) == head_dim // 2


def test_rope_ntk_at_head_dim_2_gives_a_message():
    at = open_page("rope", head_dim="2", scaling="ntk")
    assert not at.exception
    assert any("at least 4" in e.value for e in at.error)


def expected_counts(kind: str, head_dim: int, base: float, factor: float, original: int, L: int) -> dict[str, int]:
    if kind == "none":
        labels = np.full(head_dim // 2, "kept")
    elif kind == "ntk":
        theta = rope.default_frequencies(head_dim, base)
        ratio = rope.default_frequencies(head_dim, rope.ntk_aware_base(base, factor, head_dim)) / theta
        labels = np.where(ratio >= 1 - 1e-9, "kept", np.where(ratio <= (1 + 1e-9) / factor, "interpolated", "blended"))
    else:
        labels = rope.scaling_regions(head_dim, base, rope.RopeScaling(kind, factor, original), seq_len=L).label
    return {name: int((labels == name).sum()) for name in ("kept", "blended", "interpolated")}


@pytest.mark.parametrize("kind", ["none", "linear", "ntk", "dynamic", "yarn", "llama3"])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_rope_every_scaling_kind_counts_pairs_as_core(kind, head_dim):
    at = open_page("rope", max_len="8192")
    at.select_slider(key="head_dim").set_value(head_dim).run()
    at.selectbox(key="scaling").set_value(kind).run()
    assert_clean(at)
    original = at.number_input(key="original_len").value
    assert original == 8192 // 4
    m = metrics(at)
    counts = {name: int(m[f"pairs {name}"]) for name in ("kept", "blended", "interpolated")}
    assert counts == expected_counts(kind, head_dim, 10_000.0, 4.0, original, 8192)
    assert sum(counts.values()) == head_dim // 2
    # by hand where the rule is simple
    if kind == "none":
        assert counts == {"kept": head_dim // 2, "blended": 0, "interpolated": 0}
    if kind == "linear":
        assert counts == {"kept": 0, "blended": 0, "interpolated": head_dim // 2}
    if kind == "ntk":  # ratio s^(-2i/(d-2)): pair 0 untouched, the last divided by exactly s
        assert counts == {"kept": 1, "blended": head_dim // 2 - 2, "interpolated": 1}
    expected_factor = 0.1 * math.log(4) + 1 if kind == "yarn" else 1.0
    assert m["attention factor (cos, sin ×)"] == f"{expected_factor:.4f}"
    assert len(figures(at)) == 5


def test_rope_wavelength_chart_is_core_after_scaling():
    at = open_page("rope")
    at.selectbox(key="scaling").set_value("llama3").run()
    series = {t["name"]: t for t in figures(at)[3]["data"]}
    theta = rope.default_frequencies(64, 10_000.0)
    np.testing.assert_allclose(decode(series["before: base 10,000"]["y"]), 2 * np.pi / theta, rtol=1e-6)
    scaled, _ = rope.rope_frequencies(64, 10_000.0, rope.RopeScaling("llama3", 4.0, 64), seq_len=256)
    for name in ("kept", "blended", "interpolated"):
        if f"after: {name}" in series:
            pairs = decode(series[f"after: {name}"]["x"]).astype(int)
            np.testing.assert_allclose(decode(series[f"after: {name}"]["y"]), 2 * np.pi / scaled[pairs], rtol=1e-6)


def test_rope_layout_residual_is_rounding():
    at = open_page("rope")
    text = next(m.value for m in at.markdown if "max |interleaved(x)[perm] − half(x[perm])|" in m.value)
    residual = float(text.split("= **")[1].split("**")[0])
    assert residual < 1e-9


# ======================================================================================
# relative
# ======================================================================================


@pytest.mark.parametrize("heads", [8, 12])
def test_relative_slopes_chart_is_alibi_slopes(heads):
    at = open_page("relative")
    if heads != 8:
        at.select_slider(key="alibi_heads").set_value(heads).run()
    assert_clean(at)
    trace = figures(at)[1]["data"][0]
    got = decode(trace["y"]).astype(np.float64)
    np.testing.assert_allclose(got, alibi.alibi_slopes(heads), rtol=1e-12)
    by_hand = {
        8: 2.0 ** -np.arange(1, 9),  # 1/2 .. 1/256
        12: np.concatenate([2.0 ** -np.arange(1, 9), 2.0 ** -np.array([0.5, 1.5, 2.5, 3.5])]),  # 8 heads' slopes, then every other of 16 heads'
    }[heads]
    np.testing.assert_allclose(got, by_hand, rtol=1e-12)
    assert np.array_equal(decode(trace["x"]), np.arange(heads))


@pytest.mark.parametrize("heads", [8, 12])
def test_relative_span_table_is_alibi_attention_span(heads):
    at = open_page("relative", max_len="1000")
    at.select_slider(key="alibi_heads").set_value(heads).run()
    table = at.dataframe[0].value
    slopes = alibi.alibi_slopes(heads)
    span = alibi.alibi_attention_span(slopes, 1000, 0.9)
    assert table["head"].tolist() == list(range(heads))
    np.testing.assert_allclose(table["slope"], slopes, rtol=1e-12)
    assert table["keys holding 90% of the attention"].tolist() == span.tolist()
    np.testing.assert_allclose(table["share of the context"], span / 1000)
    # head 0 (slope 1/2) by hand: the nearest n keys hold (1 - e^{-n/2}) / (1 - e^{-500}); 0.9 needs n = 5
    assert span[0] == 5 == math.ceil(-math.log(0.1) / 0.5)


def test_relative_alibi_panels_are_the_bias_causal_and_not():
    L = 48
    at = open_page("relative", max_len=str(L))
    i = np.arange(L)
    diff = (i[:, None] - i[None, :]).astype(np.float64)
    slopes = alibi.alibi_slopes(8)
    data = figures(at)[0]["data"]
    assert len(data) == 8
    for h in (0, 7):
        z = decode(data[h]["z"]).astype(np.float64)
        np.testing.assert_allclose(z[diff >= 0], (-slopes[h] * diff)[diff >= 0], rtol=1e-6)
        assert np.isnan(z[diff < 0]).all()  # masked keys blank
    at.toggle(key="alibi_causal").set_value(False).run()
    z = decode(figures(at)[0]["data"][0]["z"]).astype(np.float64)
    np.testing.assert_allclose(z, -0.5 * np.abs(diff), rtol=1e-6)


def test_relative_many_heads_draw_sixteen_panels():
    at = open_page("relative")
    at.select_slider(key="alibi_heads").set_value(40).run()
    assert_clean(at)
    assert len(figures(at)[0]["data"]) == 16
    assert "the first 16 of 40 heads" in title_text(figures(at)[0])


@pytest.mark.parametrize(("buckets", "max_distance", "bidirectional"), [(32, 128, True), (32, 128, False), (10, 20, True), (7, 5, False)])
def test_relative_t5_bucket_map_is_t5_relative_bucket(buckets, max_distance, bidirectional):
    at = open_page("relative")
    at.number_input(key="t5_buckets").set_value(buckets)
    at.number_input(key="t5_max_distance").set_value(max_distance)
    at.toggle(key="t5_bidirectional").set_value(bidirectional).run()
    assert_clean(at)
    traces = figures(at)[3]["data"]
    assert all(t["line"]["shape"] == "hv" for t in traces)  # staircases, broken where a kind skips positions
    x = np.concatenate([decode(t["x"]).astype(np.float64) for t in traces])
    y = np.concatenate([decode(t["y"]).astype(np.float64) for t in traces])
    assert np.array_equal(np.isnan(x), np.isnan(y))
    x, y = x[~np.isnan(x)].astype(np.int64), y[~np.isnan(y)].astype(np.int64)
    reach = min(max(2 * max_distance, 64), 4096)
    assert np.array_equal(np.sort(x), np.arange(-reach, reach + 1))
    assert np.array_equal(y, relative.t5_relative_bucket(x, bidirectional=bidirectional, num_buckets=buckets, max_distance=max_distance))
    exact = decode(traces[0]["x"]).astype(np.float64)
    exact = exact[~np.isnan(exact)].astype(np.int64)
    if bidirectional:  # N = buckets / 2 per direction, the nearest N / 2 distances exact on both sides
        assert np.abs(exact).max() < buckets // 4
    else:  # every key after the query is in bucket 0; the nearest buckets / 2 distances before are exact
        assert exact.min() > -(buckets // 2)
        assert np.all(y[x > 0] == 0)
    bucket_table = at.dataframe[1].value
    assert bucket_table["bucket"].tolist() == list(range(buckets))


def test_relative_t5_bias_panels_are_t5_bias():
    L = 300
    at = open_page("relative", max_len=str(L))
    g = strided(L, 48)
    values = relative.t5_demo_bucket_values(32, 4, bidirectional=True, max_distance=128)
    expected = relative.t5_bias(values, g.indices, g.indices, bidirectional=True, max_distance=128)
    data = figures(at)[4]["data"]
    assert len(data) == 4
    for h in range(4):
        np.testing.assert_allclose(decode(data[h]["z"]), expected[h], atol=1e-6)
        assert np.array_equal(decode(data[h]["x"]), g.indices)


def test_relative_odd_buckets_with_bidirectional_give_a_clear_error():
    at = open_page("relative")
    at.number_input(key="t5_buckets").set_value(33).run()
    assert not at.exception
    assert len(at.error) == 1 and "num_buckets must be even, got 33" in at.error[0].value
    titles = [title_text(f) for f in figures(at)]
    assert len(titles) == 4  # the three ALiBi figures and Shaw's; the T5 views wait for a valid setting
    assert titles[-1].startswith("clip(j − i")
    at.toggle(key="t5_bidirectional").set_value(False).run()  # a decoder uses all 33
    assert_clean(at)
    assert len(figures(at)) == 6


def test_relative_max_distance_inside_the_exact_buckets_gives_an_error():
    at = open_page("relative")
    at.number_input(key="t5_max_distance").set_value(8).run()  # 32 buckets: 8 exact per side
    assert not at.exception
    assert any("max_distance must be larger than the 8 distances" in e.value for e in at.error)


@pytest.mark.parametrize("raw", ["0", "100", "abc", "2.5"])
def test_relative_bad_alibi_heads_in_the_link(raw):
    at = open_page("relative", alibi_heads=raw)
    assert_clean(at)
    assert len(at.warning) == 1 and "alibi_heads" in at.warning[0].value and "1 to 64" in at.warning[0].value
    assert at.select_slider(key="alibi_heads").value == 8
    np.testing.assert_allclose(decode(figures(at)[1]["data"][0]["y"]), 2.0 ** -np.arange(1, 9))


@pytest.mark.parametrize("raw", ["1", "abc", "300"])
def test_relative_bad_t5_buckets_in_the_link(raw):
    at = open_page("relative", t5_buckets=raw)
    assert not at.exception
    assert len(at.warning) == 1 and "t5_buckets" in at.warning[0].value
    assert at.number_input(key="t5_buckets").value == 32


@pytest.mark.parametrize("k", [0, 4, 10, 64])
def test_relative_shaw_heatmap_is_the_clipped_offset(k):
    at = open_page("relative")
    at.slider(key="shaw_k").set_value(k).run()
    assert_clean(at)
    fig = figures(at)[5]
    z = decode(fig["data"][0]["z"]).astype(np.int64)
    i = np.arange(32)
    assert np.array_equal(z, np.clip(i[None, :] - i[:, None], -k, k))  # row = query i, column = key j
    assert np.unique(z).size == min(2 * k + 1, 63)
    assert fig["data"][0]["zmax"] == max(k, 1) and fig["data"][0]["zmin"] == -max(k, 1)
    distinct = relative.shaw_distinct_ids(256, 256, k)
    assert any(f"use {distinct:,} distinct vectors" in c.value for c in at.caption)
    assert distinct == min(2 * k + 1, 2 * 255 + 1)
