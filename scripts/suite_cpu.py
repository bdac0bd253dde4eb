"""Where the test suite's CPU goes, by kind of process: runs pytest (arguments after `--`, default the
whole suite on a worker per core, as scripts/test.sh does) and, every half second meanwhile, reads the CPU
time of every process on the machine that started after it, grouped as Chromium's renderers, its browser
process, its GPU and utility processes, the app servers the browser tests start, pytest's workers, and the rest.

    python scripts/suite_cpu.py                        # the whole suite
    python scripts/suite_cpu.py -- tests/e2e/test_browser.py

A process that lives less than half a second can be missed; one that exits between two reads keeps the
time it had at the last read. The wall time and pytest's last line follow the table.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def kind(cmdline: bytes) -> str:
    """The group a process's command line puts it in."""
    if b"chromium" in cmdline or b"chrome" in cmdline:
        for part in (b"renderer", b"gpu-process", b"utility", b"zygote"):
            if b"--type=" + part in cmdline:
                return "chromium " + part.decode()
        return "chromium browser"
    if b"streamlit" in cmdline:
        return "app server"
    if b"pytest" in cmdline or b"sys.stdin.readline" in cmdline:  # pytest-xdist's workers start as `python -c "...exec(eval(sys.stdin.readline()))"`
        return "pytest"
    if b"node" in cmdline and b"playwright" in cmdline:
        return "playwright driver"
    return "other"


def cpu_seconds(stat: str) -> float:
    """User + system CPU seconds from the text of /proc/PID/stat."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def sample(seen: dict[tuple[str, str], list], before: set[tuple[str, str]]) -> None:
    """Read every process once: its latest CPU time under (pid, start time), and its group the first time."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = open(f"/proc/{pid}/stat").read()
            key = (pid, stat.rsplit(")", 1)[1].split()[19])
            if key in before:
                continue
            if key not in seen:
                seen[key] = [kind(open(f"/proc/{pid}/cmdline", "rb").read()), 0.0]
            seen[key][1] = cpu_seconds(stat)
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue


def main(argv: list[str]) -> int:
    args = argv[argv.index("--") + 1 :] if "--" in argv else ["-n", "auto", "--dist", "worksteal"]
    before: set[tuple[str, str]] = set()
    sample(seen := {}, before)
    before, seen = set(seen), {}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            sample(seen, before)
            time.sleep(0.5)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    start = time.monotonic()
    env = {**os.environ, "OPENBLAS_THREAD_TIMEOUT": os.environ.get("OPENBLAS_THREAD_TIMEOUT", "4")}  # as scripts/test.sh
    run = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    done.set()
    watcher.join()
    totals = Counter()
    for group, seconds in seen.values():
        totals[group] += seconds
    print("| process | CPU-s |\n|---|---|")
    for group, seconds in totals.most_common():
        print(f"| {group} | {seconds:.0f} |")
    print(f"| all | {sum(totals.values()):.0f} |")
    last = (run.stdout.strip().splitlines() or [""])[-1]
    print(f"\nwall {wall:.0f} s; pytest: {last}")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
