"""What a visitor's browser pays per page, against a minimal one-chart Streamlit page measured
in the same run:

    python -m bench.browser                          # every page, at the defaults and at d_model 512 / max_len 2048
    python -m bench.browser --pages sinusoidal,attention --steps 8 --loads 3
    python -m bench.browser --trace sinusoidal       # also a Chromium performance trace of one redraw
    python -m bench.browser --explain relative       # also what one redraw sent, element by element, and what it waited on
    python -m bench.browser --fps                    # instead: frames a second of the turning dials while they play

It starts two servers on 127.0.0.1 (ports --port and --port + 1): the app, and
bench/minimal_app.py (the three sidebar sliders and one 3-point chart, nothing of this app).
For each page and setting, in headless Chromium:

- first load: a fresh browser context opens the page; timed until the app is connected, its
  script has finished, no skeleton is left and the page's DOM has been quiet for 300 ms (the
  time of the last change counts, not the wait);
- redraw: the d_model slider (on a page that does not show d_model, the first shared setting it shows;
  none on a page that shows none) is moved one stop up (ArrowRight) from the setting's own value,
  each step in a session of its own, opened by a load: the session has not drawn that width,
  so the figures arrive whole. Going back and forth between two stops in one session let the
  browser's message cache (Streamlit sends a reference to a message the browser already holds)
  hide the figures' bytes and their parsing from the second round trip on; `--back-and-forth`
  measures that way (what a learner nudging one slider back and forth pays). Stepping on up
  in one session is no better: from 128 it reaches 4,096 in five steps, another page's cost.
  Timed from the key press to the last DOM change once the run has finished, as above. The
  server has drawn the new width before (warm-up, earlier steps), so its caches answer: the
  server's own cost is bench.load's and bench.app_run's to measure;
- bytes per step: what the server sent the browser for that step (HTTP and websocket), counted by a relay in
  front of each server (ports --port + 3 ...);
- browser CPU per redraw: CPU-seconds of every Chromium process over the steps, divided by
  the number of steps (as bench.load meters it), and the renderer's main-thread task time
  from Chrome's Performance domain.

With `--fps`, nothing of the above: the app alone, at 1,440 x 900, each page with Play controls (ui/motion.py: /sinusoidal's
clock on its Waves tab, /rope's turning query) opened --loads times at that tab; Play is pressed at the fastest speed from
position 0, and over --seconds the frames the component drew (its data-frames) and the browser's screen refreshes
(requestAnimationFrame callbacks) are counted, per second measured in the page. The refreshes are the reference of the
same run: a dial that draws on every refresh draws as fast as this browser can. Exit status 1 when the median falls under
FPS_TARGET frames a second.

With `--explain PAGE`, one more step of PAGE in a session of its own, taken apart: every message the server sent for it
(its kind, or the element it adds with the key it was given, and its bytes, as the websocket carried them), every element
of the page the step changed with the milliseconds from the key press to its last change (the last ones are what the step
waited on), and which Plotly charts were drawn anew (plotly.js starts a new chart whenever a figure's spec changes)
and which were kept.

With `--before PATH` (a checkout of the app before a change, e.g. from `git archive`), each page
is measured there too, right after this checkout's, and printed as "page (before)".

Medians over the repetitions. Ratios are this page's median over the minimal page's median
measured in the same run (the minimal page is measured before each setting's pages and again
after them, and both samples are pooled), because this machine is shared and noisy: read the
ratios, not the seconds. Exit status 1 when a target fails (redraw <= 2x, first load <= 1.5x,
<= 300 kB per step, browser CPU <= 0.3 s per redraw).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness.browser import CHROMIUM, CHROMIUM_ARGS
from harness.pages import ROOT, AppPage, pages_named
from harness.server import CpuMeter, Server, load_average

SETTINGS = {"default": "", "big": "d_model=512&max_len=2048"}
TARGETS = {"redraw_ratio": 2.0, "load_ratio": 1.5, "kb_per_step": 300.0, "cpu_per_redraw_s": 0.3}
QUIET_MS = 300
FPS_TARGET = 30.0
DIALS = {"sinusoidal clock": "sinusoidal?sin_view=Waves", "rope turning query": "rope"}  # --fps: each page at the tab that draws its dials
# --fps: frames drawn and screen refreshes over `ms` while the dial plays
COUNT_FRAMES = """(ms) => new Promise((done) => {
    const root = document.querySelector('.pee-mo'), first = Number(root.dataset.frames || 0);
    let ticks = 0; const t0 = performance.now();
    const tick = (now) => { ticks++; if (now - t0 < ms) requestAnimationFrame(tick);
        else done({ frames: Number(root.dataset.frames || 0) - first, ticks, seconds: (now - t0) / 1000 }); };
    requestAnimationFrame(tick);
})"""
CATEGORIES = "devtools.timeline,v8.execute,disabled-by-default-devtools.timeline,blink.user_timing,loading"
BACK_AND_FORTH = False  # --back-and-forth: steps alternate between two stops (cache hits after the first two)

# Installed before the app's scripts: the time of the last DOM change (any element, attribute or text).
INIT_SCRIPT = """
(() => {
  window.__last = Date.now();
  new MutationObserver(() => { window.__last = Date.now(); })
    .observe(document, {attributes: true, childList: true, characterData: true, subtree: true});
  window.__ready = () => {
    const app = document.querySelector("[data-testid='stApp']");
    return !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
      && app.getAttribute('data-test-script-state') === 'notRunning' && !document.querySelector("[data-testid='stSkeleton']");
  };
})();
"""
# Ready, and nothing changed for QUIET_MS: returns the time of the last change (ms since the epoch).
WAIT_SETTLED = f"""
([since, urlBefore]) => {{
  const taken = urlBefore === null || location.search !== urlBefore;
  if (!taken || !window.__ready() || Date.now() - window.__last < {QUIET_MS}) return false;
  return {{t: Math.max(window.__last, since), exceptions: document.querySelectorAll("[data-testid='stException']").length,
           // Plotly charts and painted heatmaps (ui/heatmap.py; .pee-pg: --before a tree that named them so)
           charts: document.querySelectorAll("[data-testid='stPlotlyChart'], .pee-hm, .pee-pg").length,
           images: document.querySelectorAll("[data-testid='stImage'], [data-testid='stPlotlyChart'] image").length}};
}}
"""

# --explain: per element of the page (its st-key- class, else its test id or tag), the changes and the time of the last one
CHANGES = """
(() => {
  window.__changes = {};
  new MutationObserver((records) => { for (const r of records) {
    const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    const box = el && el.closest("[data-testid='stElementContainer']");
    const name = box ? ([...box.classList].find((c) => c.startsWith('st-key-')) || box.querySelector('[data-testid]')?.dataset.testid || 'element')
      : (el ? el.dataset?.testid || el.tagName.toLowerCase() : '?');
    const seen = window.__changes[name] || (window.__changes[name] = [0, 0]);
    seen[0] += 1; seen[1] = performance.now();
  } }).observe(document, {attributes: true, childList: true, characterData: true, subtree: true});
})();
"""
# --explain: each Plotly chart's element, marked before the step; a chart drawn anew has lost the mark
MARK_CHARTS = """() => document.querySelectorAll('.js-plotly-plot').forEach((gd, i) => {
  const box = gd.closest("[data-testid='stElementContainer']");
  gd.__peeMark = (box && [...box.classList].find((c) => c.startsWith('st-key-'))) || `chart ${i + 1}`; })"""
CHARTS_AFTER = """() => [...document.querySelectorAll('.js-plotly-plot')].map((gd, i) => {
  const box = gd.closest("[data-testid='stElementContainer']");
  return [(box && [...box.classList].find((c) => c.startsWith('st-key-'))) || `chart ${i + 1}`, !!gd.__peeMark]; })"""


def messages(frames: list[bytes]) -> list[tuple[str, str, int]]:
    """What each websocket frame from the server carried: (what, where, bytes). `what` is the element a delta adds
    (its type, and the key the page gave it, from its element id "$$ID-<hash>-<key>"), or the message's kind;
    `where` is the delta's path in the page's tree of blocks ("" for a message that is no delta)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    out = []
    for frame in frames:
        msg = ForwardMsg.FromString(frame)
        kind, where = msg.WhichOneof("type") or "?", ""
        if kind == "delta":
            where = ".".join(map(str, msg.metadata.delta_path))
            kind = msg.delta.WhichOneof("type") or "?"
            if kind == "new_element":
                element = msg.delta.new_element
                kind = element.WhichOneof("type") or "?"
                element_id = getattr(getattr(element, kind), "id", "") if kind != "?" else ""
                key = element_id.split("-", 2)[2] if isinstance(element_id, str) and element_id.count("-") >= 2 else "None"
                kind += "" if key == "None" else f" {key}"
        out.append((kind, where, len(frame)))
    return out


def explained(sent: list[tuple[str, str, int]], changes: dict[str, list[float]], charts: list[list], wall_s: float) -> str:
    """The --explain report of one step: the messages by bytes, the elements by the time of their last change, the charts."""
    lines = [f"  wall {wall_s:.2f} s; {len(sent)} messages, {sum(n for _, _, n in sent) / 1000:.1f} kB", "  sent (largest first):"]
    lines += [f"    {n / 1000:8.1f} kB  {what:<44} {where}" for what, where, n in sorted(sent, key=lambda m: -m[2])[:12]]
    lines.append("  changed (element: changes, ms from the key press to its last change; the last is what the step waited on):")
    lines += [f"    {name:<44} {count:6.0f} {last:8.0f}" for name, (count, last) in sorted(changes.items(), key=lambda c: c[1][1])[-12:]]
    kept = [name for name, same in charts if same]
    anew = [name for name, same in charts if not same]
    lines.append(f"  Plotly charts drawn anew: {', '.join(anew) or 'none'}; kept: {', '.join(kept) or 'none'}")
    return "\n".join(lines)


@dataclass
class Measured:
    """One page at one setting (or the minimal page)."""

    page: str
    setting: str
    loads_s: list[float] = field(default_factory=list)
    redraws_s: list[float] = field(default_factory=list)
    bytes_per_step: list[int] = field(default_factory=list)
    cpu_s: float | None = None  # every Chromium process, per redraw
    main_thread_s: float | None = None  # the renderer's main thread (CDP Performance TaskDuration), per redraw
    charts: int = 0
    errors: list[str] = field(default_factory=list)
    stepped_nothing: bool = False  # the page shows no shared setting, so nothing was stepped

    def median(self, name: str) -> float | None:
        values = getattr(self, name)
        return statistics.median(values) if values else None


class Counting:
    """A TCP relay in front of a server that counts the bytes the server sends to the browser
    (HTTP and the websocket, as they go over the wire). Chromium's DevTools reported a small
    fraction of the websocket traffic (52 kB per step where the figures sent were ~1 MB), so
    the bytes per step are counted here instead."""

    def __init__(self, target_port: int, port: int) -> None:
        self.target_port, self.port, self.sent = target_port, port, 0
        self.url = f"http://127.0.0.1:{port}"
        self._server = None

    async def start(self) -> Counting:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", self.port)
        return self

    async def _client(self, reader, writer) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return

        async def pipe(src, dst, count: bool) -> None:
            try:
                while data := await src.read(65536):
                    if count:
                        self.sent += len(data)
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer, False), pipe(up_reader, writer, True))

    def close(self) -> None:
        if self._server:
            self._server.close()


async def _open(browser, url: str, viewport=(1280, 900)):
    ctx = await browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    await ctx.add_init_script(INIT_SCRIPT)
    page = await ctx.new_page()
    return ctx, page


async def _settled(page, since: int, url_before: str | None, timeout_s: float = 90.0) -> dict:
    handle = await page.wait_for_function(WAIT_SETTLED, arg=[since, url_before], polling=30, timeout=timeout_s * 1000)
    return await handle.json_value()


async def _load(browser, url: str, m: Measured, i: int):
    """A first load in a fresh context: (ctx, page) and the load time appended to `m`, or
    (ctx, None) when it failed (the error is a result)."""
    ctx, page = await _open(browser, url)
    since = await page.evaluate("Date.now()")
    try:
        await page.goto(url, wait_until="domcontentloaded", timeout=60_000)
        done = await _settled(page, since, None)
    except Exception as err:  # noqa: BLE001 - a failed load is a result
        m.errors.append(f"load {i}: {type(err).__name__}: {str(err)[:160]}")
        return ctx, None
    m.charts = done["charts"]
    if done["exceptions"]:
        m.errors.append(f"load {i}: {done['exceptions']} exception(s) shown")
    return ctx, (page, (done["t"] - since) / 1000)


async def _step(page, relay: Counting, m: Measured, i: int, key: str, setting: str) -> None:
    """One slider step of `setting` by `key`; its time and bytes appended to `m`."""
    thumb = page.locator(f".st-key-{setting}_slider input[type='range']")
    await thumb.focus(timeout=10_000)
    url_before = await page.evaluate("location.search")
    received = relay.sent
    since = await page.evaluate("Date.now()")
    await thumb.press(key)
    try:
        done = await _settled(page, since, url_before)
    except Exception as err:  # noqa: BLE001
        m.errors.append(f"step {i}: {type(err).__name__}: {str(err)[:160]}")
        return
    m.redraws_s.append((done["t"] - since) / 1000)
    m.bytes_per_step.append(relay.sent - received)
    if done["exceptions"]:
        m.errors.append(f"step {i}: {done['exceptions']} exception(s) shown")


async def measure(
    browser, relay: Counting, path: str, query: str, name: str, setting: str, loads: int, steps: int, meter_pids: list[int], stepped: str | None = "d_model"
) -> Measured:
    """First loads, each in a fresh context, and `steps` slider steps of the shared setting `stepped`
    (AppPage.stepped: d_model where the page shows it; None, no steps, on a page that shows no setting).

    By default every step is the one from the setting's own d_model to the next stop up, each
    in a session of its own (opened by a load, timed as one of the `loads` while there are
    any): the session has never drawn the new width, so its figures arrive whole, and the
    step is the same one every time (stepping on up from 128 would reach 4,096 in five steps,
    and stop at the slider's end). With BACK_AND_FORTH the steps alternate up and down in the
    last load's session (the browser holds every message after the first two)."""
    m = Measured(name, setting, stepped_nothing=stepped is None)
    url = f"{relay.url}/{path}" + (f"?{query}" if query else "")
    meter = CpuMeter(meter_pids)
    cpu = task = 0.0
    steps = steps if stepped else 0
    rounds = max(loads, 1 if BACK_AND_FORTH else steps)
    for i in range(rounds):
        ctx, opened = await _load(browser, url, m, i)
        if opened is None:
            await ctx.close()
            continue
        page, load_s = opened
        if i < loads:
            m.loads_s.append(load_s)
        last = i == rounds - 1
        if BACK_AND_FORTH:
            todo = [(j, "ArrowRight" if j % 2 == 0 else "ArrowLeft") for j in range(steps)] if last else []
        else:
            todo = [(i, "ArrowRight")] if i < steps else []
        if todo:
            cdp = await ctx.new_cdp_session(page)
            await cdp.send("Performance.enable")
            task0 = await _task_duration(cdp)
            meter.start()
            for j, key in todo:
                await _step(page, relay, m, j, key, stepped)
            used = meter.stop()
            cpu += used["browser_cores"] * used["wall_s"]
            task += await _task_duration(cdp) - task0
        await ctx.close()
    if m.redraws_s:
        m.cpu_s = cpu / steps
        m.main_thread_s = task / steps
    return m


async def _task_duration(cdp) -> float:
    metrics = await cdp.send("Performance.getMetrics")
    return next((x["value"] for x in metrics["metrics"] if x["name"] == "TaskDuration"), 0.0)


async def trace_redraw(browser, base_url: str, path: str, query: str, out: Path, setting: str = "d_model") -> str:
    """A Chromium performance trace (CDP Tracing) of one slider step of `setting`; returns a summary."""
    url = f"{base_url}/{path}" + (f"?{query}" if query else "")
    ctx, page = await _open(browser, url)
    since = await page.evaluate("Date.now()")
    await page.goto(url, wait_until="domcontentloaded", timeout=60_000)
    await _settled(page, since, None)
    cdp = await ctx.new_cdp_session(page)
    events: list[dict] = []
    finished = asyncio.get_running_loop().create_future()
    cdp.on("Tracing.dataCollected", lambda ev: events.extend(ev["value"]))
    cdp.on("Tracing.tracingComplete", lambda ev: finished.done() or finished.set_result(True))
    await cdp.send("Tracing.start", {"categories": CATEGORIES, "transferMode": "ReportEvents"})
    thumb = page.locator(f".st-key-{setting}_slider input[type='range']")
    await thumb.focus()
    url_before = await page.evaluate("location.search")
    since = await page.evaluate("Date.now()")
    await thumb.press("ArrowRight")
    done = await _settled(page, since, url_before)
    await cdp.send("Tracing.end")
    await asyncio.wait_for(finished, 60)
    await ctx.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"traceEvents": events}))
    return summarise_trace(events, (done["t"] - since) / 1000)


async def explain_redraw(browser, base_url: str, path: str, setting: str) -> str:
    """One slider step of `setting` in a fresh session, taken apart (see --explain in the module docstring)."""
    ctx, page = await _open(browser, f"{base_url}/{path}")
    await ctx.add_init_script(CHANGES)
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload if isinstance(payload, bytes) else payload.encode())))
    since = await page.evaluate("Date.now()")
    await page.goto(f"{base_url}/{path}", wait_until="domcontentloaded", timeout=60_000)
    await _settled(page, since, None)
    await page.evaluate(MARK_CHARTS)
    await page.evaluate("window.__changes = {}")
    frames.clear()
    thumb = page.locator(f".st-key-{setting}_slider input[type='range']")
    await thumb.focus()
    url_before = await page.evaluate("location.search")
    since, start = await page.evaluate("[Date.now(), performance.now()]")
    await thumb.press("ArrowRight")
    done = await _settled(page, since, url_before)
    changes = {name: [count, last - start] for name, (count, last) in (await page.evaluate("window.__changes")).items()}
    charts = await page.evaluate(CHARTS_AFTER)
    await ctx.close()
    return explained(messages(frames), changes, charts, (done["t"] - since) / 1000)


def summarise_trace(events: list[dict], wall_s: float) -> str:
    """Where the renderer's main thread spent one redraw: top-level tasks by kind, and the
    script time by the file it ran in (Plotly's bundle, Streamlit's, ...)."""
    main = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"}
    on_main = [e for e in events if (e.get("pid"), e.get("tid")) in main and e.get("ph") == "X" and "dur" in e]
    by_name: Counter[str] = Counter()
    by_file: Counter[str] = Counter()
    for e in on_main:
        if e["name"] in (
            "FunctionCall",
            "EvaluateScript",
            "v8.callFunction",
            "TimerFire",
            "FireAnimationFrame",
            "EventDispatch",
            "Layout",
            "UpdateLayoutTree",
            "Paint",
            "PrePaint",
            "Layerize",
            "Commit",
            "MajorGC",
            "MinorGC",
            "ParseHTML",
            "HitTest",
            "RunMicrotasks",
            "ScheduleStyleRecalculation",
            "IntersectionObserverController::computeIntersections",
        ):
            by_name[e["name"]] += e["dur"]
        if e["name"] == "FunctionCall":
            url = e.get("args", {}).get("data", {}).get("url", "") or "?"
            by_file[url.rsplit("/", 1)[-1][:60]] += e["dur"]
    tasks = sum(e["dur"] for e in on_main if e["name"] in ("RunTask", "ThreadControllerImpl::RunTask"))
    lines = [f"  wall {wall_s:.2f} s; main-thread tasks {tasks / 1e6:.2f} s"]
    lines += [f"  {name:<28} {dur / 1e6:6.3f} s" for name, dur in by_name.most_common(10)]
    lines += ["  script by file:"] + [f"    {name:<60} {dur / 1e6:6.3f} s" for name, dur in by_file.most_common(6)]
    return "\n".join(lines)


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def rows(results: list[Measured], refs: dict[str, list[Measured]]) -> list[dict]:
    out = []
    for m in results:
        ref_redraws = [x for r in refs[m.setting] for x in r.redraws_s]
        ref_loads = [x for r in refs[m.setting] for x in r.loads_s]
        redraw, load = m.median("redraws_s"), m.median("loads_s")
        kb = m.median("bytes_per_step")
        row = {
            "page": m.page,
            "setting": m.setting,
            "charts": m.charts,
            "redraw_s": redraw,
            "redraw_ratio": _ratio(redraw, statistics.median(ref_redraws) if ref_redraws else None),
            "load_s": load,
            "load_ratio": _ratio(load, statistics.median(ref_loads) if ref_loads else None),
            "kb_per_step": kb / 1000 if kb is not None else None,
            "cpu_per_redraw_s": m.cpu_s,
            "main_thread_s": m.main_thread_s,
            "errors": m.errors,
        }
        # a page that shows no setting has no step: only its load is held to a target
        held = TARGETS if m.redraws_s or not m.stepped_nothing else {k: v for k, v in TARGETS.items() if k == "load_ratio"}
        row["pass"] = not m.errors and all(row[k] is not None and row[k] <= limit for k, limit in held.items())
        out.append(row)
    return out


def render(table: list[dict], refs: dict[str, list[Measured]], before: str, after: str) -> str:
    def f(x, spec):
        return "n/a" if x is None else format(x, spec)

    lines = [f"machine load (1/5/15 min): before {before}; after {after}", ""]
    for setting, ms in refs.items():
        r = [x for m in ms for x in m.redraws_s]
        ld = [x for m in ms for x in m.loads_s]
        kb = [x for m in ms for x in m.bytes_per_step]
        cpu = [m.cpu_s for m in ms if m.cpu_s is not None]
        lines.append(
            f"minimal page ({setting}): redraw {f(statistics.median(r) if r else None, '.2f')} s, "
            f"first load {f(statistics.median(ld) if ld else None, '.2f')} s, "
            f"{f(statistics.median(kb) / 1000 if kb else None, '.1f')} kB/step, browser CPU {f(statistics.median(cpu) if cpu else None, '.2f')} s/redraw"
        )
    lines += [
        "",
        f"{'page':<21} {'setting':<8} {'charts':>6} {'redraw':>7} {'ratio':>6} {'load':>6} {'ratio':>6} {'kB/step':>8} {'CPU/redraw':>10} {'main thr':>8}  ok",
    ]
    for r in table:
        lines.append(
            f"{r['page']:<21} {r['setting']:<8} {r['charts']:>6} {f(r['redraw_s'], '7.2f')} {f(r['redraw_ratio'], '6.2f')} {f(r['load_s'], '6.2f')} "
            f"{f(r['load_ratio'], '6.2f')} {f(r['kb_per_step'], '8.1f')} {f(r['cpu_per_redraw_s'], '10.2f')} {f(r['main_thread_s'], '8.2f')}  "
            f"{'PASS' if r['pass'] else 'FAIL'}" + (f"  errors: {r['errors'][:2]}" if r["errors"] else "")
        )
    lines.append("")
    lines.append(
        f"targets: redraw ratio <= {TARGETS['redraw_ratio']:g}, first-load ratio <= {TARGETS['load_ratio']:g}, "
        f"<= {TARGETS['kb_per_step']:g} kB per step, browser CPU <= {TARGETS['cpu_per_redraw_s']:g} s per redraw"
    )
    return "\n".join(lines)


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


async def main_async(args: argparse.Namespace) -> int:
    from playwright.async_api import async_playwright

    pages: list[AppPage] = pages_named(args.pages)
    settings = {name: SETTINGS[name] for name in args.settings.split(",")}
    app = Server(port=args.port, log=ROOT / "artifacts" / "bench-browser-app.log")
    ref = Server(port=args.port + 1, log=ROOT / "artifacts" / "bench-browser-minimal.log", script="bench/minimal_app.py")
    old = Server(port=args.port + 2, log=ROOT / "artifacts" / "bench-browser-before.log", root=args.before) if args.before else None
    before = load_average()
    results: list[Measured] = []
    refs: dict[str, list[Measured]] = {}
    traces: list[str] = []
    try:
        app.start()
        ref.start()
        if old:
            old.start()
        pids = [app.pid, ref.pid] + ([old.pid] if old else [])
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            progress("warming up (one visit of every page) ...")
            relays = {srv.port: await Counting(srv.port, args.port + 3 + i).start() for i, srv in enumerate([app, ref] + ([old] if old else []))}
            r_app, r_ref, r_old = relays[app.port], relays[ref.port], relays[old.port] if old else None
            await measure(browser, r_ref, "", "", "warm", "warm", 1, 1, pids)
            for p in pages:
                progress(f"  warming {p.name} ...")
                for relay in [r_app] + ([r_old] if old else []):
                    await measure(browser, relay, p.url_path, "", "warm", "warm", 1, 1, pids, p.stepped)
            for setting, query in settings.items():
                refs[setting] = [await measure(browser, r_ref, "", "", "minimal", setting, args.loads, args.steps, pids)]
                for p in pages:
                    progress(f"{p.name} at {setting} ...")
                    results.append(await measure(browser, r_app, p.url_path, query, p.name, setting, args.loads, args.steps, pids, p.stepped))
                    if old:  # the same page before the change, right after it: the same moment of a noisy machine
                        results.append(await measure(browser, r_old, p.url_path, query, f"{p.name} (before)", setting, args.loads, args.steps, pids, p.stepped))
                refs[setting].append(await measure(browser, r_ref, "", "", "minimal", setting, args.loads, args.steps, pids))
            for name in args.trace or []:
                traced = next(p for p in pages_named(name))
                if traced.stepped is None:
                    traces.append(f"/{traced.url_path} shows no shared setting: nothing to step, no trace")
                    continue
                out = ROOT / "artifacts" / f"trace-{name}.json"
                progress(f"tracing one redraw on {name} ...")
                summary = await trace_redraw(browser, app.url, traced.url_path, "", out, traced.stepped)
                traces.append(f"trace of one {traced.stepped} step on /{traced.url_path} (written to {out.relative_to(ROOT)}):\n{summary}")
            for name in args.explain or []:
                explained_page = next(p for p in pages_named(name))
                if explained_page.stepped is None:
                    traces.append(f"/{explained_page.url_path} shows no shared setting: nothing to step, nothing to explain")
                    continue
                progress(f"explaining one redraw on {name} ...")
                said = await explain_redraw(browser, app.url, explained_page.url_path, explained_page.stepped)
                traces.append(f"one {explained_page.stepped} step on /{explained_page.url_path}, taken apart:\n{said}")
            await browser.close()
            for relay in relays.values():
                relay.close()
    finally:
        app.stop()
        ref.stop()
        if old:
            old.stop()
    table = rows(results, refs)
    print(render(table, refs, before, load_average()))
    for t in traces:
        print("\n" + t)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps({"rows": table, "minimal": {k: [asdict(m) for m in v] for k, v in refs.items()}, "raw": [asdict(m) for m in results]}, indent=2) + "\n"
        )
    return 0 if all(r["pass"] for r in table) else 1


async def playing(browser, url: str, seconds: float) -> dict:
    """One count: the page opened afresh at its dials, Play at the fastest speed from position 0, frames and refreshes a second."""
    ctx = await browser.new_context(viewport={"width": 1440, "height": 900})
    page = await ctx.new_page()
    try:
        await page.goto(url, timeout=180_000)
        await page.wait_for_selector(".pee-mo[data-drawn]", timeout=180_000)
        await page.locator(".pee-mo").scroll_into_view_if_needed()
        speeds = page.locator(".pee-mo-speed")
        await speeds.select_option(str(await speeds.locator("option").count() - 1))
        await page.locator(".pee-mo-p").evaluate("(s) => { s.value = 0; s.dispatchEvent(new Event('input', { bubbles: true })); }")
        await page.locator(".pee-mo-play").click()
        got = await page.evaluate(COUNT_FRAMES, int(seconds * 1000))
        await page.locator(".pee-mo-play").click()
    finally:
        await ctx.close()
    return {"fps": got["frames"] / got["seconds"], "refresh": got["ticks"] / got["seconds"]}


async def fps_async(args: argparse.Namespace) -> int:
    """--fps: the dials' frames a second while they play, against the browser's refreshes a second in the same count."""
    from playwright.async_api import async_playwright

    app = Server(port=args.port, log=ROOT / "artifacts" / "bench-browser-app.log")
    before, failed, lines = load_average(), False, []
    try:
        app.start()
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for name, path in DIALS.items():
                progress(f"{name} ...")
                runs = [await playing(browser, f"{app.url}/{path}", args.seconds) for _ in range(args.loads)]
                fps, refresh = statistics.median(r["fps"] for r in runs), statistics.median(r["refresh"] for r in runs)
                failed |= fps < FPS_TARGET
                each = ", ".join(f"{r['fps']:.1f}/{r['refresh']:.1f}" for r in runs)
                lines.append(
                    f"| {name} | {fps:.1f} | {refresh:.1f} | {fps / refresh:.2f} | {each} | {'ok' if fps >= FPS_TARGET else 'FAIL'} |"
                )
            await browser.close()
    finally:
        app.stop()
    print(f"load average {before} before, {load_average()} after; target {FPS_TARGET:g} frames a second while playing, {args.seconds:g} s a count\n")
    print("| dials | frames/s drawn (median) | refreshes/s | drawn / refreshes | each count: drawn/refreshes | |\n|---|---:|---:|---:|---|---|")
    print("\n".join(lines))
    return 1 if failed else 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.browser", description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", help="comma-separated page names (default: every page of app.py)")
    p.add_argument("--settings", default="default,big", help=f"comma-separated, of {', '.join(SETTINGS)} (default both)")
    p.add_argument("--steps", type=int, default=6, help="d_model slider steps per page and setting (default 6)")
    p.add_argument("--loads", type=int, default=3, help="first loads per page and setting, each in a fresh context (default 3)")
    p.add_argument("--port", type=int, default=8811, help="the app's port; the minimal page gets the next one (default 8811)")
    p.add_argument("--before", type=Path, help="another checkout of the app (the code before a change): measured beside this one, page by page")
    p.add_argument("--trace", action="append", help="page to trace one redraw of with Chromium's Tracing (repeatable)")
    p.add_argument("--explain", action="append", help="page to take one redraw of apart: messages by bytes, elements by their last change (repeatable)")
    p.add_argument("--json", type=Path, help="write the results as JSON here")
    p.add_argument("--fps", action="store_true", help="instead: count the turning dials' frames a second while they play (--loads counts each)")
    p.add_argument("--seconds", type=float, default=3.0, help="--fps: how long each count plays (default 3)")
    p.add_argument("--back-and-forth", action="store_true", help="d_model steps go back and forth between two stops (default: one stop up each time)")
    args = p.parse_args(argv)
    global BACK_AND_FORTH
    BACK_AND_FORTH = args.back_and_forth
    unknown = set(args.settings.split(",")) - set(SETTINGS)
    if unknown or args.steps < 1 or args.loads < 1:
        p.error(f"unknown settings {sorted(unknown)}" if unknown else "--steps and --loads must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return asyncio.run(fps_async(args) if args.fps else main_async(args))


if __name__ == "__main__":
    sys.exit(main())
