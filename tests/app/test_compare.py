"""AppTest of the `compare` page: the properties table and the panels are the numbers of core at
the same settings, worked by hand where that is short; bad settings give a message and no exception."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.analysis import properties
from core.schemes import relative, rope
from core.schemes.registry import SCHEMES, Setting
from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz.columns import columns
from core.viz.grid import strided, window
from tests.app.conftest import assert_clean, chart_keys, decode, grid_keys, grids, open_page, panel_levels, plain_table

TABLE_COLUMNS = {"max |value|": "bounded", "min distance": "unique", "neighbour / mean": "smooth", "relative departure": "relative"}


def table_rows(at) -> dict[str, dict]:
    """The numbers table keyed by scheme label, each row with its checklist row (the static table above it)."""
    checks = {row["scheme"]: row for row in plain_table(at.table[0]).to_dict("records")}
    numbers = {row["scheme"]: row for row in at.dataframe[0].value.to_dict("records")} if len(at.dataframe) else {}
    return {scheme: row | numbers.get(scheme, {}) for scheme, row in checks.items()}


def check_table(at, names, d, L, base, heads):
    rows = table_rows(at)
    assert list(rows) == [SCHEMES[n].label for n in names]  # one row per selected scheme, in order
    setting = Setting(width=d, base=base, train_len=L, n_heads=heads)
    for n in names:
        row = rows[SCHEMES[n].label]
        try:
            expected = properties.measure(SCHEMES[n], setting, L)
        except ValueError as err:
            assert row["past max_len"] == str(err) and row["unique"] == "not measured"
            continue
        for column, field in TABLE_COLUMNS.items():  # as shown: 4 significant digits, n/a where it does not apply
            want = getattr(expected, field)
            assert row[column] == ("n/a" if math.isnan(want) else f"{want:.4g}"), (n, column)
        assert row["past max_len"] == expected.extrapolation
        assert row["over"] == expected.measured_over
        assert row["params"] == f"{expected.parameters:,}"
        marks = properties.checklist(expected)  # one column per property, a word for each verdict
        verdict = {True: "✓ yes", False: "✗ no", None: "n/a"}
        assert [row[label] for label, _ in properties.CHECKLIST] == [verdict[marks[label][0]] for label, _ in properties.CHECKLIST]


def test_compare_table_is_measure_at_the_same_settings():
    at = open_page("compare", d_model="32", max_len="300", base="500", compare_view="Properties")
    assert_clean(at)
    check_table(at, list(SCHEMES), 32, 300, 500.0, 8)
    rows = table_rows(at)
    assert rows["integer p"]["max |value|"] == "299"  # by hand: the largest position
    assert rows["ALiBi"]["max |value|"] == "149.5"  # slope 1/2 at distance 299
    assert rows["learned absolute table"]["params"] == "9,600"  # 300 x 32, by hand
    assert any("256 of 300 positions" in c.value for c in at.caption)  # says it measured a sample
    assert rows["none (NoPE)"]["unique"] == rows["none (NoPE)"]["neighbour / mean"] == "n/a"  # nothing to measure: n/a, not None


def test_compare_table_follows_the_selection_and_the_heads():
    at = open_page("compare", d_model="16", max_len="40", compare_view="Properties")
    at.multiselect(key="schemes").set_value(["shaw", "integer", "alibi", "t5"]).run()
    assert_clean(at)
    check_table(at, ["shaw", "integer", "alibi", "t5"], 16, 40, 10_000.0, 8)
    at.selectbox(key="heads").set_value(2).run()
    check_table(at, ["shaw", "integer", "alibi", "t5"], 16, 40, 10_000.0, 2)
    rows = table_rows(at)
    assert rows["T5 relative buckets"]["params"] == "64"  # 32 buckets x 2 heads
    assert rows["Shaw relative (clip 16)"]["params"] == "264"  # 33 offsets x head width 16 / 2
    assert rows["ALiBi"]["min distance"] == f"{math.hypot(1 / 16, 1 / 256):.4g}"  # 2 heads: slopes 2^-4, 2^-8


def test_compare_schemes_from_the_link():
    at = open_page("compare", d_model="16", max_len="40", schemes="integer,alibi")
    assert_clean(at)
    assert at.multiselect(key="schemes").value == ["integer", "alibi"]
    codes, biases = grids(at)  # position x dimension and query x key: each grid its own axes
    assert [p["title"] for p in codes["panels"]] == ["integer p"] and [p["title"] for p in biases["panels"]] == ["ALiBi"]
    assert (codes["x_title"], codes["y_title"], biases["x_title"], biases["y_title"]) == ("dimension", "position", "key position", "query position")
    at = open_page("compare", d_model="16", max_len="40", schemes="integer,alibi", compare_view="Properties")
    assert list(table_rows(at)) == ["integer p", "ALiBi"]


def test_compare_at_an_odd_width_says_why_rope_cannot_run():
    at = open_page("compare", d_model="7", max_len="40", compare_view="Properties")
    assert_clean(at)
    check_table(at, list(SCHEMES), 7, 40, 10_000.0, 8)
    assert "head_dim must be even, got 7" in table_rows(at)["rotary (RoPE)"]["past max_len"]
    at = open_page("compare", d_model="7", max_len="40")
    assert_clean(at)
    assert any(c.value.startswith("**rotary (RoPE)**: head_dim must be even") for c in at.caption)
    rope_panel = panel(at, 0, "rope")
    assert np.isnan(decode(rope_panel["z"]).astype(float)).all()  # blank panel


def test_compare_with_nothing_selected_says_so():
    at = open_page("compare")
    at.multiselect(key="schemes").set_value([]).run()
    assert not at.exception
    assert [i.value for i in at.info] == ["Pick at least one scheme to compare, under ‘Schemes, heads and the first position drawn’."]
    assert grids(at) == [] and chart_keys(at) == [] and len(at.dataframe) == 0


def panel(at, grid_index, name) -> dict:
    """A scheme's panel in the page's grids (core.viz.heatmap): its title, values, range and axes. The
    codes tab draws codes (grid 0) and biases (grid 1) apart; `grid_index` 0 looks in the tab's grids."""
    (found,) = [p for spec in grids(at)[grid_index:] for p in spec["panels"] if p["title"] == SCHEMES[name].label]
    return found


def test_compare_code_panel_of_the_sinusoid_is_its_table_at_whole_pairs():
    d, L = 128, 256
    at = open_page("compare")
    pos = window(L, 40)  # the page's GRID consecutive positions
    dims = columns(SCHEMES["sinusoidal"], Setting(width=d, train_len=L), 40)
    trace = panel(at, 0, "sinusoidal")
    x = np.asarray(trace["x"]["indices"])  # slots of whole pairs, each with its true dimension
    assert np.array_equal(trace["y"]["indices"], pos.indices) and np.array_equal(x, dims.indices)
    labels = [int(label.replace(",", "")) for _, label in trace["x"]["ticks"]]
    assert labels and set(labels) <= set(x.tolist())  # the ticks name drawn dimensions, at their own slots
    for share, label in trace["x"]["ticks"]:
        assert x[int(share * x.size)] == int(label.replace(",", ""))
    assert all(j + 1 in set(x) for j in x if j % 2 == 0) and all(j - 1 in set(x) for j in x if j % 2 == 1)  # every sin with its cos
    expected = sinusoidal_encoding(L, d, 10_000.0)[np.ix_(pos.indices, dims.indices)]
    np.testing.assert_allclose(decode(trace["z"]), expected, atol=1e-6)
    # its score panel (in the Scores tab): PE(m)·PE(n), a function of m - n only
    score = decode(panel(open_page("compare", compare_view="Scores"), 0, "sinusoidal")["z"]).astype(np.float64)
    pe = sinusoidal_encoding(L, d, 10_000.0)[pos.indices]
    np.testing.assert_allclose(score, pe @ pe.T, atol=1e-4, rtol=1e-6)
    np.testing.assert_allclose(score[0, 3], score[10, 13], atol=1e-4)


def test_compare_integer_and_onehot_panels_by_hand():
    d, L = 16, 40
    at = open_page("compare", d_model=str(d), max_len=str(L))
    pos, dims = strided(L, 40), strided(d, 40)
    integer = decode(panel(at, 0, "integer")["z"])
    assert np.array_equal(integer, np.repeat(pos.indices[:, None], dims.count, axis=1))
    scores = open_page("compare", d_model=str(d), max_len=str(L), compare_view="Scores")
    np.testing.assert_allclose(decode(panel(scores, 0, "integer")["z"]), d * np.outer(pos.indices, pos.indices), rtol=1e-6)  # S = d m n
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


def test_compare_draws_only_the_open_tab():
    """A step of a shared slider redraws the open tab's figure; the others are in the link."""
    at = open_page("compare")
    assert grid_keys(at) == ["compare_codes", "compare_biases"] and chart_keys(at) == []
    at = open_page("compare", compare_view="Scores")
    assert grid_keys(at) == ["compare_scores"] and chart_keys(at) == [] and len(at.dataframe) == 0
    at = open_page("compare", compare_view="Properties")
    assert grid_keys(at) == [] and chart_keys(at) == [] and len(at.dataframe) == 1 and len(at.table) == 1


def test_compare_one_colour_range_by_default_and_its_own_range_per_panel_on_the_switch():
    """One range on a log scale by default (integer p's ±39 beside p/L's ±0.975: the growth shows, p/L still shows, and the caption
    names both); each panel its own plain range on the switch (every pattern at full strength)."""
    at = open_page("compare", d_model="16", max_len="40", schemes="integer,fraction,alibi")
    codes, biases = grids(at)
    assert codes["shared_range"] and all(p["zmax"] == pytest.approx(39, rel=1e-6) and p["zmin"] == pytest.approx(-39, rel=1e-6) for p in codes["panels"])
    assert biases["shared_range"] and codes["scales"][0]["log_floor"] == pytest.approx(0.0975, rel=1e-6)  # a tenth of p/L's largest
    fraction = panel_levels(codes["panels"][1])  # no blank panel: p/L's 0.975 is log10(11) / log10(401) = 40% of the way from white to the end
    assert (fraction.min(), fraction.max()) == (127, round(127 + 127 * np.log10(11) / np.log10(401)))  # 178, where a plain range paints 130
    assert any("log scale" in c.value and "runs from 0 to 39 and" in c.value and "only from 0 to 0.975, 40 times smaller" in c.value for c in at.caption)
    at.toggle(key="compare_shared").set_value(False).run()
    assert_clean(at)
    codes = grids(at)[0]
    assert not codes["shared_range"] and [p["zmax"] for p in codes["panels"]] == pytest.approx([39, 39 / 40], rel=1e-6)
    assert any("its own colour range" in c.value for c in at.caption)
