"""Where the test suite's CPU goes, by kind of process: runs pytest (arguments after `--`, default the
whole suite on a worker per core, as scripts/test.sh does) and, every half second meanwhile, reads the CPU
time of every process descended from that pytest run, grouped as Chromium's renderers, browser process, GPU,
utility and zygote processes, the app servers the browser tests start, pytest (its main process and its
workers), Playwright's driver, and the rest.

    python scripts/suite_cpu.py                        # the whole suite
    python scripts/suite_cpu.py -- tests/e2e/test_browser.py

Every figure is read from samples, so a process that lives less than half a second can be missed, and
one that exits keeps the time it had at its last sample: the sums are lower bounds. How busy the machine's
cores were over the run (every process, from /proc/stat) follows the table, with the wall time and pytest's
last line.
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
sys.path.insert(0, str(ROOT))  # run as a script: bench/ is imported from the checkout

from harness.server import descendants  # noqa: E402  # the process tree, as the load bench reads it

TICK = os.sysconf("SC_CLK_TCK")


def kind(cmdline: bytes) -> str:
    """The group a process's command line (NUL-separated, as /proc/PID/cmdline holds it) puts it in."""
    args = [a for a in cmdline.split(b"\0") if a]
    if args and b" " in args[0]:  # a process that retitled itself (Chromium's forked children) has its arguments in one string
        args = args[0].split(b" ")
    program = os.path.basename(args[0]) if args else b""
    if program in (b"chromium", b"chrome", b"headless_shell"):
        kinds = [a.removeprefix(b"--type=") for a in args if a.startswith(b"--type=")]
        return "chromium " + (kinds[0].decode() if kinds else "browser")
    module = args[args.index(b"-m") + 1 :] if b"-m" in args else []  # python -m MODULE ...
    if module[:2] == [b"streamlit", b"run"]:
        return "app server"
    if module[:1] == [b"pytest"]:
        return "pytest"
    code = args[args.index(b"-c") + 1 :][:1] if b"-c" in args else []
    if code and b"sys.stdin.readline" in code[0]:  # pytest-xdist's workers: python -u -c "import sys;exec(eval(sys.stdin.readline()))"
        return "pytest"
    if program == b"node" and any(b"playwright" in a for a in args):
        return "playwright driver"
    return "other"


def cpu_seconds(stat: str) -> float:
    """User + system CPU seconds from the text of /proc/PID/stat."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def sample(root: int, seen: dict[tuple[int, str], list]) -> None:
    """Read `root` and every process below it once: its latest CPU time and group, under (pid, start time)."""
    for pid in [root, *descendants(root)]:
        try:
            stat = open(f"/proc/{pid}/stat").read()
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:  # gone meanwhile
            continue
        key = (pid, stat.rsplit(")", 1)[1].split()[19])
        # read again each time (a forked child is renamed when it execs), but an exited child not yet waited for has none left
        group = kind(cmdline) if cmdline else seen.get(key, ["other"])[0]
        seen[key] = [group, cpu_seconds(stat)]


def busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far, from the first line of /proc/stat."""
    values = [int(v) for v in open("/proc/stat").readline().split()[1:]]
    idle = values[3] + values[4]  # idle and iowait
    return (sum(values) - idle) / TICK, sum(values) / TICK


def main(argv: list[str]) -> int:
    args = argv[argv.index("--") + 1 :] if "--" in argv else ["-n", "auto", "--dist", "worksteal"]
    env = {**os.environ, "OPENBLAS_THREAD_TIMEOUT": os.environ.get("OPENBLAS_THREAD_TIMEOUT", "4")}  # as scripts/test.sh
    seen: dict[tuple[int, str], list] = {}
    start, machine = time.monotonic(), busy()
    run = subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(run.stdout), daemon=True)
    reader.start()
    while run.poll() is None:
        sample(run.pid, seen)
        time.sleep(0.5)
    reader.join()
    wall, machine = time.monotonic() - start, [b - a for a, b in zip(machine, busy())]
    totals = Counter()
    for group, seconds in seen.values():
        totals[group] += seconds
    print("| process | CPU-s |\n|---|---|")
    for group, seconds in totals.most_common():
        print(f"| {group} | {seconds:.0f} |")
    print(f"| all | {sum(totals.values()):.0f} |")
    last = next((line.strip() for line in reversed(output) if line.strip()), "")
    print(f"\nwall {wall:.0f} s; the machine's cores {100 * machine[0] / machine[1]:.0f} % busy; pytest: {last}")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
