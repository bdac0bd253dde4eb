"""Load test: N concurrent browser sessions (Playwright contexts in Debian's Chromium), each
moving the shared sliders across all pages for a bounded time.

    python -m bench.load --sessions 20 --seconds 60                 # starts its own server
    python -m bench.load --sessions 20 --seconds 60 --url http://127.0.0.1:8501
    python -m bench.load --sweep 50 --sessions 20 --seconds 60      # memory: 50 distinct settings first

Reports sessions held, redraw latency (p50/p95/max: from a slider key press until the app is
back to script-state notRunning with the charts' data changed), page-switch and first-load
times, errors, reconnections, and the server's RSS before and after (and after the settings
sweep, and once the sessions have closed). The machine's load average is printed beside the
numbers: this machine is shared, so read latencies with it. Exit status 1 when a target
fails (default: every session held, 0 errors, p95 redraw < 2 s).

The pages come from app.py's navigation (harness/pages.py, from ui/path.py), so new pages are covered.
Behind a proxy with several replicas, pass each replica's pid (--server-pid, repeatable) to
read their RSS, and --backend-header to record which replica served each session (see
deploy/README.md for the two-replica proof, which drives this script).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness.pages import AppPage, pages_named
from harness.browser import CHROMIUM, CHROMIUM_ARGS
from harness.server import CpuMeter, load_average, rss_mb, server_under_test
from bench.load.session import INIT_SCRIPT, WAIT_READY, SessionConfig, SessionResult, Visitor

def chromium_at(nice: int) -> str:
    """Chromium's path, or at niceness > 0 a wrapper script that starts it under `nice` (its
    renderers, forked from it, inherit the niceness)."""
    if nice <= 0:
        return CHROMIUM
    import tempfile

    wrapper = Path(tempfile.mkdtemp(prefix="bench-load-")) / "chromium"
    wrapper.write_text(f'#!/bin/sh\nexec nice -n {int(nice)} "{CHROMIUM}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0..100) by linear interpolation; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(rank), math.ceil(rank)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (rank - lo)


@dataclass
class Memory:
    """RSS samples of the app server(s), in MB, by moment."""

    pids: list[int]
    samples: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def sample(self, moment: str) -> dict[str, float | None]:
        values = {str(pid): rss_mb(pid) for pid in self.pids}
        live = [v for v in values.values() if v is not None]
        values["total"] = sum(live) if live else None
        self.samples[moment] = values
        return values


def describe_rss(values: dict[str, float | None]) -> str:
    parts = [f"{v:.0f} MB" if v is not None else "gone" for k, v in values.items() if k != "total"]
    total = values.get("total")
    return parts[0] if len(parts) == 1 else f"{' + '.join(parts)} = {total:.0f} MB" if total is not None else " + ".join(parts)


# --- the settings sweep ---------------------------------------------------------------------


def distinct_settings(n: int, seed: int = 7) -> list[dict[str, str]]:
    """n distinct settings spread log-uniformly over the ranges a visitor can reach with the
    sliders (d_model 8..4096, max_len 16..65536, base 100..1e6)."""
    rng = random.Random(seed)
    seen, out = set(), []
    while len(out) < n:
        d = int(round(2 ** rng.uniform(3, 12)))
        L = int(round(2 ** rng.uniform(4, 16)))
        b = int(round(10 ** rng.uniform(2, 6)))
        if (d, L, b) not in seen:
            seen.add((d, L, b))
            out.append({"d_model": str(d), "max_len": str(L), "base": str(b)})
    return out


async def sweep(browser, base_url: str, pages: list[AppPage], settings: list[dict[str, str]], memory: Memory, parallel: int, every: int) -> dict:
    """Open every page at every setting (fresh sessions, `parallel` at a time) and sample RSS
    after every `every` settings. Returns timings and errors."""
    errors: list[str] = []
    loads: list[float] = []
    queue = [(i, s, p) for i, s in enumerate(settings) for p in pages]
    done_per_setting = [0] * len(settings)

    async def worker() -> None:
        ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
        await ctx.add_init_script(INIT_SCRIPT)
        page = await ctx.new_page()
        try:
            while queue:
                i, setting, app_page = queue.pop(0)
                query = "&".join(f"{k}={v}" for k, v in setting.items())
                start = time.monotonic()
                try:
                    await page.goto(app_page.url(base_url, query), wait_until="domcontentloaded", timeout=60_000)
                    await page.wait_for_function(WAIT_READY, polling=100, timeout=120_000)
                    loads.append(time.monotonic() - start)
                    state = await page.evaluate("window.__state()")
                    if state["exceptions"]:
                        errors.append(f"exception on {app_page.name} at {query}")
                except Exception as err:  # noqa: BLE001
                    errors.append(f"{app_page.name} at {query}: {type(err).__name__}")
                done_per_setting[i] += 1
                finished = sum(1 for n in done_per_setting if n == len(pages))
                if done_per_setting[i] == len(pages) and (finished % every == 0 or finished == len(settings)):
                    values = memory.sample(f"after {finished} settings")
                    progress(f"  {finished} settings x {len(pages)} pages: server RSS {describe_rss(values)}")
        finally:
            await ctx.close()

    await asyncio.gather(*(worker() for _ in range(parallel)))
    return {"page_loads": len(loads), "load_p50_s": percentile(loads, 50), "load_p95_s": percentile(loads, 95), "errors": errors}


# --- the concurrent load --------------------------------------------------------------------


async def load(browser, base_url: str, pages: list[AppPage], args: argparse.Namespace, meter: CpuMeter) -> tuple[list[SessionResult], dict]:
    """Start the sessions over the ramp; once every one has its first page up, all of them move
    sliders for args.seconds (with --no-barrier, a session starts moving as soon as its own page
    is up, while the others are still loading theirs). The CPU is metered over the whole run and
    over the moves alone."""
    t0 = time.monotonic()
    ramp = args.ramp if args.ramp is not None else min(10.0, args.seconds / 4)
    width, height = (int(n) for n in args.viewport.lower().split("x"))
    cfg = SessionConfig(base_url, pages, t0, think_s=args.think, backend_header=args.backend_header or "", viewport=(width, height))
    cfg.started = None if args.no_barrier else asyncio.Event()
    moves_meter = CpuMeter(meter.server_pids)
    timing: dict[str, float] = {}
    opened = 0

    def on_open() -> None:
        nonlocal opened
        opened += 1
        if opened == args.sessions:
            now = time.monotonic()
            cfg.deadline = now + args.seconds
            timing["all_open_s"] = now - t0
            moves_meter.start()
            if cfg.started is not None:
                cfg.started.set()
            progress(f"  all {args.sessions} sessions open after {now - t0:.1f} s; running {args.seconds:.0f} s more")
            if args.ready_file:
                args.ready_file.write_text(f"{now - t0:.1f}\n")

    cfg.on_open = on_open
    visitors = [Visitor(browser, i, cfg) for i in range(args.sessions)]

    async def start(v: Visitor) -> SessionResult:
        await asyncio.sleep(ramp * v.index / max(1, args.sessions))
        return await v.run()

    meter.start()
    results = await asyncio.gather(*(start(v) for v in visitors))
    timing["elapsed_s"] = time.monotonic() - t0
    timing["cpu"] = meter.stop()  # before the contexts close: a renderer that exits takes its CPU time with it
    timing["cpu_moves"] = moves_meter.stop() if "all_open_s" in timing else timing["cpu"]
    for v in visitors:
        await v.close()
    return list(results), timing


def summarise(results: list[SessionResult]) -> dict:
    redraws = [x for r in results for x in r.redraws_s]
    server = [x for r in results for x in r.server_s]
    switches = [x for r in results for x in r.switches_s]
    firsts = [r.first_load_s for r in results if r.first_load_s is not None]
    recoveries = [rec for r in results for rec in r.recoveries]
    return {
        "sessions": len(results),
        "held": sum(r.held for r in results),
        "redraws": len(redraws),
        "unchanged_redraws": sum(r.unchanged_redraws for r in results),
        "redraw_p50_s": percentile(redraws, 50),
        "redraw_p95_s": percentile(redraws, 95),
        "redraw_max_s": max(redraws, default=None),
        "redraw_mean_s": statistics.fmean(redraws) if redraws else None,
        "server_timed": len(server),
        "server_p50_s": percentile(server, 50),
        "server_p95_s": percentile(server, 95),
        "server_max_s": max(server, default=None),
        "switches": len(switches),
        "switch_p50_s": percentile(switches, 50),
        "switch_p95_s": percentile(switches, 95),
        "first_load_p50_s": percentile(firsts, 50),
        "first_load_p95_s": percentile(firsts, 95),
        "errors": sum(len(r.errors) for r in results),
        "reconnections": len(recoveries),
        "restored": sum(rec.view_restored for rec in recoveries),
        "undone_after_reconnect": sum(r.undone_after_reconnect for r in results),
        "reconnect_p50_s": percentile([rec.seconds for rec in recoveries if rec.seconds is not None], 50),
        "reconnect_max_s": max((rec.seconds for rec in recoveries if rec.seconds is not None), default=None),
    }


def cpu_per(report: dict, which: str, s: dict) -> str:
    actions = s["redraws"] + s["switches"]
    cpu = report["cpu_moves"]
    return "n/a" if not actions else f"{cpu[which] * cpu['wall_s'] / actions:.2f} s"


def fmt(x: float | None, unit: str = "s") -> str:
    return "n/a" if x is None else f"{x:.2f} {unit}" if unit == "s" else f"{x:.0f} {unit}"


# --- the command ----------------------------------------------------------------------------


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=20, help="concurrent browser sessions (default 20)")
    p.add_argument("--seconds", type=float, default=60, help="how long the sessions keep moving sliders once all of them are open (default 60)")
    p.add_argument("--ramp", type=float, help="seconds over which the sessions start (default min(10, seconds/4))")
    p.add_argument("--think", type=float, default=1.0, help="mean pause between a session's actions, in s (default 1.0; 0 hammers)")
    p.add_argument("--url", help="the app's base URL; default: start a server on a free port for this run")
    p.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="an option for the server this script starts (repeatable), e.g. --server-arg=--runner.postScriptGC=false",
    )
    p.add_argument(
        "--server-pid",
        type=int,
        action="append",
        default=[],
        help="pid of an app server whose RSS to report (repeatable); default: the server started here, or the process listening on --url's port",
    )
    p.add_argument("--pages", help="comma-separated page names (default: every page of app.py)")
    p.add_argument("--sweep", type=int, default=0, help="before the load, open every page at this many distinct settings and report RSS (e.g. 50)")
    p.add_argument("--sweep-parallel", type=int, default=2, help="sessions used by the sweep (default 2)")
    p.add_argument(
        "--settle",
        type=float,
        default=0,
        help=(
            "after closing the sessions, wait this long and sample RSS again (Streamlit drops a disconnected session after "
            "server.disconnectedSessionTTL, 120 s)"
        ),
    )
    p.add_argument("--backend-header", help="response header that names the replica behind a proxy (e.g. X-Upstream); recorded per session")
    p.add_argument(
        "--browser-nice",
        type=int,
        default=0,
        help="run Chromium at this niceness (e.g. 10), so that on a shared machine the browsers yield the CPU to the app server (default 0)",
    )
    p.add_argument(
        "--no-barrier",
        action="store_true",
        help="each session starts moving once its own page is up, while others still load (default: all start together once every session is open)",
    )
    p.add_argument("--viewport", default="1280x900", help="browser window of each session, WxH (default 1280x900)")
    p.add_argument("--p95-target", type=float, default=2.0, help="p95 redraw target in s (default 2)")
    p.add_argument("--allow-reconnects", action="store_true", help="a lost connection whose view comes back is not an error (for failover tests)")
    p.add_argument("--json", type=Path, help="write the full results as JSON here")
    p.add_argument("--ready-file", type=Path, help="write this file once every session has its first page up (a fault script waits for it)")
    args = p.parse_args(argv)
    if args.sessions < 1 or args.seconds <= 0:
        p.error("--sessions must be >= 1 and --seconds > 0")
    return args


async def main_async(args: argparse.Namespace) -> int:
    from playwright.async_api import async_playwright

    pages = pages_named(args.pages)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM} (apt-get install -y chromium, or set CHROMIUM)")

    server, base_url, pids = server_under_test(args.url, args.server_pid, args.server_arg, say=progress)
    memory = Memory(pids)
    report: dict = {"url": base_url, "pages": [p.name for p in pages], "server_pids": pids, "args": {k: str(v) for k, v in vars(args).items()}}
    report["load_before"] = load_average()
    progress(f"machine load before: {report['load_before']}")
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=chromium_at(args.browser_nice), args=CHROMIUM_ARGS, headless=True)
            # one throwaway visit so that the server's imports and first runs are not in "before"
            warm = await browser.new_context()
            await warm.add_init_script(INIT_SCRIPT)
            wp = await warm.new_page()
            for page in pages:
                await wp.goto(page.url(base_url), wait_until="domcontentloaded", timeout=60_000)
                await wp.wait_for_function(WAIT_READY, polling=100, timeout=120_000)
            await warm.close()
            progress(f"server RSS after one visit of every page: {describe_rss(memory.sample('before'))}")
            if args.sweep:
                progress(f"sweep: {args.sweep} distinct settings x {len(pages)} pages, {args.sweep_parallel} at a time ...")
                report["sweep"] = await sweep(browser, base_url, pages, distinct_settings(args.sweep), memory, args.sweep_parallel, every=10)
            progress(f"load: {args.sessions} sessions for {args.seconds:.0f} s over {len(pages)} pages ...")
            results, timing = await load(browser, base_url, pages, args, CpuMeter(pids))
            report["cpu"], report["cpu_moves"] = timing.pop("cpu"), timing.pop("cpu_moves")
            memory.sample(f"after {args.sessions} sessions")
            report["load_during"] = load_average()
            await browser.close()
        if args.settle:
            progress(f"waiting {args.settle:.0f} s for the server to drop the closed sessions ...")
            time.sleep(args.settle)
            memory.sample(f"{args.settle:.0f} s after the sessions closed")
    finally:
        if server:
            server.stop()

    summary = summarise(results)
    report.update(summary=summary, timing=timing, memory=memory.samples, sessions=[asdict(r) for r in results])
    errors = summary["errors"] + (0 if args.allow_reconnects else summary["reconnections"])  # a lost connection is an error unless a failover is the point
    p95 = summary["redraw_p95_s"]
    checks = {
        f"every session held ({summary['held']}/{summary['sessions']})": summary["held"] == summary["sessions"],
        f"0 errors ({errors})": errors == 0,
        f"p95 redraw < {args.p95_target:g} s ({fmt(p95)})": p95 is not None and p95 < args.p95_target,
    }
    if args.sweep:
        checks[f"sweep without errors ({len(report['sweep']['errors'])})"] = not report["sweep"]["errors"]
    report["checks"] = checks
    print(render(report, args))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
        print(f"\nJSON written to {args.json}")
    return 0 if all(checks.values()) else 1


def render(report: dict, args: argparse.Namespace) -> str:
    s = report["summary"]
    lines = [
        f"Load test of {report['url']}: {s['sessions']} sessions x {args.seconds:.0f} s, think time {args.think:g} s, browser niceness "
        f"{args.browser_nice}, pages {', '.join(report['pages'])}",
        f"machine load (1/5/15 min): before {report['load_before']}; at the end {report['load_during']}",
        f"all sessions open after {report['timing'].get('all_open_s', float('nan')):.1f} s; total {report['timing']['elapsed_s']:.0f} s",
        f"CPU used during the load: app server(s) {report['cpu']['server_cores']:.2f} cores, browser (Chromium, Playwright) "
        f"{report['cpu']['browser_cores']:.2f} cores, of {report['cpu']['cores']:.0f}; while the sessions moved: "
        f"server {report['cpu_moves']['server_cores']:.2f}, browser {report['cpu_moves']['browser_cores']:.2f} cores",
        "",
        f"sessions held         {s['held']} / {s['sessions']}",
        f"redraws               {s['redraws']} ({s['unchanged_redraws']} where the page does not draw the setting)   p50 {fmt(s['redraw_p50_s'])}   "
        f"p95 {fmt(s['redraw_p95_s'])}   max {fmt(s['redraw_max_s'])}",
        f"  the server's part   {s['server_timed']} timed off the wire (rerun request sent -> end of run received)   p50 {fmt(s['server_p50_s'])}   "
        f"p95 {fmt(s['server_p95_s'])}   max {fmt(s['server_max_s'])}",
        f"  CPU per redraw      browser {cpu_per(report, 'browser_cores', s)}   server {cpu_per(report, 'server_cores', s)}   (CPU-seconds while the "
        "sessions moved / redraws and page switches)",
        f"page switches         {s['switches']}   p50 {fmt(s['switch_p50_s'])}   p95 {fmt(s['switch_p95_s'])}",
        f"first page load       p50 {fmt(s['first_load_p50_s'])}   p95 {fmt(s['first_load_p95_s'])}",
        f"errors                {s['errors']}",
        f"reconnections         {s['reconnections']}   view restored {s['restored']}   p50 {fmt(s['reconnect_p50_s'])}   max {fmt(s['reconnect_max_s'])}"
        + (f"   first move after it undone: {s['undone_after_reconnect']}" if s["reconnections"] else ""),
    ]
    if "sweep" in report:
        w = report["sweep"]
        lines.append(
            f"settings sweep        {args.sweep} settings, {w['page_loads']} page loads, p50 {fmt(w['load_p50_s'])}, p95 {fmt(w['load_p95_s'])}, "
            f"errors {len(w['errors'])}"
        )
    lines += ["", "server RSS:"]
    lines += [f"  {moment:<34} {describe_rss(values)}" for moment, values in report["memory"].items()]
    backends: dict[str, int] = {}
    for r in report["sessions"]:
        if r["backends"] and r["backends"][0]:
            backends[r["backends"][0]] = backends.get(r["backends"][0], 0) + 1
    if backends:
        lines += ["", "sessions by first replica: " + ", ".join(f"{k}: {v}" for k, v in sorted(backends.items()))]
    errs = [(r["index"], e) for r in report["sessions"] for e in r["errors"]]
    if errs:
        lines += ["", "errors:"] + [f"  session {i}: {e}" for i, e in errs[:40]] + ([f"  ... {len(errs) - 40} more"] if len(errs) > 40 else [])
    recs = [(r["index"], rec) for r in report["sessions"] for rec in r["recoveries"]]
    if recs:
        lines += ["", "reconnections:"]
        for i, rec in recs[:40]:
            took = f"{rec['seconds']:.1f} s" if rec["seconds"] is not None else "never"
            lines.append(
                f"  session {i}: lost at {rec['at_s']:.1f} s, back after {took}, view restored: {rec['view_restored']}, replica "
                f"{rec['backend_before'] or '?'} -> {rec['backend_after'] or '?'}"
            )
    if "sweep" in report and report["sweep"]["errors"]:
        lines += ["", "sweep errors:"] + [f"  {e}" for e in report["sweep"]["errors"][:20]]
    lines += [""] + [f"{'PASS' if ok else 'FAIL'}  {name}" for name, ok in report["checks"].items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(main_async(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
