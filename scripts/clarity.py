"""What a learner meets first on every page, counted in headless Chromium against a running app:

    streamlit run app.py --server.port 8501 --server.headless true &
    python scripts/clarity.py --url http://localhost:8501            # a Markdown table

Per page at 1,440 x 900: the words shown in the main column with every expander closed (the open tab's, as a
visitor first sees it), the words above the first figure, and the first figure's top in pixels from the top of
the page (within 900: it is on the first screen). At 390 x 844: how many figures are wider than their column.
A figure is a Plotly chart, a painted heatmap or a browser-drawn view (a component that draws). Words are what the eye reads: an
icon's ligature name and text kept for a screen reader alone (a figure's text alternative, a formula's MathML) are not counted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.browser import CHROMIUM, CHROMIUM_ARGS, wait_ready  # noqa: E402
from ui.path import STEPS  # noqa: E402

FIGURES = ", ".join(
    (
        "[data-testid='stPlotlyChart']",
        "[data-testid='stElementContainer']:has(.pee-hm)",
        "[data-testid='stElementContainer']:has(.pee-sp)",
        "[data-testid='stImage']",
    )
)
MEASURE = """(figures) => {
    const main = document.querySelector("[data-testid='stMain']");
    const block = main.querySelector("[data-testid='stMainBlockContainer']") || main;
    const figs = [...block.querySelectorAll(figures)].filter(f => f.getBoundingClientRect().height > 20);
    const first = figs.length ? figs[0] : null;
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    let words = 0, above = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement;
        if (!el || !el.checkVisibility() || el.closest("details:not([open]) > :not(summary)")) continue;
        if (el.closest("[data-testid='stPlotlyChart'], .pee-hm, [data-testid='stElementToolbar']")) continue;  // a figure's own labels
        if (el.closest("[data-testid='stIconMaterial']")) continue;  // an icon: its ligature's name ("keyboard_arrow_right") is drawn as a glyph, not read
        if (el.closest(".pee-figure-text, .katex-mathml")) continue;  // for a screen reader only (a figure in words, a formula's MathML twin): not on screen
        const n = (node.textContent.match(/[\\p{L}\\p{N}][\\p{L}\\p{N}'’.,-]*/gu) || []).length;
        words += n;
        if (first && (first.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING)) above += n;
    }
    const top = first ? first.getBoundingClientRect().top + main.scrollTop : null;
    const column = block.getBoundingClientRect().width;
    const wide = figs.filter(f => f.getBoundingClientRect().width > column + 1 || f.scrollWidth > f.clientWidth + 1).length;
    return {words, above: first ? above : words, top, figures: figs.length, wide};
}"""


def measure(url: str) -> list[dict]:
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        wide_page = browser.new_page(viewport={"width": 1440, "height": 900})
        narrow_page = browser.new_page(viewport={"width": 390, "height": 844})
        for step in STEPS:
            row = {"page": "/" + step.url_path}
            for page, width in ((wide_page, 1440), (narrow_page, 390)):
                page.goto(f"{url.rstrip('/')}/{step.url_path}")
                wait_ready(page, timeout=120_000)
                row[width] = page.evaluate(MEASURE, FIGURES)
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
        browser.close()
    return rows


def table(rows: list[dict]) -> str:
    lines = [
        "| page | words shown (expanders closed) | words above the first figure | first figure's top (px, 1,440 x 900) "
        "| figures wider than their column at 390 px |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        wide, narrow = row[1440], row[390]
        top = "no figure" if wide["top"] is None else f"{wide['top']:.0f}"
        lines.append(f"| {row['page']} | {wide['words']:,} | {wide['above']:,} | {top} | {narrow['wide']} of {narrow['figures']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://localhost:8501", help="a running app")
    print(table(measure(parser.parse_args().url)))


if __name__ == "__main__":
    main()
