"""A Streamlit session without a browser: a websocket client that does what the frontend does on the wire
(asks for a page run, moves the shared sliders, switches pages), and the warm-up every server measured or
proved gets first (every page run once in one session that stays open)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness.pages import AppPage


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
