"""One Streamlit process, or several behind the sticky nginx configuration of deploy/, or the image's
own entrypoint, under the websocket load (bench.load.ws): which should the image and the manifests run?

    python -m bench.load.procs --replicas 1 --sessions 40 --seconds 60
    python -m bench.load.procs --replicas 2 --sessions 40 --seconds 60
    python -m bench.load.procs --entrypoint --sessions 40 --seconds 60 [--processes N] [-- --per-page 10]

--replicas: starts the replicas (sharing one cookie secret, every page run once on each), nginx in
front of them when there are several (deploy/nginx/sticky.conf.template, as deploy/two_replicas.py
renders it), then runs `python -m bench.load.ws` through it with every replica's pid, so its report
has their CPU and RSS. --entrypoint: runs deploy/image/entrypoint.sh on this machine, without a
container: the image's nginx and its one app process per core (or --processes), configured and
supervised exactly as in the image, on loopback; every app process gets every page run once, then
the same load goes through its nginx. Each websocket session is one connection with no routing
cookie, so nginx's hash on the fresh routing key spreads the sessions over the processes.
Arguments after `--` go to bench.load.ws (`--per-page 10`, `--cookie 'st_route=bench-{i}'`).
Needs nginx (Debian: apt-get install -y nginx) for more than one process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from harness.pages import ROOT, app_pages
from harness.server import Server, descendants, listening_pid, wait_healthy
from harness.ws import warm_up

ENTRYPOINT = ROOT / "deploy" / "image" / "entrypoint.sh"


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as err:
        return err.code


class Entrypoint:
    """deploy/image/entrypoint.sh on loopback: nginx on `port`, app processes on the ports after it."""

    def __init__(self, port: int, processes: int | None, log: Path) -> None:
        self.port, self.log = port, log
        self.processes = processes or int(subprocess.run(["sh", str(ENTRYPOINT), "--cores"], capture_output=True, text=True, check=True).stdout)
        self.url = f"http://127.0.0.1:{port}"
        self.app_urls = [f"http://127.0.0.1:{port + 1 + i}" for i in range(self.processes)]
        self.proc: subprocess.Popen | None = None

    def start(self) -> Entrypoint:
        env = {
            **os.environ, "PEE_PORT": str(self.port), "PEE_APP_PORT": str(self.port + 1), "PEE_PROCESSES": str(self.processes),
            "PEE_LISTEN": "127.0.0.1", "PEE_RUN_DIR": tempfile.mkdtemp(prefix="procs-entrypoint-"), "PEE_STREAMLIT": f"{sys.executable} -m streamlit",
        }  # fmt: skip
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(["sh", str(ENTRYPOINT)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        for url in [self.url, *self.app_urls]:
            wait_healthy(url, self.proc)
        return self

    def app_pids(self) -> list[int]:
        return [pid for url in self.app_urls if (pid := listening_pid(url))]

    def proxy_pids(self) -> list[int]:
        master = listening_pid(self.url)
        return [master, *descendants(master)] if master else []

    def metrics_status(self) -> tuple[int, int]:
        """HTTP status of GET /_stcore/metrics through the image's nginx, and from its first app process."""
        return status(self.url + "/_stcore/metrics"), status(self.app_urls[0] + "/_stcore/metrics")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ours, ws_args = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    p = argparse.ArgumentParser(prog="python -m bench.load.procs", description=__doc__.split("\n\n")[0])
    p.add_argument("--replicas", type=int, default=2, help="Streamlit processes (default 2, one per core here)")
    p.add_argument("--entrypoint", action="store_true", help="run the image's entrypoint (nginx and one process per core) instead of --replicas")
    p.add_argument("--processes", type=int, help="with --entrypoint: how many app processes (default: the entrypoint's own count, one per core)")
    p.add_argument("--sessions", type=int, default=40)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--port", type=int, default=8820, help="nginx's port; the replicas take the ones after it (default 8820)")
    p.add_argument("--p95-target", type=float, default=1.0)
    p.add_argument("--json", type=Path)
    args = p.parse_args(ours)
    from harness.nginx import render_nginx, stop_all

    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if (args.entrypoint or args.replicas > 1) and nginx is None:
        print("more than one process needs nginx in front of them: install it (Debian: apt-get install -y nginx) or pass --replicas 1")
        return 2
    logs = ROOT / "artifacts"
    replicas: list[Server] = []
    nginx_proc = entry = None
    proxy_pids: list[int] = []
    try:
        if args.entrypoint:
            entry = Entrypoint(args.port, args.processes, logs / "procs-entrypoint.log").start()
            for url in entry.app_urls:
                asyncio.run(warm_up(url, app_pages()))
            url, pids, proxy_pids = entry.url, entry.app_pids(), entry.proxy_pids()
            proxied, direct = entry.metrics_status()
            what = f"the image's entrypoint: {entry.processes} app process(es) behind its nginx (/_stcore/metrics: {proxied} via nginx, {direct} direct)"
        else:
            secret = secrets.token_hex(32)
            replicas = [
                Server(port=args.port + 1 + i, log=logs / f"procs-replica-{i}.log", env={"STREAMLIT_SERVER_COOKIE_SECRET": secret})
                for i in range(args.replicas)
            ]
            for r in replicas:
                r.start()
                asyncio.run(warm_up(r.url, app_pages()))
            url, pids = replicas[0].url, [r.pid for r in replicas]
            if args.replicas > 1:
                prefix = Path(tempfile.mkdtemp(prefix="procs-"))
                conf = render_nginx(prefix, logs, args.port, replicas, upstream_header=True)
                nginx_proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(prefix)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
                url = f"http://127.0.0.1:{args.port}"
                wait_healthy(url, nginx_proc, timeout=30)
                proxy_pids = [nginx_proc.pid, *descendants(nginx_proc.pid)]
            what = f"{args.replicas} replica(s) behind {'nginx' if nginx_proc else 'nothing'}"
        time.sleep(1)
        cmd = [sys.executable, "-m", "bench.load.ws", "--url", url, "--sessions", str(args.sessions), "--seconds", str(args.seconds)]
        cmd += ["--p95-target", str(args.p95_target)] + [x for pid in pids for x in ("--server-pid", str(pid))]
        cmd += [x for pid in proxy_pids for x in ("--proxy-pid", str(pid))]
        app_urls = entry.app_urls if entry is not None else [r.url for r in replicas]
        cmd += [x for u in app_urls if u != url for x in ("--warm-url", u)]  # each process behind the proxy keeps a session, so keeps its compiled pages
        if args.json:
            cmd += ["--json", str(args.json)]
        cmd += ws_args
        print(f"{what}: {' '.join(cmd[2:])}", flush=True)
        return subprocess.run(cmd, cwd=ROOT).returncode
    finally:
        stop_all(nginx_proc, replicas)
        if entry is not None:
            entry.stop()


if __name__ == "__main__":
    sys.exit(main())
