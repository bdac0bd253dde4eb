"""What a page control costs the browser and the server, against the shared slider's step on
the same page, measured in the same run:

    python -m bench.controls                       # every control below
    python -m bench.controls --before /work/wt/base   # and the same controls on another checkout

The target: "a page control (a layout switch, a chosen dimension, a head count) reruns
only what depends on it". A control inside a page's open tab reruns that tab, a fragment
(ui/tabs.py), and /sinusoidal's pair and /model's dimension a fragment inside it. Per
control, in headless Chromium (bench.browser's relay, settle rule and CPU meters):

- change: the control set to a new value each time (a number counted up, a slider one stop
  up), `--changes` times; timed from the input to the last DOM change once the run has finished;
- kB per change: what the server sent for it;
- main thread: the renderer's task time per change (CDP Performance);
- server: CPU-seconds of the app's server process per change (its script run and the
  messages it sends).

Read the ratios `change / step` (the page's own d_model step, which reruns everything) and,
with `--before`, this checkout against the other one: absolute seconds drift with the load.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.browser import Counting, _open, _settled, _task_duration
from harness.browser import CHROMIUM, CHROMIUM_ARGS
from harness.pages import ROOT
from harness.server import Server, cpu_seconds, load_average

RUNNING = "document.querySelector(\"[data-testid='stApp']\").getAttribute('data-test-script-state') !== 'notRunning'"


@dataclass(frozen=True)
class Control:
    name: str
    path: str  # page and query
    key: str  # the widget's key (its element has the class st-key-<key>)
    kind: str  # "number": typed and Enter, a new value each time from `first` up; "slider": one stop up each time
    first: int = 0


CONTROLS = (
    Control("sinusoidal: pair i (Waves)", "sinusoidal?sin_view=Waves", "pair", "number", 5),
    Control("sinusoidal: position p (Exact values)", "sinusoidal?sin_view=Exact+values", "position", "number", 7),
    Control("similarity: reference (Distance)", "similarity?sim_view=Distance", "reference", "number", 9),
    Control("rope: pair (One pair)", "rope", "rope_pair", "slider"),
    Control("model: dimension (Spectrum)", "model?model_view=Spectrum", "dim", "number", 3),
    Control("model: principal component (Path)", "model?model_view=Path+(PCA)", "pc", "slider"),
)


@dataclass
class Result:
    control: str
    tree: str
    changes_s: list[float] = field(default_factory=list)
    steps_s: list[float] = field(default_factory=list)
    kb: list[float] = field(default_factory=list)
    step_kb: list[float] = field(default_factory=list)
    main_s: float | None = None
    step_main_s: float | None = None
    server_s: float | None = None
    step_server_s: float | None = None
    errors: list[str] = field(default_factory=list)


async def _act(page, control: Control | None, i: int) -> None:
    """The i-th change of this page's session: a value it has not had before."""
    if control is None:  # the page's shared d_model step
        thumb = page.locator(".st-key-d_model_slider input[type='range']")
        await thumb.focus(timeout=10_000)
        await thumb.press("ArrowRight")  # a new width each step, as bench.browser does
    elif control.kind == "number":
        box = page.locator(f".st-key-{control.key} input").first
        await box.fill(str(control.first + i))
        await box.press("Enter")
    else:
        thumb = page.locator(f".st-key-{control.key} input[type='range']").first
        await thumb.focus(timeout=10_000)
        await thumb.press("ArrowRight")


async def _series(
    page, cdp, relay: Counting, server_pid: int, control: Control | None, n: int, r: Result, start: int = 0
) -> tuple[list[float], list[float], float, float]:
    times, kbs = [], []
    task0, cpu0 = await _task_duration(cdp), cpu_seconds(server_pid)
    for i in range(start, start + n):
        url_before = await page.evaluate("location.search")
        sent = relay.sent
        since = await page.evaluate("Date.now()")
        await _act(page, control, i)
        try:
            if control is not None:  # not every control is in the URL: wait for its run to start instead
                try:
                    await page.wait_for_function(RUNNING, polling=10, timeout=3_000)
                except Exception:  # noqa: BLE001 - a run that started and ended between two polls
                    pass
            done = await _settled(page, since, url_before if control is None else None, timeout_s=60)
        except Exception as err:  # noqa: BLE001 - a change that never settles is a result
            r.errors.append(f"{'control' if control else 'step'} {i}: {type(err).__name__}: {str(err)[:120]}")
            continue
        times.append((done["t"] - since) / 1000)
        kbs.append((relay.sent - sent) / 1000)
        if done["exceptions"]:
            r.errors.append(f"{done['exceptions']} exception(s) shown")
    return times, kbs, (await _task_duration(cdp) - task0) / n, (cpu_seconds(server_pid) - cpu0) / n


async def measure(browser, relay: Counting, server_pid: int, control: Control, tree: str, n: int) -> Result:
    r = Result(control.name, tree)
    url = f"{relay.url}/{control.path}"
    ctx, page = await _open(browser, url)
    try:
        since = await page.evaluate("Date.now()")
        await page.goto(url, wait_until="domcontentloaded", timeout=60_000)
        await _settled(page, since, None)
        await page.wait_for_timeout(500)
        cdp = await ctx.new_cdp_session(page)
        await cdp.send("Performance.enable")
        await _series(page, cdp, relay, server_pid, control, 2, r)  # warm: the first two changes are not counted
        r.changes_s, r.kb, r.main_s, r.server_s = await _series(page, cdp, relay, server_pid, control, n, r, start=2)
        r.steps_s, r.step_kb, r.step_main_s, r.step_server_s = await _series(page, cdp, relay, server_pid, None, n, r)
    except Exception as err:  # noqa: BLE001
        r.errors.append(f"{type(err).__name__}: {str(err)[:160]}")
    finally:
        await ctx.close()
    return r


def _med(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def render(results: list[Result], before: str, after: str) -> str:
    def f(x, spec=".2f"):
        return "n/a" if x is None else format(x, spec)

    lines = [
        f"machine load (1/5/15 min): before {before}; after {after}",
        "",
        f"{'control':<40} {'tree':<7} {'change':>7} {'step':>6} {'ratio':>6} {'kB':>7} {'step kB':>8} {'main':>6} {'step':>6} {'server':>7} {'step':>6}",
    ]
    for r in results:
        change, step = _med(r.changes_s), _med(r.steps_s)
        lines.append(
            f"{r.control:<40} {r.tree:<7} {f(change)} {f(step):>6} {f(change / step if change and step else None):>6} {f(_med(r.kb), '.1f'):>7} "
            f"{f(_med(r.step_kb), '.1f'):>8} {f(r.main_s):>6} {f(r.step_main_s):>6} {f(r.server_s, '.3f'):>7} {f(r.step_server_s, '.3f'):>6}"
            + (f"  errors: {r.errors[:2]}" if r.errors else "")
        )
    lines += ["", "change, step: seconds to the last DOM change (medians); main: renderer main-thread s; server: the app server's CPU s (per change)"]
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> int:
    from playwright.async_api import async_playwright

    chosen = [c for c in CONTROLS if not args.only or any(word in c.name for word in args.only.split(","))]
    app = Server(port=args.port, log=ROOT / "artifacts" / "bench-controls-app.log")
    old = Server(port=args.port + 1, log=ROOT / "artifacts" / "bench-controls-before.log", root=args.before) if args.before else None
    before = load_average()
    results: list[Result] = []
    try:
        app.start()
        if old:
            old.start()
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            trees = [("this", app, await Counting(app.port, args.port + 2).start())]
            if old:
                trees.append(("before", old, await Counting(old.port, args.port + 3).start()))
            for control in chosen:
                for tree, server, relay in trees:  # one right after the other: the same moment of a noisy machine
                    print(f"{control.name} ({tree}) ...", file=sys.stderr, flush=True)
                    results.append(await measure(browser, relay, server.pid, control, tree, args.changes))
            await browser.close()
            for _, _, relay in trees:
                relay.close()
    finally:
        app.stop()
        if old:
            old.stop()
    time.sleep(0.1)
    print(render(results, before, load_average()))
    return 0 if not any(r.errors for r in results) else 1


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.controls", description=__doc__.split("\n\n")[0])
    p.add_argument("--changes", type=int, default=6, help="changes of each control, and d_model steps, per page (default 6)")
    p.add_argument("--only", help="comma-separated words: only the controls whose name has one")
    p.add_argument("--port", type=int, default=8831, help="the app's port; --before gets the next one, the relays the two after (default 8831)")
    p.add_argument("--before", type=Path, help="another checkout of the app, measured beside this one")
    args = p.parse_args(argv)
    if args.changes < 2:
        p.error("--changes must be at least 2")
    return args


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
