"""How many frames a second the turning dials (ui/motion.py) draw while they play, in headless Chromium:

    python -m bench.motion                 # /sinusoidal's clock and /rope's query, 3 s each, at the fastest speed
    python -m bench.motion --seconds 5 --repeats 3

It starts the app on 127.0.0.1 (harness.server.Server, as the e2e tests do), opens each page at the
tab that draws the dials, presses Play (the fastest speed) and counts, over the window, the frames the
component drew (its data-frames) and the browser's screen refreshes (requestAnimationFrame callbacks),
divided by the seconds measured in the page. Exit status 1 when a page draws fewer than TARGET_FPS frames
a second (the median of the repeats). A frame count depends on the machine's load: read it with the
load average printed beside it.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from harness.browser import CHROMIUM, CHROMIUM_ARGS
from harness.server import Server, load_average

TARGET_FPS = 30.0
VIEWS = {  # what is measured: the page, at the tab that draws the dials
    "sinusoidal clock": "sinusoidal?sin_view=Waves",
    "rope query": "rope",
}
READY = ".pee-mo[data-drawn]"
COUNT = """(ms) => new Promise((done) => {
    const root = document.querySelector('.pee-mo'), first = Number(root.dataset.frames);
    let ticks = 0; const t0 = performance.now();
    const tick = (now) => { ticks++; if (now - t0 < ms) requestAnimationFrame(tick);
        else done({ frames: Number(root.dataset.frames) - first, ticks, seconds: (now - t0) / 1000 }); };
    requestAnimationFrame(tick);
})"""


def measure(page, url: str, seconds: float) -> dict:
    page.goto(url)
    page.wait_for_selector(READY, timeout=180_000)
    page.locator(".pee-mo").scroll_into_view_if_needed()
    page.locator(".pee-mo-speed").select_option(str(page.locator(".pee-mo-speed option").count() - 1))  # the fastest
    page.locator(".pee-mo-p").evaluate("(s) => { s.value = 0; s.dispatchEvent(new Event('input', { bubbles: true })); }")  # from the start
    page.locator(".pee-mo-play").click()
    got = page.evaluate(COUNT, int(seconds * 1000))
    page.locator(".pee-mo-play").click()
    return {"fps": got["frames"] / got["seconds"], "refresh": got["ticks"] / got["seconds"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.motion", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="how long each count plays (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="counts per page, a fresh load each (default 3)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    failed = False
    with Server() as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        print(f"load average {load_average()}; target {TARGET_FPS:g} frames a second while playing")
        for name, path in VIEWS.items():
            page = context.new_page()
            runs = [measure(page, f"{server.url}/{path}", args.seconds) for _ in range(args.repeats)]
            page.close()
            fps = statistics.median(r["fps"] for r in runs)
            refresh = statistics.median(r["refresh"] for r in runs)
            ok = fps >= TARGET_FPS
            failed |= not ok
            each = ", ".join(f"{r['fps']:.1f}" for r in runs)
            print(f"{name:18s} {fps:6.1f} frames/s drawn, {refresh:6.1f} refreshes/s  ({each})  {'ok' if ok else 'FAIL'}")
        browser.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
