"""The server side of every run from outside (tests, benchmarks, deploy proofs): start a Streamlit server, find the process that serves a
URL, and read its resident memory (RSS) from /proc."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

from harness.pages import ROOT


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/_stcore/health", timeout=timeout) as resp:
            return resp.read().decode().strip() == "ok"
    except OSError:
        return False


def wait_healthy(url: str, proc: subprocess.Popen | None = None, timeout: float = 120.0) -> float:
    """Seconds until GET /_stcore/health answers ok; raises if the server exits or never answers."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}")
        if healthy(url):
            return time.monotonic() - start
        time.sleep(0.25)
    raise RuntimeError(f"{url}/_stcore/health did not answer ok within {timeout:.0f} s")


class Server:
    """`streamlit run app.py` on 127.0.0.1:port, as the e2e tests start it, with its log in a file."""

    def __init__(
        self,
        port: int | None = None,
        log: Path | None = None,
        extra: list[str] | None = None,
        env: dict[str, str] | None = None,
        script: str = "app.py",
        root: Path | None = None,
    ) -> None:
        self.script = script  # relative to the repository root (bench/minimal_app.py for the reference page)
        self.root = root or ROOT  # the checkout to serve (another one: the app before a change, for a benchmark)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log or ROOT / "artifacts" / f"load-server-{self.port}.log"
        self.extra = extra or []
        self.env = env  # added to this process's environment (e.g. STREAMLIT_SERVER_COOKIE_SECRET)
        self.proc: subprocess.Popen | None = None
        self.start_s = 0.0

    def start(self) -> Server:
        """Start the server (again, after `stop`, on the same port: the log goes on) and wait until it is healthy."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "a" if self.proc is not None else "w")
        cmd = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            self.script,
            "--server.headless",
            "true",
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
            *self.extra,
        ]
        env = {**os.environ, **self.env} if self.env else None
        self.proc = subprocess.Popen(cmd, cwd=self.root, stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        self.start_s = wait_healthy(self.url, self.proc)
        return self

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server with `sig` (SIGKILL: as if the process died), waiting up to 15 s before killing it."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def rss_mb(pid: int) -> float | None:
    """Resident set size of a process, in MB (10^6 bytes), or None if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / 1e6
    except OSError:
        return None
    return None


def listening_pid(url: str) -> int | None:
    """The process listening on the URL's TCP port on this machine (Linux /proc), if any.
    Behind a proxy this is the proxy; pass the app servers' pids to the load test instead."""
    parsed = urlparse(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:  # 0A = LISTEN
                inodes.add(f"socket:[{inode}]")
    if not inodes:
        return None
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{entry}/fd"):
                if os.readlink(f"/proc/{entry}/fd/{fd}") in inodes:
                    return int(entry)
        except OSError:
            continue
    return None


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages and its core count, as `uptime` shows them."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time a process has used so far, in seconds (None if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def settled(pids: list[int], below: float = 0.05, window: float = 0.5, longest: float = 60.0) -> float:
    """Wait until the server processes `pids` together use less than `below` of a core over `window`
    seconds, at most `longest` seconds; returns the seconds waited. A warm-up's page runs can start
    work that outlives them: /lab starts importing torch in a thread (core.lab.entry.warm_model:
    about 3 CPU-seconds, once per process), which would otherwise land in the first figures taken."""
    start = time.monotonic()
    while time.monotonic() - start < longest:
        before = sum(cpu_seconds(pid) or 0.0 for pid in pids)
        await asyncio.sleep(window)
        if sum(cpu_seconds(pid) or 0.0 for pid in pids) - before < below * window:
            break
    return time.monotonic() - start


def descendants(root: int) -> list[int]:
    """Every living process below `root` (children, grandchildren, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class CpuMeter:
    """CPU time used between start() and stop(): by the app server(s), and by this process's
    descendants other than the servers (the browser: Playwright's driver and Chromium).
    A process that exits in between takes its share with it, so the browser figure is a floor."""

    def __init__(self, server_pids: list[int]) -> None:
        self.server_pids = server_pids
        self.before: dict[int, float] = {}
        self.t0 = 0.0

    def _sample(self) -> dict[int, float]:
        pids = set(descendants(os.getpid())) | set(self.server_pids)
        return {pid: t for pid in pids if (t := cpu_seconds(pid)) is not None}

    def start(self) -> None:
        self.before, self.t0 = self._sample(), time.monotonic()

    def stop(self) -> dict[str, float]:
        after, wall = self._sample(), time.monotonic() - self.t0
        used = {pid: after[pid] - self.before.get(pid, 0.0) for pid in after}
        server = sum(v for pid, v in used.items() if pid in self.server_pids)
        browser = sum(v for pid, v in used.items() if pid not in self.server_pids)
        return {"wall_s": wall, "server_cores": server / wall, "browser_cores": browser / wall, "cores": float(os.cpu_count() or 1)}


def server_under_test(url: str | None, server_pids: list[int], server_args: list[str], say=lambda line: None) -> tuple[Server | None, str, list[int]]:
    """The server a load script drives: the one already answering at `url` (its pids as given,
    or the process listening on its port), or a fresh one started here with `server_args`.
    Returns (the started Server or None, its base URL, the pids whose memory and CPU to read)."""
    if url:
        base_url = url.rstrip("/")
        if not healthy(base_url, timeout=10):
            raise SystemExit(f"{base_url}/_stcore/health does not answer ok")
        return None, base_url, server_pids or [pid for pid in [listening_pid(base_url)] if pid]
    say("starting a server ...")
    server = Server(extra=server_args).start()
    say(f"  {server.url} healthy after {server.start_s:.1f} s (log: {server.log_path})")
    return server, server.url, [server.pid]
