"""AppTest of the `relative` page (ALiBi, T5, Shaw): the figures and tables are the numbers of core
at the same settings, worked by hand where that is short; bad settings give a message and no exception."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from core.schemes import alibi, kerple, relative
from core.viz.grid import strided
from core.viz import charts, wire
from core.viz.charts import number
from ui import glossary
from tests.app.conftest import assert_clean, chart_keys, decode, figure, grid, grid_keys, open_page, plain_table


@pytest.mark.parametrize("heads", [8, 12])
def test_relative_slopes_chart_is_alibi_slopes(heads):
    at = open_page("relative", alibi_more="true")  # the lines and the slopes, one click away
    if heads != 8:
        at.select_slider(key="alibi_heads").set_value(heads).run()
    assert_clean(at)
    trace = figure(at, "alibi_slopes")["data"][0]
    got = decode(trace["y"]).astype(np.float64)
    np.testing.assert_allclose(got, alibi.alibi_slopes(heads), rtol=1e-12)
    by_hand = {
        8: 2.0 ** -np.arange(1, 9),  # 1/2 .. 1/256
        12: np.concatenate([2.0 ** -np.arange(1, 9), 2.0 ** -np.array([0.5, 1.5, 2.5, 3.5])]),  # 8 heads' slopes, then every other of 16 heads'
    }[heads]
    np.testing.assert_allclose(got, by_hand, rtol=1e-12)
    assert np.array_equal(decode(trace["x"]), np.arange(1, heads + 1))  # heads numbered from 1
    span = open_page("relative", alibi_heads=str(heads), rel_view="ALiBi's span")  # the next tab: each head's span
    captions = " ".join(c.value for c in [*at.caption, *span.caption])
    steep, shallow = int(np.argmax(by_hand)), int(np.argmin(by_hand))  # 12 heads: index 8 (2^−0.5) and index 7 (1/256)
    assert (steep, shallow) == ((0, 7) if heads == 8 else (8, 7))
    assert f"head {steep + 1}, the steepest, while head {shallow + 1}, the shallowest" in captions  # named from 1
    assert ("the first head forgets distant keys fastest" in captions) is (heads == 8)
    # one colour per head across the page: the bias lines (the first 8 heads) and the span chart (every head up to 8, else 8 picked across all)
    # give a head the same colour, and no two heads of one chart share one
    ink: dict[str, set[str]] = {}
    for key, run in (("alibi_lines", at), ("alibi_weights", span)):
        drawn = {t["name"].split(" (")[0]: t["line"]["color"] for t in figure(run, key)["data"]}
        assert len(set(drawn.values())) == len(drawn), key
        for name, colour in drawn.items():
            ink.setdefault(name, set()).add(colour)
    assert len(ink) > 8 if heads == 12 else len(ink) == 8  # 12 heads: the span chart picks heads past the first 8
    shared = [name for name in ink if len(ink[name]) > 1]
    assert shared == [], f"heads drawn in two colours on the page: {shared}"
    assert sum(1 for t in figure(span, "alibi_weights")["data"] if t["name"].split(" (")[0] in {f"head {h}" for h in range(1, 9)}) >= 4
    # the span chart draws every head its table lists, or says in the chart which it draws and why
    drawn = [t["name"].split(" (")[0] for t in figure(span, "alibi_weights")["data"] if t.get("name")]
    title = " ".join(re.sub("<[^>]+>", " ", figure(span, "alibi_weights")["layout"]["title"]["text"]).split())
    if heads == 8:
        assert drawn == [f"head {h}" for h in range(1, 9)] and "of 8" not in title
    else:
        assert len(drawn) == 8 and f"heads {', '.join(d.removeprefix('head ') for d in drawn)} of {heads}, spread across them" in title
        assert "more lines would not be told apart" in title


@pytest.mark.parametrize("heads", [8, 12])
def test_relative_span_table_is_alibi_attention_span(heads):
    at = open_page("relative", max_len="1000", rel_view="ALiBi's span")
    at.select_slider(key="alibi_heads").set_value(heads).run()
    table = plain_table(at.table[0])  # a static table: every row shown whole
    slopes = alibi.alibi_slopes(heads)
    span = alibi.alibi_attention_span(slopes, 1000, 0.9)
    assert table["head"].tolist() == list(range(1, heads + 1))
    assert table["slope"].tolist() == [number(m) for m in slopes]  # 4 significant digits
    np.testing.assert_allclose(table["slope"].astype(float), slopes, rtol=5e-4)
    assert table["slope"].tolist()[:3] == ["0.5000", "0.2500", "0.1250"]  # 8 and 12 heads both start 1/2, 1/4, 1/8
    assert table["keys holding 90% of the attention"].tolist() == span.tolist()
    np.testing.assert_allclose(table["share of the context"].astype(float), span / 1000, rtol=5e-4)
    # head 1 (slope 1/2) by hand: the nearest n keys hold (1 - e^{-n/2}) / (1 - e^{-500}); 0.9 needs n = 5
    assert span[0] == 5 == math.ceil(-math.log(0.1) / 0.5)


def test_relative_alibi_panels_are_the_bias_causal_and_not():
    L = 48
    at = open_page("relative", max_len=str(L))
    i = np.arange(L)
    diff = (i[:, None] - i[None, :]).astype(np.float64)
    slopes = alibi.alibi_slopes(8)
    spec = grid(at, "alibi_heads_map")  # painted by the browser
    panels = spec["panels"]
    shown = ["0.5000", "0.2500", "0.1250", "0.06250", "0.03125", "0.01562", "0.007812", "0.003906"]  # 1/2 .. 1/256 to 4 digits
    assert [p["title"] for p in panels] == [f"head {h}: slope {m}" for h, m in enumerate(shown, 1)]
    # every bias is <= 0: the sequential scale, one range from head 1's farthest key to 0
    assert spec["shared_range"] and not spec["scales"][0]["signed"] and spec["scales"][0]["colours"] == wire.colour_lut(charts.SEQUENTIAL, 255).tolist()
    assert all(p["zmax"] == 0 and p["zmin"] == -slopes[0] * (L - 1) for p in panels)
    for h in (0, 7):
        assert panels[h]["x"]["indices"] == panels[h]["y"]["indices"] == list(range(L))
        z = decode(panels[h]["z"]).astype(np.float64)
        np.testing.assert_allclose(z[diff >= 0], (-slopes[h] * diff)[diff >= 0], rtol=1e-6)
        assert np.isnan(z[diff < 0]).all()  # masked keys blank
    at.toggle(key="alibi_causal").set_value(False).run()
    z = decode(grid(at, "alibi_heads_map")["panels"][0]["z"]).astype(np.float64)
    np.testing.assert_allclose(z, -0.5 * np.abs(diff), rtol=1e-6)
    # each head its own range: head 8 (slope 1/256) from its own farthest penalty to 0, said under its title
    at.toggle(key="alibi_shared").set_value(False).run()
    spec = grid(at, "alibi_heads_map")
    assert not spec["shared_range"] and [p["zmin"] for p in spec["panels"]] == pytest.approx(list(-slopes * (L - 1)))
    assert all(p["zmax"] == 0 for p in spec["panels"]) and spec["panels"][7]["range"] == f"colour range {number(-slopes[7] * (L - 1), 3)} to 0"
    assert "own colour range" in at.caption[0].value


def test_relative_many_heads_draw_sixteen_panels():
    at = open_page("relative")
    at.select_slider(key="alibi_heads").set_value(40).run()
    assert_clean(at)
    spec = grid(at, "alibi_heads_map")
    assert [p["title"].split(":")[0] for p in spec["panels"]] == [f"head {h}" for h in range(1, 17)]
    assert "the first 16 of 40 heads" in spec["note"]


@pytest.mark.parametrize(("buckets", "max_distance", "bidirectional"), [(32, 128, True), (32, 128, False), (10, 20, True), (7, 5, False)])
def test_relative_t5_bucket_map_is_t5_relative_bucket(buckets, max_distance, bidirectional):
    at = open_page("relative", rel_view="T5")
    at.number_input(key="t5_buckets").set_value(buckets)
    at.number_input(key="t5_max_distance").set_value(max_distance)
    at.toggle(key="t5_bidirectional").set_value(bidirectional).run()
    assert_clean(at)
    traces = figure(at, "t5_buckets_map")["data"]
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
    bucket_table = at.dataframe[0].value
    assert bucket_table["bucket"].tolist() == list(range(buckets))


def test_relative_t5_bias_panels_are_t5_bias():
    L = 300
    at = open_page("relative", max_len=str(L), rel_view="T5")
    g = strided(L, 48)
    values = relative.t5_demo_bucket_values(32, 4, bidirectional=True, max_distance=128)
    expected = relative.t5_bias(values, g.indices, g.indices, bidirectional=True, max_distance=128)
    spec = grid(at, "t5_bias_map")
    assert [p["title"] for p in spec["panels"]] == [f"head {h}" for h in range(1, 5)] and spec["shared_range"]
    for h, panel in enumerate(spec["panels"]):
        np.testing.assert_allclose(decode(panel["z"]), expected[h], atol=1e-6)
        assert panel["x"]["indices"] == panel["y"]["indices"] == g.indices.tolist()
        assert panel["zmax"] == pytest.approx(np.abs(expected).max())  # the heads share the range of all four
    captions = " ".join(c.value for c in at.caption)
    assert "It is flat from the start of the last bucket, 91 positions apart" in captions and "the figure ends before that" not in captions


def test_relative_t5_caption_when_the_figure_ends_before_the_last_bucket():
    at = open_page("relative", max_len="40", rel_view="T5")
    assert_clean(at)
    last = relative.t5_bucket_ranges(bidirectional=True, num_buckets=32, max_distance=128)[15]  # keys before the query: the last of 16
    assert -last.high == 91 > 39  # the last bucket starts 91 apart; 40 positions reach 39
    assert any("with max_len = 40 the figure ends before that, at 39 positions apart" in c.value for c in at.caption)


def test_relative_odd_buckets_with_bidirectional_give_a_clear_error():
    at = open_page("relative", rel_view="T5")
    at.number_input(key="t5_buckets").set_value(33).run()
    assert not at.exception
    assert len(at.error) == 1 and "num_buckets must be even, got 33" in at.error[0].value
    assert chart_keys(at) == [] and grid_keys(at) == []  # the T5 views wait for a valid setting
    at.toggle(key="t5_bidirectional").set_value(False).run()  # a decoder uses all 33
    assert_clean(at)
    assert chart_keys(at) == ["t5_buckets_map"] and grid_keys(at) == ["t5_bias_map"]


def test_relative_each_tab_draws_its_own_figures_and_is_a_link():
    expected = {
        None: ["alibi_heads_map"],  # the lines and the slopes are built only when their box is open
        "ALiBi's span": ["alibi_weights"],
        "T5": ["t5_buckets_map", "t5_bias_map"],  # the heads of each as a panel grid the browser paints, the rest Plotly charts
        "Shaw": ["shaw_clip"],
        "KERPLE and the checklist": ["kerple_lines"],
    }
    for view, keys in expected.items():
        at = open_page("relative", **({} if view is None else {"rel_view": view}))
        assert_clean(at)
        assert sorted(chart_keys(at) + grid_keys(at)) == sorted(keys), view
        assert at.select_slider(key="alibi_heads").value == 8  # the head count stays above the tabs
    more = open_page("relative", alibi_more="true")  # the box opened by its link: the lines and the slopes too
    assert sorted(chart_keys(more) + grid_keys(more)) == ["alibi_heads_map", "alibi_lines", "alibi_slopes"]
    shaw = open_page("relative", rel_view="Shaw")
    assert grid(shaw, "shaw_clip")["title"].startswith("clip(j − i")
    checklist = open_page("relative", rel_view="KERPLE and the checklist")
    assert len(checklist.table) == 1  # the checklist's table


def test_relative_heads_set_above_the_tabs_reach_kerple():
    at = open_page("relative", rel_view="KERPLE and the checklist", alibi_heads="4")
    assert_clean(at)
    params = kerple.kerple_parameters(4, seed=0)
    lines = figure(at, "kerple_lines")["data"]
    assert len(lines) == 4  # one line per head of the 4, not the default 8
    for h, line in enumerate(lines):
        x = decode(line["x"]).astype(np.float64)
        expected = kerple.kerple_log_bias(params["r1"], params["r2"], x, np.zeros(1))[h, :, 0]
        np.testing.assert_allclose(decode(line["y"]).astype(np.float64), expected, rtol=1e-6, atol=1e-9)
    assert any("for the 4 heads set above" in c.value for c in at.caption)


def test_relative_a_bad_value_of_a_closed_tab_is_named_too():
    at = open_page("relative", t5_buckets="abc", shaw_k="99")  # the ALiBi tab open
    assert_clean(at)
    assert any("t5_buckets" in w.value for w in at.warning) and any("shaw_k" in w.value for w in at.warning)


def test_relative_max_distance_inside_the_exact_buckets_gives_an_error():
    at = open_page("relative", rel_view="T5")
    at.number_input(key="t5_max_distance").set_value(8).run()  # 32 buckets: 8 exact per side
    assert not at.exception
    assert any("max_distance must be larger than the 8 distances" in e.value for e in at.error)


@pytest.mark.parametrize("raw", ["0", "100", "abc", "2.5"])
def test_relative_bad_alibi_heads_in_the_link(raw):
    at = open_page("relative", alibi_heads=raw, alibi_more="true")
    assert_clean(at)
    assert len(at.warning) == 1 and "alibi_heads" in at.warning[0].value and "1 to 64" in at.warning[0].value
    assert at.select_slider(key="alibi_heads").value == 8
    np.testing.assert_allclose(decode(figure(at, "alibi_slopes")["data"][0]["y"]), 2.0 ** -np.arange(1, 9))


@pytest.mark.parametrize("raw", ["1", "abc", "300"])
def test_relative_bad_t5_buckets_in_the_link(raw):
    at = open_page("relative", t5_buckets=raw, rel_view="T5")
    assert not at.exception
    assert len(at.warning) == 1 and "t5_buckets" in at.warning[0].value
    assert at.number_input(key="t5_buckets").value == 32


@pytest.mark.parametrize("k", [0, 4, 10, 64])
def test_relative_shaw_heatmap_is_the_clipped_offset(k):
    at = open_page("relative", rel_view="Shaw")
    at.slider(key="shaw_k").set_value(k).run()
    assert_clean(at)
    (panel,) = grid(at, "shaw_clip")["panels"]
    z = decode(panel["z"]).astype(np.int64)
    i = np.arange(32)
    assert np.array_equal(z, np.clip(i[None, :] - i[:, None], -k, k))  # row = query i, column = key j
    assert np.unique(z).size == min(2 * k + 1, 63)
    bound = max(min(k, 31), 1)  # ±the largest clipped offset among 32 positions (±1 when every one is 0)
    assert panel["zmax"] == bound and panel["zmin"] == -bound
    distinct = relative.shaw_distinct_ids(256, 256, k)
    used = "the one vector" if k == 0 else f"{distinct:,} of the {2 * k + 1} vectors"
    assert any(f"Over 256 positions the pairs use {used}." in c.value for c in at.caption)
    assert distinct == min(2 * k + 1, 2 * 255 + 1)


def test_relative_checklist_has_its_terms_beside_it():
    at = open_page("relative", max_len="16", rel_view="KERPLE and the checklist")
    assert_clean(at)
    assert len(at.table) == 1  # the scorecard; the glossary closed, not built
    rows = {row["property"].split(":")[0]: row for _, row in plain_table(at.table[0]).iterrows()}
    # T5 at max_len 16: [16, 32) reaches buckets [0, 16) did not, but one scalar per bucket bounds it
    assert rows["bounded"]["T5 relative buckets"] == "✓ max |value| ×1.198 on [L, 2L), no higher up to position 16,777,215"
    assert rows["bounded"]["ALiBi"].startswith("✗") and rows["bounded"]["KERPLE (log)"].startswith("✗")
    at.session_state["terms_scorecard"] = True  # open it, as a click would
    at.run()
    terms = plain_table(at.table[-1])
    assert terms["term"].tolist() == list(glossary.SCORECARD)
    assert terms["what it means"].tolist() == [glossary.TERMS[t][1] for t in glossary.SCORECARD]
