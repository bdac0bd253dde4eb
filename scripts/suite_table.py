"""Tests and seconds per test file, before and after a change to the suite, from two JUnit reports:

    python -m pytest --junitxml=/tmp/before.xml              # in a checkout of the suite before
    bash scripts/test.sh --junitxml=/tmp/after.xml            # in this one
    python scripts/suite_table.py /tmp/before.xml /tmp/after.xml

Seconds are each file's tests' own durations summed (setup, call and teardown), whatever the
number of workers that ran them; a file that exists in one report only shows a dash in the other.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter


def by_file(path: str) -> tuple[Counter, Counter]:
    tests, seconds = Counter(), Counter()
    for case in ET.parse(path).iter("testcase"):
        name = case.get("classname", "").replace(".", "/") + ".py"
        tests[name] += 1
        seconds[name] += float(case.get("time", 0))
    return tests, seconds


def main(before: str, after: str) -> None:
    (n0, s0), (n1, s1) = by_file(before), by_file(after)
    rows = sorted(set(n0) | set(n1), key=lambda f: -max(s0[f], s1[f]))
    print("| file | tests before | tests after | s before | s after |\n|---|---:|---:|---:|---:|")
    for f in rows:
        cells = [str(n0[f]) if f in n0 else "–", str(n1[f]) if f in n1 else "–", f"{s0[f]:.1f}" if f in s0 else "–", f"{s1[f]:.1f}" if f in s1 else "–"]
        print(f"| {f} | " + " | ".join(cells) + " |")
    print(f"| all | {sum(n0.values())} | {sum(n1.values())} | {sum(s0.values()):.0f} | {sum(s1.values()):.0f} |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
