"""Two app replicas behind nginx with sticky sessions, under load, and one replica killed.

    python deploy/two_replicas.py [--sessions 12] [--seconds 60] [--kill-after 30] [--port 8080]

What it does, all on loopback:
1. starts two Streamlit servers of this checkout (replicas A and B) with one shared
   cookie secret (STREAMLIT_SERVER_COOKIE_SECRET, as the Kubernetes manifests set it);
2. starts nginx (Debian package) with deploy/nginx/sticky.conf.template: a routing cookie
   set on the first visit and `hash $cookie consistent`, so browser contexts spread over
   both replicas and each stays on its own;
3. runs the load test (python -m bench.load) through nginx, recording for every session
   which replica answered (an X-Upstream header this script adds to the template's configuration);
4. kills replica A with SIGKILL in the middle of the load;
5. checks: sessions on B carried on without a reconnection or an error; sessions on A lost
   their connection, reconnected through nginx to B (a fresh session there) and got their
   view back from the URL (same settings on screen and in the address bar).

Exit status 0 when all of that held. Needs nginx (apt-get install -y nginx), Chromium and
Playwright (as the browser tests). Not part of the test suite: CI has no nginx.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.pages import app_pages  # noqa: E402
from harness.server import Server, free_port, wait_healthy  # noqa: E402
from harness.nginx import render_nginx, stop_all  # noqa: E402
from harness.ws import warm_up  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python deploy/two_replicas.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=12)
    p.add_argument("--seconds", type=float, default=60, help="load duration once every session is open (default 60)")
    p.add_argument("--kill-after", type=float, help="seconds after every session is open to kill replica A (default: half of --seconds)")
    p.add_argument("--port", type=int, default=0, help="nginx port (default: a free one)")
    p.add_argument("--think", type=float, default=1.0)
    p.add_argument("--json", type=Path, default=ROOT / "artifacts" / "two-replicas.json")
    args = p.parse_args(argv)

    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if not nginx:
        print("nginx not found: apt-get install -y nginx", file=sys.stderr)
        return 2

    secret = secrets.token_hex(32)  # one cookie secret shared by the replicas
    prefix = Path(tempfile.mkdtemp(prefix="two-replicas-"))
    logs = ROOT / "artifacts"
    replicas = [Server(log=logs / f"replica-{name}.log", env={"STREAMLIT_SERVER_COOKIE_SECRET": secret}) for name in "AB"]
    nginx_proc = None
    try:
        for name, r in zip("AB", replicas):
            r.start()
            # every page run once, as on a replica that has been serving for a while
            warm_s = asyncio.run(warm_up(r.url, app_pages()))
            print(f"replica {name}: {r.url} pid {r.pid} (healthy after {r.start_s:.1f} s, every page run once in {warm_s:.1f} s)")
        listen = args.port or free_port()
        conf = render_nginx(prefix, logs, listen, replicas, upstream_header=True)
        check = subprocess.run([nginx, "-t", "-c", str(conf), "-p", str(prefix)], capture_output=True, text=True)
        if check.returncode:
            print(check.stderr, file=sys.stderr)
            return 1
        nginx_proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(prefix)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{listen}"
        wait_healthy(url, nginx_proc, timeout=30)
        print(f"nginx: {url} (config {conf})")

        ramp = min(10.0, args.seconds / 4)
        kill_after = args.kill_after if args.kill_after is not None else args.seconds / 2
        ready = prefix / "all-sessions-open"
        cmd = [
            sys.executable,
            "-m",
            "bench.load",
            "--url",
            url,
            "--sessions",
            str(args.sessions),
            "--seconds",
            str(args.seconds),
            "--ramp",
            str(ramp),
            "--think",
            str(args.think),
            "--backend-header",
            "X-Upstream",
            "--allow-reconnects",
            "--json",
            str(args.json),
            "--ready-file",
            str(ready),
        ]
        for r in replicas:
            cmd += ["--server-pid", str(r.pid)]
        print("load:", " ".join(cmd[1:]))
        load = subprocess.Popen(cmd, cwd=ROOT)

        killed_at: list[float] = []

        def kill_a() -> None:
            while not ready.exists():  # every session has its first page up
                if load.poll() is not None:
                    return
                time.sleep(0.2)
            deadline = time.monotonic() + kill_after
            while time.monotonic() < deadline:
                if load.poll() is not None:
                    return
                time.sleep(0.2)
            os.kill(replicas[0].pid, signal.SIGKILL)
            killed_at.append(time.monotonic())
            print(f"\n*** killed replica A (pid {replicas[0].pid}, {replicas[0].url}) {kill_after:.0f} s after every session was open ***\n", flush=True)

        t0 = time.monotonic()
        killer = threading.Thread(target=kill_a, daemon=True)
        killer.start()
        load.wait()
        killer.join(timeout=1)
        if not killed_at:
            print("the load ended before replica A was killed; use a longer --seconds", file=sys.stderr)
            return 1
        return verdict(json.loads(args.json.read_text()), replicas, killed_at[0] - t0)
    finally:
        stop_all(nginx_proc, replicas)
        shutil.rmtree(prefix, ignore_errors=True)


def verdict(report: dict, replicas: list[Server], killed_s: float) -> int:
    a, b = (f"127.0.0.1:{r.port}" for r in replicas)
    sessions = report["sessions"]
    on_a = [s for s in sessions if s["backends"] and s["backends"][0] == a]
    on_b = [s for s in sessions if s["backends"] and s["backends"][0] == b]
    other = [s for s in sessions if s not in on_a and s not in on_b]
    print("\n=== two replicas, replica A killed", f"{killed_s:.0f} s after the load started ===")
    print(f"sessions: {len(sessions)}; first served by A ({a}): {len(on_a)}, by B ({b}): {len(on_b)}, unknown: {len(other)}")
    problems = []
    if not on_a or not on_b:
        problems.append("the sessions did not spread over both replicas")
    for s in other:
        problems.append(f"session {s['index']} never reached a replica ({s['backends']}): {s['errors'][:2]}")
    for s in on_b:
        if s["recoveries"] or s["errors"]:
            problems.append(f"session {s['index']} on B was disturbed: {len(s['recoveries'])} reconnections, errors {s['errors'][:2]}")
    for s in on_a:
        recs = s["recoveries"]
        if not recs:
            problems.append(f"session {s['index']} on A never noticed that A died")
            continue
        rec = recs[0]
        ok = rec["view_restored"] and rec["backend_after"] == b and not s["errors"]
        took = f"{rec['seconds']:.1f} s" if rec["seconds"] is not None else "never"
        print(
            f"  session {s['index']:>2} (A): lost at {rec['at_s']:.1f} s, back on {rec['backend_after'] or '?'} after {took}, "
            f"view restored {rec['view_restored']}, redraws after: {sum(1 for _ in s['redraws_s'])} in total"
        )
        if not ok:
            problems.append(f"session {s['index']} on A: restored={rec['view_restored']}, now on {rec['backend_after']!r}, errors {s['errors'][:2]}")
    b_redraws = [x for s in on_b for x in s["redraws_s"]]
    print(
        f"sessions on B: {len(on_b)}, {len(b_redraws)} redraws, no reconnection: {all(not s['recoveries'] for s in on_b)}, no error: "
        f"{all(not s['errors'] for s in on_b)}"
    )
    print("RSS:", {moment: {k: (round(v) if v else v) for k, v in values.items()} for moment, values in report["memory"].items()})
    if problems:
        print("\nFAIL:\n  " + "\n  ".join(problems))
        return 1
    print("\nPASS: sessions on B carried on; every session on A reconnected to B and got its view back from the URL.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
