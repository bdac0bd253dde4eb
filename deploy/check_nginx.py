"""What the nginx configuration keeps from the public, checked on loopback (issue 16).

    python deploy/check_nginx.py [--port 8802]

Starts one app server of this checkout and nginx in front of it with
deploy/nginx/sticky.conf.template (as deploy/two_replicas.py renders it), then asks both:

- /_stcore/health answers `ok` through nginx, and a page runs over the websocket through it; nginx
  names no version (Server: nginx) and no header names the replica that answered;
- /_stcore/metrics answers 200 from the app itself (Streamlit 1.67 has no option to turn it off)
  and 404 through nginx, also spelled /_stcore//metrics or /_stcore/%6detrics;
- uploads are rate-limited per client: `--uploads` PUTs to /_stcore/upload_file/... in a row,
  as fast as one client can send them; those within the burst reach the app (which refuses
  them itself: they carry no XSRF token, 403), the rest get 429 from nginx.

Prints one line per check and a JSON record; exit status 0 when every check held. Needs nginx
(apt-get install -y nginx).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.pages import pages_named  # noqa: E402
from harness.server import Server, wait_healthy  # noqa: E402
from harness.ws import warm_up  # noqa: E402

TEMPLATE = ROOT / "deploy" / "nginx" / "sticky.conf.template"
BURST = 6  # the template's `limit_req zone=uploads burst=6 nodelay`: one request at the rate, then the burst


def nginx_binary() -> str | None:
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def status(url: str, method: str = "GET", data: bytes | None = None) -> int:
    return response(url, method, data)[0]


def response(url: str, method: str = "GET", data: bytes | None = None) -> tuple[int, dict[str, str]]:
    """The status and headers of one request."""
    request = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers)
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers)


def render(prefix: Path, listen: int, app_port: int) -> Path:
    text = (
        TEMPLATE.read_text()
        .replace("{{PREFIX}}", str(prefix))
        .replace("{{LOGS}}", str(prefix))
        .replace("{{LISTEN}}", f"127.0.0.1:{listen}")
        .replace("{{SERVERS}}", f"        server 127.0.0.1:{app_port};")
        .replace("{{REAL_IP_FROM}}", "")  # no trusted proxy: the limit keys on the connection's address
    )
    conf = prefix / "nginx.conf"
    conf.write_text(text)
    return conf


def check(nginx: str, listen: int, app_port: int, uploads: int = 20) -> dict:
    """Run the checks; a record of what was seen, with `ok` True when every check held."""
    prefix = Path(tempfile.mkdtemp(prefix="check-nginx-"))
    server = Server(port=app_port, log=ROOT / "artifacts" / "check-nginx-app.log")
    proc = None
    try:
        server.start()
        conf = render(prefix, listen, app_port)
        syntax = subprocess.run([nginx, "-t", "-c", str(conf), "-p", str(prefix)], capture_output=True, text=True)
        if syntax.returncode:
            return {"ok": False, "nginx -t": syntax.stderr}
        proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(prefix)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        proxy = f"http://127.0.0.1:{listen}"
        wait_healthy(proxy, proc, timeout=30)
        _, headers = response(f"{proxy}/_stcore/health")
        seen = {
            "health through nginx": status(f"{proxy}/_stcore/health"),
            "Server header through nginx": headers.get("Server"),
            "headers naming the replica": sorted(h for h in headers if h.lower() == "x-upstream"),
            "a page run over the websocket through nginx, s": round(asyncio.run(warm_up(proxy, pages_named("sinusoidal"))), 2),
            "metrics from the app": status(f"{server.url}/_stcore/metrics"),
            "metrics through nginx": status(f"{proxy}/_stcore/metrics"),
            "metrics through nginx, //": status(f"{proxy}/_stcore//metrics"),
            "metrics through nginx, %6d": status(f"{proxy}/_stcore/%6detrics"),
            "metrics through nginx, query": status(f"{proxy}/_stcore/metrics?families=cache_memory_bytes"),
        }
        flood = [status(f"{proxy}/_stcore/upload_file/s/f{i}", "PUT", b"x" * 1024) for i in range(uploads)]
        seen["upload statuses"] = flood
        passed = [s for s in flood if s != 429]
        seen["ok"] = (
            seen["health through nginx"] == 200
            and seen["Server header through nginx"] == "nginx"  # server_tokens off: no version
            and not seen["headers naming the replica"]
            and seen["metrics from the app"] == 200
            and all(seen[k] == 404 for k in seen if k.startswith("metrics through nginx"))
            and 429 not in flood[: BURST + 1]
            and len(passed) <= BURST + 2  # the burst, the first at the rate, and one more if a 5 s tick passed
            and flood[-1] == 429
        )
        return seen
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=15)
        server.stop()
        shutil.rmtree(prefix, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python deploy/check_nginx.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=8802, help="nginx's port (default 8802)")
    p.add_argument("--app-port", type=int, default=8801, help="the app server's port (default 8801)")
    p.add_argument("--uploads", type=int, default=20)
    args = p.parse_args(argv)
    nginx = nginx_binary()
    if not nginx:
        print("nginx not found: apt-get install -y nginx", file=sys.stderr)
        return 2
    seen = check(nginx, args.port, args.app_port, args.uploads)
    for key, value in seen.items():
        print(f"{key}: {value}")
    print(json.dumps(seen))
    return 0 if seen.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
