"""Every view of the app (each page, and each tab bound to the URL) as axe-core judges it, and as a phone shows it:

    python scripts/a11y_views.py axe                  # the table: serious and critical violations per view
    python scripts/a11y_views.py shots --width 390    # a whole-page screenshot of every page, artifacts/screenshots/
    python scripts/a11y_views.py axe --theme dark     # either, with the browser asking for the dark theme

`axe` starts the app and the minimal one-chart page (bench/minimal_app.py), runs axe-core's WCAG 2.0/2.1 A and AA
rules on every view at the defaults and at the extreme settings, and prints a Markdown table: the serious and
critical violations (elements) of each view, and how many of them the minimal page does not also have (the app's
own; harness/a11y.py says how they are compared). `--url` judges a server started elsewhere (another checkout).
`shots` also prints, per page, whether the page scrolls sideways as a whole at that width. `--theme` is the colour
scheme the browser prefers, which the app follows (.streamlit/config.toml defines both themes).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import a11y  # noqa: E402
from harness.browser import CHROMIUM, CHROMIUM_ARGS, screenshot, wait_ready  # noqa: E402
from harness.pages import app_pages  # noqa: E402
from harness.server import Server  # noqa: E402
from harness.settings import SETTINGS as BENCH_SETTINGS  # noqa: E402

NAMES = {page.url_path: page.name for page in app_pages()}  # url path -> short name ("" is /, the position problem)
SETTINGS = {"defaults": "", "extremes": "?" + "&".join(f"{k}={v}" for k, v in next(s for s in BENCH_SETTINGS if s.name == "extremes").query_params().items())}


def views(page, url: str):
    """Open `url`, then yield the name of each view of it (its bound tabs, or the page) once it is drawn."""
    page.goto(url)
    wait_ready(page)
    tabs = page.evaluate(a11y.BOUND_TABS, None)
    yield tabs[0] if tabs else ""
    for i, label in enumerate(tabs[1:], start=1):
        page.evaluate(a11y.BOUND_TABS, i)
        page.wait_for_function("(label) => [...new URLSearchParams(location.search).values()].includes(label)", arg=label, timeout=60_000)
        wait_ready(page)
        yield label


def axe_table(context, app: str, minimal: str) -> str:
    page = context.new_page()
    page.goto(minimal)
    wait_ready(page)
    reference = a11y.violations(page)
    lines = [
        f"minimal page: {len(reference)} serious/critical ({', '.join(sorted({v['rule'] for v in reference})) or 'none'})",
        "",
        "| view | setting | serious/critical | the app's own | own rules (elements) |",
        "|---|---|---:|---:|---|",
    ]
    for path in NAMES:
        for setting, query in SETTINGS.items():
            for view in views(page, f"{app}/{path}{query}"):
                found = a11y.violations(page)
                mine = a11y.own(found, reference)
                rules = ", ".join(f"{rule} {n}" for rule, n in Counter(v["rule"] for v in mine).items())
                lines.append(f"| /{path}{' · ' + view if view else ''} | {setting} | {len(found)} | {len(mine)} | {rules} |")
                print(lines[-1], file=sys.stderr, flush=True)
    page.close()
    return "\n".join(lines)


def shots(context, app: str, width: int, theme: str = "light") -> str:
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": 844})
    lines = [f"| page | scrollWidth at {width} px | wider elements |", "|---|---:|---|"]
    for path, name in NAMES.items():
        page.goto(f"{app}/{path}")
        wait_ready(page)
        over = page.evaluate(a11y.OVERFLOW)
        shot = screenshot(page, f"view-{width}-{theme}-{name}")
        lines.append(f"| /{path} | {over['scroll']} | {'; '.join(over['wide'])} | ")
        print(lines[-1], shot, file=sys.stderr, flush=True)
    page.close()
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["axe", "shots"])
    parser.add_argument("--url", help="a server already running (the app); default: start one")
    parser.add_argument("--width", type=int, default=390, help="shots: the window's width in CSS pixels")
    parser.add_argument("--theme", choices=["light", "dark"], default="light", help="the colour scheme the browser prefers (the app follows it)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    servers = []
    try:
        app = args.url or servers.append(Server().start()) or servers[-1].url
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=args.theme)
            if args.what == "axe":
                servers.append(Server(script="bench/minimal_app.py").start())
                print(axe_table(context, app.rstrip("/"), servers[-1].url))
            else:
                print(shots(context, app.rstrip("/"), args.width, args.theme))
            browser.close()
    finally:
        for server in servers:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
