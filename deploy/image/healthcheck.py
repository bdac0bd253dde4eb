"""The image's HEALTHCHECK: nginx and every app process the entrypoint started answer `ok`.

    python deploy/image/healthcheck.py [RUN_DIR]

Asking nginx alone would hide a dead app process (nginx sends its visitors to another one), so
this reads the ports deploy/image/entrypoint.sh wrote to RUN_DIR/ports (PEE_RUN_DIR, default
/tmp/pee-explorer) and asks each /_stcore/health directly. Exit status 0 when all answered `ok`,
1 otherwise, with one line per port that did not. With PEE_PROXY=none (no ports file) it asks
the one process on PEE_PORT (8501). Standard library only: the slim image has no curl.
"""

from __future__ import annotations

import os
import sys
import urllib.request
from pathlib import Path


def ports(run_dir: Path) -> list[tuple[str, int]]:
    """(role, port) for nginx and every app process, from the entrypoint's ports file."""
    try:
        lines = (run_dir / "ports").read_text().split("\n")
    except OSError:
        return [("app", int(os.environ.get("PEE_PORT", "8501")))]
    found = []
    for line in lines:
        role, _, port = line.partition(" ")
        if port.strip().isdigit():
            found.append((role, int(port)))
    return found


def healthy(port: int, timeout: float = 4.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=timeout) as response:
            return response.read().strip() == b"ok"
    except OSError:
        return False


def main(argv: list[str]) -> int:
    run_dir = Path(argv[1] if len(argv) > 1 else os.environ.get("PEE_RUN_DIR", "/tmp/pee-explorer"))
    checked = ports(run_dir)
    failed = [(role, port) for role, port in checked if not healthy(port)]
    for role, port in failed:
        print(f"{role} on port {port}: no healthy answer")
    return 1 if failed or not checked else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
