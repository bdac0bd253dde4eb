"""Text colours the app sets, against WCAG 2.1's contrast ratio (1.4.3, AA: 4.5:1 for text under 18 pt), in the
light and the dark theme alike: the captions, which Streamlit draws in the theme's text colour at 60 % opacity
(.streamlit/config.toml), the code highlighter's token colours in ui/assets/app.css and the grey of a figure's
reference marks there, on the backgrounds they are drawn on. The CSS file is parsed here too: every rule a selector
list and declarations `property: value;`, braces balanced."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
THEMES = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]  # its [theme.light] and [theme.dark]
CSS = (ROOT / "ui" / "assets" / "app.css").read_text()
CODE_BACKGROUND = {"light": "#fafbfc", "dark": "#1a1c24"}  # st.code's background in each theme (Streamlit 1.67), as Chromium computed it
# light-dark(<light>, <dark>): app.css's way of giving a colour for each theme
LIGHT_DARK = re.compile(r"light-dark\(\s*(#[0-9a-fA-F]{6})\s*,\s*(#[0-9a-fA-F]{6})\s*\)")
CAPTION_OPACITY = 0.6  # Streamlit's fadedText60


def rgb(hex_colour: str) -> tuple[float, ...]:
    h = hex_colour.lstrip("#")
    return tuple(int(h[i : i + 2], 16) / 255 for i in (0, 2, 4))


def luminance(c: tuple[float, ...]) -> float:
    r, g, b = (x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def over(fg: tuple[float, ...], bg: tuple[float, ...], alpha: float) -> tuple[float, ...]:
    return tuple(alpha * f + (1 - alpha) * b for f, b in zip(fg, bg))


def test_the_ratio_matches_wcag_examples():
    assert contrast(rgb("#000000"), rgb("#ffffff")) == pytest.approx(21.0)
    assert contrast(rgb("#767676"), rgb("#ffffff")) == pytest.approx(4.54, abs=0.01)  # the lightest grey that passes on white
    assert contrast(rgb("#797c83"), rgb("#ffffff")) == pytest.approx(4.18, abs=0.01)  # the captions' grey before, as axe-core measured it


def test_both_themes_are_defined_and_nothing_forces_one():
    assert set(THEMES) >= {"light", "dark"} and "base" not in THEMES  # a base would take the visitor's choice away
    keys = {"primaryColor", "backgroundColor", "secondaryBackgroundColor", "textColor", "codeTextColor"}
    assert set(THEMES["light"]) == set(THEMES["dark"]) == keys


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("background", ["backgroundColor", "secondaryBackgroundColor"])
def test_captions_pass_on_the_page_and_in_the_sidebar(theme, background):
    colours = THEMES[theme]
    caption = over(rgb(colours["textColor"]), rgb(colours[background]), CAPTION_OPACITY)
    assert contrast(caption, rgb(colours[background])) >= 4.5


def test_the_selected_tab_passes_in_the_dark_theme():
    # the selected tab's label is drawn in the primary colour; the light theme's red is 2.7:1 on the dark background
    assert contrast(rgb(THEMES["dark"]["primaryColor"]), rgb(THEMES["dark"]["backgroundColor"])) >= 4.5
    assert contrast(rgb(THEMES["light"]["primaryColor"]), rgb(THEMES["light"]["backgroundColor"])) >= 4.5


def test_every_code_colour_passes_on_the_code_background_of_its_theme():
    code = "\n".join(line for line in CSS.splitlines() if line.startswith(".stCode"))
    assert not re.search(r"color:\s*#", code), "a code colour for one theme only"
    pairs = [m for line in code.splitlines() if "color:" in line for m in LIGHT_DARK.findall(line)]
    assert len(pairs) >= 8
    low = {(t, c): round(contrast(rgb(c), rgb(CODE_BACKGROUND[t])), 2) for pair in pairs for t, c in zip(("light", "dark"), pair)}
    assert {k: v for k, v in low.items() if v < 4.5} == {}


def test_a_figures_grey_text_passes_on_the_page_in_both_themes():
    # palette.MARK (core.viz.palette) on the transparent figure, that is on the page's background
    rule = next(line for line in CSS.splitlines() if '[style*="fill: rgb(85, 85, 85)"]' in line)
    light, dark = LIGHT_DARK.search(rule).groups()
    assert contrast(rgb(light), rgb(THEMES["light"]["backgroundColor"])) >= 4.5
    assert contrast(rgb(dark), rgb(THEMES["dark"]["backgroundColor"])) >= 4.5


def test_a_faint_mark_stays_fainter_than_a_mark_and_its_labels_pass_as_text_in_both_themes():
    # palette.FAINT_MARK recedes behind palette.MARK rgb(85, 85, 85) (the two greys 7 ΔE apart made /lab's diagonal read as its
    # rings), and colours small label text ("band edge 6.283", "never turn"): 4.5:1 on the page in both themes, each in its twin
    from core.viz.palette import FAINT_MARK, MARK

    def twins(colour: str) -> tuple[str, str]:
        r, g, b = (int(colour[k : k + 2], 16) for k in (1, 3, 5))
        return LIGHT_DARK.search(next(line for line in CSS.splitlines() if f'[style*="stroke: rgb({r}, {g}, {b})"]' in line)).groups()

    for mark, faint, theme in zip(twins(MARK), twins(FAINT_MARK), ("light", "dark")):
        page = rgb(THEMES[theme]["backgroundColor"])
        assert contrast(rgb(mark), page) >= 1.5 * contrast(rgb(faint), page) and contrast(rgb(faint), page) >= 4.5, theme
    assert twins(FAINT_MARK)[0].upper() == FAINT_MARK  # drawn as the palette gives it on white


def blocks(text: str) -> list[tuple[str, str]]:
    """(prelude, body) of each top-level block of a style sheet, by matching braces."""
    out, depth, start, head = [], 0, 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                head, start = i, i + 1
            depth += 1
        elif ch == "}":
            depth -= 1
            assert depth >= 0, "a closing brace without its opening one"
            if depth == 0:
                out.append((text[text.rfind("}", 0, head) + 1 : head].strip(), text[start:i]))
    assert depth == 0, "an opening brace without its closing one"
    return out


def test_the_css_file_parses():
    body = re.sub(r"/\*.*?\*/", "", CSS, flags=re.S)
    rules = []
    for prelude, inner in blocks(body):
        if prelude.startswith("@property"):  # a custom property registered, so that an animation can move it
            assert re.fullmatch(r"@property --[a-z-]+", prelude), prelude
            rules.append(("*", inner))
        elif prelude.startswith("@keyframes"):
            assert re.fullmatch(r"@keyframes [a-z-]+", prelude), prelude
            frames = blocks(inner)
            assert frames and all(re.fullmatch(r"\d+%", at) for at, _ in frames), frames
            rules += [("*", body) for _, body in frames]
        elif prelude.startswith("@"):
            assert re.fullmatch(r"@(media|container) \((max|min)-width: \d+px\)|@supports \([a-z-]+: [a-z-]+\(\)\)", prelude), prelude
            rules += blocks(inner)
        else:
            rules.append((prelude, inner))
    assert len(rules) >= 10
    for selector, declarations in rules:
        assert selector and all(part.strip() for part in selector.split(",")), selector
        for declaration in filter(str.strip, declarations.split(";")):
            assert re.fullmatch(r"\s*[a-z-]+\s*:\s*[^:;{}]+\s*", declaration), declaration
    # Streamlit's HTML sanitiser drops a whole style element whose text has a '<' followed by a letter or '/' (every rule of
    # the file lost: a registered property's syntax is written '\3c length>')
    assert not re.search(r"<[a-zA-Z/!]", CSS)


def test_a_box_that_scrolls_sideways_fades_at_its_right_edge_where_the_fade_cannot_move():
    # the fade's animation has no duration: where scroll-driven animations are not supported (Firefox) it would run at once
    # and hold its last frame, the left edge faded and the right sharp, at the box's start where nothing lies to the left
    body = re.sub(r"/\*.*?\*/", "", CSS, flags=re.S)
    animated = []
    for prelude, inner in blocks(body):
        if prelude.startswith("@supports"):
            animated += [(prelude, selector) for selector, declarations in blocks(inner) if "animation" in declarations]
        else:
            assert "animation" not in inner, prelude
    assert animated == [("@supports (animation-timeline: scroll())", "[data-pee-scroll='1']")]
    # unanimated, the box is as the animation's first frame has it: the left edge sharp, the right one faded
    rest = dict(re.findall(r"(--pee-fade-[a-z]+): ([^;]+);", dict(blocks(body))["[data-pee-scroll='1']"]))
    initial = dict(re.findall(r"@property (--pee-fade-[a-z]+) \{[^}]*initial-value: ([^;]+);", body))
    first = dict(re.findall(r"(--pee-fade-[a-z]+): ([^;]+);", dict(blocks(dict(blocks(body))["@keyframes pee-fade"]))["0%"]))
    assert initial | rest == first == {"--pee-fade-left": "0px", "--pee-fade-right": "2.5rem"}


def test_a_hover_labels_text_stands_out_from_its_box_in_every_named_colour_in_both_themes():
    # plotly.js fills the box with the point's colour (its dark twin in the dark theme) and picks white or #444 for the text
    # by the colour as built: #444 on the reddish purple's twin was 2.4:1, white on the sky blue 3.2:1 on white
    from tests.core.viz.test_palette import DARK, SHOWN, named_colours

    words = {}  # a box's colour as built ('#RRGGBB') -> its text in the light and the dark theme
    for selector, declarations in blocks(re.sub(r"/\*.*?\*/", "", CSS, flags=re.S)):
        if ".hovertext:has(" in selector:
            pair = LIGHT_DARK.search(declarations)
            light, dark = pair.groups() if pair else re.fullmatch(r"\s*fill: (#[0-9a-f]{6}) !important;\s*", declarations).groups() * 2
            for r, g, b in re.findall(r'\[style\*="fill: rgb\((\d+), (\d+), (\d+)\)"\]', selector):
                box = "#%02X%02X%02X" % (int(r), int(g), int(b))
                assert box not in words, box  # one text colour a box
                words[box] = {"light": light, "dark": dark}
    named = {name: colour.upper() for name, colour in named_colours().items()}
    assert set(DARK) <= set(named.values()) <= set(words)  # every twin is a named colour, and every named colour has its text
    low = {}
    for name, colour in named.items():
        for theme in ("light", "dark"):
            ratio = contrast(rgb(words[colour][theme]), rgb(SHOWN[theme](colour)))
            if ratio < 4.5:
                low[name, theme] = round(ratio, 2)
    assert low == {}
    # any other box (a dot along a colour scale) keeps plotly's pick in both themes: white is not turned into the dark page
    keep = re.search(r'\.hovertext > text\.nums\[style\*="fill: rgb\(255, 255, 255\)"\] \{ fill: (#\w+) !important; \}', CSS)
    assert keep and keep.group(1) == "#ffffff"


def test_the_checklists_names_stay_on_one_line_only_in_a_column_as_wide_as_a_figures():
    # kept on one line everywhere, a name took 166 of a phone's 358 px (103 wrapped) and the table grew 84 px taller at 768 px;
    # the column is measured (the checklist is its own size container), not the window, which the sidebar may share
    from core.viz.charts import TITLE_COLUMN_PX

    body = re.sub(r"/\*.*?\*/", "", CSS, flags=re.S)
    top = blocks(body)
    where = [
        prelude
        for prelude, inner in top
        for selector, declarations in (blocks(inner) if prelude.startswith("@") else [(prelude, inner)])
        if selector.startswith(".st-key-compare_checks") and "white-space" in declarations
    ]
    assert where == [f"@container (min-width: {TITLE_COLUMN_PX}px)"]  # the width at which a figure shows its own title
    assert dict(top)[".st-key-compare_checks"].strip() == "container-type: inline-size;"


def test_the_parser_catches_a_missing_brace():
    with pytest.raises(AssertionError):
        blocks(".a { color: #000; ")


def test_a_multiselect_chip_passes_on_the_primary_colour_in_both_themes():
    rule = next(line for line in CSS.splitlines() if line.startswith("[data-testid='stMultiSelectTagsContainer']"))
    for theme, words in zip(("light", "dark"), LIGHT_DARK.search(rule).groups()):
        assert contrast(rgb(words), rgb(THEMES[theme]["primaryColor"])) >= 4.5, theme


def test_a_figures_white_is_the_dark_themes_background_there():
    # a figure is built white (its PNG download stays so); in the dark theme its paper, plot area and label backings
    # take the page's own background, so a figure is not a white box
    rule = next(line for line in CSS.splitlines() if '[style*="fill: rgb(255, 255, 255)"]' in line)
    assert LIGHT_DARK.search(rule).groups() == ("#ffffff", THEMES["dark"]["backgroundColor"].lower())


def test_a_figures_toolbar_icons_stand_out_from_the_page_in_both_themes():
    # plotly.js's own icon grey, rgba(68, 68, 68, 0.3), over white is #c7c7c7: 1.7:1, below the 3:1 a control needs (WCAG 1.4.11)
    assert contrast(over(rgb("#444444"), rgb("#ffffff"), 0.3), rgb("#ffffff")) < 3
    rules = [line for line in CSS.splitlines() if line.startswith(".js-plotly-plot .modebar-btn")]
    assert len(rules) == 2  # the icons, and the icon under the pointer or switched on
    for rule in rules:
        (pair,) = LIGHT_DARK.findall(rule)
        for theme, colour in zip(("light", "dark"), pair):
            assert contrast(rgb(colour), rgb(THEMES[theme]["backgroundColor"])) >= 3, (rule, theme)


def test_a_scroll_bar_drawn_on_a_box_that_scrolls_sideways_stands_out_in_both_themes():
    # its thumb is a control (WCAG 1.4.11: 3:1) on the page and on a preformatted box's grey, rgba(128, 131, 140, 0.1) over it
    rule = next(line for line in CSS.splitlines() if "scrollbar-color:" in line)
    for theme, thumb in zip(("light", "dark"), LIGHT_DARK.search(rule).groups()):
        page = rgb(THEMES[theme]["backgroundColor"])
        for behind in (page, over(rgb("#80838c"), page, 0.1)):
            assert contrast(rgb(thumb), behind) >= 3, theme
