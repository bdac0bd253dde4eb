"""Every live run of the lab on the page, one widget (`live_run`): the Train and Stop buttons, one
progress bar per config while a run waits or trains, the run kept in the session, and what a
finished run says (`finished`: failures, a stop, settings changed since, "same as shipped"). The
synthetic tasks, the real-text comparison (ui.lab.lm) and the experiments on trained models
(ui.lab.trained) all run through it, each with its core.lab.labrun.Job.

Training runs in a background thread per session (core.lab.labrun.LabRun); a fragment polls it
for the progress bars while it runs, and the whole page reruns once it ends to draw the results.
At most PEE_LAB_MAX_RUNS runs (default 2) train at once in this server (core.lab.trainers.trainers()),
at most one per visitor (a browser, across its tabs) with one more waiting, and a few per network
address (ui.visitor: who asks, from where; a run past those is refused in a sentence); a run past the
cap waits in line and says where it stands and how long it should wait, Stop takes it out, and
closing the tab does too (ui.internals.session.connection_check). A run is stopped at three times its
estimated time (core.lab.labrun.CAP_FACTOR), more on a server slower than its estimates. A configuration already trained comes from the
server's cache at once, without waiting.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import streamlit as st

from core.lab.cache import ResultCache
from core.lab.labrun import SYNTHETIC, Job, LabRun
from core.lab.trainers import Outlook, trainers
from core.schemes.registry import SCHEMES
from core.viz.grid import ordinal
from ui.internals.session import connection_check
from ui.visitor import who

POLL_S = 0.5  # seconds between two looks at a training run. With runner.postScriptGC = false (.streamlit/config.toml)
# a poll costs the server 5-15 ms and polling every 0.25-1.5 s left training speed within the machine's noise;
# with the post-run gc.collect() on, a poll took ~0.23 s of GIL and polling every 0.5 s halved it
POLL_WAITING_S = 2.0  # while waiting in line: the line may be long, and a place in it changes slowly


@st.cache_resource(show_spinner=False)
def result_cache() -> ResultCache:
    """Finished runs by configuration, shared by every session of this server (48 at most)."""
    return ResultCache(max_entries=48)


def _start(run_key: str, job: Job, configs: list) -> None:
    """Train's on_click: start a run of `configs`, unless this session's run under `run_key` is still going."""
    current = st.session_state.get(run_key)
    if current is not None and current.running:
        return  # one run per session and widget (a double click lands here)
    st.session_state[run_key] = job.start(configs, cache=result_cache(), alive=connection_check(), slots=trainers(), **who())


def _stop(run_key: str) -> None:
    st.session_state[run_key].stop()


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


def progress_panel(polled_as_waiting: bool = False, *, run_key: str, shown_key: str, unit: str) -> None:
    """One bar per scheme: step, loss, `unit` per second, and the place in line while the run
    under `run_key` waits for a trainer. Reruns the page once the run ends (unless `shown_key`
    already holds it), and once it leaves the line (to poll at the training pace)."""
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


def live_run(
    key: str,
    job: Job,
    configs: list,
    *,
    button: str,
    go_key: str | None = None,
    problem: str | None = None,
    show_problem: bool = True,
    idle: Callable[[], None] | None = None,
    note: str = "Running in the background; closing the tab stops it.",
    columns: Sequence[int] = (2, 1, 3),
) -> LabRun | None:
    """A live run of `configs` (session keys `{key}_run` and `{key}_shown`): `problem` (shown as an
    error unless the page shows it itself) disables `button`; Stop; while it waits or runs, the
    progress polled in a fragment and `note`; `idle()` draws what stands there before any run. Returns
    the run once it is done, None while there is none or it is still going (the page then draws no results)."""
    run_key, shown_key = f"{key}_run", f"{key}_shown"
    if problem and show_problem:
        st.error(problem, icon=":material/error:")
    run: LabRun | None = st.session_state.get(run_key)
    running = run is not None and run.running
    b1, b2, _ = st.columns(list(columns))
    b1.button(
        button, type="primary", icon=":material/play_arrow:", key=go_key or f"{key}_go", disabled=running or bool(problem),
        on_click=_start, args=(run_key, job, configs),
    )  # fmt: skip
    b2.button("Stop", icon=":material/stop:", key=f"{key}_stop", disabled=not running, on_click=_stop, args=(run_key,))
    if run is None:
        if idle is not None:
            idle()
        return None
    if run.done:
        st.session_state[shown_key] = run
    waiting = run.queued() is not None
    st.fragment(run_every=(POLL_WAITING_S if waiting else POLL_S) if running else None)(progress_panel)(
        waiting, run_key=run_key, shown_key=shown_key, unit=job.unit
    )
    if running:
        st.caption(note)
    return run if run.done else None


def finished(run: LabRun, configs: list, name: Callable[[object], str], *, stopped: str, changed: str | None = None) -> list[tuple]:
    """A finished run's (config, result) pairs that ran to the end, after a sentence for each config
    that failed (named by `name(progress)`), `stopped` when none ran to the end and none failed, and
    `changed` when the page's settings are no longer the run's. Empty when nothing is to be drawn
    (a refused run: its progress panel says why)."""
    done = [(c, run.results[i]) for i, c in enumerate(run.configs) if i in run.results and not run.results[i].stopped]
    if run.refused and not done:
        return []
    for p in run.progress:
        if p.state == "failed":
            st.error(f"{name(p)} failed: {p.message}", icon=":material/error:")
    if not done:
        if not any(p.state == "failed" for p in run.progress):
            st.info(stopped, icon=":material/info:")
        return []
    if changed and run.configs != configs:
        st.caption(changed)
    return done


def same_as_shipped(pairs_of_numbers: Sequence[tuple[float | None, float | None]], whose: str = "") -> str:
    """'largest relative difference …' between a live run and the shipped numbers of the same settings (`whose`: of which, in brackets)."""
    worst = max((abs(a - b) / abs(b) for a, b in pairs_of_numbers if a is not None and b not in (None, 0)), default=0.0)
    return (
        f"Against the precomputed numbers for the same settings{f' ({whose})' if whose else ''}: largest relative difference {worst:.2g} (the same seed on the "
        "same software and CPU gives the same numbers; another CPU or torch version may differ in the last digits)."
    )


def run_panel(configs: list, ready: bool) -> LabRun | None:
    """The synthetic tasks' run: Train, Stop, progress; the run once it is done."""

    def idle() -> None:
        st.info(
            "Nothing trained yet in this session: choose the schemes and press Train. A run of the defaults takes a few seconds per scheme.",
            icon=":material/science:",
        )

    problem = None if ready else "The settings above have a problem (said there)."  # the page says which, above
    return live_run(
        "lab", SYNTHETIC, configs, button="Train", go_key="lab_train", problem=problem, show_problem=False, idle=idle,
        note="Training in the background: other pages and other visitors are not held up. Leave the page open; closing the tab stops the run, "
        "or takes it out of the line.",
        columns=(1, 1, 4),
    )  # fmt: skip
