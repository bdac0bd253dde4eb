"""core.viz.heatmap: what a heatmap painted by the browser shows, worked by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.viz import charts, wire
from core.viz.grid import Picked, pairs, strided, window
from core.viz.heatmap import LEVELS, Binned, Named, ScaleGroup, axis, grouped_heatmap, heatmap, level_edges, levels, signed_log
from tests.app.conftest import decode, panel_levels, panel_palette


def test_consecutive_axis_ticks_stand_at_the_centres_of_their_cells():
    got = axis(window(100, 40, start=20))  # positions 20 .. 59
    assert got["indices"] == list(range(20, 60))
    assert [label for _, label in got["ticks"]] == ["20", "30", "40", "50"]
    assert [share for share, _ in got["ticks"]] == [0.5 / 40, 10.5 / 40, 20.5 / 40, 30.5 / 40]


def test_strided_axis_ticks_fall_where_their_index_lies():
    s = strided(8192, 32)  # every 256th dimension: 0, 256, ..., 7936
    got = axis(s)
    labels = [int(label.replace(",", "")) for _, label in got["ticks"]]
    assert labels == [0, 2000, 4000, 6000] and got["ticks"][1][1] == "2,000"
    for share, label in got["ticks"]:  # 2,000 lies between the cells of 1,792 and 2,048, at slot 7.8125
        assert share == pytest.approx((int(label.replace(",", "")) / 256 + 0.5) / 32)


def test_picked_axis_labels_drawn_slots_with_their_own_index():
    picked = pairs(np.arange(0, 128, 2), np.arange(1, 128, 2), 8)  # whole (sin, cos) pairs of 128 interleaved columns: 0 1 32 33 ...
    assert isinstance(picked, Picked)
    got = axis(picked)
    assert got["indices"] == [int(i) for i in picked.indices]
    n = len(got["indices"])
    for share, label in got["ticks"]:
        slot = share * n - 0.5
        assert slot == int(slot) and got["indices"][int(slot)] == int(label.replace(",", ""))
    assert got["ticks"][0] == [0.5 / n, "0"] and got["ticks"][-1][1] == f"{picked.indices[-1]:,}"


def test_each_panel_has_its_own_range_under_its_title():
    a = np.array([[1.0, -3.0], [np.nan, 2.0]])
    b = np.array([[0.001, 0.0], [0.0, -0.0025]])
    blank = np.full((2, 2), np.nan)
    g = strided(2, 2)
    spec = heatmap([("a", a, g, g), ("b", b, g, g), ("none", blank, g, g), ("zero", np.zeros((2, 2)), g, g)], title="T", x_title="x", y_title="y")
    ranges = [(p["zmin"], p["zmax"], p["range"]) for p in spec["panels"]]
    blank_range = (-1.0, 1.0, "colour range ±1.00")  # no value, or all zero: a range of 1, not 0
    assert ranges == [(-3.0, 3.0, "colour range ±3.00"), (-0.0025, 0.0025, "colour range ±0.00250"), blank_range, blank_range]
    assert spec["note"] == "each panel has its own colour range" and not spec["shared_range"]
    (scale,) = spec["scales"]
    assert scale["lo"] == "−range" and scale["note"] == "(value; white: 0; each panel's range is under its title)" and scale["signed"]
    assert [p["scale"] for p in spec["panels"]] == [0, 0, 0, 0]
    z = decode(spec["panels"][0]["z"])
    assert z.dtype == np.float32 and z.shape == (2, 2) and np.isnan(z[1, 0]) and z[0, 1] == -3.0  # NaN (no value) survives
    assert np.isnan(decode(spec["panels"][2]["z"])).all()


def test_a_shared_range_is_the_largest_value_over_all_panels_and_said_once():
    g = strided(2, 2)
    spec = heatmap(
        [("h1", np.array([[0.5, -0.25], [0, 0]]), g, g), ("h2", np.zeros((2, 2)), g, g), ("h3", np.array([[0.1, np.nan], [-0.75, 0]]), g, g)],
        title="T",
        x_title="x",
        y_title="y",
        note="positions 0 to 1 of 10",
        shared_range=True,
    )
    assert [(p["zmin"], p["zmax"], p["range"]) for p in spec["panels"]] == [(-0.75, 0.75, "")] * 3  # the zero panel does not widen it to 1
    assert spec["note"] == "positions 0 to 1 of 10; one colour range for every panel, ±0.750"
    assert (spec["scales"][0]["lo"], spec["scales"][0]["hi"]) == ("−0.750", "+0.750")
    cosine = np.array([[1.0, 0.5], [0.5, 1.0]])
    fixed = heatmap([("c", cosine, g, g)], title="T", x_title="x", y_title="y", shared_range=True, zmax=1.0, value_title="cosine")
    assert fixed["panels"][0]["zmax"] == 1.0 and fixed["scales"][0]["note"] == "(cosine; white: 0)" and fixed["scales"][0]["value"] == "cosine"
    assert fixed["note"] == "colour range ±1.00"  # one panel: no "every panel"
    with pytest.raises(ValueError, match="holds every value"):  # a fixed range never clips a value
        heatmap([("c", np.array([[2.0]]), strided(1, 1), strided(1, 1))], title="T", x_title="x", y_title="y", shared_range=True, zmax=1.0)


def test_a_shared_log_range_colours_a_panel_a_hundred_times_smaller_and_says_so():
    # integer-like values to ±40 beside ones to ±0.4: the floor is a tenth of the smaller panel's largest, 0.04, so 0.4 is
    # log10(1 + 10) = 1.0414 of log10(1 + 1000) = 3.0004 of the way out from 0: level 127 + 0.3471 · 127 = 171.08 -> 171
    xs, ys = strided(3, 3), strided(1, 1)
    big, small = np.array([[-40.0, 0.0, 40.0]]), np.array([[-0.4, 0.0, 0.4]])
    spec = heatmap([("big", big, xs, ys), ("small", small, xs, ys)], title="T", x_title="x", y_title="y", shared_range=True, log_scale=True)
    scale = spec["scales"][0]
    assert scale["log_floor"] == pytest.approx(0.04) and (scale["lo"], scale["hi"]) == ("−40.0", "+40.0")
    assert scale["note"] == "(value; white: 0; a log scale, so values down to ±0.0400 still show some colour)"
    assert scale["dark"]["note"].startswith("(value; dark grey: 0; a log scale")
    assert spec["note"] == "one colour range for every panel, ±40.0, on a log scale"
    assert [p["zmax"] for p in spec["panels"]] == [40.0, 40.0]  # the range is the values', as the key says
    assert panel_levels(spec["panels"][0]).tolist() == [[0, 127, 254]]
    assert panel_levels(spec["panels"][1]).tolist() == [[83, 127, 171]]  # on a plain range ±40 it would be [[126, 127, 128]]: white
    assert levels(small, -40.0, 40.0).tolist() == [[126, 127, 128]]
    np.testing.assert_allclose(signed_log(np.array([-0.4, 0.0, 40.0]), 0.04), [-np.log10(11), 0.0, np.log10(1001)])
    with pytest.raises(ValueError, match="shared by every panel"):
        heatmap([("big", big, xs, ys)], title="T", x_title="x", y_title="y", log_scale=True)


def test_the_colours_are_255_levels_whose_edges_are_sent():
    g = strided(3, 3)
    spec = heatmap([("p", np.eye(3), g, g)], title="T", x_title="x", y_title="y")
    assert np.array_equal(np.asarray(spec["scales"][0]["colours"]), wire.colour_lut(charts.DIVERGING, LEVELS))
    z = np.array([[-2.0, 0.0, 2.0], [5.0, -5.0, np.nan], [1.0, -1.0, 0.004]])
    assert levels(z, -2.0, 2.0).tolist() == [[0, 127, 254], [254, 0, -1], [191, 64, 127]]  # (1 + 2) / 4 * 254 = 190.5: halves go up
    edges = level_edges(-1.0, 1.0)
    assert edges.shape == (254,) and edges[0] == -1 + 1 / 254 and edges[-1] == 1 - 1 / 254
    assert levels(edges, -1.0, 1.0).tolist() == list(range(1, 255))  # a value on an edge has reached it
    assert levels(np.nextafter(edges, -np.inf), -1.0, 1.0).tolist() == list(range(254))
    assert panel_levels(spec["panels"][0]).tolist() == levels(np.eye(3), -1.0, 1.0).tolist()  # the picture sent is these levels


def test_bad_panels_are_refused():
    g = strided(2, 2)
    with pytest.raises(ValueError, match="at least one panel"):
        heatmap([], title="T", x_title="x", y_title="y")
    with pytest.raises(ValueError, match="shape"):
        heatmap([("p", np.zeros((3, 2)), g, g)], title="T", x_title="x", y_title="y")


def test_columns_and_size_of_compares_grid():
    pos = window(131072, 40, start=131032)
    cols = strided(8192, 40)
    panels = [(f"s{k}", np.random.default_rng(k).standard_normal((40, cols.count)) * 10.0**k, cols, pos) for k in range(13)]
    spec = heatmap(panels, title="T", x_title="x", y_title="y", columns=3)
    assert spec["columns"] == 3 and heatmap(panels[:2], title="T", x_title="x", y_title="y")["columns"] == 2
    assert spec["panels"][0]["y"]["ticks"][0][1] == "131,040"  # thousands separated, as the Plotly axes did
    assert len(json.dumps(spec)) < 200_000  # 13 panels of 40 x 40 float32 and their pictures (noise: the largest PNGs), inside a step's 300 kB


def test_named_axes_label_every_kth_slot_with_its_word_and_keep_every_name():
    s = strided(5, 5)
    words = ["0:the", "1:cat", "2:sat", "3:on", "4:the"]  # a word twice, told apart by its position
    got = axis(Named(s, words, every=2))
    assert got["indices"] == [0, 1, 2, 3, 4] and got["names"] == words
    assert got["ticks"] == [[0.1, "0:the"], [0.5, "2:sat"], [0.9, "4:the"]]  # slots 0, 2, 4 at the centres of their cells
    assert axis(Named(s, words))["ticks"] == [[(k + 0.5) / 5, w] for k, w in enumerate(words)]
    with pytest.raises(ValueError, match="4 names for 5"):
        axis(Named(s, words[:4]))


def test_binned_axes_tick_round_values_where_they_fall_and_send_each_bins_value():
    freqs = np.arange(11) / 20  # bins of 0.05 cycles per position, 0 to 0.5
    got = axis(Binned(freqs, [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]))
    assert got["values"] == [float(f"{f:.4g}") for f in freqs] and got["indices"] == list(range(11))
    assert [label for _, label in got["ticks"]] == ["0", "0.1", "0.2", "0.3", "0.4", "0.5"]  # 0.6 lies past the last bin
    for share, label in got["ticks"]:  # each at the centre of the bin of its value
        assert share == pytest.approx((float(label) / 0.05 + 0.5) / 11)


def test_a_windows_last_index_is_sent_for_a_box_over_its_last_cell():
    assert axis(strided(1000, 250, start=100))["last"] == 999  # every 4th position from 100: the last cell stands for 996 to 999
    assert axis(window(100, 40, start=20))["last"] == 59


def test_a_grouped_grid_gives_each_group_its_scale_range_and_key():
    """Attention's picture: two weight panels on one sequential range from 0, their difference on
    the diverging scale ±max|difference|, a key each; a PNG past EXACT_CELLS on its own scale's colours."""
    w = Named(strided(2, 2), ["0:a", "1:b"])
    plain, with_pe = np.array([[0.5, 0.5], [0.25, 0.75]]), np.array([[0.9, 0.1], [0.5, 0.5]])
    spec = grouped_heatmap(
        [
            ScaleGroup([("without", plain, w, w), ("with", with_pe, w, w)], signed=False, zmin=0.0, zmax=0.9, colorbar_title="weight", hover="weight"),
            ScaleGroup([("difference", with_pe - plain, w, w)], colorbar_title="difference", hover="with − without"),
        ],
        title="T",
        x_title="key word",
        y_title="query word",
    )
    weights, difference = spec["scales"]
    assert (weights["lo"], weights["hi"], weights["note"], weights["value"], weights["signed"]) == ("0", "0.900", "(weight: without, with)", "weight", False)
    assert (difference["lo"], difference["hi"], difference["note"], difference["signed"]) == ("−0.400", "+0.400", "(difference; white: 0)", True)
    # a short name for the panels a key serves, said instead of their titles; a lone group's key names none
    named = ScaleGroup([("without", plain, w, w), ("with", with_pe, w, w)], signed=False, zmin=0.0, zmax=0.9, colorbar_title="weight", key_name="the first two")
    lone = ScaleGroup([("difference", with_pe - plain, w, w)], colorbar_title="difference", key_name="the last")
    notes = [scale["note"] for scale in grouped_heatmap([named, lone], title="T", x_title="x", y_title="y")["scales"]]
    assert notes == ["(weight: the first two)", "(difference: the last; white: 0)"]
    assert grouped_heatmap([named], title="T", x_title="x", y_title="y")["scales"][0]["note"] == "(weight)"
    assert np.array_equal(np.asarray(weights["colours"]), wire.colour_lut(charts.SEQUENTIAL, 255))
    assert np.array_equal(np.asarray(difference["colours"]), wire.colour_lut(charts.DIVERGING, 255))
    ranges = [(p["title"], p["scale"], p["zmin"], p["zmax"]) for p in spec["panels"]]
    assert ranges == [("without", 0, 0.0, 0.9), ("with", 0, 0.0, 0.9), ("difference", 1, pytest.approx(-0.4), pytest.approx(0.4))]
    assert spec["columns"] == 3 and spec["shared_range"]
    assert all(p["x"]["names"] == p["y"]["names"] == ["0:a", "1:b"] for p in spec["panels"])
    np.testing.assert_allclose(decode(spec["panels"][2]["z"]), with_pe - plain, atol=1e-7)
    # the weight 0.25 sits at level round(0.25 / 0.9 * 254) = 71 of the sequential scale, 0.5 at 141
    assert levels(plain, 0.0, 0.9).tolist() == [[141, 141], [71, 212]] == panel_levels(spec["panels"][0]).tolist()
    big = strided(120, 120)
    rng = np.random.default_rng(0)
    wide = grouped_heatmap(
        [
            ScaleGroup([("w", rng.random((120, 120)), big, big)], signed=False, zmin=0.0, zmax=1.0),
            ScaleGroup([("d", rng.normal(size=(120, 120)), big, big)]),
        ],
        title="T",
        x_title="x",
        y_title="y",
    )
    for panel, name in zip(wide["panels"], (charts.SEQUENTIAL, charts.DIVERGING)):  # 28,800 cells: every 2nd row and column's value for the hover
        assert np.array_equal(panel_palette(panel)[:255], wire.colour_lut(name, 255)) and panel["probe"] == 2  # each PNG on its own scale
        assert panel["probe_note"] == "(hover reads every 2nd row and column)" and decode(panel["z"]).shape == (60, 60)
    assert spec["panels"][0]["probe"] == 1 and spec["panels"][0]["probe_note"] == ""
    assert all("names" not in p["x"] for p in wide["panels"])
    with pytest.raises(ValueError, match="every group"):
        grouped_heatmap([ScaleGroup([])], title="T", x_title="x", y_title="y")


def test_a_panel_without_values_does_not_set_its_groups_range_and_no_range_clips():
    g = strided(2, 2)
    blank, signed, weights = np.full((2, 2), np.nan), np.array([[5.0, -1.0], [0.0, 2.0]]), np.array([[0.2, np.nan], [0.6, 0.4]])
    spec = grouped_heatmap(
        [ScaleGroup([("blank", blank, g, g), ("d", signed, g, g)]), ScaleGroup([("w", weights, g, g), ("none", blank, g, g)], signed=False)],
        title="T",
        x_title="x",
        y_title="y",
    )
    assert [(p["zmin"], p["zmax"]) for p in spec["panels"]] == [(-5.0, 5.0), (-5.0, 5.0), (0.2, 0.6), (0.2, 0.6)]  # NaN panels set nothing
    assert [s["lo"] for s in spec["scales"]] == ["−5.00", "0.200"] and json.dumps(spec, allow_nan=False)  # no NaN reaches the browser
    flat = grouped_heatmap([ScaleGroup([("c", np.full((2, 2), 0.25), g, g)], signed=False)], title="T", x_title="x", y_title="y")
    assert (flat["panels"][0]["zmin"], flat["panels"][0]["zmax"]) == (0.25, 1.25)  # a constant group: a range of 1, never 0
    with pytest.raises(ValueError, match="must hold every value"):
        grouped_heatmap([ScaleGroup([("w", weights, g, g)], signed=False, zmin=0.0, zmax=0.5)], title="T", x_title="x", y_title="y")


def test_a_long_name_is_cut_for_its_label_and_hover():
    words = ["0:" + "a" * 100_000, "1:b"]
    got = axis(Named(strided(2, 2), words))
    assert got["names"] == ["0:" + "a" * 21 + "…", "1:b"] and len(got["names"][0]) == 24
    assert [label for _, label in got["ticks"]] == got["names"]


def test_a_clipped_group_paints_values_beyond_its_range_at_the_ends_and_its_key_says_so():
    g = strided(2, 2)
    share = np.array([[0.1, 0.6], [0.0, 0.25]])  # a share of power above the cap of 0.25
    spec = grouped_heatmap([ScaleGroup([("s", share, g, g)], signed=False, zmin=0.0, zmax=0.25, clipped=True)], title="T", x_title="x", y_title="y")
    (scale,) = spec["scales"]
    assert (scale["lo"], scale["hi"], scale["clipped"]) == ("≤ 0", "≥ 0.250", True)
    assert panel_levels(spec["panels"][0]).tolist() == [[102, 254], [0, 254]]


def test_one_signed_values_take_the_sequential_scale_over_their_own_range():
    grid = strided(3, 3)
    small, large = np.array([[0.0, 1, 2], [3, 4, 5], [6, 7, 8]]), np.array([[10.0, 20, 30], [40, 50, 60], [70, 80, 90]])
    shared = heatmap([("a", small, grid, grid), ("b", large, grid, grid)], title="t", x_title="x", y_title="y", shared_range=True, one_signed=True)
    assert [(p["zmin"], p["zmax"]) for p in shared["panels"]] == [(0.0, 90.0), (0.0, 90.0)]
    assert not shared["scales"][0]["signed"] and shared["scales"][0]["colours"] == wire.colour_lut(charts.SEQUENTIAL, LEVELS).tolist()
    assert (shared["scales"][0]["lo"], shared["scales"][0]["hi"]) == ("0", "90.0") and shared["note"].endswith("one colour range for every panel, 0 to 90.0")
    own = heatmap([("a", small, grid, grid), ("b", large, grid, grid)], title="t", x_title="x", y_title="y", one_signed=True)
    assert [(p["zmin"], p["zmax"], p["range"]) for p in own["panels"]] == [(0.0, 8.0, "colour range 0 to 8.00"), (10.0, 90.0, "colour range 10.0 to 90.0")]
    # the least value is level 0, the largest the top level, on each panel's own range
    assert levels(small, 0.0, 8.0)[0, 0] == 0 and levels(small, 0.0, 8.0)[2, 2] == LEVELS - 1
    with pytest.raises(ValueError, match="one side of zero"):
        heatmap([("a", small - 4, grid, grid)], title="t", x_title="x", y_title="y", one_signed=True)


def test_a_signed_scale_carries_a_dark_theme_twin_whose_zero_is_dark_and_whose_ends_are_light():
    from core.viz import palette

    spec = heatmap([("a", np.array([[-1.0, 0.0, 1.0]]), strided(3, 3), strided(1, 1))], title="t", x_title="x", y_title="y")
    (scale,) = spec["scales"]
    dark = np.asarray(scale["dark"]["colours"], dtype=np.float64)
    assert dark.shape == (LEVELS, 3) and scale["dark"]["note"] == scale["note"].replace("white: 0", "dark grey: 0") != scale["note"]
    assert np.array_equal(dark, wire.colour_lut(palette.DARK_DIVERGING, LEVELS))
    assert scale["colours"][LEVELS // 2] == [247, 247, 247]  # the light scale's 0: RdBu's near-white
    assert dark[LEVELS // 2].tolist() == [43, 47, 56]  # its twin's 0: #2b2f38, the middle stop, by hand

    def lum(c):
        c = c / 255
        c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return c @ [0.2126, 0.7152, 0.0722]

    light_from_middle = [lum(dark[LEVELS // 2 + k]) for k in range(0, LEVELS // 2 + 1, 16)]
    dark_from_middle = [lum(dark[LEVELS // 2 - k]) for k in range(0, LEVELS // 2 + 1, 16)]
    assert np.all(np.diff(light_from_middle) > 0) and np.all(np.diff(dark_from_middle) > 0)  # lighter away from 0, both ways
    page = lum(np.array([14.0, 17.0, 23.0]))  # the dark theme's background, #0E1117
    assert (lum(dark[LEVELS // 2]) + 0.05) / (page + 0.05) > 1.3  # a cell of 0 still shows against the page, as a blank one does not
    one_signed = heatmap([("a", np.array([[-1.0, 0.0]]), strided(2, 2), strided(1, 1))], title="t", x_title="x", y_title="y", one_signed=True)
    assert "dark" not in one_signed["scales"][0]  # a sequential scale reads on either background


def test_a_keys_negative_end_is_written_with_a_minus_sign():
    g = strided(2, 2)
    spec = grouped_heatmap([ScaleGroup([("log", np.array([[-4.0, -1.0], [-2.0, 0.0]]), g, g)], signed=False)], title="T", x_title="x", y_title="y")
    assert spec["scales"][0]["lo"] == "−4.00" and spec["scales"][0]["hi"] == "0"  # U+2212, as the signed keys' "−0.750"
