"""nginx in front of app processes, as deploy/nginx/sticky.conf.template configures it (each visitor kept on
one process): its configuration written for a set of running servers, and everything stopped in order."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from harness.pages import ROOT
from harness.server import Server

TEMPLATE = ROOT / "deploy" / "nginx" / "sticky.conf.template"


def render_nginx(prefix: Path, logs: Path, listen: int, replicas: list[Server]) -> Path:
    servers = "\n".join(f"        server 127.0.0.1:{r.port} max_fails=3 fail_timeout=10s;" for r in replicas)
    text = (
        TEMPLATE.read_text()
        .replace("{{PREFIX}}", str(prefix))
        .replace("{{LOGS}}", str(logs))
        .replace("{{LISTEN}}", f"127.0.0.1:{listen}")
        .replace("{{SERVERS}}", servers)
    )
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
