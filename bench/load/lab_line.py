"""A room sharing the lab's trainers: with some visitors pressing Train while the rest move sliders,
is each served in turn, and how long does each wait?

    python -m bench.load.lab_line --sessions 40 --trainers 10 [--url http://127.0.0.1:8501] [--json FILE]

`--sessions` minus `--trainers` visitors do what bench.load.ws does (move the shared sliders, page
after page). The other `--trainers` open /lab, each a browser of its own (its own routing cookie,
which ui.internals.session.visitor_id reads), each with its own seed so that no run comes from the cache,
and press Train one after the other, `--gap` seconds apart; the first of them then presses Train
again from a second tab (same cookie), after the last one has pressed. Each lab tab then does what the page's
poller does in a browser (reruns the progress fragment) every `--poll` seconds and records what
it shows: when Train was pressed, its place in line and estimated wait then, when its bar first
says "training" (the start, to within one poll), and when it says "done".

Each visitor comes from an address of its own (X-Forwarded-For, which the server believes from
loopback only: uvicorn's default). `--forged N` adds one client that, before anybody else, opens N
/lab sessions from one address (`--forged-address`), each with a cookie of its own (forged: a
visitor each, as far as cookies say), each pressing Train: the table says how many of them got a
place, and where the real visitors stand behind them.

Checks: the runs started in the order Train was pressed, the second tab only after its own first run
ended (one trainer per visitor); never more runs training at once than the server has trainers;
every run done. Starts `python -m streamlit run app.py` with PEE_LAB_MAX_RUNS=`--max-runs` (2, the
default of one process) unless --url is given (then --max-runs must be what that server runs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load.browser import fmt, percentile
from harness.pages import app_pages
from harness.server import CpuMeter, Server, load_average, server_under_test
from harness.ws import WsVisitor, warm_up

REFUSED = "Your network address already has"  # core.lab.trainers.Trainers.join's refusal
PLACE = re.compile(r"you are (\d+)\w\w in line(?:; it should start in about ([\d,]+) (s|min))?")
BAR = re.compile(r"\*\*(.+?)\*\*: (\w+), step")


@dataclass
class Trainee:
    """What one lab tab saw, in seconds from the moment the first visitor pressed Train."""

    name: str
    pressed: float | None = None
    place: int | None = None  # 1 = first in line, as the page says it; None: a trainer was free
    estimated_wait: float | None = None
    # when the bar first said training (or done): after `started_after` (the previous look's request
    # went out, so the server drew the old state after that) and by `started` (this look's answer came)
    started_after: float | None = None
    started: float | None = None
    done_after: float | None = None
    done: float | None = None
    states: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def waited(self) -> float | None:
        return None if self.started is None or self.pressed is None else self.started - self.pressed


class LabTab:
    """One browser tab on /lab over the websocket: open, press Train, poll the progress fragment."""

    BUTTON = "-lab_train"  # the key that ends the id of the button that starts its run

    def __init__(self, base_url: str, cookie: str, query: str, trainee: Trainee, t0: list[float], timeout: float = 300.0, address: str = "") -> None:
        self.base_url, self.cookie, self.query, self.t, self.t0, self.timeout = base_url.rstrip("/"), cookie, query, trainee, t0, timeout
        self.headers = {"Cookie": cookie, **({"X-Forwarded-For": address} if address else {})}
        self.page = next(p for p in app_pages() if p.name == "lab")
        self.hashes: dict[str, str] = {}
        self.train_id = ""
        self.fragment = ""  # the progress fragment, as the browser's poller reruns it
        self.alerts: list[str] = []
        self.bars: list[str] = []
        self.opened = asyncio.Event()  # set once the page has drawn
        self.sent = self.last_sent = 0.0  # when this look's request went out, and the one before

    def now(self) -> float:
        return time.monotonic() - self.t0[0]

    async def rerun(self, ws, *, press: bool = False, fragment: str = "") -> None:
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string, state.page_name = self.query, self.page.url_path
        if self.page.url_path in self.hashes:
            state.page_script_hash = self.hashes[self.page.url_path]
        if press:
            w = state.widget_states.widgets.add()
            w.id, w.trigger_value = self.train_id, True
        if fragment:
            state.fragment_id, state.is_auto_rerun = fragment, True
        self.last_sent, self.sent = self.sent, self.now()
        await ws.send(msg.SerializeToString())
        self.alerts, self.bars = [], []
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(await asyncio.wait_for(ws.recv(), timeout=self.timeout))
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                etype = element.WhichOneof("type")
                if etype == "exception":
                    self.t.errors.append(f"an exception at {self.now():.1f} s: {element.exception.message[:120]}")
                elif etype == "button" and element.button.id.endswith(self.BUTTON):
                    self.train_id = element.button.id
                elif etype == "alert":
                    self.alerts.append(element.alert.body)
                elif etype == "progress":
                    self.bars.append(element.progress.text)
                    self.fragment = fwd.delta.fragment_id or self.fragment
            elif kind == "navigation":
                self.hashes.update({p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages})
            elif kind == "page_info_changed":
                self.query = fwd.page_info_changed.query_string
            elif kind == "script_finished" and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return

    def read(self) -> str | None:
        """The run's state as its bar says it (None: no bar yet), and the place in line when shown."""
        states = [m.group(2) for b in self.bars if (m := BAR.search(b))]
        state = states[0] if states else None
        if state and (not self.t.states or self.t.states[-1] != state):
            self.t.states.append(state)
        return state

    async def run(self, go: asyncio.Event, press_at: float, poll: float, deadline: float) -> Trainee:
        """Open /lab, wait for `go` (every tab open), press Train at `press_at`, then look every `poll` s."""
        url = self.base_url.replace("http", "ws", 1) + "/_stcore/stream"
        try:
            async with websockets.connect(url, subprotocols=["streamlit"], origin=self.base_url, max_size=None, open_timeout=60,
                                          additional_headers=self.headers) as ws:  # fmt: skip
                await self.rerun(ws)
                self.opened.set()
                if not self.train_id:
                    self.t.errors.append("no Train button on /lab")
                    return self.t
                await go.wait()
                await asyncio.sleep(max(0.0, press_at - self.now()))
                self.t.pressed = self.now()
                await self.rerun(ws, press=True)
                refusals = [a for a in self.alerts if a.startswith(REFUSED)]
                if refusals:
                    self.t.errors.append(f"refused: {refusals[0][:60]}")
                    return self.t
                waiting = [m for a in self.alerts if (m := PLACE.search(a))]
                if waiting:
                    self.t.place = int(waiting[0].group(1))
                    if waiting[0].group(2):
                        value = float(waiting[0].group(2).replace(",", ""))
                        self.t.estimated_wait = value * (60 if waiting[0].group(3) == "min" else 1)
                while self.now() < deadline:
                    state = self.read()
                    if state in ("loading", "training", "done") and self.t.started is None:  # a run holds its trainer from "loading" on
                        self.t.started_after, self.t.started = max(self.last_sent, self.t.pressed), self.now()
                    if state == "done" or state in ("stopped", "failed"):
                        if state == "done":
                            self.t.done_after, self.t.done = self.last_sent, self.now()
                        if state != "done":
                            self.t.errors.append(f"the run ended {state}: {self.bars[:1]}")
                        return self.t
                    await asyncio.sleep(poll)
                    await self.rerun(ws, fragment=self.fragment)
                self.t.errors.append(f"not done within the run's {deadline:.0f} s")
        except Exception as err:  # noqa: BLE001 - a tab's failure is a result
            self.t.errors.append(f"{type(err).__name__}: {str(err)[:160]}")
        finally:
            self.opened.set()  # a tab that failed to open does not hold the others back
        return self.t


def checks(trainees: list[Trainee], second: Trainee | None, max_runs: int) -> dict[str, bool]:
    """What held, from what the tabs saw. A start or end is known to lie between two looks, so a
    check fails only on what certainly happened: a visitor who pressed later certainly started
    before one who pressed earlier, a second tab certainly started before its first run ended, more
    runs than trainers certainly training at once."""
    ok = all(t.started is not None and t.done is not None and not t.errors for t in trainees)
    if not ok:
        return {f"every run trained to the end ({sum(t.done is not None for t in trainees)}/{len(trainees)})": False}
    firsts = sorted((t for t in trainees if t is not second), key=lambda t: t.pressed)
    in_turn = all(a.started_after <= b.started for i, a in enumerate(firsts) for b in firsts[i + 1 :])
    own = second is None or second.started >= trainees[0].done_after
    events = sorted([(t.started, 1) for t in trainees] + [(t.done_after, -1) for t in trainees], key=lambda e: (e[0], e[1]))
    at_once, most = 0, 0
    for _, step in events:
        at_once += step
        most = max(most, at_once)
    return {
        f"every run trained to the end ({len(trainees)}/{len(trainees)})": True,
        "the runs started in the order Train was pressed": in_turn,
        "the second tab started only once its own first run was done": own,
        f"at most {max_runs} runs training at once (certainly at once, at the most: {most})": most <= max_runs,
    }


def table(trainees: list[Trainee]) -> list[str]:
    lines = [f"{'visitor':<16} {'pressed':>8} {'place':>6} {'est. wait':>10} {'started':>17} {'waited':>8} {'done':>17}  states seen"]
    for t in sorted(trainees, key=lambda t: (t.pressed is None, t.pressed or 0)):
        place = str(t.place) if t.place else "-"
        started, done = f"{fmt(t.started_after)}-{fmt(t.started)}", f"{fmt(t.done_after)}-{fmt(t.done)}"
        lines.append(
            f"{t.name:<16} {fmt(t.pressed):>8} {place:>6} {fmt(t.estimated_wait):>10} {started:>17} {fmt(t.waited):>8} {done:>17}  "
            f"{' > '.join(t.states)}{'  ' + '; '.join(t.errors) if t.errors else ''}"
        )
    return lines


async def main_async(args: argparse.Namespace) -> int:
    server = None
    if args.url:
        _, base_url, pids = server_under_test(args.url, args.server_pid, [])
    else:
        server = Server(env={"PEE_LAB_MAX_RUNS": str(args.max_runs)}, log=Path("artifacts") / "lab-line-server.log").start()
        base_url, pids = server.url, [server.pid]
    load_before = load_average()
    try:
        await warm_up(base_url, app_pages())  # torch is loaded by the lab page's first run (warm_model)
        await asyncio.sleep(args.settle)
        t0, n = [time.monotonic()], args.trainers
        trainees = [Trainee(f"visitor {i + 1}") for i in range(n)]
        second = Trainee("visitor 1, tab 2") if args.second_tab else None
        query = "lab_schemes=none&lab_steps={steps}&lab_seed={seed}"
        tabs = [
            LabTab(base_url, f"st_route=lab-line-{i}", query.format(steps=args.steps, seed=1000 + i), t, t0, address=f"198.51.100.{i + 1}")
            for i, t in enumerate(trainees)
        ]
        presses = [args.gap * (i + 1) for i in range(n)]
        if second:
            tabs.append(LabTab(base_url, "st_route=lab-line-0", query.format(steps=args.steps, seed=2000), second, t0, address="198.51.100.1"))
            presses.append(args.gap * (n + 1))
        forged = [Trainee(f"forged {i + 1}") for i in range(args.forged)]
        for i, t in enumerate(forged):  # all before the first real visitor presses, a cookie each, one address
            cookie = f"st_route=forged-{i}; _streamlit_xsrf=2|00000000|{i:032x}|1"
            tabs.append(LabTab(base_url, cookie, query.format(steps=args.steps, seed=3000 + i), t, t0, address=args.forged_address))
            presses.append(args.gap * 0.5 * i / max(1, args.forged))
        others = [WsVisitor(i, base_url, [p for p in app_pages() if p.name != "lab"], args.think) for i in range(args.sessions - n)]
        deadline, go = [float("inf")], asyncio.Event()
        meter = CpuMeter(pids)
        meter.start()
        room = [asyncio.create_task(v.run(deadline)) for v in others]
        lab = [asyncio.create_task(tab.run(go, at, args.poll, args.limit)) for tab, at in zip(tabs, presses)]
        for tab in tabs:
            await tab.opened.wait()
        t0[0] = time.monotonic()  # the presses are timed from here, once every lab tab has drawn its page
        go.set()
        await asyncio.gather(*lab)
        deadline[0] = time.monotonic()
        room_results = await asyncio.gather(*room)
        cpu = meter.stop()
    finally:
        if server:
            server.stop()
    everyone = [*trainees, *([second] if second else [])]
    placed = [t for t in forged if not any(e.startswith("refused") for e in t.errors)]
    redraws = [x for r in room_results for x in r.redraws_s]
    verdict = checks(everyone, second, args.max_runs)
    lines = [
        f"The lab's trainers in a room on {base_url}: {args.trainers} of {args.sessions} visitors press Train {args.gap:g} s apart "
        f"({args.steps} steps, one scheme, a seed each){', then visitor 1 again from a second tab' if second else ''}; "
        f"the other {len(others)} move sliders (think time {args.think:g} s); {args.max_runs} trainer(s); polled every {args.poll:g} s",
        f"machine load (1/5/15 min): before {load_before}; at the end {load_average()}",
        f"server CPU {cpu['server_cores']:.2f} cores over {cpu['wall_s']:.0f} s",
        "",
        "seconds from the moment every lab tab was open (place: as the page showed it when Train was pressed, '-': a trainer was free;",
        "started and done: between the look before and the look that showed it; waited: pressed to the latest start):",
        *table(everyone),
        *(
            [f"forged sessions from {args.forged_address}: {len(forged)} pressed Train, {len(placed)} got a place, {len(forged) - len(placed)} refused"]
            if forged
            else []
        ),
        "",
        f"the other visitors: {sum(r.held for r in room_results)}/{len(others)} held, {len(redraws)} redraws, "
        f"p50 {fmt(percentile(redraws, 50))}, p95 {fmt(percentile(redraws, 95))}, errors {sum(len(r.errors) for r in room_results)}",
        "",
        *(f"{'PASS' if ok else 'FAIL'}  {name}" for name, ok in verdict.items()),
    ]
    print("\n".join(lines))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        record = {"url": base_url, "args": {k: str(v) for k, v in vars(args).items()}, "cpu": cpu, "checks": verdict,
                  "trainees": [{**asdict(t), "waited": t.waited} for t in everyone],
                  "forged": [{**asdict(t), "waited": t.waited} for t in forged]}  # fmt: skip
        args.json.write_text(json.dumps(record, indent=2) + "\n")
    return 0 if all(verdict.values()) else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.load.lab_line", description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=40, help="visitors in all (default 40)")
    p.add_argument("--trainers", type=int, default=10, help="of them, how many press Train (default 10)")
    p.add_argument("--steps", type=int, default=300, help="training steps of each run (300: the default, about 5 s estimated)")
    p.add_argument("--gap", type=float, default=1.0, help="seconds between two presses of Train")
    p.add_argument("--poll", type=float, default=1.0, help="seconds between two looks at a run (the page polls every 0.5-2 s)")
    p.add_argument("--think", type=float, default=1.0)
    p.add_argument("--max-runs", type=int, default=2, help="the server's trainers (PEE_LAB_MAX_RUNS)")
    p.add_argument("--no-second-tab", dest="second_tab", action="store_false", help="no second tab for the first visitor")
    p.add_argument("--limit", type=float, default=900, help="seconds after which a run not done is a failure")
    p.add_argument("--settle", type=float, default=5, help="seconds between the warm-up and the first press (torch finishes loading)")
    p.add_argument("--forged", type=int, default=0, help="sessions one client opens from one address, a cookie each, pressing Train first")
    p.add_argument("--forged-address", default="203.0.113.66", help="the address they all come from (X-Forwarded-For)")
    p.add_argument("--url", help="an app already running (default: start one)")
    p.add_argument("--server-pid", type=int, action="append", default=[])
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if not 0 < args.trainers <= args.sessions:
        p.error("--trainers must be from 1 to --sessions")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
