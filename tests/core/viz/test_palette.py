"""core.viz.palette: one colour per scheme, per RoPE scaling region and per recurring series, read back
from the figures that draw them (the figure builders of the lab and the model page; the /rope and /context
scaling figures are read in tests/app/test_rope.py and tests/app/test_context.py), and the colours drawn
together told apart with every common colour-vision deficiency (the simulation of test_colour_vision)."""

from __future__ import annotations

import itertools
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from core.analysis import position_analysis as pa
from core.lab import figures, lm_figures, trained_figures
from core.lab.config import LabConfig, LabResult
from core.schemes import rope
from core.schemes.registry import SCHEMES
from core.schemes.sinusoidal import sinusoidal_encoding
from core.viz import charts, model_figures, palette, scaling_figures
from core.viz.relative_figures import SPAN_LINES, span_heads
from tests.core.viz.test_colour_vision import VISIONS, lab

APART = 12.0  # ΔE*ab between any two colours drawn in one figure, for every vision: five just noticeable differences
ROOT = Path(__file__).resolve().parents[3]
THEMES = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]


def rgb8(colour: str) -> list[int]:
    return [int(colour[k : k + 2], 16) for k in (1, 3, 5)]


def dark_twins() -> dict[str, str]:
    """'#RRGGBB' (upper case) of a figure's colour -> the colour ui/assets/app.css draws it in the dark theme: the second of
    the rule's light-dark() for a line's stroke, or the theme's text colour where the rule gives currentColor."""
    twins = {}
    for line in (ROOT / "ui" / "assets" / "app.css").read_text().splitlines():
        rule = re.search(r'\[style\*="stroke: rgb\((\d+), (\d+), (\d+)\)"\] \{ stroke: (light-dark\(#\w+, (#\w+)\)|currentColor)', line)
        if rule:
            r, g, b, _, dark = rule.groups()
            twins["#%02X%02X%02X" % (int(r), int(g), int(b))] = (dark or THEMES["dark"]["textColor"]).upper()
    return twins


DARK = dark_twins()
SHOWN = {"light": lambda colour: colour, "dark": lambda colour: DARK.get(colour.upper(), colour)}  # a palette colour as each theme draws it


def closest(colours: list[str], vision: str | None) -> float:
    """The smallest ΔE*ab between two of `colours` as seen with `vision`."""
    seen = lab(np.array([rgb8(c) for c in colours]), vision)
    return min(float(np.linalg.norm(seen[i] - seen[j])) for i, j in itertools.combinations(range(len(colours)), 2))


def test_every_scheme_and_region_has_one_colour():
    assert set(palette.SCHEME_COLOURS) == set(SCHEMES)
    assert set(palette.REGION_COLOURS) == set(rope.REGION_LABELS)
    assert len(set(palette.SCHEME_COLOURS.values())) == len(SCHEMES)  # no two schemes share a colour
    assert palette.YELLOW not in palette.SCHEME_COLOURS.values() and palette.YELLOW not in charts.LINE_COLOURS  # too light for a line on white
    assert len(set(charts.LINE_COLOURS)) == len(charts.LINE_COLOURS) == 14
    assert palette.tint("#0072B2", 0.2) == "rgba(0,114,178,0.2)"


@pytest.mark.parametrize("theme", SHOWN)
@pytest.mark.parametrize("vision", VISIONS)
def test_colours_drawn_together_stay_apart(vision, theme):
    shown = SHOWN[theme]
    lab_defaults = [shown(palette.scheme_colour(s)) for s in ("none", "sinusoidal", "learned", "rope", "t5", "alibi")]
    regions = [shown(palette.region_colour(r)) for r in ("kept", "blended", "interpolated")]
    marks = (palette.TARGET, palette.MARK, palette.FAINT_MARK)  # a target context, a trained one, band edges ("never turn")
    rope_scaling = [shown(c) for c in (palette.UNSCALED, palette.OTHER_BASE, *marks)] + regions
    context = [shown(c) for c in (palette.UNSCALED, palette.SHORT, *marks, palette.SCALED)] + regions
    heads = [shown(c) for c in charts.LINE_COLOURS[:SPAN_LINES]]  # lines that name nothing: a chart draws eight at most (heads, dimensions)
    for group in (lab_defaults, rope_scaling, context, heads):
        assert closest(group, vision) >= APART, group
    # thirteen schemes cannot all be apart by colour: any two that are not differ in dash
    for a, b in itertools.combinations(SCHEMES, 2):
        if closest([shown(palette.scheme_colour(a)), shown(palette.scheme_colour(b))], vision) < APART:
            assert palette.scheme_dash(a) != palette.scheme_dash(b), (a, b, vision)


def named_colours() -> dict[str, str]:
    """Every colour the palette gives to something a figure names, read from its own tables: each scheme, scaling region
    and scaling kind, each head's line, and every series and mark it names (its '#RRGGBB' constants, all but the yellow it
    gives to nothing)."""
    named = {f"scheme {k}": c for k, c in palette.SCHEME_COLOURS.items()}
    named |= {f"region {k}": c for k, c in palette.REGION_COLOURS.items()}
    named |= {f"kind {k}": c for k, c in palette.KIND_COLOURS.items()}
    named |= {f"head {h + 1}": palette.head_colour(h) for h in range(len(palette.LINES))}
    named |= {k: v for k, v in vars(palette).items() if k.isupper() and isinstance(v, str) and re.fullmatch(r"#[0-9A-F]{6}", v) and v != palette.YELLOW}
    return named


def plot_backgrounds() -> dict[str, str]:
    """What a figure's lines are drawn on in each theme: the white core.viz.charts builds every figure on, and the colour
    ui/assets/app.css draws that white in in the dark theme."""
    assert charts.STYLE["plot_bgcolor"] == charts.STYLE["paper_bgcolor"] == "white"
    css = (ROOT / "ui" / "assets" / "app.css").read_text()
    light, dark = re.search(r'\[style\*="fill: rgb\(255, 255, 255\)"\] \{ fill: light-dark\((#\w+), (#\w+)\)', css).groups()
    assert light.upper() == "#FFFFFF"
    return {"light": light, "dark": dark}


def test_every_named_colour_stands_out_from_the_plot_in_both_themes():
    # a line or a dot wants 3:1 against what is behind it (WCAG 1.4.11); in the dark theme a colour is drawn in its twin
    from tests.ui.test_contrast import contrast, rgb

    named = named_colours()
    assert {"scheme integer", "region not rotated", "kind ntk", "head 13", "FAST", "UNSCALED", "FAINT_MARK"} <= set(named)
    for theme, plot in plot_backgrounds().items():
        shown = SHOWN[theme]
        low = {n: (shown(c), round(contrast(rgb(shown(c)), rgb(plot)), 2)) for n, c in named.items() if contrast(rgb(shown(c)), rgb(plot)) < 3}
        assert low == {}, theme


def test_a_dark_twin_keeps_its_colours_hue_and_draws_lines_and_dots_alike():
    css = (ROOT / "ui" / "assets" / "app.css").read_text()
    for colour, twin in DARK.items():
        r, g, b = rgb8(colour)
        if np.hypot(*lab(np.array([[r, g, b]]), None)[0][1:]) > 10:  # a grey (the marks, black) has no hue to keep
            gap = abs(hue(twin) - hue(colour)) % 360
            assert min(gap, 360 - gap) <= 15, (colour, twin)  # within 15° of its hue
            # a dot (a marker's fill) in the same twin as a line (its stroke)
            assert f'[style*="fill: rgb({r}, {g}, {b})"] {{ fill: light-dark({colour.lower()}, {twin.lower()})' in css, colour


def test_scaling_names_take_their_region_colour():
    assert palette.scaling_colour("after: kept") == palette.BLUE
    assert palette.scaling_colour("after: interpolated") == palette.region_colour("interpolated") == palette.VERMILLION
    assert palette.scaling_colour("after, for sequences up to 4,096 positions") == palette.SHORT
    assert palette.scaling_colour("base 500,000 (no scaling)") == palette.OTHER_BASE
    assert palette.scaling_colour("before: base 10,000") == palette.scaling_colour("every turning pair") == palette.UNSCALED
    with pytest.raises(KeyError):
        palette.scaling_colour("after: stretched")


def colours(fig) -> list[str]:
    return [t.line.color for t in fig.data]


def run(scheme: str) -> tuple[LabConfig, LabResult]:
    config = LabConfig(scheme=scheme, eval_lens=(32, 64))
    return config, LabResult(config, np.linspace(3, 1, 5), {32: 0.9, 64: 0.5}, {}, np.full(64, 0.7), None, 1.0, 1.0, False)


def test_live_lab_figures_draw_each_scheme_in_its_colour():
    done = [run(s) for s in ("rope", "alibi", "kerple")]  # a non-default scheme (Tol colour) dashed
    expected = [palette.GREEN, palette.VERMILLION, palette.MAGENTA]
    for build in (figures.accuracy_by_length, figures.accuracy_by_position, figures.loss_curves):
        fig = build(done)
        assert colours(fig)[:3] == expected
        assert [t.marker.color for t in fig.data[:3]] == expected
        assert [t.line.dash for t in fig.data[:3]] == ["solid", "solid", "dash"]
    assert colours(figures.answer_map(done[0][0])) == [palette.TESTED, palette.TRAINED, palette.FAINT_MARK]  # the diagonal a faint mark


def test_real_text_figures_draw_each_scheme_in_the_same_colour_as_the_live_lab():
    ppl = {64: 3.0, 256: 4.0}
    fig = lm_figures.perplexity_by_length([("sinusoidal", ppl), ("rope", ppl), ("alibi", ppl)], 64, what="test")
    assert colours(fig) == [palette.BLUE, palette.GREEN, palette.VERMILLION]
    probe = trained_figures.probe_figure([("rope", 2, [0.1, 0.5, 0.9]), ("none", 1, [0.0, 0.2])], what="test")
    assert colours(probe) == [palette.GREEN, palette.BLACK]
    rows = [{"scheme": s, "window": w, "stride": 32, "sliding": 3.0, "nonoverlapping": 4.0} for s in ("alibi", "rope") for w in (64, 128)]
    sliding = trained_figures.sliding_figure(rows, ["alibi", "rope"], what="test")
    assert colours(sliding) == [palette.VERMILLION] * 2 + [palette.GREEN] * 2 and [t.line.dash for t in sliding.data] == ["solid", "dash"] * 2
    passkey = trained_figures.passkey_figure([("t5", {"10": 1.0, "100": 0.5}), ("learned", {"10": 1.0, "100": None})], 8, 64, what="test")
    assert colours(passkey)[:2] == [palette.PURPLE, palette.MUSTARD]


def test_model_figures_draw_the_learned_table_and_the_sinusoid_in_their_schemes_colours():
    table = np.random.default_rng(0).normal(size=(40, 16))
    A, S = pa.analyse(table), pa.analyse(sinusoidal_encoding(40, 16, 10_000.0))
    figs = model_figures.table_figures(A, S, "learned", "sinusoid")
    learned, sinusoid = palette.scheme_colour("learned"), palette.scheme_colour("sinusoidal")
    for key in ("model_neighbour", "model_variance", "model_dominant"):
        assert colours(figs[key]) == [learned, sinusoid], key
    # mean ± sd: one shaded band in the learned table's colour under its mean, not two more lines
    band, mean, sin = figs["model_offset"].data
    assert band.fill == "toself" and band.fillcolor == palette.tint(learned, 0.2) and band.line.width == 0
    assert (mean.line.color, sin.line.color) == (learned, sinusoid)
    n = len(mean.x)
    np.testing.assert_allclose(np.asarray(band.y[:n], dtype=float), A.offset_mean + A.offset_std)
    np.testing.assert_allclose(np.asarray(band.y[n:], dtype=float), (A.offset_mean - A.offset_std)[::-1])


# Every name a figure gives its lines, as the concept it stands for: a scheme (by its label, whatever a figure adds after
# a comma or a colon: ", 2 layers", ": mean over p", or in its "(no code from ...)"), a scaling kind (its factor and
# "(as trained)" left off), or a series
# some figures name in their own words.
SAME = {
    "the k fastest removed": "fast pairs",
    "completes a cycle within max_len": "fast pairs",
    "completes a turn within L": "fast pairs",
    "the k slowest removed": "slow pairs",
    "wavelength > max_len": "slow pairs",
    "never completes a turn within L": "slow pairs",
    "removed (frequency 0)": "not rotated",
    "learned": "learned absolute table",  # /model names its two tables by what they are
    "sinusoid": "sinusoidal (paper)",
}


def concept(name: str) -> str:
    name = name.split(",")[0].split(":")[0].split(" ×")[0].split(" (no code")[0].removesuffix(" (as trained)")
    return SAME.get(name, name)


def named_lines(fig) -> list[tuple[str, str]]:
    """(concept, colour) of every line a figure names in its legend (a band under a line is the line's)."""
    return [(concept(t.name), t.line.color) for t in fig.data if t.name and t.showlegend is not False and not t.fill]


def test_across_the_figures_one_name_has_one_colour_and_one_colour_one_name():
    from core.lab.registry import EXPERIMENTS
    from core.viz import llm_figures

    schemes = list(SCHEMES)
    figs = [build([run(s) for s in schemes]) for build in (figures.accuracy_by_length, figures.accuracy_by_position, figures.loss_curves)]
    figs.append(figures.answer_map(run("rope")[0]))
    figs.append(lm_figures.perplexity_by_length([(s, {64: 3.0, 256: 4.0}) for s in schemes], 64, what="test"))
    figs += [e.figure(e.load().data, "test") for e in EXPERIMENTS.values()]  # every experiment's picture, from its shipped results
    figs += [trained_figures.budget_figure(*EXPERIMENTS["extend"].load().data.runs("rows")[:1], [], 2, what="test")]
    figs.append(trained_figures.wavelength_figure([1.0, 10.0, 100.0, 1000.0], [3]))
    figs.append(charts.spectrum(np.array([2.0, 20.0, 200.0]), 64, title="test"))
    table = np.random.default_rng(0).normal(size=(40, 16))
    figs += [
        f
        for f in model_figures.table_figures(pa.analyse(table), pa.analyse(sinusoidal_encoding(40, 16, 10_000.0)), "learned", "sinusoid").values()
        if not isinstance(f, dict)
    ]
    kinds = {
        k: {
            "kind": "yarn" if k.startswith("yarn") else k,
            "factor": 2.0,
            "attention_factor": 1.0 if k == "yarn-no-temperature" else None,
            "perplexity": 9.0,
            "by_window": [9.0, 8.0],
        }
        for k in palette.KIND_COLOURS
    }
    figs.append(llm_figures.perplexity_figure(kinds, window=256, length=600, context=300))
    figs.append(llm_figures.above_lowest_figure(kinds, window=256, length=600, context=300))

    drawn = [pair for fig in figs for pair in named_lines(fig)]
    colours_of, names_of = {}, {}
    for name, colour in drawn:
        colours_of.setdefault(name, set()).add(colour)
        names_of.setdefault(colour, set()).add(name)
    assert {n: c for n, c in colours_of.items() if len(c) > 1} == {}  # one name, one colour
    assert {c: n for c, n in names_of.items() if len(n) > 1} == {}  # one colour, one name
    # and every scheme, every kind and the lab's recurring series were read back from a figure
    assert {SCHEMES[s].label for s in schemes} | {"no scaling", "YaRN", "YaRN without its temperature", "fast pairs", "slow pairs"} <= set(colours_of)
    assert colours_of["YaRN"] == {palette.KIND_COLOURS["yarn"]} and colours_of["no scaling"] == {palette.KIND_COLOURS["none"]}


@pytest.mark.parametrize("theme", SHOWN)
@pytest.mark.parametrize("vision", VISIONS)
def test_scaling_kinds_and_the_labs_series_stay_apart_from_every_scheme(vision, theme):
    """A kind, a pair's speed or the task picture's series never looks like a scheme (the lab draws them on one page); dynamic
    NTK, which only /llm draws (no scheme there), keeps apart from the other kinds and the marks in /llm's charts instead."""
    from core.lab import extend

    shown = SHOWN[theme]
    assert "dynamic" not in {extend.KIND_OF.get(m, m) for m in extend.METHODS}  # the lab never draws it
    on_llm = [shown(c) for c in (*palette.KIND_COLOURS.values(), palette.MARK, palette.FAINT_MARK)]
    assert closest(on_llm, vision) >= APART
    others = [shown(c) for c in (*(c for k, c in palette.KIND_COLOURS.items() if k != "dynamic"), palette.FAST, palette.SLOW, palette.TESTED)]
    seen_schemes = lab(np.array([rgb8(shown(c)) for c in palette.SCHEME_COLOURS.values()]), vision)
    seen = lab(np.array([rgb8(c) for c in others]), vision)
    assert min(float(np.linalg.norm(a - b)) for a in seen for b in seen_schemes) >= APART
    assert closest(others, vision) >= APART


def test_yarn_shows_beneath_yarn_without_its_temperature():
    rows = [
        {"method": m, "fine_tune": 0, "factor": 1 if m == "none" else 2, "perplexity": {"64": 3.0, "128": 4.0}, "entropy": {}}
        for m in ("none", "linear", "ntk", "yarn", "yarn_no_t")
    ]
    fig = trained_figures.extend_figure(rows, 2, False, what="test")
    by_name = {t.name: t for t in fig.data if t.name}
    yarn, cool = by_name["YaRN"], by_name["YaRN without its temperature"]
    assert list(by_name).index("YaRN") < list(by_name).index("YaRN without its temperature")  # drawn first: beneath
    assert yarn.line.width > 2 * cool.line.width and cool.line.dash == "dot"  # the wide line shows around the dotted one on top
    assert [t.line.color for t in fig.data] == [palette.KIND_COLOURS[k] for k in ("none", "linear", "ntk", "yarn", "yarn-no-temperature")]


FAMILIES = ({"yarn", "yarn-no-temperature"},)  # kinds akin by their rule, drawn as one hue on purpose (told apart by width and dots)


def hue(colour: str) -> float:
    """CIELAB hue angle in degrees, typical vision."""
    _, a, b = lab(np.array([rgb8(colour)]), None)[0]
    return float(np.degrees(np.arctan2(b, a)))


@pytest.mark.parametrize("theme", SHOWN)
def test_a_reader_tells_the_labs_schemes_and_the_scaling_kinds_apart_at_a_glance(theme):
    """Beyond the gap every vision keeps: the lab's six schemes, drawn together on /lab, at least 45 ΔE*ab apart in typical
    vision (Okabe-Ito's orange and vermilion, 33 apart, read as one orange), and two kinds of unrelated rules, drawn together
    on /llm, at least 30° apart in hue (a plum 15° from the violet of YaRN without its temperature read as a third violet)."""
    shown = SHOWN[theme]
    six = [shown(palette.scheme_colour(s)) for s in ("none", "sinusoidal", "learned", "rope", "t5", "alibi")]
    assert closest(six, None) >= 45
    for a, b in itertools.combinations(palette.KIND_COLOURS, 2):
        if {a, b} not in FAMILIES:
            gap = abs(hue(shown(palette.KIND_COLOURS[a])) - hue(shown(palette.KIND_COLOURS[b]))) % 360
            assert min(gap, 360 - gap) >= 30, (a, b)


def test_the_span_chart_draws_every_head_up_to_eight_and_never_two_heads_that_look_alike():
    for n in range(1, 65):  # every head count /relative allows
        heads = span_heads(n)
        assert heads.tolist() == list(range(n)) if n <= SPAN_LINES else len(heads) == SPAN_LINES == len(set(heads.tolist()))
        if n > SPAN_LINES:  # spread across them from the first, no gap more than twice the even one, the last within one even gap of the end
            even = (n - 1) / (SPAN_LINES - 1)
            assert heads[0] == 0 and np.diff(heads).max() <= 2 * even and heads[-1] >= n - 1 - even, n
        if n > 1:  # the colours drawn, apart in every vision in both themes (head 1 and head 15 share a colour: never both)
            for theme, vision in itertools.product(SHOWN, VISIONS):
                assert closest([SHOWN[theme](palette.head_colour(int(h))) for h in heads], vision) >= APART, (n, theme, vision)
    # dark lines at a line's width read as one black: one dark colour (L* under 35) among the heads the chart draws at most
    first = [palette.head_colour(h) for h in range(SPAN_LINES)]
    assert sum(lab(np.array([rgb8(c)]), None)[0][0] < 35 for c in first) == 1, first
    # 16 heads aim at 0, 2, 4, 6, 9, 11, 13, 15 (0-based); 9 (rose) and 11 (teal) look like head 2's green with a missing cone, so
    # their nearest free neighbours 8 and 10 instead (the lower on a tie); 13 (magenta) looks like head 0's blue, so 12
    assert span_heads(16).tolist() == [0, 2, 4, 6, 8, 10, 12, 15]


def test_near_lines_are_the_pairs_of_lines_some_vision_sees_close_in_either_theme():
    near = {
        frozenset((a, b))
        for a, b in itertools.combinations(palette.LINES, 2)
        if min(closest([SHOWN[t](a), SHOWN[t](b)], v) for t in SHOWN for v in VISIONS) < APART
    }
    assert near == palette.NEAR_LINES
    assert not palette.lines_apart(palette.BLUE, palette.BLUE) and not palette.lines_apart(palette.TEAL, palette.GREEN)
    assert palette.lines_apart(palette.BLUE, palette.VERMILLION)


def told_apart(a, b) -> bool:
    """Two traces of one figure: 30 ΔE*ab apart in typical vision in both themes, or drawn in another dash or marker symbol."""
    far = min(closest([SHOWN[t](a.line.color), SHOWN[t](b.line.color)], None) for t in SHOWN) >= 30
    return far or a.line.dash != b.line.dash or a.marker.symbol != b.marker.symbol


def test_lines_a_learner_compares_differ_by_30_in_typical_vision_or_in_their_dash_or_symbol():
    # a chart's first eight lines (heads, dimensions), all solid dots and lines: by colour alone
    for theme in SHOWN:
        assert closest([SHOWN[theme](c) for c in charts.LINE_COLOURS[:SPAN_LINES]], None) >= 30, theme
    # /lab's two sinusoids: t2t's sky blue is 14 from the sinusoid's blue on white
    sinusoid, t2t = figures.accuracy_by_length([run("sinusoidal"), run("t2t")]).data[:2]
    assert (sinusoid.line.color, t2t.line.color) == (palette.BLUE, palette.SKY_BLUE) and told_apart(sinusoid, t2t)
    # /rope · Scaling's wavelengths: another base's dots beside the kept pairs' (the same two blues)
    theta = rope.default_frequencies(64, 10_000.0)
    labels = np.array(["kept"] * 10 + ["blended"] * 10 + ["interpolated"] * 12)
    fig = scaling_figures.wavelength_figure(64, 10_000.0, "YaRN", theta, theta / 4, labels, 64, 256, [6.3, 83.8])
    traces = [t for t in fig.data if t.name]
    assert {palette.OTHER_BASE, palette.BLUE} <= {t.line.color for t in traces}
    assert all(told_apart(a, b) for a, b in itertools.combinations(traces, 2))
