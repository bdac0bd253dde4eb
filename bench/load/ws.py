"""Server-side load without browsers: N sessions speaking Streamlit's websocket protocol.

    python -m bench.load.ws --sessions 20 --seconds 60 [--url http://127.0.0.1:8501]

The browser load test (python -m bench.load) measures what a visitor sees, but on a small
machine its Chromium renderers use most of the CPU (a redraw costs the browser about ten
times the server's CPU time), so it cannot tell what the server alone can carry. This client
does what the frontend does on the wire, and nothing else: it opens /_stcore/stream, asks for
a page run, then moves the shared sliders one stop and back (a rerun with the slider's new
widget state and the fragment it was drawn in, as the frontend sends it) and switches pages, with the same think time as the
browser test. A redraw here is timed from sending the rerun to the server's script_finished
message: server time plus loopback, no rendering.

Reports sessions held, redraw p50/p95, errors (an exception element, a run that did not
finish, a closed socket), the server's CPU (in all, and per action: CPU-seconds of the server
processes over the redraws and page switches answered) and RSS. Same targets as bench.load.

`--per-page SECONDS` then measures the server's CPU per action page by page, in the same run:
for each page, `--per-page-sessions` sessions (4) open it, and once all have drawn it they move the
shared sliders on it alone for SECONDS; the server processes' CPU-seconds over those moves divided
by their number is that page's CPU per action (its first runs are not counted). `--cookie` sends a
cookie with every session's websocket, numbered per session (`st_route=bench-{i}`: a routing
cookie per visitor, as nginx would have set, so that each session is a visitor of its own).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load.browser import Memory, describe_rss, fmt, percentile
from bench.load.pages import AppPage, pages_named
from bench.load.server import CpuMeter, load_average, server_under_test, settled

# each shared slider moves between its default stop and the next one, as the browser test does
MOVES = {"d_model_slider": ("128", "256"), "max_len_slider": ("256", "512"), "base_slider": ("10,000", "20,000")}


@dataclass
class WsResult:
    index: int
    start_page: str
    first_run_s: float | None = None
    redraws_s: list[float] = field(default_factory=list)
    switches_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    open_at_end: bool = False

    @property
    def held(self) -> bool:
        return self.open_at_end and bool(self.redraws_s) and not self.errors


class WsVisitor:
    def __init__(
        self, index: int, base_url: str, pages: list[AppPage], think: float, timeout: float = 60.0, go: asyncio.Event | None = None, cookie: str = ""
    ) -> None:
        self.index, self.base_url, self.pages, self.think, self.timeout = index, base_url.rstrip("/"), pages, think, timeout
        self.go = go  # when given, the session waits for it after its first page run
        self.cookie = cookie.format(i=index) if cookie else ""
        self.page_i = index % len(pages)
        self.result = WsResult(index, pages[self.page_i].name)
        self.query = ""
        self.hashes: dict[str, str] = {}  # url_pathname -> page_script_hash, from the navigation message
        self.widgets: dict[str, str] = {}  # user key -> widget id, from the last run's elements
        self.fragments: dict[str, str] = {}  # user key -> the fragment the widget was drawn in ('' for none), as the browser sends it
        self.rng = random.Random(index)

    async def run_once(self, ws, *, page: AppPage, widget: tuple[str, str] | None = None) -> float:
        """Send one rerun and wait for its script_finished; returns the seconds it took."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_name = page.url_path
        if page.url_path in self.hashes:
            state.page_script_hash = self.hashes[page.url_path]
        if widget:
            w = state.widget_states.widgets.add()
            w.id = self.widgets[widget[0]]
            w.string_array_value.data.append(widget[1])
            if self.fragments.get(widget[0]):  # a widget drawn by a fragment reruns that fragment (the sidebar: ui/sidebar.py)
                state.fragment_id = self.fragments[widget[0]]
        start = time.monotonic()
        await ws.send(msg.SerializeToString())
        exceptions = 0
        while True:
            data = await asyncio.wait_for(ws.recv(), timeout=self.timeout)
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                etype = element.WhichOneof("type")
                if etype == "exception":
                    exceptions += 1
                inner = getattr(element, etype) if etype else None
                wid = getattr(inner, "id", "") if inner is not None else ""
                for key in MOVES:
                    if wid.endswith(f"-{key}"):
                        self.widgets[key] = wid
                        self.fragments[key] = fwd.delta.fragment_id
            elif kind == "navigation":
                for p in fwd.navigation.app_pages:
                    self.hashes[p.url_pathname] = p.page_script_hash
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "script_finished":
                if fwd.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue  # a fragment that asked for the full run (a setting the page uses moved): the redraw ends with that run
                elapsed = time.monotonic() - start
                if exceptions:
                    self.result.errors.append(f"{exceptions} exception(s) on {page.name}")
                return elapsed

    async def run(self, deadline: list[float]) -> WsResult:
        url = self.base_url.replace("http", "ws", 1) + "/_stcore/stream"
        try:
            headers = {"Cookie": self.cookie} if self.cookie else None
            async with websockets.connect(
                url, subprotocols=["streamlit"], origin=self.base_url, max_size=None, open_timeout=60, additional_headers=headers
            ) as ws:
                self.result.first_run_s = await self.run_once(ws, page=self.pages[self.page_i])
                if self.go is not None:
                    await self.go.wait()
                while time.monotonic() < deadline[0]:
                    shown = self.pages[self.page_i].uses  # a page shows only the settings it uses (ui/sidebar.py)
                    if not shown:
                        await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
                    for key, (default, other) in MOVES.items():
                        if key.removesuffix("_slider") not in shown:
                            continue
                        for value in (other, default):
                            if time.monotonic() >= deadline[0]:
                                break
                            if key not in self.widgets:
                                self.result.errors.append(f"no {key} on {self.pages[self.page_i].name}")
                                return self.result
                            self.result.redraws_s.append(await self.run_once(ws, page=self.pages[self.page_i], widget=(key, value)))
                            await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
                    if time.monotonic() < deadline[0] and len(self.pages) > 1:
                        self.page_i = (self.page_i + 1) % len(self.pages)
                        self.result.switches_s.append(await self.run_once(ws, page=self.pages[self.page_i]))
                        await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
                self.result.open_at_end = True
        except Exception as err:  # noqa: BLE001 - a visitor's failure is a result
            self.result.errors.append(f"{type(err).__name__}: {str(err)[:160]}")
        return self.result


@contextlib.asynccontextmanager
async def warm_session(base_url: str, pages: list[AppPage]):
    """A session that runs every page once (imports and first runs done) and stays open until the
    block ends. Streamlit drops its compiled page scripts when the last session leaves (1.67:
    WebsocketSessionManager.disconnect_session), so a warm-up that left before the figures were
    taken would have every page compiled again inside them; a room is never empty."""
    visitor = WsVisitor(0, base_url, pages, 0)
    async with websockets.connect(base_url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"], origin=base_url, max_size=None) as ws:
        for page in pages:
            await visitor.run_once(ws, page=page)
        yield


async def warm_up(base_url: str, pages: list[AppPage]) -> float:
    """Run every page once in one session (imports and first runs done), in seconds."""
    start = time.monotonic()
    async with warm_session(base_url, pages):
        pass
    return time.monotonic() - start


async def per_page(base_url: str, pages: list[AppPage], pids: list[int], sessions: int, seconds: float, think: float, cookie: str = "") -> list[dict]:
    """Server CPU per action, page by page: `sessions` sessions on one page at a time move the
    shared sliders for `seconds` once all have drawn it; CPU-seconds of `pids` over the moves."""
    rows = []
    for page in pages:
        go, deadline = asyncio.Event(), [float("inf")]
        visitors = [WsVisitor(i, base_url, [page], think, go=go, cookie=cookie) for i in range(sessions)]
        tasks = [asyncio.create_task(v.run(deadline)) for v in visitors]
        while not all(v.result.first_run_s is not None or v.result.errors or tasks[i].done() for i, v in enumerate(visitors)):
            await asyncio.sleep(0.05)
        meter = CpuMeter(pids)
        meter.start()
        deadline[0] = time.monotonic() + seconds
        go.set()
        results = await asyncio.gather(*tasks)
        cpu = meter.stop()
        redraws = [x for r in results for x in r.redraws_s]
        cpu_s = cpu["server_cores"] * cpu["wall_s"]
        rows.append({"page": page.name, "actions": len(redraws), "cpu_s": cpu_s, "cpu_ms_per_action": 1000 * cpu_s / len(redraws) if redraws else None,
                     "p50": percentile(redraws, 50), "p95": percentile(redraws, 95), "errors": sum(len(r.errors) for r in results)})  # fmt: skip
    return rows


def per_page_lines(rows: list[dict]) -> list[str]:
    lines = [f"{'page':<12} {'actions':>7} {'server CPU-ms per action':>25} {'redraw p50':>10} {'p95':>7} {'errors':>6}"]
    for r in rows:
        per = f"{r['cpu_ms_per_action']:.1f}" if r["cpu_ms_per_action"] is not None else "-"
        lines.append(f"{r['page']:<12} {r['actions']:>7} {per:>25} {fmt(r['p50']):>10} {fmt(r['p95']):>7} {r['errors']:>6}")
    actions, cpu_s = sum(r["actions"] for r in rows), sum(r["cpu_s"] for r in rows)
    if actions:
        lines.append(f"{'all pages':<12} {actions:>7} {1000 * cpu_s / actions:>25.1f}")
    return lines


async def main_async(args: argparse.Namespace) -> int:
    pages = pages_named(args.pages)
    server, base_url, pids = server_under_test(args.url, args.server_pid, args.server_arg)
    memory, proxy_memory = Memory(pids), Memory(args.proxy_pid)
    load_before = load_average()
    try:
        async with contextlib.AsyncExitStack() as warm:  # imports, first runs and compiles are not measured
            for url in dict.fromkeys([base_url, *(u.rstrip("/") for u in args.warm_url)]):
                await warm.enter_async_context(warm_session(url, pages))
            quiet_s = await settled(pids)  # and what they started in the background (the lab's torch import) has ended
            memory.sample("before")
            visitors = [WsVisitor(i, base_url, pages, args.think, cookie=args.cookie) for i in range(args.sessions)]
            deadline = [float("inf")]
            meter, proxy_meter = CpuMeter(pids), CpuMeter(args.proxy_pid)
            meter.start()
            proxy_meter.start()
            t0 = time.monotonic()

            async def start(v: WsVisitor) -> WsResult:
                await asyncio.sleep(args.ramp * v.index / args.sessions)
                return await v.run(deadline)

            async def set_deadline() -> None:
                await asyncio.sleep(args.ramp)
                deadline[0] = time.monotonic() + args.seconds

            results, _ = await asyncio.gather(asyncio.gather(*(start(v) for v in visitors)), set_deadline())
            cpu, proxy_cpu = meter.stop(), proxy_meter.stop()
            elapsed = time.monotonic() - t0
            memory.sample(f"after {args.sessions} sessions")
            proxy_memory.sample(f"after {args.sessions} sessions")
            page_rows = []
            if args.per_page:
                page_rows = await per_page(base_url, pages, pids, args.per_page_sessions, args.per_page, args.think, args.cookie)
                memory.sample("after the pages one by one")
    finally:
        if server:
            server.stop()
    redraws = [x for r in results for x in r.redraws_s]
    switches = [x for r in results for x in r.switches_s]
    errors = sum(len(r.errors) for r in results)
    held = sum(r.held for r in results)
    p95 = percentile(redraws, 95)
    lines = [
        f"Websocket load (no browser) on {base_url}: {args.sessions} sessions x {args.seconds:.0f} s after a {args.ramp:.0f} s ramp, "
        f"think time {args.think:g} s, pages {', '.join(p.name for p in pages)}",
        f"machine load (1/5/15 min): before {load_before}; at the end {load_average()}; the server quiet {quiet_s:.1f} s after the warm-up",
        f"CPU used: app server(s) {cpu['server_cores']:.2f} cores of {cpu['cores']:.0f}, over {elapsed:.0f} s; "
        f"{1000 * cpu['server_cores'] * cpu['wall_s'] / max(1, len(redraws) + len(switches)):.1f} CPU-ms per action (redraws and page switches)",
        "",
        f"sessions held         {held} / {args.sessions}",
        f"redraws               {len(redraws)}   p50 {fmt(percentile(redraws, 50))}   p95 {fmt(p95)}   max {fmt(max(redraws, default=None))}",
        f"page switches         {len(switches)}   p50 {fmt(percentile(switches, 50))}   p95 {fmt(percentile(switches, 95))}",
        f"errors                {errors}",
        "",
        "server RSS:",
        *(f"  {moment:<34} {describe_rss(values)}" for moment, values in memory.samples.items()),
    ]
    if args.proxy_pid:
        rss = proxy_memory.samples[f"after {args.sessions} sessions"]["total"]
        lines += [f"proxy (pids {', '.join(map(str, args.proxy_pid))}): {proxy_cpu['server_cores']:.2f} cores while moving, RSS {rss or 0:.0f} MB at the end"]
    if page_rows:
        lines += ["", f"server CPU per action, page by page ({args.per_page_sessions} sessions on one page for {args.per_page:g} s each):"]
        lines += per_page_lines(page_rows)
    errs = [(r.index, e) for r in results for e in r.errors]
    if errs:
        lines += ["", "errors:", *(f"  session {i}: {e}" for i, e in errs[:30])]
    checks = {
        f"every session held ({held}/{args.sessions})": held == args.sessions,
        f"0 errors ({errors})": errors == 0,
        f"p95 redraw < {args.p95_target:g} s ({fmt(p95)})": p95 is not None and p95 < args.p95_target,
    }
    lines += [""] + [f"{'PASS' if ok else 'FAIL'}  {name}" for name, ok in checks.items()]
    print("\n".join(lines))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"url": base_url, "args": {k: str(v) for k, v in vars(args).items()}, "cpu": cpu, "memory": memory.samples,
                                         "checks": checks, "per_page": page_rows, "sessions": [asdict(r) for r in results]}, indent=2) + "\n")
    return 0 if all(checks.values()) else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.load.ws", description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=20)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--ramp", type=float, default=5.0, help="seconds over which the sessions start (default 5)")
    p.add_argument("--think", type=float, default=1.0, help="mean pause between a session's actions, in s (default 1.0)")
    p.add_argument("--url", help="the app's base URL; default: start a server for this run")
    p.add_argument("--server-arg", action="append", default=[], help="an option for the server started here (repeatable)")
    p.add_argument("--server-pid", type=int, action="append", default=[], help="pid(s) of the app server(s) whose CPU and RSS to report")
    p.add_argument("--proxy-pid", type=int, action="append", default=[], help="pid(s) of a proxy in front of the servers: its CPU and RSS, reported apart")
    p.add_argument("--pages", help="comma-separated page names (default: every page of app.py)")
    p.add_argument("--p95-target", type=float, default=2.0)
    p.add_argument("--per-page", type=float, metavar="SECONDS", help="then measure the server's CPU per action on each page for SECONDS")
    p.add_argument("--per-page-sessions", type=int, default=4)
    p.add_argument("--warm-url", action="append", default=[], help="a server behind --url (a proxy) to hold a warm session with too (repeatable)")
    p.add_argument("--cookie", default="", help="a cookie sent by every session, {i} its number (e.g. st_route=bench-{i})")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
