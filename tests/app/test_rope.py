"""AppTest of the `rope` page: the metrics and figure data are the numbers of core at the same
settings, worked by hand where that is short; bad settings give a message and no exception."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from core.analysis import context as cx
from core.schemes import rope
from core.viz import charts, palette
from tests.app.conftest import assert_clean, chart_keys, decode, figure, figures, open_page, plain_table, title_text
from tests.references import ntk_aware_base
from ui import rope_controls
from ui.motion import rope_data


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_rope_offset_curves_coincide_and_are_the_closed_form():
    at = open_page("rope", rope_view="Offset")
    assert_clean(at)
    fig = figures(at)[0]
    x0, y0 = decode(fig["data"][0]["x"]), decode(fig["data"][0]["y"]).astype(np.float64)
    x1, y1 = decode(fig["data"][1]["x"]), decode(fig["data"][1]["y"]).astype(np.float64)
    assert np.array_equal(x0, x1) and np.array_equal(x0, np.arange(256))  # every offset 0 .. max_len - 1
    assert np.abs(y0 - y1).max() < 1e-6
    assert fig["data"][1]["name"] == "key at position 2,560"  # default second start: 10 · max_len
    q, k = np.random.default_rng(7).standard_normal((2, 64))  # the page's probe
    closed = rope.relative_score(q, k, rope.default_frequencies(64, 10_000.0), x0)
    np.testing.assert_allclose(y0, closed, atol=1e-5)
    styles = [(t["line"]["color"], t["line"]["dash"], t["line"]["width"]) for t in fig["data"][:2]]
    assert styles[0][1] != styles[1][1] and styles[0][0] != styles[1][0]  # one curve on the other: the upper one dashed, so both are seen


def test_rope_offset_curves_at_a_far_start_and_long_context():
    at = open_page("rope", max_len="4096", rope_view="Offset")
    at.number_input(key="rope_start").set_value(1_000_000).run()
    fig = figures(at)[0]
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
    path, trace = figures(at)[0]["data"]  # the arc between the positions, then a dot at each position
    p = np.arange(64)
    theta = 10_000.0 ** (-2 * 3 / 64)
    np.testing.assert_allclose(decode(trace["x"]), np.cos(p * theta), atol=1e-6)
    np.testing.assert_allclose(decode(trace["y"]), np.sin(p * theta), atol=1e-6)
    assert trace["mode"] == "markers" and path["mode"] == "lines"  # no chords between far-apart dots
    np.testing.assert_allclose(np.hypot(decode(path["x"]), decode(path["y"])), 1.0, atol=1e-6)  # the arc stays on the unit circle
    dims = (3, 35) if layout == "half" else (6, 7)
    assert f"dimensions {dims[0]} and {dims[1]}" in title_text(figures(at)[0])


def test_rope_yarn_attention_factor_is_core_and_by_hand():
    at = open_page("rope", rope_view="Scaling")  # yarn, factor 4, original 256 // 4 = 64
    assert at.selectbox(key="scaling").value == "yarn" and at.number_input(key="original_len").value == 64
    _, factor = rope.rope_frequencies(64, 10_000.0, rope.RopeScaling("yarn", 4.0, 64), seq_len=256)
    assert metrics(at)["attention factor (cos, sin ×)"] == f"{factor:.4g}" == f"{0.1 * math.log(4) + 1:.4g}" == "1.139"  # 4 significant digits on screen


@pytest.mark.parametrize("raw", ["0", "0.5"])
def test_rope_factor_below_one_in_a_link_is_named_and_dropped(raw):
    # the link check asks the kind's record, which refuses a factor below 1: a notice naming factor, the default, no red box
    at = open_page("rope", rope_view="Scaling", factor=raw)
    assert_clean(at)
    assert not at.error and len(at.warning) == 1 and "`factor=" in at.warning[0].value and "factor must be at least 1" in at.warning[0].value
    assert at.number_input(key="factor").value == 4.0 and len(figures(at)) == 2


@pytest.mark.parametrize("kind", ["ntk", "linear"])
def test_rope_factor_below_one_is_refused_for_every_kind(kind):
    at = open_page("rope", rope_view="Scaling", scaling=kind, factor="0.5")
    assert_clean(at)
    assert not at.error and any("factor must be at least 1" in w.value for w in at.warning)
    at.number_input(key="factor").set_value(0.5).run()  # the widget offers 1 and up: a value below is not taken
    assert not at.exception and not at.error and at.number_input(key="factor").value == 4.0


def test_rope_original_context_longer_than_target_is_refused():
    at = open_page("rope", rope_view="Scaling")
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
    at = open_page("rope", head_dim=str(head_dim), rope_view="Scaling")
    assert_clean(at)
    assert at.select_slider(key="head_dim").value == head_dim
    assert len(figures(at)) == 2  # the Scaling tab's wavelengths and ratios
    assert sum(int(metrics(at)[f"pairs {name}"]) for name in ("kept", "blended", "interpolated")) == head_dim // 2


def test_rope_ntk_at_head_dim_2_gives_a_message():
    at = open_page("rope", head_dim="2", scaling="ntk", rope_view="Scaling")
    assert not at.exception
    assert any("at least 4" in e.value for e in at.error)


def expected_counts(kind: str, head_dim: int, base: float, factor: float, original: int, L: int) -> dict[str, int]:
    if kind == "none":
        labels = np.full(head_dim // 2, "kept")
    elif kind == "ntk":
        theta = rope.default_frequencies(head_dim, base)
        ratio = rope.default_frequencies(head_dim, ntk_aware_base(base, factor, head_dim)) / theta
        labels = np.where(ratio >= 1 - 1e-9, "kept", np.where(ratio <= (1 + 1e-9) / factor, "interpolated", "blended"))
    else:
        labels = rope.scaling_regions(head_dim, base, rope.RopeScaling(kind, factor, original), seq_len=L).label
    return {name: int((labels == name).sum()) for name in ("kept", "blended", "interpolated")}


@pytest.mark.parametrize("kind", rope_controls.KINDS)  # every kind on the controls, from the records
@pytest.mark.parametrize("head_dim", [64, 128])
def test_rope_every_scaling_kind_counts_pairs_as_core(kind, head_dim):
    at = open_page("rope", max_len="8192", rope_view="Scaling")
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
    assert m["attention factor (cos, sin ×)"] == charts.number(expected_factor)  # 4 significant digits on screen
    assert len(figures(at)) == 2


def test_rope_wavelength_chart_is_core_after_scaling():
    at = open_page("rope", rope_view="Scaling")
    at.selectbox(key="scaling").set_value("llama3").run()
    series = {t["name"]: t for t in figures(at)[0]["data"]}
    theta = rope.default_frequencies(64, 10_000.0)
    np.testing.assert_allclose(decode(series["before: base 10,000"]["y"]), 2 * np.pi / theta, rtol=1e-6)
    scaled, _ = rope.rope_frequencies(64, 10_000.0, rope.RopeScaling("llama3", 4.0, 64), seq_len=256)
    drawn = 0
    for name in ("kept", "blended", "interpolated"):
        if f"after: {name}" in series:
            pairs = decode(series[f"after: {name}"]["x"]).astype(int)
            np.testing.assert_allclose(decode(series[f"after: {name}"]["y"]), 2 * np.pi / scaled[pairs], rtol=1e-6)
            assert series[f"after: {name}"]["line"]["color"] == palette.region_colour(name)  # as on /context
            drawn += 1
    assert drawn >= 2
    # one colour per line, none of them a mark's
    ink = [t["line"]["color"] for t in series.values()]
    assert len(set(ink)) == len(ink) and series["before: base 10,000"]["line"]["color"] == palette.UNSCALED


def test_rope_layout_residual_is_rounding():
    at = open_page("rope", rope_view="Layouts and the checklist")
    text = next(m.value for m in at.markdown if "max |interleaved(x)[perm] − half(x[perm])|" in m.value)
    residual = float(text.split("= **")[1].split("**")[0])
    assert residual < 1e-9


def test_rope_each_tab_draws_its_own_figures_and_the_controls_above_stay():
    expected = {
        None: ["rope_pair_circle"],
        "Offset": ["rope_relative"],
        "Derivation": ["rope_derive_plane", "rope_derive_offset"],
        "Decay": ["rope_decay"],
        "Scaling": ["rope_wavelengths", "rope_ratio"],
        "Layouts and the checklist": [],
    }
    for view, keys in expected.items():
        at = open_page("rope", head_dim="32", **({} if view is None else {"rope_view": view}))
        assert_clean(at)
        assert chart_keys(at) == keys, view
        assert at.select_slider(key="head_dim").value == 32 and at.button_group(key="rope_layout").value == "half"


def test_rope_a_bad_scaling_link_is_named_whichever_tab_is_open():
    at = open_page("rope", scaling="warp", factor="abc", original_len="-3")  # the One pair tab open
    assert_clean(at)
    notices = " ".join(w.value for w in at.warning)
    assert all(key in notices for key in ("scaling", "factor", "original_len")), notices
    scaling = open_page("rope", scaling="llama3", factor="8", original_len="32", rope_view="Scaling")
    assert_clean(scaling)
    assert not scaling.warning and scaling.selectbox(key="scaling").value == "llama3"
    assert scaling.number_input(key="factor").value == 8.0 and scaling.number_input(key="original_len").value == 32


def test_rope_scaling_caption_is_the_reach_of_the_setting():
    """Llama 3.1's own link: the caption's counts and angles are core.analysis.context's reach of the pairs drawn (35 went round
    in the 8,192 trained positions, 29 kept; the other 29 reach twice their trained angle, factor 8 against a 16-fold context)."""
    at = open_page("rope", head_dim="128", scaling="llama3", factor="8", original_len="8192", max_len="131072", base="500000", rope_view="Scaling")
    assert_clean(at)
    theta = rope.default_frequencies(128, 500_000.0)
    scaling = rope.RopeScaling("llama3", 8.0, 8192)
    scaled, c = rope.rope_frequencies(128, 500_000.0, scaling, seq_len=131_072)
    labels = rope.scaling_regions(128, 500_000.0, scaling, seq_len=131_072).label
    view = cx.PairView(np.arange(64), 2 * np.pi / theta, 2 * np.pi / scaled, None, labels, c, 128)
    reach = cx.angle_reach(view, 8192, 131_072)
    assert (reach.turned, reach.turned_kept, reach.unturned, reach.unturned_inside) == (35, 29, 29, 0)
    caption = next(c.value for c in at.caption if c.value.startswith("What to look for: "))
    assert cx.reach_text(reach, scaled=True) in caption


def test_rope_derivation_draws_the_pair_at_m_and_n_and_says_the_numbers_it_draws():
    at = open_page("rope", head_dim="16", rope_view="Derivation", rope_derive_pair="3", rope_m="40", rope_n="3")
    assert_clean(at)
    theta = 10_000.0 ** (-2 * 3 / 16)
    q_at_m = next(t for t in figure(at, "rope_derive_plane")["data"] if t["name"] == "q turned to m = 40")
    turned = 1.2 * np.exp(1j * (0.4 + 40 * theta))  # core.viz.rope_derivation's query pair, turned to m
    np.testing.assert_allclose([decode(q_at_m["x"])[1], decode(q_at_m["y"])[1]], [turned.real, turned.imag], atol=1e-9)
    score = 1.2 * 0.9 * math.cos(0.4 + 0.6 + 37 * theta)  # |q||k| cos(arg q − arg k + (m − n)θ)
    dot = next(t for t in figure(at, "rope_derive_offset")["data"] if t["name"] == "(m, n) = (40, 3)")
    assert decode(dot["x"])[0] == 37 and decode(dot["y"])[0] == pytest.approx(score, abs=1e-9)
    caption = " ".join(c.value for c in at.caption)
    assert f"= {score:.4f}; |q| |k| cos" in caption and "stay 1.2000 and 0.9000" in caption
    past = open_page("rope", head_dim="16", rope_view="Derivation", rope_derive_pair="100")  # head width 16: pairs 0 to 7
    assert_clean(past)
    assert any("pairs 0 to 7: pair 7 is drawn" in c.value for c in past.caption)


def test_rope_decay_at_head_dim_2_and_bounded_at_the_defaults():
    at = open_page("rope", head_dim="2", rope_view="Decay")
    assert_clean(at)
    caption = " ".join(c.value for c in at.caption)
    assert "never decays" in caption and "far-apart tokens score lower on average" not in caption
    at = open_page("rope", rope_view="Layouts and the checklist")  # head_dim 64, max_len 256: a sampled max grew by 5e-8 here
    card = plain_table(at.table[-1])
    bounded = card.iloc[[i for i, p in enumerate(card["property"]) if p.startswith("bounded")][0], 1]
    assert bounded.startswith("✓ max |value| ×1 on [L, 2L)"), bounded


def test_rope_one_pair_turns_the_offset_tabs_query_and_key_in_the_browser():
    at = open_page("rope", head_dim="16", max_len="300", base="500", rope_layout="interleaved")
    assert_clean(at)
    at.slider(key="rope_turn_offset").set_value(7).run()
    (mounted,) = [el for el in at.get("bidi_component") if el.proto.component_name == "pee.motion"]
    q, k = np.random.default_rng(7).standard_normal((2, 16))  # the page's probe query and key, as on the Offset tab
    assert json.loads(mounted.proto.json) == json.loads(json.dumps(rope_data(q, k, rope.default_frequencies(16, 500.0), "interleaved", 300, 7)))
    at = open_page("rope", max_len="1")  # one position: no offset to choose, both hands at 0
    assert_clean(at)
    assert (
        not [s for s in at.slider if s.key == "rope_turn_offset"]
        and json.loads(next(el for el in at.get("bidi_component") if el.proto.component_name == "pee.motion").proto.json)["offset"] == 0
    )


def test_one_position_is_one_point_and_the_caption_says_so():
    at = open_page("rope", max_len="1")
    said = " ".join(c.value for c in at.caption)
    assert "With one position there is one point" in said and "each step turns the point by the same angle θᵢ, and" not in said
    at = open_page("rope", max_len="2")
    assert any("each step turns the point by the same angle θᵢ, and its length never changes" in c.value for c in at.caption)
