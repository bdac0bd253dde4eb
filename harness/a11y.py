"""Accessibility in the browser, shared by the e2e tests and scripts/a11y_views.py: axe-core (the npm package
pinned in package-lock.json, installed by scripts/test.sh) run on the page as it is, the URL-bound tabs of a page,
what a narrow screen shows, and where the Tab key goes.

axe-core's WCAG 2.0 and 2.1 A and AA rules judge a page; a violation counts as the app's own when the minimal
one-chart Streamlit page (bench/minimal_app.py) does not have it too: what both have is Streamlit's (or the
minimal page's), not something this app can change in its own markup. A violation is compared by its rule and the
element's HTML with Streamlit's generated class names and ids taken out, so the same Streamlit element on two pages
is the same violation, and an app's caption is not mistaken for a Streamlit label.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
GRAVE = ("serious", "critical")  # the impacts that fail a page

RUN_AXE = """async (tags) => {
    const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
    return result.violations.flatMap(v => v.nodes.map(n => ({
        rule: v.id, impact: n.impact || v.impact, html: n.html, target: n.target.join(' '), summary: n.failureSummary || ''})));
}"""

BOUND_TABS = """(click) => {
    const box = document.querySelector("[class*='st-key-'][class*='_view']");  // the tabs bound to the URL (ui/tabs.py: keys *_view)
    const list = box && box.querySelector("[role='tablist']");
    const tabs = list ? [...list.querySelectorAll("[role='tab']")].filter(t => t.closest("[role='tablist']") === list) : [];  // not a tab inside a tab
    if (click !== null) tabs[click].click();
    return tabs.map(t => t.innerText);
}"""

# The page's own width against the window's: a page that scrolls sideways as a whole has a wider document; then the
# first elements that stick out past the window, outside any box that scrolls or clips them, say why.
OVERFLOW = """() => {
    const scroll = document.documentElement.scrollWidth, inner = window.innerWidth;
    if (scroll <= inner) return {scroll, inner, wide: []};
    const boxed = e => { for (let p = e.parentElement; p; p = p.parentElement) {
        if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX)) return true; } return false; };
    const wide = [...document.querySelectorAll("[data-testid='stMain'] *")]
        .filter(e => e.getBoundingClientRect().right > inner + 1 && !boxed(e)).slice(0, 5)
        .map(e => e.tagName.toLowerCase() + '.' + [...e.classList].slice(0, 2).join('.') + ' ' + Math.round(e.getBoundingClientRect().right));
    return {scroll, inner, wide};
}"""

# The figures a page shows (Plotly's, the heatmap component's box, images) that are wider than the block of the page they
# sit in, or stick out past its right edge: what a narrow screen would cut off.
WIDER_THAN_COLUMN = """() => [...document.querySelectorAll(
        "[data-testid='stMain'] .js-plotly-plot, [data-testid='stMain'] [data-testid='stBidiComponentRegular'], [data-testid='stMain'] img")]
    .filter(e => e.getClientRects().length)
    .map(e => { const box = e.getBoundingClientRect(), column = e.closest("[data-testid='stVerticalBlock']").getBoundingClientRect();
        return {what: e.className.toString().split(' ')[0] || e.tagName.toLowerCase(), width: Math.round(box.width),
            column: Math.round(column.width), out: Math.round(box.right - column.right)}; })
    .filter(f => f.width > f.column + 1 || f.out > 1)"""

# The theme as the page shows it: the app's text and background colours, the colours plotly.js's text is drawn in
# (each distinct computed fill of a figure's tick and legend text), and those of what a figure paints behind its
# data (its SVG's background, and every background rectangle that is not see-through: the legend's).
THEME_SHOWN = """() => { const app = getComputedStyle(document.querySelector('.stApp'));
    const fills = [...document.querySelectorAll('.js-plotly-plot .xtick text, .js-plotly-plot .ytick text, .js-plotly-plot .legendtext')]
        .map(t => getComputedStyle(t).fill);
    const behind = [...document.querySelectorAll('.js-plotly-plot .main-svg')].map(s => getComputedStyle(s).backgroundColor)
        .concat([...document.querySelectorAll('.js-plotly-plot rect.bg')].filter(r => getComputedStyle(r).fillOpacity !== '0')
            .map(r => getComputedStyle(r).fill));
    return {text: app.color, background: app.backgroundColor, figures: [...new Set(fills)], behind: [...new Set(behind)]}; }"""

_GENERATED = re.compile(r'\s(?:id|aria-labelledby|aria-controls|aria-describedby|for)="[^"]*"|\bst-emotion-cache-\w+|\be[0-9a-z]{6,8}\d\b')


def violations(page) -> list[dict]:
    """Every serious or critical axe-core violation on the page as it is now, one entry per element:
    rule, impact, html, target (a CSS selector) and axe's failure summary (the colours, for contrast)."""
    if not AXE_JS.exists():
        raise FileNotFoundError(f"{AXE_JS} is missing: run `npm ci` in {ROOT} (scripts/test.sh does)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE_JS))
    return [v for v in page.evaluate(RUN_AXE, list(WCAG_TAGS)) if v["impact"] in GRAVE]


def signature(violation: dict) -> tuple[str, str]:
    """What makes two violations the same one: the rule and the element's HTML without generated names."""
    return violation["rule"], " ".join(_GENERATED.sub("", violation["html"]).split())


def own(found: list[dict], reference: list[dict]) -> list[dict]:
    """The violations in `found` that the reference page does not also have."""
    theirs = {signature(v) for v in reference}
    return [v for v in found if signature(v) not in theirs]


def describe(found: list[dict]) -> str:
    """One line per violation, for a failure message: rule, impact, what axe says, and the element."""
    return "\n".join(f"{v['rule']} ({v['impact']}): {v['summary'].splitlines()[-1].strip()} at {v['html'][:160]}" for v in found)


# Every control, button, link, tab list and expander title a page shows, numbered (data-kb) for the walk.
FOCUSABLE = """() => [...document.querySelectorAll(
        "[data-testid='stSidebar'] *, [data-testid='stMain'] *")]
    .filter(e => !e.closest("[data-testid='stElementToolbar']"))  // a table's own toolbar: Streamlit's, shown when the table has focus
    .filter(e => { const shut = e.closest('details:not([open])');  // a closed expander shows its title only
        return !shut || e.parentElement === shut && e.tagName === 'SUMMARY'; })
    .filter(e => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
        && (e.matches("input, button, select, textarea, summary, a[href], [role='slider'], [role='tab'], [role='button'], [role='combobox'], [tabindex]")))
    .map((e, i) => { e.dataset.kb = i; return i; })"""

WHAT = """() => { const e = document.activeElement; if (!e) return null;
    const text = (e.innerText || e.getAttribute('aria-label') || '').trim();
    return {kb: e.dataset.kb ?? null, role: e.getAttribute('role'), tag: e.tagName.toLowerCase(), text: text.slice(0, 40),
        csv: e.tagName === 'BUTTON' && text.includes('Data (CSV)')}; }"""  # where the focus is: what a Tab press reached


def walk(page, limit: int) -> list[dict]:
    """Press Tab until focus comes back to where it started (or `limit` presses), and say where each press landed."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        here = page.evaluate(WHAT)
        if seen and here == seen[0]:
            break
        seen.append(here)
    return seen


def missed_by_tab(page, stops: list[dict]) -> list[str]:
    """The controls the page shows (FOCUSABLE, numbered before the walk) that no Tab press reached."""
    reached = sorted({int(s["kb"]) for s in stops if s and s["kb"] is not None})
    return page.evaluate(
        "(reached) => [...document.querySelectorAll('[data-kb]')].filter(e => !reached.includes(+e.dataset.kb))"
        # a tab list and a radio group are one Tab stop each: the arrows move within them (WAI-ARIA's pattern)
        ".filter(e => !(e.getAttribute('role') === 'tab' && e.getAttribute('aria-selected') === 'false'))"
        ".filter(e => !(e.getAttribute('role') === 'radio' && e.getAttribute('aria-checked') === 'false'))"
        ".map(e => e.tagName.toLowerCase() + ' ' + (e.innerText || e.getAttribute('aria-label') || '').trim().slice(0, 40))",
        reached,
    )


OPEN_PANEL = """(label) => {
    const box = document.querySelector("[class*='st-key-'][class*='_view']");
    const tab = box && [...box.querySelectorAll("[role='tab'][aria-selected='true']")].find(t => t.innerText === label);
    const panel = tab && document.getElementById(tab.getAttribute('aria-controls'));
    return !!panel && panel.querySelector("[data-testid='stElementContainer']") !== null;
}"""  # the tab named `label` is open and its run has drawn something in it (a lazy tab is empty until then)


def tab_by_keyboard(page, label: str) -> None:
    """Open the next of the page's bound tabs, `label`, from the keyboard: focus on the open tab (Tab reaches it: the
    walk shows it), ArrowRight to the next, Enter; then wait for its link and its first element."""
    page.focus("[class*='st-key-'][class*='_view'] [role='tab'][aria-selected='true']")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    page.wait_for_function("(label) => [...new URLSearchParams(location.search).values()].includes(label)", arg=label, timeout=60_000)
    page.wait_for_function(OPEN_PANEL, arg=label, timeout=60_000)
