"""A page control reruns only what depends on it, checked on the wire in Chromium.

A full rerun of a page sends every widget of the page again, the sidebar's sliders included
(Streamlit leaves out only charts whose spec did not change); a fragment run sends only the
fragment's elements. So after a control inside a fragment changes, the frames the browser
receives must carry that control's figure, redrawn, and none of the sidebar. The open tab of a
tabbed page is a fragment (ui/tabs.py); /model's PCA section and one-dimension figure are
fragments of their own; /sinusoidal's circle is a fragment inside the Waves tab's.
"""

from __future__ import annotations

import re
import time

import pytest

from harness.browser import figure_signature, wait_ready
from tests.e2e.test_browser import chart_titles

SIDEBAR = b"Shared settings"  # the heading of the sidebar's settings, on every page that shows one: no figure, control or link has it

CASES = {
    # page, control, new value, bytes that only the redrawn figure carries
    "sinusoidal pair": ("sinusoidal?sin_view=Waves", "pair", "5", b"for pair 5:"),
    "sinusoidal position": ("sinusoidal?sin_view=Exact+values", "position", "7", rb"PE\(7, j\)"),
    "similarity reference": ("similarity?sim_view=Distance", "reference", "9", b"every position to position 9"),
    "model dimension": ("model?model_view=Spectrum", "dim", "3", rb"Dimension \d+ over position"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_control_inside_a_fragment_reruns_that_fragment_only(context, app_url, case):
    path, control, value, redrawn = CASES[case]
    page = context.new_page()
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f if isinstance(f, bytes) else f.encode())))
    page.goto(f"{app_url}/{path}")
    wait_ready(page, timeout=120_000)
    assert SIDEBAR in b"".join(frames), "the first run sends the sidebar (else this test could not see a full rerun)"
    frames.clear()
    box = page.locator(f".st-key-{control} input").first
    box.fill(value)
    box.press("Enter")
    settled(page, frames)
    sent = b"".join(frames)
    assert re.search(redrawn, sent), f"{case}: the figure of the changed control was not sent again"
    assert SIDEBAR not in sent, f"{case}: the whole page ran again (the sidebar was sent), not the fragment"
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator(f".st-key-{control} input").first.input_value() == value


def test_a_fragment_follows_the_sidebar_after_its_own_runs(context, app_url):
    """A fragment run uses the settings of the page's last full run; the next full run (a
    sidebar step) must redraw the fragment with the new settings, its control kept."""
    frames: list[bytes] = []
    page = _opened(context, f"{app_url}/sinusoidal?sin_view=Waves", frames)
    frames.clear()
    box = page.locator(".st-key-pair input").first
    box.fill("5")
    box.press("Enter")
    settled(page, frames)
    titles = chart_titles(page)
    before = next(t for t in titles if "for pair 5" in t)
    _stepped(page, "d_model", frames)
    titles = chart_titles(page)
    after = next(t for t in titles if "for pair 5" in t)
    assert after != before  # ω of pair 5 depends on d_model: the circle was redrawn at the new width
    assert page.locator(".st-key-pair input").first.input_value() == "5"


# --- a shared setting the page reads above its live parts (or without any): its move reruns the page, once ----------

BODIES = {  # words of a page's first paragraph: sent on every full run of that page, never by the sidebar or the navigation
    "rope": b"RoPE turns queries and keys by angles",
    "relative": b"These schemes change each attention score",
    "model": b"BERT-style models learn one vector per position",
    "sinusoidal": b"Each position becomes a vector of sines and cosines",
    "similarity": b"Each figure below shows a consequence",
    "compare": b"Each scheme you pick at the same sidebar settings",
    "attention": b"each word keeps its attention",
}


def _stepped(page, setting: str, frames: list[bytes]) -> bytes:
    """Move `setting`'s slider one stop right; the frames the browser received for it."""
    before = page.evaluate("location.search")
    frames.clear()
    page.locator(f".st-key-{setting}_slider input[type='range']").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(before) => location.search !== before", arg=before, timeout=30_000)
    settled(page, frames)
    return b"".join(frames)


def _messages(frames: list[bytes]) -> list:
    """The ForwardMsgs among these frames."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    messages = []
    for frame in frames:
        msg = ForwardMsg()
        try:
            msg.ParseFromString(frame)
        except Exception:  # noqa: BLE001 - not a ForwardMsg (none expected)
            continue
        messages.append(msg)
    return messages


def runs_started(frames: list[bytes]) -> int:
    """Script runs the server started in these frames (each begins with a new_session message)."""
    return sum(msg.WhichOneof("type") == "new_session" for msg in _messages(frames))


def runs_finished(frames: list[bytes]) -> list[str]:
    """How each script run that ran to its end in these frames finished (a run ended early for a
    rerun is left out: a callback that asks for a rerun ends the run it was called in, before any
    of the script ran, and the rerun it asked for follows)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    return [
        ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
        for msg in _messages(frames)
        if msg.WhichOneof("type") == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
    ]


SETTLE_MS = 300  # after a run has finished: time enough for a run it set off (a rerun, an undo) to have started


def settled(page, frames: list[bytes], timeout: float = 30.0) -> None:
    """Wait until a script run that these frames saw start has finished (a run ended early for a rerun does
    not count), then SETTLE_MS for any run it set off, then until the page is ready."""
    end = time.monotonic() + timeout
    while not runs_finished(frames):
        assert time.monotonic() < end, "no script run finished"
        page.wait_for_timeout(50)
    page.wait_for_timeout(SETTLE_MS)
    wait_ready(page)


def _opened(context, path: str, frames: list[bytes]):
    page = context.new_page()
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f if isinstance(f, bytes) else f.encode())))
    page.goto(path)
    wait_ready(page, timeout=120_000)
    return page


MOVES = {  # page -> a setting it uses and reads above its live parts (the page shows only the settings it uses: ui/sidebar.py)
    "rope": "base",
    "relative": "max_len",
    "model": "base",
    "sinusoidal": "max_len",
}
OPEN_AT = {  # a tab whose figures read the moved setting
    "sinusoidal": "?sin_view=Picture",  # its first tab is the live preview, which the browser draws with no Plotly chart
    "model": "?model_view=The%20table",  # its first tab draws no Plotly chart that reads a sidebar setting (the spectra are painted)
}


@pytest.mark.parametrize("name", list(MOVES))
def test_a_move_of_a_setting_the_page_reads_reruns_the_page_once(context, app_url, name):
    used = MOVES[name]
    frames: list[bytes] = []
    page = _opened(context, f"{app_url}/{name}{OPEN_AT.get(name, '')}", frames)
    before = chart_titles(page)
    sent = _stepped(page, used, frames)
    assert BODIES[name] in sent, f"/{name} was not run again when {used} moved"
    assert runs_started(frames) == 1, f"{used} on /{name}: one move, one run (a fragment that then reran the page would be two)"
    assert chart_titles(page) != before, f"/{name}'s figures did not follow {used}"
    assert page.locator("[data-testid='stException']").count() == 0


# --- a live setting (ui/path.py Step.live): its move reruns its controls and the page's live parts, by their keys ------


LIVE_MOVES = [("sinusoidal", "d_model"), ("similarity", "base"), ("compare", "d_model"), ("attention", "d_model"), ("compare", "base")]


@pytest.mark.parametrize(("name", "setting"), LIVE_MOVES)
def test_moving_a_live_setting_reruns_the_live_parts_only(context, app_url, name, setting):
    frames: list[bytes] = []
    page = _opened(context, f"{app_url}/{name}", frames)
    figures_before = figure_signature(page)
    value_before = page.locator(f".st-key-{setting} input").first.input_value()
    sent = _stepped(page, setting, frames)
    # one run, of fragments only (its controls' callback asks for it, which ends the run it was called in at once)
    assert runs_finished(frames) == ["FINISHED_FRAGMENT_RUN_SUCCESSFULLY"], f"{setting} on /{name}: one move, one fragment run"
    assert BODIES[name] not in sent, f"/{name}'s text above its live parts was sent again: the whole page ran"
    assert SIDEBAR not in sent, "the rest of the sidebar was sent again: the whole page ran"
    assert f"exact {setting}".encode() in sent, "the moved setting's controls were not redrawn"
    value = page.locator(f".st-key-{setting} input").first.input_value()
    assert value != value_before and f"{setting}={value.replace(',', '')}" in page.url
    assert figure_signature(page) != figures_before, f"/{name}'s figures did not follow {setting}"
    assert page.get_by_text(BODIES[name].decode()).count() == 1  # the page around the live parts is still there
    assert page.locator("[data-testid='stException']").count() == 0
