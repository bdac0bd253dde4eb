"""The lab's training run on the page: the Train and Stop buttons, one progress bar per scheme
while a run waits or trains, and the run kept in the session.

Training runs in a background thread per session (core.lab.runner.LabRun); a fragment polls it
for the progress bars while it runs, and the whole page reruns once it ends to draw the results.
At most PEE_LAB_MAX_RUNS runs (default 2) train at once in this server (core.lab.runner.trainers()),
at most one per visitor (a browser, across its tabs) with one more waiting, and a few per network
address (ui.visitor: who asks, from where; a run past those is refused in a sentence); a run past the
cap waits in line and says where it stands and how long it should wait, Stop takes it out, and
closing the tab does too (ui.internals.session.connection_check). A run is stopped at three times its
estimated time (core.lab.runner.CAP_FACTOR), more on a server slower than its estimates. A configuration already trained comes from the
server's cache at once, without waiting.
"""

from __future__ import annotations

import math

import streamlit as st

from core.lab.config import LabConfig, estimate
from core.lab.runner import LabRun, Outlook, ResultCache, trainers
from core.schemes.registry import SCHEMES
from core.viz.grid import ordinal
from ui.internals.session import connection_check
from ui.visitor import who

POLL_S = 0.5  # seconds between two looks at a training run. With runner.postScriptGC = false (.streamlit/config.toml)
# a poll costs the server 5-15 ms and polling every 0.25-1.5 s left training speed within the machine's noise;
# with the post-run gc.collect() on, a poll took ~0.23 s of GIL and polling every 0.5 s halved it
POLL_WAITING_S = 2.0  # while waiting in line: the line may be long, and a place in it changes slowly
RUN_KEY, SHOWN_KEY = "lab_run", "lab_shown"


@st.cache_resource(show_spinner=False)
def result_cache() -> ResultCache:
    """Finished runs by configuration, shared by every session of this server (48 at most)."""
    return ResultCache(max_entries=48)


def start(configs: list[LabConfig]) -> None:
    """Train's on_click: start a run of `configs`, unless this session's run is still going."""
    current = st.session_state.get(RUN_KEY)
    if current is not None and current.running:
        return  # one run per session (a double click lands here)
    st.session_state[RUN_KEY] = LabRun(configs, cache=result_cache(), alive=connection_check(), slots=trainers(), estimate=seconds, **who()).start()


def seconds(config: LabConfig) -> float:
    """The estimated seconds of one synthetic config (its time limit and the waits shown follow it)."""
    return estimate(config).seconds


def stop() -> None:
    st.session_state[RUN_KEY].stop()


def duration(seconds: float) -> str:
    """A wait in words: to 5 s under a minute and a half, then to the minute."""
    return f"{max(5, 5 * round(seconds / 5)):,.0f} s" if seconds < 90 else f"{round(seconds / 60):,.0f} min"


def waiting_message(outlook: Outlook) -> str:
    """What a run waiting in line says: its place (0 is first in line), the runs training, and the
    estimated wait with the most it can be."""
    runs = f"{outlook.in_progress} run{'s' if outlook.in_progress != 1 else ''} in progress"
    where = f"{runs}, you are {ordinal(outlook.place + 1)} in line"
    if outlook.wait_s is not None and math.isfinite(outlook.wait_s):
        where += f"; it should start in about {duration(outlook.wait_s)}"
        if outlook.at_most_s is not None and math.isfinite(outlook.at_most_s) and outlook.at_most_s > outlook.wait_s + 5:
            where += f" (at most {duration(outlook.at_most_s)}: every run stops at three times its estimate at this server's pace)"
    if outlook.behind_own:
        return f"Waiting for your run in another tab to end (one trainer per visitor): {where}. Stop leaves the line."
    return f"Waiting for a free trainer: {where}. Training starts by itself when a trainer frees up; Stop leaves the line."


def progress_panel(polled_as_waiting: bool = False, *, run_key: str = RUN_KEY, shown_key: str = SHOWN_KEY, unit: str = "tokens") -> None:
    """One bar per scheme: step, loss, `unit` per second, and the place in line while the run
    under `run_key` waits for a trainer. Reruns the page once the run ends (unless `shown_key`
    already holds it), and once it leaves the line (to poll at the training pace). The lab's
    synthetic tasks and its real-text section (ui.lab_lm) both draw their progress here."""
    current: LabRun = st.session_state[run_key]
    if current.refused:  # not taken at all (over budget, or past what one visitor or address may hold): one sentence, no bars
        st.warning(current.refused, icon=":material/block:")
        return
    queued = current.outlook()
    if queued is not None:
        st.info(waiting_message(queued), icon=":material/hourglass_top:")
    elif polled_as_waiting and current.running:
        st.rerun()
    for p in current.progress:
        text = f"**{p.label or SCHEMES[p.scheme].label}**: {p.state}, step {p.step:,} of {p.steps:,}"
        if p.step:
            text += (f", loss {p.loss:.3f}" if p.loss == p.loss else "") + f", {p.tokens_per_s:,.0f} {unit}/s"  # an evaluation has no loss
        if p.message:
            text += f" ({p.message})"
        st.progress(min(1.0, p.step / p.steps), text=text)
    if current.done and st.session_state.get(shown_key) is not current:
        st.rerun()


def run_panel(configs: list[LabConfig], ready: bool) -> LabRun | None:
    """The buttons and the progress of this session's run; returns the run once it is done,
    None while there is none or it is still going (the page then draws no results)."""
    run: LabRun | None = st.session_state.get(RUN_KEY)
    running = run is not None and run.running
    b1, b2, _ = st.columns([1, 1, 4])
    b1.button("Train", type="primary", icon=":material/play_arrow:", disabled=running or not ready, key="lab_train", on_click=start, args=(configs,))
    b2.button("Stop", icon=":material/stop:", disabled=not running, key="lab_stop", on_click=stop)
    if run is not None and run.done:
        st.session_state[SHOWN_KEY] = run
    if run is not None:
        waiting = run.queued() is not None
        st.fragment(run_every=(POLL_WAITING_S if waiting else POLL_S) if running else None)(progress_panel)(waiting)
        if running:
            st.caption(
                "Training in the background: other pages and other visitors are not held up. "
                "Leave the page open; closing the tab stops the run, or takes it out of the line."
            )
    if run is None:
        st.info(
            "Nothing trained yet in this session: choose the schemes and press Train. A run of the defaults takes a few seconds per scheme.",
            icon=":material/science:",
        )
    return run if run is not None and run.done else None
