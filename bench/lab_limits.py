"""The lab's limits, measured: how fast a run stops in every phase, and what the
server's memory peaks at with two of the largest runs the budget allows plus full caches.

    python -m bench.lab_limits worst             # the allowed configs with the longest step, pass, most memory
    python -m bench.lab_limits stops [--json P]  # seconds from Stop (or a closed tab) to the run's end, per phase
    python -m bench.lab_limits memory [--settings 70 --uploads 16 --json P]   # a server's peak RSS

`worst` searches the grid of the lab's controls for the configurations `core.lab.config.over_budget`
accepts whose estimated training step, evaluation pass or memory is largest.

`stops` runs, in this process and the way the page does (a LabRun holding one of the server's
trainer slots, its tab checked every `alive_every` = 1 s), each phase a run can be in and stops it
there: waiting for torch to load (the first runs of a fresh process), waiting for a slot, building
the model, training the config with the longest step, evaluating the config with the longest pass;
by Stop, and by the tab going away. It reports the seconds from the stop to the
run's end (its thread done, its slot free) and the load average. Target: 2 s in every phase.

`memory` starts a server of this checkout (port 8801, .streamlit/config.toml as deployed) and, over
Streamlit's websocket as a browser would: opens every page at `--settings` distinct shared
settings (every cache keyed by them full: the largest max_entries is 64), uploads `--uploads`
distinct tables of the largest size the model page reads (4096 x 1024 float32 .npy, 16 MB) and
draws each, then presses Train in two sessions on the allowed config that needs the most memory
(two seeds, so neither is a cached result) and waits for both to finish. The server's RSS is
sampled every 0.25 s; its peak (VmHWM) is the number to compare with the manifest's limit
(deploy/k8s/deployment.yaml).
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import itertools
import json
import sys
import threading
import time
import urllib.request
import uuid
from dataclasses import asdict, replace
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

from core.lab.config import LIMITS, MAX_EVAL_FACTOR, RUN_SECONDS, LabConfig, estimate, over_budget
from core.lab import entry
from core.lab.labrun import LabRun
from core.lab.trainers import Trainers
from core.schemes.registry import SCHEMES

ROOT = Path(__file__).resolve().parents[1]
STOP_TARGET_S = 2.0
MB = 2**20


# --- the worst allowed configurations ---------------------------------------------------------


def allowed_grid():
    """Every config on a grid of the lab's controls (one scheme, 1 step) that the budget accepts."""
    for scheme, d, heads, layers, train_len, batch in itertools.product(
        SCHEMES, [16, 32, 64, 128, 256], [1, 2, 4, 8, 16], range(1, LIMITS["n_layers"] + 1), [16, 32, 64, 128, 256], [8, 16, 32, 64, 128, 256]
    ):
        for lens in ((train_len,), tuple(k * train_len for k in range(1, MAX_EVAL_FACTOR + 1))):
            try:
                config = LabConfig(scheme=scheme, d_model=d, n_heads=heads, n_layers=layers, train_len=train_len, batch=batch, eval_lens=lens, steps=1)
            except ValueError:
                continue
            if over_budget([config]) is None:
                yield config


def worst() -> dict[str, LabConfig]:
    """The allowed configs with the longest training step, the longest evaluation pass, and the most memory."""
    best: dict[str, tuple[float, LabConfig]] = {}
    for config in allowed_grid():
        e = estimate(config)
        for name, value in (("step", e.step_s), ("pass", e.pass_s), ("memory", e.peak_bytes)):
            if name not in best or value > best[name][0]:
                best[name] = (value, config)
    return {name: config for name, (_, config) in best.items()}


def with_seconds(config: LabConfig, seconds: float) -> LabConfig:
    """The config with as many steps as fit in `seconds` of estimated run time (at least 1), within the budget."""
    e = estimate(config)
    steps = int(max(1, min(LIMITS["steps"], (min(seconds, RUN_SECONDS) - e.eval_s) / max(e.step_s, 1e-9))))
    while steps > 1 and over_budget([replace(config, steps=steps)]):
        steps = int(steps * 0.9)
    return replace(config, steps=steps)


def describe(config: LabConfig) -> dict:
    e = estimate(config)
    fields = {k: v for k, v in asdict(config).items() if k in ("scheme", "task", "train_len", "eval_lens", "steps", "batch", "d_model", "n_heads", "n_layers")}
    seconds = {"est_step_s": round(e.step_s, 3), "est_pass_s": round(e.pass_s, 3), "est_total_s": round(e.seconds, 1)}
    return {**fields, **seconds, "est_peak_mb": round(e.peak_bytes / MB)}


# --- stops ------------------------------------------------------------------------------------


def _wait_for(condition, timeout: float = 600.0, every: float = 0.01) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(every)
    return False


def stop_in(phase: str, config: LabConfig, by: str) -> dict:
    """Start `config` as the page does, bring it to `phase`, stop it `by` Stop or a closed tab; seconds to its end."""
    slots = Trainers(1)
    alive = threading.Event()
    alive.set()
    held = slots.join() if phase == "waiting" else None  # another run holds the only slot
    if held is not None:
        assert slots.wait_turn(held)
    run = LabRun([config], alive=alive.is_set, alive_every=1.0, slots=slots).start()
    p = run.progress[0]
    if phase == "waiting":
        time.sleep(1.0)
    elif phase == "loading":
        _wait_for(lambda: p.state == "loading" or run.done)
        time.sleep(0.5)
    elif phase == "building":
        _wait_for(lambda: p.state == "training" or run.done)
    elif phase == "training":
        _wait_for(lambda: p.step >= 2 or run.done)
    elif phase == "evaluating":
        _wait_for(lambda: p.step >= config.steps or run.done)
        time.sleep(0.3)
    assert not run.done, f"the run ended before it could be stopped while {phase}: {p.state} {p.message}"
    state_at_stop = p.state
    start = time.monotonic()
    if by == "Stop":
        run.stop()
    else:
        alive.clear()
    run.wait(600)
    seconds = time.monotonic() - start
    if held is not None:
        slots.release(held)
    return {"phase": phase, "by": by, "seconds": round(seconds, 3), "state at stop": state_at_stop, "state after": p.state}


def stops() -> dict:
    assert not entry.model_loaded(), "stops measures the first run of a fresh process: torch must not be loaded yet"
    start = time.monotonic()
    results = []
    for by in ("Stop", "tab closed"):  # the first runs of a process wait for torch: stopped while it loads
        r = stop_in("loading", LabConfig(steps=50), by)
        r["config"] = describe(LabConfig(steps=50))
        results.append(r)
        print(f"{'loading':>10} / {by:<10}: {r['seconds']:.2f} s (state {r['state at stop']} -> {r['state after']})", flush=True)
    entry.warm_model().wait()
    import_s = round(time.monotonic() - start, 2)
    print(f"torch and the lab's model imported in {import_s} s (once per process, in its own thread)", flush=True)
    w = worst()
    step_config = with_seconds(w["step"], RUN_SECONDS / 2)  # a run the budget allows (a refused one never starts)
    pass_config = replace(w["pass"], steps=2)
    cases = [
        ("waiting", LabConfig(steps=50)),
        ("building", step_config),
        ("training", step_config),
        ("evaluating", pass_config),
    ]
    for phase, config in cases:
        for by in ("Stop", "tab closed"):
            r = stop_in(phase, config, by)
            r["config"] = describe(config)
            results.append(r)
            print(f"{phase:>10} / {by:<10}: {r['seconds']:.2f} s (state {r['state at stop']} -> {r['state after']})", flush=True)
    worst_s = max(r["seconds"] for r in results)
    return {"target_s": STOP_TARGET_S, "worst_s": worst_s, "met": worst_s <= STOP_TARGET_S, "import_s": import_s, "cases": results, "load_average": _load()}


def _load() -> list[float]:
    import os

    return [round(x, 2) for x in os.getloadavg()]


# --- memory -----------------------------------------------------------------------------------


class Rss:
    """The server's RSS sampled in a thread; VmHWM (the kernel's peak) read on demand."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        self.pid, self.every, self.peak, self._stop = pid, every, 0, threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def field(self, name: str) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(name + ":"):
                return int(line.split()[1]) * 1024
        return 0

    def now(self) -> int:
        return self.field("VmRSS")

    def _sample(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, self.now())
            except OSError:
                return
            time.sleep(self.every)

    def close(self) -> None:
        self._stop.set()


class Session:
    """One browser session over the wire: cookie (XSRF), websocket, reruns, uploads."""

    def __init__(self, base: str) -> None:
        self.base, self.jar = base, http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.http.open(f"{base}/_stcore/health").read()
        self.xsrf = next((c.value for c in self.jar if c.name == "_streamlit_xsrf"), "")
        self.ws, self.session_id, self.widgets, self.buttons = None, "", {}, {}

    async def open(self) -> Session:
        import websockets

        cookie = "; ".join(f"{c.name}={c.value}" for c in self.jar)
        url = self.base.replace("http", "ws", 1) + "/_stcore/stream"
        self.ws = await websockets.connect(url, subprotocols=["streamlit"], origin=self.base, max_size=None, additional_headers={"Cookie": cookie})
        return self

    async def run(self, page: str, query: str = "", states=None, timeout: float = 600.0) -> int:
        """Run `page`; the widget ids (by key) and buttons' disabled flags of what it drew are kept. Exceptions drawn."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_name = page
        if states:
            msg.rerun_script.widget_states.widgets.extend(states)
        await self.ws.send(msg.SerializeToString())
        exceptions = 0
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(await asyncio.wait_for(self.ws.recv(), timeout=timeout))
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                etype = element.WhichOneof("type")
                exceptions += etype == "exception"
                inner = getattr(element, etype) if etype else None
                wid = getattr(inner, "id", "") if inner is not None else ""
                if wid.startswith("$$ID-"):
                    key = wid.split("-", 2)[-1]
                    self.widgets[key] = wid
                    if etype == "button":
                        self.buttons[key] = inner.disabled
            elif kind == "script_finished":
                return exceptions

    def put(self, data: bytes, name: str) -> str:
        """Upload `data` as the file uploader does; the file id."""
        file_id, boundary = str(uuid.uuid4()), uuid.uuid4().hex
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
            + data
            + f"\r\n--{boundary}--\r\n".encode()
        )
        request = urllib.request.Request(
            f"{self.base}/_stcore/upload_file/{self.session_id}/{file_id}",
            data=body,
            method="PUT",
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": self.xsrf},
        )
        with self.http.open(request, timeout=120) as response:
            assert response.status == 204, response.status
        return file_id

    async def close(self) -> None:
        await self.ws.close()


def _settings(n: int, seed: int = 7) -> list[dict[str, str]]:
    from bench.load.browser import distinct_settings

    return distinct_settings(n, seed)


def _pages() -> list[str]:
    from harness.pages import app_pages

    return [p.url_path for p in app_pages()]


def _uploader_state(widget_id: str, file_id: str, name: str, size: int):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    state = WidgetState(id=widget_id)
    info = state.file_uploader_state_value.uploaded_file_info.add()
    info.file_id, info.name, info.size = file_id, name, size
    return state


def _trigger(widget_id: str):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    return WidgetState(id=widget_id, trigger_value=True)


def lab_query(config: LabConfig, seed: int) -> str:
    return urlencode(
        {
            "lab_schemes": config.scheme,
            "lab_task": config.task,
            "lab_train_len": config.train_len,
            "lab_eval_lens": ",".join(map(str, config.eval_lens)),
            "lab_steps": config.steps,
            "lab_seed": seed,
            "lab_d_model": config.d_model,
            "lab_heads": config.n_heads,
            "lab_layers": config.n_layers,
            "lab_batch": config.batch,
        }
    )


async def fill_and_train(base: str, rss: Rss, settings: int, uploads: int, config: LabConfig, parallel: int) -> dict:
    record: dict = {"rss_mb": {}}

    def mark(name: str) -> None:
        record["rss_mb"][name] = round(rss.now() / MB)
        print(f"{name}: RSS {record['rss_mb'][name]} MB (peak so far {rss.peak / MB:.0f} MB)", flush=True)

    pages = _pages()
    errors = 0
    warm = await Session(base).open()
    for page in pages:
        errors += await warm.run(page)
    await warm.close()
    mark("every page run once")

    queue = list(_settings(settings))
    done = 0

    async def sweeper() -> None:
        nonlocal errors, done
        while queue:
            setting = queue.pop()
            s = await Session(base).open()
            for page in pages:
                errors += await s.run(page, urlencode(setting))
            await s.close()
            done += 1
            if done % 10 == 0:
                mark(f"{done} settings x {len(pages)} pages")

    t = time.monotonic()
    await asyncio.gather(*(sweeper() for _ in range(parallel)))
    record["sweep_s"] = round(time.monotonic() - t)
    mark(f"{settings} settings x {len(pages)} pages")

    rng = np.random.default_rng(0)
    t = time.monotonic()
    for i in range(uploads):
        table = rng.standard_normal((4096, 1024), dtype=np.float32)
        buffer = __import__("io").BytesIO()
        np.save(buffer, table)
        data = buffer.getvalue()
        s = await Session(base).open()
        errors += await s.run("model", "source=upload")
        name = f"table{i}.npy"
        file_id = s.put(data, name)
        errors += await s.run("model", "source=upload", [_uploader_state(s.widgets["checkpoint"], file_id, name, len(data))])
        await s.close()
    record["uploads_s"] = round(time.monotonic() - t)
    mark(f"{uploads} uploads of 4096 x 1024 drawn")

    labs = [await Session(base).open() for _ in range(2)]
    for seed, s in enumerate(labs, start=1):
        errors += await s.run("lab", lab_query(config, seed))
        errors += await s.run("lab", lab_query(config, seed), [_trigger(s.widgets["lab_train"])])
    t = time.monotonic()
    mark("two lab runs started")
    running = True
    while running:
        await asyncio.sleep(5)
        running = False
        for seed, s in enumerate(labs, start=1):
            errors += await s.run("lab", lab_query(config, seed))
            running |= s.buttons.get("lab_stop") is False  # Stop is enabled while the run goes on
        print(f"  lab runs going: {running}, {time.monotonic() - t:.0f} s, RSS {rss.now() / MB:.0f} MB, peak {rss.peak / MB:.0f} MB", flush=True)
    record["lab_s"] = round(time.monotonic() - t)
    mark("both lab runs done")
    for s in labs:
        await s.close()
    record["exceptions drawn"] = errors
    return record


def memory(settings: int, uploads: int, lab_seconds: float, port: int, parallel: int) -> dict:
    from harness.server import Server, load_average

    config = with_seconds(worst()["memory"], lab_seconds)
    print(f"lab config: {describe(config)}", flush=True)
    limit = deployment_limit_mb()
    with Server(port=port, log=ROOT / "artifacts" / "lab-limits-server.log") as server:
        rss = Rss(server.pid)
        try:
            record = asyncio.run(fill_and_train(server.url, rss, settings, uploads, config, parallel))
        finally:
            rss.close()
        record["peak_rss_mb"] = round(max(rss.peak, rss.field("VmHWM")) / MB)
    record.update({"lab config": describe(config), "settings": settings, "uploads": uploads, "manifest_limit_mb": limit, "load_average": load_average()})
    record["below_limit"] = record["peak_rss_mb"] < limit
    print(f"peak RSS {record['peak_rss_mb']} MB; the manifest's limit {limit} MB", flush=True)
    return record


def deployment_limit_mb() -> int:
    """The memory limit in deploy/k8s/deployment.yaml, in MiB."""
    text = (ROOT / "deploy" / "k8s" / "deployment.yaml").read_text()
    limits = text[text.index("limits:") :]
    value = limits[limits.index("memory:") + len("memory:") :].split()[0]
    return int(value.removesuffix("Mi")) if value.endswith("Mi") else int(float(value.removesuffix("Gi")) * 1024)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.lab_limits", description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=["worst", "stops", "memory"])
    p.add_argument("--settings", type=int, default=70, help="distinct shared settings every page is opened at (memory)")
    p.add_argument("--uploads", type=int, default=16, help="distinct maximal uploads drawn on the model page (memory)")
    p.add_argument("--lab-seconds", type=float, default=60.0, help="estimated seconds of each of the two lab runs (memory)")
    p.add_argument("--parallel", type=int, default=2, help="sessions sweeping at once (memory)")
    p.add_argument("--port", type=int, default=8801)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if args.what == "worst":
        report = {name: describe(config) for name, config in worst().items()}
        for name, value in report.items():
            print(f"{name}: {value}")
    elif args.what == "stops":
        report = stops()
        print(f"worst: {report['worst_s']:.2f} s (target {STOP_TARGET_S} s): {'met' if report['met'] else 'NOT met'}")
    else:
        report = memory(args.settings, args.uploads, args.lab_seconds, args.port, args.parallel)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2, default=str))
    return 0 if report.get("met", True) and report.get("below_limit", True) else 1


if __name__ == "__main__":
    sys.exit(main())
