"""One Streamlit process, or one per core behind the sticky nginx configuration of deploy/, under
the websocket load (bench.load.ws): which should the image and the manifests run?

    python -m bench.load.procs --replicas 1 --sessions 40 --seconds 60
    python -m bench.load.procs --replicas 2 --sessions 40 --seconds 60

Starts the replicas (sharing one cookie secret, every page run once on each), nginx in front of
them when there are several (deploy/nginx/sticky.conf.template, as deploy/two_replicas.py
renders it), then runs `python -m bench.load.ws` through it with every replica's pid, so its
report has their CPU and RSS. Each websocket session is one connection, so nginx's hash on the
fresh routing key spreads the sessions over the replicas. Needs nginx for --replicas > 1.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.load.pages import ROOT, app_pages
from bench.load.server import Server, wait_healthy
from bench.load.ws import warm_up


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.load.procs", description=__doc__.split("\n\n")[0])
    p.add_argument("--replicas", type=int, default=2, help="Streamlit processes (default 2, one per core here)")
    p.add_argument("--sessions", type=int, default=40)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--port", type=int, default=8820, help="nginx's port; the replicas take the ones after it (default 8820)")
    p.add_argument("--p95-target", type=float, default=1.0)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    from deploy.two_replicas import render_nginx, stop_all

    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if args.replicas > 1 and nginx is None:
        print("--replicas above 1 needs nginx in front of the replicas: install it (Debian: apt-get install -y nginx) or pass --replicas 1")
        return 2
    secret = secrets.token_hex(32)
    logs = ROOT / "artifacts"
    replicas = [
        Server(port=args.port + 1 + i, log=logs / f"procs-replica-{i}.log", env={"STREAMLIT_SERVER_COOKIE_SECRET": secret}) for i in range(args.replicas)
    ]
    nginx_proc = None
    try:
        for r in replicas:
            r.start()
            asyncio.run(warm_up(r.url, app_pages()))
        url = replicas[0].url
        if args.replicas > 1:
            prefix = Path(tempfile.mkdtemp(prefix="procs-"))
            conf = render_nginx(prefix, logs, args.port, replicas)
            nginx_proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(prefix)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            url = f"http://127.0.0.1:{args.port}"
            wait_healthy(url, nginx_proc, timeout=30)
        cmd = [sys.executable, "-m", "bench.load.ws", "--url", url, "--sessions", str(args.sessions), "--seconds", str(args.seconds)]
        cmd += ["--p95-target", str(args.p95_target)] + [x for r in replicas for x in ("--server-pid", str(r.pid))]
        if args.json:
            cmd += ["--json", str(args.json)]
        print(f"{args.replicas} replica(s) behind {'nginx' if nginx_proc else 'nothing'}: {' '.join(cmd[2:])}", flush=True)
        return subprocess.run(cmd, cwd=ROOT).returncode
    finally:
        stop_all(nginx_proc, replicas)


if __name__ == "__main__":
    sys.exit(main())
