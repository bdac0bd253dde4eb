"""Server CPU per page switch, page by page: one websocket session opens every page in turn.

    python -m bench.load.switches [--rounds 15] [--ref COMMIT]

A page switch is a full run of app.py and the page (the sidebar, the page's title, text and
figures), the heaviest action a visitor makes; bench.load.ws times it among the moves, this
measures it alone. A server of this checkout is started (with `--ref`, one of that commit too,
exported as bench.load.ab does, the two alternated for `--pairs` pairs); a session opens every
page once (its first views, not counted), then `--rounds` times in turn, and the server's
CPU-seconds over each switch are summed per page. Reported: CPU-ms per switch, all pages and
page by page, for each server.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
from pathlib import Path

import websockets
from bench.load.ab import export
from harness.pages import ROOT, app_pages
from harness.server import Server, cpu_seconds, load_average
from harness.ws import WsVisitor


async def switch_costs(url: str, pid: int, rounds: int) -> dict[str, float]:
    """CPU-ms per switch to each page (by name), over `rounds` rounds after one not counted."""
    pages = app_pages()
    spent = {page.name: 0.0 for page in pages}
    visitor = WsVisitor(0, url, pages, think=0)  # its run_once: a run asked for as the browser asks, the query string carried
    async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"], max_size=None) as ws:
        for page in pages:
            await visitor.run_once(ws, page=page)
        for _ in range(rounds):
            for page in pages:
                before = cpu_seconds(pid)
                await visitor.run_once(ws, page=page)
                await asyncio.sleep(0.05)  # the messages of the run's end handled before the clock is read
                spent[page.name] += cpu_seconds(pid) - before
    if visitor.result.errors:
        raise SystemExit(f"a page raised during the switches: {visitor.result.errors[:3]}")
    return {name: 1000 * s / rounds for name, s in spent.items()}


def measure(root: Path, rounds: int) -> dict[str, float]:
    with Server(root=root) as server:
        return asyncio.run(switch_costs(server.url, server.pid, rounds))


def line(label: str, costs: dict[str, float]) -> str:
    mean = sum(costs.values()) / len(costs)
    return f"{label:<10} all {mean:5.1f} | " + " ".join(f"{name} {ms:.0f}" for name, ms in costs.items())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--ref", default="", help="a commit to measure beside this checkout")
    p.add_argument("--pairs", type=int, default=2, help="with --ref: this many runs of each, alternated")
    args = p.parse_args(argv)
    print(f"CPU-ms per page switch ({args.rounds} rounds of every page); load before: {load_average()}", flush=True)
    if not args.ref:
        print(line("this", measure(ROOT, args.rounds)))
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="pee-switches-"))
    try:
        ref = export(args.ref, tmp)
        for _ in range(args.pairs):
            print(line("this", measure(ROOT, args.rounds)), flush=True)
            print(line(ref, measure(tmp, args.rounds)), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
