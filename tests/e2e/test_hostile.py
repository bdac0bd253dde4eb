"""Hostile input against a real server: what a browser draws from a hostile link, and
what one session can make the server hold through uploads, over Streamlit's own wire.

- A link whose every parameter carries Markdown, LaTeX, a directive or HTML opens with notices
  whose text shows the value, and nothing in the page is a link, an image, a formula or an icon
  made from it (the real frontend renders the notices; tests/app/test_hostile.py checks every
  page's element protos).
- Uploads: a client speaking Streamlit's protocol (a websocket session, then PUTs to
  /_stcore/upload_file/<session>/<file id> with file ids it invents, as an attack would)
  cannot make the server hold more than ui.internals.hardening.UPLOAD_FILES_PER_SESSION files for its
  session, and all sessions together not more than UPLOAD_BYTES_TOTAL (what the server holds
  is read from its /_stcore/metrics, which the deploy configuration keeps private).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.cookiejar
import re
import time
import urllib.error
import urllib.request
import uuid
from urllib.parse import urlencode

import pytest
import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from harness.server import Server
from harness.browser import screenshot, wait_ready
from tests.e2e.conftest import ROOT, worker
from ui.internals.hardening import UPLOAD_BYTES_TOTAL, UPLOAD_FILES_PER_SESSION

PAYLOAD = "`[Login here](https://evil.example/x)` ![i](https://evil.example/p.png) $\\color{red}{\\Huge EVIL}$ :material/skull: :red[evil] <a href=https://evil.example>a</a>"
LINKS = {
    "sinusoidal": ["d_model", "max_len", "base", "layout", "pair", "position"],
    "compare": ["schemes", "heads", "d_model"],
    "lab": ["lab_schemes", "lab_eval_lens", "lab_steps", "lab_task"],
    "code": ["scheme", "heads", "head_dim"],
}


@pytest.mark.parametrize("path", list(LINKS))
def test_a_hostile_link_draws_no_link_image_formula_or_icon(context, app_url, path):
    page = context.new_page()
    page.goto(f"{app_url}/{path}?{urlencode({name: PAYLOAD for name in LINKS[path]})}")
    wait_ready(page)
    screenshot(page, f"hostile-{path}")
    alerts = page.locator("[data-testid='stAlert']")
    assert alerts.count() >= 1
    assert "evil.example" in " ".join(alerts.all_inner_texts())  # the value is shown, as text
    app = page.locator("[data-testid='stApp']")
    assert app.locator("a[href*='evil']").count() == 0
    assert app.locator("img[src*='evil']").count() == 0
    assert page.locator("[data-testid='stAlert'] .katex").count() == 0
    assert not any("EVIL" in formula for formula in page.locator(".katex").all_inner_texts())  # the page's own formulas only
    assert "Login here" not in " ".join(app.locator("a").all_inner_texts())
    icons = " ".join(page.locator("[data-testid='stMain'] [data-testid='stIconMaterial']").all_inner_texts())
    assert "skull" not in icons
    assert page.locator("[data-testid='stException']").count() == 0


def test_a_hostile_sentence_reaches_the_attention_grid_as_plain_words(context, app_url):
    # the visitor's sentence names the painted grid's rows and columns: the tokenizer keeps letters and digits only,
    # and ui/components/heatmap writes every label with textContent; neither lets markup through
    page = context.new_page()
    page.goto(f"{app_url}/attention?{urlencode({'sentence': 'your own sentence', 'text': PAYLOAD})}")
    wait_ready(page)
    page.wait_for_selector(".pee-hm[data-draws]", timeout=30_000)
    rows = page.locator(".pee-hm-yt > span").all_inner_texts()
    assert "3:evil" in rows and "1:here" in rows  # Login here https evil example ...: letters and digits, each word a label
    grid = page.locator(".pee-hm")
    assert grid.locator("a, img, script, .katex").count() == 0
    assert page.locator("[data-testid='stApp'] a[href*='evil']").count() == 0 and page.locator("[data-testid='stException']").count() == 0


# --- uploads over Streamlit's own wire --------------------------------------------------------


class WireClient:
    """One browser session without a browser: its cookie (for the XSRF token uploads need), a
    websocket session that has run the model page, and PUTs of files with invented ids."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.http.open(f"{base}/_stcore/health").read()  # sets the _streamlit_xsrf cookie
        self.xsrf = next(c.value for c in self.jar if c.name == "_streamlit_xsrf")
        self.session_id = ""
        self.ws = None

    async def open(self) -> WireClient:
        cookie = "; ".join(f"{c.name}={c.value}" for c in self.jar)
        url = self.base.replace("http", "ws", 1) + "/_stcore/stream"
        self.ws = await websockets.connect(url, subprotocols=["streamlit"], origin=self.base, max_size=None, additional_headers={"Cookie": cookie})
        msg = BackMsg()
        msg.rerun_script.query_string = ""
        msg.rerun_script.page_name = "model"
        await self.ws.send(msg.SerializeToString())
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(await asyncio.wait_for(self.ws.recv(), timeout=120))
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id
            elif kind == "script_finished":
                assert self.session_id
                return self

    def put(self, data: bytes, name: str = "table.npy") -> int:
        """PUT one file under a new, invented file id; the HTTP status."""
        boundary = uuid.uuid4().hex
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        request = urllib.request.Request(
            f"{self.base}/_stcore/upload_file/{self.session_id}/{uuid.uuid4()}",
            data=body,
            method="PUT",
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": self.xsrf},
        )
        try:
            with self.http.open(request, timeout=60) as response:
                return response.status
        except urllib.error.HTTPError as err:
            return err.code

    async def close(self) -> None:
        await self.ws.close()


def held_upload_bytes(base: str) -> int:
    """What the server holds in uploads, from its metrics (the byte counts are cached 5 s there)."""
    time.sleep(5.5)
    text = urllib.request.urlopen(f"{base}/_stcore/metrics?families=cache_memory_bytes", timeout=30).read().decode()
    found = re.search(r'cache_memory_bytes\{cache_type="UploadedFileManager"[^}]*\} (\d+)', text)
    return int(found.group(1)) if found else 0


MB = 2**20


def run_async(coroutine):
    """Run a coroutine to its end in a thread of its own (Playwright's sync API keeps an event loop in this one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_uploads_are_bounded_per_session_and_per_server():
    """On a server of its own (it ends full of uploads): one session's uploads, as fast as it can send them, are
    held up to its budget and another visitor is not refused because of it; then sessions enough to fill the
    server's budget: refused with a status once it is full, never held past it."""
    size = 19 * MB
    sessions = UPLOAD_BYTES_TOTAL // (UPLOAD_FILES_PER_SESSION * size) + 2

    async def one_session(base: str) -> tuple[list[int], int, int]:
        client = await WireClient(base).open()
        statuses = [client.put(bytes(4 * MB)) for _ in range(8)]  # 8 files of 4 MB
        held = held_upload_bytes(base)
        other = await WireClient(base).open()
        other_status = other.put(bytes(MB))
        await client.close()
        await other.close()
        return statuses, held, other_status

    async def every_session(base: str) -> tuple[list[int], int]:
        clients = [await WireClient(base).open() for _ in range(sessions)]
        statuses = [client.put(bytes(size)) for client in clients for _ in range(UPLOAD_FILES_PER_SESSION)]
        held = held_upload_bytes(base)
        for client in clients:
            await client.close()
        return statuses, held

    with Server(log=ROOT / "artifacts" / f"e2e-upload-budget-server-{worker()}.log") as server:
        statuses, held, other_status = run_async(one_session(server.url))
        assert statuses == [204] * 8  # accepted, but only the latest are kept
        assert held <= UPLOAD_FILES_PER_SESSION * 4 * MB, f"one session holds {held / MB:.1f} MB"
        assert held >= 4 * MB  # the latest upload is there (the metric does count them)
        assert other_status == 204
        statuses, held = run_async(every_session(server.url))
    assert held <= UPLOAD_BYTES_TOTAL, f"the server holds {held / MB:.0f} MB of uploads"
    assert 507 in statuses and statuses[0] == 204  # refused once full, with a status, not a crash
