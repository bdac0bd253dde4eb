"""What a forged websocket message costs the server: the attacks of a hostile visitor, measured.

    python -m bench.hostile events [--events 10000] [--root DIR]
    python -m bench.hostile downloads [--presses 30] [--root DIR]

Starts a server of this checkout (or of the checkout at --root: the app before a change), opens a
session over Streamlit's websocket as harness.ws does, and then:

- `events`: sends one rerun whose trigger value for /sinusoidal's heatmap holds `--events` zoom
  events (`[{"event": "zoom", "value": {"rows": [1, 2]}}] * N`, as a forger sends it), and reports
  the server's CPU-seconds until that run finished, and the wall time;
- `downloads`: opens /code at d_model 8192, max_len 131072 and sends `--presses` deferred_file
  requests for its .npy button at once (what pressing it that often sends), and reports the
  server's CPU-seconds and wall time until every answer came, its RSS before and after and its
  peak (the kernel's VmHWM), and what another visitor saw meanwhile: a second session on
  /sinusoidal moves a sidebar slider, one move after another (harness.ws's rerun), from the
  burst's start; the median, 95th percentile and longest of its first `--moves` redraws.

One JSON line at the end. The server's CPU time is read from /proc (harness.server.cpu_seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load.browser import percentile
from harness.pages import pages_named
from harness.server import Server, cpu_seconds, rss_mb
from harness.ws import MOVES, WsVisitor

CODE_QUERY = "scheme=sinusoidal&d_model=8192&max_len=131072"


def peak_mb(pid: int) -> float | None:
    """The kernel's VmHWM of a process (its resident peak), in MB (10^6 bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e6
    return None


class Session:
    """One websocket session: runs pages and remembers what the server said about them."""

    def __init__(self, ws) -> None:
        self.ws, self.session_id, self.hashes, self.elements = ws, "", {}, {}

    async def run(self, page: str, query: str = "", widgets=None, timeout: float = 900.0) -> None:
        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_name = page
        if page in self.hashes:
            msg.rerun_script.page_script_hash = self.hashes[page]
        if widgets is not None:
            msg.rerun_script.widget_states.CopyFrom(widgets)
        await self.ws.send(msg.SerializeToString())
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(await asyncio.wait_for(self.ws.recv(), timeout))
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id or self.session_id
                for p in fwd.new_session.app_pages:
                    self.hashes[p.url_pathname] = p.page_script_hash
            elif kind == "navigation":
                for p in fwd.navigation.app_pages:
                    self.hashes[p.url_pathname] = p.page_script_hash
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                etype = element.WhichOneof("type")
                if etype in ("bidi_component", "download_button"):
                    inner = getattr(element, etype)
                    self.elements[inner.id] = inner
            elif kind == "script_finished" and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return

    def element(self, suffix: str):
        return next(e for i, e in self.elements.items() if i.endswith(suffix))


async def events(url: str, pid: int, n: int) -> dict:
    from streamlit.components.v2.bidi_component.main import _make_trigger_id
    from streamlit.proto.WidgetStates_pb2 import WidgetStates

    async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"], origin=url, max_size=None) as ws:
        s = Session(ws)
        await s.run("sinusoidal")
        states = WidgetStates()
        widget = states.widgets.add()
        widget.id = _make_trigger_id(s.element("-sin_heatmap").id, "events")
        widget.json_trigger_value = json.dumps([{"event": "zoom", "value": {"rows": [1, 2]}}] * n)
        cpu, wall = cpu_seconds(pid), time.monotonic()
        await s.run("sinusoidal", widgets=states)
        return {"events": n, "message MB": round(len(widget.json_trigger_value) / 1e6, 2), "server CPU s": round(cpu_seconds(pid) - cpu, 2),
                "wall s": round(time.monotonic() - wall, 2)}  # fmt: skip


async def slider(url: str, started: asyncio.Event, ready: asyncio.Event, moves: int) -> list[float]:
    """Another visitor: /sinusoidal open, then `moves` moves of the d_model slider from when `started` is set."""
    visitor = WsVisitor(1, url, pages_named("sinusoidal"), 0)
    page = visitor.pages[0]
    key, values = "d_model_slider", MOVES["d_model_slider"]
    async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"], origin=url, max_size=None) as ws:
        await visitor.run_once(ws, page=page)
        ready.set()
        await started.wait()
        return [await visitor.run_once(ws, page=page, widget=(key, values[(i + 1) % 2])) for i in range(moves)]


async def downloads(url: str, pid: int, presses: int, moves: int) -> dict:
    async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"], origin=url, max_size=None) as ws:
        s = Session(ws)
        await s.run("code", CODE_QUERY)
        file_id = s.element("-download_npy").deferred_file_id
        started, ready = asyncio.Event(), asyncio.Event()
        other = asyncio.create_task(slider(url, started, ready, moves))
        await ready.wait()
        before_rss, cpu, wall = rss_mb(pid), cpu_seconds(pid), time.monotonic()
        started.set()
        for i in range(presses):
            msg = BackMsg()
            request = msg.backend_operation_request
            request.request_id, request.session_id, request.deferred_file.file_id = f"press-{i}", s.session_id, file_id
            await ws.send(msg.SerializeToString())
        answered, failed = 0, 0
        while answered < presses:
            fwd = ForwardMsg()
            fwd.ParseFromString(await asyncio.wait_for(ws.recv(), 900))
            if fwd.WhichOneof("type") == "backend_operation_response":
                answered += 1
                failed += bool(fwd.backend_operation_response.error_msg)
        seen = {"presses": presses, "failed": failed, "server CPU s": round(cpu_seconds(pid) - cpu, 2), "wall s": round(time.monotonic() - wall, 2),
                "RSS MB before": round(before_rss), "RSS MB after": round(rss_mb(pid)), "peak MB (VmHWM)": round(peak_mb(pid))}  # fmt: skip
        redraws = await other
        return seen | {f"other visitor's slider, {len(redraws)} redraws: p50, p95, max s": [round(percentile(redraws, q), 2) for q in (50, 95, 100)]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.hostile", description=__doc__.split("\n\n")[0])
    p.add_argument("attack", choices=["events", "downloads"])
    p.add_argument("--events", type=int, default=10_000)
    p.add_argument("--presses", type=int, default=30)
    p.add_argument("--moves", type=int, default=20, help="the other visitor's slider moves from the burst's start")
    p.add_argument("--root", type=Path, help="the checkout to serve (default: this one)")
    args = p.parse_args(argv)
    with Server(root=args.root.resolve() if args.root else None) as server:
        if args.attack == "events":
            result = asyncio.run(events(server.url, server.pid, args.events))
        else:
            result = asyncio.run(downloads(server.url, server.pid, args.presses, args.moves))
    print(json.dumps({"attack": args.attack, "root": str(args.root or "."), **result}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
