"""AppTest of the `context` page: every preset renders, and its table, metrics and figure data are core's numbers
(core.analysis.context); the links open /rope and /code cleanly with the preset's settings; the exported code runs and
gives core's rotation; bad link values give notices, never an exception."""

from __future__ import annotations

import ast
from urllib.parse import parse_qsl

import numpy as np
import pandas as pd
import pytest
import torch
from streamlit.testing.v1 import AppTest

from core.analysis import context as cx
from core.files.codegen import rope_code
from core.schemes import rope
from core.viz import describe
from core.schemes.rope_presets import PRESETS, STATUSES
from core.viz import charts, palette
from core.viz import wire
from tests.app.conftest import ROOT, assert_clean, decode, figure_bytes, figures, grids, open_page, panel_levels, title_text
from tests.helpers import assert_close
from ui.rope_controls import DEFAULT_PRESETS

PAGE = "app_pages/context.py"


def open_context(**params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    return at.switch_page(PAGE).run()


def traces(fig: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return {t["name"]: (decode(t["x"]).astype(np.float64), decode(t["y"]).astype(np.float64)) for t in fig["data"] if "name" in t}


def metrics(at) -> list[tuple[str, str]]:
    return [(m.label, m.value) for m in at.metric]


def check_layer_figures(wave: dict, decay: dict, preset, index: int) -> None:
    """The wavelength and decay figures of one layer hold core's numbers."""
    layer = preset.layers[index]
    view = cx.pair_view(layer, preset.extended_context)
    lines = traces(wave)
    finite = np.isfinite(view.before)
    name = "before scaling" if layer.scaling else "every turning pair"
    assert_close(lines[name][0], view.index[finite], atol=0)
    assert_close(lines[name][1], view.before[finite], rtol=1e-12)
    ink = {t["name"]: t["line"]["color"] for t in wave["data"] if "name" in t}
    assert ink[name] == palette.UNSCALED
    ring = {t["name"]: t["marker"].get("symbol") for t in wave["data"] if "name" in t}  # scaled: 'before' as rings, the kept pairs' dots inside
    assert ring == {n: "circle-open" if layer.scaling and n == name else None for n in ring}
    for label in ("kept", "blended", "interpolated"):
        if layer.scaling is not None and (view.label == label).any():
            assert_close(lines[f"after: {label}"][1], view.after[view.label == label], rtol=1e-12)
            assert ink[f"after: {label}"] == palette.region_colour(label)  # as on /rope's scaling tab
    offsets = cx.decay_offsets(preset.extended_context)
    before, after = cx.decay_curves(layer, preset.extended_context, offsets)
    curves = list(traces(decay).values())
    assert_close(curves[0][0], offsets, atol=0)
    assert_close(curves[0][1], before, rtol=1e-9, atol=1e-12)
    assert_close(curves[-1][1], after if layer.scaling else before, rtol=1e-9, atol=1e-12)
    assert str(layer.head_dim) in title_text(wave) and preset.label in title_text(decay)


def test_default_page_shows_cores_numbers():
    at = open_context()
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    assert at.title[0].value == "Long context in real models"
    assert at.query_params["presets"] == ",".join(DEFAULT_PRESETS)
    parts = [at.dataframe[k].value.reset_index(drop=True) for k in range(-3, 0)]  # the summary tables close the Models tab
    table = pd.concat([parts[0]] + [p.drop(columns=["model", "layers"]) for p in parts[1:]], axis=1)  # the three tables: every column once
    expected = pd.DataFrame(cx.summary_rows([PRESETS[n] for n in DEFAULT_PRESETS]))
    pd.testing.assert_frame_equal(table[list(expected.columns)], expected, check_dtype=False)
    assert all(len(p.columns) <= 8 for p in parts)  # each fits a 1,440-pixel window (seen in Chromium with Gemma 3's long layer names)
    figs = figures(at)
    assert len(figs) == 2  # the Models tab with the first model's tab open: its wavelengths and its decay
    first = PRESETS[DEFAULT_PRESETS[0]]
    check_layer_figures(figs[0], figs[1], first, 0)
    view = cx.pair_view(first.layers[0], first.extended_context)
    assert metrics(at)[0] == ("attention factor (cos, sin ×)", f"{view.attention_factor:.4g}")
    assert metrics(at)[1][1] == f"{cx.counts(view, first.trained_context, first.extended_context)['turn within trained']} of 64"
    # the pitfall: dynamic NTK x2 on the first model's head, keys of its trained context
    pitfall = cx.dynamic_cache_error(128, 500_000.0, rope.RopeScaling("dynamic", 2.0, 8192), 8192, 16384)
    pit = open_context(ctx_view="The dynamic-NTK pitfall")
    assert_clean(pit)
    lines = list(traces(figures(pit)[0]).values())
    assert_close(lines[0][0], pitfall.key_positions, atol=0)
    assert_close(lines[0][1], pitfall.consistent, atol=1e-12) and assert_close(lines[1][1], pitfall.stale, atol=1e-12)
    assert_close(lines[2][1], pitfall.stale - pitfall.consistent, atol=1e-12)
    assert describe.number(np.abs(pitfall.stale - pitfall.consistent).max()) in " ".join(m.value for m in pit.markdown)
    # RoPE in 2-D: 16 x 16 patches, query at (8, 8), base 10,000, head_dim 128
    grid_view = open_context(ctx_view="RoPE in 2-D")
    assert_clean(grid_view)
    # the model picker stands in the two views that draw a model, not above the 2-D view, which draws none
    assert [m.label for m in at.multiselect] == [m.label for m in pit.multiselect] == ["Models"] and not grid_view.multiselect
    figs = [None, None, None, *grids(grid_view)]  # the two heatmaps (painted by the browser), numbered as when the page drew all five
    rows, cols = cx.grid_positions(16, 16)
    expected_grids = [
        cx.axial_angles(rows, cols, 128, 10_000.0),
        cx.flat_angles(rows, cols, 16, 128, 10_000.0),
        cx.mrope_angles(0 * rows, rows, cols, 128, 10_000.0, (16, 24, 24)),
    ]
    heatmaps = figs[3]["panels"]
    for panel, angles in zip(heatmaps, expected_grids, strict=True):
        z = cx.centred_grid(angles, 8 * 16 + 8, 16, 16)[0]
        assert_close(decode(panel["z"]).reshape(16, 16), z, atol=1e-6)
        # centred on zero, each panel its own range: M-RoPE's, 15 times narrower than axial RoPE's here, is not drawn blank
        assert -panel["zmin"] == pytest.approx(panel["zmax"]) == pytest.approx(np.abs(z).max(), rel=1e-6)
        assert np.ptp(panel_levels(panel)) > 100  # the picture spans most of its scale
    assert not figs[3]["shared_range"] and heatmaps[0]["zmax"] / heatmaps[2]["zmax"] > 10
    assert f"move {heatmaps[0]['zmax'] / heatmaps[2]['zmax']:,.0f} times less than axial RoPE's" in " ".join(c.value for c in grid_view.caption)
    assert describe.number(cx.centred_grid(expected_grids[0], 136, 16, 16)[1]) in figs[3]["note"]  # the subtracted mean is said
    splits = figs[4]["panels"]
    for panel, split in zip(splits, ((16, 24, 24), (16, 8, 40), (16, 40, 8)), strict=True):
        expected = cx.centred_grid(cx.mrope_angles(0 * rows, rows, cols, 128, 10_000.0, split), 136, 16, 16)[0]
        assert_close(decode(panel["z"]).reshape(16, 16), expected, atol=1e-6)
    diverging = wire.colour_lut(charts.DIVERGING, 255).tolist()
    assert all(spec["scales"] == [spec["scales"][0]] and spec["scales"][0]["colours"] == diverging for spec in figs[3:])  # one diverging scale


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_renders_with_cores_numbers(name):
    preset = PRESETS[name]
    at = open_context(presets=name)
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    figs = figures(at)
    assert len(figs) == 2 * len(preset.layers)  # the Models tab: two figures per kind of layer
    assert all(title_text(fig) for fig in figs) and max(figure_bytes(at)) < 1_000_000
    for index in range(len(preset.layers)):
        check_layer_figures(figs[2 * index], figs[2 * index + 1], preset, index)
    links = {link.proto.url.split("?")[0]: dict(parse_qsl(link.proto.url.split("?")[1])) for link in at.get("link_button")}
    plans = [cx.link_params(preset, layer) for layer in preset.layers]
    assert links["code"] == plans[-1].code
    rope_plan = next((plan.rope for plan in reversed(plans) if plan.rope is not None), None)
    assert links.get("rope") == (None if rope_plan is None else {**rope_plan, "rope_view": "Scaling"})  # opens /rope's Scaling tab
    sources = at.dataframe[0].value  # the open model's sources, first on the tab
    assert len(sources) == len(preset.sources) and set(sources["status"]) <= set(STATUSES)
    for field in preset.unverified:
        assert sources.set_index("field").loc[field, "status"] in ("unverified", "partly verified")  # said on the page
    never = metrics(at)[3][1]
    assert never == str(cx.counts(cx.pair_view(preset.layers[0], preset.extended_context), 1, 1)[cx.NOT_ROTATED])


def test_partial_rotary_pairs_that_never_turn_are_said_and_marked():
    at = open_context(presets="gpt-neox-20b")
    assert ("pairs that never turn", "36") in metrics(at)
    wave = figures(at)[0]
    assert "24 of 96 dimensions rotate" in title_text(wave) and "pairs 12–47 never turn" in title_text(wave)
    assert any("from pair 12 on: never turn" in a.get("text", "") for a in wave["layout"]["annotations"])
    assert any("96" in c.value and "/code" in c.value for c in at.caption)  # /rope does not offer head_dim 96: said, no link
    assert [link.proto.url.split("?")[0] for link in at.get("link_button")] == ["code"]


@pytest.mark.parametrize("name", ["phi-3-mini-128k-instruct-2404", "gpt-neox-20b", "deepseek-v3", "gemma-4-default"])
def test_exported_code_runs_and_gives_cores_rotation(name):
    preset = PRESETS[name]
    at = open_context(presets=name)
    at.session_state[f"context_code_{name}"] = True  # open the code expander
    at.run()
    assert_clean(at)
    blocks = [c.value for c in at.code if c.language == "python"]
    assert len(blocks) == 2 * len(preset.layers)
    for layer, numpy_source, torch_source in zip(preset.layers, blocks[0::2], blocks[1::2], strict=True):
        code = rope_code(layer.head_dim, layer.base, preset.layout, layer.scaling, layer.partial_rotary_factor)
        assert (numpy_source.strip(), torch_source.strip()) == (code.numpy_source.strip(), code.torch_source.strip())
        x = np.random.default_rng(1).standard_normal((2, 60, layer.head_dim))
        pos = np.arange(60.0) + preset.trained_context - 20  # straddles the trained context: longrope switches lists
        inv_freq, c = layer.frequencies(seq_len=preset.trained_context + 40)
        expected = rope.apply_rope(x, pos, inv_freq, layout=preset.layout, attention_factor=c)
        namespace: dict = {}
        exec(compile(numpy_source, "<page>", "exec"), namespace)  # noqa: S102 - what a user does with the copied code
        assert_close(namespace["rotate"](x, pos), expected, atol=0, rtol=0)
        namespace = {}
        exec(compile(torch_source, "<page>", "exec"), namespace)  # noqa: S102
        assert_close(namespace["RotaryEmbedding"]()(torch.from_numpy(x), torch.from_numpy(pos)).numpy(), expected, atol=1e-12)


@pytest.mark.parametrize("name", ["llama-3.1-8b", "deepseek-v3", "gemma-3-4b", "mistral-7b-v0.3", "phi-3-mini-128k-instruct-2404", "gpt-neox-20b"])
def test_links_fill_rope_and_code_without_a_notice(name):
    preset = PRESETS[name]
    layer = preset.layers[-1]
    plan = cx.link_params(preset, layer)
    if plan.rope is not None:  # /rope offers the head widths of ROPE_PAGE_HEAD_DIMS only
        at = open_page("rope", **plan.rope, rope_view="Scaling")
        assert_clean(at)
        assert not at.warning, [w.value for w in at.warning]
        assert at.select_slider(key="head_dim").value == layer.head_dim and at.selectbox(key="scaling").value == plan.rope["scaling"]
        if "factor" in plan.rope:
            assert at.number_input(key="factor").value == float(plan.rope["factor"])
    at = open_page("code", **plan.code)
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    numpy_source = next(c.value for c in at.code if c.language == "python")
    if not plan.dropped:  # everything travelled: /code shows the very code the context page exports
        assert numpy_source.strip() == rope_code(layer.head_dim, layer.base, preset.layout, layer.scaling).numpy_source.strip()
    assert f"HEAD_DIM = {layer.head_dim}" in numpy_source and f'LAYOUT = "{preset.layout}"' in numpy_source
    # and under preset=, the exact code of every layer kind, nothing dropped (LongRoPE's lists, partial rotary, mscale)
    shown = [c.value.strip() for c in at.code if c.language == "python"]
    for each in preset.layers:
        exact = rope_code(each.head_dim, each.base, preset.layout, each.scaling, each.partial_rotary_factor)
        assert exact.numpy_source.strip() in shown and exact.torch_source.strip() in shown
    assert at.query_params["preset"] == [name] or at.query_params["preset"] == name


def test_bad_links_give_notices_and_the_page_carries_on():
    at = open_context(presets="no-such-model", ntk_growth="3", grid="1e9", grid_base="abc")
    assert_clean(at)
    notices = " ".join(w.value for w in at.warning)
    for key in ("presets", "ntk_growth", "grid", "grid_base"):
        assert key in notices, key
    assert at.multiselect(key="presets").value == list(DEFAULT_PRESETS)
    assert len(figures(at)) == 2
    at = open_context(presets="phi-2,**not-a-model**")
    assert at.multiselect(key="presets").value == ["phi-2"] and len(at.warning) == 1
    assert_clean(at)


def test_no_model_chosen_still_shows_the_pitfall_and_the_grids():
    at = open_context(presets="")
    assert_clean(at)
    assert at.info and len(figures(at)) == 0
    pit = open_context(presets="", ctx_view="The dynamic-NTK pitfall")
    assert_clean(pit)
    assert len(figures(pit)) == 1 and "Llama 2 7B" in title_text(figures(pit)[0])
    grid_view = open_context(presets="", ctx_view="RoPE in 2-D")
    assert_clean(grid_view)
    assert len(grids(grid_view)) == 2


def test_grid_controls_redraw_with_cores_numbers():
    at = open_context(presets="phi-2", ctx_view="RoPE in 2-D")
    at.select_slider(key="grid").set_value(8).run()
    at.button_group(key="grid_base").set_value(1_000_000).run()
    assert_clean(at)
    rows, cols = cx.grid_positions(8, 8)
    panel = grids(at)[0]["panels"][0]
    expected = cx.centred_grid(cx.axial_angles(rows, cols, 128, 1e6), 4 * 8 + 4, 8, 8)[0]
    assert_close(decode(panel["z"]).reshape(8, 8), expected, atol=1e-6)
    pit = open_context(presets="phi-2", ctx_view="The dynamic-NTK pitfall")
    pit.select_slider(key="ntk_growth").set_value(8).run()
    assert_clean(pit)
    assert "×8" in title_text(figures(pit)[0]) and "Phi-2" in title_text(figures(pit)[0])


def test_context_module_keeps_in_step_with_the_rope_page_and_controls():
    tree = ast.parse((ROOT / "app_pages" / "rope.py").read_text())
    head_dims = next(ast.literal_eval(n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "HEAD_DIMS")
    assert tuple(head_dims) == cx.ROPE_PAGE_HEAD_DIMS
    assert len((ROOT / PAGE).read_text().splitlines()) < 250


def test_what_to_look_for_is_the_reach_of_each_layer():
    """The caption under each layer's figures is core's reach and decay sentences for that layer (core tests the numbers: Llama 3.1's 35 pairs went
    round in training, 29 kept; the other 29 reach twice their trained angle), the window named for Gemma 3's local layers."""
    at = open_context(presets="gemma-3-4b")
    assert_clean(at)
    shown = [c.value for c in at.caption if c.value.startswith("What to look for: ")]
    gemma = PRESETS["gemma-3-4b"]
    for layer, text in zip(gemma.layers, shown, strict=True):
        view = cx.pair_view(layer, gemma.extended_context)
        reach = cx.angle_reach(view, gemma.trained_context, gemma.extended_context, layer.window)
        assert cx.reach_text(reach, layer.scaling is not None) in text
        offsets = cx.decay_offsets(gemma.extended_context)
        assert cx.decay_text(offsets, *cx.decay_curves(layer, gemma.extended_context, offsets), layer.scaling is not None) in text
    assert "window of 1,024 positions, so its offsets stop at 1,023" in shown[0]
    assert "all of them stay within the arc" in shown[1]  # linear x8 of a 32K pre-training covers 128K


@pytest.mark.parametrize("growth", [2, 8])  # the slider's ends
def test_the_pitfall_says_in_three_sentences_what_core_measures_and_keeps_the_rest_one_click_away(growth):
    from ui.context_models import fmt

    pit = open_context(ctx_view="The dynamic-NTK pitfall", ntk_growth=str(growth))
    assert_clean(pit)
    subject = PRESETS[DEFAULT_PRESETS[0]]
    layer, cache = subject.layers[-1], subject.trained_context
    pitfall = cx.dynamic_cache_error(
        layer.head_dim, layer.base, rope.RopeScaling("dynamic", float(growth), cache), cache, growth * cache, partial_rotary_factor=cx.rotary_fraction(layer)
    )
    (lead,) = [m.value for m in pit.markdown if m.value.startswith("Keys cached with the prompt")]
    assert fmt(pitfall.base_cache) in lead and fmt(pitfall.base_query) in lead and f"at {growth * cache:,} tokens" in lead
    assert f"off by up to {describe.number(np.abs(pitfall.stale - pitfall.consistent).max())}." in lead
    assert lead.count(". ") + 1 <= 3  # three short sentences under the figure
    assert [e.label for e in pit.expander][0] == "Why, and on which model"  # the rest, folded
