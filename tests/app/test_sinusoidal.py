"""AppTest of the `sinusoidal` page's own controls: what they change on screen, and bad input."""

from __future__ import annotations

import json

import numpy as np

from core.schemes import sinusoidal
from core.viz import palette
from tests.app.conftest import assert_clean, chart_keys, decode, figure, grid_keys, grids, metric_values, open_page, title_text


def test_sinusoidal_layout_toggle_changes_the_heatmap():
    at = open_page("sinusoidal", d_model="8", max_len="16", sin_view="Picture")
    z = decode(grids(at)[0]["panels"][0]["z"])  # painted by the browser: 16 x 8 cells, every value sent
    np.testing.assert_allclose(z, sinusoidal.sinusoidal_encoding(16, 8), atol=1e-7)
    at.button_group(key="layout").set_value("concat").run()
    assert_clean(at)
    z = decode(grids(at)[0]["panels"][0]["z"])
    np.testing.assert_allclose(z, sinusoidal.sinusoidal_encoding(16, 8, layout="concat"), atol=1e-7)
    assert "sines-first layout" in " ".join(c.value for c in at.caption)


def test_sinusoidal_exact_vector_matches_core():
    at = open_page("sinusoidal", d_model="6", max_len="50", base="100", sin_view="Exact values")
    at.number_input(key="position").set_value(37).run()
    assert_clean(at)
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["PE(37, j)"].to_numpy(), sinusoidal.sinusoidal_encoding(50, 6, 100.0)[37], atol=1e-15)
    assert list(table["function"]) == ["sin", "cos"] * 3


def test_sinusoidal_counts_pairs_longer_than_context():
    at = open_page("sinusoidal", d_model="128", max_len="256", base="10000", sin_view="Spectrum")
    expected = int((sinusoidal.wavelengths(128, 1e4) > 256).sum())
    assert metric_values(at)[2] == f"{expected:,}"
    assert expected == 38


def test_the_binary_caption_counts_the_bits_drawn_beside_the_fastest_sine():
    # the count comes from the matching the figure draws: two bits at d = 128, four at d = 8 (worked in tests/core/viz/test_charts.py)
    assert "bits 0 and 1 share it" in open_page("sinusoidal", d_model="128", sin_view="Binary").caption[0].value
    assert "bits 0 to 3 all share it" in open_page("sinusoidal", d_model="8", sin_view="Binary").caption[0].value


def test_sinusoidal_latex_shows_current_settings():
    at = open_page("sinusoidal", d_model="64", base="500000")
    latex = at.latex[0].value
    assert "2i/64" in latex and "500{,}000" in latex


def test_sinusoidal_waves_need_a_dimension():
    at = open_page("sinusoidal", sin_view="Waves")
    at.multiselect(key="sin_dims").set_value([]).run()
    assert_clean(at)
    assert any("Pick at least one dimension" in i.value for i in at.info)


def test_sinusoidal_window_narrows_the_heatmap():
    at = open_page("sinusoidal", max_len="131072", sin_view="Picture")
    at.slider(key="sin_window").set_value((1000, 1099)).run()
    assert_clean(at)
    (spec,) = grids(at)
    assert "positions 1,000 to 1,099" in spec["title"]
    (panel,) = spec["panels"]
    assert panel["probe"] == 1 and not panel["probe_note"]  # 100 x 128 cells: every value sent, exact on hover
    assert panel["y"]["indices"] == list(range(1000, 1100))
    np.testing.assert_allclose(decode(panel["z"]), sinusoidal.sinusoidal_encoding(131072, 128, positions=np.arange(1000, 1100)), atol=1e-6)


def test_sinusoidal_draws_only_the_open_tab():
    """A step of a shared slider redraws the open tab's figures, not the page's; the
    others are one click away, and in the link."""
    at = open_page("sinusoidal")  # the first tab, the live preview: the browser draws it, the server sends no figure
    assert grid_keys(at) == [] and chart_keys(at) == []
    assert sorted(el.proto.component_name for el in at.get("bidi_component")) == ["pee.sinusoid_preview", "pee_history", "pee_scroll_regions"]
    at = open_page("sinusoidal", sin_view="Picture")
    assert grid_keys(at) == ["sin_heatmap"] and chart_keys(at) == []
    at = open_page("sinusoidal", sin_view="tensor2tensor")
    assert grid_keys(at) == ["sin_t2t"] and chart_keys(at) == ["sin_t2t_freq"]
    assert at.query_params["sin_view"] == "tensor2tensor"
    at.number_input(key="d_model").set_value(64).run()
    assert_clean(at)
    assert grid_keys(at) == ["sin_t2t"] and chart_keys(at) == ["sin_t2t_freq"]
    # the two conventions in their schemes' colours, as on /compare's and /lab's figures
    paper, t2t = figure(at, "sin_t2t_freq")["data"]
    assert (paper["line"]["color"], t2t["line"]["color"]) == (palette.scheme_colour("sinusoidal"), palette.scheme_colour("t2t"))


def test_the_live_preview_tab_starts_at_the_sidebar_settings_with_the_apps_scale():
    from core.viz import charts, heatmap, wire
    from ui.sinusoid_preview import preview_data, ranges_note

    at = open_page("sinusoidal", d_model="64", max_len="100", base="500", layout="concat", sin_view="Live preview")
    assert_clean(at)
    assert not at.get("plotly_chart")  # the browser draws this tab: the server sends no figure
    mounted_by_app = ("pee_scroll_regions", "pee_history")  # every page mounts those (app.py)
    (mounted,) = [el for el in at.get("bidi_component") if el.proto.component_name not in mounted_by_app]
    assert mounted.proto.component_name == "pee.sinusoid_preview" and not mounted.proto.isolate_styles
    sent = json.loads(mounted.proto.json)
    data = preview_data(64, 100, 500.0, "concat")
    assert sent["path"].endswith("/sinusoidal") and {k: v for k, v in sent.items() if k != "path"} == {k: v for k, v in data.items() if k != "path"}
    assert (sent["d_model"], sent["max_len"], sent["base"], sent["layout"]) == (64, 100, 500.0, "concat")
    assert sent["note"] == ranges_note(64, 100, 500.0)  # under its sliders: they are its own, and where they stop
    assert sent["base_range"][0] >= 2.0  # the preview's link never leaves the app's own range
    lut = np.asarray(data["colours"])
    assert lut.shape == (255, 3) and np.array_equal(lut, wire.colour_lut(charts.DIVERGING, 255))  # every heatmap's colours
    assert data["edges"] == heatmap.level_edges(-1.0, 1.0).tolist()  # and their levels over ±1
    assert data["tick_steps"][:5] == [1, 2, 5, 10, 20] and data["tick_steps"][-1] >= 20_480
    assert any(h.value == "Live, in your browser" for h in at.header)


def test_the_preview_link_is_the_pages_own_path():
    from ui.sinusoid_preview import page_path

    assert page_path("http://127.0.0.1:8501/sinusoidal") == "/sinusoidal"
    assert page_path("https://host.example/pe/sinusoidal/") == "/pe/sinusoidal"  # behind a proxy, with a trailing slash
    assert page_path(None) == "/sinusoidal"


def test_sinusoidal_spectrum_sentence_at_one_pair_and_below_2pi():
    at = open_page("sinusoidal", d_model="2", max_len="256", sin_view="Spectrum")
    assert_clean(at)
    text = " ".join(c.value for c in at.caption)
    assert "With one pair there is one wavelength" in text and "slower than the one before" not in text
    at = open_page("sinusoidal", max_len="6", sin_view="Spectrum")
    text = " ".join(c.value for c in at.caption)
    assert "slowly drifting" not in text and "Every pair lies above the max_len line" in text


def test_the_waves_tab_mounts_the_clock_at_the_sidebar_settings():
    from ui.motion import clock_data

    at = open_page("sinusoidal", d_model="7", max_len="90", base="300", sin_view="Waves")
    assert_clean(at)
    (mounted,) = [el for el in at.get("bidi_component") if el.proto.component_name == "pee.motion"]
    assert json.loads(mounted.proto.json) == json.loads(json.dumps(clock_data(7, 90, 300.0)))  # the browser draws it: the data are all it gets


def test_the_phase_circle_shows_less_than_one_turn_and_says_when_its_colours_run_round_once():
    # d_model 128, base 10,000: the pair drawn first is the one nearest 32 positions a turn, pair 11 (λ = 2π / 10^(−88/128) = 30.6)
    at = open_page("sinusoidal", sin_view="Waves")
    dots = figure(at, "sin_circle")["data"][-1]
    positions = decode(dots["customdata"]).astype(np.int64)
    wl = sinusoidal.wavelengths(128, 10_000.0)[11]
    assert at.number_input(key="pair").value == 11 and list(positions) == list(range(int(np.ceil(wl))))  # 31 dots: 0 .. 30
    assert (positions[-1] - positions[0]) < wl <= positions.size  # less than a turn, and one more dot would close it
    said = " ".join(c.value for c in at.caption)
    assert "so their colours run round once, in order of position" in said
    # at max_len 4 only 4 positions exist: less than a turn, and not round the circle
    at = open_page("sinusoidal", sin_view="Waves", max_len="4")
    assert decode(figure(at, "sin_circle")["data"][-1]["customdata"]).size == 4
    said = " ".join(c.value for c in at.caption)
    assert "less than one turn, their colours in order of position" in said and "run round once" not in said


def test_the_pictures_caption_at_one_position_and_at_one_pair():
    at = open_page("sinusoidal", d_model="2", max_len="1", base="2", sin_view="Picture")
    said = " ".join(c.value for c in at.caption)
    assert "One position, one row" in said and "from one row to the next" not in said and "Every row is a different mix" not in said
    at = open_page("sinusoidal", d_model="2", max_len="8", base="2", sin_view="Picture")
    said = " ".join(c.value for c in at.caption)
    assert "the one pair's two columns change from one row to the next" in said and "further right" not in said


def test_the_phase_circle_at_one_position_says_there_is_one_point():
    at = open_page("sinusoidal", max_len="1", sin_view="Waves")
    said = " ".join(c.value for c in at.caption)
    assert "One position, one point" in said and "Each step in position turns" not in said
    assert "position 0, the only one" in title_text(figure(at, "sin_circle"))
