"""Start nginx in front of the image's app processes, configured from deploy/nginx/sticky.conf.template.

    python deploy/image/nginx.py --listen 0.0.0.0:8501 --app-ports 8511 8512 [--run-dir DIR] [--access-log FILE]
        [--trusted-proxies "10.0.0.0/8 192.168.1.7"] [--print]

deploy/image/entrypoint.sh runs this; it becomes nginx (exec), so its pid is nginx's. The
configuration and nginx's pid file are kept in memory (memfd files, which nginx opens through
/proc/self/fd), so nothing is written outside RUN_DIR's scratch folders, which nginx only uses for
request bodies it has to buffer: the image then also starts on a read-only file system, as the
container check mounts it, once the Dockerfile has made those folders. Errors go to stderr; no
access log unless --access-log names a file. --trusted-proxies (default: the environment's
PEE_TRUSTED_PROXIES; none) lists the addresses or CIDR ranges of the proxies in front whose
X-Forwarded-For nginx believes: the client address the upload limit keys on (docs/deploy.md). When it stops, nginx cannot delete its pid file and
says so in one line ("unlink() "/proc/self/fd/N" failed"): harmless. `--print` prints the
configuration instead of starting nginx.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import shutil
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[1] / "nginx" / "sticky.conf.template"


def trusted_proxies(text: str) -> list[str]:
    """The addresses and CIDR ranges in `text` (separated by spaces or commas), each checked and
    written as nginx reads it; a ValueError names the first that is neither."""
    out = []
    for word in text.replace(",", " ").split():
        try:
            out.append(str(ipaddress.ip_network(word, strict=False)))
        except ValueError:
            raise ValueError(f"PEE_TRUSTED_PROXIES: {word!r} is not an IP address or CIDR range (such as 10.0.0.0/8)") from None
    return out


def render(listen: str, app_ports: list[int], run_dir: str, access_log: str | None = None, pid: str = "nginx.pid", trusted: list[str] = ()) -> str:
    """The template filled in for the image: one upstream server per app process on loopback, and a
    set_real_ip_from line per trusted proxy (`trusted_proxies`)."""
    servers = "\n".join(f"        server 127.0.0.1:{port} max_fails=3 fail_timeout=10s;" for port in app_ports)
    real_ip = "\n".join(f"    set_real_ip_from {network};" for network in trusted)
    text = TEMPLATE.read_text()
    text = re.sub(r"(?m)^error_log .*;$", "error_log stderr warn;", text)
    if access_log:
        text = text.replace("{{LOGS}}/nginx-access.log", access_log)
    else:
        text = re.sub(r"(?m)^(\s*)access_log .*;$", r"\1access_log off;", text)
    text = re.sub(r"(?m)^pid .*;$", f"pid {pid};", text)
    for key, value in {"PREFIX": run_dir, "LOGS": run_dir, "LISTEN": listen, "SERVERS": servers, "REAL_IP_FROM": real_ip}.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python deploy/image/nginx.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--listen", default="0.0.0.0:8501")
    p.add_argument("--app-ports", type=int, nargs="+", required=True)
    p.add_argument("--run-dir", default=os.environ.get("PEE_RUN_DIR", "/tmp/pee-explorer"))
    p.add_argument("--access-log")
    p.add_argument("--nginx", default=os.environ.get("PEE_NGINX", "nginx"))
    p.add_argument("--trusted-proxies", default=os.environ.get("PEE_TRUSTED_PROXIES", ""), help="addresses or CIDR ranges whose X-Forwarded-For is believed")
    p.add_argument("--print", action="store_true", help="print the configuration and exit")
    args = p.parse_args(argv)
    try:
        trusted = trusted_proxies(args.trusted_proxies)
    except ValueError as err:
        print(err, file=sys.stderr)
        return 2
    if args.print:
        print(render(args.listen, args.app_ports, args.run_dir, args.access_log, trusted=trusted))
        return 0
    nginx = shutil.which(args.nginx) or args.nginx
    pid = os.memfd_create("nginx.pid", 0)  # flags 0: no close-on-exec, nginx inherits both
    conf = os.memfd_create("nginx.conf", 0)
    os.write(conf, render(args.listen, args.app_ports, args.run_dir, args.access_log, pid=f"/proc/self/fd/{pid}", trusted=trusted).encode())
    os.execv(nginx, [nginx, "-e", "stderr", "-p", args.run_dir, "-c", f"/proc/self/fd/{conf}"])
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
