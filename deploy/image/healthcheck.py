"""The image's HEALTHCHECK: nginx and every app process the entrypoint started answer `ok`.

    python deploy/image/healthcheck.py

Asking nginx alone would hide a dead app process (nginx sends its visitors to another one), so
this asks each app process's /_stcore/health directly, on the ports deploy/image/entrypoint.sh
gives them: PEE_APP_PORT (8511) and the next ones, one per process (PEE_PROCESSES, or the count
`entrypoint.sh --cores` prints, as the entrypoint itself decides), and nginx on PEE_PORT (8501).
With PEE_PROXY=none, the one process on PEE_PORT. Exit status 0 when all answered `ok`, 1
otherwise, with one line per port that did not. Standard library only: the slim image has no curl.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from collections.abc import Mapping
from pathlib import Path

ENTRYPOINT = Path(__file__).resolve().parent / "entrypoint.sh"


def ports(environ: Mapping[str, str]) -> list[tuple[str, int]]:
    """(what, port) for nginx and every app process, as the entrypoint sets them up from `environ`."""
    port = int(environ.get("PEE_PORT", "8501"))
    if environ.get("PEE_PROXY", "nginx") == "none":
        return [("app", port)]
    n = environ.get("PEE_PROCESSES") or subprocess.run(["sh", str(ENTRYPOINT), "--cores"], capture_output=True, text=True, env=dict(environ)).stdout
    first = int(environ.get("PEE_APP_PORT", "8511"))
    return [("nginx", port)] + [(f"app process {i + 1}", first + i) for i in range(int(n))]


def healthy(port: int, timeout: float = 4.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=timeout) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


def main() -> int:
    failed = [(what, port) for what, port in ports(os.environ) if not healthy(port)]
    for what, port in failed:
        print(f"{what} on port {port}: no healthy answer")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
