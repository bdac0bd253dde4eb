"""nginx in front of app processes, as deploy/nginx/sticky.conf.template configures it (each visitor kept on
one process): its configuration written for a set of running servers, and everything stopped in order."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from harness.pages import ROOT
from harness.server import Server

TEMPLATE = ROOT / "deploy" / "nginx" / "sticky.conf.template"
ANCHOR = "        add_header Set-Cookie $route_cookie always;\n"
UPSTREAM_HEADER = "        add_header X-Upstream $upstream_addr always;\n"  # not in the template: a public client could pick replicas with it


def render_nginx(prefix: Path, logs: Path, listen: int, replicas: list[Server], *, upstream_header: bool = False) -> Path:
    """The template for these replicas on loopback, trusting no proxy. `upstream_header` adds X-Upstream, naming the replica that
    answered, for a load test to record: never in the image, where a client could pick replicas with it."""
    servers = "\n".join(f"        server 127.0.0.1:{r.port} max_fails=3 fail_timeout=10s;" for r in replicas)
    text = (
        TEMPLATE.read_text()
        .replace("{{PREFIX}}", str(prefix))
        .replace("{{LOGS}}", str(logs))
        .replace("{{LISTEN}}", f"127.0.0.1:{listen}")
        .replace("{{SERVERS}}", servers)
        .replace("{{REAL_IP_FROM}}", "")
    )
    if upstream_header:
        if ANCHOR not in text:
            raise RuntimeError("the template's Set-Cookie line moved: X-Upstream has nowhere to go")
        text = text.replace(ANCHOR, ANCHOR + UPSTREAM_HEADER, 1)
    conf = prefix / "nginx.conf"
    conf.write_text(text)
    return conf


def stop_all(nginx_proc: subprocess.Popen | None, replicas: list[Server]) -> None:
    """Stop nginx gracefully (SIGQUIT; killed after 10 s) if it still runs, then every replica."""
    if nginx_proc and nginx_proc.poll() is None:
        nginx_proc.send_signal(signal.SIGQUIT)
        try:
            nginx_proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            nginx_proc.kill()
    for r in replicas:
        r.stop()
