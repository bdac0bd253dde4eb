"""Every page at settings across the whole ranges: it draws what it should, and every figure tells the
truth.

The settings, per page: five named ones (the defaults, the extremes, an odd width at the longest
max_len with base 2, the tiniest, a small odd one) and, for a page that reads a shared setting, five
drawn across the ranges (`drawn`: the ends, odd widths, tiny and huge max_len, base 2 and 1e8) from a
seed of the page's own, so they are reproducible by name and spread over the test workers. Each page is run
through AppTest, once per tab bound to the URL (only the open tab runs), and read as the browser
receives it.

What the page does at every setting: no exception and no error box; no notice (a valid link);
the URL holds the settings and the sidebar those the page uses; every figure under 1 MB with a title; at least the
page's number of figures (tests/pages.py CHARTS).

What each figure claims, checked against what it shows:
- generic, every figure: a title and labelled axes; whole-number ticks on every axis of
  positions, dimensions, heads, buckets or distances; a log axis spans at most 12 decades of
  its data (the region that matters is not squeezed into a strip); heatmap panels of one figure
  share one colour range unless the figure says each panel has its own;
- by chart key, what that figure's caption says: a sampled sinusoid shows both members of
  every (sin, cos) pair; discrete codes (binary, one-hot) are drawn over consecutive positions,
  so bit 0 alternates and every one-hot row has its single 1; the heads of one scheme share one
  colour range; attention weights sit on a linear axis; the similarity page's two panels are
  not the same picture; a pair's circle joins its dots along the arc, not by chords; waves put a
  dot on whole positions only.

A heatmap the browser paints (ui/heatmap.py: small multiples, and single big heatmaps) is read from the
spec the page sends and held to the same rules: a title and axis titles, ticks that are whole
numbers standing at the cells of their indices, each panel on ±max|z| of its own values written
under its title (or one shared range, said once), and the captions' claims about its panels.
"""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

from core.viz.charts import number
from core.viz.heatmap import levels, signed_log
from tests.app.conftest import assert_clean, decode, figure_bytes, grid_bytes, grid_map, open_page, open_views, panel_levels, panel_palette, plain_table
from tests.links import _keyed_widgets
from tests.pages import CHARTS, NAMES, VIEW_SWITCHES
from ui.params import SHARED_PARAMS
from ui.path import STEPS

NAMED = {  # the settings every page is run at
    "defaults": (128, 256, 10_000.0),
    "extremes": (8192, 131072, 1e8),
    "odd": (8191, 131072, 2.0),
    "tiny": (2, 1, 2.0),
    "small-odd": (3, 2, 1e8),
}


def drawn(step, n: int = 5) -> list[tuple[int, int, float]]:
    """Settings across the whole ranges for a page that reads a shared one (none for a page that reads none:
    the named settings show it ignores them): each an end of its range or a log-uniform draw, as hypothesis
    drew them when this harness was written with it, seeded by the page's path, so a case keeps its name from
    run to run, each page meets its own, and a page added to ui/path.py gets its cases without an edit here."""
    if not step.uses:
        return []
    rng = random.Random(f"truth:{step.url_path}")

    def one(spec) -> float:
        value = rng.choice((spec.lo, spec.hi)) if rng.random() < 0.3 else math.exp(rng.uniform(math.log(spec.lo), math.log(spec.hi)))
        return int(round(value)) if spec.integer else float(value)

    return [tuple(one(spec) for spec in SHARED_PARAMS) for _ in range(n)]


INTEGER_TITLE = re.compile(
    r"^(query |key |token |input |output )?(position|dimension|word)(?! factor| \d)|^pair index|^head\b|^bucket|^relative position|^offset|^distance|"
    r"^evaluation length|^number of components|^bit / pair"
)
SHARED_RANGE = {"alibi_heads_map", "t5_bias_map", "sim_matrices", "sin_t2t", "sin_binary", "model_cosine"}  # panels meant to be compared


def params(setting: dict) -> dict[str, str]:
    """The settings as a link carries them (the app's own format: a whole base without its point)."""
    base = float(setting["base"])
    return {"d_model": str(setting["d_model"]), "max_len": str(setting["max_len"]), "base": str(int(base)) if base.is_integer() else repr(base)}


def charts(at) -> dict[str, dict]:
    """Every figure the page sent, by its chart key."""
    import json

    return {el.proto.id.split("-", 2)[-1]: json.loads(el.proto.spec) for el in at.get("plotly_chart")}


def check_grid(key: str, spec: dict) -> None:
    """A panel grid: a title and both axis titles; every panel's values fill its rows and columns
    and its picture is its values on its scale; every tick is a whole number standing at the cell
    of that index (between two drawn cells only where the index itself is not drawn, and then at
    its place between their indices), or on an axis of words the word of the cell it stands at;
    a signed panel's colour range is centred on zero, an unsigned one holds its values; each
    panel's range is ±max|z| of its own values, written under its title, unless the grid shares
    ranges: then the panels of one colour scale have one range, which holds all their values, is
    tight, and is said (in the note for a grid of one scale, in each scale's key)."""
    assert spec["title"] and spec["x_title"] and spec["y_title"], f"{key}: a title or an axis title is missing"
    bounds, ends, extents = [], [], []
    for panel in spec["panels"]:
        name, z, k = panel["title"], decode(panel["z"]).astype(np.float64), panel["probe"]
        scale = spec["scales"][panel["scale"]]
        rows, cols = panel["y"]["indices"], panel["x"]["indices"]
        assert z.shape == (-(-len(rows) // k), -(-len(cols) // k)), f"{key} {name}: values of shape {z.shape} for every {k} of {len(rows)} x {len(cols)} cells"
        drawn = panel_levels(panel)
        assert drawn.shape == (len(rows), len(cols)), f"{key} {name}: a picture of {drawn.shape} for {len(rows)} x {len(cols)} cells"
        if "image" in panel:  # a PNG's levels stand for its scale's colours
            assert np.array_equal(panel_palette(panel)[:255], np.asarray(scale["colours"])), f"{key} {name}: its picture is not on its scale's colours"
        # the picture is the values: at every cell the hover reads, its colour is that value's level (on a log scale, its signed log's)
        floor = scale.get("log_floor")
        if floor is None:
            painted = levels(z, panel["zmin"], panel["zmax"])
        else:
            painted = levels(signed_log(z, floor), float(signed_log(panel["zmin"], floor)), float(signed_log(panel["zmax"], floor)))
        assert np.array_equal(drawn[::k, ::k], painted), f"{key} {name}: the picture is not its values"
        # an end the picture reaches; a clipped one-signed range (its key says ≤) is chosen at both ends, so its floor counts
        ends.append(bool(np.isin(drawn, (0, 254)).any()) if scale["signed"] or scale.get("clipped") else bool((drawn == 254).any()))
        for axis in (panel["x"], panel["y"]):
            indices = np.asarray(axis["indices"], dtype=np.float64)
            shares = [share for share, _ in axis["ticks"]]
            assert shares == sorted(shares) and all(0 < share < 1 for share in shares), f"{key} {name}: ticks {axis['ticks']}"
            for share, label in axis["ticks"]:
                if "names" in axis:  # words: each at the centre of its own cell
                    slot = share * len(indices) - 0.5
                    assert abs(slot - round(slot)) < 1e-9 and axis["names"][round(slot)] == label, f"{key} {name}: tick {label!r} at slot {slot}"
                    continue
                if "values" in axis:  # bins of a measured quantity: a round value, where it falls between the bins' values
                    at = np.interp(share * len(indices) - 0.5, np.arange(len(indices)), axis["values"])
                    assert abs(at - float(label)) < 1e-3 * max(1.0, abs(float(label))), f"{key} {name}: tick {label} stands at value {at}"
                    continue
                assert re.fullmatch(r"-?\d{1,3}(,\d{3})*", label), f"{key} {name}: tick {label!r} is not a whole number"
                at = np.interp(share * len(indices) - 0.5, np.arange(len(indices)), indices)
                assert abs(at - int(label.replace(",", ""))) < 1e-6, f"{key} {name}: tick {label} stands at index {at}"
        finite = z[np.isfinite(z)]
        bounds.append(float(np.abs(finite).max()) if finite.size else 0.0)
        extents.append((float(finite.min()), float(finite.max())) if finite.size else None)
        if scale["signed"]:
            assert panel["zmin"] == -panel["zmax"] > -np.inf, f"{key} {name}: a diverging range not centred on zero"
        else:
            inside = not finite.size or panel["zmin"] <= finite.min() and finite.max() <= panel["zmax"] + 1e-6 * abs(panel["zmax"])
            below = "≤ " if scale.get("clipped") else ""  # a clipped range: values beyond it painted at its ends, and its key says so
            outside = f"{key} {name}: values outside its range {panel['zmin']} .. {panel['zmax']}"
            assert (inside or below) and scale["lo"] == below + number(panel["zmin"], 3).replace("-", "−"), outside  # a minus sign
    # a range is tight when its panel has values: max|z| of every cell (the hover's every k-th cell of a PNG panel
    # may miss it, so there the picture must reach an end of the scale), or a fixed range said in the note
    if spec["shared_range"]:
        for index, scale in enumerate(spec["scales"]):
            group = [(p, bound, end) for p, bound, end in zip(spec["panels"], bounds, ends) if p["scale"] == index]
            shared, low = group[0][0]["zmax"], group[0][0]["zmin"]
            assert all(p["zmax"] == shared and p["zmin"] == low and p["range"] == "" for p, _, _ in group), f"{key}: panels off their shared range"
            top = max(bound for _, bound, _ in group)
            clipped = scale.get("clipped", False)  # a chosen range that values lie beyond, painted at its ends: its key says ≥
            if scale["signed"]:
                assert clipped or shared >= top * (1 - 1e-6), f"{key}: values beyond the shared range ±{shared}"
            else:  # one-signed values (ALiBi's, all <= 0) need not reach up from 0: their range holds the least and the largest
                seen = [e for p, e in zip(spec["panels"], extents) if p["scale"] == index and e]
                least, largest = (min(e[0] for e in seen), max(e[1] for e in seen)) if seen else (low, shared)
                tol = 1e-6 * max(abs(low), abs(shared), 1e-30)
                assert clipped or low - tol <= least and largest <= shared + tol, f"{key}: values beyond the shared range {low} .. {shared}"
            assert any(end for _, _, end in group) or not top or shared == 1.0, f"{key}: the shared range {low} .. {shared} is wider than every value"
            said = ("≥ " if clipped else "") + (f"+{number(shared, 3)}" if scale["signed"] else number(shared, 3))
            assert scale["hi"] == said, f"{key}: the key does not say the range"
        if len(spec["scales"]) == 1:
            assert number(spec["panels"][0]["zmax"], 3) in spec["note"], f"{key}: the shared range is not said"
    else:
        assert key not in SHARED_RANGE, f"{key}: panels meant to be compared on different ranges"
        assert "each panel has its own colour range" in spec["note"], f"{key}: own ranges not said"
        for panel, bound, end, extent in zip(spec["panels"], bounds, ends, extents):
            if not spec["scales"][panel["scale"]]["signed"]:  # one-signed: the sequential scale over the panel's own least to largest
                if panel["probe"] == 1 and extent and extent[1] > extent[0]:
                    assert (panel["zmin"], panel["zmax"]) == pytest.approx(extent, rel=1e-6), f"{key} {panel['title']}: range not its values'"
                assert panel["range"] == f"colour range {number(panel['zmin'], 3)} to {number(panel['zmax'], 3)}", f"{key} {panel['title']}: range not said"
                continue
            if panel["probe"] == 1:  # float32 values: the range is max|z| of the float64 values the page computed
                assert panel["zmax"] == pytest.approx(bound or 1.0, rel=1e-6), f"{key} {panel['title']}: range ±{panel['zmax']} for max |z| {bound}"
            else:
                assert panel["zmax"] >= bound * (1 - 1e-6) and (end or not bound), f"{key} {panel['title']}: range ±{panel['zmax']} not its values'"
            assert panel["range"] == f"colour range ±{number(panel['zmax'], 3)}", f"{key} {panel['title']}: its range is not under its title"


def axes(fig: dict) -> dict[str, dict]:
    return {k: v for k, v in fig["layout"].items() if re.fullmatch(r"[xy]axis\d*", k)}


def axis_title(fig: dict, name: str, axis: dict) -> str:
    """The axis title, or the shared title written under a row of panels."""
    text = (axis.get("title") or {}).get("text") or ""
    if not text and name.startswith("x"):
        shared = [a.get("text", "") for a in fig["layout"].get("annotations", []) if a.get("name") == "x_title"]
        text = shared[0] if shared else ""
    return text


def traces_on(fig: dict, name: str) -> list[dict]:
    """The traces drawn on axis `name` (xaxis2 -> x2)."""
    ref = name[0] + name[5:]
    return [t for t in fig["data"] if t.get(f"{name[0]}axis", name[0]) == ref]


def z_range(trace: dict) -> tuple[float, float]:
    """A heatmap's colour range, or that of the marker trace an image's colour bar rides on."""
    return round(trace.get("zmin", trace.get("marker", {}).get("cmin")), 9), round(trace.get("zmax", trace.get("marker", {}).get("cmax")), 9)


def colour_bars(fig: dict) -> list[dict]:
    """The traces whose colour bar the figure shows: heatmaps with showscale, and colour-scaled marker traces with one."""
    return [
        t for t in fig["data"]
        if t.get("type") == "heatmap" and t.get("showscale", True)
        or t.get("type") != "heatmap" and t.get("marker", {}).get("cmin") is not None and t["marker"].get("showscale")
    ]  # fmt: skip


def check_generic(key: str, fig: dict) -> None:
    layout = fig["layout"]
    assert layout.get("title", {}).get("text"), f"{key}: no title"
    cartesian = axes(fig)
    if cartesian and not any(t.get("type") in ("scatter3d",) for t in fig["data"]):
        titled = [name for name, axis in cartesian.items() if axis_title(fig, name, axis)]
        assert any(n.startswith("x") for n in titled) and any(n.startswith("y") for n in titled), f"{key}: unlabelled axes"
    for name, axis in cartesian.items():
        title, kind = axis_title(fig, name, axis), axis.get("type", "linear")
        if INTEGER_TITLE.search(title) and kind not in ("log", "category") and axis.get("showticklabels", True) and traces_on(fig, name):
            if "tickvals" in axis and "ticktext" not in axis or "tickvals" in axis and all(re.fullmatch(r"-?[\d,]+", str(t)) for t in axis["ticktext"]):
                assert all(float(v).is_integer() for v in axis["tickvals"]), f"{key}: {title!r} has ticks between whole numbers {axis['tickvals']}"
            elif "tickvals" not in axis:
                assert "dtick" in axis and float(axis["dtick"]).is_integer() and axis["dtick"] >= 1, f"{key}: {title!r} may get ticks at 0.5"
        if kind == "log":
            values = np.concatenate([np.abs(decode(t.get(name[0], [])).astype(np.float64)).ravel() for t in traces_on(fig, name)] or [np.zeros(0)])
            values = values[np.isfinite(values) & (values > 0)]
            if values.size:
                assert values.max() / values.min() <= 1e12 * (1 + 1e-9), f"{key}: the log axis {title!r} spans {values.max() / values.min():.3g}"
    heat = [t for t in fig["data"] if t.get("type") == "heatmap"] + [t for t in fig["data"] if t.get("marker", {}).get("cmin") is not None]
    ranges = {z_range(t) for t in heat}
    says_per_panel = "each panel has its own colour range" in layout["title"]["text"]
    if len(ranges) > 1 and not says_per_panel:  # else every range needs a colour bar of its own, each in its own place
        bars = colour_bars(fig)
        placed = [(t.get("colorbar") or t.get("marker", {}).get("colorbar") or {}).get("x") for t in bars]
        assert {z_range(t) for t in bars} == ranges and len(set(placed)) == len(bars), f"{key}: panels on different colour ranges without saying so"
    if key in SHARED_RANGE:
        assert len(ranges) <= 1 and not says_per_panel, f"{key}: panels meant to be compared on different ranges"


def check_pairs(key: str, cols: np.ndarray, d: int, layout: str) -> None:
    """Every drawn column comes with its (sin, cos) partner."""
    kept = set(cols.tolist())
    for j in kept:
        if layout == "interleaved":
            partner = j + 1 if j % 2 == 0 else j - 1
        else:  # sines first: sine i at column i, its cosine at ceil(d/2) + i
            half = (d + 1) // 2
            partner = j + half if j < half else j - half
        if 0 <= partner < d and not (layout == "interleaved" and d % 2 and j == d - 1):
            assert partner in kept, f"{key}: column {j} is drawn without its partner {partner}"


def check_claims(page: str, figs: dict[str, dict], setting: dict) -> None:
    d, L = setting["d_model"], setting["max_len"]
    if page == "sinusoidal":
        (heat,) = figs["sin_heatmap"]["panels"]  # a panel grid the browser paints: its drawn columns are its x indices, its ticks checked by check_grid
        check_pairs("sin_heatmap", np.asarray(heat["x"]["indices"]), d, "interleaved")
        assert L < 2 or np.ptp(panel_levels(heat)) > 0, "sin_heatmap: a constant picture of a varying encoding"
        check_pairs("sin_t2t", np.asarray(figs["sin_t2t"]["panels"][0]["x"]["indices"]), d, "concat")
        waves = figs.get("sin_waves")
        if waves:
            dots = [t for t in waves["data"] if t.get("mode") == "markers"]
            assert dots and all(np.all(decode(t["x"]).astype(np.float64) % 1 == 0) for t in dots), "sin_waves: dots off whole positions"
            assert waves["layout"]["yaxis"]["range"] == [-1.1, 1.1]
        circle = figs.get("sin_circle")
        if circle:
            path, dots = circle["data"]
            assert path["mode"] == "lines" and dots["mode"] == "markers", "sin_circle: the dots are joined by chords"
            assert np.all(np.diff(decode(dots["customdata"]).astype(np.float64)) == 1), "sin_circle: positions are not consecutive"
    if page == "compare":
        panels = {p["title"]: p for p in figs["compare_codes"]["panels"]}
        for name, panel in panels.items():
            rows = np.asarray(panel["y"]["indices"])
            assert np.all(np.diff(rows) == 1), f"compare {name}: positions are not consecutive"
        if "binary bits of p" in panels and L >= 2:
            z = decode(panels["binary bits of p"]["z"]).astype(np.float64)
            assert panels["binary bits of p"]["x"]["indices"][0] == 0, "compare: bit 0 is not drawn"
            assert np.all(np.diff(z[:, 0]) != 0), "compare: bit 0 does not flip at every position"
        if "one-hot" in panels:
            z = decode(panels["one-hot"]["z"]).astype(np.float64)
            rows = ~np.isnan(z).all(axis=1)
            assert np.all(np.nansum(z[rows] == 1, axis=1) <= 1) and (not rows.any() or np.nansum(z[rows] == 1) >= 1), "compare: one-hot rows lost their 1"
        if "sinusoidal (paper)" in panels:
            check_pairs("compare sinusoid", np.asarray(panels["sinusoidal (paper)"]["x"]["indices"]), d, "interleaved")
    if page == "attention":  # without and with positions on one range from 0, their difference centred on zero, each range with its key
        spec = figs["att_side_by_side"]
        assert [p["scale"] for p in spec["panels"]] == [0, 0, 1], "att_side_by_side: not two weight panels and their difference"
        weights, difference = spec["scales"]
        assert not weights["signed"] and difference["signed"] and weights["value"] == "weight", f"att_side_by_side: scales {spec['scales']}"
        for panel in spec["panels"]:  # a word names the row or column of its own position
            for axis in (panel["x"], panel["y"]):
                assert all(n.split(":", 1)[0] == str(i) for n, i in zip(axis.get("names", []), axis["indices"])), "att_side_by_side: words off their positions"
        assert spec["panels"][0]["zmin"] == 0 and spec["panels"][2]["zmin"] == -spec["panels"][2]["zmax"] < 0, "att_side_by_side: colour ranges"
    if page == "relative":
        assert figs["alibi_weights"]["layout"]["yaxis"]["type"] == "linear", "alibi_weights: weights on a log axis"
    if page == "similarity" and L >= 3:
        left, right = (panel_levels(p) for p in figs["sim_matrices"]["panels"])
        assert not np.array_equal(left, right), "sim_matrices: the two panels show the same picture"


UNDEFINED = re.compile(r"\bnan\b|\binf\b|×inf", re.IGNORECASE)  # a number that does not apply, printed instead of said


def sentences(at) -> list[str]:
    """Every caption, paragraph, notice and static table cell the page shows."""
    text = [el.value for kind in ("caption", "markdown", "info") for el in getattr(at, kind)]
    for table in at.table:
        frame = plain_table(table)
        text += [str(v) for v in frame.to_numpy().ravel()] + [str(c) for c in frame.columns]
    return text


def check_sentences(page: str, text: list[str], setting: dict) -> None:
    """What the words claim, at these settings: no undefined number printed (a scorecard at max_len 1 says
    'does not apply'); at d_model 2 (one pair) no step between pairs (tests/app/test_similarity.py reads d_model 2's similarity
    at a length this harness does not draw)."""
    for line in text:
        assert not UNDEFINED.search(line), f"{page}: an undefined number in {line!r}"
    joined = " ".join(text)
    if setting["d_model"] == 2 and page == "sinusoidal":
        assert "slower than the one before" not in joined, "sinusoidal: a step between pairs with one pair"


def run_page(page: str, setting: dict) -> None:
    figs, grids_sent, drawn, text = {}, {}, 0, []
    link = params(setting)
    uses = next(step.uses for step in STEPS if (step.url_path or "problem") == page)
    views = open_views(page, **link)  # every tab of the page: only the open one runs
    switches = {k for k, kind in _keyed_widgets(views[0]).items() if kind == "button_group" and k.endswith("_view")}
    assert switches == {c.key for c in VIEW_SWITCHES.get(page, [])}, f"{page}: view switches {switches} not opened by this harness (tests/pages.py)"
    if setting == {"d_model": 128, "max_len": 256, "base": 10_000.0}:  # the views of a switch, at the defaults
        views += [open_page(page, **link, **{c.key: option}) for c in VIEW_SWITCHES.get(page, []) for option in c.options if option != c.default]
    for at in views:
        assert_clean(at)
        assert not at.warning, [w.value for w in at.warning]  # a valid link gives no notice
        assert {k: at.query_params[k] for k in link} == link, "the URL does not hold the settings"
        # the sidebar shows the settings the page uses (ui/path.py Step.uses), at the link's values
        assert {w.key: w.value for w in at.sidebar.number_input if w.key in setting} == {k: setting[k] for k in uses}
        assert max(figure_bytes(at) + grid_bytes(at), default=0) < 1_000_000
        figs |= charts(at)
        grids_sent |= grid_map(at)
        drawn += len(figure_bytes(at)) + len(grid_bytes(at))
        text += sentences(at)
    check_sentences(page, text, setting)
    assert drawn >= CHARTS[page] - (1 if page == "similarity" and setting["max_len"] == 1 else 0), f"{page}: {drawn} figures"
    for key, fig in figs.items():
        check_generic(key, fig)
    for key, spec in grids_sent.items():
        check_grid(key, spec)
    check_claims(page, figs | grids_sent, setting)


def cases():
    for step in STEPS:
        page = NAMES[step.url_path]
        named = [(name, value) for name, value in NAMED.items()]
        for name, (d, L, base) in named + [(f"d{d}-L{L}-b{base:.6g}", (d, L, base)) for d, L, base in drawn(step)]:
            yield pytest.param(page, {"d_model": d, "max_len": L, "base": base}, id=f"{page}-{name}")


@pytest.mark.parametrize(("page", "setting"), list(cases()))
def test_page_tells_the_truth(page, setting):
    run_page(page, setting)


def test_the_drawn_settings_span_the_ranges_and_keep_their_names():
    every = [s for step in STEPS for s in drawn(step)]
    assert drawn(STEPS[0]) == drawn(STEPS[0]) and len(every) == 5 * sum(1 for step in STEPS if step.uses)
    for k, spec in enumerate(SHARED_PARAMS):
        values = [s[k] for s in every]
        assert min(values) == spec.lo and max(values) == spec.hi, spec.name  # both ends met somewhere
        assert all(spec.lo <= v <= spec.hi for v in values) and len(set(values)) > len(every) // 2, spec.name
