"""One visitor of the load test: a Playwright browser context that opens a page, moves the
shared sliders and switches pages until its time is up, timing every redraw.

A redraw is timed from the slider key press to the moment the app is back to
script-state `notRunning`, connected, with no skeleton left, and the data drawn by the
charts differs from before the press. Beside it, the server's part of the same redraw is
read off the wire (`Wire`): from the rerun request the browser sent to the end-of-run
message it received, as timed by the browser's network layer (Chrome DevTools Protocol),
so it does not include the browser's own rendering, nor the wait for a busy renderer. The sliders are moved one stop and back (d_model,
max_len, base in turn), so the settings stay at or next to the defaults; after every round
the session goes to the next page through the sidebar.

If the server goes away (a replica killed behind a proxy, a restart), the session waits for
Streamlit's frontend to reconnect and then checks that the view came back: the sidebar and
the URL hold the settings the session had set. That is a recovery, not an error; the load
test counts it separately (an error when nothing was supposed to fail).
"""

from __future__ import annotations

import asyncio
import base64
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlparse

from harness.pages import AppPage

SETTINGS = ("d_model", "max_len", "base")

# Runs in every page before the app's own scripts: records connection-state and script-state
# changes (one record per change, with its time) and defines the probes the waits use.
INIT_SCRIPT = """
(() => {
  window.__conn = [];
  new MutationObserver(ms => {
    for (const m of ms) window.__conn.push([Date.now(), m.attributeName, m.target.getAttribute(m.attributeName), m.oldValue]);
  }).observe(document, {attributes: true, attributeOldValue: true, subtree: true,
                        attributeFilter: ['data-test-connection-state', 'data-test-script-state']});
  window.__state = () => {
    const app = document.querySelector("[data-testid='stApp']");
    return {
      conn: app ? app.getAttribute('data-test-connection-state') : null,
      script: app ? app.getAttribute('data-test-script-state') : null,
      skeletons: document.querySelectorAll("[data-testid='stSkeleton']").length,
      exceptions: document.querySelectorAll("[data-testid='stException']").length,
      // Plotly charts and painted heatmaps (.pee-pg: --before a tree that named them so)
      charts: document.querySelectorAll("[data-testid='stPlotlyChart'] .main-svg, .pee-hm[data-draws], .pee-pg[data-draws]").length,
    };
  };
  window.__ready = () => {
    const app = document.querySelector("[data-testid='stApp']");
    return !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
      && app.getAttribute('data-test-script-state') === 'notRunning' && !document.querySelector("[data-testid='stSkeleton']");
  };
  // what the charts draw: Plotly.react gives a plot a new data array when it draws new data, so
  // comparing the arrays by identity tells a redraw without serialising megabytes each poll; a
  // heatmap (ui/heatmap.py; .pee-pg in a tree from before it was named so, measured with --before) counts its
  // finished paints in data-draws
  const drawing = () => Array.from(document.querySelectorAll('.js-plotly-plot')).map(p => p.data)
    .concat(Array.from(document.querySelectorAll('.pee-hm, .pee-pg')).map(g => `grid ${g.dataset.draws}`));
  window.__mark = () => { window.__marked = drawing(); };
  window.__redrawn = () => {
    const now = drawing();
    return now.length !== window.__marked.length || now.some((d, i) => d !== window.__marked[i]);
  };
  window.__ranSince = (t) => window.__conn.some(([when, attr]) => when >= t && attr === 'data-test-script-state');
})();
"""

# After a key press at `since` (ms since the epoch) on the slider of `setting`: once the app
# has taken the move (its URL parameter changed, or a script run started after the press) and
# is ready again, {o: "done", t} when a chart has drawn new data since __mark(), or {o: "same", t}
# when they stayed the same for 300 ms more (a setting this page does not draw, or a move the
# app undid); "disconnected" when the connection is lost. t is when the redraw was seen
# complete, in ms since the epoch. (The URL is watched as well as the script state because a
# fast run can start and finish within one React render, leaving the attribute untouched.)
WAIT_REDRAW = """
([since, setting, urlBefore]) => {
  const app = document.querySelector("[data-testid='stApp']");
  const conn = app && app.getAttribute('data-test-connection-state');
  if (conn && conn !== 'CONNECTED') return 'disconnected';
  const taken = new URLSearchParams(location.search).get(setting) !== urlBefore || window.__ranSince(since);
  if (!taken || !window.__ready()) { window.__sameSince = null; return false; }
  if (window.__redrawn()) return {o: 'done', t: Date.now()};
  window.__sameSince = window.__sameSince || Date.now();
  return Date.now() - window.__sameSince > 300 ? {o: 'same', t: window.__sameSince} : false;
}
"""
# Connected again after a loss (Streamlit's frontend reconnects by itself; to a fresh server
# process it shows the last screen again without rerunning until the next interaction).
WAIT_CONNECTED = """
() => window.__ready()
"""
# Ready: connected, the run over, and the page drawn: its title there and every chart it sent drawn
# by plotly.js (which happens just after the run ends), or an exception shown. A page without
# charts (/practice) is ready with its title; "at least one chart" never came true there.
WAIT_READY = """
() => {
  const s = window.__state();
  const boxes = [...document.querySelectorAll("[data-testid='stPlotlyChart']")];
  const drawn = boxes.filter(b => b.querySelector('.main-svg')).length;
  const painted = [...document.querySelectorAll('.pee-hm, .pee-pg')].every(g => g.dataset.draws && g.dataset.draws === g.dataset.paints);
  const titled = !!document.querySelector("[data-testid='stMain'] h1");
  return s.conn === 'CONNECTED' && s.script === 'notRunning' && s.skeletons === 0 && (s.exceptions > 0 || (titled && drawn === boxes.length && painted));
}
"""


class Wire:
    """The app's websocket as the browser's network layer sees it: when each rerun request
    (BackMsg.rerun_script) left and each end-of-run message (ForwardMsg.script_finished)
    arrived, in the browser's monotonic seconds. Frames are decoded with Streamlit's own
    protobuf classes; a frame that does not decode is skipped."""

    def __init__(self) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self._back, self._forward = BackMsg, ForwardMsg
        self.reruns: list[float] = []
        self.finished: list[float] = []

    async def attach(self, ctx, page) -> None:
        cdp = await ctx.new_cdp_session(page)
        cdp.on("Network.webSocketFrameSent", lambda ev: self._frame(ev, self._back, "rerun_script", self.reruns))
        cdp.on("Network.webSocketFrameReceived", lambda ev: self._frame(ev, self._forward, "script_finished", self.finished))
        await cdp.send("Network.enable")

    @staticmethod
    def _frame(ev: dict, cls, field_name: str, into: list[float]) -> None:
        frame = ev.get("response", {})
        if frame.get("opcode") != 2:  # binary frames only: Streamlit's protocol
            return
        try:
            msg = cls.FromString(base64.b64decode(frame.get("payloadData", "")))
        except Exception:  # noqa: BLE001 - not ours, or cut short
            return
        if msg.WhichOneof("type") == field_name:
            into.append(float(ev["timestamp"]))

    def mark(self) -> int:
        return len(self.reruns)

    def server_seconds(self, mark: int) -> float | None:
        """From the first rerun request sent after `mark` to the last end-of-run message
        received since (a run cut short by a newer request ends with the newer one)."""
        if len(self.reruns) <= mark:
            return None
        sent = self.reruns[mark]
        ends = [t for t in self.finished if t >= sent]
        return ends[-1] - sent if ends else None


NAV_LINKS = "[data-testid='stSidebarNav'] a"
# the index among the sidebar's links of the one that leads to a path ("" for the root)
NAV_LINK_INDEX = f"""(path) => [...document.querySelectorAll("{NAV_LINKS}")]
    .findIndex(a => new URL(a.href).pathname.replace(/\\/+$/, '') === path)"""


@dataclass
class Recovery:
    """A lost connection and what came back."""

    at_s: float  # seconds since the load started
    seconds: float | None  # until connected and ready again (None: never)
    view_restored: bool
    detail: str = ""
    backend_before: str = ""
    backend_after: str = ""


@dataclass
class SessionResult:
    index: int
    start_page: str
    first_load_s: float | None = None
    redraws_s: list[float] = field(default_factory=list)
    server_s: list[float] = field(default_factory=list)  # the server's part of each redraw, off the wire
    switches_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    recoveries: list[Recovery] = field(default_factory=list)
    backends: list[str] = field(default_factory=list)  # the --backend-header value, at start and after each recovery
    undone_after_reconnect: int = 0  # first moves after a reconnection that the fresh session undid
    unchanged_redraws: int = 0  # redraws of a page that does not draw the moved setting (counted in redraws_s)
    connected_at_end: bool = False

    @property
    def held(self) -> bool:
        """Still connected at the end, with at least one redraw and no error."""
        return self.connected_at_end and bool(self.redraws_s) and not self.errors


@dataclass
class SessionConfig:
    base_url: str
    pages: list[AppPage]
    t0: float  # time.monotonic() when the load started
    deadline: float = float("inf")  # time.monotonic() at which to stop: set once every session is open
    on_open: Callable[[], None] | None = None  # called by each session once its first page is up (or failed)
    started: asyncio.Event | None = None  # if given, a session waits for it after opening: the moves begin together, at full concurrency
    think_s: float = 1.0  # mean pause between actions, like a person looking at the chart
    redraw_timeout_s: float = 30.0
    reconnect_timeout_s: float = 90.0
    backend_header: str = ""  # a response header naming the replica (set by a proxy), recorded per session
    viewport: tuple[int, int] = (1280, 900)


class Visitor:
    def __init__(self, browser, index: int, cfg: SessionConfig) -> None:
        self.browser, self.index, self.cfg = browser, index, cfg
        self.page_i = index % len(cfg.pages)
        self.result = SessionResult(index, cfg.pages[self.page_i].name)
        self.expected = {}  # setting -> the value the session has set ("" = default, not in the URL yet)
        self.rng = random.Random(index)
        self.ctx = None
        self.page = None
        self.wire: Wire | None = None
        self.seen = 0  # how many entries of window.__conn have been looked at
        self.after_recovery = False

    async def lost_since(self) -> int | None:
        """When (ms since the epoch) the connection was first lost since the last look, if it was."""
        events = await self.page.evaluate("(n) => window.__conn.slice(n)", self.seen)
        for t, attr, value, old in events:
            if attr == "data-test-connection-state" and (old == "CONNECTED" or value != "CONNECTED"):
                return t
        self.seen += len(events)
        return None

    def now(self) -> float:
        return time.monotonic() - self.cfg.t0

    def error(self, text: str) -> None:
        self.result.errors.append(f"{self.now():.1f}s {text}")

    async def backend(self) -> str:
        if not self.cfg.backend_header:
            return ""
        try:
            resp = await self.ctx.request.get(f"{self.cfg.base_url}/_stcore/health", timeout=10_000)
            # nginx lists every replica it tried ("A, B" after A refused); the last one answered
            return resp.headers.get(self.cfg.backend_header.lower(), "?").split(",")[-1].strip()
        except Exception as err:  # noqa: BLE001 - a failed probe is recorded, not raised
            return f"unreachable ({type(err).__name__})"

    async def settings_shown(self) -> dict[str, str]:
        """The shared settings as the sidebar's exact-value boxes show them; one the page does not show
        (a page shows only those it uses: ui/sidebar.py), as the URL holds it."""
        shown = {}
        in_url = self.settings_in_url()
        for name in SETTINGS:
            if name not in self.cfg.pages[self.page_i].uses:
                shown[name] = in_url[name]
                continue
            try:
                shown[name] = await self.page.locator(f".st-key-{name} input").input_value(timeout=5_000)
            except Exception:  # noqa: BLE001
                shown[name] = "?"
        return shown

    def settings_in_url(self) -> dict[str, str]:
        query = parse_qs(urlparse(self.page.url).query)
        return {name: query.get(name, [""])[0] for name in SETTINGS}

    async def open(self) -> None:
        self.ctx = await self.browser.new_context(viewport={"width": self.cfg.viewport[0], "height": self.cfg.viewport[1]})
        await self.ctx.add_init_script(INIT_SCRIPT)
        self.page = await self.ctx.new_page()
        self.wire = Wire()
        await self.wire.attach(self.ctx, self.page)
        self.page.on("pageerror", lambda exc: self.error(f"javascript error: {str(exc)[:200]}"))
        start = time.monotonic()
        await self.page.goto(self.cfg.pages[self.page_i].url(self.cfg.base_url), wait_until="domcontentloaded", timeout=60_000)
        await self.page.wait_for_function(WAIT_READY, polling=100, timeout=120_000)
        self.result.first_load_s = time.monotonic() - start
        self.seen = await self.page.evaluate("window.__conn.length")  # the first connection is not a loss
        self.result.backends.append(await self.backend())
        await self.check_exceptions("first load")
        self.expected = await self.settings_shown()

    async def check_exceptions(self, where: str) -> None:
        state = await self.page.evaluate("window.__state()")
        if state["exceptions"]:
            self.error(f"exception shown on {self.cfg.pages[self.page_i].name} after {where}")

    async def move(self, setting: str, key: str, retry: bool = True) -> None:
        lost = await self.lost_since()
        if lost is not None:  # lost (and maybe back already) while the visitor was looking
            await self.recover("between actions")
        thumb = self.page.locator(f".st-key-{setting}_slider input[type='range']")
        await thumb.focus(timeout=10_000)
        since = await self.page.evaluate("window.__mark(), Date.now()")
        wire_mark = self.wire.mark()
        url_before = self.settings_in_url()[setting] or None
        start = time.monotonic()
        await thumb.press(key)
        try:
            handle = await self.page.wait_for_function(WAIT_REDRAW, arg=[since, setting, url_before], polling=40, timeout=self.cfg.redraw_timeout_s * 1000)
            outcome = await handle.json_value()
        except Exception as err:  # noqa: BLE001
            outcome = "timeout" if "Timeout" in type(err).__name__ else f"failed: {type(err).__name__}: {str(err)[:120]}"
        where = f"{setting} {key} on {self.cfg.pages[self.page_i].name}"
        kind = outcome.get("o") if isinstance(outcome, dict) else outcome
        if kind in ("done", "same"):
            shown = await self.settings_shown()
            moved = shown[setting] != self.expected.get(setting)
            if kind == "done" or moved:  # drawn anew, or the page does not draw this setting
                self.result.redraws_s.append((outcome["t"] - since) / 1000)
                server = self.wire.server_seconds(wire_mark)
                if server is not None:
                    self.result.server_s.append(server)
                self.result.unchanged_redraws += kind == "same"
                self.expected = shown
                self.after_recovery = False
                await self.check_exceptions(where)
            elif self.after_recovery:
                # the first move after reconnecting to a fresh server process: the new session
                # seeds the settings from the URL and the move is undone; counted, tried again
                self.result.undone_after_reconnect += 1
                self.after_recovery = False
                if retry:
                    await self.move(setting, key, retry=False)
            else:
                self.error(f"{where}: the app ran but neither the charts nor {setting} changed ({shown})")
        elif kind == "disconnected":
            await self.recover(f"during a {setting} redraw", moving=setting)
        else:
            state = await self.page.evaluate("window.__state()")
            ran = await self.page.evaluate("(t) => window.__ranSince(t)", since)
            self.error(f"{where}: redraw {kind} after {time.monotonic() - start:.0f} s (a run started: {ran}; state {state}; "
                       f"settings {await self.settings_shown()}, before {self.expected})")
            if state["conn"] != "CONNECTED":
                await self.recover("after a redraw timeout", moving=setting)

    async def switch_page(self) -> None:
        self.page_i = (self.page_i + 1) % len(self.cfg.pages)
        target = self.cfg.pages[self.page_i]
        # the page's path as the browser shows it (under any prefix a proxy serves the app at);
        # its link is found by that path, since --pages may drive a subset of the sidebar's pages
        path = urlparse(target.url(self.cfg.base_url)).path.rstrip("/")
        start = time.monotonic()
        try:
            index = await self.page.evaluate(NAV_LINK_INDEX, path)
            if index < 0:
                self.error(f"switch to {target.name}: no link to {path or '/'} in the sidebar")
                return
            await self.page.locator(NAV_LINKS).nth(index).click(timeout=10_000)
            await self.page.wait_for_function(
                "(path) => location.pathname.replace(/\\/+$/, '') === path && window.__ready() && window.__state().charts > 0",
                arg=path,
                polling=50,
                timeout=self.cfg.redraw_timeout_s * 1000,
            )
        except Exception as err:  # noqa: BLE001
            if not await self.page.evaluate("window.__state().conn === 'CONNECTED'"):
                await self.recover(f"during a switch to {target.name}")
                return
            self.error(f"switch to {target.name}: {type(err).__name__}")
            return
        self.result.switches_s.append(time.monotonic() - start)
        await self.check_exceptions("page switch")

    async def recover(self, when: str, moving: str | None = None) -> None:
        """Wait for the frontend to reconnect (to whichever replica the proxy picks) and rerun,
        then check that the view came back: the same settings on screen and in the URL (the
        setting being moved when the server went away may come back at either stop)."""
        lost_at = self.now()
        since = await self.lost_since() or await self.page.evaluate("Date.now()")
        before = self.result.backends[-1] if self.result.backends else ""
        try:
            await self.page.wait_for_function(WAIT_CONNECTED, polling=100, timeout=self.cfg.reconnect_timeout_s * 1000)
        except Exception:  # noqa: BLE001
            self.result.recoveries.append(Recovery(lost_at, None, False, f"no reconnection within {self.cfg.reconnect_timeout_s:.0f} s ({when})", before))
            self.error(f"connection lost {when} and not back within {self.cfg.reconnect_timeout_s:.0f} s")
            return
        seconds = (await self.page.evaluate("Date.now()") - since) / 1000  # from the loss to connected again
        self.seen = await self.page.evaluate("window.__conn.length")
        after = await self.backend()
        self.result.backends.append(after)
        shown, in_url = await self.settings_shown(), self.settings_in_url()
        differs = {k for k in SETTINGS if shown[k] != self.expected.get(k)}
        restored = "?" not in shown.values() and shown == in_url and differs <= ({moving} if moving else set())
        detail = f"{when}; screen {shown}, url {in_url}, before {self.expected}"
        self.result.recoveries.append(Recovery(lost_at, seconds, restored, detail, before, after))
        if not restored:
            self.error(f"view not restored after reconnecting ({detail})")
        self.expected = shown
        self.after_recovery = True
        await self.check_exceptions("reconnection")

    async def run(self) -> SessionResult:
        try:
            try:
                await self.open()
            finally:
                if self.cfg.on_open:
                    self.cfg.on_open()
            if self.cfg.started is not None:  # no timed move competes with another session's first page load
                await self.cfg.started.wait()
            while time.monotonic() < self.cfg.deadline:
                # the settings the page shows (a page shows only those it uses: ui/sidebar.py); none on some pages
                shown = self.cfg.pages[self.page_i].uses
                plan = [(s, k) for s in SETTINGS if s in shown for k in ("ArrowRight", "ArrowLeft")]
                if not plan:
                    await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.cfg.think_s)
                for setting, key in plan:
                    if time.monotonic() >= self.cfg.deadline:
                        break
                    await self.move(setting, key)
                    await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.cfg.think_s)
                if time.monotonic() < self.cfg.deadline and len(self.cfg.pages) > 1:
                    await self.switch_page()
                    await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.cfg.think_s)
            if await self.lost_since() is not None:  # lost near the end, between two actions
                await self.recover("near the end")
            self.result.connected_at_end = await self.page.evaluate("window.__state().conn === 'CONNECTED'")
        except Exception as err:  # noqa: BLE001 - one visitor's failure is a result, not a crash of the test
            self.error(f"session aborted: {type(err).__name__}: {str(err)[:200]}")
        return self.result

    async def close(self) -> None:
        if self.ctx is not None:
            try:
                await self.ctx.close()
            except Exception:  # noqa: BLE001
                pass
