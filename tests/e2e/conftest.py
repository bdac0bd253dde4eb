"""Browser tests: a real Streamlit server started here, driven by Playwright in Debian's Chromium.

These tests never skip: if the browser or the server cannot start, they fail, so CI cannot
pass without having run them. Screenshots go to artifacts/screenshots/ (ignored by git).
Under pytest-xdist every worker starts its own server, on a free port, with its own log.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.browser import CHROMIUM, CHROMIUM_ARGS, wait_ready  # the browser the load bench drives, started the same way
from harness.server import Server, healthy

# One renderer process per site, kept alive by a page that stays open (keep_warm): Chromium gives each new tab a new
# renderer otherwise, which compiles Streamlit's frontend from its source again, about 2 s of CPU per tab against under 1 s
# in a renderer that has run it before; the tests open a tab each, and the browser is most of the suite's CPU.
E2E_ARGS = [*CHROMIUM_ARGS, "--process-per-site"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def app_url() -> str:
    """The app's base URL: E2E_URL if set (a server started elsewhere, e.g. a container),
    otherwise a server started here for this test session (harness.server.Server, the same
    start and health wait the load test uses; its log in artifacts/e2e-server.log)."""
    if os.environ.get("E2E_URL"):
        url = os.environ["E2E_URL"].rstrip("/")
        assert healthy(url, timeout=10), f"{url}/_stcore/health does not answer ok"
        yield url
        return
    with Server(log=ROOT / "artifacts" / f"e2e-server-{worker()}.log") as server:
        yield server.url


def worker() -> str:
    """This pytest-xdist worker's name (gw0, gw1, ...), or "main" without workers: what a server log is named after."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (apt-get install -y chromium); browser tests must run.")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=E2E_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def _minimal_violations(browser) -> dict[str, list[dict]]:
    """The serious and critical axe-core violations of the minimal one-chart Streamlit page (bench/minimal_app.py)
    in each colour scheme, from one server of that page started here for this worker and stopped at once."""
    from harness import a11y

    found = {}
    with Server(script="bench/minimal_app.py", log=ROOT / "artifacts" / f"e2e-minimal-{worker()}.log") as server:
        for scheme in ("light", "dark"):
            ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)
            try:
                page = ctx.new_page()
                page.goto(server.url)
                wait_ready(page)
                found[scheme] = a11y.violations(page)
            finally:
                ctx.close()
    return found


@pytest.fixture(scope="session")
def axe_reference(_minimal_violations) -> list[dict]:
    """The violations of the minimal Streamlit page in the light theme: what a page of the app may have too
    (harness/a11y.py)."""
    return _minimal_violations["light"]


@pytest.fixture(scope="session")
def axe_reference_dark(_minimal_violations) -> list[dict]:
    """As axe_reference, in the dark theme (the browser prefers dark, and the page follows it)."""
    return _minimal_violations["dark"]


def keep_warm(ctx, app_url: str):
    """Open a page of the app's site that stays open while `ctx` lives, so that the tabs the tests open and close
    share one renderer process (E2E_ARGS) that has compiled the frontend once. The health endpoint's text: it
    holds no Streamlit session and runs no script."""
    keeper = ctx.new_page()
    keeper.goto(f"{app_url}/_stcore/health")
    return keeper


@pytest.fixture(scope="session")
def _shared_context(browser, app_url):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield ctx, keep_warm(ctx, app_url)
    ctx.close()


@pytest.fixture()
def context(_shared_context):
    """A browser context the tests of a worker share, its cache warm (a page loads the app's scripts from
    it, not from the server) and its renderer too (keep_warm: that page stays open), with every page a test
    opened closed after it (a test that also stops a server of its own asks for it before this fixture, so
    that its tabs close first). Each page is a session of its own on the server; a test that needs a browser
    with nothing in it makes its own (browser.new_context)."""
    ctx, keeper = _shared_context
    yield ctx
    for page in ctx.pages:
        if page is not keeper:
            page.close()


def open_recording(context, url: str) -> tuple:
    """A new tab of `context` at `url`, drawn, with every websocket frame the browser sends from the start recorded:
    (page, frames sent), so a test can tell that what it did asked nothing of the server."""
    page = context.new_page()
    sent: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(f if isinstance(f, bytes) else f.encode())))
    page.goto(url)
    wait_ready(page, timeout=120_000)
    return page, sent
